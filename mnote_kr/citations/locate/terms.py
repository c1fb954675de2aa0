"""A standard's terms: a question asking a term's definition is cited on it, and a term line answers nothing else.

A Chinese standard lists its terms under "3 术语和定义": a term line naming the term ("定期安全评价 periodic safety
review"), then the paragraph defining it ("以规定的时间间隔对运行核电厂的安全性进行的系统性的再评价，…"). Over the
three standard drafts of a newcomer (nc24a, round 24), questions asking a term's meaning landed anywhere but its
definition: "定期安全评价是什么意思？" on the definition of 总体评价 (the next term, which writes 定期安全评价
in its own definition), "定期安全评价的定义" on the scope clause, "What is the definition of periodic safety
review?" on the term line; and questions asking something else ("How often must a nuclear power plant carry out
a periodic safety review?", "Which safety factors does a periodic safety review … cover?") led with the term
line of each file, which holds the question's setting words and answers nothing.

The rules, learnt from the file's own layout, no list of terms:

* a **term line** is a short body paragraph under a heading naming terms or definitions (术语, 定义, terms,
  definitions, glossary), no sentence (no sentence-ending mark), whose next paragraph with words is a body paragraph
  of the same section that is one: its **definition**;
* a question asking a definition (定义, 含义, 什么意思, 指什么, "definition", "define", "what does … mean", "what is
  meant by"; or "什么是 X" / "X是什么" / "What is X?" whose X is a term the file defines) and naming a term the file
  defines (its Chinese or its English name; the longest named) is cited on that term's definition, claimed: the
  definition is what it asks. A term named in no term line changes nothing;
* a term line the place landed on otherwise gives way: to its definition for a definition question, else to the
  first place behind it that is a body paragraph and no term line (holding a word of the question, unless the
  question is written in the other script than the file's body), else to its definition; approximate either way,
  and a term line that held only the words naming the document's subject (``subject``) still says so of the card.
  A term searched as written ("定期安全评价 periodic safety review") keeps its line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from mnote_kr.citations.caches.memo import HolderMemo
from mnote_kr.citations.locate.otherscript import other_script
from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.definitions import asked_term, keeps_setting, names_term
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

__all__ = ["DEFINITIONS_LEAD", "NAMED_TERM", "asks_definition", "at_definition", "at_prose_definition", "term_lines"]

#: A definition question naming a term the file defines is cited on its definition, and a term line leads no
#: question (False: placed by words and meaning alone, as before round 25).
DEFINITIONS_LEAD = True

#: A heading naming a terms section (normalised: lower case).
_TERMS_HEADING = re.compile(r"术语|定义|名词解释|\bterms\b|\bdefinitions?\b|\bglossary\b|\bterminology\b")
#: A term line is no sentence: it ends with no sentence mark and holds none inside.
_SENTENCE = re.compile(r"[。；;！？!?]|[.:：]\s*$")
#: Longest term line (characters): a term with its English name, not a paragraph.
_TERM_LEN = 80
#: The question asks what a term means.
_ASKS = re.compile(r"定义|含义|什么意思|意思是|指什么|指的是什么|是指|概念|\bdefin(?:e|ed|ition)s?\b|\bmeaning\b|"
                   r"\bwhat does .+ mean\b|\bwhat is meant by\b|\bstands? for\b")
#: "什么是 X" / "X是什么" / "What is X?": a definition question when X is a term the file defines.
_WHAT_IS = (re.compile(r"^\s*什么(?:是|叫)(?:做)?(.+?)[？?。\s]*$"), re.compile(r"^\s*(.+?)(?:是|指)什么[？?。\s]*$"),
            re.compile(r"^\s*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(.+?)[?.\s]*$"))
#: Numbering before a term ("3.1", "3.1.2 ").
_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\s*")

#: How ``subject`` and ``placing`` say a place only names the document's subject (``render.weakabsent.DECLINING``
#: reads the same words: a search whose every card says so is weak).
_DECLINED = ("naming the document's subject", "it names the subject, it does not answer")

_MEMO: HolderMemo[dict[int, tuple[int, tuple[str, ...]]]] = HolderMemo(16)
#: How :func:`at_prose_definition` says why it chose its paragraph (``units`` keeps the claim and marks the sentence).
NAMED_TERM = "the paragraph naming the term the question asks about"


def _body(para: TextParagraph) -> bool:
    return bool(para.tokens) and not para.in_toc and not para.heading_level


def _names(text: str) -> tuple[str, ...]:
    """The names a term line gives its term: its Chinese run and its English name ("定期安全评价",
    "periodic safety review"), normalised."""
    norm = _NUMBER.sub("", normalize(text)).strip()
    cut = re.search(r"[a-z]", norm)
    if cut is None:
        return (norm,) if norm else ()
    head, tail = norm[:cut.start()].strip(), norm[cut.start():].strip(" \t()（）")
    if not head:
        return (tail,) if tail else ()
    return tuple(n for n in (head, tail) if n and len(n) > 1)


def term_lines(doc: TextDocument[P]) -> dict[int, tuple[int, tuple[str, ...]]]:
    """Each term line of ``doc`` (module docstring): its index to the index of its definition and the term's
    names, found once per document (the memo holds the document, so its ``id`` is not reused while remembered)."""
    def find() -> dict[int, tuple[int, tuple[str, ...]]]:
        paras = doc.paragraphs
        found: dict[int, tuple[int, tuple[str, ...]]] = {}
        for i, para in enumerate(paras):
            text = para.text.strip()
            if not _body(para) or len(text) > _TERM_LEN or _SENTENCE.search(text) \
                    or not any(_TERMS_HEADING.search(normalize(h)) for h in para.heading_path):
                continue
            nxt = next((p for p in paras[i + 1:i + 4] if p.tokens), None)
            if nxt is None or not _body(nxt) or nxt.heading_path != para.heading_path \
                    or len(nxt.text.strip()) <= len(text) or not _SENTENCE.search(nxt.text):
                continue
            if names := _names(text):
                found[i] = (nxt.index, names)
        return found
    return _MEMO.get((id(doc), "terms"), doc, find)


def _named(terms: dict[int, tuple[int, tuple[str, ...]]], q: str) -> tuple[int, int] | None:
    """``(term line, definition)`` of the term whose longest name ``q`` holds, the longest such; None."""
    best = max(((len(n), line, d) for line, (d, names) in terms.items() for n in names
                if (n in q if not n.isascii() else re.search(rf"\b{re.escape(n)}\b", q))), default=None)
    return None if best is None else (best[1], best[2])


def asks_definition(query: str, names: tuple[str, ...] = ()) -> bool:
    """Whether ``query`` asks what a term means (a definition cue, or "什么是 X" / "X是什么" / "What is X?" whose
    X is one of ``names``, normalised)."""
    q = normalize(query or "").strip()
    if _ASKS.search(q):
        return True
    for pattern in _WHAT_IS:
        if (m := pattern.match(q)) and m.group(1).strip(" '\"“”‘’《》") in names:
            return True
    return False


def at_definition(doc: TextDocument[P], match: Match, query: str,
                  passage: Callable[[], Sequence[int]] | None = None) -> Match:
    """``match`` moved to the definition of the term a definition question names, or off a term line (module
    docstring); for a question asking a term no term line names, to the paragraph naming it in prose
    (:func:`at_prose_definition`); unchanged otherwise."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if not DEFINITIONS_LEAD or para is None or not q:
        return match
    terms = term_lines(doc)
    named = _named(terms, q) if terms else None
    if named is None:
        match = at_prose_definition(doc, match, query, passage)
        para = match.paragraph
    if not terms or para is None:
        return match
    defining = asks_definition(q, tuple(n for _d, names in terms.values() for n in names))
    paras = doc.paragraphs
    if defining and named is not None:
        line, definition = named
        if para.index == definition:
            return match if not match.reason.startswith(SEMANTIC) else dataclasses.replace(
                match, reason="the definition of the term the question names")
        place = paras[definition]
        behind = tuple(r for r in (dataclasses.replace(match, runners_up=()), *match.runners_up)
                       if r.paragraph is not None and r.paragraph.index not in (definition, line))
        return Match(place, match.score, (0, len(place.text)), "the definition of the term the question names "
                     f"(under its term line \"{paras[line].text.strip()}\")", match.anchor, None, behind)
    if para.index not in terms or q in para.norm:  # a term searched as written is its line
        return match
    definition = paras[terms[para.index][0]]
    lead: Match | None = None
    if not defining:
        qt = QueryTerms(q, doc.df, len(paras), getattr(doc, "defined", ()), query_words(q))
        across = other_script(doc, q)
        lead = next((r for r in match.runners_up if r.paragraph is not None and _body(r.paragraph)
                     and r.paragraph.index not in terms
                     and (across or any(qt.weights[k] > 0 for k, _pos, _w in qt.hits(r.paragraph.norm)))), None)
    if lead is None:
        lead = next((r for r in match.runners_up if r.paragraph is definition),
                    Match(definition, match.score, None, match.reason, match.anchor, None, ()))
    assert lead.paragraph is not None
    why = ("the definition under the term line the evidence matched" if lead.paragraph is definition
           else "placed by meaning among the places behind the evidence's, over the term line it matched")
    if any(m in match.reason for m in _DECLINED):  # the line's own judgement stays the card's (the weak flag reads it)
        why += "; the term line held only the words naming the document's subject, not what the question asks"
    own = dataclasses.replace(match, reason=f"{SEMANTIC}: a term line (it names a term, it does not answer)",
                              runners_up=())
    behind = tuple(r for r in (*match.runners_up, own) if r is not lead)
    return Match(lead.paragraph, match.score, None, f"{SEMANTIC}: {why}", match.anchor, lead.meaning, behind)


