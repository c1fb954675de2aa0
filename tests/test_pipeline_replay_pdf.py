"""The search pipeline on recorded LightRAG payloads citing PDFs: chunks that land on one place of a
page, and page furniture (running headers, page numbers) kept out of the quotes.

The workspace and replay are ``tests/test_pipeline_replay.py``'s.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.models import Citation
from mnote_kr_lightrag.client import naming
from tests.test_pipeline_replay import Env, _entry, fresh_caches, make_env, query_data


def prepared_pdf(env: Env, src: Path, rel: str) -> str:
    """The PDF ``src`` copied to ``rel`` in the workspace as ingest leaves it: its places prepared and
    embedded (so they are ranked by meaning too), its entry registered. Returns the LightRAG file name."""
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.rank import meaning

    name = Path(rel).name
    shutil.copyfile(src, env.ws / rel)
    mnote_kr_pdf_bbox.prepare_locate(str(env.ws / rel))
    meaning.embed_queued(lambda line: None)
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, name))
    return name


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()  # each test's replay is its own
    return make_env(tmp_path, monkeypatch)


def test_two_chunks_landing_on_one_place_are_one_citation(env: Env) -> None:
    # Different chunks (different text, no sidecar block) that the locator puts on
    # the same PDF text block are one citation; a chunk landing elsewhere stays its own.
    p = PdfBuilder()
    page = p.add_page()
    p.text(page, 72, 720, "Wind turbine icing study", size=14)
    heat = [p.text(page, 72, 690 - 14 * i, t, size=11) for i, t in enumerate(
        ["Blade heating kept the power loss below five percent on every turbine.",
         "It was switched on whenever the air was below zero."])]
    p.text(page, 72, 560, "Unheated blades lost up to forty percent of their output in freezing fog.", size=11)
    rel = "papers/plain.pdf"
    (env.ws / rel).write_bytes(p.build())
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, "plain.pdf"))
    doc = naming.doc_id_for("plain.pdf")
    a = ("Wind turbine icing study\nBlade heating kept the power loss below five percent on every turbine. "
         "It was switched on whenever the air was below zero.")
    b = ("Blade heating kept the power loss below five percent on every turbine. It was switched on whenever "
         "the air was below zero.\nUnheated blades lost up to forty percent of their output in freezing fog.")
    c = "Unheated blades lost up to forty percent of their output in freezing fog."
    env.replay.json("POST", "/query/data", query_data(
        ("1", "plain.pdf", f"{doc}-chunk-000", a), ("1", "plain.pdf", f"{doc}-chunk-001", b),
        ("1", "plain.pdf", f"{doc}-chunk-002", c)))
    result = env.search("blade heating")
    cited = env.by_rel(result.results, rel)
    assert len(cited) == 2 and result.diagnostics["dropped"] == {"samePlace": 1}
    boxes = [tuple(x.locator.bbox or ()) for x in cited]
    assert len(set(boxes)) == 2 and all(x.locator_precision == "bbox" for x in cited)
    first = next(x for x in cited if x.light_rag_chunk_id == f"{doc}-chunk-000")  # the best-ranked one is kept
    assert first.locator.bbox[1] <= heat[0].box[1] + 3 and first.locator.bbox[3] >= heat[1].box[3] - 3


def _cite_pdf(env: Env, src: Path | bytes, rel: str, chunk: str, query: str) -> Citation:
    """Search a one-chunk replay of the PDF ``src`` (a corpus file or built bytes) at ``rel``."""
    name = Path(rel).name
    target = env.ws / rel
    if isinstance(src, bytes):
        target.write_bytes(src)
    else:
        shutil.copyfile(src, target)
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, name))
    env.replay.json("POST", "/query/data", query_data(("1", name, f"{naming.doc_id_for(name)}-chunk-000", chunk)))
    cited = env.by_rel(env.search(query).results, rel)
    assert len(cited) == 1
    return cited[0]


def test_running_header_of_a_page_crossing_chunk_stays_out_of_the_quote(env: Env) -> None:
    # The chunk's text (as pypdf writes it) holds page 3's running header and page
    # number between the two halves of the passage; the quote reads straight through.
    import logging

    import pypdf
    from mnote_kr_testkit.data import CORPUS

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    src = CORPUS / "pdf" / "mineru__demo1.pdf"
    pages = pypdf.PdfReader(str(src)).pages
    p3, p4 = pages[2].extract_text(), pages[3].extract_text()
    chunk = p3[-700:] + "\n" + p4[:900]
    assert "Journal of Hydrology 310 (2005) 253–265 255" in chunk
    before = src.read_bytes()
    c = _cite_pdf(env, src, "papers/demo1.pdf", chunk, "zero flow days after afforestation")
    assert c.locator_precision == "bbox" and c.locator.page == 4
    assert c.display_quote and c.context_quote and c.display_quote in c.context_quote
    for quote in (c.display_quote, c.context_quote):
        assert "Journal of Hydrology" not in quote and "253–265" not in quote
    # the text on either side of the header is kept, now side by side (the chunk, as context)
    assert "given in Lane et al. (2003). 2.2. Zero" in c.context_quote
    assert "Journal of Hydrology" in c.raw_quote  # diagnostics keep the provider's text
    assert (env.ws / "papers/demo1.pdf").read_bytes() == before


def test_generated_running_header_and_page_number_leave_the_quote_but_a_number_in_a_sentence_stays(
    env: Env,
) -> None:
    b = PdfBuilder()
    body = [
        ["Rime ice builds up on the leading edge of the blade in freezing fog.",
         "The survey covered 102 turbines in three northern wind farms."],
        ["Blade heating removed most of the ice within an hour of switching on.",
         "Its power draw stayed below two percent of the turbine's output."],
        ["Unheated blades lost up to forty percent of their output in such fog.",
         "Operators shut those turbines down when the ice load grew too heavy."],
    ]
    header = "Annals of Wind Engineering 12 (2024) 101-130"
    header_box = []
    for n, lines in enumerate(body):
        p = b.add_page()
        header_box.append(b.text(p, 72, 760, header, 9))
        b.text(p, 300, 40, str(101 + n), 9)  # the page number
        for i, t in enumerate(lines):
            b.text(p, 72, 650 - 14 * i, t, 11)
    # the chunk as a text extractor writes it: page 2's header and page 1's number between the pages
    chunk = (f"{body[0][0]}\n{body[0][1]}\n101\n{header}\n{body[1][0]}\n{body[1][1]}\n102\n{header}\n"
             f"{body[2][0]}")
    c = _cite_pdf(env, b.build(), "papers/icing.pdf", chunk, "when was the ice removed by blade heating")
    assert c.locator_precision == "bbox" and not c.locator_degraded and c.locator.page == 2, c.locator
    assert c.locator.bbox[1] > 792 - 650 - 14  # the body, not the header at the top
    assert c.display_quote and c.context_quote
    assert header not in c.display_quote and "Annals" not in c.display_quote
    assert c.display_quote.startswith(body[1][0])  # the answering sentence first
    assert header not in c.context_quote and "Annals" not in c.context_quote
    assert "covered 102 turbines" in c.context_quote  # a number inside a sentence is content
    assert " 101 " not in f" {c.context_quote} " and " 102 " not in c.context_quote.replace("102 turbines", "")
    assert f"{body[0][1]} {body[1][0]}" in c.context_quote


def _report() -> tuple[PdfBuilder, list, str]:
    """A two-page report with its bookmarks (nested on page 1) and a chunk of page 1's "Icing"."""
    p = PdfBuilder()
    one, two = p.add_page(), p.add_page()
    p.text(one, 72, 720, "Wind farm report", size=16)
    p.text(one, 72, 600, "Icing", size=13)
    p.text(one, 72, 575, "Blade heating kept the power loss below five percent on every turbine.", size=10)
    p.text(two, 72, 720, "Maintenance", size=16)
    p.text(two, 72, 690, "Crews climbed the towers twice each winter to check the heating mats.", size=10)
    outline = [("Wind farm report", 0, 740.0, [("Icing", 0, 618.0, [])]), ("Maintenance", 1, 740.0, [])]
    return p, outline, "Blade heating kept the power loss below five percent on every turbine."


