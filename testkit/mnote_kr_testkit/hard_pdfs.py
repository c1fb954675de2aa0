"""PDFs whose layout is the hard part, drawn with reportlab at known positions.

Every layout returns ``HardCase`` rows whose truth (page and box of the item that answers)
comes from where this module drew the text, never from the locator: the box of a line is
its pen position, its width by the font's metrics, its height from the font's ascent to its
descent. Evidence is the text as its writer wrote it (plain ``fi``, composed ``ä``, whole
words, the items in reading order), as another reader of the PDF would give it; the PDF
draws ligatures, split or missing diacritics, hyphenated line ends, rotated tables and
running headers. The query is two or three content words of the answering item, at least
one of them also in another item of the evidence, no other item holding them all.

Layouts: footnotes (with child items), list items, captions and picture legends, table rows
and cells, a table rotated on the page, two columns with a picture between (a paragraph
continued after the picture and across the column break), a running header on a one-page
PDF, Chinese in the non-embedded CID font STSong-Light, ligatures, decomposed diacritics. The hard items of
Docling's ground truth in corpus PDFs are in ``hard_docling``.
"""

from __future__ import annotations

import os
import random
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .pdfs import union

Box = tuple[float, float, float, float]
W, H = 612.0, 792.0

WORDS = (
    "battery anode cathode charge voltage membrane channel lithium sample capacity cycle energy density "
    "thermal stable layer surface coating electrolyte polymer ceramic current method result value "
    "pressure contact interface diffusion barrier material structure analysis effect sensor module "
    "housing valve torque bearing gasket flange spindle rotor stator winding coolant nozzle filter"
).split()
RARE = ("gyroscope telemetry altimeter aileron fuselage propeller rudder throttle turbine hangar runway "
        "cockpit nacelle spoiler flap strut tailwheel glider ballast beacon compass dynamo magneto piston "
        "radiator sprocket tachometer").split()
LIGATURED = "specific efficient profile field office reflow flight workflow defined fluid".split()
UMLAUT = "Chefarzträumen Prüfstände Übergänge Kühlkörper Lötstellen Maßstäbe Größenordnung Schäden".split()
HANZI = ("电池 电压 容量 材料 结构 分析 方法 结果 温度 压力 界面 扩散 涂层 聚合物 陶瓷 电解质 "
         "传感器 模块 阀门 轴承 冷却 喷嘴 过滤 测量 样品 循环 能量 密度 稳定 表面").split()


@dataclass
class HardCase:
    """One question on a hard layout; ``box`` is the answering item's box (None: no box allowed).

    ``items`` holds the evidence's items as ``(text, page, box)`` for the baselines;
    ``other`` the second rectangle of a passage interrupted by a picture or a column break;
    ``header`` the running header's box where the page has one."""

    name: str
    layout: str
    file: str
    evidence: str
    query: str
    page: int | None
    box: Box | None
    items: list[tuple[str, int, Box]] = field(default_factory=list)
    target: int = 0
    other: Box | None = None
    header: Box | None = None


def content_words(text: str) -> list[str]:
    """``text``'s words of four letters or more, lower-cased (what a query is drawn from)."""
    return [w.lower() for w in re.findall(r"[^\W\d_]{4,}", unicodedata.normalize("NFC", text))]


def make_query(rng: random.Random, texts: list[str], t: int, cjk: bool = False) -> str | None:
    """Two or three words of item ``t``, one shared with another item, no other item holding all."""
    split = (lambda s: [w for w in HANZI if w in s]) if cjk else content_words
    own = list(dict.fromkeys(split(texts[t])))
    others = [set(split(x)) for k, x in enumerate(texts) if k != t]
    shared = [w for w in own if any(w in o for o in others)]
    if not shared or len(own) < 2:
        return None
    rest = [w for w in own if w not in shared] or [w for w in own]
    for _ in range(20):
        first = rng.choice(shared)
        pick = [first] + rng.sample([w for w in rest if w != first], min(1 if cjk else 2, len(rest) - (first in rest)))
        if len(pick) >= 2 and not any(all(w in o for w in pick) for o in others):
            rng.shuffle(pick)
            return ("" if cjk else " ").join(pick)
    return None


