"""Markup shells in LightRAG chunks: tags, JSON and HTML tables, drawings.

The walker renders them to neutral text with markers that display and locator text map.
"""

from __future__ import annotations

import functools
import json
import re

from mnote_kr.citations.cleaning.latex import latex_to_plain
from mnote_kr.citations.cleaning.tags import _HALF_RE, _TAG_OR_HALF_RE, _TAG_RE, is_cut_tag, markup_tags, named
from mnote_kr.citations.cleaning.text import _HEADING_RE, _NL_RE, _SPACE_RE, _collapse
from mnote_kr.citations.text.textnorm import lazy_compile

# --------------------------------------------------------------------------- tags

# Which "<...>" is markup is decided in ``tags``; here markup is rendered.
_ATTR_RE = lazy_compile(r"([A-Za-z_:][\w:.-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>/]+))")
# The tail of a tag cut at the chunk's start: `ormat="latex">`, `" />`, `src="" />`.
_LEAD_TAIL_RE = lazy_compile(
    r"\s*[^\s<>\"=]{0,200}(?:=\"[^\"<>\n]{0,400}\"|\")(?:\s+[\w:.-]+\s*=\s*\"[^\"<>\n]{0,400}\")*\s*/?>"
)
# The same tail left inside the text, after a line break or a space (a chunk that starts with a
# heading, then the cut tag): attribute pairs closed by `/>`, never prose (`x > 3` has no `="`).
_MID_TAIL_RE = lazy_compile(
    r"(?:^|(?<=\s))(?:[^\s<>\"=]{0,200}=\"[^\"<>\n]{0,400}\"|[^\s<>\"=]{1,200}\")(?:\s+[\w:.-]+\s*=\s*\"[^\"<>\n]{0,400}\")*\s*/>",
    re.MULTILINE,
)


def drop_tag_tails(text: str) -> str:
    """``text`` (already rendered: no markup, tables and math as text) without the tails of tags
    a chunk's cut left inside it, to a fixed point: cleaning the result again changes nothing."""
    for _ in range(4):
        if "/>" not in text:
            break
        cleaned = _MID_TAIL_RE.sub(" ", text)
        if cleaned == text:
            break
        text = cleaned
    return text


_CLOSE_RES = {name: lazy_compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("equation", "table")}
_BREAK_TAGS = frozenset(
    "br p div tr li ul ol table thead tbody tfoot figure figcaption pre caption h1 h2 h3 h4 h5 h6 hr blockquote "
    "dl dt dd details summary section article header footer main nav aside address html head title body".split()
)
_CELL_TAGS = frozenset(("td", "th"))
# Text-level elements (the HTML standard's "text-level semantics", less cite, LightRAG's reference shell, and
# the ruby annotations): they go without a space, ``H<sub>2</sub>O`` stays "H2O", ``<abbr>HTML</abbr>,`` "HTML,".
_INLINE_TAGS = frozenset(
    "a em strong small s q dfn abbr data time code var samp kbd sub sup i b u mark bdi bdo span del ins "
    "big tt strike font nobr acronym".split()
)

# --------------------------------------------------------------------------- tables

_JSONISH_RE = lazy_compile(r"\A\s*\[|\"\s*\]|\"\s*,\s*\"")
# Where one row of a JSON table ends and the next begins: `", ""], ["Country"`.
_ROW_BOUNDARY_RE = lazy_compile(r"\"\s*\]\s*,\s*\[\s*\"")
# A fragment's tokens: a JSON string (brackets inside it are text: "Area [2][3]"), a row
# break, or bare text; commas and lone brackets between them are separators.
# A string left open by the cut runs to the end (linear: no rescan from each escaped quote).
_FRAGMENT_TOKEN_RE = lazy_compile(r'"((?:[^"\\]|\\.?)*+)(?:"|\Z)|(\]\s*,\s*\[)|([^"\[\],]+)')
# A JSON array written in the text (its opening `[["`): a chunk cut out of a table has none.
_ARRAY_OPEN_RE = lazy_compile(r'\[\s*\[\s*"')
# A cell's closing quote at a fragment's start: the quote, then the end of a cell or a row.
_CLOSING_QUOTE_RE = lazy_compile(r'"\s*[\],]')
_UNESCAPED_QUOTE_RE = lazy_compile(r'(?<!\\)"')
# The tail of a tag cut at a fragment's start, inside a JSON string (quotes escaped):
# `.png\" format=\"png\" />`.
# Only attribute pairs may follow the first escaped quote, so prose with a quoted word and a
# '>' ("the flag \"--force\" when x > 3") is not taken for a tag's tail.
_ESCAPED_LEAD_TAIL_RE = lazy_compile(r'\A[^<>"\s]{0,200}\\"(?:\s+[\w:.-]+=\\"[^<>"\n]{0,400}?\\")*\s*/?>')
_HTML_ROW_RE = lazy_compile(r"<tr\b[^>]*>(.*?)(?:</tr\s*>|(?=<tr\b)|\Z)", re.IGNORECASE | re.DOTALL)
_HTML_CELL_RE = lazy_compile(r"<t[dh]\b[^>]*>(.*?)(?:</t[dh]\s*>|(?=<t[dh]\b)|\Z)", re.IGNORECASE | re.DOTALL)


