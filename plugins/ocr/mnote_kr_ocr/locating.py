"""A citation into recognised text: the box of the line(s) on the page that hold it.

The recognised paragraphs are matched with the host's ``match_evidence`` (evidence first, then
the query's words); the cited box is the union of the lines the citation quotes (``quoted_lines``:
those the highlight covers inside the matched paragraph and those after them that finish their
sentence; image pixels on page 1, or PDF points on the scanned page), and ``rects`` holds that box
alone: the paragraph's other lines are not quoted, so not marked. A line recognised with low
confidence makes the place degraded, with the reason, and so does a garbled line (:func:`garbled`:
CJK characters inside Latin words on a page of Latin text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnote_kr.plugin_api import LocateRequest, Locator, Rect

from . import budget
from .scan import Page, Scan, para_text
from .spaces import cjk
from .wraps import line_goes_on, sentence_quote

#: The line the indexed text of a PDF has before each page's text.
PAGE_MARK = re.compile(r"(?:#+ )?Page \d+")


@dataclass
class _Para:
    page: Page
    lines: list[int]  # empty: a page's text layer (placed by the PDF's own locator, not here)
    starts: list[int]  # offset of each line in the paragraph's text


def _union(boxes: list[list[float]]) -> list[float]:
    return [round(min(b[0] for b in boxes), 2), round(min(b[1] for b in boxes), 2),
            round(max(b[2] for b in boxes), 2), round(max(b[3] for b in boxes), 2)]


def _squeeze(text: str) -> tuple[str, list[int]]:
    """``text`` case-folded with spaces and punctuation left out, and each kept character's offset:
    recognition often drops or adds the space between two words, never the letters' order."""
    kept, where = [], []
    for i, ch in enumerate(text):
        if ch.isalnum():
            kept.append(ch.casefold())
            where.append(i)
    return "".join(kept), where


def _phrase(texts: list[str], query: str) -> tuple[int, tuple[int, int], str] | None:
    """The first paragraph that shows the query as a phrase (spacing aside), with its span."""
    q, _ = _squeeze(query)
    if len(q) < 3:
        return None
    for index, text in enumerate(texts):
        squeezed, where = _squeeze(text)
        at = squeezed.find(q)
        if at >= 0:
            return index, (where[at], where[at + len(q) - 1] + 1), "the query's phrase"
    return None


#: Share of the query's word characters a paragraph must show for the words stage to cite it.
WORDS_SHARE = 0.75
#: A line chosen by meaning that shows less than this share of the query's words (a question in other
#: words, or in another language) is a guess by meaning: an approximate place, however well it ranks
#: (the PDF locator's ``answer.MIN_SHARE``, the DOCX locator's ``QUERY_SHARE`` ~ a third).
MEANING_SHARE = 0.4
APPROXIMATE = "an approximate place"


def _words(texts: list[str], query: str) -> tuple[int, tuple[int, int], str] | None:
    """The paragraph that shows most of the query's words (4+ letters, or numbers), each found
    spacing aside (recognition may glue ``Metformin500mg``), with the span from the first to the
    last one found; None when no paragraph shows ``WORDS_SHARE`` of them."""
    words = {_squeeze(w)[0] for w in query.split()}
    words = {w for w in words if len(w) >= 4 or (w and w.isdigit())}
    if len(words) < 2:
        return None
    total = sum(len(w) for w in words)
    # one line first (a paragraph's lines are joined by "\n"), then a whole paragraph
    pieces = [(index, start, line) for index, text in enumerate(texts)
              for start, line in _lines_of(text)] + [(index, 0, text) for index, text in enumerate(texts)]
    best: tuple[float, int, tuple[int, int]] | None = None
    for index, start, text in pieces:
        squeezed, where = _squeeze(text)
        found = [(at, w) for w in words if (at := squeezed.find(w)) >= 0]
        share = sum(len(w) for _, w in found) / total
        if share >= WORDS_SHARE and (best is None or share > best[0]):
            lo = min(at for at, _ in found)
            hi = max(at + len(w) for at, w in found)
            best = (share, index, (start + where[lo], start + where[hi - 1] + 1))
    if best is None:
        return None
    return best[1], best[2], f"{best[0]:.0%} of the query's words"


