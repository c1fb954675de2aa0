"""Count the calls a memo should save: wrap a function, keep calling it, record each argument."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def count_calls(monkeypatch: Any, owner: object, name: str) -> tuple[list[Any], Callable[..., Any]]:
    """Replace ``owner.name`` with a wrapper that records each call's first argument and calls the real one.
    Returns the list the calls go into and the real function (for the expected answers)."""
    real = getattr(owner, name)
    calls: list[Any] = []

    def counted(first: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(first)
        return real(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls, real