def _cell_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(_cell_text(v) for v in value)
    return str(value)


_JSON_DECODER = json.JSONDecoder()


def _json_rows(content: str) -> list[list[str]]:
    stripped = content.strip()
    try:
        data, end = _JSON_DECODER.raw_decode(stripped)
    except ValueError:
        data, end = None, 0
    if isinstance(data, list):
        rows = [[_cell_text(c) for c in row] if isinstance(row, list) else [_cell_text(row)] for row in data]
        if end < len(stripped):  # text after the array (unclosed element): keep it
            rows.append([_strip_tags(stripped[end:])])
        return rows
    if not _JSONISH_RE.search(content):  # not a JSON table at all: plain text
        return [[_strip_tags(content)]]
    # Cut or malformed: read it tolerantly, row by row, each string decoded (its "\\n" a line break) even when the
    # chunk begins or ends inside it (nc27a Q12: a cell cut at "apply, please type N/A.\\n\uf0a8 Sign ...").
    return _fragment_rows(content)


def _table_fragment(text: str) -> str:
    """Text holding rows of a JSON table cut out of its element, as rows.

    LightRAG cuts a long table (a Wikipedia infobox) into chunks that hold only rows:
    ``.png\\" format=\\"png\\" />\\nBangalore", "", ""], ["Founded by", "Kempe Gowda I", ""], …``.
    Read as prose it shows brackets, quotes and escaped tag attributes; read as rows it is
    ``Bangalore; Founded by | Kempe Gowda I``. Called on the rendered text when it still
    holds two row boundaries, so what it returns (which holds none) renders the same again.
    """
    return _table_text(_render_rows(_fragment_rows(text), _CELL, _ROW))


def _fragment_rows(text: str) -> list[list[str]]:
    """The rows of ``text``, rows of a JSON table cut anywhere (``_table_fragment``): a string the cut began or
    ended inside is one cell still, its escapes decoded."""
    text = _ESCAPED_LEAD_TAIL_RE.sub("", text.strip(), count=1)
    if not text.startswith(("[", '"')) or _CLOSING_QUOTE_RE.match(text):
        text = '"' + text  # the chunk began inside a cell's string (perhaps at its closing quote)
    if len(_UNESCAPED_QUOTE_RE.findall(text)) % 2:
        text += '"'  # ... or ended inside one
    rows: list[list[str]] = [[]]
    for m in _FRAGMENT_TOKEN_RE.finditer(text):
        string, row_break, bare = m.groups()
        if row_break is not None:
            rows.append([])
        elif string is not None:
            try:
                decoded = json.loads(f'"{string}"')
            except ValueError:
                decoded = string
            rows[-1].append(_strip_tags(string if _ROW_BOUNDARY_RE.search(decoded) else decoded))
        elif bare.strip():
            rows[-1].append(_strip_tags(bare))
    return rows


def _unescape(text: str) -> str:
    # ``html`` loads ``html.entities`` (a table of 2,000 names, milliseconds to build): only
    # a caption or an HTML table needs it, so a search that meets neither never imports it.
    import html  # noqa: PLC0415 - deferred import, see above

    return html.unescape(text)


def _html_text(fragment: str) -> str:
    return _unescape(_strip_tags(fragment, html=True))


def _html_rows(content: str) -> list[list[str]]:
    """Rows of an HTML table; text outside rows and cells is kept as its own row or cell."""
    rows: list[list[str]] = []
    pos = 0
    for row in _HTML_ROW_RE.finditer(content):
        if row.start() > pos:
            rows.append([_html_text(content[pos : row.start()])])
        body, cells, cpos = row.group(1), [], 0
        for cell in _HTML_CELL_RE.finditer(body):
            if cell.start() > cpos:
                cells.append(_html_text(body[cpos : cell.start()]))
            cells.append(_html_text(cell.group(1)))
            cpos = cell.end()
        cells.append(_html_text(body[cpos:]))
        rows.append(cells)
        pos = row.end()
    rows.append([_html_text(content[pos:])])
    return rows


def _half_tag(fragment: str, at_end: bool, html: bool) -> str:
    """A '<'+letter that is not a complete tag: cut tag (dropped) or text ("x<y", kept as written)."""
    half = _HALF_RE.match(fragment)
    if half is None or is_cut_tag(half.group(1), half.group(2), at_end, html):
        return " "
    return fragment