def _lines_of(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def locate_in(result: Scan, request: LocateRequest, plugin: str) -> Locator | None:
    """The place of the request in the recognised lines; None when it is best placed on a page of
    the PDF that has a text layer (that page is the PDF locator's to place)."""
    from mnote_kr.plugin_api import TextDocument, TextParagraph, match_evidence

    paras: list[_Para] = []
    texts: list[str] = []
    for page in result.pages:
        if page.source == "text-layer" and page.layer_text.strip():
            paras.append(_Para(page=page, lines=[], starts=[]))
            texts.append(page.layer_text)
        if page.source != "ocr":
            continue
        for members in page.paragraphs:
            starts: list[int] = []
            pos = 0
            for i in members:
                starts.append(pos)
                pos += len(page.lines[i].text) + 1
            paras.append(_Para(page=page, lines=members, starts=starts))
            texts.append(para_text(page, members))
    if not any(p.lines for p in paras):
        why = result.error or "no text was recognised in the file"
        return Locator(locator_precision="file", locator_degraded=True, block_id=request.block_id,
                       locator_plugin=plugin, reason=why, locator_reason=why)
    cosine: float | None = None
    found = _phrase(texts, request.query)
    if found is None:
        found, cosine = _meaning(result, request, paras)
    found = found or _words(texts, request.query)
    if found is not None:
        index, (lo, hi), how, score = *found, 1.0
    else:
        doc = TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])
        match = match_evidence(doc, request.evidence, request.query)
        if match.paragraph is None:
            why = (match.reason if match.reason != "matched evidence"
                   else "no recognised line above confidence threshold")
            return Locator(locator_precision="file", locator_degraded=True, block_id=request.block_id,
                           score=match.score, locator_plugin=plugin, reason=why, locator_reason=why)
        index, how, score = match.paragraph.index, match.reason, match.score
        lo, hi = match.highlight if match.highlight else (0, len(texts[index]))
    para = paras[index]
    if not para.lines:
        return None
    page = para.page
    found_lines = [li for li, start in zip(para.lines, para.starts, strict=True)
                   if start < hi and start + len(page.lines[li].text) > lo] or para.lines
    # the box is the quote's lines: what the reader is shown is what is read to them
    cited = quoted_lines(page, para.lines, found_lines, request.query)
    # read as text, on to the end of the sentence its last line leaves open (nc26a: "…不是飘忽不", a "\n" inside)
    cited, quote, boxes = sentence_quote(page, para.lines, cited)
    box = _union(boxes)
    confidence = min(page.lines[i].score for i in cited)
    # the box alone: the paragraph's other lines are not quoted, so not marked (nc18a Q16: seven lighter
    # rectangles over neighbouring lines)
    rects = [Rect(page=page.number, bbox=box)]
    where = "image pixels" if page.unit == "px" else f"points on scanned page {page.number}"
    reason = f"{how} in the recognised text (OCR confidence {confidence:.2f}; box in {where})"
    low = confidence < budget.settings().min_confidence
    junk = [i for i in cited if garbled(page, i)]
    if low:
        reason = (f"recognised with low confidence ({confidence:.2f} < {budget.settings().min_confidence:.2f}): "
                  f"the text and its box may be wrong; {reason}")
    elif junk:
        reason = (f"recognised as CJK characters inside Latin words on a page of Latin text "
                  f"({page.lines[junk[0]].text[:40]!r}): probably a garbled region, the text and its box may be "
                  f"wrong; {reason}")
    degraded = low or bool(junk) or how.endswith(APPROXIMATE)
    return Locator(locator_precision="bbox", locator_degraded=degraded, page=page.number, bbox=box,
                   bbox_unit=page.unit, rects=rects, block_id=request.block_id, score=score,
                   locator_plugin=plugin, reason=reason, locator_reason=reason, quote=quote, meaning_score=cosine,
                   place_headings=[])  # recognised text has no headings (the wrapper's "Page N" is not one)


#: A page is of Latin text when fewer than this share of its recognised letters are CJK.
LATIN_PAGE_CJK = 0.1