def test_pdf_citation_heading_path_is_the_outline_section_of_its_place(env: Env) -> None:
    # A PDF's bookmarks name the section the cited block is printed under, as a nested path.
    import msgspec
    from mnote_kr_testkit.pdfs import with_outline

    p, outline, chunk = _report()
    cited = _cite_pdf(env, with_outline(p.build(), outline), "papers/report.pdf", chunk, "blade heating power loss")
    assert cited.locator_precision == "bbox" and cited.heading_path == ["Wind farm report", "Icing"]
    assert msgspec.to_builtins(cited)["headingPath"] == ["Wind farm report", "Icing"]  # as search --json shows it


def test_pdf_citation_without_bookmarks_has_no_section(env: Env) -> None:
    # Without bookmarks the section is not guessed from the page (LightRAG's plain PDF chunks have none).
    p, _, chunk = _report()
    plain = _cite_pdf(env, p.build(), "papers/plain.pdf", chunk, "blade heating power loss")
    assert plain.locator_precision == "bbox" and plain.heading_path == []


def test_the_row_holding_the_query_as_written_is_the_files_first_place(env: Env, monkeypatch: pytest.MonkeyPatch
                                                                        ) -> None:
    # nc16a S8: 'search "蒙牛冠益乳"' on the corpus grocery list cited "9 蒙牛冠冠益乳椰果味250g" (LightRAG's first
    # chunk of the file, rows of "蒙牛冠冠益乳": every bigram of the query, many times) as an exact box, while the
    # row "蒙牛冠益乳原味450g", in the engine's chunk 0 of the page, holds the name as typed.
    import json

    from mnote_kr_testkit.data import CORPUS

    import mnote_kr_pdf_bbox
    from mnote_kr.citations.rank import meaning, ranking

    src = CORPUS / "pdf" / "pypdf__issue-914-xmp-data.pdf"
    before = src.read_bytes()
    rel, name = "lists/xmp.pdf", "xmp.pdf"
    (env.ws / "lists").mkdir(exist_ok=True)
    shutil.copyfile(src, env.ws / rel)
    # ingest's preparation: the page's blocks embedded, so the places are ranked by meaning too (the near
    # variant is nearer the query by its cosine: that is what led it)
    mnote_kr_pdf_bbox.prepare_locate(str(env.ws / rel))
    meaning.embed_queued(lambda line: None)
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, name))
    chunks = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc16a_chunks.json").read_text("utf-8"))[
        "pypdf__issue-914-xmp-data.pdf"]
    doc = naming.doc_id_for(name)
    env.replay.json("POST", "/query/data", query_data(("1", name, f"{doc}-chunk-003", chunks["003"]),
                                                      ("1", name, f"{doc}-chunk-000", chunks["000"])))

    def first() -> Citation:
        fresh_caches()
        (c,) = [c for c in env.search("蒙牛冠益乳").results if c.source_root_relative_path == rel]
        return c

    c = first()
    assert "蒙牛冠益乳原味450g" in (c.display_quote or ""), c.display_quote
    assert c.locator_precision == "bbox" and not c.locator_degraded
    monkeypatch.setattr(ranking, "WRITTEN_IN_FILE", 0.0)
    assert "蒙牛冠益乳原味450g" not in (first().display_quote or "")  # the rule is what puts it first
    assert src.read_bytes() == before


