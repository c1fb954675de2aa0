"""Budget checks for a zip container (DOCX, PPTX, XLSX) before a library parses it.

``check_zip`` reads only the central directory and refuses, with one ``DocumentError`` line, a
file whose size, entry count, expanded size or compression ratio is out of bounds, so a zip bomb
never reaches a parser that would inflate it into memory. Offered to plugins through
``mnote_kr.plugin_api``.
"""

from __future__ import annotations

import os
import zipfile

from mnote_kr.errors import DocumentError

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_ENTRIES = 20_000
MAX_PART_BYTES = 64 * 1024 * 1024  # expanded bytes of one part
MAX_TOTAL_BYTES = 512 * 1024 * 1024  # expanded bytes of all parts
MAX_RATIO = 200  # expanded / compressed, above which a big part is a zip bomb
RATIO_MIN_BYTES = 4 * 1024 * 1024  # small parts may compress well (repeated markup)


def check_zip(path: str | os.PathLike[str], kind: str, *, max_part_bytes: int = MAX_PART_BYTES) -> None:
    """Refuse ``path`` (a ``kind`` file, e.g. "PPTX") when it is not a zip or is over budget."""
    name = os.fspath(path)
    hint = f"check the file opens in an office application; a {kind} file this large is not located"
    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            raise DocumentError(f"{kind} over budget: {name} is {size} bytes (limit {MAX_FILE_BYTES})", hint=hint)
        with zipfile.ZipFile(name) as zf:
            infos = zf.infolist()
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        raise DocumentError(f"Cannot read {kind} {name}: {exc}", hint=f"is it a real {kind} file?") from exc
    if len(infos) > MAX_ENTRIES:
        raise DocumentError(f"zip bomb: {name} has {len(infos)} entries (limit {MAX_ENTRIES})", hint=hint)
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > max_part_bytes:
            raise DocumentError(f"{kind} over budget: {info.filename} of {name} expands to {info.file_size} bytes "
                                f"(limit {max_part_bytes})", hint=hint)
        if info.file_size > RATIO_MIN_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            ratio = info.file_size // max(info.compress_size, 1)
            raise DocumentError(f"zip bomb: {info.filename} of {name} has compression ratio {ratio}:1 "
                                f"(limit {MAX_RATIO}:1)", hint=hint)
    if total > MAX_TOTAL_BYTES:
        raise DocumentError(f"{kind} over budget: {name} expands to {total} bytes (limit {MAX_TOTAL_BYTES})", hint=hint)
