"""A slide's review comments, read from the parts PowerPoint keeps them in (beside the slide, not on it).

Legacy comments: a slide's ``comments`` relationship to ``ppt/comments/commentN.xml`` (``p:cm`` with its
words in ``p:text``; a reply names its parent in ``p15:threadingInfo/p15:parentCm``), their authors in the
presentation's ``commentAuthors`` part (``p:cmAuthor`` id -> name). Modern comments (PowerPoint 365): a slide's
relationship of the same last word to ``ppt/comments/modernComment_*.xml`` (``p188:cm``, its words in its own
``p188:txBody``, its replies in ``p188:replyLst``), their authors in the ``authors`` part (``p188:author``).
python-pptx loads both as plain parts: their XML is read here, entities never resolved.

A comment reads ``Comment (Jane Smith): words`` (``line``); a reply says so after its author. The lines are
in the slide's order, a comment's replies after it; past ``MAX_COMMENTS`` in a deck, the rest are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Comment lines read from one deck (each is a paragraph the locator keeps and ingest may embed).
MAX_COMMENTS = 10_000
PREFIX = "Comment"
#: What ``SlideParagraph.shape_name`` says of a comment (no shape holds it; the viewer shows them apart).
SHAPE_NAME = "Review comments"


@dataclass(frozen=True, slots=True)
class SlideComment:
    """One comment (or a reply) on a slide: its author's name and its words."""

    author: str
    words: str
    reply: bool = False


def line(comment: SlideComment) -> str:
    """The comment as the deck's text holds it: ``Comment (Jane Smith, reply): words``."""
    who = ", ".join(w for w in (comment.author, "reply" if comment.reply else "") if w)
    return PREFIX + (f" ({who})" if who else "") + f": {comment.words}"


def _local(tag: Any) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _words(text: str) -> str:
    return " ".join(text.split())


def _xml(part: Any) -> Any:
    """The part's XML root (lxml), entities never resolved, no network; None when it is no XML."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(part.blob, parser)
    except (etree.XMLSyntaxError, ValueError, AttributeError):
        return None


def _related(part: Any, last_word: str) -> list[Any]:
    """The parts ``part`` relates to by a relationship type ending ``/last_word`` (external ones aside)."""
    return [rel.target_part for rel in part.rels.values()
            if not rel.is_external and rel.reltype.rsplit("/", 1)[-1] == last_word]


def authors(presentation_part: Any) -> dict[str, str]:
    """``{author id: name}`` of the deck's legacy (``commentAuthors``) and modern (``authors``) comment authors."""
    out: dict[str, str] = {}
    for part in _related(presentation_part, "commentAuthors") + _related(presentation_part, "authors"):
        root = _xml(part)
        for elem in root.iter() if root is not None else ():
            if _local(elem.tag) in ("cmAuthor", "author") and elem.get("id") is not None:
                out[elem.get("id")] = _words(elem.get("name") or "")
    return out


def _body_words(elem: Any) -> str:
    """The words of a modern comment's or reply's own ``txBody`` (its paragraphs apart by a space)."""
    body = next((child for child in elem if _local(child.tag) == "txBody"), None)
    if body is None:
        return ""
    paras = [" ".join(t.text or "" for t in p.iter() if _local(t.tag) == "t")
             for p in body.iter() if _local(p.tag) == "p"]
    return _words(" ".join(paras))


def _comments_of(root: Any, names: dict[str, str]) -> list[SlideComment]:
    out: list[SlideComment] = []
    for cm in root:
        if _local(cm.tag) != "cm":
            continue
        who = names.get(cm.get("authorId") or "", "")
        legacy = next((child for child in cm if _local(child.tag) == "text"), None)
        if legacy is not None:
            reply = any(_local(e.tag) == "parentCm" for e in cm.iter())
            out.append(SlideComment(who, _words(legacy.text or ""), reply=reply))
            continue
        out.append(SlideComment(who, _body_words(cm)))
        for replies in (child for child in cm if _local(child.tag) == "replyLst"):
            out += [SlideComment(names.get(r.get("authorId") or "", ""), _body_words(r), reply=True)
                    for r in replies if _local(r.tag) == "reply"]
    return [c for c in out if c.words]


def slide_comments(slide_part: Any, names: dict[str, str], room: int) -> list[SlideComment]:
    """The slide's comments and replies (legacy and modern parts, in the slide's relationships' order), at
    most ``room``; a part that is missing or no XML holds none."""
    out: list[SlideComment] = []
    for part in _related(slide_part, "comments") if room > 0 else ():
        root = _xml(part)
        if root is not None:
            out += _comments_of(root, names)
        if len(out) >= room:
            return out[:room]
    return out
