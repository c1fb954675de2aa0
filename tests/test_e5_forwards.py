"""How many e5 forward passes one process runs at once, however many threads ask for vectors.

The offline model service answers LightRAG's embedding requests on up to 16 handler threads
(LightRAG sends 8 at once); each pass holds its own working memory (a few hundred MB for a full
batch of 512-token windows), so the passes running at once are bounded by the cores (at most 4), not
by the callers."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest

from mnote_kr.citations.rank import e5


def test_e5_runs_at_most_one_forward_pass_per_core_however_many_threads_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    model = e5.model()
    bound = min(4, os.cpu_count() or 1)  # one per core, at most 4
    callers = 8  # LightRAG's requests in flight, each on a handler thread of the model service
    state = threading.Condition()
    inside: set[int] = set()
    entered: set[int] = set()
    most = 0
    release = threading.Event()

    class BlockingSession:
        """Stands in for onnxruntime: a pass stays inside until the test releases every pass."""

        def run(self, _names: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
            nonlocal most
            with state:
                inside.add(threading.get_ident())
                most = max(most, len(inside))
                state.notify_all()
            release.wait(60)
            with state:
                inside.discard(threading.get_ident())
            return [np.ones(feeds["emb"].shape, np.float32)]

    forward = e5.E5._forward

    def counted(self: e5.E5, seqs: list[list[int]]) -> np.ndarray:
        with state:
            entered.add(threading.get_ident())
            state.notify_all()
        return forward(self, seqs)

    monkeypatch.setattr(model, "_session", BlockingSession())
    monkeypatch.setattr(e5.E5, "_forward", counted)
    waiting_code = threading.Semaphore.acquire.__code__

    def parked(ident: int) -> bool:
        """The thread is blocked waiting for a pass to finish (not computing one)."""
        frame = sys._current_frames().get(ident)
        while frame is not None:
            if frame.f_code is waiting_code:
                return True
            frame = frame.f_back
        return False

    out: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda i=i: out.append(model.embed([f"text number {i}"])))
               for i in range(callers)]
    for t in threads:
        t.start()
    try:
        deadline = time.monotonic() + 60
        with state:
            # settled: every caller has started its pass and is either inside one or waiting its turn
            while not (len(entered) == callers and len(inside) >= min(bound, callers)
                       and all(i in inside or parked(i) for i in entered)):
                assert time.monotonic() < deadline, (len(entered), len(inside))
                state.wait(0.05)
            assert most == bound, f"{most} passes ran at once (at most {bound} may)"
    finally:
        release.set()
        for t in threads:
            t.join(60)
    assert len(out) == callers and all(v.shape == (1, e5.DIM) for v in out)
