"""Which files LightRAG indexes, by name: its scan's suffixes, the images mnote-kr wraps and the types
whose text mnote-kr sends in their place (``naming.TEXT_ONLY_SUFFIXES``: a macro-enabled workbook; and any
type a loaded plugin reads as text, ``ProviderContext.text_suffixes``: ``recognized.plugin_text``).

The ``unindexable`` hook answers from this module (a folder walk hands over every new file's
name), so it stays light: no provider, no document listing, one request at most.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from mnote_kr.plugin_api import ProviderContext, ProviderError

from . import naming
from .settings import open_client, resolve_settings

#: The server's ``supported_file_types`` as this process last heard it, per server.
_SERVER_SUFFIXES: dict[tuple[str, int], tuple[float, frozenset[str]]] = {}
_SERVER_SUFFIXES_TTL_S = 300.0
_SENT_AS_OURS = naming.IMAGE_SUFFIXES | naming.TEXT_ONLY_SUFFIXES
_KNOWN_SUFFIXES = naming.DEFAULT_SUPPORTED_SUFFIXES | _SENT_AS_OURS


def unindexable(ctx: ProviderContext, paths: list[str]) -> dict[str, str]:
    """The ``paths`` no LightRAG scan picks up, with the reason (the ``unindexable`` hook).

    A suffix check: LightRAG 1.5.7's types, the images mnote-kr wraps and the files whose text it sends
    (``.xlsm``) pass at once; then the types a loaded plugin reads as text (asked of the host once per
    call, only when another suffix is there); only a path with another suffix still asks the server for its
    own list (once, then kept a few minutes), since a server may read more types. The text fallback
    (``fallback``) only ever replaces a document of a type LightRAG takes, so it adds no type here.
    """
    known = _KNOWN_SUFFIXES
    odd: dict[str, str] = {}
    for p in paths:  # the plain "name.ext" test first: a walk hands over every file's name
        name = p[p.rfind("/") + 1:]
        dot = name.rfind(".")
        if dot > 0 and name[dot:].lower() in known:
            continue
        suffix = naming.safe_suffix(p)
        if suffix not in known:
            odd[p] = suffix
    if odd:
        by_plugins = ctx.text_suffixes()
        odd = {p: s for p, s in odd.items() if s not in by_plugins}
    if not odd:
        return {}
    served = _server_suffixes(ctx)
    if served is None:  # LightRAG not asked (down): a type the built-in list lacks may still be one it reads
        return {}
    readable = served | _SENT_AS_OURS
    examples = ", ".join(s for s in (".pdf", ".docx", ".md", ".txt") if s in readable)
    more = len(readable) - len([s for s in (".pdf", ".docx", ".md", ".txt") if s in readable])
    return {p: (f"not a file type LightRAG indexes ({f'{suffix!r} files' if suffix else 'no file extension'}; "
                f"it reads {examples} and {more} more types; {PLUGIN_HINT})")
            for p, suffix in odd.items() if suffix not in readable}


#: What adds a type LightRAG does not take: said of a folder's file passed over as of a named file that failed
#: (``recognized.not_taken``; nc29a read it only on the second).
PLUGIN_HINT = ("a plugin adds a type by claiming it in locator_extensions and reading it in extract_text: "
               "docs/plugins.md")


def _server_suffixes(ctx: ProviderContext) -> frozenset[str] | None:
    """The server's own list (one request, kept a few minutes), or None when it cannot be asked."""
    try:
        settings = resolve_settings(ctx)
    except ProviderError:
        return None
    key = (settings.url, id(ctx.transport))
    hit = _SERVER_SUFFIXES.get(key)
    if hit is not None and time.monotonic() - hit[0] < _SERVER_SUFFIXES_TTL_S:
        return hit[1]
    try:
        with open_client(ctx, settings) as client:
            found = frozenset(client.supported_suffixes())
    except ProviderError:
        return None
    if not found:
        return None
    _SERVER_SUFFIXES[key] = (time.monotonic(), found)
    return found


def remember(url: str, ctx: ProviderContext, found: Iterable[str]) -> None:
    """The server's list as another request of this process heard it (an ingest's own fetch)."""
    _SERVER_SUFFIXES[(url, id(ctx.transport))] = (time.monotonic(), frozenset(found))
