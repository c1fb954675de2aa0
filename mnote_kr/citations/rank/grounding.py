"""Each sentence of an LLM's answer grounded in the cited place that supports it.

The provider's answer carries one marker per source file at best (LightRAG's ``[n]`` names a
file, not a place). :func:`ground` splits the answer into sentences (English and Chinese,
:func:`mnote_kr.citations.cleaning.quote.sentences`, and at line breaks), and for each sentence:

1. scores every place the search cited (each file's citation and its folded alternatives) by
   **words** (the idf-weighted share of the sentence's content terms that the place's chunk
   holds, plus the share its own quote holds) and **meaning** (the e5 cosine of the sentence with
   the place's quote, scaled over the places to 0..1, times ``MEANING_WEIGHT``), and ``WRITTEN_BONUS`` more
   for a place whose chunk holds the sentence as written (an answer quoting its source: that chunk, not a
   place whose quote speaks of the same thing);
2. takes the best place when it supports the sentence: at least ``MIN_WORDS`` of its terms are in
   the chunk, or (with fewer) its cosine with the place reaches ``MIN_COSINE``; otherwise the
   sentence is **unsupported** and gets no place (never an invented one);
3. locates the sentence inside that place's chunk with the file's own locator (the sentence as
   evidence and query, the chunk as passage), so a sentence taken from another paragraph of the
   same chunk lands on that paragraph; a place the search had not cited gets its own citation ID
   (remembered, so ``mnote-kr open ID`` opens it), a place it had keeps its ID. A box (a PDF
   block) is widened to the reader's paragraph (:func:`sentence_locator`): the sentence's own
   words find where it stands, which boxes only its lines; the block of the chunk holding it,
   boxed as the search boxes a place, is the place, when it holds the sentence's own box (``MIN_INSIDE``);
   a sentence running out of that block keeps its own box, never cut to the part the block holds.

The answer's markers are rewritten: the provider's are dropped and each supported sentence is
followed by the ID of its place. Pure but for the locator and the e5 model (loaded from the
installed package; without it, words alone decide).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mnote_kr.citations.cleaning.quote import sentences
from mnote_kr.citations.rank.ranking import terms
from mnote_kr.models import Citation, GroundedSentence, LocateRequest, Locator

#: A place supports a sentence when its chunk holds at least this share of the sentence's term weight...
MIN_WORDS = 0.5
#: ... or, with fewer of its words, when the sentence's e5 cosine with the place's quote reaches this.
MIN_COSINE = 0.86
#: Weight of the meaning term (cosine scaled over the places to 0..1) against the word shares.
MEANING_WEIGHT = 0.5
#: Least share of the sentence's own box inside its paragraph's box for the paragraph to be its place.
MIN_INSIDE = 0.9
#: A sentence with fewer content terms than this is not a claim (a heading, "Yes."): left unmarked.
MIN_TERMS = 2
#: A place whose chunk holds the sentence as written (``_written_in``) gets this much more (the most the
#: quote's words and the meaning term can give another place): the sentence was taken from that chunk.
WRITTEN_BONUS = 1.5
#: ... when the sentence has at least this many letters and digits (a short one may stand in many chunks).
WRITTEN_CHARS = 24
UNSUPPORTED = "[unsupported]"
#: A sentence no cited chunk supports is looked for, as written, in this many of the cited files.
WRITTEN_FILES = 3
#: ... and found there when its words align with the file's text at least this well (the locator's
#: confidence, 0..1: a sentence taken from the file, not one sharing a few of its words).
WRITTEN_SCORE = 0.8

#: The provider's markers: ``[1]``, ``[1, 2]`` (LightRAG's reference numbers).
_MARKER_RE = re.compile(r"\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\]")
#: A sentence's closing punctuation (and quotes): its marker goes before it.
_CLOSE_RE = re.compile(r"[.!?。！？…]+[”」』)）\"']*\s*$")
_LINE_RE = re.compile(r"[^\n]+")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str  # without citation markers


def split(answer: str) -> list[Span]:
    """The sentences of ``answer`` (each line split into sentences), markers left out of ``text``."""
    out = []
    for line in _LINE_RE.finditer(answer):
        body = line.group(0)
        for a, b in sentences(body):
            text = " ".join(_MARKER_RE.sub("", body[a:b]).split())
            if text:
                out.append(Span(line.start() + a, line.start() + b, text))
    return out


def _idf(docs: Sequence[set[str]]) -> Callable[[str], float]:
    n = len(docs)
    df: Counter[str] = Counter(t for d in docs for t in d)
    return lambda t: math.log(1.0 + (n + 1) / (df.get(t, 0) + 0.5))


def _share(sentence: set[str], held: set[str], idf: Callable[[str], float]) -> float:
    total = sum(idf(t) for t in sentence)
    return sum(idf(t) for t in sentence & held) / total if total > 0 else 0.0


def _cosines(sentence_texts: list[str], place_texts: list[str]) -> list[list[float]] | None:
    """e5 cosine of each sentence with each place's text, or None when the model is unavailable."""
    from mnote_kr.citations.rank.e5 import ModelUnavailable, model

    try:
        m = model()
        s = m.embed(sentence_texts, query=True, max_tokens=128)
        p = m.embed(place_texts, query=True, max_tokens=128)
    except ModelUnavailable:
        return None
    return (s @ p.T).tolist()


