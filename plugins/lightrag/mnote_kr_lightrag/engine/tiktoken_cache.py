"""tiktoken's BPE files, provided offline for the managed LightRAG engine.

``lightrag-server`` hard-codes the chunking tokenizer ``o200k_base``; tiktoken downloads its
BPE file from ``openaipublic.blob.core.windows.net`` unless ``TIKTOKEN_CACHE_DIR`` holds it under
``sha1(url)`` with the right sha256. Without network the server dies at start-up.

Two packages from the registries ship the same ranks in other layouts; either, rewritten as
tiktoken's ``<base64 token> <rank>\\n`` lines sorted by rank, reproduces tiktoken's file byte for
byte, and the sha256 check proves it:

* the PyPI wheel ``quicktok-v1==0.4.0`` (MIT, a dependency of ``mnote-kr[engine]``): its package
  data ``quicktok/data/<o200k|cl100k>.vocab`` is a little-endian uint32 token count, then per
  token a uint16 byte length, the token's bytes and a uint32 rank. Only the data file is read;
  the package's native tokenizer is never imported. This is the way on a Python-only machine.
* the npm package ``js-tiktoken@1.0.21`` (MIT): ``dist/ranks/<name>.js`` holds a JSON object
  whose ``bpe_ranks`` string has lines ``! <offset> <b64tok> <b64tok> ...``. Used only where the
  wheel is not installed (a platform it has no wheel for), through ``npm pack``.

:func:`ensure_tiktoken_cache` does this once and keeps the result in the host's cache dir.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import shutil
import struct
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mnote_kr.plugin_api import ProviderError, write_atomic

JS_TIKTOKEN = "js-tiktoken@1.0.21"
#: The wheel whose package data holds the ranks, and its file per encoding (under ``quicktok/data``).
QUICKTOK = "quicktok-v1==0.4.0"
_QUICKTOK_FILES = {"o200k_base": "o200k.vocab", "cl100k_base": "cl100k.vocab"}
#: A vocabulary file larger than this is not a tokenizer's (o200k's is 2.6 MB).
_MAX_VOCAB_BYTES = 64 * 1024 * 1024
_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

#: encoding name -> (tiktoken cache file name = sha1(url), expected sha256 of the content)
ENCODINGS: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "fb374d419588a4632f3f557e76b4b70aebbca790",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}
#: The server cannot start without this one; cl100k is kept when it can be built.
REQUIRED = "o200k_base"

_FIX = ("pip install '" + QUICKTOK + "' (mnote-kr[engine] brings it), or install npm so that 'npm pack "
        + JS_TIKTOKEN + "' can run once, or copy tiktoken's o200k_base file into {cache} as {name}")


def default_cache_dir() -> Path:
    """``<host cache dir>/tiktoken`` (``mnote_kr.core.paths.cache_dir()``)."""
    from mnote_kr.plugin_api import paths

    return paths.cache_dir() / "tiktoken"


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_valid(cache_dir: Path, encoding: str = REQUIRED) -> bool:
    """True when ``cache_dir`` holds ``encoding``'s file with the expected sha256."""
    name, sha = ENCODINGS[encoding]
    path = cache_dir / name
    return path.is_file() and _sha256_file(path) == sha


