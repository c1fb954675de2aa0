"""Query content terms, weighted by rarity, and how well a paragraph holds them.

People type phrases and questions ("who patented the typewriter", "叶片 结冰 功率损失");
the paragraph that answers holds the query's content words, not necessarily the query
string. ``content_terms`` drops question and stop words, keeps Latin words (matched by
a light stem, so "patented" finds "patent"; a one-letter word only when the query writes
it as a symbol, "what does Q mean": ``symbol_letters``) and splits Chinese without spaces into
character bigrams (a CJK run of one or two characters stays whole).
``QueryTerms.score`` gives a paragraph the idf-weighted share of the terms it holds,
plus a bonus when they cluster. Occurrences of a term inside a longer word count little
(a term stands alone or it is another word's fragment, see ``textmatch``).

Every weight comes from the document the locator reads (paragraph frequency), so a
word frequent in this document (the title, "turbine" in a turbine manual) decides little.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from mnote_kr.citations.text.abbrev import abbreviated_at
from mnote_kr.citations.text.acronyms import Definition, StandIn, stand_ins, written_at
from mnote_kr.citations.text.russian import RU_ENDINGS, RU_STOP_WORDS, russian_stem
from mnote_kr.citations.text.textnorm import (
    CJK_CLASS,
    CJK_FIRST,
    TOKEN_RE,
    is_word_char,
    joined_words,
    lazy_compile,
    normalize,
)

__all__ = ["CLUSTER_CHARS", "SCAFFOLD_WORDS", "STOP_WORDS", "QueryTerms", "Term", "content_terms", "stem",
           "symbol_letters"]

#: Function words: they glue a question together and say nothing about where the answer
#: is. Only function words belong here; content words ("type", "name", "list", "find",
#: "many") stay terms and their rarity in the document decides their weight, so a word
#: frequent in this document weighs little without a longer list. Words of other
#: languages that are content words in English or technical text ("der": DER encoding,
#: "die", "des", "son") are left to rarity as well.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own same
    she should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom whose why will
    with would you your yours yourself yourselves
    das und ist sind ein eine einer wer wie wo warum welche welcher mit von zu im den dem
    le la les un une est sont qui que quoi comment pourquoi quel quelle quels du de et en au aux
    el los las es qué quién cómo por para del al y o
    """.split()
) | RU_STOP_WORDS

#: Question scaffolding: verbs that ask for an answer ("what does X mean", "where is X
#: described", "what is said about X", "explain X") wherever they stand.
SCAFFOLD_WORDS = frozenset(
    "mean means meant explain explains explained describe describes described say says said tell please "
    "according".split()
)
#: An imperative that opens a request ("list the options", "show me", "find where") is
#: scaffolding there and a content word anywhere else.
_OPENING_VERBS = frozenset("show list find give define name".split())
#: The last word of a question that opened with a question word ("how does X work", "where
#: is X defined") asks for the answer; anywhere else it is content.
_CLOSING_VERBS = frozenset("work works happen happens defined used mentioned called stated handled done".split())
_QUESTION_WORDS = frozenset("what how where why who which when whose whom".split())


def scaffolding(words: Sequence[str]) -> list[bool]:
    """For each word of a query (normalised, in order), True when it is a function word or
    question scaffolding (see ``STOP_WORDS``, ``SCAFFOLD_WORDS``), never a content term."""
    out = [w in STOP_WORDS or w in SCAFFOLD_WORDS for w in words]
    if not words:
        return out
    k = 0
    if words[0] in _OPENING_VERBS and len(words) > 1:
        out[0] = True
        k = 1
        if len(words) > 1 and words[1] in ("me", "us"):
            out[1] = True
    if words[0] in _QUESTION_WORDS or k:
        last = len(words) - 1
        if last > k and words[last] in _CLOSING_VERBS:
            out[last] = True
    if all(out):  # a query of only such words ("mean", "how does it work") keeps its verbs
        out = [w in STOP_WORDS for w in words]
    return out


