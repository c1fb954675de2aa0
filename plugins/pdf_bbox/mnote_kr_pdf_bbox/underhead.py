"""A heading chosen for a question gives way to the text block under it that answers.

"智能船舶附加标志中 Ri 表示什么？" shares most of its words with the heading "1.4 智能船舶附加标志"; the line
"Ri--远程控制功能标志" in the paragraph under it answers. A mind map's label ("热化学方程式") likewise only
names the node whose text ("放热反应，Q<0") answers "Q 小于 0 表示什么". The heading says what the section is
about, the block under it answers, as a table's title gives way to its row (``tablerows``) and a DOCX
title to the paragraph holding the asked attribute (the host's ``titles``). The rules:

- *Heading*: a short block (``HEAD_LINES`` lines, ``HEAD_CHARS`` characters) of words (letters are most of
  its characters: no formula, no figure), not ending a sentence, not a table's title, row or header cell
  (tables are ``tablerows``' and ``headvalues``'; nor when a table row of the passage holds the query's
  rarest word, ``Answer.rare_elsewhere``).
- *Under it*: the blocks after it as the text layer runs (the content stream, which puts a mind map's node
  text after its label, as a section's paragraphs follow its title), on its page and the next, up to
  ``UNDER_BLOCKS`` of them, tables' rows aside, down to the next heading of its rank: a numbered heading
  ("1.4", "5.1") ends at a number as deep or shallower, another heading at a heading as large at its left
  edge (a sibling).
- *Condition*: the query's content terms the heading does not hold (its *rest*), read from the query without
  the CJK runs it shares with the heading ("热化学方程式中" leaves "中", no "式中") and its question words; a
  word naming what a heading is ("section") is held. A query whose terms the heading holds (a phrase that is
  the heading's words, "what is X" of a heading X) keeps it.
- The block under it holding the most of the rest's weight (at least ``REST_SHARE`` of it; then the most
  of the query's weight, then the nearest by meaning, then the first) is the place, exact. Else, when the
  document's blocks have vectors, the block under it nearest the question by meaning, an approximate place.
  Else the heading stays, and is never claimed exact, nor behind another place (``lacks_terms``): it does not
  hold the question's words. A heading it gives way to by meaning gives way in turn (``NESTED``).
- *A table under it*: a read table row below the heading on its page whose label and header the query names
  (``tableread.cell_answer``: "Pennsylvania handgun checks in November 2015" under the title "NICS Firearm Background
  Checks") is the place, first: the table-row rule answers, as it would had the passage held that row, never the
  block the text layer draws after the heading ("November - 2015" holds the query's date, not its row).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from .answer import Answer, _narrow, weighed
from .blocks import MEANING_MIN_TOKENS, content_terms, doc_terms, fold, written_text
from .headvalues import _header_row
from .pdftext import DocumentText, PageText
from .tableread import cell_answer, extreme_answer, superlative
from .tablerows import table_title

#: False: a heading chosen for a question stays the place, as before (``benchmarks/heading_answers.py``).
GIVE_WAY = True
HEAD_LINES = 2
HEAD_CHARS = 40
#: The most blocks under a heading looked at (a long section's later paragraphs are another question's).
UNDER_BLOCKS = 12
#: Least share of the weight of the query's terms the heading lacks that a block under it must hold.
REST_SHARE = 0.5
#: Least share of a heading's characters (spaces aside) that are letters: "C(p, p) ← (1 − λ)" is no heading.
LETTERS = 0.6
#: Farthest a sibling heading's left edge stands from the heading's, in points.
SIBLING_X = 2.0
#: Headings under headings a question passes (``give_way``).
NESTED = 3

_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*)(?=[\s.、)）]|$)")
# asked with, never asked for: blanked before the query's rest is cut into bigrams ("代表什么" asks "代表", not "表什")
_QUESTION_WORDS = re.compile(r"为什么|什么|哪些|哪个|哪里|如何|怎么样|怎么|怎样|是否|多少|请问|吗|呢")
# what a heading is, held by being one ("what does section 7 Foo say" of the heading "7 Foo")
_NAMES_A_HEADING = frozenset("section chapter part heading title 章节 部分 标题".split())
_SENTENCE_END = re.compile(r"[.。!?！？;；]\s*$")


@dataclass(frozen=True)
class UnderHeading:
    """What the reason adds for a heading chosen for a question, and the claim."""

    why: str
    degraded: bool
    #: the heading's words (a question's words it holds are the place's too: ``locator``'s lacked words)
    heading: str = ""


def heading_like(page: PageText, bi: int) -> bool:
    """Whether block ``bi`` reads as a heading or a label: short, of words, ending no sentence, no table's row
    or title."""
    lines = page.blocks[bi]
    if not lines or len(lines) > HEAD_LINES or bi in page.table_rows or bi in page.row_cells:
        return False
    text = written_text(page, lines)
    chars = [ch for ch in text if not ch.isspace()]
    if not chars or len(text) > HEAD_CHARS or _SENTENCE_END.search(text) or table_title(page, bi) is not None \
            or _header_row(page, bi) is not None:  # a table's header cell: its values are ``headvalues``'
        return False
    return sum(ch.isalpha() for ch in chars) >= LETTERS * len(chars)


def _depth(text: str) -> int | None:
    m = _NUMBER.match(text)
    return len(m.group(1).split(".")) if m else None


def _stream_order(page: PageText) -> list[int]:
    """The page's blocks in content-stream order (where their first character is drawn)."""
    first = {bi: min((c for li in lines for c in page.stream[li]), default=1 << 30)
             for bi, lines in enumerate(page.blocks)}
    return sorted(first, key=lambda bi: (first[bi], bi))


