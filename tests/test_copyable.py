"""Display quotes people can copy (issue 13): radicals, hyphenation, U+FFFD, boundaries."""

from __future__ import annotations

from mnote_kr.citations.cleaning import clean_citation_text, display_text
from mnote_kr.citations.cleaning.copyable import copyable, rejoin_hyphenation, unify_cjk_forms


def test_kangxi_radicals_and_compatibility_ideographs_become_ordinary_characters():
    # ⽚ U+2F5A, ⽤ U+2F64, ⾄ U+2F84 (Kangxi radicals, as PDF text layers emit them)
    raw = "\u2f5a\u6bb5\u2f64\u4e8e\u2f84\u5c11"
    assert unify_cjk_forms(raw) == "片段用于至少"
    assert display_text(raw) == "片段用于至少"
    # CJK Radicals Supplement (no Unicode decomposition) and a compatibility ideograph
    assert unify_cjk_forms("\u2ed4\u53e3 \u2ee2\u8def \uf900") == "门口 马路 豈"
    # nothing else changes: fullwidth punctuation and ordinary text stay as written
    assert unify_cjk_forms("片段，（注）ＡＢ") == "片段，（注）ＡＢ"


def test_words_hyphenated_across_a_line_break_are_rejoined():
    assert rejoin_hyphenation("the exam-\nple shows") == "the example shows"
    assert rejoin_hyphenation("soft\u00adware") == "software"
    # a capital or a digit after the break: a real compound, the hyphen stays
    assert rejoin_hyphenation("Jean-\nPaul and COVID-\n19") == "Jean-Paul and COVID-19"
    # a hyphen inside a line is not touched
    assert rejoin_hyphenation("well-known\nfact") == "well-known\nfact"
    bundle = clean_citation_text("Pressure con-\ntrol valves were replaced.", "control")
    assert bundle.display_quote == "Pressure control valves were replaced."


def test_stray_replacement_characters_are_dropped():
    assert copyable("abc\ufffd def\ufffd") == "abc def"
    assert display_text("Turbine \ufffdblade icing") == "Turbine blade icing"


def test_quote_does_not_start_on_half_a_character():
    # a chunk cut between 'e' and its combining acute starts on the mark
    assert copyable("\u0301 cole normale") == "cole normale"
    assert display_text("\u0301tude des pales") == "tude des pales"
    assert copyable("plain start") == "plain start"


def test_latin_ligatures_from_pdf_text_layers_become_letters():
    # pdfjs__tracemonkey.pdf's text layer writes "proﬁle" and "ﬂoating" with U+FB01 / U+FB02;
    # a quote copied with them does not find "profile" again.
    assert unify_cjk_forms("proﬁle-guided ﬂoating e\ufb00ect o\ufb03ce \ufb06op") == "profile-guided floating effect office stop"
    assert copyable("the proﬁle") == "the profile"
