"""A quote the provider's chunk cut mid-sentence ends with the ellipsis every other cut quote ends with.

A newcomer's plain-text search showed an alternative quoted "... This proposed AD would apply only to the", with
no mark that the sentence goes on, while quotes cut elsewhere end in "…". The chunk below is LightRAG's window
of ``pdfplumber__federal-register-2020-17221.pdf`` page 5, as recorded from their index: it ends mid-sentence.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.quote import answer_quote
from mnote_kr.citations.pipeline import _display_quote
from mnote_kr.models import Locator
from mnote_kr.plugins import load_plugins

SENTENCE = ("light, by accomplishing the applicable \nactions identified as ‘‘RC’’ in the \nAccomplishment "
            "Instructions of Boeing \nSpecial Attention Service Bulletin 737– \n00–1028, dated July 20, 2020. \n")
CUT = SENTENCE * 8 + ("Explanation of Change to the \nApplicability \nAD 2018–23–51 applies to all 737 \nMAX "
                      "airplanes. This proposed AD \nwould apply only to the")
QUERY = "Which airplanes would the proposed AD apply to?"


def _context(raw: str, size: int | None = 700_000) -> str:
    plugins = load_plugins(None)
    return _display_quote(plugins, plugins.clean_text(raw, QUERY, None), raw, QUERY, None, Locator(), size)


def test_a_chunk_cut_mid_sentence_quotes_its_last_sentence_with_an_ellipsis() -> None:
    context = _context(CUT)
    assert context.endswith("…")
    quote = answer_quote(context, QUERY)
    assert "This proposed AD would apply only to" in quote and quote.endswith("…"), quote


def test_a_chunk_ending_on_a_full_stop_or_the_files_end_gets_no_mark() -> None:
    ended = CUT + " 737 MAX airplanes."
    assert _context(ended).endswith("airplanes.")
    assert not _context(CUT, size=len(CUT.encode("utf-8"))).endswith("…")  # the chunk is the whole file
