"""The words of a question a place lacks, named in its reason, asked again of a place a locator moves it to.

``placing.without_lacking_claim`` makes a place claimed by a share of the query's words approximate when it lacks a
word of the question (``cjkwords.lacked_words``, ``latinwords.lacked_latin_words``), and names those words. A locator
may then move the place within the same record: the DOCX locator moves a table's header row, which the evidence
matched, to the data row the question asks about (``rows``). The words were asked of the header; the row may hold
them: "How many calories per portion do berries have?" was said to lack "berries" on the Berries row (nc28b), whose
words the header lacked. :func:`asked_again` asks them of the place moved to, as a locator's ``kind_answered`` does
for the kind of answer lacked.
"""

from __future__ import annotations

from collections.abc import Sequence

from mnote_kr.citations.locate.textdoc import P, TextDocument
from mnote_kr.citations.locate.textmatch import SEMANTIC
from mnote_kr.citations.locate.titles import front_title
from mnote_kr.citations.rank.cues import answer_types, holds_type
from mnote_kr.citations.text.cjkwords import lacked_words, query_words
from mnote_kr.citations.text.latinwords import lacked_latin_words
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import lazy_compile, normalize

__all__ = ["ASK_AGAIN", "LACKING", "asked_again", "lacked_in", "lacking_reason"]

#: A place moved within its record is asked again the words its reason said lacking (False: the reason moved with it,
#: before round 28).
ASK_AGAIN = True

_HAN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: The reason of a place made approximate for lacking words of the question, before the words.
LACKING = f"{SEMANTIC}: the evidence was found here and holds some of the query's words, not "


def lacked_in(doc: TextDocument[P], query: str, held: str, *, index: int | None = None) -> list[str]:
    """The words of ``query`` a place holding ``held`` (normalised: its text, list and headings) lacks: its Chinese
    words as written, else an English question's content words the document holds (see ``latinwords``); the title
    lines of the document's front matter (all but the place's own, ``index``) hold words every place is about."""
    q = normalize(query or "").strip()
    if not q:
        return []
    title = "\n".join(p.norm for p in doc.paragraphs if p.index != index and front_title(doc, p))
    lacks = lacked_words(q, held, title)
    if lacks:
        return lacks
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q))
    # a place stating the kind of answer asked ("seven years" for "how long") may say the question's verb otherwise
    # ("retained" for "keep", nc26b Q3)
    kind = any(holds_type(t, held) for t in answer_types(q))
    return lacked_latin_words(query, qt, held, title, states_kind=kind) if qt else []


def lacking_reason(words: Sequence[str]) -> str:
    """The reason naming the words a place lacks, each quoted: bare, "not keep (seg)" read as one garbled phrase
    once the anchor's kind followed (nc26b Q3); Chinese words joined by 、."""
    sep = "、" if any(_HAN.search(w) for w in words) else ", "
    return LACKING + sep.join(f"“{w}”" for w in words)


def asked_again(doc: TextDocument[P], reason: str, query: str, text: str) -> tuple[str, bool] | None:
    """For ``reason`` naming the words its place lacks (``LACKING``, up to its first "; "), the reason of the place
    moved to, which holds ``text`` (its row's cells and headers, its headings): the words it lacks named, or none
    (``matched query terms``), and whether it is still approximate. None for another reason."""
    if not ASK_AGAIN or not reason.startswith(LACKING):
        return None
    head, _sep, rest = reason.partition("; ")
    kind = head[head.rfind("”") + 1:] if "”" in head else ""  # the anchor's kind after the words: " (seg)"
    lacks = lacked_in(doc, query, normalize(text or ""))
    head = lacking_reason(lacks) + kind if lacks else "matched query terms"
    return (f"{head}; {rest}" if rest else head), bool(lacks)
