"""Worker pools are sized by the CPUs this process may run on, not the machine's: in a container
limited by CPU affinity (``docker --cpuset-cpus``, ``taskset``) ``os.cpu_count()`` still counts every
core of the host, and the e5 passes (one thread each) would outnumber the cores they share."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from mnote_kr.citations.rank import e5_onnx
from mnote_kr.core import procs


def _machine(monkeypatch: pytest.MonkeyPatch, *, cores: int | None, allowed: set[int] | None,
             process: int | None | bool = False) -> None:
    """A machine of ``cores`` on which this process may run on ``allowed`` (None: no affinity call);
    ``process``: what ``os.process_cpu_count`` answers (False: Python before 3.13, no such call)."""
    fake = types.SimpleNamespace(cpu_count=lambda: cores)
    if allowed is not None:
        fake.sched_getaffinity = lambda pid: allowed
    if process is not False:
        fake.process_cpu_count = lambda: process
    monkeypatch.setattr(procs, "os", fake)


def test_the_cpus_this_process_may_run_on_size_the_pools_not_the_machines_cores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _machine(monkeypatch, cores=64, allowed={3})  # a container pinned to one core of a big host
    assert procs.usable_cpus() == 1
    assert (e5_onnx.workers(), e5_onnx.passes()) == (1, 1)
    _machine(monkeypatch, cores=64, allowed={0, 1, 2}, process=3)  # 3.13+: its own answer first
    assert procs.usable_cpus() == 3 and (e5_onnx.workers(), e5_onnx.passes()) == (2, 3)
    _machine(monkeypatch, cores=8, allowed=None)  # no affinity (macOS, Windows): the machine's
    assert procs.usable_cpus() == 8 and e5_onnx.passes() == 4
    _machine(monkeypatch, cores=None, allowed=None, process=None)  # nobody knows: one
    assert procs.usable_cpus() == 1 and (e5_onnx.workers(), e5_onnx.passes()) == (1, 1)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_a_process_pinned_to_one_core_sizes_its_e5_pools_for_one(tmp_path: Path) -> None:
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from mnote_kr.citations.rank import e5_onnx; from mnote_kr.core.procs import usable_cpus; "
            "print(usable_cpus(), e5_onnx.workers(), e5_onnx.passes())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=60).stdout
    assert out.split() == ["1", "1", "1"], out
