"""Ranking a search's citations so that the passage that answers comes first.

The provider's order finds the right file, but its first passage of that file is often a
neighbour (a PDF's title or abstract, a DOCX paragraph two away). :func:`relevance` re-scores
the citations of one search together:

* ``provider``: ``PROVIDER_WEIGHT / (1 + rank)``, the provider's own order (rank 0-based).
* ``lexical``: a BM25 score of the query's content words over each citation's text, with the
  document frequencies taken over the citations of this search (the passages competing for
  first place), divided by the best score of the search, times the share of the query's term
  weight (idf) the passage holds (``LEXICAL_COVERAGE``), times ``LEXICAL_WEIGHT``: the best of a
  search that holds two of a question's twenty terms is a weak match, not a full one (a Chinese
  question's common bigrams in a Chinese passage, while the English passage that answers holds
  none of its words); ``farInMeaning`` takes it back, in part or whole, from a file far below the
  search's best by meaning (``LEXICAL_MEANING_BAND``: shared words in a file meaning something else; each file read
  at the nearest place the search found in it, its alternatives included), which moves the file, not the order of
  its passages (``inFile`` orders them on their words in full). Latin words are folded (NFKC, casefold), stop
  words dropped and crudely stemmed (``batteries`` meets ``battery``); CJK text, which has no spaces, is matched by
  character bigrams. One more term: the answer type the question asks for ("when" → a year or date, 多少架 → a
  number of 架, "what share" → a percentage: :mod:`mnote_kr.citations.rank.cues`).
* ``apparatus``: a reference list, "See also" list or table of contents (``cues.is_apparatus``:
  by its section heading or its text) keeps ``APPARATUS_FACTOR`` of its score: it holds the
  query's words (titles, names of related articles) without answering.
* ``inFile``: two cues order a file's own passages and move no file. The file keeps the places
  (scores) its citations hold, and its passages fill them in the order of their score with the
  cues applied: a notice to the reader (a disclaimer, a legal or copyright statement:
  ``cues.is_notice``) counts ``APPARATUS_FACTOR`` of its score, a passage holding the answer type
  the question asks for (with one of its words; "多少架" → "13 架") gains ``TYPE_IN_FILE``. Both
  say which passage of a document answers, not whether the document does: the provider found
  the file through its notice (an analyst statement near "what do brokers say about this
  stock"), and across files the type already counts as one BM25 term. The passage's place nearest the
  query by meaning gains up to ``MEANING_IN_FILE``; a place whose own words hold the query as written
  leads its file whatever the rest say (``WRITTEN_IN_FILE``). ``parts["inFile"]`` is
  the score a passage gains or loses by the reordering (:mod:`mnote_kr.citations.rank.infile`).
* ``fileTerms``: the share of the query's content terms found in the file's name
  (``FILE_TERMS_WEIGHT``): "what happened at Vicksburg" is about ``Siege_of_Vicksburg.pdf``, whatever
  passage of another file says "happened".
* ``fileName`` and ``phrase``: the boosts of :func:`mnote_kr.citations.render.ids.score` (an exact
  file-name query, the whole query verbatim in the passage); a query that writes a file's whole name
  inside a question ("what is in budget_2023.xlsx"), or a stem that reads as a name ("page 3 of
  pdflatex-outline"), puts that file first (``NAMED_FILE_BOOST``).

* ``unplaced``: a citation its locator could place nowhere in its file (``file`` precision) whose evidence
  holds none of the query's content terms, and that nothing else speaks for (no file name, phrase or named
  place), keeps only the provider's order, which a passage of no query word inherits from the graph (a
  handbook's two-word chunk, "and Termination", led "Who won the 2018 FIFA World Cup final?" at 0.5). It
  goes below every placed citation of the search: its score ``s`` becomes ``low * s / (s + low)``, ``low``
  the lowest placed score (below ``low`` and its own score, the provider's order kept among such
  citations). It is still cited; without a placed citation nothing moves.

* ``named``: the citation is on the slide, page or sheet the query names ("第二张幻灯片", "page 3", "the Sales
  sheet": ``namedplaces.naming``): ``NAMED_WEIGHT``, as a full word match, since the person said where the
  answer is and a file without that place (a DOCX for "the second slide") cannot hold it. Only approximately
  there (its locator found the place lacks a word the query asks: ``namedplaces.asked_of_place``), it keeps
  that weight unless another citation of the search holds every word the query asks besides the place
  (``_holds_asked``: its Latin content words, place-asking words such as "say" aside, and its Chinese words by the
  dictionary, ``cjkwords.query_words``): "what does page 2 say about X" puts page 2 first when no passage holds
  X either, and the passage holding X first when one does (r19's decks: another deck's slide 2 chart lacking
  "Q3" below the slide holding it); a deck's slide named as a page
  ("page 3" for slide 3: the PPTX locator reads it so) ``NAMED_AS_PAGE``, since the README's "page 3" is a
  PDF's page. A number beside no place word ("2 slides of cake", "version 2") names nothing, so nothing fires.

* ``section``: the citation is in the numbered section or article the query names ("section 5.3.2", "第5.3.2条",
  "第十二条": ``sections.starts_named``, by its headings or its place's first words), ``SECTION_WEIGHT``.
  A number no cited place starts with is no part of any citation.
* ``exactAhead``: a file whose first place is exact (its locator anchored it on the query's words) goes before
  the approximate files right above it that score at most ``EXACT_MARGIN`` of their score more: within that
  margin the scores do not tell the files apart, and an anchored place is the better guess (``exactahead``).

The slides and pages a query names ("page 3", "第三张幻灯片": ``named_places``) are no words a passage
must hold: ``lexical`` and ``fileTerms`` read the query without them (the locators cite the place); a sheet's
name stays a word (its rows hold it). A citation on the named place is read by ``lexical`` on that place's own
words, not its passage's: among the files that have the place, the one whose place holds the query's other
words goes first.

Pure: no I/O. ``benchmarks/retrieval.py`` measures the effect (first citation on the labelled
place, before and after; ``--from-dump`` re-ranks a saved run's citations with this module).
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.rank.cues import answer_types, is_apparatus, is_notice, type_counts
from mnote_kr.citations.rank.exactahead import exact_ahead
from mnote_kr.citations.rank.infile import meaning_in_file, with_words
from mnote_kr.citations.rank.infile import order_within_files as _order_within_files
from mnote_kr.citations.rank.infile import written as _written
from mnote_kr.citations.rank.meaningahead import meaning_ahead
from mnote_kr.citations.text.abbrev import abbreviated_at
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.namedplaces import NamedPlace, asks_for_place, named_places, naming, without_places
from mnote_kr.citations.text.russian import RU_STOP_WORDS, russian_stem
from mnote_kr.citations.text.sections import section_refs, starts_named
from mnote_kr.citations.text.textnorm import TOKEN_RE, joined_words

if TYPE_CHECKING:
    from mnote_kr.models import Locator

PROVIDER_WEIGHT = 1.0
LEXICAL_WEIGHT = 1.0
#: ``lexical`` is also scaled by the share of the query's term weight the passage holds (False:
#: by the search's best score alone, as before; ``benchmarks/retrieval.py`` measures both).
LEXICAL_COVERAGE = True
#: ``lexical`` counts in full for the file nearest the query by meaning (its best ``Candidate.meaning``) and fades
#: to nothing for a file this far below the search's best cosine: words shared with a file that means something
#: else are a coincidence. The same factor for all of a file's citations, so its passages keep their order. A
#: Chinese note holding two of a Chinese question's common bigrams (研究, 方法) came first over the English paper
#: that answers it, which holds none of its words and can win only by meaning (nc20b). The r20 run of the tuning
#: sets re-ranked (``benchmarks/retrieval.py --from-dump``), file MRR cross-language 0.616 -> 0.619 (recall@5
#: 0.826 -> 0.841), same-language 0.829 -> 0.834 (0.02 to 0.12 all gain; 0.03 the most). Its cost: a rare
#: word shared with a file far by meaning no longer lifts it (old zh07, "差异项": 5th -> 7th).
LEXICAL_MEANING_BAND = 0.03
#: A file is read by meaning at the nearest of every place the search found in it: its cited places and the places
#: behind them (``Candidate.nearest``: its alternatives); False: at its cited places only, as before round 26. nc26c:
#: "What does the test comment say?" took the whole word match (1.0) back from test_with_comment.docx, its cited
#: places at 0.636 and 0.649, the bar a one-cell comment's 0.677 ("Why Python specifically?"), while a place behind
#: them, the document's other comment, was at 0.682: the file nearest the query lost its words to one farther.
#: The r26 run re-ranked: no tuning-set file out of the first five, tune5 t5_zh05 3rd -> 4th (MRR 0.304 -> 0.302);
#: the held-out sets' aggregates the same but ``heldout``'s MRR 0.614 -> 0.612.
FILE_AT_NEAREST = True
#: ``meaningahead.OVER_EXACT``: the share of the query's content terms an exact place's own words hold for no place
#: nearer by meaning alone to step over it.
ANCHORED_SHARE = 0.5
FILE_NAME_BOOST = 0.5
#: ``fileName`` when the query writes a file's whole name inside a question ("what is in budget_2023.xlsx"):
#: the person has said which file they mean, so it goes before the provider's first (rank part <= 1).
NAMED_FILE_BOOST = 2.0
PHRASE_BOOST = 0.2
#: ``named``: a citation (not approximately) on the slide, page or sheet the query names, like a full word match
#: (``LEXICAL_WEIGHT``): a recorded "第二张幻灯片的矩形里写了什么" put a DOCX the provider ranked first (0.5, no
#: word, no slides) above the deck cited on slide 2 (0.33).
NAMED_WEIGHT = 1.0
#: ``named`` of a deck's slide the query names as a page ("what does page 3 say"): half, so a PDF's page 3
#: (the README's reading) goes first and the deck still before a file without the place.
NAMED_AS_PAGE = 0.5
#: ``section``: a citation in the numbered section or article the query names: the person said where the answer
#: is, and a file without that part cannot hold it, so it goes before the provider's first (as ``NAMED_FILE_BOOST``):
#: nc21b's "What does section 5.3.2 say about plants with similar designs?" put Part 12 (no 5.3.2) first and Part 1's
#: 5.3.2 8th; at 1.0, a file 8th holding 6.3.3.3 stayed below one first without it for "第6.3.3.3节弱项如何处理？"
#: (its chunk held more bigrams: ``benchmarks/section_questions.py``).
SECTION_WEIGHT = 2.0
#: ``fileTerms``: the share of the query's content terms that the file's name holds, times this
#: (BM25F's title field: a file named for the query's subject is about it). The same for every
#: citation of a file, so it moves files, never a file's own passages.
FILE_TERMS_WEIGHT = 0.5
#: A reference list, "See also", a table of contents (``cues.is_apparatus``): its whole score
#: is multiplied by this (it holds the query's words without answering). A list the provider
#: ranks first that repeats the query's words scores up to 2.0; prose three places down holding
#: part of them (0.33 + 0.6) must outrank it, so less than half.
APPARATUS_FACTOR = 0.25
#: ``inFile``: a passage holding the answer type the question asks for (and one of its words) gains
#: this over its file's other passages (five saved runs: 0.4 to 100 order them alike, 0.25 and below as 0).
TYPE_IN_FILE = 0.5
#: ``inFile``: a file's citation whose place means most what the query asks (the cosine of
#: ``Locator.meaning_score``, scaled over the file's citations) gains up to this over the file's others.
MEANING_IN_FILE = 0.5
#: A file's place whose own words (``Candidate.place``: the block or paragraph the locator put it on) hold the
#: query as written leads the file's places whatever the other in-file cues say: more than all of them and
#: any score between two passages. A search for "蒙牛冠益乳" led its file with a row of "蒙牛冠冠益乳", all
#: four of the query's bigrams and nearer by meaning, above the row holding the name as typed.
WRITTEN_IN_FILE = 100.0
#: An answer type's idf is multiplied by this (it stands for the question words it replaces:
#: "what year", "how many", 多少钱).
TYPE_WEIGHT = 2.0
#: Marks an answer type among BM25's terms (no word starts with it).
_TYPE_MARK = "\x00"
_K1 = 1.2
_B = 0.75

#: Tokens: a CJK run (group ``cjk``) or a word. textnorm's own pattern, compiled once for both
#: (a class over the CJK ranges costs a fresh process milliseconds to compile).
_TOKEN_RE = TOKEN_RE
_STOP = frozenset(
    """a an the and or but if then of to in on at by for from with about into over under is are was
    were be been being am do does did have has had can could may might must shall should will would
    what which who whom whose when where why how that this these those it its i me my we our you your
    he him his she her they them their there here not no as than so such any all some each more most
    other please tell show give find explain describe list say much many did does get got use used
    e.g i.e etc vs cf viz""".split()
) | RU_STOP_WORDS
# CJK function characters that carry no topic: a bigram made only of them is dropped.
_CJK_STOP = frozenset("的了是在和与及或吗呢吧啊么什怎如何哪些个为请一下否有没这那其")
CJK_FUNCTION_CHARS = _CJK_STOP


@dataclass(frozen=True)
class Candidate:
    """One citation to rank: the provider's rank, the file name, the passage text and the
    headings it sits under (outermost first; empty when the format has none)."""

    provider_rank: int
    file_name: str
    text: str
    heading_path: tuple[str, ...] = ()
    #: cosine of the query with the cited place (``Locator.meaning_score``), None without vectors
    meaning: float | None = None
    #: where the citation is: a deck's slide, a PDF's page, a workbook's sheet (None: not such a place)
    slide: int | None = None
    page: int | None = None
    sheet: str | None = None
    #: the locator put the citation there only approximately (``locatorDegraded``)
    approximate: bool = False
    #: the words of the place the locator put the citation on (its block or paragraph; "" unknown)
    place: str = ""
    #: the locator found no place in the file (``file`` precision)
    unplaced: bool = False
    #: the best cosine of the places the locator weighed in this passage: the cited place and those behind it
    #: (``Locator.runners_up``, the file's alternatives); None: ``meaning`` alone
    nearest: float | None = None


@functools.lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    """One character folded to one character: compatibility forms (⽂ → 文), case, accents (é → e)."""
    c = unicodedata.normalize("NFKC", ch)
    if len(c) != 1:
        return ch.lower() if len(ch.lower()) == 1 else ch
    base = unicodedata.normalize("NFKD", c)[:1] or c
    low = base.casefold()
    return low if len(low) == 1 else base


def fold(text: str) -> str:
    """``text`` folded character by character; same length, so positions still point into ``text``."""
    if text.isascii():
        return text.lower()
    return "".join(map(_fold_char, text))


_fold = fold


def _stem(word: str) -> str:
    """A light English stem; a Russian word's ending off as the locator cuts it (``russian.russian_stem``: one stem,
    so the weak rule and the library's words meet the inflections the locator meets). English keeps this lighter
    stem of its own (``queryterms.stem`` cuts "-ation", "-ings" too): the ranking and the libraries' counts read it."""
    if not word.isascii() and (cut := russian_stem(word)) != word:
        return cut
    for suffix in ("ies", "ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    """The content terms of ``text`` in order, with repeats: stemmed Latin words and CJK bigrams.

    Short letter groups joined by "/", "&" or "." ("P/E", "R&D", "U.S.") are one term besides
    their letters (which are dropped: one letter says nothing), so "P/E ratio" finds "P/E 82.90"."""
    out: list[str] = []
    folded = _fold(text)
    joined = dict((start, word) for word, start in joined_words(folded))
    for m in _TOKEN_RE.finditer(folded):
        tok = m.group(0)
        if joined and m.start() in joined and (word := joined.pop(m.start())) not in _STOP:
            out.append(word)
        if m.lastgroup == "cjk":
            if len(tok) == 1:
                if tok not in _CJK_STOP:
                    out.append(tok)
                continue
            out.extend(tok[i : i + 2] for i in range(len(tok) - 1)
                       if not (tok[i] in _CJK_STOP and tok[i + 1] in _CJK_STOP))
        elif tok not in _STOP and (len(tok) > 1 or tok.isdigit()):
            out.append(_stem(tok))
    return out


@functools.lru_cache(maxsize=256)
def _query_terms(query: str) -> tuple[tuple[str, bool], ...]:
    """The query's distinct terms, each with "is a CJK bigram" (which matches anywhere).

    Kept per query: every cited chunk of a search looks for the same terms."""
    out = []
    for term in dict.fromkeys(terms(query)):
        whole = _TOKEN_RE.fullmatch(term)
        out.append((term, whole is not None and whole.lastgroup == "cjk"))
    return tuple(out)


def find_terms(text: str, query: str, *, folded: str | None = None) -> list[tuple[int, int]]:
    """Where the query's content terms occur in ``text``: ``(position, term index)``, in order.

    Latin terms (stemmed) must start a word (``patent`` finds ``patented``, not ``competent``);
    CJK bigrams match anywhere. Positions index ``text`` itself. ``folded`` is ``fold(text)``
    when the caller kept it (a fresh process reads a cited chunk's fold from disk).
    """
    if folded is None:
        folded = fold(text)
    hits: list[tuple[int, int]] = []
    for i, (term, cjk) in enumerate(_query_terms(query)):
        # str.find, not a regex with a look-behind (tried at every position: several times
        # slower on a cited chunk, and this runs for every chunk of a cold search). A Latin
        # term starts a word: the character before it is not a letter or digit (``[^\W_]``).
        at = folded.find(term)
        while at >= 0:
            if cjk or at == 0 or not folded[at - 1].isalnum():
                hits.append((at, i))
                if len(hits) > 4000:
                    break
                at = folded.find(term, at + len(term))  # non-overlapping, as finditer
            else:
                at = folded.find(term, at + 1)
        if not cjk and "." in folded:  # "temp." for "temperature" (``abbrev``)
            hits += [(at, i) for at in abbreviated_at(folded, term, text)]
    return sorted(hits)


@functools.lru_cache(maxsize=65536)
def _settled(term: str) -> str:
    """``_stem`` until it changes nothing: ``supplies`` → ``supply`` → ``supp`` meets ``supply`` →
    ``supp`` (one pass gave the two words different terms)."""
    while True:
        shorter = _stem(term)
        if shorter == term:
            return term
        term = shorter


def _bm25_terms(text: str) -> list[str]:
    """:func:`terms` with each stem settled (:func:`_settled`): the terms BM25 compares whole.

    (:func:`find_terms` keeps :func:`terms`: it matches a term as a word's beginning, where a
    shorter stem would find other words.)"""
    return [_settled(t) for t in terms(text)]


def bm25(query: str, texts: Sequence[str]) -> list[float]:
    """BM25 of ``query``'s content terms over each of ``texts`` (document frequencies over ``texts``).

    One term more per answer type the question asks for (:func:`mnote_kr.citations.rank.cues.answer_types`):
    present in a passage where its pattern occurs and the passage holds one of the query's words
    (a year alone does not match "when was the typewriter patented"), weighted ``TYPE_WEIGHT``
    times its idf.
    """
    return _bm25(query, texts)[0]


def _bm25(query: str, texts: Sequence[str]) -> tuple[list[float], list[bool], list[float]]:
    """:func:`bm25`, for each text whether it holds an answer type of the question, and the share
    of the query's term weight (the terms' idf, answer types included) it holds."""
    q_terms = list(dict.fromkeys(_bm25_terms(query)))
    types = answer_types(_fold(" ".join(query.split())))
    typed = [False] * len(texts)
    if not (q_terms or types) or not texts:
        return [0.0] * len(texts), typed, [0.0] * len(texts)
    seqs = [_bm25_terms(t) for t in texts]
    docs = [Counter(seq) for seq in seqs]
    if types:
        words = set(q_terms)
        q_terms += [_TYPE_MARK + t for t in types]
        for k, (doc, text) in enumerate(zip(docs, texts, strict=True)):
            if words and words.isdisjoint(doc):
                continue  # a year or a number alone is no match: the type qualifies the query's words
            for name, count in type_counts(types, _fold(text)).items():
                doc[_TYPE_MARK + name] = count
                typed[k] = True
    lengths = [len(seq) for seq in seqs]
    avg = (sum(lengths) / len(lengths)) or 1.0
    n = len(docs)
    idf = {}
    for term in q_terms:
        df = sum(1 for d in docs if term in d)
        idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5)) * (TYPE_WEIGHT if term[:1] == _TYPE_MARK else 1.0)
    scores, held = [], []
    weight = sum(idf.values()) or 1.0
    for doc, length in zip(docs, lengths, strict=True):
        s = h = 0.0
        for term in q_terms:
            tf = doc.get(term, 0)
            if tf:
                s += idf[term] * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / avg))
                h += idf[term]
        scores.append(s)
        held.append(h / weight)
    return scores, typed, held


def _names(query: str, name: str) -> bool:
    """The query writes the file's whole name, extension and all, as a word of its own ("what is in
    budget_2023.xlsx"); or its stem, or the stem's part after a ``__`` prefix, when that reads as
    a file's name and not a word of prose: at least 8 characters with a ``-``, ``_``, ``.`` or digit
    inside ("page 3 of pdflatex-outline" names ``pypdf__pdflatex-outline.pdf``); both folded."""
    if "." not in name.strip(".") or len(name) < 5:
        return False
    if _as_word(query, name):
        return True
    stem = name.rsplit(".", 1)[0]
    return any(len(s) >= 8 and any(ch in "-_." or ch.isdigit() for ch in s.strip("-_.")) and _as_word(query, s)
               for s in dict.fromkeys((stem, stem.rsplit("__", 1)[-1])))


def _as_word(query: str, token: str) -> bool:
    """``token`` occurs in ``query`` with no letter or digit right before or after it."""
    at = query.find(token)
    while at >= 0:
        end = at + len(token)
        if (at == 0 or not query[at - 1].isalnum()) and (end == len(query) or not query[end].isalnum()):
            return True
        at = query.find(token, at + 1)
    return False


def _file_terms(q_terms: set[str], stem: str) -> float:
    """``FILE_TERMS_WEIGHT`` times the share of ``q_terms`` that the file name's stem holds
    (``pypdf__Seige_of_Vicksburg`` holds ``vicksburg``: the name's words split at ``_-.+~``)."""
    held = q_terms.intersection(_bm25_terms(stem.translate(_NAME_SEPARATORS)))
    return FILE_TERMS_WEIGHT * len(held) / len(q_terms)


_NAME_SEPARATORS = str.maketrans(dict.fromkeys("_-.+~", " "))


def content_words(query: str) -> str:
    """``query`` without the slides and pages it names ("what is on page 3 of the report": "what is on"):
    a place of the file, which its locator cites, not words its passages hold ("pages", "3"). A sheet's
    name stays: the sheet's rows hold it."""
    places = [p for p in named_places(query) if p.kind != "sheet"]
    return without_places(query, places) if places else query


def relevance(query: str, candidates: Sequence[Candidate], n_total: int) -> list[tuple[float, dict[str, float]]]:
    """Score every candidate of one search; returns ``(score, parts)`` per candidate, same order.

    ``n_total`` is the number of provider references (ranks are clamped into it).
    """
    words = content_words(query)
    places = named_places(query)
    lexical, typed, held = _bm25(words, [_scored_text(places, c) for c in candidates])
    if not LEXICAL_COVERAGE:
        held = [1.0] * len(held)
    best = max(lexical, default=0.0)
    q = _fold(" ".join(query.split()))
    q_terms = set(_bm25_terms(words))
    in_name: dict[str, float] = {}  # fileTerms per file name
    full = _holds_asked(words, candidates, places) if places and any(c.approximate for c in candidates) else []
    out = []
    near = _near_in_meaning(candidates)
    refs = section_refs(query)
    for i, (cand, lex, share) in enumerate(zip(candidates, lexical, held, strict=True)):
        rank = max(0, min(cand.provider_rank, max(n_total, 1) - 1))
        name = _fold(cand.file_name.replace("\\", "/").rsplit("/", 1)[-1].strip())
        stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
        text = _fold(" ".join(cand.text.split()))
        if name not in in_name:
            in_name[name] = _file_terms(q_terms, stem) if q_terms else 0.0
        parts = {
            "provider": PROVIDER_WEIGHT / (1 + rank),
            "lexical": LEXICAL_WEIGHT * lex / best * share if best > 0 else 0.0,
            "fileName": FILE_NAME_BOOST if q and q in (name, stem) else NAMED_FILE_BOOST if q and _names(q, name)
            else 0.0,
            "fileTerms": in_name[name],
            "phrase": PHRASE_BOOST if q and q in text else 0.0,
            "named": _named(places, cand, any(f for j, f in enumerate(full) if j != i)),
        }
        if refs and starts_named(refs, cand.heading_path, cand.place):
            parts["section"] = SECTION_WEIGHT
        if near[i] < 1.0 and parts["lexical"]:  # kept apart: ``lexical`` still says the words are there (weak_reason)
            parts["farInMeaning"] = (near[i] - 1.0) * parts["lexical"]
        total = sum(parts.values())
        if is_apparatus(cand.text, cand.heading_path):
            parts["apparatus"] = (APPARATUS_FACTOR - 1.0) * total
            total += parts["apparatus"]
        out.append((total, parts))
    unplaced = _unplaced(candidates, out)
    notices = [is_notice(c.text, c.heading_path) for c in candidates]
    meant = meaning_in_file(candidates, MEANING_IN_FILE)
    written = [len(q) >= 2 and _written(q, _fold(" ".join(c.place.split()))) for c in candidates]
    # ``farInMeaning`` moves a file, never the order of its own passages: they are ordered on their words in full.
    # Taken back whole, a paragraph holding every word of the query stood level with a heading holding none, and
    # LightRAG's order and the in-file meaning cue put the heading first (an edited DOCX's new line, r22).
    far = any("farInMeaning" in parts for _, parts in out)
    if any(notices) or any(typed) or any(meant) or any(written) or far:
        worded = [with_words(score, parts, APPARATUS_FACTOR) for score, parts in out]
        in_file = [out[i][0] if unplaced[i] else  # no in-file cue lifts it back above its file's placed passages
                   worded[i] * (APPARATUS_FACTOR if notices[i] else 1.0) + (TYPE_IN_FILE if typed[i] else 0.0)
                   + meant[i] + (WRITTEN_IN_FILE if written[i] else 0.0) for i in range(len(out))]
        _order_within_files(out, [c.file_name for c in candidates], in_file)
    exact_ahead(out, candidates, written)
    meaning_ahead(out, candidates, query, lambda c: _anchored(q_terms, c))  # read only with OVER_EXACT off
    return out


def where(locator: Locator) -> dict[str, Any]:
    """The ``Candidate`` fields saying where ``locator`` put its citation (``named`` and ``unplaced`` read them)."""
    return {"slide": locator.slide, "page": locator.page, "sheet": locator.sheet,
            "approximate": locator.locator_degraded, "unplaced": locator.locator_precision == "file"}


def _unplaced(candidates: Sequence[Candidate], out: list[tuple[float, dict[str, float]]]) -> list[bool]:
    """In place: ``unplaced`` (module docstring) for each citation placed nowhere with nothing but the
    provider's rank behind it, moved below the search's lowest placed citation; which ones moved."""
    moved = [c.unplaced and not any(v > 0 for k, v in parts.items() if k not in ("provider", "apparatus"))
             for c, (_, parts) in zip(candidates, out, strict=True)]
    placed = [score for (score, _), m in zip(out, moved, strict=True) if not m]
    if not any(moved) or not placed:
        return [False] * len(out)
    low = min(placed)
    for i, (score, parts) in enumerate(out):
        if moved[i]:
            value = low * score / (score + low)
            parts["unplaced"] = value - score
            out[i] = (value, parts)
    return moved


def _scored_text(places: Sequence[NamedPlace], cand: Candidate) -> str:
    """The words ``lexical`` reads for ``cand``: its evidence; on a place the query names, that place's own words
    (``Candidate.place``), since that is what is cited and the provider's passage of a small deck is often
    another slide's ("what was the Q3 value on slide 2": the chart deck's passage was slide 1's, its slide 2
    chart holds "Q3: 30"; read from the passages every deck scored 0 and the provider's order put a slide 2 of
    bullets first). The evidence's words are not the named place's: a deck whose other slide holds them gains
    nothing on the slide named. The headings the place sits under (a slide's title, a sheet's name) are its words
    too, as the PPTX locator reads a shape under its title."""
    if not cand.place or cand.approximate or _named(places, cand) <= 0:
        return cand.text
    return "\n".join((*cand.heading_path, cand.place))


def _named(places: Sequence[NamedPlace], cand: Candidate, held_elsewhere: bool = False) -> float:
    """``named``: ``NAMED_WEIGHT`` when ``cand`` is on a place the query names (``places``), ``NAMED_AS_PAGE``
    when on a deck's slide it names as a page; 0 elsewhere, or when only approximately there and
    ``held_elsewhere`` (another citation holds every word the query asks: ``_holds_asked``)."""
    if not places or cand.approximate and held_elsewhere:
        return 0.0
    how = naming(places, slide=cand.slide, page=cand.page, sheet=cand.sheet)
    return NAMED_WEIGHT if how == "exact" else NAMED_AS_PAGE if how == "page" else 0.0


def _holds_asked(words: str, candidates: Sequence[Candidate], places: Sequence[NamedPlace]) -> list[bool]:
    """For each candidate, whether its text (its place's, when exactly on a named place: ``_scored_text``)
    holds every word ``words`` (the query without its places) asks: its Latin terms but those asking for a
    place whole ("say", "summarize": ``namedplaces.asks_for_place``), and its Chinese words by the dictionary
    (``cjkwords.query_words``), never its bigrams (讲了, 么关 are cuts). All False when it asks nothing."""
    latin = {t for t in _bm25_terms(words) if t.isascii() and not asks_for_place(t)}
    cjk = [w for w in query_words(words) if not asks_for_place(w)]
    if not latin and not cjk:
        return [False] * len(candidates)
    out = []
    for cand in candidates:
        text = _scored_text(places, cand)
        folded = _fold(" ".join(text.split()))
        out.append(latin <= set(_bm25_terms(text)) and all(w in folded for w in cjk))
    return out


def _anchored(q_terms: set[str], cand: Candidate) -> bool:
    """``cand`` is exact and its place's own words hold at least ``ANCHORED_SHARE`` of the query's content terms
    (``meaningahead.OVER_EXACT``): the locator anchored it on the question's words, not on one of them."""
    if cand.approximate or cand.unplaced or not cand.place or not q_terms:
        return False
    return len(q_terms.intersection(_bm25_terms(cand.place))) >= ANCHORED_SHARE * len(q_terms)


def _near_in_meaning(candidates: Sequence[Candidate]) -> list[float]:
    """How much of its word match each citation keeps (``LEXICAL_MEANING_BAND``), by its file's place nearest the
    query (the best ``Candidate.meaning`` and ``Candidate.nearest`` of the file's citations: ``FILE_AT_NEAREST``): 1
    for the file holding the search's best cosine, falling to 0 at ``LEXICAL_MEANING_BAND`` below it. The same for
    every citation of a file, so its passages keep their order by words; 1 for a file with no cosine, and for all
    when fewer than two files have one."""
    best: dict[str, float] = {}
    for c in candidates:
        for cos in (c.meaning, c.nearest if FILE_AT_NEAREST else None):
            if cos is not None:
                best[c.file_name] = max(best.get(c.file_name, cos), cos)
    if len(best) < 2 or not LEXICAL_MEANING_BAND:
        return [1.0] * len(candidates)
    floor = max(best.values()) - LEXICAL_MEANING_BAND
    return [min(1.0, max(0.0, (best[c.file_name] - floor) / LEXICAL_MEANING_BAND)) if c.file_name in best else 1.0
            for c in candidates]
