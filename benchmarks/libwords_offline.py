"""The library word counts (``libwords``) of the files ``relevance_floor.py`` ingests, built offline.

The files (``retrieval_labels.load_sets``) are copied into a new workspace as ``relevance_floor.py`` copies them
and prepared for locating by the host's own step (``Host._prepare_locate``: the locators parse each file and queue
its places, which ``libwords`` counts), with no engine; the counts are written to ``--out``, which
``weak_variants.py --library F`` reads to replay the weak rule with this library's IDF.

    .venv/bin/python benchmarks/libwords_offline.py --out /tmp/libwords.msgpack
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_labels import corpus_host, load_sets  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mnote-bench-libwords-"))
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    try:
        from mnote_kr.citations.caches import libwords

        files, _ = load_sets()
        host = corpus_host(tmp / "kb", files)
        host._prepare_locate([(str(tmp / "kb" / "docs" / Path(f).name), "docs/" + Path(f).name) for f in files])
        lib = libwords.load(host.workspace.index_dir)
        if lib is None:
            print("no words counted", file=sys.stderr)
            return 1
        shutil.copyfile(libwords.path_in(host.workspace.index_dir), args.out)
        print(f"{lib.files} of {len(files)} files counted, {len(lib.df)} words: {args.out}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
