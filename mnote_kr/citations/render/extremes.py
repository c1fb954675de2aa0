"""A question asking the largest or the smallest figure ("最多快多少倍", "at most how many", "the maximum speedup"):
of a file's places stating the kind of answer asked, the one stating the largest (smallest) figure leads.

nc26b Q14 (round 26): "TraceMonkey 比 SpiderMonkey 解释器最多快多少倍？" led with the abstract's "2x-20x speedup"
(p2), the evaluation's "we execute 25 times faster than the SpiderMonkey interpreter" (p11) second.

Off (``EXTREME_LEADS``): measured on r26's dump (refold), it moved one first place of the 11 tuning questions asking
a largest or smallest figure, tb_zh12 ("更改水平安定面配线的零件费用最多多少美元"), from a wrong page to the right
page's cost row by its largest sum (a total, not the parts cost asked), and no place@1 anywhere; the held-out sets did
not move. Most such questions ask a limit ("最多能占多少公顷", "最大面积是多少"), answered by the place stating it
("不宜超过 4.0 公顷"), which need not hold the file's largest figure: no evidence the rule is sound beyond Q14.
"""

from __future__ import annotations

from collections.abc import Callable

from mnote_kr.citations.rank.cues import answer_types, type_figures
from mnote_kr.citations.rank.ranking import fold
from mnote_kr.citations.text.textnorm import lazy_compile
from mnote_kr.models import Citation

__all__ = ["EXTREME_LEADS", "extreme_place"]

#: Off: measured below the bar (module docstring; ``benchmarks/retrieval.py --refold``).
EXTREME_LEADS = False
_MOST_RE = lazy_compile(r"最多|最高|最大|最快|最长|至多|\bat\s+most\b|\bmaximum\b|\bmax\b|\bup\s+to\b|\bhighest\b"
                        r"|\blargest\b|\bbiggest\b|\bfastest\b|\blongest\b|\bpeak\b|\bthe\s+most\b")
_LEAST_RE = lazy_compile(r"最少|最低|最小|最短|至少|\bat\s+least\b|\bminimum\b|\bmin\b|\blowest\b|\bsmallest\b"
                         r"|\bshortest\b|\bthe\s+least\b")
#: Kinds whose figures compare (a count of things or a date does not say "more" the same way).
_KINDS = ("money", "percent", "duration", "distance", "size", "speed", "ratio")


def extreme_place(first: Citation, behind: list[Citation], eligible: Callable[[Citation], bool],
                  words: Callable[[Citation], str]) -> Citation | None:
    """The place of ``first`` and ``behind`` stating the largest (smallest) figure of the kind its question asks,
    among those ``eligible`` (stating the kind beside the question's words), when it is not ``first``; else None."""
    query = fold(" ".join((first.search_query or "").split()))
    if not EXTREME_LEADS or not query:
        return None
    most, least = _MOST_RE.search(query) is not None, _LEAST_RE.search(query) is not None
    kinds = [k for k in answer_types(query) if k in _KINDS]
    if most == least or not kinds:
        return None

    def figure(c: Citation) -> float | None:
        text = fold(" ".join(words(c).split()))
        found = [f for k in kinds for f in type_figures(k, text)]
        return (max(found) if most else min(found)) if found else None

    scored = [(f, c) for c in [first, *behind] if (f := figure(c)) is not None and (c is first or eligible(c))]
    if not scored:
        return None
    best = max(scored, key=lambda t: t[0]) if most else min(scored, key=lambda t: t[0])
    mine = figure(first)
    return None if best[1] is first or mine is not None and mine == best[0] else best[1]
