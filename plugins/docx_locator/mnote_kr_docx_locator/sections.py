"""The numbered section a query names ("what does section 6.2.1 say about X", "§4.2", "第3章 术语", "1.3节",
"раздел 7"): the citation goes to the paragraphs under that heading.

A DOCX shows its headings after the numbers Word draws from numbering.xml ("6.2.1 核电厂文件和记录",
``numbering``), or after numbers typed into them ("3. ЦЕНА КОНТРАКТА", ``headings.typed_title``). The provider
reads neither as words that matter, so a chunk holding several short sections sent the citation to the first
paragraph with the query's other words, whatever section the query named. When the query names a number the
file's headings carry (``named_sections``) and the evidence's place is under none of them, the paragraph under
them holding most of the query's other words (and nearest in meaning, once ingest embedded the file) is cited,
the paragraphs the evidence quotes first among equals, then document order; the evidence's place stands first
behind it. A number no heading of the file carries names nothing: the place stays as the words chose it.

Standards number their clauses in the paragraph's own text instead ("5.3.2 设计相近核电厂的PSR联合评价", a title
line, then its paragraphs; "5.4.1 核电厂定期安全评价的责任主体为...", a clause): such a clause (``typed_clauses``) is a
section too. A place on a section's heading or title line moves to the paragraph under it holding most of the
query's other words (nc21b: "What does section 5.3.2 say about plants with similar designs?" was cited on the
title line); a place in a typed clause carries its title line as its last heading, as the reader sees it.

A table or figure the query names ("what does Table 1 contain?", "Fig. 2", "表 3-1"): the citation goes to its caption
paragraph ("Table 1: This is an easy table"), the paragraph starting with its label (the host's ``caption_of``), in
the sidecar block's range when there is one (``at_named_caption``); the evidence's place stands first behind it. A
number no paragraph starts with moves nothing.

The numbers a query names are read by the host (``mnote_kr.citations.text.sections.named_sections``, through the
plugin API), so the ranking reads the same ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

from mnote_kr.plugin_api import (
    Locator,
    SectionRef,
    caption_of,
    cn_number,
    iter_tokens,
    named_labels,
    named_sections,
    normalize,
    numbered_as,
    places_key,
    rank_by_meaning,
    scaffolding,
    without_sections,
)

from .document import DocxDocument, Paragraph

__all__ = ["at_named_caption", "at_named_section", "heading_numbers", "named_sections", "under", "without_sections"]

_NUMBER = r"\d{1,3}(?:\.\d{1,3})*"
_CJK_RE = re.compile(r"第\s*(\d{1,3}(?:\.\d{1,3})*|[一二两三四五六七八九十]{1,3})\s*[章节]")


_TYPED_NUMBER = re.compile(rf"^\s*(?:第\s*)?({_NUMBER})\.?(?:\s|\u3000|章|节|、|$)")


def heading_numbers(para: Paragraph) -> tuple[str, ...]:
    """The number each heading over ``para`` shows, "" for none: Word's (``heading_numbers``), else one typed
    at the heading's start ("3. ЦЕНА КОНТРАКТА", "1 这是第一章标题")."""
    drawn = para.heading_numbers or ("",) * len(para.heading_path)
    out = []
    for number, heading in zip(drawn, para.heading_path, strict=False):
        m = _TYPED_NUMBER.match(number) if number.strip() else _TYPED_NUMBER.match(heading)
        if m is None and number.strip():
            digits = _CJK_RE.match(number.strip())
            out.append(cn_number(digits.group(1)) or "" if digits else "")
            continue
        out.append(m.group(1).rstrip(".") if m else "")
    return tuple(out)


def under(doc: DocxDocument, numbers: Iterable[str]) -> list[Paragraph]:
    """The paragraphs under a heading numbered one of ``numbers`` (the headings themselves included)."""
    wanted = set(numbers)
    return [p for p in doc.paragraphs if p.heading_path and wanted.intersection(heading_numbers(p))]


def _other_words(query: str) -> set[str]:
    said = [tok for tok, _, _ in iter_tokens(normalize(without_sections(query)))]
    return {w for w, skip in zip(said, scaffolding(said), strict=True) if not skip}


#: A paragraph starting with a number of several parts: a clause of a standard ("5.4.1 核电厂...") or its title line.
_LEADS_PARTS = re.compile(r"\s*\d{1,3}(?:\.\d{1,3})+\.?(?![\d]|\.\d|[A-Za-z])")
#: Paragraphs a typed clause runs on for at most (its own, then those after it up to the next number or heading).
MAX_CLAUSE = 40
#: A typed number's title line is short and no sentence ("5.3.2 设计相近核电厂的PSR联合评价"): the clause is the
#: paragraphs after it.
_TITLE_CHARS = 40
_SENTENCE_ENDS = tuple(".。!?！？;；:：…")


def _is_title(para: Paragraph) -> bool:
    text = _LEADS_PARTS.sub("", para.text, count=1).strip()
    return bool(text) and len(text) <= _TITLE_CHARS and not text.endswith(_SENTENCE_ENDS)


def typed_clauses(doc: DocxDocument, numbers: Iterable[str]) -> dict[int, Paragraph]:
    """The paragraphs of the clauses numbered in their own text ("5.3.2 设计相近核电厂的PSR联合评价", "5.4.1 核电厂定期
    安全评价的责任主体为...") with one of ``numbers`` (or under it: "5.3.2.1"), each with the paragraph its number
    starts: that one, then those after it up to the next heading or paragraph led by another number of several
    parts (at most ``MAX_CLAUSE``). Standards number their clauses so, not in headings."""
    refs = [SectionRef("section", n) for n in numbers if "." in n]
    out: dict[int, Paragraph] = {}
    paras = doc.paragraphs
    for p in paras:
        if p.heading_level or p.in_toc or p.index in out or not any(numbered_as(p.text, r) for r in refs):
            continue
        out[p.index] = p
        for q in paras[p.index + 1: p.index + 1 + MAX_CLAUSE]:
            if q.heading_level or q.in_toc or _LEADS_PARTS.match(q.text) and not any(numbered_as(q.text, r)
                                                                                     for r in refs):
                break
            out[q.index] = p if not _LEADS_PARTS.match(q.text) else q
    return out


