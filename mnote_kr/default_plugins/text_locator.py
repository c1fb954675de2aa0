"""Built-in Markdown and plain-text locator (``.md``, ``.markdown``, ``.txt``).

The file is split into paragraphs and the evidence is matched with the shared
``mnote_kr.citations.locate.textmatch`` matcher. ``paragraphIndex`` is the 0-based index in this list:

* paragraphs are blocks of lines separated by blank lines;
* in Markdown files, an ATX heading line (``# ...`` to ``###### ...``) or a setext
  heading (text underlined with ``===``/``---``) is a paragraph of its own and sets the
  heading path of the paragraphs after it; a fenced code block (three or more backticks
  or tildes) is one paragraph, blank lines inside it included, and ``#`` lines in it are
  not headings; YAML front matter (``---`` on the first line) is one paragraph;
* ``.txt`` files are split at blank lines, and a block of one-line entries (a log, a list; ``_entries``) at each
  line.

``highlight`` is a character span (Python ``str`` offsets, not bytes) within the
paragraph's text exactly as it appears in the file (line endings included). Files are
read as UTF-8 (a UTF-8 or UTF-16 byte-order mark is honoured; invalid bytes decode as
U+FFFD), refused above ``MAX_FILE_BYTES`` with ``DocumentError``, and cached by real
path + size + mtime. A sidecar block with a ``heading`` position (LightRAG's native
Markdown parser) scopes the match to the sections under that heading.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.text.textnorm import lazy_compile, markdown_links_as_words
from mnote_kr.errors import DocumentError
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import DocumentModel, LocateRequest, Locator, ModelParagraph, SidecarBlock

if TYPE_CHECKING:  # the matcher loads with the first located file: a built-in must not slow `--help`
    from mnote_kr.citations.caches.filecache import FileCache
    from mnote_kr.citations.locate.textmatch import Scope, TextDocument, TextParagraph

PLUGIN_NAME = "text_locator"
EXTENSIONS = (".md", ".markdown", ".txt")
MARKDOWN_EXTENSIONS = frozenset({".md", ".markdown"})
MAX_FILE_BYTES = 20 * 1024 * 1024
CACHE_SIZE = 64
CACHE_MAX_BYTES = 200 * 1024 * 1024  # sum of cached files' sizes
HEADING_SCOPE_OUTSIDE = 0.7  # a heading anchor is a hint: text outside its section may still win, if clearly better

_ATX = lazy_compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = lazy_compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = lazy_compile(r"^ {0,3}(=+|-+)[ \t]*$")
_MD_TOC_ITEM = lazy_compile(r"^\s*(?:[-*+]|\d+[.)])?\s*\[[^\]]+\]\(#[^)]*\)\s*$")
_LIST_ITEM = lazy_compile(r"^( *)(?:[-*+]|(\d{1,9})[.)])[ \t]+\S")
_TOC_LINE = lazy_compile(r"^[^\n]{1,200}?(?:\t|\.{4,}|…{2,}|·{4,}|_{4,})[\s.…·]*[0-9ivxlcIVXLC]{1,6}\s*$")


def decode_text(data: bytes) -> str:
    """Bytes to text: UTF-16 when it has a BOM, else UTF-8 (BOM dropped), bad bytes as U+FFFD."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


_MD_EMPHASIS = lazy_compile(r"(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")


def plain_heading(title: str) -> str:
    """A Markdown heading as it reads (a citation's ``headingPath``): links and images by their words,
    no emphasis marks or code ticks (``Guide to **Aurora** and [links](x)`` -> ``Guide to Aurora and links``)."""
    text = markdown_links_as_words(title).replace("`", "")
    return " ".join(_MD_EMPHASIS.sub(r"\2", text).split())


def _is_toc(lines: list[str]) -> bool:
    body = [ln.strip() for ln in lines if ln.strip()]
    if not body:
        return False
    return all(_MD_TOC_ITEM.match(ln) or (len(ln) < 240 and _TOC_LINE.match(ln)) for ln in body)


