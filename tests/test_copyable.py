"""Display quotes people can copy: radicals, hyphenation, U+FFFD, boundaries."""

from __future__ import annotations

from mnote_kr.citations.cleaning import clean_citation_text, display_text
from mnote_kr.citations.cleaning.copyable import copyable, join_cjk_gaps, rejoin_hyphenation, unify_cjk_forms


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


def test_a_hyphen_that_is_the_words_own_stays_at_a_line_end():
    # typesetting never breaks an acronym, nor after a number (the Federal Register's "FAA-approved")
    assert rejoin_hyphenation("an FAA-\napproved program") == "an FAA-approved program"
    assert rejoin_hyphenation("a 19-\nyear study") == "a 19-year study"
    # written with its hyphen elsewhere in the same text: the hyphen is the word's
    text = "cost per work-\nhour. Each work-hour is billed"
    assert rejoin_hyphenation(text) == "cost per work-hour. Each work-hour is billed"
    # ... and without one elsewhere, or nowhere else: the break was typesetting's
    assert rejoin_hyphenation("cost per work-\nhour. Each workhour is billed").startswith("cost per workhour.")
    assert rejoin_hyphenation("an exam-\nple") == "an example"
    # a word written with a hyphen elsewhere counts as a word, not inside another ("pre-entered")
    assert rejoin_hyphenation("re-\nenter the code; pre-entered codes") == "reenter the code; pre-entered codes"
    # a compound broken at its last hyphen, and scripts never hyphenated at a line end
    assert rejoin_hyphenation("a state-of-the-\nart tool") == "a state-of-the-art tool"
    assert rejoin_hyphenation("데이터-\n처리") == "데이터-처리"
    # a ligature is Latin, not CJK: "signiﬁ-cant" was set by a typesetter ("ﬁ" as PDF text layers keep it)
    assert rejoin_hyphenation("signiﬁ-\ncant and ef-\nﬁcient") == "signiﬁcant and efﬁcient"
    # a soft hyphen is never the word's own, whatever follows
    assert rejoin_hyphenation("FAA\u00ad\napproved") == "FAAapproved"
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
    raw = "proﬁle-guided ﬂoating e\ufb00ect o\ufb03ce \ufb06op"
    assert unify_cjk_forms(raw) == "profile-guided floating effect office stop"
    assert copyable("the proﬁle") == "the profile"


# --------------------------------------------------------------------------- whole words at the ends

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mnote_kr.citations.cleaning.copyable import (  # noqa: E402
    CUT_CHUNK_CHARS,
    drop_lines,
    trim_chunk_edges,
    trim_cut_words,
)

_LOWER = st.text("abcdefghijklmnopqrstuvwxyzéüø", min_size=1, max_size=12)
# Words as running text has them: lower case, capitalised, numbers, CJK runs (cut anywhere:
# every character is a boundary there), some with punctuation attached. Not ALL-CAPS words:
# "SA" cut from "NASA" cannot be told from "US" (the rule keeps a capitalised first word).
_WORD = st.one_of(
    _LOWER,
    _LOWER.map(str.capitalize),
    st.integers(0, 99999).map(str),
    st.text("叶片结冰功率损失风机", min_size=1, max_size=6),
    st.tuples(_LOWER, st.sampled_from(".,;:)")).map("".join),
    _LOWER.map(lambda w: f"({w}"),
)


