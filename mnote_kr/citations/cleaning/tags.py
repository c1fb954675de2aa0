"""Which ``<...>`` in a text is markup, and which is the text's own words in angle brackets.

Markup goes from a quote; a person's ``Press <Enter>``, ``List<String>``, ``a<b and c>d`` or ``Put the <title>
first`` stays. A name alone does not decide it: most element names (``elements``) are also words people write
in angle brackets. So a complete tag is markup when

* it has quoted attributes (``<img src="a.png">``, ``<w:t xml:space="preserve">``), or an element's name with
  attributes (``<td colspan=2>``, ``<meta charset=utf-8>``);
* it is one of the tags parsers and converters write bare (``_PARSER_TAGS``: ``<br>``, ``<sup>``, ``<td>``);
* its element is closed later in the text (``<details>...</details>``), or it closes one (``</details>``: no
  sentence writes an element's closing tag);
* it is an element's tag among markup the text holds (``<input>`` in ``<p align="center">Logo<input></p>``),
  or beside another element's tag on its own line or with nothing between (``<html>\\n<head>``, a page's
  opening cut from its closing tags): two names a space apart on one line are a sentence's words
  (``kumconv <input> <output>``, ``the <main> <aside> layout``).

LightRAG's own shells (``<equation>``, ``<drawing>``, ``<table format=...>``) and the sub/superscripts and line
breaks its parsers write into any document are no sign that the document holds markup: ``Type in the <input>
box`` beside a drawing keeps its ``<input>``. An element's name counts as markup writes it (``br``, ``BR``,
``linearGradient``): a capitalised word alone (``<Enter>``, ``<Option>``, ``<Del>``) is a key's name; paired
with its closing tag, any case is markup (HTML reads names case-insensitively).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from mnote_kr.citations.cleaning.elements import ELEMENT_NAMES, as_markup_writes_it
from mnote_kr.citations.text.textnorm import lazy_compile

# A complete tag; quoted attribute values may hold '>' (possessive: linear time).
_TAG = r"<(/?)([A-Za-z][A-Za-z0-9:_.-]*+)((?:[^<>\"']++|\"[^\"<]*+\"|'[^'<]*+')*+)>"
_TAG_RE = lazy_compile(_TAG)
# '<' + optional '/' + letter that is not a complete tag: a half tag or plain text.
_HALF = r"</?([A-Za-z][A-Za-z0-9:_.-]*+)([^<>]*+)"
_HALF_RE = lazy_compile(_HALF)
_TAG_OR_HALF_RE = lazy_compile(f"(?:{_TAG})|(?:{_HALF})")

# LightRAG's shells, which cleaning renders (``markup._render``); they are no element of HTML.
_LIGHTRAG_TAGS = frozenset(("equation", "drawing"))
# The names parsers and converters write as bare tags (LightRAG's shells, HTML table rows, inline formatting,
# blocks, MathML tokens), which no sentence writes as a placeholder: markup even alone. Element names a person
# may write in angle brackets (``<table>`` in ``SELECT * FROM <table>``, ``<code>``, ``<del>``, ``<caption>``)
# are decided by structure, as every other element's.
_PARSER_TAGS = frozenset(
    "equation drawing cite tr td th thead tbody tfoot br p div span sub sup b i u em strong a img figcaption "
    "ul ol li pre mi mo mn msup msub mrow h1 h2 h3 h4 h5 h6 hr blockquote dl dt dd s kbd tt strike nobr wbr "
    "col colgroup".split()
)
# A tag cut short at a chunk's very end (``<equ``, ``<tab``) is one of these, or any element's in a text of markup.
_CUT_NAMES = _PARSER_TAGS | frozenset("table caption figure code math del ins small mark center font big".split())
# Markup that says nothing of the document: LightRAG's shells (a chunk cut inside one starts at its
# ``</table>``), and what its parsers write into any text.
_NOT_THE_TEXTS = frozenset(("equation", "drawing", "table", "cite", "sub", "sup", "br"))

# Attributes as markup writes them: ``name="value"``, ``name='value'``, ``name=value``, a bare
# ``name`` among them; a cut tag ends inside one (``format="lat``).
_ATTR_NAME = r"[A-Za-z_:@][\w:.@-]*+"
# (a tag inside a JSON string has its quotes escaped: ``id=\\"8\\"``)
_VALUE = r"(?:\\?\"[^\"]*+\"|\\?'[^']*+'|[^\s\"'<>=`]++)"
_ATTRS_RE = lazy_compile(rf"(?:\s+{_ATTR_NAME}(?:\s*=\s*{_VALUE})?)*+\s*/?\s*")
_CUT_ATTRS_RE = lazy_compile(
    rf"(?:\s+{_ATTR_NAME}\s*=\s*{_VALUE})*+(?:\s+{_ATTR_NAME}(?:\s*=\s*(?:\\?\"[^\"]*+|\\?'[^']*+|[^\s\"'<>=`]*+))?)?\s*/?\s*"
)
_QUOTED_ATTR_RE = lazy_compile(rf"{_ATTR_NAME}\s*=\s*\\?[\"']")
_FIRST_ATTR_RE = lazy_compile(rf"\s+{_ATTR_NAME}\s*=")
#: The opening of a JSON table's rows (``[["``, ``[[1``, ``[ [``), as LightRAG writes them after ``<table>``.
_JSON_ROWS_RE = lazy_compile(r"\s*\[\s*\[")
_CLOSE_RES = {name: lazy_compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("equation", "table")}


def named(name: str) -> bool:
    """``name`` is an element's or LightRAG's, spelt as markup writes it (``br``, ``TABLE``, not ``Del``)."""
    return _name(name)[1]


@functools.lru_cache(maxsize=4096)  # a page repeats its few names
def _name(name: str) -> tuple[str, bool, bool]:
    """``name``'s pairing key (HTML reads element names case-insensitively; any other, XML's ``groupId``,
    pairs as written), whether it is :func:`named`, and whether it is a tag parsers write bare."""
    low = name.lower()
    if low in _LIGHTRAG_TAGS:
        is_named = name.islower() or name.isupper()
    else:
        is_named = as_markup_writes_it(name)
    return (low if low in ELEMENT_NAMES or low in _LIGHTRAG_TAGS else name), is_named, is_named and low in _PARSER_TAGS


class Marks(NamedTuple):
    """The markup a text holds: where its markup tags start, and whether the text is markup itself."""

    at: frozenset[int]  #: start offsets of the complete tags that are markup
    html: bool  #: the text holds markup of its own (not only LightRAG's): a cut element's tag goes too


def markup_tags(text: str, *, html: bool = False) -> Marks:
    """The :class:`Marks` of ``text``; ``html``: the text is markup's content (an HTML table's cells).

    Tags inside an equation or a table (which cleaning renders whole) are not read, as cleaning's walk
    does not read them (``markup._render``)."""
    # (start, end, closing, name, bare, sure) of each complete tag whose attributes are well formed
    found: list[tuple[int, int, str, str, bool, bool]] = []
    attrs_ok = _ATTRS_RE.fullmatch
    skip_to = 0
    for m in _TAG_RE.finditer(text):
        start = m.start()
        if start < skip_to:
            continue
        closing, name, attrs = m.group(1, 2, 3)
        bare = not attrs or not attrs.strip(" \t\n/")
        if not bare and not attrs_ok(attrs):
            continue
        sure = _name(name)[2] if bare else _sure_with(name, attrs)
        # LightRAG's JSON table shell, bare (its DOCX parser writes ``<table>[["...``): markup even unclosed, as a
        # chunk cut inside the table ends (nc27a Q12); "SELECT * FROM <table>" holds no JSON rows after it
        sure = sure or (bare and not closing and name.lower() == "table"
                        and _JSON_ROWS_RE.match(text, m.end()) is not None)
        found.append((start, m.end(), closing, name, bare, sure))
        if sure and not closing and name.lower() in _CLOSE_RES and not attrs.rstrip().endswith("/"):
            close = _CLOSE_RES[name.lower()].search(text, m.end())  # the walk renders it whole, to its closing tag
            skip_to = close.end() if close is not None else len(text)
    first_open: dict[str, int] = {}
    last_close: dict[str, int] = {}
    for start, _, closing, name, _, _ in found:
        key = _name(name)[0]
        if closing:
            last_close[key] = start
        else:
            first_open.setdefault(key, start)
    at: set[int] = set()
    alone: list[int] = []  # indexes into found of element tags with no other sign: decided by the text's markup
    for k, (start, _, closing, name, bare, sure) in enumerate(found):
        key, is_named, _ = _name(name)
        if (
            sure
            or (not closing and last_close.get(key, -1) > start)  # <details open>...</details>
            or (closing and bare and (is_named or first_open.get(key, start) < start))  # </details>, <w:t ...>...</w:t>
        ):
            at.add(start)
            html = html or name.lower() not in _NOT_THE_TEXTS
        elif bare and not closing and is_named:
            alone.append(k)
    for k in alone:
        if html or any(_beside(text, found[k], found[other]) for other in (k - 1, k + 1) if 0 <= other < len(found)):
            at.add(found[k][0])
    return Marks(frozenset(at), html)


def _sure_with(name: str, attrs: str) -> bool:
    """``<name attrs>`` (well-formed ``attrs``, not none) is markup whatever the text around it: quoted
    attributes, or an element's name with attributes (``<td colspan=2>``, not ``<b and c>``)."""
    return _QUOTED_ATTR_RE.search(attrs) is not None or ("=" in attrs and _name(name)[1])


