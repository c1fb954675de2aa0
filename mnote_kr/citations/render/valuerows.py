"""``VALUE_ROW_LEADS``: for a question asking a value, a table row of the file leads a first place stating none.

A file's places behind its first are ordered by their cosine with the question (``folding.behind_by_meaning``),
and e5 reads a caption ("表 7.7 监控通信设施用地指标（公顷/处）") or the clause pointing at the table ("其用地指标不
宜超过表 7.7 的规定") nearer "桥梁和隧道的监控通信站最多能占多少公顷土地" than the table's row of figures
("路段监控通信分中心: 1.7333; ...; 桥隧监控通信站: 0.5333"). The row answers; the caption and the clause only say
where the answer is. ``TYPE_LEADS`` likewise for a place stating the kind of answer asked (:func:`states_type`:
"数据寿命超过10年" for 多少年) beside the words the question is about (:func:`asked_about`). Pure: no I/O.
"""

from __future__ import annotations

from mnote_kr.citations.rank.cues import answer_types, holds_count_across, holds_type, without_asking
from mnote_kr.citations.rank.ranking import fold, terms
from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["asked_about", "asks_value", "holds_question", "is_keyed_row", "is_value_row", "names_label", "states_type",
           "states_value"]

#: A question asking a figure beside the answer types ``cues.answer_types`` knows: a count, total, value or rate
#: named as a noun ("the overall count of checks", 基准值, 得分), not by a question word.
_ASKS_RE = lazy_compile(r"多少|(?<!哪)几|值|得分|\bhow\s+(?:many|much)\b"
                          r"|\b(?:count|total|number|value|amount|rate|score)s?\b")
#: A number: digits with thousands separators, a decimal part, a sign or a percent.
_NUMBER_RE = lazy_compile(r"[-−]?\d[\d,，]*(?:\.\d+)?%?")
#: A number naming a part of the document, not a value: 表 7.7, 图 3, 第 7.10 条, Table 3, Fig. 4, section 5.3.
_REFERENCE_RE = lazy_compile(r"(?:[表图第]|\b(?:table|tab\.|fig\.|figure|section|sec\.|chapter|article)|§)\s*"
                              r"\d+(?:[.\-–]\d+)*(?:\s*[条章节款项])?|\d+(?:\.\d+)*\s*[条章节款]")
#: The answer types asking a figure a table holds (a date, a frequency or a duration is said in prose as often).
_FIGURES = ("money", "percent", "ratio", "size", "distance", "speed", "count:")
#: Punctuation of Chinese prose: a table's row holds none of it.
_PROSE_RE = lazy_compile(r"[，。！？、]")
#: A Latin word, and a CJK character.
_LATIN_RE = lazy_compile(r"[a-z]{3,}")
_CJK_RE = lazy_compile(r"[\u3400-\u9fff]")
#: Words that ask, not name, beside the dictionary's stop words: no row answers by saying them (许多 "many").
_ASKING = frozenset({"many", "much"})
#: A run of CJK characters (one token: Chinese has no spaces) or a Latin word.
_TOKEN_RE = lazy_compile(r"[\u3400-\u9fff]+|[A-Za-z]+")


def _numbers(text: str) -> list[str]:
    """The numbers of ``text`` standing as values: references to its parts left out, separators dropped."""
    return [m.group(0).replace(",", "").replace("，", "").rstrip("%").lstrip("-−")
            for m in _NUMBER_RE.finditer(_REFERENCE_RE.sub(" ", text))]


def asks_value(query: str) -> bool:
    """``query`` asks for a figure: an answer type (``cues.answer_types``) or a count, total or value named."""
    q = fold(" ".join(query.split()))
    return any(t.startswith(_FIGURES) for t in answer_types(q)) or _ASKS_RE.search(q) is not None


def states_value(text: str, query: str) -> bool:
    """``text`` holds a number that is not the query's own and names no part of the document."""
    asked = set(_numbers(fold(query)))
    return any(n not in asked for n in _numbers(fold(text)))


