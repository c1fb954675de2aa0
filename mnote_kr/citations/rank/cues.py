"""Two signals a search engine reads beside the query's words: what kind of passage this is, and
what kind of answer the question asks for.

* **Apparatus** (:func:`is_apparatus`): a passage that lists sources or points elsewhere (a
  reference list or bibliography, "See also", "External links", "Further reading", a table of
  contents, 参考文献, 目录) holds the query's words (titles of cited works, names of related
  articles) without stating anything about them, so it rarely answers. Known by the section it
  sits in (its heading path) or by its text: reference-entry markers ("Retrieved 27 June 2022",
  "Archived from the original", ISBN, doi, "In Proceedings of", "pages 1-12", "[12] C. Garrett",
  ``[J].``) packed densely, or table-of-contents lines (a title, dot leaders, a page number).
  In-text citations of prose ("(Chen et al., 2017)") are not markers.
* **Notice** (:func:`is_notice`): the document's notice to its reader about itself (a
  disclaimer, a legal, copyright or analyst statement: 免责声明, 法律声明, "本报告仅向特定客户
  传送", "不构成投资建议", "All rights reserved", "Permission to make digital or hard copies")
  speaks of the document and its reader in words any question may hold (客户, 任何, 本报告),
  and answers no question about the content. Known by its section heading or by two distinct
  notice markers, as densely packed as reference markers; a pointer to the notice (the running
  footer "请务必阅读正文之后的信息披露和法律声明") is no marker.
* **Answer type** (:func:`answer_types`, :func:`type_counts`): the question word says what the
  answering passage holds. "when", "what year", 何时, 什么时候 → a year or date (a decade or a century too: "the
  1960s", 20世纪60年代); "how many
  engines", 多少架 → a number followed by that noun or classifier; "how much ... cost", 多少钱 →
  an amount of money; "what share", 比例 → a percentage; "how often", 多久一次, 每隔多久, 频率 → a
  frequency ("every 10 years", 每10年, 2次/年, "annually"); "how long", 持续多久, "how far", "how big", 多久,
  多远, 多大 → a number with a unit of time, length or size; "how fast", 多快, 速度 → a speed or rate ("40 words per
  minute", "120 km/h", 每分钟40字). ``ranking.bm25`` counts each type
  the question asks for as one more query term, present in a passage where the pattern occurs:
  weighted by its rarity among the passages of the search like any word (a year in every
  passage decides nothing). The classic "predictive annotation" of question answering.

Pure: no I/O. Only ASCII and explicitly listed CJK characters in the patterns (no CJK range
class), each compiled at its first use (``textnorm.lazy_compile``): a search compiles the
question patterns and those of the types it asks for, not all of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["APPARATUS_HEADINGS", "NOTICE_HEADINGS", "answer_types", "holds_count_across", "holds_type", "is_apparatus",
           "is_notice", "type_counts", "type_figures", "without_asking"]

# --------------------------------------------------------------------------- apparatus

#: Section headings whose content lists sources or points elsewhere (compared folded, without
#: numbering and a trailing colon).
APPARATUS_HEADINGS = frozenset(
    name.strip()
    for name in """references|reference list|bibliography|works cited|literature cited|sources|citations|
    notes|footnotes|endnotes|notes and references|see also|external links|further reading|related articles|
    contents|table of contents|index|参考文献|参考资料|引用|注释|延伸阅读|外部链接|相关条目|参见|目录|索引""".split("|")
)
#: A heading's number (a DOCX heading path shows Word's: "3.1", "第5章", "附录A", "一、", "Chapter 2").
_HEADING_NUMBER_RE = lazy_compile(
    r"^(?:第[\d一二三四五六七八九十百零〇]+[章节篇部条]|(?:chapter|section|part|appendix|annex)\s+[\da-z]{1,4}\b[.:]?"
    r"|附\s*录\s*[\da-z]{1,3}|[一二三四五六七八九十]+(?=[、.．\s]))?[\s\d.、)）(（ivxIVX]*\s*|[\s:：]+$")
#: Reference-entry markers (see the module docstring); each matches once per entry at most.
#: Words first (run only when one of ``_MARKER_WORDS`` is in the text), then the bracketed ones.
_REFERENCE_WORDS_RE = lazy_compile(
    r"""\bretrieved\s+(?:on\s+)?(?:\d{1,2}\s+[a-z]+\s+\d{4}|[a-z]+\s+\d{1,2},\s+\d{4})
    |\barchived\s+(?:\(pdf\)\s+)?from\s+the\s+original\b
    |\bisbn(?:-1[03])?:?\s*[\dx][\d\s-]{8,}
    |\bdoi:\s*10\.\d{4,}|\bdoi\.org/10\.\d{4,}
    |\bissn:?\s*\d{4}-\d{3}[\dx]|\bs2cid\s+\d|\bpmid\s+\d|\barxiv:\s*\d{4}\.\d{4}
    |\bin\s+proceedings\s+of\b|\bproc\.\s+of\b
    |\bpages\s+\d+\s*[–-]\s*\d+|\bpp\.\s*\d+\s*[–-]\s*\d+""",
    re.X,
)
_MARKER_WORDS = ("retrieved", "archived", "isbn", "doi", "issn", "s2cid", "pmid", "arxiv", "proc", "pages", "pp.")
#: A numbered entry at a line start ("[12] C. Garrett"), a GB/T 7714 type code ("[J]." "[M],").
_REFERENCE_BRACKETS_RE = lazy_compile(r"^[ \t]*\[\d{1,3}\][ \t]+\S|\[[jmcdrsnpz]\][ \t]*[.,．，]", re.M)
#: A table-of-contents line: a title, dot leaders (or a run of spaces), a page number at the end.
_TOC_LINE_RE = lazy_compile(r"^.{2,80}?(?:\.{3,}|…{2,}|·{3,}|[ \t]{3})[ \t.…·]*\d{1,4}[ \t]*$", re.M)
#: A contents line of a manual numbered by chapter and page, the page glued to its title's last
#: letter as a DOCX parser gives it without the tab ("CLASSIFICATION OF CLAIMS3-24"). Glued to a
#: Latin letter only: a range after a space ("aged 5-12", "Arsenal 2-1") or after Chinese text
#: ("范围为20-30") is a value.
_CHAPTER_PAGE_LINE_RE = lazy_compile(r"^.{2,80}?[A-Za-z]\d{1,2}[-–]\d{1,3}[ \t]*$", re.M)
#: Reference markers per this many characters from which a passage is a reference list.
MARKER_SPACING = 250
MIN_MARKERS = 2


def _heading_key(heading: str) -> str:
    return _HEADING_NUMBER_RE.sub("", heading.strip().casefold()).strip()


def is_apparatus(text: str, heading_path: Sequence[str] = ()) -> bool:
    """Is this passage a list of sources or pointers (references, see also, contents)?"""
    if any(_heading_key(h) in APPARATUS_HEADINGS for h in heading_path):
        return True
    if not text:
        return False
    folded = text.casefold()
    markers = len(_REFERENCE_WORDS_RE.findall(folded)) if any(w in folded for w in _MARKER_WORDS) else 0
    if "[" in folded:
        markers += len(_REFERENCE_BRACKETS_RE.findall(folded))
    if markers >= MIN_MARKERS and markers * MARKER_SPACING >= len(text.strip()):
        return True
    chapter_pages = len(_CHAPTER_PAGE_LINE_RE.findall(text)) if "-" in text or "–" in text else 0
    if not chapter_pages and not any(leader in text for leader in ("...", "…", "··", "   ")):
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= 3 and (len(_TOC_LINE_RE.findall(text)) + chapter_pages) * 2 >= len(lines)


# --------------------------------------------------------------------------- notices

#: Section headings of a document's notice to its reader (compared as ``APPARATUS_HEADINGS``).
NOTICE_HEADINGS = frozenset(
    name.strip()
    for name in """disclaimer|disclaimers|legal notice|legal notices|important notice|copyright notice|
    免责声明|免责条款|法律声明|重要声明|特别声明|版权声明|分析师声明""".split("|")
)
#: Notice markers: phrases of a document's notice to its reader about itself. Clauses that a
#: contract's own content uses ("shall not be liable", "without prior written consent") are left
#: out: a contract's clauses answer questions.
_NOTICE_RE = lazy_compile(
    r"""不构成(?:对任何人的)?(?:任何)?投资建议|投资需谨慎|仅(?:向|供)[^，。；\n]{0,30}客户|不得以任何(?:方式|形式)
    |未经[^，。；\n]{0,16}(?:授权|许可)|不对任何人[^。；\n]{0,40}(?:损失|责任)|版权所有|特此声明
    |不保证[^。；\n]{0,16}(?:准确|完整)|免责声明|法律声明|分析师声明|投资评级说明
    |\bdisclaimers?\b|\ball\s+rights\s+reserved|\bcopyright\s*(?:©|\(c\)|\d{4})|©\s*\d{4}
    |\bpermission\s+to\s+make\s+digital\s+or\s+hard\s+copies|\bnot\s+constitute\s+(?:[a-z]+\s+){0,3}advice
    |\bfor\s+(?:general\s+)?information(?:al)?\s+purposes\s+only|\bprovided\s+["“]?as\s+is\b""",
    re.X,
)
#: One of these in the text before the notice markers are looked for.
_NOTICE_WORDS = ("声明", "建议", "谨慎", "客户", "任何", "授权", "许可", "版权", "保证", "disclaim", "rights",
                 "copyright", "©", "permission", "constitute", "purposes", "as is")
