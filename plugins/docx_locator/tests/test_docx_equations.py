"""An equation's superscripts and subscripts read as the host reads an engine's LaTeX of them (``c^2``,
``a_0``), so the engine's chunk lines align with the paragraphs holding them.

The newcomer's case on docling's equations document: "Pythagorean theorem" was cited on the Fourier-series
equation (paragraph 10, an approximate place by meaning), though the passage held "The formula
a^2+b^2=c^2 is the Pythagorean theorem.": the reader gave that paragraph as "a2+b2=c2", so the chunk's
lines of the list (each an equation's tokens "a", "2" against the reader's "a2") aligned with no paragraph,
and the list was left out of the passage's places.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

DOC = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "docx" / "docling__equations.docx"
# LightRAG's chunk of the document, as the real engine returned it for the query (its head)
CHUNK = (
    'This is a word document and this is an inline equation: <equation format="latex">A=π{r}^{2} </equation>.\n'
    ' First item with inline equation: <equation format="latex">A=π{r}^{2}</equation> is the area formula.\n'
    ' Second item with equations: <equation format="latex">E=m{c}^{2}</equation> and '
    '<equation format="latex">F=ma</equation> are physics formulas.\n'
    ' The formula <equation format="latex">{a}^{2}+{b}^{2}={c}^{2}</equation> is the Pythagorean theorem.\n'
    "If instead, I want an equation by line, I can do this:\n"
    '<equation id="eq-1" format="latex">\\begin{eqnarray*}{a}^{2}+{b}^{2}={c}^{2}× 23 \\\\\\end{eqnarray*}</equation>\n'
    "And that is an equation by itself. Cheers!\nThis is another equation:\n"
    '<equation id="eq-2" format="latex">\\begin{eqnarray*}f\\left( x \\right)={a}_{0}+\\sum_{n=1}^{\\infty }'
    "{\\left( {a}_{n}\\cos_{}^{}{\\frac{nπx}{L}}+{b}_{n}\\sin_{}^{}{\\frac{nπx}{L}} \\right)} \\\\\\end{eqnarray*}"
    "</equation>\nThis is text. This is text. This is text."
)


@pytest.fixture
def fourier_nearest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's choice as the real engine's search met it: the Fourier equation nearest the query."""
    from mnote_kr.citations.rank import meaning

    monkeypatch.setattr(meaning, "cosines", lambda key, query, idx: {i: 0.9 if i == 10 else 0.3 for i in idx})
    monkeypatch.setattr(meaning, "nearest", lambda *a, **k: {})
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def test_an_equations_superscripts_read_as_the_engines_latex() -> None:
    plugins = load_plugins(None)
    text = plugins.extract_text(str(DOC))
    assert "The formula a^2+b^2=c^2 is the Pythagorean theorem." in text
    assert "A=πr^2 is the area formula." in text


def test_the_paragraph_holding_every_query_term_is_cited_not_an_equation_by_meaning(fourier_nearest: None) -> None:
    before = hashlib.sha256(DOC.read_bytes()).digest()
    plugins = load_plugins(None)
    query = "Pythagorean theorem"
    bundle = plugins.clean_text(CHUNK, query, None)
    loc = plugins.locate(LocateRequest(file=str(DOC), evidence=bundle.locator_evidence_text, query=query,
                                       passage=CHUNK))
    assert (loc.paragraph_index, loc.locator_degraded) == (3, False), loc.locator_reason
    assert loc.place_text == "The formula a^2+b^2=c^2 is the Pythagorean theorem."
    assert hashlib.sha256(DOC.read_bytes()).digest() == before
