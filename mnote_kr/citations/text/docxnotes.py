"""Footnotes, endnotes and review comments read where their mark stands: the one reading both DOCX readers give them.

LightRAG's DOCX parser never reads a document's notes parts, and its reading of a paragraph drops a
note's reference mark. The managed engine (``mnote_kr_lightrag.engine.docxnotes``, inside LightRAG's
parser) and the DOCX locator (``mnote_kr_docx_locator.notes``) each open the notes parts themselves,
within their own budgets, and read them through this module (``plugin_api.docxnotes``), so both put
the same text in the paragraph holding a note's mark, at the mark: `` [Footnote 1: And this is the
footnote]``, `` [Endnote i: This is an endnote]`` (:func:`inline_note`). A note's words are then in the
chunk of that paragraph, locate to it, and the quote can say them.

A review comment (``word/comments.xml``, :func:`comment_texts`) is read the same way at its reference mark
(``w:commentReference``), which Word puts right after the commented range: `` [Comment (Jane Smith): Check
the figure]``, its author as the comment names one (no author: `` [Comment: ...]``), and no number (Word shows
none in the text). A reply is a comment of its own, with its own mark after the same range.

A note's text (:func:`note_texts`): its paragraphs (table cells included) one after another, its runs'
``w:t`` with tabs and breaks as spaces; not deleted or moved-away text, field codes or text boxes. The
separator notes Word keeps in the same parts (``w:type`` other than ``normal``) are not notes. A
reference reads as nothing, as before, where LightRAG reads no run (:func:`hidden`: deleted or
moved-away text, a text box, a ``mc:Fallback`` copy); the readers also leave a heading's reference
alone (the heading stays the heading's words and LightRAG's block structure stays as it was).

The number is Word's (:func:`note_marks`): footnotes ``1, 2, 3`` and endnotes ``i, ii, iii`` in the
order of their references, unless the document's (``w:settings``) or the section's note properties say
another format (``w:numFmt``), start (``w:numStart``) or restart (``w:numRestart``: ``eachSect`` counts
each section anew; ``eachPage`` depends on where pages break, which a file does not record, so such a
note is written without a number: `` [Footnote: ...]``). A reference with its own mark
(``w:customMarkFollows``: the mark is the run's text right after it, ``*``) is written with that mark,
which is not read again as text, and takes no number, as in Word.

Elements are lxml's (each reader parses with its own hardened parser); this module only walks them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FOOTNOTE = "footnote"
ENDNOTE = "endnote"
COMMENT = "comment"
LABELS = {FOOTNOTE: "Footnote", ENDNOTE: "Endnote", COMMENT: "Comment"}
#: Word's number formats when neither the document nor the section sets one.
DEFAULT_FORMATS = {FOOTNOTE: "decimal", ENDNOTE: "lowerRoman"}
_CHICAGO = ("*", "\u2020", "\u2021", "\u00a7")  # *, dagger, double dagger, section sign
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))
#: The most characters of notes one document's reading puts inline; past it a mark reads as nothing, as
#: before (a hostile file referring to one long note 100,000 times must not make gigabytes of text).
MAX_INLINE_CHARS = 4_000_000
#: Where an inline note or comment opens in a paragraph's or chunk's text (the quote starts a sentence there).
NOTE_OPENING = re.compile(r"\[(?:(?:Footnote|Endnote)(?: [^\s\]:]{1,24})?|Comment(?: \([^\]\n]{1,80}\))?): ")
#: The words every inline note or comment holds, to skip the pattern cheaply on text without any.
NOTE_WORDS = ("note", "Comment")


@dataclass(frozen=True, slots=True)
class NoteProps:
    """A ``w:footnotePr``/``w:endnotePr``: None where it says nothing (the level above decides)."""

    fmt: str | None = None
    start: int | None = None
    restart: str | None = None  # continuous | eachSect | eachPage


@dataclass(frozen=True, slots=True)
class NoteRef:
    """One reference mark in the body, in document order: its note and the section it stands in."""

    kind: str  # FOOTNOTE | ENDNOTE
    note_id: str
    section: int = 0
    custom: str | None = None  # the mark as written, for a reference with its own mark


def note_number(n: int, fmt: str) -> str:
    """``n`` in Word's number format ``fmt`` (decimal for a format it does not know)."""
    if n < 1:
        return str(n)
    if fmt in ("lowerRoman", "upperRoman"):
        out, left = [], n
        for value, letters in _ROMAN:
            while left >= value:
                out.append(letters)
                left -= value
        roman = "".join(out)
        return roman.upper() if fmt == "upperRoman" else roman
    if fmt in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a" if fmt == "lowerLetter" else "A") + (n - 1) % 26)
        return letter * ((n - 1) // 26 + 1)  # Word's a..z, aa..zz
    if fmt == "chicago":
        return _CHICAGO[(n - 1) % 4] * ((n - 1) // 4 + 1)
    return str(n)


def note_marks(refs: Iterable[NoteRef], settings: Mapping[str, NoteProps] | None = None,
               sections: Sequence[Mapping[str, NoteProps]] = ()) -> dict[tuple[str, str], str]:
    """``(kind, note id) -> the mark Word shows`` for every note ``refs`` refer to (the first reference
    of a note decides). ``settings``: the document's note properties by kind; ``sections``: each
    section's own (index = ``NoteRef.section``), which win over the document's."""
    settings = settings or {}
    counters: dict[str, int] = {}
    counted_in: dict[str, int] = {}
    marks: dict[tuple[str, str], str] = {}
    for ref in refs:
        own = sections[ref.section].get(ref.kind) if 0 <= ref.section < len(sections) else None
        doc = settings.get(ref.kind)
        fmt = (own and own.fmt) or (doc and doc.fmt) or DEFAULT_FORMATS.get(ref.kind, "decimal")
        start = (own.start if own and own.start is not None else doc.start if doc else None)
        restart = (own and own.restart) or (doc and doc.restart) or "continuous"
        if ref.custom is not None:
            mark = ref.custom
        elif restart == "eachPage":
            mark = ""  # numbered per printed page: where pages break is not in the file
        else:
            if ref.kind not in counters or (restart == "eachSect" and counted_in.get(ref.kind) != ref.section):
                counters[ref.kind] = start if start is not None else 1
            counted_in[ref.kind] = ref.section
            mark = note_number(counters[ref.kind], fmt)
            counters[ref.kind] += 1
        marks.setdefault((ref.kind, ref.note_id), mark)
    return marks


def note_text(paragraphs: Iterable[str]) -> str:
    """A note's paragraphs as one line: runs of white space made one space."""
    return " ".join(" ".join(p.split()) for p in paragraphs if p.strip())


def inline_note(kind: str, mark: str, text: str) -> str:
    """The note read at its mark: `` [Footnote 1: text]`` (no number: `` [Footnote: text]``); a comment with its
    author as the mark, `` [Comment (Jane Smith): text]``; "" for a note without text (the mark alone reads as
    nothing, as before)."""
    if not text:
        return ""
    label = LABELS.get(kind, "Note")
    if mark and kind == COMMENT:
        mark = f"({mark})"
    return f" [{label} {mark}: {text}]" if mark else f" [{label}: {text}]"


def holds_notes(text: str) -> bool:
    """Whether ``text`` may hold a note or comment read inline (its words' cheap test before the pattern's)."""
    return any(w in text for w in NOTE_WORDS) and NOTE_OPENING.search(text) is not None


def without_notes(text: str) -> str:
    """``text`` without the notes read inline in it (:func:`inline_note`'s `` [Footnote 1: ...]``, its space
    before included): a paragraph's own words, for a heading path."""
    return split_notes(text)[0]


def note_ranges(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` in ``text`` of each note or comment read inline in it, from its ``[`` past its ``]``."""
    if not any(w in text for w in NOTE_WORDS):
        return []
    out: list[tuple[int, int]] = []
    for m in NOTE_OPENING.finditer(text):
        if out and m.start() < out[-1][1]:
            continue
        depth, end = 1, m.end()
        while end < len(text) and depth:
            depth += (text[end] == "[") - (text[end] == "]")
            end += 1
        out.append((m.start(), end))
    return out


def split_notes(text: str) -> tuple[str, list[tuple[int, str]]]:
    """``text``'s own words (:func:`without_notes`) and the notes read inline in it, each with where its mark
    stands in those words and its text as read (`` [Comment (Jane Smith): ...]`` without the space before; that
    space stays where the note stood between two words with no other: ``_between_words``)."""
    out: list[str] = []
    notes: list[tuple[int, str]] = []
    at = size = 0
    for start, end in note_ranges(text):
        cut = start - 1 if start and text[start - 1] == " " and not _between_words(text, start - 1, end) else start
        out.append(text[at:cut])
        size += len(out[-1])
        notes.append((size, text[start:end]))
        at = end
    return "".join(out) + text[at:], notes


def _between_words(text: str, space: int, end: int) -> bool:
    """Whether the note read inline at ``text[space + 1:end]`` stood between two words with only its own space
    around it (a chunk's spaces collapsed: "tilaka [Endnote i: XXX]or"): its space stays, or the words glue
    ("tilakaor"). Not before punctuation or a space, nor between Chinese characters (written without one)."""
    left, right = text[space - 1:space], text[end:end + 1]
    return bool(left) and not left.isspace() and right.isalnum() and not _cjk(left) and not _cjk(right)


def _cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


class InlineNotes:
    """One document's notes as a reader puts them inline: ``texts`` and ``marks`` by ``(kind, note id)``.

    :meth:`render` gives a reference's inline text, every time a note is referred to, until the
    document's inline notes reach ``MAX_INLINE_CHARS``."""

    def __init__(self, texts: Mapping[tuple[str, str], str], marks: Mapping[tuple[str, str], str]) -> None:
        self.texts = dict(texts)
        self.marks = dict(marks)
        self.spent = 0

    def __bool__(self) -> bool:
        return bool(self.texts)

    def render(self, kind: str, note_id: str) -> str:
        """The inline text of a reference to note ``note_id`` of ``kind`` ("" for a note without text)."""
        text = self.texts.get((kind, note_id), "")
        mark = self.marks.get((kind, note_id), "")
        # its length told before it is built: a long note referred to again and again past the budget costs nothing
        marked = len(mark) + (3 if kind == COMMENT else 1) if mark else 0  # " 1" or " (Jane Smith)"
        size = len(text) + len(LABELS.get(kind, "Note")) + 5 + marked if text else 0
        if self.spent + size > MAX_INLINE_CHARS:
            return ""
        out = inline_note(kind, mark, text)
        self.spent += len(out)
        return out


# --------------------------------------------------------------------------- reading the XML

W_NSS = frozenset({"http://schemas.openxmlformats.org/wordprocessingml/2006/main",
                   "http://purl.oclc.org/ooxml/wordprocessingml/main"})
#: A reference's local name -> the kind of note it refers to.
REF_KINDS = {"footnoteReference": FOOTNOTE, "endnoteReference": ENDNOTE}
#: Every reference a reader reads inline: a note's and a comment's (which takes no number).
INLINE_KINDS = {**REF_KINDS, "commentReference": COMMENT}
_REF_TAGS = tuple(f"{{{ns}}}{local}" for ns in sorted(W_NSS) for local in REF_KINDS)
_SECT_TAGS = tuple(f"{{{ns}}}sectPr" for ns in sorted(W_NSS))
_NOTE_KINDS = {"footnote": FOOTNOTE, "endnote": ENDNOTE}
_PR_KINDS = {"footnotePr": FOOTNOTE, "endnotePr": ENDNOTE}
#: Containers whose runs LightRAG does not read: a reference in them reads as nothing.
HIDDEN = frozenset({"del", "moveFrom", "Fallback", "txbxContent"})
_NOT_TEXT = HIDDEN | {"instrText", "delText", "delInstrText", "footnoteRef", "endnoteRef", "annotationRef",
                      "rPr", "pPr", "sectPr"}
_ON = ("1", "true", "on")


#: The parts a document's notes and comments are read from, besides the main part.
NOTE_PARTS = ("footnotes", "endnotes", "comments", "settings")


def part_targets(main: str, rels: Any | None) -> dict[str, str]:
    """The main part's notes and settings parts (``NOTE_PARTS``), by relationship type from its parsed
    ``_rels`` part ``rels`` (Word's default names beside ``main`` when it has none)."""
    folder, _, _name = main.rpartition("/")
    base = f"{folder}/" if folder else ""
    found = {kind: f"{base}{kind}.xml" for kind in NOTE_PARTS}
    for rel in rels if rels is not None else ():
        kind = str(rel.get("Type", "")).rpartition("/")[2]
        target = str(rel.get("Target", ""))
        if kind in found and target and rel.get("TargetMode") != "External":
            found[kind] = target.lstrip("/") if target.startswith("/") else base + target
    return found


def _local(el: Any) -> str:
    tag = el.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def attr(el: Any, name: str) -> str | None:
    """The value of ``el``'s attribute ``name`` in whatever namespace (``w:id``, ``w:val``)."""
    for k, v in el.attrib.items():
        if k.rpartition("}")[2] == name:
            return str(v)
    return None


def _paragraphs(root: Any) -> list[Any]:
    """The paragraphs under ``root`` not nested in another (table cells' included), skipping what is no text."""
    out: list[Any] = []
    stack = [iter(root)]
    while stack:
        for el in stack[-1]:
            local = _local(el)
            if not local or local in _NOT_TEXT:
                continue
            if local == "p":
                out.append(el)
                continue
            stack.append(iter(el))
            break
        else:
            stack.pop()
    return out


def paragraph_text(p: Any) -> str:
    """The shown text of one paragraph of a note (``w:t``; a tab or break as a space)."""
    parts: list[str] = []
    stack = [iter(p)]
    while stack:
        for el in stack[-1]:
            local = _local(el)
            if not local or local in _NOT_TEXT or local == "p":
                continue
            if el.tag[1:].partition("}")[0] in W_NSS:
                if local == "t":
                    parts.append(el.text or "")
                    continue
                if local in ("tab", "br", "cr"):
                    parts.append(" ")
                    continue
                if local == "noBreakHyphen":
                    parts.append("-")
                    continue
            stack.append(iter(el))
            break
        else:
            stack.pop()
    return "".join(parts)


def note_texts(root: Any) -> dict[tuple[str, str], str]:
    """``(kind, id) -> text`` of each note of a notes part (``w:footnotes``/``w:endnotes``) that has text."""
    out: dict[tuple[str, str], str] = {}
    for note in root:
        kind = _NOTE_KINDS.get(_local(note))
        nid = attr(note, "id") if kind else None
        if kind is None or nid is None or (attr(note, "type") or "normal") != "normal":
            continue
        text = note_text(paragraph_text(p) for p in _paragraphs(note))
        if text:
            out.setdefault((kind, nid), text)
    return out


def comment_texts(root: Any) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """The comments of a comments part (``w:comments``) that have text: ``(COMMENT, id) -> text``, and
    ``(COMMENT, id) -> author`` for those naming one (the mark :func:`inline_note` writes)."""
    texts: dict[tuple[str, str], str] = {}
    authors: dict[tuple[str, str], str] = {}
    for comment in root:
        cid = attr(comment, "id") if _local(comment) == "comment" else None
        if cid is None:
            continue
        text = note_text(paragraph_text(p) for p in _paragraphs(comment))
        if text and (COMMENT, cid) not in texts:
            texts[(COMMENT, cid)] = text
            author = " ".join((attr(comment, "author") or "").split())[:80].replace("[", "(").replace("]", ")")
            if author:
                authors[(COMMENT, cid)] = author
    return texts, authors


def hidden(ref: Any) -> bool:
    """The reference stands where LightRAG reads no run (deleted, moved away, a text box, a Fallback copy)."""
    el = ref.getparent()
    while el is not None and _local(el) != "body":
        if _local(el) in HIDDEN:
            return True
        el = el.getparent()
    return False


def _symbol(code: str | None) -> str:
    """A ``w:sym`` character: a symbol font's private-use code (``F02A``) as its low byte (``*``)."""
    try:
        n = int(code or "", 16)
    except ValueError:
        return "*"
    n = n - 0xF000 if 0xF000 <= n <= 0xF0FF else n
    return chr(n) if 0x20 < n < 0x110000 else "*"


def custom_mark(ref: Any) -> tuple[str, list[Any]] | None:
    """For a reference with its own mark (``w:customMarkFollows``): the mark (the run's ``w:t``/``w:sym``
    right after it) and those elements, which read as the mark, not again as text; else None."""
    if (attr(ref, "customMarkFollows") or "").lower() not in _ON:
        return None
    mark: list[str] = []
    taken: list[Any] = []
    for sib in ref.itersiblings():
        local = _local(sib)
        if local == "t":
            mark.append(sib.text or "")
        elif local == "sym":
            mark.append(_symbol(attr(sib, "char")))
        else:
            break
        taken.append(sib)
    return "".join(mark).strip(), taken


def note_props(parent: Any | None) -> dict[str, NoteProps]:
    """The note properties a ``w:settings`` or a ``w:sectPr`` holds, by kind."""
    out: dict[str, NoteProps] = {}
    for pr in parent if parent is not None else ():
        kind = _PR_KINDS.get(_local(pr))
        if kind is None:
            continue
        got = {_local(c): attr(c, "val") for c in pr if _local(c) in ("numFmt", "numStart", "numRestart")}
        start = got.get("numStart") or ""
        out[kind] = NoteProps(fmt=got.get("numFmt"), restart=got.get("numRestart"),
                              start=int(start) if start.isdigit() and len(start) < 7 else None)
    return out


def references(body: Any) -> tuple[list[NoteRef], list[dict[str, NoteProps]]]:
    """The body's note references in document order (those :func:`hidden` left out), each with its
    section, and each section's note properties (a section ends at the paragraph holding its
    ``w:sectPr``, the last one at the body's own). One pass of lxml's own iteration."""
    refs: list[NoteRef] = []
    sections: list[dict[str, NoteProps]] = []
    ending: tuple[Any, dict[str, NoteProps]] | None = None  # the paragraph that ends the current section
    for el in body.iter(*_REF_TAGS, *_SECT_TAGS):
        parent = el.getparent()
        if _local(el) == "sectPr":
            if parent is body or (_local(parent) == "pPr" and _local(parent.getparent()) == "p"):
                if ending is not None:
                    sections.append(ending[1])
                ending = None
                if parent is body:
                    sections.append(note_props(el))
                else:
                    ending = (parent.getparent(), note_props(el))
            continue
        if ending is not None and not _within(el, ending[0]):
            sections.append(ending[1])
            ending = None
        if not hidden(el):
            custom = custom_mark(el)
            refs.append(NoteRef(REF_KINDS[_local(el)], attr(el, "id") or "", len(sections),
                                custom[0] if custom else None))
    return refs, sections


def _within(el: Any, ancestor: Any) -> bool:
    while el is not None:
        if el is ancestor:
            return True
        el = el.getparent()
    return False


def document_notes(texts: Mapping[tuple[str, str], str], settings: Mapping[str, NoteProps],
                   body: Any, authors: Mapping[tuple[str, str], str] | None = None) -> InlineNotes | None:
    """A document's notes and comments ready to go inline at their marks in ``body`` (its ``w:body``): ``texts``
    from :func:`note_texts` of its notes parts and :func:`comment_texts` of its comments part (with ``authors``),
    ``settings`` from :func:`note_props` of its ``w:settings``. None when it has neither with text."""
    if not texts:
        return None
    marks = dict(authors or {})
    if any(kind != COMMENT for kind, _ in texts):  # comments take no number: the body is walked for notes only
        refs, sections = references(body)
        marks.update(note_marks(refs, settings, sections))
    return InlineNotes(texts, marks)
