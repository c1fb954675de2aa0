"""A DOCX's viewer model (``document_model``) is built once per parse (round 28, issue 33's budget: a warm search
ranked by meaning within +100 ms of p95 over words alone): a search asks it of every DOCX list item it quotes, for
the label Word draws before it, and built every paragraph's entry again each time. A new parse (an edited file, a
cache emptied) gets a model of its own, equal to what the parse gives."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS

from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import document_model

CHATCHAT = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"


def test_a_docx_viewer_model_is_built_once_per_parse() -> None:
    before = hashlib.sha256(CHATCHAT.read_bytes()).digest()
    model = document_model(str(CHATCHAT))
    assert model is not None and len(model.paragraphs) > 100
    assert all(document_model(str(CHATCHAT)) is model for _ in range(3))
    docx_cache.clear_cache()  # parsed anew, as an edited file is
    fresh = document_model(str(CHATCHAT))
    assert fresh is not model and fresh == model
    assert any(p.label for p in fresh.paragraphs)  # the labels a quote takes are there
    assert hashlib.sha256(CHATCHAT.read_bytes()).digest() == before


def test_searches_on_many_threads_each_get_their_model_while_the_memo_evicts(monkeypatch) -> None:  # noqa: ANN001
    """review r29 finding 10: the threaded HTTP server asks models of many DOCX at once; the memo's eviction was
    unlocked, and two threads evicting the same oldest entry made one search fail (a KeyError, or "dictionary changed
    size during iteration"). Eight threads ask models of 64 documents, many more than the memo keeps, while the
    interpreter switches threads as often as it can."""
    import sys
    import threading
    import types

    import mnote_kr_docx_locator as docx
    from mnote_kr_docx_locator import cache as docx_cache_module

    docs = {f"/none/f{k}.docx": types.SimpleNamespace(paragraphs=[]) for k in range(64)}
    monkeypatch.setattr(docx_cache_module, "load_docx", lambda path: docs[path])
    paths = list(docs)
    failures: list[BaseException] = []
    asked: list[int] = []

    def ask(first: int) -> None:
        try:
            for k in range(4000):
                path = paths[(first * 8 + k) % len(paths)]
                model = docx.document_model(path)
                assert model is not None and model.kind == "paragraphs"
            asked.append(first)
        except BaseException as exc:  # noqa: BLE001 - any failure of a search is the finding
            failures.append(exc)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often: the unlocked eviction's race shows
    try:
        threads = [threading.Thread(target=ask, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    finally:
        sys.setswitchinterval(switch)
    assert not failures, failures[:3]
    assert sorted(asked) == list(range(8))
