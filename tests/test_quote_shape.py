"""Quotes that show the answer: the answering sentences, no markup, highlights on whole words."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mnote_kr.citations.cleaning import clean_citation_text, display_text
from mnote_kr.citations.cleaning.quote import MOST_SENTENCES, QUOTE_CHARS, answer_quote, place_quote, sentences
from mnote_kr.citations.rank.ranking import terms
from mnote_kr.viewer.webpages import mark_query

# A 900-character paragraph in the manner of the corpus' typewriter history: the answer is mid-way.
LONG = (
    "The concept of the word processor predates modern computers and has evolved through several "
    "technological milestones. The origins of word processing can be traced back to the invention of the "
    "typewriter in the mid-19th century. Patented in 1868 by Christopher Latham Sholes, the typewriter "
    "revolutionized written communication by enabling people to produce legible documents quickly. "
    "The electric typewriter, introduced by IBM in 1935, made typing faster and less tiring. "
    "In the 1960s, IBM's MT/ST stored typed text on magnetic tape, so that it could be edited and replayed. "
    "Dedicated word processing machines followed in the 1970s, from firms such as Wang Laboratories, with "
    "small screens that showed a few lines of text. WordStar, released in 1978, brought word processing to "
    "personal computers and kept its commands on the keyboard."
)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+", text)


def test_the_quote_is_the_answering_sentence_first_and_a_few_after_it() -> None:
    quote = answer_quote(LONG, "electric typewriter IBM 1935")
    assert quote.startswith("The electric typewriter, introduced by IBM in 1935")
    assert len(quote) <= QUOTE_CHARS and len(sentences(quote)) <= MOST_SENTENCES
    assert quote in LONG  # cut between sentences of the passage, never rewritten


def test_no_query_word_in_the_passage_quotes_its_first_sentences() -> None:
    # a question in other words: the place was found by meaning, the quote is its opening
    quote = answer_quote(LONG, "how did clerks cope long ago")
    assert LONG.startswith(quote) and len(quote) <= QUOTE_CHARS


def test_a_short_passage_is_quoted_whole() -> None:
    short = "Blade heating kept the power loss below five percent. It was switched on below zero."
    assert answer_quote(short, "blade heating") == short


def test_abbreviations_initials_and_decimals_do_not_end_a_sentence() -> None:
    text = "As Fig. 3 shows, J. Smith measured 3.5 mm of ice, e.g. on the blades. Then the rotor stopped."
    assert [text[a:b] for a, b in sentences(text)] == [
        "As Fig. 3 shows, J. Smith measured 3.5 mm of ice, e.g. on the blades.", "Then the rotor stopped."]


def test_legal_citations_and_a_lists_letters_do_not_end_a_sentence() -> None:
    """A newcomer's quotes of a trustee handbook ended in "Trustee Fed." and "but only if: a."."""
    text = ("Duty of Debtor to Cooperate with Trustee Fed. R. Bankr. P. 2004 applies under 11 U.S.C. § 521. "
            "A hardship discharge is granted only if: a. the failure is due to circumstances; b. the creditors "
            "got as much as in a liquidation. It is rare. He was paid in full a. Then it ended.")
    assert [text[a:b] for a, b in sentences(text)] == [
        "Duty of Debtor to Cooperate with Trustee Fed. R. Bankr. P. 2004 applies under 11 U.S.C. § 521.",
        "A hardship discharge is granted only if: a. the failure is due to circumstances; b. the creditors "
        "got as much as in a liquidation.", "It is rare.", "He was paid in full a.", "Then it ended."]
    ends = "He moved to the U.S. He liked it. Rates were set by the Fed. It rose after 30 sec. Then it fell."
    assert [ends[a:b] for a, b in sentences(ends)] == [
        "He moved to the U.S.", "He liked it.", "Rates were set by the Fed.", "It rose after 30 sec.", "Then it fell."]


