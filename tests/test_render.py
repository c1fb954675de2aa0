"""Human source cards: the quote excerpt starts and ends on whole words."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mnote_kr.citations.render.excerpt import excerpt as _excerpt

TEXT = ("The concept of the word processor predates modern computers. Pre-Digital Era (19th - Early 20th "
        "Century) The origins of word processing can be traced back to the invention of the typewriter in the "
        "mid-19th century. Patented in 1868 by Christopher Latham Sholes, the typewriter revolutionized written "
        "communication by enabling people to produce legible documents quickly and more.")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9]+", text))


def test_excerpt_keeps_the_query_and_cuts_no_word_in_half() -> None:
    out = _excerpt(TEXT, "who patented the typewriter")
    # the sentence holding most of the query's words, whole: it ends the text, so only its start is cut
    assert out.startswith("...Patented in 1868") and out.endswith("quickly and more."), out
    assert _words(out.strip(".")) <= _words(TEXT)  # every word of the excerpt is a whole word of the text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=len(TEXT) - 1))
def test_excerpt_words_are_whole_words_wherever_the_query_sits(i: int) -> None:
    word = re.findall(r"[A-Za-z]{4,}", TEXT[i:] + " Sholes")[0]
    out = _excerpt(TEXT, word, width=120)
    assert word.casefold() in out.casefold()
    assert _words(out.strip(".")) <= _words(TEXT)


def test_excerpt_does_not_start_on_the_punctuation_of_the_word_before() -> None:
    # mineru__demo1.pdf: the excerpt window opened just after "Eq" and the card read ".... (2), using"
    text = ("x" * 40 + " the impact of Eq. (2), using an inverse sigmoidal function was employed to assess the "
            "impact of afforestation on the number of zero flow days per year" + " and more words" * 30)
    cut, query_at = text.index(". (2)"), text.index("afforestation")
    out = _excerpt(text, "afforestation", width=3 * (query_at - cut))  # the window opens on ". (2)"
    assert out.startswith("...") and not out[3:].lstrip().startswith((".", ",")), out


# handbook-872p.docx paragraph 7841 (nc16a, O2 and X1): the answer is the sentence's last words.
BANK_RECORDS = ("The standing trustee must maintain all bank records, including bank statements, monthly bank "
                "reconciliations, canceled checks, and deposit slips, separate from individual case files and in "
                "chronological order, for a period of not less than seven years. 11 U.S.C. §§ 322, 1325(b).")


def test_excerpt_keeps_the_answering_sentence_whole_to_its_last_words() -> None:
    # The card read "... for a period of not less than..." while --json's displayQuote said "seven years".
    questions = ("How long must the standing trustee maintain bank records?", "受托人的银行对账单和支票需要保存几年？")
    for query in questions:
        for width in (240, 160):  # cut to a card's width and an alternative's (which is never shown whole)
            out = _excerpt(BANK_RECORDS, query, width, whole=0)
            assert "not less than seven years." in out, (query, width, out)
            assert out.startswith("The standing trustee") and out.endswith("years. ..."), out  # cut after it only
        assert _excerpt(BANK_RECORDS, query) == BANK_RECORDS  # a card's quote of 276 characters is read whole


def test_excerpt_shows_the_sentence_that_holds_the_query_words_with_ellipses_on_both_cut_sides() -> None:
    text = ("Chapter 13 trustees report monthly. " * 6 + "The expense of the annual audit is paid from chapter 13 "
            "expense funds unless the Director determines otherwise. " + "Other duties follow here. " * 6)
    out = _excerpt(text, "Who pays for the annual audit?")
    assert out.startswith("...The expense of the annual audit") and out.endswith("..."), out
    assert "unless the Director determines otherwise." in out


def test_excerpt_of_one_very_long_sentence_stays_a_window_around_the_query() -> None:
    row = " ".join(f"item{i} 12.5" for i in range(80)) + " 蒙牛冠益乳原味450g " + " ".join(f"x{i}" for i in range(80))
    out = _excerpt(row, "蒙牛冠益乳", 120)
    assert "蒙牛冠益乳原味450g" in out and out.startswith("...") and out.endswith("...") and len(out) < 140


# handbook-872p.docx paragraph 1024 (nc24d, Q1): the card's "also #2" line read "... § 1302(b)(1)..." while
# --json's displayQuote said "within 150 days" in its last sentence; the first sentence holds more of the
# question's terms ("trustee", "report"), the last the one it lacks ("last"), the middle a statute reference only.
FINAL_REPORT = ("The standing trustee must file a final report promptly after review of the administration of the "
                "case and after all checks have cleared. 11 U.S.C. § 1302(b)(1) incorporating 11 U.S.C. § 704(a)(9). "
                "Generally, the final report is to be filed within 150 days of the last disbursement in the case.")


def test_excerpt_keeps_a_later_sentence_holding_the_question_words_the_first_lacks() -> None:
    query = "How long after the last payment does the trustee have to submit the closing report?"
    assert _excerpt(FINAL_REPORT, query) == FINAL_REPORT  # a card's quote of 283 characters is read whole
    for width in (240, 160):  # cut to a card's width and an alternative's (which is never shown whole)
        out = _excerpt(FINAL_REPORT, query, width, whole=0)
        assert "within 150 days of the last disbursement in the case." in out, (width, out)
        assert out.startswith("The standing trustee must file a final report"), out
        assert "1302(b)(1)" not in out and "cleared. ... Generally," in out, out  # the reference between is cut


BOOTS = ("The Boots self-locking nut is of one piece, all-metal construction designed to hold tight despite severe "
         "vibration. Note in Figure 7-26 that it has two sections and is essentially two nuts in one: a locking nut "
         "and a load-carrying nut. The two sections are connected with a spring, which is an integral part of the nut.")


def test_a_quote_of_a_few_sentences_is_shown_whole_so_its_answering_sentence_is_not_cut() -> None:
    """nc27a: "What joins the two halves of a Boots nut together?" printed "... a load-carrying nut. The..." and cut
    the answering third sentence; the quote (330 characters) is the cited paragraph, short enough to read whole."""
    assert _excerpt(BOOTS, "What joins the two halves of a Boots nut together?") == BOOTS
    longer = BOOTS + " " + "Boots nuts are made in many shapes and sizes for every kind of fitting there is. " * 2
    out = _excerpt(longer, "What joins the two halves of a Boots nut together?")
    assert len(out) < len(longer) and out.endswith("...")  # a long quote is still cut
