"""A Python-only, offline machine for a subprocess: no Node or npm on the PATH, no outward socket.

:func:`python_only_env` returns an environment whose ``PATH`` holds only the interpreter's own
folder (so ``npm``, ``node`` and every other system tool are absent; an empty folder when that
is a system folder holding them) and whose ``PYTHONPATH``
puts a ``sitecustomize`` first. Python imports that module at start-up in every interpreter the
subprocess starts, its children too (the managed engine passes ``PYTHONPATH`` on), and it:

* refuses every connection and name lookup that is not loopback (``127.0.0.0/8``, ``::1``,
  ``localhost``) or a Unix socket, and writes one line per refused attempt to ``refused.log``;
* writes one line per interpreter it armed to ``armed.log`` (pid and command line), so a test
  can prove the guard really ran in the processes it cares about.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

_SITECUSTOMIZE = '''
import os as _os, socket as _socket, sys as _sys

_LOGS = {logs!r}
_LOOPBACK = ("localhost", "ip6-localhost", "::1", "0:0:0:0:0:0:0:1")


def _command():
    try:  # at start-up 'python -m x' still shows as ['-m'] in sys.argv
        with open("/proc/self/cmdline", "rb") as fh:
            return fh.read().replace(b"\\0", b" ").decode("utf-8", "replace").strip()[:300]
    except OSError:
        return " ".join(_sys.argv)[:300]


def _note(name, line):
    with open(_os.path.join(_LOGS, name), "a", encoding="utf-8") as fh:
        fh.write(line + "\\n")


def _is_loopback(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).strip("[]").lower()
    return host in _LOOPBACK or host.startswith("127.") or host.startswith("::ffff:127.")


def _check(family, address, what):
    if family == getattr(_socket, "AF_UNIX", None) or not isinstance(address, tuple):
        return
    if not _is_loopback(address[0]):
        _note("refused.log", f"{{_os.getpid()}} {{what}} {{address!r}} {{_command()}}")
        raise OSError(101, "Network is unreachable (offline test machine)")


_real_connect, _real_connect_ex = _socket.socket.connect, _socket.socket.connect_ex
_real_getaddrinfo = _socket.getaddrinfo


def _connect(self, address):
    _check(self.family, address, "connect")
    return _real_connect(self, address)


def _connect_ex(self, address):
    _check(self.family, address, "connect_ex")
    return _real_connect_ex(self, address)


def _getaddrinfo(host, *args, **kwargs):
    if host is not None and not _is_loopback(host):
        _note("refused.log", f"{{_os.getpid()}} getaddrinfo {{host!r}} {{_command()}}")
        raise _socket.gaierror(_socket.EAI_NONAME, "Name resolution refused (offline test machine)")
    return _real_getaddrinfo(host, *args, **kwargs)


_socket.socket.connect = _connect
_socket.socket.connect_ex = _connect_ex
_socket.getaddrinfo = _getaddrinfo
_note("armed.log", f"{{_os.getpid()}} {{_command()}}")
'''


def python_only_env(base_env: dict[str, str], folder: Path) -> dict[str, str]:
    """``base_env`` as a Python-only, offline machine would have it; logs go to ``folder``.

    ``folder/armed.log`` lists each guarded interpreter, ``folder/refused.log`` each refused
    outward attempt (absent when there was none).
    """
    folder.mkdir(parents=True, exist_ok=True)
    site = folder / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(logs=str(folder)), encoding="utf-8")
    env = dict(base_env)
    bin_dir = os.path.dirname(sys.executable)  # a virtualenv's own bin: python and console scripts
    if any(shutil.which(tool, path=bin_dir) for tool in ("npm", "node", "nodejs")):
        bin_dir = str(folder / "bin")  # a system interpreter's folder has them: nothing on the PATH then
        os.makedirs(bin_dir, exist_ok=True)
    env["PATH"] = bin_dir
    env["PYTHONPATH"] = os.pathsep.join([str(site)] + [p for p in [base_env.get("PYTHONPATH")] if p])
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(key, None)
    return env
