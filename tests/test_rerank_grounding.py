"""Places reranked by the user's reranker, and an answer grounded sentence by sentence.

The rerank path runs against the real offline model service's ``/v1/rerank`` (the wire format of
LightRAG's Cohere/Jina rerank binding); the endpoint down, silent or answering garbage leaves the
local order and one note. The grounded ``ask`` replays a recorded LLM answer over recorded LightRAG
payloads (``tests/test_pipeline_replay.py``'s workspace); each sentence's expected paragraph is read
from the DOCX here, independently of the locator; on a PDF drawn here, each sentence's expected box is
its paragraph as drawn, through ``ask`` and the MCP query tool's answer markers.
"""

from __future__ import annotations

import json
import re
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from mnote_kr_testkit.pdfs import PdfBuilder, iou, union

from mnote_kr.agents.contracts import OpenReferenceInput, QueryInput
from mnote_kr.agents.tools import tool_open_reference, tool_query
from mnote_kr.citations import answering, pipeline
from mnote_kr.citations.render.statustext import render_status
from mnote_kr_lightrag.client import naming
from mnote_kr_lightrag.engine import modelservice as ms
from tests.test_cli_errors import closed_port
from tests.test_pipeline_replay import AURORA, AURORA_REL, NOTES_REL, Env, _entry, fresh_caches, make_env, query_data

KEY = "sekrit-rerank-key-0123"


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    fresh_caches()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    return make_env(tmp_path, monkeypatch)
QUERY = "When does the next stage of the work begin?"


def _aurora_chunks() -> dict[str, Any]:
    """Three chunks of the Aurora DOCX, each on its own paragraph, in LightRAG's order."""
    doc = naming.doc_id_for(AURORA)
    return query_data(
        ("1", AURORA, f"{doc}-chunk-000", "Project Aurora is a battery research program run by Nordwind Labs "
                                          "in Hamburg. It studies solid-state cells."),
        ("1", AURORA, f"{doc}-chunk-001", "The energy formula is E=mc^2 which Aurora uses for estimates."),
        ("1", AURORA, f"{doc}-chunk-002", "Nordwind Labs plans a second phase in 2026. 第二阶段计划于2026年开始。"),
    )


def _places(result: Any) -> list[Any]:
    """The Aurora file's places in order: its citation, then its alternatives."""
    (c,) = [c for c in result.results if c.source_root_relative_path == AURORA_REL]
    return [c, *c.alternatives]