#: The fewest lines of a .txt block read as one-line entries (``_entries``).
ENTRY_LINES = 3
#: A block whose widest line is narrower than this many columns has no wrap column (``_filled``): nobody wraps a
#: paragraph that narrow, and a list of short names or figures is of lines as wide as each other.
WRAP_COLUMNS = 30
#: How many columns short of the block's wrap column a filled line may end: a CJK line one character short (an
#: opening bracket or a closing mark kept off a line's start or end moves a character down).
WRAP_SLACK = 2
#: A line starting an entry whatever the line above it: a bullet, a number, a time, a date, a bracketed tag, a
#: Latin ``key:`` label (a log, a list, settings).
_ENTRY_START = lazy_compile(
    r"^(?:[-*+•·▪◦‣][ \t]|\(?\d{1,3}[.)、](?!\d)|\d{1,2}:\d{2}\b|\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}|\[[^\]\n]{1,40}\]"
    r"|[A-Za-z][\w .-]{0,23}:[ \t])", re.A)  # (a Latin key: a wrapped CJK line may hold a ： anywhere)
_WIDE = "\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff00-\\uffef"  # CJK letters and full-width forms
#: A line's first word: a Latin word (its punctuation with it), else one character, after any opening brackets and
#: quotes (``pdf_bbox.tables`` measures a wrapped cell's line alike).
_FIRST_WORD = lazy_compile(f"[(\\[{{（【「『《“‘\"']*(?:[^\\s{_WIDE}]+|\\S)")


