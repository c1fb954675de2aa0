"""The places a query names: "the notes on slide 2", "page 12", "pp. 4–5", "第二张幻灯片", "the Sales sheet".

A provider returns a small deck or a short report as one passage; the query's own words then say
which slide, page or sheet is meant, and the locators (PPTX, PDF, XLSX) put the citation there.
``named_places`` reads them once, for every locator, in English and Chinese (and the kind words of
a few other languages: "Folie 2", "Seite 12", "diapositive 3"):

* a kind word, then numbers: ``slide 2``, ``slide #2``, ``slides 2-3``, ``slides 2 and 3``,
  ``page 12``, ``p. 12``, ``pp. 4–5``, ``pages 4 to 5``, ``page twelve``, ``sheet 2``;
* an ordinal, then a kind word: ``the second slide``, ``the 2nd page``, ``the last slide``,
  ``the first three pages``;
* Chinese: ``第2页``, ``第二张幻灯片``, ``第4至5页``, ``幻灯片3``, ``最后一页``, ``第2个工作表``;
* a sheet's name: quoted (``sheet 'Sales'``, ``the "Sales" tab``), or unquoted beside the kind word
  (``on the Sales sheet``, ``sheet Sales``, ``工作表 Sales``, ``销售工作表``): the words written there
  are kept (``before``, ``after``) and ``NamedPlace.named`` finds the file's sheet names among them,
  since only the file knows where a name ends.

A number is a place only beside a kind word in one of those shapes: "2 slides of cake", "a 10-page
report", "page count", "version 2", "共20页" and "第2版" name none. Weak words need their shape: "p."/"pp."
lowercase after a space or "(" ("Mr. P. 12 Smith" names no page); "tab" names a sheet only as an ordinal or
beside a name ("the second tab", "the Sales tab", "tab 'Sales'"), never "tab 3" ("press tab 3 times"); after
幻灯片/工作表 a Chinese numeral needs 第 (幻灯片第二张), arabic digits do not (幻灯片3, 工作表2): "一共", "一开始",
"两个", "一览", "十张" right after the noun are words and counts, no place. A range names at most its first
``MAX_RANGE`` numbers, and is never counted out beyond them. A bare number before "sheet" ("2024 sheet")
names only a sheet called exactly that (``NamedPlace.named``). Whether the named slide or page
exists is the file's to say (``NamedPlace.numbered``); a locator whose file lacks it behaves as if
nothing were named.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mnote_kr.citations.text.sections import cn_number
from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["MAX_RANGE", "NamedPlace", "asked_of_place", "asks_for_place", "named_places", "naming",
           "without_file_description", "without_places"]

#: Numbers one query's list or ranges name at most: "pages 1-300" names its first 50, and a wider range is
#: never counted out beyond them ("slides 1-99999" reads 50 numbers, not 99999).
MAX_RANGE = 50

_KINDS = {
    "slide": "slides? folie[n]? diapositivas? diapositives?",
    "page": "pages? pgs?\\.? (?<![^\\s(\\[])(?-i:pp?\\.) seiten? páginas? paginas?",
    "sheet": "sheets? worksheets? tabellenbl(?:a|ä)tt(?:er)? bl(?:a|ä)tt(?:er)? feuilles? hojas?",
}
_KIND_OF = [(kind, re.compile(rf"(?:{'|'.join(words.split())})\Z", re.I)) for kind, words in _KINDS.items()]
_KIND = "|".join(w for words in _KINDS.values() for w in words.split())
#: Cardinal words after a kind word ("slide two"), and ordinals before one ("the second slide").
_CARDINALS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
              "seventeen eighteen nineteen twenty").split()
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
             "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
_WORD_VALUE = {w: i + 1 for i, w in enumerate(_CARDINALS)} | {w: i + 1 for i, w in enumerate(_ORDINALS)} | {
    "last": -1, "final": -1}
_NUM = rf"(?:\d{{1,5}}(?!\.\d|,\d{{3}}(?!\d))|{'|'.join(_CARDINALS)})"
_TO = r"\s*(?:-|–|—|~|to|through|thru|until)\s*"
_AND = r"\s*(?:,|&|\band\b|\bor\b)\s*"
_NUMS = rf"{_NUM}(?:(?:{_TO}|{_AND}){_NUM})*"
#: "slide 2", "slides #2-3", "p. 12", "sheet no. 2": a kind word, then numbers.
_AFTER_RE = lazy_compile(
    rf"(?<![\w-])(?P<kind>{_KIND})\s*(?:#|no\.|nr\.|number\b|n°)?\s*(?P<nums>{_NUMS})(?![\w%-])", re.I)
_ORD = rf"(?:{'|'.join(_ORDINALS)}|last|final|\d{{1,4}}(?:st|nd|rd|th))"
#: "the second slide", "2nd page", "the last slide", "the first three pages".
_BEFORE_RE = lazy_compile(
    rf"(?<![\w-])(?P<ord>{_ORD})(?:\s+(?P<count>{_NUM}))?\s+(?P<kind>slides?|pages?|sheets?|worksheets?|tabs?)\b",
    re.I)
_OPEN, _CLOSE = "'\"‘“«「『", "'\"’”»」』"
_QUOTED = rf"[{_OPEN}](?P<name>[^{_OPEN}{_CLOSE}\n]{{1,80}})[{_CLOSE}]"
_SHEET = r"(?:work)?sheets?|tabs?|工作表"
#: "sheet 'Sales'", "the sheet called “Q1”", "工作表「销售」"
_QUOTED_AFTER_RE = lazy_compile(rf"(?<![A-Za-z0-9])(?:{_SHEET})\s*(?:named|called|titled)?\s*[:=]?\s*{_QUOTED}", re.I)
#: "the 'Sales' sheet", "“销售”工作表"
_QUOTED_BEFORE_RE = lazy_compile(rf"{_QUOTED}\s*(?:{_SHEET})(?![A-Za-z0-9])", re.I)
#: A sheet's kind word standing alone: the names beside it are the file's to find ("on the Sales sheet",
#: "sheet Sales", "工作表 Sales", "销售工作表").
_SHEET_WORD_RE = lazy_compile(
    r"(?<![A-Za-z0-9])(?:work)?sheets?(?![A-Za-z0-9])|(?<![A-Za-z0-9])tabs?(?![A-Za-z0-9])|工作表", re.I)
_CALLED_RE = lazy_compile(r"\s*(?:(?:named|called|titled)\s+)?[:=]?\s*", re.I)
#: Characters of the query read on either side of a sheet's kind word for its name.
NAME_CHARS = 60

#: "of the report", "in this deck", "的": words after a mention naming the file itself, taken out with it.
_OF_DOCUMENT_RE = lazy_compile(
    r"\s*(?:(?:of|in|from)\s+(?:the|this|that|my|our|your)?\s*(?:report|document|doc|file|pdf|paper|article|deck|"
    r"presentation|slideshow|book|manual|handbook|brochure|thesis)\b|(?:的)?(?:报告|文档|文件|演示文稿|幻灯片)?里?的?)",
    re.I)

# Chinese: 第2页, 第二张幻灯片, 第4至5页, 第2、3页, 第3个工作表, 幻灯片3, 最后一页
_CN_DIGITS = "零〇一二两三四五六七八九十百"
_CN_NUM = rf"(?:\d{{1,5}}|[{_CN_DIGITS}]{{1,5}})"
_CN_NUMS = rf"{_CN_NUM}(?:\s*(?:-|–|—|~|至|到|、|和|,|，)\s*第?\s*{_CN_NUM})*"
_CN_ORDINAL_RE = lazy_compile(
    rf"第\s*(?P<nums>{_CN_NUMS})\s*(?:(?P<page>页|頁)(?P<slide1>幻灯片|投影片)?|[张張]\s*(?P<slide2>幻灯片|投影片)"
    rf"|(?:[个個张張])?\s*(?P<sheet>工作表))")
_AR_NUMS = r"\d{1,5}(?:\s*(?:-|–|—|~|至|到|、|和|,|，)\s*第?\s*\d{1,5})*"
#: 幻灯片3, 工作表2, 幻灯片第二张: a Chinese numeral right after the kind word counts ("幻灯片十张", "一共",
#: "两个", "一览") and names no place; only 第 or arabic digits make one.
_CN_AFTER_RE = lazy_compile(
    rf"(?P<kind>幻灯片|投影片|工作表)\s*(?:第\s*(?P<nums>{_CN_NUMS})|(?P<digits>{_AR_NUMS}))(?![\d{_CN_DIGITS}])"
    r"\s*(?:页|頁|张|張)?")
_CN_LAST_RE = lazy_compile(
    r"最后\s*一\s*(?:(?P<page>页|頁)|[张張]\s*(?P<slide>幻灯片|投影片)|(?:[个個张張])\s*(?P<sheet>工作表))")


@dataclass(frozen=True, slots=True)
class NamedPlace:
    """One place a query names: its ``kind`` (``slide``, ``page`` or ``sheet``) and the numbers
    (1-based; negative from the end: -1 is the last) or, for a sheet, the names it gives.

    ``names`` are quoted names, exact; ``before`` and ``after`` the words written just before and
    after a sheet's kind word (unquoted: where a name ends is the file's to say, ``named``).
    ``start``/``end`` are the span of the mention in ``named_places``' text (the query NFKC-normalised).
    """

    kind: str
    numbers: tuple[int, ...] = ()
    names: tuple[str, ...] = ()
    before: str = ""
    after: str = ""
    start: int = 0
    end: int = 0

    def numbered(self, count: int) -> list[int]:
        """The numbers (1-based) that name one of a file's ``count`` slides, pages or sheets, in order."""
        out: list[int] = []
        for n in self.numbers:
            k = count + 1 + n if n < 0 else n
            if 1 <= k <= count and k not in out:
                out.append(k)
        return out

    def named(self, names: Sequence[str]) -> list[str]:
        """The file's ``names`` (its sheets) this place names, the longest first: a quoted name as
        written, or a name standing at the end of ``before`` or the start of ``after`` (case and
        spacing aside), not inside a longer word."""
        out = []
        for name in names:
            key = _fold(name)
            if not key:
                continue
            said = any(_fold(n) == key for n in self.names)
            pre, post = _fold(self.before), _fold(self.after)
            said = said or pre.endswith(key) and not _glued(pre[-len(key) - 1: -len(key)], key[0])
            said = said or post.startswith(key) and not _glued(post[len(key): len(key) + 1], key[-1])
            if said:
                out.append(name)
        return sorted(out, key=lambda n: -len(_fold(n)))


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _glued(neighbour: str, edge: str) -> bool:
    """Whether a name's ``edge`` character runs on into ``neighbour`` as one Latin word would."""
    return bool(neighbour) and (neighbour.isalnum() and neighbour.isascii() and edge.isascii() and edge.isalnum())


