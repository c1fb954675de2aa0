"""benchmarks/weak_variants.py: what cleared a search's weak flag, and the variants measured beside the rule,
on citations built here (the rule's own inputs: passages and their ranking parts), with no engine."""

from __future__ import annotations

import sys
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import REPO

from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.models import Citation, CitationDiagnostics, Locator

sys.path.insert(0, str(REPO / "benchmarks"))
import weak_variants  # noqa: E402


def place(cid: str, quote: str, name: str = "kb/notes.docx", **parts: float) -> Citation:
    """A citation of ``quote`` in ``name`` whose ranking gave it ``parts`` (a word part > 0: it holds a word)."""
    return Citation(provider="lightrag", citation_id=cid, source_id="s", source_path=f"/ws/{name}",
                    source_root_relative_path=name, light_rag_doc_id=None, light_rag_file_path=name,
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=quote, display_quote=quote,
                    locator_evidence_text=quote, quote_source="chunk", search_query="q", locator_precision="file",
                    locator_degraded=True, locator=Locator(locator_precision="file", locator_degraded=True),
                    citation_url="x", citation_markdown="x", relevance_score=1.0,
                    diagnostics=msgspec.structs.replace(CitationDiagnostics(
                        quote_source="chunk", raw_reference_mapped=True, sidecar_block_mapped=False,
                        display_cleaned=True, locator_text_source="chunk"), score_parts={"provider": 1.0, **parts}))


def recorded_place(c: dict[str, Any], chunk: str, reason: str | None = None) -> Citation:
    """A place of a recorded search (``tests/data/ranking/weak_*.json``: its ``id``, ``display``, ``path``, ``parts``,
    ``locator`` and, where recorded, ``relevance``) quoting the chunk ``chunk``; ``reason`` replaces its locator's."""
    base = place(c["id"], c["display"] or "", c["path"], **c["parts"])
    loc = msgspec.convert(c["locator"], Locator)
    if reason is not None:
        loc = msgspec.structs.replace(loc, reason=reason)
    return msgspec.structs.replace(base, raw_quote=chunk, display_quote=c["display"], locator=loc,
                                   locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded,
                                   relevance_score=c.get("relevance", base.relevance_score),
                                   diagnostics=msgspec.structs.replace(base.diagnostics, score_parts=c["parts"]))


ENDNOTE = place("c1", "This should point to an endnote", lexical=0.26)
HANDBOOK = place("c2", "The standing trustee shall file the plan with the court.", "kb/handbook.docx")
JAPANESE = place("c3", "本誌は全国の高等学校に配布されます。", "kb/magazine.docx")
PRESENTATION = place("c9", "The presentation lasts twenty minutes.", "kb/handbook.docx")


@pytest.mark.parametrize("citations, query, cleared", [
    # one common word of the query in one place clears the flag, the newcomer's mercury
    ([HANDBOOK, ENDNOTE], "What is the boiling point of mercury?", "words: point"),
    # a Chinese query over Latin passages only is not judged by words when one says a word of it (演示 "presentation")
    ([PRESENTATION], "演示答辩的时间有多长？", "across scripts"),
    # ... saying none of its words, it is weak (``weakmore.said_somewhere``: in a library with no file in the query's
    # language every passage is in the other script whatever is asked)
    ([HANDBOOK], "演示答辩的时间有多长？", "weak"),
    # with a passage in the query's script (Han), words judge again: weak
    ([HANDBOOK, JAPANESE], "演示答辩的时间有多长？", "weak"),
    ([HANDBOOK, JAPANESE], "How many schools will the magazine be shipped to?", "weak"),
    # ... unless the first, Latin, place says two of a Chinese query's words in English (trustee, plan, court)
    ([HANDBOOK, JAPANESE], "受托人要把计划交给哪个法院？", "across languages: 受托人, 计划, 法院"),
    # a year alone is no word when the query has others
    ([place("c4", "Revenue in 2020 rose.", lexical=0.3)], "population of Tokyo in 2020", "weak"),
    # ... nor is the script when the English passage holding the year says none of the Chinese query's words
    ([place("c4", "Revenue in 2022 rose.", lexical=0.3)], "2022年世界杯冠军是哪个国家", "weak"),
    ([place("c4", "The 2022 World Cup champion was Argentina.", lexical=0.3)], "2022年世界杯冠军是哪个国家",
     "across scripts"),
])
def test_cleared_by_names_the_part_of_the_rule_that_left_a_search_unflagged(
        citations: list[Citation], query: str, cleared: str) -> None:
    assert weak_variants.cleared_by(citations, query) == cleared
    assert (cleared == "weak") is (weak_reason(citations, query) is not None)


