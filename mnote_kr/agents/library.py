"""Which workspace an agent's ``mnote-kr mcp`` serves.

An MCP client starts the server from wherever it runs (often the system's temporary folder or
the user's home), so the working directory alone must not decide: an empty folder taken as the
workspace would start another LightRAG pair and tell the agent "nothing citable" about a library
that is elsewhere. The order:

1. the workspace given with ``--workspace``;
2. else the innermost folder above the working directory that is a workspace with indexed roots;
3. else the single workspace the user has (``core.known``: every folder where a root was added);
4. else one line that names the fix, and the server does not start.

A workspace without indexed roots is never served: it holds nothing an agent could cite.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.core import known
from mnote_kr.errors import UsageError

MNOTE_DIR = ".mnote"


def _has_roots(folder: Path) -> bool:
    if not (folder / MNOTE_DIR).is_dir():
        return False
    from mnote_kr.app.host import Host

    return bool(Host(folder).roots_list())


def agent_workspace(given: str | Path | None, cwd: Path) -> Path:
    """The workspace folder to serve (see the module docstring); ``UsageError`` when there is none."""
    if given is not None:
        folder = Path(given).expanduser().resolve()
        if not _has_roots(folder):
            raise UsageError(f"{folder} has no indexed roots, so an agent could cite nothing there",
                             hint=f"run 'mnote-kr --workspace {folder} roots add FOLDER' and ingest, "
                                  "or give the workspace that holds your library")
        return folder
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if _has_roots(folder):
            return folder
    libraries = [w for w in known.known() if _has_roots(w)]
    if len(libraries) == 1:
        return libraries[0]
    if libraries:
        raise UsageError(f"No mnote-kr workspace above {cwd}, and you have {len(libraries)}: "
                         + ", ".join(str(w) for w in libraries),
                         hint="start it as 'mnote-kr --workspace FOLDER mcp' with the one the agent should use")
    raise UsageError(f"No mnote-kr workspace above {cwd}, and none has indexed roots yet",
                     hint="run 'mnote-kr roots add FOLDER' and 'mnote-kr ingest FOLDER' in your library, "
                          "then start 'mnote-kr --workspace LIBRARY mcp'")