def _value(word: str) -> int | None:
    w = word.lower()
    if w.isdigit():
        return int(w)
    if w in _WORD_VALUE:
        return _WORD_VALUE[w]
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", w)
    return int(m.group(1)) if m else _cn_value(word)


def _cn_value(word: str) -> int | None:
    """A Chinese numeral up to 999 (十二, 二十, 一百零五), else None (``sections.cn_number`` reads it)."""
    if not word or any(c not in _CN_DIGITS for c in word):
        return None
    number = cn_number(word)
    return int(number) if number else None


def _numbers(text: str) -> tuple[int, ...]:
    """The numbers a list or ranges name ("2-3", "2, 3 and 5", "4至5", "二、三"), at most ``MAX_RANGE``."""
    parts = re.split(r"(\s*(?:-|–|—|~|至|到|to|through|thru|until)\s*第?\s*|\s*(?:,|，|、|&|和|and|or)\s*第?\s*)",
                     text.strip(), flags=re.I)
    out: list[int] = []
    seen: set[int] = set()
    prev: int | None = None
    ranged = False
    for part in parts:
        if len(out) >= MAX_RANGE:
            break
        if not part.strip() or re.fullmatch(r"[\s,，、&]*", part):
            continue
        if re.fullmatch(r"\s*(?:-|–|—|~|至|到|to|through|thru|until)\s*第?\s*", part, re.I):
            ranged = True
            continue
        if re.fullmatch(r"\s*(?:,|，|、|&|和|and|or)\s*第?\s*", part, re.I):
            continue
        n = _value(part.strip())
        if n is None:
            continue
        lo, hi = sorted((prev, n)) if ranged and prev is not None else (n, n)
        # a range wider than the cap: its first MAX_RANGE numbers at most, never counted out beyond them
        for k in range(lo, min(hi, lo + MAX_RANGE - 1) + 1):
            if len(out) >= MAX_RANGE:
                break
            if k not in seen:
                seen.add(k)
                out.append(k)
        prev, ranged = n, False
    return tuple(out[:MAX_RANGE])


