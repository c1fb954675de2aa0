"""Where a recognised line leaves its sentence for the next line to finish (the lines a quote and a box take,
and a line's word share is read with: ``locating`` and ``places``), and the quote those lines make: one text
(``join_lines``), run on to the end of the sentence its last line leaves open (``sentence_quote``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .spaces import cjk

if TYPE_CHECKING:
    from .scan import Line, Page

_SENTENCE_END = re.compile(r"[.!?。！？](?:[\s\"'”’)）]|$)")
#: Words a line may not end a sentence with: the next line goes on with it ("conversion to / JSON ...").
_OPEN_WORDS = frozenset("a an the to of and or nor but in on at by for with from into as than that which who "
                        "whose is are was were be been".split())

#: A line opening with a note's mark ("（11）卡尔·马克思…", "① …"): a footnote, set below the body's last line, which
#: recognition may read into the paragraph; no sentence of the body goes on in it.
_NOTE = re.compile(r"\s*(?:[（(]\d{1,3}[)）]|[\u2460-\u2473])")


def goes_on(line: str, nxt: str) -> bool:
    """Whether recognised ``line`` leaves its sentence for ``nxt`` to finish: it holds no sentence's end,
    and it ends with a comma or a word no sentence ends with, or ``nxt`` opens in lowercase or with a digit,
    or both are CJK at the break (a Chinese line wraps mid-sentence). No sentence goes on in a line opening with a
    note's mark (``_NOTE``: a footnote)."""
    line, nxt = line.rstrip(), nxt.lstrip()
    if not line or not nxt or _SENTENCE_END.search(line) or _NOTE.match(nxt):
        return False
    last = line.split()[-1].casefold()
    return line[-1] in ",，、;；:：-–" or last in _OPEN_WORDS or nxt[0].islower() or nxt[0].isdigit() \
        or (cjk(line[-1]) and cjk(nxt[0]))


def line_goes_on(line: Line, nxt: Line) -> bool:
    """``goes_on`` for two recognised lines; a table row (``Line.cells`` > 1) is a place of its own: no row
    goes on into the next one or from a line above it (``Creatinine | 1.1 mg/dL`` is not finished by
    ``eGFR | 82 mL/min`` for opening in lowercase)."""
    return line.cells == 1 and nxt.cells == 1 and goes_on(line.text, nxt.text)


def join_lines(texts: list[str]) -> str:
    """Recognised lines as one text: no space at a break beside a CJK character (a Chinese line wraps inside a
    word), one between Latin words, none after a hyphen (dropped where it is typesetting's: ``exam- / ple``, kept
    where it is the word's own: ``FAA- / approved``, as the host judges one)."""
    from mnote_kr.plugin_api import keeps_line_end_hyphen

    out = ""
    for raw in texts:
        text = raw.strip()
        if not text or not out:
            out = out or text
            continue
        before, after = out[-1], text[0]
        if before == "-" and len(out) > 1 and out[-2].isalpha() and after.isalpha():
            word = out[:-1].split()[-1] if out[:-1].split() else ""
            head = re.match(r"\w+", text)
            keep = keeps_line_end_hyphen(word, head.group() if head else "")
            out = (out if keep else out[:-1]) + text
        elif cjk(before) or cjk(after) or before in "-/":
            out += text
        else:
            out += " " + text
    return out


#: A sentence's end: a Chinese or Japanese full stop, question or exclamation mark anywhere; a Latin one before a
#: space, a closing mark, a CJK character (a maths book's "成立.此时") or the text's end (not "1.5", "a.m").
_ENDS = re.compile(r"[。！？]|[.!?](?=[\s\"'”’)）\]」』]|$|[\u3400-\u9fff])")
_CLOSERS = "\"'”’)）]」』"


def sentence_end(text: str, start: int = 0) -> int | None:
    """Where the first sentence ending at or after ``start`` ends in ``text`` (its closing marks with it), or None."""
    found = _ENDS.search(text, start)
    if found is None:
        return None
    end = found.end()
    while end < len(text) and text[end] in _CLOSERS:
        end += 1
    return end