class Sheet:
    """A reportlab canvas that returns each line's box (top-left frame, points) as it draws."""

    def __init__(self, path: Path) -> None:
        from reportlab.pdfgen import canvas

        self.path = path
        self.c = canvas.Canvas(str(path), pagesize=(W, H), pageCompression=0)
        self.page = 1
        self.h = H  # the height of the frame drawn in (the page's width while drawing turned)

    def font(self, name: str) -> str:
        """Register a font shipped with reportlab (``Vera``) or a CID font, and return its name."""
        from reportlab.pdfbase import pdfmetrics

        if name in pdfmetrics.getRegisteredFontNames():
            return name
        if name == "Vera":
            import reportlab
            from reportlab.pdfbase.ttfonts import TTFont

            pdfmetrics.registerFont(TTFont("Vera", os.path.join(os.path.dirname(reportlab.__file__), "fonts",
                                                                "Vera.ttf")))
        else:
            from reportlab.pdfbase.cidfonts import UnicodeCIDFont

            pdfmetrics.registerFont(UnicodeCIDFont(name))
        return name

    def line(self, x: float, top: float, text: str, size: float = 10, font: str = "Helvetica") -> Box:
        """Draw ``text`` with its box's top at ``top`` (from the page's top); its box."""
        from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth

        asc, desc = getAscentDescent(font, size)
        base = top + asc
        self.c.setFont(font, size)
        self.c.drawString(x, self.h - base, text)
        return (x, top, x + stringWidth(text, font, size), base - desc)

    def width(self, text: str, size: float = 10, font: str = "Helvetica") -> float:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        return float(stringWidth(text, font, size))

    def next_page(self) -> None:
        self.c.showPage()
        self.page += 1

    def save(self) -> None:
        self.c.save()


def wrap(sheet: Sheet, words: list[str], width: float, size: float, font: str = "Helvetica",
         draw: Callable[[str], str] = lambda s: s, first_indent: float = 0.0) -> list[str]:
    """``words`` broken into lines of at most ``width`` (as drawn by ``draw``)."""
    lines: list[str] = []
    cur = ""
    for w in words:
        cand = (cur + " " + w).strip()
        room = width - (first_indent if not lines else 0.0)
        if cur and sheet.width(draw(cand), size, font) > room:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    lines.append(cur)
    return lines


def para(sheet: Sheet, x: float, top: float, lines: list[str], size: float, lead: float,
         font: str = "Helvetica", indent: float = 0.0, hang: float = 0.0) -> tuple[Box, float]:
    """Draw ``lines``: the first at ``x + indent``, the others at ``x + hang``; box and next top."""
    boxes = [sheet.line(x + (indent if k == 0 else hang), top + k * lead, t, size, font) for k, t in enumerate(lines)]
    return union(boxes), top + len(lines) * lead


def rand_words(rng: random.Random, n: int, pool: list[str] = WORDS) -> list[str]:
    return [rng.choice(pool) for _ in range(n)]


def begin(path: Path, seed: int, font: str) -> tuple[random.Random, Sheet, str]:
    """A layout's random source, its sheet, and ``font`` registered."""
    s = Sheet(path)
    return random.Random(seed), s, s.font(font)


def opening(s: Sheet, rng: random.Random, top: float, n_words: int = 45) -> tuple[list[tuple[str, int, Box]], float]:
    """A body paragraph across the page at ``top``: the items list it starts, and the next top."""
    ws = rand_words(rng, n_words)
    box, top = para(s, 72, top, wrap(s, ws, 468, 10), 10, 12.5)
    return [(" ".join(ws), 1, box)], top


def _cases(name: str, layout: str, path: Path, items: list[tuple[str, int, Box]], targets: list[int],
           rng: random.Random, *, joiner: str = "\n", cjk: bool = False, evidence: str | None = None,
           others: dict[int, Box] | None = None, header: Box | None = None,
           window: tuple[int, int] | None = None) -> list[HardCase]:
    out = []
    for t in targets:
        lo, hi = window if window is not None else (max(0, t - rng.randint(1, 2)), min(len(items), t + 3))
        win = items[lo:hi]
        q = make_query(rng, [x for x, _, _ in win], t - lo, cjk)
        if q is None:
            continue
        ev = evidence if evidence is not None else joiner.join(x for x, _, _ in win)
        out.append(HardCase(f"{name}-{t}", layout, str(path), ev, q, items[t][1], items[t][2], list(win), t - lo,
                            (others or {}).get(t), header))
    return out


