"""A PDF's text blocks as the answer rules read them: folded, tokenized and stemmed, with the document's
term statistics, and the blocks' texts ingest embeds for ranking by meaning.

``fold`` keeps lengths (offsets point into the original text); ``block_text`` joins a block's lines
with hyphenation undone (a table row read under its headers, ``tableread``); ``DocTerms`` counts each
term's block frequency once per document and builds the few blocks a locate touches on demand.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from mnote_kr.plugin_api import (
    iter_tokens,
    keeps_line_end_hyphen,
    lazy_compile,
    normalize,
    places_key,
    scaffolding,
    symbol_letters,
)

from . import tableread
from .pdftext import ALEF_FOLD, DocumentText, PageText, canonical

#: Fewest tokens of a block ranked by meaning (a running title or a label scores high on its own).
MEANING_MIN_TOKENS = 4
#: A block's text written on this many pages or more is a running line (``running_places``).
RUNNING_PAGES = 3
_CJK_RUN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
#: Han and kana with their punctuation (Chinese and Japanese put no space between words; Hangul does).
_HAN_KANA = lazy_compile("[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                         "\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\U00020000-\U0002ebef]")


# Chinese question words as the bigrams the tokenizer gives; Latin function words and
# question scaffolding come from the host's ``queryterms.scaffolding`` (one list for DOCX,
# text and PDF), and every other word is weighed by its rarity in the document.
_CJK_STOP = frozenset(
    ["什么", "哪些", "哪个", "如何", "怎么", "怎样", "为什", "么是", "是什", "是否", "多少", "哪里", "请问"]
)


def stem(word: str) -> str:
    """A light English stem (plural, -ed, -ing); other scripts unchanged."""
    if not word.isascii() or len(word) <= 4 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ss"):
        return word
    if word.endswith("es") and word[-3] in "xhs":
        return word[:-2]
    for suf in ("ing", "ed", "s"):
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            return word[: -len(suf)]
    return word


def _accentless() -> dict[int, str]:
    """Latin, Greek and Cyrillic letters with accents -> the letter without them (``ä`` -> ``a``),
    the fold of ``pdftext.fold_char``, one character for one."""
    out = {}
    for cp in range(0xC0, 0x500):
        base = "".join(c for c in unicodedata.normalize("NFD", chr(cp)) if not unicodedata.combining(c))
        if len(base) == 1 and base != chr(cp):
            out[cp] = base
    return out


_ACCENTLESS = _accentless()
# an accent drawn as a glyph of its own beside its letter (TeX's split accents): ¨ ´ ˆ ˜ ¸ ˇ ˘ ˙ ˚ ¯
_SPACING_MARKS = frozenset("\u00a8\u00b4\u02c6\u02dc\u00b8\u02c7\u02d8\u02d9\u02da\u00af")


def fold(text: str) -> str:
    """``normalize`` plus the folds of ``pdftext`` (accents, Arabic alef forms, lam-alef
    order); the length is kept, so offsets still point into the original text."""
    return canonical(normalize(text).translate(ALEF_FOLD).translate(_ACCENTLESS))


def _drop_spacing_marks(raw: str) -> str:
    """``raw`` without accents drawn as glyphs of their own next to a letter."""
    if not any(ch in _SPACING_MARKS for ch in raw):
        return raw
    return "".join(ch for k, ch in enumerate(raw) if not (
        ch in _SPACING_MARKS and ((k > 0 and raw[k - 1].isalpha()) or raw[k + 1 : k + 2].isalpha())))


def content_terms(text: str) -> dict[str, str]:
    """The query's content terms: stem -> the surface form typed, in order, each once."""
    out: dict[str, str] = {}
    toks = [tok for tok, _, _ in iter_tokens(fold(text))]
    symbols = symbol_letters(text)  # "Q" in "what does Q mean": a one-letter word asked about
    for tok, skip in zip(toks, scaffolding(toks), strict=True):
        if tok not in symbols and (skip or tok in _CJK_STOP or (tok.isascii() and len(tok) < 2)):
            continue
        out.setdefault(stem(tok), tok)
    return out


