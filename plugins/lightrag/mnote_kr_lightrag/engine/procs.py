"""The managed engine's processes: started private, recognised as ours, stopped and reaped.

:mod:`mnote_kr_lightrag.engine.managed` decides what to run and when; this module is how a process is
run and ended safely. A process is spawned in its own group with a private umask and a reduced
environment; before any signal, its command line is checked to still run the program recorded
for its role (a PID the system reused for another program is never signalled); our own children
are waited on exactly and reaped, so none lingers as a zombie.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

# Only these variables of the caller's environment reach the engine's processes: LightRAG reads
# dozens of variables (WORKSPACE, OPENAI_*, proxies, ...) that must not change a managed engine.
_ENV_KEEP = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TEMP", "TMP",
             "SYSTEMROOT", "SYSTEMDRIVE", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "PYTHONPATH", "VIRTUAL_ENV",
             "MNOTE_KR_ENGINE_DOCX_NOTES")
MARKERS = {"server": "mnote_kr_lightrag.engine.guard", "models": "mnote_kr_lightrag.engine.modelservice"}
#: Engines recorded by an older mnote-kr ran ``lightrag-server`` directly: still ours to stop.
_OLD_MARKERS = {"server": "lightrag-server"}
# Popen objects of the engine processes this interpreter started. They outlive start_engine on
# purpose; holding them here keeps Popen.__del__ from warning, and lets stop_engine reap them.
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def _cmdline(pid: int) -> str | None:
    """The command line of ``pid``, or None when it is gone or cannot be read."""
    proc = Path(f"/proc/{pid}/cmdline")
    if proc.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            return proc.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            return None
    import shutil
    import subprocess

    ps = shutil.which("ps")
    if ps is None:
        return None
    try:
        out = subprocess.run([ps, "-p", str(pid), "-o", "command="], capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def is_our_process(pid: int, role: str) -> bool:
    """True when ``pid`` is alive and still runs the program recorded for ``role``."""
    if pid <= 0:
        return False
    cmd = _cmdline(pid)
    if not cmd:
        return False
    if _is_zombie(pid):
        return False
    return MARKERS[role] in cmd or (role in _OLD_MARKERS and _OLD_MARKERS[role] in cmd)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def terminate(pid: int, role: str, timeout: float) -> bool:
    """SIGTERM ``pid`` (its own process group when it leads one), SIGKILL after ``timeout``."""
    if not is_our_process(pid, role):
        return False
    group = hasattr(os, "killpg") and _pgid(pid) == pid

    def send(sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig) if group else os.kill(pid, sig)

    import signal

    send(signal.SIGTERM)
    if not _wait_gone(pid, role, timeout):
        send(getattr(signal, "SIGKILL", signal.SIGTERM))
        _wait_gone(pid, role, 5.0)
    return True


def _wait_gone(pid: int, role: str, timeout: float) -> bool:
    import subprocess

    proc = CHILDREN.get(pid)
    if proc is not None:  # our own child: wait() is exact and reaps it
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        CHILDREN.pop(pid, None)
        return True
    deadline = time.monotonic() + timeout
    while True:
        reap(pid)
        if not is_our_process(pid, role):
            reap(pid)  # it may have just become a zombie child of ours
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (OSError, AttributeError):
        return None


def reap(pid: int) -> None:
    """Collect our own exited child so it does not linger as a zombie."""
    proc = CHILDREN.get(pid)
    if proc is not None:
        if proc.poll() is not None:
            del CHILDREN[pid]
        return
    with contextlib.suppress(ChildProcessError, OSError, AttributeError):
        os.waitpid(pid, os.WNOHANG)


def reap_exited() -> list[int]:
    """Collect every child of this interpreter's that has exited (another process stopped it: ``engine stop``
    while ``serve`` had started a workspace's server), so none lingers as a zombie; return their PIDs."""
    gone = [pid for pid, proc in list(CHILDREN.items()) if proc.poll() is not None]
    for pid in gone:
        CHILDREN.pop(pid, None)
    return gone


def log_tail(path: Path | str | None, lines: int = 25) -> str:
    if not path:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEEP}
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


#: The engine's processes create files 0600 and folders 0700: LightRAG's stores hold the full
#: text of every document (``kv_store_full_docs.json``), a file the user made unreadable included.
PRIVATE_UMASK = 0o077


def make_private(top: Path) -> int:
    """Create ``top`` (0700) and take group and other access off everything under it; return how
    many entries were tightened. Symlinks are never followed: the input dir links to the user's
    own files, whose modes are theirs."""
    top.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name != "posix":  # pragma: no cover - Windows: no mode bits to take off
        return 0
    changed = 0

    def tighten(path: str) -> None:
        nonlocal changed
        with contextlib.suppress(OSError):
            mode = os.lstat(path).st_mode
            if mode & 0o077 and not stat.S_ISLNK(mode):
                os.chmod(path, mode & 0o7700)
                changed += 1

    tighten(str(top))
    for folder, dirs, files in os.walk(top, followlinks=False):
        for name in (*dirs, *files):
            tighten(os.path.join(folder, name))
    return changed


def spawn(cmd: list[str], *, cwd: Path, env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    import subprocess

    # The log is private too: it holds LightRAG's messages about the documents.
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with contextlib.suppress(OSError, AttributeError):
        os.fchmod(fd, 0o600)
    with os.fdopen(fd, "ab") as out:
        kwargs: dict[str, Any] = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # own process group: stop reaches its children only
            kwargs["umask"] = PRIVATE_UMASK
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, **kwargs)
    CHILDREN[proc.pid] = proc
    return proc
