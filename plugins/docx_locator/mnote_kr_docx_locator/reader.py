"""Read a DOCX safely and list its paragraphs in ``paragraphIndex`` order.

``paragraphIndex`` (the locator contract's DOCX position) counts every ``w:p`` under ``w:body`` in document
order, table cells included, skipping a ``w:p`` nested inside another ``w:p`` (text
boxes). Each paragraph carries its ``w14:paraId`` when present, its text (runs, inline
OMML equation text, field results, a footnote's, endnote's or comment's text at its mark (``notes``);
not field codes, not deleted text), the heading it sits under and whether it belongs to a
table of contents.

Safety: the file must be a zip within size, entry-count and compression-ratio limits;
encrypted packages are recognised; XML parts with a DOCTYPE or entity declaration are
refused before parsing, and the parser never loads DTDs, resolves entities or touches
the network. Parsed documents are cached by path + size + mtime.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from mnote_kr.plugin_api import DocumentError, sym_char

from .contents import close_contents

# The document types live in ``document`` and the cache in ``cache`` (neither imports lxml).
from .document import DocxDocument, Paragraph
from .grid import cell_props as _cell_props
from .grid import grid_before as _grid_before
from .headings import HeadingTrail, all_bold, typed_title
from .notes import Notes, docxnotes, notes_for, read_notes
from .numbering import Counter, Numbering, read_numbering
from .safezip import (
    FLATTEN,
    MAX_FILE_BYTES,
    document_error,
    main_part_name,
    open_zip,
    over_budget,
    parse_optional,
    parse_xml,
    read_part,
)
from .styles import as_int, read_sheet, read_styles, wval

# Budgets of the walk over the body: the paragraphs and text kept, the nesting followed.
MAX_DEPTH = 200  # element nesting the walk follows (real documents stay under ~40)
MAX_PARAGRAPHS = 300_000
MAX_TEXT_CHARS = 60_000_000

W_NSS = frozenset(
    {
        "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
        "http://purl.oclc.org/ooxml/wordprocessingml/main",
    }
)
M_NSS = frozenset(
    {
        "http://schemas.openxmlformats.org/officeDocument/2006/math",
        "http://purl.oclc.org/ooxml/officeDocument/math",
    }
)
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
W14_PARAID = "{http://schemas.microsoft.com/office/word/2010/wordml}paraId"
# A hand-typed contents line: text, then a tab or dot leader, then a page number (or "N/A": a section listed
# without a page, "Organizational Chart<tab>N/A" in tika__018367.docx).
_TOC_LINE = re.compile(r"^[^\n]{1,200}?(?:\t|\.{4,}|…{2,}|·{4,}|_{4,})[\s.…·]*(?:[0-9ivxlcIVXLC]{1,6}|[Nn]/[Aa])\s*$")
# A contents line typed with its page run on to the title ("A. PURPOSE1-1", a wrapped entry's "NUMBER3-9": the DOJ
# handbook's chapter-page numbers), three capitals (or a closing bracket) right before the page, on a line of
# capitals (``_capitals``), or of any Latin letters right after a contents line. A sentence ends so too: "…工艺流程
# 详见图3-4", "…清洗周期为3-6", "… as part ABC12-34" (review r27 finding 2) are body text.
_PAGE_RUN_ON = re.compile(r"^[^\n]{0,160}?(?:[A-Z]{3}|\))\d{1,3}[-–]\d{1,3}\s*$")
_PAGE_RUN_ON_AFTER = re.compile(r"^[^\n]{0,160}?(?:[^\W\d_]{3}|\))\d{1,3}[-–]\d{1,3}\s*$")
# ... and after such a line, one of capitals ending in a chapter-page number set apart ("4. ELIGIBILITY FOR CHAPTER
# 133-4").
_PAGE_END = re.compile(r"^[^\n]{1,160}?\d[-–]\d{1,3}\s*$")
# Letters with no case (Chinese, Japanese, Korean): a line holding them is no line of capitals.
_UNCASED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# Block-level and run-level children that never hold paragraph text.
_SKIP = frozenset(
    {
        "pPr",
        "rPr",
        "sectPr",
        "tblPr",
        "tblGrid",
        "trPr",
        "tcPr",
        "sdtPr",
        "sdtEndPr",
        "instrText",
        "delText",
        "delInstrText",
        "fldData",
        "commentReference",
        "annotationRef",
        "ctrlPr",
        "oMathParaPr",
        "fPr",
        "sSupPr",
        "sSubPr",
        "dPr",
        "naryPr",
        "radPr",
        "mPr",
        "eqArrPr",
        "funcPr",
        "accPr",
        "barPr",
        "limLowPr",
        "limUppPr",
        "boxPr",
        "borderBoxPr",
        "groupChrPr",
        "sPrePr",
        "sSubSupPr",
        "rPrChange",
        "pPrChange",
        "Fallback",
        "lastRenderedPageBreak",
        "bookmarkStart",
        "bookmarkEnd",
        "proofErr",
    }
)


# --------------------------------------------------------------------------- body walk

# Exit actions pushed with a container's iterator (no closures: the walk is a loop, not recursion).
_LEAVE_TABLE = 1
_LEAVE_TOC = 2
_LEAVE_BOX = 3


class _Walker:
    """One pass over ``w:body`` with an explicit stack: the file's nesting depth never becomes
    Python recursion (1,500 nested tables are a budget error, not a ``RecursionError``)."""

    def __init__(
        self, styles: dict[str, tuple[int, bool]], path: str, numbering: Numbering | None = None,
        notes: Notes | None = None,
    ) -> None:
        self.styles = styles
        self.path = path
        self.numbering = numbering or Numbering()
        self.counter = Counter(self.numbering)  # the numbers Word shows before numbered paragraphs
        self.notes = notes
        self.marks: set[etree._Element] = set()  # a custom note mark's w:t, read in the note's label
        self.tables = 0
        self.cells: list[list[int]] = []  # [table, row, column] per open table, outermost first
        # the outermost table's grid: the next row's first grid column, the cell's (grid column, span),
        # the first paragraph of the vertical merge each grid column continues, and the cell's merge
        self.grid_col = 0
        self.cell_grid: tuple[int, int] | None = None
        self.vmerge: dict[int, int] = {}
        self.cell_merge: int | None = None
        self.boxes: list[str] = []
        self.paragraphs: list[Paragraph] = []
        self.fields: list[list[object]] = []  # open complex fields: [instr, is_toc]
        self.headings = HeadingTrail()
        self.toc_depth = 0
        self.contents = False  # the last paragraph with text was a contents line (``_PAGE_END``)
        self.word_toc: set[int] = set()  # paragraphs Word marks as contents: a TOC style, field or content control
        self.table_depth = 0
        self.chars = 0
        self._names: dict[str, tuple[str, str]] = {}

    def split(self, tag: str) -> tuple[str, str]:
        got = self._names.get(tag)
        if got is None:
            if tag[:1] == "{":
                ns, _, local = tag[1:].partition("}")
            else:
                ns, local = "", tag
            got = self._names[tag] = (ns, local)
        return got

    def _deep(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise over_budget(f"DOCX nests too deeply: elements nested more than {MAX_DEPTH} levels deep, "
                              "the locator's limit (documents people write stay under ~40)", self.path,
                              f"nesting depth {MAX_DEPTH}", FLATTEN)

    def walk(self, body: etree._Element) -> None:
        """Index every body-level paragraph (table cells and content controls included)."""
        stack: list[tuple[Iterator[etree._Element], int]] = [(iter(body), 0)]
        while stack:
            it, leave = stack[-1]
            for child in it:  # until a child to descend into: then push it and break
                tag = child.tag
                if not isinstance(tag, str):
                    continue
                ns, local = self.split(tag)
                if local == "p" and ns in W_NSS:
                    self.paragraph(child)
                    continue
                if local in _SKIP or local == "txbxContent":
                    continue  # a text box outside a paragraph has no anchor paragraph to land on
                if len(stack) > MAX_DEPTH:
                    self._deep(len(stack))
                if local == "tbl":
                    if not self.cells:
                        self.vmerge = {}
                    self.table_depth += 1
                    self.cells.append([self.tables, -1, -1])
                    self.tables += 1
                    stack.append((iter(child), _LEAVE_TABLE))
                    break
                elif local == "tr" and self.cells:
                    self.cells[-1][1] += 1
                    self.cells[-1][2] = -1
                    if len(self.cells) == 1:
                        self.grid_col = _grid_before(child)
                    stack.append((iter(child), 0))
                    break
                elif local == "tc" and self.cells:
                    self.cells[-1][2] += 1
                    if len(self.cells) == 1:
                        self.grid_cell(child)
                    stack.append((iter(child), 0))
                    break
                elif local == "sdt" and _sdt_is_toc(child):
                    self.toc_depth += 1
                    stack.append((iter(child), _LEAVE_TOC))
                    break
                else:
                    stack.append((iter(child), 0))
                    break
            else:
                stack.pop()
                if leave == _LEAVE_TABLE:
                    self.table_depth -= 1
                    self.cells.pop()
                elif leave == _LEAVE_TOC:
                    self.toc_depth -= 1

    def grid_cell(self, tc: etree._Element) -> None:
        """The outermost table's cell ``tc`` placed on the table's grid: its first grid column and span
        (``w:gridSpan``), and, for a cell continuing a vertical merge (``w:vMerge`` without ``restart``),
        the first paragraph of the merge's first cell, whose text it shows."""
        span, merge = _cell_props(tc)
        col = self.grid_col
        self.cell_grid = (col, span)
        self.grid_col += span
        self.cell_merge = None
        for c in range(col, col + span):
            if merge == "restart":
                self.vmerge[c] = len(self.paragraphs)
            elif merge == "continue":
                self.cell_merge = self.vmerge.get(c) if self.cell_merge is None else self.cell_merge
            else:
                self.vmerge.pop(c, None)

    def paragraph(self, p: etree._Element) -> None:
        if len(self.paragraphs) >= MAX_PARAGRAPHS:
            raise over_budget(f"DOCX too large for the locator: more than {MAX_PARAGRAPHS:,} paragraphs, the limit",
                              self.path, f"paragraphs {MAX_PARAGRAPHS:,}")
        parts: list[str] = []
        state = {"toc": self.toc_depth > 0 or any(f[1] for f in self.fields), "eq": False}
        level = 0
        list_level: int | None = None
        num_id = ""
        style_id = own_num = own_ilvl = None
        ppr = None
        for child in p:
            if isinstance(child.tag, str) and self.split(child.tag)[1] == "pPr":
                ppr = child
                break
        if ppr is not None:
            for pp in ppr:
                if not isinstance(pp.tag, str):
                    continue
                local = self.split(pp.tag)[1]
                if local == "pStyle":
                    style_id = wval(pp)
                    lvl, toc = self.styles.get(style_id or "", (0, False))
                    level = level or lvl
                    state["toc"] = state["toc"] or toc
                elif local == "outlineLvl":
                    o = as_int(wval(pp))
                    if o is not None:  # 9: body text, whatever its style says
                        level = o + 1 if 0 <= o < 9 else 0
                elif local == "numPr":
                    for np_ in pp:
                        if isinstance(np_.tag, str):
                            kind = self.split(np_.tag)[1]
                            if kind == "ilvl":
                                own_ilvl = as_int(wval(np_))
                                list_level = own_ilvl or 0
                            elif kind == "numId":
                                num_id = own_num = wval(np_) or ""
        if num_id in ("", "0"):  # numId 0 switches numbering off
            list_level = None
        elif list_level is None:
            list_level = 0
        numbered = self.numbering.of_paragraph(style_id, own_num, own_ilvl)
        label = self.counter.label(*numbered) if numbered is not None else None
        self.boxes = []
        state["notes"] = self.notes is not None and (self.table_depth > 0 or not self.notes.heading(ppr))
        own = self.inline(p, parts, state)
        text = "".join(parts)
        self.chars += len(text)
        if self.chars > MAX_TEXT_CHARS:
            raise over_budget(f"DOCX too large for the locator: more than {MAX_TEXT_CHARS:,} characters of text, "
                              "the limit",
                              self.path, f"text characters {MAX_TEXT_CHARS:,}")
        own_text = text[:own]  # the paragraph's own text, without its text boxes
        in_toc = bool(state["toc"]) or (len(own_text) < 240 and _TOC_LINE.match(own_text) is not None) or (
            not self.table_depth and _run_on_contents(own_text, self.contents))
        if state["toc"]:
            self.word_toc.add(len(self.paragraphs))
        if own_text.strip():
            self.contents = in_toc  # the paragraph before the next one with text is a contents line
        if in_toc or not own_text.strip() or self.table_depth:  # a table cell is never a heading
            level = 0
        if level:
            self.headings.styled_heading(level, docxnotes.without_notes(own_text).strip(),  # a note is not its name
                                         "".join(label) if label else "")
        elif not in_toc and not self.table_depth and own_text.strip():
            bold = all_bold(p)
            if self.headings.outranking(own_text, bold=bold):
                pass  # a title typed as the styled headings of a level begin ("CHAPTER 7 – ...", "A.<tab>...")
            elif title := typed_title(own_text, bold=bold):
                self.headings.typed_heading(*title)  # a title typed as a numbered line, bold or in capitals
        path = self.headings.path
        pid = p.get(W14_PARAID)
        self.paragraphs.append(
            Paragraph(
                index=len(self.paragraphs),
                para_id=pid.upper() if pid else None,
                text=text,
                heading_path=path,
                heading_level=level,
                in_toc=in_toc,
                in_table=self.table_depth > 0,
                has_equation=bool(state["eq"]),
                list_level=list_level if not level else None,
                list_ordered=self.numbering.ordered(num_id, list_level or 0),
                cell=(self.cells[0][0], self.cells[0][1], self.cells[0][2]) if self.cells else None,
                grid=self.cell_grid if self.cells else None,
                merged_from=self.cell_merge if self.cells else None,
                textboxes=tuple(self.boxes),
                own_chars=own if len(text) > own else None,
                label=label[0] if label else None,
                heading_numbers=self.headings.numbers,
            )
        )

    def inline(self, p: etree._Element, parts: list[str], state: dict[str, bool]) -> int:
        """Append the paragraph's text to ``parts``; return the length of its own text.

        Text boxes, shapes and WordArt (``w:txbxContent``) belong to the paragraph that
        anchors them: their paragraphs follow its own text, one line each. The
        ``mc:Fallback`` copy of the same box is skipped (in ``_SKIP``).
        """
        stack: list[tuple[Iterator[etree._Element], int]] = [(iter(p), 0)]
        boxes: list[str] = []  # text of the paragraphs in text boxes, in document order
        box_depth = 0
        out = parts
        while stack:
            it, leave = stack[-1]
            for child in it:  # until a child to descend into: then push it and break
                tag = child.tag
                if not isinstance(tag, str):
                    continue
                ns, local = self.split(tag)
                if local == "t":
                    if child.text and not (self.marks and child in self.marks):
                        out.append(child.text)
                    continue
                if local in docxnotes.INLINE_KINDS:
                    if state["notes"] and self.notes and not docxnotes.hidden(child):
                        self.marks.update((docxnotes.custom_mark(child) or ("", []))[1])
                        out.append(self.notes.render(docxnotes.INLINE_KINDS[local], child.get(f"{{{ns}}}id") or ""))
                    continue
                if local in _SKIP:
                    if local == "instrText" and self.fields:
                        field_ = self.fields[-1]
                        field_[0] = str(field_[0]) + (child.text or "")
                        instr = str(field_[0]).strip().upper()
                        if instr.startswith("TOC") or (instr.startswith("PAGEREF") and "_TOC" in instr):
                            field_[1] = True
                            state["toc"] = True
                    continue
                if local == "tab" and ns in W_NSS:
                    out.append("\t")
                    continue
                if local == "sym" and ns in W_NSS:  # a form's ☐/☑ inserted from Wingdings: no w:t holds it
                    if not (self.marks and child in self.marks):  # a note's own mark, read as the mark
                        out.append(_sym(child))
                    continue
                if local in ("br", "cr") and ns in W_NSS or local == "noBreakHyphen":
                    out.append("-" if local == "noBreakHyphen" else "\n")
                    continue
                if local == "fldChar":
                    kind = next((v for k, v in child.attrib.items() if k.endswith("}fldCharType")), "")
                    if kind == "begin":
                        self.fields.append(["", False])
                    elif kind == "end" and self.fields:
                        self.fields.pop()
                    continue
                if len(stack) > MAX_DEPTH:
                    self._deep(len(stack))
                if local == "txbxContent":
                    if not box_depth:
                        self.boxes.append(_textbox_text(child))
                    box_depth += 1
                    out = boxes
                    stack.append((iter(child), _LEAVE_BOX))
                    break
                if local == "p" and ns in W_NSS:
                    if not box_depth:
                        continue  # a paragraph nested in a paragraph outside a text box: not this one's text
                    if boxes and not boxes[-1].endswith("\n"):
                        boxes.append("\n")
                elif local == "fldSimple":
                    instr = next((v for k, v in child.attrib.items() if k.endswith("}instr")), "").strip().upper()
                    if instr.startswith("TOC") or (instr.startswith("PAGEREF") and "_TOC" in instr):
                        state["toc"] = True
                elif local == "hyperlink":
                    anchor = next((v for k, v in child.attrib.items() if k.endswith("}anchor")), "")
                    if anchor.startswith("_Toc"):
                        state["toc"] = True
                elif local in ("oMath", "oMathPara") and ns in M_NSS:
                    state["eq"] = True
                elif local in ("sup", "sub") and ns in M_NSS:  # c^2, a_0: as the host reads an engine's LaTeX
                    out.append("^" if local == "sup" else "_")
                stack.append((iter(child), 0))
                break
            else:
                stack.pop()
                if leave == _LEAVE_BOX:
                    box_depth -= 1
                    if not box_depth:
                        out = parts
        own = sum(len(x) for x in parts)
        box_text = "".join(boxes).strip("\n")
        if box_text:
            parts.append("\n" + box_text if own else box_text)
        return own


