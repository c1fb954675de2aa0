"""A tiny WordprocessingML generator for tests and benchmarks (raw zip + XML).

``DocxBuilder`` writes headings, paragraphs (with inline OMML equations), a TOC field,
tables, text boxes and optional ``w14:paraId``s. ``bad_docx`` writes hostile files.
``trap_case`` builds seeded documents with a locator's traps (substring query, TOC line, reference
list, equation, table cell, evidence from another document) and the expected
``paragraphIndex`` of each.
"""

from __future__ import annotations

import io
import itertools
import random
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = (
    f'xmlns:w="{W}" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
    'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" '
    'xmlns:v="urn:schemas-microsoft-com:vml" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="w14"'
)
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    '<Override PartName="/word/styles.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>'
)
RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="word/document.xml"/></Relationships>'
)
STYLES = (
    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="{W}">'
    # outline levels as Word writes them (LightRAG's native parser finds headings by them)
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
    '<w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/>'
    '<w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>'
    # a localised id with an English name, as the chatchat corpus files have
    '<w:style w:type="paragraph" w:styleId="31"><w:name w:val="heading 3"/>'
    '<w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/></w:style>'
    "</w:styles>"
)

NUMBERING = (
    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="{W}">'
    '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>'
    '<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:numFmt w:val="lowerLetter"/></w:lvl></w:abstractNum>'
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>'
    "</w:numbering>"
)


@dataclass
class Eq:
    """An inline OMML equation: ``Eq("E=m", sup=("c", "2"))`` or plain ``Eq("a+b")``."""

    text: str
    sup: tuple[str, str] | None = None

    def xml(self) -> str:
        body = f"<m:r><m:t>{escape(self.text)}</m:t></m:r>"
        if self.sup:
            body += (
                f"<m:sSup><m:e><m:r><m:t>{escape(self.sup[0])}</m:t></m:r></m:e>"
                f"<m:sup><m:r><m:t>{escape(self.sup[1])}</m:t></m:r></m:sup></m:sSup>"
            )
        return f"<m:oMath>{body}</m:oMath>"

    def plain(self) -> str:
        return self.text + (self.sup[0] + self.sup[1] if self.sup else "")


Piece = str | Eq


