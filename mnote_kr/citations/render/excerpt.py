"""The quote a source card prints: the part of a ``displayQuote`` that answers, shortened around it.

A card's quote line holds about ``width`` characters; ``--json`` keeps the whole ``displayQuote``. The
shortening keeps the answering sentence in view: the sentence that holds the query as written, else the
one holding most of its terms (weighted by rarity, as the quote itself was chosen), else the quote's first
(a ``displayQuote`` leads with its answering sentence; a question in another language shares no word with
it). That sentence is shown whole when it is at most ``WHOLE_SENTENCE`` characters, even past ``width``:
an answer is often a sentence's last words ("... for a period of not less than seven years."). A longer
one (a table's row, a PDF line run without full stops) is cut to a window around the query's words.
"..." marks each side cut; no word is cut in half.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.quote import _held, sentences

#: An answering sentence up to this long is printed whole, whatever the card's ``width``.
WHOLE_SENTENCE = 360


def excerpt(text: str, query: str, width: int = 240) -> str:
    """About ``width`` characters of ``text`` that keep its answering sentence in view (module docstring)."""
    if len(text) <= width:
        return text
    spans = sentences(text) or [(0, len(text))]
    a, b = spans[_anchor(text, spans, query)]
    if b - a <= WHOLE_SENTENCE:
        start, end = a, max(b, min(len(text), a + width))
        keep = b  # the sentence's end stays; only what follows it may be cut between words
    else:
        at = _query_at(text[a:b], query)
        start = a + max(0, at - width // 3) if at >= 0 else a
        end = min(b, start + width)
        keep = a + at + 1 if at >= 0 else start  # the query's first letter stays
    # Cut on word boundaries (a half word reads as a typo); CJK has none to look for.
    # (nor does a quote start on the full stop or comma of the word left behind: ".... (2),")
    if start > a and (_in_word(text, start) or (text[start - 1].isalnum() and text[start] in ".,;:!?)]}")):
        space = text.find(" ", start, end)
        start = space + 1 if space >= 0 else start
    if end < len(text) and _in_word(text, end):
        space = text.rfind(" ", max(start, keep), end)
        end = space if space > start else end
    shown = text[start:end].strip()
    # after a sentence's full stop the cut reads " ..." ("seven years. ..."), never "years...."
    after = (" ..." if shown.endswith((".", "。", "!", "?", "！", "？")) else "...") if end < len(text) else ""
    return ("..." if start else "") + shown + after


def _anchor(text: str, spans: list[tuple[int, int]], query: str) -> int:
    """The index of the sentence to keep: the one holding the query as written, else the one holding most
    of its terms, else the first."""
    pieces = [text[a:b] for a, b in spans]
    wanted = query.strip().casefold()
    if wanted:
        verbatim = next((i for i, p in enumerate(pieces) if wanted in p.casefold()), None)
        if verbatim is not None:
            return verbatim
    held = _held(pieces, query) if query.strip() else []
    return held.index(max(held)) if held and max(held) > 0 else 0


def _query_at(text: str, query: str) -> int:
    """Where ``query`` appears in ``text`` (as written, else its longest word of three letters or more that
    does), or -1."""
    folded = text.casefold()
    at = folded.find(query.casefold()) if query else -1
    if at < 0 and query:
        for term in sorted(query.casefold().split(), key=len, reverse=True):
            at = folded.find(term) if len(term) > 2 else -1
            if at >= 0:
                break
    return at


def _in_word(text: str, i: int) -> bool:
    """True when ``i`` falls between two letters or digits of a space-separated word."""
    a, b = text[i - 1], text[i]
    return a.isalnum() and b.isalnum() and a.isascii() and b.isascii()