def _beside(text: str, tag: tuple, other: tuple) -> bool:
    """``tag`` and ``other`` are both elements' tags as markup writes them side by side: nothing between them, or
    only white space holding a line break (``<html>\\n<head>``). Spaces on one line are a sentence's
    (``Usage: kumconv <input> <output>``): markup there needs other evidence in the text."""
    first, second = sorted((tag, other))
    gap = text[first[1] : second[0]]
    return _name(other[3])[1] and not gap.strip() and (not gap or "\n" in gap)


def is_cut_tag(name: str, rest: str, at_end: bool, html: bool = False) -> bool:
    """A ``<name rest`` with no ``>`` is a tag a chunk's cut left: an element's name (or any name with a quoted
    attribute) with its attributes begun (``<drawing id="im-3" format="pn``), or, at the very end, a tag
    parsers write cut short (``<equ``), or any element's in a text that holds markup (``html``: ``<summ``);
    not the text's own ``<`` (``a<b and see``, ``<with text following``)."""
    if _FIRST_ATTR_RE.match(rest) or (at_end and rest.strip()):  # attributes begun (at the end: perhaps cut)
        return _CUT_ATTRS_RE.fullmatch(rest) is not None and (named(name) or _QUOTED_ATTR_RE.search(rest) is not None)
    if not at_end or len(name) < 2 or not (name.islower() or name.isupper()):
        return False
    low = name.lower()
    return any(known.startswith(low) for known in (ELEMENT_NAMES if html else _CUT_NAMES))