def _kind(word: str) -> str:
    for kind, pattern in _KIND_OF:
        if pattern.match(word):
            return kind
    if word == "工作表" or word[:3].lower() == "tab":
        return "sheet"
    return "slide" if word in ("幻灯片", "投影片") else "page"


def named_places(query: str) -> list[NamedPlace]:
    """The slides, pages and sheets ``query`` names, in the order it names them (see the module)."""
    return list(_parse(unicodedata.normalize("NFKC", query or "")))


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> tuple[NamedPlace, ...]:
    """``named_places`` of an NFKC-normalised query: read once per query, not for every passage."""
    found: list[NamedPlace] = []

    def add(place: NamedPlace) -> None:
        of = _OF_DOCUMENT_RE.match(text, place.end)  # "page 3 of the report": the report is the file itself
        if of and place.kind != "sheet":
            place = dataclasses.replace(place, end=of.end())
        if (place.numbers or place.names or place.before or place.after) and not any(
                p.start < place.end and place.start < p.end for p in found):
            found.append(place)

    for m in _CN_ORDINAL_RE.finditer(text):
        kind = "sheet" if m.group("sheet") else "slide" if m.group("slide1") or m.group("slide2") else "page"
        add(NamedPlace(kind, _numbers(m.group("nums")), start=m.start(), end=m.end()))
    for m in _CN_AFTER_RE.finditer(text):
        add(NamedPlace(_kind(m.group("kind")), _numbers(m.group("nums") or m.group("digits")),
                       start=m.start(), end=m.end()))
    for m in _CN_LAST_RE.finditer(text):
        kind = "sheet" if m.group("sheet") else "slide" if m.group("slide") else "page"
        add(NamedPlace(kind, (-1,), start=m.start(), end=m.end()))
    for m in _AFTER_RE.finditer(text):
        kind = _kind(m.group("kind"))
        # "Sheet1", "Sheet 2": Excel's own names as often as numbers; the file says which
        add(NamedPlace(kind, _numbers(m.group("nums")), names=(m.group(),) if kind == "sheet" else (),
                       start=m.start(), end=m.end()))
    for m in _BEFORE_RE.finditer(text):
        first = _value(m.group("ord"))
        count = _value(m.group("count")) if m.group("count") else None
        if first is None:
            continue
        if count is None:
            numbers: tuple[int, ...] = (first,)
        elif first == 1 and m.group("ord").lower() == "first":  # the first three pages
            numbers = tuple(range(1, min(count, MAX_RANGE) + 1))
        elif first == -1:  # the last two slides
            numbers = tuple(range(-min(count, MAX_RANGE), 0))
        else:
            continue
        add(NamedPlace(_kind(m.group("kind")), numbers, start=m.start(), end=m.end()))
    for pattern in (_QUOTED_AFTER_RE, _QUOTED_BEFORE_RE):
        for m in pattern.finditer(text):
            add(NamedPlace("sheet", names=(m.group("name").strip(),), start=m.start(), end=m.end()))
    for m in _SHEET_WORD_RE.finditer(text):
        word = m.group()
        if word[-1:] in "sS":  # "2 sheets of paper", "the tabs": a plural names no one sheet
            continue
        called = _CALLED_RE.match(text, m.end())
        after = text[called.end() if called else m.end():][:NAME_CHARS]
        # an English name after the word is written as one ("sheet Sales", "sheet Q1"): "sheet metal" is none
        # "tab" takes no name after it ("press tab 3 times"): "the Sales tab", "tab 'Sales'" do
        spelled = after[:1].isupper() or after[:1].isdigit() or called and called.group().strip()
        if word[:1] in "tT" or not (word == "工作表" or spelled):
            after = ""
        add(NamedPlace("sheet", before=text[max(0, m.start() - NAME_CHARS):m.start()], after=after,
                       start=m.start(), end=m.end()))
    return tuple(sorted(found, key=lambda p: p.start))


