"""A file the provider returned in one passage still shows the reader three places.

The locator ranks the passage's paragraphs by words and meaning; the best is the citation's place
and the two behind it (``Locator.runners_up``) become the file's ``alternatives`` when no other
passage of the file fills them: each its own paragraph, marked approximate, quoted there, with its
own ID that opens it. The Bangalore chunk of ``test_meaning`` and its question in other words:
the plague paragraph answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest
from mnote_kr_docx_locator.cache import load_docx
from tests.surfaces import OnePassage
from tests.test_meaning import QUESTION

REL = "docs/bangalore.md"


def _paragraphs() -> list[str]:
    paras = load_docx(CORPUS / "docx" / "khoj__bangalore.docx").paragraphs
    at = next(p.index for p in paras if "plague epidemic in 1898" in p.text)
    return [" ".join(paras[i].text.split()) for i in range(at - 3, at + 4) if paras[i].text.strip()]


def _from(quote: str, paragraph: str) -> bool:
    """Most of the quote's words are the paragraph's (a caption without a full stop may lead it)."""
    words = quote.split()
    return sum(w in paragraph for w in words) >= 0.8 * len(words)


def _library(tmp_path: Path, provider: Any) -> Any:
    """A host on a new workspace holding the Bangalore file, ingested through ``provider`` and waited
    for (citable, then its preparation step embeds the paragraphs)."""
    meaning._memo.clear()
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / REL).write_text("\n\n".join(_paragraphs()) + "\n", encoding="utf-8")
    h, _ = fake_host(ws, provider)
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)
    return h


@pytest.fixture
def host(tmp_path: Path) -> Any:
    return _library(tmp_path, OnePassage(delete_status="delete_completed"))


def test_one_passage_gives_the_best_place_and_the_two_behind_it(host: Any) -> None:
    before = (host.workspace.root / REL).read_bytes()
    (c,) = host.search(QUESTION, top_k=5).results
    paras = _paragraphs()
    assert c.locator_precision == "paragraph" and "plague epidemic in 1898" in paras[c.locator.paragraph_index]
    assert len(c.alternatives) == 2
    places = [c.locator.paragraph_index] + [a.locator.paragraph_index for a in c.alternatives]
    assert len(set(places)) == 3
    for a in c.alternatives:
        assert a.locator_precision == "paragraph" and a.locator_degraded  # a guess behind the best
        assert a.display_quote and _from(a.display_quote, paras[a.locator.paragraph_index])  # quoted there
        assert a.relevance_score is not None and c.relevance_score is not None
        assert a.relevance_score < c.relevance_score
        assert a.locator.runners_up == [] and a.locator.place_text is None  # read, then cleared
        plan = host.open(a.citation_id)
        assert plan.locator.paragraph_index == a.locator.paragraph_index
    assert c.locator.runners_up == []
    assert (host.workspace.root / REL).read_bytes() == before


def test_without_runners_up_a_one_passage_file_has_one_place(host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "RUNNERS_UP", False)
    (c,) = host.search(QUESTION, top_k=5).results
    assert c.alternatives == []


class TwoPassages(OnePassage):
    """The fake provider returning each file as two passages: its second to fourth paragraphs, then its
    first (the photo caption: by meaning the file's farthest place from the question)."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = []
        for name, text in sorted(self.texts.items()):
            paras = text.split("\n\n")
            for k, part in enumerate(("\n\n".join(paras[1:4]), paras[0])):
                refs.append(ProviderReference(provider="fake", file_path=name, reference_id=str(len(refs) + 1),
                                              chunk_id=f"chunk-{k}", doc_id=f"doc-{name}", content=part, rank=k))
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_the_places_behind_the_first_are_the_files_nearest_by_meaning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two passages of one file: its first place is the best passage's, and the two behind it are the
    file's other places (the second passage's best, the runners-up of both) nearest the question by
    meaning, not the second passage's best because its passage came second."""
    h = _library(tmp_path, TwoPassages(delete_status="delete_completed"))
    built: list[list[Any]] = []
    build = pipeline.build_citations

    def recording(*args: Any, **kwargs: Any) -> Any:
        out = build(*args, **kwargs)
        built.append(out[0])
        return out

    monkeypatch.setattr(pipeline, "build_citations", recording)
    (c,) = h.search(QUESTION, top_k=5).results
    # the file's places before folding: two passages' best and their runners-up
    every = [p for p in built[-1] if p.locator.paragraph_index is not None]
    assert len(every) >= 4 and all(p.locator.meaning_score is not None for p in every)
    cos = {p.locator.paragraph_index: p.locator.meaning_score for p in every}
    shown = [a.locator.paragraph_index for a in c.alternatives]
    others = sorted((i for i in cos if i != c.locator.paragraph_index), key=lambda i: -cos[i])
    assert shown == others[:2]


