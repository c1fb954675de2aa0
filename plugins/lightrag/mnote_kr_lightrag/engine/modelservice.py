"""Offline model service: an OpenAI-compatible stand-in for LightRAG's LLM and embedder.

When the user has configured no LLM or embedding endpoint, the managed engine runs this
stdlib-only HTTP service on loopback so that a real ``lightrag-server`` can ingest and
retrieve without any network. It is honest about what it is:

* ``POST /v1/embeddings`` embeds with the service's embedder (:mod:`.embedders`): by default
  ``hybrid``, a learned WordLlama model shipped inside its PyPI package plus deterministic
  feature-hashing vectors (signed hashing of character n-grams and lower-cased words,
  L2-normalised) for exact terms and CJK text. ``encoding_format`` ``"base64"`` (LightRAG's
  default) gets little-endian float32 bytes, ``"float"`` a list.
* ``POST /v1/chat/completions`` answers only what it can answer truthfully:
  keyword-extraction prompts get the query's own words (no invented terms), entity
  extraction gets an empty result, and anything else (a RAG answer) gets
  :data:`NO_LLM_ANSWER`. ``"stream": true`` is served as SSE ``chat.completion.chunk`` lines.
* ``POST /v1/rerank`` (Cohere-style ``query`` + ``documents``) gives each document's cosine to
  the query under the learned model, in the documents' order (501 for ``hashing``): the plugin
  uses it to put each found file's best chunk first (:mod:`.passages`).
* ``GET /v1/models``, ``GET /health`` (which also names the embedder, its dim and version) and
  ``GET /stats`` (requests served, by kind: embeddings, meaning (a question asked for meaning),
  keywords, extract, no-llm), which shows that ingestion made no LLM call.

Every request but ``GET /health`` needs the key (``Authorization: Bearer KEY``, what LightRAG's
OpenAI bindings send as their API key), a loopback ``Host`` with the service's own port and no
foreign ``Origin`` (the checks of the engine's guard, :class:`.guard.LoopbackGate`); bodies are
JSON of at most :data:`MAX_BODY` bytes. Connections go through ``serve``'s gate
(:mod:`mnote_kr.server.conn`): a client whose headers or body do not arrive within their
deadline is closed and holds no thread meanwhile.

Run it as ``MNOTE_KR_MODELS_KEY=KEY python -m mnote_kr_lightrag.engine.modelservice --port P [--embedder hybrid]``
(the key in the environment, not on the command line that every local user can read) or in a
thread with :func:`start_in_thread` (tests; ``server.api_key`` is the key it made).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import math
import os
import re
import secrets
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mnote_kr.plugin_api import GatedHandler, GatedHTTPServer, Limits

from . import embedders
from .guard import LoopbackGate

# 1024 rather than 384: hash collisions add noise of about 1/sqrt(dim) to every cosine, and
# short queries against 400-token chunks score only 0.1-0.3, so the noise must stay small.
DEFAULT_DIM = 4096
EMBED_MODEL = "mnote-offline-embed"
LLM_MODEL = "mnote-offline-llm"
NO_LLM_ANSWER = "No LLM is configured for this knowledge base."
COMPLETE = "<|COMPLETE|>"
#: The largest body a request of LightRAG (or the plugin's ``/rerank``) needs, with room to spare.
#: An embedding batch is ``EMBEDDING_BATCH_NUM`` (10) texts of at most one chunk (400 tokens,
#: ``engine.CHUNK``): under 20 KB of English, under 100 KB of CJK even as ``\uXXXX`` escapes.
#: The largest chat prompt is a query's whole context, ``max_total_tokens`` (30,000 by default),
#: about 120 KB of English and at most ~720 KB of escaped CJK; ``/rerank`` gets at most
#: ``passages.MAX_DEPTH`` (80) chunks, ~200 KB. 4 MiB is over 5x the largest of these; the
#: former 64 MiB let one POST cost a minute of CPU and a gigabyte of memory.
MAX_BODY = 4 * 1024 * 1024
#: Environment variable that carries the key to ``python -m mnote_kr_lightrag.engine.modelservice``.
KEY_ENV = "MNOTE_KR_MODELS_KEY"
#: What the service's process adds to the engine's environment (``engine/managed.py`` starts it
#: so). glibc's malloc gives every thread that allocates an arena of its own, up to 8 per core,
#: and each keeps what the forward passes run in that thread freed: with the service's 16 handler
#: threads and e5's workers, its peak RSS over LightRAG's ingest of 38 files was 1.5 GB, with two
#: arenas 0.95 GB, no slower (``benchmarks/modelservice_memory.py``). Other C libraries ignore it.
#: numpy's OpenBLAS runs one thread per call: the service's calls already run side by side, and
#: on 2 busy cores OpenBLAS's own threads waited on each other (a question's USE vector for
#: ``e5usexlang``: p50 11.7 / p95 160 ms with its threads, 3.6 / 8.6 ms with one; e5xlang's 34.8 /
#: 38.0 against 14.5 / 26.3 ms; 40 tuning questions, load 4-6).
PROCESS_ENV = {"MALLOC_ARENA_MAX": "2", "OPENBLAS_NUM_THREADS": "1"}
#: Paths answered without the key (liveness, the embedder's name: what ``engine/managed.py`` waits on).
OPEN_PATHS = frozenset({"/health", "/v1/health"})
#: Connection bounds: headers within 10 s of their first byte, a body within 30 s (LightRAG sends
#: from the same machine: a few milliseconds), at most 16 handler threads (LightRAG runs at most
#: 8 embedding and 4 LLM calls at once by default); a slow client holds a socket, not a thread.
LIMITS = Limits(backlog=128, max_workers=16, max_queued=128, max_open=256, header_deadline=10.0,
                body_deadline=30.0, idle_timeout=60.0)

_CJK = (
    "\u3040-\u30ff"  # kana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # hangul
)
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")
_CJK_CHAR_RE = re.compile(f"[{_CJK}]")
# Latin-script words must not swallow CJK: in "N-甲基吡咯烷酮" the CJK run is its own token.
_LATIN = f"[^\\W_{_CJK}]"
_TOKEN_RE = re.compile(f"[{_CJK}]+|{_LATIN}+(?:['-]{_LATIN}+)*", re.UNICODE)
_STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for from with without about into over under
    is are was were be been being am do does did done have has had having can could may might must shall
    should will would what which who whom whose when where why how that this these those it its it's
    i me my we our you your he him his she her they them their there here not no yes as than so such
    any all some each every more most other please tell show give find explain describe list say
    也 的 了 是 在 和 与 及 或 吗 呢 吧 啊 什么 怎么 如何 哪些 哪个 为什么 请 一下 是否 有 有没有 关于""".split()
)
# CJK function words split a long CJK run into content pieces (longest first, so 有没有 beats 有).
_CJK_SPLIT_RE = re.compile(
    "|".join(sorted((w for w in _STOPWORDS if _CJK_RUN_RE.fullmatch(w)), key=len, reverse=True))
)


