"""Pure citation helpers: IDs, precision, URLs, Markdown, de-duplication and ranking.

Nothing here does I/O; the host's citation pipeline calls these after cleaning
(:mod:`mnote_kr.citations.cleaning`) and locating.

Citation IDs
    ``[a3z1]`` (text) or ``[IMG-p4f2]`` (image): 4 base-36 characters from a SHA-256 of
    provider, source id, block-or-chunk anchor (with the place and its claim: exact,
    approximate, a known page; :mod:`mnote_kr.citations.render.claims`) and occurrence. Same
    inputs, same ID, in every process; a collision inside one result is re-salted deterministically.

The ``mnote-kr://`` URL scheme
    ::

        mnote-kr://open?path=<workspace-relative POSIX path, percent-encoded>
                        [&ws=<workspace id>]
                        &precision=bbox|paragraph|slide|cell|file
                        [&page=<1-based page>&bbox=<x0>,<y0>,<x1>,<y1>]   bbox precision only
                        [&pageHint=<1-based page>]   file precision only: the page known, no place on it
                        [&block=<sidecar block id>]
                        [&slide=<1-based slide>[&shape=<shape id>|&notes=1]]   slide precision only
                        [&sheet=<sheet name>&range=<A1 range>]   cell precision only
                        [&para=<w14:paraId>][&paragraph=<paragraph index>]

    Only fields the locator really has appear: no ``page``/``bbox`` for paragraph or file
    locators, no ``para`` when the paragraph has no ``w14:paraId``. ``bbox`` is in PDF
    points, top-left origin (as in :class:`~mnote_kr.models.Locator`); numbers are written
    with at most two decimals. Values are percent-encoded (RFC 3986), ``/`` kept in the path.
    The path is the file's own path relative to the workspace, so same-named files in
    different folders get different URLs. A shell resolves it against the workspace root
    and must refuse paths that leave it (the host never issues one: absolute paths and
    ``..`` raise :class:`~mnote_kr.errors.UsageError`).
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Sequence
from urllib.parse import quote

from mnote_kr.citations.render.precision import (
    HINT_WORDS,
    how_placed,
    is_approximate,
    page_hint,
    paragraph_number,
    placed_words,
)
from mnote_kr.citations.text.textnorm import CJK_CLASS, has_cjk, lazy_compile
from mnote_kr.errors import UsageError
from mnote_kr.models import Locator, LocatorPrecision, SidecarBlock

__all__ = [
    "URL_SCHEME",
    "citation_id",
    "citation_markdown",
    "citation_url",
    "classify_block_precision",
    "dedupe_key",
    "issue_key",
    "query_terms",
    "score",
    "search_of",
]

URL_SCHEME = "mnote-kr"
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_ID_LEN = 4
#: Salts tried at 4 characters before falling back to longer IDs (never loops forever).
_MAX_SALTS = 4096

# --------------------------------------------------------------------------- IDs

#: Characters of an issue key (``?issue=`` in a viewer URL): one ID keeps at most 8 searches.
_ISSUE_LEN = 4


def _base36(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, rem = divmod(value, 36)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


def search_of(mode: str = "mix", scope: Sequence[str] = ()) -> tuple[str, list[str]]:
    """A search's mode and scope as its issue key hashes them and its IDs' records keep them: the mode in lower
    case, ``hybrid`` as its alias ``mix``; the scope's root-relative paths sorted, once each, the whole
    library's ("" or ".") left out."""
    return (mode or "mix").strip().lower().replace("hybrid", "mix"), sorted({s.strip("/") for s in scope} - {"", "."})


