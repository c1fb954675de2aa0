"""The table or figure a query names ("what does table 3 show?", "Fig. 4", "表 7.6 是什么"): the box goes on its
caption.

A paper's passage often holds two tables (demo1's chunk ran from Table 2 through Table 3's caption), and the words
"table" and "3" choose the sentence "... Table 2 gives" as well as Table 3's caption (nc23a Q9). When the query names
a table or figure (the host's ``section_refs``, kinds ``table`` and ``figure``) and the block chosen does not start
with its label, the block that does (``caption_of``) is chosen: among the passage's blocks, then those behind the
answer, then the PDF's every block; a caption written as a title ("Table 3-1 Special registers ...", "Fig. 4.
Net flow ...", "Table 3" over its title line) before a sentence opening on the label ("Table 3-1 summarizes ..."),
which only the passage or the places behind it offer. A label standing alone on its block ("Table 3") is boxed with
the title line under it. A number no block starts with moves nothing (the host's ranking and honesty read the rest).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from mnote_kr.plugin_api import caption_of, named_labels

from .answer import Answer
from .blocks import written_text
from .pdftext import DocumentText

__all__ = ["at_named_caption"]

#: A label after which the caption's title starts: a stop or colon, an upper-case letter, a CJK character, nothing.
_TITLE_STARTS = ".:：．。"


def _text(doc: DocumentText, b: tuple[int, int]) -> str:
    page = doc.pages[b[0]]
    return written_text(page, page.reading(page.blocks[b[1]])) if page.blocks[b[1]] else ""


def _titled(text: str) -> bool:
    """Whether ``text`` (starting with a label) is a caption written as a title, not a sentence on the label."""
    parts = text.split(None, 2)
    rest = parts[2] if len(parts) > 2 else ""
    if not rest:
        return True
    if parts[1][-1:] in _TITLE_STARTS or rest[0] in _TITLE_STARTS:
        return True
    return rest[0].isupper() or not rest[0].isascii()


def _blocks(doc: DocumentText) -> Iterable[tuple[int, int]]:
    for pi, page in enumerate(doc.pages):
        for bi, lines in enumerate(page.blocks):
            if lines:
                yield pi, bi


def at_named_caption(doc: DocumentText, counts: Mapping[tuple[int, int], Any], ans: Answer, query: str) -> Answer:
    """``ans`` moved to the caption of the table or figure ``query`` names (module docstring), rule ``caption``,
    the block it held first behind it; ``ans`` itself when the query names none, ``ans`` starts with its label,
    or no block of the PDF does."""
    asked = named_labels(query)
    if not asked or ans.block is not None and caption_of(_text(doc, ans.block)) in asked:
        return ans
    near = [*sorted(counts), *(b for b, _ in ans.runners_up if b not in counts)]
    texts: dict[tuple[int, int], str] = {}

    def captions(blocks: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
        out = []
        for b in blocks:
            text = texts.setdefault(b, _text(doc, b))
            if caption_of(text) in asked:
                out.append(b)
        return out

    close = captions(near)
    pick = next((b for b in close if _titled(texts[b])), None) \
        or next((b for b in captions(_blocks(doc)) if _titled(texts[b])), None) or next(iter(close), None)
    if pick is None:
        return ans
    page = doc.pages[pick[0]]
    lines = list(page.blocks[pick[1]])
    if len(texts[pick].split()) <= 2 and pick[1] + 1 < len(page.blocks):  # "Table 3" alone: its title line too
        lines += page.blocks[pick[1] + 1]
    behind = [(ans.block, ans.meaning)] if ans.block is not None else []
    runners = behind + [r for r in ans.runners_up if r[0] not in (pick, ans.block)]
    return dataclasses.replace(ans, block=pick, rule="caption", share=1.0, found=ans.terms, lines=lines,
                               meaning=None, runners_up=runners, rare_elsewhere=False)
