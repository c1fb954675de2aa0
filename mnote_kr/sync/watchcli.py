"""``mnote-kr watch``: the watcher in the foreground, one timed line per thing it does, until Ctrl-C.

Every line starts with the time, the progress lines of the ingests it runs too (a newcomer's log began
``sent 0/1 files (1 queued, ...)`` with no time and no file name, nc18b problem 6): before a changed file
is sent its ``changed`` line names it, and the progress lines that follow are that file's.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from mnote_kr.errors import UsageError
from mnote_kr.sync.watch import WatchAction, Watcher

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

#: A progress line that must be seen starts so (``cli.reports.NOTE``): its time goes after it.
_NOTE = "note: "


def clock_text(at_s: float | None = None) -> str:
    """``05:26:58``: the time every line of the watch log starts with."""
    return time.strftime("%H:%M:%S", time.localtime(time.time() if at_s is None else at_s))


def stamped(write: Callable[[str], None]) -> Callable[[str], None]:
    """``write`` with the time before each progress line (after ``note: ``, which must stay first)."""
    def stamp(message: str) -> None:
        if message.startswith(_NOTE):
            write(f"{_NOTE}{clock_text()} {message[len(_NOTE):]}")
        else:
            write(f"{clock_text()} {message}")
    return stamp


def run_watch(host: Host, debounce_s: float = 1.0, reconcile: bool = True) -> None:
    """``mnote-kr watch``: watch until Ctrl-C, printing one line per action."""
    if not host.registry().roots:
        raise UsageError("No indexed roots to watch", hint="add one with 'mnote-kr roots add PATH'")
    if host.progress is not None:
        host.progress = stamped(host.progress)

    def show(action: WatchAction) -> None:
        print(f"{clock_text(action.at_ms / 1000)} {action.line()}", flush=True)

    watcher = Watcher(host, debounce_s=debounce_s, reconcile=reconcile, on_action=show)
    # Ctrl-C (SIGINT) and kill (SIGTERM) stop it cleanly, also when it was started in the background
    # by a script, which starts it with SIGINT ignored (a bare-clone test run hung there).
    previous = {signum: signal.signal(signum, signal.default_int_handler)
                for signum in (signal.SIGINT, signal.SIGTERM) if threading.current_thread() is threading.main_thread()}
    watcher.start()
    try:
        while watcher.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("stopping", flush=True)
    finally:
        watcher.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