# ---------------------------------------------------------------------------
# Embeddings
# ---------------------------------------------------------------------------


def _features(text: str) -> dict[str, float]:
    """Weighted features of ``text``: what two texts about the same thing share.

    * Latin-script words (lower-cased, stop words dropped): the word itself, plus its character
      3-grams at a low weight so that ``battery`` and ``batteries`` still meet.
    * CJK runs, which have no spaces: character bigrams (roughly words), plus unigrams and
      3-grams at lower weights.

    Character 1- and 2-grams of Latin text are deliberately left out: every English text shares
    them, which made unrelated texts look alike (cosine around 0.15 instead of 0).
    Repeated features grow sub-linearly (1 + log count), so one frequent word cannot dominate.
    """
    counts: dict[str, float] = {}

    def add(feature: str, weight: float) -> None:
        counts[feature] = counts.get(feature, 0.0) + weight

    for tok in _TOKEN_RE.findall(text.lower()):
        if _CJK_CHAR_RE.match(tok):
            for n, weight in ((1, 0.3), (2, 1.0), (3, 0.5)):
                for i in range(len(tok) - n + 1):
                    add(f"c{n}:{tok[i : i + n]}", weight)
        elif tok not in _STOPWORDS:
            add("w:" + tok, 1.0)
            if len(tok) > 3:
                marked = f"<{tok}>"
                for i in range(len(marked) - 2):
                    add("g:" + marked[i : i + 3], 0.25)
    return counts


def embed(text: str, dim: int = DEFAULT_DIM) -> list[float]:
    """Return a deterministic, L2-normalised feature-hashing vector of ``dim`` floats.

    Each feature (:func:`_features`) is hashed with blake2b to an index and a sign, so the same
    text gives the same vector in any process. A text without features gives a fixed unit vector.
    """
    if dim <= 0:
        raise ValueError("dim must be positive")
    vec = [0.0] * dim
    for feat, weight in _features(text).items():
        digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
        idx = int.from_bytes(digest[:4], "little") % dim
        value = 1.0 + math.log(weight) if weight > 1.0 else weight
        vec[idx] += value if digest[4] & 1 else -value
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return [v / norm for v in vec]


