"""A Chinese question also asked in English: LightRAG queried a second time with the translation.

The managed engine's embedder matches a Chinese question with an English passage weakly (its
hashed half not at all), so a search whose question the host's dictionary can translate
(``plugin_api.crosslang``: Chinese words glossed in English) also sends ``/query/data`` with the
translation, beside the first, in its own thread; the dictionary loads in that thread too, once
the question's own query went out (a one-shot process translates as a warm one does).

Made cheap and harmless (``benchmarks/crosslang.py --all``, docs/embeddings.md):

* **Only when it can find something** (:func:`worth_asking`): the plugin learns each found
  file's language from the chunks LightRAG returns (:class:`Languages`, kept per workspace under
  the state directory); a question is translated only into ``INTO`` (English), until
  ``CLOSE_AFTER`` searches that sent a translation found no English file (then a Chinese-only
  workspace sends one query; any English file found, by any search, opens it again). A document
  deleted from LightRAG leaves the record when its delete is sent (``provider.delete_ids``).
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

import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from mnote_kr.plugin_api import ProviderContext, ProviderReference

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
    it has Latin letters, else None (numbers, symbols). Not the host's ``han_share`` nor ``otherscript``'s
    amounts, which count words: docs/embeddings.md, "Three measures of a text's script"."""
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if cjk and cjk * 4 >= cjk + latin:
        return "zh"
    return "en" if latin else None


def other_language(query: str) -> str:
    """The language the question's translation is in."""
    return "en" if _CJK.search(query) else "zh"


#: Translated searches (a translation actually sent) that found no file in ``INTO``'s language
#: before the workspace counts as one language only; a search that shows such a file opens it again.
CLOSE_AFTER = 3


class LanguageRecord(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """What a workspace's searches showed of its files' languages: each found file's languages (by
    document ID) and how many searches sent a translation (evidence that can close the gate)."""

    version: int = 1
    files: dict[str, list[str]] = {}
    translated_searches: int = 0


_record_decoder = msgspec.json.Decoder(LanguageRecord)
_record_encoder = msgspec.json.Encoder()


class Languages:
    """The workspace's :class:`LanguageRecord`, kept in ``state_dir/crosslang/<workspace>.json``
    (rewritten only when it changes). A missing file is nothing known; a damaged one is nothing
    known too, with ``problem`` saying so (one warning: the next search rewrites it)."""

    def __init__(self, state_dir: Path, ws: str) -> None:
        self.path = Path(state_dir) / "crosslang" / f"{ws}.json"
        self.problem: str | None = None
        try:
            record = _record_decoder.decode(self.path.read_bytes())
        except FileNotFoundError:
            record = LanguageRecord()
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            self.problem = (f"the record of this workspace's file languages ({self.path}) is unreadable ({exc}): "
                            "read as nothing known (searches translate), rewritten by this search")
            record = LanguageRecord()
        self.known: dict[str, list[str]] = {k: list(v) for k, v in record.files.items()}
        self.translated_searches = record.translated_searches

    def holds(self, lang: str) -> bool:
        return any(lang in langs for langs in self.known.values())

    def closed(self, lang: str) -> bool:
        """Is the workspace known to hold no file in ``lang``: ``CLOSE_AFTER`` searches sent a
        translation into it and none of them (nor any other search) found one?"""
        return self.translated_searches >= CLOSE_AFTER and not self.holds(lang)

    def learn(self, refs: Sequence[ProviderReference], translated_into: str | None = None) -> None:
        """Learn the found files' languages; ``translated_into``: the language this search's
        translation was sent in (None when none was sent), counted until the gate could close."""
        changed = self.problem is not None
        for ref in refs:
            lang = language(ref.content or "")
            key = ref.doc_id or ref.file_path
            if lang and key and lang not in self.known.get(key, []):
                self.known.setdefault(key, []).append(lang)
                changed = True
        if translated_into and self.translated_searches < CLOSE_AFTER and not self.holds(translated_into):
            self.translated_searches += 1
            changed = True
        if changed:
            self._write()

    def forget(self, doc_ids: Sequence[str]) -> None:
        """Forget the languages of documents deleted from LightRAG (a file deleted, moved or changed: its
        old document), so a gone English file no longer keeps the workspace's English open."""
        dropped = [d for d in doc_ids if self.known.pop(d, None) is not None]  # every one, not the first
        if dropped and self.problem is None:
            self._write()

    def _write(self) -> None:
        from mnote_kr.plugin_api import write_atomic

        record = LanguageRecord(files=self.known, translated_searches=self.translated_searches)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, _record_encoder.encode(record))
        except OSError:  # an unwritable state directory: learned again next time
            pass