# --------------------------------------------------------------------------- layouts


def footnotes(path: Path, seed: int) -> list[HardCase]:
    """Body text, then numbered footnotes in small type, tight, one with child items (a), (b)."""
    rng = random.Random(seed)
    s = Sheet(path)
    items: list[tuple[str, int, Box]] = []
    top = 80.0
    for _ in range(2):
        ws = rand_words(rng, rng.randint(40, 55))
        box, top = para(s, 72, top, wrap(s, ws, 468, 10), 10, 12.5)
        items.append((" ".join(ws), 1, box))
        top += 8
    s.c.line(72, H - top - 300, 200, H - top - 300)
    top += 306
    for n in range(1, 5):
        ws = rand_words(rng, rng.randint(14, 30))
        lines = wrap(s, ws, 455, 8)
        lines[0] = f"{n} " + lines[0]
        box, top = para(s, 72, top, lines, 8, 9.6, hang=6)
        items.append((f"{n} " + " ".join(ws), 1, box))
        if n == 2:
            for k in "ab":
                cw = rand_words(rng, rng.randint(14, 22))
                box, top = para(s, 84, top, [f"({k}) " + x if i == 0 else x for i, x in
                                             enumerate(wrap(s, cw, 440, 8))], 8, 9.6, hang=12)
                items.append((f"({k}) " + " ".join(cw), 1, box))
    s.save()
    return _cases(f"footnotes-{seed}", "footnotes", path, items, list(range(2, len(items))), rng)


def list_items(path: Path, seed: int, text_x: float = 100.0) -> list[HardCase]:
    """An intro paragraph and two tight lists (bullets with hanging indent, numbers), multi-line
    items; each marker at x 84, its item's text at ``text_x`` (far off: a marker drawn apart)."""
    rng = random.Random(seed)
    s = Sheet(path)
    items, top = opening(s, rng, 80, 40)
    for kind in ("•", "num"):
        top += 4
        for n in range(1, 5):
            ws = rand_words(rng, rng.randint(12, 30))
            mark = "•" if kind == "•" else f"{n}."
            lines = wrap(s, ws, 540 - text_x, 10)
            first = s.line(84, top, mark, 10)
            box, top = para(s, text_x, top, lines, 10, 12.5)
            items.append((f"{mark} " + " ".join(ws), 1, union([first, box])))
    s.save()
    return _cases(f"list-{seed}", "list items", path, items, list(range(1, len(items))), rng)


def captions(path: Path, seed: int) -> list[HardCase]:
    """Body, a picture with a legend inside it, a caption in body type right under it, body again."""
    rng = random.Random(seed)
    s = Sheet(path)
    items, top = opening(s, rng, 72)
    pic = (72.0, top + 10, 540.0, top + 250)
    s.c.rect(pic[0], H - pic[3], pic[2] - pic[0], pic[3] - pic[1])
    for k in range(6):  # bars of a chart
        s.c.rect(100 + k * 50, H - pic[3] + 10, 30, 40 + 25 * k, fill=1)
    s.c.rect(400, H - pic[1] - 80, 130, 70)
    for k in range(4):  # the legend, inside the picture
        ws = rand_words(rng, 3)
        b = s.line(410, pic[1] + 16 + k * 14, " ".join(ws), 8)
        items.append((" ".join(ws), 1, b))
    top = pic[3] + 8
    ws = rand_words(rng, rng.randint(18, 30))
    lines = wrap(s, ["Figure", f"{seed}:"] + ws, 468, 10)
    box, top = para(s, 72, top, lines, 10, 12.5)
    items.append((f"Figure {seed}: " + " ".join(ws), 1, box))
    for _ in range(2):
        ws = rand_words(rng, 45)
        box, top = para(s, 72, top, wrap(s, ws, 468, 10), 10, 12.5, indent=12)
        items.append((" ".join(ws), 1, box))
    s.save()
    targets = list(range(1, len(items)))
    return _cases(f"captions-{seed}", "captions and legends", path, items, targets, rng)


