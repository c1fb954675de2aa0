"""A deck's review comments are read, sent to the index in the deck's text, and cited on their slide.

PowerPoint keeps a slide's comments outside the slide: the legacy ones in ``ppt/comments/commentN.xml``
(authors in ``ppt/commentAuthors.xml``; a reply names its parent in ``p15:threadingInfo``), the modern ones
(PowerPoint 365) in ``ppt/comments/modernComment_*.xml`` (authors in ``ppt/authors.xml``; replies inside
their comment). Neither LightRAG's parser nor python-pptx's shapes read them, so a question about a comment
found nothing. docling's comments deck holds legacy ones; a modern one is written here into a deck
python-pptx saved. A comment has no shape and its pin is no place of text: it is cited as its slide, no
shape, its line among the slide's comments (``paragraphIndex``), and the reason says it is a review comment.
"""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
DECK = CORPUS / "pptx" / "docling__powerpoint_comments.pptx"
P188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
MODERN_COMMENTS = "http://schemas.microsoft.com/office/2018/10/relationships/comments"
MODERN_AUTHORS = "http://schemas.microsoft.com/office/2018/10/relationships/authors"


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _locate(plugins, path: Path, query: str) -> Locator:  # type: ignore[no-untyped-def]
    chunk = plugins.extract_text(str(path))  # the deck's text, one chunk, as the index holds it
    evidence = clean_citation_text(chunk, query).locator_evidence_text  # the window search sends
    return plugins.locate(LocateRequest(file=str(path), evidence=evidence, passage=chunk, query=query))


def test_the_decks_text_holds_each_legacy_comment_under_its_slide_with_its_author(plugins) -> None:  # type: ignore[no-untyped-def]
    text = plugins.extract_text(str(DECK))
    slides = text.split("\n\n# ")
    assert len(slides) == 3
    assert "Comment (John Reviewer): This is a sample reviewer comment" in slides[0]
    assert "Comment (Jane Smith, reply): This is a sample response" in slides[0]
    assert "Comment" not in slides[1]
    assert "Comment (Jane Smith): This is a cool feature" in slides[2]
    assert "Comment (Jane Smith): I need to try this out!" in slides[2]


def test_a_query_for_a_comments_words_cites_its_slide_as_a_review_comment(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(DECK.read_bytes()).digest()
    loc = _locate(plugins, DECK, "who needs to try this out")
    assert (loc.locator_precision, loc.slide, loc.shape_id, loc.speaker_notes, loc.bbox) == (
        "slide", 3, None, False, None), loc.locator_reason
    assert loc.paragraph_index == 1  # the slide's second comment
    assert "review comment" in loc.locator_reason and "Jane Smith" in loc.locator_reason
    assert loc.quote == "Comment (Jane Smith): I need to try this out!"
    loc = _locate(plugins, DECK, "what did the reviewer's sample comment say")
    assert (loc.slide, loc.shape_id, loc.paragraph_index) == (1, None, 0), loc.locator_reason
    assert hashlib.sha256(DECK.read_bytes()).digest() == before


def test_the_viewer_model_shows_a_slides_comments_apart_from_its_shapes(plugins) -> None:  # type: ignore[no-untyped-def]
    model = plugins.document_model(str(DECK))
    (comments,) = [s for s in model.slides[2].shapes if s.id is None]
    assert comments.box is None and [p.text for p in comments.paragraphs] == [
        "Comment (Jane Smith): This is a cool feature", "Comment (Jane Smith): I need to try this out!"]
    assert [p.index for p in comments.paragraphs] == [0, 1]


def modern_deck(path: Path) -> Path:
    """A one-slide deck with a PowerPoint 365 comment and its reply on slide 1."""
    from pptx import Presentation

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = "Harbour review"
    slide.placeholders[1].text = "Cargo tonnage stayed flat."
    prs.save(path)
    ana, ben = "{6A1D1F4E-0000-4000-8000-000000000001}", "{6A1D1F4E-0000-4000-8000-000000000002}"

    def body(words: str) -> str:
        return f"<p188:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>{words}</a:t></a:r></a:p></p188:txBody>"

    comments = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p188:cmLst xmlns:a="{A}" xmlns:p188="{P188}">'
                f'<p188:cm id="{{C1}}" authorId="{ana}" created="2024-05-01T10:00:00.000">'
                f'<p188:replyLst><p188:reply id="{{R1}}" authorId="{ben}" created="2024-05-02T10:00:00.000">'
                f'{body("Checked: the Saltmarsh ferry counts are in")}</p188:reply></p188:replyLst>'
                f'{body("Please add the Saltmarsh ferry tonnage")}</p188:cm></p188:cmLst>')
    authors = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p188:authorLst xmlns:p188="{P188}">'
               f'<p188:author id="{ana}" name="Ana Ortiz" initials="AO" userId="ana" providerId="None"/>'
               f'<p188:author id="{ben}" name="Ben Lee" initials="BL" userId="ben" providerId="None"/>'
               "</p188:authorLst>")
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "ppt/slides/_rels/slide1.xml.rels":
                data = data.replace(b"</Relationships>", (
                    f'<Relationship Id="rId90" Type="{MODERN_COMMENTS}" '
                    'Target="../comments/modernComment_100_5A1B2C3D.xml"/></Relationships>').encode())
            elif item.filename == "ppt/_rels/presentation.xml.rels":
                data = data.replace(b"</Relationships>", (
                    f'<Relationship Id="rId90" Type="{MODERN_AUTHORS}" Target="authors.xml"/>'
                    "</Relationships>").encode())
            elif item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", (
                    b'<Override PartName="/ppt/comments/modernComment_100_5A1B2C3D.xml" '
                    b'ContentType="application/vnd.ms-powerpoint.comments+xml"/>'
                    b'<Override PartName="/ppt/authors.xml" ContentType="application/vnd.ms-powerpoint.authors+xml"/>'
                    b"</Types>"))
            out.writestr(item, data)
        out.writestr("ppt/comments/modernComment_100_5A1B2C3D.xml", comments)
        out.writestr("ppt/authors.xml", authors)
    shutil.move(tmp, path)
    return path


def test_a_modern_comment_and_its_reply_are_read_and_cited(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    deck = modern_deck(tmp_path / "harbour.pptx")
    text = plugins.extract_text(str(deck))
    assert ("Cargo tonnage stayed flat.\n\nComment (Ana Ortiz): Please add the Saltmarsh ferry tonnage\n\n"
            "Comment (Ben Lee, reply): Checked: the Saltmarsh ferry counts are in") in text
    loc = _locate(plugins, deck, "are the Saltmarsh ferry counts checked")
    assert (loc.locator_precision, loc.slide, loc.shape_id, loc.paragraph_index) == ("slide", 1, None, 1)
    assert "reply" in loc.locator_reason and "Ben Lee" in loc.locator_reason
