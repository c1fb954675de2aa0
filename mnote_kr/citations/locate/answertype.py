"""A place claimed exact holds the kind of answer the question asks, when its file shows that kind anywhere.

"How often is the periodic safety review done and how long does each one take?" over a Chinese standard was cited
exact on its term line "定期安全评价 periodic safety review" (nc21c problem 1): the line holds every content word of
the question and nothing of what it asks, a frequency and a duration. The answer, "核电厂PSR通常每10年左右开展一次，
每次持续4年左右时间", stood elsewhere in the file.

The rule: the question word says what kind of answer it asks (``cues.answer_types``: a year or date, an amount, a
percentage, a frequency, a duration, a count of a thing ...). When some body paragraph of the file holds that kind
(its pattern occurs there, or it says it in words: "以规定的时间间隔" for how often), a claimed place holding none of
the kinds asked is approximate, and the first place behind it (``Match.runners_up``, best first; one saying it with a
number before one saying it in words) holding one of them and a word of the question
(any place of the body, for a question written in the other script than the file's body: it can hold none) takes
its place, exact only when it holds what the question asks, as any place chosen over the evidence's. A question
asked as written (the query verbatim in the place) keeps its place, a which-question (哪几类: which kinds, a list)
asks no count, and a short phrase search (fewer than
``MIN_TERMS`` terms: "how long") asks no kind. A file that shows none of the kinds anywhere keeps its claims: its
answer is written some other way, or not at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from mnote_kr.citations.caches.memo import HolderMemo
from mnote_kr.citations.locate.otherscript import other_script
from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.rank.cues import answer_types, holds_type
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

__all__ = ["MIN_TERMS", "TYPED_BEHIND", "TYPES_APPROXIMATE", "WRITTEN_HOLDS", "kind_answered", "typed_behind",
           "without_untyped_claim"]

#: A claimed place holding none of the answer kinds the question asks, which the file shows elsewhere, is
#: approximate, and a place behind it holding one leads (False: claimed by its words alone, as before round 22).
TYPES_APPROXIMATE = True
#: A passage's place holding the kind of answer asked is among the places behind one holding none (``typed_behind``;
#: False: the passage's places behind by words and meaning alone, as before round 25).
TYPED_BEHIND = True
#: In a file written in the other language than the question, a place written in the question's holding its words
#: gives way on the kind it lacks only to a place behind holding or saying a word of the question (``saidacross``;
#: False: to any place behind, as before round 30).
WRITTEN_HOLDS = True
#: Fewest terms of the query (``QueryTerms``) for it to ask a kind of answer: a phrase search asks none.
MIN_TERMS = 2

#: How a reason names each kind of answer (a count is named by its thing).
_KIND_NAMES = {"date": "date", "money": "amount", "percent": "percentage", "frequency": "frequency",
               "duration": "duration", "distance": "distance", "size": "size", "speed": "speed or rate",
               "ratio": "ratio"}

_MEMO: HolderMemo[tuple[str, ...]] = HolderMemo(16)
#: How :func:`without_untyped_claim`'s reason begins after ``SEMANTIC: ``, for :func:`kind_answered`.
_UNTYPED = "it holds the question's words, not the "


def kind_answered(reason: str, query: str, text: str) -> str | None:
    """The kind of answer (its name: "duration") ``text`` holds of those ``query`` asks, when ``reason`` is this
    module's (a place made approximate for lacking the kind asked); else None. A locator that moves such a place to
    another in the same record (the cell of a table row under the header the query names: ``15个工作日`` under 周期
    for "检测周期是多少") gives that cell its claim back when it holds what was lacked."""
    if not reason.startswith(f"{SEMANTIC}: {_UNTYPED}"):
        return None
    q = normalize(query or "").strip()
    norm = normalize(text or "")
    kind = next((t for t in answer_types(q) if holds_type(t, norm, worded=True)), None)
    return None if kind is None else _KIND_NAMES.get(kind) or (f"count of {kind[6:]}" if kind[6:] else "number")


def _body(para: TextParagraph) -> bool:
    return bool(para.tokens) and not para.in_toc and not para.heading_level


def _shown(doc: TextDocument[P], types: tuple[str, ...]) -> tuple[str, ...]:
    """The kinds of ``types`` some body paragraph of ``doc`` holds, found once per document (the memo holds the
    document, so its ``id`` is not reused while remembered)."""
    return _MEMO.get((id(doc), types), doc, lambda: tuple(
        t for t in types if any(_body(p) and holds_type(t, p.norm, worded=True) for p in doc.paragraphs)))


def without_untyped_claim(doc: TextDocument[P], match: Match, query: str,
                          passage: Callable[[], Sequence[int]] | None = None) -> Match:
    """``match`` made approximate when its place holds none of the answer kinds the question asks that the file
    shows (module docstring); the first place behind it holding one and a word of the question leads, else the
    paragraph of the provider's passage (``passage()``: their indices) nearest it doing so. Unchanged when already
    approximate, holding the query as written, or the query asks no kind."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if not TYPES_APPROXIMATE or para is None or not q or match.reason.startswith(SEMANTIC) or q in para.norm:
        return match
    # a which-question (哪几类, 哪个…多少) asks a name or a list first: no count kind is claimed on it
    types = tuple(t for t in answer_types(q) if not (t.startswith("count:") and "哪" in q))
    if not types:
        return match
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q))
    if len(qt.terms) < MIN_TERMS:
        return match
    shown = _shown(doc, types)
    if not shown or any(holds_type(t, para.norm, worded=True) for t in shown):
        return match
    kinds = " or ".join(_KIND_NAMES.get(t) or (f"count of {t[6:]}" if t[6:] else "number") for t in shown)
    across = other_script(doc, q)
    said = across and WRITTEN_HOLDS and _written_in_question(q, para)
    if said:
        # a place written in the question's language holding its words, in a file written in the other: a place
        # behind takes its place on the kind it states only saying a word of the question too (nc30a: the English
        # "Tubeless tyres need fresh sealant every three to four months" took the Chinese paragraph's place, 自行车
        # 链条每骑行大约三千公里就应该检查一次磨损, for "自行车链条多久检查一次磨损": a frequency of another thing)
        across = False
    asked = [r for r in match.runners_up if r.paragraph is not None and _body(r.paragraph)
             and (across or _asks_word(q, qt, r.paragraph, said))]
    # one saying it with a number ("每10年") before one saying it in words ("以规定的时间间隔")
    lead = next((r for worded in (False, True) for r in asked if r.paragraph is not None
                 and any(holds_type(t, r.paragraph.norm, worded=worded) for t in shown)), None)
    if lead is None and passage is not None:
        # the passage's paragraph beside the place saying it ("BASIC REQUIREMENT: Must type 40 words per minute"
        # two above the paragraph holding "Program Support Assistant", nc23a Q4), when no place behind it does
        lead = _in_passage(doc, match, passage(), shown, qt, across, q if said else "")
    if lead is None:
        return dataclasses.replace(match, reason=f"{SEMANTIC}: {_UNTYPED}{kinds} it asks, which the file shows "
                                                 "elsewhere")
    place = lead.paragraph
    assert place is not None
    if q in place.norm or qt.holds_all(place.norm):
        why = f"placed by meaning among the places behind the evidence's: it holds the {kinds} the question asks"
    else:
        why = (f"{SEMANTIC}: placed by meaning among the places behind the evidence's: it holds the {kinds} the "
               "question asks, not all of its words")
    own = dataclasses.replace(match, reason=f"{SEMANTIC}: {_UNTYPED}{kinds} it asks",
                              runners_up=())
    behind = (own, *(r for r in match.runners_up if r is not lead))
    return Match(place, match.score, qt.span(place.norm), why, match.anchor, lead.meaning, behind)