#: Chinese question words and sentence particles, removed before the text is split into
#: bigrams. Single-character function words (的, 是, 在) stay: removing them would join
#: the characters around them into bigrams the text never holds; their rarity weighs them.
_CJK_STOP = sorted(
    """
    什么 哪些 哪个 哪里 哪儿 如何 怎么 怎样 怎么样 为什么 为何 是否 是不是 多少 何时 何地 请问 告诉 介绍
    一下 有关 关于 提到 说明 内容 部分 相关 方面 吗 呢 吧 啊 谁
    """.split(),
    key=len,
    reverse=True,
)
_CJK_STOP_RE = lazy_compile("|".join(re.escape(w) for w in _CJK_STOP))


def drop_cjk_question_words(text: str) -> str:
    """``text`` with its Chinese question words and particles (什么, 多少, 怎么, 吗 ...) each replaced by a space."""
    return _CJK_STOP_RE.sub(" ", text)
#: A one-letter word as the query writes it: a letter between characters that are no word's (CJK counts as none:
#: "Q代表什么").
_LONE_LETTER_RE = lazy_compile(rf"(?<![^\W_{CJK_CLASS}])[^\W\d_{CJK_CLASS}](?![^\W_{CJK_CLASS}])")
#: Words naming the one letter after them as a symbol, whatever its case ("the letter a", "小写字母m").
_LETTER_CUES = lazy_compile(r"(?i)(?:\b(?:letters?|symbols?|variables?|constants?)|字母|符号|变量|常量)\W{0,2}$")
#: One-letter words that open a sentence capitalised ("A dog", "O say", Spanish "Y", Italian "E"): a word there, a
#: symbol elsewhere ("Plan A", "is A larger than B"). "I" is the pronoun wherever it stands.
_LETTER_WORDS = frozenset("AOYE")
_WORD_AFTER = lazy_compile(r"\s+([^\W\d_]+)")
_WORD_BEFORE = lazy_compile(r"([^\W\d_]+)$")


def symbol_letters(query: str) -> frozenset[str]:
    """The one-letter words ``query`` writes as symbols, lower-cased, for its content terms: a capital letter
    standing alone ("what does Q mean", "Q 代表什么", a math italic "𝑄"), or any letter a cue names ("the letter a",
    "小写字母m"). Not "I", not "A" opening a sentence before a lower-case word or inside a Title Case query,
    not the letters of "R&D", "P/E" or "U.S." (``joined_words``). Lower-case letters without a cue are words."""
    out: set[str] = set()
    for m in _LONE_LETTER_RE.finditer(query):
        i = m.start()
        letter = unicodedata.normalize("NFKC", m.group())
        if len(letter) != 1 or not ("a" <= letter.lower() <= "z"):
            continue
        before, after = query[i - 1 : i], query[i + 1 : i + 3]
        if before in ("/", "&", ".") or after[:1] in ("/", "&") or (after[:1] == "." and after[1:2].isalpha()):
            continue  # a piece of "R&D", "P/E", "U.S."
        if _LETTER_CUES.search(query[max(0, i - 12) : i]):
            out.add(letter.lower())
        elif letter.isupper() and letter != "I" and not (letter in _LETTER_WORDS and _a_word(query, i)):
            out.add(letter.lower())
    return frozenset(out)


def _a_word(query: str, i: int) -> bool:
    """Whether the capital one-letter word at ``i`` reads as a word ("A dog", "What Is A Heat Pump"): it opens
    a sentence before a lower-case word, or stands between two capitalised words."""
    after = _WORD_AFTER.match(query, i + 1)
    nxt = after.group(1) if after else ""
    head = query[:i].rstrip()
    if not head or head[-1] in ".!?。！？:：\"'“‘(":
        return nxt[:1].islower()
    prev = _WORD_BEFORE.search(head)
    return bool(nxt[:1].isupper() and prev and prev.group(1)[:1].isupper())


