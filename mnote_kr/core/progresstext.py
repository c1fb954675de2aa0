"""A progress line that carries its facts as data, and how its times and names read.

Progress callbacks take a ``str`` (plugins' and the CLI's alike); a :class:`ProgressText` is one,
so every callback prints it as before, and the HTTP API's job progress adds its ``detail`` to the
line (``server/jobs.py``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: How many files a line names before "and N more".
NAMES_SHOWN = 3


class ProgressText(str):
    """A progress line with its facts as data (``detail``: camelCase keys, JSON-ready)."""

    detail: dict[str, Any]

    def __new__(cls, text: str, detail: dict[str, Any]) -> ProgressText:
        obj = super().__new__(cls, text)
        obj.detail = detail
        return obj


def elapsed_text(seconds: float) -> str:
    """``42 s``, ``3m 46s``, ``1h 02m``: how long, as a person reads it."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def names_text(names: Sequence[str], shown: int = NAMES_SHOWN) -> str:
    """``a.pdf, b.docx, c.md and 6 more``."""
    head = ", ".join(names[:shown])
    return head + (f" and {len(names) - shown} more" if len(names) > shown else "")


@contextlib.contextmanager
def repeating(say: Callable[[], None], every: float) -> Iterator[None]:
    """Call ``say()`` every ``every`` seconds until the block ends: a step's line said again, with its time so
    far, while one long part of the step runs (a batch, a page) and nothing else would say anything."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            say()

    thread = threading.Thread(target=beat, name="mnote-kr-progress-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


#: Least seconds a pace is measured over before a time left is said from it: two batches ending together (a file's
#: places already embedded, counted at once) gave nc24c "about 0 s" left at 780/1404 paragraphs.
PACE_MIN_S = 3.0


def time_left(first: tuple[float, float] | None, now: tuple[float, float], total: float) -> float | None:
    """Seconds a step of like units (the paragraphs a step embeds) has left of ``total``, at the rate since its
    first batch ended (``first``: when, how many done; a model's start-up falls in that batch and would skew
    it), or None until a later batch has ended ``PACE_MIN_S`` after it: the rate is not known before.
    ``meaning.embed_queued`` says it (nc24a waited 1m 05s on "embedding places 0/2502" with no idea how long); a
    wait for the provider does not (``waitprogress``: its files differ a thousandfold)."""
    if first is None or now[1] <= first[1] or now[0] - first[0] < PACE_MIN_S:
        return None
    rate = (now[1] - first[1]) / (now[0] - first[0])
    return max(0.0, (total - now[1]) / rate)
