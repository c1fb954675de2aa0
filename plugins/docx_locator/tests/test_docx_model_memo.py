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