def _han(ch: str) -> bool:
    """A CJK letter (a full-width mark such as ``（`` is none)."""
    return ch.isalpha() and cjk(ch)


def _latin(ch: str) -> bool:
    return ch.isalpha() and ch < "\u0250"


def _letters(text: str) -> tuple[int, int]:
    """(CJK letters, Latin letters) of ``text``."""
    return sum(map(_han, text)), sum(map(_latin, text))


def garbled(page: Page, li: int) -> bool:
    """Whether line ``li`` reads as junk: a CJK character next to a Latin letter (``P检ze``,
    ``到eBu8hie``) on a page whose recognised letters are Latin (CJK below ``LATIN_PAGE_CJK``). The
    recogniser's alphabet is mostly Chinese, so a smudge, stamp or overprinted field on an English
    scan comes out as CJK mixed into Latin letters, at a confidence (0.74-0.77 on the MEDRPT scan)
    that the confidence floor does not always catch. Chinese pages, where ``PDF文件`` is ordinary,
    are never judged so."""
    text = page.lines[li].text
    if not any((_han(a) and _latin(b)) or (_latin(a) and _han(b)) for a, b in zip(text, text[1:], strict=False)):
        return False
    han, latin = _letters("".join(ln.text for ln in page.lines))
    return han < LATIN_PAGE_CJK * (han + latin)


#: Lines of a quote (and of the box: the same lines) at most: the found lines, and the lines after them
#: that finish their sentence.
QUOTE_LINES = 3


def quoted_lines(page: Page, members: list[int], found: list[int], query: str) -> list[int]:
    """The lines a citation quotes and boxes, in order, inside its paragraph (``members``): from the first
    line the match ``found`` (from the one of them that shows most of the query, the first on a tie,
    when they run past ``QUOTE_LINES``) through its last, then the lines that go on with their sentence
    (:func:`wraps.goes_on`), ``QUOTE_LINES`` at most. The box was once the found lines and the quote the found
    line with most query words and the two after it: a quote without the answer's first line, boxed on
    lines it did not show (issue 33)."""
    from .places import content_terms, word_share

    start = found[0]
    if len(found) > QUOTE_LINES:
        terms = content_terms(query)
        start = max(found, key=lambda li: (word_share(terms, page.lines[li].text), -found.index(li)))
    at = members.index(start)
    out = members[at:min(members.index(found[-1]), at + QUOTE_LINES - 1) + 1]
    while len(out) < QUOTE_LINES and at + len(out) < len(members) and \
            line_goes_on(page.lines[out[-1]], page.lines[members[at + len(out)]]):
        out.append(members[at + len(out)])
    return out


def _meaning(result: Scan, request: LocateRequest,
             paras: list[_Para]) -> tuple[tuple[int, tuple[int, int], str] | None, float | None]:
    """The line the query's words and meaning pick among the passage's (``places.by_meaning``), as
    (paragraph, span of the line, how), with its cosine; (None, None) while the lines have no vectors."""
    from .places import by_meaning

    picked = by_meaning(result, request)
    if picked is None:
        return None, None
    page, li, cosine, share = picked
    for index, para in enumerate(paras):
        if para.page is page and li in para.lines:
            start = para.starts[para.lines.index(li)]
            how = f"the query's words and meaning (cosine {cosine:.2f})"
            if share < MEANING_SHARE:  # one rule with the PDF and DOCX locators: a guess by meaning
                how += f"; the line holds few of the query's words ({share:.0%}): {APPROXIMATE}"
            return (index, (start, start + len(page.lines[li].text)), how), cosine
    return None, None


def layer_only(result: Scan, text: str) -> str:
    """``text`` (a passage of the PDF's indexed text) without its page markers and the lines that
    were recognised on scanned pages: what the PDF's text layer can hold of it."""
    recognised = {_squeeze(ln.text)[0] for page in result.pages if page.source == "ocr" for ln in page.lines}
    recognised.discard("")
    kept = [line for line in text.split("\n")
            if not PAGE_MARK.fullmatch(line.strip()) and _squeeze(line)[0] not in recognised]
    return "\n".join(kept).strip()
