"""Budget checks for a zip container (DOCX, PPTX, XLSX) before a library parses it.

``check_zip`` reads only the central directory and refuses, with one line, a file whose size,
entry count, expanded size or compression ratio is out of bounds, so a zip bomb never reaches a
parser that would inflate it into memory: ``OverBudgetError`` (naming the limit) for a file over
a budget, ``DocumentError`` for one that is no readable zip. ``count_tags`` counts an XML part's
elements while streaming it, keeping nothing. ``budget_refusal`` turns a reader's own check into a
``check_budget`` answer. Offered to plugins through ``mnote_kr.plugin_api``.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from mnote_kr.errors import DocumentError, OverBudgetError

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_ENTRIES = 20_000
MAX_PART_BYTES = 64 * 1024 * 1024  # expanded bytes of one part
MAX_TOTAL_BYTES = 512 * 1024 * 1024  # expanded bytes of all parts
MAX_RATIO = 200  # expanded / compressed, above which a big part is a zip bomb
RATIO_MIN_BYTES = 4 * 1024 * 1024  # small parts may compress well (repeated markup)


def budget_refusal(path: str, check: Callable[[str], object]) -> str | None:
    """A ``check_budget`` hook's answer from a reader's own check of ``path``: the budget it exceeds
    (``OverBudgetError``'s line, the file named by its name as every refusal is), or None; a file that is
    only broken (``DocumentError``: not a zip, a damaged part) is not over a budget, it is sent."""
    try:
        check(path)
    except OverBudgetError as exc:
        return exc.message.replace(path, Path(path).name)
    except DocumentError:
        return None
    return None


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def check_zip(path: str | os.PathLike[str], kind: str, *, max_part_bytes: int = MAX_PART_BYTES) -> None:
    """Refuse ``path`` (a ``kind`` file, e.g. "PPTX"): ``OverBudgetError`` when it is over a budget,
    ``DocumentError`` when it is not a zip."""
    name = os.fspath(path)
    hint = f"check the file opens in an office application; a {kind} file this large is not located"

    def over(message: str, limit: str) -> OverBudgetError:
        return OverBudgetError(message, path=name, limit=limit, hint=hint)

    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            raise over(f"{kind} over budget: {name} is {size} bytes (limit {MAX_FILE_BYTES})",
                       f"file size {_mib(MAX_FILE_BYTES)}")
        with zipfile.ZipFile(name) as zf:
            infos = zf.infolist()
    except (OSError, zipfile.BadZipFile, ValueError) as exc:
        raise DocumentError(f"Cannot read {kind} {name}: {exc}", hint=f"is it a real {kind} file?") from exc
    if len(infos) > MAX_ENTRIES:
        raise over(f"zip bomb: {name} has {len(infos)} entries (limit {MAX_ENTRIES})", f"zip entries {MAX_ENTRIES}")
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > max_part_bytes:
            raise over(f"{kind} over budget: {info.filename} of {name} expands to {info.file_size} bytes "
                       f"(limit {max_part_bytes})", f"zip part size {_mib(max_part_bytes)}")
        if info.file_size > RATIO_MIN_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            ratio = info.file_size // max(info.compress_size, 1)
            raise over(f"zip bomb: {info.filename} of {name} has compression ratio {ratio}:1 (limit {MAX_RATIO}:1)",
                       f"compression ratio {MAX_RATIO}:1")
    if total > MAX_TOTAL_BYTES:
        raise over(f"{kind} over budget: {name} expands to {total} bytes (limit {MAX_TOTAL_BYTES})",
                   f"zip total size {_mib(MAX_TOTAL_BYTES)}")


def count_tags(fh: IO[bytes], tag: re.Pattern[bytes], stop: int) -> int:
    """The matches of ``tag`` (a pattern starting with its ``<``, e.g. ``rb"<(?:\\w+:)?c[\\s>/]"``) in an
    XML stream, read a MiB at a time, nothing kept (a tag a chunk cuts is counted with the next chunk);
    stops once past ``stop``."""
    count, tail = 0, b""
    while count <= stop and (chunk := fh.read(1 << 20)):
        data = tail + chunk
        cut = data.rfind(b"<")
        cut = len(data) if cut < 0 else cut
        count += len(tag.findall(data, 0, cut))
        tail = data[cut:]
    return count + len(tag.findall(tail))