@dataclass
class BlockText:
    """One block's text (lines joined, hyphenation undone), normalised, with each
    character's line index and the block's stemmed terms with their token positions."""

    text: str
    line_at: list[int]
    terms: dict[str, list[int]] = field(default_factory=dict)  # term -> token numbers
    surface: set[str] = field(default_factory=set)  # the tokens as written (before stemming)
    starts: list[int] = field(default_factory=list)  # token number -> character offset


_LONE_SURROGATE = lazy_compile(r"[\ud800-\udfff]")
_LINE_CHARS = str.maketrans({"\r": " ", "\n": " ", "\x02": "-", "\ufffe": "-"})


def _block_chars(page: PageText, lines: list[int]) -> tuple[list[str], list[int]]:
    """A block's characters as written (lines joined, hyphenation undone) and each one's line; a table
    row's read under its headers (``tableread``)."""
    row = tableread.row_chars(page, lines)
    if row is not None:
        return row
    chars: list[str] = []
    line_at: list[int] = []
    soft = False  # the line before ends in a soft hyphen
    for li in lines:
        raw = _drop_spacing_marks("".join([page.text[c] for c in page.stream[li]]).rstrip())
        if chars:
            prev = chars[-1]
            if prev in "\u00ad-" and raw[:1].isalpha() and len(chars) > 1 and chars[-2].isalpha() and (
                    soft or not keeps_line_end_hyphen(_word_before(chars), _word_after(raw), page.text)):
                chars.pop()  # a word hyphenated across the line break
                line_at.pop()
            elif prev == "-" and raw[:1].isalnum() and len(chars) > 1 and chars[-2].isalnum():
                pass  # the word's own hyphen ("FAA-approved"): the words stay joined by it
            elif prev != " ":
                chars.append(" ")
                line_at.append(li)
        # PDFium marks a hyphen at a line end as U+0002 or U+FFFE, whether typesetting's or the word's
        # own ("FAA-" too): a hyphen here, judged as one; only U+00AD is soft for sure
        soft = raw[-1:] == "\u00ad"
        chars.extend(raw.translate(_LINE_CHARS))  # one character for one: offsets hold
        line_at.extend([li] * len(raw))
    return chars, line_at


def _word_before(chars: list[str]) -> str:
    """The word that ``chars`` end in, before their last character (a hyphen), its own hyphens
    included ("state-of-the")."""
    i = len(chars) - 1
    while i > 0 and (chars[i - 1].isalnum() or chars[i - 1] == "-" and i > 1 and chars[i - 2].isalnum()):
        i -= 1
    return "".join(chars[i:-1])


def _word_after(raw: str) -> str:
    """The word ``raw`` starts with."""
    end = 0
    while end < len(raw) and raw[end].isalnum():
        end += 1
    return raw[:end]


def block_text(page: PageText, lines: list[int]) -> BlockText:
    """Build a block's ``BlockText`` from its lines (content order inside each line)."""
    chars, line_at = _block_chars(page, lines)
    text = fold("".join(chars))
    bt = BlockText(text, line_at)
    for k, (tok, start, _) in enumerate(iter_tokens(text)):
        bt.terms.setdefault(stem(tok), []).append(k)
        bt.surface.add(tok)
        bt.starts.append(start)
    return bt


