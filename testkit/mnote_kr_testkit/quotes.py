"""The place and quote the pipeline shows for one recorded chunk of a real file (for tests)."""

from __future__ import annotations

from pathlib import Path

from mnote_kr.citations import pipeline
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins


def located_quote(file: Path, chunk: str, query: str) -> tuple[Locator, str]:
    """Locate ``query`` in ``file`` from LightRAG's ``chunk`` and quote the place, as ``build_citations`` does."""
    plugins = load_plugins(None)
    pipeline.clear_memos()
    bundle = pipeline._clean(plugins, chunk, query, None)
    loc = plugins.locate(LocateRequest(file=str(file), evidence=bundle.locator_evidence_text, query=query,
                                       passage=chunk))
    context = pipeline._display_quote(plugins, bundle, chunk, query, None, loc)
    shown, _ = pipeline._place_quote(plugins, loc, context, query)
    return loc, shown
