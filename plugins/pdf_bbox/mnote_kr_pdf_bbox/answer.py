"""Which text block of a matched passage answers the query.

People type phrases and questions; a LightRAG chunk holds several paragraphs. Three
rules, in order:

1. *verbatim*: the block holding the whole query as written (the host's
   ``query_occurrences``: an occurrence standing alone beats one inside a longer word,
   so ``ion`` never lands on ``cation``);
2. *terms*: the block holding the largest share of the query's content words, each
   weighted by its rarity among the document's blocks (function words and question
   scaffolding carry no weight; CJK by character bigrams), plus a bonus where the found terms sit close
   together; below ``MIN_SHARE`` no block answers;
3. *semantic*: no block holds a meaningful share: the caller cites the passage and says so.

Once ingest embedded the document's blocks (``place_texts``, queued at ``prepare_locate``; the
host's ``rank_by_meaning``), rules 2 and 3 become one: every block of the passage is scored by its
word score (rule 2's share plus the cluster bonus) plus the meaning term, as DOCX paragraphs are
(*meaning* when that moves the choice); a block holding every term still wins, rule 1 first.

Ties go to the earlier block in document order, so every process gives one answer.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from mnote_kr.plugin_api import absent_words, lazy_compile, query_occurrences, said_shares

from . import tableread
from .acronymterms import defined, held_other, other_forms
from .blocks import (
    _CJK_RUN,
    MEANING_MIN_TOKENS,
    BlockText,
    DocTerms,
    content_terms,
    doc_terms,
    fold,
    place_texts,
    places,
    running_places,
    stem,
)
from .lines import reading_box
from .pdftext import DocumentText
from .rowparts import own_part

MIN_SHARE = 0.4
#: False: blocks by words alone, as before (``benchmarks/retrieval.py``'s today variant).
BY_MEANING = True
#: Blocks behind the chosen one a locator gives (``Locator.runners_up``), best first.
RUNNERS_UP = 2
#: The document's blocks nearest the query by meaning, outside the passage, given behind those (0: none).
FILE_WIDE = 3
#: A running line (``blocks.running_places``: a text on 3 pages or more) is never one of those (False: as before).
NO_RUNNING = True
#: A block chosen by the query's words is weighed with its peers (issue 33, nc18a problem 4; False: as
#: before, ``benchmarks/retrieval.py``): it carries its cosine even when it was the evidence window's only
#: block (without one, the host's ordering of a file's passages by meaning counted it as the least meant),
#: and the passage's blocks outside the window holding every query term it holds and as much of their weight
#: are candidates beside it (``peers``), meaning deciding between equals.
WORD_PEERS = True
_CJK_BIGRAM = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2}")
#: Chinese question words and particles: asked with, never asked for.
_CJK_ASKING = lazy_compile(r"为什么|什么|哪些|哪个|哪里|如何|怎么样|怎么|怎样|是否|多少|请问|关于|有关|吗|呢"
                           r"|[讲说写谈提]了|[讲说写谈]的|提到|介绍|说明")
#: False: a query's Chinese words over a document without Chinese are dropped as artefacts, as before (``weighed``).
FOREIGN_CJK = True
MAX_LINES = 30  # a longer block is narrowed to the lines around the answer


@dataclass(frozen=True)
class Answer:
    """The block chosen in a passage, how, and the lines of it to box."""

    block: tuple[int, int] | None  # (page index, block index)
    rule: str  # verbatim | terms | meaning | named | cell | extreme | semantic | none
    share: float
    found: int  # content terms found in the block
    terms: int  # content terms in the query
    lines: list[int]  # line indices of the block to box (narrowed when the block is long)
    meaning: float | None = None  # the query's cosine with the block, when its vectors exist
    #: the passage's next best blocks by words and meaning, best first (with their cosines)
    runners_up: list[tuple[tuple[int, int], float | None]] = field(default_factory=list)
    #: a read table row of the passage holds the query's rarest word and more of its words (``_rare_in_row``)
    rare_elsewhere: bool = False
    #: the query's words the block says in its own language (``said_shares``) weighed more than those it holds
    said_across: bool = False


def choose(doc: DocumentText, passage: list[tuple[int, int]], query: str) -> Answer:
    """Pick the block of ``passage`` (blocks in document order) that answers ``query``."""
    terms = content_terms(query)
    if not passage or not query.strip():
        return Answer(None, "none", 0.0, 0, len(terms), [])
    dt = doc_terms(doc)
    # a figure's labels read as glyphs (``?>9@aj.d<f@-<>2.@a:0>#``) and page furniture are no place to cite
    passage = sorted(b for b in passage if not dt.unfit(b, terms)) or sorted(passage)  # document order decides ties
    q = " ".join(fold(query).split())
    if len(q) >= 3:
        occ = {b: query_occurrences(dt.block(b).text, q) for b in passage}
        alone = any(w >= 1.0 for hits in occ.values() for _, w in hits)
        if alone:
            for b in passage:  # the first block where the query stands as written
                at = [p for p, w in occ[b] if w >= 1.0]
                if at:
                    # its cosine too: the host orders a file's citations by it (a verbatim place
                    # without one would fall behind the file's places that have one)
                    ranked = _by_meaning(doc, dt, passage, query, {b: 1.0})
                    return Answer(b, "verbatim", 1.0, len(terms), len(terms),
                                  _narrow(doc, b, [dt.block(b).line_at[at[0]]]), ranked[1].get(b) if ranked else None)
    # a row of the passage's table the query names by its label and header, when no row of the passage is:
    # the passage holds the NICS table's last rows (Wyoming, Totals), the question Texas's Handgun checks
    cell = tableread.cell_answer(doc.pages, passage, query) \
        or tableread.cell_answer(doc.pages, tableread.table_rows_of(doc.pages, passage), query)
    if cell is not None:
        return _cell(doc, dt, passage, query, terms, *cell)
    if not terms:
        return Answer(None, "semantic", 0.0, 0, 0, [])
    # a CJK bigram the document never holds is an artefact of cutting an unspaced query
    # ("温度密度" gives "度密"), not a word asked for
    terms, weight = weighed(dt, query, terms)
    total = sum(weight.values()) or 1.0
    words: dict[tuple[int, int], tuple[float, float, int]] = {}  # block -> (score, share, terms found)
    best: tuple[float, float, int, tuple[int, int]] | None = None
    # "AOA" for the query's "angle of attack": the document says they are one
    forms = other_forms(defined(doc, place_texts), terms, query, stem)
    for b in passage:
        bt = dt.block(b)
        found = [t for t in terms if t in bt.terms]
        other = held_other(bt.text, forms, found) if forms else {}
        if not found and not other:
            continue
        # a word as typed counts a little more than another form of it
        share = (sum(weight[t] * (1.0 if terms[t] in bt.surface else 0.85) for t in found)
                 + sum(weight[t] * w for t, w in other.items())) / total
        score = share + _cluster_bonus(bt, found)
        words[b] = (score, share, len(found) + len(other))
        if best is None or score > best[0] + 1e-9:
            best = (score, share, len(found) + len(other), b)
    scores = {b: w[0] for b, w in words.items()}
    # a question over a passage in the other script: its words said in the passage's language weigh as its words
    # when the blocks are compared (``said_shares``); they make no block's claim (its share stays its own words')
    across = said_shares(query, {b: dt.block(b).text for b in passage})
    scores.update({b: s for b, s in across.items() if s > scores.get(b, 0.0)})
    by_meaning = _by_meaning(doc, dt, passage, query, scores)
    if by_meaning is not None:
        order, cosines = by_meaning
        b = order[0]
        _, share, n_found = words.get(b, (0.0, 0.0, 0))
        rule = "terms" if best is not None and best[3] == b and share >= MIN_SHARE else "meaning"
        runners = [(r, cosines[r]) for r in order[1:1 + RUNNERS_UP]] + _wide(doc, passage, query)
        return Answer(b, rule, share, n_found, len(terms), _narrow(doc, b, _hit_lines(dt.block(b), terms), query),
                      cosines[b], runners, _rare_in_row(doc, dt, passage, b, weight, query),
                      said_across=across.get(b, 0.0) > words.get(b, (0.0,))[0])
    if best is None or best[1] < MIN_SHARE:
        return Answer(None, "semantic", best[1] if best else 0.0, best[2] if best else 0, len(terms), [])
    _, share, n_found, b = best
    cos, runners = _alone(doc, dt, passage, query, b)
    return Answer(b, "terms", share, n_found, len(terms), _narrow(doc, b, _hit_lines(dt.block(b), terms), query),
                  cos, runners, rare_elsewhere=_rare_in_row(doc, dt, passage, b, weight, query))


def holds_terms(doc: DocumentText, b: tuple[int, int], query: str) -> tuple[float, int, int]:
    """``(share, found, terms)``: the rarity-weighted share of ``query``'s content terms block ``b`` holds,
    how many it holds and of how many, weighed as ``choose`` weighs the passage's blocks (a place behind
    the chosen one is exact by the same rule: ``MIN_SHARE``)."""
    terms = content_terms(query)
    if not terms:
        return 0.0, 0, 0
    dt = doc_terms(doc)
    terms, weight = weighed(dt, query, terms)
    bt = dt.block(b)
    found = [t for t in terms if t in bt.terms]
    share = sum(weight[t] * (1.0 if terms[t] in bt.surface else 0.85) for t in found) / (sum(weight.values()) or 1.0)
    return share, len(found), len(terms)


def weighed(dt: DocTerms, query: str, terms: dict[str, str]) -> tuple[dict[str, str], dict[str, float]]:
    """``query``'s content ``terms`` a block can be asked to hold, each with its weight (its rarity among the
    document's blocks). A CJK bigram the document never holds is an artefact of cutting an unspaced query
    ("温度密度" gives "度密"), not a word asked for, where the document holds CJK, unless the dictionary reads a
    word of the query none of whose bigrams the document holds (``absent_words``: asked, lacked, weighed as an
    absent Latin word); in a document without any, the query's Chinese words are words asked for that it lacks
    (``FOREIGN_CJK``): a run between question words is one term, weighed as the query's other words on average
    ("TraceMonkey 论文关于加速比说了什么": 3 terms, not "tracemonkey" alone)."""
    kept = {t: v for t, v in terms.items() if t.isascii() or dt.df.get(t, 0) or not _CJK_BIGRAM.fullmatch(t)}
    weight = {t: math.log((dt.n + 1) / (dt.df.get(t, 0) + 0.5)) for t in kept}
    runs = _CJK_RUN.findall(_CJK_ASKING.sub(" ", fold(query))) if FOREIGN_CJK and not dt.holds_cjk() else []
    if runs:
        kept = {t: v for t, v in kept.items() if not _CJK_RUN.search(t + t)}  # a lone CJK character too
        mean = sum(weight[t] for t in kept) / len(kept) if kept else math.log((dt.n + 1) / 0.5)
        weight = {t: weight[t] for t in kept} | {r: mean for r in runs}
        return kept | {r: r for r in runs}, weight
    if not kept and dt.holds_cjk():  # every word is an artefact: the query's own bigrams, held by none
        kept = terms
        weight = {t: math.log((dt.n + 1) / (dt.df.get(t, 0) + 0.5)) for t in kept}
    # a word of the dictionary none of whose bigrams the document holds is asked all the same (遗传, 卵巢 of
    # "遗传性卵巢癌 检测方法" over a chemistry mind map holding only 方法), weighed as an absent Latin word
    lacked = [w for w in absent_words(query, dt.df) if w not in kept] if dt.holds_cjk() else []
    if lacked:
        kept = kept | {w: w for w in lacked}
        weight = weight | dict.fromkeys(lacked, math.log((dt.n + 1) / 0.5))
    return kept, weight


def _cell(doc: DocumentText, dt: DocTerms, passage: list[tuple[int, int]], query: str, terms: dict[str, str],
          b: tuple[int, int], lines: list[int]) -> Answer:
    """The table cell the query names by its row's label and its header (``tableread.cell_answer``),
    with its cosine and the passage's blocks behind it when the document's blocks have vectors."""
    held = dt.block(b).terms
    ranked = _by_meaning(doc, dt, passage, query, {b: 1.0})
    cos = ranked[1].get(b) if ranked else None
    runners = [(r, ranked[1][r]) for r in ranked[0] if r != b][:RUNNERS_UP] + _wide(doc, passage, query) \
        if ranked else []
    found = sum(t in held for t in terms)
    return Answer(b, "cell", found / max(len(terms), 1), found, len(terms), lines, cos, runners)


def _rare_in_row(doc: DocumentText, dt: DocTerms, passage: list[tuple[int, int]], b: tuple[int, int],
                 weight: dict[str, float], query: str) -> bool:
    """Whether a table row of the passage read under its headers (``tableread``: not every line ``tables``
    sets apart, such as a transcript's numbered lines) holds the rarest of the query's words the passage
    holds, which block ``b`` does not, and more of the query's words than ``b`` or a label the query
    names: a title or a note holding the query's common words is then no exact place for a question
    about that row."""
    rows = [o for o in passage if o != b and o[1] in doc.pages[o[0]].row_cells]
    if not rows:
        return False
    held = {t for o in passage for t in dt.block(o).terms if t in weight}
    if not held:
        return False
    top = max(weight[t] for t in held)
    rare = [t for t in held if weight[t] >= top - 1e-9 and t not in dt.block(b).terms]
    mine = sum(t in dt.block(b).terms for t in weight)
    return any(t in dt.block(o).terms and (sum(w in dt.block(o).terms for w in weight) > mine
                                           or tableread.label_named(doc.pages[o[0]], o[1], query))
               for t in rare for o in rows)


def _hit_lines(bt: BlockText, terms: dict[str, str]) -> list[int]:
    """The block's lines holding a query term."""
    return sorted({bt.line_at[bt.starts[k]] for t in terms if t in bt.terms for k in bt.terms[t]})


def _wide(doc: DocumentText, passage: list[tuple[int, int]], query: str) -> list[tuple[tuple[int, int], float]]:
    """The document's ``FILE_WIDE`` text blocks nearest the query by meaning outside the passage, with
    their cosines, best first: behind the passage's own (the provider's passage of the right file may
    not be the one that answers). A question in the other script than the file's body has its script's
    pull out of the cosines (``nearest_places_across``: an English cover line of a Chinese PDF is not
    the nearest block for an English question by its language alone). A running line (``running_places``:
    a margin stamp written on every page) is no place behind: it answers nothing, and came three times."""
    from bisect import bisect_right

    from mnote_kr.plugin_api import nearest_places_across

    key, starts = places(doc)
    inside = set(passage)
    running = running_places(doc) if NO_RUNNING else frozenset()
    out: list[tuple[tuple[int, int], float]] = []
    wanted = FILE_WIDE + len(inside) + (len(running) if running else 0)
    for n, cos in nearest_places_across(key, query, wanted, lambda: place_texts(doc)).items():
        pi = bisect_right(starts, n) - 1
        if 0 <= pi < len(doc.pages) and (pi, n - starts[pi]) not in inside and len(out) < FILE_WIDE \
                and n not in running and not doc_terms(doc).unfit((pi, n - starts[pi])):
            out.append(((pi, n - starts[pi]), cos))
    return out


def _by_meaning(doc: DocumentText, dt: DocTerms, passage: list[tuple[int, int]], query: str,
                words: dict[tuple[int, int], float]
                ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], float]] | None:
    """The passage's blocks ranked by ``words`` (word score of the blocks holding query terms) and
    meaning together, best first, and the cosine of each; None while the document's blocks have no
    vectors (or fewer than two blocks can be ranked)."""
    from mnote_kr.plugin_api import rank_by_meaning

    cands = [b for b in passage if b in words or len(dt.block(b).starts) >= MEANING_MIN_TOKENS]
    if not BY_MEANING or len(cands) < 2:
        return None
    key, starts = places(doc)
    number = {starts[pi] + bi: (pi, bi) for pi, bi in cands}
    ranked = rank_by_meaning(key, query, {i: words.get(b, 0.0) for i, b in number.items()})
    if ranked is None:
        return None
    score, cos = ranked
    order = sorted(number, key=lambda i: (-round(score[i], 9), i))
    return [number[i] for i in order], {b: cos.get(i, 0.0) for i, b in number.items()}