def _sibling(page: PageText, head: int, other: PageText, bi: int) -> bool:
    """Whether block ``bi`` of page ``other`` looks like heading ``head``'s sibling: a heading as large, at its
    left edge (a mind map's next label; a node's text, right of its label, is under it)."""
    a, b = page.blocks[head][0], other.blocks[bi][0]
    return abs(page.lines[a][0] - other.lines[b][0]) <= SIBLING_X and other.size[b] >= page.size[a] - 0.5


def under(doc: DocumentText, head: tuple[int, int]) -> list[tuple[int, int]]:
    """The blocks under heading ``head`` (see the module docstring), in order."""
    pi, hb = head
    page = doc.pages[pi]
    depth = _depth(written_text(page, page.blocks[hb]))
    order = _stream_order(page)
    seq = [(pi, bi) for bi in order[order.index(hb) + 1:]]
    if pi + 1 < len(doc.pages):
        seq += [(pi + 1, bi) for bi in _stream_order(doc.pages[pi + 1])]
    out: list[tuple[int, int]] = []
    for b in seq:
        p = doc.pages[b[0]]
        lines = p.blocks[b[1]]
        if not lines or all(li in p.furniture for li in lines) or b[1] in p.table_rows or b[1] in p.row_cells:
            continue  # a table's row answers a question about its title or header by ``tablerows``' rules
        if heading_like(p, b[1]):
            d = _depth(written_text(p, lines))
            if d is not None and depth is not None and d <= depth or (d is None or depth is None) \
                    and _sibling(page, hb, p, b[1]):
                break  # the next heading of its rank: another section
        out.append(b)
        if len(out) >= UNDER_BLOCKS:
            break
    return out


def _rows_below(page: PageText, pi: int, head: int) -> list[tuple[int, int]]:
    """The read table rows of ``page`` standing below heading ``head`` (top to bottom)."""
    bottom = max(page.lines[li][3] for li in page.blocks[head])
    top = {bi: min(page.lines[li][1] for li in page.blocks[bi]) for bi in page.row_cells if page.blocks[bi]}
    return [(pi, bi) for bi in sorted(top, key=lambda bi: top[bi]) if top[bi] >= bottom]


def _blanked(query: str, heading: str) -> str:
    """``query`` (folded) with the CJK runs it shares with ``heading`` blanked: "热化学方程式中 Q 代表什么" under
    "热化学方程式" asks " 中 Q 代表什么" (not "式中", a bigram of the heading's words run on)."""
    from difflib import SequenceMatcher

    q, h = _QUESTION_WORDS.sub(lambda m: " " * len(m.group()), fold(query)), fold(heading)
    while True:
        m = SequenceMatcher(None, q, h, autojunk=False).find_longest_match(0, len(q), 0, len(h))
        if m.size < 2 or not any(_cjk(ch) for ch in q[m.a:m.a + m.size]):
            return q
        q = q[:m.a] + " " * m.size + q[m.a + m.size:]


