"""Footnotes, endnotes and review comments in LightRAG's DOCX reading (the managed engine's process only).

LightRAG 1.5.7's native DOCX parser reads only the document's body (``parse_document.
_read_document_records``) and its run readers (``extract_text_from_run``, and
``table_extractor.extract_text_from_run_table`` in table cells) keep a run's text, tabs, breaks and
drawings only: a run holding a ``w:footnoteReference``/``w:endnoteReference`` reads as nothing and
``footnotes.xml``/``endnotes.xml`` are never opened, so no note's words reach a chunk. The same holds for a
review comment (``w:commentReference``, ``comments.xml``).

:func:`install` wraps those two run readers and ``extract_docx_blocks``: for a document with notes,
the wrapper of ``extract_docx_blocks`` reads its notes parts (``plugin_api.docxnotes``, as the DOCX
locator reads them) and, while LightRAG parses that document, a reference run reads as the note's
text at the mark, `` [Footnote 1: And this is the footnote]``, and a comment's reference (Word puts it right
after the commented range) as the comment, `` [Comment (Jane Smith): Check the figure]``. LightRAG's blocks,
headings, sidecar positions (paraIds) and chunking are otherwise untouched: a note's words land in the chunk of the
paragraph holding its mark, where the locator finds them. A heading's reference stays unread (a
heading keeps its own words and LightRAG's block structure). The notes are numbered from LightRAG's own
parse of the body (python-docx's tree, not parsed again). A document without notes is parsed exactly
as before: only its notes parts are opened, to see that they hold none (measured on the corpus: the
28 DOCX without notes, 1.03x LightRAG's parse time; the 7 with notes, 1.13x).

Defensive on every side: :func:`install` changes nothing (and says so in one line) unless LightRAG is
the version whose parser this was written against and its functions have the expected signatures; a
note that cannot be read leaves its run as LightRAG read it; a document whose parse fails with notes
inline is parsed again without them (so the patch never fails a document); a document's notes parts
are read only when LightRAG already accepted its zip within its decompression budget, and with entity
declarations refused.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import sys
import zipfile
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The LightRAG versions whose DOCX parser this reads notes into (their code was read, not guessed).
SUPPORTED = ("1.5.7",)
_PD = "lightrag.parser.docx.parse_document"
_TE = "lightrag.parser.docx.table_extractor"
#: (module, function) -> the parameter names it must have; else nothing is patched.
EXPECTED: dict[tuple[str, str], tuple[str, ...]] = {
    (_PD, "extract_docx_blocks"): ("file_path", "drawing_context", "parse_warnings", "parse_metadata",
                                   "smart_heading_runtime"),
    (_PD, "extract_text_from_run"): ("run", "ns", "drawing_context"),
    (_PD, "get_heading_level"): ("para_element", "styles_outline_map"),
    (_PD, "parse_styles_outline_levels"): ("docx_path",),
    (_TE, "extract_text_from_run_table"): ("run_elem", "qn_func", "drawing_context"),
}
#: The functions replaced (the others are only called).
PATCHED = ((_PD, "extract_docx_blocks"), (_PD, "extract_text_from_run"), (_TE, "extract_text_from_run_table"))
MAX_PART_BYTES = 64 * 1024 * 1024  # one notes, settings or document part, decompressed
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FOOT, _END, _COMM = f"{W}footnoteReference", f"{W}endnoteReference", f"{W}commentReference"
_REFS = {_FOOT: "footnote", _END: "endnote", _COMM: "comment"}
_MARK = "__mnote_kr_notes__"


def _say(line: str) -> None:
    print(f"mnote-kr: {line}", file=sys.stderr, flush=True)


@dataclass
class _Document:
    """The notes and comments of the document LightRAG is parsing in this thread, and how it tells a heading."""

    texts: dict[tuple[str, str], str]  # (kind, id) -> note or comment text
    settings: dict[str, Any]  # the document's note properties by kind
    styles: dict[str, int]
    heading_level: Callable[[Any, dict[str, int]], Any]
    name: str
    authors: dict[tuple[str, str], str] = field(default_factory=dict)  # (comment, id) -> its author
    used: bool = False
    failures: list[str] = field(default_factory=list)
    _notes: Any = None  # docxnotes.InlineNotes, numbered on the first reference read

    def notes(self, run: Any) -> Any:
        """The document's notes numbered from the body ``run`` stands in (python-docx's own tree: the
        document is not parsed a second time)."""
        if self._notes is None:
            from mnote_kr.plugin_api import docxnotes

            root = run.getroottree().getroot()
            body = root.find(f"{W}body")
            self._notes = docxnotes.document_notes(self.texts, self.settings, body if body is not None else root,
                                                   self.authors)
        return self._notes

    def heading(self, p: Any) -> bool:
        """``p`` is a paragraph LightRAG reads as a heading (a body paragraph with an outline level)."""
        parent = p.getparent()
        return parent is not None and parent.tag == f"{W}body" and self.heading_level(p, self.styles) is not None

    def failed(self, exc: BaseException) -> None:
        if not self.failures:
            _say(f"a note of {self.name} was left unread ({type(exc).__name__}: {exc})")
        self.failures.append(str(exc))


_ACTIVE: ContextVar[_Document | None] = ContextVar("mnote_kr_docx_notes", default=None)


def mismatch() -> str | None:
    """Why LightRAG's parser is not the one this patches (None when it is)."""
    try:
        import lightrag
    except ImportError:
        return "LightRAG is not installed"
    version = str(getattr(lightrag, "__version__", "?"))
    if version not in SUPPORTED:
        return f"LightRAG {version} is not the version whose DOCX parser this was written for ({', '.join(SUPPORTED)})"
    for (module_name, name), params in EXPECTED.items():
        try:
            func = getattr(importlib.import_module(module_name), name)
            got = tuple(inspect.signature(func).parameters)
        except (ImportError, AttributeError, TypeError, ValueError) as exc:
            return f"{module_name}.{name} is not there ({type(exc).__name__})"
        if got != params:
            return f"{module_name}.{name} takes ({', '.join(got)}), not ({', '.join(params)})"
    return None


