"""A citation that could not be placed and holds none of the query's words never leads a search.

Seen by a newcomer (round 17, O3): ``search "Who won the 2018 FIFA World Cup final?"`` led with a handbook
chunk of two words, ``and Termination``, that the DOCX locator could place on no paragraph of its sidecar
block ("evidence matches no paragraph of the sidecar block's paraid range", precision ``file``): its
``relevanceScore`` 0.5 was its provider rank alone, above every boxed place. Nothing but the provider's
order spoke for it, and the provider's order is what a passage of no query word inherits from the graph.
Such a citation now ranks below every placed one (``ranking.UNPLACED``), and is still returned.

The workspace and replay are ``tests/test_pipeline_replay.py``'s: LightRAG's chunks are built here, the
DOCX one a two-word fragment of the Aurora block's text (mapped to that block, placed on none of its
paragraphs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr.models import Citation
from tests.test_pipeline_replay import AURORA, AURORA_REL, NOTES_REL, STUDY_REL, Env, fresh_caches, make_env, query_data

FRAGMENT = "second phase"  # Aurora's block holds it; the locator places it on no paragraph
NOTES = "Zephyr is a wind turbine prototype designed by Kestrel Energy in Aarhus."
STUDY = "Nordwind Labs evaluated 12 cells."


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()
    return make_env(tmp_path, monkeypatch)


def search(env: Env, query: str) -> list[Citation]:
    """The citations of ``query`` over LightRAG's three chunks, the Aurora fragment first."""
    env.replay.json("POST", "/query/data", query_data(("1", AURORA, "chunk-aurora-frag", FRAGMENT),
                                                      ("2", "notes.md", "chunk-notes-0", NOTES),
                                                      ("3", "study.pdf", "chunk-study-0", STUDY)))
    return env.search(query).results


def test_an_unplaced_fragment_without_the_querys_words_ranks_below_every_placed_citation(env: Env) -> None:
    results = search(env, "Who won the 2018 FIFA World Cup final?")
    rels = [c.source_root_relative_path for c in results]
    assert sorted(rels) == sorted([AURORA_REL, NOTES_REL, STUDY_REL])  # kept, not dropped
    aurora = results[rels.index(AURORA_REL)]
    assert (aurora.locator_precision, aurora.locator_degraded) == ("file", True)
    assert "no paragraph" in (aurora.locator.reason or "")
    assert rels[-1] == AURORA_REL, [(c.source_root_relative_path, c.relevance_score) for c in results]
    placed = [c.relevance_score or 0.0 for c in results if c.locator_precision != "file"]
    assert (aurora.relevance_score or 0.0) < min(placed)
    assert (aurora.diagnostics.score_parts or {}).get("unplaced", 0.0) < 0


def test_a_placed_citation_holding_one_query_word_leads_the_unplaced_fragment(env: Env) -> None:
    """The newcomer's case: boxed places holding the query's words stood below the fragment."""
    results = search(env, "Which turbine evaluated the World Cup balls?")
    assert results[-1].source_root_relative_path == AURORA_REL
    assert {c.source_root_relative_path for c in results[:2]} == {NOTES_REL, STUDY_REL}


def test_an_unplaced_fragment_holding_the_querys_words_keeps_its_rank(env: Env) -> None:
    """The rule reads the query's words: a file citation whose evidence holds them is not moved."""
    results = search(env, "When does the second phase start?")
    assert results[0].source_root_relative_path == AURORA_REL
    assert "unplaced" not in (results[0].diagnostics.score_parts or {})
