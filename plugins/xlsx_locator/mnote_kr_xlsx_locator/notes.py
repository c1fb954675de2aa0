"""Whether a cell comment (a note, or a comment or reply of a thread) holds what the query asks.

A comment's line reads ``Comment on Sheet1!A1 (John Reviewer): Why Python specifically?``: the host's matcher
sees all of it, so "sample reviewer comment" met "reviewer" in the author's name and "comment" in the line's
lead and called the note an exact place. What a note says is its words (``RowParagraph.words``), read where
it stands: its kind ("comment", "note", "reply"), its sheet and cell, the commented cell's header, value and
row label. Who wrote it is not what it says: the author's name counts only when the query names the whole
name (its words, initials in parentheses aside: "comment by John Reviewer", "Jane Smith's notes"); one word
of it ("reviewer", "Jane") could be anyone's and leaves the note an approximate place.

The query's content words (the locator's ``query_words``) are asked only when the workbook holds them
somewhere, by their stems (as the host's ``holds_query``: no place of this workbook could hold the others).
"""

from __future__ import annotations

import re

from mnote_kr.plugin_api import TextDocument, iter_tokens, normalize, stem

from .reader import RowParagraph, column_letter

#: What a comment's line is, in the words a query names it by.
KINDS = frozenset({"comment", "comments", "note", "notes", "remark", "remarks"})
#: The switch for the comparison (False: a comment is exact as the host's matcher says, before round 19).
BY_CONTENT = True


def _stems(text: str) -> set[str]:
    return {stem(tok) for tok, _, _ in iter_tokens(normalize(text))}


def _name(author: str) -> set[str]:
    """The author's name words, its parenthesised initials aside: "Jane Smith (JS)" is Jane Smith."""
    return _stems(re.sub(r"\([^)]*\)", " ", author))


def note_content(doc: TextDocument[RowParagraph], note: RowParagraph, query_stems: set[str]) -> set[str]:
    """The stems of what ``note`` holds for a question: its words, kind, sheet and cell, the commented cell's
    header, value and row label, and its author's name only when ``query_stems`` name all of it."""
    col = note.cells[0][0]
    held = _stems(note.words) | _stems(note.sheet) | {stem(k) for k in KINDS} | _stems(note.headers.get(col, ""))
    held |= _stems(f"{column_letter(col)}{note.row}") | ({"reply"} if note.reply else set())
    row = next((p for p in doc.paragraphs if not p.comment and p.sheet == note.sheet and p.row == note.row
                and col in dict(p.cells)), None)
    if row is not None:
        values = dict(row.cells)
        held |= _stems(values[col]) | _stems(values.get(row.label_column, "") if row.label_column else "")
    name = _name(note.author)
    if name and name <= query_stems:
        held |= name
    return held


def note_holds_query(doc: TextDocument[RowParagraph], note: RowParagraph, words: set[str]) -> bool:
    """Whether the comment ``note`` holds every content word of the query (``words``) that the workbook holds
    anywhere (its notes' authors too: a word only an author's name holds is asked, and a note holds it only
    when the query names that author whole). True when ``BY_CONTENT`` is off."""
    if not BY_CONTENT:
        return True
    asked = {stem(w) for w in words}
    present = {stem(t) for t in doc.postings} & asked
    return present <= note_content(doc, note, asked)