def install() -> bool:
    """Read DOCX notes into LightRAG's parsing in this process; False (and one line) when LightRAG's
    internals are not what this expects, so nothing was changed."""
    why = mismatch()
    if why is not None:
        _say(f"DOCX footnotes, endnotes and comments are not indexed: {why}")
        return False
    pd = importlib.import_module(_PD)
    for module_name, name in PATCHED:
        module = importlib.import_module(module_name)
        current = getattr(module, name)
        if getattr(current, _MARK, False):
            continue  # installed already
        wrapper: Callable[..., Any] = _blocks(current, pd) if name == "extract_docx_blocks" else _run_reader(current)
        setattr(wrapper, _MARK, True)
        setattr(wrapper, "__wrapped__", current)  # noqa: B010 - a function's attribute mypy does not know
        setattr(module, name, wrapper)
    return True


# --------------------------------------------------------------------------- reading the notes


def _xml(zf: zipfile.ZipFile, name: str) -> Any:
    from lxml import etree

    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_PART_BYTES:
        return None
    data = zf.read(info)
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        return None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError:
        return None


def _targets(zf: zipfile.ZipFile) -> dict[str, str]:
    """The main part and its notes and settings parts (Word's names where no relationship says)."""
    from mnote_kr.plugin_api import docxnotes

    main = "word/document.xml"
    rels = _xml(zf, "_rels/.rels")
    for rel in rels if rels is not None else ():
        if str(rel.get("Type", "")).endswith("/officeDocument") and rel.get("Target"):
            main = str(rel.get("Target")).lstrip("/")
    folder, _, name = main.rpartition("/")
    return docxnotes.part_targets(main, _xml(zf, f"{folder}/_rels/{name}.rels" if folder else f"_rels/{name}.rels"))


def _texts(zf: zipfile.ZipFile, parts: dict[str, str]) -> tuple[dict[tuple[str, str], str],
                                                                  dict[tuple[str, str], str]]:
    """The document's notes' and comments' texts by (kind, id), and its comments' authors."""
    from mnote_kr.plugin_api import docxnotes

    texts: dict[tuple[str, str], str] = {}
    for kind in ("footnotes", "endnotes"):
        root = _xml(zf, parts[kind])
        if root is not None:
            texts.update(docxnotes.note_texts(root))
    comments = _xml(zf, parts["comments"])
    said, authors = docxnotes.comment_texts(comments) if comments is not None else ({}, {})
    texts.update(said)
    return texts, authors


def read_document(file_path: str, pd: Any) -> _Document | None:
    """The notes and comments of the DOCX at ``file_path`` as LightRAG's parse of it will read them; None
    without any."""
    from mnote_kr.plugin_api import docxnotes

    with zipfile.ZipFile(file_path) as zf:
        parts = _targets(zf)
        texts, authors = _texts(zf, parts)
        if not texts:
            return None
        settings = docxnotes.note_props(_xml(zf, parts["settings"]))
    return _Document(texts, settings, pd.parse_styles_outline_levels(file_path), pd.get_heading_level,
                     Path(file_path).name, authors)


