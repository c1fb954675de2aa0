"""What cleared the weak flag of a search, and variants of the weak rule, for ``relevance_floor.py``.

:func:`cleared_by` names the part of ``noresults.weak_reason`` that left a search unflagged (its branches, in
its order); :data:`VARIANTS` are candidate rules, each read on the very citations ``weak_reason`` read in the
same run (every place the provider returned, before one card per file), so today's rule and a variant are
compared on one index. A variant mostly adds flags (weak in a case today's rule clears); ``first_script`` clears
some, and ``relevance_floor.py`` counts both ways.

* ``two_terms``: a word match needs two of the query's words in one passage. A search cleared by words alone
  is weak when the query has two words or more (numbers aside), no passage holds two of them, and no file
  name or verbatim phrase matched ("boiling point of mercury" cleared by a passage saying "point").
* ``names``: a name the query asks about must be somewhere. A search cleared by words alone is weak when the
  query holds a name (a Latin word capitalised after its first, or two capitals or more: "Kubernetes",
  "TLS") and no passage or file name holds any of its names.
* ``cjk_stop``: a Chinese query's function words are not its words (``noresults.content_words``: 什么, 多少 taken
  out, a bigram with 的, 是, 有 ... on either side none), so a passage holding only 的意 of "最好的意大利面酱配方是什么"
  does not clear it. ``first_script``: the across-scripts exemption reads the first citation's passage, not
  every passage (this one clears flags). ``cjk_stop+first_script``: both. Measured in the sixteenth round, none
  kept (docs/embeddings.md).
* ``library``: the rule with the library's word counts (``libwords``; ``noresults.library_common``), read from
  ``--library F`` (``libwords_offline.py`` builds it from the files ``relevance_floor.py`` ingests); without one,
  not replayed.
* ``common_words`` (a search cleared only by common English words: "back", "best", "time") and ``zh_meaning`` (a
  Chinese query cleared by one of its words, its first place not close in meaning) were measured in the
  eighteenth round, both together kept: they are the rule now (``noresults._saying_nothing``; docs/embeddings.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

import msgspec

from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render import noresults
from mnote_kr.models import Citation


def _text(c: Citation) -> str:
    """The passage as ``noresults`` reads it (a PDF's spaced CJK glyphs joined)."""
    return join_cjk_gaps(c.raw_quote or c.context_quote or c.display_quote or "")


def _name_terms(c: Citation) -> set[str]:
    return set(terms(PurePath(c.source_root_relative_path).stem.replace("_", " ")))


def cleared_by(citations: list[Citation], query: str) -> str:
    """``weak`` when ``weak_reason`` flags the search, else the part of the rule that cleared it:
    ``words: a, b`` (the query's terms some passage holds; ``file name`` when only a name matched),
    ``across scripts``, ``named place``, ``across languages: 淡水`` (the query's Chinese words the first place says in
    English: ``noresults.said_across``), ``no content word``, ``no citation``."""
    if noresults.weak_reason(citations, query) is not None:
        return "weak"
    if not citations:
        return "no citation"
    parts = [c.diagnostics.score_parts for c in citations]
    worded = any(p.get(k, 0.0) > 0.0 for p in parts for k in noresults._WORDS_PARTS)
    named = any(p.get("fileName", 0.0) > 0.0 for p in parts)
    if worded and (named or not noresults._numbers_only(set(terms(query)), citations)):
        asked = set(terms(query))
        held = sorted({t for c in citations for t in asked & set(terms(_text(c)))})
        return "words: " + ", ".join(held) if held else "words: file name"
    if noresults._across_scripts(query, citations):
        return "across scripts"
    if noresults._cited_where_named(query, citations):
        return "named place"
    if said := noresults.said_across(query, citations):
        return "across languages: " + ", ".join(said)
    return "no content word"


def _by_words(citations: list[Citation], query: str) -> bool:
    return cleared_by(citations, query).startswith("words")


def two_terms(citations: list[Citation], query: str) -> bool:
    """Weak by today's rule, or cleared by one of the query's words only (see the module's docstring)."""
    if noresults.weak_reason(citations, query) is not None:
        return True
    if not _by_words(citations, query):
        return False
    if any(c.diagnostics.score_parts.get(k, 0.0) > 0.0 for c in citations for k in ("fileName", "fileTerms", "phrase")):
        return False
    asked = {t for t in terms(query) if not t.isdigit()}
    return len(asked) >= 2 and all(len(asked & set(terms(_text(c)))) < 2 for c in citations)


_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def query_names(query: str) -> list[str]:
    """The Latin words of ``query`` written as names: capitalised after its first word, or two capitals or more."""
    words = _LATIN.findall(query)
    return [w for i, w in enumerate(words)
            if sum(ch.isupper() for ch in w) >= 2 or (i > 0 and w[0].isupper() and w != "I")]


def names(citations: list[Citation], query: str) -> bool:
    """Weak by today's rule, or cleared by words while none of the query's names is found (module docstring)."""
    if noresults.weak_reason(citations, query) is not None:
        return True
    asked = {t for n in query_names(query) for t in terms(n)}
    if not asked or not _by_words(citations, query):
        return False
    return not any(asked & (set(terms(_text(c))) | _name_terms(c)) for c in citations)


def cjk_stop(citations: list[Citation], query: str) -> bool:
    """The rule with a Chinese query's function words left out of its words (``noresults.content_words``)."""
    return noresults._weak(citations, query, cjk_stop=True, first_script=False) is not None


def first_script(citations: list[Citation], query: str) -> bool:
    """The rule with the across-scripts exemption read on the first citation's passage, not every passage."""
    return noresults._weak(citations, query, cjk_stop=False, first_script=True) is not None


def cjk_stop_first_script(citations: list[Citation], query: str) -> bool:
    return noresults._weak(citations, query, cjk_stop=True, first_script=True) is not None


VARIANTS: dict[str, Callable[[list[Citation], str], bool]] = {
    "two_terms": two_terms, "names": names, "cjk_stop": cjk_stop, "first_script": first_script,
    "cjk_stop+first_script": cjk_stop_first_script}


def with_library(library: Any) -> Callable[[list[Citation], str], bool]:
    """The rule as this code reads it, given the library's word counts (a ``libwords.LibraryWords``)."""
    return lambda cs, q: noresults.weak_reason(cs, q, lambda: library) is not None


def _without(library: Any, module: str, *flags: str) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with the rule switches ``flags`` of ``mnote_kr.citations.render.<module>`` off (each back to
    what it was after every call): the rule before them, in one run."""
    import importlib

    mod = importlib.import_module(f"mnote_kr.citations.render.{module}")

    def rule(cs: list[Citation], q: str) -> bool:
        was = {f: getattr(mod, f) for f in flags}
        for f in flags:
            setattr(mod, f, False)
        try:
            return noresults.weak_reason(cs, q, lambda: library) is not None
        finally:
            for f, v in was.items():
                setattr(mod, f, v)
    return rule


def without_names(library: Any) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with ``weakmore.names_only`` off (``weakmore.NAMES_ONLY``)."""
    return _without(library, "weakmore", "NAMES_ONLY")


def without_absent(library: Any) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with ``weakabsent``'s rules off (``DECLINED``: the cards shown all say they only name the
    subject; ``ABSENT``: a name the query asks about that no file holds)."""
    return _without(library, "weakabsent", "DECLINED", "ABSENT")


def without_script(library: Any) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with ``weakscript.across_reason`` off (``ACROSS_SCRIPT``: a Latin query's thin match while a
    file in another script is found as close in meaning)."""
    return _without(library, "weakscript", "ACROSS_SCRIPT")