def _table(s: Sheet, rng: random.Random, x: float, top: float) -> tuple[list[list[tuple[str, Box]]], float]:
    """A ruled table of 5 rows x 4 columns (some cells two lines); cells as (text, box) per row."""
    widths = [90.0, 110.0, 110.0, 120.0]
    rows: list[list[tuple[str, Box]]] = []
    for _ in range(5):
        cells = []
        two = rng.random() < 0.5
        h = 30.0 if two else 18.0
        cx = x
        for c, w in enumerate(widths):
            n = 1 if c == 0 else (3 if two and c == 3 else 2)
            ws = rand_words(rng, n)
            lines = wrap(s, ws, w - 8, 9)
            box, _ = para(s, cx + 4, top + 4, lines, 9, 11)
            cells.append((" ".join(ws), box))
            s.c.rect(cx, s.h - top - h, w, h)
            cx += w
        rows.append(cells)
        top += h
    return rows, top


def table(path: Path, seed: int, rotate: bool = False) -> list[HardCase]:
    """Table rows and cells (queries on a row's words in several cells, or on one cell's words);
    with ``rotate`` the table is drawn turned 90 degrees on a portrait page."""
    rng = random.Random(seed)
    s = Sheet(path)
    ws = rand_words(rng, 40)
    intro_box: Box | None = None
    if rotate:
        # drawn in a frame turned 90 degrees (x up the page, y to the right): a point (x, t) of
        # that frame's top-left coordinates lands at (t, H - x) of the page's
        s.c.saveState()
        s.c.translate(W, 0)
        s.c.rotate(90)
        s.h = W
        rows, _ = _table(s, rng, 180, 100)
        s.h = H
        s.c.restoreState()
        rows = [[(t, (b[1], H - b[2], b[3], H - b[0])) for t, b in row] for row in rows]
    else:
        intro_box, top = para(s, 72, 72, wrap(s, ws, 468, 10), 10, 12.5)
        rows, _ = _table(s, rng, 72, top + 14)
    s.save()
    out: list[HardCase] = []
    row_items = [(" ".join(t for t, _ in row), 1, union([b for _, b in row])) for row in rows]
    lead = [(" ".join(ws), 1, intro_box)] if intro_box is not None else []
    evidence = "\n".join(t for t, _, _ in lead + row_items)
    kind = "rotated table" if rotate else "table"
    for r in range(1, len(rows)):
        # a row: one word of its first cell and words of two other cells
        words = [rows[r][0][0].split()[0], rows[r][1][0].split()[-1], rows[r][3][0].split()[0]]
        if any(all(w in x for w in words) for k, (x, _, _) in enumerate(row_items) if k != r):
            continue
        out.append(HardCase(f"{'rot' if rotate else ''}table-{seed}-row{r}", kind, str(path), evidence,
                            " ".join(words), 1, row_items[r][2], lead + row_items, r + len(lead)))
        # a cell of two or more words
        for c in (1, 2, 3):
            text, box = rows[r][c]
            if len(text.split()) >= 2 and sum(text in x for x, _, _ in row_items) == 1:
                cells = [(t, 1, b) for t, b in rows[r]]
                out.append(HardCase(f"{'rot' if rotate else ''}table-{seed}-cell{r}{c}", kind, str(path), evidence,
                                    text, 1, box, cells, c))
                break
    return out


