"""Per-question search time of ``benchmarks/retrieval.py``'s runs (each run's ``ms``: question ->
[whole search ms, LightRAG's answer ms])."""

from __future__ import annotations

import statistics
from typing import Any


def print_times(runs: dict[str, dict[str, Any]]) -> None:
    """Per question, each run's search time in a process that has searched before (model loaded,
    each question new to it): p50 and p95 of the host's side (the whole search minus LightRAG's
    answer, which a pass after a question's first may get from LightRAG's cache) and of the whole
    search, and the p95 difference against the first run (the default). Runs made question by
    question (``interleaved``) share the machine's load; older dumps searched pass after pass."""
    timed = {n: r["ms"] for n, r in runs.items() if r.get("ms")}
    if not timed:
        return
    base = next(iter(timed))

    def pct(values: list[float], q: float) -> float:
        return float(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]) if len(values) > 1 \
            else (values[0] if values else 0.0)

    host = {n: [w - p for w, p in ms.values()] for n, ms in timed.items()}
    wall = {n: [w for w, _ in ms.values()] for n, ms in timed.items()}
    order = ("passes question by question, their order turned each question" if runs[base].get("interleaved")
             else f"{base} searched first, from a cold start; each pass after the one before")
    print(f"\nsearch time per question, ms (host side = the search minus LightRAG's answer; {order}):")
    for n in timed:
        print(f"  [{n}] {len(host[n])} searches: host side p50 {pct(host[n], 50):.0f} p95 {pct(host[n], 95):.0f}; "
              f"whole search p50 {pct(wall[n], 50):.0f} p95 {pct(wall[n], 95):.0f}"
              + ("" if n == base else f"; host-side p95 vs {base}: {pct(host[n], 95) - pct(host[base], 95):+.0f}"))
