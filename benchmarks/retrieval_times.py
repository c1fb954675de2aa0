"""Per-question search time of ``benchmarks/retrieval.py``'s runs (each run's ``ms``: question ->
[whole search ms, LightRAG's answer ms, times asked again]; dumps before round 29 hold the first two only)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def answered(search: Callable[[], Any], *, tries: int, retry_on: type[BaseException],
             on_retry: Callable[[str], object], clock: Callable[[], float] = time.perf_counter
             ) -> tuple[Any, float, int]:
    """``search()``, asked again (at most ``tries`` times) while it raises ``retry_on`` (``on_retry`` told each
    error): its answer, the answered attempt's time in ms and how many times it was asked again. A timeout before
    it is not in its time (review r29 finding 9: each 30 s LightRAG timeout was, and made the p95)."""
    for attempt in range(tries):
        t0 = clock()
        try:
            result = search()
        except retry_on as exc:
            if attempt + 1 == tries:
                raise
            on_retry(str(exc))
            continue
        return result, (clock() - t0) * 1000, attempt
    raise ValueError("tries must be at least 1")


def print_times(runs: dict[str, dict[str, Any]]) -> None:
    """Per question, each run's search time in a process that has searched before (model loaded,
    each question new to it): p50 and p95 of the host's side (the whole search minus LightRAG's
    answer, which a pass after a question's first may get from LightRAG's cache) and of the whole
    search, with how many searches were asked again (a timeout first: their time is the answered attempt's), and
    the p95 difference against the first run (the default). Runs made question by
    question (``interleaved``) share the machine's load; older dumps searched pass after pass."""
    timed = {n: r["ms"] for n, r in runs.items() if r.get("ms")}
    if not timed:
        return
    base = next(iter(timed))

    def pct(values: list[float], q: float) -> float:
        return float(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]) if len(values) > 1 \
            else (values[0] if values else 0.0)

    host = {n: [v[0] - v[1] for v in ms.values()] for n, ms in timed.items()}
    wall = {n: [v[0] for v in ms.values()] for n, ms in timed.items()}
    again = {n: sum(1 for v in ms.values() if len(v) > 2 and v[2]) for n, ms in timed.items()}
    order = ("passes question by question, their order turned each question" if runs[base].get("interleaved")
             else f"{base} searched first, from a cold start; each pass after the one before")
    print(f"\nsearch time per question, ms (host side = the search minus LightRAG's answer; {order}):")
    for n in timed:
        print(f"  [{n}] {len(host[n])} searches: host side p50 {pct(host[n], 50):.0f} p95 {pct(host[n], 95):.0f}; "
              f"whole search p50 {pct(wall[n], 50):.0f} p95 {pct(wall[n], 95):.0f}"
              f" ({again[n]} search{'' if again[n] == 1 else 'es'} asked again)"
              + ("" if n == base else f"; host-side p95 vs {base}: {pct(host[n], 95) - pct(host[base], 95):+.0f}"))
