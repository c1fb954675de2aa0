"""Display quotes people can copy: ordinary characters, whole words, no debris.

PDF text layers and OCR leave code points that look right and search wrong: Kangxi and
CJK-radical-supplement radicals (⽚ ⽤ ⾄ for 片 用 至) and CJK compatibility ideographs;
Latin ligatures (ﬁ for fi); words hyphenated across a line break (``exam-\\nple``); stray U+FFFD replacement
characters; a space between every Chinese or Japanese character (``无 湘 不 成 军``: a text layer
whose glyphs stand apart, as LightRAG's PDF reader gives it); and a quote that starts on a
combining mark cut from its base character at the chunk boundary. ``copyable`` fixes each,
touching nothing else (fullwidth punctuation and the rest of the text stay as written).
"""

from __future__ import annotations

import re
import unicodedata

from mnote_kr.citations.cleaning.textlayer import mojibake
from mnote_kr.citations.text.textnorm import CJK_CLASS, CJK_FIRST, keeps_line_end_hyphen, lazy_compile, made_of

__all__ = ["copyable", "drop_lines", "drop_trailing_bullet", "has_whole_word", "join_cjk_gaps", "join_cjk_lines",
           "join_drop_caps", "rejoin_hyphenation",
           "symbol_bullets", "trim_chunk_edges", "trim_cut_words", "trim_to_boundaries", "unify_cjk_forms"]

# Han and kana, with their own punctuation: Chinese and Japanese put no space between words (Korean
# does: Hangul is not here). Beside one of them, the quotes, dashes and ellipsis they share with
# Latin text join too (``才有 “无湘`` → ``才有“无湘``), but not between two of those (``“a” “b”``).
_HAN_KANA = ("\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff0f\uff1a-\uff20"
             "\uff3b-\uff40\uff5b-\uff65\U00020000-\U0002a6df\U0002a700-\U0002ebef")
_SHARED = "\u2014\u2018-\u201f\u2026"
_HAN_KANA_RE = lazy_compile(f"[{_HAN_KANA}]")
_CJK_LINE_RE = lazy_compile(rf"(?<=[{_HAN_KANA}])[^\S\n]*\n\s*(?=[{_HAN_KANA}])")
_CJK_GAP_RE = lazy_compile(rf"(?<=[{_HAN_KANA}])[^\S\n]+(?=[{_HAN_KANA}{_SHARED}])"
                           rf"|(?<=[{_SHARED}])[^\S\n]+(?=[{_HAN_KANA}])")

# CJK Radicals Supplement forms without a Unicode decomposition, mapped to the ordinary
# (simplified or traditional) character they stand for in running text.
_SUPPLEMENT = {
    "\u2e84": "乙",
    "\u2e85": "亻",
    "\u2e86": "冂",
    "\u2e8c": "小",
    "\u2e8e": "兀",
    "\u2e91": "尢",
    "\u2e95": "彐",
    "\u2e96": "忄",
    "\u2e97": "㣺",
    "\u2e98": "扌",
    "\u2e9b": "旡",
    "\u2ea0": "民",
    "\u2ea3": "灬",
    "\u2ea4": "爫",
    "\u2ea6": "丬",
    "\u2ea7": "牛",
    "\u2eaa": "疋",
    "\u2eab": "罒",
    "\u2eae": "竹",
    "\u2eb2": "罒",
    "\u2eb9": "耂",
    "\u2ebc": "月",
    "\u2ebe": "艹",
    "\u2ec4": "西",
    "\u2ec5": "见",
    "\u2ec6": "角",
    "\u2ec8": "讠",
    "\u2ec9": "贝",
    "\u2ecb": "车",
    "\u2ecc": "辶",
    "\u2ecf": "阝",
    "\u2ed0": "钅",
    "\u2ed1": "长",
    "\u2ed3": "长",
    "\u2ed4": "门",
    "\u2ed6": "阝",
    "\u2ed7": "雨",
    "\u2ed8": "青",
    "\u2ed9": "韦",
    "\u2eda": "页",
    "\u2edb": "风",
    "\u2edc": "飞",
    "\u2edd": "食",
    "\u2edf": "饣",
    "\u2ee0": "饣",
    "\u2ee2": "马",
    "\u2ee3": "骨",
    "\u2ee4": "鬼",
    "\u2ee5": "鱼",
    "\u2ee6": "鸟",
    "\u2ee7": "卤",
    "\u2ee8": "麦",
    "\u2ee9": "黄",
    "\u2eea": "黾",
    "\u2eeb": "斉",
    "\u2eec": "齐",
    "\u2eed": "歯",
    "\u2eee": "齿",
    "\u2eef": "竜",
    "\u2ef0": "龙",
    "\u2ef1": "龜",
    "\u2ef2": "亀",
}
# Radicals (U+2E80-U+2FDF), compatibility ideographs and the Latin ligatures PDF text layers
# keep (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ, U+FB00-U+FB06): the only code points changed.
_CJK_FORMS_RE = lazy_compile("[\u2e80-\u2fdf\uf900-\ufaff\ufb00-\ufb06\U0002f800-\U0002fa1f]")
# a word (from its start: no rescans of a hyphen chain), a hyphen at the line end, and the next line's word
_LINE_END_HYPHEN_RE = lazy_compile(r"(?<![^\W_])(?<!-)([^\W_]+(?:-[^\W_]+)*)"
                                   r"([-\u00ad\u2010])[^\S\n]*\n[^\S\n]*(?=([^\W_]+))")
