"""A chunk as long as its file starts where the file does: its first word is whole, even in lower case.

A provider chunk is a window of tokens and may start inside a word (``orestation``), so a quote's first
word in lower case is dropped as cut. A small text file is one chunk, though: a plugin author's
``app.log`` (``boot ok``) was quoted from ``ok``, and a CSV lost ``name,`` from its header.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr import hookimpl
from mnote_kr.context import ProviderContext
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest
from tests.surfaces import note_host

LOG = "boot ok\nkernel: disk full on /var, writes paused\nnet: link up\n"


def test_a_small_files_only_chunk_keeps_its_first_word(tmp_path: Path) -> None:
    host, note = note_host(tmp_path, "logs/app.md", LOG)
    before = note.read_bytes()
    (c,) = host.search("disk full", top_k=5).results
    assert (c.context_quote or "").startswith("boot ok"), c.context_quote
    assert note.read_bytes() == before


def test_a_window_of_a_long_file_still_loses_a_cut_first_word(tmp_path: Path) -> None:
    """The same chunk text, cut from a file much longer than it: its lower-case first word may be half a word."""
    from mnote_kr.citations.cleaning.copyable import trim_chunk_edges

    assert trim_chunk_edges("orestation of the catchment reduced flow", "x" * 50).startswith("of the")



LONG = LOG + "".join(f"\nsvc{n}: heartbeat {n} received from the replica in rack {n % 7}, lag nominal\n"
                     for n in range(40))



class Windows(FakeProvider):
    """One chunk of each file, as a provider of token windows returns them: ``a.md``'s first (``chunk_order``
    0, the file's start), ``b.md``'s eleventh, which starts inside a word ("eartbeat 12")."""

    @hookimpl
    def query(self, ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult:
        refs = []
        for name, text in sorted(self.texts.items()):
            order, start = (0, 0) if "a.md" in name else (10, text.index("heartbeat 12") + 1)
            refs.append(ProviderReference(provider="fake", file_path=name, reference_id=str(len(refs) + 1),
                                          chunk_id=f"chunk-{name}-{order}", doc_id=f"doc-{name}",
                                          content=text[start:start + 300], rank=len(refs), chunk_order=order))
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_a_long_files_first_chunk_keeps_its_first_word_and_a_later_chunk_drops_its_cut_one(tmp_path: Path) -> None:
    """A file of many chunks: its first chunk (the provider's ``chunk_order`` 0) starts where the file does, a
    whole word even in lower case ("boot ok"); a later chunk starts where the window cut it ("eartbeat 12"),
    and that half word is still left out."""
    ws = tmp_path / "ws"
    (ws / "logs").mkdir(parents=True)
    for name in ("a.md", "b.md"):
        (ws / "logs" / name).write_text(LONG, encoding="utf-8")
    before = (ws / "logs" / "a.md").read_bytes()
    host, _ = fake_host(ws, Windows(delete_status="delete_completed"))
    host.roots_add(ws / "logs")
    host.ingest([ws / "logs"])
    results = host.search("disk full heartbeat replica", top_k=5).results
    quotes = {Path(c.source_path).name: c.context_quote or "" for c in results}
    assert quotes["a.md"].startswith("boot ok"), quotes
    assert quotes["b.md"].startswith("12 received"), quotes
    assert (ws / "logs" / "a.md").read_bytes() == before
