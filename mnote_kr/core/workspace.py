"""Workspace safety: every path a user or caller gives is resolved inside the workspace.

Refused with ``PathNotAllowedError``: ``..`` components, absolute paths elsewhere, NUL
bytes, and symlinks (anywhere on the way) whose target leaves the workspace. Folder
expansion skips tool folders, applies exclude globs, caps the number of files per
call and reports every skipped path with its reason.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from mnote_kr.errors import PathNotAllowedError, UsageError
from mnote_kr.models import IndexedRoot, SkippedPath, SourceEntry, SourceFile

MNOTE_DIR = ".mnote"
SKIP_DIRS = frozenset({".mnote", ".git", "node_modules", "target", "__parsed__", ".venv"})
DEFAULT_MAX_FILES = 200
_HASH_CHUNK = 1 << 20


def source_id_for(rel_path: str) -> str:
    """A stable id for a workspace-relative path."""
    return "src-" + hashlib.sha1(rel_path.encode("utf-8")).hexdigest()[:16]


def find_workspace(start: Path | None = None) -> Path:
    """The nearest folder upward from ``start`` that holds ``.mnote/``, else ``start``."""
    start = (start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / MNOTE_DIR).is_dir():
            return folder
    return start


def sha256_file(path: str | Path) -> str:
    """``sha256:<hex>`` of a regular file, streamed.

    Opened without blocking and checked to be a regular file before any read: a file replaced by a
    FIFO after it was listed raises ``OSError`` here instead of blocking on a pipe nobody writes."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with open(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"{special_kind(mode)}, not a regular file", str(path))
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def bad_name(rel: str) -> bool:
    """True when a path the OS gave is not valid UTF-8 (Python holds the bytes as surrogate escapes).

    Such a file is skipped with a line, never indexed: the registry (MessagePack), every JSON answer
    and LightRAG's file names carry only valid UTF-8, and an escaping of our own would have to be
    undone by every reader of a path (docs/sync.md)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown_path(rel: str) -> str:
    """A path for output: a name that is not valid UTF-8 with its odd bytes as ``\\xff`` escapes
    (valid text, and it tells the user which file to rename)."""
    if not bad_name(rel):
        return rel
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


BAD_NAME_REASON = "its name is not valid UTF-8: rename it (e.g. with 'mv') to index it"
BAD_FOLDER_REASON = "a folder whose name is not valid UTF-8: rename it (e.g. with 'mv') to index its files"


def special_kind(mode: int) -> str:
    """What a file that is not regular is, in words."""
    for test, what in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return what
    return "not a regular file"


def special_reason(mode: int) -> str:
    """The skip line of an entry that is no regular file (it is never opened: a FIFO would block)."""
    return f"{special_kind(mode)}: not a regular file, never opened"


class Expansion:
    """Files found by expanding the given paths, and what was skipped and why.

    A plain class: every command imports this module, and a dataclass is built at import."""

    def __init__(self) -> None:
        self.files: list[tuple[str | Path, str]] = []  # (absolute path, rel posix path)
        self.skipped: list[SkippedPath] = []
        self.stats: dict[str, os.stat_result] = {}  # rel path -> stat taken while walking
        self.named: set[str] = set()  # rel paths of files given by name (not found in a folder)


def excluded_by(rel: str, patterns: list[str], root_rel: str = "") -> str | None:
    """The first of a root's exclude ``patterns`` that ``rel`` matches, else None.

    ``rel`` is workspace-relative; a pattern matches the path relative to the root ``root_rel``
    (``drafts/*`` in root ``kb`` leaves out ``kb/drafts/a.md``), the workspace-relative path, or
    the name (``*.tmp``). The one rule for ingest, the watcher, reconcile and ``notIndexed`` alike;
    walkers that prune an excluded folder check each level with it, others use
    :func:`excluded_in_root`.
    """
    if not patterns:
        return None
    name = rel.rsplit("/", 1)[-1]
    in_root = rel[len(root_rel) + 1:] if root_rel and rel.startswith(root_rel + "/") else rel
    for pattern in patterns:
        if (fnmatch.fnmatchcase(in_root, pattern) or fnmatch.fnmatchcase(rel, pattern)
                or fnmatch.fnmatchcase(name, pattern)):
            return pattern
    return None


def excluded_in_root(rel: str, root_rel: str, patterns: list[str]) -> str | None:
    """The pattern that leaves ``rel`` (a file or folder inside the root ``root_rel``) out, else None.

    An excluded folder excludes everything below it: the path itself and every folder between
    the root and it are matched with :func:`excluded_by` (``--exclude drafts`` leaves out
    ``drafts/wip.md``).
    """
    if not patterns:
        return None
    sub = rel[len(root_rel) + 1:] if root_rel else rel
    pieces = sub.split("/")
    for i in range(len(pieces)):
        piece = "/".join(pieces[: i + 1])
        pattern = excluded_by(f"{root_rel}/{piece}" if root_rel else piece, patterns, root_rel)
        if pattern:
            return pattern
    return None


def under(rel: str, scope: str) -> bool:
    """Whether the workspace-relative path ``rel`` is ``scope`` or inside it (``""``: the whole workspace);
    ``kbx/a.md`` is not under ``kb``."""
    return not scope or rel == scope or rel.startswith(scope + "/")


def innermost_root(rel: str, roots: Mapping[str, IndexedRoot]) -> IndexedRoot | None:
    """The innermost indexed root holding the workspace-relative path ``rel`` (or that is it)."""
    best: IndexedRoot | None = None
    for prefix, root in roots.items():
        if under(rel, prefix) and (best is None or len(prefix) > len(best.root_relative_path)):
            best = root
    return best


def rules_text(recursive: bool, follows: bool, excludes: list[str]) -> str:
    """An indexed root's rules in words: ``(recursive, no-follow) exclude=a,b`` (``roots list`` and
    ``status``; following the disk is the default and goes unsaid)."""
    flags = ["recursive" if recursive else "flat"] + ([] if follows else ["no-follow"])
    return f"({', '.join(flags)})" + (f" exclude={','.join(excludes)}" if excludes else "")


def excluded_reason(rel: str, roots: Mapping[str, IndexedRoot]) -> str | None:
    """Why the rules of the innermost root holding ``rel`` leave it out (an exclude pattern), else None.

    What makes a registered file that ``roots add --exclude`` left out uncitable and stale: the
    index follows the scope, as it follows a file deleted from disk.
    """
    root = innermost_root(rel, roots)
    if root is None or not root.exclude_patterns:
        return None
    pattern = excluded_in_root(rel, root.root_relative_path, root.exclude_patterns)
    return f"excluded by pattern {pattern!r} of root {root.root_relative_path or '.'}" if pattern else None


def excluded_entries(entries: Iterable[SourceEntry], roots: Mapping[str, IndexedRoot]) -> dict[str, str]:
    """Live entries (not stale, not deleted) that their root's exclude patterns leave out, with the reason."""
    if not any(r.exclude_patterns for r in roots.values()):
        return {}
    out: dict[str, str] = {}
    for entry in entries:
        if entry.stale or entry.status in ("delete_submitted", "delete_completed"):
            continue
        why = excluded_reason(entry.source_root_relative_path, roots)
        if why:
            out[entry.source_root_relative_path] = why
    return out


def leaves_workspace(path: str | os.PathLike[str], root: Path) -> bool:
    """True when ``path`` is a symlink whose target is outside the workspace ``root``, or that
    leads round in a loop (never taken)."""
    if not os.path.islink(path):
        return False
    try:
        return not Path(path).resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a symlink loop (Python 3.11 raises RuntimeError)
        return True


def _is_file(item: os.DirEntry[str]) -> bool:
    """A regular file, through a symlink too; False for a symlink loop ("Too many levels of
    symbolic links"), which is passed over like a broken symlink, never an error of the walk."""
    try:
        return item.is_file(follow_symlinks=True)
    except OSError:
        return False


class Workspace:
    """A folder the user marked as a knowledge base. Only ``.mnote/`` inside it is ours."""

    def __init__(self, root: Path | str) -> None:
        root = Path(root).expanduser()
        if not root.is_dir():
            raise UsageError(f"Workspace folder does not exist: {root}", hint="create it or pass --workspace DIR")
        self.root = root.resolve()
        self.mnote_dir = self.root / MNOTE_DIR
        self.index_dir = self.mnote_dir / "index"

    @property
    def workspace_id(self) -> str:
        return "ws-" + hashlib.sha1(str(self.root).encode("utf-8")).hexdigest()[:12]

    @property
    def root_uri(self) -> str:
        return self.root.as_uri()

    # -- path safety

    def resolve(self, path: str | os.PathLike[str], *, base: Path | None = None) -> tuple[Path, str]:
        """Resolve ``path`` inside the workspace; return (absolute path, POSIX relative path).

        Relative paths are taken from ``base`` (default: the current folder when it is
        inside the workspace, else the workspace root).
        """
        raw = os.fspath(path)
        if "\x00" in raw:
            raise PathNotAllowedError(raw.replace("\x00", "\\0"), "contains a NUL byte")
        if not raw.strip():
            raise PathNotAllowedError(raw, "empty path")
        candidate = Path(raw).expanduser()
        if any(part == ".." for part in candidate.parts):
            raise PathNotAllowedError(raw, "'..' is not allowed")
        if not candidate.is_absolute():
            if base is None:
                cwd = Path.cwd().resolve()
                base = cwd if cwd.is_relative_to(self.root) else self.root
            candidate = base / candidate
        lexical = Path(os.path.normpath(candidate))
        if not lexical.is_relative_to(self.root):
            raise PathNotAllowedError(raw, f"outside the workspace {self.root}")
        try:
            resolved = lexical.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # symlink loops
            raise PathNotAllowedError(raw, f"cannot be resolved: {exc}") from exc
        if not resolved.is_relative_to(self.root):
            raise PathNotAllowedError(raw, "a symlink leads outside the workspace")
        rel = lexical.relative_to(self.root).as_posix()
        if rel == ".":
            rel = ""
        if rel.split("/", 1)[0] == MNOTE_DIR:
            raise PathNotAllowedError(raw, "the .mnote folder is mnote-kr's own")
        return lexical, rel

    def rel_to_abs(self, rel_path: str) -> Path:
        return self.root / PurePosixPath(rel_path)

    # -- expansion

    def expand(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        exclude: Iterable[str] = (),
        recursive: bool = True,
        limit: int | None = DEFAULT_MAX_FILES,
        base: Path | None = None,
    ) -> Expansion:
        """Expand files and folders into a de-duplicated list of files inside the workspace."""
        out = Expansion()
        seen: set[str] = set()
        patterns = list(exclude)
        for given in paths:
            abs_path, rel = self.resolve(given, base=base)
            if bad_name(rel) and (abs_path.is_symlink() or abs_path.exists()):
                reason = BAD_FOLDER_REASON if abs_path.is_dir() else BAD_NAME_REASON
                out.skipped.append(SkippedPath(path=shown_path(rel), reason=reason))
            elif abs_path.is_dir():
                self._walk(abs_path, rel, patterns, recursive, out, seen)
            elif abs_path.is_file():
                out.named.add(rel)
                self._add(abs_path, rel, patterns, out, seen)
            elif abs_path.is_symlink() or abs_path.exists():
                try:
                    reason = special_reason(abs_path.stat().st_mode)
                except OSError:
                    reason = "a broken symlink: not a regular file"
                out.skipped.append(SkippedPath(path=rel, reason=reason))
            else:
                raise UsageError(f"No such file or folder: {given}")
        if limit is not None and len(out.files) > limit:
            for _, rel in out.files[limit:]:
                out.skipped.append(SkippedPath(path=rel, reason=f"over the limit of {limit} files per call"))
            del out.files[limit:]
        return out

    def _add(self, path: str | Path, rel: str, patterns: list[str], out: Expansion, seen: set[str],
             entry: os.DirEntry[str] | None = None) -> None:
        if rel in seen:
            return
        seen.add(rel)
        pattern = excluded_by(rel, patterns) if patterns else None
        if pattern:
            out.skipped.append(SkippedPath(path=rel, reason=f"excluded by pattern {pattern!r}"))
            return
        # DirEntry answers is_symlink from the directory listing, without a system call.
        if (entry.is_symlink() if entry is not None else True) and leaves_workspace(path, self.root):
            out.skipped.append(SkippedPath(path=rel, reason="symlink leads outside the workspace"))
            return
        out.files.append((path, rel))
        if entry is not None:
            out.stats[rel] = entry.stat()

    def _walk(
        self, folder: Path, rel: str, patterns: list[str], recursive: bool, out: Expansion, seen: set[str]
    ) -> None:
        stack = [(folder, rel)]
        while stack:
            current, current_rel = stack.pop()
            try:
                with os.scandir(current) as it:
                    items = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                out.skipped.append(SkippedPath(path=current_rel or ".", reason=f"cannot list: {exc.strerror}"))
                continue
            subdirs = []
            for item in items:
                item_rel = f"{current_rel}/{item.name}" if current_rel else item.name
                if item.is_dir(follow_symlinks=False):
                    if item.name in SKIP_DIRS:
                        continue
                    if recursive:
                        if excluded_by(item_rel, patterns):
                            out.skipped.append(SkippedPath(path=item_rel, reason="folder excluded by pattern"))
                            continue
                        if bad_name(item.name):
                            out.skipped.append(SkippedPath(path=shown_path(item_rel), reason=BAD_FOLDER_REASON))
                            continue
                        subdirs.append((Path(item.path), item_rel))
                elif bad_name(item.name):
                    out.skipped.append(SkippedPath(path=shown_path(item_rel), reason=BAD_NAME_REASON))
                elif _is_file(item):
                    self._add(item.path, item_rel, patterns, out, seen, item)
                elif item.is_symlink():
                    reason = "symlink to a folder, broken or in a loop: not followed"
                    out.skipped.append(SkippedPath(path=item_rel, reason=reason))
                else:  # a FIFO, socket or device: stat'ed (never opened: a FIFO blocks), named, passed over
                    try:
                        reason = special_reason(item.stat(follow_symlinks=False).st_mode)
                    except OSError:
                        continue  # gone while we looked
                    out.skipped.append(SkippedPath(path=item_rel, reason=reason))
            stack.extend(reversed(subdirs))

    # -- hashing

    def source_file(self, path: str | Path, rel: str, st: os.stat_result | None = None) -> SourceFile:
        """Stat and hash one file (read only)."""
        st = st if st is not None else os.stat(path)
        return SourceFile(
            path=str(path),
            rel_path=rel,
            source_id=source_id_for(rel),
            sha256=sha256_file(path),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
        )
