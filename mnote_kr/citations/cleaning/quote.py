"""The quote a citation shows: the sentences of the cited passage that answer, not the whole chunk.

A LightRAG chunk is a few hundred to a few thousand characters (median 592, up to 2,310 in the
retrieval benchmark's runs); a reader wants the sentence that answers. :func:`answer_quote` cuts the cleaned
chunk text into sentences, takes the one holding most of the query's terms, weighted by their
rarity among the passage's sentences (when none holds any, a question in other words or another
language, or several hold as many: the one nearest the question by meaning, each sentence's e5 cosine
with the query, for the places a search shows; else the first), and follows it with the sentences
after it, up to ``MOST_SENTENCES`` and about ``QUOTE_CHARS``. The whole chunk stays the citation's
``contextQuote``.

Measured on the 142 searches of the floor run (docs/http-api.md): quotes of median 214 characters
(the chunk's display text: median 1,094, up to 2,101); of the 106 chunks of an answering file that
hold the labelled answer, the quote holds it for 69.

Sentences are cut by :func:`mnote_kr.citations.cleaning.sentences.sentences` (its docstring says where one
ends). Pure and linear in the text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence

from mnote_kr.citations.cleaning.copyable import has_whole_word
from mnote_kr.citations.cleaning.rowquote import row_quote
from mnote_kr.citations.cleaning.sentences import sentences
from mnote_kr.citations.text.docxnotes import holds_notes, note_ranges, split_notes

#: About how long a quote may grow when more than one sentence fits.
QUOTE_CHARS = 320
#: A place's opening words (its first six, at least this many characters) found inside the first
#: sentence of its quote start the quote there (what comes before is a heading run into it).
PLACE_OPENING = 16
#: ... when what comes before them is a heading: at most this many words.
HEADING_WORDS = 15
#: ... before a place that opens in CJK: at most this many characters (no spaces to count words by).
HEADING_CJK = 40
_NOT_LETTER = "\"'“‘«「『（(《[【-–—•*"
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
#: At most this many sentences, the answering one first.
MOST_SENTENCES = 3
#: A single sentence longer than this (a table's rows, a PDF line run without full stops) is cut
#: to a window around the query's first term.
LONG_SENTENCE = 480
#: The sentence right after a lone answering sentence that goes on with the answer (:func:`_goes_on`) is kept
#: while the quote stays within this many times ``limit`` (nc23a: "Karpathy trained multiple character RNNs on
#: different datasets ..." was quoted without "He trained it on Paul Graham's essays, ...", the answer). 1.0: cut.
#: Over the tuning sets' first citations of their labelled file (round 22's run, re-located; heldouts never read),
#: 7 of 234 quotes grow (median 144 -> 148 characters, longest 478 either way), none loses the labelled answer.
RUN_ON = 1.5

def _held(texts: list[str], query: str) -> list[float]:
    """For each of ``texts`` (a passage's sentences), the query's terms it holds (BM25's terms:
    stemmed words, CJK bigrams; plurals met as :func:`_uninflected` says), each weighted by its rarity
    among the sentences: a term every sentence holds (the document's subject) tells less which one answers."""
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    wanted = {_uninflected(t) for t in _bm25_terms(query)}
    if not wanted:
        return [0.0] * len(texts)
    held = [wanted.intersection(map(_uninflected, _bm25_terms(t))) for t in texts]
    n = len(texts)
    weight = {t: math.log(1.0 + (n - df + 0.5) / (df + 0.5))
              for t in wanted if (df := sum(t in h for h in held))}
    return [sum(weight[t] for t in h) for h in held]


def _uninflected(term: str) -> str:
    """A BM25 term as a quote's sentences are compared on it: a Latin term longer than four letters without
    its final "e"s (the stemmer takes "es" off "trustees", leaving "truste", and nothing off "trustee": both
    are "trust"), a four-letter one without a plural "s" ("pays" meets "pay"; "loss", "bus", "axis" keep
    theirs)."""
    if not term.isascii() or not term.isalpha():
        return term
    if len(term) > 4 and term.endswith("e"):
        return term.rstrip("e")
    if len(term) == 4 and term.endswith("s") and not term.endswith(("ss", "us", "is")):
        return term[:-1]
    return term


#: Cosines of the query with each of a place's sentences (``meaning.sentence_cosines``), or None.
ByMeaning = Callable[[list[str]], Sequence[float] | None]


def answer_quote(text: str, query: str, *, limit: int = QUOTE_CHARS, by_meaning: ByMeaning | None = None,
                 run_on: float | None = None) -> str:
    """The sentences of ``text`` that answer ``query``: the one holding most query terms first,
    then those after it while they fit in about ``limit`` characters (``MOST_SENTENCES`` at most; the one right
    after a lone answering sentence while they fit in ``run_on`` times it, ``RUN_ON`` unless given, when it goes on
    with the answer: :func:`_goes_on`).
    When the query's words anchor no single sentence (none holds a term: a question in other words, or
    in another language; or several hold as many), ``by_meaning`` (the query's cosine with each sentence)
    chooses the one nearest it (:func:`_answering`); without it, the first of them. A sentence without a
    whole word (``(2005) 253–265 265.``, a page's furniture) never leads: the first sentence with one does.

    ``text`` shorter than ``limit`` is returned whole."""
    text = text.strip()
    if len(text) <= limit:
        return text
    spans = sentences(text)
    if not spans:
        return text
    best = _answering([text[a:b] for a, b in spans], query, by_meaning)
    if not has_whole_word(text[spans[best][0]:spans[best][1]], query):  # page furniture: the first worded one
        best = next((i for i, (a, b) in enumerate(spans) if has_whole_word(text[a:b], query)), best)
    a, b = spans[best]
    if holds_notes(text) and not _in_note(text, a):
        return _own_words_first(text, query, limit, by_meaning)
    if b - a > LONG_SENTENCE:  # a table row: its label and the cell asked for; else around the query's first term
        return row_quote(text[a:b], query, limit) or _window(text, a, b, query, limit)
    lead = _tied_lead(text, spans, query, best, limit) if by_meaning is not None else best
    a, end = spans[lead][0], b
    for nxt in range(best + 1, min(lead + MOST_SENTENCES, len(spans))):
        if spans[nxt][1] - a > limit:
            longest = limit * (RUN_ON if run_on is None else run_on)
            if nxt == best + 1 and spans[nxt][1] - a <= longest and _goes_on(text[slice(*spans[nxt])], query):
                end = spans[nxt][1]  # the answer goes on in it: "He trained it on Paul Graham's essays, ..."
            break
        end = spans[nxt][1]
    return text[a:end]


def _tied_lead(text: str, spans: list[tuple[int, int]], query: str, best: int, limit: int) -> int:
    """Where the quote starts when meaning chose ``best`` among sentences holding as many of the query's words:
    at the earliest of those before it whose run to ``best`` fits in ``limit`` (and ``MOST_SENTENCES``), so a
    sentence holding the query's words is not dropped for its neighbour (nc25a: "Who wrote the chatbot that
    answered like a psychologist in the 1960s?" quoted "This program had a set of patterns ... in a
    psychologists fashion." without the sentence before it, "ELIZA, a bot created by Joseph Weizenbaum in
    the 1960s"); else ``best``."""
    held = [round(h, 9) for h in _held([text[a:b] for a, b in spans], query)]
    if held[best] <= 0:
        return best
    end = spans[best][1]
    return next((i for i in range(max(0, best - MOST_SENTENCES + 1), best)
                 if held[i] == held[best] and end - spans[i][0] <= limit), best)


def _goes_on(sentence: str, query: str) -> bool:
    """Whether ``sentence``, the one right after the answering sentence, goes on with the answer: it holds a
    term of the query (stemmed: "trained" for "train") or a kind of answer the query asks (``cues.answer_types``:
    a date, an amount, a count ...)."""
    from mnote_kr.citations.rank.cues import answer_types, holds_type  # noqa: PLC0415 - loaded with the pipeline
    from mnote_kr.citations.rank.ranking import _bm25_terms, fold  # noqa: PLC0415

    wanted = {_uninflected(t) for t in _bm25_terms(query)}
    if wanted.intersection(map(_uninflected, _bm25_terms(sentence))):
        return True
    folded = fold(" ".join(sentence.split()))
    return any(holds_type(kind, folded) for kind in answer_types(fold(" ".join(query.split()))))


def _in_note(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` lies inside a note or comment read inline (`` [Comment (...): ...]``)."""
    return any(start <= at < end for start, end in note_ranges(text))


def _own_words_first(text: str, query: str, limit: int, by_meaning: ByMeaning | None) -> str:
    """The quote of a passage holding notes or comments read inline when the sentence that answers is its
    own: cut from its own words (:func:`split_notes`), so a comment's words take none of the quote's
    sentences or characters (a comment inside the answering sentence cut it off: "…build LLM applications
    [Comment (Unknown Author): ...]" without "via multiple agents that can converse"); the notes whose marks
    stand in the words quoted follow them while the quote stays within ``limit``, else none is shown."""
    own, notes = split_notes(text)
    # cut at ``limit``: the room past it is the notes' (a comment marked in the quoted words follows them)
    quote = answer_quote(own, query, limit=limit, by_meaning=by_meaning, run_on=1.0)
    words = quote.strip("…")
    start = own.find(words)
    if start < 0:
        return quote
    for at, note in notes:
        if start < at <= start + len(words) and len(quote) + 1 + len(note) <= limit:
            quote += " " + note
    return quote


def _answering(texts: list[str], query: str, by_meaning: ByMeaning | None) -> int:
    """The index of the sentence of ``texts`` that answers: the one holding most query terms (by their
    weight, :func:`_held`). Words that anchor no single sentence leave the choice to ``by_meaning``: when
    none holds a term, the sentence nearest the query (:func:`nearest_sentence`); when several hold the
    most, the nearest of those. Without ``by_meaning`` (or its cosines), the first of equals.

    Chosen on the retrieval benchmark's tuning sets (first citations on the labelled place, answer
    snippet in the quote, 97 places): words alone 80; meaning when no sentence holds a term 82; and among
    sentences tied for most 83, none lost; mixing words and meaning always, or letting meaning choose when
    the best sentence holds under a third of the query's terms, 82-84, some lost."""
    held = [round(h, 9) for h in _held(texts, query)]
    top = max(held)
    best = held.index(top)
    tied = [i for i, h in enumerate(held) if h == top]
    if by_meaning is None or len(tied) < 2:
        return best
    if top <= 0:
        return nearest_sentence(texts, by_meaning)
    cos = by_meaning(texts)
    return max(tied, key=lambda i: (cos[i], -i)) if cos and len(cos) == len(texts) else best


#: A sentence of fewer letters and digits than this (a legal citation between two sentences, "11 U.S.C §
#: 521(h).", a list's number) is never chosen by meaning: it answers nothing alone.
MEANING_LETTERS = 24


def nearest_sentence(texts: list[str], by_meaning: ByMeaning) -> int:
    """The index of the sentence of ``texts`` nearest the query by ``by_meaning`` (the first of equals),
    sentences shorter than ``MEANING_LETTERS`` left out; 0 when it gives no cosines."""
    cos = by_meaning(texts)
    if not cos or len(cos) != len(texts):
        return 0
    worded = [i for i, t in enumerate(texts) if sum(ch.isalnum() for ch in t) >= MEANING_LETTERS] or [0]
    return max(worded, key=lambda i: (cos[i], -i))


def _window(text: str, a: int, b: int, query: str, limit: int) -> str:
    """About ``limit`` characters of the long sentence ``text[a:b]`` from shortly before the query's
    first term, cut between words (CJK, which has no spaces, between characters), "…" where cut."""
    from mnote_kr.citations.rank.ranking import find_terms  # noqa: PLC0415

    hits = find_terms(text[a:b], query) if query else []
    start = a + max(0, hits[0][0] - limit // 4) if hits else a
    end = min(b, start + limit)
    if start > a and text[start - 1].isalnum() and text[start].isalnum() and text[start].isascii():
        space = text.find(" ", start, end)
        start = space + 1 if space > 0 else start
    if end < b and text[end - 1].isalnum() and text[end].isalnum() and text[end].isascii():
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return ("…" if start > a else "") + text[start:end].strip() + ("…" if end < b else "")


#: Least share of a chunk sentence's terms (or of the place's, when fewer) that both hold for the
#: sentence to be read at the place.
IN_PLACE = 0.6


def place_quote(text: str, place: str, query: str, *, limit: int = QUOTE_CHARS,
                by_meaning: ByMeaning | None = None) -> str | None:
    """The quote at a located place: the sentences of ``text`` (the cleaned chunk) that stand in
    ``place`` (the words of the paragraph or text block the citation points at, as its locator
    reads them), cut as :func:`answer_quote` cuts a passage; so the quote shows what the reader is
    taken to, in the chunk's cleaned words (equations, tables as text). None when no sentence of
    the chunk stands there (the place lies outside the chunk, or reads too differently), or when
    the chunk's sentences there run far past the place (lines without full stops)."""
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    own = set(_bm25_terms(place))
    spans = sentences(text)
    if not own or not spans:
        return None
    inside = []
    for a, b in spans:
        words = set(_bm25_terms(text[a:b]))
        # the smaller side: a heading the chunk ran into the sentence, or a place of one sentence
        if words and len(words & own) >= IN_PLACE * min(len(words), len(own)):
            inside.append((a, b))
    if not inside:
        return None
    # runs of neighbouring sentences in the place (a stray match elsewhere is not it)
    runs: list[list[tuple[int, int]]] = []
    for span in inside:
        if runs and spans.index(runs[-1][-1]) + 1 == spans.index(span):
            runs[-1].append(span)
        else:
            runs.append([span])
    # the run holding most of the place's own words: a neighbouring paragraph worded alike ("the
    # minimum gross floor area ..." beside "the gross floor area ... shall not exceed") is not it
    # even when longer; then the longest
    run = max(runs, key=lambda r: (len(own.intersection(_bm25_terms(text[r[0][0]:r[-1][1]]))),
                                   sum(b - a for a, b in r), -r[0][0]))
    start, run = _own_sentences(text, run, place)
    if run[-1][1] - run[0][0] > 2 * len(place) + 40:
        return None  # the chunk's sentence runs far past the place (OCR lines, text without stops)
    if _answers_more(place, text[start:run[-1][1]], query):
        return None  # the chunk ends inside the place, before the sentence that answers: its own words
    return answer_quote(text[start:run[-1][1]], query, limit=limit, by_meaning=by_meaning)


def _answers_more(place: str, shown: str, query: str) -> bool:
    """Does a sentence of ``place`` hold more of the query's words (:func:`_held`, weighed over both)
    than every sentence of ``shown``, the chunk's sentences standing there? A block the chunk holds
    only the start of (a chunk boundary inside it) is then quoted in its own words: a newcomer's
    question about what Weizenbaum's secretary asked boxed the answering block, and the quote showed
    its first two sentences, the chunk's last."""
    mine = [place[a:b] for a, b in sentences(place)]
    theirs = [shown[a:b] for a, b in sentences(shown)]
    if not mine or not theirs or not query:
        return False
    held = _held(theirs + mine, query)
    return max(held[len(theirs):]) > max(held[:len(theirs)]) + 1e-9


def _own_sentences(text: str, run: list[tuple[int, int]], place: str) -> tuple[int, list[tuple[int, int]]]:
    """Where the place's quote starts in ``run`` and its sentences: the place's words are said once in it, so
    a sentence worded like the place's (the next page repeating its line, a log's next day) is not the
    place's again. From each sentence of the run, the sentences that take their words from the place's,
    each word as often as the place has it, until one whose words are mostly taken already; the stretch
    saying most of the place's words wins, then the one saying fewest words the place has not, then the
    first."""
    from collections import Counter  # noqa: PLC0415

    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    own = Counter(_bm25_terms(place))
    words = [Counter(_bm25_terms(text[a:b])) for a, b in run]
    best: tuple[tuple[int, int], int, list[tuple[int, int]]] | None = None
    for i in range(len(run)):
        start = _place_start(text, run[i], place)
        left = own.copy()
        kept: list[tuple[int, int]] = []
        extra = 0
        for k in range(i, len(run)):
            a, b = run[k]
            said = Counter(_bm25_terms(text[start:b])) if k == i and start > a else words[k]
            free = {w for w, n in left.items() if n > 0}
            if kept and (not free or len(said.keys() & free) < IN_PLACE * min(len(said), len(free))):
                break
            extra += sum(max(0, n - left[w]) for w, n in said.items())
            left.subtract(said)
            kept.append((a, b))
        score = (sum(own.values()) - sum(max(0, n) for n in left.values()), -extra)
        if best is None or score > best[0]:
            best = (score, start, kept)
    assert best is not None  # the run has a sentence
    return best[1], best[2]


def _place_start(text: str, first: tuple[int, int], place: str) -> int:
    """Where the place's own words begin in its first sentence ``first`` when what comes before them
    reads as a heading the chunk ran into it (a heading line has no full stop): at most
    ``HEADING_WORDS`` words, its last capitalised or a number, or none of ``,;:`` in it before a place
    that begins a sentence of its own ("Greenhouse watering log" before "The tomato ..."; a place
    opening in CJK, which has no capitals, after at most ``HEADING_CJK`` characters: a masthead's
    title and its text layer's garbage before a magazine's first paragraph). A lead-in that goes on
    into the place ("Under the plan,", "must be presented:", "according to the report" before "the
    trustee ...") stays, as does the sentence's start when the place's opening words are not found
    there (compared by their letters and digits: the chunk may space or break them otherwise)."""
    opening = " ".join(place.split()[:6])
    if len(opening) < PLACE_OPENING:
        return first[0]
    own, _ = _letters(opening)
    seq, where = _letters(text[first[0]:first[1]])
    found = seq.find(own[:PLACE_OPENING]) if len(own) >= PLACE_OPENING // 2 else -1
    at = first[0] + where[found] if found > 0 else first[0]
    lead = opening[:len(opening) - len(opening.lstrip(_NOT_LETTER))]  # its opening marks: "“", "("
    if lead and text.startswith(lead, at - len(lead)):
        at -= len(lead)
    if at <= first[0]:
        return first[0]
    before = text[first[0]:at]
    words = before.split()
    cjk = _CJK_RE.match(text, at) is not None
    # the place begins a sentence of its own
    starts = opening[:1].isupper() or opening[:1].isdigit() or (cjk and len("".join(words)) <= HEADING_CJK)
    heading = len(words) <= HEADING_WORDS and (words[-1][:1].isupper() or words[-1][:1].isdigit()
                                               or (starts and not any(c in before for c in ",;:，；：、")))
    return at if heading else first[0]


#: A paragraph of fewer letters and digits than this is quoted in its own words (too short to be
#: found in a chunk without landing on the same words elsewhere).
PARAGRAPH_KEY = 12
_LIST_MARKER_RE = re.compile(
    r"(?<![\w.])(?:\d{1,3}[.)）]|[A-Za-z][.)）]|[（(](?:\d{1,3}|[A-Za-z])[)）]|[•▪◦●○·\-–])\s*$")


def _letters(text: str) -> tuple[str, list[int]]:
    """The casefolded letters and digits of ``text`` and each one's index in ``text``."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isalnum():
            for c in unicodedata.normalize("NFKC", ch).casefold() if not ch.isascii() else ch.lower():
                if c.isalnum():
                    out.append(c)
                    where.append(i)
    return "".join(out), where


def paragraph_quote(text: str, place: str, query: str, *, limit: int = QUOTE_CHARS,
                    headings: Sequence[str] = (), by_meaning: ByMeaning | None = None) -> str | None:
    """The quote at a located paragraph: ``place`` is a whole paragraph of the file (a DOCX or
    Markdown paragraph as its locator reads it), ``text`` the cleaned chunk. The chunk's words from
    the paragraph's first letter to its last (its opening and closing marks, and a list marker the
    chunk shows just before it, kept), cut as :func:`answer_quote` cuts: so the quote is one
    paragraph, in the chunk's cleaned words (equations, tables as text), never with the heading or
    paragraph the chunk ran into it. None when the chunk does not hold the whole paragraph (the
    chunk's window cut it at either end, or it lies outside the chunk, or reads too differently):
    then the paragraph's own words are the quote, never the chunk's half of it. ``headings``: those
    the paragraph sits under (``Locator.place_headings``; a list number right after the nearest is kept)."""
    own, _ = _letters(place)
    if len(own) < PARAGRAPH_KEY:
        return None
    seq, where = _letters(text)
    key = max(PARAGRAPH_KEY, min(2 * PARAGRAPH_KEY, len(own) // 3))
    head, tail = own[:key], own[-key:]
    slack = len(own) // 4 + key  # the chunk's cleaned words may read a little longer or shorter
    pairs: list[tuple[int, int]] = []
    at = seq.find(head)
    while at >= 0:
        # the paragraph's last words where its length puts them: "single-family dwellings" earlier in
        # it ends as "multifamily dwellings" does
        expected = at + len(own) - key
        end = seq.find(tail, max(at, expected - slack), expected + slack + key)
        while end >= 0:
            pairs.append((at, end))
            end = seq.find(tail, end + 1, expected + slack + key)
        at = seq.find(head, at + 1)
    if not pairs:
        return None
    # the stretch as long as the paragraph; of two, the later start: a paragraph before it that opens
    # with the same words must not be taken in
    at, end = min(pairs, key=lambda p: (abs(p[1] + key - p[0] - len(own)), -p[0]))
    return answer_quote(_widen(text, place, where[at], where[end + key - 1] + 1, headings), query, limit=limit,
                        by_meaning=by_meaning)


def _widen(text: str, place: str, start: int, end: int, headings: Sequence[str] = ()) -> str:
    """``text[start:end]`` (a paragraph's first letter to its last) with the marks the paragraph
    has before its first letter and after its last (``《``, ``“``, ``。``, ``.)``) where the text has
    them too, and a list marker (``1.``, ``a)``, ``•``) standing just before it where an item starts:
    at a sentence's start, right after the paragraph's nearest heading (the cleaned chunk runs a
    heading line into the item after it: "Setup steps 2) Install"), or after the list's item before
    it (items without a full stop: "1) Download the archive 2) Install")."""
    first = next((i for i, ch in enumerate(place) if ch.isalnum()), 0)
    last = next((i for i in range(len(place) - 1, -1, -1) if place[i].isalnum()), len(place) - 1)
    lead, trail = "".join(place[:first].split()), "".join(place[last + 1:].split())
    if lead and text[:start].rstrip().endswith(lead):
        start = len(text[:start].rstrip()) - len(lead)
    if trail and text.startswith(trail, end):
        end += len(trail)
    before = text[:start].rstrip()
    marker = _LIST_MARKER_RE.search(before)
    if marker is not None:
        rest = before[:marker.start()].rstrip()
        # "(ibid. 386) Kant": a parenthesis that closes one opened before it is no marker
        closes = marker.group(0).rstrip()[-1:] in ")）" and rest.rfind("(") > rest.rfind(")")
        starts = not rest or rest[-1] in "。！？!?；;:：." or _after_heading(rest, headings) or \
            _continues(rest, marker.group(0).strip())
        if starts and not closes:
            start = marker.start()
    return text[start:end]


def _after_heading(text: str, headings: Sequence[str]) -> bool:
    """``text`` ends with the nearest of ``headings`` (as a cleaned chunk writes it: spaces joined)."""
    last = " ".join(headings[-1].split()).casefold() if headings else ""
    return bool(last) and " ".join(text.split()).casefold().endswith(last)


_ITEM_RE = re.compile(r"([（(]?)(\d{1,3}|[A-Za-z])([.)）])")


def _continues(text: str, marker: str) -> bool:
    """``text`` holds the list's item before the one ``marker`` opens: "1)" before "2)", "a." before
    "b.", a bullet before the same bullet, each standing as a marker (a space after it)."""
    m = _ITEM_RE.fullmatch(marker)
    if m is None:  # a bullet; a dash is also a sentence's punctuation ("rose - sharply - and")
        if marker in "-–":
            return False
        before = marker
    else:
        opening, n, closing = m.groups()
        if n in "1aA":
            return False
        before = opening + (str(int(n) - 1) if n.isdigit() else chr(ord(n) - 1)) + closing
    return re.search(r"(?<![\w.])" + re.escape(before) + r"\s", text) is not None


#: A lead-in paragraph ("维修评价方法包括：", "The methods are:") is quoted with at most this many of the
#: paragraphs (list items) after it: the lead-in alone answers nothing, its list does.
LEAD_IN_ITEMS = 6
LEAD_IN_ENDS = (":", "：")


def lead_in_quote(place: str, text: str = "", *, limit: int = QUOTE_CHARS) -> str | None:
    """The quote of a lead-in paragraph with the list it introduces: ``place`` is the located
    paragraph's text, a line ending with a colon, then the paragraphs after it one a line (as
    ``placing.lead_in_text`` gives them, or a Markdown block holding its list). The lead-in and the
    following lines, each whole, while they fit in ``limit`` characters (the first one cut there,
    "…", when even it does not fit), at most ``LEAD_IN_ITEMS``: in the words of the cleaned chunk
    ``text`` when it holds them all (a DOCX list's numbers, "a)", are in the chunk, not in the
    paragraphs' text), else in the place's own. None when ``place`` is no lead-in followed by a line."""
    lines = [" ".join(line.split()) for line in place.split("\n")]
    lines = [line for line in lines if line]
    if len(lines) < 2 or not lines[0].endswith(LEAD_IN_ENDS):
        return None
    taken = lines[:1]
    for line in lines[1:1 + LEAD_IN_ITEMS]:
        if sum(map(len, taken)) + len(taken) + len(line) > limit:
            if len(taken) == 1:  # the first item is the answer: cut it rather than show the lead-in alone
                return taken[0] + " " + line[:max(0, limit - len(taken[0]) - 2)].rstrip() + "…"
            break
        taken.append(line)
    return _lead_in_in_chunk(text, taken) or " ".join(taken)


_ITEM_GAP_RE = re.compile(r"\s*(?:(?:\d{1,3}|[A-Za-z])[.)）]|[（(](?:\d{1,3}|[A-Za-z])[)）]|[•▪◦●○·*\-–])?\s*")


def _lead_in_in_chunk(text: str, lines: list[str]) -> str | None:
    """``text[a:b]`` holding ``lines`` in order, nothing between two but spaces and a list marker
    ("a)", "2.", "•"), or None (the chunk cut the list, or reads it otherwise)."""
    start = text.find(lines[0])
    while start >= 0:
        end = start + len(lines[0])
        for line in lines[1:]:
            at = text.find(line, end, end + len(line) + 12)
            if at < 0 or not _ITEM_GAP_RE.fullmatch(text, end, at):
                break
            end = at + len(line)
        else:
            return text[start:end]
        start = text.find(lines[0], start + 1)
    return None