def _capitals(text: str) -> bool:
    """Whether ``text`` is written in capitals: no lowercase letter, no letter without case (a Chinese line)."""
    return not any(c.islower() for c in text) and _UNCASED.search(text) is None


def _run_on_contents(text: str, after_contents: bool) -> bool:
    """Whether ``text`` is a contents line typed with its page run on (``_PAGE_RUN_ON``), or, ``after_contents``
    (the last paragraph with text was a contents line), one of capitals ending in a page set apart (``_PAGE_END``) or
    one of Latin letters with its page run on."""
    if _PAGE_RUN_ON.match(text) is not None and _capitals(text):
        return True
    return after_contents and _UNCASED.search(text) is None and (
        _capitals(text) and _PAGE_END.match(text) is not None or _PAGE_RUN_ON_AFTER.match(text) is not None)


def _textbox_text(box: etree._Element) -> str:
    """A text box's paragraphs as lines (the viewer shows it beside its anchor): runs' ``w:t``, a tab, a break
    (of any type, or a carriage return) a newline and a non-breaking hyphen "-", as a paragraph's own text reads them;
    a soft hyphen nothing."""
    lines: list[str] = []
    for p in box.iter():
        if isinstance(p.tag, str) and p.tag.endswith("}p"):
            locals_ = ((el, el.tag.rpartition("}")[2]) for el in p.iter() if isinstance(el.tag, str))
            text = "".join(el.text or "" if local == "t" else _sym(el) if local == "sym" else _BOX_PARTS.get(local, "")
                           for el, local in locals_)
            if text.strip():
                lines.append(text)
    return "\n".join(lines)


