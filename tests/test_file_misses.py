"""Where a question's answering file was lost, read from a retrieval dump (benchmarks/file_misses.py), no engine."""

from __future__ import annotations

import sys
from typing import Any

from mnote_kr_testkit.data import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import file_misses  # noqa: E402


def _cit(path: str, rank: int, meaning: float | None = None) -> dict[str, Any]:
    return {"sourceRootRelativePath": path, "diagnostics": {"providerRank": rank},
            "locator": {"meaningScore": meaning}}


def test_a_file_no_chunk_of_lightrag_holds_is_absent_and_one_it_ranked_past_five_files_is_lightrags() -> None:
    every = [_cit(f"docs/f{i}.docx", i) for i in range(1, 8)]
    returned = every[:5]
    assert file_misses.classify("docs/answer.docx", returned, every) == "absent"
    assert file_misses.classify("docs/f7.docx", returned, every) == "lightrag>5"
    assert file_misses.classify("docs/f3.docx", returned, every) is None


def test_a_file_lightrag_ranked_in_its_first_five_but_the_host_moved_out_is_the_hosts() -> None:
    every = [_cit(f"docs/f{i}.docx", i) for i in range(1, 8)]
    returned = [every[i] for i in (0, 1, 3, 4, 5, 2)]  # f3, LightRAG's third file, shown sixth
    assert file_misses.classify("docs/f3.docx", returned, every) == "host"


def test_a_files_meaning_rank_counts_the_files_whose_best_place_beats_its_best() -> None:
    every = [_cit("docs/a.docx", 1, 0.70), _cit("docs/a.docx", 2, 0.80), _cit("docs/b.docx", 3, 0.75),
             _cit("docs/c.docx", 4, 0.90), _cit("docs/d.pdf", 5, None)]
    assert file_misses.meaning_rank("docs/b.docx", every) == (0.75, 3, 4)
    assert file_misses.meaning_rank("docs/d.pdf", every) == (None, None, 4)
