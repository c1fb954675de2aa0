"""e5 vectors with their language's offset taken out: a question in one language finds its answer
written in another.

multilingual-e5-small gives every text of a language a common offset: a Chinese question lies
nearer an unrelated Chinese passage than the English passage that answers it. Measured through
the real engine on ``benchmarks/retrieval_tune3.json`` (Chinese questions about English files),
the answering file was among the cited files for none of 22 such questions. Taking out the mean
vector of the text's language and normalising again (the "language-neutral" centring of
Libovický et al., 2020) brings the answer back, costing little where question and file share a
language (``benchmarks/retrieval.py``, embedder ``e5xlang`` against ``e5hybrid``).

A text's language mean is the Chinese and the English one mixed by its share of Han characters
among its Han characters and Latin words (a Chinese text quoting English names stays mostly
Chinese). The means are constants, ``e5_language_means.json``, computed once by
``scripts/e5_language_means.py`` from texts no benchmark set uses, for e5's two prefixes:
``query`` (an engine's chunks and questions alike) and ``passage`` (a file's places).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ALPHA", "han_share", "neutral", "version"]

#: Share of the language mean taken out (0: e5 as it is; 1: the whole mean).
ALPHA = 0.7
MEANS = Path(__file__).with_name("e5_language_means.json")
_UNIT = re.compile(r"[A-Za-z]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def han_share(text: str) -> float:
    """The share of Han characters among the text's Han characters and Latin words (0 without either). Part of
    every stored e5xlang vector, so not shared with the other script measures (docs/embeddings.md, "Three
    measures of a text's script")."""
    units = _UNIT.findall(text)
    return sum(1 for u in units if not u.isascii()) / len(units) if units else 0.0


@functools.lru_cache(maxsize=1)
def _means() -> tuple[str, dict[str, dict[str, np.ndarray]]]:
    import numpy as np

    from mnote_kr.citations.rank.e5 import E5_SHA256

    body = MEANS.read_bytes()
    data = json.loads(body)
    if data.get("model") != E5_SHA256:
        raise RuntimeError(f"{MEANS.name} was computed for another e5 model: run scripts/e5_language_means.py")
    means = {kind: {lang: np.asarray(data[kind][lang], np.float32) for lang in ("zh", "en")}
             for kind in ("query", "passage")}
    return hashlib.sha256(body).hexdigest()[:12], means


def version() -> str:
    """The centring's identity (the means' hash and ``ALPHA``): part of an index's embedder version."""
    return f"neutral-{_means()[0]}@{ALPHA}"


def neutral(vecs: np.ndarray, texts: Sequence[str], kind: Literal["query", "passage"] = "query",
            alpha: float | None = None) -> np.ndarray:
    """Unit vectors of ``texts`` (e5 unit vectors ``vecs``, one row each, embedded with ``kind``'s
    prefix) with ``alpha`` (default ``ALPHA``) times their language mean taken out."""
    import numpy as np

    means = _means()[1][kind]
    share = np.asarray([han_share(t) for t in texts], np.float32)[:, None]
    out = vecs - (ALPHA if alpha is None else alpha) * (share * means["zh"] + (1.0 - share) * means["en"])
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms > 0, norms, 1.0)).astype(np.float32)