def holds_question(text: str, query: str) -> bool:
    """``text`` holds every content term of ``query``: the place is what was asked for by name (an XLSX cell's
    comment "Minimum number of saltwater ducks" for that search), not a caption pointing at the answer."""
    asked = set(terms(query))
    return bool(asked) and asked <= set(terms(text))


def is_value_row(text: str, query: str) -> bool:
    """``text`` reads as a table row answering ``query``: at least two numbers standing as values, as many as half
    its words (a CJK run is one), no punctuation of Chinese prose, and one of the query's content terms or one of
    its own numbers; a term asked in the other language counts when the dictionary reads it in the row
    ("monitoring" in 路段监控通信分中心, ``crossmods.said_in_chinese``; 伊利诺伊州 in "Illinois", ``held_words``)."""
    if _PROSE_RE.search(text):  # before folding: NFKC reads the full-width comma as a Latin one
        return False
    folded = fold(" ".join(text.split()))
    numbers = _numbers(folded)
    if len(numbers) < 2 or 2 * len(numbers) < len(_TOKEN_RE.findall(_REFERENCE_RE.sub(" ", folded))):
        return False
    q = fold(" ".join(query.split()))
    if set(numbers) & set(_numbers(q)):
        return True
    held = set(terms(folded))
    if any(t in held for t in terms(q) if not t.isdigit()):
        return True
    return _said_across(folded, q)


def _said_across(row: str, query: str) -> bool:
    """The row says one of the query's words in its other language: a Chinese row one of an English question's
    words, a Latin row one of a Chinese question's."""
    from mnote_kr.citations.text.crosslang import _stop_words
    from mnote_kr.citations.text.crossmods import held_words, said_in_chinese

    stop = _stop_words()
    latin = [w for w in _LATIN_RE.findall(query) if w not in stop and w not in _ASKING]
    if latin and _CJK_RE.search(row) and said_in_chinese(latin, row):
        return True
    return bool(_CJK_RE.search(query)) and bool(held_words(query, set(_LATIN_RE.findall(row))))


def states_type(text: str, query: str, *, across: bool = False) -> bool:
    """``text`` states a kind of answer ``query`` asks (``cues.answer_types``: "10年" for 多少年, "40 words per
    minute" for "how fast"); False for a question asking none. ``across``: ``text`` is written in another language
    than ``query``, so a count of the thing the question names may name it in its own words ("84种语言" for "how many
    languages": ``cues.holds_count_across``)."""
    types = answer_types(fold(" ".join(query.split())))
    folded = fold(" ".join(text.split()))
    return any(holds_type(t, folded) or across and t.startswith("count:") and holds_count_across(folded)
               for t in types)


def asked_about(query: str) -> str:
    """``query`` without the words asking its kind of answer ("how many years", 多少年): what the answer is about."""
    return without_asking(fold(" ".join(query.split())))


def names_label(text: str, query: str) -> bool:
    """``text`` is a row written "label: values" whose label ``query`` names: every content term of it (Kentucky),
    the label itself (路段监控通信分中心), or, for a Latin label and a Chinese question, every word by the dictionary
    (伊利诺伊州 for "Illinois", ``crossmods.named_in_chinese``)."""
    from mnote_kr.citations.text.crossmods import named_in_chinese

    label = text.split(":", 1)[0].strip() if ":" in text else ""
    if not label or _NUMBER_RE.fullmatch(label):
        return False
    q = fold(" ".join(query.split()))
    folded = fold(label)
    wanted = [t for t in terms(folded) if not t.isdigit()]
    if wanted and set(wanted) <= set(terms(q)) or _CJK_RE.search(folded) and folded.replace(" ", "") in q:
        return True
    return label.isascii() and bool(_CJK_RE.search(q)) and named_in_chinese(query, label) is not None


def is_keyed_row(text: str) -> bool:
    """``text`` is a table row as the locators write one: "label: header: value; header: value", at least two of
    its cells and as many as half ending in a number ("Illinois: Permit: 87,190; Handgun: 24,412; ...")."""
    cells = [c for c in text.split(";") if c.strip()]
    valued = sum(1 for c in cells if ":" in c and _NUMBER_RE.fullmatch(c.rsplit(":", 1)[1].strip()))
    return ":" in text and valued >= 2 and 2 * valued >= len(cells)
