"""``exactAhead``: a file whose first place is exact goes before an approximate one scoring barely more.

The file ranking (:mod:`mnote_kr.citations.rank.ranking`) reads words, meaning and the provider's order, not
whether the locator could anchor the place it cites (``locatorDegraded``). Two files a few hundredths apart are
not told apart by their scores; one cited on the query's own words (exact) is then a better guess than one placed
by meaning alone (approximate). Pure: no I/O.

A file whose exact first place holds the query as written steps over approximate files holding none of the query's
words (no ``lexical``, no ``phrase``) whatever their scores (``VERBATIM_AHEAD``): nc25c's "sourdough fermentation" put
the DOJ handbook first, found by meaning and holding neither word, over ``mineru__docx_01.docx`` ¶473, a reference
"... on sourdough fermentation rates", exact. A reference list keeps a quarter of its score (``ranking``'s
``apparatus``: it holds a question's words without answering it), fair against a passage holding those words too,
not against one holding none.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnote_kr.citations.rank.stepover import Candidate, step_over

__all__ = ["EXACT_MARGIN", "VERBATIM_AHEAD", "exact_ahead", "within_margin"]

#: A file whose first place is exact steps over the files right above it whose first place is approximate and that
#: score at most this share more (0: exactness moves no file). The r21 run of the tuning sets re-ranked
#: (``benchmarks/retrieval.py --from-dump --order rerun``, e5usexlang): 0.05 and 0.1 lift old zh12 (3rd -> 2nd, MRR
#: of the old set 0.938 -> 0.940), and no question gets worse; 0.2 and more put tune3's t3_zh07 2nd (1st before).
EXACT_MARGIN = 0.1
#: The slack, relative to the higher score, of the margin's comparison: a score is a sum of float parts, and the
#: bound's own pair drifted out of it by its last bits (7.7 and 6.93: ``7.7 - 6.93`` is 0.7700000000000005, more than
#: ``0.1 * 7.7``). A billionth of a score is far below any difference the ranking means.
SLACK = 1e-9
#: A file whose exact first place holds the query as written steps over the approximate files above it holding none
#: of the query's words, whatever their scores (False: only within ``EXACT_MARGIN``, as before round 25).
VERBATIM_AHEAD = True


def within_margin(higher: float, lower: float) -> bool:
    """Whether ``higher`` scores at most ``EXACT_MARGIN`` of its own score more than ``lower`` (7.7 and 6.93: 0.77
    apart, the bound itself, is within), compared so a float's last bits cannot tip the bound's own pair out."""
    return higher - lower <= EXACT_MARGIN * higher + SLACK * abs(higher)


def exact_ahead(out: list[tuple[float, dict[str, float]]], candidates: Sequence[Candidate],
                written: Sequence[bool] = ()) -> None:
    """In place: each file read at its first place (its best score in ``out``), a file whose first place is exact
    steps over the approximate ones right above it that score at most ``EXACT_MARGIN`` of their score more, but
    not over one on a place the query names (``parts["named"]``: "what does page 2 say about X" on page 2): its
    first place is scored just above the highest it passes (``parts["exactAhead"]``). Its other places stay.
    ``written``: for each candidate, whether its place holds the query as written; one that does, exact, passes an
    approximate file holding none of the query's words at any margin (``VERBATIM_AHEAD``)."""
    if EXACT_MARGIN <= 0:
        return

    def wordless(j: int) -> bool:
        parts = out[j][1]
        return parts.get("lexical", 0.0) <= 0 and not parts.get("phrase")

    def passes(j: int, i: int) -> bool:
        # a file on the place the query names keeps its lead: the person said where to look
        verbatim = VERBATIM_AHEAD and i < len(written) and written[i] and wordless(j)
        return (candidates[j].approximate and not out[j][1].get("named")
                and (verbatim or within_margin(out[j][0], out[i][0])))

    step_over(out, candidates, "exactAhead", lambda i: not (candidates[i].approximate or candidates[i].unplaced),
              passes)