_TERM_RE = TOKEN_RE  # the same pattern: one compile (stored by ``regexcache``), not two
_SUFFIXES = ("ations", "ation", "ingly", "ings", "ing", "edly", "ies", "ied", "es", "ed", "ly", "s")
#: Terms within this many characters of each other count as a cluster.
CLUSTER_CHARS = 80
CLUSTER_BONUS = 0.25
#: Weight of an occurrence inside a longer word (吡咯烷 in N-甲基吡咯烷酮, "art" in "start").
EMBEDDED_WEIGHT = 0.25
#: Weight of a word written short with its full stop ("temp." for "temperature", ``abbrev``): with the
#: cluster bonus still below ``textmatch.QUERY_SHARE``, so a place holding a one-word query only as an
#: abbreviation ("temp." for "template") is no exact match by itself; with another of the query's words it
#: can be ("Ambient temp." for "ambient temperature").
ABBREVIATED_WEIGHT = 0.25
#: Weight of another inflection of the query's word ("patent" for "patented").
INFLECTED_WEIGHT = 0.85
#: Weight of the query's term written as the other form the document defines for it (``acronyms``: its "PSR" for
#: the query's "定期安全评价", its "angle of attack" for the query's "AOA"): the document says they are one, so as
#: much as another inflection; a place holding nothing else of the query weighs it ``ACRONYM_ALONE`` (with the
#: cluster bonus below ``textmatch.QUERY_SHARE``: no exact match by the other form alone).
ACRONYM_WEIGHT = INFLECTED_WEIGHT
ACRONYM_ALONE = ABBREVIATED_WEIGHT


def stem(word: str) -> str:
    """A light stem: common English suffixes, or Russian endings, off, so inflections of one word meet."""
    if len(word) <= 4:
        return word
    if not word.isascii():
        return russian_stem(word)  # one with the ranking's (``russian``)
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            return word[: -len(suf)]
    return word


@dataclass(frozen=True, slots=True)
class Term:
    """One content term of a query: ``text`` as matched (normalised), ``cjk`` for CJK n-grams."""

    text: str
    cjk: bool
    word: str = ""  # the word as the query wrote it (Latin terms; ``text`` is its stem)


def content_terms(query: str) -> list[Term]:
    """The query's content terms in query order, de-duplicated (see the module docstring)."""
    norm = normalize(query)
    if norm and max(norm) >= CJK_FIRST:  # every stop word is CJK: a text without CJK keeps all
        norm = _CJK_STOP_RE.sub(" ", norm)
    out: dict[str, Term] = {}
    found = list(_TERM_RE.finditer(norm))
    latin = [m.group("word") for m in found if m.group("word") is not None]
    skip = iter(scaffolding(latin))  # one flag per Latin word, in order
    # "P/E", "R&D", "U.S.": one term (their one-letter pieces are dropped below)
    joined = dict((start, word) for word, start in joined_words(norm))
    symbols = symbol_letters(query)  # "Q" in "what does Q mean": a one-letter word asked about
    for m in found:
        if joined and m.start() in joined:
            word = joined.pop(m.start())
            out.setdefault(word, Term(word, False, word))
        run = m.group("cjk")
        if run is not None:
            if len(run) <= 2:
                out.setdefault(run, Term(run, True))
            else:
                for i in range(len(run) - 1):
                    out.setdefault(run[i : i + 2], Term(run[i : i + 2], True))
            continue
        word = m.group("word")
        scaffold = next(skip)
        if word not in symbols and (scaffold or (len(word) < 2 and not word.isdigit())):
            continue
        # keyed by the word as written: "unit" and "units" in one query are two terms
        out.setdefault(word, Term(stem(word), False, word))
    return list(out.values())