def _columns(text: str) -> int:
    """``text``'s width in columns (a CJK character or full-width form counts two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _filled(line: str, following: str, width: int) -> bool:
    """``line`` reaches the block's wrap column ``width``: the first word of the ``following`` line would not have
    fitted after it (a space between Latin words, none beside a CJK character), ``WRAP_SLACK`` columns given."""
    first = _FIRST_WORD.match(following)
    if not line or first is None:
        return False
    space = 0 if _columns(line[-1]) == 2 or _columns(following[0]) == 2 else 1
    return _columns(line) + space + _columns(first.group()) > width - WRAP_SLACK


def _entries(lines: list[str]) -> bool:
    """A .txt block of ``ENTRY_LINES`` lines or more in which each line starts an entry (a log, a list, a line per
    paragraph): fewer than half of its lines after the first go on from the line above, as a hard-wrapped paragraph's
    do. A line goes on when it starts in lower case or the line above it filled the block's wrap column (``_filled``;
    the column is the widest line's end, so that line's own break tells nothing), in any script: Han, Arabic or Thai
    has no lower case, nor does a line going on with a name or a figure (review30 finding 4). A line starting an
    entry (``_ENTRY_START``: a time, a bullet, ``key:``) never goes on. nc29a's field log was one paragraph, cited
    whole as "paragraph 1"."""
    if len(lines) < ENTRY_LINES:
        return False
    texts = [line.rstrip() for line in lines]
    widths = [_columns(text) for text in texts]
    width = max(widths)
    widest = widths.index(width)
    going_on = 0
    for i in range(1, len(texts)):
        start = texts[i].lstrip()
        if _ENTRY_START.match(start):
            continue
        if start[:1].islower() or (width >= WRAP_COLUMNS and i - 1 != widest and _filled(texts[i - 1], start, width)):
            going_on += 1
    return 2 * going_on < len(lines) - 1


def split_paragraphs(text: str, markdown: bool = True) -> list[TextParagraph]:
    """Split text into paragraphs in ``paragraphIndex`` order (see the module docstring)."""
    from mnote_kr.citations.locate.textmatch import TextParagraph
    paras: list[TextParagraph] = []
    headings: list[tuple[int, str]] = []
    block: list[str] = []

    def add(lines: list[str], level: int = 0, title: str = "", toc_ok: bool = True) -> None:
        raw = "".join(lines)
        # the paragraph's text ends where its last line's content ends (line break not included)
        stripped = raw.rstrip("\r\n")
        if not stripped.strip():
            return
        if level:
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, plain_heading(title)))
        in_toc = toc_ok and not level and _is_toc(lines)
        path = tuple(h for _, h in headings)
        paras.append(
            TextParagraph(index=len(paras), text=stripped, heading_path=path, heading_level=level, in_toc=in_toc)
        )

    def flush() -> None:
        if block and not markdown and _entries(block):
            for line in block:  # a log, a list: each line its own paragraph
                add([line])
            block.clear()
        elif block:
            add(block)
            block.clear()

    lines = text.splitlines(keepends=True)
    i, n = 0, len(lines)
    if markdown and lines and lines[0].rstrip("\r\n") == "---":
        end = next((j for j in range(1, n) if lines[j].rstrip("\r\n") in ("---", "...")), None)
        if end is not None:
            add(lines[: end + 1], toc_ok=False)
            i = end + 1
    while i < n:
        line = lines[i]
        content = line.rstrip("\r\n")
        if not content.strip():
            flush()
            i += 1
            continue
        if markdown:
            fence = _FENCE.match(content)
            if fence:
                flush()
                mark = fence.group(1)
                closing = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
                j = i + 1
                while j < n and not closing.match(lines[j].rstrip("\r\n")):
                    j += 1
                end = min(j + 1, n)  # an unclosed fence runs to the end of the file
                add(lines[i:end], toc_ok=False)
                i = end
                continue
            atx = _ATX.match(content)
            if atx:
                flush()
                add([line], level=len(atx.group(1)), title=(atx.group(2) or "").strip())
                i += 1
                continue
            setext = _SETEXT.match(content)
            if setext and block:
                title = " ".join(ln.strip() for ln in block)
                lines_ = [*block, line]
                block.clear()
                add(lines_, level=1 if setext.group(1)[0] == "=" else 2, title=title)
                i += 1
                continue
        block.append(line)
        i += 1
    flush()
    return paras


def _parse(real: str, st: os.stat_result) -> TextDocument[TextParagraph]:
    from mnote_kr.citations.locate.textmatch import TextDocument

    name = Path(real).name
    if st.st_size > MAX_FILE_BYTES:
        raise DocumentError(
            f"text file too large to locate in ({st.st_size} bytes, limit {MAX_FILE_BYTES}): {name}", path=real
        )
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise DocumentError(f"cannot read text file: {exc.strerror or exc}: {name}", path=real) from exc
    if len(data) > MAX_FILE_BYTES:  # grew after the stat
        raise DocumentError(f"text file too large to locate in (limit {MAX_FILE_BYTES} bytes): {name}", path=real)
    markdown = Path(real).suffix.lower() in MARKDOWN_EXTENSIONS
    return TextDocument(split_paragraphs(decode_text(data), markdown=markdown))


_cache_obj: FileCache[TextDocument[TextParagraph]] | None = None


def _cache() -> FileCache[TextDocument[TextParagraph]]:
    global _cache_obj
    if _cache_obj is None:
        from mnote_kr.citations.caches.filecache import FileCache, Persist
        from mnote_kr.citations.locate.textmatch import TextDocument

        _cache_obj = FileCache(
            _parse, what="text file", max_items=CACHE_SIZE,
            weight=lambda d: sum(len(p.text) for p in d.paragraphs), max_weight=CACHE_MAX_BYTES,  # ~ file sizes
            # 2: plain headings; 3: △, − folded; 4: a .txt's one-line entries each a paragraph; 5: a .txt line
            # filling its block's wrap column goes on (review30 finding 4)
            persist=Persist(name="text", version="5", model=TextDocument),
        )
    return _cache_obj


def __getattr__(name: str) -> Any:
    if name == "stats":  # parse/hit counters of the in-process cache
        return _cache().stats
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_text(path: str | os.PathLike[str]) -> TextDocument[TextParagraph]:
    """Read and split a text file, cached by real path + size + mtime. Raises ``DocumentError``."""
    return _cache().get(path)


def clear_cache() -> None:
    """Forget every cached file (tests, memory pressure)."""
    _cache().clear()


def heading_scope(doc: TextDocument[TextParagraph], block: SidecarBlock | None) -> Scope | None:
    """The sections under the block's ``heading`` position anchor, when the file has them."""
    from mnote_kr.citations.locate.textmatch import Scope, sections_under
    if block is None:
        return None
    ranges: list[tuple[int, int]] = []
    for pos in block.positions:
        if pos.type == "heading" and isinstance(pos.anchor, str) and pos.anchor.strip():
            ranges.extend(r for r in sections_under(doc, pos.anchor) if r not in ranges)
    return Scope(tuple(ranges), HEADING_SCOPE_OUTSIDE) if ranges else None


