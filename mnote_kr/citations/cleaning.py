"""The single cleaning step for citation text (seed 000 §5.2, design principle 4).

A LightRAG chunk or sidecar block carries inline markup (NOTES §5.3)::

    <equation format="latex">E=m{c}^{2}</equation>            inline math
    <equation id="eq-…" format="latex">$$E = mc^2$$</equation>  display math
    <table id="tb-…" format="json">[["Cell", "mAh"], …]</table>  2-D JSON table
    <table id="tb-…" format="html"><tr><td>…</td></tr></table>   MinerU HTML table
    <drawing id="im-…" format="png" path="…" src="" [caption="…"] />
    <cite …>…</cite>, markdown heading hashes, and chunk cuts through any of them

``clean_citation_text`` turns it, once, into a :class:`~mnote_kr.models.CitationTextBundle`:

* ``display_quote``: one line people and LLMs read. Tag shells gone, LaTeX made plain
  (``\\frac{a+b}{2}`` → ``(a+b)/2``, ``{c}^{2}`` → ``c^2``, ``\\alpha`` → ``α``), tables as
  rows (``Cell | mAh; A1 | 3200``), drawings dropped or kept as ``[Figure: caption]``,
  broken or stray tags removed. A ``<`` that is followed by a letter and is not a tag
  becomes ``< `` so no half tag can survive. The user's query is never lost: if the raw
  text contained it (whitespace and case normalised) and cleaning would lose it, the
  query is appended after `` … ``.
* ``locator_evidence_text``: a query-centred window of the sidecar block (source
  ``sidecar``), else of the chunk (``chunk``), else the chunk's head (``fallback``), with
  the same markup removed but line breaks kept and tables as plain cell text.
* ``normalized_fingerprint``: 16 hex of sha1 over the display text after NFKC, casefold
  and removal of whitespace and punctuation; de-duplicates within one result.

Everything is regex-driven and linear in the input (a 20 KB chunk cleans in about a
millisecond); cleaning the display text again gives the same display text.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import re
import unicodedata

from mnote_kr.models import CitationTextBundle

__all__ = [
    "clean_citation_text",
    "display_text",
    "fingerprint",
    "latex_to_plain",
    "locator_text",
]

# --------------------------------------------------------------------------- tags

# A complete tag; quoted attribute values may hold '>' (possessive: linear time).
_TAG_RE = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_.-]*+)((?:[^<>\"']++|\"[^\"<]*+\"|'[^'<]*+')*+)>")
# '<' + optional '/' + letter that is not a complete tag: a half tag or plain text.
_HALF_RE = re.compile(r"</?([A-Za-z][A-Za-z0-9:_.-]*+)([^<>]*+)")
_TAG_OR_HALF_RE = re.compile(f"(?:{_TAG_RE.pattern})|(?:{_HALF_RE.pattern})")
_ATTR_RE = re.compile(r"([A-Za-z_:][\w:.-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>/]+))")
# The tail of a tag cut at the chunk's start: `ormat="latex">`, `" />`, `src="" />`.
_LEAD_TAIL_RE = re.compile(
    r"\s*[^\s<>\"=]{0,200}(?:=\"[^\"<>\n]{0,400}\"|\")(?:\s+[\w:.-]+\s*=\s*\"[^\"<>\n]{0,400}\")*\s*/?>"
)
_CLOSE_RES = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("equation", "table")}
# Names whose half tags are always dropped (a chunk cut them); others are neutralised.
_KNOWN_TAGS = frozenset(
    "equation table drawing cite tr td th thead tbody tfoot caption br p div span sub sup b i u em "
    "strong a img figure figcaption ul ol li code pre math mi mo mn msup msub mrow".split()
)
_BREAK_TAGS = frozenset("br p div tr li ul ol table thead tbody tfoot figure figcaption pre caption".split())
_CELL_TAGS = frozenset(("td", "th"))
_NEUTRALISE_RE = re.compile(r"<(?=/?[A-Za-z])")

# --------------------------------------------------------------------------- text

# Only runs that need changing (a lone space is left alone: far fewer substitutions).
_SPACE_RE = re.compile(r"[^\S\n]{2,}|[^\S \n]")
_NL_RE = re.compile(r"[^\S\n]*\n\s*")
_HEADING_RE = re.compile(r"^[^\S\n]*(?:#{1,6}(?:[^\S\n]+|$))+", re.MULTILINE)
_DISPLAY_MATH_RE = re.compile(r"\$\$([^$]{1,4000})\$\$")
_INLINE_MATH_RE = re.compile(r"(?<![\\$])\$([^\s$](?:[^$\n]{0,400}?[^\s$\\])?)\$(?![\d$])")
_MATHY_RE = re.compile(r"[\\^_{}=]")
_FULLWIDTH_PUNCT = tuple((chr(c), unicodedata.normalize("NFKC", chr(c))) for c in map(ord, "，：；？！（）［］　"))
_FINGERPRINT_DROP_RE = re.compile(r"[\W_]+")
_BOUNDARY_RE = re.compile(r"[\n。！？；!?;]|[.](?=\s)")

# --------------------------------------------------------------------------- LaTeX

_LATEX_TOKEN_RE = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_~&]|\[|\]|[^\\{}^_~&\[\]]+", re.DOTALL)
_LATEX_SYMBOLS = dict(
    pair.split("=", 1)
    for pair in (
        "alpha=α beta=β gamma=γ delta=δ epsilon=ε varepsilon=ε zeta=ζ eta=η theta=θ vartheta=ϑ iota=ι "
        "kappa=κ lambda=λ mu=μ nu=ν xi=ξ pi=π varpi=ϖ rho=ρ varrho=ϱ sigma=σ varsigma=ς tau=τ upsilon=υ "
        "phi=φ varphi=φ chi=χ psi=ψ omega=ω Gamma=Γ Delta=Δ Theta=Θ Lambda=Λ Xi=Ξ Pi=Π Sigma=Σ Upsilon=Υ "
        "Phi=Φ Psi=Ψ Omega=Ω cdot=· times=× div=÷ pm=± mp=∓ leq=≤ le=≤ geq=≥ ge=≥ neq=≠ ne=≠ approx=≈ "
        "sim=~ simeq=≃ equiv=≡ propto=∝ infty=∞ partial=∂ nabla=∇ sum=∑ prod=∏ int=∫ oint=∮ in=∈ notin=∉ "
        "subset=⊂ subseteq=⊆ cup=∪ cap=∩ forall=∀ exists=∃ neg=¬ wedge=∧ vee=∨ to=→ rightarrow=→ "
        "leftarrow=← leftrightarrow=↔ Rightarrow=⇒ Leftarrow=⇐ Leftrightarrow=⇔ longrightarrow=⟶ "
        "rightleftharpoons=⇌ uparrow=↑ downarrow=↓ circ=∘ degree=° angle=∠ perp=⊥ parallel=∥ ldots=… "
        "cdots=⋯ dots=… prime=′ hbar=ħ ell=ℓ AA=Å langle=⟨ rangle=⟩ lfloor=⌊ rfloor=⌋ lceil=⌈ rceil=⌉ "
    ).split()
)
# Spacing and style commands: a space or nothing.
_LATEX_SPACES = {",": " ", ";": " ", ":": " ", " ": " ", "!": "", "\\": " "}
_LATEX_SPACES.update(dict.fromkeys("quad qquad enspace thinspace medspace thickspace newline".split(), " "))
_LATEX_SPACES.update(dict.fromkeys("displaystyle textstyle scriptstyle limits nolimits nonumber notag".split(), ""))
# Commands whose single argument is kept as it is (font, accents, text).
_LATEX_UNWRAP = frozenset(
    "mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol bm text textrm "
    "textbf textit textsf texttt textup textnormal mbox hbox operatorname overline underline hat "
    "widehat bar vec tilde widetilde dot ddot check breve acute grave mathring overrightarrow "
    "ensuremath emph boxed".split()
)
_LATEX_SIZERS = frozenset("left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr".split())
_LATEX_FRACS = frozenset(("frac", "dfrac", "tfrac", "cfrac"))
_SIMPLE_RE = re.compile(r"[\w.′]+|\S")


def _wrap(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    return text if _SIMPLE_RE.fullmatch(text) else f"({text})"


class _LatexReader:
    """A tiny recursive reader over LaTeX tokens; never raises, never loops."""

    __slots__ = ("depth", "pos", "tokens")

    def __init__(self, source: str) -> None:
        self.tokens = _LATEX_TOKEN_RE.findall(source)
        self.pos = 0
        self.depth = 0

    def seq(self, stop: str | None = None) -> str:
        out: list[str] = []
        tokens = self.tokens
        while self.pos < len(tokens):
            tok = tokens[self.pos]
            if tok == stop:
                self.pos += 1
                return "".join(out)
            if tok == "}":  # unbalanced close: drop it
                self.pos += 1
                continue
            out.append(self.item())
        return "".join(out)

    def arg(self) -> str:
        """One argument: a braced group or a single token (skipping spaces)."""
        tokens = self.tokens
        while self.pos < len(tokens) and tokens[self.pos].isspace():
            self.pos += 1
        if self.pos >= len(tokens):
            return ""
        tok = tokens[self.pos]
        if tok == "{":
            self.pos += 1
            return self.group("}")
        if tok[0] not in "\\{}^_~&[]" and len(tok) > 1:
            # A plain run: the argument is its first character only.
            tok = tok.lstrip()
            if len(tok) > 1:
                self.tokens[self.pos] = tok[1:]
            else:
                self.pos += 1
            return tok[0]
        return self.item()

    def group(self, stop: str) -> str:
        if self.depth > 60:  # pathological nesting: keep going flat
            return self.seq(stop)
        self.depth += 1
        try:
            return self.seq(stop)
        finally:
            self.depth -= 1

    def optional(self) -> str | None:
        tokens = self.tokens
        if self.pos < len(tokens) and tokens[self.pos] == "[":
            self.pos += 1
            return self.group("]")
        return None

    def item(self) -> str:
        tok = self.tokens[self.pos]
        self.pos += 1
        if tok == "{":
            return self.group("}")
        if tok in ("^", "_"):
            return tok + _wrap(self.arg()) if self.pos < len(self.tokens) else ""
        if tok == "~" or tok == "&":
            return " "
        if tok[0] != "\\":
            return tok
        name = tok[1:].rstrip("*") if len(tok) > 2 else tok[1:]
        if name in _LATEX_SPACES:
            return _LATEX_SPACES[name]
        if name in _LATEX_SYMBOLS:
            return _LATEX_SYMBOLS[name]
        if name in _LATEX_FRACS:
            num = self.arg()
            return f"{_wrap(num)}/{_wrap(self.arg())}"
        if name == "sqrt":
            index = self.optional()
            body = _wrap(self.arg())
            return f"{index.strip()}√{body}" if index else f"√{body}"
        if name in _LATEX_UNWRAP:
            return self.arg()
        if name in _LATEX_SIZERS:
            nxt = self.tokens[self.pos] if self.pos < len(self.tokens) else ""
            if nxt == ".":
                self.pos += 1
            elif nxt.startswith("."):
                self.tokens[self.pos] = nxt[1:]
            return ""
        if name in ("begin", "end"):
            self.arg()  # the environment name
            return " "
        if len(name) == 1 and not name.isalpha():
            return name  # \{ \} \$ \# \_ \&
        return name  # unknown command: keep its name (\sin → sin), never lose a word


_STRIP_DELIMS_RE = re.compile(r"\A\s*(?:\$\$|\$|\\\[|\\\()(.*?)(?:\$\$|\$|\\\]|\\\))\s*\Z", re.DOTALL)


@functools.lru_cache(maxsize=4096)  # a block and its chunks share their equations
def latex_to_plain(source: str) -> str:
    """Make LaTeX readable as plain text: ``\\frac{a+b}{2}`` → ``(a+b)/2``, ``{c}^{2}`` → ``c^2``."""
    match = _STRIP_DELIMS_RE.match(source)
    if match:
        source = match.group(1)
    if not _MATHY_RE.search(source) and "~" not in source and "&" not in source:
        return source
    return _LatexReader(source).seq()


def _math_in_text(text: str) -> str:
    """``$$…$$`` anywhere and math-looking ``$…$`` (not currency) become plain text."""

    def inline(m: re.Match[str]) -> str:
        body = m.group(1)
        return latex_to_plain(body) if _MATHY_RE.search(body) else m.group(0)

    # Removing one pair can let two outer dollars pair up; settle it now so that cleaning
    # the result again changes nothing. Each round that changes something removes dollars.
    for _ in range(32):
        if "$" not in text:
            break
        new = _DISPLAY_MATH_RE.sub(lambda m: latex_to_plain(m.group(1)), text)
        new = _INLINE_MATH_RE.sub(inline, new)
        if new == text:
            break
        text = new
    return text


# --------------------------------------------------------------------------- tables

_JSON_CELL_RE = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|([^\[\],\"\s][^\[\],\"]*)")
_ROW_SPLIT_RE = re.compile(r"\]\s*,?\s*\[")
_JSONISH_RE = re.compile(r"\A\s*\[|\"\s*\]|\"\s*,\s*\"")
_HTML_ROW_RE = re.compile(r"<tr\b[^>]*>(.*?)(?:</tr\s*>|(?=<tr\b)|\Z)", re.IGNORECASE | re.DOTALL)
_HTML_CELL_RE = re.compile(r"<t[dh]\b[^>]*>(.*?)(?:</t[dh]\s*>|(?=<t[dh]\b)|\Z)", re.IGNORECASE | re.DOTALL)


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
    # Cut or malformed: read it tolerantly, row by row.
    rows = []
    for part in _ROW_SPLIT_RE.split(content):
        cells = []
        for m in _JSON_CELL_RE.finditer(part):
            if m.group(1) is not None:
                try:
                    cells.append(json.loads(f'"{m.group(1)}"'))
                except ValueError:
                    cells.append(m.group(1))
            else:
                cells.append(m.group(2))
        rows.append([_strip_tags(c) for c in cells])
    return rows


def _html_text(fragment: str) -> str:
    return html.unescape(_strip_tags(fragment))


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


def _half_tag(fragment: str, at_end: bool) -> str:
    """A '<'+letter that is not a complete tag: cut tag (dropped) or text ("x<y" → "x< y")."""
    half = _HALF_RE.match(fragment)
    if half is None or at_end or half.group(1).lower() in _KNOWN_TAGS or "=" in half.group(2):
        return " "
    return "< " + fragment[1:]


def _strip_tags(text: str) -> str:
    """Remove tags and half tags from a fragment (cell, equation body, caption)."""
    if "<" not in text:
        return _collapse(text)
    n = len(text)

    def repl(m: re.Match[str]) -> str:
        if m.group(0).endswith(">") and _TAG_RE.fullmatch(m.group(0)):
            return " "
        return _half_tag(m.group(0), m.end() >= n)

    return _collapse(_TAG_OR_HALF_RE.sub(repl, text))


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
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_DISPLAY_MAP = (
    (_CELL, " | "),
    (_ROW, "; "),
    (_TAB_OPEN, " [Table: "),
    (_TAB_CLOSE, "] "),
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
        return raw
    out: list[str] = []
    n = len(raw)
    i = 0
    while lead := _LEAD_TAIL_RE.match(raw, i):  # the chunk starts inside a tag
        i = lead.end()
    seen_tag = False
    no_close: dict[str, int] = {}  # name -> a position after which no closing tag exists
    while i < n:
        j = raw.find("<", i)
        if j < 0:
            out.append(raw[i:])
            break
        if j > i:
            out.append(raw[i:j])
        m = _TAG_RE.match(raw, j)
        if m is None:
            half = _HALF_RE.match(raw, j)
            if half is None:  # '<' not followed by a letter: plain text
                out.append("<")
                i = j + 1
                continue
            out.append(_half_tag(half.group(0), half.end() >= n))
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
        elif closing and name == "equation" and not seen_tag:
            # Chunk began inside an equation: what came before it is LaTeX.
            out = [" " + latex_to_plain(_strip_tags("".join(out))) + " "]
        elif closing and name == "table" and not seen_tag:
            out = [_table_text(_render_rows(_json_rows("".join(out)), _CELL, _ROW))]
        elif name == "drawing" or name == "img":
            if not closing:
                caption = _attrs(attr_text).get("caption", "") if "caption" in attr_text else ""
                caption = _strip_tags(html.unescape(caption))
                out.append(f"{_FIG_OPEN}{caption}{_FIG_CLOSE}" if caption else " ")
        elif name in _CELL_TAGS:
            out.append(" ")  # a cell outside a table element (cut chunk)
        elif name in _BREAK_TAGS:
            out.append("\n")
        elif name in ("sub", "sup", "b", "i", "u", "em", "strong", "span", "a", "code"):
            pass  # inline: H<sub>2</sub>O stays "H2O"
        else:
            out.append(" ")
        seen_tag = True
    return "".join(out)


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


def _display_core(raw: str) -> str:
    return _display_from_neutral(_render(raw))


def _display_from_neutral(neutral: str) -> str:
    text = _map_markers(neutral, _DISPLAY_MAP)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "#" in text:
        text = _HEADING_RE.sub("", text)
    text = _collapse(text)
    text = _NEUTRALISE_RE.sub("< ", _math_in_text(text))
    text = _collapse(text)
    return _strip_lead(text)


def _collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped (str.split is much faster than a regex)."""
    return " ".join(text.split())


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def display_text(raw: str, query: str = "") -> str:
    """The display quote for ``raw``; keeps ``query`` if ``raw`` contained it."""
    return _display_with_query(raw, _render(raw), query)


