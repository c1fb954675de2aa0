"""A question in one script over a file written in the other: meaning chooses the place, not a stray line's words.

An English question over a Chinese standard whose cover holds one English line ("Guideline of periodic safety
review for nuclear power plants— Part 6: Actual condition of structures, systems and components") cited that
line first (nc20a Q6, Q7, Q10) and pushed the Chinese paragraph that answers out of the first three places. The
line wins twice over, and neither says it answers: it holds a few of the question's common words ("review",
"components", "plant"), which weigh much in this file only because its body is written in another script (no
other paragraph holds an English word); and the embedding model finds text in the question's own language
nearer than any translation, so its cosine is the file's highest too.

The rule, when the question is written in one script (CJK, or Latin without CJK) and the file's body in the other
(``MINORITY_SHARE``), for the places written in the question's script: their share of the question's words counts
only when they hold them all (or the question as written), and their cosines are lowered by how much nearer the
question that script's places of this file stand, on average, than the body's (the language's pull, measured on
the file). Places close in meaning in the body's language then decide; a body paragraph keeps the words it holds
(an English term inside a Chinese paragraph, "差异项 difference", says where the answer is).

Places that are not paragraphs (a PDF's text blocks) get the same lowering through ``nearest_across``
(``plugin_api.nearest_places_across``): the file's places nearest the question with the pull taken out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence

from mnote_kr.citations.caches.memo import HolderMemo
from mnote_kr.citations.locate.textdoc import P, TextDocument
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import CJK_CLASS, CJK_FIRST, lazy_compile

__all__ = ["ACROSS_LANGUAGES", "MINORITY_SHARE", "WORDY", "WRITTEN_IN", "across_languages", "nearest_across",
           "other_script", "without_pull"]

#: Words count only when all are held, and the question's script's pull is taken out of the cosines, for a question
#: in the other script than the file's body (False: words and cosines as they are, before round 20).
ACROSS_LANGUAGES = True
#: The file's body is in the other script when at most this share of its text is in the question's.
MINORITY_SHARE = 0.2
#: A place is written in the question's script when at least this share of its text is.
WRITTEN_IN = 0.8
#: The least text (``_amounts`` units: three Latin words, six CJK characters) a place needs to tell its language's pull.
WORDY = 6

_CJK_RE = lazy_compile(rf"[{CJK_CLASS}]")
#: A Latin word as a language's: three letters or more, one of them lower-case ("XX", "NB/T", "ICS" are codes).
_LATIN_WORD_RE = lazy_compile(
    r"(?<![A-Za-z\u00c0-\u024f])(?=[A-Za-z\u00c0-\u024f]*[a-z\u00df-\u024f])[A-Za-z\u00c0-\u024f]{3,}"
    r"(?![A-Za-z\u00c0-\u024f])")


def _amounts(text: str) -> tuple[int, int]:
    """How much of ``text`` is CJK and how much Latin, in comparable units (a CJK character each; a Latin word
    counts as two, the characters of a Chinese word). Why not ``neutral.han_share`` or the LightRAG plugin's
    ``crossquery.language``: docs/embeddings.md, "Three measures of a text's script"."""
    cjk = len(_CJK_RE.findall(text)) if text and max(text) >= CJK_FIRST else 0
    return cjk, 2 * len(_LATIN_WORD_RE.findall(text))


def _script(text: str) -> str | None:
    """"cjk" for a text holding CJK, "latin" for one holding Latin words and no CJK, else None."""
    return _script_of(_amounts(text))


def _script_of(amounts: tuple[int, int]) -> str | None:
    cjk, latin = amounts
    return "cjk" if cjk else "latin" if latin else None


def _share_of(amounts: tuple[int, int], script: str) -> float:
    cjk, latin = amounts
    total = cjk + latin
    return (cjk if script == "cjk" else latin) / total if total else 0.0


#: The last documents' paragraph amounts (``_amounts`` of each): every locate of a cached model asks for them, and
#: counting a long file's scripts again each time (1,175 paragraphs: ~25 ms a place) was work done per citation.
_MEMO: HolderMemo[list[tuple[int, int]]] = HolderMemo(16)


def _remembered(key: Hashable, holder: object, texts: Callable[[], Sequence[str]]) -> list[tuple[int, int]]:
    """``_amounts`` of each of ``texts()``, counted once per ``key`` while ``holder`` is the one remembered with it
    (a document: the memo holds it, so its ``id`` is not reused while remembered; None for a places key, a
    content hash)."""
    return _MEMO.get(key, holder, lambda: [_amounts(text) for text in texts()])


def _paragraph_amounts(doc: TextDocument[P]) -> list[tuple[int, int]]:
    """``_amounts`` of each of ``doc``'s paragraphs, counted once per document (the model is immutable once made)."""
    return _remembered(id(doc), doc, lambda: [p.text for p in doc.paragraphs])


