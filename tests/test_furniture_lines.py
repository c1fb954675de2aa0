"""A passage's page furniture with words is left out of its quote; the raw chunk keeps it.

Seen by newcomers (rounds 15 and 16): cards of ``mineru__demo1.pdf`` quoted ``Journal of Hydrology 310 (2005)
253–265`` (the first page's running header, printed there alone, so no locator found it repeated) and
``* Corresponding author. Address: ...``, with the answer after them. LightRAG's chunk crosses the page's
foot: copyright, DOI, the journal's header, the author's address and e-mail sit between two pages' text.
Such a line is furniture by its form (``cleaning.furniture``): the journal's name with volume, (year) and
page range, ``Page 3 of 12``, ``Corresponding author``, a copyright or ``All rights reserved`` line, an
``E-mail`` line. It leaves ``displayQuote``, never ``rawQuote``; a line holding the query's words stays
(a question about the journal is answered by its header).
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr.citations.cleaning.furniture import drop_furniture, is_furniture

HEADER = "Journal of Hydrology 310 (2005) 253–265"
# the foot of demo1.pdf's first page and the head of its second, as its text layer reads them
PAGE_FOOT = (
    "q 2005 Elsevier B.V. All rights reserved.\n"
    "Keywords: Afforestation; Flow duration curves; Flow reduction; Paired catchments\n"
    "0022-1694/$ - see front matter q 2005 Elsevier B.V. All rights reserved.\n"
    "doi:10.1016/j.jhydrol.2005.01.006\n"
    f"{HEADER}\n"
    "www.elsevier.com/locate/jhydrol\n"
    "* Corresponding author. Address: Forest Science Centre, Department of Sustainability and Environment.\n"
    "E-mail address: patrickl@unimelb.edu.au (P.N.J. Lane).\n"
    "1. Introduction\n"
    "Widespread afforestation through plantation establishment on non-forested land represents a potentially\n"
    "significant alteration of catchment evapotranspiration (ET).\n"
)


def test_furniture_lines_are_known_by_their_form_and_prose_is_not() -> None:
    for line in (HEADER, "P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265 254",
                 "P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265254",
                 "* Corresponding author. Address: Forest Science Centre.", "∗Corresponding author.",
                 "Corresponding authors: A. Smith, B. Jones", "Page 3 of 12", "page 3", "3 of 12", "第 3 页 共 12 页",
                 "© 2021 The Authors. Published by Elsevier Ltd.", "Copyright © 2019 IEEE",
                 "q 2005 Elsevier B.V. All rights reserved.", "E-mail address: patrickl@unimelb.edu.au (P.N.J. Lane).",
                 "Email: a.smith@example.org", "doi:10.1016/j.jhydrol.2005.01.006"):
        assert is_furniture(line), line
    for line in ("Widespread afforestation through plantation establishment on non-forested land",
                 "The journal published 12 papers on hydrology in 2005.", "1. Introduction",
                 "See page 3 of the manual for the wiring diagram.", "Keywords: Afforestation; Flow reduction",
                 "Send questions by e-mail to the authors at any time.",
                 "All rights reserved by the tenant under the lease are listed in Schedule 2, with the notice periods"
                 " each requires before the landlord may act."):
        assert not is_furniture(line), line


def test_a_chunks_furniture_lines_go_and_its_prose_and_the_querys_lines_stay() -> None:
    kept = drop_furniture(PAGE_FOOT, "How does afforestation change catchment evapotranspiration?")
    assert kept.splitlines() == [
        "Keywords: Afforestation; Flow duration curves; Flow reduction; Paired catchments",
        "www.elsevier.com/locate/jhydrol", "1. Introduction",
        "Widespread afforestation through plantation establishment on non-forested land represents a potentially",
        "significant alteration of catchment evapotranspiration (ET)."]
    # a line that holds the query's words answers it: kept
    about = drop_furniture(PAGE_FOOT, "Which volume of the Journal of Hydrology?")
    assert HEADER in about and "Corresponding author" not in about
    assert drop_furniture(PAGE_FOOT, "who is the corresponding author").count("Corresponding author") == 1
    assert drop_furniture("Prose only.\nMore prose.", "x") == "Prose only.\nMore prose."


def test_a_card_quotes_the_passage_without_its_furniture_and_its_raw_quote_keeps_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    # one block of lines, as a PDF's text layer gives the top of a page
    text = ("Journal of Hydrology 310 (2005) 253–265\n* Corresponding author. Address: Forest Science Centre.\n"
            "Plantations reduce mean annual streamflow in every catchment studied, and the reduction grows "
            "with the share of the catchment planted.\n")
    write(ws / "kb" / "lane.md", text)
    before = (ws / "kb" / "lane.md").read_bytes()
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_completed"))
    host.roots_add(ws / "kb")
    host.ingest([ws / "kb"])
    (c,) = host.search("do plantations reduce streamflow").results
    assert c.display_quote.startswith("Plantations reduce mean annual streamflow"), c.display_quote
    assert "Journal of Hydrology" not in c.display_quote and "Corresponding" not in (c.context_quote or "")
    assert c.raw_quote.startswith(HEADER)  # diagnostics keep the provider's chunk as it was
    (asked,) = host.search("Journal of Hydrology volume 310").results
    assert HEADER in (asked.context_quote or ""), asked.context_quote
    assert (ws / "kb" / "lane.md").read_bytes() == before
