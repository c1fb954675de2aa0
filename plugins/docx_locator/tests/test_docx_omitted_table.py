"""A table the engine's chunk leaves out does not split the passage around it.

The demo's first search, "capacity of cell B2", cited "Table 1 lists the measured capacity and cycle
life of the two best cells." (paragraph 6) although the chunk's next line, "Cell B2 kept the highest
capacity of 4100 mAh but lasted only 650 cycles.", holds every word of the query. In the DOCX a table
of nine cells stands between the two; LightRAG's native parser leaves tables out of the block, so the
evidence quotes paragraph 6 and then paragraph 16, with nothing of the nine cells. The matcher took
more than two unquoted paragraphs between two quoted ones for the end of one copy of the passage, so
"Cell B2 ..." became a passage of its own, explaining fewer evidence lines, and was never a candidate.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder

from mnote_kr.models import LocateRequest, SidecarBlock, SidecarPosition
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate

DEMO_DOCX = (Path(__file__).resolve().parents[2] / "lightrag" / "mnote_kr_lightrag" / "demo_data" / "field-notes"
             / "aurora-battery-report.docx")
ANSWER = "Cell B2 kept the highest capacity of 4100 mAh but lasted only 650 cycles."
LEAD_IN = "Table 1 lists the measured capacity and cycle life of the two best cells."
# the Results block of the sidecar LightRAG's native parser wrote for the demo DOCX (no table in it)
RESULTS_BLOCK = SidecarBlock(
    blockid="4573c4fae71b06613a93d5271670d6c2", format="plain_text", heading="Results",
    parent_headings=["Project Aurora battery report"], level=2, session_type="body",
    content=f"## Results\n{LEAD_IN}\n{ANSWER}",
    positions=[SidecarPosition(type="paraid", range=["1A2B0006", "1A2B0011"])],
)
# the cleaned evidence the pipeline handed the locator in the demo, and the chunk it came from
EVIDENCE = f"Results\n{LEAD_IN}\n{ANSWER}"
CHUNK = (
    "# Project Aurora battery report\n"
    "Project Aurora studies solid-state cells built by Nordwind Labs for cold-climate storage.\n\n"
    "## Methods\nEach cell was cycled at minus twenty degrees until its capacity fell below eighty percent.\n"
    'The energy estimate follows <equation format="latex">E=m{c}^{2}</equation> which the team uses only as a '
    "rough upper bound.\n\n"
    f"## Results\n{LEAD_IN}\n{ANSWER}\n\n"
    "## 电解液溶剂\nN-甲基吡咯烷酮 (NMP) 用作正极浆料的溶剂，涂布后在烘箱中除去。\n"
    "吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。\n\n"
    "## Next steps\nNordwind Labs plans a second phase in 2027 with larger pouch cells."
)


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


@pytest.mark.parametrize("with_block", [True, False])
def test_demo_capacity_of_cell_b2_is_cited_on_the_sentence_after_the_table(with_block: bool) -> None:
    before = hashlib.sha256(DEMO_DOCX.read_bytes()).digest()
    loc = locate(LocateRequest(file=str(DEMO_DOCX), evidence=EVIDENCE, query="capacity of cell B2",
                               block=RESULTS_BLOCK if with_block else None,
                               block_id=RESULTS_BLOCK.blockid if with_block else None, passage=CHUNK))
    assert (loc.locator_precision, loc.locator_degraded) == ("paragraph", False), loc.locator_reason
    assert loc.place_text == ANSWER, (loc.paragraph_index, loc.locator_reason)
    assert hashlib.sha256(DEMO_DOCX.read_bytes()).digest() == before


def test_a_long_table_left_out_of_the_chunk_does_not_hide_the_paragraph_after_it(tmp_path: Path) -> None:
    b = DocxBuilder()
    lines = [b.heading("Pump trials", 1),
             b.para("The pump trials ran for three weeks at the northern test stand with two operators."),
             b.para("Table 4 lists the flow rate and the noise level of every pump that was tried.")]
    b.table([["Pump", "Flow (l/min)", "Noise (dB)"]] + [[f"P{n}", str(40 + n), str(60 + n)] for n in range(1, 13)])
    answer = b.para("Pump P7 had the lowest noise level of the whole series but the weakest flow rate.")
    lines += [answer, b.para("A second series with larger impellers is planned for the spring.")]
    path = tmp_path / "pumps.docx"
    path.write_bytes(b.build())
    evidence = "\n".join(b.texts[i] for i in lines)  # the chunk: every paragraph but the table's 39 cells
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query="noise level of pump P7"))
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", answer), loc.locator_reason