def _sym(el: etree._Element) -> str:
    """A ``w:sym``'s character (``sym_char``: Wingdings' ☐ ☑ as the quotes and the viewer show them)."""
    attrs = {k.rpartition("}")[2]: v for k, v in el.attrib.items()}
    return sym_char(attrs.get("font"), attrs.get("char"))


#: What a text box's run element other than its text reads as (``_textbox_text``).
_BOX_PARTS = {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}


def _sdt_is_toc(sdt: etree._Element) -> bool:
    for el in sdt.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag.endswith("}sdtContent"):
            return False
        if tag.endswith("}docPartGallery") and (wval(el) or "").lower() == "table of contents":
            return True
    return False


# --------------------------------------------------------------------------- public API


def parse_docx_bytes(data: bytes, path: str = "<bytes>") -> DocxDocument:
    """Parse DOCX bytes into a ``DocxDocument``. Raises ``DocumentError`` on bad input."""
    with open_zip(path, data) as zf:
        main = main_part_name(zf, path)
        doc_xml = read_part(zf, main, path)
        if doc_xml is None:
            raise document_error(f"broken DOCX: no main document part ({main})", path)
        styles_name = main.rsplit("/", 1)[0] + "/styles.xml" if "/" in main else "styles.xml"
        styles_xml = read_part(zf, styles_name, path)
        numbering_name = styles_name.rsplit("styles.xml", 1)[0] + "numbering.xml"
        numbering_xml = read_part(zf, numbering_name, path)
        notes = read_notes(zf, main, path)
    root = parse_xml(doc_xml, main, path)
    styles_root = parse_optional(styles_xml, styles_name, path)  # broken styles cost heading detection only
    body = None
    for child in root:
        if isinstance(child.tag, str) and child.tag.endswith("}body"):
            body = child
            break
    if body is None:
        raise document_error(f"broken DOCX: {main} has no w:body", path)
    numbering_root = parse_optional(numbering_xml, numbering_name, path)  # broken numbering costs list markers only
    sheet = read_sheet(styles_root)  # the one walk of styles.xml: headings, numbering and notes read it
    walker = _Walker(read_styles(sheet), path, read_numbering(numbering_root, sheet), notes_for(notes, body, sheet))
    walker.walk(body)
    close_contents(walker.paragraphs, walker.word_toc)  # a table of contents' title heads the contents only
    doc = DocxDocument(paragraphs=walker.paragraphs, path=path)
    for para in doc.paragraphs:
        if para.para_id and para.para_id not in doc.by_para_id:
            doc.by_para_id[para.para_id] = para.index
    return doc


def parse_file(real: str, st: os.stat_result) -> DocxDocument:
    """Parse the DOCX ``real`` at version ``st`` (the cache's loader). Raises ``DocumentError``."""
    if st.st_size > MAX_FILE_BYTES:
        raise over_budget(f"DOCX too large ({st.st_size:,} bytes, limit {MAX_FILE_BYTES:,})", real,
                          f"file size {MAX_FILE_BYTES >> 20} MiB")
    if st.st_size == 0:
        raise document_error("not a zip file (empty file)", real)
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise DocumentError(f"cannot read DOCX: {exc.strerror or exc}: {Path(real).name}", path=real) from exc
    return parse_docx_bytes(data, real)
