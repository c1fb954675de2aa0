"""The part of a located paragraph its highlight marks: the list item or sentence that answers.

A Markdown or text paragraph is a block of lines between blank lines, so a list written without blank lines
("- a\\n- b\\n- c") or a note of one sentence a line is one paragraph. The matcher's highlight is the densest
run of the evidence's words, and a chunk quoting the whole block matched its first line: the question
"组会汇报在哪个会议室？" was marked on the first bullet while the third answered, and claimed exact (nc20b Q13;
a numbered list's highlight was "1." alone).

:func:`answering_unit` cuts the paragraph into its units: its list items (a line opening with ``-``, ``*``,
``+``, ``1.`` or ``1)``, with the lines after it up to the next item; the marker is not part of the item)
when it has any, else its lines cut into sentences (``cleaning.quote.sentences``). The highlight goes to the
unit holding most of the query's words (``QueryTerms``, with the asked words of ``cjkwords.query_words``);
among units holding as many, the one nearest the question by meaning (``meaning.sentence_cosines``, when the
places have vectors), then the one the matcher marked, then the first. The place stays exact only when that
unit holds the query as written, or ``textmatch.QUERY_SHARE`` of its words' weight (the bar a paragraph
meets) and the file lacks none of the words the query asks (``cjkwords.absent_words``: the file holds no
bigram of them, as a DOCX or PDF named place must hold them; Latin words the file holds nowhere, when they
weigh ``LACKED_SHARE`` of the query or more: after an edit took "120-mesh" and "screen" out of a note, "120-mesh
screen filter" was still exact on the paragraph holding "filter", nc30a W3): a highlight on text lacking the
words asked is an approximate place. A paragraph of one sentence keeps the matcher's span and meets the same bar.
"""

from __future__ import annotations

import dataclasses
import re

from mnote_kr.citations.locate.terms import NAMED_TERM
from mnote_kr.citations.locate.textdoc import P, TextDocument
from mnote_kr.citations.locate.textmatch import QUERY_SHARE, SEMANTIC, Match
from mnote_kr.citations.text.cjkwords import absent_words, query_words
from mnote_kr.citations.text.definitions import asked_term, names_term
from mnote_kr.citations.text.latinwords import is_question
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

#: A list item's first line: its indent and marker (the item's words start after it).
ITEM_RE = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)、])[ \t]+(?=\S)")
#: Off: the matcher's highlight and claim stand (before round 20).
UNITS = True
#: The share of the query's weight the Latin words a file holds nowhere must reach for a place to lack them (1.01:
#: never, before round 30). Below it a question's odd word the file lacks ("switching") leaves the claim alone.
LACKED_SHARE = 0.5


def _lines(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text`` holding more than space, line break not included."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if body.strip():
            lead = len(body) - len(body.lstrip())
            out.append((pos + lead, pos + len(body.rstrip())))
        pos += len(line)
    return out


def units(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` a highlight may mark, in order: its list items without their markers (lines
    before the first item: its sentences), or, without items, each line's sentences."""
    from mnote_kr.citations.cleaning.quote import sentences

    out: list[tuple[int, int]] = []
    item: list[int] | None = None
    for start, end in _lines(text):
        marker = ITEM_RE.match(text, start, end)
        if marker is not None:
            if item is not None:
                out.append((item[0], item[1]))
            item = [marker.end(), end]
        elif item is not None:
            item[1] = end  # a line continuing the item
        else:
            out.extend((start + a, start + b) for a, b in sentences(text[start:end]))
    if item is not None:
        out.append((item[0], item[1]))
    return [(a, b) for a, b in out if any(ch.isalnum() for ch in text[a:b])]  # never a marker or a stop alone


def answering_unit(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` (and its places behind) with the highlight on its paragraph's answering unit (see the
    module), approximate when that unit lacks the query's words."""
    if not UNITS or match.paragraph is None:
        return match
    q = normalize(query or "").strip()
    words = query_words(q) if q else ()
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), words) if q else None
    lacked = (absent_words(words, doc.df) if words else []) + (
        _absent_latin(qt, doc) if qt and not is_question(q) else [])
    runners = tuple(_marked(r, q, qt, lacked) for r in match.runners_up)
    return dataclasses.replace(_marked(match, q, qt, lacked), runners_up=runners)


