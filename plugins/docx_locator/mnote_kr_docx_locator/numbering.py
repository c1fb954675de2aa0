"""The numbers Word shows before its numbered paragraphs ("3", "3.1", "第1章", "a)"), as it counts them.

python-docx and the paragraph's text leave them out: Word draws them from ``numbering.xml``. A paragraph is
numbered by its own ``w:numPr`` (``numId`` and ``ilvl``) or its style's (through ``basedOn``; a style's
level is its ``ilvl``, else the level whose ``w:pStyle`` names the style); ``numId`` 0 switches it off. A
``w:num`` uses an ``w:abstractNum`` (or, through ``w:numStyleLink``, the one of a numbering style), whose
``w:lvl`` says the level's ``w:start``, ``w:numFmt``, ``w:lvlText`` ("%1.%2": the current numbers of levels
1 and 2), ``w:lvlRestart``, ``w:isLgl`` and ``w:suff``; the ``w:num`` may override a level (``w:lvlOverride``
with a ``w:lvl`` or a ``w:startOverride``, which restarts the level where the ``w:num`` is first used).

The count is kept per abstract numbering, in document order, table cells included: a level goes on from
its last number, and restarts at its start when a higher level advances (or, with ``w:lvlRestart``, a level
at or above the one it names; 0: never). A number that cannot be told for sure is not shown: a format this
module does not draw (``FORMATS``), a level the text names that has no number yet, a start below 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from .styles import Sheet, as_int, wval

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
_CN_DIGITS = "〇一二三四五六七八九"
_CN_STEMS = "甲乙丙丁戊己庚辛壬癸"
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def _letters(n: int) -> str:
    # Word's letters repeat past Z: 27 is AA, 28 BB (not AB)
    return _LETTERS[(n - 1) % 26] * ((n - 1) // 26 + 1)


def _roman(n: int) -> str | None:
    if n >= 4000:
        return None
    out = []
    for value, numeral in _ROMAN:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


def _cn_counting(n: int) -> str:
    # 十-grouped below 100 (十, 十一, 二十一); Word writes larger numbers digit by digit (一〇〇)
    if n >= 100:
        return "".join(_CN_DIGITS[int(d)] for d in str(n))
    tens, ones = divmod(n, 10)
    return ((_CN_DIGITS[tens] if tens > 1 else "") + "十" if tens else "") + (_CN_DIGITS[ones] if ones else "")


def _cn_thousand(n: int) -> str | None:
    # fully grouped: 一百〇一, 一千二百
    if n >= 10_000:
        return None
    if n < 100:
        return _cn_counting(n)
    out, zero = [], False
    for unit, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        d, n = divmod(n, unit)
        if d:
            if zero:
                out.append("〇")
            out.append(_CN_DIGITS[d] + name)
            zero = False
        elif out:
            zero = True
    return "".join(out)


#: ``w:numFmt`` values drawn, each from a number >= 1 (None: not drawn, the label is not shown)
FORMATS = {
    "decimal": str,
    "decimalZero": lambda n: f"{n:02d}",
    "upperLetter": _letters,
    "lowerLetter": lambda n: _letters(n).lower(),
    "upperRoman": _roman,
    "lowerRoman": lambda n: (r.lower() if (r := _roman(n)) else None),
    "chineseCounting": _cn_counting,
    "chineseCountingThousand": _cn_thousand,
    "ideographDigital": lambda n: "".join(_CN_DIGITS[int(d)] for d in str(n)),
    "ideographTraditional": lambda n: _CN_STEMS[n - 1] if n <= 10 else None,
    "decimalEnclosedCircle": lambda n: _CIRCLED[n - 1] if n <= 20 else None,
    "decimalFullWidth": lambda n: str(n).translate(_FULL_WIDTH),
}


def draw(n: int, fmt: str) -> str | None:
    """``n`` in the number format ``fmt``; None for a format not drawn or a number below 1."""
    f = FORMATS.get(fmt)
    return f(n) if f is not None and n >= 1 else None  # type: ignore[no-untyped-call]


@dataclass(slots=True)
class Level:
    """One ``w:lvl``: what its number looks like and when it restarts."""

    start: int = 1
    fmt: str = "decimal"
    text: str | None = None  # w:lvlText; None: none given (no number shown)
    restart: int | None = None  # w:lvlRestart (1-based level; 0: never); None: after any higher level
    legal: bool = False  # w:isLgl: every number in the text as decimal
    suffix: str = "tab"  # w:suff: tab, space or nothing between the number and the text
    style: str | None = None  # w:pStyle: the paragraph style this level numbers


@dataclass(slots=True)
class Numbering:
    """``numbering.xml`` read: abstract numberings' levels, and each ``w:num``'s abstract and overrides."""

    abstracts: dict[str, dict[int, Level]] = field(default_factory=dict)
    nums: dict[str, str] = field(default_factory=dict)  # numId -> abstractNumId
    overrides: dict[str, dict[int, Level]] = field(default_factory=dict)  # numId -> its own levels
    starts: dict[str, dict[int, int]] = field(default_factory=dict)  # numId -> startOverride per level
    styles: dict[str, tuple[str | None, int | None]] = field(default_factory=dict)  # styleId -> (numId, ilvl)

    def level(self, num_id: str, ilvl: int) -> Level | None:
        got = self.overrides.get(num_id, {}).get(ilvl)
        if got is not None:
            return got
        return self.abstracts.get(self.nums.get(num_id, ""), {}).get(ilvl)

    def ordered(self, num_id: str, ilvl: int) -> bool:
        """Whether the level is numbered (a format other than a bullet or none)."""
        lvl = self.level(num_id, ilvl)
        return lvl is not None and lvl.fmt not in ("bullet", "none")

    def of_paragraph(self, style: str | None, num_id: str | None, ilvl: int | None) -> tuple[str, int] | None:
        """``(numId, ilvl)`` of a paragraph with its own ``numId``/``ilvl`` (None: not given) in ``style``."""
        s_num, s_ilvl = self.styles.get(style or "", (None, None))
        num = num_id if num_id is not None else s_num
        if not num or num == "0" or num not in self.nums:
            return None
        if ilvl is None:
            ilvl = s_ilvl
        if ilvl is None and style:
            levels = self.abstracts.get(self.nums[num], {})
            ilvl = next((k for k, lvl in sorted(levels.items()) if lvl.style == style), None)
        return num, ilvl or 0


def _attr(el: etree._Element, name: str) -> str:
    return next((str(v) for k, v in el.attrib.items() if k.endswith("}" + name)), "")


def _children(el: etree._Element) -> list[etree._Element]:
    """``el``'s elements, an ``mc:AlternateContent``'s ``mc:Fallback`` read in its place."""
    out: list[etree._Element] = []
    for c in el:
        if not isinstance(c.tag, str):
            continue
        if etree.QName(c).localname == "AlternateContent":
            for alt in c:
                if isinstance(alt.tag, str) and etree.QName(alt).localname == "Fallback":
                    out.extend(x for x in alt if isinstance(x.tag, str))
            continue
        out.append(c)
    return out


def _level(lvl: etree._Element) -> Level:
    out = Level()
    for c in _children(lvl):
        local, val = etree.QName(c).localname, wval(c)
        if local == "start":
            out.start = as_int(val) if as_int(val) is not None else 1  # type: ignore[assignment]
        elif local == "numFmt":
            out.fmt = val or "decimal"
        elif local == "lvlText":
            out.text = val
        elif local == "lvlRestart":
            out.restart = as_int(val)
        elif local == "isLgl":
            out.legal = (val or "true").lower() not in ("0", "false", "off")
        elif local == "suff":
            out.suffix = val or "tab"
        elif local == "pStyle":
            out.style = val
    return out


def _style_numbers(sheet: Sheet) -> tuple[dict[str, tuple[str | None, int | None]], dict[str, str]]:
    """styleId -> its ``(numId, ilvl)`` through ``basedOn`` (either None: not given); and each numbering
    style's numId (``w:numStyleLink``)."""
    own = sheet.styles
    out: dict[str, tuple[str | None, int | None]] = {}
    for sid in own:
        num, ilvl, cur, seen = None, None, sid, set()
        while cur in own and cur not in seen:
            seen.add(cur)
            st = own[cur]
            num = num if num is not None else st.num_id
            ilvl = ilvl if ilvl is not None else st.ilvl
            cur = st.based_on or ""
        out[sid] = (num, ilvl)
    return out, {sid: v[0] for sid, v in out.items() if v[0]}