def _paragraph_of(path: Path, snippet: str) -> int:
    """Index of the body ``w:p`` holding ``snippet`` (table cells included, as the locator counts)."""
    xml = zipfile.ZipFile(path).read("word/document.xml").decode("utf-8")
    body = xml[xml.index("<w:body>"):]
    paragraphs = re.findall(r"<w:p[ >].*?</w:p>", body, flags=re.S)
    texts = ["".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", p)) for p in paragraphs]
    (found,) = [i for i, t in enumerate(texts) if snippet in t]
    return found


@pytest.fixture(scope="module")
def model_service() -> Iterator[Any]:
    with ms.running(embedder="hybrid", api_key=KEY) as srv:
        yield srv


def _with_reranker(env: Env, monkeypatch: pytest.MonkeyPatch, url: str, **extra: Any) -> None:
    monkeypatch.setenv("MNOTE_KR_RERANK_API_KEY", KEY)
    env.host.config["rerank"] = {"host": url, "model": "bge-reranker-v2-m3", **extra}


@pytest.mark.integration
def test_places_of_a_file_follow_the_offline_model_services_rerank(env: Env, model_service: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    base = f"http://127.0.0.1:{model_service.server_address[1]}"
    env.replay.json("POST", "/query/data", _aurora_chunks())
    local = _places(env.search(QUERY))

    def service_scores(places: list[Any]) -> list[float]:
        body = httpx.post(f"{base}/v1/rerank", json={"query": QUERY, "documents": [p.display_quote for p in places]},
                          headers=ms.auth_headers(KEY), timeout=30).json()
        return [r["relevance_score"] for r in sorted(body["results"], key=lambda r: r["index"])]

    assert len(local) == 3
    assert service_scores(local) != sorted(service_scores(local), reverse=True)  # the local order is not the service's
    _with_reranker(env, monkeypatch, f"{base}/v1/rerank")
    before = model_service.counts.get("rerank", 0)
    pipeline.clear_memos()
    result = env.search(QUERY)
    assert model_service.counts["rerank"] == before + 1  # one batched request for the query
    reranked = _places(result)
    scores = service_scores(reranked)
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    assert {p.citation_id for p in reranked} == {p.citation_id for p in local}  # no place lost
    assert "notes" not in result.diagnostics and result.diagnostics["placeRerank"]["reranked"] is True
    info = env.host.status()
    status = info["placeRerank"]
    assert status["enabled"] is True and status["model"] == "bge-reranker-v2-m3" and status["apiKey"] == "set"
    assert "Reranker:  places of each file reranked by bge-reranker-v2-m3" in render_status(info)
    assert KEY not in render_status(info)
    assert KEY not in json.dumps(status) and KEY not in json.dumps(msgspec.to_builtins(result))


class _Bad(BaseHTTPRequestHandler):
    """``/garbage``: 200 with indexes that name no document; ``/html``: a web page; ``/silent``: no
    answer until the test ends."""

    release = threading.Event()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/silent":
            self.release.wait(60)
            return
        body = (b'{"results": [{"index": 99, "relevance_score": 0.9}]}' if self.path == "/garbage"
                else b"<html>rerank</html>")
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def bad_server() -> Iterator[str]:
    _Bad.release = threading.Event()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Bad)
    srv.daemon_threads = True
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        _Bad.release.set()
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize(("path", "why"), [("down", "cannot connect"), ("/garbage", "not {index"),
                                           ("/html", "not JSON"), ("/silent", "no answer within")])
def test_reranker_down_slow_or_garbage_keeps_the_local_order_with_one_note(
        env: Env, bad_server: str, monkeypatch: pytest.MonkeyPatch, path: str, why: str) -> None:
    env.replay.json("POST", "/query/data", _aurora_chunks())
    local = env.search(QUERY)
    url = f"http://127.0.0.1:{closed_port()}/rerank" if path == "down" else bad_server + path
    # only the silent one is waited out; the others answer at once, but a loaded machine may take over 1 s
    _with_reranker(env, monkeypatch, url, timeout_s=1.0 if path == "/silent" else 30.0)
    pipeline.clear_memos()
    result = env.search(QUERY)
    assert [p.citation_id for p in _places(result)] == [p.citation_id for p in _places(local)]
    assert [c.citation_id for c in result.results] == [c.citation_id for c in local.results]
    notes = [n for n in result.diagnostics["notes"] if "reranker" in n]
    assert len(notes) == 1 and why in notes[0] and "local order" in notes[0], result.diagnostics["notes"]
    assert result.diagnostics["placeRerank"]["error"]
    assert KEY not in json.dumps(msgspec.to_builtins(result))


def _recorded_answer(env: Env, answer: str) -> None:
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    env.replay.json("POST", "/query", {"response": answer, "references": [], "llm_generated": True})


def test_each_sentence_of_a_recorded_answer_points_at_the_paragraph_that_supports_it(env: Env) -> None:
    # A recorded LLM answer: LightRAG's [1] names the whole Aurora file; each sentence comes from
    # another paragraph of the one chunk LightRAG returned for it.
    _recorded_answer(env, "Nordwind Labs plans a second phase of the project in 2026 [1]. "
                          "The Aurora program is run by Nordwind Labs in Hamburg [1]. "
                          "项目负责人是王小明 [1]。 Zephyr is a wind turbine prototype designed by Kestrel Energy [2].")
    result = env.host.ask("Who runs Aurora?")
    aurora = env.ws / AURORA_REL
    expected = [(AURORA_REL, _paragraph_of(aurora, "plans a second phase")),
                (AURORA_REL, _paragraph_of(aurora, "run by Nordwind Labs in Hamburg")),
                (AURORA_REL, _paragraph_of(aurora, "项目负责人是王小明")),
                (NOTES_REL, 1)]  # notes.md: block 0 is the "# Zephyr Notes" heading, block 1 this sentence
    got = [(s.source_root_relative_path, s.locator.paragraph_index if s.locator else None) for s in result.sentences]
    assert got == expected
    assert all(s.supported for s in result.sentences)
    # the markers follow their sentences and open the sentence's place
    assert result.answer is not None
    for s in result.sentences:
        assert s.citation_id and f"{s.citation_id}" in result.answer
        opened = env.new_host().open(s.citation_id)
        assert opened.locator.paragraph_index == s.locator.paragraph_index  # type: ignore[union-attr]
    marks = re.findall(r"\[[^\]]+\]", result.answer)
    assert marks == [s.citation_id for s in result.sentences]
    assert "项目负责人是王小明 " + str(result.sentences[2].citation_id) + "。" in result.answer


def test_a_sentence_no_cited_place_supports_is_marked_unsupported_and_gets_no_place(env: Env) -> None:
    _recorded_answer(env, "Aurora is run by Nordwind Labs in Hamburg [1]. "
                          "The moon landing footage was filmed with a Hasselblad camera on color film [1].")
    result = env.host.ask("Who runs Aurora?")
    supported, unsupported = result.sentences
    assert supported.supported and supported.citation_id
    assert not unsupported.supported
    assert unsupported.citation_id is None and unsupported.locator is None and unsupported.citation_url is None
    assert result.answer is not None and result.answer.endswith("color film [unsupported].")
    assert any("supported by no cited place" in n for n in result.notes)


# Two paragraphs of a PDF page, five printed lines each; each answer sentence below is one or two
# of their lines, so a box of the sentence's own lines covers well under half of its paragraph.
MANUAL = [
    ["The two general types of self-locking nuts currently in use are the all-metal",
     "type and the fiber lock type. For the sake of simplicity, only three typical kinds",
     "of self-locking nuts are considered in this handbook: the Boots self-locking and",
     "the stainless steel self-locking nuts, representing the all-metal types; and the",
     "elastic stop nut, representing the fiber insert type of the family of locknuts."],
    ["The spring, through the medium of the locking section, exerts a constant locking",
     "force on the bolt in the same direction as a force that would tighten the nut.",
     "In this nut, the load-carrying section has the thread strength of a standard nut",
     "of comparable size, while the locking section presses against the threads of the",
     "bolt and locks the nut firmly in position. Only a wrench applied to it loosens it."],
]


def _drawn_pdf(env: Env, name: str, paragraphs: list[list[str]], chunk: str,
               size: float) -> tuple[str, list[tuple[float, float, float, float]]]:
    """``papers/NAME`` drawn from ``paragraphs`` (ingested, no sidecar) with ``chunk`` as LightRAG's one
    chunk of it replayed, and each paragraph's box as drawn (display frame)."""
    pdf = PdfBuilder()
    page = pdf.add_page()
    boxes = []
    top = 720.0
    for paragraph in paragraphs:
        drawn = [pdf.text(page, 72, top - 14 * i, line, size=size) for i, line in enumerate(paragraph)]
        boxes.append(union([d.box for d in drawn]))
        top -= 14 * len(paragraph) + 30
    rel = f"papers/{name}"
    (env.ws / rel).write_bytes(pdf.build())
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, name))
    doc = naming.doc_id_for(name)
    env.replay.json("POST", "/query/data", query_data(("1", name, f"{doc}-chunk-000", chunk)))
    return rel, boxes


