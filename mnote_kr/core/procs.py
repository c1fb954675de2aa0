"""Whether a process still runs, by its pid alone (signal 0: nothing is sent), and how many CPUs this
one may run on (what sizes every worker pool: :func:`usable_cpus`)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists (also when it is another user's: signalling it is refused)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def usable_cpus() -> int:
    """The CPUs this process may run on, at least 1: what every worker pool is sized by.

    ``os.cpu_count()`` counts the machine's cores, also in a container or under ``taskset`` that lets
    this process use a few of them. Python 3.13+ answers with ``os.process_cpu_count()``; before, the
    affinity mask (``os.sched_getaffinity``, Linux); where neither exists, the machine's count."""
    counted = getattr(os, "process_cpu_count", None)
    if counted is not None:
        return max(1, counted() or 1)
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)
