"""A Chinese question also asked in English: LightRAG queried a second time with the translation.

The managed engine's embedder matches a Chinese question with an English passage weakly (its
hashed half not at all), so a search whose question the host's dictionary can translate
(``plugin_api.crosslang``: Chinese words glossed in English) also sends ``/query/data`` with the
translation, beside the first, in its own thread; the dictionary loads in that thread too, once
the question's own query went out (a one-shot process translates as a warm one does).

Made cheap and harmless (``benchmarks/crosslang.py --all``, docs/embeddings.md):

* **Only when it can find something** (:func:`worth_asking`): the plugin learns each found
  file's language from the chunks LightRAG returns (:class:`Languages`, kept per workspace under
  the state directory); a question is translated only into ``INTO`` (English), and only when
  the workspace holds an English file or nothing is known yet. A Chinese-only workspace sends one query.
* **Only adds** (:func:`added`): the question's own files keep their slots, order and chunks;
  the translation brings at most ``MAX_ADDED_FILES`` files the question's slots lack, one chunk
  each, placed by the model service's scores (:func:`place`): before the first of the question's
  first files that it beats (the added chunk against the translation, the question's file by its
  better match of the question and the translation), left out when it beats none. Without the
  service they follow the question's own.

Still off by default (``TRANSLATE``; ``[providers.lightrag] translate_queries`` sets it per
workspace): on the 32 tuning files it found 2 more files, lost 1 (tb_zh19 4 -> 6) and moved 6
Chinese questions' files down a place, at +137 ms warm p95. A benchmark
variant turns it on: ``--variant tr:py:mnote_kr_lightrag.client.crossquery.TRANSLATE=true``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from mnote_kr.plugin_api import ProviderReference

#: Ask a second time with the question translated, when the dictionary can (measured: off).
TRANSLATE = False
#: The languages a question is translated into: English only (measured on the tuning sets, an English
#: question's Chinese translation, two headwords a word, added Chinese files that pushed the English
#: question's own file down: same-language MRR 0.943 -> 0.858).
INTO = ("en",)
#: Files the translation may add that the question's own slots lack, and how many of each
#: file's chunks (its first in the translation's list) are scored to pick its one chunk.
MAX_ADDED_FILES = 3
ADDED_CHUNKS = 3
#: The question's files (its first) whose best chunk is scored against the question when passages are
#: not ranked: an added file goes among these or not at all.
SCORED_FILES = 5
#: How much better (cosine) an added chunk must match the translation than a file's best chunk
#: matches the question to go before that file.
MARGIN = 0.0

_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile("[A-Za-z]")


def language(text: str) -> str | None:
    """``"zh"`` when a quarter or more of the text's letters are Chinese characters, ``"en"`` when
    it has Latin letters, else None (numbers, symbols)."""
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if cjk and cjk * 4 >= cjk + latin:
        return "zh"
    return "en" if latin else None


def other_language(query: str) -> str:
    """The language the question's translation is in."""
    return "en" if _CJK.search(query) else "zh"


class Languages:
    """Each found file's languages (by document ID), learned from its chunks, kept in
    ``state_dir/crosslang/<workspace>.json`` (rewritten only when a new file or language is
    seen). A file lost or damaged is an empty record: nothing known, so a search translates."""

    def __init__(self, state_dir: Path, ws: str) -> None:
        self.path = Path(state_dir) / "crosslang" / f"{ws}.json"
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            self.known: dict[str, list[str]] = {str(k): [str(x) for x in v] for k, v in raw.items()}
        except (OSError, ValueError, AttributeError, TypeError):
            self.known = {}

    def holds(self, lang: str) -> bool:
        return any(lang in langs for langs in self.known.values())

    def learn(self, refs: Sequence[ProviderReference]) -> None:
        changed = False
        for ref in refs:
            lang = language(ref.content or "")
            key = ref.doc_id or ref.file_path
            if lang and key and lang not in self.known.get(key, []):
                self.known.setdefault(key, []).append(lang)
                changed = True
        if changed:
            from mnote_kr.plugin_api import write_atomic

            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(self.path, json.dumps(self.known, sort_keys=True))
            except OSError:  # an unwritable state directory: learned again next time
                pass


def switched_on(setting: bool | None) -> bool:
    """The workspace's ``translate_queries`` when it sets one, else ``TRANSLATE``."""
    return TRANSLATE if setting is None else setting


def worth_asking(query: str, known: Languages) -> bool:
    """Translate (once switched on): into a language of ``INTO``, when the workspace holds a file in
    it or no file's language is known yet."""
    into = other_language(query)
    return into in INTO and (not known.known or known.holds(into))


def translated(query: str, on: bool | None = None) -> str | None:
    """The question in the other language, or None: off (:func:`switched_on` of the workspace's
    ``translate_queries``), nothing to translate, or the dictionary not parsed
    yet (a search never pays the parse of seconds: it starts it for the next one). Loads the
    parsed dictionary when needed (~0.4 s): call it beside the question's own query."""
    if not switched_on(on):
        return None
    from mnote_kr.plugin_api import crosslang

    if not crosslang.ready():
        crosslang.prepare()
        return None
    try:
        found = crosslang.translate(query)
    except (OSError, ValueError):  # the package gone or its file unreadable: the question alone
        return None
    return found.text if found and found.text.strip() and found.text != query else None


def added(first: Sequence[ProviderReference], second: Sequence[ProviderReference],
          wanted: int) -> list[list[ProviderReference]]:
    """The files of the translation's first ``wanted`` slots that the question's first ``wanted``
    lack, at most ``MAX_ADDED_FILES`` in the translation's order: each file's first
    ``ADDED_CHUNKS`` chunks of the translation's list (candidates for its one slot)."""
    have = {r.file_path for r in first[:wanted]}
    files: list[str] = []
    for ref in second[:wanted]:
        if ref.file_path not in have and ref.file_path not in files and len(files) < MAX_ADDED_FILES:
            files.append(ref.file_path)
    return [[r for r in second if r.file_path == f][:ADDED_CHUNKS] for f in files]


def place(first: Sequence[ProviderReference], extra: Sequence[tuple[ProviderReference, float]],
          best: dict[str, float] | None, wanted: int) -> list[ProviderReference]:
    """The question's references with the added ones (each with its score against the translation)
    placed: before the first of the question's scored files (``best``: each one's score against the
    question) that it beats by more than ``MARGIN``; one that beats none is left out (it would
    follow every file the user is shown: placing it would cost and show nothing). Without scores
    (``best`` None) the added follow the question's own. The question's own keep their order; the
    first ``wanted``, ranks renumbered 1..n."""
    out: list[ProviderReference] = list(first)
    own = {r.file_path for r in first}
    for ref, score in sorted(extra, key=lambda e: -e[1]) if best is not None else extra:
        if best is None:
            out.append(ref)
            continue
        at = next((i for i, r in enumerate(out)
                   if r.file_path in own and r.file_path in best and best[r.file_path] + MARGIN < score), None)
        if at is not None:
            out.insert(at, ref)
    return [msgspec.structs.replace(r, rank=k) for k, r in enumerate(out[:wanted], start=1)]