class FirstTwo(OnePassage):
    """The fake provider returning each file as one passage of its first two paragraphs (the photo
    caption and the 19th-century one): the right file, not the part that answers."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=name, reference_id="1", chunk_id="chunk-0",
                                  doc_id=f"doc-{name}", content="\n\n".join(text.split("\n\n")[:2]), rank=0)
                for name, text in sorted(self.texts.items())]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


@pytest.mark.parametrize(("wide", "lead"), [(3, 0.02), (3, None), (0, 0.02)])
def test_the_answering_paragraph_outside_the_passage_is_a_place_of_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wide: int, lead: float | None) -> None:
    """The provider returned the right file's first two paragraphs; the plague paragraph answers.
    The file's paragraphs nearest the question by meaning outside the passage (``FILE_WIDE``) are
    places of the file, quoted by their own words (the passage does not hold them) and said to lie
    outside the cited passage. The passage's best holds few of the question's words, so the plague
    paragraph, nearer by meaning, takes the lead (``LEAD_BY_MEANING``, or ``WORDS_LEAD_APPROX``: it holds more of
    the words); without either lead it heads the places behind the passage's. With ``FILE_WIDE`` 0 it is nowhere."""
    from mnote_kr.citations.locate import placing
    from mnote_kr.citations.render import folding

    monkeypatch.setattr(placing, "FILE_WIDE", wide)
    monkeypatch.setattr(folding, "LEAD_BY_MEANING", lead)
    if lead is None:
        monkeypatch.setattr(folding, "WORDS_LEAD_APPROX", None)
    h = _library(tmp_path, FirstTwo(delete_status="delete_completed"))
    (c,) = h.search(QUESTION, top_k=5).results
    paras = _paragraphs()
    answer = next(i for i, p in enumerate(paras) if "plague epidemic in 1898" in p)
    places = [c, *c.alternatives]
    shown = [p.locator.paragraph_index for p in places]
    if not wide:
        assert c.locator.paragraph_index in (0, 1)  # the passage's
        assert answer not in shown
        return
    (a,) = [p for p in places if p.locator.paragraph_index == answer]
    assert shown[0 if lead else 1] == answer and a.locator_degraded
    assert "outside the cited passage" in (a.locator.reason or "")
    assert a.display_quote and _from(a.display_quote, paras[answer])
    assert shown[1 if lead else 0] in (0, 1)  # the passage's place: first, or right behind the one leading
    if lead:  # leading, it is a citation: its context is its own paragraph, not the passage it came with
        assert c.context_quote and _from(c.context_quote, paras[answer]) and paras[1][:40] not in c.context_quote
        assert c.raw_quote and paras[answer][:40] in " ".join(c.raw_quote.split())


def _place(cid: str, index: int | None, cos: float | None, degraded: bool, path: str = "kb/ok.md") -> Any:
    import msgspec

    from mnote_kr.models import Locator
    from tests.test_pipeline_unit import citation

    precision = "paragraph" if index is not None else "file"
    loc = Locator(locator_precision=precision, locator_degraded=degraded, paragraph_index=index, meaning_score=cos)
    return msgspec.structs.replace(citation(cid), locator=loc, locator_precision=precision, locator_degraded=degraded,
                                   source_root_relative_path=path)


