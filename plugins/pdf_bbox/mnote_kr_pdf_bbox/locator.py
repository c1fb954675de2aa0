"""Turn a locate request for a PDF into a ``Locator``: sidecar boxes first (``sidecarbox``: the
coordinate systems MinerU and Docling declare), then the text layer.

Without usable boxes the evidence is searched in the PDF's own text layer (``align``),
and the text block of the matched passage that answers the query is the primary box
(``answer``), over the lines of it the passage covers (a chunk cut inside a paragraph is boxed
where it was retrieved), or whole when the evidence is its own query and a piece of that one block
(where does this sentence of an answer stand?: its paragraph). ``rects`` holds that box and the part of its
paragraph a column break or a picture cut off (``layout.continuations``), whose words the quote's text
(``place_text``, in reading order) holds too: nothing the quote does not show (the passage's other blocks
are not the place). Nothing found, or a
page without a text layer, gives a ``file`` locator: never a made-up box. The boxed block's section,
from the PDF's outline (bookmarks) when it has one, is ``place_headings`` (``outline``); without an
outline it is left to the provider's block (none for a block outside the passage: the block's heading is
another place's): headings are not guessed from font sizes. Chinese drawn with
fonts without a Unicode map (pdfium reads only the Latin letters and digits around it) gets a
``file`` locator with the page its Latin letters and digits were found on as its ``pageHint``.
A page whose text layer is mostly mojibake (``unreadable_page``) is never boxed: the evidence found
there gets a ``file`` locator, the page its hint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mnote_kr.plugin_api import LocateRequest, Locator, Rect, lacked_words, lazy_compile, normalize

from .align import Match, Span, find, find_stored, spans
from .answer import _CJK_ASKING, MIN_SHARE, choose, holds_terms
from .blocks import content_terms, written_text
from .captions import at_named_caption
from .definitions import at_named_definition
from .headvalues import column_values
from .layout import drop_furniture_lines
from .model import furniture_keys, furniture_near, load_document
from .named import at_named_page, choosing_words
from .outline import section
from .pdftext import Box, DocumentText, PageText
from .peers import with_peers
from .rowparts import own_part
from .sidecarbox import from_sidecar, rounded
from .tablerows import row_place
from .underhead import give_way, lacks_terms

PLUGIN = "pdf_bbox"
#: The chosen text block is boxed whole (its paragraph as printed; a block longer than
#: ``answer.MAX_LINES`` and a table row as ``answer`` narrows them), not only the lines the provider's
#: chunk covers: a chunk often ends mid-paragraph, and the reader's place, as a DOCX paragraph, is the
#: paragraph (False: the chunk's lines of it, as before; ``benchmarks/retrieval.py``).
WHOLE_BLOCK = True
#: Which blocks are the candidates besides the evidence window's (the host sends a window of the chunk
#: around the query's words as evidence, the whole chunk as the passage): "off", the window's alone;
#: "unanchored", the whole passage's when the window holds none of the query's words (it is then the
#: chunk's start, an arbitrary part); "always", the whole passage's. Measured with
#: ``benchmarks/retrieval.py --variant NAME:py:mnote_kr_pdf_bbox.locator.PASSAGE_BLOCKS=...``
#: (docs/embeddings.md, issue 33's thirteenth and fourteenth rounds): both lost first places on the
#: tuning sets and left a fresh PDF-block set (tune4) unmoved.
PASSAGE_BLOCKS = "off"
#: Rules whose block is the place asked for as it is: no table column or row is read under it.
_OWN_RULES = ("verbatim", "cell", "extreme", "caption", "definition")


def _file(req: LocateRequest, reason: str, page: int | None = None) -> Locator:
    """``file`` precision; a page known without a place on it is a hint (``pageHint``), never ``page``."""
    return Locator(
        locator_precision="file",
        locator_degraded=True,
        page_hint=page,
        block_id=req.block_id or (req.block.blockid if req.block else None),
        locator_plugin=PLUGIN,
        reason=reason,
        locator_reason=reason,
        score=0.0,
    )


def locate_pdf(req: LocateRequest) -> Locator:
    """Locate ``req.evidence`` in the PDF ``req.file``; raises ``DocumentError`` if unreadable."""
    doc = load_document(req.file)
    loc, pages_only = from_sidecar(req, doc)
    if loc is not None:
        return loc
    evidence = req.evidence or (req.block.content if req.block else "")
    certain_page = pages_only[0] if len(set(pages_only)) == 1 else (1 if len(doc.pages) == 1 else None)
    if not doc.has_text:
        return _file(req, "no text layer (scanned PDF); no box without positions", certain_page)
    keys = furniture_keys(doc)  # before find_stored: the document's text_key covers them
    m = find_stored(doc, evidence, lambda ev: drop_furniture_lines(ev, keys))
    if m is None:
        latin_page = _page_by_latin(doc, evidence)
        if latin_page is not None:
            # ``file`` precision: the reason says so first (whole file, the page a hint), never "page"
            return _file(req, f"whole file (page {latin_page} known, place not found): the text layer lacks the "
                              "evidence's CJK characters (a font without a Unicode map); only its Latin letters "
                              f"and digits were found, on page {latin_page}", latin_page)
        empty = [p.number for p in doc.pages if not p.has_text]
        why = "evidence not found in the PDF text layer"
        if empty:
            why += f"; {len(empty)} page(s) have no text layer (scanned)"
        if certain_page is not None:
            why += f"; page {certain_page} from the sidecar" if pages_only else "; single-page PDF"
        return _file(req, why, certain_page)
    whole = spans(doc, m.view, m.start, m.end)
    if not whole:
        return _file(req, "matched text has no drawable lines", certain_page)
    counts = own = passage_blocks(doc, m)
    if PASSAGE_BLOCKS == "always" or PASSAGE_BLOCKS == "unanchored" and not _anchored(evidence, req.query):
        counts = _with_passage(doc, req, evidence, own, lambda ev: drop_furniture_lines(ev, keys))
    else:  # the passage's blocks holding as much of the query's words as the window's best (``answer.WORD_PEERS``)
        counts = with_peers(doc, own, lambda: _with_passage(doc, req, evidence, own, lambda ev: drop_furniture_lines(
            ev, keys)), choosing_words(req.query))
    ans, named = at_named_page(doc, counts, choose(doc, list(counts), choosing_words(req.query)), req.query)
    ans, head = give_way(doc, ans, choosing_words(req.query))  # a heading chosen for a question: the text under it
    if (captioned := at_named_caption(doc, counts, ans, req.query)) is not ans:  # "what does table 3 show?"
        ans, head = captioned, None
    if (defined := at_named_definition(doc, counts, ans, req.query)) is not ans:  # "what is the oracle?"
        ans, head = defined, None
    why = f"text layer match, coverage {m.coverage:.2f}"
    degraded = False
    place_text = lead = None
    more: list[Span] = []
    headings = None  # the PDF's outline says which section the boxed block is in (``outline``); else unknown
    if ans.block is not None:
        headings = section(doc, *ans.block)
        if headings is None and ans.block not in counts:  # outside the passage (a page the query names):
            headings = []  # the provider's block heading is another place's, and the PDF has no outline
        pi = ans.block[0]
        page = doc.pages[pi]
        # The block (WHOLE_BLOCK); else its lines the evidence covers: a chunk that holds only part
        # of a paragraph boxed where it was retrieved, not on the rest of the paragraph, except for
        # evidence that is its own query (where do these words stand?: a sentence of an answer) and a
        # piece of one paragraph, placed at that paragraph: the block.
        lines = ans.lines if WHOLE_BLOCK or _own_query(req) and _piece_of(counts, ans.block) else \
            [li for li in ans.lines if li in counts[ans.block].lines] or ans.lines
        lines = lines + _sentence_run_on(page, ans.block[1], lines, pi, counts)
        if _own_query(req):  # where does this sentence stand: all of it, wherever the layout cut its paragraph
            lines = lines + _own_lines(page, ans.block[1], lines, pi, counts)
        primary = Span(pi + 1, page.geometry.display(_union([page.lines[li] for li in lines])))
        # the paragraph's other part past a column break or a picture: boxed too, so its words are quoted too
        parts = _continued(page, ans.block[1], pi, counts)
        more = [Span(pi + 1, page.geometry.display(_union([page.lines[li] for li in part]))) for _, part in parts]
        # the boxed lines' words, in reading order (the paragraph's parts as its blocks run): the quote shows
        # what the boxes mark
        place_text = written_text(page, [li for b, part in parts if b < ans.block[1] for li in part]
                                  + page.reading(lines) + [li for b, part in parts if b > ans.block[1] for li in part],
                                  quoted=True)
        column = column_values(doc.path, page, ans.block[1], req.query) \
            if ans.rule not in _OWN_RULES else None
        if column is not None:  # a table's header (or its title) holds no figure: the values under it answer
            primary = Span(pi + 1, page.geometry.display(_union(column.boxes)))
            place_text = column.text
        row = row_place(doc.path, page, ans.block[1], lines, req.query,
                        [b[1] for b, _ in ans.runners_up if b[0] == pi]) \
            if column is None and ans.rule not in _OWN_RULES else None
        if row is not None:  # a table's title asked for a value: the row; a row: all its cells (``tablerows``)
            primary = Span(pi + 1, page.geometry.display(_union([page.lines[li] for li in row.lines])))
            place_text = row.text
        if ans.rule == "verbatim":
            why += "; the query stands in this text block"
            lead = _heading_lead(doc, ans.block, place_text, req.query, req.passage or evidence)
        elif ans.rule == "cell":
            why += "; the query names this table row's label and this cell's header"
        elif ans.rule == "caption":
            why += "; the query names the table or figure whose caption this text block starts"
        elif ans.rule == "definition":
            why += "; the query asks what a term is, and this text block names it"
        elif ans.rule == "extreme":
            pass  # the heading's rule says which row and why (``underhead``)
        elif ans.rule == "meaning":
            why += f"; placed by meaning and query terms among the passage's text blocks " \
                   f"({ans.found} of the query's {ans.terms} content terms" + \
                   ("; more of them said in the passage's language)" if ans.said_across else ")")
            # one rule with the words' choice (precision.py): a block holding few of the query's words
            # is a guess by meaning, an approximate place, however well it ranks
            degraded = ans.share < MIN_SHARE and not (row is not None and row.degraded is False)
            if degraded:
                why += "; it holds few of the query's words: an approximate place"
        elif ans.rule == "named":  # the block holding most of the query's other words on the named page
            # the query's other words are elsewhere in the PDF, not there (or few of them: the PDF's name alone)
            degraded = ans.terms > 0 and (not ans.found or ans.share < MIN_SHARE)
            # the page asked for whole: its longest block stands for it (``named._whole_page``), the page's place (the
            # host's ranking counts an exact place as the page a query names)
            why += "; the query asks about the page as a whole: its longest text block stands for it" \
                if not ans.terms else \
                "; none of the query's other words chooses a block there" if degraded and not ans.found else \
                f"; this text block holds {ans.found} of the query's {ans.terms} other words" + \
                ": an approximate place" * degraded if ans.found else ""
        else:
            why += f"; this text block holds {ans.found} of the query's {ans.terms} content terms " \
                   f"(rarity-weighted share {ans.share:.2f})"
        if column is not None:
            why += f"; a table's header ({column.name!r}) holds no figure: boxed with the " + (
                "value under it in the row the query names" if column.rows == 1 and column.asked else
                f"{column.rows} row{'s' * (column.rows > 1)}' value{'s' * (column.rows > 1)} under it")
        if row is not None:
            why += row.why
            degraded = degraded if row.degraded is None else row.degraded
        if head is not None and row is None:  # a table's row, once chosen, is judged by ``tablerows``
            why, degraded = why + head.why, head.degraded
        if ans.rare_elsewhere and not degraded and (row is None or row.degraded is None):
            degraded = True
            why += "; a table row of the passage holds more of the query's words, its rarest among them: " \
                   "an approximate place"
        held = "\n".join([place_text or "", *(headings or ()), head.heading if head is not None else ""])
        if not degraded and ans.rule in ("terms", "meaning") and (lacks := _lacked(req.query, held)):
            # a Chinese question's words, each as written (``plugin_api.lacked_words``): 收益 in 每股收益 and 成本 in
            # 营业成本, one row apart, are no 收益成本分析 (nc24a Q8)
            degraded = True
            why += f"; it lacks the query's words {'、'.join(lacks)}: an approximate place"
    else:
        # The passage itself: the matched lines of the block holding most of the match (a
        # stray k-gram at the match's edge must not decide the page).
        primary = whole[0]
        if own:
            top = max(own, key=lambda b: (own[b].count, -b[0], -b[1]))
            primary = (spans(doc, m.view, own[top].first, own[top].last + 1) or whole)[0]
            headings = section(doc, *top)
            # the quote shows what the box marks, not the passage's first sentence on another block
            place_text = written_text(doc.pages[top[0]], doc.pages[top[0]].reading(own[top].lines), quoted=True)
        if ans.rule == "semantic":
            degraded = True
            why += ("; semantic match: no text block of the passage holds a meaningful share of the "
                    "query's terms, so the passage is cited, not an exact place")
    if unreadable_page(doc, primary.page - 1):
        return _file(req, f"whole file (page {primary.page} known, no box): page {primary.page}'s text layer is "
                          "unreadable (a font without a usable Unicode map: its text is mojibake), so nothing on "
                          "it is boxed from that layer; OCR reads the page ('mnote-kr ingest --force' re-indexes "
                          "a file indexed from the garbage)", primary.page)
    if named:
        why += f"; the query names page {', '.join(map(str, named))}"
    # Only what the quote shows (nc18a: the evidence window's other blocks, boxed lighter, scattered
    # highlights over a report's title, a sidebar, the next bullet, all of which the quote leaves out).
    rects = [Rect(page=s.page, bbox=rounded(s.box)) for s in [primary, *more]]
    return Locator(
        locator_precision="bbox",
        locator_degraded=degraded,
        page=rects[0].page,
        bbox=rects[0].bbox,
        rects=rects,
        block_id=req.block_id or (req.block.blockid if req.block else None),
        score=round(m.coverage * (0.5 if ans.block is None and degraded else 1.0), 3),
        locator_plugin=PLUGIN,
        reason=why,
        locator_reason=why,  # the same words as the DOCX locator gives: exact, query terms, or semantic
        quote_omit=furniture_near(doc, m.view.compact_page[m.start], m.view.compact_page[m.end - 1]),
        meaning_score=round(ans.meaning, 6) if ans.meaning is not None else None,
        place_text=place_text,
        quote=lead,
        place_headings=headings,
        runners_up=[_runner_up(doc, req, counts, b, cos, m.coverage, named) for b, cos in ans.runners_up
                    if not unreadable_page(doc, b[0])],
    )


def unreadable_page(doc: DocumentText, pi: int) -> bool:
    """Whether page index ``pi``'s text layer is mostly mojibake (the host's ``unreadable_layer``: a font
    without a usable Unicode map): nothing on it is boxed from that layer (the OCR plugin reads the page).
    Measured once per page of a document model, remembered in memory (``extras["unreadable"]``): every
    located passage asks it of its page and of each place behind it, and measuring a whole page's layer
    again each time was most of what ranking by meaning added to a warm search (round 27,
    ``benchmarks/search_cost.py``: ~5 places behind a passage, each on a page measured anew)."""
    memo = doc.extras.get("unreadable")
    if not isinstance(memo, dict):
        memo = doc.extras["unreadable"] = {}
    hit = memo.get(pi)
    if hit is None:
        from mnote_kr.plugin_api import unreadable_layer

        hit = memo[pi] = unreadable_layer(doc.pages[pi].text)
    return hit


def _heading_lead(doc: DocumentText, block: tuple[int, int], heading: str, query: str, chunk: str) -> str | None:
    """The quote of a block that is only the query (a heading): it and the first sentence of the block after it
    on its page, as the text layer reads them (the host's ``heading_lead``; a provider's text of a PDF damages
    maths and symbols: "C(p; p)" for C(p, p̄)), when the provider's ``chunk`` goes on after the heading with
    that sentence (``LEAD_AGREES`` of its letters and digits alike: the block after it in reading order may be
    a side note); None otherwise (the host quotes the chunk's sentence), or for a mojibake layer."""
    from difflib import SequenceMatcher

    from mnote_kr.plugin_api import heading_lead, unreadable_layer

    pi, bi = block
    page = doc.pages[pi]
    if bi + 1 >= len(page.blocks):
        return None
    after = written_text(page, page.blocks[bi + 1])
    if unreadable_layer(after) or unreadable_layer(heading):
        return None
    ours, theirs = heading_lead(heading, f"{heading}\n{after}", query), heading_lead(heading, chunk, query)
    if ours is None or theirs is None:
        return None
    a, b = ("".join(ch for ch in t.partition("\n")[2] if ch.isalnum()) for t in (ours, theirs))
    return ours if SequenceMatcher(None, a, b, autojunk=False).ratio() >= LEAD_AGREES else None


def _anchored(evidence: str, query: str) -> bool:
    """The evidence window holds one of the query's content words (it was cut around them)."""
    return bool(content_terms(query).keys() & content_terms(evidence).keys())


def _with_passage(doc: DocumentText, req: LocateRequest, evidence: str, own: dict[tuple[int, int], Touch],
                  prepare: Callable[[str], str]) -> dict[tuple[int, int], Touch]:
    """The evidence's blocks and, behind them, the other blocks of the whole passage it was cut from
    (``LocateRequest.passage``, the provider's chunk), as a DOCX locator's candidates are the chunk's
    paragraphs. The passage's blocks count only where it aligns over the evidence's own (a repeated text
    aligned elsewhere adds nothing)."""
    if not req.passage or req.passage == evidence or not own:
        return own
    whole = find_stored(doc, req.passage, prepare)
    if whole is None:
        return own
    more = passage_blocks(doc, whole)
    if not own.keys() & more.keys():
        return own
    out = dict(own)
    for block, touch in more.items():
        out.setdefault(block, touch)
    return out


#: A search for a Chinese term: one run of Chinese characters, no question word ("收益成本分析").
_TERM_SEARCH = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")


def _lacked(query: str, text: str | None) -> list[str]:
    """The words of a Chinese term searched for (``_TERM_SEARCH``) that the place's ``text`` does not hold as
    written (``plugin_api.lacked_words``). Only for a term: a question's words a PDF's answer often says otherwise
    (the tuning sets' nine Chinese questions whose exact first block lacked one were all on the labelled block),
    while a term is what is asked, and its words held one by one, two cells apart, are no term."""
    q = normalize(query or "").strip()
    if text is None or not _TERM_SEARCH.fullmatch(q) or _CJK_ASKING.search(q):
        return []
    return lacked_words(q, normalize(text))


def _runner_up(doc: DocumentText, req: LocateRequest, counts: dict[tuple[int, int], Touch], block: tuple[int, int],
               cos: float | None, coverage: float, named: list[int]) -> Locator:
    """A block behind the chosen one (``Answer.runners_up``): the whole block (``WHOLE_BLOCK``; else its
    lines the passage covers, all of a block outside the passage), boxed, with its words for the quote;
    approximate (a guess behind the best) unless it holds the query's words as an exact place does
    (``MIN_SHARE`` of their weight: the definition the evidence window ended before, found by meaning), on
    a page the query names when it ``named`` some (elsewhere it is not the place asked for)."""
    pi, bi = block
    page = doc.pages[pi]
    touch = counts.get(block)
    lines = [li for li in page.blocks[bi] if WHOLE_BLOCK or touch is None or li in touch.lines] or list(page.blocks[bi])
    lines = own_part(page, bi, lines, req.query)  # a row beside another table's: its own table's part (nc26a Q14)
    box = rounded(page.geometry.display(_union([page.lines[li] for li in lines])))
    why = f"text layer match, coverage {coverage:.2f}; placed by meaning " + (
        "and query terms among the passage's text blocks" if touch is not None else
        "among the file's text blocks, outside the cited passage")
    share, found, terms = holds_terms(doc, block, words := choosing_words(req.query))
    exact = share >= MIN_SHARE and (not named or pi + 1 in named) and not lacks_terms(doc, block, words) \
        and not _lacked(req.query, written_text(page, page.reading(lines)))
    if exact:
        why += f"; this text block holds {found} of the query's {terms} content terms (rarity-weighted share " \
               f"{share:.2f})"
    return Locator(locator_precision="bbox", locator_degraded=not exact, page=pi + 1, bbox=box,
                   rects=[Rect(page=pi + 1, bbox=box)],
                   block_id=req.block_id or (req.block.blockid if req.block else None),
                   score=round(coverage, 3), locator_plugin=PLUGIN, reason=why, locator_reason=why,
                   meaning_score=round(cos, 6) if cos is not None else None,
                   place_text=written_text(page, page.reading(lines), quoted=True),
                   # outside the passage, without an outline: under no heading the PDF says, not the passage's
                   place_headings=section(doc, pi, bi) if touch is not None else section(doc, pi, bi) or [])


_CJK_RE = lazy_compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u2e80-\u2fdf]")
_ALNUM_RE = lazy_compile(r"[A-Za-z0-9]")
#: Least likeness (``difflib`` ratio of letters and digits) of the text layer's sentence after a heading and
#: the chunk's for the quote to read the text layer's (``_heading_lead``).
LEAD_AGREES = 0.8
#: Least share of the evidence's matched characters in one text block for the evidence to be a piece
#: of that paragraph, boxed as the whole block (``_piece_of``).
PIECE_SHARE = 0.8
#: Least Latin letters and digits, and least coverage, for a page found without the CJK text.
LATIN_MIN_CHARS = 16
LATIN_MIN_COVERAGE = 0.6