@dataclass
class DocTerms:
    """Per-document block frequency of every term, and block texts built on demand.

    The frequencies need every block's terms, so they are counted once per document
    (``term_stats``: at ingest, kept in the on-disk model); a locate builds the
    ``BlockText`` of only the few blocks its passage touches.
    """

    doc: DocumentText
    df: dict[str, int]
    n: int
    built: dict[tuple[int, int], BlockText] = field(default_factory=dict)
    cjk: bool | None = None  # the document holds CJK text (``holds_cjk``)
    #: each block's ``glyphs`` answer: every locate asks it of its passage's blocks and of the file's nearest
    glyph: dict[tuple[int, int], bool] = field(default_factory=dict)

    def holds_cjk(self) -> bool:
        """Whether any block of the document holds CJK text."""
        if self.cjk is None:
            self.cjk = any(not t.isascii() and _CJK_RUN.search(t + t) for t in self.df)
        return self.cjk

    def block(self, b: tuple[int, int]) -> BlockText:
        """The ``BlockText`` of block ``b`` = (page index, block index)."""
        bt = self.built.get(b)
        if bt is None:
            page = self.doc.pages[b[0]]
            bt = self.built[b] = block_text(page, page.blocks[b[1]])
        return bt

    def glyphs(self, b: tuple[int, int]) -> bool:
        """Whether block ``b`` is mostly glyphs (``mostly_glyphs``): a figure's labels, no place to cite."""
        hit = self.glyph.get(b)
        if hit is None:
            from mnote_kr.plugin_api import mostly_glyphs

            page = self.doc.pages[b[0]]  # as written: folding makes a table's "Q＜60000" a glyph's "q<60000"
            hit = self.glyph[b] = mostly_glyphs(written_text(page, page.blocks[b[1]]))
        return hit

    def unfit(self, b: tuple[int, int], terms: Iterable[str] = ()) -> bool:
        """Whether block ``b`` is no place to cite: glyphs, or furniture holding none of the query's ``terms``
        (``is_furniture``: a journal's header; the host quotes it nowhere, so its box shows another quote)."""
        from mnote_kr.plugin_api import is_furniture

        page = self.doc.pages[b[0]]
        return self.glyphs(b) or (is_furniture(written_text(page, page.blocks[b[1]]))
                                  and not any(t in self.block(b).terms for t in terms))


def term_stats(doc: DocumentText) -> tuple[int, dict[str, int]]:
    """``(blocks, block frequency of each term)`` of the document: plain data, so the on-disk
    model keeps it (a new process does not tokenize every block of the document again)."""
    cached = doc.extras.get("term_stats")
    if isinstance(cached, tuple):
        return cached
    df: Counter[str] = Counter()
    n = 0
    for page in doc.pages:
        for lines in page.blocks:
            df.update(list(block_text(page, lines).terms))
            n += 1
    out = (max(n, 1), dict(df))
    doc.extras["term_stats"] = out
    return out


def written_text(page: PageText, lines: list[int], *, quoted: bool = False) -> str:
    """The text of a page's ``lines`` as written (joined, hyphenation undone, spaces collapsed); a lone
    surrogate of the text layer (a glyph PDFium maps to half a character) is U+FFFD: the words are
    shown and stored as UTF-8. ``quoted``: as a quote shows it, a line wrapped between two Chinese or
    Japanese characters joined without the space (nc25c: "查 询"), or between a figure set inside Chinese text
    and the character beside it (``figure_break``: "还是2 / 个）"); the places embedded for ranking by meaning
    keep their text (their vectors are stored by it). Remembered on a finished page (:func:`keep_written`)."""
    memo: dict[tuple[tuple[int, ...], bool], str] | None = page.__dict__.get(_WRITTEN) if REMEMBER_WRITTEN else None
    key = (tuple(lines), quoted)
    if memo is not None and (hit := memo.get(key)) is not None:
        return hit
    text = _written(page, lines, quoted)
    if memo is not None:
        memo[key] = text
    return text


#: A finished page remembers its blocks' words as written (:func:`keep_written`; False: read each time, as before
#: round 30).
REMEMBER_WRITTEN = True
#: The attribute of a finished page holding its blocks' words as written, by lines and ``quoted``
#: (:func:`keep_written`): not a field, so a page pickled (``model.StoredPages.of``, ``dataclasses.replace``)
#: never stores it.
_WRITTEN = "_written_memo"


def keep_written(page: PageText) -> PageText:
    """``page`` (read whole: its text, lines, blocks and table rows no longer change) remembering what
    :func:`written_text` gives for each of its blocks. Each locate asks the words of its passage's blocks and of
    each place behind the chosen one (``locator._runner_up``), most of them asked before by an earlier search
    (round 29's ``benchmarks/search_cost.py --profile``: 6,628 calls, 3.4 s of 40 warm searches, 2.3 s more
    than by words alone)."""
    page.__dict__.setdefault(_WRITTEN, {})
    return page


def _written(page: PageText, lines: list[int], quoted: bool) -> str:
    chars, line_at = _block_chars(page, lines)
    if quoted:
        chars = [ch for i, ch in enumerate(chars)
                 if not (ch == " " and 0 < i < len(chars) - 1 and line_at[i - 1] != line_at[i]
                         and (_HAN_KANA.match(chars[i - 1]) and _HAN_KANA.match(chars[i + 1])
                              or figure_break("".join(chars[max(0, i - 24):i]), "".join(chars[i + 1:i + 25]))))]
    return _LONE_SURROGATE.sub("\ufffd", " ".join("".join(chars).split()))