def _strip_tags(text: str, html: bool = False) -> str:
    """Remove tags and half tags from a fragment (cell, equation body, caption); ``html``: the fragment
    is markup's content (an HTML table's), where an element's tag is markup even alone."""
    if "<" not in text:
        return _collapse(text)
    n = len(text)
    marks = markup_tags(text, html=html)

    def repl(m: re.Match[str]) -> str:
        if m.group(0).endswith(">") and (tag := _TAG_RE.fullmatch(m.group(0))):
            if m.start() not in marks.at:
                return tag.group(0)  # the text's own "<...>", kept as written
            return "" if tag.group(2).lower() in _INLINE_TAGS else " "  # km<sup>2</sup> → km2
        return _half_tag(m.group(0), m.end() >= n, marks.html)

    return _collapse(_TAG_OR_HALF_RE.sub(repl, text))


def _known_tags_out(cell: str) -> str:
    """A JSON cell without the markup LightRAG leaves in it (``x<sup>2</sup>``, a drawing): complete
    tags of elements (or LightRAG's) that are markup (``tags.markup_tags``) only. Any other ``<`` is the
    cell's text (``x<y``, ``List<String>``, ``<john@example.com>``) and stays, as in prose."""
    marks = markup_tags(cell)

    def repl(m: re.Match[str]) -> str:
        if m.start() not in marks.at or not named(m.group(2)):  # "a<b and c>d": text
            return m.group(0)
        return "" if m.group(2).lower() in _INLINE_TAGS else " "

    return _TAG_RE.sub(repl, cell)


def _render_rows(rows: list[list[str]], cell_sep: str, row_sep: str) -> str:
    lines = []
    for row in rows:
        cells = [_collapse(c) for c in row]
        cells = [c for c in cells if c]
        if cells:
            lines.append(cell_sep.join(cells))
    return row_sep.join(lines)


# The walker writes neutral text with these markers; display and locator text map them.
_CELL, _ROW, _TAB_OPEN, _TAB_CLOSE, _FIG_OPEN, _FIG_CLOSE = "\x1f", "\x1e", "\x02", "\x03", "\x0e", "\x0f"
_CONTROL_RE = lazy_compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_DISPLAY_MAP = (
    (_CELL, " | "),
    (_ROW, "; "),
    (_TAB_OPEN, " "),  # a table reads as its rows (``A | B; 1 | 2``): no "[Table: ...]" label
    (_TAB_CLOSE, " "),
    (_FIG_OPEN, " [Figure: "),
    (_FIG_CLOSE, "] "),
)
_LOCATOR_MAP = ((_CELL, " "), (_ROW, "\n"), (_TAB_OPEN, "\n"), (_TAB_CLOSE, "\n"), (_FIG_OPEN, " "), (_FIG_CLOSE, " "))


def _map_markers(text: str, mapping: tuple[tuple[str, str], ...]) -> str:
    for marker, value in mapping:
        if marker in text:
            text = text.replace(marker, value)
    return text


def _table_text(rows: str) -> str:
    return f"{_TAB_OPEN}{rows}{_TAB_CLOSE}" if rows else " "


@functools.lru_cache(maxsize=1024)  # a block and its chunks share their tables
def _table(attr_text: str, content: str) -> str:
    fmt = _attrs(attr_text).get("format", "").lower() if "format" in attr_text else ""
    if fmt == "html" or (fmt != "json" and "<t" in content.lower()):
        rows = _html_rows(content)
    else:
        rows = _json_rows(content)
        # JSON escapes may decode to control characters ("\\b"): spaces, as in any other text; a
        # cell's own markup (a rich cell's "x<sup>2</sup>") goes as an HTML cell's does
        rows = [[_known_tags_out(_CONTROL_RE.sub(" ", cell)) if "<" in cell else _CONTROL_RE.sub(" ", cell)
                 for cell in row] for row in rows]
    return _table_text(_render_rows(rows, _CELL, _ROW))


# --------------------------------------------------------------------------- the walker


def _attrs(attr_text: str) -> dict[str, str]:
    out = {}
    for m in _ATTR_RE.finditer(attr_text):
        out[m.group(1).lower()] = next(g for g in (m.group(2), m.group(3), m.group(4), "") if g is not None)
    return out


