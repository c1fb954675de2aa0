"""The single cleaning step for citation text: every quote is cleaned here, once.

A LightRAG chunk or sidecar block carries inline markup (as LightRAG 1.5's parsers write it)::

    <equation format="latex">E=m{c}^{2}</equation>            inline math
    <equation id="eq-…" format="latex">$$E = mc^2$$</equation>  display math
    <table id="tb-…" format="json">[["Cell", "mAh"], …]</table>  2-D JSON table
    <table id="tb-…" format="html"><tr><td>…</td></tr></table>   MinerU HTML table
    <drawing id="im-…" format="png" path="…" src="" [caption="…"] />
    <cite …>…</cite>, markdown heading hashes, and chunk cuts through any of them

``clean_citation_text`` turns it, once, into a :class:`~mnote_kr.models.CitationTextBundle`:

* ``display_quote``: one line people and LLMs read. Tag shells gone, LaTeX made plain
  (``\\frac{a+b}{2}`` → ``(a+b)/2``, ``{c}^{2}`` → ``c^2``, ``\\alpha`` → ``α``), tables as
  rows (``Cell | mAh; A1 | 3200``), a workbook's sheet separator as LightRAG writes it
  (``==================== Sheet: Ducks ====================``) as the sheet's heading, ``Sheet: Ducks``
  (``text.sheet_headings``: the locator text too), drawings dropped or kept as ``[Figure: caption]``,
  broken or stray tags removed, a figure's lone-letter labels and a picture's glyph debris
  dropped (``debris``). Markup is decided by a tag's structure (``tags.markup_tags``: quoted
  attributes, an HTML/SVG/MathML element's tag closed later or among the text's other markup, a
  tag parsers write bare; a tag a chunk cut); the text's own words in angle brackets stay
  (``Press <Enter>``, ``a<b``, ``List<String>``, a lone ``<title>``), and such a ``<`` followed by
  a letter becomes ``< `` so no half tag can survive (and no Markdown renderer takes it for a tag). The user's query
  is never lost: if the raw text contained it (whitespace and case normalised) and cleaning
  would lose it, the query is appended after `` … ``.
* ``locator_evidence_text``: a query-centred window of the sidecar block (source
  ``sidecar``), else of the chunk (``chunk``), else the chunk's head (``fallback``), with
  the same markup removed but line breaks kept and tables as plain cell text.
* ``normalized_fingerprint``: 16 hex of sha1 over the display text after NFKC, casefold
  and removal of whitespace and punctuation; de-duplicates within one result.

Everything is regex-driven and linear in the input (a 20 KB chunk cleans in about a
millisecond); cleaning the display text again gives the same display text.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable
from typing import NamedTuple

from mnote_kr.citations.cleaning.copyable import (
    drop_trailing_bullet,
    join_cjk_gaps,
    join_cjk_lines,
    join_drop_caps,
    rejoin_hyphenation,
    symbol_bullets,
    trim_to_boundaries,
    unify_cjk_forms,
)
from mnote_kr.citations.cleaning.debris import drop_debris
from mnote_kr.citations.cleaning.latex import _math_in_text, latex_to_plain
from mnote_kr.citations.cleaning.markup import (
    _DISPLAY_MAP,
    _LOCATOR_MAP,
    _map_markers,
    _normalize_lines,
    _render,
    _strip_lead,
    drop_tag_tails,
)
from mnote_kr.citations.cleaning.text import (
    _FINGERPRINT_DROP_RE,
    _FULLWIDTH_PUNCT,
    _HEADING_RE,
    _collapse,
    sheet_headings,
)
from mnote_kr.citations.cleaning.window import _best_hit, _overlap_at, _query_re, _term_centre, _window
from mnote_kr.citations.text.textnorm import lazy_compile, markdown_links_as_words
from mnote_kr.citations.text.textnorm import query_standing as query_standing  # re-exported: one rule, in textnorm
from mnote_kr.models import CitationTextBundle

__all__ = [
    "ChunkPrep",
    "clean_citation_text",
    "clean_prepared",
    "display_text",
    "fingerprint",
    "latex_to_plain",
    "locator_text",
    "prepare_chunk",
]


# a "<" a tag could start with: kept as written when cleaning the text again keeps it (``_as_written``)
_TAG_START_RE = lazy_compile(r"<(?=/?[A-Za-z])")
_ATTR_TAG_RE = lazy_compile(r"</?[A-Za-z][\w:.-]*\s+[\w:.-]+\s*=\s*[\"']")
_TEMPLATE_MARK_RE = lazy_compile(r"\[Table_[A-Za-z]+\]")
_MD_STRONG_RE = lazy_compile(r"(\*\*)(?=\S)([^\n]{1,300}?)(?<=\S)\*\*(?!\w)")
# a backslash before the punctuation Markdown converters escape (not LaTeX's \[ \( \|, grep's \|, a path's \U)
_MD_ESCAPE_RE = lazy_compile(r"(?<!\\)\\([_*#`])")


def _display_core(raw: str) -> str:
    return _display_from_neutral(_render(raw))


def _display_from_neutral(neutral: str) -> str:
    return _as_written(neutral, _display_steps, _display_core_steps)


def _as_written(neutral: str, steps: Callable[[str, bool], str], again: Callable[[str], str]) -> str:
    """``steps(neutral)`` with each ``<`` of the text as written (``in>><<this``, ``Press <Enter>``), when
    cleaning that text again keeps it (``again``) and no tag with an attribute begun shows in it; else with a
    space after every ``<`` before a letter (``< equ``), so a half tag the walk kept as text (``<equ`` once a
    tag after it went, ``<equation format="lat"0``) never reads as markup, and cleaning stays idempotent."""
    text = steps(neutral, False)
    if _TAG_START_RE.search(text) is None or (_ATTR_TAG_RE.search(text) is None and again(text) == text):
        return text
    return steps(neutral, True)


def _display_core_steps(text: str) -> str:
    return _display_steps(_render(text), False)


def _display_steps(neutral: str, spaced: bool) -> str:
    text = _map_markers(sheet_headings(neutral), _DISPLAY_MAP)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    # before whitespace collapses: a hyphenated line break is still visible here
    text = join_drop_caps(rejoin_hyphenation(unify_cjk_forms(text.replace("\ufffd", "") if "\ufffd" in text else text)))
    text = symbol_bullets(text)
    if "#" in text:
        text = _HEADING_RE.sub("", text)
    if "[Table_" in text:  # a report template's placeholders in the text layer: "[Table_Base] 股票数据"
        text = _TEMPLATE_MARK_RE.sub(" ", text)
    text = markdown_links_as_words(text)
    if "**" in text:  # Markdown's strong emphasis: "**compost**" -> "compost" (not "__": code's __init__)
        text = _MD_STRONG_RE.sub(r"\2", text)
    if "\\" in text:  # Markdown's escapes, as converters write them (after "**": "\\*\\*" is no emphasis)
        text = _MD_ESCAPE_RE.sub(r"\1", text)
    text = _collapse(join_cjk_lines(text))  # a wrapped line of Chinese is no space between its words
    text = _math_in_text(text)
    if spaced:
        text = _TAG_START_RE.sub("< ", text)
    text = _collapse(drop_tag_tails(text))
    if "$" in text:  # a dropped tag can bring two dollars together: settle them, or cleaning again would
        text = _collapse(_math_in_text(text))
    return drop_trailing_bullet(trim_to_boundaries(_strip_lead(join_cjk_gaps(drop_debris(text)))))


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def display_text(raw: str, query: str = "") -> str:
    """The display quote for ``raw``; keeps ``query`` if ``raw`` contained it."""
    return _display_with_query(raw, _render(raw), query)


def _display_with_query(raw: str, neutral: str, query: str) -> str:
    return _keep_query(raw, _display_from_neutral(neutral), query)


def _keep_query(raw: str, text: str, query: str) -> str:
    """The display ``text`` of ``raw``, with ``query`` appended when cleaning lost it."""
    q = _collapse(query)
    if q and q not in text:
        nq = q.casefold()
        if nq not in text.casefold() and nq in _norm(raw):
            # Cleaning lost the user's words (inside an equation, a cut tag, …): keep them.
            shown = _display_core(q)  # as the quote shows it ("。 。" joins: "。。"), when only spaces differ
            if "<" not in q and shown and shown.replace(" ", "") == q.replace(" ", ""):
                text = join_cjk_gaps(f"{text} … {shown}") if text else shown
    return text


def locator_text(raw: str) -> str:
    """``raw`` without markup that confuses a locator; line breaks kept, words kept."""
    return _locator_from_neutral(_render(raw))


def _locator_from_neutral(neutral: str) -> str:
    return _as_written(neutral, _locator_steps, _locator_core_steps)


def _locator_core_steps(text: str) -> str:
    return _locator_steps(_render(text), False)


def _locator_steps(neutral: str, spaced: bool) -> str:
    text = _normalize_lines(_math_in_text(_map_markers(sheet_headings(neutral), _LOCATOR_MAP)))
    if spaced:
        text = _TAG_START_RE.sub("< ", text)
    return _strip_lead(drop_tag_tails(text)).strip()


def fingerprint(display: str) -> str:
    """16 hex of sha1 over NFKC + casefold + no whitespace/punctuation."""
    for wide, narrow in _FULLWIDTH_PUNCT:  # their NFKC forms; lets the quick check pass
        if wide in display:
            display = display.replace(wide, narrow)
    if not unicodedata.is_normalized("NFKC", display):
        display = unicodedata.normalize("NFKC", display)
    norm = _FINGERPRINT_DROP_RE.sub("", display.casefold())
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:16]



class ChunkPrep(NamedTuple):
    """What cleaning takes from a chunk's text alone, whatever the query or the sidecar block.

    It is most of the work (markup, LaTeX, CJK forms, folding for the term search), and a
    fresh process reads it from disk (``mnote_kr.citations.caches.cleancache``) instead of redoing it.
    """

    display: str  #: the display text before the query's own words are kept
    locator: str  #: the chunk's locator text (``locator_text(raw)``)
    folded: str | None  #: ``ranking.fold(locator)`` (same length); None: fold on demand (``.lower()`` if ASCII)
    fingerprint: str  #: ``fingerprint(display)``
    rendered: bool  #: the markup walk changed the text (a tag, a table, an entity)


def prepare_chunk(raw: str, *, fold: bool = False) -> ChunkPrep:
    """The query-independent part of :func:`clean_citation_text` for the chunk ``raw``.

    ``fold=True`` also folds the locator text for the query-term search: a cache that keeps
    the answer for later processes pays it once; one cleaning alone folds only if a query
    needs it (no verbatim hit), as a 20 KB CJK chunk's fold costs as much as its cleaning.
    """
    from mnote_kr.citations.rank.ranking import fold as fold_text  # loaded with the pipeline; lazy like window's

    raw = raw or ""
    neutral = _render(raw)
    display = _display_from_neutral(neutral)
    chunk_loc = _locator_from_neutral(neutral)
    folded = fold_text(chunk_loc) if fold and not chunk_loc.isascii() else None
    return ChunkPrep(display=display, locator=chunk_loc, folded=folded, fingerprint=fingerprint(display),
                     rendered=neutral != raw)


def clean_citation_text(
    raw: str, query: str, block_text: str | None = None, *, window: int = 240
) -> CitationTextBundle:
    """Clean a raw chunk once into display, locator and fingerprint texts.

    ``block_text`` is the matched sidecar block's content, if any. The locator evidence
    is a query-centred window (about ``window`` characters each way) of the block when it
    contains the query or overlaps the chunk (``sidecar``), else of the chunk (``chunk``),
    else the chunk's head (``fallback``).
    """
    return clean_prepared(raw, prepare_chunk(raw), query, block_text, window=window)


def clean_prepared(
    raw: str, prep: ChunkPrep, query: str, block_text: str | None = None, *, window: int = 240
) -> CitationTextBundle:
    """:func:`clean_citation_text` of ``raw`` from its :func:`prepare_chunk` answer ``prep``:
    only the query's part (its words kept, the evidence window, the sidecar block) is done here."""
    raw = raw or ""
    search_query = _collapse(query or "")
    display = _keep_query(raw, prep.display, search_query)
    qre = _query_re(search_query)
    chunk_loc = prep.locator
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
        centre = None if hit else _term_centre(chunk_loc, search_query, window, folded=prep.folded)
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
        normalized_fingerprint=prep.fingerprint if display == prep.display else fingerprint(display),
        locator_text_source=source,
        display_cleaned=prep.rendered or display != _collapse(raw),
    )
