"""A citation's label describes the file as it is now (nc30a W3, issue 33).

After an edit took "120-mesh" and "screen" out of a note's third paragraph, the query "120-mesh screen filter" was
still cited there as exact ("matched evidence holding the query terms"), though only "filter" (and "mesh" inside
"200-mesh") stands in the file now: the words the query asks for that the file holds nowhere were most of its
weight. The place stays (the passage is about the filter); its claim is no longer exact, and says why. A question
the paragraph answers in other words (nc30a Q6) is said to be placed by meaning, not "approximate".
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations.render.precision import certainty, how_placed, placed_words
from mnote_kr.default_plugins.text_locator import clear_cache, locate
from mnote_kr.models import LocateRequest, Locator

BEFORE = ("# Greenhouse irrigation log\n\n"
          "The east greenhouse switched from overhead sprinklers to drip lines in March. Water use dropped by "
          "roughly a third over the first six weeks, while the tomato seedlings kept their growth rate.\n\n"
          "The drip emitters clog when the rain barrel water is not filtered. We fitted a 120-mesh screen filter "
          "before the pump, and the clogging stopped after the second week.\n\n"
          "Night temperatures below 8 °C slowed the pepper plants noticeably. A small paraffin heater keeps the "
          "minimum at 11 °C, which costs about four litres of fuel per cold night.\n\n"
          "Next season we want to try capillary mats for the herb trays, because basil wilts on hot afternoons "
          "even when the soil is still damp.\n")
AFTER = BEFORE.replace("a 120-mesh screen filter", "a 200-mesh stainless disc filter").replace(
    "the second week.", "the second week. The filter cartridge is rinsed every Saturday with a garden hose.")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


def _note_citation(host, query: str):
    return next(c for c in host.search(query, top_k=10).results
                if c.source_root_relative_path == "notes/greenhouse-log.md")


def test_old_wording_after_an_edit_is_not_cited_as_exact_on_the_edited_paragraph(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    note = ws / "notes" / "greenhouse-log.md"
    note.write_text(BEFORE, encoding="utf-8")
    host, _ = fake_host(ws)
    host.roots_add(ws / "notes")
    host.ingest([ws / "notes"])
    before = _note_citation(host, "120-mesh screen filter")
    assert before.locator.paragraph_index == 2 and not before.locator.locator_degraded  # the words are there: exact

    note.write_text(AFTER, encoding="utf-8")
    digest = hashlib.sha256(note.read_bytes()).hexdigest()
    host.ingest([ws / "notes"])
    after = _note_citation(host, "120-mesh screen filter")
    assert "200-mesh stainless disc filter" in after.display_quote  # the file as it is now is quoted
    # no longer claimed exact (the fake provider parses no sidecar block, so the host's ``claims.honest`` makes an
    # approximate paragraph the file; the locator's own claim is checked below)
    assert certainty(after.locator) != "exact", after.locator.locator_reason
    # the new wording is exact there
    now = _note_citation(host, "200-mesh stainless disc filter")
    assert now.locator.paragraph_index == 2 and not now.locator.locator_degraded
    assert hashlib.sha256(note.read_bytes()).hexdigest() == digest  # the user's file is untouched


@pytest.mark.parametrize("reason", [
    # nc30a Q6, as the search gave it (the paragraph is the answer, "roughly a third")
    "semantic match: the sentence holding most of the query's words holds few of them in the block's heading section",
    "semantic match: the paragraph holding most of the query's words holds few of them",
    "semantic match: the passage holds few of the query's words; cited where most of them are",
])
def test_a_paragraph_placed_for_a_question_in_other_words_is_placed_by_meaning_not_approximate(reason: str) -> None:
    loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=1, reason=reason,
                  locator_reason=reason)
    assert certainty(loc) == "approximate"  # the claim stays: not placed by the query's words
    assert how_placed(loc) == "meaning"
    assert placed_words(loc) == " (placed by meaning)"


def test_a_passage_box_and_a_doubted_place_stay_approximate() -> None:
    box = Locator(locator_precision="bbox", locator_degraded=True, page=1, bbox=[0, 0, 10, 10],
                  reason="semantic match: the passage holds few of the query's words; cited where most of them are")
    assert placed_words(box) == " (approximate)"  # the passage's box names no block
    lacks = "semantic match: the sentence lacks words the query asks for, which the file holds nowhere (120, screen)"
    para = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=2, reason=lacks)
    assert placed_words(para) == " (approximate)"


def test_the_text_locator_says_which_asked_words_the_file_holds_nowhere(tmp_path: Path) -> None:
    note = tmp_path / "greenhouse-log.md"
    note.write_text(AFTER, encoding="utf-8")
    loc = locate(LocateRequest(file=str(note), evidence=AFTER, query="120-mesh screen filter", passage=AFTER))
    assert loc.paragraph_index == 2  # the place stays: the paragraph about the filter
    assert loc.locator_degraded and certainty(loc) == "approximate"
    assert "screen" in (loc.locator_reason or "") and "120" in (loc.locator_reason or "")
    # a query whose words the file holds stays exact on the same paragraph
    held = locate(LocateRequest(file=str(note), evidence=AFTER, query="stainless disc filter", passage=AFTER))
    assert held.paragraph_index == 2 and not held.locator_degraded