@dataclass
class DocxBuilder:
    """Collects body XML; every call that adds an indexed ``w:p`` returns its paragraphIndex."""

    para_ids: bool = True
    parts: list[str] = field(default_factory=list)
    count: int = 0
    texts: list[str] = field(default_factory=list)
    lists: bool = False  # set by list_item: build() then writes word/numbering.xml

    def _pid(self) -> str:
        return f' w14:paraId="{0x1A2B0000 + self.count + 1:08X}"' if self.para_ids else ""

    def _p(self, inner: str, ppr: str = "", plain: str = "") -> str:
        xml = f"<w:p{self._pid()}>{ppr}{inner}</w:p>"
        self.texts.append(plain)
        self.count += 1
        return xml

    @staticmethod
    def runs(pieces: list[Piece] | str) -> str:
        if isinstance(pieces, str):
            pieces = [pieces]
        out = []
        for piece in pieces:
            if isinstance(piece, Eq):
                out.append(piece.xml())
            else:
                out.append(f'<w:r><w:t xml:space="preserve">{escape(piece)}</w:t></w:r>')
        return "".join(out)

    @staticmethod
    def plain(pieces: list[Piece] | str) -> str:
        if isinstance(pieces, str):
            return pieces
        return "".join(p.plain() if isinstance(p, Eq) else p for p in pieces)

    def para(self, pieces: list[Piece] | str) -> int:
        """A body paragraph."""
        idx = self.count
        self.parts.append(self._p(self.runs(pieces), plain=self.plain(pieces)))
        return idx

    def heading(self, text: str, level: int = 1) -> int:
        """A heading paragraph (``Heading1``, ``Heading2`` or the localised id ``31``)."""
        idx = self.count
        style = {1: "Heading1", 2: "Heading2"}.get(level, "31")
        bm = f'<w:bookmarkStart w:id="{idx}" w:name="_Toc{idx:06d}"/><w:bookmarkEnd w:id="{idx}"/>'
        self.parts.append(self._p(bm + self.runs(text), f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>', text))
        return idx

    def toc(self, entries: list[tuple[str, int]]) -> list[int]:
        """A Word TOC field: one ``toc 1`` line per (heading, page), hyperlinked to ``_Toc``."""
        out = []
        for n, (text, page) in enumerate(entries):
            begin = (
                '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                '<w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h \\z \\u </w:instrText></w:r>'
                '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
                if n == 0
                else ""
            )
            end = '<w:r><w:fldChar w:fldCharType="end"/></w:r>' if n == len(entries) - 1 else ""
            link = f'<w:hyperlink w:anchor="_Toc{n:06d}">{self.runs(text)}<w:r><w:tab/></w:r>{self.runs(str(page))}'
            link += "</w:hyperlink>"
            out.append(self.count)
            plain = f"{text}\t{page}"
            self.parts.append(self._p(begin + link + end, '<w:pPr><w:pStyle w:val="TOC1"/></w:pPr>', plain))
        return out

    def table(self, rows: list[list[str | tuple[str, ...]]],
              props: dict[tuple[int, int], str] | None = None) -> list[list[int]]:
        """A table; returns the paragraphIndex of each cell's (first) paragraph. A cell given as a tuple
        holds one paragraph per string (a CV's column). ``props``: a cell's ``w:tcPr`` content by
        (row, cell), e.g. ``'<w:gridSpan w:val="2"/>'``, ``'<w:vMerge w:val="restart"/>'``."""
        idx: list[list[int]] = []
        xml = ["<w:tbl><w:tblPr/>"]
        for r, row in enumerate(rows):
            xml.append("<w:tr>")
            idx.append([])
            for c, cell in enumerate(row):
                idx[-1].append(self.count)
                pr = (props or {}).get((r, c), "")
                paras = "".join(self._p(self.runs(t), plain=t) for t in (cell if isinstance(cell, tuple) else (cell,)))
                xml.append(f"<w:tc><w:tcPr>{pr}</w:tcPr>{paras}</w:tc>")
            xml.append("</w:tr>")
        xml.append("</w:tbl>")
        self.parts.append("".join(xml))
        return idx

    def list_item(self, text: str, level: int = 0, ordered: bool = False) -> int:
        """A list item (numId 1: bullets, numId 2: decimal numbers) at ``level`` (0-based)."""
        idx = self.count
        self.lists = True
        ppr = f'<w:pPr><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{2 if ordered else 1}"/></w:numPr></w:pPr>'
        self.parts.append(self._p(self.runs(text), ppr, text))
        return idx

    def textbox_para(self, text: str, box_text: str) -> int:
        """A paragraph holding a VML text box whose own ``w:p`` is not indexed."""
        idx = self.count
        box = f"<w:p>{self.runs(box_text)}</w:p>"
        inner = self.runs(text) + f"<w:r><w:pict><v:shape><v:textbox><w:txbxContent>{box}"
        inner += "</w:txbxContent></v:textbox></v:shape></w:pict></w:r>"
        self.parts.append(self._p(inner, plain=text))
        return idx

    def alt_textbox_para(self, text: str, box_paras: list[str]) -> int:
        """A paragraph anchoring a DrawingML text box written twice, as Word does:
        ``mc:Choice`` (wps) and the ``mc:Fallback`` VML copy of the same paragraphs."""
        idx = self.count
        box = "".join(f"<w:p>{self.runs(t)}</w:p>" for t in box_paras)
        wps = 'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"'
        choice = f'<mc:Choice Requires="wps"><w:drawing><wps:wsp {wps}><wps:txbx><w:txbxContent>{box}'
        choice += "</w:txbxContent></wps:txbx></wps:wsp></w:drawing></mc:Choice>"
        fallback = f"<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>{box}</w:txbxContent>"
        fallback += "</v:textbox></v:shape></w:pict></mc:Fallback>"
        inner = self.runs(text) + f"<w:r><mc:AlternateContent>{choice}{fallback}</mc:AlternateContent></w:r>"
        self.parts.append(self._p(inner, plain=text))
        return idx

    def document_xml(self) -> bytes:
        body = "".join(self.parts) + '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>'
        xml = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body>'
        return (xml + "</w:document>").encode("utf-8")

    def build(self) -> bytes:
        """The DOCX as bytes."""
        return package(self.document_xml(), numbering=NUMBERING.encode() if self.lists else None)


def package(document_xml: bytes, *, styles: bytes | None = None, numbering: bytes | None = None) -> bytes:
    """Zip a ``word/document.xml`` (and ``word/numbering.xml`` when given) into a minimal DOCX."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", CONTENT_TYPES)
        zf.writestr("_rels/.rels", RELS)
        zf.writestr("word/document.xml", document_xml)
        zf.writestr("word/styles.xml", styles if styles is not None else STYLES.encode())
        if numbering is not None:
            zf.writestr("word/numbering.xml", numbering)
    return buf.getvalue()


def nested_tables_docx(depth: int = 1500) -> bytes:
    """A DOCX whose body is ``depth`` tables nested one inside the other (1,500 once crashed the
    locator with RecursionError)."""
    head = "<w:tbl><w:tr><w:tc>" * depth
    tail = "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + "</w:tc></w:tr></w:tbl>" * depth
    body = "<w:p><w:r><w:t>Before the tables.</w:t></w:r></w:p>" + head + tail
    xml = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body>'
    return package((xml + "</w:document>").encode())


def big_xml_docx(xml_bytes: int = 200 * 1024 * 1024) -> bytes:
    """A DOCX whose ``word/document.xml`` is ``xml_bytes`` of varied paragraphs, compressed
    less than 200:1 so it passes the zip ratio limit (before the part budgets, 200 MB of XML
    took 6 GB and 2 minutes). Written in a stream: building it never holds the XML in memory."""
    rng = random.Random(12)
    words = [f"w{rng.randrange(10**9):09d}" for _ in range(4096)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", CONTENT_TYPES)
        zf.writestr("_rels/.rels", RELS)
        with zf.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>'.encode())
            written = 0
            while written < xml_bytes:
                para = "<w:p><w:r><w:t>" + " ".join(rng.choices(words, k=40)) + "</w:t></w:r></w:p>"
                chunk = (para * 64).encode()
                fh.write(chunk)
                written += len(chunk)
            fh.write(b"</w:body></w:document>")
    return buf.getvalue()


def ordinary_text_docx(path: str | Path, xml_bytes: int = 135 * 1024 * 1024, seed: int = 27) -> int:
    """Write to ``path`` a DOCX whose ``word/document.xml`` is ``xml_bytes`` of ordinary prose as
    Word writes it (runs with their fonts and sizes), every paragraph a different run of words
    drawn Zipf-like from a 5,000-word vocabulary, so it compresses as a long report does
    (30 MB of DOCX, 135 MB of XML). Streamed to the file; returns the DOCX's size."""
    rng = random.Random(seed)
    letters = "etaoinshrdlcumwfgypbvk"
    vocab = ["".join(rng.choices(letters, k=rng.randint(2, 9))) for _ in range(5000)]
    cum = list(itertools.accumulate(1 / (i + 1) for i in range(len(vocab))))
    run = ('<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr>'
           '<w:t xml:space="preserve">')

    def para() -> str:
        words = rng.choices(vocab, cum_weights=cum, k=60)
        runs = "".join(run + " ".join(words[i : i + 20]) + " </w:t></w:r>" for i in range(0, 60, 20))
        return '<w:p><w:pPr><w:spacing w:after="120"/></w:pPr>' + runs + "</w:p>"

    head = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("[Content_Types].xml", CONTENT_TYPES)
        zf.writestr("_rels/.rels", RELS)
        zf.writestr("word/styles.xml", STYLES)
        with zf.open("word/document.xml", "w", force_zip64=True) as fh:
            fh.write(head.encode())
            written = len(head)
            while written < xml_bytes:
                chunk = "".join(para() for _ in range(256)).encode()
                fh.write(chunk)
                written += len(chunk)
            fh.write(b"</w:body></w:document>")
    return Path(path).stat().st_size


def bad_docx(kind: str) -> bytes:
    """Hostile or broken DOCX bytes: ``zip_bomb``, ``entities``, ``encrypted``, ``not_zip``, ``truncated``."""
    if kind == "zip_bomb":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("[Content_Types].xml", CONTENT_TYPES)
            zf.writestr("_rels/.rels", RELS)
            zf.writestr("word/document.xml", b"<" + b" " * (24 * 1024 * 1024))
        return buf.getvalue()
    if kind == "entities":
        lol = '<!DOCTYPE w:document [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        xml = f'<?xml version="1.0"?>{lol}<w:document {NS}><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p>'
        return package((xml + "</w:body></w:document>").encode())
    if kind == "encrypted":
        return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504 + "EncryptedPackage".encode("utf-16-le") + b"\0" * 512
    if kind == "not_zip":
        return b"This is a plain text file, not a DOCX.\n"
    if kind == "truncated":
        good = DocxBuilder().build()
        return good[: len(good) // 2]
    if kind == "malformed_xml":
        return package(b'<?xml version="1.0"?><w:document xmlns:w="' + W.encode() + b'"><w:body><w:p>')
    raise ValueError(kind)


# --------------------------------------------------------------------------- seeded trap documents

_ZH_WORDS = (
    "反应 溶剂 温度 催化剂 产率 纯化 萃取 过滤 干燥 结晶 分析 样品 实验 条件 时间 浓度 压力 体系 方法 结果 "
    "数据 表明 研究 合成 制备 原料 中间体 保护基 脱除 稳定性 选择性 工艺 放大 安全 评估 记录 设备 操作 检测 标准"
).split()
_ZH_GLUE = ["的", "在", "对", "经", "后", "并", "与", "将", "可", "需"]
_EN_WORDS = (
    "reaction solvent temperature catalyst yield purification extraction filtration drying crystal analysis "
    "sample experiment condition pressure system method result data study synthesis precursor intermediate "
    "stability selectivity process scale safety review record equipment operation detection standard"
).split()
_OTHER_ZH = (
    "股票 市场 投资 银行 利率 货币 政策 经济 增长 消费 出口 贸易 企业 利润 税收 财政 预算 债券 基金 风险".split()
)
_OTHER_EN = "football match player goal season league coach stadium ticket fans referee trophy striker".split()
SUBSTRING_PAIRS = [
    ("吡咯烷", "N-甲基吡咯烷酮"),
    ("吗啉", "N-甲基吗啉"),
    ("硅烷", "三甲基硅烷"),
    ("amine", "triethylamine"),
]


def sentence(rng: random.Random, zh: bool, words: list[str] | None = None, n: int = 8) -> str:
    """A filler sentence from a topic vocabulary."""
    pool = words or (_ZH_WORDS if zh else _EN_WORDS)
    if zh:
        return "".join(rng.choice(pool) + (rng.choice(_ZH_GLUE) if rng.random() < 0.5 else "") for _ in range(n)) + "。"
    body = " ".join(rng.choice(pool) for _ in range(n))
    return body[0].upper() + body[1:] + "."


def filler(rng: random.Random, zh: bool, k: int = 3, words: list[str] | None = None) -> str:
    """A filler paragraph of ``k`` sentences."""
    return ("" if zh else " ").join(sentence(rng, zh, words) for _ in range(k))


@dataclass
class TrapCase:
    """One generated case: the DOCX, the request and the expected answer (None = ``file``)."""

    kind: str
    docx: bytes
    evidence: str
    query: str
    expected: int | None
    block: dict | None = None
    n_paragraphs: int = 0


def trap_case(rng: random.Random, kind: str, *, paras: int = 30) -> TrapCase:
    """A seeded document with one trap of ``kind`` and its expected paragraphIndex."""
    zh = kind != "substring_en" and rng.random() < 0.8
    b = DocxBuilder(para_ids=rng.random() < 0.5)
    b.heading("实验报告" if zh else "Experimental report", 1)
    pad = max(2, paras // 6)
    query, evidence, expected, block = "", "", None, None
    if kind in ("substring", "substring_en"):
        short, long_ = SUBSTRING_PAIRS[3] if kind == "substring_en" else rng.choice(SUBSTRING_PAIRS[:3])
        zh = kind != "substring_en"
        for _ in range(pad):
            b.para(filler(rng, zh))
        decoy = filler(rng, zh, 1) + (f"使用{long_}作为溶剂。" if zh else f" We used {long_} as the base. ")
        b.para(decoy + filler(rng, zh, 1))
        for _ in range(pad):
            b.para(filler(rng, zh))
        lead, tail = filler(rng, zh, 2), filler(rng, zh, 1)
        middle = f"加入{short}后搅拌。" if zh else f" Then {short} was added and stirred. "
        expected = b.para(lead + middle + tail)
        evidence = (lead + middle + tail)[-120:]
        query = short
    elif kind == "toc":
        titles = [f"{i} " + (sentence(rng, zh, n=2).rstrip("。.")) for i in range(1, 5)]
        b.toc([(t, i + 3) for i, t in enumerate(titles)])
        target_title = rng.choice(titles)
        for t in titles:
            b.heading(t, 2)
            body = filler(rng, zh, 2)
            i = b.para(body)
            if t == target_title:
                expected, evidence = i, f"# {t}\n{body[:100]}"
            b.para(filler(rng, zh, 2))
        query = target_title.split(" ", 1)[1][:4] if zh else target_title.split(" ")[1]
    elif kind == "reflist":
        for _ in range(pad):
            b.para(filler(rng, zh))
        q_sentence = "本实验确认了保护基的脱除条件。" if zh else " This confirms the deprotection window."
        body = filler(rng, zh, 3) + q_sentence
        expected = b.para(body)
        b.heading("参考文献" if zh else "References", 2)
        refs = [
            f"[{n}] Zhang W, Li H, Wang Q. Studies of {rng.choice(_EN_WORDS)} {rng.choice(_EN_WORDS)} in "
            f"{rng.choice(_EN_WORDS)} media. J Org Chem, {rng.randint(1990, 2024)}, {rng.randint(1, 90)}: "
            f"{rng.randint(100, 999)}-{rng.randint(1000, 1999)}."
            for n in range(1, 7)
        ]
        for r in refs:
            b.para(r)
        evidence = body[-60:] + "\n参考文献\n" + "\n".join(refs[:4]) if zh else body[-60:] + "\n" + "\n".join(refs[:4])
        query = "保护基" if zh else "deprotection"
    elif kind == "equation":
        for _ in range(pad):
            b.para(filler(rng, zh))
        b.para(filler(rng, zh, 1) + ("速率常数由实验测定。" if zh else " The rate constant was measured."))
        lead = "根据阿伦尼乌斯方程，速率常数 " if zh else "From the Arrhenius law, the rate constant "
        tail = " 随温度升高而增大。" if zh else " grows with temperature."
        expected = b.para([lead, Eq("k=A", sup=("e", "-Ea/RT")), tail + filler(rng, zh, 1)])
        evidence = lead + "k = A e^{-Ea/RT}" + tail
        query = "速率常数" if zh else "rate constant"
        for _ in range(pad):
            b.para(filler(rng, zh))
    elif kind == "table":
        for _ in range(pad):
            b.para(filler(rng, zh))
        key = "三乙基硅" if zh else "triethylsilane"
        b.para(filler(rng, zh, 1) + (f"{key}的用量见下表。" if zh else f" The amount of {key} is in the table."))
        cell = filler(rng, zh, 1) + (f"{key}需在氮气下加入。" if zh else f" Add {key} under nitrogen.")
        cells = b.table([["步骤" if zh else "Step", "说明" if zh else "Note"], ["1", filler(rng, zh, 1)], ["2", cell]])
        expected = cells[2][1]
        evidence, query = cell, key
        for _ in range(pad):
            b.para(filler(rng, zh))
    elif kind in ("negative", "negative_same_vocab"):
        for _ in range(paras):
            b.para(filler(rng, zh))
        other = (_OTHER_ZH if zh else _OTHER_EN) if kind == "negative" else None
        evidence = filler(rng, zh, 3, words=other)
        query = (other or (_ZH_WORDS if zh else _EN_WORDS))[0]
        expected = None
    else:
        raise ValueError(kind)
    while b.count < paras:
        b.para(filler(rng, zh))
    return TrapCase(kind, b.build(), evidence, query, expected, block, b.count)


TRAP_KINDS = ("substring", "substring_en", "toc", "reflist", "equation", "table")
NEGATIVE_KINDS = ("negative", "negative_same_vocab")