def _place_text(c: Citation) -> str:
    return c.display_quote or c.locator_evidence_text or ""


def _chunk_text(c: Citation) -> str:
    return c.context_quote or c.raw_quote or _place_text(c)


def _chunk_terms(c: Citation) -> set[str]:
    """The content terms of the place's chunk: the provider's text (``raw_quote``, a word its line break cut in
    two read as two) and its cleaned window (``context_quote``, the word joined)."""
    return set(terms(c.raw_quote or "")) | set(terms(c.context_quote or "")) or set(terms(_place_text(c)))


def _compact(text: str) -> str:
    """``text``'s letters and digits, lower case: what stays of a sentence whatever its line breaks and hyphens."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _written_in(sentence: str, chunks: tuple[str, ...]) -> bool:
    """A place's chunk (``chunks``: its texts, ``_compact``) holds ``sentence`` as written (at least
    ``WRITTEN_CHARS`` letters and digits of it, all of them, in order): the sentence was taken from that chunk,
    whatever another place's quote says of it."""
    key = _compact(sentence)
    return len(key) >= WRITTEN_CHARS and any(key in t for t in chunks)


@dataclass(frozen=True)
class Choice:
    index: int | None  # into the places, None when unsupported
    words: float
    cosine: float | None


def choose(spans: Sequence[Span], places: Sequence[Citation]) -> list[Choice]:
    """For each sentence, the place that supports it best (or None), by words and meaning."""
    sent_terms = [set(terms(s.text)) for s in spans]
    chunk_terms = [_chunk_terms(c) for c in places]
    quote_terms = [set(terms(_place_text(c))) for c in places]
    chunk_keys = [(_compact(c.raw_quote or ""), _compact(c.context_quote or "")) for c in places]
    idf = _idf(chunk_terms)
    todo = [i for i, t in enumerate(sent_terms) if len(t) >= MIN_TERMS]
    cos = _cosines([spans[i].text for i in todo], [_place_text(c) or _chunk_text(c) for c in places]) \
        if todo and places else None
    out = [Choice(None, 0.0, None)] * len(spans)
    for k, i in enumerate(todo):
        row = cos[k] if cos is not None else [0.0] * len(places)
        lo, hi = min(row, default=0.0), max(row, default=0.0)
        best, best_score = None, -math.inf
        for j in range(len(places)):
            words = _share(sent_terms[i], chunk_terms[j], idf)
            score = (words + _share(sent_terms[i], quote_terms[j], idf)
                     + MEANING_WEIGHT * ((row[j] - lo) / (hi - lo) if hi - lo > 1e-9 else 0.0)
                     + WRITTEN_BONUS * _written_in(spans[i].text, chunk_keys[j]))
            if score > best_score:
                best, best_score = j, score
        if best is None:
            continue
        words = _share(sent_terms[i], chunk_terms[best], idf)
        cosine = row[best] if cos is not None else None
        supported = words >= MIN_WORDS or (cosine is not None and cosine >= MIN_COSINE)
        out[i] = Choice(best if supported else None, words, cosine)
    return out


def _no_claim(text: str) -> bool:
    return len(set(terms(text))) < MIN_TERMS