def _word_hits(norm: str, term: Term) -> list[tuple[int, float]]:
    """Positions of Latin words whose stem is ``term.text``: 1.0 as the query wrote it,
    less for another inflection, little inside a longer word."""
    out: list[tuple[int, float]] = []
    stem_ = term.text
    i = norm.find(stem_)
    while i >= 0 and len(out) < 50:
        j = i + len(stem_)
        while j < len(norm) and is_word_char(norm[j]):
            j += 1
        if i == 0 or not is_word_char(norm[i - 1]):
            found = norm[i:j]
            if found == term.word:
                out.append((i, 1.0))
            elif found == stem_ or stem(found) == stem_:
                out.append((i, INFLECTED_WEIGHT))
            elif j - i <= len(stem_) + 3 and len(stem_) > 1:  # a symbol letter ("q") is only itself
                out.append((i, EMBEDDED_WEIGHT * 2))  # a close inflection the light stemmer missed
        i = norm.find(stem_, i + 1)
    if len(out) < 50 and term.word.isascii() and len(stem_) > STEM_MIN:
        out += _shorter_hits(norm, stem_)
    if term.word.isascii():  # "temp." for "temperature": written short (``ABBREVIATED_WEIGHT``)
        out += [(at, ABBREVIATED_WEIGHT) for at in abbreviated_at(norm, term.word)]
    return out


#: The shortest stem a word of the text may have to meet a longer query word (``_shorter_hits``).
STEM_MIN = 4


def _shorter_hits(norm: str, stem_: str) -> list[tuple[int, float]]:
    """Words whose stem the query word's stem extends by at most three letters ("stored", stem
    "stor", for "storage"): the same close inflection as above, seen from the other side."""
    out: list[tuple[int, float]] = []
    head = stem_[:STEM_MIN]
    i = norm.find(head)
    while i >= 0 and len(out) < 50:
        j = i + STEM_MIN
        while j < len(norm) and is_word_char(norm[j]):
            j += 1
        found = norm[i:j]
        if (i == 0 or not is_word_char(norm[i - 1])) and not found.startswith(stem_):
            short = stem(found)
            if len(short) >= STEM_MIN and stem_.startswith(short) and len(stem_) - len(short) <= 3:
                out.append((i, EMBEDDED_WEIGHT * 2))
        i = norm.find(head, i + 1)
    return out


def _cjk_hits(norm: str, term: str) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    i = norm.find(term)
    while i >= 0 and len(out) < 50:
        out.append((i, 1.0))
        i = norm.find(term, i + 1)
    return out


def _stand_in_terms(terms: Sequence[Term], found: Sequence[StandIn]) -> list[tuple[StandIn, list[int]]]:
    """Each stand-in (``acronyms.stand_ins``) with the numbers of the query's terms it stands for: the acronym's
    word, or the terms inside the full term (a Chinese term's bigrams, an English term's words)."""
    out = []
    for si in found:
        if si.said_short:
            ks = [k for k, t in enumerate(terms) if not t.cjk and t.word in (si.said, si.said + "s")]
        elif si.cjk:
            ks = [k for k, t in enumerate(terms) if t.cjk and t.text in si.said]
        else:
            words = si.said.split()
            stems = {stem(w) for w in words}
            ks = [k for k, t in enumerate(terms) if not t.cjk and (t.word in words or t.text in stems)]
        if ks:
            out.append((si, ks))
    return out


#: Characters that glue Chinese words together (的 of possession, 了 of aspect, 之 of classical possession): a
#: bigram holding one and lying in no word of the query (价的, 的方 of "评价的方法") is a cut across two words.
_PARTICLES = frozenset("的了之")
#: The ordinal prefix of a number (第6.3.2.4条, 第3章): a place naming the clause "6.3.2.4" holds what is asked.
_ORDINAL = "第"


def _cut(term: Term, words: Sequence[str]) -> bool:
    """Whether ``term`` is no word a place must hold (``QueryTerms.holds_all``): a lone ordinal prefix, or, when the
    dictionary read the query's words (``words``), a bigram across a particle inside none of them ("评价的方法":
    价的, 的方; "目的" is a word and stays)."""
    if not term.cjk:
        return False
    if term.text == _ORDINAL:
        return True
    return bool(words) and len(term.text) == 2 and not _PARTICLES.isdisjoint(term.text) \
        and not any(term.text in w for w in words)


#: Least share of a query's CJK bigrams the document must hold before its absent ones weigh 0.
ABSENT_SHARE = 1 / 3