def two_columns(path: Path, seed: int) -> list[HardCase]:
    """Two columns; in the left one a paragraph is interrupted by a picture and continues under
    it; the left column's last paragraph continues at the top of the right column."""
    rng = random.Random(seed)
    s = Sheet(path)
    size, lead, cw = 9.5, 12.0, 230.0
    xs = (60.0, 322.0)

    def column_lines(x: float, top: float, lines: list[str]) -> Box:
        return para(s, x, top, lines, size, lead)[0]

    # left column: P0 (whole), P1 part A, picture, P1 part B, P2 part A (to the column's end)
    items: list[tuple[str, int, Box]] = []
    others: dict[int, Box] = {}
    ws0 = rand_words(rng, 50)
    l0 = wrap(s, ws0, cw, size)
    b0 = column_lines(xs[0], 72, l0)
    top = 72 + len(l0) * lead
    items.append((" ".join(ws0), 1, b0))
    ws1 = rand_words(rng, 66) + rng.sample(RARE, 4)
    l1 = wrap(s, ws1, cw, size)
    cut = len(l1) // 2
    ba = column_lines(xs[0], top, l1[:cut])
    top += cut * lead
    s.c.rect(xs[0], H - top - 150, cw, 140)
    s.c.circle(xs[0] + cw / 2, H - top - 80, 50)
    top += 156
    bb = column_lines(xs[0], top, l1[cut:])
    top += (len(l1) - cut) * lead
    items.append((" ".join(ws1), 1, bb))  # the query's words are put in part B below
    others[1] = ba
    ws2 = rand_words(rng, 86) + rng.sample(RARE, 4)
    l2 = wrap(s, ws2, cw, size, first_indent=12)
    fit = max(2, min(int((H - 60 - top) // lead), len(l2) - 4))
    b2a = para(s, xs[0], top, l2[:fit], size, lead, indent=12)[0]  # a new paragraph: its first line indented
    b2b = column_lines(xs[1], 72, l2[fit:])
    top = 72 + (len(l2) - fit) * lead
    items.append((" ".join(ws2), 1, b2b))
    others[2] = b2a
    ws3 = rand_words(rng, 50)
    l3 = wrap(s, ws3, cw, size, first_indent=12)
    b3 = para(s, xs[1], top, l3, size, lead, indent=12)[0]  # a new paragraph: its first line indented
    items.append((" ".join(ws3), 1, b3))
    s.save()
    # queries: words from the continued part (B) of P1, and from P2's part in the right column
    out = []
    for t, part_lines in ((1, l1[cut:]), (2, l2[fit:])):
        part = " ".join(part_lines)
        texts = [x for x, _, _ in items]
        rare = [w for w in RARE if w in part]
        common = [w for w in content_words(part)
                  if w not in RARE and any(w in content_words(x) for x in texts[:t] + texts[t + 1:])]
        if len(rare) < 2 or not common:
            continue
        pick = [common[0]] + rare[:2]
        out.append(HardCase(f"2col-{seed}-{t}", "two columns, picture between", str(path), "\n".join(texts),
                            " ".join(pick), 1, items[t][2], items, t, others[t]))
    return out


def running_header(path: Path, seed: int) -> list[HardCase]:
    """A one-page PDF with a running header (title words and a page number, small type) whose
    words the question shares; the answer is a body paragraph."""
    rng = random.Random(seed)
    s = Sheet(path)
    hw = rand_words(rng, 4)
    htext = " ".join(w.capitalize() for w in hw)
    hb = union([s.line(72, 40, htext, 8), s.line(520, 40, str(seed + 8), 8)])
    s.c.line(72, H - 52, 540, H - 52)
    items: list[tuple[str, int, Box]] = []
    top = 80.0
    for k in range(3):
        ws = rand_words(rng, 40)
        ws[rng.randrange(len(ws))] = hw[k % 4]
        box, top = para(s, 72, top, wrap(s, ws, 468, 10), 10, 12.5)
        items.append((" ".join(ws), 1, box))
        top += 10
    s.save()
    out = []
    ev = f"{htext} {seed + 8}\n" + "\n".join(x for x, _, _ in items)
    for t in range(3):
        own = [w for w in dict.fromkeys(content_words(items[t][0])) if w not in hw]
        pick = [hw[t % 4]] + [w for w in own if not any(w in content_words(x) for k, x in enumerate(
            [i[0] for i in items]) if k != t)][:1]
        if len(pick) < 2:
            continue
        out.append(HardCase(f"header-{seed}-{t}", "running header (one page)", str(path), ev, " ".join(pick), 1,
                            items[t][2], items, t, None, hb))
    return out


def chinese(path: Path, seed: int) -> list[HardCase]:
    """Chinese paragraphs (first-line indent of two characters, no gap) in STSong-Light, not embedded."""
    rng, s, font = begin(path, seed, "STSong-Light")
    items: list[tuple[str, int, Box]] = []
    top = 80.0
    for _ in range(5):
        text = "".join(rand_words(rng, rng.randint(18, 30), HANZI)) + "。"
        per = int(468 // 11)
        lines = [text[: per - 2]] + [text[i : i + per] for i in range(per - 2, len(text), per)]
        boxes = [s.line(72 + (22 if k == 0 else 0), top + k * 14, ln, 11, font) for k, ln in enumerate(lines)]
        items.append((text, 1, union(boxes)))
        top += (len(boxes)) * 14
    s.save()
    return _cases(f"cjk-{seed}", "CJK (STSong-Light, not embedded)", path, items, list(range(5)), rng,
                  joiner="", cjk=True)


def ligatures(path: Path, seed: int) -> list[HardCase]:
    """Paragraphs in an embedded TrueType font drawn with the fi/fl ligature glyphs and words
    hyphenated at line ends; evidence as written."""
    rng = random.Random(seed)
    s = Sheet(path)
    font = s.font("Vera")

    def lig(t: str) -> str:
        return t.replace("fi", "\ufb01").replace("fl", "\ufb02")

    items: list[tuple[str, int, Box]] = []
    top = 80.0
    for _ in range(4):
        ws = [rng.choice(LIGATURED) if rng.random() < 0.35 else rng.choice(WORDS) for _ in range(45)]
        lines = wrap(s, ws, 440, 10, font, lig)
        for k in range(len(lines) - 1):  # hyphenate the next line's first long word onto this line if it fits
            nxt = lines[k + 1].split(" ", 1)
            fits = s.width(lig(lines[k] + " " + nxt[0][:4] + "-"), 10, font) <= 440
            if len(nxt[0]) >= 8 and len(nxt) > 1 and fits:
                lines[k] += " " + nxt[0][:4] + "-"
                lines[k + 1] = nxt[0][4:] + " " + nxt[1]
        box, top = para(s, 72, top, [lig(x) for x in lines], 10, 12.5, font)
        items.append((" ".join(ws), 1, box))
        top += 10
    s.save()
    return _cases(f"lig-{seed}", "ligatures and hyphenation", path, items, list(range(4)), rng)


def diacritics(path: Path, seed: int) -> list[HardCase]:
    """German words with umlauts drawn three ways: composed, with the dots as a separate glyph
    over the letter (TeX's split accent), and with the umlaut drawn as a picture (the text layer
    reads ``Chefarztr umen``); evidence composed (NFC) or decomposed (NFD)."""
    rng, s, font = begin(path, seed, "Vera")
    items: list[tuple[str, int, Box]] = []
    top = 80.0
    for k in range(4):
        ws = [rng.choice(UMLAUT) if rng.random() < 0.3 else rng.choice(WORDS) for _ in range(40)]
        lines = wrap(s, ws, 440, 10, font)
        boxes = []
        for li, ln in enumerate(lines):
            y = top + li * 12.5
            x = 72.0
            for m, part in enumerate(re.split(r"([äöüÄÖÜ])", ln)):
                if m % 2 == 0:
                    boxes.append(s.line(x, y, part, 10, font))
                    x += s.width(part, 10, font)
                    continue
                base = unicodedata.normalize("NFD", part)[0]
                wdt = s.width(part, 10, font)
                if k % 2 == 0:  # split accent: the letter, then the dots as their own glyph over it
                    s.line(x, y, base, 10, font)
                    s.line(x + (s.width(base, 10, font) - s.width("\u00a8", 10, font)) / 2, y, "\u00a8", 10, font)
                else:  # drawn as a picture: the letter is missing from the text layer
                    s.c.circle(x + wdt / 2, H - y - 6, 2.5, fill=1)
                x += wdt
        top += len(lines) * 12.5
        text = " ".join(ws)
        items.append((unicodedata.normalize("NFD", text) if seed % 2 else text, 1, union(boxes)))
        top += 10
    s.save()
    return _cases(f"umlaut-{seed}", "decomposed diacritics", path, items, list(range(4)), rng)


LAYOUTS: list[Callable[[Path, int], list[HardCase]]] = [
    footnotes, list_items, captions, table, lambda p, s: table(p, s, rotate=True), two_columns,
    running_header, chinese, ligatures, diacritics,
]


def hard_cases(folder: Path, seeds: tuple[int, ...]) -> list[HardCase]:
    """Every layout once per seed, each in its own PDF under ``folder``."""
    out: list[HardCase] = []
    for seed in seeds:
        for k, make in enumerate(LAYOUTS):
            out.extend(make(folder / f"hard-{seed}-{k}.pdf", seed))
    return out
