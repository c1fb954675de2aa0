"""Which workspace an agent's ``mnote-kr mcp`` serves.

An MCP client starts the server from wherever it runs (often the system's temporary folder or
the user's home), so the working directory alone must not decide: an empty folder taken as the
workspace would start another LightRAG pair and tell the agent "nothing citable" about a library
that is elsewhere. The order:

1. the workspace given with ``--workspace``;
2. else the innermost folder above the working directory that is a library;
3. else the single library the user has (``core.known``: every folder where a root was added or files ingested);
4. else one line that names the fix, and the server does not start.

A library is a workspace holding a file a search may cite (the registry's citable entries, by the rule the
citation pipeline applies: ``Registry.citable_count``), or an indexed root that sync and watch fill. A folder
ingested with ``mnote-kr ingest . --wait`` and never added as a root is one: the CLI and the HTTP API cite its
files, so the agent may too (nc23a P1). A workspace with neither is never served: it holds nothing an agent
could cite, and the line says which command indexes it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from mnote_kr.core import known
from mnote_kr.errors import UsageError

MNOTE_DIR = ".mnote"


def _is_library(folder: Path) -> bool:
    """Whether ``folder`` is a workspace holding a citable file or an indexed root (nothing is made)."""
    if not (folder / MNOTE_DIR).is_dir():
        return False
    from mnote_kr.app.host import Host

    reg = Host(folder).registry()
    return bool(reg.roots) or reg.citable_count() > 0


def agent_workspace(given: str | Path | None, cwd: Path) -> Path:
    """The workspace folder to serve (see the module docstring); ``UsageError`` when there is none."""
    if given is not None:
        folder = Path(given).expanduser().resolve()
        if not _is_library(folder):
            elsewhere = [w for w in known.known() if w != folder and _is_library(w)]
            other = (f", or start 'mnote-kr --workspace {elsewhere[0]} mcp', your library" if len(elsewhere) == 1
                     else ", or give the workspace that holds your library")
            raise UsageError(f"Nothing is indexed in {folder}, so an agent could cite nothing there",
                             hint=f"run 'cd {shlex.quote(str(folder))} && mnote-kr ingest . --wait' to index its "
                                  "files" + other)
        return folder
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if _is_library(folder):
            return folder
    libraries = [w for w in known.known() if _is_library(w)]
    if len(libraries) == 1:
        return libraries[0]
    if libraries:
        raise UsageError(f"No mnote-kr workspace above {cwd}, and you have {len(libraries)}: "
                         + ", ".join(str(w) for w in libraries),
                         hint="start it as 'mnote-kr --workspace FOLDER mcp' with the one the agent should use")
    raise UsageError(f"No mnote-kr workspace above {cwd}, and none has anything indexed yet",
                     hint="run 'mnote-kr ingest . --wait' in the folder of your documents, "
                          "then start 'mnote-kr --workspace FOLDER mcp'")
