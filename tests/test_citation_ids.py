"""Citation IDs: short, stable, collision-free within a result."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnote_kr.citations.render import ids as citations
from mnote_kr.citations.render.ids import citation_id

TEXT_ID = re.compile(r"\[[0-9a-z]{4}\]")
IMG_ID = re.compile(r"\[IMG-[0-9a-z]{4}\]")


def test_mapped_reference_generates_short_citation_id() -> None:
    taken: set[str] = set()
    cid = citation_id("lightrag", "src-1", "c550ce0871df011b1ecceaa9b9813b71", 0, taken=taken)
    assert TEXT_ID.fullmatch(cid)
    assert taken == {cid}
    img = citation_id("lightrag", "src-2", "chunk-9", 0, image=True, taken=taken)
    assert IMG_ID.fullmatch(img)
    assert taken == {cid, img}


def test_citation_id_is_stable_across_calls_and_processes() -> None:
    here = citation_id("lightrag", "src-1", "block-a", 2, taken=set())
    assert citation_id("lightrag", "src-1", "block-a", 2, taken=set()) == here
    code = ("from mnote_kr.citations.render.ids import citation_id; "
            "print(citation_id('lightrag','src-1','block-a',2,taken=set()))")
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123"}
    ).stdout.strip()
    assert other == here


def test_citation_id_depends_on_every_input() -> None:
    base = citation_id("lightrag", "s", "a", 0, taken=set())
    assert citation_id("other", "s", "a", 0, taken=set()) != base
    assert citation_id("lightrag", "t", "a", 0, taken=set()) != base
    assert citation_id("lightrag", "s", "b", 0, taken=set()) != base
    assert citation_id("lightrag", "s", "a", 1, taken=set()) != base


def test_citation_id_resalts_deterministically_on_collision() -> None:
    first = citation_id("lightrag", "s", "a", 0, taken=set())
    taken = {first}
    second = citation_id("lightrag", "s", "a", 0, taken=taken)
    assert second != first and TEXT_ID.fullmatch(second)
    assert second in taken
    # the same collision re-salts to the same ID again
    assert citation_id("lightrag", "s", "a", 0, taken={first}) == second


def test_citation_ids_unique_within_a_large_result() -> None:
    taken: set[str] = set()
    ids = [citation_id("lightrag", f"src-{i % 7}", f"chunk-{i}", i % 3, taken=taken) for i in range(3000)]
    assert len(set(ids)) == 3000
    assert all(TEXT_ID.fullmatch(i) for i in ids)


def test_citation_id_never_loops_when_short_ids_run_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fill every salt the 4-character ID may try for these inputs: the ID grows instead.
    monkeypatch.setattr(citations, "_MAX_SALTS", 16)
    taken: set[str] = set()
    short = [citation_id("p", "s", "a", 0, taken=taken) for _ in range(16)]
    assert all(TEXT_ID.fullmatch(c) for c in short)
    last = citation_id("p", "s", "a", 0, taken=taken)
    assert re.fullmatch(r"\[[0-9a-z]{6}\]", last)


@given(st.text(max_size=20), st.text(max_size=20), st.integers(0, 1000), st.booleans())
def test_citation_id_format_for_any_input(source: str, anchor: str, occurrence: int, image: bool) -> None:
    cid = citation_id("lightrag", source, anchor, occurrence, image=image, taken=set())
    assert (IMG_ID if image else TEXT_ID).fullmatch(cid)


def test_slide_and_cell_locators_carry_their_place_in_url_and_markdown() -> None:
    from mnote_kr.models import Locator

    slide = Locator(locator_precision="slide", locator_degraded=False, slide=3, shape_id=4, shape_name="Rectangle 3",
                    paragraph_index=0, bbox=[6180463.0, 1344058.0, 10256704.0, 5221995.0], bbox_unit="emu")
    url = citations.citation_url("decks/q3.pptx", slide)
    assert url == "mnote-kr://open?path=decks/q3.pptx&precision=slide&slide=3&shape=4"
    assert citations.citation_markdown("q3.pptx", slide, url) == f"[q3.pptx · slide 3]({url})"
    cell = Locator(locator_precision="cell", locator_degraded=False, sheet="P&L 2023", range="C12",
                   headers=["2023"], row_label="Revenue")
    url = citations.citation_url("books/plan.xlsx", cell)
    assert url == "mnote-kr://open?path=books/plan.xlsx&precision=cell&sheet=P%26L%202023&range=C12"
    assert citations.citation_markdown("plan.xlsx", cell, url) == f"[plan.xlsx · P&L 2023!C12]({url})"


def test_a_speaker_note_is_its_slides_notes_in_url_and_place_never_a_shape_of_the_same_id() -> None:
    from mnote_kr.citations.render.folding import place_key
    from mnote_kr.models import Locator

    # The sample deck's slide 2: its content placeholder and its notes placeholder both have id 3.
    shape = Locator(locator_precision="slide", locator_degraded=False, slide=2, shape_id=3, paragraph_index=0)
    notes = Locator(locator_precision="slide", locator_degraded=False, slide=2, paragraph_index=0, speaker_notes=True)
    legacy = Locator(locator_precision="slide", locator_degraded=False, slide=2, shape_id=3, paragraph_index=0,
                     speaker_notes=True)  # a notes locator written before notes stopped naming their placeholder
    assert place_key(notes) == place_key(legacy) == "s2:notes:0" != place_key(shape) == "s2:3:0"
    url = citations.citation_url("decks/q3.pptx", legacy)
    assert url == "mnote-kr://open?path=decks/q3.pptx&precision=slide&slide=2&notes=1"
    assert citations.citation_markdown("q3.pptx", notes, url) == f"[q3.pptx · slide 2 notes]({url})"


def test_old_locator_json_without_the_office_fields_still_decodes() -> None:
    import msgspec

    from mnote_kr.models import Locator

    old = b'{"locatorPrecision": "paragraph", "locatorDegraded": false, "paragraphIndex": 3}'
    loc = msgspec.json.decode(old, type=Locator)
    assert (loc.paragraph_index, loc.slide, loc.sheet, loc.headers) == (3, None, None, [])
