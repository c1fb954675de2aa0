"""What the connector places in LightRAG's input dir: symlinks, image wrappers and text wrappers.

A source is never copied: its link is a symlink to the user's file. LightRAG moves a
processed entry into ``__parsed__/`` (the link moves; the target stays). Removing only
ever unlinks a *symlink* we named, or a Markdown wrapper we wrote; a link is never
followed to delete its target.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from mnote_kr.plugin_api import ProviderError, write_private

from . import naming

PARSED_DIR = "__parsed__"
#: A line every wrapper carries, so we only ever remove wrappers we wrote.
WRAPPER_MARK = "Index entry written by mnote-kr for an image; the image itself is not copied."
#: The first line of a text wrapper: the text of a document LightRAG's own parser failed on.
TEXT_WRAPPER_MARK = "Text of a document, read by mnote-kr because LightRAG's parser could not read it:"
#: The first line of a text wrapper of a PDF with scanned pages (``recognized``).
RECOGNIZED_WRAPPER_MARK = "Text of a document, read by mnote-kr with OCR for its pages that have no text layer:"
#: The first line of a text wrapper of a presentation holding words LightRAG's parser skips (``decks``).
DECK_WRAPPER_MARK = ("Text of a presentation, read by mnote-kr with what LightRAG's parser skips "
                     "(speaker notes, tables, grouped shapes, charts):")
#: The first line of such a wrapper written before charts, tables and groups counted (speaker notes only):
#: still ours, to replace and remove.
NOTES_WRAPPER_MARK = "Text of a presentation, read by mnote-kr with its speaker notes, which LightRAG's parser skips:"
#: The first line of a text wrapper of a workbook holding cell comments, which LightRAG's parser skips
#: (``workbooks``).
WORKBOOK_WRAPPER_MARK = "Text of a workbook, read by mnote-kr with its cell comments, which LightRAG's parser skips:"
#: The first line of a text wrapper of a macro-enabled workbook, a type LightRAG does not take (``workbooks``).
MACRO_WORKBOOK_WRAPPER_MARK = ("Text of a macro-enabled workbook, read by mnote-kr since LightRAG does not take "
                               "the type (its macros are never run or read):")
#: The first line of a text wrapper of a file of a type LightRAG does not take, read by the plugin that
#: reads that type (``ProviderContext.text_suffixes``; ``recognized.plugin_text``).
PLUGIN_TEXT_WRAPPER_MARK = "Text of a file, read by an mnote-kr plugin since LightRAG does not take the type:"
#: The first line of a text wrapper of a DOCX whose words LightRAG's parser runs together across a page break,
#: a carriage return or a non-breaking hyphen (``docxbreaks``).
BREAKS_WRAPPER_MARK = ("Text of a document, read by mnote-kr since LightRAG's parser runs words together across "
                       "its breaks:")
#: Every text wrapper's first line starts with one of these (followed by the source's path).
TEXT_MARKS = (TEXT_WRAPPER_MARK, RECOGNIZED_WRAPPER_MARK, DECK_WRAPPER_MARK, NOTES_WRAPPER_MARK,
              WORKBOOK_WRAPPER_MARK, MACRO_WORKBOOK_WRAPPER_MARK, PLUGIN_TEXT_WRAPPER_MARK, BREAKS_WRAPPER_MARK)
_TEXT_MARKS = tuple(m.encode("utf-8") for m in TEXT_MARKS)
_CAPTION_SUFFIXES = (".txt", ".md")
_MAX_CAPTION_CHARS = 4000
_MAX_WRAPPER_BYTES = 64 * 1024
_HEAD_BYTES = _MAX_CAPTION_CHARS * 4 + 4096  # name lines and a caption, in UTF-8


def place_link(input_dir: Path, name: str, source: Path) -> Path:
    """Symlink ``input_dir/name`` → ``source`` (idempotent). Never copies.

    Raises ``ProviderError`` when a different, non-link file already holds the name.
    """
    link = input_dir / name
    target = str(source)
    if link.is_symlink():
        if os.readlink(link) == target:
            return link
        link.unlink()  # a stale link of ours under the same name
    elif link.exists():
        raise ProviderError(f"LightRAG's input dir already holds a file named {name} that mnote-kr did not make",
                            hint="move it away or rename the source")
    os.symlink(target, link)
    return link


def _caption(source: Path) -> str | None:
    for suffix in _CAPTION_SUFFIXES:
        sibling = source.with_suffix(suffix)
        if sibling == source or not sibling.is_file():
            continue
        try:
            with sibling.open("r", encoding="utf-8", errors="replace") as handle:
                text = handle.read(_MAX_CAPTION_CHARS + 1)
        except OSError:
            continue
        text = text.strip()
        if text:
            return text[:_MAX_CAPTION_CHARS]
    return None


def wrapper_text(source: Path, rel_path: str, size: int, recognized: str | None = None) -> str:
    """The Markdown document that stands in for an image in LightRAG: what the file is, its
    caption, and the text an OCR plugin recognised in it (reading order), after the mark."""
    rel = PurePosixPath(rel_path)
    folder = str(rel.parent) if str(rel.parent) != "." else "(workspace root)"
    lines = [
        f"# Image: {rel.name}",
        "",
        f"- File name: {rel.name}",
        f"- Folder: {folder}",
        f"- Path: {rel_path}",
        f"- Type: {rel.suffix.lstrip('.').upper() or 'image'} image",
        f"- Size: {size} bytes",
        "",
    ]
    caption = _caption(source)
    if caption:
        lines += ["## Caption", "", caption, ""]
    lines += [WRAPPER_MARK, ""]
    if recognized and recognized.strip():
        lines += ["## Text in the image", "", recognized.strip(), ""]
    return "\n".join(lines)


def write_wrapper(input_dir: Path, name: str, source: Path, rel_path: str, size: int,
                  recognized: str | None = None) -> Path:
    """Write (atomically) the image wrapper into LightRAG's input dir, never the user's folder."""
    path = input_dir / name
    if path.is_symlink() or (path.exists() and not is_our_wrapper(path)):
        raise ProviderError(f"LightRAG's input dir already holds a file named {name} that mnote-kr did not make",
                            hint="move it away or rename the source")
    data = wrapper_text(source, rel_path, size, recognized).encode("utf-8")
    write_private(path, data)  # via a dot name with an unsupported suffix: a scan ignores it
    return path


def write_text_wrapper(input_dir: Path, name: str, rel_path: str, text: str, mark: str = TEXT_WRAPPER_MARK) -> Path:
    """Write (atomically) a text wrapper: ``text`` stands in for a document LightRAG failed to parse
    (or, with ``RECOGNIZED_WRAPPER_MARK``, for a PDF some of whose pages only OCR reads; with
    ``DECK_WRAPPER_MARK``, for a presentation holding words LightRAG's parser skips; with
    ``WORKBOOK_WRAPPER_MARK``, for a workbook holding cell comments; with ``MACRO_WORKBOOK_WRAPPER_MARK``,
    for a macro-enabled workbook; with ``PLUGIN_TEXT_WRAPPER_MARK``, for a type a plugin reads)."""
    path = input_dir / name
    if path.is_symlink() or (path.exists() and not is_our_wrapper(path)):
        raise ProviderError(f"LightRAG's input dir already holds a file named {name} that mnote-kr did not make",
                            hint="move it away or rename the source")
    data = f"{mark} {rel_path}\n\n{text.strip()}\n".encode()
    write_private(path, data)  # the document's text: the user's only
    return path


def is_our_wrapper(path: Path) -> bool:
    """A regular file with a wrapper name and a wrapper mark: small with the image mark, or
    (any size) starting with the text-wrapper mark."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        if not naming.is_our_name(path.name) or not path.name.endswith(naming.WRAPPER_SUFFIX):
            return False
        with path.open("rb") as fh:
            head = fh.read(max(len(m) for m in _TEXT_MARKS))
        if head.startswith(_TEXT_MARKS):
            return True
        with path.open("rb") as fh:  # the mark precedes an image's recognised text
            if WRAPPER_MARK.encode("utf-8") in fh.read(_HEAD_BYTES):
                return True
        if path.stat().st_size > _MAX_WRAPPER_BYTES:
            return False
        return WRAPPER_MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _archived_variants(directory: Path, name: str) -> list[Path]:
    """``name`` plus LightRAG's ``<stem>_NNN<ext>`` archive variants in ``directory``."""
    stem = PurePosixPath(name).stem
    suffix = PurePosixPath(name).suffix
    found = [directory / name]
    try:
        for candidate in directory.glob(f"{stem}_[0-9][0-9][0-9]{suffix}"):
            found.append(candidate)
    except OSError:
        pass
    return found