def _absent_latin(qt: QueryTerms, doc: TextDocument[P]) -> list[str]:
    """The query's Latin words no paragraph of the file holds, when they weigh ``LACKED_SHARE`` of it or more. Read
    for a phrase searched, not a question: a question says its answer in other words ("how much ice did the glacier
    lose" over "lost forty metres of ice"), and a word the file lacks weighs the most of all, so its asking and
    inflected words alone would pass the share. A word met by its stem ("storage" in "stored") is held."""
    gone = [k for k, t in enumerate(qt.terms) if not t.cjk and not qt.present[k] and qt.weights[k] > 0]
    gone = [k for k in gone if not any(QueryTerms(qt.terms[k].text, {}, 1).score(p.norm) > 0 for p in doc.paragraphs)]
    if not qt or sum(qt.weights[k] for k in gone) < LACKED_SHARE * qt.total:
        return []
    return [qt.terms[k].word or qt.terms[k].text for k in gone]


def _marked(match: Match, q: str, qt: QueryTerms | None, lacked: list[str]) -> Match:
    para = match.paragraph
    if para is None:
        return match
    spans = units(para.text)
    if not spans:
        return match
    words = [qt.score(para.norm[a:b]) if qt else 0.0 for a, b in spans]
    top = max(words)
    tied = [k for k, w in enumerate(words) if w >= top - 1e-9]
    if len(tied) > 1:
        tied = _nearest(para.text, spans, tied, q) or tied
    if len(tied) > 1 and match.highlight is not None:
        h0, h1 = match.highlight
        over = [k for k in tied if spans[k][0] < h1 and h0 < spans[k][1]]
        tied = over or tied
    if match.reason.startswith(NAMED_TERM):  # a definition question: the sentence naming the term, claimed
        names = asked_term(q)
        tied = [next((k for k, (a, b) in enumerate(spans) if names_term(para.text[a:b], names)), tied[0])]
    a, b = spans[tied[0]]
    whole = len(spans) == 1 and not ITEM_RE.match(para.text)
    highlight = match.highlight if whole else (a, b)  # one sentence: the matcher's span within it stands
    reason = match.reason
    if reason.startswith((SEMANTIC, NAMED_TERM)) or not q or q in para.norm[a:b]:
        return dataclasses.replace(match, highlight=highlight)
    kind = "paragraph" if whole else "list item" if ITEM_RE.match(para.text, *_line_of(para.text, a)) \
        else "sentence"
    if lacked:
        reason = f"{SEMANTIC}: the {kind} lacks words the query asks for, which the file holds nowhere " \
                 f"({', '.join(lacked)})"
    elif qt is None or words[tied[0]] < QUERY_SHARE:
        reason = f"{SEMANTIC}: the {kind} holding most of the query's words holds few of them"
    return dataclasses.replace(match, highlight=highlight, reason=reason)


def _line_of(text: str, pos: int) -> tuple[int, int]:
    """The span of the line of ``text`` holding ``pos``."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _nearest(text: str, spans: list[tuple[int, int]], tied: list[int], q: str) -> list[int]:
    """Of the ``tied`` units, the one nearest the query by meaning (empty without vectors)."""
    if not q:
        return []
    from mnote_kr.citations.rank import meaning

    cos = meaning.sentence_cosines([text[spans[k][0]:spans[k][1]] for k in tied], q)
    if not cos:
        return []
    best = max(range(len(tied)), key=lambda j: (cos[j], -j))
    return [tied[best]]