def test_a_place_that_is_only_the_query_quotes_what_follows_it(env: Env) -> None:
    # nc16a S3: 'search "热化学方程式"' boxed the heading of that name on the corpus PDF (right place) and quoted
    # only "热化学方程式": the words typed, nothing that answers. The quote goes on with the chunk's sentence
    # after it; the box stays the heading's.
    import json

    from mnote_kr_testkit.data import CORPUS

    src = CORPUS / "pdf" / "mineru__introduction.pdf"
    before = src.read_bytes()
    chunk = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc16a_chunks.json").read_text("utf-8"))[
        "mineru__introduction.pdf"]["000"]
    c = _cite_pdf(env, src, "papers/intro.pdf", chunk, "热化学方程式")
    assert c.locator_precision == "bbox" and not c.locator_degraded and c.locator.page == 1
    assert c.locator.bbox is not None and c.locator.bbox[3] - c.locator.bbox[1] < 30  # the heading's line alone
    quote = c.display_quote or ""
    assert quote.startswith("热化学方程式") and "在配平完的方程式后根据事实写上" in quote, quote
    assert "其中" in quote and "放热反应" not in quote, quote  # its first sentence, not the rest of the page
    assert src.read_bytes() == before


def test_a_caption_holding_more_than_the_query_keeps_its_own_quote(env: Env) -> None:
    # a caption says which figure (nc16a S1: "Figure 7-26. Self-locking nuts."): it is quoted as it is, the
    # next caption or column after it in the chunk is no answer
    p = PdfBuilder()
    page = p.add_page()
    p.text(page, 72, 720, "Figure 3. Blade heating.", size=11)
    p.text(page, 72, 690, "Figure 4. Unheated blades in freezing fog.", size=11)
    chunk = "Figure 3. Blade heating.\nFigure 4. Unheated blades in freezing fog."
    c = _cite_pdf(env, p.build(), "papers/blades.pdf", chunk, "blade heating")
    assert c.display_quote == "Figure 3. Blade heating."


def test_an_exact_cell_behind_an_unanchored_first_place_leads_though_a_place_has_no_cosine(env: Env) -> None:
    # nc16c O4: 'search "How many handgun background checks were there in Texas?"' on the rotated NICS table cited
    # first a passage box on a NOTES footnote (chunk 008: no block holds the query's words, no cosine), and
    # "Texas, Handgun: 56,941" (exact, cosine 0.70) only as also #2: the header row behind them (chunk 000) has no
    # cosine, and one place without a cosine kept the file's order, so the nearest by meaning never led.
    import json

    from mnote_kr_testkit.data import CORPUS


    name = "pdfplumber__nics-background-checks-2015-11-rotated.pdf"
    src = CORPUS / "pdf" / name
    before = src.read_bytes()
    rel = f"papers/{name}"
    prepared_pdf(env, src, rel)
    chunks = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc16c_chunks.json").read_text("utf-8"))[name]
    doc = naming.doc_id_for(name)
    env.replay.json("POST", "/query/data", query_data(*(("1", name, f"{doc}-chunk-{n}", chunks[n])
                                                        for n in ("008", "000", "006"))))
    c, *behind = env.by_rel(env.search("How many handgun background checks were there in Texas?").results, rel)
    assert c.display_quote == "Texas, Handgun: 56,941", (c.display_quote, [a.display_quote for a in behind])
    assert c.locator_precision == "bbox" and not c.locator_degraded
    assert "Refers to frames" in (behind[0].display_quote or "")  # the passage's own place, right behind it
    assert src.read_bytes() == before