def issue_key(search_query: str, mode: str = "mix", scope: Sequence[str] = ()) -> str:
    """The short key of the search that issued an ID (``/view/ID?issue=KEY``): 4 base-36 characters of a
    SHA-256 of its query, its mode and its scope (root-relative paths). Short and stable: the same search gives
    the same key in every process, and the URL never carries the search itself. The same words asked in another
    mode or scope show other places, so they get another key; a search in the default mode (``mix``, or its alias
    ``hybrid``) over the whole library hashes its query alone, as every key did before (round 28's links)."""
    mode, rels = search_of(mode, scope)
    text = search_query if mode == "mix" and not rels else "\x1f".join([search_query, mode, *rels])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return _base36(int.from_bytes(digest[:8], "big"), _ISSUE_LEN)


def citation_id(
    provider: str,
    source_id: str,
    anchor: str,
    occurrence: int,
    *,
    image: bool = False,
    taken: set[str],
    length: int = _ID_LEN,
) -> str:
    """A short citation ID such as ``[a3z1]`` (``[IMG-p4f2]`` when ``image``).

    ``anchor`` is the sidecar block id, else the chunk id, with ``@``, the located place (page and
    box, or paragraph) and its claim when there is one (``claims.place_anchor``), so an ID opens one
    place as sure as it was issued. ``occurrence`` tells apart
    several citations of the same anchor. On a collision with ``taken`` the hash is
    re-salted (salt 1, 2, …) so the result stays deterministic; after 4096 salts the ID
    grows by 2 characters. ``length``: 4, or 5 for an ID renamed because the store holds the hashed one
    for another place (``caches.citecache``). The result is added to ``taken``.
    """
    prefix = "IMG-" if image else ""
    salt = 0
    while True:
        material = f"{provider}\x1f{source_id}\x1f{anchor}\x1f{occurrence}\x1f{salt}".encode()
        digest = int.from_bytes(hashlib.sha256(material).digest()[:8], "big")
        cid = f"[{prefix}{_base36(digest, length)}]"
        if cid not in taken:
            taken.add(cid)
            return cid
        salt += 1
        if salt == _MAX_SALTS:
            length += 2


# --------------------------------------------------------------------------- precision


def classify_block_precision(block: SidecarBlock | None) -> LocatorPrecision:
    """The precision a sidecar block supports (the rules below are the whole contract).

    ``bbox`` when a position has type ``bbox`` with an anchor (the page) and a range;
    ``paragraph`` when the block has a block id or a heading (any string value
    counts, an empty one too) or a ``paraid`` position (even ``[null, null]``); else
    ``file``. A missing block is ``file``.
    """
    if block is None:
        return "file"
    positions = block.positions or []
    if any(p.type == "bbox" and p.anchor is not None and isinstance(p.range, list) for p in positions):
        return "bbox"
    if isinstance(block.blockid, str) or isinstance(block.heading, str):
        return "paragraph"
    if any(p.type == "paraid" for p in positions):
        return "paragraph"
    return "file"


# --------------------------------------------------------------------------- URL and Markdown


def _number(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _check_relative(path: str) -> str:
    posix = path.replace("\\", "/")
    parts = posix.split("/")
    if not posix or posix.startswith("/") or re.match(r"^[A-Za-z]:", posix) or ".." in parts:
        raise UsageError(
            f"Citation path must be relative to the workspace: {path!r}",
            hint="pass the source's rootRelativePath",
        )
    return "/".join(p for p in parts if p not in ("", "."))


def citation_url(source_root_relative_path: str, locator: Locator, *, workspace_id: str | None = None) -> str:
    """The ``mnote-kr://open?...`` URL for a citation (scheme in the module docstring)."""
    path = _check_relative(source_root_relative_path)
    params: list[tuple[str, str]] = [("path", quote(path, safe="/"))]
    if workspace_id:
        params.append(("ws", quote(workspace_id, safe="")))
    precision = locator.locator_precision
    params.append(("precision", precision))
    if precision == "bbox" and locator.page is not None:
        params.append(("page", str(int(locator.page))))
        bbox = locator.bbox
        if bbox and len(bbox) == 4 and all(math.isfinite(v) for v in bbox):
            params.append(("bbox", ",".join(_number(v) for v in bbox)))
    hint = page_hint(locator)
    if hint is not None:  # file precision: the page to open at, not a cited place
        params.append(("pageHint", str(int(hint))))
    if locator.block_id:
        params.append(("block", quote(locator.block_id, safe="")))
    if precision == "slide" and locator.slide is not None:
        params.append(("slide", str(int(locator.slide))))
        if locator.speaker_notes:
            params.append(("notes", "1"))  # the slide's speaker notes, not a shape on it
        elif locator.shape_id is not None:
            params.append(("shape", str(int(locator.shape_id))))
    if precision == "cell" and locator.sheet is not None and locator.range:
        params.append(("sheet", quote(locator.sheet, safe="")))
        params.append(("range", quote(locator.range, safe=":")))
    if precision == "paragraph":
        if locator.para_id:
            params.append(("para", quote(locator.para_id, safe="")))
        if locator.paragraph_index is not None:
            params.append(("paragraph", str(int(locator.paragraph_index))))
    return f"{URL_SCHEME}://open?" + "&".join(f"{k}={v}" for k, v in params)


_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]()<>#!|~{}])")


