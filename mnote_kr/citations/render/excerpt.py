"""The quote a source card prints: the part of a ``displayQuote`` that answers, shortened around it.

A card's quote line holds about ``width`` characters; ``--json`` keeps the whole ``displayQuote``. The
shortening keeps the answering sentence in view: the sentence that holds the query as written, else the
one holding most of its terms (weighted by rarity, as the quote itself was chosen), else the quote's first
(a ``displayQuote`` leads with its answering sentence; a question in another language shares no word with
it). That sentence is shown whole when it is at most ``WHOLE_SENTENCE`` characters, even past ``width``:
an answer is often a sentence's last words ("... for a period of not less than seven years."). A longer
one (a table's row, a PDF line run without full stops) is cut to a window around the query's words.
"..." marks each side cut; no word is cut in half. A later (or earlier) sentence holding query terms the answering
one lacks is kept too, the sentences between it cut to "..." (nc24d: "trustee ... final report ... after all checks
have cleared. ... the final report is to be filed within 150 days of the last disbursement": the card cut the
answer off behind a statute reference, the ``displayQuote`` kept it), while they fit in ``WHOLE_SENTENCE``.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.quote import _held, _uninflected, sentences

#: An answering sentence up to this long is printed whole, whatever the card's ``width``.
WHOLE_SENTENCE = 360


def excerpt(text: str, query: str, width: int = 240, whole: int = WHOLE_SENTENCE) -> str:
    """About ``width`` characters of ``text`` that keep its answering sentence in view (module docstring); a text of
    at most ``whole`` characters is shown whole (``WHOLE_SENTENCE``: a ``displayQuote`` of two or three sentences,
    the cited paragraph, is read whole; nc27a's "What joins the two halves of a Boots nut together?" printed "... a
    load-carrying nut. The..." and cut the third sentence, which answers, off a 330-character quote)."""
    if len(text) <= max(width, whole):
        return text
    spans = sentences(text) or [(0, len(text))]
    anchor = _anchor(text, spans, query)
    a, b = spans[anchor]
    if b - a <= WHOLE_SENTENCE and (picked := _with_missing(text, spans, anchor, query, width)):
        return picked
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


def _with_missing(text: str, spans: list[tuple[int, int]], anchor: int, query: str, width: int) -> str | None:
    """The answering sentence with the sentences holding query terms it lacks (each adding a term the ones kept
    lack, most first), in the text's order with "..." for what is cut between and around them, when one such
    sentence would not be shown whole otherwise and they fit in ``WHOLE_SENTENCE``; else None."""
    if not query.strip():
        return None
    from mnote_kr.citations.rank.ranking import _bm25_terms  # noqa: PLC0415 - loaded with the pipeline

    wanted = {_uninflected(t) for t in _bm25_terms(query)}
    held = [wanted.intersection(map(_uninflected, _bm25_terms(text[a:b]))) for a, b in spans]
    kept, have = [anchor], set(held[anchor])
    room = max(width, WHOLE_SENTENCE) - (spans[anchor][1] - spans[anchor][0])
    while True:
        more = [(len(h - have), i) for i, h in enumerate(held) if i not in kept and h - have
                and spans[i][1] - spans[i][0] + 5 <= room]
        if not more:
            break
        _, i = max(more, key=lambda m: (m[0], -abs(m[1] - anchor)))
        kept.append(i)
        have |= held[i]
        room -= spans[i][1] - spans[i][0] + 5
    if len(kept) == 1 or max(spans[i][1] for i in kept) <= spans[anchor][0] + width and min(kept) == anchor:
        return None  # nothing added, or what is added shows anyway in the window after the answering sentence
    kept.sort()
    out = "..." if spans[kept[0]][0] > 0 and text[:spans[kept[0]][0]].strip() else ""
    for n, i in enumerate(kept):
        if n and spans[kept[n - 1]][1] < spans[i][0] and text[spans[kept[n - 1]][1]:spans[i][0]].strip():
            out += " ..."
        out += (" " if out.strip(".") else "") + text[spans[i][0]:spans[i][1]].strip()
    return out + (" ..." if text[spans[kept[-1]][1]:].strip() else "")


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
