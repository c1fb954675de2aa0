"""Where the repository's own test documents and recorded LightRAG payloads live.

Everything the suite and the benchmarks read is inside the repository, so a bare clone passes:
``tests/data/corpus/`` holds third-party DOCX and PDF files (provenance and licences in its
``MANIFEST.tsv``), ``tests/data/lightrag/samples/`` the recorded responses and sidecars of a real
LightRAG 1.5.7 server.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
CORPUS = DATA / "corpus"
SAMPLES = DATA / "lightrag" / "samples"
SIDECARS = SAMPLES / "sidecars"