#: What :func:`held` finds in a DOCX: a footnote or endnote, a review comment.
NOTES, COMMENTS = "notes", "comments"


def held(file_path: str) -> frozenset[str]:
    """What of ``NOTES`` and ``COMMENTS`` the DOCX at ``file_path`` holds with text: what this module reads into
    LightRAG's parse of it (asked of files indexed before, ``client/readings.py``; only the notes and comments
    parts are read, and none for a file without them). Empty for a file that is no readable zip (LightRAG's
    reading of it changes nothing)."""
    from mnote_kr.plugin_api import MnoteKrError, check_zip

    try:
        check_zip(file_path, "DOCX")
        with zipfile.ZipFile(file_path) as zf:
            texts, _ = _texts(zf, _targets(zf))
    except (MnoteKrError, OSError, zipfile.BadZipFile, ValueError, EOFError, RuntimeError, NotImplementedError):
        return frozenset()
    return frozenset(COMMENTS if kind == "comment" else NOTES for kind, _ in texts)


# --------------------------------------------------------------------------- the wrappers


def _blocks(original: Callable[..., Any], pd: Any) -> Callable[..., Any]:
    """``extract_docx_blocks`` that reads the document's notes inline while LightRAG parses it."""

    def extract_docx_blocks(file_path: str, *args: Any, **kwargs: Any) -> Any:
        try:
            document = read_document(file_path, pd)
        except Exception as exc:  # noqa: BLE001 - the notes are extra: LightRAG's parse goes on without them
            _say(f"the notes of {Path(str(file_path)).name} were not read ({type(exc).__name__}: {exc})")
            document = None
        if document is None:
            return original(file_path, *args, **kwargs)
        # LightRAG's out-dicts (warnings, metadata), to give a second parse a clean start
        outs = [d for d in (*args[1:3], kwargs.get("parse_warnings"), kwargs.get("parse_metadata"))
                if isinstance(d, dict)]
        kept = [(d, dict(d)) for d in outs]
        token = _ACTIVE.set(document)
        try:
            return original(file_path, *args, **kwargs)
        except Exception as exc:
            if not document.used:
                raise  # LightRAG's own failure: nothing of the notes was in it
            failure = exc
        finally:
            _ACTIVE.reset(token)
        _say(f"{document.name} is parsed again without its notes ({type(failure).__name__}: {failure})")
        for d, saved in kept:
            d.clear()
            d.update(saved)
        return original(file_path, *args, **kwargs)

    return extract_docx_blocks


def _run_reader(original: Callable[..., str]) -> Callable[..., str]:
    """A run reader that reads a note reference as the note's text at the mark."""

    def read_run(run: Any, *args: Any, **kwargs: Any) -> str:
        document = _ACTIVE.get()
        if document is not None:
            try:
                if run.find(_FOOT) is not None or run.find(_END) is not None or run.find(_COMM) is not None:
                    return _with_notes(document, original, run, args, kwargs)
            except Exception as exc:  # noqa: BLE001 - the run as LightRAG reads it
                document.failed(exc)
        return original(run, *args, **kwargs)

    return read_run


def _with_notes(document: _Document, original: Callable[..., str], run: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> str:
    from mnote_kr.plugin_api import docxnotes

    p = run.getparent()
    while p is not None and p.tag != f"{W}p":
        p = p.getparent()
    ref = next(child for child in run if child.tag in _REFS)
    if p is None or document.heading(p) or docxnotes.hidden(ref):
        return original(run, *args, **kwargs)
    # a custom mark's w:t reads in the note's label, not again as text (the list keeps the elements alive)
    taken = [el for child in run if child.tag in _REFS for el in (docxnotes.custom_mark(child) or ("", []))[1]]
    marks = {id(el) for el in taken}
    pieces: list[str] = []
    segment: list[Any] = []
    for child in run:
        kind = _REFS.get(child.tag)
        if kind is not None:
            if segment:
                pieces.append(original(_part_of(run, segment), *args, **kwargs))
                segment = []
            pieces.append(document.notes(run).render(kind, child.get(f"{W}id") or ""))
            document.used = True
        elif id(child) not in marks and child.tag != f"{W}rPr":
            segment.append(child)
    if segment:
        pieces.append(original(_part_of(run, segment), *args, **kwargs))
    return "".join(pieces)


def _part_of(run: Any, children: list[Any]) -> Any:
    """A copy of ``run`` (its properties) holding only ``children``: LightRAG reads it as it read the run."""
    part = run.makeelement(run.tag, dict(run.attrib))
    props = run.find(f"{W}rPr")
    for child in ([props] if props is not None else []) + children:
        part.append(copy.deepcopy(child))
    return part
