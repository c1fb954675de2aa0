"""The progress lines of a wait for the provider (``ingest --wait``): what to say, and when.

A line says how long the wait has run, how many files are indexed, the file(s) the provider is working on now
(its stage, for how long, its step and chunks when it says: ``EntryUpdate.activity``; a small file processed beside a
far larger one, that it finishes with it: :func:`_batched`), how many it holds queued,
not begun (stage ``queued``: nc24b read 38 queued notes as "parsing for 1m 17s", and progress looked stuck), and
the files it has said nothing of yet, the first few of each by name. A line is printed when something a person
would notice changed (a file done, a file taken up, a stage or step begun); chunk counts moving are shown at
most every ``detail_every_s``; with nothing new, a heartbeat every ``heartbeat_s`` still shows the time
(``HEARTBEAT_S``: a line every round of the wait, a few seconds; nc18a's log stood 20 s between lines that each
said only a later time). No rate and no ETA: the files of one ingest differ a thousandfold in size (a handbook
beside a note), so files per second falls to 0.0 while the work goes on, and how long the provider's steps after
the chunks take (merging into the graph) is not known in advance (the step after it, placing by meaning, says
its time left: its paragraphs are alike). The last line counts the files that failed apart, by name (the report
says why); :func:`steps_note` names both steps before the wait.

Each line is a :class:`ProgressText`: a ``str`` (every progress callback takes it as before)
carrying ``detail``, the same facts as data, which the HTTP API's job progress adds to its lines.
Clocks are injected: tests decide without sleeping.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mnote_kr.core.progresstext import ProgressText, elapsed_text, names_text
from mnote_kr.models import ProviderActivity

__all__ = ["PLACING_NOTE", "ProgressText", "WaitProgress", "elapsed_text", "names_text", "steps_note"]

#: How many files being worked on a line describes.
WORKING_SHOWN = 2
#: With nothing new, a line at least this often (the wait's rounds, ``host_ingest.WAIT_ROUND_S``, are as long).
HEARTBEAT_S = 4.0
#: A chunk count moving is shown at most this often.
DETAIL_EVERY_S = 4.0


class WaitProgress:
    """Decides, round by round, whether a wait prints a line, and writes it."""

    def __init__(self, total: int, *, clock: Callable[[], float] = time.monotonic,
                 wall_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 heartbeat_s: float = HEARTBEAT_S, detail_every_s: float = DETAIL_EVERY_S) -> None:
        self.total = total
        self.clock = clock
        self.wall_ms = wall_ms
        self.heartbeat_s = heartbeat_s
        self.detail_every_s = detail_every_s
        self.started = clock()
        self._last_at: float | None = None
        self._last_major: Any = None
        self._last_minor: Any = None
        self._first_seen: dict[tuple[str, str], float] = {}  # (file, stage): when this wait first saw it

    def step(self, waiting: Sequence[str], activity: dict[str, ProviderActivity],
             failed: Mapping[str, str] | None = None) -> ProgressText | None:
        """The line for this round, or None when it would say nothing new (and no heartbeat is due).
        ``waiting``: the files not indexed yet, in the order sent; ``activity``: what the provider
        said it is doing with some of them; ``failed``: the files done that failed, with their reasons
        (not counted as indexed)."""
        now = self.clock()
        failed = dict(failed or {})
        working = self._working(waiting, activity, now)
        queued = [p for p in waiting if (act := activity.get(p)) is not None and act.stage == "queued"]
        major = (len(waiting), tuple(waiting), tuple((w["path"], w["stage"], _kind(w.get("step"))) for w in working),
                 tuple(failed), tuple(queued))
        minor = tuple((w["path"], w.get("chunksDone")) for w in working)
        since = None if self._last_at is None else now - self._last_at
        if since is not None and major == self._last_major:
            if not ((minor != self._last_minor and since >= self.detail_every_s) or since >= self.heartbeat_s):
                return None
        heartbeat = since is not None and major == self._last_major and minor == self._last_minor
        self._last_at, self._last_major, self._last_minor = now, major, minor
        return self._line(waiting, working, queued, now, failed, heartbeat=heartbeat)

    def finished(self, failed: Mapping[str, str] | None = None) -> ProgressText:
        """The line once every file is indexed or failed: how many were indexed, how long the wait took, and
        the files that failed by name (nc24a read "indexed 12/12 files" where one had failed); their reasons
        are in ``detail`` and in the report the wait ends with."""
        elapsed = self.clock() - self.started
        failed = dict(failed or {})
        indexed = self.total - len(failed)
        detail = {"step": "wait", "elapsedS": round(elapsed, 1), "indexed": indexed, "total": self.total,
                  "waiting": [], "working": [], "queued": [], "done": True}
        if not failed:
            return ProgressText(f"indexed {self.total}/{self.total} files in {elapsed_text(elapsed)}", detail)
        # named, not explained: the report that follows says each reason (nc29b read a broken DOCX's reason
        # three times: report line, this line, the Error line); ``detail`` keeps them as data
        return ProgressText(f"indexed {indexed} of {self.total} files in {elapsed_text(elapsed)}; "
                            f"{len(failed)} failed: {names_text(list(failed))}",
                            {**detail, "failed": _failed_list(failed)})

    def _working(self, waiting: Sequence[str], activity: dict[str, ProviderActivity],
                 now: float) -> list[dict[str, Any]]:
        """The files the provider works on (taken up: not merely queued), longest first."""
        out: list[dict[str, Any]] = []
        wall = self.wall_ms()
        for path in waiting:
            act = activity.get(path)
            if act is None or act.stage == "queued":
                continue
            seen = self._first_seen.setdefault((path, act.stage), now)
            for_s = (wall - act.since_ms) / 1000 if act.since_ms else now - seen
            item: dict[str, Any] = {"path": path, "stage": act.stage, "forS": round(max(0.0, for_s), 1)}
            if act.step:
                item["step"] = act.step
            if act.chunks_done is not None:
                item["chunksDone"] = act.chunks_done
            if act.chunks_total is not None:
                item["chunksTotal"] = act.chunks_total
            out.append(item)
        _batched(out)
        return sorted(out, key=lambda w: -w["forS"])

    def _line(self, waiting: Sequence[str], working: list[dict[str, Any]], queued: list[str], now: float,
              failed: Mapping[str, str], *, heartbeat: bool) -> ProgressText:
        elapsed = now - self.started
        done = self.total - len(waiting) - len(failed)
        parts = [f"waiting for {len(waiting)} file(s) to be indexed", f"indexed {done}/{self.total} files"
                 + (f" ({len(failed)} failed: {names_text(list(failed))})" if failed else ""),
                 f"{elapsed_text(elapsed)} so far"]
        if working:
            chunks = {w["path"]: w["chunksTotal"] for w in working if "chunksTotal" in w}
            said = [_working_text(w, chunks) for w in working[:WORKING_SHOWN]]
            more = len(working) - WORKING_SHOWN
            parts.append("indexing now: " + ", ".join(said) + (f" and {more} more" if more > 0 else ""))
        if queued:
            parts.append(f"{len(queued)} queued in LightRAG: " + names_text(queued))
        told = {w["path"] for w in working} | set(queued)
        rest = [p for p in waiting if p not in told]
        if rest:
            # not listed by LightRAG yet: unlabelled names read as nothing (nc24c: "0 s so far; chatchat__…")
            parts.append(("still waiting: " if told else "waiting for LightRAG to list: ") + names_text(rest))
        detail = {"step": "wait", "elapsedS": round(elapsed, 1), "indexed": done, "total": self.total,
                  "waiting": list(waiting), "working": working, "queued": queued, "heartbeat": heartbeat}
        if failed:
            detail["failed"] = _failed_list(failed)
        return ProgressText("; ".join(parts), detail)


def steps_note(files: int) -> ProgressText:
    """The note an ``ingest --wait`` starts its wait with when placing by meaning follows it: both steps named
    up front (nc24a met "embedding places 0/2502 paragraphs" unannounced after "indexed 12/12 files"), and
    that a file is citable by words as soon as LightRAG has indexed it; each step its own sentence, saying who
    does it (nc30a read "step 2 of 2, placing by meaning, then embeds their paragraphs" as garbled). ``detail``:
    ``{"step": "plan", "steps": ["wait", "embed"], "files"}``, the later lines' own step names."""
    return ProgressText(f"note: step 1 of 2: LightRAG indexes the {files} file(s); each is citable by words as "
                        "soon as it is indexed. Step 2 of 2, placing by meaning: mnote-kr embeds their paragraphs, "
                        "so that a search can also cite the paragraph that answers in other words",
                        {"step": "plan", "steps": ["wait", "embed"], "files": files})