def switched_on(setting: bool | None) -> bool:
    """The workspace's ``translate_queries`` when it sets one, else ``TRANSLATE``."""
    return TRANSLATE if setting is None else setting


def worth_asking(query: str, known: Languages) -> bool:
    """Translate (once switched on): into a language of ``INTO``, unless the workspace is known to
    hold no file in it (:meth:`Languages.closed`: only searches that sent a translation close it; a
    search without one, as the first of a fresh install is while the dictionary is parsed, only
    learns the files it found)."""
    return why_not_asked(query, known, "mix") is None


def translated(query: str, on: bool | None = None) -> str | None:
    """The question in the other language, or None (:func:`translation` says why)."""
    return translation(query, on)[0]


#: Why a search sent no translation (``diagnostics.translation.reason``, docs/http-api.md).
OFF, NOTHING, LOADING, UNREADABLE, ONE_LANGUAGE, BYPASS, FAILED = (
    "off", "nothing to translate", "dictionary not loaded yet", "dictionary unreadable",
    "workspace holds one language", "bypass mode sends no query", "the translated query failed")
#: Why a question in another language than Chinese sent none: it is translated only into ``INTO``'s (English).
NOT_INTO = "only Chinese questions are translated"


def translation(query: str, on: bool | None = None) -> tuple[str | None, str | None]:
    """The question in the other language and None, or None and why not: off (:func:`switched_on` of
    the workspace's ``translate_queries``), nothing to translate, or the dictionary not parsed
    yet (a search never pays the parse of seconds: it starts it for the next one). Loads the
    parsed dictionary when needed (~0.4 s): call it beside the question's own query."""
    if not switched_on(on):
        return None, OFF
    from mnote_kr.plugin_api import crosslang

    if not crosslang.ready():
        crosslang.prepare()
        return None, LOADING
    try:
        found = crosslang.translate(query)
    except (OSError, ValueError):  # the package gone or its file unreadable: the question alone
        return None, UNREADABLE
    if found and found.text.strip() and found.text != query:
        return found.text, None
    return None, NOTHING


def why_not_asked(query: str, known: Languages | None, mode: str) -> str | None:
    """Why :func:`worth_asking` sends no translation (None: it sends one)."""
    if known is None:
        return OFF
    if mode == "bypass":
        return BYPASS
    into = other_language(query)
    if into not in INTO:
        return NOT_INTO
    return ONE_LANGUAGE if known.closed(into) else None


def account(text: str | None, why: str | None, own: Sequence[ProviderReference],
            shown: Sequence[ProviderReference]) -> dict[str, object]:
    """What the translation did, for the search's diagnostics: sent or not (``reason`` why not), its
    text, and the files among ``shown`` (the references returned) that the question's own lacked."""
    have = {r.file_path for r in own}
    added_files = list(dict.fromkeys(r.file_path for r in shown if r.file_path not in have)) if text else []
    return {"sent": text is not None, "text": text, "addedFiles": len(added_files), "added": added_files,
            "reason": why}


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


def setting_source(ctx: ProviderContext, setting: bool | None) -> tuple[bool, str | None]:
    """Is query translation on for the workspace, and the config file that sets it (None: the default,
    ``TRANSLATE``): the workspace's ``.mnote/config.toml`` over the user's, as the host merges them."""
    import tomllib

    from mnote_kr.plugin_api import paths

    on = switched_on(setting)
    if setting is None:
        return on, None
    for path in (Path(ctx.workspace_root) / ".mnote" / "config.toml", paths.config_dir() / "config.toml"):
        try:
            section = tomllib.loads(path.read_text(encoding="utf-8")).get("providers", {}).get(ctx.provider, {})
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(section, dict) and "translate_queries" in section:
            return on, str(path)
    return on, "the provider's configuration"


def status_line(ctx: ProviderContext, setting: bool | None) -> tuple[str, dict[str, object]]:
    """``status``'s one line on query translation (``setting``: the workspace's ``translate_queries``),
    and its ``--json`` form."""
    on, where = setting_source(ctx, setting)
    state = "on" if on else "off"
    if where is None:
        how = "the default" + ("" if on else "; translate_queries = true under [providers.lightrag] turns it on")
    else:
        how = f"translate_queries = {'true' if on else 'false'} in {where}"
    return f"query translation {state} ({how})", {"on": on, "setIn": where}