class QueryTerms:
    """A query's content terms weighted by rarity in one document."""

    def __init__(self, query: str, df: Mapping[str, int], n: int, defined: Sequence[Definition] = (),
                 words: Sequence[str] = ()) -> None:
        """Terms of ``query`` weighted by ``df`` (paragraphs holding each token) over ``n`` paragraphs;
        ``defined``: the document's acronyms (``TextDocument.defined``), whose other form stands in for a term;
        ``words``: the query's Chinese words by the dictionary (``cjkwords.query_words``)."""
        self.terms = content_terms(query)
        self.stand_ins = _stand_in_terms(self.terms, stand_ins(normalize(query), defined)) if defined else []
        # A term no paragraph of this document holds weighs nothing: it cannot tell the
        # paragraphs apart, and counted in the total it would make every paragraph look like a
        # semantic match (a Chinese question's bigrams across word boundaries, 个标 or 了这,
        # are rarely in the text; idf would give them the most weight of all).
        # (CJK bigrams only: the document's tokens hold every bigram of its text, while a Latin
        # term's frequency is approximated over its inflections and a lone CJK character's is
        # not counted.)
        # Only when the document holds a fair share of the query's bigrams (ABSENT_SHARE): a
        # question with one common word in the document (标准 of 冷却水泵的额定功率标准) is off
        # topic, and its absent bigrams keep their weight so that it still reads as semantic.
        # Where they weigh nothing, the query's words the dictionary reads and the document lacks
        # whole weigh still (``words``: ``cjkwords.query_words``): a place holding two of four words is not exact.
        freq = [self._df(df, t) for t in self.terms]
        bigrams = [f for t, f in zip(self.terms, freq, strict=True) if t.cjk and len(t.text) == 2]
        drop_absent = bool(bigrams) and sum(1 for f in bigrams if f) >= ABSENT_SHARE * len(bigrams)
        self.weights = [0.0 if drop_absent and t.cjk and len(t.text) == 2 and not f
                        else math.log((n + 1.0) / (f + 0.5))
                        for t, f in zip(self.terms, freq, strict=True)]
        if drop_absent and words:  # a word of the dictionary none of whose bigrams the document holds is asked
            # all the same (卵巢, 检测 over a document holding 遗传 and 方法): weighed as an absent Latin word
            at = {t.text: k for k, t in enumerate(self.terms)}
            for w in words:
                if any(w[i:i + 2] in df for i in range(len(w) - 1)):
                    continue
                if w in at:  # a word of two characters: its bigram, weighed again
                    self.weights[at[w]] = math.log((n + 1.0) / 0.5)
                else:
                    self.terms.append(Term(w, True))
                    self.weights.append(math.log((n + 1.0) / 0.5))
                    freq.append(0)
        self.total = sum(self.weights)
        #: whether this document holds each term somewhere (``holds_all(present_only=True)``)
        self.present = [bool(f) for f in freq]
        #: the terms that are cuts, no words (``_cut``): a place holding every other term holds the query's words
        self.cuts = [_cut(t, words) for t in self.terms]

    @staticmethod
    def _df(df: Mapping[str, int], term: Term) -> int:
        if term.cjk:
            return df.get(term.text, 0)
        if not term.text.isalnum() and term.text == term.word:  # "p/e": no token, its rarest piece bounds it
            return min(df.get(piece, 0) for piece in re.split(r"[/&.]", term.text))
        # Latin: the most frequent inflection approximates the stem's paragraph frequency
        if not term.text.isascii():  # Russian: over its endings
            return max(df.get(term.text + suf, 0) for suf in ("", *RU_ENDINGS))
        return max(df.get(term.text + suf, 0) for suf in ("", "e", *_SUFFIXES))

    def __bool__(self) -> bool:
        return bool(self.terms) and self.total > 0

    def hits(self, norm: str) -> list[tuple[int, int, float]]:
        """``(term number, position, weight)`` of each term occurrence in normalised text; a term written
        as the other form the document defines for it too (``ACRONYM_WEIGHT``; ``ACRONYM_ALONE`` when that is
        all the text holds of the query)."""
        own, other = self._hits(norm)
        if other and not own:
            return [(k, pos, min(w, ACRONYM_ALONE)) for k, pos, w in other]
        return own + other

    def _hits(self, norm: str) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float]]]:
        """The hits of the query's own words, and those of the other forms the document defines for them."""
        out: list[tuple[int, int, float]] = []
        for k, t in enumerate(self.terms):
            for pos, w in _cjk_hits(norm, t.text) if t.cjk else _word_hits(norm, t):
                out.append((k, pos, w))
        other = [(k, pos, ACRONYM_WEIGHT) for stand_in, ks in self.stand_ins
                 for pos in written_at(norm, stand_in) for k in ks]
        return out, other

    def holds_all(self, norm: str, *, present_only: bool = False, words_only: bool = False) -> bool:
        """Whether ``norm`` holds every term that weighs (each the document holds somewhere); the other form
        the document defines for a term counts only beside another of the query's words as written.
        ``present_only``: a Latin term no paragraph of the document holds is not asked for (no place of this
        document could hold it); ``words_only``: only the Latin words are asked for (a Chinese query's bigrams
        across its words' boundaries, 对核 or 价是, are no words a place must hold)."""
        if not self:
            return False
        own, other = self._hits(norm)
        held = {k for k, _pos, _w in own}
        if held:
            held |= {k for k, _pos, _w in other}
        return all(k in held for k, w in enumerate(self.weights)
                   if w > 0 and (self.present[k] or not present_only) and not (words_only and self.terms[k].cjk)
                   and not self.cuts[k])

    def score(self, norm: str) -> float:
        """Weighted share of the terms ``norm`` holds (0..1) plus up to ``CLUSTER_BONUS``."""
        if not self:
            return 0.0
        hits = self.hits(norm)
        if not hits:
            return 0.0
        best = [0.0] * len(self.terms)
        for k, _pos, w in hits:
            best[k] = max(best[k], w)
        share = sum(b * self.weights[k] for k, b in enumerate(best)) / self.total
        return share + CLUSTER_BONUS * self._cluster(hits) * share

    def _cluster(self, hits: Sequence[tuple[int, int, float]]) -> float:
        """The largest weighted share of distinct terms within ``CLUSTER_CHARS`` characters."""
        if len(self.terms) < 2:
            return 1.0
        ordered = sorted(hits, key=lambda h: (h[1], h[0]))
        return max(w for w, _lo, _hi in self._windows(ordered)) / self.total

    def _windows(self, ordered: Sequence[tuple[int, int, float]]) -> Iterator[tuple[float, int, int]]:
        """For each hit of ``ordered`` (by position), the weight of the distinct terms in the
        window of ``CLUSTER_CHARS`` characters ending there, with the window's first and last hit."""
        lo = 0
        counts: dict[int, int] = {}
        for hi, (k, pos, _w) in enumerate(ordered):
            counts[k] = counts.get(k, 0) + 1
            while pos - ordered[lo][1] > CLUSTER_CHARS:
                k0 = ordered[lo][0]
                counts[k0] -= 1
                if not counts[k0]:
                    del counts[k0]
                lo += 1
            yield math.fsum(self.weights[t] for t in counts), lo, hi

    def span(self, norm: str) -> tuple[int, int] | None:
        """The character span of the densest cluster of term occurrences in ``norm``."""
        hits = sorted(self.hits(norm), key=lambda h: (h[1], h[0]))
        if not hits:
            return None
        best: tuple[float, int, int] = (-1.0, 0, 0)
        for window in self._windows(hits):
            if window[0] > best[0] + 1e-12:  # the first of equal windows
                best = window
        _, lo, hi = best
        start = hits[lo][1]
        last_k, last_pos = hits[hi][0], hits[hi][1]
        end = last_pos + len(self.terms[last_k].text)
        if not self.terms[last_k].cjk:
            while end < len(norm) and is_word_char(norm[end]):
                end += 1
        return start, max(end, start + 1)