_SOFT_HYPHEN_RE = lazy_compile("\u00ad")


def _form(m: re.Match[str]) -> str:
    ch = m.group(0)
    got = _SUPPLEMENT.get(ch)
    if got is not None:
        return got
    norm = unicodedata.normalize("NFKC", ch)
    return norm if len(norm) == 1 or "\ufb00" <= ch <= "\ufb06" else ch


def unify_cjk_forms(text: str) -> str:
    """Radical, compatibility-ideograph and ligature code points to the ordinary characters
    (⽚→片, ﬁ→fi), so a copied quote finds the same words again."""
    return _CJK_FORMS_RE.sub(_form, text) if _CJK_FORMS_RE.search(text) else text


def join_cjk_gaps(text: str) -> str:
    """``无 湘 不 成 军`` → ``无湘不成军``: spaces (not line breaks) between two Chinese or Japanese
    characters or their punctuation dropped; Latin words, Hangul and a space between a Han
    character and a Latin word (``使用 OTSL 表示``) stay, and so does a space the writer put between two words
    of Han characters (``指南 第12部分``: neither side a lone glyph, ``_glyph_gap``)."""
    if text.isascii():
        return text
    return _CJK_GAP_RE.sub(lambda m: "" if _glyph_gap(text, m.start(), m.end()) else m.group(), text)


def join_cjk_lines(text: str) -> str:
    """A line break between two Chinese or Japanese characters dropped (``範囲\nおよび`` → ``範囲および``): a
    line wrapped inside a sentence, no space of the writer's; ``join_cjk_gaps`` keeps the writer's spaces."""
    return _CJK_LINE_RE.sub("", text) if "\n" in text and not text.isascii() else text


def _glyph_gap(text: str, start: int, end: int) -> bool:
    """Whether the space ``text[start:end]`` stands between glyphs set apart (a text layer's ``无 湘 不``), not
    between two words the writer spaced ("核电厂定期安全审查指南 第12部分" keeps its space): beside a shared
    quote or dash, or beside a lone character (a space or punctuation on its other side)."""
    before, after = text[start - 1], text[end]
    if not (_HAN_KANA_RE.match(before) and _HAN_KANA_RE.match(after) and before.isalnum() and after.isalnum()):
        return True  # beside punctuation ("。 三", "“无"): no word of the writer's is spaced
    # a text's end is no side: a chunk cut there ("ab 冰冰 冰") must read as the text it is cut from does
    return (start >= 2 and _apart(text[start - 2])) or (end + 1 < len(text) and _apart(text[end + 1]))


def _apart(ch: str) -> bool:
    """A space or punctuation beside a character: it stands alone (a digit or letter does not: ``第12``)."""
    return ch.isspace() or not ch.isalnum()