def _figure_end(text: str, step: int) -> int:
    """Where the figure at ``text``'s end (``step`` -1) or start (1) ends: past its digits and the marks inside it
    ("6.66", "1,567", "39．5")."""
    at = len(text) - 1 if step < 0 else 0
    while 0 <= at < len(text) and (text[at].isdigit() or text[at] in ".,．" and 0 <= at + step < len(text)
                                   and text[at + step].isdigit()):
        at += step
    return at


def figure_break(before: str, after: str) -> bool:
    """Whether a line break between ``before`` and ``after`` falls between a figure and a Chinese or Japanese
    character where the writer set the figure inside the text without spaces: the figure's other side touches
    such a character too ("还是2 / 个）": 是 before the 2; "1994年 / 10月"). A figure spaced on its line ("约 /
    6.66 亿元"), or standing alone on it (a table's cell "二 / 2.1333"), keeps the break's space."""
    if not before or not after:
        return False
    if before[-1].isdigit() and _HAN_KANA.match(after[0]):
        at = _figure_end(before, -1)
        return at >= 0 and _HAN_KANA.match(before[at]) is not None
    if _HAN_KANA.match(before[-1]) and after[0].isdigit():
        at = _figure_end(after, 1)
        return at < len(after) and _HAN_KANA.match(after[at]) is not None
    return False


def place_texts(doc: DocumentText) -> list[str]:
    """Every text block's text as written, in document order (page by page): the places ingest
    embeds for ranking by meaning (``plugin_api.queue_texts``). A block of fewer than
    ``MEANING_MIN_TOKENS`` tokens (a bullet, a page number, a short heading) is never ranked by
    meaning: it is left empty, and not embedded."""
    out = []
    for page in doc.pages:
        for lines in page.blocks:
            text = written_text(page, lines)
            enough = sum(1 for _ in zip(range(MEANING_MIN_TOKENS), iter_tokens(fold(text)), strict=False))
            out.append(text if enough >= MEANING_MIN_TOKENS else "")
    return out


def running_places(doc: DocumentText) -> frozenset[int]:
    """The place numbers (``place_texts`` order) of blocks whose text the document writes on ``RUNNING_PAGES``
    pages or more: a running line the layout did not set apart as a header or footer (the Federal Register's
    vertical margin stamp "jbell on DSKJLSW7X2PROD with PROPOSALS", a block on each of its 15 pages). Counted once
    per document in memory."""
    cached = doc.extras.get("running")
    if isinstance(cached, frozenset):
        return cached
    pages: dict[str, set[int]] = {}
    numbers: dict[str, list[int]] = {}
    n = 0
    for pi, page in enumerate(doc.pages):
        for lines in page.blocks:
            text = " ".join(written_text(page, lines).split())
            if text:
                pages.setdefault(text, set()).add(pi)
                numbers.setdefault(text, []).append(n)
            n += 1
    out = frozenset(i for text, at in pages.items() if len(at) >= RUNNING_PAGES for i in numbers[text])
    doc.extras["running"] = out
    return out


def places(doc: DocumentText) -> tuple[str, list[int]]:
    """``(places_key, first place number of each page)``: plain data, kept in the on-disk model
    (a locate finds the blocks' vectors without reading every page)."""
    cached = doc.extras.get("places")
    if isinstance(cached, tuple):
        return cached
    starts = [0]
    for page in doc.pages:
        starts.append(starts[-1] + len(page.blocks))
    texts = place_texts(doc)
    out = (places_key(texts), starts)
    doc.extras["places"] = out
    from mnote_kr.plugin_api import defined_in  # the acronyms the blocks define, from the same texts

    doc.extras.setdefault("acronyms", tuple(defined_in(texts)))
    return out


def doc_terms(doc: DocumentText) -> DocTerms:
    """The document's term statistics and its block texts, kept with it in memory."""
    cached = doc.extras.get("terms")
    if isinstance(cached, DocTerms):
        return cached
    n, df = term_stats(doc)
    out = DocTerms(doc, df, n)
    doc.extras["terms"] = out
    return out