#: The note placing by meaning starts with after :func:`steps_note`.
PLACING_NOTE = ProgressText("note: step 2 of 2: placing by meaning (the files indexed are citable by words "
                            "meanwhile; the time left is said once the pace is known)",
                            {"step": "plan", "steps": ["wait", "embed"], "now": "embed"})


def _failed_list(failed: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"path": path, "reason": reason} for path, reason in failed.items()]


#: The stage of a file the provider's engine stopped in the middle of, which the wait sent again: its
#: old stage and time mean nothing (nc26c read "processing for 3m 17s" beside an idle LightRAG).
INTERRUPTED = "interrupted"


def _working_text(w: dict[str, Any], chunks: Mapping[str, int] | None = None) -> str:
    """``handbook.docx (processing for 2m 10s: extracting entities, chunk 120 of 500)``; ``chunks``: the chunks of
    each file worked on (the one a file is ``batchedWith`` is named with its count). A file sent again after an
    engine stop: ``handbook.docx (interrupted: the engine stopped while indexing it; sent again)``."""
    if w["stage"] == INTERRUPTED:
        return f"{w['path']} (interrupted: the engine stopped while indexing it; sent again)"
    chunks = chunks or {}
    what = [w["step"]] if w.get("step") and w["step"] != w["stage"] and "batchedWith" not in w else []
    if "chunksDone" in w:
        what.append(f"chunk {w['chunksDone']} of {w.get('chunksTotal', '?')}")
    elif "chunksTotal" in w and not (what and _EMBEDDING.match(what[0])):  # "embedding 482 chunks" says them
        what.append(f"{w['chunksTotal']} chunk" + ("s" if w["chunksTotal"] != 1 else ""))
        if "batchedWith" in w:
            what[-1] += (f", embedded in one batch with the {chunks.get(w['batchedWith'], '?')} of {w['batchedWith']}, "
                         "so both finish together")
    tail = (": " + ", ".join(what)) if what else ""
    return f"{w['path']} ({w['stage']} for {elapsed_text(w['forS'])}{tail})"


