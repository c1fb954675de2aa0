"""The weak rule across scripts, any script (``noresults.weak_reason``): a passage in another script than the query
holds none of its words whether it answers or not, be it Chinese, Japanese, Korean, Russian, Greek, Arabic or
Persian.

The rule's across-scripts exemption read scripts by ``neutral.han_share`` alone, Han characters against Latin words:
a Russian, Korean, Arabic or Persian passage holds neither, so to it an English question over a Persian book was asked
in the passage's own script, and "none of the query's words is in any passage found" flagged the right answer
(round 28's probes P8 Korean and P9 Persian, first on the right file). The script here is the Unicode script of the
letters (``text.scripts``), whichever it is:

* :func:`apart`: a text is in another script than the query. The exemption's test for every passage found (each in
  another script: words cannot judge the search), and its reason's wording (``noresults.ACROSS_LANGUAGES``: "check
  that it answers", not "nothing answers"); the word rules that judge a first place in the query's script only
  (``weakmore.same_script``, ``library_lacks``, ``names_only``, ``weakabsent.name_absent``) skip it.
* Every passage in another script is not cleared for that alone: CC-CEDICT says whether a Chinese passage says one of
  the query's words (``weakmore.said_somewhere``); no dictionary here reads Cyrillic, Arabic or Hangul, and clearing
  them unread (as a missing dictionary does) cleared 26 of the 27 English off-topic queries searched in the user check's
  Russian contract or Korean table alone (scoped: a library in that script), where the first place's cosine, or its
  lead over the rest, does not tell them from the right answers. Such a search keeps the across-languages reason.
* :func:`stands_out`: a first place in another script whose cosine is ``STANDS_OUT`` or more above every place in the
  query's script is not judged by words, which its own script cannot hold (P8's Korean table, 0.052 above the
  English places; round 26's floor dump, tuning groups: the off-topic queries' first places in another script stand at
  most 0.021 above, five right answers 0.031 to 0.074). A wrong file's irrelevant place rarely beats the query's own
  language there: e5 puts a passage in another language lower.

``ANY_SCRIPT`` off is the rule before (Han against Latin only): ``benchmarks/weak_variants.py`` replays both in one run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mnote_kr.citations.text.scripts import HAN, main_script, script_share

if TYPE_CHECKING:
    from mnote_kr.models import Citation

#: Scripts are read by their letters' Unicode script (False: Han against Latin only, the rule before round 29).
ANY_SCRIPT = True
#: A first place in another script clears the words' verdict when its cosine is at least this much above every place
#: in the query's script (None: off).
STANDS_OUT: float | None = 0.04
#: A text is in another script than a query written in a script other than Han when at most this share of its units
#: is in the query's script (``neutral.han_share``'s 0.5 for a Chinese passage under an English query).
APART = 0.5


def query_script(query: str) -> str | None:
    """The script of the query's letters the rule reads (None: Han or none, which ``han_share`` reads, or ``ANY_SCRIPT``
    off)."""
    if not ANY_SCRIPT:
        return None
    script = main_script(query)
    return None if script == HAN else script


def apart(script: str | None, text: str) -> bool:
    """``text`` has letters and at most ``APART`` of its units are in ``script`` (a query's, from
    :func:`query_script`; None: False, the Han measure decides)."""
    return script is not None and main_script(text) is not None and script_share(text, script) <= APART


def stands_out(query: str, citations: list[Citation], passage_of: Callable[[Citation], str]) -> bool:
    """The first place is in another script than the query and its cosine is ``STANDS_OUT`` or more above that of
    every place found in the query's script (one at least). ``passage_of``: the passage a citation's words are read
    in (``weakmore.passage``)."""
    if not ANY_SCRIPT or STANDS_OUT is None or not citations:
        return False
    scripts: dict[str, str | None] = {}

    def read(c: Citation) -> str | None:
        text = passage_of(c)
        if text not in scripts:
            scripts[text] = main_script(text)
        return scripts[text]

    mine = main_script(query)
    first = citations[0].locator.meaning_score
    if mine is None or first is None or read(citations[0]) in (None, mine):
        return False
    same = [c.locator.meaning_score for c in citations[1:]
            if c.locator.meaning_score is not None and read(c) == mine]
    return bool(same) and first - max(same) >= STANDS_OUT