def _page_by_latin(doc: DocumentText, evidence: str) -> int | None:
    """The page of mostly-CJK evidence whose CJK characters the text layer does not have.

    Some PDFs draw Chinese with fonts that have no Unicode map: pdfium then reads only the
    Latin letters, digits and punctuation between them (``chatchat__1.pdf``). The same
    skeleton of the evidence still aligns with the text layer and names the page; no box is
    claimed, since the matched characters are a sparse part of the passage.
    """
    cjk = len(_CJK_RE.findall(evidence))
    if cjk < 0.3 * max(1, len("".join(evidence.split()))):
        return None
    skeleton = _CJK_RE.sub(" ", evidence)
    if len(_ALNUM_RE.findall(skeleton)) < LATIN_MIN_CHARS:
        return None
    m = find(doc, skeleton)
    if m is None or m.coverage < LATIN_MIN_COVERAGE:
        return None
    counts = passage_blocks(doc, m)
    if not counts:
        return None
    per_page: dict[int, int] = {}
    for (pi, _), touch in counts.items():
        per_page[pi] = per_page.get(pi, 0) + touch.count
    return max(per_page, key=lambda pi: (per_page[pi], -pi)) + 1


def _own_query(req: LocateRequest) -> bool:
    """True when the request asks where its evidence stands: the query is the evidence itself."""
    return " ".join(req.query.split()) == " ".join(req.evidence.split()) != ""


