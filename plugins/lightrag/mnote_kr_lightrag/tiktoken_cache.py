"""tiktoken's BPE files, provided offline for the managed LightRAG engine.

``lightrag-server`` hard-codes the chunking tokenizer ``o200k_base``; tiktoken downloads its
BPE file from ``openaipublic.blob.core.windows.net`` unless ``TIKTOKEN_CACHE_DIR`` holds it under
``sha1(url)`` with the right sha256. Without network the server dies at start-up.

The npm package ``js-tiktoken@1.0.21`` (MIT) ships the same ranks in another layout
(``dist/ranks/<name>.js``: a JSON object whose ``bpe_ranks`` string holds lines
``! <offset> <b64tok> <b64tok> ...``). Rewriting them as ``<b64tok> <rank>\\n`` sorted by rank
reproduces tiktoken's file byte for byte; the sha256 check proves it. :func:`ensure_tiktoken_cache`
does this once (``npm pack`` through the npm registry) and keeps the result in the host's cache dir.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from mnote_kr.errors import ProviderError

JS_TIKTOKEN = "js-tiktoken@1.0.21"
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

_FIX = ("connect to the npm registry once (npm must be installed: e.g. 'apt-get install npm'), "
        "or copy tiktoken's o200k_base file into {cache} as {name}")


def default_cache_dir() -> Path:
    """``<host cache dir>/tiktoken`` (``mnote_kr.core.paths.cache_dir()``)."""
    from mnote_kr.core import paths

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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _npm_pack(workdir: Path, timeout: float) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise ProviderError(
            "Cannot build tiktoken's o200k_base file offline: npm is not installed",
            hint="install Node.js/npm (e.g. 'apt-get install npm') so that "
            f"'npm pack {JS_TIKTOKEN}' can run once, or copy the file into the cache dir",
        )
    try:
        proc = subprocess.run(
            [npm, "pack", JS_TIKTOKEN, "--silent"], cwd=workdir, capture_output=True, text=True,
            timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ProviderError(
            f"'npm pack {JS_TIKTOKEN}' timed out after {timeout:.0f}s",
            hint="check the connection to the npm registry and retry",
        ) from exc
    tarballs = sorted(workdir.glob("js-tiktoken-*.tgz"))
    if proc.returncode != 0 or not tarballs:
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
        raise ProviderError(
            f"'npm pack {JS_TIKTOKEN}' failed (exit {proc.returncode}): {' / '.join(tail) or 'no output'}",
            hint="the npm registry must be reachable once to build tiktoken's o200k_base file",
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


def ensure_tiktoken_cache(cache_dir: Path | None = None, *, timeout: float = 180.0) -> Path:
    """Make sure ``cache_dir`` holds a verified ``o200k_base`` file; return ``cache_dir``.

    Use the result as ``TIKTOKEN_CACHE_DIR``. When the file is missing or corrupt it is rebuilt
    from ``npm pack js-tiktoken@1.0.21`` in a temporary directory, checked against the sha256
    tiktoken expects and written atomically (``cl100k_base`` too when it verifies). Raises
    ``ProviderError`` saying how to fix it when npm is missing, offline or the bytes differ.
    """
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    if is_valid(cache, REQUIRED):
        return cache
    with tempfile.TemporaryDirectory(prefix="mnote-kr-tiktoken-") as tmp:
        tarball = _npm_pack(Path(tmp), timeout)
        for encoding, (name, want) in ENCODINGS.items():
            if encoding != REQUIRED and is_valid(cache, encoding):
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
    if not is_valid(cache, REQUIRED):  # pragma: no cover - written and verified just above
        raise ProviderError(f"tiktoken cache in {cache} is not valid after rebuilding",
                            hint=_FIX.format(cache=cache, name=ENCODINGS[REQUIRED][0]))
    return cache
