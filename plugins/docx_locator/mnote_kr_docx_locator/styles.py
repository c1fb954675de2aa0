"""A DOCX's ``styles.xml``, walked once for every reader of it: each style's name, outline level, ``basedOn``
and numbering (:func:`read_sheet`).

From that sheet, :func:`read_styles` tells which paragraph styles are headings (and of which level) and which
are a table of contents: a style's name says it in the languages Word writes (``heading 2``, ``标题 2``,
``Title``, ``TOC 1``, ``目录``), else its outline level; a style without either takes its ``basedOn`` style's
answer. ``numbering`` reads the styles' ``numPr`` from it, ``notes`` the outline levels as LightRAG reads them
(``Sheet.outline_own``/``outline_base``: the first ``w:basedOn`` and the first ``w:pPr``'s first ``w:outlineLvl``,
attributes in any namespace or none, as ``parse_styles_outline_levels`` reads them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from mnote_kr.plugin_api import docxnotes

_HEADING_NAME = re.compile(r"^(?:heading|标题|überschrift|titre|titolo|título|заголовок|見出し)\s*(\d)$", re.I)
_TOC_NAME = re.compile(r"^(?:toc|目录|目次)\s*(?:\d|heading)?$|^toc\s", re.I)


def wval(el: etree._Element) -> str | None:
    """An element's ``w:val`` (any namespace's ``val``), or None."""
    for k, v in el.attrib.items():
        if k.endswith("}val"):
            return str(v)
    return None


def as_int(value: str | None) -> int | None:
    """``value`` as an int; None when absent or not a number."""
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


@dataclass(slots=True)
class Style:
    """One ``w:style`` as written (its own values; ``basedOn`` is followed by each reader)."""

    name: str  # w:name, else the styleId
    outline: int | None  # 0-based outline level: the last w:outlineLvl directly in a w:pPr
    based_on: str | None  # the last w:basedOn
    num_id: str | None = None  # w:numId anywhere in its w:pPr (the last)
    ilvl: int | None = None  # w:ilvl anywhere in its w:pPr (the last)


def _local(el: etree._Element) -> str | None:
    return etree.QName(el).localname if isinstance(el.tag, str) else None


def _style(st: etree._Element, sid: str) -> Style:
    out = Style(sid, None, None)
    name = None
    for child in st:
        local = _local(child)
        if local == "name":
            name = wval(child)
        elif local == "basedOn":
            out.based_on = wval(child)
        elif local == "pPr":
            for pp in child:
                if _local(pp) == "outlineLvl":
                    out.outline = as_int(wval(pp))
            for np_ in child.iter():
                if _local(np_) == "numId":
                    out.num_id = wval(np_)
                elif _local(np_) == "ilvl":
                    out.ilvl = as_int(wval(np_))
    out.name = name or sid
    return out


def child(el: Any | None, local: str) -> Any | None:
    """``el``'s first child named ``local`` (any namespace), or None."""
    for c in el if el is not None else ():
        if isinstance(c.tag, str) and etree.QName(c).localname == local:
            return c
    return None


def lightrag_level(el: Any) -> int | None:
    """A ``w:outlineLvl``'s level as LightRAG reads it: its ``val`` when it is up to three digits."""
    val = docxnotes.attr(el, "val") or ""
    return int(val) if val.isdigit() and len(val) < 4 else None


@dataclass(slots=True)
class Sheet:
    """``styles.xml`` read: each style as the locator reads it, and the outline levels as LightRAG does."""

    styles: dict[str, Style] = field(default_factory=dict)  # w:styleId -> its style
    outline_own: dict[str, int] = field(default_factory=dict)  # styleId -> its own outline level (LightRAG's)
    outline_base: dict[str, str] = field(default_factory=dict)  # styleId -> its first w:basedOn (LightRAG's)


def read_sheet(root: etree._Element | None) -> Sheet:
    """``styles.xml``'s root (None: no styles part, or a broken one) walked once."""
    out = Sheet()
    for st in root if root is not None else ():
        if _local(st) != "style":
            continue
        sid = next((str(v) for k, v in st.attrib.items() if k.endswith("}styleId")), None)
        if sid:
            out.styles[sid] = _style(st, sid)
        lr_sid = docxnotes.attr(st, "styleId")
        if not lr_sid:
            continue
        based = docxnotes.attr(child(st, "basedOn"), "val") if child(st, "basedOn") is not None else None
        if based:
            out.outline_base[lr_sid] = based
        level = child(child(st, "pPr"), "outlineLvl")
        if level is not None and lightrag_level(level) is not None:
            out.outline_own[lr_sid] = lightrag_level(level) or 0
    return out


def read_styles(sheet: Sheet) -> dict[str, tuple[int, bool]]:
    """styleId -> (heading level or 0, is a TOC style)."""
    styles = sheet.styles
    out: dict[str, tuple[int, bool]] = {}
    for sid in styles:
        level, toc, cur, seen = 0, False, sid, set()
        while cur in styles and cur not in seen:
            seen.add(cur)
            st_ = styles[cur]
            nm = st_.name.strip()
            if _TOC_NAME.match(nm):
                toc = True
                break
            m = _HEADING_NAME.match(nm)
            if m:
                level = int(m.group(1))
                break
            if nm.lower() == "title":
                level = 1
                break
            if st_.outline is not None and 0 <= st_.outline < 9:
                level = st_.outline + 1
                break
            if st_.outline is not None:  # outline level 9: body text, said outright (not its base's heading)
                break
            cur = st_.based_on or ""
        out[sid] = (level, toc)
    return out