def _piece_of(counts: dict[tuple[int, int], Touch], block: tuple[int, int]) -> bool:
    """True when ``block`` holds at least ``PIECE_SHARE`` of the characters the evidence matched:
    the evidence is a piece of that paragraph (a stray k-gram or a heading run into it aside)."""
    return counts[block].count >= PIECE_SHARE * sum(t.count for t in counts.values())


def _continued(page: PageText, bi: int, pi: int,
               counts: dict[tuple[int, int], Touch]) -> list[tuple[int, list[int]]]:
    """The other part of the answer's paragraph where a picture or a column break cuts it in two
    (``layout.continuations``), its block and its lines as far as the match covers them (in reading order):
    the citation's second rectangle."""
    out = []
    for other in [b for b, nxt in page.continues.items() if nxt == bi] + [page.continues.get(bi, -1)]:
        touch = counts.get((pi, other))
        if touch is not None:
            out.append((other, page.reading(touch.lines)))
    return out


_SENTENCE_END = lazy_compile(r"[.!?。！？:;][\"'”’)\]]*$")


def _sentence_run_on(page: PageText, bi: int, lines: list[int], pi: int,
                     counts: dict[tuple[int, int], Touch]) -> list[int]:
    """The lines that finish the sentence the boxed ``lines`` of block ``bi`` end in (nc17d: the layout cut
    "... the complexity of cost / aggregation from O(ω²) to O(ω)." in two blocks at the superscript): when
    they end the block without a sentence end and the next block in reading order goes on with it (the
    passage's match covers it, and it opens in lower case: no heading, no new item), its lines up to the
    one ending the sentence, with any small line standing inside them (the superscript), up to two blocks on."""
    out: list[int] = []
    if not lines or max(lines) != max(page.blocks[bi]):
        return out
    text = written_text(page, page.reading(lines))
    for nxt in (bi + 1, bi + 2):
        if _SENTENCE_END.search(text) or nxt >= len(page.blocks) or (pi, nxt) not in counts \
                or nxt in page.table_rows:
            break
        opening = written_text(page, page.blocks[nxt]).split(maxsplit=1)[:1] or [""]
        if not opening[0][:1].islower() or opening[0].endswith(":") or not _wraps(page, max(lines + out), nxt):
            break  # a heading, a new item ("len: the length"), a caption beside it: no sentence run on
        taken = []
        for li in page.blocks[nxt]:
            taken.append(li)
            if _SENTENCE_END.search(written_text(page, [li])):
                break
        box = _union([page.lines[li] for li in taken])
        inner = [li for li, ln in enumerate(page.lines) if li not in taken and li not in lines and
                 page.block_of[li] not in (bi, nxt) and _inside(ln, box)]
        out += taken + inner
        text = written_text(page, page.reading(lines + out))
    return out


