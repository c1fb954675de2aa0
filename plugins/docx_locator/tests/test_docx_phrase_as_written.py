"""A phrase searched word for word is cited where the file writes it (round 24, nc24d problem 2).

Recorded from the newcomer's own index (``data/nc24d_phrase.json``: the LightRAG chunk LightRAG ranked first, its
sidecar block with its content kept as its words once each, the only way the locator reads it, the evidence the host's
cleaning gave the locator, and the query's cosine with the paragraphs the locator asks about, from the vectors ingest
stored), replayed against the corpus DOCX. The handbook writes the list item "five percent of all payments received
under plans; and" four times (paragraphs 302, 2324, 4351 and 6404, 0-based); the chunk starts at paragraph 4368, past
the last copy before it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_replay import replay_locate

from mnote_kr_docx_locator import cache as docx_cache

CASE = json.loads((Path(__file__).parent / "data" / "nc24d_phrase.json").read_text("utf-8"))[0]
PHRASE = "five percent of all payments received under plans"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def _copies() -> list[int]:
    paras = docx_cache.load_docx(CORPUS / "docx" / CASE["file"]).paragraphs
    return [p.index for p in paras if PHRASE in p.text]


def test_a_phrase_searched_as_written_is_cited_exact_at_the_copy_nearest_the_passage(
        monkeypatch: pytest.MonkeyPatch) -> None:
    copies = _copies()
    assert len(copies) == 4, copies  # the handbook repeats its text; the nearest copy below stands before the chunk
    loc = replay_locate(CASE, monkeypatch)
    nearest = max(i for i in copies if i < 4368)
    assert (loc.paragraph_index, loc.locator_degraded) == (nearest, False), loc.reason
    text = docx_cache.load_docx(CORPUS / "docx" / CASE["file"]).paragraphs[nearest].text
    assert loc.highlight is not None
    assert text[loc.highlight.start:loc.highlight.end] == PHRASE
    # the place the passage gave is the first one behind it, still approximate
    assert [(r.paragraph_index, r.locator_degraded) for r in loc.runners_up[:1]] == [(4368, True)]
    assert loc.meaning_score == CASE["cosines"][str(nearest)]  # ordered among the file's places by its cosine
    # a question the file does not write as asked keeps the passage's place
    asked = replay_locate(CASE, monkeypatch, query="what percent of all payments received under plans is paid")
    assert asked.paragraph_index not in copies and "as written" not in (asked.reason or ""), asked.reason


def test_a_place_lacking_the_query_modifier_names_the_nearest_copy_holding_it_with_its_cosine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the list item asked almost word for word ("all" left out): no paragraph writes it, and the place lacks "five"
    loc = replay_locate(CASE, monkeypatch, query="five percent of payments received under plans")
    assert (loc.paragraph_index, loc.locator_degraded) == (4368, True), loc.reason
    nearest = max(i for i in _copies() if i < 4368)
    assert f"paragraph {nearest + 1} holds" in (loc.reason or ""), loc.reason
    first = loc.runners_up[0]
    assert first.paragraph_index == nearest
    # with its cosine, the host orders it among the file's places (without one it sank below every other)
    assert first.meaning_score == CASE["cosines"][str(nearest)]


def test_a_phrase_is_found_as_written_across_the_tab_the_file_writes_for_a_space(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the handbook's "Related Provisions" lines write "28 C.F.R. § 58.6\tAdministrative Review"; a reader copies a space
    loc = replay_locate(CASE, monkeypatch, query="28 C.F.R. § 58.6 Administrative Review")
    paras = docx_cache.load_docx(CORPUS / "docx" / CASE["file"]).paragraphs
    copies = [p.index for p in paras if p.text.strip() == "28 C.F.R. § 58.6\tAdministrative Review"]
    nearest = max(i for i in copies if i < 4368)
    assert (loc.paragraph_index, loc.locator_degraded) == (nearest, False), loc.reason
    assert loc.highlight is not None
    assert paras[nearest].text[loc.highlight.start:loc.highlight.end] == "28 C.F.R. § 58.6\tAdministrative Review"