def test_the_variants_only_add_flags_to_searches_words_alone_cleared() -> None:
    mercury = "What is the boiling point of mercury?"
    assert weak_variants.two_terms([HANDBOOK, ENDNOTE], mercury)  # one word of three
    both = place("c5", "Mercury's boiling point is 357 degrees.", lexical=0.9)
    assert not weak_variants.two_terms([HANDBOOK, both], mercury)
    assert not weak_variants.two_terms([place("c8", "The typewriter was patented.", lexical=1.0)], "the typewriter")
    tls = "How do I configure TLS certificates for a Kubernetes ingress?"
    certificate = place("c6", "Each certificate of service is filed.", "kb/handbook.docx", lexical=0.05)
    assert weak_variants.query_names(tls) == ["TLS", "Kubernetes"]
    assert weak_variants.names([certificate], tls)
    assert not weak_variants.names([certificate, place("c7", "kubernetes ingress notes", lexical=0.4)], tls)
    # cleared otherwise (across scripts): no variant flags it
    for rule in weak_variants.VARIANTS.values():
        assert not rule([PRESENTATION], "演示答辩的时间有多长？")



def test_replay_reads_a_dumps_places_again_beside_the_flags_the_run_recorded() -> None:
    """``weak_variants.py --dump F``: the rule and the variants on the places a ``relevance_floor.py --dump`` run
    kept, with no engine; ``today`` is the flag the run recorded, ``rule`` the rule as the code reads it now."""
    mercury = "What is the boiling point of mercury?"
    tokyo = "population of Tokyo in 2020"
    dump = {"off00": {"q": mercury, "weak": False, "read": [msgspec.to_builtins(c) for c in (HANDBOOK, ENDNOTE)]},
            "offn00": {"q": tokyo, "weak": True,  # a recorded flag is read as recorded, not recomputed
                       "read": [msgspec.to_builtins(place("c4", "Tokyo's population in 2020 rose.", lexical=0.9))]}}
    flagged = weak_variants.replay(dump, {"off-topic": ["off00"], "off-topic numbers": ["offn00"]})
    assert flagged["today"] == {"off-topic": [], "off-topic numbers": ["offn00"]}
    assert flagged["rule"] == {"off-topic": [], "off-topic numbers": []}  # "point" clears it; Tokyo's answer too
    assert flagged["two_terms"]["off-topic"] == ["off00"]  # one word of three in one passage
    assert set(flagged) == {"today", "rule", *weak_variants.VARIANTS}


def test_no_held_out_set_has_its_searches_named_with_or_without_held_out(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Round 29's script named the old ``heldout`` set's questions by id without ``--held-out`` (only heldout2 and
    heldout3 were kept apart): any set named ``heldout...`` is held out, counted only with ``--held-out``, never named
    (review30)."""
    import json

    import retrieval_labels

    sets = {"old": [{"id": "old-1"}], "heldout": [{"id": "h1-1"}, {"id": "h1-2"}], "heldout2": [{"id": "h2-1"}],
            "heldout9": [{"id": "h9-1"}], "tune3": [{"id": "t3-1"}]}
    monkeypatch.setattr(retrieval_labels, "load_sets", lambda: ([], sets))
    # every search recorded weak, and the rule today finds none weak (no place kept): each newly cleared
    dump = {q["id"]: {"q": "What is the boiling point of mercury?", "weak": True, "read": []}
            for qs in sets.values() for q in qs}
    (tmp_path / "dump.json").write_text(json.dumps(dump), encoding="utf-8")
    for extra in ([], ["--held-out"]):
        monkeypatch.setattr(sys, "argv", ["weak_variants.py", "--dump", str(tmp_path / "dump.json"), *extra])
        assert weak_variants.main() == 0
        out = capsys.readouterr().out
        assert "old-1" in out and "t3-1" in out, out  # the tuning sets' searches: named
        assert not any(key in out for key in ("h1-1", "h1-2", "h2-1", "h9-1")), out
        counted = [line for line in out.splitlines() if line.startswith("rule, heldout")]
        assert len(counted) == (3 if extra else 0), out  # counted, as aggregates, only when asked
    assert "rule, heldout: weak 0/2 (today 2), newly weak 0, newly cleared 2" in out, out
    assert [weak_variants.is_held_out(g) for g in ("heldout", "heldout3", "off-topic held out", "tune5", "old")] == [
        True, True, True, False, False]