def convert_ranks_js(source: str) -> bytes:
    """Turn a js-tiktoken ``dist/ranks/<name>.js`` text into tiktoken's ``.tiktoken`` bytes."""
    try:
        obj = json.loads(source[source.index("{") : source.rindex("}") + 1])
        ranks = obj["bpe_ranks"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ProviderError("js-tiktoken ranks file has an unexpected layout") from exc
    pairs: list[tuple[int, str]] = []
    for line in ranks.split("\n"):
        if not line:
            continue
        parts = line.split(" ")
        try:
            offset = int(parts[1])
        except (IndexError, ValueError) as exc:
            raise ProviderError("js-tiktoken ranks file has a malformed line") from exc
        pairs.extend((offset + i, tok) for i, tok in enumerate(parts[2:]))
    pairs.sort()
    return "".join(f"{tok} {rank}\n" for rank, tok in pairs).encode("ascii")


def _write_atomic(path: Path, data: bytes) -> None:
    write_atomic(path, data, private=True, durable=True)  # 0600, as tempfile.mkstemp made it before


def _npm_pack(workdir: Path, timeout: float) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise ProviderError("npm is not installed")
    try:
        proc = subprocess.run(
            [npm, "pack", JS_TIKTOKEN, "--silent"], cwd=workdir, capture_output=True, text=True,
            timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ProviderError(
            f"'npm pack {JS_TIKTOKEN}' timed out after {timeout:.0f}s (is the npm registry reachable?)"
        ) from exc
    tarballs = sorted(workdir.glob("js-tiktoken-*.tgz"))
    if proc.returncode != 0 or not tarballs:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
        raise ProviderError(
            f"'npm pack {JS_TIKTOKEN}' failed (exit {proc.returncode}): {' / '.join(tail) or 'no output'}"
        )
    return tarballs[0]


def _read_ranks(tarball: Path, encoding: str) -> str | None:
    member = f"package/dist/ranks/{encoding}.js"
    with tarfile.open(tarball, "r:gz") as tar:
        try:
            info = tar.getmember(member)
        except KeyError:
            return None
        if not info.isfile() or info.size > 64 * 1024 * 1024:
            return None
        fh = tar.extractfile(info)
        return fh.read().decode("utf-8") if fh is not None else None


def convert_quicktok_vocab(data: bytes) -> bytes:
    """Turn a quicktok ``<name>.vocab`` file into tiktoken's ``.tiktoken`` bytes."""
    pairs: list[tuple[int, bytes]] = []
    try:
        (count,) = struct.unpack_from("<I", data, 0)
        offset = 4
        for _ in range(count):
            (length,) = struct.unpack_from("<H", data, offset)
            token = data[offset + 2 : offset + 2 + length]
            if len(token) != length:
                raise struct.error("token cut short")
            (rank,) = struct.unpack_from("<I", data, offset + 2 + length)
            offset += 2 + length + 4
            pairs.append((rank, token))
    except struct.error as exc:
        raise ProviderError("quicktok vocabulary file is truncated") from exc
    if offset != len(data):
        raise ProviderError(f"quicktok vocabulary file has {len(data) - offset} bytes after its {count} tokens")
    pairs.sort()
    return b"".join(base64.b64encode(token) + b" %d\n" % rank for rank, token in pairs)


def quicktok_vocab_path(encoding: str) -> Path | None:
    """Where the installed ``quicktok-v1`` wheel keeps ``encoding``'s ranks, or None.

    ``find_spec`` of a top-level package locates it without running its ``__init__`` (which loads
    the native tokenizer this module does not need).
    """
    name = _QUICKTOK_FILES.get(encoding)
    try:
        spec = importlib.util.find_spec("quicktok")
    except (ImportError, ValueError):
        return None
    if name is None or spec is None:
        return None
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / "data" / name
        if path.is_file():
            return path
    return None


def _from_quicktok(encoding: str) -> tuple[bytes | None, str]:
    """(tiktoken's bytes for ``encoding`` checked against their sha256, or None; why not)."""
    path = quicktok_vocab_path(encoding)
    if path is None:
        return None, f"the PyPI package {QUICKTOK} is not installed"
    try:
        if path.stat().st_size > _MAX_VOCAB_BYTES:
            return None, f"{path} is larger than a tokenizer vocabulary"
        data = convert_quicktok_vocab(path.read_bytes())
    except (OSError, ProviderError) as exc:
        return None, f"{path} could not be read ({exc})"
    got, want = hashlib.sha256(data).hexdigest(), ENCODINGS[encoding][1]
    if got != want:
        return None, f"tiktoken {encoding} rebuilt from {path} has sha256 {got}, expected {want}"
    return data, ""


def _from_npm(cache: Path, timeout: float) -> None:
    """Write every encoding js-tiktoken has and the cache lacks (the fallback: needs npm)."""
    with tempfile.TemporaryDirectory(prefix="mnote-kr-tiktoken-") as tmp:
        tarball = _npm_pack(Path(tmp), timeout)
        for encoding, (name, want) in ENCODINGS.items():
            if is_valid(cache, encoding):
                continue
            source = _read_ranks(tarball, encoding)
            if source is None:
                if encoding == REQUIRED:
                    raise ProviderError(f"{JS_TIKTOKEN} has no dist/ranks/{encoding}.js",
                                        hint=_FIX.format(cache=cache, name=name))
                continue
            data = convert_ranks_js(source)
            got = hashlib.sha256(data).hexdigest()
            if got != want:
                if encoding == REQUIRED:
                    raise ProviderError(
                        f"tiktoken {encoding} rebuilt from {JS_TIKTOKEN} has sha256 {got}, expected {want}",
                        hint=_FIX.format(cache=cache, name=name),
                    )
                continue
            _write_atomic(cache / name, data)


def ensure_tiktoken_cache(cache_dir: Path | None = None, *, timeout: float = 180.0) -> Path:
    """Make sure ``cache_dir`` holds a verified ``o200k_base`` file; return ``cache_dir``.

    Use the result as ``TIKTOKEN_CACHE_DIR``. A missing or corrupt file is rebuilt from the
    installed ``quicktok-v1`` wheel's data (no network, no Node), else from ``npm pack
    js-tiktoken@1.0.21``; either is checked against the sha256 tiktoken expects and written
    atomically (``cl100k_base`` too when it verifies). Raises ``ProviderError`` naming both causes
    and how to fix them when neither way gives the right bytes.
    """
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    if is_valid(cache, REQUIRED):
        return cache
    why_not = ""
    for encoding, (name, _sha) in ENCODINGS.items():  # o200k_base first
        if is_valid(cache, encoding):
            continue
        data, why = _from_quicktok(encoding)
        if data is not None:
            _write_atomic(cache / name, data)
        elif encoding == REQUIRED:
            why_not = why
    if is_valid(cache, REQUIRED):
        return cache
    fix = _FIX.format(cache=cache, name=ENCODINGS[REQUIRED][0])
    try:
        _from_npm(cache, timeout)
    except ProviderError as exc:
        raise ProviderError(f"Cannot build tiktoken's {REQUIRED} file offline: {why_not}, and the npm fallback "
                            f"failed: {exc.message}", hint=fix) from exc
    if not is_valid(cache, REQUIRED):  # pragma: no cover - written and verified just above
        raise ProviderError(f"tiktoken cache in {cache} is not valid after rebuilding", hint=fix)
    return cache