def _manual(env: Env) -> tuple[str, list[tuple[float, float, float, float]]]:
    """``papers/manual.pdf`` with its whole text as LightRAG's one chunk."""
    return _drawn_pdf(env, "manual.pdf", MANUAL, "\n\n".join(" ".join(p) for p in MANUAL), 11)


def test_each_sentence_of_an_answer_on_a_pdf_points_at_its_paragraphs_box_not_its_lines(env: Env) -> None:
    rel, boxes = _manual(env)
    first = ("The two general types of self-locking nuts currently in use are the all-metal type and the fiber "
             "lock type.")
    second = ("The spring, through the medium of the locking section, exerts a constant locking force on the bolt "
              "in the same direction as a force that would tighten the nut.")
    env.replay.json("POST", "/query", {"response": f"{first} [1] {second} [1]", "references": [],
                                       "llm_generated": True})
    result = env.host.ask("What kinds of self-locking nuts are there?")
    assert [s.text for s in result.sentences] == [first, second]
    for s, box in zip(result.sentences, boxes, strict=True):
        assert s.supported and s.source_root_relative_path == rel and s.locator is not None
        assert s.locator.page == 1 and s.locator.bbox is not None
        assert iou(s.locator.bbox, box) >= 0.8, (s.text, s.locator.bbox, box)
        # the answer's marker after the sentence opens that same box
        assert s.citation_id and result.answer is not None and f"{s.text[:-1]} {s.citation_id}." in result.answer
        opened = env.new_host().open(s.citation_id)
        assert opened.locator.bbox == s.locator.bbox


