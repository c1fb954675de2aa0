"""Rules that are off by default, turned on for the tests that keep them tested."""

from __future__ import annotations

from typing import Any


def docx_lead_in_rules_on(monkeypatch: Any) -> None:
    """The round-19 DOCX rules (``placing.LISTS_TOGETHER``, ``CHUNK_BEHIND``, ``RUNNERS_COVER``,
    ``textmatch.OWN_HOLDS_ALL``), off by default (``placing`` says why), on for this test."""
    from mnote_kr.citations.locate import placing, textmatch

    for name in ("LISTS_TOGETHER", "CHUNK_BEHIND", "RUNNERS_COVER"):
        monkeypatch.setattr(placing, name, True)
    monkeypatch.setattr(textmatch, "OWN_HOLDS_ALL", True)
