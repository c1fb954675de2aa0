"""The plugin API: everything a plugin may import from the mnote-kr host, and nothing else.

A plugin (a distribution registering modules in the entry-point group ``mnote_kr``) imports
host names only from here::

    from mnote_kr.plugin_api import LocateRequest, Locator, hookimpl

Any other ``mnote_kr.*`` module is the host's own and may change without notice;
``tests/test_architecture.py`` fails when a bundled plugin imports one. ``docs/plugins.md``
documents the names below, with a complete minimal plugin.

What is here:

* **Hook markers**: ``hookimpl`` (decorate your hook functions), ``hookspec``, ``PROJECT_NAME``
  (the entry-point group). The specs themselves are ``mnote_kr.hookspecs``' docstrings.
* **Data contracts** (msgspec structs, camelCase on the wire): what hooks receive and return:
  ``LocateRequest`` -> ``Locator`` (with ``Rect``, ``Highlight``, ``LocatorPrecision``), the
  sidecar rows (``SidecarBlock``, ``SidecarMeta``, ``SidecarPosition``), the viewer's
  ``DocumentModel`` (``ModelParagraph``, ``PageSize``, ``ModelSlide``/``ModelShape``,
  ``ModelSheet``/``ModelCell``), and the provider side (``SourceFile``,
  ``SourceEntry``, ``EntryUpdate`` (``ProviderActivity``), ``EntryColumns``, ``ReadingCheck``, ``ProviderStatus``,
  ``QueryRequest``,
  ``ProviderQueryResult``, ``ProviderReference``, ``MappedReference``, ``ProviderContext``).
* **Errors**: ``MnoteKrError`` and its tree. Raise ``DocumentError`` for a broken or hostile
  file (``OverBudgetError``, naming its ``limit``, for one over a reader's budget: it is refused
  before the provider sees it), ``ProviderError`` (``ProviderBusyError``) when the provider fails; the host turns them
  into one ``Error: ... (hint)`` line.
* **The text toolkit locators share**: ``TextDocument``/``TextParagraph``/``match_evidence``/
  ``locator_from_match``/``Scope``/``THRESHOLD`` (find the paragraph evidence came from),
  ``queue_places``/``with_meaning`` (have a document's paragraphs embedded at ingest, and rank a
  passage's paragraphs by meaning beside words), ``queue_texts``/``places_key``/``rank_by_meaning``
  (the same for places that are not paragraphs, e.g. PDF text blocks: queue their texts at
  ``prepare_locate``, keep their ``places_key``, rank candidate places by word score and meaning),
  ``nearest_places`` (a file's places nearest a query by meaning: those behind the best; ``nearest_places_across``
  the same with the pull of the question's script out of a file written in the other, ``locate.otherscript``),
  ``said_shares`` (each place's share of a question's words it says in its own language, for a question over a
  passage in the other script: word scores beside the places' own, ``locate.saidacross``),
  ``places_behind`` (the places behind one a locator chose itself, by words and meaning: a deck's
  other shapes, a sheet's other rows; ``with_places_behind`` sets them as a locator's runners-up),
  ``embed_meaning``/``meaning_version`` (the same packaged model's vectors of any texts, and its
  identity, for a provider's own index),
  ``normalize``/``iter_tokens``/``query_occurrences``/``lazy_compile``/``made_of``/
  ``query_standing`` (text normalisation), ``scaffolding``/``query_terms`` (a query's words), ``stem`` (a
  Latin word's light English stem, how the host's query terms meet a plural or another inflection),
  ``symbol_letters`` (the one-letter words a query writes as symbols, "what does Q mean": content terms),
  ``abbreviated_at`` (where a text writes a word short with its full stop: "temp." for "temperature"),
  ``defined_in``/``stand_ins``/``written_at`` (the acronyms a file's texts define, "定期安全评价（PSR）" or an
  abbreviation list's "PSR 定期安全评价"; a query's term and the other form a place may write it in; where it does),
  ``named_places``/``NamedPlace``/``without_places`` (the slides, pages and sheets a query names:
  "the notes on slide 2", "p. 12", "第二张幻灯片", "the Sales sheet"; and the query without them),
  ``asked_of_place`` (the query's other words a named place must hold to be cited there exactly),
  ``absent_words`` (the query's Chinese words, by the dictionary, of which a file holds no bigram: asked, lacked),
  ``lacked_words`` (the query's Chinese words a place does not hold as written: no exact claim without them),
  ``asked_term``/``names_term`` (the term a question asks the meaning of, "What is the oracle?", and a text naming it
  in prose, "which we call the oracle": its definition; ``keeps_setting``: whether a place moved to keeps the
  question's setting, "of aspirin"),
  ``unheld_modifiers`` (the query's Chinese modifiers a Latin place lacks, by every sense the dictionary gives),
  ``named_in_chinese`` (where a Chinese question names a Latin header, 淡水鸭 "Freshwater Ducks", by the dictionary),
  ``text_language`` (the language a text is written in by its script, kana telling Japanese from Chinese),
  ``without_file_description`` (the query without "of the duck survey deck": words saying which file),
  ``header_row``/``labelled_row``/``named_header``/``meant_header`` (a table's header, a row read as
  ``label: header: value``, and the row's cell under the header a question names, in words or by meaning),
  ``keyed_header`` (the cell under the one header naming a year, quarter, month or date the question names:
  "FY 2006" names "FY 2006 Actual"),
  ``asked_row`` (the data row a question matched on a table's header row asks about, by its other words),
  ``valued_row`` (else the data row holding a value under the header the question names),
  ``sym_char`` (a Word ``w:sym``, a form's ☐/☑ inserted from Wingdings, as the character quotes and the viewer
  show: the DOCX locator reads it), ``mostly_glyphs`` (a text that is mostly glyph soup, a figure's labels read
  through a font without letters: no place to cite), ``is_furniture`` (a line that is page furniture by its form:
  a journal's running header, "Corresponding author...", a copyright line; no place to cite),
  ``unreadable_layer``/``layer_quality`` (a PDF page's text layer that is mostly mojibake, a font without a
  usable Unicode map: a page for OCR to read, never to box),
  ``heading_lead`` (a heading that is only the query, quoted with the sentence after it),
  ``kind_answered`` (a place made approximate for lacking the kind of answer asked, a duration, moved to a cell of
  its record that holds it: its claim back; ``asked_again``: a place said to lack words of the question, moved
  so, is asked them again, nc28b's "berries" on the Berries row),
  ``value_mentions``/``ValueMention``/``same_value``/``without_dates`` (the dates and numbers a text names,
  compared as values: a question's "2024年1月7日" is a cell's ``2024-01-07 00:00:00``, "12,155" its 12155),
  the module ``docxnotes`` (a DOCX footnote or endnote read at its mark, `` [Footnote 1: ...]``, numbered
  as Word shows it: the DOCX locator and the managed engine read notes through it),
  the modules ``textmatch`` and ``textnorm`` themselves, and ``FileCache``/``Persist``/
  ``KeyedStore`` (a parsed model cached in memory and on disk by path + size + mtime), ``check_zip``
  (refuse a zip bomb or an oversized Office file before a library parses it: ``OverBudgetError``)
  and ``count_tags`` (an XML part's elements counted while streaming it, nothing kept).
* **Commands** (``register_commands``): ``emit_json`` (print a JSON result as every command
  does), ``progress_writer`` (progress lines to stderr as ``ingest`` prints them), ``repeating`` (a
  step's line said again every few seconds while one long part of it runs), ``Host`` (the
  workspace's registry and plugins), ``paths`` (the user's state, cache
  and config dirs), ``load_config``, ``find_workspace``/``MNOTE_DIR``, ``read_sidecar``/
  ``Sidecar``, ``counts_text``/``locator_text``/``source_card``/``card_split``/``weak_line`` (the CLI's human
  renderings: a search's whole cards and its lines for the weaker ones),
  ``exchange``/``ProtocolError`` (a plain HTTP/1.1 exchange on loopback).
* **Files and servers**: ``write_atomic``/``write_private`` (write a file whole or not at all;
  the second readable by the user only), ``GatedHTTPServer``/``GatedHandler``/``Limits`` (a
  loopback HTTP server with the host's header and body deadlines, bounded threads and 503 when
  full).

The hook markers, contracts and errors load with this module (a plugin's ``__init__`` imports
them); the rest loads on first use, so a plugin importing them inside its hooks keeps
``mnote-kr --help`` light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mnote_kr.context import ProviderContext
from mnote_kr.errors import (
    ConfigError,
    DocumentError,
    LocatorError,
    MnoteKrError,
    OverBudgetError,
    PluginError,
    ProviderBusyError,
    ProviderError,
    ProviderStoppedError,
    UsageError,
)
from mnote_kr.hookspecs import PROJECT_NAME, hookimpl, hookspec
from mnote_kr.models import (
    DocumentModel,
    EntryColumns,
    EntryUpdate,
    Highlight,
    LocateRequest,
    Locator,
    LocatorPrecision,
    MappedReference,
    ModelCell,
    ModelParagraph,
    ModelShape,
    ModelSheet,
    ModelSlide,
    PageSize,
    ProviderActivity,
    ProviderQueryResult,
    ProviderReference,
    ProviderStatus,
    QueryRequest,
    ReadingCheck,
    Rect,
    SidecarBlock,
    SidecarMeta,
    SidecarPosition,
    SourceEntry,
    SourceFile,
)

if TYPE_CHECKING:
    from mnote_kr.app.host import Host
    from mnote_kr.citations.caches.filecache import FileCache, KeyedStore, Persist
    from mnote_kr.citations.cleaning.copyable import mostly_glyphs
    from mnote_kr.citations.cleaning.furniture import is_furniture
    from mnote_kr.citations.cleaning.headlead import heading_lead
    from mnote_kr.citations.cleaning.textlayer import layer_quality, unreadable_layer
    from mnote_kr.citations.cleaning.wordsym import sym_char
    from mnote_kr.citations.locate import textmatch
    from mnote_kr.citations.locate.answertype import kind_answered
    from mnote_kr.citations.locate.lacking import asked_again
    from mnote_kr.citations.locate.otherscript import nearest_across as nearest_places_across
    from mnote_kr.citations.locate.placing import (
        locator_from_match,
        places_behind,
        queue_places,
        with_meaning,
        with_places_behind,
    )
    from mnote_kr.citations.locate.saidacross import said_shares
    from mnote_kr.citations.locate.textmatch import (
        THRESHOLD,
        Match,
        Scope,
        TextDocument,
        TextParagraph,
        match_evidence,
    )
    from mnote_kr.citations.locate.zipguard import budget_refusal, check_zip, count_tags
    from mnote_kr.citations.map.sidecar import Sidecar, read_sidecar
    from mnote_kr.citations.rank.meaning import embed_texts as embed_meaning
    from mnote_kr.citations.rank.meaning import nearest as nearest_places
    from mnote_kr.citations.rank.meaning import places_key
    from mnote_kr.citations.rank.meaning import queue as queue_texts
    from mnote_kr.citations.rank.meaning import rank as rank_by_meaning
    from mnote_kr.citations.rank.meaning import version as meaning_version
    from mnote_kr.citations.render.cards import card_split, locator_text, source_card, weak_line
    from mnote_kr.citations.render.ids import query_terms
    from mnote_kr.citations.render.statustext import counts_text
    from mnote_kr.citations.render.tablecells import keyed_header
    from mnote_kr.citations.text import crosslang, docxnotes, textnorm
    from mnote_kr.citations.text.abbrev import abbreviated_at
    from mnote_kr.citations.text.acronyms import defined_in, stand_ins, written_at
    from mnote_kr.citations.text.cjkwords import absent_words, lacked_words
    from mnote_kr.citations.text.crossmods import named_in_chinese, unheld_modifiers
    from mnote_kr.citations.text.definitions import asked_term, keeps_setting, names_term
    from mnote_kr.citations.text.languages import language as text_language
    from mnote_kr.citations.text.namedplaces import (
        NamedPlace,
        asked_of_place,
        named_places,
        without_file_description,
        without_places,
    )
    from mnote_kr.citations.text.queryterms import scaffolding, stem, symbol_letters
    from mnote_kr.citations.text.sections import (
        SectionRef,
        caption_of,
        cn_number,
        named_labels,
        named_sections,
        numbered_as,
        section_refs,
        without_sections,
    )
    from mnote_kr.citations.text.tablerows import (
        asked_row,
        header_row,
        labelled_row,
        meant_header,
        named_header,
        valued_row,
    )
    from mnote_kr.citations.text.textnorm import (
        iter_tokens,
        keeps_line_end_hyphen,
        lazy_compile,
        made_of,
        normalize,
        query_occurrences,
        query_standing,
    )
    from mnote_kr.citations.text.values import ValueMention, same_value, value_mentions, without_dates
    from mnote_kr.cli.boundary import emit_json
    from mnote_kr.cli.reports import progress_writer
    from mnote_kr.core import paths
    from mnote_kr.core.atomic import write_atomic, write_private
    from mnote_kr.core.config import load_config
    from mnote_kr.core.progresstext import repeating
    from mnote_kr.core.workspace import MNOTE_DIR, find_workspace
    from mnote_kr.plainhttp import ProtocolError, exchange
    from mnote_kr.server.conn import GatedHandler, GatedHTTPServer, Limits

#: Names loaded on first use: name -> (module, attribute; None for the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "textmatch": ("mnote_kr.citations.locate.textmatch", None),
    "textnorm": ("mnote_kr.citations.text.textnorm", None),
    "docxnotes": ("mnote_kr.citations.text.docxnotes", None),
    "crosslang": ("mnote_kr.citations.text.crosslang", None),
    "paths": ("mnote_kr.core.paths", None),
    **{n: ("mnote_kr.citations.locate.textmatch", n) for n in (
        "THRESHOLD", "Match", "Scope", "TextDocument", "TextParagraph", "match_evidence")},
    **{n: ("mnote_kr.citations.locate.placing", n) for n in ("locator_from_match", "places_behind", "queue_places",
                                                             "with_meaning", "with_places_behind")},
    **{n: ("mnote_kr.citations.text.textnorm", n) for n in (
        "iter_tokens", "keeps_line_end_hyphen", "lazy_compile", "made_of", "normalize", "query_occurrences",
        "query_standing")},
    **{n: ("mnote_kr.citations.caches.filecache", n) for n in ("FileCache", "KeyedStore", "Persist")},
    "query_terms": ("mnote_kr.citations.render.ids", "query_terms"),
    "places_key": ("mnote_kr.citations.rank.meaning", "places_key"),
    "nearest_places": ("mnote_kr.citations.rank.meaning", "nearest"),
    "nearest_places_across": ("mnote_kr.citations.locate.otherscript", "nearest_across"),
    "said_shares": ("mnote_kr.citations.locate.saidacross", "said_shares"),
    "embed_meaning": ("mnote_kr.citations.rank.meaning", "embed_texts"),
    "meaning_version": ("mnote_kr.citations.rank.meaning", "version"),
    "queue_texts": ("mnote_kr.citations.rank.meaning", "queue"),
    "rank_by_meaning": ("mnote_kr.citations.rank.meaning", "rank"),
    **{n: ("mnote_kr.citations.locate.zipguard", n) for n in ("budget_refusal", "check_zip", "count_tags")},
    **{n: ("mnote_kr.citations.text.queryterms", n) for n in ("scaffolding", "stem", "symbol_letters")},
    **{n: ("mnote_kr.citations.text.sections", n) for n in (
        "SectionRef", "caption_of", "cn_number", "named_labels", "named_sections", "numbered_as", "section_refs",
        "without_sections")},
    "abbreviated_at": ("mnote_kr.citations.text.abbrev", "abbreviated_at"),
    "absent_words": ("mnote_kr.citations.text.cjkwords", "absent_words"),
    "lacked_words": ("mnote_kr.citations.text.cjkwords", "lacked_words"),
    **{n: ("mnote_kr.citations.text.definitions", n) for n in ("asked_term", "keeps_setting", "names_term")},
    "unheld_modifiers": ("mnote_kr.citations.text.crossmods", "unheld_modifiers"),
    "named_in_chinese": ("mnote_kr.citations.text.crossmods", "named_in_chinese"),
    "text_language": ("mnote_kr.citations.text.languages", "language"),
    **{n: ("mnote_kr.citations.text.acronyms", n) for n in ("defined_in", "stand_ins", "written_at")},
    "mostly_glyphs": ("mnote_kr.citations.cleaning.copyable", "mostly_glyphs"),
    "sym_char": ("mnote_kr.citations.cleaning.wordsym", "sym_char"),
    "is_furniture": ("mnote_kr.citations.cleaning.furniture", "is_furniture"),
    "heading_lead": ("mnote_kr.citations.cleaning.headlead", "heading_lead"),
    "kind_answered": ("mnote_kr.citations.locate.answertype", "kind_answered"),
    "asked_again": ("mnote_kr.citations.locate.lacking", "asked_again"),
    "keyed_header": ("mnote_kr.citations.render.tablecells", "keyed_header"),
    **{n: ("mnote_kr.citations.cleaning.textlayer", n) for n in ("layer_quality", "unreadable_layer")},
    **{n: ("mnote_kr.citations.text.namedplaces", n) for n in ("NamedPlace", "asked_of_place",
                                                                "named_places", "without_file_description",
                                                                "without_places")},
    **{n: ("mnote_kr.citations.text.tablerows", n) for n in ("asked_row", "header_row", "labelled_row",
                                                             "meant_header", "named_header", "valued_row")},
    **{n: ("mnote_kr.citations.text.values", n) for n in ("ValueMention", "same_value", "value_mentions",
                                                          "without_dates")},
    **{n: ("mnote_kr.citations.render.cards", n) for n in ("card_split", "locator_text", "source_card",
                                                            "weak_line")},
    "counts_text": ("mnote_kr.citations.render.statustext", "counts_text"),
    **{n: ("mnote_kr.citations.map.sidecar", n) for n in ("Sidecar", "read_sidecar")},
    "emit_json": ("mnote_kr.cli.boundary", "emit_json"),
    "progress_writer": ("mnote_kr.cli.reports", "progress_writer"),
    "repeating": ("mnote_kr.core.progresstext", "repeating"),
    "load_config": ("mnote_kr.core.config", "load_config"),
    "Host": ("mnote_kr.app.host", "Host"),
    **{n: ("mnote_kr.core.workspace", n) for n in ("MNOTE_DIR", "find_workspace")},
    **{n: ("mnote_kr.plainhttp", n) for n in ("ProtocolError", "exchange")},
    **{n: ("mnote_kr.core.atomic", n) for n in ("write_atomic", "write_private")},
    **{n: ("mnote_kr.server.conn", n) for n in ("GatedHandler", "GatedHTTPServer", "Limits")},
}


def __getattr__(name: str) -> Any:
    # Not cached in this module's globals: a test that patches the defining module is seen here.
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (not part of the plugin API)")
    module = importlib.import_module(where[0])
    return module if where[1] is None else getattr(module, where[1])


def __dir__() -> list[str]:
    return __all__


__all__ = [
    "ConfigError",
    "DocumentError",
    "DocumentModel",
    "EntryColumns",
    "EntryUpdate",
    "FileCache",
    "GatedHTTPServer",
    "GatedHandler",
    "Highlight",
    "Host",
    "KeyedStore",
    "Limits",
    "LocateRequest",
    "Locator",
    "LocatorError",
    "LocatorPrecision",
    "MNOTE_DIR",
    "MappedReference",
    "Match",
    "MnoteKrError",
    "ModelCell",
    "ModelParagraph",
    "ModelShape",
    "ModelSheet",
    "ModelSlide",
    "NamedPlace",
    "OverBudgetError",
    "PROJECT_NAME",
    "PageSize",
    "Persist",
    "PluginError",
    "ProtocolError",
    "ProviderActivity",
    "ProviderBusyError",
    "ProviderContext",
    "ProviderError",
    "ProviderQueryResult",
    "ProviderReference",
    "ProviderStatus",
    "ProviderStoppedError",
    "QueryRequest",
    "ReadingCheck",
    "Rect",
    "Scope",
    "SectionRef",
    "Sidecar",
    "SidecarBlock",
    "SidecarMeta",
    "SidecarPosition",
    "SourceEntry",
    "SourceFile",
    "THRESHOLD",
    "TextDocument",
    "TextParagraph",
    "UsageError",
    "ValueMention",
    "abbreviated_at",
    "absent_words",
    "asked_again",
    "asked_of_place",
    "asked_row",
    "asked_term",
    "budget_refusal",
    "caption_of",
    "card_split",
    "check_zip",
    "cn_number",
    "count_tags",
    "counts_text",
    "crosslang",
    "defined_in",
    "docxnotes",
    "embed_meaning",
    "emit_json",
    "exchange",
    "find_workspace",
    "header_row",
    "heading_lead",
    "hookimpl",
    "hookspec",
    "is_furniture",
    "iter_tokens",
    "keeps_line_end_hyphen",
    "keeps_setting",
    "keyed_header",
    "kind_answered",
    "labelled_row",
    "lacked_words",
    "layer_quality",
    "lazy_compile",
    "load_config",
    "locator_from_match",
    "locator_text",
    "made_of",
    "match_evidence",
    "meaning_version",
    "meant_header",
    "mostly_glyphs",
    "named_header",
    "named_in_chinese",
    "named_labels",
    "named_places",
    "named_sections",
    "names_term",
    "nearest_places",
    "nearest_places_across",
    "normalize",
    "numbered_as",
    "paths",
    "places_behind",
    "places_key",
    "progress_writer",
    "query_occurrences",
    "query_standing",
    "query_terms",
    "queue_places",
    "queue_texts",
    "rank_by_meaning",
    "read_sidecar",
    "repeating",
    "said_shares",
    "same_value",
    "scaffolding",
    "section_refs",
    "source_card",
    "stand_ins",
    "stem",
    "sym_char",
    "symbol_letters",
    "text_language",
    "textmatch",
    "textnorm",
    "unheld_modifiers",
    "unreadable_layer",
    "value_mentions",
    "valued_row",
    "weak_line",
    "with_meaning",
    "with_places_behind",
    "without_dates",
    "without_file_description",
    "without_places",
    "without_sections",
    "write_atomic",
    "write_private",
    "written_at",
]
