"""The DOCX locator on a recorded request (for tests): a newcomer's chunk, sidecar block, evidence and the query's
cosines with the file's paragraphs, replayed against the corpus DOCX, whose bytes must not change."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest, Locator, SidecarBlock
from mnote_kr_testkit.data import CORPUS


def replay_locate(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch, query: str | None = None) -> Locator:
    """The DOCX locator on ``case`` (``file``, ``chunk``, ``block``, ``evidence``, ``query``, ``cosines``), the
    recorded cosines standing in for the stored vectors (``meaning.cosines`` / ``meaning.nearest``)."""
    from mnote_kr_docx_locator import locate  # noqa: PLC0415 - the plugin only for the tests that replay it

    cos = {int(i): c for i, c in case["cosines"].items()}
    monkeypatch.setattr(meaning, "cosines", lambda key, q, idx: {i: cos[i] for i in idx if i in cos})
    monkeypatch.setattr(meaning, "nearest", lambda key, q, k: dict(sorted(cos.items(), key=lambda t: -t[1])[:k]))
    block = msgspec.convert(case["block"], SidecarBlock)
    path = CORPUS / "docx" / case["file"]
    before = path.read_bytes()
    loc = locate(LocateRequest(file=str(path), evidence=case["evidence"], query=query or case["query"], block=block,
                               block_id=block.blockid, passage=case["chunk"]))
    assert path.read_bytes() == before
    assert loc is not None
    return loc


#: weknora__issue_2634_vertical_merge.docx: its table's method cell is merged down every row.
MERGE = CORPUS / "docx" / "weknora__issue_2634_vertical_merge.docx"
METHOD = ("检测方法：提取外周血基因组 DNA，采用高通量测序，并对候选位点进行Sanger 测序验证；"
          "检测结果需结合临床表现综合判断。")
#: The passage LightRAG's engine returned for ``MERGE`` (its table as rows of cells, the merged method in each).
MERGE_PASSAGE = "遗传病检测项目表\n回归场景：检测方法纵向合并，但每条检测项目在转换后都必须保留该方法。\n" + "\n".join(
    ["项目编号 检测项目 相关基因 周期 检测方法"] + [f"{n} {item} {gene} 15个工作日 {METHOD}" for n, item, gene in (
        ("Q0101", "遗传性乳腺癌", "BRCA1"), ("Q0102", "遗传性卵巢癌", "BRCA2"), ("Q0103", "林奇综合征", "MLH1"))])