@pytest.mark.parametrize(("degraded", "cos", "leads"), [
    (True, 0.80, True),     # unanchored first, the file's nearest ahead by 0.05: it leads
    (True, 0.765, False),   # ahead by 0.015, less than LEAD_BY_MEANING: the passage's place stays first
    (False, 0.90, False),   # the first holds the query's words: it stays, whatever the cosines
])
def test_an_unanchored_first_place_gives_way_to_the_files_nearest_by_meaning(
        degraded: bool, cos: float, leads: bool) -> None:
    from mnote_kr.citations.render import folding

    first = _place("[a1]", 4, 0.75, degraded)
    near, far = _place("[a2]", 9, cos, True), _place("[a3]", 2, 0.76, True)
    other = _place("[b1]", 1, 0.95, True, path="kb/other.md")  # the next file, nearer still: not this file's
    got = folding.behind_by_meaning([first, other, far, near])
    firsts = [c.citation_id for c in got[:2]]
    assert firsts == (["[a2]", "[b1]"] if leads else ["[a1]", "[b1]"])  # the file keeps its rank
    mine = [c.citation_id for c in got if c.source_root_relative_path == "kb/ok.md"]
    # the passage's place right behind the new first, though [a3] is nearer by meaning
    assert mine == (["[a2]", "[a1]", "[a3]"] if leads else ["[a1]", "[a2]", "[a3]"])


@pytest.mark.parametrize("degraded", [True, False])
def test_a_place_without_a_cosine_does_not_keep_an_unanchored_first_ahead_of_a_nearer_one(degraded: bool) -> None:
    """nc16c O4: behind a footnote's passage box (no cosine) stood the exact cell the question names (0.70)
    and the table's header row (no cosine): the nearest leads all the same, the places without a cosine
    keep their order behind it; an anchored first place stays first."""
    from mnote_kr.citations.render import folding

    first = _place("[a1]", 4, None, degraded)
    header, cell = _place("[a2]", 1, None, True), _place("[a3]", 9, 0.70, False)
    row = _place("[a4]", 8, 0.65, True)
    got = [c.citation_id for c in folding.behind_by_meaning([first, header, cell, row])]
    assert got == (["[a3]", "[a1]", "[a2]", "[a4]"] if degraded else ["[a1]", "[a2]", "[a3]", "[a4]"])


def test_a_place_that_takes_the_lead_carries_its_files_score() -> None:
    """Files are ordered by their best passage's score; the card shown first for a file must carry that
    score, or a card of score 0.25 sits above one of 0.6 (a newcomer read it as a ranking bug)."""
    import msgspec

    from mnote_kr.citations.render import folding

    first = msgspec.structs.replace(_place("[a1]", 4, 0.70, True), relevance_score=1.2)
    near = msgspec.structs.replace(_place("[a2]", 9, 0.90, True), relevance_score=0.25)
    other = msgspec.structs.replace(_place("[b1]", 1, 0.95, True, path="kb/other.md"), relevance_score=0.6)
    got = folding.behind_by_meaning([first, other, near])
    assert [c.citation_id for c in got] == ["[a2]", "[b1]", "[a1]"]
    scores = [c.relevance_score for c in got]
    assert scores[0] == 1.2 and scores[0] >= scores[1]  # the file's rank and its card's score agree
    assert scores[2] <= scores[0]  # the displaced passage's place no higher than the card before it


def test_a_places_own_parts_come_first_and_the_places_behind_fill_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """``with_places_behind(own=...)``: a place's own other parts (a row's other cells) lead its runners-up
    with its cosine; the places behind follow, the whole no longer than any locator's."""
    from mnote_kr.citations.locate import placing
    from mnote_kr.citations.locate.textdoc import TextDocument, TextParagraph
    from mnote_kr.models import Locator

    texts = [f"harbour tide reading {i}" for i in range(9)]
    doc = TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])
    monkeypatch.setattr(meaning, "cosines", lambda key, query, idx: {i: 0.9 - i / 100 for i in idx})
    monkeypatch.setattr(meaning, "nearest", lambda key, query, k: {i: 0.9 - i / 100 for i in range(k)})
    cell = Locator(locator_precision="cell", sheet="Tides", range="A1")
    own = [Locator(locator_precision="cell", sheet="Tides", range="B1")]
    behind = placing.with_places_behind(doc, cell, 0, "\n\n".join(texts[:3]), "harbour tide", lambda p: Locator(
        locator_precision="cell", sheet="Tides", range=f"A{p.index + 1}"), own=own)
    ranges = [r.range for r in behind.runners_up]
    assert ranges[0] == "B1" and behind.runners_up[0].meaning_score == behind.meaning_score == 0.9
    assert behind.runners_up[0].locator_degraded
    assert len(ranges) == placing.RUNNERS_UP + placing.FILE_WIDE and ranges[1:] == ["A2", "A3", "A4", "A5"]