def test_a_sentence_in_other_words_than_the_pdf_goes_to_the_paragraph_its_words_and_meaning_name(env: Env) -> None:
    _, boxes = _manual(env)
    said = "Once it is locked in position on the bolt, only a wrench loosens the nut."
    env.replay.json("POST", "/query", {"response": f"{said} [1]", "references": [], "llm_generated": True})
    result = env.host.ask("What kinds of self-locking nuts are there?")
    (s,) = result.sentences
    assert s.supported and s.locator is not None and s.locator.bbox is not None
    assert iou(s.locator.bbox, boxes[1]) >= 0.8, (s.locator.bbox, boxes)


HANGAR = ["The hangar doors open at six in the morning and close at ten at night, and",
          "visitors must sign the logbook at the front desk before they walk in."]


@pytest.mark.parametrize("written", [True, False])
def test_a_sentence_quoting_a_cited_file_outside_its_cited_chunk_is_grounded_where_it_stands(
        env: Env, monkeypatch: pytest.MonkeyPatch, written: bool) -> None:
    # LightRAG's one chunk of the PDF is its first paragraph; the answer quotes the second one, which
    # shares no word with that chunk: no cited place supports it, the file holds it as written
    _, boxes = _drawn_pdf(env, "hangar.pdf", [MANUAL[0], HANGAR], " ".join(MANUAL[0]), 11)
    said = " ".join(HANGAR)
    off = "The moon landing footage was filmed with a Hasselblad camera on color film."
    env.replay.json("POST", "/query", {"response": f"{said} [1] {off} [1]", "references": [], "llm_generated": True})
    if not written:
        monkeypatch.setattr(answering, "WRITTEN_SCORE", 1.01)  # nothing is ever found as written
    result = env.host.ask("When do the hangar doors open?")
    s, o = result.sentences
    assert not o.supported and o.locator is None  # a sentence the file does not hold stays unsupported
    if not written:
        assert not s.supported and s.locator is None
        return
    assert s.supported and s.locator is not None and s.locator.bbox is not None
    assert iou(s.locator.bbox, boxes[1]) >= 0.8, (s.locator.bbox, boxes)
    assert s.citation_id and env.new_host().open(s.citation_id).locator.bbox == s.locator.bbox


