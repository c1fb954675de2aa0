"""A search LightRAG holds while it indexes: wait until it has stored the file it embeds, then ask once more.

LightRAG 1.5.7 embeds a document's chunks at the end of its indexing while holding its chunk store's
lock (``_flush_pending_locked``), and a search's look into that store waits for the lock: a search sent
meanwhile waits until the whole document is embedded (87 s for the 872-page handbook on 2 cores,
docs/sync.md). When a search (``/query/data``, ``/query``) gets no answer in ``timeout_s`` and the
pipeline status says LightRAG is indexing, the client does not fail at once: it polls the status until
a file's indexing ends (a new "Completed processing file k/n" in its history: the store is written and
its lock let go), another run starts or the pipeline is idle, says on a progress line what it waits
for, and then sends the search once more. All within ``[providers.lightrag] search_wait_s``; past it,
one line says what LightRAG indexes, for how long, and that the search got no answer.

Names: LightRAG's ``job_name`` keeps 20 characters of the first file's name (``unstructured__handbo...``);
its history says the whole link name (``Extracting stage 1/1: <name>``), which the registry maps back to
the user's own path (``kb/unstructured__handbook.docx``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .naming import readable_name

#: Seconds one look at the pipeline status may take while a search waits.
STATUS_TIMEOUT_S = 5.0
#: Seconds the one look at the pipeline status before a search may take (files sent and not indexed yet).
LOOK_S = 2.0
#: How the host's progress writer knows a line the person must see whole, at once (``progress_writer``'s notes).
NOTE = "note: "
#: Seconds between two looks at the pipeline status while a search waits.
POLL_S = 1.0
#: Seconds between two progress lines while a search waits.
PROGRESS_EVERY_S = 5.0
#: Default ``[providers.lightrag] search_wait_s``: how long a search LightRAG holds while it indexes
#: waits, beyond ``timeout_s``, for the file being stored. A document's embedding holds searches for
#: as long as it takes: the 872-page handbook DOCX (483 chunks, 2 cores) held a search 87 s in one run and
#: 123 s in another (benchmarks/search_during_ingest.py, docs/sync.md); 30 + 150 s covers that with room.
SEARCH_WAIT_S = 150.0

_JOB = re.compile(r"^(?P<name>.*?)\s*\[(?P<files>\d+) files?\]$")
_EXTRACTING = re.compile(r"^Extracting stage (?P<k>\d+)/(?P<n>\d+): (?P<path>.+)$")
_COMPLETED = re.compile(r"^Completed processing file \d+/\d+: ")
_DOC_ID = re.compile(r"\bd-id: (?P<id>doc-[0-9a-f]+)")


@dataclass(frozen=True)
class Indexing:
    """What LightRAG's pipeline status says it is doing while busy."""

    job_start: str | None
    #: The file it indexes now: the whole link name from its history, else what the job name kept.
    file: str
    doc_id: str | None
    number: int | None  # the file's number in this run (``Extracting stage k/n``)
    files: int  # files in this run
    deleting: bool
    completed: frozenset[str]  # the "Completed processing file" lines its history holds


def indexing(status: dict[str, Any]) -> Indexing | None:
    """What ``status`` (``/documents/pipeline_status``) says LightRAG indexes, or None when it is idle."""
    if not status.get("busy"):
        return None
    job = str(status.get("job_name") or "").strip()
    match = _JOB.match(job)
    history = [m for m in status.get("history_messages") or [] if isinstance(m, str)]
    stage = next((m for m in map(_EXTRACTING.match, reversed(history)) if m), None)
    doc = _DOC_ID.search(str(status.get("latest_message") or ""))
    files = int(match["files"]) if match else int(status.get("docs") or 0)
    return Indexing(
        job_start=str(status.get("job_start")) if status.get("job_start") else None,
        file=stage["path"] if stage else (match["name"] if match else job),
        doc_id=doc["id"] if doc else None,
        number=int(stage["k"]) if stage else None,
        files=int(stage["n"]) if stage else files,
        deleting=job.lower().startswith("deleting"),
        completed=frozenset(m for m in history if _COMPLETED.match(m)),
    )


def finished(status: dict[str, Any]) -> list[str]:
    """The files (LightRAG's names) its history says it has finished in this run ("Completed processing file")."""
    return [m.split(": ", 1)[1] for m in status.get("history_messages") or []
            if isinstance(m, str) and _COMPLETED.match(m)]