#: A pointer to the notice ("请务必阅读正文之后的信息披露和法律声明", "see the disclaimer at the end"):
#: a running footer of every page, not the notice itself.
_NOTICE_POINTER_RE = lazy_compile(
    r"请(?:务必)?(?:阅读|参阅|参见|查阅)[^。；\n]{0,24}声明"
    r"|\b(?:see|read|refer\s+to)\s+(?:the\s+)?(?:important\s+)?(?:disclaimers?|disclosures?|legal\s+notices?)\b"
)


def is_notice(text: str, heading_path: Sequence[str] = ()) -> bool:
    """Is this passage the document's notice to its reader (a disclaimer, a legal, copyright or
    analyst statement)?

    Distinct markers: Elsevier prints "All rights reserved" twice under an abstract, and one
    notice phrase beside a paper's first-page content is no notice."""
    if any(_heading_key(h) in NOTICE_HEADINGS for h in heading_path):
        return True
    folded = text.casefold()
    if not any(w in folded for w in _NOTICE_WORDS):
        return False
    found = set(_NOTICE_RE.findall(_NOTICE_POINTER_RE.sub(" ", folded)))
    return len(found) >= MIN_MARKERS and len(found) * MARKER_SPACING >= len(text.strip())


# --------------------------------------------------------------------------- answer types