def _render(raw: str) -> str:
    """Replace every tag, element and half tag in ``raw`` with readable (neutral) text."""
    if _CONTROL_RE.search(raw):
        raw = _CONTROL_RE.sub(" ", raw)
    if "<" not in raw and ">" not in raw:
        return _rows_left(raw)
    out: list[str] = []
    n = len(raw)
    i = 0
    while lead := _LEAD_TAIL_RE.match(raw, i):  # the chunk starts inside a tag
        i = lead.end()
    seen_tag = opened_table = False
    no_close: dict[str, int] = {}  # name -> a position after which no closing tag exists
    marks = markup_tags(raw)
    while i < n:
        j = raw.find("<", i)
        if j < 0:
            out.append(raw[i:])
            break
        if j > i:
            out.append(raw[i:j])
        m = _TAG_RE.match(raw, j)
        if m is not None and j not in marks.at:
            out.append("<")  # the text's own "<Enter>", "<this hyperlink ...>": its words go on as text
            i = j + 1
            continue
        if m is None:
            half = _HALF_RE.match(raw, j)
            if half is None:  # '<' not followed by a letter: plain text
                out.append("<")
                i = j + 1
                continue
            out.append(_half_tag(half.group(0), half.end() >= n, marks.html))
            i = half.end()
            continue
        closing, name, attr_text = m.group(1), m.group(2).lower(), m.group(3)
        self_closing = attr_text.rstrip().endswith("/")
        i = m.end()
        if name in ("equation", "table") and not closing and not self_closing:
            close_re = _CLOSE_RES[name]
            cm = None if no_close.get(name, n + 1) <= i else close_re.search(raw, i)
            if cm is None:
                no_close[name] = i
                content, i = raw[i:], n
            else:
                content, i = raw[i : cm.start()], cm.end()
            if name == "equation":
                out.append(" " + latex_to_plain(_strip_tags(content)) + " ")
            else:
                out.append(_table(attr_text, content))
                opened_table = True
        elif closing and name == "equation" and not seen_tag:
            # Chunk began inside an equation: what came before it is LaTeX.
            out = [" " + latex_to_plain(_strip_tags("".join(out))) + " "]
        elif closing and name == "table" and not seen_tag:
            out = [_table_text(_render_rows(_json_rows("".join(out)), _CELL, _ROW))]
        elif closing and name == "table" and not opened_table and _ROW_BOUNDARY_RE.search(before := "".join(out)):
            # Chunk began inside a table's rows, a drawing among them: what came before is rows.
            out = [_table_fragment(before)]
        elif name == "drawing" or name == "img":
            if not closing:
                caption = _attrs(attr_text).get("caption", "") if "caption" in attr_text else ""
                caption = _strip_tags(_unescape(caption))
                out.append(f"{_FIG_OPEN}{caption}{_FIG_CLOSE}" if caption else " ")
        elif name in _CELL_TAGS:
            out.append(" ")  # a cell outside a table element (cut chunk)
        elif name in _BREAK_TAGS:
            out.append("\n")
        elif name in _INLINE_TAGS:
            pass  # inline: H<sub>2</sub>O stays "H2O"
        else:
            out.append(" ")
        seen_tag = True
    return _rows_left("".join(out))


def _rows_left(rendered: str) -> str:
    """Rows of a JSON table that no element held (a chunk cut inside one, or one starting at the
    table's first row after its element's opening tag was cut off), read as rows."""
    if '"' not in rendered:
        return rendered
    if _ARRAY_OPEN_RE.search(rendered):
        return _bare_arrays(rendered)
    if len(_ROW_BOUNDARY_RE.findall(rendered)) < 2:
        return rendered
    return _table_fragment(rendered)


def _bare_arrays(rendered: str) -> str:
    """Each whole JSON array of rows (``[["a", "b"], ["c", "d"]]``) outside an element read as a
    table's rows; text around them, and an array that does not decode, as they are."""
    out: list[str] = []
    at = 0
    for m in _ARRAY_OPEN_RE.finditer(rendered):
        if m.start() < at:
            continue
        try:
            data, end = _JSON_DECODER.raw_decode(rendered, m.start())
        except ValueError:
            continue
        if not isinstance(data, list) or not all(isinstance(row, list) for row in data):
            continue
        rows = [[_strip_tags(_cell_text(c)) for c in row] for row in data]
        out += [rendered[at:m.start()], _table_text(_render_rows(rows, _CELL, _ROW))]
        at = end
    return "".join(out) + rendered[at:] if out else rendered


def _normalize_lines(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SPACE_RE.sub(" ", text)
    if "\n" in text:
        text = _NL_RE.sub("\n", text)
    return _HEADING_RE.sub("", text) if "#" in text else text


def _strip_lead(text: str) -> str:
    """Settle the start: drop heading hashes and tag tails until nothing changes.

    Text that only looks like a tag tail once markup before it is gone (``A1">``) is
    kept, with a space before its quote, so cleaning the result again keeps it too.
    """
    while True:
        before = text
        text = text.lstrip()
        heading = _HEADING_RE.match(text)
        if heading and heading.end():
            text = text[heading.end() :].lstrip()
        lead = _LEAD_TAIL_RE.match(text)
        if lead:
            if text[0] in '"=':
                text = text[lead.end() :]
            else:
                quote = text.index('"')
                text = f"{text[:quote]} {text[quote:]}"
        if text == before:
            return text
