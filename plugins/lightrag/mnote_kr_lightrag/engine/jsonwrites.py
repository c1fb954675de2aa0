"""LightRAG's whole-file JSON writes through a fast encoder (the managed engine's process only).

LightRAG 1.5.7 commits every document by rewriting each JSON store whole: its key-value stores
(``write_json``: full documents, chunks, doc status, ...) with ``json.dump(..., indent=2)``,
NanoVectorDB and Faiss's metadata with ``json.dump``. ``json.dump`` always runs the stdlib's
pure-Python encoder (its C encoder serves only ``json.dumps`` without ``indent``); at 300
documents these encodes were most of the server's busy time (docs/engine-storage.md).
:func:`install` gives exactly those modules a ``json`` whose ``dump`` writes the same JSON value,
compact, through msgspec's encoder (about 6x faster than the pure-Python one), else the stdlib's
C encoder. LightRAG reads the files back with ``json.load`` as before. A custom encoder
(LightRAG's sanitising fallback) still goes through the stdlib's ``json.dump``; a string that
cannot be written as UTF-8 still raises ``UnicodeEncodeError`` at the write, which is what sends
LightRAG to that fallback. One difference: msgspec writes a NaN or infinite float as ``null``
(LightRAG keeps none in these files).
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import IO, Any

import msgspec

#: The modules whose ``json.dump`` rewrites a whole store per commit: the key-value stores' always,
#: each vector storage's only when it is the one in use (importing Faiss's loads faiss).
MODULES = ("lightrag.utils",)
VECTOR_MODULES = {"NanoVectorDBStorage": "nano_vectordb.dbs", "FaissVectorDBStorage": "lightrag.kg.faiss_impl"}


class _FastJson(ModuleType):
    """``json`` with a ``dump`` that uses the C encoder; every other name is the real module's."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    @staticmethod
    def dump(obj: Any, fp: IO[str], *, cls: type[json.JSONEncoder] | None = None, indent: Any = None,
             **kwargs: Any) -> None:
        """Write ``obj`` as compact JSON with the C encoder (``cls`` given: the stdlib's dump)."""
        if cls is not None:
            json.dump(obj, fp, cls=cls, indent=indent, **kwargs)
            return
        # Indentation is what keeps json.dump off the C encoder; the files are read by json.load.
        if set(kwargs) <= {"ensure_ascii"}:
            # msgspec's encoder is ~3x faster again. Its UTF-8 output is what LightRAG's
            # readers expect (they open these files as UTF-8). Anything it refuses (a lone
            # surrogate, an unknown type) goes the stdlib's way, to fail there exactly as before.
            try:
                raw = msgspec.json.encode(obj)
            except (TypeError, ValueError, msgspec.EncodeError):
                raw = None
            if raw is not None:
                buffer = getattr(fp, "buffer", None)
                if buffer is not None and str(getattr(fp, "encoding", "")).lower().replace("-", "") == "utf8":
                    fp.flush()  # a UTF-8 text file: its bytes as they are, not decoded and encoded again
                    buffer.write(raw)
                else:
                    fp.write(raw.decode("utf-8"))
                return
        fp.write(json.dumps(obj, **kwargs))


FAST_JSON = _FastJson("json")


def install(vector_storage: str | None = None) -> list[str]:
    """Point :data:`MODULES` and ``vector_storage``'s module at the fast ``json``; return their names."""
    done = []
    for name in (*MODULES, *([VECTOR_MODULES[vector_storage]] if vector_storage in VECTOR_MODULES else [])):
        try:
            module = importlib.import_module(name)
        except ImportError:  # LightRAG reports a missing storage package itself, at its start
            continue
        if getattr(module, "json", None) is json:
            module.json = FAST_JSON  # type: ignore[attr-defined]
            done.append(name)
    return done
