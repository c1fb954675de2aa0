"""A table of contents' title heads the contents, not the document after them.

Many documents style the title of their table of contents as a heading ("Table of Contents" in Heading 1) and
type the sections after it without heading styles; the walk's trail then kept that title open over the whole
body (nc28a F6: every paragraph of tika__018367.docx, the DOJ budget, under "heading: Table of Contents"). The
rule: a styled heading is a *contents title* when its words say so ("Contents", "Table of Contents", 目录, 目次,
Содержание, Inhalt, Sommaire, Índice) or when a line of Word's own contents (``word_toc``: a TOC style, field or
content control) is among the first ``FIRST_LINES`` paragraphs with text under it. A line typed with a tab before a
number ("Weight<tab>5" under "Specifications") makes no unnamed heading a contents title (review r29 finding 2: the
body lost its heading), and neither do Word's contents of a chapter's own sections (a mini-TOC): an unnamed heading
with a styled heading of lower rank after its contents heads them. Its contents run from it to its last contents
line that follows another within ``GAP_LINES`` paragraphs with text (a TOC's entries whose page numbers Word left
out, "IV. Decision Unit Justification", lie between two lines that have them). Every paragraph after the contents that
still sits under the title has the title taken out of its ``heading_path`` (with its number, ``heading_numbers``):
a paragraph of the body is under the headings that head it, not under the contents' title. The contents lines
keep it, and a heading opened later is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from .document import Paragraph

#: A contents line among this many first paragraphs with text under a heading makes it a contents title.
FIRST_LINES = 3
#: The contents go on while the next contents line is at most this many paragraphs with text away.
GAP_LINES = 8
#: A heading naming a table of contents, whatever follows it.
_NAMES = re.compile(r"^\s*(?:table\s+of\s+contents?|contents|目\s*录|目\s*次|содержание|оглавление|inhalt"
                    r"(?:sverzeichnis)?|sommaire|table\s+des\s+mati[eè]res|[íi]ndice)\s*[:：]?\s*$", re.I)


def _contents_end(paras: Sequence[Paragraph], title: int, word_toc: Collection[int]) -> int | None:
    """The index of the last contents line of the contents titled by heading ``title``, or None when
    ``title`` titles no contents."""
    level = paras[title].heading_level
    named = _NAMES.match(paras[title].text) is not None
    last, seen = None, 0  # the last contents line; paragraphs with text since it (or since the title)
    for p in paras[title + 1:]:
        if p.heading_level and p.heading_level <= level:
            break  # a heading of its rank or above closes it anyway
        if p.heading_level and not named and last is not None:
            return None  # a chapter's own sections after its mini-TOC: the chapter heads them
        if not p.text.strip():
            continue
        if p.in_toc and (named or last is not None or p.index in word_toc):
            last, seen = p.index, 0
            continue
        seen += 1
        if (last is None and not named and seen >= FIRST_LINES) or (last is not None and seen > GAP_LINES):
            break
    return last


def close_contents(paras: Sequence[Paragraph], word_toc: Collection[int] = frozenset()) -> None:
    """Take each contents title out of the heading path of the paragraphs after its contents (in place).
    ``word_toc``: the indexes of the paragraphs Word itself marks as contents (a TOC style, field or content
    control), not only typed as such."""
    for title in (p.index for p in paras if p.heading_level and not p.in_toc):
        end = _contents_end(paras, title, word_toc)
        if end is None:
            continue
        path = paras[title].heading_path
        at = len(path) - 1
        if at < 0 or path[at] != paras[title].text.strip():
            continue  # a title the trail does not hold as written: nothing to take out
        for p in paras[end + 1:]:
            if tuple(p.heading_path[:at + 1]) != tuple(path):
                break  # another heading of its rank or above: the title is closed
            p.heading_path = (*p.heading_path[:at], *p.heading_path[at + 1:])
            if len(p.heading_numbers) > at:
                p.heading_numbers = (*p.heading_numbers[:at], *p.heading_numbers[at + 1:])