#: (A number starts where no digit, comma or dot stands before it: unanchored, every position
#: inside a long run of digits rescanned to its end, quadratic on a CSV chunk.)
_NUM = (r"(?:(?<![\d,.])\d[\d,.]*|\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
        r"(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|"
        r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|hundred|thousand|million|"
        r"billion|dozen)\b|(?:[二两三四五六七八九十百千万亿]|一(?=[十百千万亿]))[一二两三四五六七八九十百千万亿]*)")
#: A number written in Chinese numerals ("十", "两", "二十五"; 一 only before a unit of ten: "一年" is also "a year").
_CJK_NUM = r"(?:[二两三四五六七八九十百千万亿]|一(?=[十百千万亿]))[一二两三四五六七八九十百千万亿]*"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
#: A decade in words ("the sixties"; "in their sixties" is an age: the decade is "the" one).
_DECADE_WORDS = "(?:twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)"
#: A century's ordinal in words ("the nineteenth century", "the twenty-first century").
_ORDINAL_WORDS = ("(?:(?:twenty|thirty)-?\\s*)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
                  "|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth"
                  "|twentieth)")

_QUESTION_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date", lazy_compile(
        r"^\s*when\b|\bwhen\s+(?:did|was|were|is|does|do|will|has|had|can)\b|\bsince\s+when\b"
        r"|\b(?:what|which)\s+(?:year|date|month|day|decade|century)\b|\bhow\s+long\s+ago\b"
        r"|何时|什么时候|什么时间|哪一?年|哪个月|几月|哪一?天|几号|几时|多会儿|(?:哪个|什么)(?:年代|世纪)"
        # a deadline asked by its name (提交截止时间, "the submission deadline") is a date too
        r"|截止(?:时间|日期)|\bdeadline\b|\bdue\s+date\b")),
    ("money", lazy_compile(
        r"\bhow\s+much\b.*\b(?:cost|costs|spend|spent|pay|paid|price|priced|worth|charge|charged|invest|invested)\b"
        # "what is the price / cost" is a quantity named (``_named``: not "the cost centre")
        r"|\bwhat\s+(?:does|did|do|will)\s+\w+(?:\s+\w+)?\s+cost\b"
        r"|多少钱|花多少|值多少|价格|价钱|金额|费用|成本|投资多少|多少资金")),
    ("percent", lazy_compile(
        r"\bwhat\s+(?:percentage|percent|share|proportion|fraction|ratio)\b|\bhow\s+much\s+of\b|\bwhat\s+rate\b"
        r"|比例|比重|占比|百分之|百分比|几成")),
    ("frequency", lazy_compile(r"\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\s+(?:a|per|each|every)\s+"
                               r"(?:year|month|week|day)\b|\bat\s+what\s+(?:interval|frequency)\b"
                               r"|多久(?:\S{0,6})一次|每隔多久|多长时间(?:\S{0,6})一次|频率|频次|几年一次|多少年一次"
                               # a 周期 asked (检查周期是多少) is how often (每年一次) or how long a turn takes
                               # (检测周期: 15个工作日): either answers, so it asks both
                               r"|周期(?:是|为|有)?(?:多少|多久|多长|几)")),
    ("duration", lazy_compile(r"\bhow\s+long\b(?!\s+ago)|多久|多长时间|几天|几年|几个月|多少年|多少天|多少小时"
                              r"|持续(?:多|几|时间)|周期(?:是|为|有)?(?:多少|多久|多长|几)"
                              r"|(?:期限|时限|工期|有效期)(?:是|为|有)?(?:多少|多久|多长|几)")),
    ("distance", lazy_compile(r"\bhow\s+(?:far|tall|high|wide|deep)\b|多远|多高|多宽|多深|多长(?!时间)")),
    ("size", lazy_compile(r"\bhow\s+(?:big|large|heavy|much\s+memory|much\s+space)\b|多大|多重")),
    ("speed", lazy_compile(r"\bhow\s+(?:fast|quickly)\b|\b(?:at\s+)?what\s+(?:speed|velocity|pace)\b"
                         r"|\bhow\s+many\s+\w+\s+(?:per|a|an|each)\s+(?:second|minute|hour)\b|多快|速度|速率|每分钟多少|每秒多少")),
    ("ratio", lazy_compile(r"\bhow\s+much\s+(?:faster|slower|better|worse|more|less|larger|smaller|higher|lower)\b"
                         r"|快多少|提高多少|提升多少|几倍|多少倍")),
)
#: "how many X" / 多少X / 几X: a count of X. 哪几X asks which X (哪几类: a list of kinds, as 哪些 does),
#: 好几 is "several" and 十几 "a dozen or so": none asks how many.
_COUNT_RE = lazy_compile(r"\bhow\s+many\s+(?:of\s+the\s+)?([a-z]+)|(?:多少|(?<![好十哪])几)([^\s，。？?、的]?)")