def rejoin_hyphenation(text: str) -> str:
    """``exam-\\nple`` → ``example``; soft hyphens dropped. A hyphen that is the word's own
    (``keeps_line_end_hyphen``: ``Jean-\\nPaul``, ``FAA-\\napproved``, or written so elsewhere in
    ``text``) stays: ``Jean-Paul``, ``FAA-approved``."""
    if "\n" in text and ("-" in text or "\u00ad" in text or "\u2010" in text):
        text = _LINE_END_HYPHEN_RE.sub(lambda m: _rejoined(m, text), text)
    return _SOFT_HYPHEN_RE.sub("", text) if "\u00ad" in text else text


def _rejoined(m: re.Match[str], text: str) -> str:
    before, hyphen, after = m.group(1), m.group(2), m.group(3)
    if hyphen == "\u00ad":
        return before  # a soft hyphen is typesetting's by definition
    if keeps_line_end_hyphen(before, after, text):
        return before + hyphen
    if before[-1].isalpha() and after[0].isalpha():
        return before
    return m.group(0)


#: A lone capital on a line (or a line's start) and the rest of its word on the next (a drop cap a PDF reader
#: gives apart: ``T\nhe Boots``).
_DROP_CAP_RE = lazy_compile(r"(?:(?<=\n)|^)([A-Z])[ \t]*(\n[ \t]*|[ \t])([a-z]+)(?![\w'\u2019-])")
_WORDS_RE = lazy_compile(r"[A-Za-z]+")
#: Words that open a paragraph often enough to be a drop cap's (beside the text's own words).
COMMON_WORDS = frozenset("""
about after again all also although an and another any are as at be because before being both but by
can could did do does during each either even every few for from had has have he her here his how if in
into is it its just many may more most much must my near neither never no nor not now of often on once
one only or other our over perhaps since so some such than that the their then there these they this
those though through thus to under unless until upon very was we were what when where whether which
while who why will with within without would yet you your""".split())


#: Capitals that are English words alone: after one space they begin a sentence ("A gain of 5%"); only a line of
#: their own (``A\nfter``) is a drop cap read apart.
_ONE_LETTER_WORDS = frozenset("AIO")


def join_drop_caps(text: str) -> str:
    """A lone capital at a line's start joined to the rest of its word on the next line (or after one space):
    ``T\nhe Boots`` -> ``The Boots``, when the joined word is a common word (``COMMON_WORDS``) or stands
    elsewhere in ``text`` as a word; otherwise kept (``A\nthe``, ``I\nam``). "A", "I" and "O" are joined only
    across a line break: after a space they are words ("A gain of 5%" is no "Again of 5%")."""
    if "\n" not in text and not text[:1].isupper():
        return text
    words: set[str] | None = None

    def joined(m: re.Match[str]) -> str:
        nonlocal words
        if m.group(1) in _ONE_LETTER_WORDS and "\n" not in m.group(2):
            return m.group(0)  # "A gain of 5%", "A bout of flu": the article before a word, no drop cap
        word = (m.group(1) + m.group(3)).casefold()
        if word not in COMMON_WORDS:
            if words is None:
                words = {w.casefold() for w in _WORDS_RE.findall(text)}
            if word not in words:
                return m.group(0)
        return m.group(1) + m.group(3)

    return _DROP_CAP_RE.sub(joined, text)


def trim_to_boundaries(text: str) -> str:
    """Start on a character, not on half of one: combining marks cut from their base
    character at the chunk boundary go (with the space before them). Punctuation stays:
    it may be what the person searched for."""
    start = 0
    while start < len(text) and (unicodedata.category(text[start])[0] == "M" or text[start].isspace()):
        start += 1
    return text[start:] if start and any(unicodedata.category(c)[0] == "M" for c in text[:start]) else text


