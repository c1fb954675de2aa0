"""Index a document LightRAG's own parser fails on through the text mnote-kr reads from it.

Every file a user gives must end indexed or with a reason they can act on. When LightRAG
fails to parse a document (Strict OOXML, a macro-free Word template, a parser bug), or parses it
into a sliver of its text (``THIN_SHARE``: body text in layout tables or text boxes it skips), and the
host can read the file itself (``ProviderContext.extract_text``: the file's locator plugin
reads it), that text goes into LightRAG's input dir as a Markdown *text wrapper* in place of
the link, named like an image wrapper (``<link name>.md``), so it maps back to the same
registry entry. Citations still land in the original file: the locator reads the same
paragraphs the text came from. The entry's ``kind`` becomes ``text_fallback`` and its
``last_error`` says that the fallback was used and why (``mnote-kr status`` shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.plugin_api import EntryUpdate, MnoteKrError, SourceEntry, SourceFile

from . import links, naming
from . import provider as _p
from .failures import NO_MAIN_HEADLINE, NO_PART_WORDS, STRICT_HEADLINE, failure_headline
from .readings import FALLBACK, current

KIND = "text_fallback"
#: A document LightRAG parsed into less than this share of the characters mnote-kr reads in it...
THIN_SHARE = 0.25
#: ... when mnote-kr reads at least this many, is indexed through that text instead: LightRAG's
#: parser left most of it out (body text inside layout tables or text boxes), which it would never cite.
THIN_MIN_CHARS = 1000
#: Kinds checked so (both sides read an Office file's text; a scanned PDF goes to OCR elsewhere).
THIN_KINDS = (".docx", ".pptx", ".xlsx")


def note(error: str | None, link_name: str | None, source: str | Path | None = None) -> str:
    """What ``status`` says about an entry indexed through the fallback: LightRAG's reason
    (``error``, its raw text) without advice, since there is nothing left for the user to do. ``source``: the
    user's file, read (never written) for what the error text cannot tell (``strict_ooxml``)."""
    why = failure_headline(error, link_name=link_name)
    if why == NO_MAIN_HEADLINE and source is not None:  # the file says whether it is Strict
        why = STRICT_HEADLINE if strict_ooxml(source) else NO_PART_WORDS
    return (f"indexed from the text mnote-kr reads in it, since LightRAG's parser could not read it "
            f"({why}); citations still point into the file")


#: The relationship by which a Strict Open XML package names its main part (ISO/IEC 29500 Strict).
_STRICT_MAIN = b"purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"
#: The most bytes of ``_rels/.rels`` read (a real one is under 1 KB).
_RELS_MOST = 64 * 1024


def strict_ooxml(path: str | Path) -> bool:
    """``path`` is an Office package whose main part is named as in Strict Open XML (its ``_rels/.rels``)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("_rels/.rels")
            if info.file_size > _RELS_MOST:
                return False
            with z.open(info) as f:
                return _STRICT_MAIN in f.read(_RELS_MOST)
    except (OSError, KeyError, zipfile.BadZipFile, RuntimeError, EOFError):
        return False


def thin_note(parsed: int, ours: int) -> str:
    """What ``status`` says about a document indexed through its text because LightRAG read little of it."""
    return (f"indexed from the text mnote-kr reads in it, since LightRAG's parser read only {parsed:,} of its "
            f"{ours:,} characters; citations still point into the file")


def try_thin(prov: _p.LightRagProvider, entry: SourceEntry, processed: EntryUpdate, row: dict[str, Any],
             input_dir: Path | None) -> EntryUpdate | None:
    """Replace a document LightRAG processed into a sliver of its text (``THIN_SHARE``) by its text
    wrapper; the new update, or None when LightRAG's reading stands."""
    parsed = row.get("content_length")
    if entry.kind != "document" or not isinstance(parsed, int) or \
            Path(entry.source_path).suffix.lower() not in THIN_KINDS:
        return None
    try:
        text = prov.ctx.extract_text(entry.source_path)
    except MnoteKrError:
        return None
    ours = len((text or "").strip())
    if ours < THIN_MIN_CHARS or parsed >= THIN_SHARE * ours:
        return None
    return try_fallback(prov, entry, processed, row, input_dir, text=text, why=thin_note(parsed, ours))


#: A failed file mnote-kr's own reader finds encrypted (an encrypted Office file is an OLE2 package,
#: which LightRAG's DOCX parser takes for a legacy .doc and tells the user to save as .docx).
ENCRYPTED = "the file is encrypted with a password: save a copy without the password and ingest that"


def encrypted(failed: EntryUpdate, exc: MnoteKrError, row: dict[str, Any]) -> EntryUpdate | None:
    """``failed`` with ``ENCRYPTED`` as its reason when our reader found the file encrypted and
    LightRAG's reason (``row``'s, the file's name taken out of it) does not say so; else None."""
    said = failure_headline(row.get("error_msg") or row.get("content_summary"),
                            link_name=failed.light_rag_file_path).lower()
    if "encrypted" not in str(exc).lower() or "encrypt" in said or "password" in said:
        return None
    return msgspec.structs.replace(failed, last_error=ENCRYPTED)


