"""The numbered parts of a document a query names: "section 5.3.2", "clause 4.1", "§ 3.2", "5.3.2节", "第5.3.2条",
"第3章", "раздел 7" (sections), "Article 12", "第十二条" (articles), "table 3", "Tab. 3", "表 3-1" (tables), "Fig. 4",
"figure 4", "图4" (figures); and whether a heading or a paragraph is one.

The numbers a query names as sections (``named_sections``): one of several parts written as such ("6.2.1",
"1.3节", "第5.3.2条"), not after a version word ("version 2.1", "v1.2", "版本 2.1") nor before a unit or percent
("2.5 kg", "3.5%"); or any number after a section's kind word ("section 3", "sections 2 and 3", "§4", "clause 12",
"chapter 2", "раздел 7", "п. 4.2.8", "Abschnitt 2") or in 第…章/节 ("第3章", "第三章"). A date ("02.12.2015") is
none, nor is a bare number ("5 engines"). An article (``named_articles``): "article 12", "art. 12", "第十二条",
"第12条" ("核安全法第十六条" names an article of a law: a file whose paragraph starts "第十六条" holds it, no heading
numbered 16 does). A table (``named_tables``): "table 3", "Tables 2 and 3", "tab. 3", "tbl. 3", "表3", "表 3-1", "表
7.6"; a figure (``named_figures``): "figure 4", "Fig. 4", "fig 4", "图4", "如图 2 所示". A number after such a word is
the table's or figure's, never a section ("table 3.1" names no section 3.1).

Whether a file holds what a query names is the file's to say: ``numbered_as`` reads a heading or a paragraph that
starts with the number ("5.3.2 设计相近核电厂的PSR联合评价", "5.3.2.1 ...", a clause "5.4.1 核电厂定期安全评价的
责任主体为..."; "第十二条 ...", "Article 12. ..."); a number no place starts with names nothing
(``ranking``'s ``section`` part and the DOCX locator move nothing for it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["SectionRef", "caption_of", "cn_number", "named_articles", "named_figures", "named_labels", "named_sections",
           "named_tables", "names_other", "numbered_as", "section_refs", "starts_named", "without_sections"]

_NUMBER = r"\d{1,3}(?:\.\d{1,3})*"
#: A number of several parts ("6.2.1", "1.3."), standing alone: no digit or full stop joined before it, none
#: after it (a date "02.12.2015" has a four-digit part; "1.2,5" is a number, "5.2.1, how often" a section).
_PARTS_RE = re.compile(r"(?<![\d.,])(\d{1,3}(?:\.\d{1,3})+)\.?(?!\d|,\d|\.\d)")
#: A number of several parts with the 节/章/条 after it ("1.3节"), as ``without_sections`` removes it.
_PARTS_THEN_CJK_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{1,3})+\.?(?![\d,]|\.\d)\s*[章节条]?")
_KINDS = (r"sections?|sect\.|sec\.|§+|clauses?|chapters?|paragraphs?|para\.|"
          r"разделы?|раздела|разделе|пункты?|пункта|пункте|п\.|глав[аеы]|abschnitt|kapitel|ziffer")
_KIND_RE = re.compile(rf"(?<![\w-])(?:{_KINDS})\s*(?:no\.|nr\.|№)?\s*({_NUMBER}(?:\s*(?:,|and|or|и|&)\s*{_NUMBER})*)"
                      r"(?![\d%])", re.I)
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_RE = re.compile(r"第\s*(\d{1,3}(?:\.\d{1,3})*|[一二两三四五六七八九十]{1,3})\s*[章节]")
_CN_ARTICLE = r"第\s*(\d{1,3}|[一二两三四五六七八九十百零〇]{1,5})\s*条"
_ARTICLE_RE = re.compile(rf"(?<![\w-])(?:articles?|art\.)\s*(?:no\.)?\s*(\d{{1,3}})(?![\d.%])|{_CN_ARTICLE}", re.I)
#: A table's or figure's number: "3", "3-1", "3.1", "7–2" (compared with its parts joined by ".": ``_label_number``).
_LABEL_NUMBER = r"\d{1,3}(?:[.\-–]\d{1,3})*"
_TABLE_WORDS = r"tables?|tab\.|tbl\.?"
_FIGURE_WORDS = r"figures?|figs?\.?"
#: A Latin label ("table 3", "Tables 2 and 3", "Fig. 4a": the 4) or a Chinese one ("表3", "表 3-1", "图4"); 表 and 图
#: not closing a word of their own (代表, 发表, 报表, 列表, 时间表, 试图, 地图, 意图, 蓝图, 构图, 插图 is one).
_LABEL_RE = re.compile(
    rf"(?<![\w-])(?:(?P<table>{_TABLE_WORDS})|(?P<figure>{_FIGURE_WORDS}))\s*(?:no\.|nr\.)?\s*"
    rf"(?P<n>{_LABEL_NUMBER}(?:[a-z](?![a-z]))?(?:\s*(?:,|and|or|&)\s*{_LABEL_NUMBER})*)(?![\d%]|[.\-–]\d)"
    rf"|(?<![代发报列外填仪登课价间刻程单])(?P<cjk_table>表格?)\s*(?P<cn_t>{_LABEL_NUMBER})(?![\d%]|[.\-–]\d)"
    rf"|(?<![试企意地蓝版构草视])(?P<cjk_figure>[图圖])\s*(?P<cn_f>{_LABEL_NUMBER})(?![\d%]|[.\-–]\d)", re.I)
_LABEL_SEP = re.compile(r"\s*(?:,|and|or|&)\s*", re.I)
#: Words before a number that make it a version, not a section.
_VERSION_RE = re.compile(r"(?<![^\W\d_])(?:version|versions|ver\.?|v|release|rev\.?|python|版本|版)\s*$", re.I)
#: What after a number makes it an amount: a percent, or a unit of measure or money.
_UNIT_RE = re.compile(
    r"\s*(?:%|‰|°|℃|(?:[kmgtµμn]?(?:g|m|l|b|hz|w|v|a|pa|j|s)|mm|cm|km|ml|kg|mg|min|hrs?|h|bar|db|px|pt|x|in|ft|lbs?"
    r"|usd|eur|rub|руб|кг|км|мм|см|м|г|л|млн|тыс)(?![^\W\d_])|元|万|亿|米|吨|克|个|倍|岁|年|月|日|号|版)", re.I)
_FIELD_SEP = re.compile(r"\s*(?:,|and|or|и|&)\s*", re.I)


@dataclass(frozen=True, slots=True)
class SectionRef:
    """One numbered part a query names: ``kind`` ``section`` or ``article``, and its ``number`` in digits."""

    kind: str
    number: str


def cn_number(text: str) -> str | None:
    """A Chinese numeral up to 999 as digits ("三" 3, "十二" 12, "一百零五" 105); digits as they are; else None."""
    if text.isdigit() or "." in text:
        return text
    total, digit = 0, 0
    for c in text:
        if c == "百":
            total, digit = total + (digit or 1) * 100, 0
        elif c == "十":
            total, digit = total + (digit or 1) * 10, 0
        elif c in "零〇":
            digit = 0
        elif c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        else:
            return None
    return str(total + digit) if total + digit else None


def _label_number(number: str) -> str:
    """A table's or figure's number as compared: its parts joined by "." ("3-1", "3–1", "3.1": "3.1"), a letter
    after it dropped ("4a": "4")."""
    return ".".join(re.findall(r"\d+", number))


def _labels(text: str) -> list[tuple[int, int, str, str]]:
    """The tables and figures ``text`` names: ``(start, end, kind, number)`` each, in its order."""
    out = []
    for m in _LABEL_RE.finditer(text):
        kind = "table" if m.group("table") or m.group("cjk_table") else "figure"
        numbers = m.group("n") or m.group("cn_t") or m.group("cn_f")
        out += [(m.start(), m.end(), kind, _label_number(n)) for n in _LABEL_SEP.split(numbers) if n.strip()]
    return out


def named_tables(query: str) -> list[str]:
    """The table numbers ``query`` names ("table 3", "Tab. 3", "表 3-1": "3.1"), in its order, each once."""
    return list(dict.fromkeys(n for _, _, kind, n in _labels(query) if kind == "table"))


def named_figures(query: str) -> list[str]:
    """The figure numbers ``query`` names ("figure 4", "Fig. 4", "图4"), in its order, each once."""
    return list(dict.fromkeys(n for _, _, kind, n in _labels(query) if kind == "figure"))


def named_sections(query: str) -> list[str]:
    """The section numbers ``query`` names, in its order, each once ("6.2.1", "3"; module docstring)."""
    labelled = [(start, end) for start, end, _, _ in _labels(query)]  # "table 3.1" names no section 3.1
    found: list[tuple[int, str]] = []
    for m in _KIND_RE.finditer(query):
        found += [(m.start(1), n) for n in _FIELD_SEP.split(m.group(1)) if n]
    for m in _CJK_RE.finditer(query):
        number = cn_number(m.group(1))
        if number:
            found.append((m.start(1), number))
    for m in _PARTS_RE.finditer(query):
        if _VERSION_RE.search(query[:m.start()]) or _UNIT_RE.match(query, m.end()) \
                or any(start <= m.start(1) < end for start, end in labelled):
            continue
        found.append((m.start(1), m.group(1)))
    out: list[str] = []
    for _, number in sorted(found):
        number = number.rstrip(".")
        if number not in out:
            out.append(number)
    return out


def named_articles(query: str) -> list[str]:
    """The article numbers ``query`` names ("Article 12", "第十二条", "第12条": "12"), in its order, each once."""
    out: list[str] = []
    for m in _ARTICLE_RE.finditer(query):
        number = m.group(1) or cn_number(m.group(2))
        if number and number not in out:
            out.append(number)
    return out


def section_refs(query: str) -> list[SectionRef]:
    """The sections, the articles, the tables, then the figures ``query`` names (``named_sections``,
    ``named_articles``, ``named_tables``, ``named_figures``)."""
    return [*(SectionRef("section", n) for n in named_sections(query)),
            *(SectionRef("article", n) for n in named_articles(query)),
            *(SectionRef("table", n) for n in named_tables(query)),
            *(SectionRef("figure", n) for n in named_figures(query))]


def without_sections(query: str) -> str:
    """``query`` without the words naming its sections ("the bold item of section 1.3": "the bold item of")."""
    for pattern in (_KIND_RE, _CJK_RE, _PARTS_THEN_CJK_RE, _ARTICLE_RE):
        query = pattern.sub(" ", query)
    return query


#: A section number at a text's start: "5.3.2 ", "5.3.2.1\t", "第3章", "3. ЦЕНА".
_LEAD_NUMBER_RE = re.compile(rf"\s*(?:第\s*)?({_NUMBER})\.?(?![\d]|\.\d|[A-Za-z])")
_LEAD_ARTICLE_RE = re.compile(rf"\s*(?:(?:article|art\.)\s*(\d{{1,3}})(?![\d.])|{_CN_ARTICLE})", re.I)


def numbered_as(text: str, ref: SectionRef, *, heading: bool = False) -> bool:
    """Whether ``text`` (a heading when ``heading``, else a paragraph) starts with ``ref``'s number: the section
    itself or one under it ("5.3.2.1" is in 5.3.2, "5.3.21" is not). A paragraph starts a section only with a
    number of several parts ("5.3.2 ..."): "5 engines were ..." is a sentence, "5 总则" a heading."""
    if ref.kind in ("table", "figure"):
        return caption_of(text) == (ref.kind, ref.number)
    if ref.kind == "article":
        m = _LEAD_ARTICLE_RE.match(text)
        return m is not None and (m.group(1) or cn_number(m.group(2) or "")) == ref.number
    m = _LEAD_NUMBER_RE.match(text)
    if m is None or not heading and "." not in m.group(1):
        return False
    number = m.group(1)
    return number == ref.number or number.startswith(ref.number + ".")


def starts_named(refs: Sequence[SectionRef], headings: Iterable[str], place: str) -> bool:
    """Whether a place (its ``headings``, outermost first, and its own words ``place``) is in a part ``refs``
    names: under a heading numbered so, or a paragraph that starts with the number."""
    if not refs:
        return False
    heads = list(headings)
    return any(numbered_as(place, r) or any(numbered_as(h, r, heading=True) for h in heads) for r in refs)


def named_labels(query: str) -> set[tuple[str, str]]:
    """The tables and figures ``query`` names as ``(kind, number)`` (``section_refs`` of kinds table and figure),
    compared with ``caption_of`` of a place."""
    return {(r.kind, r.number) for r in section_refs(query) if r.kind in ("table", "figure")}


def caption_of(text: str) -> tuple[str, str] | None:
    """The table or figure whose label ``text`` starts with (its caption, or a sentence opening on it: "Table 3-1
    summarizes ..."): ``(kind, number)``, else None."""
    head = text.lstrip()[:40]
    labels = _labels(head)
    return (labels[0][2], labels[0][3]) if labels and labels[0][0] == 0 else None


def names_other(refs: Sequence[SectionRef], text: str) -> bool:
    """Whether ``text`` names a table or figure of a kind ``refs`` asks for, and none of the numbers asked of that
    kind: "The fit ... was generally good. Table 2 gives" for "what does table 3 show?" is a place of another table."""
    asked: dict[str, set[str]] = {}
    for r in refs:
        if r.kind in ("table", "figure"):
            asked.setdefault(r.kind, set()).add(r.number)
    if not asked or not text:
        return False
    said: dict[str, set[str]] = {}
    for _, _, kind, number in _labels(text):
        said.setdefault(kind, set()).add(number)
    return any(kind in said and not said[kind] & numbers for kind, numbers in asked.items())