#: The bullet Word writes in the Symbol font as a private-use code point (U+F0B7): shown as the bullet
#: it draws, not as a box, wherever it stands. Other such code points mean other glyphs in other fonts
#: (U+F071 is Wingdings' ❑ but Symbol's θ, U+F06C Wingdings' ● but Symbol's λ), which the text alone cannot
#: tell; but at a line's start, followed by a space and a word, one of Wingdings' bullets opens a list item
#: (a research report's points, each "\uf06c 事件：...": nc18a problem 6), where a Greek letter would stand
#: in its formula or sentence. In the corpus PDFs every such code point at a line's start is a bullet.
_SYMBOL_BULLET = "\uf0b7"
#: Wingdings' bullets: ● ■ □ ◻ ❑ ◆ ❖ • ▪ ◻ ➢ ➔ ✓ (``l n o p q u v``, 0x9F, 0xA7, 0xA8, 0xD8, 0xE8, 0xFC).
_PRIVATE_USE_BULLETS = "\uf06c\uf06e\uf06f\uf070\uf071\uf075\uf076\uf09f\uf0a7\uf0a8\uf0d8\uf0e8\uf0fc"
_LINE_BULLET_RE = lazy_compile(f"(?m)^([^\\S\\n]*)[{_PRIVATE_USE_BULLETS}](?=[^\\S\\n]+[^\\W\\d_])")


#: ... or inside a line, after a sentence's end or a cell's separator (a table cell's items are one line once its
#: line breaks are spaces: "please type N/A. \uf0a8 Sign and date each form", nc27a Q12).
_INLINE_BULLET_RE = lazy_compile(f"([.;:!?\u3002\uff1b\uff1a\uff01\uff1f|][^\\S\\n]+)[{_PRIVATE_USE_BULLETS}]"
                                 "(?=[^\\S\\n]+[^\\W\\d_])")


def symbol_bullets(text: str) -> str:
    """``text`` with the Symbol font's bullet (``_SYMBOL_BULLET``), and Wingdings' bullets opening an item (at a
    line's start, or after a sentence's end or a cell's separator, before a space and a word: ``_LINE_BULLET_RE``,
    ``_INLINE_BULLET_RE``), as the bullet they draw; then any other private-use code point as the glyph it draws
    (``symbolfont.as_drawn``: U+F071 elsewhere is the Symbol font's θ, U+F0FE in a form Wingdings' ☑), or as the
    mark of a character not shown (〓, ``symbolfont.UNKNOWN``): a quote never shows one as the box a reader's font
    draws, nor hides that one stood there."""
    from mnote_kr.citations.cleaning.symbolfont import as_drawn

    if _SYMBOL_BULLET in text:
        text = text.replace(_SYMBOL_BULLET, "•")
    if any(ch in text for ch in _PRIVATE_USE_BULLETS):
        text = _INLINE_BULLET_RE.sub(r"\1•", _LINE_BULLET_RE.sub(r"\1•", text))
    return as_drawn(text)


#: A bullet standing alone at a quote's end, after a space: the next item's bullet, which a PDF's text layer
#: may set on the line before it (nc25c: WeKnora's points each ended "…跳过了此步骤。 ●"), never a word of the quote.
_TRAILING_BULLET_RE = lazy_compile(f"\\s+[•●▪■◆◦‣∙❖➢{_PRIVATE_USE_BULLETS}]\\s*$")


def drop_trailing_bullet(text: str) -> str:
    """``text`` without a lone bullet at its end (``_TRAILING_BULLET_RE``): ``此步骤。 ●`` → ``此步骤。``."""
    return _TRAILING_BULLET_RE.sub("", text) if text and not text[-1].isalnum() else text


def copyable(text: str) -> str:
    """All of the above, in order; U+FFFD replacement characters dropped, a symbol font's bullets
    shown as the bullet they draw (:func:`symbol_bullets`)."""
    if "\ufffd" in text:
        text = text.replace("\ufffd", "")
    text = symbol_bullets(text)
    return trim_to_boundaries(join_cjk_gaps(join_drop_caps(rejoin_hyphenation(unify_cjk_forms(text)))))


# --------------------------------------------------------------------------- furniture lines


def _compact(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split()).casefold()


def _furniture(key: str, pieces: list[str], firsts: frozenset[str]) -> bool:
    return (not key or key[0] in firsts) and made_of(key, pieces)


