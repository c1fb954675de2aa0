"""Work budgets for reading a PDF, so that no file can take unbounded memory or time.

PDFium inflates a page's content streams in full before it lays out any text, so a
small file whose stream inflates to gigabytes (a compression bomb) would take that
much memory. Before PDFium sees a file, ``check_streams`` inflates every Flate stream
of the raw file itself, a megabyte at a time and discarding the output, and stops at
``MAX_INFLATED`` bytes in total. Pages, characters and seconds are bounded while the
text layer is read (``pdftext``). Over budget is one ``DocumentError`` that names the
file and the limit; a search then cites the file at ``file`` precision.

The seconds are the reading thread's own CPU seconds (``Stopwatch``), not the wall clock's: a
machine loaded by other work keeps the reader waiting without the file costing more (round 28:
tracemonkey, read in a few seconds of CPU, passed 20 s of wall time at load 27 and was cited at
the file level), while a file whose reading computes without end is stopped as before. A reading
that waits on its disk spends no CPU: ``WALL_TIMES`` the limit on the wall clock stops it too.

Known gaps: streams of an encrypted PDF cannot be inflated before decryption, and
LZW streams are not measured (both are rare in files people write today).
"""

from __future__ import annotations

import mmap
import re
import time
import zlib
from pathlib import Path

from mnote_kr.plugin_api import OverBudgetError

MAX_PAGES = 3000
MAX_CHARS = 6_000_000  # text-layer characters in one document
MAX_INFLATED = 256 * 1024 * 1024  # Flate output, summed over every stream of the file
MAX_FILTERS = 4  # chained Flate filters on one stream
MAX_SECONDS = 20.0  # CPU seconds of the reading thread for the text layer: a backstop for what the others miss
#: True: ``MAX_SECONDS`` counts the reading thread's CPU time (``time.thread_time``); False: wall time (before r29).
CPU_SECONDS = True
#: The wall-clock backstop beside the CPU limit, in multiples of it (100 s by default): a reading blocked in I/O (a
#: stalled network mount, a cloud placeholder, a machine swapping) spends no CPU, and it holds ``PDFIUM_LOCK`` all the
#: while, so every other locate and viewer page waits behind it (review30 finding 5). Generous: round 28's machine at
#: load 27 read tracemonkey in some 20 s of wall time.
WALL_TIMES = 5.0

_STREAM = re.compile(rb"stream\r?\n")
_FLATE = re.compile(rb"/(?:FlateDecode|Fl)\b")
_STEP = 1 << 20


class Stopwatch:
    """The seconds a reading has spent since it started: the reading thread's CPU time (``CPU_SECONDS``), which
    neither other processes nor other threads of this one add to (PDFium and pdfminer.six compute in the caller's
    thread), so the limit stops a file whose reading is costly, not a reading a busy machine kept waiting; and, as a
    backstop, the wall clock's at ``WALL_TIMES`` the limit (a reading blocked in I/O spends no CPU)."""

    def __init__(self) -> None:
        self._cpu = CPU_SECONDS
        self._clock = time.thread_time if CPU_SECONDS else time.monotonic
        self._start = self._clock()
        self._wall_start = time.monotonic()
        self._by_wall = False  # the limit passed was the wall-clock backstop

    def spent(self) -> float:
        """Seconds spent so far."""
        return self._clock() - self._start

    def over(self, limit: float | None = None) -> bool:
        """True once the reading has spent more than ``limit`` seconds (default ``MAX_SECONDS``), or waited more than
        ``WALL_TIMES`` that on the wall clock."""
        limit = MAX_SECONDS if limit is None else limit
        if self.spent() > limit:
            return True
        self._by_wall = self._cpu and time.monotonic() - self._wall_start > WALL_TIMES * limit
        return self._by_wall

    @property
    def unit(self) -> str:
        """How the limit passed reads in an error: "20 s of CPU", "100 s of wall time" (or "20 s", before r29)."""
        if self._by_wall:
            return f"{WALL_TIMES * MAX_SECONDS:g} s of wall time"
        return f"{MAX_SECONDS:g} s of CPU" if self._cpu else f"{MAX_SECONDS:g} s"


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.0f} MiB"


def over_budget(path: Path | str, what: str, limit: str) -> OverBudgetError:
    """The one error for a file over a reading budget."""
    return OverBudgetError(
        f"PDF over the reader's budget ({what}, limit {limit}): {path}",
        path=str(path), limit=limit,
        hint="the citation stays at file level; split or re-export the PDF to locate inside it",
    )


def check_file(path: Path) -> None:
    """The budgets a PDF is held to before it is indexed, cheapest first: its Flate streams
    (``check_streams``, no output kept) and its page count (PDFium reads the page tree only).
    Raises ``OverBudgetError``; a file PDFium cannot open is not over a budget (returns)."""
    try:
        check_streams(path)
    except OverBudgetError as exc:  # named by the file's name, as every refusal line is
        raise OverBudgetError(exc.message.replace(str(path), path.name), path=str(path), limit=exc.limit) from None
    from .pdfium import PDFIUM_LOCK, modules

    pdfium, _ = modules()
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError:
            return  # broken or encrypted: the provider says what it makes of it
        try:
            pages = len(doc)
        finally:
            doc.close()
    if pages > MAX_PAGES:
        raise over_budget(path.name, f"{pages} pages", f"{MAX_PAGES} pages")


def check_streams(path: Path, limit: int | None = None) -> int:
    """Inflate every Flate stream of ``path`` without keeping the output; return the total.

    Raises ``DocumentError`` once the total passes ``limit`` (default ``MAX_INFLATED``).
    A stream with two or more Flate filters is inflated through the whole chain.
    """
    cap = MAX_INFLATED if limit is None else limit
    total = 0
    with open(path, "rb") as fh:
        try:
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return 0
        with data:
            pos = 0
            while True:
                m = _STREAM.search(data, pos)
                if m is None:
                    break
                start = m.end()
                end = data.find(b"endstream", start)
                if end < 0:
                    end = len(data)
                pos = end + len(b"endstream")
                head = data[max(0, m.start() - 2048) : m.start()]
                head = head[head.rfind(b"obj") + 1 :]
                layers = len(_FLATE.findall(head))
                if layers:
                    total = _inflate(data, start, end, layers, total, cap, path)
    return total


def _inflate(data: mmap.mmap, start: int, end: int, layers: int, total: int, cap: int, path: Path) -> int:
    """Feed one stream through ``layers`` chained inflaters, a megabyte at a time."""
    if layers > MAX_FILTERS:
        raise over_budget(path, f"{layers} chained Flate filters on one stream", str(MAX_FILTERS))
    chain = [zlib.decompressobj() for _ in range(layers)]
    count = [total]

    def feed(k: int, buf: bytes) -> bool:
        # Depth is at most MAX_FILTERS; every piece is pushed down before the next is made,
        # so memory stays at a megabyte per layer whatever the ratio.
        d = chain[k]
        while buf:
            try:
                out = d.decompress(buf, _STEP)
            except zlib.error:
                return False  # broken data: PDFium stops where we stop
            buf = d.unconsumed_tail
            if k == layers - 1:
                count[0] += len(out)
                if count[0] > cap:
                    raise over_budget(path, "decompressed stream data", _mib(cap))
            elif out and not feed(k + 1, out):
                return False
            if d.eof or (not out and not buf):
                break
        return True

    for at in range(start, end, _STEP):
        if not feed(0, data[at : min(end, at + _STEP)]) or chain[0].eof:
            break
    return count[0]