def _units(latin: str, cjk: str = "") -> str:
    """A number followed by a unit: a Latin unit is a whole word, a CJK unit follows directly."""
    alts = [rf"(?:{latin})(?![a-z])"] + ([f"(?:{cjk})"] if cjk else [])
    return rf"{_NUM}\s*(?:{'|'.join(alts)})"


_PASSAGE_TYPES: dict[str, re.Pattern[str]] = {
    # a decade or a century answers "when" too ("in the 1960s", "the early 1990s", "the '60s", "the sixties", "the 15th
    # century", 1960年代 and 20世纪60年代 by their 年, 19世纪, 十八世纪): nc26b Q4, ELIZA "created ... in the 1960s"
    "date": lazy_compile(
        rf"\b(?:1[0-9]|20)\d{{2}}(?:['’]?s)?\b|\d{{1,4}}\s*年|\d{{1,2}}\s*[月日号]|\b(?:{_MONTHS})\s+\d{{1,2}}\b"
        rf"|\b\d{{1,2}}\s+(?:{_MONTHS})\b|['’]\d0s\b|\bthe\s+(?:(?:early|mid|late)[\s-]+)?{_DECADE_WORDS}\b"
        rf"|\b(?:\d{{1,2}}(?:st|nd|rd|th)|{_ORDINAL_WORDS})[\s-]+centur(?:y|ies)\b|(?:\d{{1,2}}|{_CJK_NUM})\s*世纪"),
    "money": lazy_compile(r"[$€£¥￥]\s?\d|" + _units("dollars?|euros?|pounds|usd|eur|rmb|cny",
                                                   "(?:[万亿千百]\\s*)?(?:元|美元|欧元|英镑|块)")),
    "percent": lazy_compile(r"(?<![\d.,])\d[\d.,]*\s*(?:%|％|percent\b|per\s+cent\b)|百分之"),
    # "2023年" is a year and "3月9日" a date, no duration: 年 after a number of at most three digits, no bare 月,
    # 日 not after a month ("30日内" is a duration)
    # "15个工作日", "10 working days": a number of working days is a duration
    "duration": lazy_compile(_units("years?|months?|weeks?|days?|hours?|minutes?|seconds?|hrs?|mins?"
                                  "|(?:working|business|calendar)\\s+days?",
                                  "个月|周|天|小时|分钟|秒|个?(?:工作|自然)日(?!期)|个?工作天")
                             + rf"|(?:(?<![\d,.])\d{{1,3}}(?:\.\d+)?(?![\d,])|{_CJK_NUM})\s*年(?!代)"
                             + rf"|(?<!月)(?:(?<![\d,.])\d{{1,3}}(?![\d,])|{_CJK_NUM})\s*日"),
    # "every 10 years", "每10年", "每隔五年", "2次/年", "twice a year", "annually"
    "frequency": lazy_compile(
        rf"\bevery\s+(?:(?:{_NUM}|other|few)\s+)?(?:years?|months?|weeks?|days?|hours?|decades?|quarters?)\b"
        rf"|\b(?:once|twice|{_NUM}\s+times)\s+(?:a|per|each|every)\s+(?:year|month|week|day|hour|decade|quarter)\b"
        r"|\b(?:annually|yearly|monthly|weekly|daily|hourly|quarterly|biennially|biannually|semi-?annually)\b"
        rf"|每(?:隔)?\s*(?:{_NUM}\s*)?(?:个)?\s*(?:年|月|季度|周|星期|天|日|小时)|{_NUM}\s*次\s*[/每]\s*(?:年|月|周|天|日)"),
    "distance": lazy_compile(_units("km|kilometres?|kilometers?|mi|miles?|m|metres?|meters?|ft|feet|foot|cm|mm",
                                  "公里|千米|米|厘米|毫米")),
    "size": lazy_compile(_units("[kmgtp]i?b|bytes?|km2|m2|sq\\s*(?:km|mi|m)|square|acres?|hectares?|kg|tonnes?|tons?",
                              "平方|公顷|亩|千克|公斤|吨")),
    # "40 words per minute", "120 km/h", "3 Mbps", "每分钟40字", "60公里/小时"; "3 times a day" is a frequency, and a
    # week or a year is no speed's time ("40 hours of work per week")
    "speed": lazy_compile(
        rf"{_NUM}\s*(?:(?!times?\b)[a-z]+\s+){{0,2}}(?:per|an?|/|each)\s*(?:second|sec|minute|min|hour|hr)s?\b"
        + "|" + _units("km/h|kmh|kph|mph|m/s|km/s|wpm|rpm|fps|knots?|[kmgt]?bps|[kmgt]?b/s")
        + rf"|每\s*(?:秒钟?|分钟|小时)\s*{_NUM}|{_NUM}\s*(?:公里|千米|米|字|转|次|个)?\s*/\s*(?:小时|分钟|秒|h|min|s)\b"
        + rf"|{_NUM}\s*(?:公里|千米|米)每(?:小时|秒)"),
    # "10 times" alone counts repetitions ("runs each program 10 times"); "3 times faster" is a ratio
    "ratio": lazy_compile(rf"{_NUM}\s*(?:-?fold\b|times\s+(?:faster|slower|more|less|as|higher|lower|better|"
                          r"larger|smaller)\b)|(?<![\d.])\d[\d.]*\s*(?:x(?![a-z])|×|倍|%|％)"),
}
#: A kind of answer said in words, no number: how often as "以规定的时间间隔对...再评价", "at regular intervals" (nc22a
#: Q6: the file says no number of years). ``holds_type(..., worded=True)`` reads them too; ranking does not.
_WORDED_TYPES: dict[str, re.Pattern[str]] = {
    "frequency": lazy_compile(r"(?:规定|一定|固定|相同|同样)的?时间间隔|\bat\s+(?:regular|fixed|set|specified|"
                              r"prescribed|defined|planned)\s+intervals\b"),
}
_NUMBER_RE = lazy_compile(_NUM)
#: 多少 followed by these is no count of a thing: 多少钱 is money, 多少倍 a ratio, 多少年 a duration.
_NOT_CLASSIFIERS = frozenset("钱倍年天小")
#: Chinese classifiers (measure words): 多少架 asks for "13 架"; 多少 before another word
#: (多少内存) asks for a number of no named unit.
_CLASSIFIERS = frozenset("个位名家架台本份种次条张件只辆座所项篇部层处块把根首间页行列趟档级类批组套"
                         "支节章届轮场笔箱包瓶双对人")