def drop_lines(raw: str, omit: list[str]) -> str:
    """``raw`` without the lines that consist only of ``omit`` texts (running headers,
    footers and page numbers a locator found; see ``Locator.quote_omit``).

    Only whole lines go, compared without whitespace, case or compatibility forms, so a
    page number ``255`` never takes a ``255`` out of a sentence. A line may hold several
    of them in any order (one parser writes a header and its page number on one line,
    another on two).
    """
    pieces = sorted({c for c in (_compact(o) for o in omit) if c}, key=len, reverse=True)
    if not pieces or not raw:
        return raw
    lines = raw.splitlines(keepends=True)
    # A line made of pieces starts with a piece's first character: most lines of prose do not,
    # and skip the search over pieces (a chunk has dozens of lines, a document many pieces).
    firsts = frozenset(p[0] for p in pieces)
    kept = [line for line in lines if not (line.strip() and _furniture(_compact(line), pieces, firsts))]
    # The provider's chunk may start inside a header ("…al. / Journal of Hydrology 310 …" cut
    # after "Lane et"), or end inside one: such an edge line is the tail (head) of a piece.
    while kept and _cut_piece(_compact(kept[0]).lstrip(_EDGE_PUNCT), pieces, tail=True):
        kept.pop(0)
    while kept and _cut_piece(_compact(kept[-1]).rstrip(_EDGE_PUNCT), pieces, tail=False):
        kept.pop()
    return "".join(kept) if len(kept) != len(lines) else raw


_EDGE_PUNCT = ".,;:·•-–—/|"
_MIN_CUT_PIECE = 12  # a shorter fragment of a header may as well be ordinary words


def _cut_piece(key: str, pieces: list[str], *, tail: bool) -> bool:
    """True when ``key`` is the tail (or head) of one piece, cut at least ``_MIN_CUT_PIECE``
    characters long, followed (preceded) by nothing or by whole pieces."""
    for piece in pieces:
        for n in range(min(len(piece), len(key)), _MIN_CUT_PIECE - 1, -1):
            part = piece.lstrip(_EDGE_PUNCT)[-n:] if tail else piece.rstrip(_EDGE_PUNCT)[:n]
            if len(part) < n:
                continue
            if tail and key.startswith(part) and (n == len(key) or made_of(key[n:], pieces)):
                return True
            if not tail and key.endswith(part) and (n == len(key) or made_of(key[:-n], pieces)):
                return True
    return False


# --------------------------------------------------------------------------- cut words

_CHAR_SCRIPTS = ("CJK", "HIRAGANA", "KATAKANA", "IDEOGRAPHIC", "BOPOMOFO", "THAI", "LAO", "KHMER", "MYANMAR",
                 "TIBETAN")


def _spaced_word_char(ch: str) -> bool:
    """A letter or digit of a script that separates words by spaces (not CJK, Thai, ...):
    there a cut between two such characters halves a word."""
    if not (ch.isalnum() or unicodedata.category(ch)[0] == "M"):
        return False
    if ch.isascii():
        return True
    name = unicodedata.name(ch, "")
    return not name.startswith(_CHAR_SCRIPTS)


#: A chunk at least this long may be a token window cut at its end; a shorter one is, far
#: more often, a whole document or paragraph, whose last word is whole (LightRAG's
#: default window is 1200 tokens, some 4000 characters).
CUT_CHUNK_CHARS = 1000
_OPEN_PUNCT = "([{\"'‘“«<"
_CLOSE_PUNCT = ")]}\"'’”»>,;:.!?"
_ORPHAN_PUNCT = ")]},;:.!?»’”"  # closing marks that cannot open a quote


