"""A DOCX with every block kind the viewer draws, for the viewer's tests (the PDF is ``cli_helpers.turbine_pdf``)."""

from __future__ import annotations

from mnote_kr_testkit.docx_docs import DocxBuilder


def report_docx(token: str) -> tuple[bytes, dict[str, int]]:
    """A DOCX with headings, a bulleted and a numbered list, a table and a text box.

    Returns the bytes and the paragraphIndex of named paragraphs.
    """
    b = DocxBuilder()
    idx: dict[str, int] = {}
    idx["title"] = b.heading(f"Rotor de-icing report {token}", 1)
    b.para("This report covers the winter trials of the small rotor fleet.")
    b.heading("Methods", 2)
    idx["bullet"] = b.list_item("Thermocouples on every blade root")
    b.list_item("Strain gauges on the tower", level=1)
    idx["number1"] = b.list_item("Heat the leading edge", ordered=True)
    idx["number2"] = b.list_item("Measure the output", ordered=True)
    cells = b.table([["Turbine", "Loss"], ["T1 heated", "4 percent"], ["T2 unheated", "38 percent"]])
    idx["cell_t2_loss"] = cells[2][1]
    idx["textbox"] = b.textbox_para("The anchor paragraph of the sidebar.", "Sidebar: ice sensors failed twice.")
    b.heading("Results", 2)
    idx["target"] = b.para("Pyrolytic coating on the blades cut the heating power by a third in freezing fog.")
    b.para("The unheated control rotor stopped twice during the trial.")
    return b.build(), idx
