"""The viewer's text and fonts: DOCX Symbol-font bullets as bullets, and a note when a PDF lacks its fonts.

Word writes many bullets as the Symbol font's private-use code point U+F0B7 (``khoj__bangalore.docx``
has 645 of them); no Unicode font draws it, so every browser showed a box. The viewer maps the
common Symbol/Wingdings bullets to Unicode one for one, so highlight offsets still fit.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import httpx
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.models import Highlight, Locator
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import fonts, web, webpages
from mnote_kr_docx_locator import document_model
from tests.cli_helpers import turbine_pdf


def _private_use(text: str) -> list[str]:
    return sorted({hex(ord(ch)) for ch in text if 0xE000 <= ord(ch) <= 0xF8FF})


def test_the_viewer_of_a_docx_with_symbol_bullets_has_none_left() -> None:
    path = CORPUS / "docx" / "khoj__bangalore.docx"
    before = path.read_bytes()
    model = document_model(str(path))
    source = "".join(p.text for p in model.paragraphs)
    assert "\uf0b7" in source  # the file's own text has them
    html = webpages.paragraphs_html(model, None, Locator(locator_precision="file"))
    assert _private_use(html) == [] and html.count("\u2022") >= source.count("\uf0b7")
    assert path.read_bytes() == before


def test_a_highlight_after_a_symbol_bullet_still_marks_its_words() -> None:
    text = "\uf0b7\tTraffic in Bangalore"
    loc = Locator(locator_precision="paragraph", paragraph_index=0, highlight=Highlight(start=2, end=9))
    assert webpages._marked(text, loc) == '\u2022\t<mark class="hl" id="hl">Traffic in Bangalore</mark>'


def test_the_pdf_viewer_says_when_the_pdf_lacks_its_fonts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "papers").mkdir(parents=True)
    shutil.copy(CORPUS / "pdf" / "chatchat__1.pdf", ws / "papers" / "chatchat.pdf")
    (ws / "papers" / "icing.pdf").write_bytes(turbine_pdf("zqvt"))  # standard fonts only
    host, provider = fake_host(ws)
    host.roots_add(ws / "papers")
    host.ingest([ws / "papers"])
    provider.texts[FakeProvider.name_for("papers/chatchat.pdf")] = "航空发动机状态监视 zqvt lacking fonts"
    provider.texts[FakeProvider.name_for("papers/icing.pdf")] = "Wind turbine icing study zqvt lacking"
    found = {Path(c.source_root_relative_path).name: c for c in host.search("zqvt lacking", top_k=5).results}
    with ApiServer(host, write_token_file=False) as server, httpx.Client(timeout=30) as browser:
        shown = browser.get(web.entry_url(server, webpages.view_url(found["chatchat.pdf"].citation_id)),
                            follow_redirects=True)
        plain = browser.get(server.url + webpages.view_url(found["icing.pdf"].citation_id))
    assert shown.status_code == 200 and plain.status_code == 200
    note = re.search(r'<p class="banner fonts" role="note">([^<]+)</p>', shown.text)
    assert note is not None and "STSong-Light" in note.group(1) and "Noto Sans CJK" in note.group(1)
    assert "Times-Roman" not in note.group(1)  # a standard font every reader has is not missing
    assert 'class="banner fonts"' not in plain.text


def test_without_the_font_package_the_notice_says_cjk_text_could_not_be_drawn() -> None:
    line = fonts.missing_font_notice(["STSong-Light", "Helvetica"], None)
    assert line is not None and "STSong-Light" in line and "could not be drawn" in line and "Helvetica" not in line
    assert fonts.missing_font_notice(["Times-Roman", "ABCDEF+Helvetica-Bold"], "Noto Sans CJK JP") is None


def test_a_latin_pdf_lacking_its_fonts_is_told_nothing_of_chinese_japanese_or_korean(tmp_path: Path) -> None:
    """nc17b P16: a French PDF naming ArialMT without it got "drawn in substitute fonts (Chinese, Japanese and
    Korean in Noto Sans CJK JP)": the scripts said are those the page uses. The plugin answers "" for the face
    of a page without CJK text; a page with some still names its face (the test above)."""
    from mnote_kr_pdf_bbox.render import page_fonts

    data = turbine_pdf("zqvt")
    assert data.count(b"/BaseFont /Helvetica ") == 1
    pdf = tmp_path / "rapport.pdf"
    pdf.write_bytes(data.replace(b"/BaseFont /Helvetica ", b"/BaseFont /Garamond  "))  # same length: xref holds
    found = page_fonts(pdf, 1)
    assert found == (["Garamond"], "")
    line = fonts.missing_font_notice(*found)
    assert line is not None and "Garamond" in line and "substitute fonts" in line
    assert "Chinese" not in line and "Korean" not in line and "could not be drawn" not in line
    assert fonts.missing_font_notice(["Garamond"], "Noto Sans CJK JP") is not None  # older plugins: as before