def _prefix(noun: str) -> str:
    """The part of a plural noun its singular shares ("engines" → "engine", "cities" → "cit"):
    matched as a word's beginning."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3]
    if noun.endswith("s") and not noun.endswith("ss") and len(noun) > 3:
        return noun[:-1]
    return noun


#: A question asking what a quantity it names is ("What is the sequential write speed of the NANDrive micro SSD?",
#: "What is the minimum distance between buildings?", 容量是多少) asks its kind as "how fast" or 多少 does (False: only
#: the question words above, as before round 29). Chinese named the quantity already (速度, 价格, 比例); English did
#: not: the English question over a Chinese spec sheet cited the paragraph naming the product, while the Chinese one
#: cited the line answering it, "连续写入性能为：超过每秒20兆字节" (issue 33, nc28a F1).
NAMED_QUANTITIES = True
#: A what-question (or "at what"): the quantity it names is what it asks.
_WHAT_RE = lazy_compile(r"^\s*(?:what|which)\b|\b(?:what|which)\s+(?:is|was|are|were|'s)\b|\bat\s+what\b")
#: The quantities a what-question may name, each asking its kind; the Chinese ones asked as 是多少 / 有多大. An English
#: noun is listed only when it has one reading: "length" is one of space or of time ("the length of the warranty"),
#: "size" of a thing or of a group ("the size of the team"), "weight" in kilograms or in importance, "area" a surface
#: or a region, "capacity" a volume or a number of seats; each names no kind alone (review30 finding 8).
_NAMED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("speed", lazy_compile(r"\b(?:speeds?|velocity|throughput|bandwidth|(?:data|transfer|bit|baud)\s+rate)\b")),
    ("money", lazy_compile(r"\b(?:prices?|costs?|fees?|salary|wages?)\b"
                           r"|(?:工资|薪资|薪水|报价|售价|单价)(?:是|为|有)?(?:多少|几)")),
    ("percent", lazy_compile(r"\b(?:percentage|proportion)\b")),
    ("distance", lazy_compile(r"\b(?:distance|height|width|depth|altitude|diameter)\b"
                              r"|(?:距离|长度|高度|宽度|深度|直径)(?:是|为|有)?(?:多少|多[长远高宽深]|几)")),
    ("size", lazy_compile(r"(?:容量|尺寸|大小|重量|面积|体积|内存)(?:是|为|有)?(?:多少|多大|多重|几)")),
    ("duration", lazy_compile(r"\b(?:duration|lifetime|lifespan|life\s+span)\b"
                              r"|(?:寿命|时长)(?:是|为|有)?(?:多少|多久|多长|几)")),
)
#: Words that may follow the head of what is asked: a preposition, an article, a verb's auxiliary, a pronoun. Any
#: other word (a participle, "-ed", aside) is a noun the quantity's word modifies ("cost centre", "speed setting").
_AFTER_HEAD = frozenset("""of for in on at to from by between with per under over during within across when if and or
    is was are were be been being does do did will would can could should shall may might must has have had that which
    who where whose the a an its their his her our your my this these those it they than as including excluding
    regarding concerning following according considering without before after since until about via incl excl plus
    minus net""".split())
_NEXT_WORD_RE = lazy_compile(r"\s*([a-z]+)")


def _heads_what_is_asked(folded_query: str, m: re.Match[str]) -> bool:
    """The quantity's word ``m`` heads what the question asks: not the noun after "which" (which one of them: "which
    area handles packaging"), nor a word modifying the noun after it ("the cost centre"); right after "what" it asks
    ("what distance separates them")."""
    before = folded_query[: m.start()].split()
    if before and before[-1] == "which":
        return False
    if before and before[-1] == "what":
        return True
    after = _NEXT_WORD_RE.match(folded_query, m.end())
    return after is None or after.group(1) in _AFTER_HEAD or after.group(1).endswith("ed")


def _named(folded_query: str) -> list[str]:
    """The kinds of the quantities a what-question names (``NAMED_QUANTITIES``) as the head of what it asks
    (:func:`_heads_what_is_asked`), each once, in ``_NAMED``'s order; the Chinese forms carry their own asking
    (是多少)."""
    if not NAMED_QUANTITIES:
        return []
    what = _WHAT_RE.search(folded_query) is not None
    out = []
    for name, pattern in _NAMED:
        for m in pattern.finditer(folded_query):
            if not m.group(0).isascii() or (what and _heads_what_is_asked(folded_query, m)):
                out.append(name)
                break
    return out


def answer_types(folded_query: str) -> tuple[str, ...]:
    """The answer types ``folded_query`` (``ranking.fold`` of the question) asks for, in a fixed
    order: ``date``, ``money``, ``percent``, ``frequency``, ``duration``, ``distance``, ``size``, ``speed`` ("how
    fast": "40 words per minute"), ``ratio`` and ``count:<noun>`` (``count:`` alone for a count of no named thing)."""
    out = [name for name, pattern in _QUESTION_TYPES if pattern.search(folded_query)]
    # a quantity named is asked only when no question word asks a kind: "how much of the cost" is a share
    out = out or _named(folded_query)
    if {"money", "ratio", "duration", "frequency", "speed"} & set(out):
        return tuple(out)
    for m in _COUNT_RE.finditer(folded_query):
        if m.group(1) is not None:
            out.append("count:" + _prefix(m.group(1)))
        elif m.group(2) in _NOT_CLASSIFIERS:
            continue
        else:
            out.append("count:" + (m.group(2) if m.group(2) in _CLASSIFIERS else ""))
        break
    return tuple(out)


def without_asking(folded_query: str) -> str:
    """``folded_query`` with the words asking its answer types cut out ("how many years", 多少年, "how fast"): what is
    left names what the answer is about, the words a place stating the answer stands beside."""
    for _name, pattern in _QUESTION_TYPES:
        folded_query = pattern.sub(" ", folded_query)
    return _COUNT_RE.sub(" ", folded_query)


@functools.lru_cache(maxsize=64)
def _count_pattern(noun: str) -> re.Pattern[str]:
    """A number followed by ``noun``. Compiled with ``re`` itself, not ``lazy_compile``: the noun
    is the user's word, and the regex cache keeps what it compiles on disk."""
    if not noun:
        return _NUMBER_RE
    if noun.isascii():  # "40 engines", "thirteen large airliners" (two words between at most)
        return re.compile(rf"{_NUM}\s+(?:[a-z-]+\s+){{0,2}}{re.escape(noun)}")
    return re.compile(rf"{_NUM}\s*{re.escape(noun)}")  # 13 架


def holds_type(name: str, folded_text: str, *, worded: bool = False) -> bool:
    """Whether ``folded_text`` holds answer type ``name`` (one of :func:`answer_types`'s) once at least; ``worded``:
    said in words without a number counts too ("at regular intervals" for a frequency)."""
    pattern = _count_pattern(name[6:]) if name.startswith("count:") else _PASSAGE_TYPES[name]
    if pattern.search(folded_text) is not None:
        return True
    loose = _WORDED_TYPES.get(name) if worded else None
    return loose is not None and loose.search(folded_text) is not None


#: A count stated in another script than the question names its thing in ("84种语言" for "how many languages", "12
#: engines" for 多少台): a number and a Chinese classifier (not an ordinal's: 第5条), or a number and an English plural
#: (not a table's, a figure's or a section's number: "Table 7 shows").
_ACROSS_COUNT_RE = lazy_compile(
    rf"(?<!第)(?<!第 ){_NUM}\s*[{''.join(sorted(_CLASSIFIERS))}]"
    rf"|(?<!table )(?<!figure )(?<!fig. )(?<!section )(?<!chapter )(?<!page ){_NUM}\s+"
    rf"(?!(?:years|months|days|hours|minutes|seconds|percent|dollars)\b)[a-z]{{2,}}s\b")


def holds_count_across(folded_text: str) -> bool:
    """Whether ``folded_text`` states a count of some thing (:data:`_ACROSS_COUNT_RE`): what a place written in another
    script than a question asking a count of a named thing can state, its noun being another language's word."""
    return _ACROSS_COUNT_RE.search(folded_text) is not None


def type_counts(types: Sequence[str], folded_text: str) -> dict[str, int]:
    """How often ``folded_text`` holds each answer type of ``types`` (only those it holds)."""
    out: dict[str, int] = {}
    for name in types:
        pattern = _count_pattern(name[6:]) if name.startswith("count:") else _PASSAGE_TYPES[name]
        n = len(pattern.findall(folded_text))
        if n:
            out[name] = n
    return out


_FIGURE_RE = lazy_compile(r"(?<![\d.])\d[\d,]*(?:\.\d+)?")


def type_figures(name: str, folded_text: str) -> list[float]:
    """The figures (digits only) of each place ``folded_text`` states answer type ``name``: 2 and 20 of "a 2x-20x
    speedup", 25 of "25 times faster" (a ratio)."""
    pattern = _count_pattern(name[6:]) if name.startswith("count:") else _PASSAGE_TYPES[name]
    out: list[float] = []
    for m in pattern.finditer(folded_text):
        for f in _FIGURE_RE.findall(m.group(0)):
            try:
                out.append(float(f.replace(",", "")))
            except ValueError:
                continue
    return out
