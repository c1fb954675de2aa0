"""A question's words said in the passage's language count as its words when the passage's places are compared.

"Which gene is tested for Lynch syndrome?" over a Chinese table of genetic tests (nc26a Q12): LightRAG's passage held
every row, and the locator, finding none of the question's words in a Chinese cell, chose by meaning alone; e5 put
the cell "BRCA2" (a gene's name, near "gene") 0.016 before "林奇综合征", whose row (MLH1) answers and says "syndrome"
(综合征) in its own language. "What is a Lewis structure used to show?" over a Chinese mind map (nc26a Q10) cited the
caption "碳原子的lewis结构" (Lewis, structure), not the definition beside it, "路易斯结构可以画出表示…" (Lewis,
structure, show).

For a question written in one script over a passage whose places are written in the other (``across``: the places
taken together, ``otherscript``'s measure), each place's share of the question's words it says in its own language
by the dictionary (``said_words``: an English question's words by the synonyms of a Chinese place's headwords, 综合征
"syndrome", 乳腺癌 "breast cancer" for both words; a Chinese question's words in a Latin place, ``crossmods
.held_words``) is a word score beside the place's own (``said_shares``): meaning decides between places saying as
much. Each word weighs by its rarity among the places compared (a word every cell of the table says, "tested" in
检测, tells none apart); a word no place says (a name the dictionary lacks, "Lynch") weighs as the said ones do on
average. The words a place holds as written stay the locator's own score, under its rules. A share said across
languages never makes a place exact.

A place's own script decides how the question's words are matched there (``written``, ``WRITTEN_TOO``): in a file
written mostly in the other language, a paragraph in the question's script holds its words as written, and they weigh
with those the other places say across, by the same rarity. "自行车链条多久检查一次磨损" over an English bike-repair
note (nc30a finding 1) was placed on the English paragraph saying "bike" and "chain" (链条 said across): the one
Chinese paragraph, holding 自行车链条, 检查 and 磨损 as written, had lost its words (``otherscript``: a place in the
question's script there keeps them only holding them all, against a cover line's few common words) and its lead by
meaning (the script's pull), so an other-language place out-ranked it on meaning alone. A word every place holds or
says weighs little, so a title line holding a few common words still does not outweigh the body saying the rare ones.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TypeVar

from mnote_kr.citations.text.textnorm import CJK_CLASS, lazy_compile, normalize

__all__ = ["SAID_ACROSS", "SAID_MOST", "WRITTEN_TOO", "across", "question_words", "said_shares", "said_words",
           "written_words"]

K = TypeVar("K")

#: A question's words said in the other language count for the places of a passage compared (False: the question's
#: words as written only, before round 26).
SAID_ACROSS = True
#: The most a share said across languages weighs: below ``meaning.ALL_TERMS``, so a place saying every word the
#: passage says is never "holding every term" (which wins outright): meaning still decides against it.
SAID_MOST = 0.99
#: Asked so (``said_shares(..., written=True)``), the question's words a place holds as written weigh with those said
#: across (module docstring; False: those said across only, before round 30).
WRITTEN_TOO = True
#: Answers of ``said_words`` kept (question, text and words each).
SAID_MEMO_MAX = 8192

_CJK_RE = lazy_compile(rf"[{CJK_CLASS}]")
_CJK_RUN = lazy_compile(rf"[{CJK_CLASS}]+")
_LATIN_RE = lazy_compile(r"[a-z]{2,}")
_WORD_RE = lazy_compile(r"[a-z0-9]+")


def question_words(query: str) -> list[str]:
    """The words of ``query`` a place may say in its own language: a Chinese question's by the dictionary
    (``cjkwords.query_words``, not those asking: 意思 of 是什么意思), an English one's content words as written
    (``queryterms.content_terms``, lower case: letters, or letters and digits, BRCA2; no number)."""
    if _CJK_RE.search(query):
        from mnote_kr.citations.text.cjkwords import ASKING_WORDS, query_words

        return [w for w in query_words(query) if w not in ASKING_WORDS]
    from mnote_kr.citations.text.queryterms import content_terms

    return list(dict.fromkeys(t.word for t in content_terms(query)
                              if not t.cjk and t.word.isalnum() and not t.word.isdigit()))


def said_words(query: str, text: str, words: Sequence[str]) -> set[str]:
    """The question's ``words`` (``question_words``) that ``text`` says in its own language by the dictionary: for a
    Chinese question, those a Latin text says in English; for an English one, those its Chinese says. Kept by
    question and text (``_said``): a search's locates ask it of the same places again (a DOCX file's passages share
    paragraphs; a PDF's passage is asked by its locator and again by the host's placing)."""
    return set(_said(query, text, tuple(words)))


@functools.lru_cache(maxsize=SAID_MEMO_MAX)
def _said(query: str, text: str, words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_said_now(query, text, words))


def _said_now(query: str, text: str, words: Sequence[str]) -> set[str]:
    norm = normalize(text)
    if _CJK_RE.search(query):
        from mnote_kr.citations.text.crossmods import held_words

        latin = set(_LATIN_RE.findall(norm))
        return set(held_words(query, latin)).intersection(words) if latin else set()
    if not words or not _CJK_RE.search(norm):
        return set()
    from mnote_kr.citations.text.crossmods import _spellings

    spelled = {w: _spellings(w) for w in words}
    said: set[str] = set()
    for run in _CJK_RUN.findall(norm):
        for head in _heads(run):
            for syn in _senses(head):
                saying = [{w for w in words if part in spelled[w]} for part in syn]
                if all(saying):  # a synonym each of whose words is one of the question's ("breast cancer")
                    said.update(*saying)
    return said


def written_words(text: str, words: Sequence[str]) -> set[str]:
    """The question's ``words`` (``question_words``) that ``text`` holds as written: a Chinese word inside it, an
    English word as one of its words or by its stem ("cleaned" for "clean", ``queryterms.stem``)."""
    norm = normalize(text)
    held = {w for w in words if _CJK_RE.search(w) and w in norm}
    latin = [w for w in words if w not in held and not _CJK_RE.search(w)]
    if latin:
        from mnote_kr.citations.text.queryterms import stem

        tokens = set(_WORD_RE.findall(norm))
        stems = {stem(t) for t in tokens}
        held.update(w for w in latin if w in tokens or stem(w) in stems)
    return held


@functools.lru_cache(maxsize=8192)
def _heads(run: str) -> tuple[str, ...]:
    """A run of Chinese characters' headwords of two characters or more, no function word (``crosslang.segment``):
    the words a place says (kept across searches: a file's places come back)."""
    from mnote_kr.citations.text.cjkwords import FUNCTION_WORDS, _headwords
    from mnote_kr.citations.text.crosslang import segment

    gloss = _headwords()
    if not gloss:
        return ()
    return tuple(h for h in dict.fromkeys(segment(run, gloss)) if len(h) >= 2 and h not in FUNCTION_WORDS)


@functools.lru_cache(maxsize=8192)
def _senses(head: str) -> tuple[tuple[str, ...], ...]:
    """A headword's English synonyms, every sense's (``crosslang.synonyms``: 检测 "detect" and "test", 电气
    "electricity" and "electrical"; the parsed dictionary's gloss keeps the first sense only), kept for more headwords
    than its own cache. Read from the data file once per process (~0.2 s; 0.8 s on a loaded machine)."""
    from mnote_kr.citations.text.crosslang import synonyms

    return synonyms(head)


def across(query: str, texts: Iterable[str]) -> bool:
    """Whether ``query`` is written in one script and ``texts``, taken together, in the other (``otherscript``'s
    measure: at most ``MINORITY_SHARE`` of their text in the question's script)."""
    from mnote_kr.citations.locate.otherscript import MINORITY_SHARE, _amounts, _script, _share_of

    script = _script(query)
    if script is None:
        return False
    amounts = [_amounts(t) for t in texts]
    body = (sum(a[0] for a in amounts), sum(a[1] for a in amounts))
    return sum(body) > 0 and _share_of(body, script) <= MINORITY_SHARE


def said_shares(query: str, texts: Mapping[K, str], *, written: bool | Collection[K] = False) -> dict[K, float]:
    """Each place's (``texts``: key to its text) rarity-weighted share of ``query``'s words it says in its own language
    (module docstring), at most ``SAID_MOST``; places saying none left out. {} when the rule is off, the question is
    written in the script of the places (``across``), has no such words or no place says one of them, or without the
    dictionary. ``written``: the words a place holds as written count with those it says (``WRITTEN_TOO``): every
    place's, or those of the places it names (a title or heading names the subject, it does not answer)."""
    if not SAID_ACROSS or not texts or not across(query, texts.values()):
        return {}
    words = question_words(query)
    if not words:
        return {}
    # the words a place holds as written are the locator's own word score (``QueryTerms``), judged by its rules (a
    # line in the question's script, "定期安全评价 periodic safety review", keeps them only holding them all)
    said = {k: said_words(query, text, words) for k, text in texts.items()}
    if written and WRITTEN_TOO:
        said = {k: s | written_words(texts[k], words) if written is True or k in written else s
                for k, s in said.items()}
    n = len(texts)
    df = {w: sum(1 for s in said.values() if w in s) for w in words}
    weight = {w: math.log((n + 1.0) / (f + 0.5)) for w, f in df.items() if f}
    if not weight:
        return {}
    # a word no place says (a name the dictionary lacks, "Lynch"; or one the passage lacks) weighs as the words said
    # do on average: unknown, neither the rarest word of all (a place saying the others would stand far from holding
    # them) nor nothing (a place saying one common word would hold "all" of them)
    total = math.fsum(weight.values()) * len(words) / len(weight)
    return {k: min(math.fsum(weight[w] for w in s) / total, SAID_MOST) for k, s in said.items() if s}