def test_the_mcp_answers_markers_open_the_pdf_paragraphs_the_sentences_are_grounded_at(env: Env) -> None:
    _, boxes = _manual(env)
    said = [MANUAL[1][0] + " " + MANUAL[1][1], " ".join(MANUAL[0][:2]).split(". ")[0] + "."]
    env.replay.json("POST", "/query", {"response": f"{said[0]} [1] {said[1]} [1]", "references": [],
                                       "llm_generated": True})
    found = tool_query(env.host, QueryInput(query="What kinds of self-locking nuts are there?", want_answer=True))
    assert found.answer is not None
    marks = re.findall(r"\[[0-9a-z]{4}\]", found.answer)
    assert len(marks) == 2 and marks[0] != marks[1]
    for mark, box in zip(marks, [boxes[1], boxes[0]], strict=True):
        plan = tool_open_reference(env.host, OpenReferenceInput(citation_id=mark))
        assert plan.locator.page == 1 and plan.locator.bbox is not None
        assert iou(plan.locator.bbox, box) >= 0.8, (mark, plan.locator.bbox, box)


# Two paragraphs of a PDF page: the Boots nut (five lines), then its spring (six lines).
BOOTS = [
    ["The Boots self-locking nut is of one piece, all-metal construction, designed to hold",
     "tight despite severe vibration. Note that it has two sections and is, in effect, two",
     "nuts in one: a locking nut and a load-carrying nut. The two sections are connected",
     "with a spring which is an integral part of the nut. The spring keeps the locking and",
     "load-carrying sections such a distance apart that the two sets of threads are out of phase."],
    ["The spring, through the medium of the locking section, exerts a constant locking force",
     "on the bolt in the same direction as a force that would tighten the nut. In this nut,",
     "the load-carrying section has the thread strength of a standard nut of comparable size,",
     "while the locking section presses against the threads of the bolt and locks the nut",
     "firmly in position. Only a wrench applied to the nut will loosen it, and the spring keeps",
     "the locking section apart from the load-carrying section."],
]


def _boots(env: Env, chunk: str) -> list[tuple[float, float, float, float]]:
    """``papers/boots.pdf`` with ``chunk`` as LightRAG's one chunk of it; each paragraph's box."""
    return _drawn_pdf(env, "boots.pdf", BOOTS, chunk, 10)[1]


def _grounded_box(env: Env, said: str) -> list[float]:
    env.replay.json("POST", "/query", {"response": f"{said} [1]", "references": [], "llm_generated": True})
    result = env.host.ask("How does the Boots self-locking nut hold the bolt?")
    (s,) = result.sentences
    assert s.supported and s.source_root_relative_path == "papers/boots.pdf", s
    assert s.locator is not None and s.locator.page == 1 and s.locator.bbox is not None
    return s.locator.bbox


def test_a_sentence_in_a_paragraph_the_chunk_holds_only_the_start_of_is_grounded_at_the_whole_paragraph(
        env: Env) -> None:
    # LightRAG's chunk ends two lines into the second paragraph; the sentence stands in those lines.
    boxes = _boots(env, " ".join(BOOTS[0]) + "\n\n" + " ".join(BOOTS[1][:2]))
    said = ("The spring, through the medium of the locking section, exerts a constant locking force on the bolt "
            "in the same direction as a force that would tighten the nut.")
    bbox = _grounded_box(env, said)
    assert iou(bbox, boxes[1]) >= 0.8, (bbox, boxes[1])  # its paragraph, not the chunk's two lines of it


def test_a_sentence_found_outside_the_cited_chunk_is_grounded_at_its_own_paragraph(env: Env) -> None:
    # LightRAG returned the first paragraph's chunk only; the sentence (its words mostly that chunk's)
    # stands at the end of the second paragraph of the same file.
    boxes = _boots(env, " ".join(BOOTS[0]))
    said = "Only a wrench applied to the nut will loosen it, and the spring keeps the locking section apart " \
           "from the load-carrying section."
    bbox = _grounded_box(env, said)
    assert iou(bbox, boxes[1]) >= 0.8, (bbox, boxes)  # its own paragraph, not its lines nor the chunk's
