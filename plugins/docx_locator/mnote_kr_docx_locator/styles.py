"""A DOCX's paragraph styles: which are headings (and of which level) and which are a table of contents.

A style's name says it in the languages Word writes (``heading 2``, ``标题 2``, ``Title``, ``TOC 1``, ``目录``),
else its outline level; a style without either takes its ``basedOn`` style's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from .numbering import as_int, wval

_HEADING_NAME = re.compile(r"^(?:heading|标题|überschrift|titre|titolo|título|заголовок|見出し)\s*(\d)$", re.I)
_TOC_NAME = re.compile(r"^(?:toc|目录|目次)\s*(?:\d|heading)?$|^toc\s", re.I)


@dataclass(slots=True)
class _Style:
    name: str
    outline: int | None  # 0-based outline level
    based_on: str | None


def read_styles(root: etree._Element | None) -> dict[str, tuple[int, bool]]:
    """styleId -> (heading level or 0, is a TOC style)."""
    if root is None:
        return {}
    styles: dict[str, _Style] = {}
    for st in root:
        if not isinstance(st.tag, str) or etree.QName(st).localname != "style":
            continue
        sid = name = based = None
        outline = None
        for k, v in st.attrib.items():
            if k.endswith("}styleId"):
                sid = v
        for child in st:
            if not isinstance(child.tag, str):
                continue
            local = etree.QName(child).localname
            if local == "name":
                name = wval(child)
            elif local == "basedOn":
                based = wval(child)
            elif local == "pPr":
                for pp in child:
                    if isinstance(pp.tag, str) and etree.QName(pp).localname == "outlineLvl":
                        outline = as_int(wval(pp))
        if sid:
            styles[sid] = _Style(name or sid, outline, based)
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