def encode_base64(vec: Sequence[float]) -> str:
    """Encode a vector as base64 of little-endian float32, as the OpenAI API does."""
    return base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")


# ---------------------------------------------------------------------------
# Chat completions
# ---------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _last_user(messages: Sequence[dict[str, Any]]) -> str:
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return _content_text(msg.get("content"))
    return ""


def query_terms(query: str) -> list[str]:
    """Split a query into its own content words, first-seen order, no duplicates.

    Latin words are kept whole (stop words dropped). A CJK run of up to four characters is kept
    whole; a longer run is split at known function words and the pieces are kept, plus the
    run's character bigrams so that a word inside the run is still matched.
    """
    seen: set[str] = set()
    out: list[str] = []

    def add(term: str) -> None:
        key = term.lower()
        if term and key not in seen and key not in _STOPWORDS:
            seen.add(key)
            out.append(term)

    for tok in _TOKEN_RE.findall(query):
        if _CJK_CHAR_RE.match(tok):
            pieces = [p for p in _CJK_SPLIT_RE.split(tok) if p]
            for piece in pieces:
                add(piece)
                if len(piece) > 4:
                    for i in range(len(piece) - 1):
                        add(piece[i : i + 2])
        elif len(tok) > 1 or tok.isdigit():
            add(tok)
    return out


def extract_keywords(query: str) -> dict[str, list[str]]:
    """Answer a keyword-extraction prompt honestly: only words that occur in ``query``.

    Low-level keywords are all content words (at most 12); high-level keywords are the query's
    content phrases (runs of adjacent content words, at most 3), or its longest words.
    """
    terms = query_terms(query)
    low = terms[:12]
    phrases: list[str] = []
    current: list[str] = []
    for tok in _TOKEN_RE.findall(query) + [""]:
        if tok and not _CJK_CHAR_RE.match(tok) and tok.lower() not in _STOPWORDS and len(tok) > 1:
            current.append(tok)
            continue
        if len(current) >= 2:
            phrases.append(" ".join(current))
        current = []
        if tok and _CJK_CHAR_RE.match(tok) and len(tok) >= 2:
            phrases.append(tok)
    high = list(dict.fromkeys(phrases))[:3] or sorted(low, key=len, reverse=True)[:3]
    return {"high_level_keywords": high, "low_level_keywords": low}