def give_way(doc: DocumentText, ans: Answer, query: str, depth: int = NESTED) -> tuple[Answer, UnderHeading | None]:
    """``ans`` moved from a heading chosen for ``query`` to the block under it that answers, or kept and
    claimed approximate; ``(ans, None)`` when ``ans`` is no heading chosen by words or meaning, or the
    heading holds every term of the query. A heading under a heading, chosen by meaning, gives way in turn (a
    mind map's title to a label, the label to its node), ``depth`` steps at most."""
    moved, note = _give_way(doc, ans, query)
    if note is None or not note.degraded or moved.block == ans.block or depth <= 1:
        return moved, note  # the block under it holds the words the heading lacks: the two answer
    again, more = give_way(doc, moved, query, depth - 1)
    return (again, UnderHeading(more.why, note.degraded or more.degraded, f"{note.heading}\n{more.heading}")) \
        if more is not None else (moved, note)


def _give_way(doc: DocumentText, ans: Answer, query: str) -> tuple[Answer, UnderHeading | None]:
    if not GIVE_WAY or ans.block is None or ans.rule not in ("terms", "meaning") or ans.rare_elsewhere:
        return ans, None  # (a table's row holding the query's rarest word answers: ``tablerows``' rules)
    pi, hb = ans.block
    if not heading_like(doc.pages[pi], hb):
        return ans, None
    dt = doc_terms(doc)
    title = written_text(doc.pages[pi], doc.pages[pi].blocks[hb])
    rest = _rest(doc, ans.block, query, title)
    if not rest:
        return ans, None
    cell = cell_answer(doc.pages, _rows_below(doc.pages[pi], pi, hb), query)
    if cell is not None:  # the table under it names the row and the column asked: ``tablerows``' place, not text
        b, lines = cell
        why = f"; the heading {title!r} holds the query's topic: boxed on the cell of its table the query names " \
              "by its row's label and its header"
        cos = _cosines(doc, [b], query)
        found = sum(t in dt.block(b).terms for t in rest | set(content_terms(query)))
        return dataclasses.replace(ans, block=b, rule="cell", share=1.0, found=found, lines=lines,
                                   meaning=cos.get(b, ans.meaning), rare_elsewhere=False,
                                   runners_up=[(ans.block, ans.meaning)] + [r for r in ans.runners_up if r[0] != b]
                                   ), UnderHeading(why, False, title)
    extreme = extreme_answer(doc.pages, _rows_below(doc.pages[pi], pi, hb), query)
    if extreme is not None:  # "which state had the most checks": the table under it ranks its rows
        b, lines, header, value = extreme
        why = f"; the heading {title!r} holds the query's topic: boxed on the row of its table holding the " \
              f"{'highest' if superlative(query) else 'lowest'} {header} ({value})"
        cos = _cosines(doc, [b], query)
        return dataclasses.replace(ans, block=b, rule="extreme", share=1.0, found=len(rest), lines=lines,
                                   meaning=cos.get(b, ans.meaning), rare_elsewhere=False,
                                   runners_up=[(ans.block, ans.meaning)] + [r for r in ans.runners_up if r[0] != b]
                                   ), UnderHeading(why, False, title)
    kept, weight = weighed(dt, query, content_terms(query))
    terms = set(kept) | rest
    weight = {t: weight.get(t, math.log((dt.n + 1) / (dt.df.get(t, 0) + 0.5))) for t in terms}
    held = {t for t in terms if t in dt.block(ans.block).terms}
    cands = under(doc, ans.block)
    rest_total = sum(weight[t] for t in rest)
    cos = _cosines(doc, cands + [ans.block], query)

    def has(b: tuple[int, int], ts: set[str]) -> float:
        return sum(weight[t] for t in ts if t in dt.block(b).terms)

    worded = [b for b in cands if has(b, rest) >= REST_SHARE * rest_total - 1e-9]
    if worded:
        b = max(worded, key=lambda b: (round(has(b, rest), 9), round(has(b, terms), 9), cos.get(b, 0.0),
                                       -cands.index(b)))
        found = sum(t in dt.block(b).terms for t in rest)
        why = f"; the heading {title!r} holds the query's topic ({len(held)} of its {len(terms)} content terms): " \
              f"boxed on the text block under it holding {found} of the {len(rest)} others"
        setting = _only_setting(doc, b, query)
        if setting:
            why += setting
        return _moved(doc, ans, b, query, terms, has(b, terms) / sum(weight.values()), cos), \
            UnderHeading(why, bool(setting), title)
    near = [b for b in cands if b in cos and len(dt.block(b).starts) >= MEANING_MIN_TOKENS]
    if near:
        b = max(near, key=lambda b: (cos[b], -cands.index(b)))
        why = f"; the heading {title!r} holds {len(held)} of the query's {len(terms)} content terms: boxed on " \
              "the text block under it nearest the query by meaning, which holds few of the others: an " \
              "approximate place"
        return _moved(doc, ans, b, query, terms, has(b, terms) / sum(weight.values()), cos), \
            UnderHeading(why, True, title)
    why = f"; a heading holding {len(held)} of the query's {len(terms)} content terms, no text under it holding " \
          "the others: an approximate place"
    return ans, UnderHeading(why, True, title)