def try_fallback(prov: _p.LightRagProvider, entry: SourceEntry, failed: EntryUpdate, row: dict[str, Any],
                 input_dir: Path | None, *, text: str | None = None, why: str | None = None) -> EntryUpdate | None:
    """Replace a failed document by its text wrapper; the new update, or None to keep the failure.
    ``text``: the text mnote-kr reads in it, when already read; ``why``: the entry's note."""
    if entry.kind != "document" or failed.duplicate_of or input_dir is None or not input_dir.is_dir():
        return None
    if str(row.get("id", "")).startswith("dup-"):
        return None
    if text is None:
        try:
            text = prov.ctx.extract_text(entry.source_path)
        except MnoteKrError as exc:  # our reader cannot read it either: LightRAG's reason stands,
            return encrypted(failed, exc, row)  # unless the file is encrypted and LightRAG's misses that
    if not text or not text.strip():
        return None
    rel = entry.source_root_relative_path
    link = failed.light_rag_file_path or naming.link_name(rel, entry.source_hash, prov.ws)
    # Untagged, as before: a workspace indexed by an earlier version keeps an untagged wrapper in
    # LightRAG, and a tagged one of the same text would be refused as its duplicate (uncitable).
    name = naming.wrapper_name(rel, entry.source_hash)
    if row.get("id"):
        prov.delete_ids([str(row["id"])], retries=0)  # the failed row; its file stays ours
    links.remove_ours(input_dir, link)  # a failed link would be parsed again by every scan
    try:
        links.write_text_wrapper(input_dir, name, rel, text)
    except (OSError, MnoteKrError):
        return None
    # A busy scan is no failure: the wrapper waits at the top of the input dir and the
    # status bridge scans again while the entry is ``submitted``.
    _outcome, track_id, _retry_after, _error = prov.scan()
    why = why or note(row.get("error_msg") or row.get("content_summary"), link, entry.source_path)
    return EntryUpdate(source_root_relative_path=rel, status="submitted", track_id=track_id,
                       light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name), kind=KIND,
                       wrapper_path=str(input_dir / name), last_error=why, reading=current(FALLBACK))


def remove_failed_originals(prov: _p.LightRagProvider, replaced: dict[str, str]) -> None:
    """Delete LightRAG's failed rows of sources now indexed through their wrapper (``rel`` →
    wrapper name): left behind when the first delete met a busy pipeline, they would show as
    failed and unmapped documents in ``status``. Only our own records; never a file."""
    try:
        docs = prov.documents()
        input_dir = prov.input_dir()
        old = [str(r["id"]) for rel, name in replaced.items()
               for r in prov.old_versions(docs, rel, name, input_dir)]
        if old and prov.delete_ids(old, retries=2)[0] == "started":
            # LightRAG deletes in the background: wait briefly so the caller's next look
            # (``status`` right after ``ingest --wait``) no longer lists them.
            deadline = _p.now_s() + 5.0
            while _p.now_s() < deadline and set(old) & set(prov.documents().by_id):
                _p.sleep(0.25)
    except MnoteKrError:
        pass  # the engine went away: the rows stay until a later sync's orphan pass


#: How every note of a file indexed from mnote-kr's own text begins (``note``, ``thin_note``, ``recognized``,
#: ``decks``, ``docxbreaks``, ``workbooks``): a lasting reason, unlike what a passing error or a resend says.
NOTE_START = "indexed from the text "


def lasting(note: str | None) -> bool:
    """Whether ``note`` is a file's lasting reason for its fallback (not a passing error's message)."""
    return bool(note) and str(note).startswith(NOTE_START)


def transient_note(entry: SourceEntry, message: str) -> str:
    """What an entry records of a passing provider error (LightRAG unreachable, busy): ``message``, unless
    the entry is a fallback whose lasting reason that would overwrite (nc28b: after an engine stop and a
    recovery, ``status`` kept "LightRAG is not reachable at <old port>" as a deck's reason)."""
    kept = entry.last_error
    return kept if kept and entry.kind == KIND and lasting(kept) else message


def keep_note(update: EntryUpdate, previous_note: str | None,
              restore: Callable[[], str | None] | None = None) -> EntryUpdate:
    """A fallback entry keeps its note through later status updates (unless it failed again). Once indexed,
    a note that is no lasting reason (a passing error's, "sent again") gives way to the file's own reason
    (``restore``: read again from the file), else to none (``status`` then says what the kind means)."""
    if update.status == "failed":
        return update
    if previous_note and (lasting(previous_note) or update.status != "processed"):
        return msgspec.structs.replace(update, last_error=previous_note, kind=KIND)
    if not previous_note:
        return update
    return msgspec.structs.replace(update, last_error=restore() if restore is not None else None, kind=KIND)


def own_note(prov: _p.LightRagProvider, source: SourceFile) -> str | None:
    """The note of a file sent as its own text (``recognized.own_text``), read again from the file; None when it
    is not such a file (a parser's failure, whose reason LightRAG no longer holds) or cannot be read."""
    from .recognized import own_text

    try:
        own = own_text(prov.ctx, source)
    except MnoteKrError:
        return None
    return own.note if own is not None else None
