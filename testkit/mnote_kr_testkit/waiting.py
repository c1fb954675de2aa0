"""Waiting on a condition in tests: poll it until it holds, with a generous deadline.

The deadline only keeps a broken run from hanging; the test goes on the moment the condition
holds, so a loaded machine makes it slower, never wrong.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T | None], *, timeout_s: float, what: str | Callable[[], str],
               poll_s: float = 0.05) -> T:
    """Return ``condition()``'s first truthy value; ``AssertionError`` naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(what() if callable(what) else what)
        time.sleep(poll_s)