def without_units(library: Any) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with ``weakunits.unit_reason`` off (``UNITS``: a question asking a voltage, a current ... whose
    places state none)."""
    return _without(library, "weakunits", "UNITS")


def without_any_script(library: Any) -> Callable[[list[Citation], str], bool]:
    """``with_library`` with scripts read as Han against Latin only (``weakacross.ANY_SCRIPT`` off: a Russian, Korean
    or Persian passage read as Latin, the rule before round 29)."""
    return _without(library, "weakacross", "ANY_SCRIPT")


def stands_out_at(value: float | None) -> Callable[[list[Citation], str], bool]:
    """The rule with ``weakacross.STANDS_OUT`` at ``value`` (None: off): ``--stands-out``, its boundary measured."""
    from mnote_kr.citations.render import weakacross

    def rule(cs: list[Citation], q: str) -> bool:
        saved = weakacross.STANDS_OUT
        weakacross.STANDS_OUT = value
        try:
            return noresults.weak_reason(cs, q) is not None
        finally:
            weakacross.STANDS_OUT = saved
    return rule


def replay(dump: dict[str, Any], groups: dict[str, list[str]],
           extra: dict[str, Callable[[list[Citation], str], bool]] | None = None) -> dict[str, dict[str, list[str]]]:
    """The rule as the run applied it (``today``: its recorded flags), the rule as this code reads it (``rule``)
    and every variant, on the places a ``relevance_floor.py --dump`` run kept (``read``), with no engine: per
    rule, per group, the keys flagged weak."""
    cited = {k: [msgspec.convert(c, Citation) for c in dump[k]["read"]] for keys in groups.values() for k in keys}
    out = {"today": {g: [k for k in keys if dump[k]["weak"]] for g, keys in groups.items()}}
    rules = {"rule": lambda cs, q: noresults.weak_reason(cs, q) is not None, **VARIANTS, **(extra or {})}
    return out | {name: {g: [k for k in keys if rule(cited[k], dump[k]["q"])] for g, keys in groups.items()}
                  for name, rule in rules.items()}


def _first_right(dump: dict[str, Any], docs: dict[str, str], group: list[str],
                 keys: list[str]) -> tuple[int, int, int, int]:
    """(flagged with the labelled file first, labelled file first, flagged with another file first, another first)
    among the labelled searches ``keys`` (those the rule flagged) of a ``group``: a flag on a right first file is a
    false weak, one on a wrong first file a right one."""
    def right(k: str) -> bool:
        files = dump[k]["files"]
        return bool(files) and PurePath(files[0]).name == PurePath(docs[k]).name
    return (sum(right(k) for k in keys), sum(right(k) for k in group), sum(not right(k) for k in keys),
            sum(not right(k) for k in group))


def is_held_out(group: str) -> bool:
    """Whether ``group`` is a held-out set, never tuned on: any labelled set named ``heldout...`` (the old
    ``heldout`` too: round 29 printed its questions' ids, review30) and the held-out off-topic queries."""
    return group.startswith("heldout") or group == "off-topic held out"


def summary_lines(flagged: dict[str, dict[str, list[str]]], groups: dict[str, list[str]],
                  right: Callable[[str, list[str]], tuple[int, int, int, int] | None] = lambda g, keys: None,
                  ) -> list[str]:
    """A line per variant and group: its weak count beside today's and the searches it newly flags or clears,
    by id for a tuning group, counted only for a held-out one (:func:`is_held_out`); ``right``: how many of the
    flagged had the labelled file first (:func:`_first_right`), for groups it knows."""
    lines = []
    for name, by_group in flagged.items():
        for g, keys in by_group.items():
            new = sorted(set(keys) - set(flagged["today"][g]))
            gone = sorted(set(flagged["today"][g]) - set(keys))
            ids = not is_held_out(g)
            first = right(g, keys)
            lines.append(f"{name}, {g}: weak {len(keys)}/{len(groups[g])} (today {len(flagged['today'][g])})"
                         + ("" if name == "today" else f", newly weak {len(new)}{' ' + str(new) if ids else ''}"
                            f", newly cleared {len(gone)}{' ' + str(gone) if ids else ''}")
                         + ("" if first is None else f"; of them first file right {first[0]}/{first[1]}, wrong "
                            f"{first[2]}/{first[3]}"))
    return lines


def main() -> int:
    """``weak_variants.py --dump F``: each variant's counts on a ``relevance_floor.py --dump`` run's places, per
    tuning group (the off-topic tuning queries, those with numbers, each labelled tuning set), beside today's rule.
    The held-out groups (``offtopic_heldout``, every set named ``heldout...``: :func:`is_held_out`) are counted only
    with ``--held-out``, and their searches never named."""
    import argparse
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from retrieval_labels import load_sets

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0] if main.__doc__ else None)
    parser.add_argument("--dump", type=Path, required=True)
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--library", type=Path, help="the library's word counts (libwords_offline.py --out)")
    parser.add_argument("--stands-out", default="", metavar="V,V", help="weakacross.STANDS_OUT settings to replay "
                        "beside today's ('none': off)")
    args = parser.parse_args()
    dump = json.loads(args.dump.read_text(encoding="utf-8"))
    _, sets = load_sets()
    libw = json.loads((Path(__file__).resolve().parent / "offtopic_libwords.json").read_text(encoding="utf-8"))
    named = json.loads((Path(__file__).resolve().parent / "offtopic_names.json").read_text(encoding="utf-8"))
    groups = {"off-topic": [k for k in dump
                            if k.startswith("off") and not k.startswith(("offh", "offn", "offl", "offm"))],
              "off-topic numbers": [k for k in dump if k.startswith("offn")],
              "off-topic library words": [k for k in dump if k.startswith("offl")],
              "library words": [q["id"] for q in libw["labelled"]],
              "off-topic names": [k for k in dump if k.startswith("offm")],
              "names": [q["id"] for q in named["labelled"]],
              **{n: [q["id"] for q in qs] for n, qs in sets.items() if not is_held_out(n)}}
    if args.held_out:
        groups |= {"off-topic held out": [k for k in dump if k.startswith("offh")],
                   **{n: [q["id"] for q in qs] for n, qs in sets.items() if is_held_out(n)}}
    # a set whose files the run did not ingest (a set added after it) has no searches in the dump
    absent = [g for g, keys in groups.items() if not any(k in dump for k in keys)]
    if absent:
        print(f"not in the dump (skipped): {', '.join(absent)}")
    groups = {g: [k for k in keys if k in dump] for g, keys in groups.items() if g not in absent}
    extra = {}
    if args.library:
        from mnote_kr.citations.caches import libwords

        lib = libwords.load_file(args.library)
        if lib is None:
            print(f"not a library word count file: {args.library}", file=sys.stderr)
            return 2
        extra["library"] = with_library(lib)
        extra["library without names_only"] = without_names(lib)
        extra["library without weakabsent"] = without_absent(lib)
        extra["library without weakscript"] = without_script(lib)
        extra["library without any script"] = without_any_script(lib)
        extra["library without units"] = without_units(lib)
        extra["library without place words"] = _without(lib, "weakmore", "PLACE_WORDS")
        extra["library without numberless"] = _without(lib, "weakunits", "NUMBERLESS")
    docs = {q["id"]: q["doc"] for qs in sets.values() for q in qs if "doc" in q}
    docs_groups = {g for g, keys in groups.items() if keys and all(k in docs for k in keys)}
    for v in filter(None, args.stands_out.split(",")):
        extra[f"stands_out {v}"] = stands_out_at(None if v == "none" else float(v))
    print("\n".join(summary_lines(replay(dump, groups, extra), groups, lambda g, keys: _first_right(
        dump, docs, groups[g], keys) if g in docs_groups else None)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
