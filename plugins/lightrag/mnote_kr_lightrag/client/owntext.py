"""A file LightRAG's own parser reads wrongly, sent as mnote-kr's text instead (``decks``, ``docxbreaks``)."""

from __future__ import annotations

from collections.abc import Callable

from mnote_kr.plugin_api import MnoteKrError, ProviderContext, SourceFile

from . import naming


def own_text(ctx: ProviderContext, source: SourceFile, suffix: str,
             held_by: Callable[[str], dict[str, int]]) -> tuple[str, dict[str, int]] | None:
    """The file's text as the host reads it, with what ``held_by`` found in it that LightRAG's parser reads
    wrongly, or None: not a ``suffix`` file, nothing found, or it cannot be read here (LightRAG then reads it
    as it can)."""
    if naming.safe_suffix(source.rel_path) != suffix:
        return None
    try:
        held = held_by(source.path)
        text = ctx.extract_text(source.path) if held else None
    except MnoteKrError:
        return None
    return (text, held) if text and text.strip() else None


def listed(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
