"""A title that names only the question's topic yields to the place holding its attribute and a value.

"What is the rated system voltage of the high voltage switchboard?" over a data sheet titled "HIGH
VOLTAGE SWITCHBOARD": the title holds three of the query's words, clustered, and outscores the row
"Rated system voltage | kV | : | 130 (...)", which holds the asked attribute ("rated", "system") and its
value. The title only says what the file is about; the row answers. Likewise a DOCX title
"遗传病检测项目表" over the table cell "检测方法：提取外周血基因组 DNA…" (nc16a O10).

The rule, format-free, over the paragraphs the evidence quotes: when the chosen paragraph is title-like
(a heading, or a short line with no digit and no "label: value" colon opening its document or sheet),
another quoted paragraph that holds a value and the query's attribute terms (those the title does not
hold) leads. A query that names the title itself leaves no attribute term, so nothing moves.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.text.queryterms import QueryTerms

#: Longest title-like line, in characters: a title or heading names a topic in a few words.
TITLE_CHARS = 60
#: Least share of the attribute terms' weight (the query's terms the title lacks) a place must hold.
ATTRIBUTE_SHARE = 0.5

_DIGIT = re.compile(r"\d")
_LABEL_VALUE = re.compile(r"[:：|]\s*\S")


def title_like(para: TextParagraph) -> bool:
    """A heading, or a short line holding no value: no digit and no "label: value" (or cell) separator."""
    if para.heading_level > 0:
        return True
    text = para.text.strip()
    return 0 < len(text) <= TITLE_CHARS and not _DIGIT.search(text) and not _LABEL_VALUE.search(text)


def opens_part(paras: Sequence[TextParagraph], para: TextParagraph) -> bool:
    """Whether ``para`` is the first paragraph with words of its part (its document, its sheet, its section) and
    follows no heading: a title line. A short line further down, or right under a heading (the heading is the
    title there), is body text: an answer written without a full stop ("Vitamin D deficiency causes rickets in
    children", a list item) is no title to give way (review r17)."""
    for prev in reversed(paras[:para.index]):
        if not prev.tokens:
            continue
        return not prev.heading_level and prev.heading_path != para.heading_path
    return True


def holds_value(para: TextParagraph) -> bool:
    """Whether ``para`` holds a value beside its words: a digit, or a label followed by its value."""
    return bool(_DIGIT.search(para.text) or _LABEL_VALUE.search(para.text))


def _held(qt: QueryTerms, norm: str) -> set[int]:
    return {k for k, _pos, _w in qt.hits(norm) if qt.weights[k] > 0}


def attribute_over_title(paras: Sequence[TextParagraph], qt: QueryTerms, pick: int,
                         quoted: Mapping[int, float], scores: Mapping[int, float]) -> int | None:
    """The quoted paragraph to cite instead of the title-like ``pick``: it holds a value and at least
    ``ATTRIBUTE_SHARE`` of the weight of the query's terms ``pick`` lacks (best first by that weight, then
    by its query-term score ``scores``, then the evidence's confidence ``quoted``, then document order).
    None when ``pick`` is no title, holds every term, or no such paragraph is quoted."""
    title = paras[pick]
    if not title_like(title) or not (title.heading_level or opens_part(paras, title)):
        return None
    topic = _held(qt, title.norm)
    attribute = [k for k, w in enumerate(qt.weights) if w > 0 and k not in topic]
    total = sum(qt.weights[k] for k in attribute)
    if not topic or total <= 0:
        return None
    best: tuple[float, float, float, int] | None = None
    for i in quoted:
        para = paras[i]
        if i == pick or title_like(para) or not holds_value(para):
            continue
        weight = sum(qt.weights[k] for k in _held(qt, para.norm) if k in attribute)
        if weight < ATTRIBUTE_SHARE * total - 1e-9:
            continue
        key = (round(weight, 9), round(scores.get(i, 0.0), 9), round(quoted[i], 9), -i)
        if best is None or key > best:
            best = key
    return None if best is None else -best[3]


#: Ends of a paragraph that is a sentence, a clause or a lead-in, not a title line.
_SENTENCE_ENDS = tuple(".。!?！？;；:：…")


def front_title(doc: TextDocument[P], para: TextParagraph) -> bool:
    """``para`` is a title line of the document's front matter: under no heading, before the document's
    first heading (a cover, a title block), and no sentence (it ends without a sentence's punctuation)."""
    if para.heading_level or para.heading_path or para.in_toc:
        return False
    text = para.text.strip()
    if not text or text.endswith(_SENTENCE_ENDS):
        return False
    return any(p.heading_level for p in itertools.islice(doc.paragraphs, para.index + 1, None))