def remove_ours(input_dir: Path, name: str) -> list[str]:
    """Remove our link or wrapper ``name`` from the input dir and ``__parsed__/``.

    Only symlinks and our own wrappers are removed (the symlink itself, never its
    target). Returns the paths removed.
    """
    removed: list[str] = []
    for directory in (input_dir, input_dir / PARSED_DIR):
        for path in _archived_variants(directory, name):
            try:
                if path.is_symlink() or is_our_wrapper(path):
                    path.unlink()
                    removed.append(str(path))
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ProviderError(f"Cannot remove {path}: {exc.strerror or exc}") from exc
    return removed


class Listing:
    """Directory listings taken once per call, grouped by path tag: finding the links of many
    sources is then a lookup per source, not a scan of the whole input dir per source."""

    def __init__(self) -> None:
        self._by_dir: dict[Path, dict[str, list[str]]] = {}

    def names(self, directory: Path, tag: str) -> list[str]:
        """Names in ``directory`` whose path tag is ``tag``."""
        index = self._by_dir.get(directory)
        if index is None:
            index = {}
            try:
                entries = os.listdir(directory)
            except OSError:
                entries = []
            for name in entries:
                found = naming.path_tag_of(name)
                if found is not None:
                    index.setdefault(found, []).append(name)
            self._by_dir[directory] = index
        return index.get(tag, [])