def _is_word(ch: str) -> bool:
    return ch.isalnum() and not ("\u4e00" <= ch <= "\u9fff")


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORD, min_size=20, max_size=60, unique=True), st.data())
def test_quote_of_a_chunk_cut_anywhere_starts_and_ends_on_a_word_boundary(words, data):
    text = " ".join(words)
    while len(text) < 2 * CUT_CHUNK_CHARS:  # long enough for chunks that may be cut windows
        text += " " + " ".join(words[1:] + words[:1])
    # Chinese words stand side by side, as in Chinese text (the quote joins spaced ones:
    # test_cjk_gaps), so the quote is a piece of the text
    text = join_cjk_gaps(text)
    a = data.draw(st.integers(0, len(text) // 3), label="start")
    b = data.draw(st.integers(a + 1, len(text)), label="end")
    chunk = text[a:b].strip()
    quote = trim_chunk_edges(clean_citation_text(chunk, "").display_quote, chunk)
    if " " not in chunk:  # one word (or part of one): the quote is never emptied
        assert quote == chunk
        return
    # distinct words: the text repeats only with a period longer than what a trim removes
    k = text.find(quote, a)
    assert a <= k and k + len(quote) <= b, (chunk, quote)
    # never half a Latin word or number at the start
    assert k == 0 or not (_is_word(text[k - 1]) and _is_word(text[k])), quote[:40]
    if len(chunk) >= CUT_CHUNK_CHARS:  # a chunk this long may be a cut window: its end too
        e = k + len(quote)
        assert e == len(text) or not (_is_word(text[e - 1]) and _is_word(text[e])), quote[-40:]


def test_cut_words_go_whole_words_and_query_words_stay():
    assert trim_cut_words("orestation of the catchment reduced flow in Hydrol") == "of the catchment reduced flow in"
    assert trim_cut_words("005) 253 pages were") == "253 pages"
    assert trim_cut_words("The flow (Nzer") == "The flow"
    assert trim_cut_words("P = 1/2 rho A v^3") == "P = 1/2 rho A v^3"  # not a word cut
    assert trim_cut_words("叶片结冰导致功率损失") == "叶片结冰导致功率损失"  # CJK: characters are boundaries
    assert trim_cut_words("hamburg is nice", "Hamburg") == "hamburg is"
    assert trim_cut_words("word") == "word"  # never emptied
    assert trim_cut_words("in Hamburg", end_cut=False) == "Hamburg"  # a short chunk: its end is whole


def test_page_furniture_lines_are_dropped_whole_never_inside_a_sentence():
    omit = ["P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265", "255"]
    raw = ("given in Lane et al. (2003).\nP.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265 255\n"
           "2.2. Zero ﬂow day analysis\n255 gauged days\n255\n255 P.N.J. LANE et al. / Journal of  Hydrology 310 "
           "(2005) 253–265\n")
    assert drop_lines(raw, omit) == "given in Lane et al. (2003).\n2.2. Zero ﬂow day analysis\n255 gauged days\n"
    assert drop_lines(raw, []) == raw


def test_quote_does_not_start_on_the_punctuation_of_a_word_left_behind():
    # seen on mineru__demo1.pdf: the chunk began just after "Eq" and the card read ".... (2), using"
    got = trim_cut_words(". (2), using an inverse sigmoidal function", end_cut=False)
    assert got == "(2), using an inverse sigmoidal function"
    assert trim_cut_words(", Uday Kumar (6 May 2004).", end_cut=False) == "Uday Kumar (6 May 2004)."
    assert trim_cut_words("“Quoted” words", end_cut=False) == "“Quoted” words"  # an opening mark stays


def test_a_running_header_cut_at_the_chunk_edge_is_dropped_too():
    # mineru__demo1.pdf: the chunk began inside "P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265"
    omit = ["P.N.J. Lane et al. / Journal of Hydrology 310 (2005) 253–265", "255"]
    raw = (". / Journal of Hydrology 310 (2005) 253–265 255\n2.2. Zero flow day analysis\nbody text\n"
           "P.N.J. Lane et al. / Jour")
    assert drop_lines(raw, omit) == "2.2. Zero flow day analysis\nbody text\n"
    # words that merely start like a header, and a short tail, stay
    assert drop_lines("Journal of Hydrology is cited\nbody", omit) == "Journal of Hydrology is cited\nbody"
    assert drop_lines("253–265\nbody", omit) == "253–265\nbody"

