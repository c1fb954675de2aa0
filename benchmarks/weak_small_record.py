"""Record what the weak rule reads for searches over the two small libraries of ``offtopic_small.json``.

Each library of ``offtopic_small.json`` (the newcomers' nc23b "std" and nc23a folders, as copies of the corpus files)
is ingested into a fresh managed engine; each of its queries goes through ``Host.search`` (top 20, the CLI's) and
every place the weak rule read is written whole, with the library's file count and the counts of the query's words
(``--out``). A library's ``then`` step (a file deleted, one added, then ``sync``) runs before its ``after`` queries.
``tests/data/ranking/weak_small.json`` is this recording, trimmed; the unit tests replay it with no engine.

    flock /tmp/mnote-engine.lock .venv/bin/python benchmarks/weak_small_record.py --out /tmp/weak_small_raw.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import CORPUS, corpus_host  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    spec = json.loads((HERE / "offtopic_small.json").read_text(encoding="utf-8"))
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-small-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.citations import pipeline
    from mnote_kr.citations.rank.ranking import terms
    from mnote_kr_lightrag.engine.managed import default_engine_dirs, start_engine, stop_engine

    read: list[Any] = []

    def reading(citations: Any, query: str = "", *rest: Any) -> Any:
        lib = rest[0]() if rest and rest[0] is not None else None
        read.append((list(citations), lib))
        return weak_reason(citations, query, *rest)

    weak_reason = pipeline.weak_reason
    pipeline.weak_reason = reading
    dirs = default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    out: dict[str, Any] = {}
    try:
        start_engine(**dirs, wait_s=300)
        for name, library in spec["libraries"].items():
            host = corpus_host(tmp / name, library["files"])
            host.ingest(["docs"], wait=True, wait_s=1500)
            for step in ("before", "after"):
                if step == "after":
                    then = library.get("then")
                    if not then:
                        continue
                    for rel in then.get("delete", []):
                        (tmp / name / "docs" / Path(rel).name).unlink()
                    for rel in then.get("add", []):
                        shutil.copyfile(CORPUS / rel, tmp / name / "docs" / Path(rel).name)
                    host.ingest(["docs"], wait=True, wait_s=600)
                    host.sync(wait_s=300)
                for q in [q for q in spec["queries"] if q["library"] == name and q.get("step", "before") == step]:
                    read.clear()
                    found = host.search(q["q"], top_k=20)
                    seen, lib = read[-1] if read else ([], None)
                    asked = set(terms(q["q"]))
                    out[q["id"]] = {"q": q["q"], "library": name, "weak": found.weak, "weakReason": found.weak_reason,
                                    "files": [c.source_root_relative_path for c in found.results],
                                    "libFiles": lib.files if lib else None,
                                    "df": {t: lib.df.get(t, 0) for t in sorted(asked)} if lib else None,
                                    "read": [msgspec.to_builtins(c) for c in seen]}
                    print(q["id"], found.weak, [c.source_root_relative_path for c in found.results[:3]], flush=True)
        args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
        return 0
    finally:
        stop_engine(dirs["state_dir"])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