def _display_with_query(raw: str, neutral: str, query: str) -> str:
    text = _display_from_neutral(neutral)
    q = _collapse(query)
    if q and q not in text:
        nq = q.casefold()
        if nq not in text.casefold() and nq in _norm(raw):
            # Cleaning lost the user's words (inside an equation, a cut tag, …): keep them.
            if "<" not in q and _display_core(q) == q:
                text = f"{text} … {q}" if text else q
    return text


def locator_text(raw: str) -> str:
    """``raw`` without markup that confuses a locator; line breaks kept, words kept."""
    return _locator_from_neutral(_render(raw))


def _locator_from_neutral(neutral: str) -> str:
    text = _normalize_lines(_math_in_text(_map_markers(neutral, _LOCATOR_MAP)))
    text = _NEUTRALISE_RE.sub("< ", text)
    return _strip_lead(text).strip()


def fingerprint(display: str) -> str:
    """16 hex of sha1 over NFKC + casefold + no whitespace/punctuation."""
    for wide, narrow in _FULLWIDTH_PUNCT:  # their NFKC forms; lets the quick check pass
        if wide in display:
            display = display.replace(wide, narrow)
    if not unicodedata.is_normalized("NFKC", display):
        display = unicodedata.normalize("NFKC", display)
    norm = _FINGERPRINT_DROP_RE.sub("", display.casefold())
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- locator window