def read_numbering(root: etree._Element | None, sheet: Sheet | None = None) -> Numbering:
    """``numbering.xml``'s root (None: no numbering) with ``styles.xml`` read (for numbering on styles)."""
    out = Numbering()
    out.styles, style_nums = _style_numbers(sheet or Sheet())
    if root is None:
        return out
    links: dict[str, str] = {}  # abstractNumId -> the numbering style it takes its levels from
    for el in root:
        if not isinstance(el.tag, str):
            continue
        local = etree.QName(el).localname
        if local == "abstractNum":
            aid = _attr(el, "abstractNumId")
            levels: dict[int, Level] = {}
            for c in el:
                if not isinstance(c.tag, str):
                    continue
                kind = etree.QName(c).localname
                if kind == "lvl":
                    levels[as_int(_attr(c, "ilvl")) or 0] = _level(c)
                elif kind == "numStyleLink" and wval(c):
                    links[aid] = wval(c) or ""
            out.abstracts[aid] = levels
        elif local == "num":
            nid = _attr(el, "numId")
            for c in el:
                if not isinstance(c.tag, str):
                    continue
                kind = etree.QName(c).localname
                if kind == "abstractNumId":
                    out.nums[nid] = wval(c) or ""
                elif kind == "lvlOverride":
                    ilvl = as_int(_attr(c, "ilvl")) or 0
                    for o in c:
                        if not isinstance(o.tag, str):
                            continue
                        if etree.QName(o).localname == "startOverride" and as_int(wval(o)) is not None:
                            out.starts.setdefault(nid, {})[ilvl] = as_int(wval(o))  # type: ignore[assignment]
                        elif etree.QName(o).localname == "lvl":
                            out.overrides.setdefault(nid, {})[ilvl] = _level(o)
    for aid, style in links.items():  # an abstract numbering that is a numbering style's: that style's levels
        target = out.nums.get(style_nums.get(style, ""), "")
        if target and target != aid and not out.abstracts.get(aid):
            for nid, a in out.nums.items():
                if a == aid:
                    out.nums[nid] = target
    return out


