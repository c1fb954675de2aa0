"""A long cited place's ``displayQuote`` leads with the sentence that answers, chosen by meaning when
none of its sentences holds the question's words (issue 33: a Chinese question over an English
paragraph quoted the paragraph's first sentence, and the answer was its second).

The paragraphs are the corpus DOCX's (``unstructured__handbook-872p.docx``, paragraphs 516, 519 and
521, as the DOCX locator's reader reads them); the search goes through the host with a provider that
returns them as one passage, as LightRAG returns a chunk. The sentences of ¶519: "Any document used to
confirm a debtor's identity ... must be an original.", a legal citation, then "Acceptable forms of
picture identification (ID) include: driver's license, ...".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning.quote import answer_quote
from mnote_kr.citations.rank import e5, meaning
from tests.surfaces import HANDBOOK_ANSWER as ANSWER
from tests.surfaces import HANDBOOK_QUESTION as QUESTION
from tests.surfaces import OnePassage, handbook_paragraphs

REL = "docs/handbook.md"


@pytest.fixture(scope="module")
def paragraphs() -> list[str]:
    """Paragraphs 516, 519 and 521 of the handbook, read as the DOCX locator reads them; nothing written."""
    return handbook_paragraphs()


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    meaning._sentence_memo.clear()
    pipeline.clear_memos()


def test_words_that_anchor_a_sentence_still_choose_it(paragraphs: list[str]) -> None:
    """A question sharing a word with the first sentence ("original") is quoted from it; meaning is not asked."""
    asked: list[list[str]] = []
    quote = answer_quote(paragraphs[1], "Must the identity document be an original?",
                         by_meaning=lambda texts: asked.append(texts))  # type: ignore[func-returns-value]
    assert quote.startswith("Any document used to confirm") and asked == []


def test_a_question_in_another_language_quotes_the_answering_sentence_first(
        paragraphs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """No sentence holds a word of the Chinese question: by words the quote is the first sentence;
    by meaning (each sentence's e5 cosine with the question) the ID list leads it. The sentences'
    vectors are kept by content: quoting the place again embeds nothing."""
    meaning.embed_places(paragraphs)  # ingest embedded the file's places: the search has the query's vector
    assert answer_quote(paragraphs[1], QUESTION).startswith("Any document used to confirm")
    quote = answer_quote(paragraphs[1], QUESTION, by_meaning=lambda t: meaning.sentence_cosines(t, QUESTION))
    assert quote.startswith(ANSWER) and "driver's license" in quote, quote
    meaning._sentence_memo.clear()  # a new process: read from disk
    embedded: list[int] = []
    real = e5.E5.embed

    def counted(self: Any, texts: Any, **kw: Any) -> Any:
        embedded.append(len(texts))
        return real(self, texts, **kw)

    monkeypatch.setattr(e5.E5, "embed", counted)
    again = answer_quote(paragraphs[1], QUESTION, by_meaning=lambda t: meaning.sentence_cosines(t, QUESTION))
    assert again == quote and embedded == []


def test_a_search_quotes_the_cited_paragraph_by_meaning_and_embeds_only_places_shown(
        paragraphs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ``Host.search``: the file is one passage of the three paragraphs; its first place, ¶519,
    quotes the ID list first. Only places the search shows have their sentences embedded."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / REL).write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    before = (ws / REL).read_bytes()
    h, _ = fake_host(ws, OnePassage(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)  # its preparation step embeds the paragraphs
    asked: list[list[str]] = []
    real = meaning.sentence_cosines

    def recording(texts: list[str], query: str) -> Any:
        asked.append(list(texts))
        return real(texts, query)

    monkeypatch.setattr(meaning, "sentence_cosines", recording)
    (c,) = h.search(QUESTION, top_k=5).results
    shown = [(c.locator.paragraph_index, c.display_quote)] + \
        [(a.locator.paragraph_index, a.display_quote) for a in c.alternatives]
    assert c.locator.paragraph_index == 1, shown  # the file's second block, ¶519, placed first by meaning
    assert (c.display_quote or "").startswith(ANSWER), shown
    assert asked and all(any(" ".join(s.split()) in paragraphs[i] for i, _ in shown for s in texts[:1])
                         for texts in asked)
    assert (ws / REL).read_bytes() == before


def test_a_place_longer_than_its_passage_is_not_embedded_sentence_by_sentence(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A paragraph of 400 sentences (a text without paragraph breaks, a long contract clause) of which the
    passage holds 2,000 characters: its quote is read from the paragraph's own words, and by meaning that
    embedded all 400 sentences while the search waited (3.8 s against 0.2 s, and a 300 KB cache entry). The
    sentences a quote by meaning embeds stay within what a passage holds."""
    import random

    rnd = random.Random(3)
    words = "river bridge council winter budget road school harvest market station doctor library museum".split()
    text = " ".join(" ".join(rnd.choice(words) for _ in range(12)).capitalize() + "." for _ in range(400))
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / REL).write_text(text + "\n", encoding="utf-8")
    h, provider = fake_host(ws, OnePassage(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)  # the paragraph's vector: the search has the query's
    provider.texts = {name: body[len(body) // 2:len(body) // 2 + 2000] for name, body in provider.texts.items()}
    embedded: list[int] = []
    real = e5.E5.embed

    def counted(self: Any, texts: Any, **kw: Any) -> Any:
        embedded.append(len(texts))
        return real(self, texts, **kw)

    monkeypatch.setattr(e5.E5, "embed", counted)
    (c,) = h.search("哪个城市的图书馆最大？", top_k=5).results
    assert c.locator.locator_precision == "paragraph" and c.display_quote
    assert sum(embedded) < 100, embedded  # the query, and at most one passage's worth of sentences


def test_the_highlight_marks_the_sentences_the_quote_shows(paragraphs: list[str], tmp_path: Path) -> None:
    """The viewer marks ``locator.highlight`` inside the cited paragraph while the card shows
    ``displayQuote``: the quote leads with the ID list (by meaning), so the mark is on those sentences,
    not on the span the chunk aligned with (the paragraph's first sentence, or all of it)."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / REL).write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    h, _ = fake_host(ws, OnePassage(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)
    (c,) = h.search(QUESTION, top_k=5).results
    assert c.locator.paragraph_index == 1 and (c.display_quote or "").startswith(ANSWER)
    hl = c.locator.highlight
    assert hl is not None
    marked = paragraphs[1][hl.start:hl.end]
    assert marked.startswith(ANSWER) and " ".join(marked.split()) in " ".join((c.display_quote or "").split()), marked