def _query_re(query: str) -> re.Pattern[str] | None:
    words = query.split()
    if not words:
        return None
    return re.compile(r"\s*".join(re.escape(w) for w in words), re.IGNORECASE)


def _is_letter(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _best_hit(qre: re.Pattern[str] | None, text: str) -> tuple[int, int] | None:
    """The query occurrence to centre on: one standing alone beats one inside a longer word.

    ``吡咯烷`` inside ``N-甲基吡咯烷酮`` has letters on both sides; ``吡咯烷 是一种…`` at the start
    of a paragraph has none. Among equals the first occurrence wins.
    """
    if qre is None:
        return None
    best: tuple[int, int, int] | None = None  # (-bounded sides, start, end)
    for n, m in enumerate(qre.finditer(text)):
        left = m.start() == 0 or not _is_letter(text[m.start() - 1])
        right = m.end() >= len(text) or not _is_letter(text[m.end()])
        key = (-(left + right), m.start(), m.end())
        if best is None or key < best:
            best = key
        if key[0] == -2 or n > 200:
            break
    return (best[1], best[2]) if best else None


def query_standing(text: str, query: str) -> int:
    """How well the query stands alone in ``text``: -1 absent, 0 only inside longer words,
    1 or 2 sides free of letters at its best occurrence. Locators and block mappers use it so
    that a short query never prefers a longer word that contains it."""
    hit = _best_hit(_query_re(_collapse(query)), text)
    if hit is None:
        return -1
    start, end = hit
    return int(start == 0 or not _is_letter(text[start - 1])) + int(end >= len(text) or not _is_letter(text[end]))


def _term_centre(text: str, query: str, window: int) -> int | None:
    """Where the query's content words cluster most densely (for queries not found verbatim).

    The words are :func:`mnote_kr.citations.ranking.terms` (stop words dropped, stemmed, CJK
    bigrams), so "when was the typewriter patented" centres on "Patented ... typewriter", not
    on the nearest "the".
    """
    from mnote_kr.citations.ranking import find_terms

    hits = find_terms(text, query)
    if not hits:
        return None
    best, best_pos, lo = 0, hits[0][0], 0
    for hi in range(len(hits)):
        while hits[hi][0] - hits[lo][0] > window:
            lo += 1
        distinct = len({t for _, t in hits[lo : hi + 1]})
        if distinct > best:
            best, best_pos = distinct, (hits[lo][0] + hits[hi][0]) // 2
    return best_pos


def _window(text: str, start: int, end: int, window: int) -> str:
    """``text[start:end]`` widened by ``window`` each way, cut at sentence/line boundaries."""
    lo, hi = max(0, start - window), min(len(text), end + window)
    if lo > 0:
        b = _BOUNDARY_RE.search(text, lo, start)
        if b:
            lo = b.end()
        else:  # no sentence boundary: at least do not cut a Latin word
            sp = text.find(" ", lo, start)
            if sp >= 0 and sp - lo < 40:
                lo = sp + 1
    if hi < len(text):
        last = None
        for found in _BOUNDARY_RE.finditer(text, end, hi):
            last = found
        if last is not None:
            hi = last.end() if last.group(0) != "\n" else last.start()
        else:
            sp = text.rfind(" ", end, hi)
            if sp >= 0 and hi - sp < 40:
                hi = sp
    return text[lo:hi].strip()


def _overlap_at(block: str, chunk: str, shingle: int = 16, samples: int = 12) -> int | None:
    """Where ``block`` shares a passage with ``chunk`` (index in ``block``), or None."""
    nb = _collapse(block.casefold())
    nc = _collapse(chunk.casefold())
    if not nb.strip() or not nc.strip():
        return None
    if len(nb) <= shingle:
        return 0 if nb.strip() in nc else None
    step = max(1, (len(nb) - shingle) // samples)
    for pos in range(0, len(nb) - shingle + 1, step):
        piece = nb[pos : pos + shingle]
        if piece.strip() and piece in nc:
            return min(pos, len(block))
    return None


def clean_citation_text(
    raw: str, query: str, block_text: str | None = None, *, window: int = 240
) -> CitationTextBundle:
    """Clean a raw chunk once into display, locator and fingerprint texts.

    ``block_text`` is the matched sidecar block's content, if any. The locator evidence
    is a query-centred window (about ``window`` characters each way) of the block when it
    contains the query or overlaps the chunk (``sidecar``), else of the chunk (``chunk``),
    else the chunk's head (``fallback``).
    """
    raw = raw or ""
    search_query = _collapse(query or "")
    neutral = _render(raw)
    display = _display_with_query(raw, neutral, search_query)
    qre = _query_re(search_query)
    chunk_loc = _locator_from_neutral(neutral)
    evidence, source = "", "fallback"
    if block_text:
        block_loc = locator_text(block_text)
        at = _overlap_at(block_loc, chunk_loc)
        if at is not None:
            # Centre inside the part of the block this chunk covers: a block can span a whole
            # section, and a query hit elsewhere in it is not what this chunk retrieved.
            # The window stays inside that part too.
            region = block_loc[at : at + len(chunk_loc)]
            hit = _best_hit(qre, region)
            centre = None if hit else _term_centre(region, search_query, window)
            if hit:
                evidence = _window(region, hit[0], hit[1], window)
            elif centre is not None:
                evidence = _window(region, centre, centre, window)
            else:
                evidence = _window(region, 0, 0, 2 * window)
            source = "sidecar"
        else:
            hit = _best_hit(qre, block_loc)
            if hit:
                evidence, source = _window(block_loc, hit[0], hit[1], window), "sidecar"
    if not evidence:
        hit = _best_hit(qre, chunk_loc)
        centre = None if hit else _term_centre(chunk_loc, search_query, window)
        if hit:
            evidence, source = _window(chunk_loc, hit[0], hit[1], window), "chunk"
        elif centre is not None:  # the query's words, not the phrase: centre on where they cluster
            evidence, source = _window(chunk_loc, centre, centre, window), "chunk"
        else:
            evidence, source = _window(chunk_loc, 0, 0, 2 * window), "fallback"
    return CitationTextBundle(
        raw_quote=raw,
        display_quote=display,
        locator_evidence_text=evidence,
        search_query=search_query,
        normalized_fingerprint=fingerprint(display),
        locator_text_source=source,
        display_cleaned=neutral != raw or display != _collapse(raw),
    )