def trim_cut_words(text: str, query: str = "", *, end_cut: bool = True, start_cut: bool = True) -> str:
    """Drop a half word at either end of a quote cut from a longer text at any character.

    A provider chunk is a window of tokens: it can start inside a word (``orestation``) and
    end inside one (``Hydrol``). Nothing in the quote says whether its first word is whole,
    so the rule is conservative: a first word that starts in lower case or with a digit, a
    last word that ends in a letter or digit (when ``end_cut``), is dropped with the
    punctuation hanging off it. A capitalised first word, a word ending in punctuation, a
    CJK, Thai or similar edge (characters are boundaries there) and a whole query word
    stay. The quote is never emptied.
    """
    words = {w.casefold() for w in query.split()}
    # a chunk cut just after a word starts on that word's trailing punctuation (". (2), using"
    # after "Eq", ", Uday Kumar" after "Vagale"): it belongs to the text before the quote
    out = text.lstrip(_ORPHAN_PUNCT + " \t\n") or text if start_cut else text
    # start
    i = 0 if start_cut else len(out)
    while i < len(out) and _spaced_word_char(out[i]):
        i += 1
    if 0 < i < len(out) and (out[0].islower() or out[0].isdigit()) and out[:i].casefold() not in words:
        rest = out[i:].lstrip(_CLOSE_PUNCT + " \t\n")
        if rest:
            out = rest
    # end
    j = len(out)
    while j > 0 and _spaced_word_char(out[j - 1]):
        j -= 1
    if end_cut and 0 < j < len(out) and (out[j - 1].isspace() or out[j - 1] in _OPEN_PUNCT) \
            and out[j:].casefold() not in words:
        rest = out[:j].rstrip(_OPEN_PUNCT + " \t\n")
        if rest:
            out = rest
    return out


def trim_chunk_edges(display: str, raw: str, query: str = "", *, start_cut: bool = True,
                     mark_end: bool = False) -> str:
    """The display quote of the provider chunk ``raw`` without a half word at either end:
    ``trim_cut_words`` with the end trimmed only for a chunk long enough to be a cut window.
    ``start_cut=False`` when the quote no longer starts at the chunk's edge (a header line
    before it was dropped), so its first word is whole. ``mark_end``: such a window's end, cut
    mid-sentence, ends with "…" as every quote cut elsewhere does (its last sentence goes on)."""
    end_cut = len(raw) >= CUT_CHUNK_CHARS
    out = trim_cut_words(display, query, end_cut=end_cut, start_cut=start_cut)
    if mark_end and end_cut and out.strip() and not _ended(out):
        out = out.rstrip() + "…"
    return out


_SENTENCE_END = ".!?。！？…"
_AFTER_END = ")]}\"'’”»」』）"


def _ended(text: str) -> bool:
    """Whether ``text`` ends a sentence: its last mark a full stop, question or exclamation mark or an
    ellipsis, or a closing bracket or quotation mark right after one."""
    t = text.rstrip()
    while t and t[-1] in _AFTER_END:
        t = t[:-1]
    return bool(t) and t[-1] in _SENTENCE_END


_LETTER_RUN_RE = re.compile(r"[^\W\d_]+")
_TOKEN_EDGES = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum()) + "，。、；：？！“”‘’（）《》…—·"


def has_whole_word(text: str, query: str = "") -> bool:
    """Whether a quote holds a word a reader can take from the passage: a letter of a script written without
    spaces (CJK, Thai: each is a boundary), or a run of two or more letters, unless the whole quote is one
    lower-case run (``ination``: the tail of a word a chunk window cut, nothing else in it). Page furniture
    (``(2005) 253–265 265``: numbers and dashes) holds none. A query's own term (two characters or more)
    counts as a word: a number asked for is the passage's point."""
    folded = text.casefold()
    if query and any(len(term) > 1 and term in folded for term in query.casefold().split()):
        return True
    runs = [run for run in _LETTER_RUN_RE.findall(text) if len(run) > 1 or not _spaced_word_char(run)]
    if not runs:
        return False
    return any(not _spaced_word_char(ch) for run in runs for ch in run) or not (
        len(runs) == 1 and text.strip() == runs[0] and runs[0][0].islower())


