"""Plugin loading and the one typed facade production code uses to call hooks.

No plugin manager exists at import time (one broken plugin must not brick ``--help``).
``load_plugins()`` builds one: built-ins first, then every entry point of the group
``mnote_kr``, each loaded in its own try/except; failures are recorded and shown by
``mnote-kr plugins``. Blocking uses ``pm.set_blocked``. ``MNOTE_KR_TRACE_PLUGINS=1``
traces every hook call to stderr.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pluggy

from mnote_kr import entrypoints, hookspecs
from mnote_kr.context import ProviderContext
from mnote_kr.errors import MnoteKrError, PluginError
from mnote_kr.hookspecs import PROJECT_NAME
from mnote_kr.models import (
    CitationTextBundle,
    DocumentModel,
    EntryUpdate,
    LocateRequest,
    Locator,
    MappedReference,
    PluginInfo,
    ProviderQueryResult,
    ProviderReference,
    ProviderStatus,
    QueryRequest,
    ReadingCheck,
    SidecarBlock,
    SidecarMeta,
    SourceEntry,
    SourceFile,
)

BUILTIN_PLUGINS = (
    "mnote_kr.default_plugins.cleaning",
    "mnote_kr.default_plugins.classify",
    "mnote_kr.default_plugins.file_locator",
    "mnote_kr.default_plugins.text_locator",
)


#: The distributions of this project (the host and the six bundled plugins, ``plugins/``). A third party's plugin may
#: be named ``mnote-kr-<x>`` too (docs/plugins.md asks it to), so a prefix would not tell them apart.
OWN_DISTRIBUTIONS = frozenset({"mnote-kr", "mnote-kr-lightrag", "mnote-kr-docx-locator", "mnote-kr-pdf-bbox",
                               "mnote-kr-pptx-locator", "mnote-kr-xlsx-locator", "mnote-kr-ocr"})


def _own(distribution: str | None) -> bool:
    """A distribution of this project (``OWN_DISTRIBUTIONS``), however its name is spelled."""
    return (distribution or "").lower().replace("_", "-").replace(".", "-") in OWN_DISTRIBUTIONS


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


class Plugins:
    """The loaded plugins, and typed calls into them.

    Provider hooks go only to the configured provider's plugin; ``locate`` only to the
    locator plugin chosen for the file's extension. "No plugin answered" is handled here.
    """

    def __init__(self, pm: pluggy.PluginManager, infos: dict[str, PluginInfo], config: dict[str, Any]):
        self.pm = pm
        self.infos = infos
        self.config = config
        self.provider_name: str = config.get("provider", "lightrag")

    # -- listing

    def describe(self, *, include_builtin: bool = True) -> list[PluginInfo]:
        infos = [i for i in self.infos.values() if include_builtin or i.origin != "builtin"]
        for info in infos:
            plugin = self.pm.get_plugin(info.name)
            if plugin is not None and not info.error:  # a clashing entry point's name is another's plugin
                info.hooks = sorted(c.name for c in self.pm.get_hookcallers(plugin) or [])
        return sorted(infos, key=lambda i: (i.origin == "builtin", i.name))

    def failures(self) -> list[PluginInfo]:
        return [i for i in self.infos.values() if i.error]

    def unsaid_failures(self) -> list[PluginInfo]:
        """The plugins that failed to load whose failure no start-up line said (a name clash is said
        there, ``_report_clash``; an import error only by ``mnote-kr plugins``): what search warns of."""
        return [i for i in self.failures() if i.error not in _reported]

    # -- selection

    def _impl_order(self, hook_name: str) -> list[str]:
        """Plugin names in the order pluggy would call them (third-party before built-in)."""
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        return [impl.plugin_name for impl in reversed(impls)]

    def provider_plugin(self) -> str:
        for name in self._impl_order("provider_names"):
            plugin = self.pm.get_plugin(name)
            result = plugin.provider_names() if plugin is not None else []
            if self.provider_name in (result or []):
                return name
        failed = [i.name for i in self.failures()]
        hint = f"plugins that failed to load: {', '.join(failed)}" if failed else "install mnote-kr-lightrag"
        raise PluginError(f"No plugin provides the provider {self.provider_name!r}", hint=hint)

    def locator_plugin(self, extension: str) -> str | None:
        extension = extension.lower()
        chosen = self.config.get("locators", {}).get(extension)
        claims: list[str] = []
        for name in self._impl_order("locator_extensions"):
            plugin = self.pm.get_plugin(name)
            exts = [e.lower() for e in (plugin.locator_extensions() or [])] if plugin is not None else []
            if extension in exts:
                claims.append(name)
        if chosen:
            if self.pm.get_plugin(chosen) is None:
                raise PluginError(f"Locator plugin {chosen!r} configured for {extension} is not loaded", plugin=chosen)
            return chosen
        return claims[0] if claims else None

    def locator_table(self) -> dict[str, str]:
        """Extension -> locator plugin, as the configuration and hook order decide."""
        exts: set[str] = set(self.config.get("locators", {}))
        for name in self._impl_order("locator_extensions"):
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                exts.update(e.lower() for e in (plugin.locator_extensions() or []))
        return {ext: self.locator_plugin(ext) or "file" for ext in sorted(exts)}

    def locator_claims(self) -> dict[str, tuple[str, list[str]]]:
        """Extension -> (the locator plugin serving it, mnote-kr's own locators claiming it that it passed over). A
        third-party plugin claiming an extension comes before mnote-kr's (``_impl_order``) unless ``[locators]``
        chooses: nc29a's .txt lines plugin took .txt from the built-in text_locator, and nothing said so."""
        out: dict[str, tuple[str, list[str]]] = {}
        for ext, serving in self.locator_table().items():
            claims = [name for name in self._impl_order("locator_extensions") if name != serving
                      and ext in [e.lower() for e in (getattr(self.pm.get_plugin(name), "locator_extensions",
                                                              lambda: [])() or [])]]
            out[ext] = (serving, [] if self.own(serving) else [n for n in claims if self.own(n)])
        return out

    def own(self, name: str) -> bool:
        """``name`` is one of mnote-kr's plugins: built into the host, or a distribution of this project."""
        info = self.infos.get(name)
        return info is not None and (info.origin == "builtin" or _own(info.distribution))

    def text_suffixes(self) -> frozenset[str]:
        """The extensions whose chosen locator plugin reads a file's text (``extract_text``): a provider
        may index such a file of a type it does not read as that text (``ProviderContext.text_suffixes``)."""
        readers = {impl.plugin_name for impl in self.pm.hook.extract_text.get_hookimpls()}
        if not readers:
            return frozenset()
        exts: set[str] = set()
        for name in self._impl_order("locator_extensions"):
            plugin = self.pm.get_plugin(name)
            if plugin is not None:
                exts.update(e.lower() for e in (plugin.locator_extensions() or []))
        out = set()
        for ext in exts:
            try:
                if self.locator_plugin(ext) in readers:
                    out.add(ext)
            except PluginError:  # a configured locator not loaded: that type is read by no plugin
                continue
        return frozenset(out)

    def _only(self, hook_name: str, plugin_name: str) -> Callable[..., Any]:
        others = [p for p in self.pm.get_plugins() if self.pm.get_name(p) != plugin_name]
        return self.pm.subset_hook_caller(hook_name, remove_plugins=others)

    def _call(self, hook_name: str, plugin_name: str | None, *, shown_as: str | None = None, **kwargs: Any) -> Any:
        """Call a hook; a plugin's unexpected exception becomes one ``PluginError`` naming the
        plugin and the hook (``shown_as``: the hook a user knows, e.g. ``query`` for ``start_query``)."""
        caller = self._only(hook_name, plugin_name) if plugin_name else getattr(self.pm.hook, hook_name)
        return _guard(lambda: caller(**kwargs), plugin_name, shown_as or hook_name)

    def _provider_call(self, hook_name: str, **kwargs: Any) -> Any:
        name = self.provider_plugin()
        result = self._call(hook_name, name, **kwargs)
        if result is None:
            raise PluginError(f"Provider plugin {name} does not implement {hook_name}", plugin=name, hook=hook_name)
        return result

    # -- provider hooks

    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        result: list[EntryUpdate] = self._provider_call("ingest", ctx=ctx, sources=sources, force=force)
        return result

    def unindexable(self, ctx: ProviderContext, paths: list[str]) -> dict[str, str]:
        """The paths that cannot be indexed, with reasons: the empty files (0 bytes: nothing to index, whatever
        the provider; ``core.skipped.empty_files``), then those the provider says it cannot index; {} when none."""
        if not paths:
            return {}
        from mnote_kr.core.skipped import empty_files

        empty = empty_files(Path(ctx.workspace_root), paths)
        rest = [p for p in paths if p not in empty] if empty else paths
        result: dict[str, str] | None = (self._call("unindexable", self.provider_plugin(), ctx=ctx, paths=rest)
                                         if rest else None)
        return {**empty, **result} if result else empty

    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        result: list[EntryUpdate] = self._provider_call("sync", ctx=ctx, entries=entries, wait_s=wait_s)
        return result

    def delete(self, ctx: ProviderContext, entries: list[SourceEntry]) -> list[EntryUpdate]:
        result: list[EntryUpdate] = self._provider_call("delete", ctx=ctx, entries=entries)
        return result

    def provider_status(self, ctx: ProviderContext, entries: Sequence[SourceEntry]) -> ProviderStatus:
        result: ProviderStatus = self._provider_call("provider_status", ctx=ctx, entries=entries)
        return result

    def check_readings(self, ctx: ProviderContext, entries: list[SourceEntry], look: bool) -> ReadingCheck | None:
        """The provider's ``check_readings`` answer; None when it keeps no readings."""
        if not entries:
            return None
        result: ReadingCheck | None = self._call("check_readings", self.provider_plugin(), ctx=ctx,
                                                 entries=entries, look=look)
        return result

    def query(self, ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult:
        result: ProviderQueryResult = self._provider_call("query", ctx=ctx, request=request)
        return result

    def start_query(self, ctx: ProviderContext, request: QueryRequest) -> Callable[[], ProviderQueryResult]:
        """``query`` started now; the returned function waits for its result. Errors, raised
        now or by the wait, are those of ``query`` (a provider without ``start_query`` answers
        ``query`` at once)."""
        name = self.provider_plugin()
        wait = self._call("start_query", name, shown_as="query", ctx=ctx, request=request)
        if wait is None:
            done = self.query(ctx, request)
            return lambda: done

        def result() -> ProviderQueryResult:
            answer: ProviderQueryResult | None = _guard(wait, name, "query")
            if answer is None:
                raise PluginError(f"Provider plugin {name} does not implement query", plugin=name, hook="query")
            return answer

        return result

    def map_reference(
        self, ctx: ProviderContext, reference: ProviderReference, entries: Mapping[str, SourceEntry], query: str
    ) -> MappedReference | None:
        name = self.provider_plugin()
        result: MappedReference | None = self._call(
            "map_reference", name, ctx=ctx, reference=reference, entries=entries, query=query
        )
        return result

    # -- citation pipeline hooks

    def clean_text(self, raw: str, query: str, block_text: str | None) -> CitationTextBundle:
        result: CitationTextBundle = self._call("clean_text", None, raw=raw, query=query, block_text=block_text)
        return result

    def classify_locator(self, block: SidecarBlock | None, meta: SidecarMeta | None) -> str:
        result: str = self._call("classify_locator", None, block=block, meta=meta)
        return result

    def locate(self, request: LocateRequest) -> Locator:
        """The chosen locator plugin's answer, or the built-in ``file`` locator."""
        name = self.locator_plugin(Path(request.file).suffix)
        result: Locator | None = None
        if name is not None:
            result = self._call("locate", name, request=request)
        if result is None:
            result = self._call("locate", "file_locator", request=request)
        if result.locator_precision == "file" and self._has("locate_recognized"):
            result = self._recognized_place(name, request, result)
        return settled(result)  # a ``file`` answer carries no page: a page it knew is its ``pageHint``

    def _recognized_place(self, name: str | None, request: LocateRequest, result: Locator) -> Locator:
        """A file locator's place, bettered from an OCR plugin's recognition: the line's box on a
        scanned page, else the extension's locator asked again with the passage cut to the pages
        that have a text layer (a PDF's indexed text mixes both)."""
        recognized: Locator | None = _guard(lambda: self.pm.hook.locate_recognized(request=request),
                                            None, "locate_recognized")
        if recognized is not None:
            return recognized
        narrowed: LocateRequest | None = _guard(lambda: self.pm.hook.text_layer_request(request=request),
                                                None, "text_layer_request")
        if narrowed is None or name is None:
            return result
        again: Locator | None = self._call("locate", name, request=narrowed)
        return again if again is not None and again.locator_precision != "file" else result

    def _has(self, hook_name: str) -> bool:
        """Whether some loaded plugin implements ``hook_name``."""
        return bool(getattr(self.pm.hook, hook_name).get_hookimpls())

    # -- viewer hooks

    def document_model(self, path: str) -> DocumentModel | None:
        """The viewer's model of a source from its extension's locator plugin; None: file only."""
        name = self.locator_plugin(Path(path).suffix)
        if name is None:
            return None
        result: DocumentModel | None = self._call("document_model", name, path=path)
        return result

    def render_page(self, path: str, page: int, scale: float) -> bytes | None:
        """One page of a paged source as PNG bytes, or None when no plugin renders it."""
        name = self.locator_plugin(Path(path).suffix)
        if name is None:
            return None
        result: bytes | None = self._call("render_page", name, path=path, page=page, scale=scale)
        return result

    def page_fonts(self, path: str, page: int) -> tuple[list[str], str | None] | None:
        """(fonts a page uses without embedding them, the CJK substitute or None), or None: not known."""
        name = self.locator_plugin(Path(path).suffix)
        if name is None:
            return None
        result: tuple[list[str], str | None] | None = self._call("page_fonts", name, path=path, page=page)
        return result


    def prepare_locate(self, path: str) -> bool | None:
        """Ask the file's locator plugin to cache its parsed model ahead of the first search."""
        name = self.locator_plugin(Path(path).suffix)
        if name is None:
            return None
        result: bool | None = self._call("prepare_locate", name, path=path)
        return result

    def prepare_search(self) -> None:
        """Let every plugin chosen as a locator get ready (``prepare_search``); failures are ignored."""
        names = {name for name in self.locator_table().values() if self.pm.get_plugin(name) is not None}
        for name in sorted(names):
            try:
                self._only("prepare_search", name)()
            except Exception:  # noqa: BLE001, S112 - only a head start: locate reports a real failure
                continue

    def check_budget(self, path: str, max_text_chars: int) -> str | None:
        """Why the file's locator plugin would not read ``path`` within its budgets (None: it would,
        or no plugin reads that kind of file). See the ``check_budget`` hookspec."""
        name = self.locator_plugin(Path(path).suffix)
        if name is None:
            return None
        result: str | None = self._call("check_budget", name, path=path, max_text_chars=max_text_chars)
        return result

    def reader_status(self, entries: Mapping[str, SourceEntry]) -> dict[str, Any]:
        """Every reader plugin's ``reader_status`` section, merged (empty when none answers)."""
        if not self._has("reader_status"):
            return {}
        out: dict[str, Any] = {}
        for part in _guard(lambda: self.pm.hook.reader_status(entries=entries), None, "reader_status"):
            out.update(part or {})
        return out

    def extract_text(self, path: str, progress: Callable[[str], None] | None = None, *,
                     recognize: bool = True) -> str | None:
        """The file's text as its locator plugin reads it, else (``recognize``) as an OCR plugin recognises it
        (``recognize_text``); None when no plugin reads that kind of file."""
        say = progress or _silent
        name = self.locator_plugin(Path(path).suffix)
        result: str | None = None
        if name is not None:
            result = self._call("extract_text", name, path=path, progress=say)
        if recognize and (result is None or not result.strip()):
            recognized = self.recognize_text(path, say)
            if recognized is not None:
                return recognized
        return result

    def recognize_text(self, path: str, progress: Callable[[str], None] | None = None) -> str | None:
        """The file's text with the pages only OCR reads recognised (``recognize_text``), or None:
        no OCR plugin, or no page of the file needs one."""
        if not self._has("recognize_text"):
            return None
        say = progress or _silent
        recognized: str | None = _guard(lambda: self.pm.hook.recognize_text(path=path, progress=say),
                                        None, "recognize_text")
        return recognized

    def recognized_pages(self, path: str) -> tuple[int, int] | None:
        """``(pages read by OCR, pages in all)`` from the recognition kept for the file (``recognized_pages``),
        or None: no OCR plugin, or none kept."""
        if not self._has("recognized_pages"):
            return None
        found = _guard(lambda: self.pm.hook.recognized_pages(path=path), None, "recognized_pages")
        return (int(found[0]), int(found[1])) if found else None


def _silent(message: str) -> None:
    return None


def _guard(call: Callable[[], Any], plugin_name: str | None, hook_name: str) -> Any:
    try:
        return call()
    except MnoteKrError:
        raise
    except Exception as exc:
        who = plugin_name or "a plugin"
        raise PluginError(
            f"Plugin {who} failed in hook {hook_name}: {type(exc).__name__}: {exc}",
            plugin=plugin_name,
            hook=hook_name,
            hint="run with MNOTE_KR_TRACE_PLUGINS=1 for a trace, or block it with MNOTE_KR_DISABLE_PLUGINS",
        ) from exc


_reported: set[str] = set()


def _clash(name: str, info: PluginInfo, owner: PluginInfo) -> str:
    """The error line of a plugin name that two distributions register."""
    first = f"{owner.distribution or 'an unknown distribution'} ({owner.origin})"
    return (f"plugin name {name!r} is registered twice: by {info.distribution or 'an unknown distribution'} "
            f"and by {first}; only {first} is loaded (uninstall one, or rename its entry point)")


def _report_clash(message: str) -> None:
    """Say it on stderr once per process: at start-up of every command, not only in ``plugins``."""
    if message not in _reported:
        _reported.add(message)
        sys.stderr.write(f"Error: {message}\n")


def switched_off(config: dict[str, Any]) -> set[str]:
    """Plugins whose own table says ``enabled = false`` (``[ocr]`` ``enabled = false``)."""
    return {name for name, table in config.items() if isinstance(table, dict) and table.get("enabled") is False}


def load_plugins(config: dict[str, Any] | None = None, *, extra: list[tuple[str, object]] | None = None) -> Plugins:
    """Build a fresh plugin manager: built-ins, entry points, then ``extra`` (name, module) pairs."""
    config = config or {"provider": "lightrag", "locators": {}, "disabled_plugins": []}
    disabled = set(config.get("disabled_plugins", [])) | switched_off(config)
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    infos: dict[str, PluginInfo] = {}
    from mnote_kr import __version__

    for module_name in BUILTIN_PLUGINS:
        name = _short(module_name)
        if name in disabled:
            pm.set_blocked(name)
            infos[name] = PluginInfo(name=name, version=__version__, origin="builtin", blocked=True)
            continue
        pm.register(importlib.import_module(module_name), name=name)
        infos[name] = PluginInfo(name=name, version=__version__, origin="builtin", distribution="mnote-kr")

    # sorted by name (cached between processes), mnote-kr's own distributions registered first: pluggy calls the last
    # registered first, so a third-party plugin comes before them as before the built-ins, whatever its name
    # (nc29a; by name alone, 'fake_locator' lost .pdf to 'pdf_bbox' and 'zz_pdf' would have won it)
    for ep in sorted(entrypoints.entry_points(PROJECT_NAME), key=lambda ep: not _own(ep.distribution)):
        info = PluginInfo(name=ep.name, version=ep.version, origin="entry point", distribution=ep.distribution)
        owner = infos.get(ep.name)
        if owner is not None:  # a name taken by a built-in or an earlier entry point: the first one keeps it
            info.error = _clash(ep.name, info, owner)
            infos[f"{ep.name}\0{ep.distribution}\0{ep.value}"] = info
            _report_clash(info.error)
            continue
        infos[ep.name] = info
        if ep.name in disabled:
            pm.set_blocked(ep.name)
            info.blocked = True
            continue
        if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
            continue
        try:
            pm.register(entrypoints.load(ep.value), name=ep.name)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the host
            info.error = f"{type(exc).__name__}: {exc}"

    for name, module in extra or []:
        if name in disabled:
            pm.set_blocked(name)
            infos[name] = PluginInfo(name=name, origin="registered", blocked=True)
            continue
        version = getattr(module, "__version__", None)
        infos[name] = PluginInfo(name=name, version=version, origin="registered")
        pm.register(module, name=name)

    # Unknown hook names: drop the offending plugin, keep the rest working.
    while True:
        try:
            pm.check_pending()
            break
        except pluggy.PluginValidationError as exc:
            bad = pm.get_name(exc.plugin) if exc.plugin is not None else None
            if bad is None:
                raise PluginError(str(exc)) from exc
            pm.unregister(exc.plugin)
            if bad in infos:
                infos[bad].error = f"PluginValidationError: {exc}"

    pm.hook.configure.call_historic(kwargs={"config": config})

    if os.environ.get("MNOTE_KR_TRACE_PLUGINS") not in (None, "", "0"):
        pm.trace.root.setwriter(sys.stderr.write)
        pm.enable_tracing()
    return Plugins(pm, infos, config)


def settled(loc: Locator) -> Locator:
    """``loc`` in the contract's shape: a ``file`` locator is degraded and carries no page, box or
    rectangles; a page it knew becomes ``pageHint``."""
    if loc.locator_precision != "file":
        return loc
    if loc.page is None and loc.bbox is None and not loc.rects and loc.locator_degraded:
        return loc
    hint = loc.page_hint if loc.page_hint is not None else loc.page
    return msgspec.structs.replace(loc, page=None, bbox=None, rects=[], page_hint=hint, locator_degraded=True)
