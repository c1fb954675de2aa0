"""A passage's place stating the kind of answer asked is among the places behind one stating none
(``answertype.typed_behind``, ``placing.place_by_meaning``).

nc25b Q10 (round 25): "企划提案书的提交截止时间是什么时候？" over ``poi__stress019.docx`` (a Japanese call for tenders).
LightRAG's passage held section 8: the heading "８．企画提案書等の提出期限" (¶89), "（１）提出期限" (¶90), the date line
"平成３０年１０月１１日（木）午後５時まで" (¶91) and the rules after it. By words and meaning the heading came first and
the date line was none of the passage's places behind it, so no later rule could offer it. The passage below is the
one the newcomer's search returned (``rawQuote``), cut after the date line's section.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.citations.locate import answertype
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

DOC = Path(__file__).resolve().parent / "data" / "corpus" / "docx" / "poi__stress019.docx"
PASSAGE = ("印を押印とする。\n（３）その他\nア\u3000企画提案書については、許可なく他に公表、貸与、使用しない。\n"
           "イ\u3000提出物については返却しないものとする。\n"
           "ウ\u3000原則として、企画提案書の提出後の内容変更は認められないものとする。\n"
           "エ\u3000決定した事業者の企画提案書に記載された全ての内容の著作権は、提供者に帰属するが、"
           "全国農業高等学校長協会に無償及び無条件で著作使用権を認めるものとする。\n"
           "８．企画提案書等の提出期限\n（１）提出期限\n平成３０年１０月１１日（木）午後５時まで\n"
           "期限内に提出しない業者については、プロポーザルへの参加辞退とみなす。\n（２）提出方法\n"
           "提案書\u3000ワード（もしくはパワーポイント）にて作成し、印刷用データとしてPDFデータを作成し２種メールにて"
           "送付すること。（メールの他に本書を郵送）\n他説明に必要な資料、会社概要（パンフレット等）などPDF送付しても良い。")
EVIDENCE = PASSAGE.split("\n期限内")[0]
DATE = "平成３０年１０月１１日（木）午後５時まで"


def _with_vectors() -> None:
    """The file's paragraph vectors, as ingest's preparation stores them."""
    from mnote_kr.citations.rank import meaning
    from mnote_kr_docx_locator import prepare_locate

    meaning._memo.clear()
    with meaning._queue_lock:  # what earlier tests prepared and never embedded
        meaning._queue.clear()
    prepare_locate(str(DOC))
    assert meaning.embed_queued(lambda line: None) == 1


def test_the_date_line_is_offered_behind_the_heading_of_a_deadline_question(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    before = hashlib.sha256(DOC.read_bytes()).digest()
    _with_vectors()
    pm = load_plugins(None)

    def places(query: str) -> list[str]:
        loc = pm.locate(LocateRequest(file=str(DOC), evidence=EVIDENCE, passage=PASSAGE, query=query))
        return [(p.place_text or "").strip() for p in (loc, *loc.runners_up)]

    for query in ("企划提案书的提交截止时间是什么时候？", "企划提案书的提交截止时间"):
        got = places(query)
        assert DATE in got[:3], (query, got)  # the place chosen and the passage's two behind it
    # a question asking no kind of answer keeps the passage's places by words and meaning
    assert DATE not in places("企划提案书有哪些使用限制")[:3]
    monkeypatch.setattr(answertype, "TYPED_BEHIND", False)  # as before round 25: the date line is no place
    assert DATE not in places("企划提案书的提交截止时间是什么时候？")
    assert hashlib.sha256(DOC.read_bytes()).digest() == before