def _headings_of(para: Paragraph, start: Paragraph | None) -> list[str]:
    """``para``'s headings as the reader sees them, with the title line of the typed clause it stands in."""
    shown = list(para.shown_headings)
    return [*shown, start.text] if start is not None and start is not para and _is_title(start) else shown


def at_named_section(doc: DocxDocument, loc: Locator, query: str, evidence: str) -> Locator:
    """``loc`` moved under the numbered section ``query`` names when it is under none of them or on its heading
    or title line (module docstring); ``loc`` itself when the query names none the file's headings or clauses
    carry. A place in a typed clause has the clause's title line among its headings (``place_headings``), as the
    reader sees it and the host's ranking reads it (``sections.starts_named``)."""
    numbers = named_sections(query)
    if not numbers or loc.locator_precision != "paragraph" or loc.paragraph_index is None:
        return loc
    clauses = typed_clauses(doc, numbers)
    section = {p.index: p for p in under(doc, numbers)} | {i: doc.paragraphs[i] for i in clauses}
    if not section:
        return loc
    wanted = [SectionRef("section", n) for n in numbers]
    titles = {i for i, p in section.items() if p.heading_level and any(numbered_as(h, r, heading=True)
                                                                         for h in p.shown_headings[-1:] for r in wanted)
              or i in clauses and clauses[i] is p and _is_title(p)}
    here = loc.paragraph_index
    if here in section and here not in titles:
        start = clauses.get(here)
        return msgspec.structs.replace(loc, place_headings=_headings_of(doc.paragraphs[here], start)) \
            if start is not None and start.index != here and _is_title(start) else loc
    ev = normalize(evidence)
    body = [p for i, p in sorted(section.items()) if p.tokens and not p.heading_level and not p.in_toc
            and i not in titles]
    quoted = [p for p in body if p.norm.strip() in ev]
    cands = quoted or body or [p for p in section.values() if p.tokens]
    if not cands:
        return loc
    words = _other_words(query)
    total = sum(doc.idf(w) for w in words)
    score = {p.index: sum(doc.idf(w) for w in words & p.tokens) / total if total else 0.0 for p in cands}
    if not quoted and total and here not in titles:
        # outside the passage the section must hold the query's words as well as the passage's place does:
        # a heading trail the file breaks (a heading split over two paragraphs) must not pull the answer away
        there = doc.paragraphs[here]
        if max(score.values()) < sum(doc.idf(w) for w in words & there.tokens) / total:
            return loc
    ranked = rank_by_meaning(places_key([p.text for p in doc.paragraphs]), query, score) \
        if total and len(cands) > 1 else None
    combined = ranked[0] if ranked is not None else score
    pick = max(cands, key=lambda p: (combined[p.index], bool(p.norm.strip()) and p.norm.strip() in ev, -p.index))
    where = "section " + ", ".join(numbers)
    held = score[pick.index] > 0
    approximate = not held and bool(words & doc.df.keys())
    reason = (f"the query names {where}; its other words are in this paragraph" if held else
              f"the query names {where}; none of its other words is there: an approximate place" if approximate
              else f"the query names {where}")
    behind = msgspec.structs.replace(loc, locator_degraded=True, runners_up=[])
    others = [r for r in loc.runners_up if r.paragraph_index != pick.index]
    start = clauses.get(pick.index)
    headings = _headings_of(pick, start) if start is not None else list(pick.heading_path)
    return msgspec.structs.replace(
        loc, locator_degraded=approximate, paragraph_index=pick.index, para_id=pick.para_id,
        highlight=None, locator_reason=reason, reason=reason, place_text=pick.text if pick.text.strip() else None,
        place_headings=headings, meaning_score=None, runners_up=[behind, *others])


def at_named_caption(doc: DocxDocument, loc: Locator, query: str, scope: tuple[int, int] | None = None) -> Locator:
    """``loc`` moved to the caption of the table or figure ``query`` names (module docstring), in ``scope`` (an
    inclusive paragraph range) when given; ``loc`` itself when the query names none, ``loc`` is on its caption,
    or no paragraph starts with its label."""
    asked = named_labels(query)
    if not asked or loc.locator_precision != "paragraph" or loc.paragraph_index is None:
        return loc
    paras = doc.paragraphs
    if caption_of(paras[loc.paragraph_index].text) in asked:
        return loc
    lo, hi = scope if scope is not None else (0, len(paras) - 1)
    pick = next((p for p in paras[lo:hi + 1] if not p.in_toc and caption_of(p.text) in asked), None)
    if pick is None:
        return loc
    kind, number = caption_of(pick.text) or ("", "")
    reason = f"the query names {kind} {number}: its caption"
    behind = msgspec.structs.replace(loc, runners_up=[])
    others = [r for r in loc.runners_up if r.paragraph_index != pick.index]
    return msgspec.structs.replace(
        loc, locator_degraded=False, paragraph_index=pick.index, para_id=pick.para_id, highlight=None,
        locator_reason=reason, reason=reason, place_text=pick.text, place_headings=list(pick.heading_path),
        meaning_score=None, runners_up=[behind, *others])
