"""A question asking the largest figure leads with the place stating it (``extremes.EXTREME_LEADS``, off by default:
measured in ``docs/embeddings.md``).

nc26b Q14 (round 26, ``pdfjs__tracemonkey.pdf``): "TraceMonkey 比 SpiderMonkey 解释器最多快多少倍？" led with the
abstract's "2x-20x speedup" (p2, exact, 0.800), the evaluation's "25 times faster than the SpiderMonkey interpreter"
(p11, a passage cited without a cosine) second."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mnote_kr.citations.render import extremes, folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

QUESTION = "TraceMonkey 比 SpiderMonkey 解释器最多快多少倍？"
ABSTRACT = ("We implemented these techniques for an existing JavaScript interpreter, SpiderMonkey. We call the "
            "resulting tracing VM Trace-Monkey. TraceMonkey supports all the JavaScript features of SpiderMonkey, "
            "with a 2x-20x speedup for traceable programs.")
RESULTS = ("For one of the benchmark programs we execute 25 times faster than the SpiderMonkey interpreter, and almost "
           "5 times faster than V8 and SFX.")
BULLET = ("We validate our tracing techniques in an implementation based on the SpiderMonkey JavaScript interpreter, "
          "achieving 2x-20x speedups on many programs.")


def _place(page: int, words: str, cos: float | None, query: str, *, first: bool = False, exact: bool = False) -> Any:
    loc = Locator(locator_precision="bbox", locator_degraded=not exact, page=page, bbox=[1.0, 2.0, 3.0, float(page)],
                  meaning_score=cos, place_text=None if first else words, quote=words)
    return msgspec.structs.replace(citation(f"[p{page}]", words), locator=loc, locator_precision="bbox",
                                   locator_degraded=not exact, search_query=query,
                                   display_quote=words if first else None)


def _pages(query: str) -> list[int | None]:
    places = [_place(2, ABSTRACT, 0.799727, query, first=True, exact=True), _place(11, RESULTS, None, query),
              _place(3, BULLET, 0.747749, query)]
    return [c.locator.page for c in folding.behind_by_meaning(places)]


def test_the_largest_figure_asked_for_leads_when_the_rule_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _pages(QUESTION)[0] == 2  # off (the default): the abstract keeps its lead
    monkeypatch.setattr(extremes, "EXTREME_LEADS", True)
    assert _pages(QUESTION) == [11, 2, 3]
    assert _pages("How much faster than the SpiderMonkey interpreter is TraceMonkey at most?")[0] == 11
    # a question asking no extreme, or the smallest, keeps the order
    assert _pages("TraceMonkey 比 SpiderMonkey 解释器快多少倍？")[0] == 2
    assert _pages("TraceMonkey 比 SpiderMonkey 解释器最少快多少倍？")[0] == 2