def mid_sentence(text: str) -> bool:
    """Whether ``text`` stops inside a sentence: on a letter, a digit, a comma or the like (not a sentence's end, not
    a colon opening a formula or a list, not a closing mark)."""
    text = text.rstrip()
    return bool(text) and (text[-1].isalnum() or text[-1] in ",，、;；")


def _tail(text: str) -> str:
    """What ``text`` says after its last sentence's end (all of it when it has none; '' when it ends one)."""
    start = 0
    while (end := sentence_end(text, start)) is not None:
        start = end
    return text[start:].strip()


#: A quote runs on to its sentence's end while it stays within this many characters (the host's bound on a
#: quote, ``cleaning.quote.QUOTE_CHARS``); a sentence running longer leaves the quote at its lines.
QUOTE_CHARS = 320


def _below(page: Page, li: int, members: list[int]) -> list[int]:
    """The paragraph set right below line ``li`` (the last of its paragraph ``members``) in its column, when one
    goes on there: its first line starts under it as close as a paragraph's next line does (``scan.paragraphs``:
    0.9 of its height), overlaps it over half the narrower width, and is not indented past it (a paragraph's first
    line). Recognition ends a paragraph where a line it reads in between (a margin note beside it: the scanned
    Capital's "14 ( I)") stands in no column with it, though the text runs on below."""
    box = page.lines[li].box
    for para in page.paragraphs:
        if para is members or not para:
            continue
        top = page.lines[para[0]].box
        tall = top[3] - top[1]
        shared = min(top[2], box[2]) - max(top[0], box[0])
        if 0 <= top[1] - box[3] <= 0.9 * tall and shared > 0.5 * min(top[2] - top[0], box[2] - box[0]) \
                and top[0] <= box[0] + tall:
            return para
    return []


def _part_box(text: str, box: list[float], chars: int) -> list[float]:
    """The box of the first ``chars`` characters of a line: cut at the share of its width they take (a CJK
    character twice a Latin one's), one character's width to spare, never past the line's own end."""
    if chars >= len(text):
        return box
    weight = [2 if cjk(ch) else 1 for ch in text]
    share = (sum(weight[:chars]) + 2) / sum(weight)
    return [box[0], box[1], min(box[2], round(box[0] + share * (box[2] - box[0]), 2)), box[3]]


def sentence_quote(page: Page, members: list[int], cited: list[int]) -> tuple[list[int], str, list[list[float]]]:
    """The quote of the ``cited`` lines of paragraph ``members``: their text as one (``join_lines``), and when it
    stops inside a sentence, the lines that finish it, the last one cut at the sentence's end: the paragraph's next
    lines, or past its end (``mid_sentence``) the paragraph below in the column (``_below``), while the quote
    stays within ``QUOTE_CHARS``. Returns the lines, the quote and each line's box as quoted (the last one's cut
    at its share: ``_part_box``). A table row neither runs on nor is run into; a sentence not finished within the
    bound leaves the quote at ``cited``'s lines."""
    lines = page.lines
    quote = join_lines([lines[li].text for li in cited])
    boxes = [lines[li].box for li in cited]
    if not _tail(quote) or any(lines[li].cells > 1 for li in cited):
        return cited, quote, boxes
    para, at = members, members.index(cited[-1]) + 1  # the paragraph read on, and its next line
    taken = list(cited)
    text = quote
    while True:
        if at == len(para):
            if not mid_sentence(text):
                break
            para, at = _below(page, taken[-1], para), 0
            if not para:
                break
        li = para[at]
        at += 1
        line = lines[li]
        if line.cells > 1 or not goes_on(_tail(text), line.text):
            break
        grown = join_lines([text, line.text])
        end = sentence_end(grown, len(text))
        if end is not None and end <= QUOTE_CHARS:
            own = line.text.strip()
            kept = end - (len(grown) - len(own))
            return [*taken, li], grown[:end], [*(lines[k].box for k in taken), _part_box(own, line.box, kept)]
        if len(grown) >= QUOTE_CHARS:
            break
        taken.append(li)
        text = grown
    return cited, quote, boxes
