"""A place holding only the words that name the document's subject is no exact answer to a question asking more.

"What is the purpose of the design element evaluation in periodic safety review?" over the Chinese standard
《核电厂定期安全评价 第12部分：设计》 was cited exact on its term line "定期安全评价 periodic safety review"
(nc23b problem 2): of the question's English words the file holds only those of its English title, "Periodic
safety review for nuclear power plants — Part 12: Design", so the term line held "every word the document holds"
and was claimed. Those words name what the whole file is about; what the question asks ("purpose", "element",
"evaluation") no place of the file holds in the question's words. The answer, "核电厂设计要素的评价目的是…", was
a place behind it.

The rule: the document's subject is the words of its title lines (the front matter's lines before its first
heading that are no sentences: ``titles.front_title``). A place claimed exact whose query words are all the
subject's, for a question asking words beyond them (a term of weight the title lacks, no cut across words), is
approximate. A question naming only the subject ("periodic safety review") keeps its place, as does one asked as
written; a document without title lines keeps its claims.
"""

from __future__ import annotations

import dataclasses

from mnote_kr.citations.locate.leadin import place_norm
from mnote_kr.citations.locate.textdoc import P, TextDocument
from mnote_kr.citations.locate.textmatch import SEMANTIC, Match
from mnote_kr.citations.locate.titles import front_title
from mnote_kr.citations.text.cjkwords import query_words
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

__all__ = ["SUBJECT_APPROXIMATE", "without_subject_claim"]

#: A place holding only the subject's words of a question asking more is approximate (False: claimed by its words
#: alone, as before round 23).
SUBJECT_APPROXIMATE = True


def without_subject_claim(doc: TextDocument[P], match: Match, query: str) -> Match:
    """``match`` made approximate when the query words its place holds are all words of the document's title lines
    while the query asks words beyond them (module docstring); unchanged otherwise."""
    para = match.paragraph
    q = normalize(query or "").strip()
    if not SUBJECT_APPROXIMATE or para is None or not q or match.reason.startswith(SEMANTIC) or q in para.norm:
        return match
    title = "\n".join(p.norm for p in doc.paragraphs if p.index != para.index and front_title(doc, p))
    if not title:
        return match
    qt = QueryTerms(q, doc.df, len(doc.paragraphs), getattr(doc, "defined", ()), query_words(q))
    if not qt:
        return match
    subject = {k for k, _pos, _w in qt.hits(title)}
    if not any(w > 0 and k not in subject and not qt.cuts[k] for k, w in enumerate(qt.weights)):
        return match  # the question names the subject only
    held = {k for k, _pos, _w in qt.hits(place_norm(doc, para)) if qt.weights[k] > 0}
    if not held or not held <= subject:
        return match
    return dataclasses.replace(match, reason=f"{SEMANTIC}: it holds only the words naming the document's subject "
                                             "(its title's), not what the question asks")