class Counter:
    """Word's count over the document's numbered paragraphs, in document order."""

    def __init__(self, numbering: Numbering) -> None:
        self.numbering = numbering
        self.counts: dict[str, dict[int, int]] = {}  # abstractNumId -> level -> its current number
        self.seen: set[str] = set()

    def label(self, num_id: str, ilvl: int) -> tuple[str, str] | None:
        """Count the paragraph numbered ``(num_id, ilvl)``; ``(label, separator)`` as Word shows it
        ("3.1", " "), or None when no number is shown or it cannot be told for sure."""
        nb = self.numbering
        aid = nb.nums.get(num_id)
        lvl = nb.level(num_id, ilvl)
        if aid is None or lvl is None:
            return None
        counts = self.counts.setdefault(aid, {})
        starts = nb.starts.get(num_id, {})
        if num_id not in self.seen:  # a w:num that overrides a level's start restarts it where it is first used
            self.seen.add(num_id)
            for k in starts:
                counts.pop(k, None)
        value = counts[ilvl] + 1 if ilvl in counts else starts.get(ilvl, lvl.start)
        counts[ilvl] = value
        for k in [k for k in counts if k > ilvl]:
            deeper = nb.level(num_id, k)
            restart = deeper.restart if deeper is not None else None
            if restart is None or restart > k or (restart != 0 and ilvl < restart):
                del counts[k]
        return self._render(num_id, ilvl, lvl, counts)

    def _render(self, num_id: str, ilvl: int, lvl: Level, counts: dict[int, int]) -> tuple[str, str] | None:
        if lvl.fmt in ("bullet", "none") or not lvl.text:
            return None
        out: list[str] = []
        text, i = lvl.text, 0
        while i < len(text):
            ch = text[i]
            if ch == "%" and i + 1 < len(text) and text[i + 1] in "123456789":
                k = int(text[i + 1]) - 1
                ref = self.numbering.level(num_id, k)
                if k not in counts or ref is None or k > ilvl:
                    return None  # a level with no number yet: Word's "0.1" or "1.1" is not told for sure
                drawn = "" if ref.fmt == "none" else draw(counts[k], "decimal" if lvl.legal else ref.fmt)
                if drawn is None:
                    return None
                out.append(drawn)
                i += 2
                continue
            out.append(ch)
            i += 1
        shown = "".join(out)
        label = shown.strip()
        if not label:
            return None
        sep = "" if lvl.suffix == "nothing" and shown == shown.rstrip() else " "
        return label, sep
