"""What a newcomer is told: a failed file's reason fits its cause, and the engine's start says which
server a folder uses (each case from a newcomer's check of the tool)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr_lightrag.client.failures import explain_failure

LINK = "mineru__scanned.cafbc825-76a0ecf6.pdf"


def test_an_empty_file_is_told_it_is_empty_not_to_try_again() -> None:
    """pypdf's words for a 0-byte PDF, as LightRAG passes them on; a newcomer was told that
    ingesting it again "tries again", which cannot help."""
    line = explain_failure("Cannot read an empty file", link_name=LINK, file_name="papers/blank.pdf")
    assert line == "Cannot read an empty file: sync and watch index it once it has content"


def test_an_empty_docx_is_told_it_is_empty_once() -> None:
    """LightRAG's DOCX parser's words for a 0-byte file; a newcomer read "...the file is empty (0 bytes): the file
    is empty; sync and watch ..." (said twice)."""
    error = (f"File is not a valid DOCX document: The file at '/in/{LINK}' is empty (0 bytes). The upload was "
             "probably interrupted.")
    line = explain_failure(error, link_name=LINK, file_name="notes/empty.docx")
    assert line.lower().count("is empty") == 1, line
    assert "(0 bytes)" in line and line.endswith("sync and watch index it once it has content"), line


def test_an_encrypted_pdf_is_told_it_is_encrypted_once() -> None:
    """LightRAG's own words for a PDF with a password (its pypdf extractor) already say it is encrypted; a
    newcomer read "...no password provided: the file is encrypted; save a copy ..." (said twice)."""
    line = explain_failure("PDF is encrypted but no password provided", link_name=LINK, file_name="papers/locked.pdf")
    assert line.lower().count("encrypted") == 1, line
    assert line.startswith("PDF is encrypted but no password provided: ") and "save a copy without the password" in line
    # a headline that does not say it keeps the cause in the advice
    other = explain_failure("Cannot open the file. It asks for a password", link_name=LINK, file_name="papers/x.pdf")
    assert other.lower().count("encrypted") == 1 and "save a copy without the password" in other, other


@pytest.mark.parametrize("error", ["Stream has ended unexpectedly", "EOF marker not found", "startxref not found"])
def test_a_damaged_pdf_is_told_it_is_damaged_not_to_try_again(error: str) -> None:
    """pypdf's words for a broken PDF (a newcomer's 300 MB of zeros named .pdf said 'tries again')."""
    line = explain_failure(error, link_name=LINK, file_name="sub/huge-scan.pdf")
    assert line == f"{error}: the PDF is damaged or not a PDF; restore it from a backup or the original source, " \
                   "then 'mnote-kr ingest sub/huge-scan.pdf'"


def test_engine_start_says_its_url_is_the_shared_server_and_where_a_workspace_is_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer ran 'engine start' in a folder and took its URL for the one the folder uses; each
    workspace is served by a server of its own (docs/workspaces.md), and the output now says so."""
    from types import SimpleNamespace

    from click.testing import CliRunner

    import mnote_kr_lightrag.commands as commands
    from mnote_kr.cli.main import cli

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    info = SimpleNamespace(url="http://127.0.0.1:42211", offline_models=True, input_dir="/h/inputs", storage_note=None)
    monkeypatch.setattr(commands, "start", lambda quiet=False: info)
    folder = tmp_path / "papers"
    folder.mkdir()
    monkeypatch.chdir(folder)
    out = CliRunner().invoke(cli, ["engine", "start"])
    assert out.exit_code == 0, out.output
    assert "shared server at http://127.0.0.1:42211" in out.output
    assert "Each workspace gets a LightRAG server of its own on first use" in out.output
    (folder / ".mnote").mkdir()
    out = CliRunner().invoke(cli, ["engine", "start"])
    assert f"This workspace ({folder.resolve()}): its own server starts on first use" in out.output, out.output


@pytest.mark.parametrize("query", ["😀" * 200, "?!…", "★ ☆ ✦"])
def test_a_query_of_symbols_alone_is_told_to_give_words_before_the_provider_fails_on_it(query: str) -> None:
    """200 emoji made LightRAG answer HTTP 500 (no keywords), shown as a provider error (a newcomer's check)."""
    from mnote_kr.citations.map.request import query_request
    from mnote_kr.errors import UsageError

    with pytest.raises(UsageError, match="The query has no words, only symbols"):
        query_request({}, query, top_k=5, mode="mix", rerank=None, want_answer=False)
    assert query_request({}, "★ 打字机", top_k=5, mode="mix", rerank=None, want_answer=False).query == "★ 打字机"


def test_a_pdf_pypdf_cannot_read_is_told_it_looks_damaged_not_to_try_again() -> None:
    """A truncated PDF: pypdf's "Invalid object in /Pages" said "'mnote-kr ingest broken_copy.pdf' tries
    again; 'mnote-kr status' lists failures" (a newcomer's check); sending the same bytes cannot help."""
    line = explain_failure("Invalid object in /Pages: 0", link_name=LINK, file_name="broken_copy.pdf")
    assert "tries again" not in line and "lists failures" not in line, line
    assert "damaged" in line and "then 'mnote-kr ingest broken_copy.pdf'" in line, line


def test_a_parse_failure_of_the_files_own_content_says_replace_or_repair_it() -> None:
    """LightRAG marks a failure of its parser on the file (``metadata.error_type: file_extraction_error``):
    an error text no rule knows still says the file looks damaged, and to replace or repair it."""
    line = explain_failure("Unexpected token 0x8f at offset 77", link_name=LINK, file_name="a/odd.docx",
                           content_fault=True)
    assert line == ("Unexpected token 0x8f at offset 77: the file looks damaged or unreadable; replace it with a "
                    "good copy (a backup or the original source) or repair it, then 'mnote-kr ingest a/odd.docx'")
    # the same parse stage failing on the network (a remote parser) is no fault of the file: trying again can help
    timeout = explain_failure("Read timed out connecting to the parser", link_name=LINK, file_name="a/odd.docx",
                              content_fault=True)
    assert timeout.endswith(": 'mnote-kr ingest a/odd.docx' tries again"), timeout


def test_a_reason_never_sends_the_reader_to_status_from_inside_status() -> None:
    """The reason is stored and printed by 'mnote-kr status' itself: it must not say "'mnote-kr status' lists
    failures" (the ingest's closing error line says where the failures are listed)."""
    line = explain_failure("Something odd happened", link_name=LINK, file_name="x.md")
    assert line == "Something odd happened: 'mnote-kr ingest x.md' tries again"


def test_a_failed_row_of_a_parse_failure_is_read_as_the_files_own_fault() -> None:
    """A recorded-shape failed row (LightRAG 1.5.7: ``error_type``/``error_stage`` in its metadata)."""
    from mnote_kr_lightrag.client.docrows import update_from_row

    row = {"id": "doc-0", "status": "failed", "error_msg": "Bad magic number in section header",
           "metadata": {"error_type": "file_extraction_error", "error_stage": "parse"}, "file_path": LINK}
    update = update_from_row("papers/scan.pdf", LINK, row)
    assert update.status == "failed" and "looks damaged" in (update.last_error or ""), update.last_error
    row["metadata"] = {}
    plain = update_from_row("papers/scan.pdf", LINK, row)
    assert "tries again" in (plain.last_error or ""), plain.last_error
