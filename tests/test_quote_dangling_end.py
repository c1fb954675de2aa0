"""A quote never ends on a dangling word that reads as complete.

nc26b Q7 ("What is an elastic stop nut?"): the first citation boxed the last two lines of page 1's right column
of docling__amt_handbook_sample.pdf, and quoted them as they stand: "The elastic stop nut is a standard nut with
the height increased to accommodate a fiber locking collar. This". The sentence "This ..." goes on past the
column (on a page this sample leaves out). A quote ends at a sentence's end (the unfinished one after it dropped,
when it holds none of the query's words), or says it goes on ("…"): never on "This", "the", "of".
"""

from __future__ import annotations

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import text_in

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning.quoteend import settled_end
from mnote_kr.models import Locator
from mnote_kr.plugins import load_plugins

PDF = CORPUS / "pdf" / "docling__amt_handbook_sample.pdf"
#: The box nc26b's first citation drew for Q7 (page 1, top-left points).
BOX = [321.0, 385.18, 558.11, 409.15]
QUERY = "What is an elastic stop nut?"


def test_the_boxed_column_end_is_quoted_to_its_last_full_stop() -> None:
    place = text_in(PDF, 1, BOX)
    assert " ".join(place.split()).endswith("collar. This")  # the box as the file draws it
    locator = Locator(locator_precision="bbox", locator_degraded=False, page=1, bbox=BOX, place_text=place)
    shown, _ = pipeline._place_quote(load_plugins(None), locator, "", QUERY)
    assert shown == ("The elastic stop nut is a standard nut with the height increased to accommodate a fiber "
                     "locking collar.")


@pytest.mark.parametrize(("quote", "settled"), [
    # an unfinished sentence after a finished one, none of the query's words in it: dropped
    ("A nut holds. This", "A nut holds."),
    ("A nut holds. It is pressed into the", "A nut holds."),
    # the unfinished sentence holds the query's words: kept, and said to go on
    ("A nut holds. The collar of the", "A nut holds. The collar of the…"),
    # one sentence, unfinished: said to go on
    ("The elastic stop nut is a standard nut with the", "The elastic stop nut is a standard nut with the…"),
    # finished, or no sign of going on (a caption, a label, a heading, a row): as it is
    ("The elastic stop nut is a standard nut.", "The elastic stop nut is a standard nut."),
    ("Figure 7-26. Self-locking nuts", "Figure 7-26. Self-locking nuts"),
    ("Elastic Stop Nut", "Elastic Stop Nut"),
    ("Year: 2021; Freshwater Ducks: 150", "Year: 2021; Freshwater Ducks: 150"),
    ("Sign in. Log in", "Sign in. Log in"),
    ("公式 x=(-b±√(b^2-4ac))/2a", "公式 x=(-b±√(b^2-4ac))/2a"),  # a formula's "2a" is no word "a"
    ("It goes on…", "It goes on…"),
    ("弹性防松螺母是一种标准螺母。它的", "弹性防松螺母是一种标准螺母。它的"),  # CJK: no word list to tell
    ("", ""),
    # a capital letter or word inside a sentence is a label, not the article (review r27 finding 5)
    ("Blood type: A", "Blood type: A"),
    ("See Annex A", "See Annex A"),
    ("The daily dose is 5 mg. It is given with vitamin A", "The daily dose is 5 mg. It is given with vitamin A"),
    ("Bring form B or Form C. Use Type The", "Bring form B or Form C. Use Type The"),
    # ... a capital opening a sentence is still its first word: "This", "A" go on
    ("A nut holds. A", "A nut holds."),
    ("A nut holds. “This", "A nut holds."),
])
def test_a_quote_ending_on_a_word_a_sentence_cannot_end_on_is_settled(quote: str, settled: str) -> None:
    assert settled_end(quote, "collar") == settled
