"""What a label is: a caption, a form's field name, an item's or a table row's name ("Visa number", "图表 1",
"Замок электромагнитный"). Such a line is near, by meaning, every question about what it names, so placing puts it
behind a line holding the question's words (``placing._label_behind``) and folding shows it behind them
(``folding._worded_first``, ``leads.lead_by_meaning``). One test for both (review r28: placing counted words by
spaces, so a Chinese sentence was one "word", and folding's test disagreed with it).
"""

from __future__ import annotations

from mnote_kr.citations.text.textnorm import TOKEN_RE, normalize

__all__ = ["LABEL_WORDS", "is_label", "label_words"]

#: At most this many words make a label.
LABEL_WORDS = 3
#: The characters of a Chinese, Japanese or Korean run counted as one word: it has no spaces, and a word of it is
#: two characters on the mean ("图表", "发票", "电话"; a run of one character is a word).
CJK_WORD_CHARS = 2


def label_words(text: str) -> int:
    """The words of ``text`` as the matchers' tokenizer reads them (``textnorm.TOKEN_RE``): each word of a script
    with spaces one, a CJK run one per ``CJK_WORD_CHARS`` characters (rounded up)."""
    return sum(-(-len(m.group("cjk")) // CJK_WORD_CHARS) if m.group("cjk") else 1
               for m in TOKEN_RE.finditer(normalize(text or "")))


def is_label(text: str) -> bool:
    """``text`` is a label: one to ``LABEL_WORDS`` words (``label_words``)."""
    return 0 < label_words(text) <= LABEL_WORDS
