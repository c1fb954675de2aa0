"""A quote keeps the sentence that goes on with the answer: the answering sentence alone is no answer when the
sentence right after it, in the same place, holds the question's words or the kind of answer it asks."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.quotes import located_quote

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS, RUN_ON, answer_quote

PDF = CORPUS / "pdf" / "pdfplumber__issue-982-example.pdf"
KARPATHY = "what data did Karpathy train his character RNNs on?"
#: LightRAG's chunk 7 of the PDF, as a newcomer's search for KARPATHY returned it (nc23a, Q2): it ends inside the
#: sentence listing the datasets, which goes on in the boxed block on page 3.
CHUNK = (
    'use of sequences of the length n to\n'
    'model language. It can be used to get the probability of a third\n'
    'word, given the previous two words. This way, a complete text\n'
    'can be generated word by word. Reﬁnements and extensions\n'
    'to this model are discussed in the ﬁeld of Natural Language\n'
    'Processing (NLP).\n'
    'However, there are much more sophisticated models. One\n'
    'of those are character predictors based on Recurrent Neural\n'
    'Networks (RNNs). Those character predictors take a sequence\n'
    'of characters as input and predict the next character. In that\n'
    'sense they are similar to the n-gram model, but operate on\n'
    'a lower level. Using such a predictor, one can generate texts\n'
    'character by character. If the model is good, the text can have\n'
    'the correct punctuation. This would not be possible with a\n'
    'word predictor.\n'
    'Character predictors can be implemented with RNNs. In con-\n'
    'trast to standard feed-forward neural networks like multilayer\n'
    'Perceptrons (MLPs) which was shown in Figure 1(b), those\n'
    'networks are trained to take their output at some point as well as\n'
    'the normal input. This means they can keep some information\n'
    'over time. One of the most common variant to implement\n'
    'RNNs is by using so called Long short-term memory (LSTM)\n'
    'cells [HS97].\n'
    'Recurrent networks apply two main ideas in order to learn: The\n'
    'ﬁrst is called unrolling and means that an recurrent network\n'
    'is imagined to be an inﬁnite network over time. At each time\n'
    'step the recurrent neurons get duplicated. The second idea is\n'
    'weight sharing which means that those unrolled neurons share\n'
    'the same weight.\n'
    'A. Similar Texts Generation\n'
    'Karpathy trained multiple character RNNs on different datasets\n'
    'and gave an excellent introduction [Kar15b]. He trained it on\n'
    'Paul Graham’s essays, all the works of Shakespeare, the Hutter\n'
    'Prize'
)


def test_a_boxed_blocks_quote_keeps_the_sentence_listing_what_was_asked() -> None:
    """nc23a Q2: the box on page 3 was right, the quote stopped after "Karpathy trained multiple character RNNs on
    different datasets ...", before "He trained it on Paul Graham's essays, all the works of Shakespeare, ...":
    the two sentences ran past the quote's usual length, so the second, the answer, was cut."""
    before = hashlib.sha256(PDF.read_bytes()).digest()
    loc, shown = located_quote(PDF, CHUNK, KARPATHY)
    assert (loc.locator_plugin, loc.page) == ("pdf_bbox", 3), loc
    assert shown.startswith("Karpathy trained multiple character RNNs"), shown
    assert "Paul Graham" in shown and "Shakespeare" in shown and "Linux C code" in shown, shown
    assert len(shown) > QUOTE_CHARS  # longer than a quote's usual length: the case the rule is for
    assert hashlib.sha256(PDF.read_bytes()).digest() == before


#: A passage in the manner of a report: an answering sentence, then a long one, then more.
OPENING = "The survey team measured the river at twelve gauging stations along its lower course in spring. "
AMOUNT = ("It came to about $48,500 for the regional water authority in the end, paid from its flood fund, once "
          "the boat hire, the data loggers, the field crews and their travel had all been added up together at the "
          "close of that season. ")
OTHER = ("The field crews then went back to their usual work on the canals, the sluices, the weirs, the fish "
         "passes, the towpaths and the pumping houses of the district, for the rest of the year and the next one, "
         "as every year, and they kept the boats and the tools in good order over the winter months. ")


def test_the_next_sentence_is_kept_for_the_kind_of_answer_asked_and_cut_otherwise() -> None:
    """"How much did ..." asks an amount: a next sentence holding one ("$48,500") goes on with the answer and is
    kept past the usual length, within RUN_ON times it; one holding neither the question's words nor an amount is
    cut as before."""
    text = OPENING + AMOUNT + "Nothing else was measured."
    query = "how much did the survey of the gauging stations cost?"
    quote = answer_quote(text, query)
    assert quote.startswith(OPENING.strip()) and "$48,500" in quote, quote
    assert QUOTE_CHARS < len(quote) <= RUN_ON * QUOTE_CHARS
    # "what did ... cost" names its quantity (round 29, cues.NAMED_QUANTITIES): it asks an amount too
    assert "$48,500" in answer_quote(text, query.replace("how much", "what"))
    # "what did ... find" asks no amount, and the sentence holds none of the query's words: cut
    assert answer_quote(text, "what did the survey of the gauging stations find?") == OPENING.strip()
    other = OPENING + OTHER + "Nothing else was measured."
    assert QUOTE_CHARS < len(OPENING + OTHER) <= RUN_ON * QUOTE_CHARS  # it would fit under the rule: words decide
    assert answer_quote(other, "where did the survey team measure gauging stations?") == OPENING.strip()
