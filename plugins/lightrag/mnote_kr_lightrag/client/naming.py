"""Names the connector gives to the links and wrappers it places in LightRAG's input dir.

LightRAG keys a document by its basename (``doc_id = "doc-" + md5(basename)``), drops
directories, and skips a changed file whose name it has already processed. So the link
name must be unique per *workspace*, per source *path* and per *content*::

    <safe-stem>.w<8 hex of the workspace>.<8 hex of md5(rel_path)>-<8 hex of sha256>.<ext>

e.g. ``report.w5c0e1b7a.1f3a09c2-77ab01de.docx``. The workspace tag keeps two workspaces that
share one LightRAG apart (same file, same relative path: two documents), and tells the provider
which retrieved chunks are another workspace's (see docs/workspaces.md). Names made before the
tag existed (``report.1f3a09c2-77ab01de.docx``) are still recognised: they are *legacy* names.

The stem stays readable, the real extension stays last (LightRAG routes parsers by suffix),
and there are no ``[``/``]`` (those would be read as LightRAG filename hints such as
``name.[native-P].docx``). Image wrappers append ``.md``: ``photo.w5c0e1b7a.1f3a09c2-77ab01de.png.md``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import PurePath, PurePosixPath

#: Suffixes LightRAG cannot scan by default; they get a Markdown wrapper document.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".tif", ".tiff", ".bmp"})

#: ``GET /documents/supported_file_types`` of LightRAG 1.5.7 (samples/05), used when
#: the server cannot be asked.
DEFAULT_SUPPORTED_SUFFIXES = frozenset(
    ".bat .c .conf .cpp .css .csv .docx .epub .go .h .hpp .htm .html .ini .java .js .json .less "
    ".log .md .mdx .odt .pdf .php .pptx .properties .py .rb .rtf .scss .sh .sql .swift .tex "
    ".textpack .ts .txt .xlsx .xml .yaml .yml".split()
)

#: Suffixes LightRAG does not take that mnote-kr indexes as the text it reads in the file, sent under a
#: wrapper name LightRAG takes (``wrapper_name``): a macro-enabled workbook is an ``.xlsx`` package plus
#: macros, which are never run or read (``workbooks``).
TEXT_ONLY_SUFFIXES = frozenset({".xlsm"})

WRAPPER_SUFFIX = ".md"
#: Bytes of the stem kept in a link name (file names are limited to 255 bytes).
_MAX_STEM_BYTES = 120
_UNSAFE = re.compile(r"[/\\:*?\"<>|\x00-\x1f\x7f]+")
# The stem is non-greedy so that an optional ``.w<ws>`` part is read as the tag, not the stem.
_LINK_RE = re.compile(r"^(?P<stem>.+?)\.(?:w(?P<ws>[0-9a-f]{8})\.)?(?P<path>[0-9a-f]{8})-(?P<content>[0-9a-f]{8})"
                      r"(?P<ext>\.[^.]+)?(?P<wrap>\.md)?$")


def _hex_of_hash(sha256: str) -> str:
    """The hex digest of a ``sha256:<hex>`` or bare hex content hash."""
    value = sha256.split(":", 1)[1] if ":" in sha256 else sha256
    value = value.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{8,}", value):
        # Not a hex digest (should not happen): hash whatever we were given.
        value = hashlib.sha256(value.encode("utf-8")).hexdigest()
    return value


def workspace_tag(workspace_root: str | PurePath) -> str:
    """8 hex chars naming a workspace: sha1 of its resolved root, as the host's workspace id."""
    return hashlib.sha1(str(workspace_root).encode("utf-8")).hexdigest()[:8]


def path_tag(rel_path: str) -> str:
    """8 hex chars of md5 of the POSIX root-relative path: the per-path part of a name."""
    return hashlib.md5(rel_path.encode("utf-8")).hexdigest()[:8]


def safe_stem(rel_path: str) -> str:
    """A readable, file-system- and LightRAG-safe version of the file's stem."""
    name = PurePosixPath(rel_path).name
    suffix = PurePosixPath(name).suffix
    stem = name[: -len(suffix)] if suffix and len(suffix) < len(name) else name
    stem = unicodedata.normalize("NFC", stem)
    stem = stem.replace("[", "(").replace("]", ")")  # brackets would read as a LightRAG filename hint
    stem = _UNSAFE.sub("_", stem).strip(" .") or "file"
    encoded = stem.encode("utf-8")
    if len(encoded) > _MAX_STEM_BYTES:
        stem = encoded[:_MAX_STEM_BYTES].decode("utf-8", "ignore").rstrip(" .") or "file"
    return stem


