"""Module constants set for one variant of ``benchmarks/retrieval.py`` (``py:MODULE.NAME=VALUE``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def code_overrides(code: dict[str, Any]) -> Iterator[None]:
    """Module constants set for one variant (``py:MODULE.NAME=VALUE``, e.g. today's default of a
    locator beside the new one), with the remembered locate answers bypassed while they hold."""
    import importlib

    from mnote_kr.citations import pipeline
    from mnote_kr.citations.caches import answercache

    if not code:
        yield
        return
    before: list[tuple[Any, str, Any]] = []
    saved = answercache.get, answercache.put
    try:
        for key, value in code.items():
            module, _, name = key.rpartition(".")
            mod = importlib.import_module(module)
            before.append((mod, name, getattr(mod, name)))
            setattr(mod, name, value)
        answercache.get, answercache.put = (lambda name: None), (lambda name, locator: None)
        pipeline._locator_memo.clear()
        yield
    finally:
        for mod, name, value in before:
            setattr(mod, name, value)
        answercache.get, answercache.put = saved
        pipeline._locator_memo.clear()
