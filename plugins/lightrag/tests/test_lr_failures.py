"""Failures LightRAG reports, told as mnote-kr's own reader knows them (replayed LightRAG rows)."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.replay import load_sample, replayed_provider

import mnote_kr_docx_locator
import mnote_kr_lightrag as plugin
from mnote_kr.errors import DocumentError
from mnote_kr.models import SourceEntry
from mnote_kr_lightrag.client import fallback, naming

SAMPLES = SAMPLES_DIR


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    return replayed_provider(tmp_path, SAMPLES)


def test_lr_sync_says_an_encrypted_docx_is_encrypted_not_a_legacy_doc(env: dict[str, Any]) -> None:
    """An encrypted DOCX is an OLE2 package: LightRAG's parser calls it a legacy .doc and the user would
    be told to save it as .docx. The host's own reader finds it encrypted (a newcomer's check)."""
    ws, replay = env["ws"], env["replay"]
    _, body = load_sample(SAMPLES, "34_documents_paginated_all.json")
    row = copy.deepcopy(next(r for r in body["documents"] if r["file_path"] == "broken.docx"))
    data = (CORPUS / "bad" / "poi__bug53475-password-is-pass.docx").read_bytes()
    rel = "my-password-is-pass.docx"  # a name that says "password": LightRAG's reason does not
    (ws / rel).write_bytes(data)
    sha = "sha256:" + hashlib.sha256(data).hexdigest()
    name = naming.link_name(rel, sha, naming.workspace_tag(env["ws"]))
    row.update(id=naming.doc_id_for(name), file_path=name, error_msg=(  # LightRAG 1.5.7's own words for it
        f"File is not a valid DOCX document: The file at '/in/{name}' is a legacy Word 97-2003 (.doc) document "
        "saved with a .docx extension. python-docx only supports the Office Open XML (.docx) format."))
    replay.json("POST", "/documents/paginated", {**body, "documents": [row]})  # the recorded page, this row alone
    ctx = dataclasses.replace(env["ctx"], extract_text=mnote_kr_docx_locator.extract_text)
    entry = SourceEntry(source_id=rel, source_path=str(ws / rel), source_root_relative_path=rel, source_hash=sha,
                        size=len(data), status="submitted", light_rag_file_path=name)
    [update] = plugin.sync(ctx=ctx, entries=[entry], wait_s=0)
    assert update.status == "failed"
    assert update.last_error.startswith("the file is encrypted with a password: ")
    assert ".doc" not in update.last_error and "save as" not in update.last_error
    assert (ws / rel).read_bytes() == data
    # our reader's other refusals, and a reason LightRAG already gives right, leave LightRAG's reason
    assert fallback.encrypted(update, DocumentError("not a zip file (not a DOCX): x.docx"), row) is None
    told = {**row, "error_msg": "PDF is encrypted but no password provided"}
    assert fallback.encrypted(update, DocumentError("DOCX is encrypted (password protected): x.docx"), told) is None


@pytest.mark.parametrize("content_type", [
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",  # .dotx
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",  # .dotm
])
def test_a_word_template_is_told_as_a_template_not_as_a_broken_word_file(content_type: str) -> None:
    """A newcomer's poi__stress014.docx (a template's content type): status quoted python-docx's "is not a Word
    file, content type is ...", which reads as if the file were broken; README calls it a Word template."""
    from mnote_kr_lightrag.client.failures import explain_failure

    link = "stress014.0123abcd-4567ef89.docx"
    error = f"file '/srv/inputs/{link}' is not a Word file, content type is '{content_type}'"
    said = fallback.note(error, link)
    assert "a Word template" in said and "not a Word file" not in said and "content type" not in said, said
    assert "indexed from the text mnote-kr reads" in said and link not in said
    line = explain_failure(error, link_name=link, file_name="docs/stress014.docx")
    assert "a Word template" in line and "not a Word file" not in line and "(.docx)" in line, line