def _escape_markdown(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return _MD_SPECIAL_RE.sub(r"\\\1", text)


def citation_markdown(file_name: str, locator: Locator, url: str) -> str:
    """A Markdown link naming the file and, only when known, the page, saying when the place is approximate.

    ``[scan.pdf · p.1](url)`` for an exact box (``locatorDegraded`` false: its block holds the
    evidence that answered); ``[scan.pdf · p.1 (approximate location)](url)`` for a passage box;
    ``[deck.pptx · slide 3](url)`` for slide locators, ``[book.xlsx · Sheet1!C12](url)`` for cell locators;
    ``[report.docx · paragraph 13](url)`` for paragraph locators (the number is
    ``paragraphIndex + 1``, counted as people do); ``(approximate location)`` follows every
    degraded place (one rule: ``mnote_kr.citations.render.precision``);
    ``[report.docx (paragraph; location approximate)](url)`` without an index;
    ``[scan.pdf · p.5 (page known, place not found)](url)`` for a file locator with a ``pageHint``;
    ``[notes.md (file; location approximate)](url)`` for other file locators. The link always
    opens. Markdown characters in the file name are escaped.
    """
    name = _escape_markdown(file_name.replace("\\", "/").rsplit("/", 1)[-1]) or "source"
    precision = locator.locator_precision
    if precision == "bbox" and locator.page is not None:
        label = f"{name} · p.{int(locator.page)}"
    elif precision == "slide" and locator.slide is not None:
        label = f"{name} · slide {int(locator.slide)}" + (" notes" if locator.speaker_notes else "")
    elif precision == "cell" and locator.sheet is not None and locator.range:
        label = f"{name} · {_escape_markdown(locator.sheet)}!{locator.range}"
    elif precision == "paragraph" and locator.paragraph_index is not None:
        label = f"{name} · paragraph {paragraph_number(locator.paragraph_index)}"
    elif precision == "paragraph":
        label = f"{name} (paragraph; location approximate)"
    elif page_hint(locator) is not None:
        label = f"{name} · p.{int(page_hint(locator) or 0)} ({HINT_WORDS})"
    else:
        label = f"{name} (file; location approximate)"
    if is_approximate(locator) and "approximate" not in label:
        # placed by meaning, or where the search found it, is said so: no doubt of a place chosen (``precision``)
        label += " (approximate location)" if how_placed(locator) == "approximate" else placed_words(locator)
    target = f"<{url}>" if re.search(r"[\s()<>]", url) else url
    return f"[{label}]({target})"


# --------------------------------------------------------------------------- de-duplication


def dedupe_key(source_id: str, block_id: str | None, chunk_id: str | None, fingerprint: str) -> tuple[str, ...]:
    """Two citations with equal keys are the same passage; keep the first.

    Same source and block, else same source, chunk and display fingerprint. The source
    id (not the file name) keeps same-named files in different folders apart.
    """
    if block_id:
        return ("block", source_id, block_id)
    return ("chunk", source_id, chunk_id or "", fingerprint)


# --------------------------------------------------------------------------- ranking

_CJK = CJK_CLASS  # one definition with the matcher (textmatch)
_TERM_RE = lazy_compile(rf"[{_CJK}]+|[^\W{_CJK}_]+(?:[-.'][^\W{_CJK}_]+)*")
_CJK_RUN_RE = lazy_compile(rf"[{_CJK}]+")
_LATIN_TERM_RE = lazy_compile(r"[^\W_]+(?:[-.'][^\W_]+)*")  # _TERM_RE on a query without CJK
#: CJK runs up to this length are one term (吡咯烷, 三乙基硅); longer runs become bigrams.
_CJK_WHOLE_MAX = 4

PROVIDER_WEIGHT = 1.0
FILE_NAME_BOOST = 0.5
TERM_BOOST = 0.3
PHRASE_BOOST = 0.2


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def query_terms(query: str) -> list[str]:
    """Terms of a query, CJK-aware: Latin words (2+ chars) and the one-letter words the query writes as symbols
    (the text matcher's ``queryterms.symbol_letters``: "Q 代表什么", "what does Q mean"; not "I", not "A dog"),
    short CJK runs whole, long CJK runs as overlapping bigrams. Folded (NFKC, casefold), de-duplicated, in
    order."""
    terms: list[str] = []
    folded = _fold(query)
    cjk = has_cjk(folded)  # without CJK, neither CJK pattern needs compiling
    letters: frozenset[str] | None = None
    for tok in (_TERM_RE if cjk else _LATIN_TERM_RE).findall(folded):
        if cjk and _CJK_RUN_RE.fullmatch(tok):
            if len(tok) <= _CJK_WHOLE_MAX:
                terms.append(tok)
            else:
                terms.extend(tok[i : i + 2] for i in range(len(tok) - 1))
        elif len(tok) >= 2 or tok.isdigit():
            terms.append(tok)
        else:
            if letters is None:  # read from the query as written: its case says symbol or word
                from mnote_kr.citations.text.queryterms import symbol_letters

                letters = symbol_letters(query)
            if tok in letters:
                terms.append(tok)
    return list(dict.fromkeys(terms))


def score(
    provider_rank: int, n_total: int, file_name: str, display_text: str, query: str
) -> tuple[float, dict[str, float]]:
    """Relevance: provider order plus lexical boosts; returns ``(score, parts)``.

    The former per-citation ranking, kept as the named baseline of ``benchmarks/retrieval.py``;
    the pipeline ranks with :func:`mnote_kr.citations.rank.ranking.relevance` (BM25 over the search).

    * ``provider``: ``1 / (1 + rank)`` (rank 0-based, clamped into ``[0, n_total)``).
    * ``fileName``: +0.5 when the query equals the file name or its stem (folded).
    * ``terms``: up to +0.3, the share of query terms (see :func:`query_terms`) found
      in the display text.
    * ``phrase``: +0.2 when the whole query (whitespace-normalised) is in the display text.

    The boosts add up to at most 1.0 (the provider part of rank 0), so an exact file-name
    or phrase match can lift a passage over provider ranks; ``parts`` shows why.
    """
    rank = max(0, min(provider_rank, max(n_total, 1) - 1))
    parts: dict[str, float] = {"provider": PROVIDER_WEIGHT / (1 + rank)}
    q = _fold(" ".join(query.split()))
    name = _fold(file_name.replace("\\", "/").rsplit("/", 1)[-1].strip())
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    parts["fileName"] = FILE_NAME_BOOST if q and q in (name, stem) else 0.0
    text = _fold(" ".join(display_text.split()))
    terms = query_terms(query)
    hits = sum(1 for t in terms if t in text)
    parts["terms"] = TERM_BOOST * hits / len(terms) if terms else 0.0
    parts["phrase"] = PHRASE_BOOST if q and q in text else 0.0
    return sum(parts.values()), parts