def across_languages(doc: TextDocument[P], query: str, qt: QueryTerms, words: Mapping[int, float],
                     cos: Mapping[int, float], cosines: Callable[[list[int]], dict[int, float] | None],
                     holds: Callable[[int], bool]) -> tuple[dict[int, float], dict[int, float]]:
    """``words`` and ``cos`` of the candidate places (module docstring) when ``query`` is written in the other
    script than ``doc``'s body; else unchanged. ``cosines(indices)``: the question's cosine with the file's
    places; ``holds(i)``: place ``i`` holds the question (as written, or every term of it)."""
    amounts = _paragraph_amounts(doc)
    script = _other_script(amounts, query)
    if script is None or not qt:
        return dict(words), dict(cos)
    # a line in the question's script (the cover's subtitle, a reference) keeps its words only holding them all;
    # the body's places keep theirs (an English term inside a Chinese paragraph, "差异项 difference", is a cue)
    kept = {i: w if holds(i) or _share_of(amounts[i], script) < WRITTEN_IN else 0.0 for i, w in words.items()}
    return kept, _lowered(amounts, script, cos, cosines)


def other_script(doc: TextDocument[P], query: str) -> bool:
    """Whether ``query`` is written in the other script than ``doc``'s body (module docstring): its places can hold
    none of the question's words."""
    return _other_script(_paragraph_amounts(doc), query) is not None


def without_pull(doc: TextDocument[P], query: str, cos: Mapping[int, float],
                 cosines: Callable[[list[int]], dict[int, float] | None]) -> dict[int, float]:
    """``cos`` (place index to cosine) with the pull of the question's script taken out of the places written
    in it, when ``query`` is written in the other script than ``doc``'s body (module docstring); else unchanged.
    The file's places nearest the question by meaning (outside the cited passage) are chosen on these: the
    English cover line of a Chinese DOCX was the file's nearest and the host showed it first (nc20c R3)."""
    amounts = _paragraph_amounts(doc)
    script = _other_script(amounts, query)
    return dict(cos) if script is None else _lowered(amounts, script, cos, cosines)


def nearest_across(key: str, query: str, k: int, texts: Callable[[], Sequence[str]]) -> dict[int, float]:
    """The ``k`` places of ``key`` nearest ``query`` by meaning, best first, with their cosines, the pull of the
    question's script taken out of the places written in it when ``query`` is written in the other script than
    the file's body (module docstring); else ``meaning.nearest``'s. ``texts()``: the places' texts (those of
    ``key``, in order), read only when the file's script amounts are not remembered. ``plugin_api
    .nearest_places_across``: a PDF's English cover line was the nearest of a Chinese file's text blocks for an
    English question, by its language alone."""
    from mnote_kr.citations.rank import meaning

    if k <= 0:
        return {}
    amounts = _remembered(key, None, texts)
    script = _other_script(amounts, query)
    # most files written in the other script hold no place of some words in the question's: no pull to take out
    if script is None or not any(_telling(a, script) for a in amounts):
        return meaning.nearest(key, query, k)
    every = meaning.cosines(key, query, range(len(amounts))) or {}
    pull = _pull(amounts, script, every)
    if pull <= 0:
        return meaning.nearest(key, query, k)
    lowered = {i: c - pull if _share_of(amounts[i], script) >= WRITTEN_IN else c for i, c in every.items()}
    return dict(sorted(lowered.items(), key=lambda t: (-t[1], t[0]))[:k])


def _other_script(amounts: list[tuple[int, int]], query: str) -> str | None:
    """The question's script when the rule is on and the body (the places' ``amounts``) is written in the other;
    else None."""
    script = _script(query)
    if not ACROSS_LANGUAGES or script is None:
        return None
    # the body's amounts are its paragraphs' summed (no Latin word or CJK character spans two paragraphs)
    body = (sum(a[0] for a in amounts), sum(a[1] for a in amounts))
    return None if _share_of(body, script) > MINORITY_SHARE else script


def _lowered(amounts: list[tuple[int, int]], script: str, cos: Mapping[int, float],
             cosines: Callable[[list[int]], dict[int, float] | None]) -> dict[int, float]:
    """``cos`` lowered, for the places written in ``script`` (of the file's places' ``amounts``), by how much
    nearer the question they stand on average than the body's places (measured on the whole file); unchanged
    without such a pull."""
    pull = _pull(amounts, script, cosines(list(range(len(amounts)))) or {})
    if pull <= 0:
        return dict(cos)
    return {i: c - pull if _share_of(amounts[i], script) >= WRITTEN_IN else c for i, c in cos.items()}


def _telling(amounts: tuple[int, int], script: str) -> bool:
    """Whether a place of these ``amounts`` is written in ``script`` with words enough to tell its language's pull
    ("NB/T 20XX", a code, says little of a language)."""
    return _share_of(amounts, script) >= WRITTEN_IN and sum(amounts) >= WORDY


def _pull(amounts: list[tuple[int, int]], script: str, every: Mapping[int, float]) -> float:
    """How much nearer the question the file's places written in ``script`` stand on average than the body's, by
    the cosines ``every`` of the file's places; 0 when either side has none."""
    own = [c for i, c in every.items() if _telling(amounts[i], script)]
    other = [c for i, c in every.items() if _script_of(amounts[i]) not in (None, script)]
    if not own or not other:
        return 0.0
    return math.fsum(own) / len(own) - math.fsum(other) / len(other)
