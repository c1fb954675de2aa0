"""A DOCX's ``styles.xml`` is read, parsed and walked once per document: the headings and TOC styles, the numbering
on styles and the outline levels LightRAG's notes reading needs all come from that one walk (``styles.read_sheet``).
Before, ``styles.read_styles``, ``numbering._style_numbers`` and ``notes.outline_levels`` each walked the part."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from lxml import etree
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate, reader, safezip

TIKA = CORPUS / "docx" / "tika__testWORD_2006ml.docx"  # headings, a TOC, footnotes and endnotes, numbered lists


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def _count_styles_part(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of ``styles.xml`` read from the zip, parsed, and walked (its root's children or descendants
    iterated) from now on."""
    counts = {"read": 0, "parsed": 0, "walked": 0}

    class CountedStyles(etree.ElementBase):
        def __iter__(self) -> Any:  # noqa: ANN401
            counts["walked"] += 1
            return super().__iter__()

        def iter(self, *tags: Any, **kw: Any) -> Any:  # noqa: ANN401
            counts["walked"] += 1
            return super().iter(*tags, **kw)

    class Lookup(etree.CustomElementClassLookup):
        def lookup(self, node_type: str, document: Any, namespace: str | None, name: str) -> Any:  # noqa: ANN401
            return CountedStyles if name == "styles" else None

    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.set_element_class_lookup(Lookup())
    real_read, real_parse = reader.read_part, reader.parse_xml

    def read_part(zf: Any, name: str, path: str) -> bytes | None:  # noqa: ANN401
        counts["read"] += name.endswith("styles.xml")
        return real_read(zf, name, path)

    def parse_xml(data: bytes, name: str, path: str) -> etree._Element:
        root = real_parse(data, name, path)  # its checks and budgets, as ever
        if not name.endswith("styles.xml"):
            return root
        counts["parsed"] += 1
        return etree.fromstring(data, parser)

    monkeypatch.setattr(reader, "read_part", read_part)
    for module in (reader, safezip):  # the main part is parsed in the reader, an optional one in ``parse_optional``
        monkeypatch.setattr(module, "parse_xml", parse_xml)
    return counts


def test_a_docx_styles_part_is_read_parsed_and_walked_once_per_locate(monkeypatch: pytest.MonkeyPatch) -> None:
    before = hashlib.sha256(TIKA.read_bytes()).hexdigest()
    counts = _count_styles_part(monkeypatch)
    loc = locate(LocateRequest(file=str(TIKA), evidence="And this is the footnote", query="footnote"))
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", 17)  # notes were read, styles with them
    assert counts == {"read": 1, "parsed": 1, "walked": 1}
    locate(LocateRequest(file=str(TIKA), evidence="This is an endnote", query="endnote"))
    assert counts == {"read": 1, "parsed": 1, "walked": 1}  # the parsed document is cached: nothing read again
    assert hashlib.sha256(TIKA.read_bytes()).hexdigest() == before

