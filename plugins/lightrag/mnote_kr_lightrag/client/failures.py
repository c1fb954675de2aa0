"""LightRAG's failure text, retold for the person who owns the file.

LightRAG's ``error_msg`` speaks about *its* input: the hash-suffixed link name
(``report.cafbc825-76a0ecf6.pdf``), its input path, doc ids, banners of ``=`` and a
SOLUTION that says "re-upload to LightRAG". The user gave mnote-kr a file; the reason
they read names that file and says what to do with mnote-kr. Rules:

* the link name and any path ending in it become the user's file name;
* doc ids (``doc-<32 hex>``) and ``(doc_id=...)`` never appear;
* LightRAG's banner and SOLUTION are dropped; the first sentence of its detail stays,
  cut at a word boundary, never mid-word;
* the user's file is "the file" inside the reason (the caller prints its name before it);
* a known cause gets mnote-kr's advice (no text layer → OCR; not a DOCX → save as
  .docx; encrypted → remove the password); a failure of the parser on the file's own bytes
  (LightRAG's ``error_type: file_extraction_error``, not a timeout or a connection) gets "the
  file looks damaged or unreadable; replace ... or repair it": sending the same bytes again
  cannot help; any other gets "'mnote-kr ingest FILE' tries again" (a failed file is sent again
  by a plain ingest: every command named is one that works);
* the reason never says "'mnote-kr status' lists failures": ``status`` prints it (the ingest's
  closing error line says where failures are listed);
* the advice follows the headline after a colon, so the line nests no parentheses when
  the caller puts it in a sentence of its own.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from mnote_kr.plugin_api import lazy_compile

_DOC_ID = lazy_compile(r"\(?\bdoc_id\s*[=:]\s*doc-[0-9a-f]{32}\)?|\b(?:dup-)?doc-[0-9a-f]{32}\b")
_BANNER = lazy_compile(r"={4,}")
_TITLE = lazy_compile(r"ERROR:\s*(?P<title>[^\n]+)")
_SOLUTION = lazy_compile(r"\bSOLUTION\b.*", re.S)
_PREFIX = lazy_compile(r"^\s*\[[^\]]{1,40}\]\s*")  # "[File Extraction]"
MAX_DETAIL = 160
#: A Word template's content type (``.dotx``, ``.dotm``) in python-docx's "not a Word file" error
_WORD_TEMPLATE = lazy_compile(r"not a Word file.*(?:template\.main\+xml|macroEnabledTemplate)", re.I | re.S)
#: A Python fault inside LightRAG (its own words name its internals, never the user's file).
_INTERNAL = lazy_compile(r"object has no attribute|is not subscriptable|is not iterable|unexpected keyword argument"
                         r"|positional argument|index out of range|NoneType|cython_function|Traceback \(most recent")
INTERNAL_HEADLINE = "an internal error of LightRAG's parser"
#: LightRAG 1.5.7's native DOCX parser reads every child of the body as an element (``element.tag.split``): an XML
#: comment or processing instruction there (``<!-- table from original bug report -->``) has a function for its tag.
_XML_COMMENT = lazy_compile(r"cython_function_or_method'? object has no attribute 'split'")
COMMENT_HEADLINE = ("LightRAG's DOCX parser stops at the XML comments in the document, a fault of that parser, not "
                    "a fault of the file")
#: python-docx's words for a package whose main part is not the Word document it looks for (a Strict Open XML
#: document names it by another relationship: ``purl.oclc.org/ooxml/...``).
NO_MAIN_PART = lazy_compile(r"no relationship of type '[^']*officeDocument'")
NO_PART_WORDS = "LightRAG's DOCX parser finds no Word document part in it where it looks"
NO_MAIN_HEADLINE = f"{NO_PART_WORDS}, as in a document saved as Strict Open XML"
STRICT_HEADLINE = "it is saved as Strict Open XML, which LightRAG's DOCX parser does not open"
#: A parse failure that is no fault of the file's bytes (a remote parser, a model, the network).
_NOT_THE_FILE = lazy_compile(r"time(?:d)?\s?out|connect|network|unreachable|HTTP\s?[45]\d\d|\b50[234]\b|rate.?limit"
                             r"|quota|api.?key|unauthori[sz]ed|temporar|unavailable|out of memory|MemoryError"
                             r"|cancel", re.I)
CONTENT_ADVICE = ("the file looks damaged or unreadable; replace it with a good copy (a backup or the original "
                  "source) or repair it, then 'mnote-kr ingest FILE'")

_ENCRYPTED = lazy_compile(r"password|encrypt", re.I)
_EMPTY = lazy_compile(r"\bempty file\b|\bfile is empty\b|\bis empty \(0 bytes\)", re.I)
#: Causes whose advice opens by restating the cause ("the file is encrypted; ..."): when the headline
#: already says it (LightRAG's "PDF is encrypted but no password provided", its DOCX parser's "... is empty
#: (0 bytes)"), the advice starts after it.
_SAID_IN_HEADLINE = (_ENCRYPTED, _EMPTY)

_CAUSES: list[tuple[re.Pattern[str], str, str]] = [
    (lazy_compile(r"Identical content already exists", re.I), "",
     "the same content is already indexed under another file name; it is cited from there"),
    (lazy_compile(r"no usable text|empty content|no text", re.I), "pdf",
     "it has no text layer, so it is probably a scanned PDF and needs OCR; run it through an OCR tool "
     "such as ocrmypdf and ingest the result, or give LightRAG an OCR parser such as MinerU"),
    (lazy_compile(r"no usable text|empty content|no text", re.I), "",
     "no text could be extracted; check that the file holds text, then 'mnote-kr ingest FILE'"),
    (_EMPTY, "",
     "the file is empty; sync and watch index it once it has content"),
    (lazy_compile(r"Stream has ended unexpectedly|EOF marker not found|startxref not found|Broken xref table"
                  r"|Cannot find Root object|Invalid PDF header", re.I), "pdf",
     "the PDF is damaged or not a PDF; restore it from a backup or the original source, then 'mnote-kr ingest FILE'"),
    # pypdf's words for a PDF cut short or with a broken page tree ("Invalid object in /Pages: 0")
    (lazy_compile(r"Invalid object in|Could not read (?:Boolean|malformed PDF)|Unexpected end of stream"
                  r"|Could not find xref|Invalid Elementary Object|xref table not zero-indexed", re.I), "pdf",
     "the PDF looks damaged (cut short or corrupted); replace it with a good copy (a backup or the original "
     "source) or repair it, then 'mnote-kr ingest FILE'"),
    (lazy_compile(r"truncated", re.I), "",
     "the file is damaged; restore it from a backup or the original source, then 'mnote-kr ingest FILE'"),
    (_ENCRYPTED, "", "the file is encrypted; save a copy without the password and ingest that"),
    (_WORD_TEMPLATE, "", "open it in Word or LibreOffice, save it as a document (.docx), then 'mnote-kr ingest FILE'"),
    (_XML_COMMENT, "docx", "open it in Word or LibreOffice and save it again (which leaves no XML comments), then "
                           "'mnote-kr ingest FILE'"),
    (NO_MAIN_PART, "docx", "open it in Word and save it as Word Document (.docx), not as Strict Open XML Document, "
                           "then 'mnote-kr ingest FILE'"),
    (lazy_compile(r"not a valid DOCX|not a Word file|no relationship of type|officeDocument|content type", re.I),
     "docx",
     "LightRAG's DOCX parser cannot read it; open it in Word or LibreOffice, save as .docx, "
     "then 'mnote-kr ingest FILE'"),
]


def _sentence(text: str, limit: int = MAX_DETAIL) -> str:
    """The first sentence of ``text``, at most ``limit`` characters, cut between words."""
    text = " ".join(text.split())
    m = re.search(r"(?<=[.!?])\s", text)
    if m:
        text = text[: m.start()]
    if len(text) <= limit:
        return text.rstrip(" .:;,")
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" .:;,") + "…"


def _the_file(text: str, link_name: str) -> str:
    """``text`` with the link name said as "the file": quoted or not, with any path ending in it
    (POSIX or Windows, spaces allowed inside quotes), and with a "file at" / "file" / "source
    file" before it at the start of a line, a sentence or an aside:
    "The file at '/in/x.1-2.docx' starts" → "the file starts"."""
    link = re.escape(link_name)
    quoted = rf"['\"`\u2018](?:[^'\"`\u2019\n]*[\\/])?{link}['\"`\u2019]"
    bare = rf"(?:[^\s'\"`\u2018\u2019]*[\\/])?{link}"
    prefix = r"(?:(?:^|(?<=: )|(?<=\())(?:the\s+|source\s+)?file(?:\s+at)?\s+)?"
    return re.sub(f"{prefix}(?:{quoted}|{bare})", "the file", text, flags=re.I | re.M)


def failure_headline(error: str | None, *, link_name: str | None) -> str:
    """What went wrong, in one short line without advice (a fallback's note quotes it)."""
    return _headline(_clean(error, link_name))


def _clean(error: str | None, link_name: str | None) -> str:
    text = str(error or "")
    if link_name:
        text = _the_file(text, link_name)
    return _DOC_ID.sub("", text)


def _headline(text: str) -> str:
    title = _TITLE.search(text)
    details = _SOLUTION.sub("", text)
    details = _BANNER.sub(" ", details)
    if title:
        details = details.replace(title.group(0), " ")
    detail = _sentence(_PREFIX.sub("", details))
    headline = title.group("title").strip().rstrip(".") if title else detail
    if title and detail and detail.lower() not in headline.lower():
        headline = f"{headline}: {detail}"
    headline = _sentence(headline, 200) or "indexing failed"
    if re.search(r"Identical content already exists", text, re.I):
        headline = "identical content is already indexed"
    elif _WORD_TEMPLATE.search(text):  # python-docx's "is not a Word file" reads as if the file were broken
        headline = "it is a Word template, which LightRAG's DOCX parser does not open"
    elif _XML_COMMENT.search(text):
        headline = COMMENT_HEADLINE
    elif NO_MAIN_PART.search(text):  # python-docx's words, a URL among them
        headline = NO_MAIN_HEADLINE
    elif _INTERNAL.search(headline):
        headline = INTERNAL_HEADLINE
    return headline


def explain_failure(error: str | None, *, link_name: str | None, file_name: str,
                    content_fault: bool = False) -> str:
    """One line: what went wrong with ``file_name`` and what to do about it.

    ``link_name`` is the name LightRAG knows the file by; it and any path ending in it become
    "the file" (callers print ``file_name`` before the reason); ``file_name`` is named in the
    advice where a command needs it. ``content_fault``: LightRAG says its parser failed on the
    file (:func:`is_content_fault`); unless the text says the network or a service failed, or
    LightRAG's own code did, the advice is to replace or repair the file, not to send it again.
    """
    text = _clean(error, link_name)
    headline = _headline(text)
    ext = PurePosixPath(file_name).suffix.lower().lstrip(".")
    for pattern, kind, advice in _CAUSES:
        if (not kind or kind == ext) and pattern.search(text):
            if pattern in _SAID_IN_HEADLINE and pattern.search(headline):  # said once: the headline has it
                advice = advice.split("; ", 1)[1]
            return f"{headline}: {advice.replace('FILE', file_name)}"
    if content_fault and headline not in (INTERNAL_HEADLINE, COMMENT_HEADLINE) and not _NOT_THE_FILE.search(text):
        return f"{headline}: {CONTENT_ADVICE.replace('FILE', file_name)}"
    # A failed file is sent again by a plain ingest: no option is needed to retry it.
    return f"{headline}: 'mnote-kr ingest {file_name}' tries again"


def is_content_fault(metadata: dict[str, object]) -> bool:
    """Whether a failed row's ``metadata`` says LightRAG's parser failed on the file itself
    (1.5.7: ``error_type: file_extraction_error``, with ``error_stage: parse`` from its parse
    worker), rather than a later stage (the model, the storage)."""
    return metadata.get("error_type") == "file_extraction_error"