def _only_setting(doc: DocumentText, b: tuple[int, int], query: str) -> str:
    """What the reason adds when block ``b`` cannot answer the superlative ``query`` asks ("which state had the
    most checks in November 2015" of the label "November - 2015"): it holds no superlative and no figure the
    query does not hold, only the question's setting words; "" when it can."""
    if superlative(query) is None:
        return ""
    text = written_text(doc.pages[b[0]], doc.pages[b[0]].blocks[b[1]])
    asked = set(_FIGURE.findall(query))
    if superlative(text) is not None or any(f not in asked for f in _FIGURE.findall(text)):
        return ""
    return "; the query asks which holds the most or least, this block holds only its setting (no figure of its " \
           "own): an approximate place"


_FIGURE = re.compile(r"\d[\d,.]*")


def lacks_terms(doc: DocumentText, b: tuple[int, int], query: str) -> bool:
    """Whether block ``b`` is a heading that lacks some of ``query``'s content terms (``_rest``): never an exact
    place for that query."""
    if not GIVE_WAY or not heading_like(doc.pages[b[0]], b[1]):
        return False
    return bool(_rest(doc, b, query, written_text(doc.pages[b[0]], doc.pages[b[0]].blocks[b[1]])))


def _rest(doc: DocumentText, b: tuple[int, int], query: str, heading: str) -> set[str]:
    """The content terms of ``query`` heading ``b`` does not hold, read from the query without the CJK runs the
    heading shares with it (``_blanked``): the words it holds, the CJK words the document lacks too (a word
    asked for), never a lone CJK character (中, 的: a particle left by the blanking)."""
    dt = doc_terms(doc)
    own = dt.block(b).terms
    return {t for t in content_terms(_blanked(query, heading))
            if t not in own and t not in _NAMES_A_HEADING and not (len(t) == 1 and _cjk(t))}


def _cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def _moved(doc: DocumentText, ans: Answer, b: tuple[int, int], query: str, terms: set[str], share: float,
           cos: dict[tuple[int, int], float]) -> Answer:
    """``ans`` at block ``b``, the heading first behind it."""
    dt = doc_terms(doc)
    hits = sorted({dt.block(b).line_at[dt.block(b).starts[k]] for t in terms if t in dt.block(b).terms
                   for k in dt.block(b).terms[t]})
    runners = [(ans.block, ans.meaning)] + [r for r in ans.runners_up if r[0] != b]
    return dataclasses.replace(ans, block=b, share=share, found=sum(t in dt.block(b).terms for t in terms),
                               terms=len(terms), lines=_narrow(doc, b, hits, query), meaning=cos.get(b, ans.meaning),
                               runners_up=runners, rare_elsewhere=False)


def _cosines(doc: DocumentText, blocks: list[tuple[int, int]], query: str) -> dict[tuple[int, int], float]:
    """Each block's cosine with the query, when the document's blocks have vectors; {} otherwise."""
    from mnote_kr.plugin_api import rank_by_meaning

    from .answer import BY_MEANING
    from .blocks import places

    if not BY_MEANING or not blocks:
        return {}
    key, starts = places(doc)
    number = {starts[pi] + bi: (pi, bi) for pi, bi in blocks}
    ranked = rank_by_meaning(key, query, {i: 0.0 for i in number})
    if ranked is None:
        return {}
    return {number[i]: c for i, c in ranked[1].items() if i in number}
