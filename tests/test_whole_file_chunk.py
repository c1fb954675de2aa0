"""A chunk as long as its file starts where the file does: its first word is whole, even in lower case.

A provider chunk is a window of tokens and may start inside a word (``orestation``), so a quote's first
word in lower case is dropped as cut. A small text file is one chunk, though: a plugin author's
``app.log`` (``boot ok``) was quoted from ``ok``, and a CSV lost ``name,`` from its header.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import fake_host

LOG = "boot ok\nkernel: disk full on /var, writes paused\nnet: link up\n"


def test_a_small_files_only_chunk_keeps_its_first_word(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "logs").mkdir(parents=True)
    (ws / "logs" / "app.md").write_text(LOG, encoding="utf-8")
    before = (ws / "logs" / "app.md").read_bytes()
    host, _ = fake_host(ws)
    host.roots_add(ws / "logs")
    host.ingest([ws / "logs"])
    (c,) = host.search("disk full", top_k=5).results
    assert (c.context_quote or "").startswith("boot ok"), c.context_quote
    assert (ws / "logs" / "app.md").read_bytes() == before


def test_a_window_of_a_long_file_still_loses_a_cut_first_word(tmp_path: Path) -> None:
    """The same chunk text, cut from a file much longer than it: its lower-case first word may be half a word."""
    from mnote_kr.citations.cleaning.copyable import trim_chunk_edges

    assert trim_chunk_edges("orestation of the catchment reduced flow", "x" * 50).startswith("of the")