#: A file processed beside one with at least this many times its chunks (and ``BATCHED_LEAST`` at least) waits on
#: that file's chunks: LightRAG 1.5.7 embeds the chunks of the files it processes side by side in one write.
BATCHED_TIMES = 4
BATCHED_LEAST = 10


#: A step that embeds a file's chunks (LightRAG without an LLM: ``embedding 482 chunks``).
_EMBEDDING = re.compile(r"^embedding\b")


def _batched(working: list[dict[str, Any]]) -> None:
    """Mark each file LightRAG processes beside a far larger one (``batchedWith``): nc26b read a 1-chunk file
    "processing for 1m 45s" beside a 483-chunk handbook. LightRAG's log of that run: after both were chunked,
    one flush embedded "484 vectors in 49 batch(es)", and both completed when it ended, 4 minutes later. Only
    while neither says a step other than embedding its chunks (an LLM's extraction, the graph's merge: another
    wait)."""
    plain = [w for w in working if w["stage"] == "processing" and _EMBEDDING.match(w.get("step") or "embedding")
             and "chunksDone" not in w and isinstance(w.get("chunksTotal"), int)]
    for w in plain:
        big = max((o for o in plain if o is not w), key=lambda o: o["chunksTotal"], default=None)
        if big is not None and big["chunksTotal"] >= max(BATCHED_LEAST, BATCHED_TIMES * w["chunksTotal"]):
            w["batchedWith"] = big["path"]


def _kind(step: str | None) -> str | None:
    """A step without its numbers: a new step is news, a count moving within one is detail."""
    return re.sub(r"\d+", "#", step) if step else None