def without_places(query: str, places: Sequence[NamedPlace] | None = None) -> str:
    """``query`` (NFKC-normalised) with the mentions of its named slides and pages taken out (their kind
    word and numbers: "what do the notes on slide 2 say" -> "what do the notes on say"): the words left
    choose among the named place's shapes. A sheet's unquoted name stays (only the file knows its extent)."""
    text = unicodedata.normalize("NFKC", query or "")
    for place in sorted(named_places(text) if places is None else places, key=lambda p: -p.start):
        text = text[:place.start] + " " + text[place.end:]
    return " ".join(text.split())


#: Nouns for a whole file: "slide 2 of the duck survey deck", "the third sheet of the emf workbook".
_FILE_NOUNS = "decks? presentations? slideshows? workbooks? spreadsheets? files? documents? docs? reports? pdfs?"
_DESCRIBED_RE = lazy_compile(
    r"(?<![\w])(?:of|in|from)\s+(?:the|this|that|my|our|your)\s+((?:[^\W_][\w'-]*\s+){1,4}?)"
    rf"(?:{'|'.join(_FILE_NOUNS.split())})(?![\w])", re.I)


def without_file_description(query: str) -> str:
    """``query`` without a phrase that says which file it means ("of the duck survey deck", "in the emf
    workbook"): those words describe the file (its title, its name), not what a slide or sheet the query
    names must hold, so they make no named place approximate. The query itself when it has no such phrase."""
    text = _DESCRIBED_RE.sub(" ", query or "")
    return " ".join(text.split())