def test_a_heading_the_chunk_ran_into_the_places_first_sentence_is_not_quoted() -> None:
    """A heading line has no full stop, so the chunk's sentence runs from it into the paragraph; a
    newcomer's quote of paragraph 516 began with the heading above it, which it does not hold."""
    chunk = ("VERIFICATION OF DEBTOR IDENTITY AND SOCIAL SECURITY NUMBER The debtor must present original "
             "government-issued photo identification at the meeting. Acceptable forms of picture identification "
             "(ID) include: driver's license, passport.")
    place = "The debtor must present original government-issued photo identification at the meeting."
    assert place_quote(chunk, place, "which photo ID is accepted") == place
    note = "Greenhouse watering log The tomato seedlings started wilting in May. We checked the drip lines."
    assert place_quote(note, "The tomato seedlings started wilting in May.", "wilting") == \
        "The tomato seedlings started wilting in May."  # a sentence-case heading before a place of its own
    for lead_in in ("The following documents must be presented at the meeting:", "Under the plan,",
                    "Under the plan the", "According to the report"):  # going on into the place: it stays
        mid = f"{lead_in} the debtor must present original government-issued photo identification. More text."
        assert place_quote(mid, "the debtor must present original government-issued photo identification.",
                           "photo ID").startswith(lead_in)
    heading_place = "VERIFICATION OF DEBTOR IDENTITY AND SOCIAL SECURITY NUMBER"  # the heading's own place keeps it
    assert place_quote(chunk, heading_place, "identity").startswith("VERIFICATION OF DEBTOR IDENTITY")


def test_chinese_sentences_end_at_their_own_full_stops() -> None:
    text = ("本标准规定了核电厂定期安全审查的要求。" * 10 + "电气类设备包括变压器、开关柜和电缆。"
            + "审查周期为十年。" * 30)
    quote = answer_quote(text, "电气类设备有哪些")
    assert quote.startswith("电气类设备包括变压器、开关柜和电缆。") and len(quote) <= QUOTE_CHARS


def test_one_sentence_longer_than_a_quote_is_cut_around_the_query_between_words() -> None:
    rows = " | ".join(f"row {i} value {i * 7}" for i in range(120)) + " | Vicksburg surrendered on July 4 | end"
    quote = answer_quote(rows, "when did Vicksburg surrender")
    assert "Vicksburg surrendered" in quote and quote.startswith("…") and len(quote) <= QUOTE_CHARS + 2
    assert set(_words(quote)) <= set(_words(rows))  # no word cut in half


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted({w for w in re.findall(r"[A-Za-z]{4,}", LONG) if terms(w)})))  # stop words aside
def test_any_query_word_gives_a_bounded_quote_of_whole_sentences(word: str) -> None:
    quote = answer_quote(LONG, word)
    assert quote in LONG and len(quote) <= QUOTE_CHARS
    assert word.casefold() in quote.casefold() or not any(
        word.casefold() in LONG[a:b].casefold() for a, b in sentences(LONG))


# --------------------------------------------------------------------------- markup never shows


def test_a_drawing_tail_after_a_heading_never_shows() -> None:
    # a chunk that starts with the section heading, then the tail of a drawing tag the chunker cut
    raw = '## Results\n\nid="im-3f2a9c" format="png" path="images/im-3f2a9c.png" src="" />\nThe rotor stopped twice.'
    shown = display_text(raw)
    assert shown == "Results The rotor stopped twice."
    for junk in ('id="im-', 'src=""', "/>", "png"):
        assert junk not in shown


def test_a_value_cut_tail_on_its_own_line_never_shows() -> None:
    shown = display_text('Figure 2\npng" src="" />\nThe ice load grew.')
    assert shown == "Figure 2 The ice load grew."


def test_a_table_reads_as_rows_without_a_label() -> None:
    raw = 'Loss by turbine <table id="tb-1" format="json">[["Turbine", "Loss"], ["T1", "4 percent"]]</table> in fog.'
    assert display_text(raw) == "Loss by turbine Turbine | Loss; T1 | 4 percent in fog."


def test_report_template_placeholders_never_show() -> None:
    raw = "[Table_Base] 股票数据\n总股本(百万股) 298.56\n[Table_RatingDescription] 投资评级"
    bundle = clean_citation_text(raw, "总股本")
    assert "[Table_" not in bundle.display_quote and "总股本(百万股) 298.56" in bundle.display_quote


# --------------------------------------------------------------------------- highlights on whole words


def _marked(html: str) -> list[str]:
    return re.findall(r'<mark class="q">(.*?)</mark>', html)


def test_a_query_word_never_highlights_the_inside_of_another_word() -> None:
    assert _marked(mark_query("The report was Filed on Monday.", "led")) == []
    assert _marked(mark_query("A suitable blade coating.", "table")) == []
    assert _marked(mark_query("The table and the led light.", "table led")) == ["table", "led"]
    assert _marked(mark_query("核电厂定期安全审查", "电厂 审查")) == ["电厂", "审查"]  # CJK: by characters