def at_prose_definition(doc: TextDocument[P], match: Match, query: str,
                        passage: Callable[[], Sequence[int]] | None = None) -> Match:
    """``match`` moved to the paragraph naming the term ``query`` asks the meaning of in prose (``definitions``:
    "... which we call the oracle", "An elastic stop nut is a ...", 称为X): the first of the places behind it, else
    of the ``passage``'s paragraphs in document order, that names it, claimed (the definition is what the question
    asks), ``match`` right behind it. Unchanged when ``match`` names it, the question asks no term, or no place does
    (nc26b Q6: "What is the oracle in TraceMonkey?" on the paragraph after the one naming it) without losing the
    setting's words ``match``'s paragraph holds (``keeps_setting``: "What are the side effects of aspirin?")."""
    para = match.paragraph
    names = asked_term(query)
    if para is None or not names or names_term(para.text, names):
        return match
    paras = doc.paragraphs
    near = [r.paragraph for r in match.runners_up if r.paragraph is not None]
    near += [paras[i] for i in (passage() if passage is not None else ()) if 0 <= i < len(paras)]
    pick = next((p for p in near if p.index != para.index and _body(p) and names_term(p.text, names)
                 and keeps_setting(query, para.text, p.text)), None)
    if pick is None:
        return match
    lead = next((r for r in match.runners_up if r.paragraph is pick), None)
    behind = tuple(r for r in (dataclasses.replace(match, runners_up=()), *match.runners_up) if r is not lead)
    return Match(pick, match.score, (0, len(pick.text)), NAMED_TERM, match.anchor,
                 lead.meaning if lead is not None else None, behind)
