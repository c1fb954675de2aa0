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

The numbers a query names (``named_sections``): one of several parts written as such ("6.2.1", "1.3节"), not
after a version word ("version 2.1", "v1.2", "版本 2.1") nor before a unit or percent ("2.5 kg", "3.5%"); or
any number after a section's kind word ("section 3", "sections 2 and 3", "§4", "clause 12", "chapter 2",
"раздел 7", "п. 4.2.8", "Abschnitt 2") or in 第…章/节 ("第3章", "第三章"; not 第…条: "核安全法第十六条" names an
article of a law, one tuning question's). A date ("02.12.2015") is none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

from mnote_kr.plugin_api import (
    Locator,
    iter_tokens,
    normalize,
    places_key,
    rank_by_meaning,
    scaffolding,
)

from .document import DocxDocument, Paragraph

_NUMBER = r"\d{1,3}(?:\.\d{1,3})*"
#: A number of several parts ("6.2.1", "1.3."), standing alone: no digit or full stop joined before it, none
#: after it (a date "02.12.2015" has a four-digit part).
_PARTS_RE = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{1,3})+)\.?(?![\d,]|\.\d)")
#: A number of several parts with the 节/章/条 after it ("1.3节"), as ``without_sections`` removes it.
_PARTS_THEN_CJK_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{1,3})+\.?(?![\d,]|\.\d)\s*[章节条]?")
_KINDS = (r"sections?|sect\.|sec\.|§+|clauses?|chapters?|paragraphs?|para\.|"
          r"разделы?|раздела|разделе|пункты?|пункта|пункте|п\.|глав[аеы]|abschnitt|kapitel|ziffer")
_KIND_RE = re.compile(rf"(?<![\w-])(?:{_KINDS})\s*(?:no\.|nr\.|№)?\s*({_NUMBER}(?:\s*(?:,|and|or|и|&)\s*{_NUMBER})*)"
                      r"(?![\d%])", re.I)
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_RE = re.compile(r"第\s*(\d{1,3}(?:\.\d{1,3})*|[一二两三四五六七八九十]{1,3})\s*[章节]")
#: Words before a number that make it a version, not a section.
_VERSION_RE = re.compile(r"(?<![^\W\d_])(?:version|versions|ver\.?|v|release|rev\.?|python|版本|版)\s*$", re.I)
#: What after a number makes it an amount: a percent, or a unit of measure or money.
_UNIT_RE = re.compile(
    r"\s*(?:%|‰|°|℃|(?:[kmgtµμn]?(?:g|m|l|b|hz|w|v|a|pa|j|s)|mm|cm|km|ml|kg|mg|min|hrs?|h|bar|db|px|pt|x|in|ft|lbs?"
    r"|usd|eur|rub|руб|кг|км|мм|см|м|г|л|млн|тыс)(?![^\W\d_])|元|万|亿|米|吨|克|个|倍|岁|年|月|日|号|版)", re.I)
_FIELD_SEP = re.compile(r"\s*(?:,|and|or|и|&)\s*", re.I)


def _cn_number(text: str) -> str | None:
    """A Chinese numeral of one to ninety-nine as digits ("三" 3, "十二" 12, "二十" 20)."""
    if text.isdigit() or "." in text:
        return text
    if "十" in text:
        tens, _, ones = text.partition("十")
        value = (_CN_DIGITS.get(tens, 0) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
        return str(value) if (not tens or tens in _CN_DIGITS) and (not ones or ones in _CN_DIGITS) else None
    return str(_CN_DIGITS[text]) if len(text) == 1 and text in _CN_DIGITS else None


def named_sections(query: str) -> list[str]:
    """The section numbers ``query`` names, in its order, each once ("6.2.1", "3"; module docstring)."""
    found: list[tuple[int, str]] = []
    for m in _KIND_RE.finditer(query):
        found += [(m.start(1), n) for n in _FIELD_SEP.split(m.group(1)) if n]
    for m in _CJK_RE.finditer(query):
        number = _cn_number(m.group(1))
        if number:
            found.append((m.start(1), number))
    for m in _PARTS_RE.finditer(query):
        if _VERSION_RE.search(query[:m.start()]) or _UNIT_RE.match(query, m.end()):
            continue
        found.append((m.start(1), m.group(1)))
    out: list[str] = []
    for _, number in sorted(found):
        number = number.rstrip(".")
        if number not in out:
            out.append(number)
    return out


def without_sections(query: str) -> str:
    """``query`` without the words naming its sections ("the bold item of section 1.3": "the bold item of")."""
    for pattern in (_KIND_RE, _CJK_RE, _PARTS_THEN_CJK_RE):
        query = pattern.sub(" ", query)
    return query


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
            out.append(_cn_number(digits.group(1)) or "" if digits else "")
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


def at_named_section(doc: DocxDocument, loc: Locator, query: str, evidence: str) -> Locator:
    """``loc`` moved under the numbered section ``query`` names when it is under none of them (module
    docstring); ``loc`` itself when the query names none the file's headings carry, or it is under one."""
    numbers = named_sections(query)
    if not numbers or loc.locator_precision != "paragraph" or loc.paragraph_index is None:
        return loc
    section = under(doc, numbers)
    if not section or any(p.index == loc.paragraph_index for p in section):
        return loc
    ev = normalize(evidence)
    body = [p for p in section if p.tokens and not p.heading_level and not p.in_toc]
    quoted = [p for p in body if p.norm.strip() in ev]
    cands = quoted or body or [p for p in section if p.tokens]
    if not cands:
        return loc
    words = _other_words(query)
    total = sum(doc.idf(w) for w in words)
    score = {p.index: sum(doc.idf(w) for w in words & p.tokens) / total if total else 0.0 for p in cands}
    if not quoted and total:
        # outside the passage the section must hold the query's words as well as the passage's place does:
        # a heading trail the file breaks (a heading split over two paragraphs) must not pull the answer away
        here = doc.paragraphs[loc.paragraph_index]
        if max(score.values()) < sum(doc.idf(w) for w in words & here.tokens) / total:
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
    return msgspec.structs.replace(
        loc, locator_degraded=approximate, paragraph_index=pick.index, para_id=pick.para_id,
        highlight=None, locator_reason=reason, reason=reason, place_text=pick.text if pick.text.strip() else None,
        place_headings=list(pick.heading_path), meaning_score=None, runners_up=[behind, *others])