def test_a_query_word_highlights_the_whole_word_it_starts() -> None:
    assert _marked(mark_query("Sholes patented the typewriter.", "patent")) == ["patented"]
    assert _marked(mark_query("Batteries and battery packs", "battery")) == ["battery"]


def test_a_one_letter_word_the_query_asks_about_is_marked_as_a_whole_word() -> None:
    """The viewer marks the one-letter words the ranking's ``query_terms`` keeps ("vitamin C", "Plan B"), as
    whole words in the query's case: not the c of "contains", not the article "a" for "Plan A"."""
    from mnote_kr.citations.render.ids import query_terms

    assert "c" in query_terms("vitamin C") and "b" in query_terms("Plan B")
    assert _marked(mark_query("Take C daily: vitamin levels vary, calcium too.", "vitamin C")) == ["C", "vitamin"]
    assert _marked(mark_query("Fall back to B when the plan fails.", "Plan B")) == ["B", "plan"]
    assert _marked(mark_query("Option A beats a plan.", "Plan A")) == ["A", "plan"]
    assert _marked(mark_query("The dog saw A cat.", "A dog")) == ["dog"]  # "A" opening a sentence: a word



def test_the_quote_is_read_at_the_located_place_not_where_the_query_words_are() -> None:
    """A newcomer's finding: the quote showed the chunk's sentence holding most of the query's
    words while the box or paragraph marked another part. ``place_quote`` takes the chunk's
    sentences that stand in the located paragraph (a heading the chunk ran into it included),
    cut as ``answer_quote`` cuts; None when the chunk does not hold the place."""
    from mnote_kr.citations.cleaning.quote import answer_quote, place_quote

    chunk = ("Results 结果 Table 1 lists the measured capacity and cycle life of the two best cells. "
             "Cell B2 kept the highest capacity of 4100 mAh after 650 cycles. "
             "The rig was kept at 25 degrees. Nordwind Labs ran every test twice in its Hamburg laboratory, "
             "and the second run repeated the first within two percent for both cells. The test plan, the "
             "raw logs and the rig's calibration sheets are kept with the project's records.")
    query = "capacity of cell B2"
    assert answer_quote(chunk, query).startswith("Cell B2 kept")  # where the query's words are
    place = "Table 1 lists the measured capacity and cycle life of the two best cells."
    at = place_quote(chunk, place, query)
    assert at is not None and "Table 1 lists" in at and "4100" not in at and "25 degrees" not in at
    assert place_quote(chunk, "The rig was kept at 25 degrees.", query) == "The rig was kept at 25 degrees."
    assert len(chunk) > 320  # a chunk longer than a quote: answer_quote cuts it
    assert place_quote(chunk, "Nordwind Labs plans a second phase in 2026.", query) is None
    # OCR lines: the chunk has no full stops, its one "sentence" runs far past the cited line
    lines = "Text in the image Harbour services receipt Payment for thistle harbour crane hire received " * 3
    assert place_quote(lines, "Payment for thistle harbour crane hire received", "crane hire") is None


def test_the_quote_of_a_place_is_its_own_paragraph_not_a_longer_one_worded_alike() -> None:
    """A newcomer's finding (poi__stress023.docx): the place behind the first pointed at paragraph E
    (the most floor area) and quoted paragraph F two below (the least), longer and worded alike."""
    from mnote_kr.citations.cleaning.quote import place_quote

    e = ("E. The gross floor area of the accessory dwelling unit shall not exceed eight hundred and fifty square "
         "feet (for studios or one bedroom accessory dwelling units) or one thousand square feet (for accessory "
         "dwelling units that provide more than one bedroom).")
    between = ("F. Limits on lot coverage, floor area ratio, open space, and lot size shall not be used to reduce "
               "the gross floor area of the accessory dwelling unit below eight hundred square feet or the height "
               "of the accessory dwelling unit below 16 feet.")
    f = ("F. The minimum gross floor area of the accessory dwelling unit shall be no less than one hundred fifty "
         "square feet or the minimum required for an efficiency dwelling unit as defined in Health and Safety Code "
         "Section 17958.1, as may be amended from time to time.")
    chunk = " ".join([e, between, f])
    query = "What is the maximum size of a granny flat (accessory dwelling unit) in square feet?"
    assert place_quote(chunk, e, query) == e
    assert place_quote(chunk, f, query) == f