def locate_text(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in a Markdown or text file. Raises ``DocumentError``."""
    from mnote_kr.citations.locate.placing import locator_from_match, with_meaning
    from mnote_kr.citations.locate.textmatch import match_evidence
    from mnote_kr.citations.locate.units import answering_unit

    doc = load_text(request.file)
    block = request.block
    block_id = request.block_id or (block.blockid if block is not None else None)
    scope = heading_scope(doc, block)
    match = match_evidence(
        doc,
        request.evidence,
        request.query,
        block_heading=block.heading if block is not None else None,
        block_content=block.content if block is not None else None,
        scope=scope,
    )
    match = answering_unit(doc, with_meaning(doc, match, request.passage, request.query, scope), request.query)
    inside = match.paragraph is not None and scope is not None and match.paragraph.index in scope
    return locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id,
                              detail=" in the block's heading section" if inside else "",
                              headings=Path(request.file).suffix.lower() in MARKDOWN_EXTENSIONS, doc=doc)


@hookimpl(trylast=True)
def locator_extensions() -> list[str]:
    """This built-in locates citations in Markdown and plain-text files."""
    return list(EXTENSIONS)


@hookimpl(trylast=True)
def prepare_locate(path: str) -> bool | None:
    """Keep the paragraph model of a Markdown or text file on disk for the first search."""
    if Path(path).suffix.lower() not in EXTENSIONS:
        return None
    from mnote_kr.citations.locate.placing import queue_places

    parsed = _cache().warm(path)
    queue_places(load_text(path))  # ingest embeds its paragraphs once it is citable
    return parsed


@hookimpl(trylast=True)
def check_budget(path: str, max_text_chars: int) -> str | None:
    """Why a Markdown or text file is over the reader's budget (its size above
    ``MAX_FILE_BYTES``) or the host's index budget (``max_text_chars`` characters), or None.
    Its bytes bound its characters: only a file larger than the index budget is read to count."""
    if Path(path).suffix.lower() not in EXTENSIONS:
        return None
    name = Path(path).name
    try:
        size = os.stat(path).st_size
    except OSError:
        return None  # the provider reports what it makes of a file that is gone
    if size > MAX_FILE_BYTES:
        return f"text file too large ({size} bytes, limit {MAX_FILE_BYTES >> 20} MiB): {name}"
    if size > max_text_chars:
        try:
            chars = sum(len(p.text) for p in load_text(path).paragraphs)
        except DocumentError:
            return None
        if chars > max_text_chars:
            return f"text over the index budget: {chars} characters (limit {max_text_chars}: max_index_chars): {name}"
    return None


@hookimpl(trylast=True)
def locate(request: LocateRequest) -> Locator | None:
    """Paragraph locator for ``.md``, ``.markdown`` and ``.txt``; None for any other suffix."""
    if Path(request.file).suffix.lower() not in EXTENSIONS:
        return None
    return locate_text(request)


@hookimpl(trylast=True)
def document_model(path: str) -> DocumentModel | None:
    """The file's paragraphs as ``locate`` counts them, for the viewer; None for another suffix.

    In Markdown, headings keep their level, a block whose first line is a list item is
    a list item (level from its indent), and fenced code is marked as code; the text is
    the file's own text, so ``highlight`` offsets apply unchanged.
    """
    if Path(path).suffix.lower() not in EXTENSIONS:
        return None
    markdown = Path(path).suffix.lower() in MARKDOWN_EXTENSIONS
    out: list[ModelParagraph] = []
    for p in load_text(path).paragraphs:
        item = _LIST_ITEM.match(p.text) if markdown and not p.heading_level else None
        shown, label = _markup(p.text, p.heading_level, item) if markdown else (None, None)
        out.append(ModelParagraph(
            index=p.index, text=p.text, heading_level=p.heading_level, in_toc=p.in_toc,
            list_level=len(item.group(1)) // 2 if item else None, list_ordered=bool(item and item.group(2)),
            code=markdown and bool(_FENCE.match(p.text)), shown=shown, label=label,
        ))
    return DocumentModel(kind="paragraphs", paragraphs=out, plugin=PLUGIN_NAME)


def _markup(text: str, level: int, item: re.Match[str] | None) -> tuple[list[int] | None, str | None]:
    """Where a Markdown paragraph's words lie in its ``text`` (``ModelParagraph.shown``) and a numbered
    item's own number (``label``): the viewer shows ``2.`` once and a heading without ``#`` (nc24b)."""
    if level:
        atx = _ATX.match(text)
        if atx and "\n" not in text:
            return ([atx.start(2), atx.end(2)] if atx.group(2) is not None else [len(text), len(text)]), None
        underline = text.rfind("\n")  # setext: the title lines, not the ===/--- under them
        return ([0, len(text[:underline].rstrip("\r"))] if underline > 0 else None), None
    if item is None:
        return None, None
    marker = item.group(0)[len(item.group(1)):].split(None, 1)[0]  # "2." or "-": the line's own marker
    return [item.end() - 1, len(text)], (marker if item.group(2) else None)