def _alone(doc: DocumentText, dt: DocTerms, passage: list[tuple[int, int]], query: str, b: tuple[int, int]
           ) -> tuple[float | None, list[tuple[tuple[int, int], float]]]:
    """The cosine of block ``b``, chosen by words where no two blocks could be ranked by meaning (the evidence
    window's only block), and the document's blocks nearest the query behind it (``WORD_PEERS``; else none, as
    before): the host orders a file's places by their cosines, and a place without one counted as its least
    meant (nc18a: the abstract sentence holding "BM25" and "top-20" fell behind a definition holding half the
    words)."""
    if not WORD_PEERS or not BY_MEANING:
        return None, []
    from mnote_kr.plugin_api import rank_by_meaning

    key, starts = places(doc)
    ranked = rank_by_meaning(key, query, {starts[b[0]] + b[1]: 1.0})
    if ranked is None or (starts[b[0]] + b[1]) not in ranked[1]:
        return None, []
    return ranked[1][starts[b[0]] + b[1]], [(r, c) for r, c in _wide(doc, passage, query) if r != b]


def _cluster_bonus(bt: BlockText, found: list[str]) -> float:
    """Up to 0.15 when the found terms sit within a few words of each other."""
    if len(found) < 2:
        return 0.0
    events = sorted((k, i) for i, t in enumerate(found) for k in bt.terms[t])
    need = len(found)
    have: Counter[int] = Counter()
    lo = 0
    width = None
    for hi in range(len(events)):
        have[events[hi][1]] += 1
        while len(have) == need:
            w = events[hi][0] - events[lo][0] + 1
            width = w if width is None else min(width, w)
            have[events[lo][1]] -= 1
            if not have[events[lo][1]]:
                del have[events[lo][1]]
            lo += 1
    if width is None:
        return 0.0
    if width <= 2 * need + 2:
        return 0.15
    return 0.08 if width <= 25 else 0.0