#: Characters no word holds inside it (after its edges' punctuation is taken off): a token holding one is
#: glyphs a text layer read from a figure's font with no letters mapped (``?>9@aj.d<f@-<>2.@a:0>#3$4,56#``).
_GLYPH_CHARS = frozenset('<>?@#$%!"|~;\\')
#: An address holds some of them and is a word: ``patrickl@unimelb.edu.au``, ``https://x.org/a?b=1#c``.
_ADDRESS_RE = lazy_compile(r"[\w.+-]+[@＠][\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+", re.IGNORECASE)
_CJK_RE = lazy_compile(f"[{CJK_CLASS}]")
#: Below this share of its characters in word tokens a text is mostly glyphs.
WORD_SHARE = 0.5


def _word_shaped(core: str) -> bool:
    """Whether a token holding ``_GLYPH_CHARS`` is still words: an address, or code whose pieces between its
    signs are mostly names (``ss->segment``, ``a<b``: at least half its letters and digits stand in pieces of
    two letters or more without a digit). Glyph soup's pieces are digits and lone letters (``1@>8:?.A?@2D2``)."""
    if _ADDRESS_RE.fullmatch(core):
        return True
    pieces = [p for p in re.split(r"\W+", core) if p]
    named = sum(len(p) for p in pieces if len(p) > 1 and not any(ch.isdigit() for ch in p))
    return 2 * named >= sum(len(p) for p in pieces)


def mostly_glyphs(text: str) -> bool:
    """Whether ``text`` is mostly glyph soup, no place to cite: under ``WORD_SHARE`` of its counted characters
    stand in word tokens. A token is a word when, its edges' punctuation off, it holds a letter or digit and
    none of ``_GLYPH_CHARS`` (``R&D`` and ``1:01`` are words, ``ka>29:92>#`` is not) or is shaped as words
    (``_word_shaped``: an e-mail, a URL, code's ``ss->segment``); a word counts its characters without its
    edges' punctuation (``(+/-)YOY(%)`` is ``YOY``). A token without a letter or digit counts against only
    when it holds one of ``_GLYPH_CHARS`` (``!"#``): a formula's ``=`` and ``·``, a contents line's dot
    leaders (``Notices . . . . 7``) and a dash stand aside. Figure labels read through a font without a
    letter map are soup; a sentence, a formula, code, a table's row of numbers, a contents line, an e-mail
    line or a CJK line is not. Mojibake is too (``textlayer.mojibake``: a font without a usable Unicode map
    read as Latin-1 and control characters, ``K¥"N ²£+8B" {±^5)û 2009 c8ÔèÿÁ1 1 U``). Remembered by text
    (``GLYPHS_MEMO_MAX``)."""
    hit = _glyphs_memo.get(text) if GLYPHS_MEMO_MAX > 0 else None
    if hit is None:
        hit = _mostly_glyphs(text)
        if GLYPHS_MEMO_MAX > 0:
            if len(_glyphs_memo) >= GLYPHS_MEMO_MAX:
                _glyphs_memo.clear()  # one call, safe beside another thread's locate
            _glyphs_memo[text] = hit
    return hit


#: Answers of ``mostly_glyphs`` kept by text (0: none). Every place a search shows and every place behind a
#: passage is asked, again at each search that shows it, and measuring its text (``textlayer.mojibake``'s
#: character shares) was ~4 s of 30 warm searches with places ranked by meaning (round 27,
#: ``benchmarks/search_cost.py``); a place's text is a few hundred characters.
GLYPHS_MEMO_MAX = 8192
_glyphs_memo: dict[str, bool] = {}


def _mostly_glyphs(text: str) -> bool:
    tokens = text.split()
    if not tokens:
        return False
    if mojibake(text):
        return True
    words = total = 0
    for token in tokens:
        core = token.strip(_TOKEN_EDGES)
        if any(ch.isalnum() for ch in core) and (not _GLYPH_CHARS & set(core) or _word_shaped(core)):
            words += len(core)
            total += len(core)
        elif core and max(core) >= CJK_FIRST:
            # CJK is written without spaces: a sentence is one token, its "<" (放热反应，Q<0) no glyph soup. A
            # font without a letter map never reads as ideographs, so those count as words, the rest not.
            words += len(_CJK_RE.findall(core))
            total += len(core)
        elif any(ch.isalnum() for ch in core) or _GLYPH_CHARS & set(token):
            total += len(token)
    return words < WORD_SHARE * total
