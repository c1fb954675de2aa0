"""The words whose full stop does not end a sentence, for every sentence cutter: a cited passage's
(:mod:`mnote_kr.citations.cleaning.sentences`: the quote, the grounded sentence) and the viewer's, which widens a
highlight to whole sentences (:mod:`mnote_kr.viewer.marking`). One list, so a quote and the highlight of the same
passage cut it at the same places ("viz." ended a quote's sentence and not the viewer's, "Inc." the viewer's and
not the quote's, while each kept a list of its own).

Words are compared lower-case without their last full stop ("e.g", "i.e" keep their inner ones). Pure data.
"""

from __future__ import annotations

__all__ = ["ABBREVIATIONS", "BEFORE_NUMBERS"]

#: Abbreviations that do not end a sentence: "chat optimized LLMs (e.g., GPT-4)", "static vs. dynamic",
#: "Acme Ltd. and its", "Dr. Smith". The viewer reads the words of ``BEFORE_NUMBERS`` and "etc" by what follows
#: them first (a highlight is cut where the page shows a sentence's end: "see Fig. The next", "spacing, etc. Just
#: check"); a quote's cutter keeps every word here inside its sentence.
ABBREVIATIONS = frozenset(
    "e.g i.e cf vs viz al approx ca resp incl esp etc mr mrs ms dr prof st jr sr ed eds inc ltd co "
    "fig figs no nos eq eqs vol pp".split())
#: Abbreviations before a number ("Fig. 3", "No. 12", "pp. 4-9", "Art. 5", "Tab. 2"): not a sentence's end when a
#: digit follows; some are words that end sentences of their own too ("the state of the art. We").
BEFORE_NUMBERS = frozenset("fig figs no nos eq eqs vol p pp sec ch art tab ref refs".split())
