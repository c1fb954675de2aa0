"""Reading LightRAG ``blocks.jsonl`` sidecars, defensively.

A sidecar is a derived cache written by someone else: a malformed line, invalid UTF-8
or a huge line is skipped and counted, never fatal. Line 1 is the meta row; every
other row with ``"type": "content"`` is a block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from mnote_kr.errors import LocatorError
from mnote_kr.models import Locator, SidecarBlock, SidecarMeta

#: A single block line above this size is skipped (a real block is a section of a document).
MAX_LINE_BYTES = 8 * 1024 * 1024
#: A sidecar file above this size is refused outright.
MAX_FILE_BYTES = 512 * 1024 * 1024

_block_decoder = msgspec.json.Decoder(SidecarBlock)
_meta_decoder = msgspec.json.Decoder(SidecarMeta)
_probe_decoder = msgspec.json.Decoder(dict)


@dataclass
class Sidecar:
    """A parsed sidecar: its meta row, its blocks in order, and what was skipped."""

    path: str
    meta: SidecarMeta | None
    blocks: list[SidecarBlock]
    skipped_lines: list[tuple[int, str]] = field(default_factory=list)

    def block(self, block_id: str) -> SidecarBlock | None:
        """The block with this id, or None."""
        for block in self.blocks:
            if block.blockid == block_id:
                return block
        return None


def read_sidecar(path: str | Path) -> Sidecar:
    """Read a ``blocks.jsonl`` file. Raises ``LocatorError`` only if the file cannot be read at all."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise LocatorError(f"Sidecar too large ({size} bytes): {path}", path=path)
        data = path.read_bytes()
    except OSError as exc:
        raise LocatorError(f"Cannot read sidecar {path}: {exc.strerror or exc}", path=path) from exc
    meta: SidecarMeta | None = None
    blocks: list[SidecarBlock] = []
    skipped: list[tuple[int, str]] = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        line = line.strip()
        if not line:
            continue
        if len(line) > MAX_LINE_BYTES:
            skipped.append((number, f"line longer than {MAX_LINE_BYTES} bytes"))
            continue
        try:
            row = _probe_decoder.decode(line)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            skipped.append((number, f"not JSON: {exc}"))
            continue
        kind = row.get("type")
        try:
            if kind == "meta" and meta is None:
                meta = _meta_decoder.decode(line)
            elif kind == "content" or (kind is None and "blockid" in row):
                blocks.append(_block_decoder.decode(line))
        except msgspec.ValidationError as exc:
            skipped.append((number, f"unexpected shape: {exc}"))
    return Sidecar(path=str(path), meta=meta, blocks=blocks, skipped_lines=skipped)


def heading_path(block: SidecarBlock) -> list[str]:
    """Parent headings from the top down, then the block's own heading."""
    path = [h for h in block.parent_headings if h]
    if block.heading and block.heading != "Preface/Uncategorized":
        path.append(block.heading)
    return path


def located_headings(locator: Locator, block: SidecarBlock | None = None, *,
                     otherwise: list[str] | None = None) -> list[str]:
    """A citation's ``headingPath``: the headings of the paragraph its locator landed on, when the
    locator reads them (``Locator.place_headings``), else its provider block's, else ``otherwise``
    (the headings of the citation the place stands behind). A block can run on into the next section,
    so its heading may be another paragraph's."""
    if locator.place_headings is not None:
        path = locator.place_headings
    else:
        path = heading_path(block) if block else otherwise or []
    return [h for h in (" ".join(h.split()) for h in path) if h]  # a heading with a line break reads on one line