def ground(answer: str, places: Sequence[Citation], locate: Callable[[Citation, str], Citation],
           written: Callable[[Citation, str], Citation | None] | None = None) -> tuple[str, list[GroundedSentence]]:
    """The answer with one marker after each sentence (its place's citation ID, or ``UNSUPPORTED``),
    and each sentence's grounding.

    ``places``: every place the search cited (citations and their folded alternatives).
    ``locate(place, sentence)`` gives the citation of the paragraph or block of ``place``'s chunk
    that holds the sentence (``place`` itself when it is that one). ``written(place, sentence)``:
    the place of ``place``'s file where the sentence stands as written (its own words found there,
    not its meaning), or None; a sentence no cited chunk supports is looked for so in the cited files
    (``WRITTEN_FILES``, best first): the provider's answer may quote a chunk of a cited file that
    the search did not cite."""
    spans = split(answer)
    choices = choose(spans, places)
    files = list(dict.fromkeys(c.source_root_relative_path for c in places))[:WRITTEN_FILES]
    firsts = [next(c for c in places if c.source_root_relative_path == f) for f in files]
    out: list[GroundedSentence] = []
    pieces: list[str] = []
    at = 0
    for span, choice in zip(spans, choices, strict=True):
        if _no_claim(span.text):
            continue
        cited = locate(places[choice.index], span.text) if choice.index is not None else None
        if cited is None and written is not None:
            cited = next((w for c in firsts if (w := written(c, span.text)) is not None), None)
        out.append(GroundedSentence(
            text=span.text, supported=cited is not None,
            citation_id=cited.citation_id if cited is not None else None,
            source_root_relative_path=cited.source_root_relative_path if cited is not None else None,
            locator=cited.locator if cited is not None else None,
            citation_url=cited.citation_url if cited is not None else None,
            words=round(choice.words, 4),
            meaning=round(choice.cosine, 4) if choice.cosine is not None else None))
        pieces.append(_marked(_MARKER_RE.sub("", answer[at:span.end]),
                              cited.citation_id if cited is not None else UNSUPPORTED))
        at = span.end
    pieces.append(_MARKER_RE.sub("", answer[at:]))
    return "".join(pieces).strip(), out


def _marked(body: str, marker: str) -> str:
    """``body`` (ending with a sentence) with ``marker`` before its closing punctuation: ``in Hamburg [a3z1].``"""
    body = body.rstrip()
    close = _CLOSE_RE.search(body)
    cut = close.start() if close else len(body)
    return f"{body[:cut]} {marker}{body[cut:]}"


def same_place(a: Locator, b: Locator) -> bool:
    """Two locators open the same place (paragraph, box, slide shape or cell)."""
    return (a.locator_precision, a.paragraph_index, a.page, a.bbox, a.slide, a.shape_id, a.sheet, a.range) == \
        (b.locator_precision, b.paragraph_index, b.page, b.bbox, b.slide, b.shape_id, b.sheet, b.range)


def placed(loc: Locator) -> bool:
    """The locator named a place of its own: exact, or ranked by meaning (``meaningScore``: approximate
    when it holds few of the words), not the passage cited for want of one."""
    return not loc.locator_degraded or loc.meaning_score is not None


def sentence_locator(c: Citation, sentence: str, locate: Callable[[LocateRequest], Locator]) -> Locator:
    """Where ``sentence``, supported by the place ``c``, stands in ``c``'s file (``locate``: the file's
    own locator).

    First by the sentence's own words (evidence and query, the chunk as passage): the paragraph that
    holds it, wherever in the file it stands (the search may have cited another chunk of the file). A
    box locator (PDF) boxes the text block a sentence (evidence and query) is a piece of, and of a sentence
    spanning blocks (the layout cut its paragraph) that block with the lines the sentence covers in the
    blocks beside it; so for a box, the place is the block of the chunk the
    sentence answers, located as the search locates a place (the chunk as evidence, here the sentence
    as the query: its words first, then its meaning; a sentence spanning blocks goes to the one holding
    most of its words), boxed over the chunk's lines of that block, when that block holds the
    sentence's own box (at least ``MIN_INSIDE`` of it, on the same page); otherwise the sentence's own
    box (its whole paragraph where the chunk holds only part of it, the sentence is outside the chunk,
    or it runs out of the block: a block holding only part of it would cut it). A sentence in other words
    than its source (found by no alignment of its own) gets that block too when the locator places it."""
    at = locate(LocateRequest(file=c.source_path, evidence=sentence, query=sentence, passage=c.raw_quote or ""))
    if not c.raw_quote or (at.bbox is None and placed(at)) or c.locator.bbox is None:
        return at  # a paragraph, a slide shape or a cell is the place already (or no box to widen)
    block = locate(LocateRequest(file=c.source_path, evidence=c.raw_quote, query=sentence, passage=c.raw_quote))
    if not placed(block) or block.bbox is None:
        return at
    if not placed(at) or at.bbox is None:
        return block  # not found by its own words: the chunk's block its words and meaning name
    return block if block.page == at.page and _inside(at.bbox, block.bbox) >= MIN_INSIDE else at


def _inside(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of box ``a``'s area inside box ``b`` (``[x0, y0, x1, y1]``)."""
    area = (a[2] - a[0]) * (a[3] - a[1])
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return inter / area if area > 0 else 0.0