def names_of_source(input_dir: Path, rel_path: str, ws: str | None = None, root: Path | None = None,
                    listing: Listing | None = None) -> set[str]:
    """Our link/wrapper names for ``rel_path`` (any content version) in the input dir and ``__parsed__/``.

    Ours means tagged with workspace ``ws``; a legacy (untagged) name counts only when
    ``root`` is given and its symlink points inside ``root`` (another workspace may hold
    the same legacy name, and its document must not be touched).
    """
    names: set[str] = set()
    tag = naming.path_tag(rel_path)
    for directory in (input_dir, input_dir / PARSED_DIR):
        if listing is not None:
            candidates = [directory / name for name in listing.names(directory, tag)]
        else:
            try:
                candidates = list(directory.glob(f"*.{tag}-*"))
            except OSError:
                continue
        for path in candidates:
            if naming.same_source(path.name, rel_path, ws) and (path.is_symlink() or is_our_wrapper(path)):
                names.add(path.name)
            elif (ws is not None and root is not None and naming.same_source(path.name, rel_path)
                  and owns_legacy(input_dir, path.name, root)):
                names.add(path.name)
    return names


def owns_legacy(input_dir: Path, name: str, root: Path) -> bool:
    """Whether a legacy (untagged) link ``name`` is a symlink into the workspace ``root``.

    Before names carried a workspace tag, two workspaces could share one name; the link
    then points at whichever source was linked last. Only that workspace may delete it.
    """
    for directory in (input_dir, input_dir / PARSED_DIR):
        for path in _archived_variants(directory, name):
            try:
                if path.is_symlink() and Path(os.readlink(path)).is_relative_to(root):
                    return True
            except OSError:
                continue
    return False


def link_state(input_dir: Path, name: str) -> str:
    """``top`` when waiting at the top of the input dir, ``parsed`` when moved, else ``missing``."""
    if (input_dir / name).is_symlink() or is_our_wrapper(input_dir / name):
        return "top"
    if any(p.is_symlink() or is_our_wrapper(p) for p in _archived_variants(input_dir / PARSED_DIR, name)):
        return "parsed"
    return "missing"