def classify_and_answer(messages: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """Return ``(kind, text)`` for a chat request: keywords, extract, or no-llm."""
    whole = "\n".join(_content_text(m.get("content")) for m in messages)
    user = _last_user(messages)
    if "high_level_keywords" in whole and "User Query:" in whole:
        query = whole.rsplit("User Query:", 1)[1].split("---Output---", 1)[0].strip()
        return "keywords", json.dumps(extract_keywords(query), ensure_ascii=False)
    if "---Input Text---" in whole and "Knowledge Graph Specialist" in whole or "last extraction task" in user:
        if '"entities"' in whole and "relationships" in whole and "JSON" in whole:
            return "extract", json.dumps({"entities": [], "relationships": []})
        return "extract", COMPLETE
    return "no-llm", NO_LLM_ANSWER


# ---------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------


class _Handler(GatedHandler):
    protocol_version = "HTTP/1.1"
    server: _ModelServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _refused(self, path: str) -> bool:
        """Answer 403 (and close) when Host, Origin or key is wrong; True when refused."""
        scheme, _, key = (self.headers.get("Authorization") or "").partition(" ")
        headers = self.headers
        host, origin = headers.get_all("Host"), headers.get_all("Origin")
        refusal = self.server.gate.refusal(
            None if host is None else host[0] if len(host) == 1 else "",
            None if origin is None else origin[0] if len(origin) == 1 else "",
            key.strip() if scheme.lower() == "bearer" else None,
            path in OPEN_PATHS)
        if refusal is None:
            return False
        self.close_connection = True
        self._error(refusal[0], refusal[1])
        return True

    def _json(self, code: int, obj: Any) -> None:
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code: int, message: str) -> None:
        self._json(code, {"error": {"message": message, "type": "invalid_request_error"}})

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?", 1)[0].rstrip("/")
        if self._refused(path):
            return None
        if path in ("/health", "/v1/health"):
            return self._json(200, {"status": "ok", "dim": self.server.dim, "offline": True,
                                    "embedder": self.server.spec.record()})
        if path == "/stats":
            with self.server.lock:
                return self._json(200, {"requests": dict(self.server.counts)})
        if path in ("/v1/models", "/models"):
            data = [{"id": m, "object": "model", "owned_by": "mnote-kr"} for m in (LLM_MODEL, EMBED_MODEL)]
            return self._json(200, {"object": "list", "data": data})
        return self._error(404, f"no route {path}")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?", 1)[0].rstrip("/")
        if self._refused(path):
            return None
        raw = (self.headers.get("Content-Length") or "0").strip()
        if self.headers.get("Transfer-Encoding") or not raw.isdigit():
            self.close_connection = True
            return self._error(411 if self.headers.get("Transfer-Encoding") else 400,
                               "send one JSON body with a Content-Length")
        length = int(raw)
        if length > MAX_BODY:
            self.close_connection = True  # never read: answer and close
            return self._error(413, f"request body of {length} bytes exceeds the limit of {MAX_BODY}")
        ctype = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if length and ctype != "application/json":
            self.close_connection = True
            return self._error(415, "bodies must be application/json")
        data = self.read_exact(length) if length else b""
        if data is None:
            return self._error(408, f"the request body did not arrive within {LIMITS.body_deadline:g} s")
        try:
            body = json.loads(data or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError):
            return self._error(400, "body is not valid JSON")
        if not isinstance(body, dict):
            return self._error(400, "body must be a JSON object")
        if path.endswith("/embeddings"):
            return self._embeddings(body)
        if path.endswith("/chat/completions"):
            return self._chat(body)
        if path.endswith("/rerank"):
            return self._rerank(body)
        return self._error(404, f"no route {path}")

    def _rerank(self, body: dict[str, Any]) -> None:
        """Cohere-style ``{"query", "documents"}`` → ``{"results": [{"index", "relevance_score"}]}``:
        the cosine of each document to the query under the learned model, in the documents' order."""
        query, documents = body.get("query"), body.get("documents")
        if not isinstance(query, str) or not isinstance(documents, list):
            return self._error(400, "query must be a string and documents a list")
        if self.server.similarity is None:
            return self._error(501, f"embedder {self.server.spec.name} has no learned model to rerank with")
        texts = [d if isinstance(d, str) else str((d or {}).get("text", "")) if isinstance(d, dict) else str(d)
                 for d in documents]
        scores = self.server.similarity(query, texts)
        self.server.count("rerank")
        self._json(200, {"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)],
                         "model": self.server.spec.version})

    def _embeddings(self, body: dict[str, Any]) -> None:
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list):
            return self._error(400, "input must be a string or a list")
        try:
            dim = int(body.get("dimensions") or self.server.dim)
        except (TypeError, ValueError):
            return self._error(400, "dimensions must be an integer")
        if dim <= 0 or dim > 65536:
            return self._error(400, "dimensions out of range")
        if dim != self.server.dim and self.server.spec.name != "hashing":
            return self._error(400, f"embedder {self.server.spec.name} gives {self.server.dim} dimensions only")
        fmt = body.get("encoding_format") or "float"
        if fmt not in ("float", "base64"):
            return self._error(400, "encoding_format must be 'float' or 'base64'")
        texts = [item if isinstance(item, str) else json.dumps(item) for item in inputs]
        data = []
        vectors = (self.server.embed_batch(texts) if dim == self.server.dim
                   else [embed(t, dim) for t in texts])  # hashing only: any size on request
        for i, vec in enumerate(vectors):
            emb: str | list[float] = encode_base64(vec) if fmt == "base64" else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        self.server.count("embeddings")
        if any(t.startswith(embedders.MEANING_MARK) for t in texts):  # a question asked for meaning
            self.server.count("meaning")
        self._json(200, {"object": "list", "data": data, "model": body.get("model") or EMBED_MODEL,
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    def _chat(self, body: dict[str, Any]) -> None:
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return self._error(400, "messages must be a list of objects")
        kind, text = classify_and_answer(messages)
        self.server.count(kind)
        cid, created, model = f"chatcmpl-{int(time.time() * 1000)}", int(time.time()), body.get("model") or LLM_MODEL
        if not body.get("stream"):
            return self._json(200, {
                "id": cid, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            })
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        pieces = [text[i : i + 16] for i in range(0, len(text), 16)] or [""]
        for j, piece in enumerate(pieces):
            delta = {"role": "assistant", "content": piece} if j == 0 else {"content": piece}
            self._sse({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        self._sse({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def _sse(self, obj: Any) -> None:
        self.wfile.write(b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n")


class _ModelServer(GatedHTTPServer):
    def __init__(self, host: str, port: int, embedder: str, dim: int | None = None,
                 api_key: str | None = None) -> None:
        self.spec = embedders.spec(embedder)
        if dim is not None and embedder != "hashing" and dim != self.spec.dim:
            raise ValueError(f"embedder {embedder} gives {self.spec.dim} dimensions, not {dim}")
        self.dim = dim or self.spec.dim
        # Loaded before binding: a broken model install fails start-up, not the first request.
        self.embed_batch: Callable[[Sequence[str]], list[list[float]]] = (
            embedders.make_embedder(embedder, embed) if self.dim == self.spec.dim
            else (lambda texts: [embed(t, self.dim) for t in texts]))
        # Query-to-passage similarity for ``/rerank``: the learned model only (None for hashing).
        self.similarity: Callable[[str, Sequence[str]], list[float]] | None = (
            embedders.learned_similarity if embedder != "hashing" else None)
        super().__init__((host, port), _Handler, LIMITS)
        #: The key every request but ``/health`` must send (``Authorization: Bearer``).
        self.api_key = api_key or secrets.token_urlsafe(24)
        extra = () if host in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::") else (host,)
        self.gate = LoopbackGate(port=self.server_address[1], api_key=self.api_key, extra_hosts=extra)
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()

    def count(self, kind: str) -> None:
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1


def make_server(host: str = "127.0.0.1", port: int = 0, embedder: str = embedders.DEFAULT_EMBEDDER,
                dim: int | None = None, api_key: str | None = None) -> _ModelServer:
    """Bind the service (port 0 picks a free port); call ``serve_forever`` on the result.

    ``embedder`` is one of :data:`embedders.NAMES`; ``server.dim`` is its vector size (``dim``
    may set it for ``hashing`` only). ``server.counts`` counts requests by kind (embeddings,
    keywords, extract, no-llm). ``api_key`` is the key requests must send (a random one when
    not given: ``server.api_key``); there is no keyless mode.
    """
    return _ModelServer(host, port, embedder, dim, api_key)


def start_in_thread(host: str = "127.0.0.1", port: int = 0, embedder: str = embedders.DEFAULT_EMBEDDER,
                    dim: int | None = None, api_key: str | None = None) -> tuple[_ModelServer, threading.Thread]:
    """Start the service in a daemon thread; stop it with ``server.shutdown(); server.server_close()``.

    Requests send ``Authorization: Bearer`` + ``server.api_key`` (:func:`auth_headers`).
    """
    srv = make_server(host, port, embedder, dim, api_key)
    thread = threading.Thread(target=srv.serve_forever, name="mnote-kr-modelservice", daemon=True)
    thread.start()
    return srv, thread


@contextlib.contextmanager
def running(embedder: str = embedders.DEFAULT_EMBEDDER, dim: int | None = None,
            api_key: str | None = None) -> Iterator[_ModelServer]:
    """:func:`start_in_thread` for a ``with`` block: shut down, closed and its thread joined on leaving it."""
    srv, thread = start_in_thread(embedder=embedder, dim=dim, api_key=api_key)
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def auth_headers(api_key: str) -> dict[str, str]:
    """The headers that carry the service's key, as LightRAG's OpenAI client sends it."""
    return {"Authorization": f"Bearer {api_key}"}


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m mnote_kr_lightrag.engine.modelservice --port P [--embedder hybrid]``."""
    parser = argparse.ArgumentParser(prog="mnote_kr_lightrag.engine.modelservice", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--embedder", choices=embedders.NAMES, default=embedders.DEFAULT_EMBEDDER)
    args = parser.parse_args(argv)
    key = os.environ.pop(KEY_ENV, "")
    if not key:
        parser.error(f"set the service's key in ${KEY_ENV} (every request but /health must send it)")
    srv = make_server(args.host, args.port, args.embedder, api_key=key)
    print(f"mnote-kr offline model service on http://{args.host}:{srv.server_address[1]}/v1 "
          f"embedder={srv.spec.name} dim={srv.dim} version={srv.spec.version}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