def _own_lines(page: PageText, bi: int, lines: list[int], pi: int,
               counts: dict[tuple[int, int], Touch]) -> list[int]:
    """The lines a sentence (the evidence, its own query) covers in the blocks next to its chosen block ``bi``
    (two on either side, in its column, ``_in_column``): the layout cut its paragraph there (a footnote's
    indented first line read as a block of its own; the neighbouring column's equation number "(5)" read into
    the next block, which stops ``_sentence_run_on``), and the sentence's place is all of it, not the block
    holding most of its words."""
    box = _union([page.lines[li] for li in lines])
    out = []
    for (p, b), touch in counts.items():
        if p != pi or b == bi or abs(b - bi) > 2 or b in page.table_rows:
            continue
        out += [li for li in sorted(touch.lines) if li not in lines and li not in page.furniture
                and _in_column(page.lines[li], box)]
    return out


def _in_column(line: Box, box: Box) -> bool:
    """At least half of ``line``'s width lies across ``box``'s: not the neighbouring column's equation number."""
    return min(line[2], box[2]) - max(line[0], box[0]) >= 0.5 * (line[2] - line[0])


def _wraps(page: PageText, li: int, nxt: int) -> bool:
    """Whether line ``li`` wraps into block ``nxt``: it runs to its column's right edge (as far as any line
    starting where it starts), a text column (over a third of the page's text width, not a picture's legend),
    and ``nxt`` opens right under it at the same left edge."""
    last, first = page.lines[li], page.lines[min(page.blocks[nxt])]
    right = max(ln[2] for ln in page.lines if abs(ln[0] - last[0]) < 2)
    height, width = last[3] - last[1], max(ln[2] for ln in page.lines) - min(ln[0] for ln in page.lines)
    return abs(first[0] - last[0]) < 2 and last[2] >= right - 0.1 * (right - last[0]) \
        and last[2] - last[0] > width / 3 \
        and -height < first[1] - last[1] < 1.5 * height


@dataclass
class Touch:
    """How a match touches one text block: matched characters, first and last compact
    positions, and the block's lines it covers."""

    count: int
    first: int
    last: int
    lines: set[int] = field(default_factory=set)


def passage_blocks(doc: DocumentText, m: Match) -> dict[tuple[int, int], Touch]:
    """The text blocks the match touches, ``(page index, block index)`` in match order."""
    out: dict[tuple[int, int], Touch] = {}
    view = m.view
    for pos in range(m.start, m.end):
        pi = view.compact_page[pos]
        page = doc.pages[pi]
        li = page.line_of[view.compact_char[pos]]
        if li < 0:
            continue
        bi = page.block_of[li]
        if bi < 0:
            continue
        got = out.get((pi, bi))
        if got is None:
            got = out[(pi, bi)] = Touch(0, pos, pos)
        got.count += 1
        got.last = pos
        got.lines.add(li)
    return out


def _union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: Box, b: Box) -> bool:
    return a[0] >= b[0] - 0.5 and a[1] >= b[1] - 0.5 and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


def is_pdf(path: str) -> bool:
    """True when ``path`` has a ``.pdf`` suffix (any case)."""
    return Path(path).suffix.lower() == ".pdf"