def _written_in_question(query: str, para: TextParagraph) -> bool:
    """Whether ``para`` is written in ``query``'s script (``otherscript.WRITTEN_IN`` of its text)."""
    from mnote_kr.citations.locate.otherscript import WRITTEN_IN, _amounts, _script, _share_of

    script = _script(query)
    return script is not None and _share_of(_amounts(para.text), script) >= WRITTEN_IN


def _asks_word(query: str, qt: QueryTerms, para: TextParagraph, said: bool = False) -> bool:
    """Whether ``para`` holds a word of the question as written, or (``said``) says one in its own language
    (``saidacross``)."""
    if any(qt.weights[k] > 0 for k, _pos, _w in qt.hits(para.norm)):
        return True
    if not said:
        return False
    from mnote_kr.citations.locate.saidacross import question_words, said_words

    words = question_words(query)
    return bool(words and said_words(query, para.text, words))


def typed_behind(doc: TextDocument[P], query: str, order: Sequence[int], within: int) -> list[int]:
    """``order`` (paragraph indices of a passage's places, best first) with, when the question asks a kind of answer
    (``cues.answer_types``) the first place holds none of, the first of the others holding one (with a number) moved
    to be the last of the ``within`` places behind it, if it stands further back: a passage's place stating the date or
    count asked is offered behind a place naming its subject, for the file's places to be weighed on it
    (``folding.TYPE_LEADS``). A Japanese call for tenders' heading "８．企画提案書等の提出期限" held the question's
    words and the highest cosine, "（１）提出期限" and a clause came behind it, and the date line right under them,
    "平成３０年１０月１１日（木）午後５時まで", was no place at all (nc25b Q10)."""
    q = normalize(query or "").strip()
    if not TYPED_BEHIND or within < 1 or len(order) <= within + 1 or not q:
        return list(order)
    types = tuple(t for t in answer_types(q) if not (t.startswith("count:") and "哪" in q))
    paras = doc.paragraphs
    if not types or any(holds_type(t, paras[order[0]].norm) for t in types):
        return list(order)
    typed = next((i for i in order[within + 1:] if _body(paras[i]) and any(holds_type(t, paras[i].norm)
                                                                           for t in types)), None)
    if typed is None or any(holds_type(t, paras[i].norm) for i in order[1:within + 1] for t in types):
        return list(order)
    rest = [i for i in order if i != typed]
    return [*rest[:within], typed, *rest[within:]]


def _in_passage(doc: TextDocument[P], match: Match, indices: Sequence[int], shown: tuple[str, ...], qt: QueryTerms,
                across: bool, said: str = "") -> Match | None:
    """The body paragraph of ``indices`` (the provider's passage) nearest ``match``'s holding one of the kinds
    ``shown`` with a number and a word of the question (any word, for a question in the other script; ``said``, the
    question, when its words said in the place's language count: ``WRITTEN_HOLDS``), as a place behind ``match``;
    None when none does."""
    here = match.paragraph.index if match.paragraph is not None else 0
    paras = doc.paragraphs
    for i in sorted((i for i in indices if 0 <= i < len(paras) and i != here), key=lambda i: (abs(i - here), i)):
        para = paras[i]
        if _body(para) and any(holds_type(t, para.norm) for t in shown) \
                and (across or _asks_word(said, qt, para, bool(said))):
            return Match(para, match.score, qt.span(para.norm), match.reason, match.anchor, None, ())
    return None
