"""Regenerate the demo's bundled sample folder (run once; the output is committed).

    .venv/bin/python scripts/make_demo_data.py

Uses the test-document generators of the DOCX and PDF plugins, so the demo files are
our own (no third-party documents are bundled).
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.docx_docs import DocxBuilder, Eq
from mnote_kr_testkit.pdfs import PdfBuilder

OUT = Path(__file__).resolve().parent.parent / "plugins" / "lightrag" / "mnote_kr_lightrag" / "demo_data"


def docx() -> bytes:
    b = DocxBuilder()
    b.heading("Project Aurora battery report", 1)
    b.para("Project Aurora studies solid-state cells built by Nordwind Labs for cold-climate storage.")
    b.heading("Methods", 2)
    b.para("Each cell was cycled at minus twenty degrees until its capacity fell below eighty percent.")
    b.para(["The energy estimate follows ", Eq("E=m", sup=("c", "2")),
            " which the team uses only as a rough upper bound."])
    b.heading("Results", 2)
    b.para("Table 1 lists the measured capacity and cycle life of the two best cells.")
    b.table([["Cell", "Capacity (mAh)", "Cycles"], ["A1", "3200", "800"], ["B2", "4100", "650"]])
    b.para("Cell B2 kept the highest capacity of 4100 mAh but lasted only 650 cycles.")
    b.heading("电解液溶剂", 2)
    b.para("N-甲基吡咯烷酮 (NMP) 用作正极浆料的溶剂，涂布后在烘箱中除去。")
    b.para("吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。")
    b.heading("Next steps", 2)
    b.para("Nordwind Labs plans a second phase in 2027 with larger pouch cells.")
    return b.build()


def markdown() -> str:
    return (
        "# Solvent handling notes\n\n"
        "Morpholine (吗啉) is stored in the ventilated cabinet next to the fume hood.\n\n"
        "## Drying\n\n"
        "Electrode sheets are dried at 120 °C for twelve hours before the cells are assembled.\n\n"
        "## Safety\n\n"
        "Gloves and goggles are required whenever NMP or morpholine is handled.\n"
    )


def pdf() -> bytes:
    p = PdfBuilder()
    one = p.add_page()
    lines = [
        "Wind Turbine Icing Study",
        "",
        "Small wind turbines lose output when ice builds up on the blades.",
        "This study measured the power loss of three turbines over one winter",
        "at a coastal test site with frequent freezing fog.",
        "",
        "Blade heating kept the power loss below five percent on every turbine,",
        "while unheated blades lost up to forty percent of their output.",
    ]
    y = 740.0
    for line in lines:
        if line:
            p.text(one, 72, y, line, size=16 if y == 740.0 else 11)
        y -= 22
    two = p.add_page()
    y = 740.0
    for line in [
        "Maintenance",
        "",
        "Heated blades need their heating mats checked before each winter season.",
        "The mats draw about two kilowatts while the anti-icing controller runs.",
    ]:
        if line:
            p.text(two, 72, y, line, size=11)
        y -= 22
    return p.build()


def main() -> None:
    (OUT / "field-notes").mkdir(parents=True, exist_ok=True)
    (OUT / "papers").mkdir(parents=True, exist_ok=True)
    (OUT / "field-notes" / "aurora-battery-report.docx").write_bytes(docx())
    (OUT / "field-notes" / "solvent-handling.md").write_text(markdown(), encoding="utf-8")
    (OUT / "papers" / "wind-turbine-icing.pdf").write_bytes(pdf())
    print(f"wrote demo data to {OUT}")


if __name__ == "__main__":
    main()
