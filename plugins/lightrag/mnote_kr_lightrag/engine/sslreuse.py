"""One default TLS context per engine process instead of one per embedding call.

LightRAG 1.5.7's OpenAI binding builds a new ``AsyncOpenAI`` client for every embedding request,
and each client's HTTP transport builds a new default ``ssl.SSLContext``, loading the system's
CA bundle from disk: measured in the managed engine at 300-500 documents, that was a fifth of
the server's busy time (docs/engine-storage.md), although the engine talks plain HTTP to the
offline model service on loopback. :func:`install` makes the transports of ``httpx2`` (what the
openai package uses here) and ``httpx`` reuse one context per ``trust_env`` value when the
default verification is asked for (``verify=True``, no client certificate). The context is the
same as before: built once by the library's own function, with the same CA files; an explicit
context, a CA path or a client certificate still gets a fresh one.
"""

from __future__ import annotations

import importlib
import ssl
import threading
from collections.abc import Callable
from typing import Any

#: The transports' modules, which import ``create_ssl_context`` by name.
MODULES = ("httpx2._transports.default", "httpx._transports.default")


def reusing(create: Callable[..., ssl.SSLContext]) -> Callable[..., ssl.SSLContext]:
    """``create`` (a ``create_ssl_context``) that returns one shared context for the default case."""
    cache: dict[bool, ssl.SSLContext] = {}
    lock = threading.Lock()

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is not True or cert is not None:
            return create(verify=verify, cert=cert, trust_env=trust_env)
        with lock:
            ctx = cache.get(bool(trust_env))
            if ctx is None:
                ctx = cache[bool(trust_env)] = create(verify=True, cert=None, trust_env=trust_env)
            return ctx

    create_ssl_context.__wrapped__ = create  # type: ignore[attr-defined]
    return create_ssl_context


def install() -> list[str]:
    """Point each importable transport module at a reusing ``create_ssl_context``; return their names."""
    done = []
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        current = getattr(module, "create_ssl_context", None)
        if current is not None and not hasattr(current, "__wrapped__"):
            module.create_ssl_context = reusing(current)  # type: ignore[attr-defined]
            done.append(name)
    return done
