"""A which-question's answer in a list: the item labelled with what it asks for, not the sentence announcing it.

"实际状态评价中需要重点关注哪些电气设备？" matched the lead-in "…确定评价需重点关注的设备：", which holds the
question's setting (评价, 重点, 关注, 设备); the answer is the list item under it labelled with the asked words,
"电气设备：发电机、变压器、…" (nc17c P2). For a which-question (哪些, 哪几, which, what are, what kinds of),
when the matched paragraph announces a list (ends with a colon) and exactly one paragraph of that list (the
paragraphs ``placing.lead_in_text`` quotes with it) has a label, its words before a colon, that the query asks
for (right after its which-word) and the lead-in does not hold, that item is the place. A lead-in holding the
asked words itself ("维修评价方法包括哪些？" on "维修评价方法包括：") answers with its whole list, and stays.
"""

from __future__ import annotations

import dataclasses
import re

from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.text.textnorm import iter_tokens, normalize

#: The words of a question asking which things ("哪些电气设备", "which equipment", "what are the steps").
WHICH_RE = re.compile(r"哪些|哪几|哪类|哪种|哪一些|(?<![a-z])which(?![a-z])|(?<![a-z])what\s+(?:are|were|kinds?|"
                      r"types?|sorts?)(?![a-z])")
#: A list item's label: its words before the first colon, at most this many characters.
LABEL_CHARS = 30
LIST_ITEMS = 12
#: How a reason ends when :func:`asked_item` moved the place to the list item labelled with what is asked.
ASKED_ITEM = "; the list item under it labelled with what the question asks for"


def _label(para: TextParagraph) -> str:
    """``para``'s words before its first colon when they are a short label with more after it; else ""."""
    head, colon, rest = para.norm.partition(":")
    head = " ".join(head.split())
    return head if colon and rest.strip() and 0 < len(head) <= LABEL_CHARS else ""


def _held(label: str, text: str) -> bool:
    """Whether ``text`` (normalized) holds ``label``: a Latin label's every word, another as written."""
    if label.isascii():
        words = {t for t, _, _ in iter_tokens(label)}
        return bool(words) and words <= {t for t, _, _ in iter_tokens(text)}
    return "".join(label.split()) in "".join(text.split())


#: How far after the which-word the asked noun stands: Latin words, or CJK characters beyond the label's own.
ASKED_WORDS = 4


def _asked(label: str, after: str) -> bool:
    """Whether ``label`` is what the question asks for: it stands right after the which-word (``after`` is the
    query from there): "哪些电气设备", "which electrical equipment", "what are the key risks". A label the query
    holds elsewhere is its setting, not the asked noun ("which documents must applicants bring with the form?"
    over the item "Form: ..." asks for the documents: review r17)."""
    if label.isascii():
        return _held(label, " ".join(t for t, _, _ in list(iter_tokens(after))[:ASKED_WORDS]))
    compact = "".join(label.split())
    return compact in "".join(after.split())[:len(compact) + ASKED_WORDS]


def listed_items(doc: TextDocument[P], para: TextParagraph) -> list[P]:
    """The paragraphs after the lead-in ``para`` up to a heading, an empty paragraph, or ``LIST_ITEMS``."""
    out: list[P] = []
    for nxt in doc.paragraphs[para.index + 1:para.index + 1 + LIST_ITEMS]:
        if not nxt.text.strip() or nxt.heading_level or nxt.in_toc:
            break
        out.append(nxt)
    return out


def asked_item(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` moved to the list item a which-question asks for (see the module); else unchanged."""
    para = match.paragraph
    q = normalize(query or "")
    if para is None or match.reason.startswith(SEMANTIC) or not WHICH_RE.search(q) \
            or not para.norm.rstrip().endswith(":"):
        return match
    asked = q[WHICH_RE.search(q).end():]  # type: ignore[union-attr]  # searched above
    hits = [p for p in listed_items(doc, para)
            if (lab := _label(p)) and _asked(lab, asked) and not _held(lab, para.norm)]
    if len(hits) != 1:
        return match
    item = hits[0]
    return dataclasses.replace(match, paragraph=item, highlight=None, runners_up=(),
                               reason=f"{match.reason}{ASKED_ITEM}")


def item_lead_in(doc: TextDocument[P], item: P) -> P | None:
    """The lead-in ending with a colon that ``item`` is listed under (``listed_items``), or None: the words a
    place :func:`asked_item` chose holds with its item ("Applicants must bring the following documents:")."""
    for k in range(item.index - 1, max(-1, item.index - 1 - LIST_ITEMS), -1):
        para = doc.paragraphs[k]
        if para.norm.rstrip().endswith(":"):
            return para if item in listed_items(doc, para) else None
    return None