def _narrow(doc: DocumentText, b: tuple[int, int], hit_lines: list[int], query: str = "") -> list[int]:
    """The block's lines; for a table row the cell under the header the query names (``tableread``),
    else the one cell that holds the answer (the whole row when the answer spans cells or sits in
    the first cell, the row's name), within its own table when two are printed side by side
    (``rowparts.own_part``); for a long block the few lines around the answer."""
    return own_part(doc.pages[b[0]], b[1], _narrowed(doc, b, hit_lines, query), query)


def _narrowed(doc: DocumentText, b: tuple[int, int], hit_lines: list[int], query: str = "") -> list[int]:
    page = doc.pages[b[0]]
    lines = page.blocks[b[1]]
    named = tableread.named_cell(page, b[1], query) if query and b[1] in page.row_cells else None
    if named:
        return named
    if hit_lines and b[1] in page.table_rows:
        boxes = {li: reading_box(page, li) for li in lines}
        left = min(boxes[li][0] for li in lines)
        cells = [li for li in lines if any(min(boxes[li][2], boxes[h][2]) > max(boxes[li][0], boxes[h][0])
                                           for h in hit_lines)]
        one = all(min(boxes[a][2], boxes[b][2]) > max(boxes[a][0], boxes[b][0]) for a in cells for b in cells)
        if one and cells and min(boxes[li][0] for li in cells) > left + 0.5:
            return cells  # one cell, not the row's first (its name): the cell answers
        return list(lines)
    if len(lines) <= MAX_LINES or not hit_lines:
        return list(lines)
    at = {li: k for k, li in enumerate(lines)}
    ks = sorted(at[li] for li in hit_lines if li in at)
    if not ks:
        return list(lines)
    lo, hi = ks[0], ks[-1]
    if hi - lo > MAX_LINES // 2:  # scattered: keep the first answer's neighbourhood
        hi = lo
    return list(lines[max(0, lo - 2) : min(len(lines), hi + 3)])
