"""Opening an untrusted DOCX: the zip and XML parts within budgets, nothing resolved or fetched.

The file must be a zip within size, entry-count and compression-ratio limits; encrypted
packages (OLE2 containers, encrypted zip members) are recognised and named; XML parts with a
DOCTYPE or entity declaration are refused before parsing, and the parser never loads DTDs,
resolves entities or touches the network. Over a budget is one ``OverBudgetError`` naming the
file and the limit (the file is refused before the provider sees it); a broken file is one
``DocumentError``.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from lxml import etree

from mnote_kr.plugin_api import DocumentError, OverBudgetError

# Budgets of the file and of each XML part: whatever the file, reading it costs bounded memory and time.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_PART_BYTES = 64 * 1024 * 1024  # decompressed bytes of one XML part
MAX_ELEMENTS = 2_000_000  # XML elements of one part (libxml2 keeps ~120 bytes per element)
MAX_ENTRIES = 20_000
MAX_RATIO = 200  # uncompressed / compressed, above which a big part is a zip bomb
_MIB = f"{MAX_PART_BYTES >> 20} MiB"
RATIO_MIN_BYTES = 4 * 1024 * 1024  # small parts may compress well (repeated markup)
LIBXML2_MAX_DEPTH = 256  # libxml2's own nesting limit without XML_PARSE_HUGE (huge_tree=False below)

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")


def document_error(message: str, path: str) -> DocumentError:
    return DocumentError(f"{message}: {Path(path).name}", path=path)


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MiB"


#: What an over-budget DOCX is told: the file is fine, a limit of the locator is not.
OVER_BUDGET_HINT = "the file is not broken: it exceeds a limit the DOCX locator sets to bound memory and time; {fix}"
SPLIT = "split it into smaller documents"
FLATTEN = "flatten the nesting (tables or content controls inside each other) in its own application"


def over_budget(message: str, path: str, limit: str, fix: str = SPLIT) -> OverBudgetError:
    """A DOCX over one of the locator's budgets: the limit in the message and in ``limit`` (the
    file is refused before the provider sees it), the way out in the hint."""
    return OverBudgetError(f"{message}: {Path(path).name}", path=path, limit=limit,
                           hint=OVER_BUDGET_HINT.format(fix=fix))


def open_zip(path: str, data: bytes) -> zipfile.ZipFile:
    if data[:8] == _OLE_MAGIC:
        if _ENCRYPTED_PACKAGE in data:
            raise document_error("DOCX is encrypted (password protected)", path)
        raise document_error("not a zip file (an OLE2 file: legacy .doc or encrypted package)", path)
    if not data.startswith(b"PK"):
        raise document_error("not a zip file (not a DOCX)", path)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise document_error(f"not a zip file (broken or truncated DOCX: {exc})", path) from exc
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise over_budget(f"zip bomb: {len(infos)} entries (limit {MAX_ENTRIES})", path, f"zip entries {MAX_ENTRIES}")
    return zf


def read_part(zf: zipfile.ZipFile, name: str, path: str) -> bytes | None:
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.flag_bits & 0x1:
        raise document_error("DOCX is encrypted (password protected)", path)
    if info.file_size > MAX_PART_BYTES:
        raise over_budget(f"DOCX too large for the locator: {name} holds {_mib(info.file_size)} of XML, over its limit "
                          f"(XML part size {_MIB})", path, f"XML part size {_MIB}")
    if info.file_size > RATIO_MIN_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size // max(info.compress_size, 1)
        raise over_budget(f"zip bomb: {name} compression ratio {ratio}:1 (limit {MAX_RATIO}:1)", path,
                          f"compression ratio {MAX_RATIO}:1")
    try:
        with zf.open(info) as fh:
            data = fh.read(MAX_PART_BYTES + 1)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise document_error(f"broken DOCX: cannot read {name} ({exc})", path) from exc
    except RuntimeError as exc:  # zipfile raises this for encrypted members
        raise document_error("DOCX is encrypted (password protected)", path) from exc
    if len(data) > MAX_PART_BYTES:
        raise over_budget(f"DOCX too large for the locator: {name} holds more than {_mib(MAX_PART_BYTES)} of XML, over "
                          f"its limit (XML part size {_MIB})", path, f"XML part size {_MIB}")
    return data


# huge_tree=False keeps libxml2's own limits (nesting depth 256, 10 MB per text node):
# no document a person writes comes near them, and a hostile one stops there, in C.
_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False, recover=False
)


def parse_xml(data: bytes, name: str, path: str) -> etree._Element:
    """Parse one XML part, refusing any DOCTYPE or entity declaration."""
    probe = data
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        probe = data.decode("utf-16", errors="replace").encode("utf-8")
    if b"<!DOCTYPE" in probe or b"<!ENTITY" in probe:
        raise over_budget(f"XML entity declarations are not allowed (DOCTYPE in {name})", path,
                          "no XML entity declarations")
    elements = data.count(b"<") - data.count(b"</")
    if elements > MAX_ELEMENTS:
        raise over_budget(f"DOCX too large for the locator: {name} has about {elements:,} XML elements, over the limit "
                          f"of {MAX_ELEMENTS:,}", path, f"XML elements {MAX_ELEMENTS:,}")
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        text = str(exc).lower()
        if "depth" in text:  # lxml says "Excessive depth in document: 256 use XML_PARSE_HUGE option"
            raise over_budget(f"DOCX nests too deeply: {name} has elements nested more than {LIBXML2_MAX_DEPTH} levels "
                              f"deep, the XML parser's limit (documents people write stay under ~40)", path,
                              f"XML nesting depth {LIBXML2_MAX_DEPTH}", FLATTEN) from exc
        if "huge" in text:  # a text node over libxml2's 10 MB, or a name or attribute over its limits
            raise over_budget(f"DOCX too large for the locator: {name} has a single text or attribute over the XML "
                              "parser's size limit (10 MB)", path, "XML text node 10 MB") from exc
        raise document_error(f"malformed XML in {name} ({exc})", path) from exc


def parse_optional(data: bytes | None, name: str, path: str) -> etree._Element | None:
    """An optional part (styles, numbering, notes, comments, settings, their rels) parsed, or None when it is absent
    or broken: a broken one costs only what it holds (heading detection, list markers, notes). An entity
    declaration still refuses the whole file, as in the main part."""
    if data is None:
        return None
    try:
        return parse_xml(data, name, path)
    except DocumentError as exc:
        if "entity" in exc.message:
            raise
        return None


def main_part_name(zf: zipfile.ZipFile, path: str) -> str:
    rels = read_part(zf, "_rels/.rels", path)
    if rels is not None:
        try:
            root = parse_xml(rels, "_rels/.rels", path)
        except DocumentError:
            root = None
        if root is not None:
            for rel in root:
                if str(rel.get("Type", "")).endswith("/officeDocument"):
                    target = str(rel.get("Target", "")).lstrip("/")
                    if target:
                        return target
    return "word/document.xml"
