"""The place inside a retrieved passage that answers, and the locator a match becomes.

``textmatch`` finds the paragraph a citation's evidence came from; here that match is moved to
the paragraph of the whole passage (the provider's chunk) that answers the question by words and
meaning together (``place_by_meaning``, ``with_meaning``), and turned into the honest locator a
locator plugin returns (``locator_from_match``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Sequence

from mnote_kr.citations.locate.anchors import build_anchors
from mnote_kr.citations.locate.answertype import typed_behind
from mnote_kr.citations.locate.lacking import lacked_in, lacking_reason
from mnote_kr.citations.locate.leadin import holds_query, lead_in_items, lead_in_of, place_norm
from mnote_kr.citations.locate.listitem import ASKED_ITEM, item_lead_in
from mnote_kr.citations.locate.otherscript import across_languages, without_pull
from mnote_kr.citations.locate.passages import evidence_paragraphs
from mnote_kr.citations.locate.recall import recalls as _recalls
from mnote_kr.citations.locate.saidacross import said_shares
from mnote_kr.citations.locate.textdoc import P, Scope, TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import QUERY_SHARE, SEMANTIC, THRESHOLD, Match, _aligned
from mnote_kr.citations.locate.titles import front_title as _front_title
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.labels import is_label
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import iter_tokens, normalize
from mnote_kr.models import Highlight, Locator

__all__ = ["locator_from_match", "passage_paragraphs", "place_by_meaning", "places_behind", "queue_places",
           "with_meaning", "with_places_behind", "without_heading_claim", "without_lacking_claim",
           "without_title_claim"]

#: The passage's places behind the chosen one that a locator gives (``Locator.runners_up``), best
#: first: the host shows them behind the file's other chunks' places (0: none).
RUNNERS_UP = 2
#: The file's paragraphs nearest the query by meaning, outside the passage, a locator gives behind
#: those (the provider's passage of the right file may not be the one that answers; 0: none).
FILE_WIDE = 3
#: A paragraph chosen over the evidence's own is exact only when it holds the query as written or every
#: term of it the document holds (False: when it holds ``QUERY_SHARE`` of their weight, as before round 17).
CHOSEN_HOLDS_ALL = True
#: Off by default, with ``CHUNK_BEHIND``, ``RUNNERS_COVER`` and ``textmatch.OWN_HOLDS_ALL``: the whole retrieval
#: benchmark (41 files, 381 questions, 2cd4682) with the four on read place@1 0.641 on the old tuning set against
#: 0.719 off (tune3 0.579 against 0.614), and 53 citations failed in the DOCX locator with a KeyError (a lead-in
#: folded into another's list, mended in round 20). Replayed on the 52 DOCX first citations of the tuning sets
#: (round 20), this rule alone moved every lost place; with its round-20 mends it still loses old zh03 and zh04
#: (36/52 against 38/52 off) and the other three move none. A lead-in and the list after it are one candidate
#: place (``leadin``; False: each paragraph alone).
LISTS_TOGETHER = False
#: Under a sidecar block (a ``scope``), the chunk's paragraphs outside it are places behind the block's place
#: (False: the block's paragraphs only, before round 19): a chunk spanning several blocks holds them too.
CHUNK_BEHIND = False
#: The places behind one holding some of the query's words show first those holding the others (False: by score
#: alone, before round 19).
RUNNERS_COVER = False
#: A title line of the front matter is an approximate place unless it holds the query as written
#: (:func:`without_title_claim`; False: claimed like any paragraph, as before round 17).
TITLES_APPROXIMATE = True
#: A heading the evidence matched is an approximate place unless it holds the query as written or every term of
#: it the document holds, and a place behind it under that heading holding a query word it lacks takes its place
#: (:func:`without_heading_claim`; False: a heading matched by the question's setting words is claimed exact and
#: leads, as before round 21).
HEADINGS_APPROXIMATE = True
#: A short label chosen by meaning goes behind a candidate holding a fair share of the query's words and twice its
#: own (:func:`_label_behind`; False: meaning and words alone, as before round 27).
LABELS_NAME = True
#: A label goes behind a line only as near the question by meaning as it, less this (``_label_behind``): a label
#: much nearer keeps the lead (nc27c N3's name was 0.12 nearer than the answering line). Round 29, r28's dump
#: relocated: 0.10 and 0.25 changed no question of the 229 of the tuning sets (review r29 finding 8), so it stays.
LABEL_NEARER = 0.15


def passage_paragraphs(doc: TextDocument[P], passage: str, scope: Scope | None = None,
                       threshold: float = THRESHOLD) -> list[int]:
    """The paragraphs a whole passage (a provider's chunk) quotes, in document order: the run of
    neighbours explaining most of its lines, with the unaligned paragraphs inside the run
    (short list items, table cells). Empty when no run is found."""
    ev = normalize(passage or "")
    anchors, _ = build_anchors(ev, "", None)
    idf_cache: dict[str, float] = {}
    aligned = []
    for a in anchors:
        if a.kind == "heading":
            continue
        for t in a.tokens:
            if t not in idf_cache:
                idf_cache[t] = doc.idf(t)
        rec, _ = _recalls(doc, a.tokens, idf_cache)
        if rec:
            aligned.append(_aligned(doc, a, rec))
    runs = evidence_paragraphs(doc, ev, aligned, scope, threshold)
    if not runs:
        return []
    most = max(r.lines for r in runs)
    run = min((r for r in runs if r.lines == most),
              key=lambda r: (r.gaps, -round(math.fsum(r.conf.values()), 6), min(r.conf)))
    return run.inside(doc, ev)


def place_by_meaning(doc: TextDocument[P], match: Match, passage: str, query: str,
                     cosines: Callable[[list[int]], dict[int, float] | None],
                     scope: Scope | None = None, nearest: Callable[[int], dict[int, float]] | None = None) -> Match:
    """``match`` moved to the paragraph of the passage that answers by words and meaning together.

    The candidates are the paragraphs the whole ``passage`` quotes (:func:`passage_paragraphs`)
    and the matched one; ``cosines(indices)`` gives the query's cosine with them (None: no
    vectors, the match stands). Each is scored by ``meaning.combine``: its share of the
    query's terms (``QueryTerms``) plus ``meaning.MEANING_WEIGHT`` times its meaning; a
    paragraph holding every term still wins. A match on the query as written is kept.

    The places behind it (``Match.runners_up``): the passage's next ``RUNNERS_UP``, then the file's
    ``FILE_WIDE`` paragraphs nearest the query by meaning outside the passage (``nearest(k)``: index
    to cosine, best first; not within a ``scope``), since the provider's passage of the right file
    may not be the one that answers."""
    from mnote_kr.citations.rank.meaning import combine

    q = normalize(query or "").strip()
    if match.paragraph is None or not q or match.reason.startswith("matched evidence") and q in match.paragraph.norm:
        return match
    paras = doc.paragraphs
    cands = sorted(set(passage_paragraphs(doc, passage, scope)) | {match.paragraph.index})
    cands = [i for i in cands if _placeable(paras[i])]
    wide = {i: c for i, c in (nearest(FILE_WIDE) if nearest is not None and scope is None else {}).items()
            if 0 <= i < len(paras) and i not in cands and i != match.paragraph.index and _placeable(paras[i])}
    # a question in the other script than the file's body: the question's script's pull is out of their cosines
    wide = dict(sorted(without_pull(doc, q, wide, cosines).items(), key=lambda t: (-t[1], t[0]))) if wide else wide
    outside = tuple(Match(paras[i], match.score, None, f"{SEMANTIC}: placed by meaning among the file's "
                          "paragraphs, outside the cited passage", match.anchor, c) for i, c in wide.items())
    # the chunk's paragraphs outside the sidecar block the evidence lies in: places behind, never the place
    beyond = [i for i in passage_paragraphs(doc, passage) if i not in scope and i not in cands
              and _placeable(paras[i])] if CHUNK_BEHIND and scope is not None else []
    if len(cands) < 2 and not beyond:  # nothing to choose from: the place keeps its cosine (its file's places are
        alone = cosines([match.paragraph.index])  # ordered by it), the question's script's pull out of it
        alone = without_pull(doc, q, alone, cosines) if alone else alone
        return dataclasses.replace(match, meaning=alone.get(match.paragraph.index), runners_up=outside) \
            if alone else match
    qt = QueryTerms(q, doc.df, len(paras), getattr(doc, "defined", ()), query_words(q))
    cands, lists = _with_lists(doc, cands, qt) if LISTS_TOGETHER else (cands, {})
    beyond, more = _with_lists(doc, beyond, qt) if LISTS_TOGETHER else (beyond, {})
    beyond = [i for i in beyond if i not in cands]
    lists.update({i: items for i, items in more.items() if i in beyond})
    cos = cosines(sorted(set(cands).union(beyond, *lists.values())))
    if not cos:
        return match
    words = {i: qt.score(paras[i].norm) if qt else 0.0 for i in (*cands, *beyond)}
    for i, items in lists.items():  # a lead-in and its list: one place, its words and its best-met paragraph's meaning
        words[i] = max(words[i], qt.score(place_norm(doc, paras[i], headings=False)) if qt else 0.0)
        if held := [cos[k] for k in (i, *items) if k in cos]:
            cos[i] = max(held)
    written = words  # the words each place holds as written, by the locator's rules: what its reason says it holds
    if qt:  # a question in the other script than the file's body: meaning chooses, not a stray line's words
        words, cos = across_languages(doc, q, qt, words, cos, cosines, lambda i: q in paras[i].norm or qt.holds_all(
            place_norm(doc, paras[i], headings=False) if i in lists else paras[i].norm))
    own = words
    if qt:  # a question over a passage in the other script: its words said in the passage's language are its words,
        # and a place written in the question's language holds them as written (its own script decides: nc30a)
        # (not a title line or heading: it names the subject the question's words share, it does not answer: nc17a X3)
        across = said_shares(q, {i: paras[i].text for i in words}, written={
            i for i in words if not paras[i].heading_level and not _front_title(doc, paras[i])})
        words = {i: max(w, across.get(i, 0.0)) for i, w in words.items()}
    score = combine({i: words[i] for i in cands}, cos)
    order = sorted(cands, key=lambda i: (-round(score[i], 9), i))
    if LABELS_NAME and qt:
        order = _label_behind(doc, order, own, cos)
    pick = order[0]
    if beyond:  # the places behind, the chunk's others among them, ranked together
        score = combine(words, cos)
        order = [pick, *sorted((i for i in words if i != pick), key=lambda i: (-round(score[i], 9), i))]
    if RUNNERS_COVER and qt and not holds_query(doc, paras[pick], q, qt):
        # the places behind a place holding some of the query's words first show those holding the others
        lacks = place_norm(doc, paras[pick])
        order = [pick, *sorted(order[1:], key=lambda i: (not _holds_other(qt, paras[i].norm if i not in lists else
                                                                          place_norm(doc, paras[i], headings=False),
                                                                          lacks), -round(score[i], 9), i))]
    # a place stating the kind of answer asked (a date, a count) is among them when the place chosen states none
    order = typed_behind(doc, q, order, RUNNERS_UP)
    # the places behind it (RUNNERS_UP): a file whose answer the provider returned in one chunk
    # still shows the reader the best guess and the two behind it
    runners = tuple(Match(paras[i], match.score, qt.span(paras[i].norm) if qt else None,
                          f"{SEMANTIC}: placed by meaning and query terms among the passage's paragraphs",
                          match.anchor, cos.get(i)) for i in order[1:1 + RUNNERS_UP]) + outside
    if pick == match.paragraph.index:
        return dataclasses.replace(match, meaning=cos.get(pick), runners_up=runners)
    para = paras[pick]
    # A paragraph chosen over the one the evidence matched is exact only when it holds what the question
    # asks: the query as written, or every one of its terms the document holds (precision.py: exact is
    # the block holding the evidence that answered). Holding a share of them is a choice among the
    # passage's paragraphs, an approximate place: the newcomer's 评价要点包括 (120) held the question's
    # setting, 构筑物/设备/实际状态, and not what it asks, 特性/分为/几类, which the next place held (nc17a Q10).
    # (words said in another language than the question's, ``saidacross``, choose; they claim nothing)
    if q in para.norm or (qt and qt.holds_all(place_norm(doc, para))) \
            or (not CHOSEN_HOLDS_ALL and own[pick] >= QUERY_SHARE):
        why = "placed by meaning and query terms among the passage's paragraphs"
    elif written[pick] >= QUERY_SHARE:
        why = (f"{SEMANTIC}: placed by meaning and query terms among the passage's paragraphs; it holds some of "
               "the query's words, not all")
    elif words[pick] > written[pick]:
        why = (f"{SEMANTIC}: placed by meaning and the query's words said in the passage's language among its "
               "paragraphs; it holds few of the query's words as written")
    else:
        why = f"{SEMANTIC}: placed by meaning among the passage's paragraphs; it holds few of the query's words"
    return Match(para, match.score, qt.span(para.norm) if qt else None, why, match.anchor, cos.get(pick), runners)


def without_title_claim(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` made approximate when its paragraph is a title line of the front matter
    (``titles.front_title``) that does not hold the query as written: a title names the subject the
    question's words share; it does not answer (nc17a X3: an English question about a Chinese standard
    matched its English title line, the only paragraph holding English words). Searched as written
    (the title's own words), the title is the place asked for, and stays exact."""
    para = match.paragraph
    if not TITLES_APPROXIMATE or para is None or match.reason.startswith(SEMANTIC) or not _front_title(doc, para):
        return match
    if (q := normalize(query or "").strip()) and q in para.norm:
        return match
    return dataclasses.replace(match, reason=f"{SEMANTIC}: a title line before the document's first heading "
                                             "(it names the subject, it does not answer)")


