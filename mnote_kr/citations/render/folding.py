"""A search's places folded by file: one citation per file, carrying the file's next best places.

The citations of a search come one per located chunk; a reader wants each file once, at its best
place, with the places behind it (``Citation.alternatives``) one step away, and the places they
stand for told apart by where they point (``claims.place_key``), not by which chunk found them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

import msgspec

from mnote_kr.citations.cleaning.copyable import mostly_glyphs
from mnote_kr.citations.locate.saidacross import across, question_words, said_words
from mnote_kr.citations.map.sidecar import located_headings
from mnote_kr.citations.rank.cues import answer_types
from mnote_kr.citations.rank.neutral import han_share
from mnote_kr.citations.rank.ranking import fold
from mnote_kr.citations.render.claims import id_anchor, inside, not_another_numbered, place_anchor, place_key
from mnote_kr.citations.render.extremes import extreme_place
from mnote_kr.citations.render.ids import citation_id, citation_markdown, citation_url
from mnote_kr.citations.render.leads import exact_nearer, lead_by_meaning, said_more, supported, use_nearer
from mnote_kr.citations.render.tablecells import column_keys, named_cell
from mnote_kr.citations.render.valuerows import (
    asked_about,
    asks_value,
    holds_question,
    is_keyed_row,
    is_value_row,
    names_label,
    states_type,
    states_value,
)
from mnote_kr.citations.render.weakmore import one_script
from mnote_kr.citations.text.labels import is_label
from mnote_kr.citations.text.languages import other_language
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.models import MAX_ALTERNATIVES, Citation, Locator, Place

__all__ = ["behind_by_meaning", "fold_places", "place_anchor", "place_key", "runner_citations"]

#: Order a file's places behind its first by their meaning (the query's cosine with each place),
#: not by the order of their passages (False: as before; ``benchmarks/retrieval.py``).
BY_MEANING = True
#: A file's first place that its words do not anchor (approximate: placed by meaning with few of the
#: query's words, or for want of a place) yields to the place of the file nearest the question by
#: meaning when that one's cosine is higher by at least this (None: the first place is always the
#: best passage's; ``benchmarks/retrieval.py``). 0.02 was chosen on raw cosines; the query's vector
#: meets places with its language's mean half taken out (``meaning.NEUTRAL_QUERY``), which spreads
#: cosines about 1.5x wider: 0.03 is the same lead.
LEAD_BY_MEANING: float | None = 0.03
#: A file's first place that is approximate (``locator_degraded``) yields to the first exact place shown
#: behind it (a table's cell read under its headers, say), the former first right behind it (False: the
#: first place stays; ``benchmarks/retrieval.py``, issue 33's twelfth round).
EXACT_LEADS = False
#: For a question asking a figure (``valuerows.asks_value``), a file's first place stating none (a caption, a
#: heading, a clause pointing at "表 7.7") yields to the nearest by meaning of the places behind it that read as a
#: table row answering it (``valuerows.is_value_row``), the former first right behind it (False: as before round 23).
VALUE_ROW_LEADS = True
#: For a question naming a column by a year, quarter, month or date (2024年 for 2024E) beside a row (营业收入), a file's
#: first place that is no cell so named (a page's header, the prose around the table, a growth-rate row 营业收入增长率)
#: yields to the nearest by meaning of the places behind it holding a value under that column in that row
#: (``tablecells.named_cell``; a row named as written before one named without its 总), the former first right behind
#: it (False: as before round 25; nc24a Q11, "高测股份2024年营业收入预测" cited the report's p1 header box).
CELL_LEADS = True
#: Under ``VALUE_ROW_LEADS``, a first place reading as a row of another label than the question names yields to the
#: first place behind it reading as a row whose label the question names (``valuerows.names_label``).
LABELLED_ROW_LEADS = True
#: A file's first place yields to an exact place behind it holding every query word it holds and more (one
#: more content term at least), when that one's cosine is at most this below the first's (None: off, as before
#: round 24). LightRAG's best passage often holds the query's rarest word where it answers nothing: nc23d's
#: "increase Lisinopril dose" cited the current dose, "1. Lisinopril 10mg-once daily", exact, with the answer,
#: "Increase Lisinopril from 10mg to 20mg once daily", a place behind it 0.016 farther by meaning.
#: The same lead as ``LEAD_BY_MEANING``'s, the other way round: words decide between places near alike.
WORDS_LEAD: float | None = 0.03
#: Under ``WORDS_LEAD``, an approximate first place holding some of the query's words yields as well to an approximate
#: place behind it holding every one of them and more, when that one's cosine is above the first's less this (0.0:
#: nearer the question, a tie not: a caption and its table row share one vector; None: only exact places lead by words,
#: as before round 25). Neither is claimed exact, so the words decide between places the meaning calls near alike
#: (r23's tables set, tb_zh15: "经营活动产生的现金流量净额 … -111.96%" 0.772 behind the financing row, 0.756). A first
#: holding none of the words gives none to compare: any place holding one query word, often one the whole file writes,
#: would lead (r23 relocated: t4_zh22 and en11 lost the answer's page so). 0.005 below lost t3_en14 and a caption tie.
WORDS_LEAD_APPROX: float | None = 0.0
#: A query word of at least this many letters written at the start of a longer word counts as held: recognition
#: glues a line's words ("Lisinoprilfrom", the MEDRPT scan's page 3), and a word that long is rarely the head of
#: another word.
GLUED_MIN = 6
#: For a question asking a kind of answer (``cues.answer_types``: how many years, how fast, when), a file's first place
#: stating none of it yields to the nearest by meaning of the places behind it stating it beside one of the question's
#: other words ("数据寿命超过10年" for "这款固态硬盘的数据能保存多少年"), the former first right behind
#: it; a first place holding every word of the question stays (False: as before round 24; nc23b's SSD sheet: the
#: answer came second, 0.011 below the first by cosine). A lone CJK character ("年", the unit asked) is no word of it;
#: a place in another script than the question's (``weakmore.one_script``) needs none.
TYPE_LEADS = True
#: Under ``TYPE_LEADS``, a place in another language than the question is read as one by ``languages.language`` too
#: (a Japanese place for a Chinese question: kana), and one in another language states a count the question asks by a
#: number and its own word for the thing ("84种语言" for "how many languages", ``cues.holds_count_across``). False: by
#: the Han share alone, the count's noun in the question's words, as before round 25 (nc25b Q7, Q10).
LANGUAGES_APART = True
#: A file's first place that answers the question (for a question asking a figure, a table row stating one beside the
#: question's words, ``valuerows.is_value_row``; a place stating the kind of answer asked beside them, a kind more
#: telling than a bare count) does not yield, by ``LEAD_BY_MEANING`` or ``WORDS_LEAD``, to a place answering nothing;
#: a first place answering nothing yields to the nearest row answering before such a place (False: as before round
#: 25). nc25b Q3, "东北电气2018年第一季度营业收入是多少？", led with the cover's company name, a block outside the
#: passage 0.054 nearer by cosine, before the passage's revenue row "营业收入（元） 4,755,785.11 ...".
ANSWER_STAYS = True
#: A file's first place saying more of the question's words in its own language than the file's nearest place by
#: meaning, two at least (the question in the other script: ``saidacross``), does not yield to it by ``LEAD_BY_MEANING``
#: (False: as before round 26; nc26a Q10, the mind map's caption "碳原子的lewis结构" took the definition's lead).
SAID_STAYS = True
#: Under ``TYPE_LEADS``, a first place in the question's language holding half its words yields to a place in another
#: language only saying one of them in its own (``saidacross``; False: any place in another language, before round 30).
WRITTEN_STAYS = True
#: Behind a file's first place, places of one cosine (look-alikes: the same words, as two notices of one Federal
#: Register issue each say "DATES: The FAA must receive comments on this proposed AD by September 21, 2020") in the
#: order of their distance to the first place shown (pages, else paragraphs): the one in the part of the file the
#: search found stands, the other, saying only what it says, is not shown (``fold_places``). False: in the order of
#: their passages, as before round 22 (nc21b: p15's line, another AD's, stood for p1's, the 737 MAX notice's).
LOOKALIKES_NEAR_FIRST = True
#: Behind a file's first place, the places holding some of the query's words come before those holding none,
#: and a place holding none that a place holding some is as near the question by meaning as (or nearer) is not
#: shown: it loses on both counts (nc18b: the captions "发票 1" and "图表 1" behind 本合同一式四份, while
#: paragraphs holding 合同 stood further back). A question no place holds a word of (other words, another
#: language) keeps the order by meaning. False: by meaning alone, as before round 18.
WORDED_FIRST = True
#: A label (``_is_label``) of at most this many characters, spaces aside (None: any length, ``labels.is_label``
#: alone, as since round 28; 12: round 27's cap). Round 29 (review r29 finding 7), r28's dump relocated with 12: no
#: question of the 229 of the tuning sets changed (p1 .594, p3 .747, in view .782 both), so no cap: one label test.
LABEL_CHARS: int | None = None


def _as_place(c: Citation) -> Place:
    return Place(citation_id=c.citation_id, locator_precision=c.locator_precision,
                 locator_degraded=c.locator_degraded, locator=c.locator, display_quote=c.display_quote,
                 heading_path=c.heading_path, relevance_score=c.relevance_score, citation_url=c.citation_url)


def runner_citations(main: Citation, located: Locator, base: str, taken: set[str], version: str = "") -> list[Citation]:
    """The places behind ``main`` its locator gave (``Locator.runners_up``), each cited as ``main`` is:
    its own ID (``claims.id_anchor``: the file's ``version`` and the place with its claim, else ``base``, the
    passage; ``taken`` the IDs given, read and left as it is: a place behind may be the very place another
    passage of the search cites, under the same ID, and only one of them is kept), URL and Markdown; a
    place whose words are mostly glyphs (``copyable.mostly_glyphs``) is left out. Each keeps its words
    (``place_text``) and has no quote yet: the host reads it only for a place it shows."""
    out = []
    for loc in located.runners_up:
        if not place_key(loc) or (loc.place_text and mostly_glyphs(loc.place_text)):
            continue  # a figure's labels read as glyphs (``?>9@aj.d<f@-<>2.@a:0>#``) are no place to cite
        loc = not_another_numbered(msgspec.structs.replace(loc, runners_up=[]), main.search_query or "")
        cid = citation_id(main.provider, main.source_id or "", id_anchor(base, version, loc), 0, taken=set(taken))
        url = citation_url(main.source_root_relative_path, loc)
        out.append(msgspec.structs.replace(
            main, citation_id=cid, locator=loc, locator_precision=loc.locator_precision,
            heading_path=located_headings(loc, otherwise=main.heading_path),
            locator_degraded=loc.locator_degraded, citation_url=url, display_quote=None,
            citation_markdown=citation_markdown(Path(main.source_root_relative_path).name, loc, url)))
    return out


def behind_by_meaning(citations: list[Citation]) -> list[Citation]:
    """``citations`` (a search's places, best first) with each file's places behind its first in
    the order of their cosine with the query (``Locator.meaning_score``), ties in their order: the
    first place of a file is its best passage's; which places come next is read from the places
    themselves (another passage's best, or one behind the best in the same passage); a place at the
    file level (no place inside it) after them. A file with a place inside it without a cosine (no
    vectors yet, or a locator that ranks no place by meaning) keeps the order of its places behind.

    A first place its words do not anchor (``locator_degraded``) gives way to the place of its file
    nearest the question when that one's cosine leads by ``LEAD_BY_MEANING``: LightRAG's passage is
    often not the part of the file that answers, and a place chosen by meaning inside it is then a
    worse guess than the file's nearest. The passage's place comes right behind it (the three places
    shown are the same either way), and the file keeps its rank among the files. The nearest is read
    among the places with a cosine, whether or not every place has one: a table's header row or a
    passage box without a vector does not keep an unanchored first place ahead of an exact cell nearer
    the question (nc16c: a NICS footnote before "Texas, Handgun: 56,941"). For a question asking a figure, a
    first place stating none yields to the file's nearest place reading as a table row answering it, before
    the nearest by meaning (``VALUE_ROW_LEADS``), a cell under the column and in the row a question names before
    either (``CELL_LEADS``); failing one, for a question asking a kind of answer (how many
    years, how fast), to the nearest place stating that kind beside the question's other words (``TYPE_LEADS``). A first
    place answering the question (``_answers``) never yields by meaning or words to a place answering nothing; one
    answering nothing yields to the nearest row answering before such a place (``ANSWER_STAYS``)."""
    if not BY_MEANING:
        return citations
    by_file: dict[str, list[Citation]] = {}
    for c in citations:
        by_file.setdefault(c.source_root_relative_path, []).append(c)
    firsts = [c for c in citations if by_file[c.source_root_relative_path][0] is c]
    rest = []
    for k, c in enumerate(firsts):
        behind = by_file[c.source_root_relative_path][1:]
        if all(p.locator.meaning_score is not None for p in behind if place_key(p.locator)):
            behind = _by_cosine(behind)
        # the nearest by meaning of the places with a cosine: one without (a table's header row, a passage
        # box) keeps the order of the places behind, not an unanchored first place ahead of a nearer one
        lead = lead_by_meaning(c, behind, _is_label)  # a label, near any question sharing a word, is none
        row, named = _named_cell(c, behind)  # for a question naming a row and a column, that cell first
        row = row if row is not None or named else _value_row(c, behind)  # for a question asking a figure, a row
        row = row if row is not None or named else _extreme(c, behind)  # the largest figure, when asked for
        row = row if row is not None or named else _typed_place(c, behind)  # then a place stating the kind asked
        lead = row if row is not None or named else lead if lead is not None and _leads(lead, c) \
            and not _says_more(c, lead, behind) else _more_words(c, behind) \
            or said_more(c, behind, _place_words) \
            or exact_nearer(c, behind, partial(_held_by, _terms(c)), LEAD_BY_MEANING) or supported(c, behind) \
            or use_nearer(c, behind, _place_words)
        if lead is not None and row is None and not named and not _answers(lead):
            # the passage's answer stays before a place nearer by meaning answering nothing; a first place answering
            # nothing yields to the nearest row answering, if any, before such a place
            lead = None if _answers(c) else _answer_row(behind) or lead
        if lead is not None:  # the passage's own place stays one step behind
            # the file's rank came from its best passage's score: the card shown first carries it
            score = c.relevance_score
            firsts[k] = msgspec.structs.replace(lead, relevance_score=score)
            behind = [msgspec.structs.replace(c, relevance_score=lead.relevance_score
                                              if score is None or lead.relevance_score is None
                                              else min(score, lead.relevance_score)),
                      *(p for p in behind if p is not lead)]
        rest += _near_first(firsts[k], behind)
    return firsts + rest


def _named_cell(first: Citation, behind: list[Citation]) -> tuple[Citation | None, bool]:
    """The place behind ``first`` that takes its lead by ``CELL_LEADS``: of those naming the question's cell best
    (``tablecells.named_cell``), better than ``first`` does, the nearest by meaning; and whether ``first`` names it
    at least as well as every place behind (it stays: no other rule moves it, as a growth-rate row holding one more
    of the question's bigrams, 业收 of 营业收入增长率, would by ``WORDS_LEAD``)."""
    query = first.search_query or ""
    if not CELL_LEADS or not query or not column_keys(query):
        return None, False

    def naming(c: Citation) -> int:  # each of a place's texts read alone: a quote and the locator's words join badly
        return max((named_cell(t, query) for t in (c.display_quote, c.locator.place_text, c.locator.quote) if t),
                   default=0)

    mine = naming(first)
    named = [(naming(p), p) for p in behind if place_key(p.locator)]
    best = max((n for n, _ in named), default=0)
    if best <= mine:
        return None, mine > 0
    return max((p for n, p in named if n == best),
               key=lambda p: p.locator.meaning_score if p.locator.meaning_score is not None else -1.0), True


def _value_row(first: Citation, behind: list[Citation]) -> Citation | None:
    """The place behind ``first`` (by cosine, else in order) that takes its lead by ``VALUE_ROW_LEADS``, if any."""
    query = first.search_query or ""
    if not VALUE_ROW_LEADS or not query or not asks_value(query):
        return None
    if states_value(_place_words(first), query):
        # a row of another label than the one asked ("Arizona: Permit: 2,303" for Illinois's permits) yields to the
        # row the question names by its label
        if not LABELLED_ROW_LEADS or not is_keyed_row(_place_words(first)) or names_label(_place_words(first), query):
            return None
        named = [p for p in behind if place_key(p.locator) and is_keyed_row(_place_words(p))
                 and names_label(_place_words(p), query)]
        return named[0] if named else None
    if holds_question(_place_words(first), query):  # the place the question names word for word stays first
        return None
    rows = [p for p in behind if place_key(p.locator) and is_value_row(_place_words(p), query)]
    return max(rows, key=lambda p: p.locator.meaning_score if p.locator.meaning_score is not None else -1.0,
               default=None)


def _terms(c: Citation) -> QueryTerms | None:
    """``c``'s query's content terms, each weighing alike (None: no query, or no term in it)."""
    terms = QueryTerms(c.search_query, {}, 1) if c.search_query else None
    return terms if terms else None


def _held_by(terms: QueryTerms | None, c: Citation) -> set[int]:
    """:func:`_held`, none for no ``terms``."""
    return _held(terms, c) if terms is not None else set()


def _held(terms: QueryTerms, c: Citation) -> set[int]:
    """The query's content terms ``c``'s words hold: standing alone (``_holds_words``), or a long word glued to the
    next by recognition (``GLUED_MIN``)."""
    norm = normalize(_place_words(c))
    held = {k for k, _pos, w in terms.hits(norm) if w >= 0.5}
    return held | {k for k, t in enumerate(terms.terms) if k not in held and not t.cjk and t.word.isascii()
                   and len(t.word) >= GLUED_MIN and re.search(r"(?<!\w)" + re.escape(t.word), norm)}


def _more_words(first: Citation, behind: list[Citation]) -> Citation | None:
    """The exact place behind ``first`` holding every query term ``first`` holds and more, about as near the question
    by meaning (``WORDS_LEAD``), or behind an approximate ``first`` an approximate one nearer (``WORDS_LEAD_APPROX``):
    the one holding most, then the nearest; None when no place does."""
    cos = first.locator.meaning_score
    if WORDS_LEAD is None or cos is None or not first.search_query:
        return None
    terms = QueryTerms(first.search_query, {}, 1)
    if not terms:
        return None
    mine = _held(terms, first)
    # a table row of figures answering the question holds few of its words (its headers hold them): it stays before
    # places naming the words without the figures (r23's tables set: "What would the angle-of-attack sensor test cost
    # all US operators together?" on the cost row, ahead of the AD's "Angle of Attack (AOA) Sensor System Test")
    row = is_value_row(_place_words(first), first.search_query)
    best: tuple[int, float, Citation] | None = None
    for p in behind:
        near = p.locator.meaning_score
        if not place_key(p.locator) or near is None:
            continue
        if p.locator_degraded and (WORDS_LEAD_APPROX is None or not first.locator_degraded or not mine
                                   or near <= cos - WORDS_LEAD_APPROX):
            continue
        if near < cos - WORDS_LEAD:
            continue
        if row and not is_value_row(_place_words(p), first.search_query):
            continue
        held = _held(terms, p)
        if held > mine and (best is None or (len(held), near) > best[:2]):
            best = (len(held), near, p)
    return best[2] if best else None


def _answers(c: Citation, *, typed: bool = True) -> bool:
    """``c`` answers its question (``ANSWER_STAYS``): it states a value not the question's own beside one of the
    question's words (not a figure: a year asked is no word beside the answer), as a table row answering a question
    asking a figure, or (``typed``) as the kind of answer asked, a kind more telling than a bare count (多少 alone:
    any number states one, a lawsuit's sums for a question on total assets)."""
    query = c.search_query or ""
    words = _place_words(c)
    if not ANSWER_STAYS or not query or not states_value(words, query):
        return False
    about = QueryTerms(asked_about(query), {}, 1)
    if not any(w >= 0.5 and len(about.terms[k].text) >= 2 and not any(ch.isdigit() for ch in about.terms[k].text)
               for k, _pos, w in about.hits(normalize(words))):
        return False
    if asks_value(query) and is_value_row(words, query):
        return True
    return typed and any(t != "count:" for t in answer_types(fold(" ".join(query.split())))) \
        and states_type(words, query)


def _answer_row(behind: list[Citation]) -> Citation | None:
    """The nearest by meaning of the places ``behind`` a file's first reading as a table row answering the question
    (``_answers``, not by its kind alone), if any."""
    rows = [p for p in behind if place_key(p.locator) and _answers(p, typed=False)]
    return max(rows, key=lambda p: p.locator.meaning_score if p.locator.meaning_score is not None else -1.0,
               default=None)


def _extreme(first: Citation, behind: list[Citation]) -> Citation | None:
    """The place behind ``first`` stating the largest (smallest) figure asked for (``extremes.EXTREME_LEADS``)."""
    query = first.search_query or ""
    script = han_share(query)

    def eligible(p: Citation) -> bool:  # a place stating the kind asked, beside a question's word or across scripts
        words = _place_words(p)
        if not place_key(p.locator) or not states_type(words, query):
            return False
        about = QueryTerms(asked_about(query), {}, 1)
        return not one_script(script, han_share(words)) or any(
            w >= 0.5 and len(about.terms[k].text) >= 2 for k, _pos, w in about.hits(normalize(words)))

    return extreme_place(first, behind, eligible, _place_words)


def _typed_place(first: Citation, behind: list[Citation]) -> Citation | None:
    """The place behind ``first`` (the nearest by meaning) that takes its lead by ``TYPE_LEADS``, if any."""
    query = first.search_query or ""
    if not TYPE_LEADS or not query or states_type(_place_words(first), query):
        return None
    if holds_question(_place_words(first), query):  # the place the question names word for word stays first
        return None
    about = QueryTerms(asked_about(query), {}, 1)  # the words the answer is about, not those asking its kind
    script = han_share(query)

    def across(words: str) -> bool:
        """``words`` are written in another language than the question: another script ("Salary Range: 54494 to 84913
        USD Per Year" for 一年能挣多少钱), or Japanese for a Chinese question (``LANGUAGES_APART``: 午後5時まで)."""
        return not one_script(script, han_share(words)) or LANGUAGES_APART and other_language(words, query)

    # a first place in the question's language holding half its words (nc30a: 自行车链条每骑行大约三千公里就应该检查
    # 一次磨损) yields to a place in another language saying one of them in it (``saidacross``), not on the kind alone
    first_words = _place_words(first)
    held = WRITTEN_STAYS and not across(first_words) and about.score(normalize(first_words)) >= 0.5

    def beside(words: str) -> bool:
        """``words`` hold one of the question's words, or could not: a place in another language than the question's
        holds none, answering or not (unless the first place holds them: ``WRITTEN_STAYS``)."""
        if across(words):
            return not held or bool(said_words(query, words, question_words(query)))
        return any(w >= 0.5 and len(about.terms[k].text) >= 2 for k, _pos, w in about.hits(normalize(words)))

    typed = [p for p in behind if place_key(p.locator) and beside(_place_words(p))
             and states_type(_place_words(p), query, across=LANGUAGES_APART and across(_place_words(p)))]
    return max(typed, key=lambda p: p.locator.meaning_score if p.locator.meaning_score is not None else -1.0,
               default=None)


def _near_first(first: Citation, behind: list[Citation]) -> list[Citation]:
    """``behind`` (in their order) with each run of places of one cosine (look-alikes) ordered by their distance
    to ``first`` (``LOOKALIKES_NEAR_FIRST``): pages apart, else paragraphs apart; a place without either keeps its
    order."""
    if not LOOKALIKES_NEAR_FIRST:
        return behind

    def apart(p: Citation) -> int:
        a, b = p.locator, first.locator
        if a.page is not None and b.page is not None:
            return abs(a.page - b.page)
        if a.paragraph_index is not None and b.paragraph_index is not None:
            return abs(a.paragraph_index - b.paragraph_index)
        return 0

    out: list[Citation] = []
    for p in behind:
        run = [q for q in out if q.locator.meaning_score is not None and q.locator.meaning_score
               == p.locator.meaning_score and place_key(q.locator)]
        if not run or not place_key(p.locator):
            out.append(p)
            continue
        # into its run of look-alikes (consecutive: ``behind`` is by cosine), before the first one farther away
        at = next((out.index(q) for q in run if apart(q) > apart(p)), out.index(run[-1]) + 1)
        out.insert(at, p)
    return out


def _by_cosine(places: list[Citation]) -> list[Citation]:
    """Places inside the file by their cosine with the query (none: last of them), then the file level."""
    return sorted(places, key=lambda p: (not place_key(p.locator), -(p.locator.meaning_score
                                                                       if p.locator.meaning_score is not None
                                                                       else -1.0)))


def _leads(place: Citation, first: Citation) -> bool:
    """``place`` (the nearest by meaning behind ``first``) takes the lead of an unanchored first place."""
    if LEAD_BY_MEANING is None or not first.locator_degraded or not place_key(place.locator):
        return False
    cos, then = place.locator.meaning_score, first.locator.meaning_score
    return cos is not None and cos >= (then if then is not None else -1.0) + LEAD_BY_MEANING


def _says_more(first: Citation, place: Citation, behind: list[Citation]) -> bool:
    """``first`` says more of the question's words in its own language than ``place``, two at least, the question
    being written in the other script than the file's places (``saidacross.said_words``): it keeps its lead by meaning
    (``SAID_STAYS``). nc26a Q10, "What is a Lewis structure used to show?": the locator put the mind map's definition
    (路易斯结构可以画出表示…: Lewis, structure, show) before the caption "碳原子的lewis结构" (Lewis, structure), 0.05
    nearer by cosine. One word said is no lead (tb_zh10: "Figure 3-5 Special registers and adopted authority" said
    特殊 alone, and the row answering stood 0.053 nearer)."""
    query = first.search_query or ""
    if not SAID_STAYS or not query or not across(query, [_place_words(p) for p in (first, *behind)]):
        return False
    words = question_words(query)
    mine = said_words(query, _place_words(first), words)
    return len(mine) >= 2 and len(mine) > len(said_words(query, _place_words(place), words))


def _exact_first(first: Citation, behind: list[Citation]) -> tuple[Citation, list[Citation]]:
    """An approximate ``first`` place and the places shown ``behind`` it, the first exact one of them
    leading (carrying the file's score, as in :func:`behind_by_meaning`) and ``first`` right behind it;
    unchanged when ``first`` is exact or none behind it is."""
    lead = next((p for p in behind if not p.locator_degraded and place_key(p.locator)), None)
    if lead is None or not first.locator_degraded:
        return first, behind
    score = first.relevance_score
    demoted = msgspec.structs.replace(first, relevance_score=lead.relevance_score if score is None
                                      or lead.relevance_score is None else min(score, lead.relevance_score))
    return (msgspec.structs.replace(lead, relevance_score=score),
            [demoted, *(p for p in behind if p is not lead)])


def _words(quote: str | None) -> str:
    """A quote's words as compared between places: spacing and case aside ("" for none)."""
    return " ".join((quote or "").split()).casefold()


def _place_words(c: Citation) -> str:
    """The words at a place as folding reads them: its quote, else the words its locator read there."""
    return " ".join(t for t in (c.display_quote, c.locator.place_text, c.locator.quote) if t)


def _holds_words(terms: QueryTerms, c: Citation) -> bool:
    """``c``'s words hold one of the query's content terms (standing alone: not a fragment of a longer word)."""
    return any(w >= 0.5 for _k, _pos, w in terms.hits(normalize(_place_words(c))))


def _is_label(c: Citation) -> bool:
    """A place of a few words (``labels.is_label``: a caption, "图表 1", "Figure 3"): holding none of the query's
    words, it is not shown behind places holding some, whatever its cosine (a two-word label is near anything);
    with ``LABEL_CHARS``, of at most that many characters too."""
    words = _place_words(c)
    return is_label(words) and (LABEL_CHARS is None or len("".join(words.split())) <= LABEL_CHARS)


def _query_terms(places: list[Citation]) -> QueryTerms | None:
    """The query's content terms, each weighing (only "held or not" is asked); None when folding does not ask
    (``WORDED_FIRST`` off) or the query has none."""
    terms = QueryTerms(places[0].search_query or "", {}, 1) if WORDED_FIRST and places else None
    return terms if terms else None


def _worded_first(places: list[Citation], terms: QueryTerms | None) -> list[Citation]:
    """``places`` (behind a file's first, in their order) with those holding the query's words (``terms``)
    first: a place holding none is dropped when a place holding some has a cosine at least as high (or has
    one where it has none), or when it is a label (``labels.is_label``); one nearer the question than all of them
    keeps its place. Unchanged when none holds a word (or ``terms`` is None)."""
    worded = [p for p in places if terms is not None and _holds_words(terms, p)]
    if not worded:
        return places
    best = max((p.locator.meaning_score for p in worded if p.locator.meaning_score is not None), default=None)
    kept = []
    for p in places:
        cos = p.locator.meaning_score
        if any(p is w for w in worded):
            kept.append(p)
        elif cos is not None and (best is None or cos > best) and not _is_label(p):
            kept.append(p)  # nearer the question than every place holding its words: an answer in other words
    return kept


def _repeats(words: str, said: list[str], p: Citation, terms: QueryTerms | None) -> bool:
    """``p`` (its ``words``) says only what a place before it said: the same words, or a part of them, unless
    ``p`` is a paragraph of its own holding the query's words (``terms``), not a table cell read within its
    row (``headers``, ``rowLabel``): a contract's clause said again is another place saying it."""
    if not words:
        return False
    if any(words == s for s in said):
        return True
    if not any(words in s for s in said):
        return False
    return bool(p.locator.headers or p.locator.row_label) or terms is None or not _holds_words(terms, p)


def _within(p: Citation, shown: list[Citation]) -> bool:
    """``p``'s box lies inside the box of a place shown before it (``claims.inside``), and ``p`` is no more exact
    than that one: stepping to it would show the reader the part of a box already marked (an exact sentence inside
    an approximate passage box is a better place, and stays)."""
    return any(inside(p.locator, q.locator) and (p.locator_degraded or not q.locator_degraded) for q in shown)


def fold_places(citations: list[Citation], settle: Callable[[Citation], Citation] = lambda c: c,
                ) -> tuple[list[Citation], list[Citation]]:
    """One citation per file, best first, carrying the file's next ``MAX_ALTERNATIVES`` places
    (``alternatives``, in their order; each at another place than those before it, none at the file
    level); and the citations
    folded in (remembered, so their IDs open), each carrying the other places of its file.

    A place whose quote says only words a place before it quotes (spacing and case aside: one table row cited
    from two of its cells, a cell of a row already quoted whole), or whose box lies inside the box of a place
    before it (``_within``), is dropped too, the earlier, better placed one kept. A file's places beyond
    those are dropped (counted in diagnostics as ``placesDropped``); ``settle`` finishes each place
    looked at (its quote read), each once."""
    by_file: dict[str, list[Citation]] = {}
    for c in citations:
        by_file.setdefault(c.source_root_relative_path, []).append(c)
    out: list[Citation] = []
    folded: list[Citation] = []
    for c in citations:
        places = by_file[c.source_root_relative_path]
        if places[0] is not c:
            continue
        behind: list[Citation] = []
        # a place at the file level ("") names no place: behind a placed first it does not help a reader
        # step through places, behind a "whole file" first it would only open the file again
        taken = {place_key(c.locator), ""}
        c = settle(c)
        # a place quoting words a place before it shows (a table's row cited from two of its cells, or one
        # cell of a row shown whole) shows the reader nothing new: the one before it, better placed, stands
        said = [_words(c.display_quote)]
        terms = _query_terms(places)
        for p in _worded_first(places[1:], terms):
            if len(behind) < MAX_ALTERNATIVES and place_key(p.locator) not in taken:
                taken.add(place_key(p.locator))
                p = settle(p)
                words = _words(p.display_quote)
                if _repeats(words, said, p, terms) or _within(p, [c, *behind]):
                    continue
                said.append(words)
                behind.append(p)
        c, behind = _exact_first(c, behind) if EXACT_LEADS else (c, behind)
        group = [c, *behind]
        # each place of the group knows the others: the viewer steps on from whichever is opened
        folded += [msgspec.structs.replace(p, alternatives=[_as_place(q) for q in group if q is not p])
                   for p in behind]
        out.append(msgspec.structs.replace(c, alternatives=[_as_place(p) for p in behind]) if behind else c)
    return out, folded
