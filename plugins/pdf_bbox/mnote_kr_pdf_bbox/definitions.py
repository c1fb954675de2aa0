"""A question asking what a term is: the box goes on the block naming the term.

"What is the oracle in TraceMonkey?" (nc26b Q6): LightRAG's passage began inside p5's paragraph ending "... in an
advisory data structure which we call the “oracle”.", and words and meaning chose the next block, which uses the
word three times ("we consult the oracle ... the now updated oracle information"). When the query asks a term's
meaning (the host's ``asked_term``) and the block chosen does not name it (``names_term``: "which we call the X",
"X is a ...", 称为X), the first block of the passage that does, else of the places behind the answer, is chosen,
the block held first right behind it. A term no block names moves nothing, nor does a block naming the term
without the words of the setting the question asks it in which the block chosen holds (``keeps_setting``: "What are
the side effects of aspirin?" stays on "Aspirin side effects include ...", not "... are called side effects"). The
claim counts the query's words the block moved to holds (``answer.holds_terms``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from mnote_kr.plugin_api import asked_term, keeps_setting, names_term, rank_by_meaning

from .answer import Answer, holds_terms
from .blocks import places, written_text
from .pdftext import DocumentText

__all__ = ["DEFINITIONS_LEAD", "at_named_definition"]

#: A definition question is cited on the block naming its term (False: by words and meaning, as before round 26).
DEFINITIONS_LEAD = True


def _text(doc: DocumentText, b: tuple[int, int]) -> str:
    page = doc.pages[b[0]]
    return written_text(page, page.reading(page.blocks[b[1]])) if page.blocks[b[1]] else ""


def _cosine(doc: DocumentText, b: tuple[int, int], query: str) -> float | None:
    """Block ``b``'s cosine with ``query`` (None without vectors): the host orders a file's places by it."""
    key, starts = places(doc)
    ranked = rank_by_meaning(key, query, {starts[b[0]] + b[1]: 1.0})
    return None if ranked is None else ranked[1].get(starts[b[0]] + b[1])


def at_named_definition(doc: DocumentText, counts: Mapping[tuple[int, int], Any], ans: Answer, query: str) -> Answer:
    """``ans`` moved to the block naming the term ``query`` asks the meaning of (module docstring), rule
    ``definition``; ``ans`` itself otherwise."""
    names = asked_term(query)
    if not DEFINITIONS_LEAD or not names or ans.block is not None and names_term(_text(doc, ans.block), names):
        return ans
    near: Iterable[tuple[int, int]] = [*sorted(counts), *(b for b, _ in ans.runners_up if b not in counts)]
    chosen = _text(doc, ans.block) if ans.block is not None else ""
    pick = next((b for b in near if names_term(text := _text(doc, b), names) and keeps_setting(query, chosen, text)),
                None)
    if pick is None:
        return ans
    share, found, _terms = holds_terms(doc, pick, query)
    behind = [(ans.block, ans.meaning)] if ans.block is not None else []
    runners = behind + [r for r in ans.runners_up if r[0] not in (pick, ans.block)]
    cos = next((c for b, c in ans.runners_up if b == pick and c is not None), None)
    return dataclasses.replace(ans, block=pick, rule="definition", share=share, found=found,
                               lines=list(doc.pages[pick[0]].blocks[pick[1]]),
                               meaning=cos if cos is not None else _cosine(doc, pick, query), runners_up=runners,
                               rare_elsewhere=False)