def at_work(status: dict[str, Any]) -> bool:
    """Whether LightRAG is indexing, scanning, or has documents waiting to enter its pipeline."""
    return bool(status.get("busy") or status.get("scanning") or status.get("pending_enqueues"))


def may_wait_line(what: Indexing, name: str, budget_s: float) -> str:
    """What a search sent while LightRAG indexes is told at once: it may be held (``LightRAG is indexing
    1 file: kb/handbook.docx (for 12 s); this search may wait ... (at most 3m 00s)``)."""
    return (f"{doing(what, name)}; this search may wait until it has stored its chunks "
            f"(at most {took(budget_s)})")


def stored(before: Indexing, status: dict[str, Any]) -> bool:
    """Whether the indexing step that held a search is over: LightRAG is idle, runs another job, or has
    finished a file since ``before`` (it lets go of the store's lock when a file's chunks are stored)."""
    now = indexing(status)
    return now is None or now.job_start != before.job_start or bool(now.completed - before.completed)


def took(seconds: float) -> str:
    """``34 s``, ``2m 05s``, ``1h 02m``."""
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds} s"


Names = Callable[[Indexing], str]


def plain_name(what: Indexing) -> str:
    """The file's own name as the link name holds it (``report.docx``), without the registry."""
    return readable_name(what.file)


def registry_names(columns: Any) -> Names:
    """A namer that gives the user's own path (``kb/report.docx``) of the file LightRAG indexes, from the
    registry's columns (``ProviderContext.entry_columns``: link names and document ids), else its name."""
    by_name: dict[str, str] = {}
    by_id: dict[str, str] = {}
    if columns is not None:
        for path, doc_id, name in zip(columns.paths, columns.doc_ids, columns.names, strict=False):
            if name:
                by_name[str(name)] = str(path)
            if doc_id:
                by_id[str(doc_id)] = str(path)

    def name(what: Indexing) -> str:
        return by_name.get(what.file) or by_id.get(what.doc_id or "") or plain_name(what)

    return name


def doing(what: Indexing, name: str, now: datetime | None = None) -> str:
    """``LightRAG is indexing 1 file: kb/handbook.docx (for 2m 05s, file 1 of 3)``."""
    if what.deleting:
        head = f"LightRAG is deleting documents ({name})"
    else:
        count = f"{what.files} file{'s' if what.files != 1 else ''}" if what.files else "documents"
        head = f"LightRAG is indexing {count}" + (f": {name}" if name else "")
    facts = []
    try:
        started = datetime.fromisoformat(str(what.job_start))
        facts.append(f"for {took(((now or datetime.now(UTC)) - started).total_seconds())}")
    except (TypeError, ValueError):
        pass
    if what.number is not None and what.files > 1:
        facts.append(f"file {what.number} of {what.files}")
    return head + (f" ({', '.join(facts)})" if facts else "")


def gave_up(what: Indexing, name: str, waited_s: float, now: datetime | None = None) -> str:
    """The one line a search ends with when LightRAG held it for all it could wait."""
    return (f"{doing(what, name, now)}; searches wait until it has stored the chunks it is embedding, and "
            f"this one got no answer in {took(waited_s)}: search again in a moment")


def waiting_line(what: Indexing, name: str, waited_s: float, budget_s: float) -> str:
    """The progress line of a search that waits: what for, how long so far, at most how long."""
    return (f"waiting for LightRAG to store {name or 'the file it indexes'}'s chunks "
            f"({doing(what, name).removeprefix('LightRAG is ')}); searches wait meanwhile: "
            f"{took(waited_s)} so far, at most {took(budget_s)}")


def progress(what: Indexing, name: str, now: datetime | None = None) -> dict[str, Any]:
    """What ``status`` tells of an indexing run (``extra.indexing``): the file, its number in the run, since
    when. LightRAG 1.5.7 says no more (no chunk counts while it embeds), so no time left is guessed."""
    try:
        running_s: int | None = int(((now or datetime.now(UTC)) - datetime.fromisoformat(str(what.job_start)))
                                    .total_seconds())
    except (TypeError, ValueError):
        running_s = None
    return {"file": name or None, "fileNumber": what.number, "files": what.files, "runningS": running_s,
            "deleting": what.deleting, "text": doing(what, name, now).removeprefix("LightRAG is ")}
