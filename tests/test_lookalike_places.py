"""Two places of a file saying the same words: the one nearer the file's first place is offered (nc21b Q4).

The Federal Register issue (a corpus PDF) holds several notices. Page 1's, the 737 MAX airworthiness directive's,
and page 15's, another directive's, each say "DATES: The FAA must receive comments on this proposed AD by
September 21, 2020". Asked for the 737 MAX notice's comment deadline, the search offered page 15's line behind the
first place, and page 1's, saying the same words, was dropped as a repeat of it. The provider here returns two real
chunks of the file as the managed engine cut them (recorded: tests/data/ranking/fedreg_dates_chunks.json), page
15's first, as LightRAG's order may; the host's real pipeline, PDF locator and meaning vectors do the rest.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.citations import pipeline
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest

PDF = CORPUS / "pdf" / "pdfplumber__federal-register-2020-17221.pdf"
CHUNKS = json.loads((Path(__file__).parent / "data" / "ranking" / "fedreg_dates_chunks.json").read_text(
    encoding="utf-8"))["chunks"]
DATES = "DATES: The FAA must receive comments on this proposed AD by September 21, 2020."


class Chunks(FakeProvider):
    """Every query answered with the recorded chunks of the one file indexed, page 15's first."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        (name,) = self.texts
        refs = [ProviderReference(provider="fake", file_path=name, reference_id=str(k + 1), chunk_id=f"doc-fr-{cid}",
                                  doc_id="doc-fr", content=CHUNKS[cid], rank=k, chunk_order=int(cid[-3:]))
                for k, cid in enumerate(("chunk-038", "chunk-001"))]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_of_two_places_saying_the_same_words_the_one_near_the_first_place_is_offered(tmp_path: Path) -> None:
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    pdf = ws / "docs" / PDF.name
    shutil.copy(PDF, pdf)
    before = hashlib.sha256(pdf.read_bytes()).hexdigest()
    host, _ = fake_host(ws, Chunks(delete_status="delete_completed"))
    host.roots_add(ws / "docs")
    host.ingest([ws / "docs"], wait=True)
    (c,) = host.search("deadline for submitting comments on the proposed 737 MAX AD", top_k=10).results
    places = [c, *c.alternatives]
    dates = [p.locator.page for p in places if " ".join((p.display_quote or "").split()) == DATES]
    assert c.locator.page == 1, (c.locator.page, c.display_quote)
    assert dates == [1], [(p.locator.page, p.display_quote) for p in places]
    assert hashlib.sha256(pdf.read_bytes()).hexdigest() == before
