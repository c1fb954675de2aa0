"""A short query standing alone beats the same characters inside a longer word in one evidence."""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.docx_docs import DocxBuilder

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate

TRAP = "N-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。"
OTHER = "N-甲基吗啉 可作为碱使用，但本项目没有采用。"
TARGET = "吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。"


def test_docx_standalone_query_wins_when_evidence_covers_the_longer_word_too(tmp_path: Path) -> None:
    docx_cache.clear_cache()
    b = DocxBuilder()
    trap = b.para(TRAP)
    b.para(OTHER)
    b.heading("胺类", 1)
    target = b.para(TARGET)
    path = tmp_path / "amines.docx"
    path.write_bytes(b.build())
    evidence = "\n".join([TRAP, OTHER, "胺类", TARGET])
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query="吡咯烷"))
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", target)
    assert loc.paragraph_index != trap and loc.para_id == f"{0x1A2B0000 + target + 1:08X}"
    assert loc.highlight is not None and TARGET[loc.highlight.start : loc.highlight.end].startswith("吡咯烷")
    docx_cache.clear_cache()
