"""A minimal mnote-kr locator plugin: a citation into a ``.log`` file lands on its line.

It imports only ``mnote_kr.plugin_api``, the host's declared plugin surface. Each line of the
file is one paragraph (``paragraphIndex`` = 0-based line number); the host's text toolkit
(``match_evidence``) finds the line the cited evidence came from, and no confident match
is an honest ``file`` locator.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.plugin_api import DocumentError, LocateRequest, Locator, hookimpl

PLUGIN_NAME = "example_lines"
__version__ = "0.1.0"


@hookimpl
def locator_extensions() -> list[str]:
    return [".log"]


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    if Path(request.file).suffix.lower() != ".log":
        return None  # not ours: the host asks the next locator
    from mnote_kr.plugin_api import TextDocument, TextParagraph, locator_from_match, match_evidence

    try:
        lines = Path(request.file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(f"Cannot read {request.file}: {exc}", hint="check the file is UTF-8 text") from exc
    doc = TextDocument([TextParagraph(index=i, text=line) for i, line in enumerate(lines)])
    match = match_evidence(doc, request.evidence, request.query)
    return locator_from_match(match, plugin=PLUGIN_NAME, block_id=request.block_id)
