"""How many e5 forward passes one process runs at once, however many threads ask for vectors.

The offline model service answers LightRAG's embedding requests on up to 16 handler threads
(LightRAG sends 8 at once); each pass holds its own working memory (a few hundred MB for a full
batch of 512-token windows), so the passes running at once are bounded by the cores (at most 4), not
by the callers."""

from __future__ import annotations

import sys
import threading
import time
import types
from typing import Any

import numpy as np
import pytest

from mnote_kr.citations.rank import e5, e5_onnx
from mnote_kr.core.procs import usable_cpus


def test_e5_runs_at_most_one_forward_pass_per_core_however_many_threads_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    model = e5.model()
    bound = min(4, usable_cpus())  # one per core this process may run on, at most 4
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
    waiting_code = threading.Condition.wait.__code__  # a semaphore's acquire, an event's wait

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


def test_e5_gives_a_freed_pass_to_a_waiting_query_before_the_bulk_passes_queued_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A search embeds its query (one short pass) in the process that embeds an ingest's chunks or
    places: the model service (LightRAG's query and ingest requests), the host's HTTP API (a search
    during an ingest job). The query waits for one running pass to end, not for every bulk pass
    queued before it: measured on 2 cores, a query request to the model service while LightRAG-sized
    ingest requests were in flight answered in 16-22 s behind them (0.3-0.4 s with no bound)."""
    model = e5.model()
    bound = e5_onnx.passes()
    state = threading.Condition()
    inside: set[int] = set()
    began: list[int] = []  # threads in the order their passes began
    may_end = 0  # passes the test lets end
    end_all = False

    class SteppedSession:
        """Stands in for onnxruntime: a pass ends when the test lets it."""

        def run(self, _names: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
            nonlocal may_end
            me = threading.get_ident()
            with state:
                inside.add(me)
                began.append(me)
                state.notify_all()
                while not (end_all or may_end):
                    state.wait()
                may_end = max(0, may_end - 1)
                inside.discard(me)
                state.notify_all()
            return [np.ones(feeds["emb"].shape, np.float32)]

    monkeypatch.setattr(model, "_session", SteppedSession())
    forward_code, waiting_code = e5.E5._forward.__code__, threading.Condition.wait.__code__

    def waiting(ident: int) -> bool:
        """The thread waits for a pass to begin (not inside one, not waiting for its pool)."""
        codes = set()
        frame = sys._current_frames().get(ident)
        while frame is not None:
            codes.add(frame.f_code)
            frame = frame.f_back
        return ident not in inside and {forward_code, waiting_code} <= codes

    words = " ".join(f"clause {i} of the supply agreement binds the seller" for i in range(60)).split()
    bulk = [" ".join(words[:n]) for n in (100, 150, 220, 330)]  # four passes a call (lengths apart)
    out: list[np.ndarray] = []
    callers = [threading.Thread(target=lambda: out.append(model.embed(bulk))) for _ in range(3)]
    query = threading.Thread(target=lambda: out.append(model.embed(["how long is the warranty"], query=True)))
    try:
        for t in callers:
            t.start()
        deadline = time.monotonic() + 60
        with state:
            # every place taken by a bulk pass, and bulk passes waiting for one
            while not (len(inside) == bound and any(waiting(t.ident) for t in threading.enumerate()
                                                    if t.ident is not None)):
                assert time.monotonic() < deadline, (len(inside), bound)
                state.wait(0.05)
        query.start()
        with state:
            while not waiting(query.ident or 0):
                assert time.monotonic() < deadline
                state.wait(0.05)
            n = len(began)
            may_end = 1  # one bulk pass ends: its place goes to the query
            state.notify_all()
            while len(began) == n:
                assert time.monotonic() < deadline
                state.wait(0.05)
            assert began[n] == query.ident, "a bulk pass queued before the query began first"
    finally:
        with state:
            end_all = True
            state.notify_all()
        for t in [*callers, query]:
            t.join(60)
    assert len(out) == 4 and sorted(v.shape[0] for v in out) == [1, 4, 4, 4]


@pytest.mark.parametrize("handed", [False, True], ids=["while-waiting", "after-its-turn-came"])
def test_e5_pass_interrupted_while_waiting_for_a_place_leaves_no_place_taken(
        monkeypatch: pytest.MonkeyPatch, handed: bool) -> None:
    """Ctrl-C in a thread waiting for a place (the CLI's main thread embeds): the place is neither
    kept by the interrupted pass nor handed to it after it left, so later passes still run."""
    gate = e5.Passes(1)
    holder = gate.place(400)
    holder.__enter__()

    class Interrupted(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            if handed:
                holder.__exit__(None, None, None)  # the running pass ends: its place goes to this waiter
            raise KeyboardInterrupt

    monkeypatch.setattr(e5, "threading", types.SimpleNamespace(Event=Interrupted))
    with pytest.raises(KeyboardInterrupt), gate.place(10):
        pass
    monkeypatch.undo()
    if not handed:
        holder.__exit__(None, None, None)
    held: list[Any] = []  # places taken and kept (a dropped context would give its place back)

    def take() -> None:
        held.append(gate.place(10))
        held[-1].__enter__()

    later = threading.Thread(target=take, daemon=True)  # takes the one place, keeps it
    later.start()
    later.join(30)
    assert not later.is_alive(), "the place was lost to the interrupted pass"
    blocked = threading.Thread(target=take, daemon=True)
    blocked.start()
    deadline = time.monotonic() + 30
    while blocked.is_alive() and not _parked(blocked.ident or 0):
        assert time.monotonic() < deadline
        blocked.join(0.01)
    assert blocked.is_alive(), "two passes held the one place"
    held[0].__exit__(None, None, None)  # the first thread's pass ends: the second one's begins
    blocked.join(30)
    assert not blocked.is_alive()


def _parked(ident: int) -> bool:
    """The thread waits in a condition (a semaphore's acquire, an event's wait)."""
    frame = sys._current_frames().get(ident)
    while frame is not None:
        if frame.f_code is threading.Condition.wait.__code__:
            return True
        frame = frame.f_back
    return False
