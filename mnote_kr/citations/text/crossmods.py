"""A Chinese question's modifier a Latin place lacks, read through the dictionary.

"2022年海水鸭观测到多少只？" over a workbook whose row reads "2022, Freshwater Ducks: 170" was cited exact (nc21a
Q14): the row holds the year asked, and the English modifier rule (``locate.modifiers``) reads Latin words only.
The question's 海水 (seawater) stands right before 鸭 (duck), which the row holds ("Ducks"): a modifier and its
head. A place holding the head and none of the modifier's senses (``crosslang.meanings``, every sense of every
entry) lacks what tells the asked thing from its neighbours: its claim is approximate. "2024年淡水鸭" keeps
"Freshwater Ducks" (淡水: "fresh water", written as one word there).

``held_words`` reads the other way: the question's Chinese words a Latin place says in English (one synonym of one
sense, ``crosslang.synonyms``), what the weak rule (``noresults``) counts for a question asked across languages;
``said_in_chinese`` the English question's words a Chinese place says (爸爸 "dad";
"organisation" read as "organization"); ``named_in_chinese`` where a Chinese question names a Latin header (淡水鸭 of
"Freshwater Ducks": a table's column asked across languages).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from mnote_kr.citations.text.cjkwords import FUNCTION_WORDS
from mnote_kr.citations.text.textnorm import lazy_compile, normalize

__all__ = ["american", "held_words", "named_in_chinese", "naming_words", "said_in_chinese", "unheld_modifiers"]

_CJK_RUN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def _forms(held: Collection[str]) -> set[str]:
    from mnote_kr.citations.text.crosslang import _bases

    out = set(held)
    for word in held:
        out.update(_bases(word))
    return out


def _held(word: str, forms: set[str]) -> bool:
    from mnote_kr.citations.text.crosslang import meanings

    for sense in meanings(word):
        if all(w in forms for w in sense) or "".join(sense) in forms:
            return True
    return False


def unheld_modifiers(query: str, held: Collection[str]) -> list[str]:
    """The query's Chinese words of two characters or more (no function word) written right before another word
    whose meaning ``held`` (a Latin place's tokens, lower case) holds, none of whose own senses it holds: asked
    modifiers the place lacks. Empty without the dictionary."""
    from mnote_kr.citations.text import crosslang

    try:
        gloss = crosslang.dictionary().gloss
    except (OSError, ValueError):
        return []
    forms = _forms(held)
    out: list[str] = []
    for run in _CJK_RUN.findall(normalize(query or "")):
        cut = crosslang.segment(run, gloss)
        for modifier, head in zip(cut, cut[1:], strict=False):
            if len(modifier) >= 2 and modifier not in FUNCTION_WORDS and modifier not in out \
                    and _held(head, forms) and not _held(modifier, forms):
                out.append(modifier)
    return out


def held_words(query: str, held: Collection[str]) -> list[str]:
    """The query's Chinese words (``cjkwords.query_words``: two characters or more, no function word) one of whose
    English synonyms ``held`` (a Latin place's tokens, lower case) holds, every word of it or its words written as one
    (淡水 "fresh water" in "Freshwater Ducks"; 步枪 "rifle" in "Rifles"). Empty without the dictionary."""
    from mnote_kr.citations.text.cjkwords import query_words
    from mnote_kr.citations.text.crosslang import synonyms

    forms = _forms(held)
    return [w for w in query_words(query)
            if any(all(s in forms for s in syn) or "".join(syn) in forms for syn in synonyms(w))]


def said_in_chinese(words: Sequence[str], passage: str) -> list[str]:
    """Of the English ``words`` (a question's, lower case), those a Chinese passage says: one of its headwords of two
    characters or more (``crosslang.segment``, no function word) has the word, or its dictionary form, as a whole
    synonym (``crosslang.synonyms``: 爸爸 "dad", 儿子 "son", 组织 "organization"). A British spelling is read as
    CC-CEDICT writes it, the American one (``american``: "organisation" is "organization", "centre" "center"). Empty
    without the dictionary."""
    from mnote_kr.citations.text.cjkwords import _headwords
    from mnote_kr.citations.text.crosslang import segment, synonyms

    gloss = _headwords()
    if not gloss or not words:
        return []
    said: set[str] = set()
    for run in _CJK_RUN.findall(normalize(passage)):
        for head in dict.fromkeys(segment(run, gloss)):
            if len(head) >= 2 and head not in FUNCTION_WORDS:
                said.update(syn[-1] for syn in synonyms(head) if len(syn) == 1 or (HEADS and len(syn) == 2))
    return [w for w in words if _spellings(w) & said]


#: A two-word synonym says its last word too (劳动 "physical labor" says "labor", 大雨 "heavy rain" "rain"). Measured
#: and not kept: no change on the twenty-first round's dump, but 天下 "whole world", cut from 一天下大雨 ("one day
#: it poured"), said the "world" of an off-topic "2018 football World Cup" (tests/test_weak_across.py).
HEADS = False


#: British endings and the American ones CC-CEDICT writes (its glosses are American: "labor", "color", "center").
_BRITISH = (("isation", "ization"), ("ise", "ize"), ("ised", "ized"), ("ises", "izes"), ("ising", "izing"),
            ("yse", "yze"), ("our", "or"), ("ours", "ors"), ("oured", "ored"), ("ouring", "oring"), ("tre", "ter"),
            ("tres", "ters"), ("ence", "ense"), ("ogue", "og"), ("lled", "led"), ("lling", "ling"))


def american(word: str) -> list[str]:
    """The American spellings a British-spelled ``word`` may have ("labour" -> "labor", "centre" -> "center"); [] when
    no British ending fits. A guess, never a word of its own: it is only looked up."""
    return [word[:-len(gb)] + us for gb, us in _BRITISH if word.endswith(gb) and len(word) > len(gb) + 1]


def _spellings(word: str) -> set[str]:
    """``word``, its dictionary forms (``crosslang._bases``) and their American spellings."""
    from mnote_kr.citations.text.crosslang import _bases

    forms = {word, *_bases(word)}
    return forms | {us for form in forms for us in american(form)}


def named_in_chinese(query: str, phrase: str) -> int | None:
    """Where the Chinese words of ``query`` name every word of the Latin ``phrase`` (a table's header), by one synonym
    of the dictionary each (``crosslang.synonyms``: 淡水 "fresh water" for "Freshwater", 鸭 "duck" for "Ducks"; a
    word's dictionary form and American spelling too): the start, in ``normalize(query)``, of the first Chinese word
    naming one. None when a word of the phrase is named by none, the phrase holds no Latin word, or without the
    dictionary. Words of one character count (鸭, 年): a header is named by them or not at all."""
    named = _naming(query, phrase)
    return min(at for at, _ in named.values()) if named else None


def naming_words(query: str, phrase: str) -> list[str]:
    """The Chinese words of ``query`` that name the Latin ``phrase`` (a place's header) when they name every word of
    it (``named_in_chinese``), in the query's order, each once: ["淡水", "鸭"] for "Freshwater Ducks" in
    "淡水鸭数量最多的是哪一年？"; [] when a word of the phrase is named by none (海水鸭: "seawater" is no
    "Freshwater"), or without the dictionary."""
    named = _naming(query, phrase)
    return list(dict.fromkeys(word for _, word in sorted(named.values()))) if named else []


def _naming(query: str, phrase: str) -> dict[str, tuple[int, str]] | None:
    """Each Latin word of ``phrase`` (no stop word) -> (start in ``normalize(query)``, the Chinese word) of the first
    Chinese word of ``query`` naming it, when every one is named; else None. A word names a phrase's word by one of
    its senses (``_senses``) written as that word ("fresh water" for "Freshwater") or as a run of the phrase's words
    ("long gun" for "Long Gun", "new york" for "New York")."""
    from mnote_kr.citations.text.cjkwords import _headwords
    from mnote_kr.citations.text.crosslang import _stop_words, segment

    gloss = _headwords()
    stop = _stop_words()
    wanted = [w for w in re.findall(r"[a-z]+", normalize(phrase)) if w not in stop]
    if not gloss or not wanted:
        return None
    spelled = [_spellings(w) for w in wanted]
    named: dict[str, tuple[int, str]] = {}
    for run in _CJK_RUN.finditer(normalize(query or "")):
        at = run.start()
        for word in segment(run.group(), gloss):
            if word not in FUNCTION_WORDS:
                for syn in _senses(word):
                    for i, w in enumerate(wanted):
                        if w in named:
                            continue
                        if "".join(syn) in spelled[i] or len(syn) == 1 and syn[0] in spelled[i]:
                            named[w] = (at, word)
                        elif len(syn) > 1 and all(k < len(wanted) and part in spelled[k]
                                                  for k, part in enumerate(syn, i)):
                            for k in range(i, i + len(syn)):
                                named.setdefault(wanted[k], (at, word))
            at += len(word)
    return named if len(named) == len(wanted) else None


#: Words a place name's sense holds beside the name: 德克萨斯州 "state of Texas", 纽约州 "New York state".
_PLACE_NOUNS = frozenset({"state", "province", "city", "county", "prefecture", "municipality"})


def _senses(word: str) -> list[tuple[str, ...]]:
    """The English senses ``word`` is read by when it names a header: its synonyms (``crosslang.synonyms``), each
    also without the place noun beside a name ("state of Texas" reads "Texas"), and for a word of two characters
    each pair of its characters' one-word synonyms too (手 "hand" and 枪 "gun":
    "hand gun", read "handgun" too, where the dictionary has 手枪 as "pistol" only; 长枪 "long gun", not "pike")."""
    from mnote_kr.citations.text.crosslang import synonyms

    out: dict[tuple[str, ...], None] = {}
    for syn in synonyms(word):
        out.setdefault(syn)
        if len(syn) > 1 and (bare := tuple(w for w in syn if w not in _PLACE_NOUNS)) and bare != syn:
            out.setdefault(bare)
    if len(word) == 2:
        firsts, seconds = ([s[0] for s in synonyms(ch) if len(s) == 1] for ch in word)
        for a in firsts:
            for b in seconds:
                out.setdefault((a, b))
    return list(out)