def naming(places: Sequence[NamedPlace], *, slide: int | None = None, page: int | None = None,
           sheet: str | None = None) -> str | None:
    """How a query's ``places`` name a citation's place (a deck's ``slide``, else a PDF's ``page``; a workbook's
    ``sheet``): ``"exact"`` when one names it by its kind (a slide as a slide, a page as a page, a sheet by its
    name), ``"page"`` when one names a deck's slide as a page ("page 3" for slide 3: people call a slide that
    too, and the PPTX locator reads it so), else None. A PDF's page is no slide. A number counted from the end
    ("the last slide") is the locator's to read: the file's count is not known here."""
    found = None
    for place in places:
        if place.kind == "sheet":
            if sheet is not None and place.named([sheet]):
                return "exact"
        elif slide is not None:
            if slide in place.numbers:
                if place.kind == "slide":
                    return "exact"
                found = "page"
        elif page is not None and place.kind == "page" and page in place.numbers:
            return "exact"
    return found


#: Words asking for a named place as a whole ("what does page 3 say", "summarize slide 2", "slide 2 contents"),
#: or naming one ("section 7 Foo on p. 3": its heading holds "Foo", not "section"): no content the place must
#: hold. A stem of one (a locator's: "summariz") is one too.
PLACE_ASKING = frozenset("""say says said show shows shown showing contain contains content contents summary
summarize summarise overview text texts written write writes mean means describe describes cover covers
present presents discuss discusses display displays there main point points info information detail details
see look appear appears slide slides page pages sheet sheets section sections chapter chapters heading headings
clause clauses 总结 概述 概括 摘要 要点 大意 讲述 描述 显示 展示""".split())


def asked_of_place(words: Collection[str], in_file: Collection[str], query: str = "") -> set[str]:
    """Of a query's other words (its named places, scaffolding and file description aside), those a place it
    names must hold to be cited there exactly: every word the file holds, a Latin word it does not, save those
    asking for the place as a whole (``PLACE_ASKING``), and each Chinese word of ``query`` (the query without
    its places) by the dictionary none of whose bigrams the file holds (``cjkwords.absent_words``, as the
    locators weigh them), when ``words`` holds it or a bigram of it. A CJK bigram the file lacks is no content
    asked by itself ("第3页讲了什么": 讲了, 了什 are cuts across function characters), a dictionary word is
    ("第2页关于遗传性卵巢癌说了什么" over a chemistry PDF asks for 遗传性, 卵巢); a Latin word is: "what was the
    Q3 value on slide 2" asks for Q3 in a deck holding none, whose slide 2 is not cited exactly for it (r19:
    another deck's slide 2 chart held "Q3: 30")."""
    from mnote_kr.citations.text.cjkwords import absent_words

    asked = {w for w in words if w in in_file or (w.isascii() and any(c.isalnum() for c in w)
                                                  and not asks_for_place(w))}
    if not query:
        return asked
    given = set(words)  # a word the caller set aside (a file's description, a kind word) stays aside
    return asked | {w for w in absent_words(query, in_file) if not asks_for_place(w)
                    and (w in given or any(w[i:i + 2] in given for i in range(len(w) - 1)))}


def asks_for_place(word: str) -> bool:
    """Whether ``word`` (a folded term, or a stem of one) asks for a named place as a whole (``PLACE_ASKING``)."""
    return word in PLACE_ASKING or len(word) >= 4 and any(a.startswith(word) for a in PLACE_ASKING)
