"""A second ``/query/data`` whose query vector leans on meaning: files in another script than the question.

The default offline embedder (``e5usexlang``) gives a question's vector three parts: e5 and USE
multilingual v3 for meaning, and hashed words, which match only within one script. For a Chinese
question about a Persian, Korean or Japanese file that part is noise: LightRAG's first 20 chunks
often hold no chunk of the answering file at all (r24: 22 of tune5's 26 misses). So a search also
sends the question marked (:data:`MARK`, which the model service strips): the service embeds it
with the hashed part weighed less and USE more (``embedders.MEANING_HASH``/``MEANING_USE``), and
LightRAG returns the chunks nearest that vector. This module adds at most ``MAX_ADDED`` of its
files to the question's own (:func:`added_files`):

* only a file none of whose returned chunks is in the question's script (:func:`script`): a file in
  the question's own script is found by the question's own query, hashed words and all;
* only a file the question's first ``SHOWN`` files lack; it goes to the place it holds among the
  second query's files (a file the question's list holds further down moves up to it).

Measured offline (``benchmarks/xlang_meaning.py``: LightRAG's lists replayed on the r21 46-file store,
r23's deeper admission approximated, tuning sets only): cross-language recall@5 78 -> 81 of 109, same-language
143 -> 143 of 149 (none lost), tune5 cross 17 -> 20 of 40. Placed after the host's deeper admission instead
(which the host does not allow today) it would be 78 -> 87: the admitted files push added ones out of the five.
``MEANING_QUERY = False`` (a benchmark variant:
``py:mnote_kr_lightrag.client.meaningquery.MEANING_QUERY=false``) sends the question alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from mnote_kr.plugin_api import ProviderError, ProviderReference, text_language

#: Send the marked second query (only when the managed engine's embedder is ``e5usexlang``).
MEANING_QUERY = True
#: What the model service reads as "embed for meaning" (an invisible separator, the word, another).
MARK = "\u2063meaning\u2063"
#: Files the second query may add, and the question's first files it must not already be among.
MAX_ADDED = 2
SHOWN = 5
#: The second query's depth (LightRAG's default ``chunk_top_k``).
CHUNKS = 20

#: The script most of a text's letters are in (``ja`` for Han with kana, ``zh``, ``ko``, ``latin``, ...), the host's
#: measure (``plugin_api.text_language``): one reading of Japanese as not Chinese for the host and this plugin.
script = text_language


def marked(query: str) -> str:
    """The question as the second query sends it."""
    return MARK + query


def added_files(first: Sequence[ProviderReference], second: Sequence[ProviderReference],
                query: str) -> list[ProviderReference]:
    """``first`` (the question's references, in order) with at most ``MAX_ADDED`` files of ``second``
    (the marked query's) that hold no chunk in ``query``'s script and are not among ``first``'s first
    ``SHOWN`` files: each file's first chunk of ``second`` placed before the file that holds, in
    ``first``'s file order, the place the added file holds in ``second``'s (after them all when
    ``first`` has fewer files). Ranks renumbered 1..n."""
    mine = script(query)
    scripts: dict[str, set[str | None]] = {}
    for ref in second:
        scripts.setdefault(ref.file_path, set()).add(script(ref.content or ""))
    order: list[str] = list(dict.fromkeys(r.file_path for r in second))
    out = list(first)
    added = 0
    for place, path in enumerate(order):
        if added >= MAX_ADDED:
            break
        files = list(dict.fromkeys(r.file_path for r in out))
        if path in files[:SHOWN] or mine in scripts[path]:
            continue
        chunk = next(r for r in second if r.file_path == path)
        files = [f for f in files if f != path]
        at = next((i for i, r in enumerate(out) if r.file_path == files[place]), len(out)) \
            if place < len(files) else len(out)
        out.insert(at, chunk)
        added += 1
    return [msgspec.structs.replace(r, rank=k) for k, r in enumerate(out, start=1)]


Retrieve = Callable[..., tuple[Any, list[ProviderReference], int]]


def start(client: Any, payload: dict[str, Any], ws: str,
          retrieve: Retrieve) -> Callable[[], list[ProviderReference]] | None:
    """The marked question's ``/query/data`` (naive: chunks only, ``CHUNKS`` deep) in a thread beside
    the question's own (``retrieve``: ``querying.retrieve_own``): returns a function that waits for
    its references, none when it failed (the question's own stand alone: it only adds). None when
    off (:data:`MEANING_QUERY`) or in bypass mode."""
    if not MEANING_QUERY or payload.get("mode") == "bypass":
        return None
    box: list[list[ProviderReference]] = []
    ask = {**payload, "query": marked(str(payload["query"])), "mode": "naive", "chunk_top_k": CHUNKS}

    def work() -> None:
        try:
            box.append(retrieve(client, ask, ws)[1])
        except ProviderError:
            pass

    thread = threading.Thread(target=work, name="mnote-kr-lightrag-meaning", daemon=True)
    thread.start()

    def wait() -> list[ProviderReference]:
        thread.join()
        return box[0] if box else []

    return wait
