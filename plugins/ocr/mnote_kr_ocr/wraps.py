"""Where a recognised line leaves its sentence for the next line to finish (the lines a quote and a box take,
and a line's word share is read with: ``locating`` and ``places``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .spaces import cjk

if TYPE_CHECKING:
    from .scan import Line

_SENTENCE_END = re.compile(r"[.!?。！？](?:[\s\"'”’)）]|$)")
#: Words a line may not end a sentence with: the next line goes on with it ("conversion to / JSON ...").
_OPEN_WORDS = frozenset("a an the to of and or nor but in on at by for with from into as than that which who "
                        "whose is are was were be been".split())


def goes_on(line: str, nxt: str) -> bool:
    """Whether recognised ``line`` leaves its sentence for ``nxt`` to finish: it holds no sentence's end,
    and it ends with a comma or a word no sentence ends with, or ``nxt`` opens in lowercase or with a digit,
    or both are CJK at the break (a Chinese line wraps mid-sentence)."""
    line, nxt = line.rstrip(), nxt.lstrip()
    if not line or not nxt or _SENTENCE_END.search(line):
        return False
    last = line.split()[-1].casefold()
    return line[-1] in ",，、;；:：-–" or last in _OPEN_WORDS or nxt[0].islower() or nxt[0].isdigit() \
        or (cjk(line[-1]) and cjk(nxt[0]))


def line_goes_on(line: Line, nxt: Line) -> bool:
    """``goes_on`` for two recognised lines; a table row (``Line.cells`` > 1) is a place of its own: no row
    goes on into the next one or from a line above it (``Creatinine | 1.1 mg/dL`` is not finished by
    ``eGFR | 82 mL/min`` for opening in lowercase)."""
    return line.cells == 1 and nxt.cells == 1 and goes_on(line.text, nxt.text)