def safe_suffix(rel_path: str) -> str:
    """The real extension, lowercased, or '' when it is not a plain extension."""
    suffix = PurePosixPath(rel_path).suffix.lower()
    return suffix if re.fullmatch(r"\.[a-z0-9]{1,12}", suffix) else ""


def link_name(rel_path: str, sha256: str, ws: str | None = None) -> str:
    """The unique name of a source's link in LightRAG's input dir (``ws``: the workspace tag;
    None gives the legacy, untagged name)."""
    tag = f"w{ws}." if ws else ""
    return f"{safe_stem(rel_path)}.{tag}{path_tag(rel_path)}-{_hex_of_hash(sha256)[:8]}{safe_suffix(rel_path)}"


def wrapper_name(rel_path: str, sha256: str, ws: str | None = None) -> str:
    """The name of the Markdown wrapper document of a source: an image's, or the text mnote-kr sends
    in place of a file (``report.w5c0e1b7a.1f3a09c2-77ab01de.xlsm.md``)."""
    return link_name(rel_path, sha256, ws) + WRAPPER_SUFFIX


def doc_id_for(file_name: str) -> str:
    """LightRAG's document id for a file name: ``"doc-" + md5(basename)``."""
    return "doc-" + hashlib.md5(PurePosixPath(file_name).name.encode("utf-8")).hexdigest()


def chunk_ids_for(doc_id: str, chunks_count: int | None) -> list[str]:
    """LightRAG's chunk ids for a document: ``<doc_id>-chunk-NNN`` (3 digits, zero-padded)."""
    return [f"{doc_id}-chunk-{order:03d}" for order in range(max(0, chunks_count or 0))]


def chunk_order(chunk_id: str | None) -> int | None:
    """The chunk's place among its document's chunks (``chunk_ids``' ``-chunk-{order:03d}``: LightRAG's
    ``chunk_order_index``, 0 the first), or None for an id not of that form."""
    if not chunk_id or "-chunk-" not in chunk_id:
        return None
    order = chunk_id.rsplit("-chunk-", 1)[1]
    return int(order) if order.isdigit() and order.isascii() else None


def doc_id_from_chunk_id(chunk_id: str | None) -> str | None:
    """The document id part of a chunk id, or None."""
    if not chunk_id or "-chunk-" not in chunk_id:
        return None
    return chunk_id.rsplit("-chunk-", 1)[0] or None


def same_source(name: str, rel_path: str, ws: str | None = None) -> bool:
    """Whether ``name`` is a link/wrapper name for this source path (any content) in workspace
    ``ws`` (None: a legacy, untagged name)."""
    parsed = _LINK_RE.match(name)
    if not parsed:
        return False
    return (parsed.group("path") == path_tag(rel_path) and parsed.group("stem") == safe_stem(rel_path)
            and parsed.group("ws") == ws)


def path_tag_of(name: str) -> str | None:
    """The path tag in a link name, or None when it is not one of our names."""
    parsed = _LINK_RE.match(name)
    return parsed.group("path") if parsed else None


def content_key(name: str) -> tuple[str | None, str] | None:
    """(workspace tag, content tag) of a link name: two names with one key link the same bytes
    in the same workspace (LightRAG would take the second as a duplicate of the first)."""
    parsed = _LINK_RE.match(PurePosixPath(name).name)
    return (parsed.group("ws"), parsed.group("content")) if parsed else None


def workspace_of(name: str) -> str | None:
    """The workspace tag in a link name, or None (legacy name, or not one of ours)."""
    parsed = _LINK_RE.match(PurePosixPath(name).name)
    return parsed.group("ws") if parsed else None


def is_foreign(name: str, ws: str) -> bool:
    """Whether ``name`` is a link name that another workspace (a different tag) placed."""
    other = workspace_of(name)
    return other is not None and other != ws


def is_our_name(name: str) -> bool:
    """Whether a file name has the shape of a link or wrapper the connector made."""
    return _LINK_RE.match(name) is not None


def sidecar_stem(file_name: str) -> str:
    """The stem LightRAG uses for files inside ``<name>.parsed/`` (``Path(name).stem``)."""
    return PurePosixPath(file_name).stem or file_name


def readable_name(name: str) -> str:
    """The file name a link or wrapper name was made from (its stem and extension), else ``name``:
    ``report.w5c0e1b7a.1f3a09c2-77ab01de.docx`` -> ``report.docx``."""
    match = _LINK_RE.match(PurePosixPath(name).name) if name else None
    return f"{match['stem']}{match['ext'] or ''}" if match else name
