"""What ``status`` pays to name the indexed files changed or gone on disk since they were indexed.

Builds a root of N files (default 5,000), registers every one as indexed (the testkit's in-process
provider stands in for LightRAG), edits one, deletes one, and times ``Host.status()`` with its registry
loaded cold (the in-process snapshot cache cleared, as in a fresh ``mnote-kr status``) against the same
call with the on-disk check left out (``core.ondisk.since_indexed`` answering nothing), in alternating
rounds so drift hits both. Both sides walk the roots (``pendingNew`` needs the walk); the check reuses
that walk's stat of each file, so its own cost is decoding every entry and comparing two numbers.
Target: <= 1.25x.

    .venv/bin/python benchmarks/status_disk.py [--files 5000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mnote_kr_testkit.fakes import fake_host  # noqa: E402
from watch import build, register_all  # noqa: E402

from mnote_kr.app import host_status as host_module  # noqa: E402
from mnote_kr.core import registry as registry_module  # noqa: E402

TARGET = 1.25


def _nothing(*args: Any, **kw: Any) -> dict[str, Any]:  # noqa: ANN401
    return {"changedSinceIndexed": {"count": 0, "paths": []}, "missingSinceIndexed": {"count": 0, "paths": []}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    real = host_module.since_indexed
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        build(ws, args.files)
        host, _ = fake_host(ws)
        register_all(host)
        first = ws / "library" / "shelf000" / "doc00000.md"
        first.write_text(first.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
        (ws / "library" / "shelf000" / "doc00001.md").unlink()
        info = host.status()  # warm the imports once; not timed
        assert info["changedSinceIndexed"]["count"] == 1 and info["missingSinceIndexed"]["count"] == 1, info
        times: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(args.rounds):
            for side in ("without", "with"):
                host_module.since_indexed = real if side == "with" else _nothing  # type: ignore[assignment]
                registry_module.clear_cache()
                started = time.perf_counter()
                host.status()
                times[side].append(time.perf_counter() - started)
        host_module.since_indexed = real
    with_s, without_s = statistics.median(times["with"]), statistics.median(times["without"])
    ratio = with_s / without_s
    print(f"status over {args.files} indexed files (1 edited, 1 deleted), registry loaded cold, "
          f"medians of {args.rounds}:")
    print(f"  with the on-disk check     {with_s * 1000:7.1f} ms")
    print(f"  without it (baseline)      {without_s * 1000:7.1f} ms")
    print(f"  ratio {ratio:.2f}x (target <= {TARGET}x): {'OK' if ratio <= TARGET else 'OVER'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
