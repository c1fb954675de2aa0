"""Where a recognised line leaves its sentence for the next line to finish (the lines a quote and a box take,
and a line's word share is read with: ``locating`` and ``places``)."""

from __future__ import annotations

import re

from .spaces import cjk

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