def without_heading_claim(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` on a heading that does not hold what the question asks (the query as written, or every term of
    it the document holds: ``QueryTerms.holds_all``) made approximate: a heading holding the question's setting
    words names the subject of the paragraphs under it, it does not answer (nc21b Q7: "What colour of ink must the
    visa application form be filled in with?" matched the heading "VISA APPLICATION FORM", claimed exact, while
    the instructions' "... on blue or black ink only" was a place behind). The first place behind it
    (``Match.runners_up``, best first) that sits under that heading and holds a query word the heading lacks takes
    its place, exact only when it holds what the question asks, as any place chosen over the evidence's; the
    heading is no place behind it (``_placeable``)."""
    para = match.paragraph
    if not HEADINGS_APPROXIMATE or para is None or not para.heading_level or match.reason.startswith(SEMANTIC):
        return match
    q = normalize(query or "").strip()
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q)) if q else None
    if not q or not qt or q in para.norm or qt.holds_all(place_norm(doc, para)):
        return match
    under = [r for r in match.runners_up if r.paragraph is not None and _placeable(r.paragraph)
             and para.text.strip() in (h.strip() for h in r.paragraph.heading_path)
             and _holds_other(qt, r.paragraph.norm, para.norm)]
    if not under:
        return dataclasses.replace(match, reason=f"{SEMANTIC}: a heading holding the question's setting words, "
                                                 "not what it asks (it names the subject, it does not answer)")
    lead = under[0].paragraph
    if q in lead.norm or qt.holds_all(place_norm(doc, lead)):
        why = "placed by meaning and query terms under the heading the evidence matched"
    else:
        why = (f"{SEMANTIC}: placed by meaning and query terms under the heading the evidence matched; it holds "
               "some of the query's words, not all")
    behind = tuple(r for r in match.runners_up if r is not under[0])
    return Match(lead, match.score, qt.span(lead.norm), why, match.anchor, under[0].meaning, behind)


#: How ``textmatch`` says a place is claimed by holding a share of the query's words.
_BY_SHARE = ("matched evidence holding the query terms", "matched query terms in evidence")


def without_lacking_claim(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` made approximate when it is claimed by a share of the query's words (``textmatch``) while its
    place (with its list and headings: ``place_norm``) lacks a Chinese word of the query as written
    (``cjkwords.lacked_words``), or an English question's word the document holds (``latinwords``):
    "PSR团队里需要哪几种类型的评价人员" was exact on 5.4.5, on training the 评价人员,
    which holds most of its bigrams and not 种类 (nc24a Q4); the kinds of 评价人员 are 5.4.3's. Last of
    :func:`with_meaning`'s rules, so that those moving a claimed place (``answertype``) still see it claimed."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if para is None or not q or not match.reason.startswith(_BY_SHARE) or q in para.norm:
        return match
    # a list item answers under its lead-in ("需重点关注的设备：" over "电气设备：…"), and the title's words name
    # what every place of the document is about
    lead = lead_in_of(doc, para)
    if lead is None and match.reason.endswith(ASKED_ITEM):  # a which-question's list item, under its lead-in
        lead = item_lead_in(doc, para)
    held = place_norm(doc, para) + ("\n" + lead.norm if lead is not None else "")
    # a Chinese question's words, else an English question's words the document holds elsewhere ("password" of "How
    # long must a trustee's computer password be?" on the paragraph about a trustee's computer rules, nc24b)
    lacks = lacked_in(doc, query, held, index=para.index)
    return dataclasses.replace(match, reason=lacking_reason(lacks)) if lacks else match


def _with_lists(doc: TextDocument[P], cands: list[int], qt: QueryTerms) -> tuple[list[int], dict[int, list[int]]]:
    """``cands`` with each list folded into its lead-in (``leadin``: the lead-in and its items answer together),
    the lead-in taken in when only its items are candidates; an item holding every term of the query answers
    alone and stays. A lead-in holding none of the query's words takes no list in: it adds nothing to what its
    items hold, and as their place it only took their best one's words and meaning and won the tie on document
    order ("What to Expect Next:" over the item that answers). Returns the candidates and each lead-in's items."""
    paras = doc.paragraphs
    lists: dict[int, list[int]] = {}
    for i in cands:
        lead = paras[i] if lead_in_items(doc, paras[i]) else lead_in_of(doc, paras[i])
        if lead is not None and lead.index not in lists and _placeable(lead) \
                and any(qt.weights[k] > 0 for k, _pos, _w in qt.hits(lead.norm)):
            lists[lead.index] = [p.index for p in lead_in_items(doc, lead)]
    folded = {k for items in lists.values() for k in items if not (qt and qt.holds_all(paras[k].norm))}
    # a lead-in that is itself an item of another (a form's "法定代表人：", "地址：", "开户银行：" lines, each
    # ending with a colon) is folded into the outer one's place: it is no place, and no list of its own
    lists = {i: items for i, items in lists.items() if i not in folded}
    return sorted((set(cands) | set(lists)) - folded), lists


def _holds_other(qt: QueryTerms, norm: str, lacks: str) -> bool:
    """Whether ``norm`` holds a term of the query that ``lacks`` does not."""
    held = {k for k, _pos, _w in qt.hits(lacks)}
    return any(k not in held and qt.weights[k] > 0 for k, _pos, _w in qt.hits(norm))


def _label_behind(doc: TextDocument[P], order: list[int], own: dict[int, float],
                  cos: dict[int, float] | None = None) -> list[int]:
    """``order`` with a short label chosen by meaning (``labels.is_label``, and no digit: an item's name, a table's
    row label) put behind the first candidate holding ``QUERY_SHARE`` of the query's words and twice the label's,
    and no more than ``LABEL_NEARER`` farther from the question by meaning (``cos``): a name is near every question
    about what it names. "Какое усилие удержания у замка электромагнитного?" chose the item's "Замок
    электромагнитный" (one of its words, cosine 0.72) over "Усилие удержания: 400 кг." nine paragraphs below (two,
    0.60; nc27c N3). The test is folding's but for the digit: to folding a numbered caption ("图表 1") is a label
    it need not show; here a short line stating a figure ("Voltage: 12 V") is an answer, not a name."""
    first = doc.paragraphs[order[0]]
    if own.get(order[0], 0.0) >= QUERY_SHARE or not is_label(first.text) or any(c.isdigit() for c in first.norm):
        return order
    near = (cos or {}).get(order[0])
    lead = next((i for i in order[1:] if own.get(i, 0.0) >= max(QUERY_SHARE, 2 * own.get(order[0], 0.0))
                 and (near is None or (cos or {}).get(i, -1.0) >= near - LABEL_NEARER)), None)
    return order if lead is None else [lead, *(i for i in order if i != lead)]


def _placeable(para: TextParagraph) -> bool:
    return bool(para.tokens) and not para.in_toc and not para.heading_level


def with_meaning(doc: TextDocument[P], match: Match, passage: str, query: str, scope: Scope | None = None) -> Match:
    """:func:`place_by_meaning` with the vectors ingest stored for this document's paragraphs
    (``mnote_kr.citations.rank.meaning``; the match unchanged while they do not exist), then
    ``aswritten.at_written_phrase`` (a phrase the file writes elsewhere, cited there), :func:`asked_item` (a
    which-question's list item), :func:`without_heading_claim`, :func:`without_title_claim`,
    ``modifiers.without_unasked_claim`` (a place lacking the query's modifier of a word it holds),
    ``answertype.without_untyped_claim`` (a place lacking the kind of answer the question asks),
    ``subject.without_subject_claim`` (a place holding only the words of the document's title),
    :func:`without_lacking_claim` (a place claimed by a share of a Chinese question's words, lacking one) and
    ``terms.at_definition`` (a definition question on the definition of the term it names; no term line leads)."""
    from mnote_kr.citations.locate.answertype import without_untyped_claim
    from mnote_kr.citations.locate.aswritten import at_written_phrase
    from mnote_kr.citations.locate.listitem import asked_item
    from mnote_kr.citations.locate.modifiers import without_unasked_claim
    from mnote_kr.citations.locate.subject import without_subject_claim
    from mnote_kr.citations.locate.terms import at_definition

    def cosines(idx: list[int]) -> dict[int, float] | None:  # asked only of a phrase the file writes elsewhere
        from mnote_kr.citations.rank import meaning

        return meaning.cosines(meaning.places_key([p.text for p in doc.paragraphs]), query, idx)

    if not passage or match.paragraph is None:
        return at_definition(doc, without_lacking_claim(doc, without_subject_claim(doc, without_untyped_claim(
            doc, without_unasked_claim(doc, without_title_claim(doc, without_heading_claim(
                doc, asked_item(doc, at_written_phrase(doc, match, query, cosines), query), query), query), query,
                                       cosines), query), query), query), query)
    from mnote_kr.citations.rank import meaning

    key = meaning.places_key([p.text for p in doc.paragraphs])
    placed = place_by_meaning(doc, match, passage, query, lambda idx: meaning.cosines(key, query, idx), scope,
                              lambda k: meaning.nearest(key, query, k))
    placed = at_written_phrase(doc, placed, query, lambda idx: meaning.cosines(key, query, idx))
    return at_definition(doc, without_lacking_claim(doc, without_subject_claim(doc, without_untyped_claim(
        doc, without_unasked_claim(doc, without_title_claim(doc, without_heading_claim(
            doc, asked_item(doc, placed, query), query), query), query, lambda idx: meaning.cosines(key, query, idx)),
        query, lambda: passage_paragraphs(doc, passage, scope)), query), query), query,
        lambda: passage_paragraphs(doc, passage, scope))


def places_behind(doc: TextDocument[P], chosen: int, passage: str, query: str, *,
                  keep: Callable[[P], bool] = lambda p: True,
                  group: Callable[[P], Hashable] = lambda p: p.index,
                  part: Callable[[P], Hashable] = lambda p: p.heading_path[:1],
                  ) -> tuple[float | None, list[tuple[P, float | None]]]:
    """The places behind paragraph ``chosen`` for a locator that chooses its own place (slides, sheets),
    the way :func:`place_by_meaning` gives a DOCX paragraph's (``Match.runners_up``): the passage's
    other paragraphs (:func:`passage_paragraphs`, and those it quotes whole; placeable ones that ``keep``
    takes) ranked by the
    query's words (``QueryTerms``; for a question in the other script, those they say in their language too:
    ``saidacross``) and, once ingest embedded the document's paragraphs
    (:func:`queue_places`), by meaning with them (``meaning.combine``), the best ``RUNNERS_UP``;
    then the file's ``FILE_WIDE`` paragraphs nearest the query by meaning outside them. Without vectors
    a place behind holds a query word. One place per ``group`` (the chosen's group taken): a shape, a row.
    The passage's paragraphs are those of its own ``part``s (a slide, a sheet): the chosen one's, and
    those it quotes whole, every paragraph of them (a passage of several slides).

    Returns the chosen paragraph's cosine with the query (None without vectors) and the places
    behind it, best first, each with its cosine."""
    from mnote_kr.citations.rank import meaning

    paras = doc.paragraphs
    q = normalize(query or "").strip()
    if not q or not 0 <= chosen < len(paras):
        return None, []
    key = meaning.places_key([p.text for p in paras])
    # the run the passage quotes, and the paragraphs it quotes whole (a deck's or a sheet's short
    # paragraphs often align as no run at all) in its own parts: not those of another sheet or slide
    # that happen to repeat its words ("Total", "Thank you")
    run = passage_paragraphs(doc, passage)
    said = {tok for tok, _, _ in iter_tokens(normalize(passage or ""))}
    quoted = [p.index for p in paras if p.tokens and p.tokens <= said]
    own = _own_parts(paras, chosen, quoted, part)
    cands = [i for i in sorted(set(quoted).union(run))
             if i != chosen and part(paras[i]) in own and _placeable(paras[i]) and keep(paras[i])]
    cos = meaning.cosines(key, query, [chosen, *cands]) or {}
    # a question in the other script than the file's body: the question's script's pull is out of the cosines
    cos = without_pull(doc, q, cos, lambda idx: meaning.cosines(key, query, idx)) if cos else cos
    qt = QueryTerms(q, doc.df, len(paras), getattr(doc, "defined", ()), query_words(q))
    words = {i: qt.score(paras[i].norm) if qt else 0.0 for i in cands}
    if qt and cands:  # a question over places in the other script: its words said in their language (``saidacross``)
        across = said_shares(q, {i: paras[i].text for i in cands})
        words = {i: max(w, across.get(i, 0.0)) for i, w in words.items()}
    if cos:
        score = meaning.combine(words, cos)
    else:  # by words alone: a place behind holds one of the query's words
        score = {i: w for i, w in words.items() if w > 0}
    taken = {group(paras[chosen])}
    out: list[tuple[P, float | None]] = []
    for i in sorted(score, key=lambda i: (-round(score[i], 9), i)):
        if len(out) < RUNNERS_UP and group(paras[i]) not in taken:
            taken.add(group(paras[i]))
            out.append((paras[i], cos.get(i)))
    wide = meaning.nearest(key, query, FILE_WIDE + len(cands) + 1) if FILE_WIDE else {}
    # a question in the other script than the file's body: the question's script's pull is out of their cosines
    wide = dict(sorted(without_pull(doc, q, wide, lambda idx: meaning.cosines(key, query, idx)).items(),
                       key=lambda t: (-t[1], t[0]))) if wide else wide
    inside = set(cands)
    for i, c in wide.items():
        if len(out) >= RUNNERS_UP + FILE_WIDE:
            break
        if 0 <= i < len(paras) and i not in inside and _placeable(paras[i]) and keep(paras[i]) \
                and group(paras[i]) not in taken:
            taken.add(group(paras[i]))
            out.append((paras[i], c))
    return cos.get(chosen), out


def with_places_behind(doc: TextDocument[P], located: Locator, chosen: int, passage: str, query: str,
                       to_locator: Callable[[P], Locator], *,
                       keep: Callable[[P], bool] = lambda p: True,
                       group: Callable[[P], Hashable] = lambda p: p.index,
                       part: Callable[[P], Hashable] = lambda p: p.heading_path[:1],
                       own: Sequence[Locator] = ()) -> Locator:
    """``located`` (the locator of paragraph ``chosen``) with the places behind it (:func:`places_behind`)
    as its ``runners_up``, each ``to_locator(paragraph)`` marked approximate with its cosine, and its own
    cosine with the query; ``located`` itself when there are none.

    ``own``: other places inside the chosen paragraph (a row's other cells), best first: they come first,
    approximate, with the paragraph's cosine (the place embedded is the paragraph), and the places behind
    fill the rest of ``RUNNERS_UP + FILE_WIDE``, so a locator gives no more places than any other."""
    import msgspec

    cos, behind = places_behind(doc, chosen, passage, query, keep=keep, group=group, part=part)
    score = round(cos, 6) if cos is not None else None
    runners = [msgspec.structs.replace(loc, locator_degraded=True, meaning_score=score) for loc in own]
    runners += [msgspec.structs.replace(to_locator(para), locator_degraded=True,
                                        meaning_score=round(c, 6) if c is not None else None) for para, c in behind]
    if not runners and cos is None:
        return located
    return msgspec.structs.replace(located, runners_up=runners[:RUNNERS_UP + FILE_WIDE], meaning_score=score)


def _own_parts(paras: list[P], chosen: int, quoted: list[int], part: Callable[[P], Hashable]) -> set[Hashable]:
    """The parts (slides, sheets) that are the passage's: the ``chosen`` paragraph's, and those whose every
    placeable paragraph it quotes whole (``quoted``). Not any other part that the run the passage aligns
    with touches: a repeated row ("Total | 150 | 175") aligns with its first copy, in another sheet."""
    own = {part(paras[chosen])}
    said = set(quoted)
    whole: dict[Hashable, bool] = {}
    for p in paras:
        if _placeable(p):
            key = part(p)
            whole[key] = whole.get(key, True) and p.index in said
    return own | {key for key, all_said in whole.items() if all_said}


def queue_places(doc: TextDocument[P]) -> None:
    """Ask ingest to embed this document's paragraphs (a locator's ``prepare_locate``)."""
    from mnote_kr.citations.rank import meaning

    meaning.queue([p.text for p in doc.paragraphs])


def lead_in_text(doc: TextDocument[P], para: TextParagraph) -> str:
    """``para``'s text; for a lead-in paragraph (ending with a colon: "维修评价方法包括：") followed by
    the paragraphs it introduces (``leadin.lead_in_items``: its list items, where the format marks them), those
    too, one a line, while they hold about twice a quote's characters: its quote shows the list that answers
    (``quote.lead_in_quote``), while the locator still cites the lead-in itself."""
    from mnote_kr.citations.cleaning.quote import QUOTE_CHARS

    items = lead_in_items(doc, para)
    if not items:
        return para.text
    lines = [para.text.rstrip()]
    size = len(lines[0])
    for nxt in items:
        if size > 2 * QUOTE_CHARS:
            break
        lines.append(nxt.text.strip())
        size += len(lines[-1])
    return "\n".join(lines)


def locator_from_match(match: Match, *, plugin: str, block_id: str | None, detail: str = "",
                       headings: bool = False, doc: TextDocument[P] | None = None) -> Locator:
    """The honest locator for a match: ``paragraph`` with its span, or ``file`` below the threshold.
    ``headings``: the document's paragraphs carry the headings they sit under as the file reads them
    (DOCX, Markdown), so an empty ``heading_path`` means under none; else the provider's block says.
    ``doc``: the matched document, whose paragraphs after a lead-in go with its place text
    (``lead_in_text``)."""
    if match.paragraph is not None:
        para = match.paragraph
        reason = f"{match.reason}{detail}"  # not the anchor's kind: "(seg)" told a reader nothing (nc29a)
        return Locator(
            locator_precision="paragraph",
            # one rule with the PDF locator (citations.precision): a paragraph that holds few of the
            # query's words is the passage's, not the answer's: an approximate place
            locator_degraded=match.reason.startswith(SEMANTIC),
            paragraph_index=para.index,
            para_id=para.para_id,
            block_id=block_id,
            highlight=Highlight(start=match.highlight[0], end=match.highlight[1]) if match.highlight else None,
            score=match.score,
            locator_plugin=plugin,
            reason=reason,
            locator_reason=reason,
            meaning_score=round(match.meaning, 6) if match.meaning is not None else None,
            # the paragraph's own words: the quote shows the place the reader is taken to, not
            # another sentence of the chunk that holds more of the query's words
            place_text=(lead_in_text(doc, para) if doc is not None else para.text) if para.text.strip() else None,
            # () is known too: a paragraph before the first heading sits under none
            place_headings=list(para.heading_path) if headings else None,
            runners_up=[locator_from_match(r, plugin=plugin, block_id=block_id, detail=detail, headings=headings,
                                           doc=doc) for r in match.runners_up],
        )
    why = match.reason if match.reason != "matched evidence" else "no paragraph above confidence threshold"
    return Locator(
        locator_precision="file",
        locator_degraded=True,
        block_id=block_id,
        score=match.score,
        locator_plugin=plugin,
        reason=why,
        locator_reason=why,
    )
