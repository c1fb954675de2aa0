"""Recognised lines placed by meaning, as the host places paragraphs and PDF text blocks.

Every recognised line of a file (its pages in order, each page's paragraphs in reading order) is
a place. Ingest embeds them once (``queue``: the host's ``queue_texts``, at ``prepare_locate`` for
an image and when a PDF's scanned pages are recognised for the index), keyed by the texts
(``places_key``); a line of fewer than ``MIN_TOKENS`` tokens (a total, a date, a label) is left out.
At search time the lines of the cited passage are ranked by the query's words and meaning
together (``rank_by_meaning``), so a question asked in other words lands on the line that answers
it; while the lines have no vectors the words' choice stands (``locating``).
"""

from __future__ import annotations

from mnote_kr.plugin_api import LocateRequest

from .scan import Page, Scan

#: Fewest tokens of a line ranked by meaning (a label or a number scores high on its own).
MIN_TOKENS = 4


def lines_in_order(result: Scan) -> list[tuple[Page, int]]:
    """Every recognised line as (page, index in ``page.lines``): the places, in their order."""
    return [(page, li) for page in result.pages if page.source == "ocr" for para in page.paragraphs for li in para]


def place_texts(result: Scan) -> list[str]:
    """Each place's text, or '' for a line too short to be ranked by meaning (not embedded)."""
    from mnote_kr.plugin_api import iter_tokens, normalize

    out = []
    for page, li in lines_in_order(result):
        text = " ".join(page.lines[li].text.split())
        enough = sum(1 for _ in zip(range(MIN_TOKENS), iter_tokens(normalize(text)), strict=False))
        out.append(text if enough >= MIN_TOKENS else "")
    return out


def queue(result: Scan) -> None:
    """Have ingest embed this file's recognised lines (nothing is embedded here)."""
    from mnote_kr.plugin_api import queue_texts

    texts = place_texts(result)
    if any(texts):
        queue_texts(texts)


def squeeze(text: str) -> str:
    """Case-folded letters and digits only: recognition drops or adds spaces, never reorders."""
    return "".join(ch.casefold() for ch in text if ch.isalnum())


def content_terms(query: str) -> list[str]:
    """The query's terms without its function words and question scaffolding, squeezed."""
    from mnote_kr.plugin_api import query_terms, scaffolding

    terms = query_terms(query)
    kept = [t for t, scaffold in zip(terms, scaffolding(terms), strict=True) if not scaffold]
    return [s for s in (squeeze(t) for t in kept) if s]


def word_share(terms: list[str], text: str) -> float:
    """Share of the terms' characters the text shows (spacing aside)."""
    total = sum(len(t) for t in terms)
    if not total:
        return 0.0
    squeezed = squeeze(text)
    return sum(len(t) for t in terms if t in squeezed) / total


def sentence_share(terms: list[str], places: list[tuple[Page, int]], i: int) -> float:
    """``word_share`` of place ``i``'s line, or of it with the next line of its paragraph when that one
    finishes its sentence (``wraps.goes_on``: the lines it is quoted and boxed with), the higher: a
    sentence wrapped over two lines ("…商品中包含的劳动 / 的这种二重性，是首先由我明确指出的。") shows the
    words it holds, not 40% on each line, below a heading that shows a third of them."""
    from .wraps import line_goes_on

    page, li = places[i]
    text = page.lines[li].text
    share = word_share(terms, text)
    if i + 1 < len(places) and places[i + 1][0] is page and any(
            li in para and para.index(li) + 1 < len(para) and para[para.index(li) + 1] == places[i + 1][1]
            for para in page.paragraphs):
        nxt = page.lines[places[i + 1][1]]
        if line_goes_on(page.lines[li], nxt):
            share = max(share, word_share(terms, text + nxt.text))
    return share


def by_meaning(result: Scan, request: LocateRequest) -> tuple[Page, int, float, float] | None:
    """The line of the passage that answers the query by words and meaning together: (page, line
    index, its cosine with the query, its share of the query's words: ``word_share``); None while
    the lines have no vectors, or when fewer than two lines of the passage can be ranked."""
    from mnote_kr.plugin_api import places_key, rank_by_meaning

    places = lines_in_order(result)
    texts = place_texts(result)
    # A PDF with text pages too: its own locator places what its text layer holds, so only the
    # recognised lines the evidence quotes are ranked (the passage may span both kinds of page).
    mixed = any(p.source == "text-layer" for p in result.pages)
    passage = squeeze(request.evidence if mixed else request.passage or request.evidence)
    cands = [i for i, (page, li) in enumerate(places)
             if texts[i] and (not passage or squeeze(page.lines[li].text) in passage)]
    if len(cands) < 2:
        return None
    terms = content_terms(request.query)
    shares = {i: sentence_share(terms, places, i) for i in cands}
    ranked = rank_by_meaning(places_key(texts), request.query, shares)
    if ranked is None:
        return None
    score, cos = ranked
    pick = min(cands, key=lambda i: (-round(score[i], 9), i))
    page, li = places[pick]
    return page, li, cos.get(pick, 0.0), shares[pick]
