"""Human-readable output: source cards and status. JSON output never goes through here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mnote_kr.citations.rank.wordsonly import sync_lines as words_only_lines
from mnote_kr.citations.render.alsoasked import also_searched
from mnote_kr.citations.render.excerpt import excerpt
from mnote_kr.citations.render.noresults import more_left_behind, more_skipped
from mnote_kr.citations.render.precision import paragraph_number, precision_words, review_comment
from mnote_kr.citations.render.strength import by_strength
from mnote_kr.core.pending import CHANGED_SINCE_INDEXED, MISSING_SINCE_INDEXED
from mnote_kr.core.readings import status_lines, sync_lines
from mnote_kr.core.workspace import rules_text
from mnote_kr.models import (
    AgentQueryResult,
    Citation,
    IngestReport,
    IssuedQuote,
    Locator,
    NotIndexed,
    OpenPlan,
    Place,
    SearchResults,
)


def office_place(loc: Locator) -> str | None:
    """A slide or cell locator in words: ``slide 3, shape 4 "Rectangle 3", paragraph 1``, ``slide 2 notes``,
    ``slide 3, review comment (Jane Smith)`` (no shape holds it), ``slide 3`` (no shape known),
    ``cells Sheet1!C12 (row "Revenue", header "2023")``; None for other precisions."""
    if loc.locator_precision == "slide" and loc.slide is not None:
        if loc.speaker_notes:
            return f"slide {loc.slide} notes"
        if loc.shape_id is None:  # never "shape None": a comment, or a slide with no shape named
            comment = review_comment(loc)
            return f"slide {loc.slide}" + (f", {comment}" if comment else "")
        para = f", paragraph {paragraph_number(loc.paragraph_index)}" if loc.paragraph_index is not None else ""
        name = f' "{loc.shape_name}"' if loc.shape_name else ""
        return f"slide {loc.slide}, shape {loc.shape_id}{name}{para}"
    if loc.locator_precision == "cell" and loc.sheet is not None:
        extra = [f'row "{loc.row_label}"'] if loc.row_label else []
        extra += [f'header "{", ".join(h for h in loc.headers if h)}"'] if any(loc.headers) else []
        return f"cells {loc.sheet}!{loc.range}" + (f" ({', '.join(extra)})" if extra else "")
    return None


def locator_text(loc: Locator, *, numbers: bool = True) -> str:
    """A locator in words, "approximate" only when it is degraded (one rule: ``citations.precision``),
    with the numbers a person can check: ``exact box, p.6 at (317, 223)-(556, 261) pt``,
    ``paragraph 13, characters 0-67`` (paragraphs counted from 1, named once: the word, the number,
    then ``(approximate)`` when the place is, and then no characters: nc18c read ``characters 8-11`` as precise),
    ``whole file (page 5 known, place not found)``. ``numbers=False``: without box corners and characters."""
    words = precision_words(loc)
    if loc.locator_precision in ("slide", "cell"):
        words = office_place(loc) or words
        return words + (" (approximate)" if loc.locator_degraded and "approximate" not in words else "")
    if loc.locator_precision == "bbox" and loc.page is not None:
        words += f", p.{loc.page}"
        if numbers and loc.bbox and len(loc.bbox) == 4:
            x0, y0, x1, y1 = loc.bbox
            words += f" at ({x0:g}, {y0:g})-({x1:g}, {y1:g}) {loc.bbox_unit} from the {loc.bbox_origin}"
    elif loc.locator_precision == "paragraph" and loc.paragraph_index is not None:
        approx = " (approximate)" if loc.locator_degraded else ""
        words = f"paragraph {paragraph_number(loc.paragraph_index)}{approx}"
        if numbers and loc.highlight is not None and not approx:  # on a guessed place a range looked precise
            words += f", characters {loc.highlight.start}-{loc.highlight.end}"
    return words


def _place_words(c: Citation | Place) -> str:
    return locator_text(c.locator, numbers=False)


#: Characters of a quote ``open`` prints for each search that printed the ID (``--json`` has them whole).
OPEN_QUOTE_CHARS = 300


def _issue_words(issue: IssuedQuote) -> str:
    when = f" ({issue.issued_at})" if issue.issued_at else ""
    quote = " ".join((issue.display_quote or "").split())
    quote = quote if len(quote) <= OPEN_QUOTE_CHARS else quote[:OPEN_QUOTE_CHARS - 1].rstrip() + "…"
    return f"search {issue.search_query!r}{when}: " + (quote or "(no quote)")


def render_open(plan: OpenPlan) -> str:
    """``mnote-kr open`` for people: the citation, file and kind, the place in the source cards' words
    (``passage box (approximate), p.4 at ...``), the citation URL after ``link:``, then the quote and the
    search it came from. The URL's ``paragraph=`` is the contract's ``paragraphIndex``, counted from 0; printed
    under a paragraph counted from 1, the line says so (a newcomer read ``paragraph 177`` above ``paragraph=176``
    as a mistake). An ID names a place and several searches may have printed it, each with its own quote: the
    latest's comes first and says so, the earlier ones follow (``OpenPlan.issues``)."""
    moved = f"\nmoved from {plan.moved_from}: {plan.note}" if plan.moved_from else f"\n{plan.note}" if plan.note else ""
    link = f"link: {plan.citation_url}"
    index = plan.locator.paragraph_index if plan.locator.locator_precision == "paragraph" else None
    if index is not None and f"paragraph={index}" in plan.citation_url:
        link += f"  (its paragraph={index} counts from 0: it is paragraph {paragraph_number(index)} counted from 1)"
    issues = plan.issues or ([IssuedQuote(search_query=plan.open_action.search_query,
                                          display_quote=plan.open_action.display_quote)]
                             if plan.open_action.search_query else [])
    said = ""
    if len(issues) == 1:
        said = f"\nquote from {_issue_words(issues[0])}"
    elif issues:
        said = (f"\nquote from the latest of {len(issues)} searches that printed {plan.citation_id}, "
                f"{_issue_words(issues[0])}" + "".join(f"\n  earlier, {_issue_words(i)}" for i in issues[1:]))
    head = f"{plan.citation_id} {plan.resource_path} [{plan.resource_kind}] {locator_text(plan.locator)}"
    return f"{head}\n{link}{moved}{said}"


def source_card(c: Citation) -> str:
    name = c.source_root_relative_path
    lines = [f"{c.citation_id} {name}"]
    lines.append(f"    located: {_place_words(c)}")
    if c.heading_path:
        lines.append("    heading: " + " > ".join(c.heading_path))
    quote = excerpt((c.display_quote or "").replace("\n", " "), c.search_query)
    lines.append(f"    quote:   {quote}")
    # The file's next places, under its first: each with its own ID, precision and place.
    for n, alt in enumerate(c.alternatives, 2):
        lines.append(f"    also #{n}: {alt.citation_id} {_place_words(alt)}")
        lines.append(f"             {excerpt((alt.display_quote or '').replace(chr(10), ' '), c.search_query, 160)}")
    return "\n".join(lines)


def weak_line(reason: str | None) -> str:
    """The weak-result warning, said before the cards."""
    return f"Weak result: {reason}." if reason else ""


def render_search(result: SearchResults) -> str:
    out = [weak_line(result.weak_reason)] if result.weak and result.results else []
    # before the cards: a file the query names that cannot be cited is easy to miss after six cards
    out += _not_indexed_lines(result.not_indexed)
    diagnostics = result.diagnostics if isinstance(result.diagnostics, dict) else {}
    out += filter(None, [more_left_behind(diagnostics), more_skipped(diagnostics)])
    out += _cards(result.results, weak=result.weak)
    out += filter(None, [also_searched(diagnostics, result.results)])  # a translation's file among them
    if not out:
        why = diagnostics.get("noResults")
        message = why.get("message") if isinstance(why, dict) else None
        out.append(f"No citable results: {message}." if message else "No citable results.")
    reranked = diagnostics.get("placeRerank")
    if isinstance(reranked, dict) and reranked.get("error"):
        out.append(f"note: places are in the local order: the reranker gave no ranking ({reranked['error']})")
    return "\n".join(out)


#: Characters of the short quote each result of a weak search gets on its one line.
WEAK_QUOTE_CHARS = 80


def _cards(cards: list[Citation], keep: str = "", *, weak: bool = False) -> list[str]:
    """Source cards: those :func:`~mnote_kr.citations.render.strength.by_strength` keeps whole (and any whose
    ID ``keep``, an answer, cites), then the weaker ones one line each. ``weak`` (nothing seems to answer,
    said on the line before): every card not cited is one line, with a short quote to judge it by."""
    whole, short = by_strength(cards, weak=weak)
    cited = [c for c in short if keep and c.citation_id in keep]
    short = [c for c in short if c not in cited]
    out = [source_card(c) for c in cards if c in whole or c in cited]
    if short and weak:
        out.append("Nearest by meaning, one line each ('mnote-kr open ID' shows one whole, --json quotes them all):")
        out += [f"  {c.citation_id} {c.source_root_relative_path}: {_place_words(c)}  \"{_short_quote(c)}\""
                for c in short]
    elif short:
        out.append("Weaker matches (nearest by meaning; 'mnote-kr open ID' shows one, --json quotes them):")
        out += [f"  {c.citation_id} {c.source_root_relative_path}: {_place_words(c)}" for c in short]
    return out


def _short_quote(c: Citation) -> str:
    quote = " ".join((c.display_quote or "").split())
    return quote if len(quote) <= WEAK_QUOTE_CHARS else quote[:WEAK_QUOTE_CHARS - 1].rstrip() + "…"


#: Files skipped for their type that a search's text names one by one before the cards (``--json``: all it lists).
SKIPPED_LINES = 3
#: States whose reason says it all ("not indexed" is said before it; a deleted file's reason says so).
_REASON_ONLY = frozenset({"not_indexed", "delete_submitted", "delete_completed"})


def not_indexed_text(ni: NotIndexed) -> str:
    """Why a file cannot be cited, in words: ``stale: content changed on disk`` (the CLI and the
    search page say the same; ``--json`` keeps the status as it is)."""
    return ("" if ni.status in _REASON_ONLY else ni.status.replace("_", " ") + ": ") + ni.reason


_SINCE_INDEXED = (CHANGED_SINCE_INDEXED, MISSING_SINCE_INDEXED)


def _not_indexed_lines(items: list[NotIndexed]) -> list[str]:
    """One line per file that cannot be cited; the status in words ("not indexed" is said once). A file
    changed or gone since it was indexed says so first: ``changed since indexed: FILE: run 'mnote-kr sync'``.
    Past ``SKIPPED_LINES`` files skipped for their type, one line counts the rest: a folder of archives
    must not push the cards off the screen."""
    skipped = [ni for ni in items if ni.status == "skipped"][SKIPPED_LINES:]
    lines = []
    for ni in items:
        if ni in skipped:
            continue
        since = next((p for p in _SINCE_INDEXED if ni.reason.startswith(p + ": ")), None)
        lines.append(f"{since}: {ni.source_path}: {ni.reason[len(since) + 2:]}" if since
                     else f"not indexed: {ni.source_path} ({not_indexed_text(ni)})")
    if skipped:
        lines.append(f"not indexed: {len(skipped)} more file(s) skipped for their type ('--json' lists them, "
                     "'mnote-kr status' names them)")
    return lines


def render_answer(result: AgentQueryResult) -> str:
    if result.answer is not None:
        out = [result.answer, *(f"note: {n}" for n in result.notes)]  # a weak result is one of them
    else:  # the notes say why first (no LLM configured, and how to configure one), then the citations
        out = ["No answer" + (":" if result.notes else "."), *(f"  {n}" for n in result.notes)]
    out += _not_indexed_lines(result.not_indexed)  # before the cards, as search's
    out += ["", *_cards(result.citations, keep=result.answer or "", weak=result.weak)]
    return "\n".join(out)


def _queue(rerank: dict[str, Any]) -> Any:
    queue = rerank.get("queue", rerank.get("queueAvailable"))
    if isinstance(queue, dict) and set(queue) == {"available"}:
        return "available" if queue["available"] else "unavailable"
    return queue


def _rerank_text(rr: dict[str, Any]) -> str:
    """LightRAG's rerank state in words: ``disabled`` or ``enabled (binding cohere, model m, queue available)``.

    A disabled rerank has no binding, model or queue worth reading ("queue unavailable" only
    restated that it is off)."""
    if not rr.get("enabled"):
        return "disabled"
    details = [f"{label} {value}" for label, value in
               (("binding", rr.get("binding")), ("model", rr.get("model")), ("queue", _queue(rr)))
               if value not in (None, "", "null")]
    return f"enabled ({', '.join(details)})" if details else "enabled"


def counts_text(counts: dict[str, Any]) -> str:
    """``{"processed": 3, "failed": 1}`` as people read it: ``3 processed, 1 failed``."""
    return ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in counts.items())


#: Queued actions ``status`` names one by one (``--json`` lists every one).
WAITING_SHOWN = 20
#: Files passed over for their type that ``status`` names one by one (``--json``: the first 50).
SKIPPED_SHOWN = 20
_BUSY = re.compile(r"\bis busy\b")
#: What reasons recorded by older versions ended with: ``status`` itself prints them.
_SEE_STATUS = "; 'mnote-kr status' lists failures"


def waiting_reason(last_error: str | None, provider: Mapping[str, Any]) -> str | None:
    """Why a queued action waits, as ``status`` says it (the MCP status tool too): its recorded error, and
    for a busy refusal while ``provider`` (status's part) is idle now, that the next sync retries it."""
    if last_error and _BUSY.search(last_error) and provider.get("reachable") is not False \
            and provider.get("pipelineBusy") is False:  # recorded when it was tried; LightRAG has gone idle since
        detail = last_error.removeprefix("LightRAG is busy: ")
        return (f"LightRAG was busy when it was last tried ({detail}); it is idle now, so the next "
                "'mnote-kr sync' retries it")
    return last_error or None


def _apart(by_status: dict[str, int], followed: int) -> dict[str, int]:
    """``byStatus`` for the headline: the old records of moves followed (stale in the registry, their files
    cited under the new path) counted apart from the stale files (nc18b: "3 stale" for two renames and a
    delete made three files look broken)."""
    counts = dict(by_status)
    followed = min(followed, counts.get("stale", 0))
    if followed:
        counts["stale"] -= followed
        if not counts["stale"]:
            del counts["stale"]
        counts["moved and followed"] = followed
    return counts


def render_status(info: dict[str, Any]) -> str:
    reg = info["registry"]
    prov = info.get("provider", {})
    by_status = counts_text(_apart(reg["byStatus"], reg.get("movedFollowed") or 0)) if reg.get("byStatus") else ""
    lines = [f"Workspace: {info['workspace']}",
             f"Registry:  {reg['entries']} entries" + (f" ({by_status})" if by_status else "")]
    behind = reg.get("behind")
    if behind:  # LightRAG is done with them, the registry has not heard: sync asks
        late = behind["paths"][0] + (f" and {behind['count'] - 1} more" if behind["count"] > 1 else "")
        lines.append(f"Behind:    {behind['count']} file(s) still recorded as being indexed ({late}), while "
                     "LightRAG is idle and done with every document: 'mnote-kr sync' brings the registry up to date")
    roots = info.get("indexedRoots")
    if roots == []:
        lines.append("Roots:     none (add a folder with 'mnote-kr roots add FOLDER')")
    elif roots:
        lines.append("Roots:     " + ", ".join(f"{r.get('rootRelativePath') or '.'} " + rules_text(
            r.get("recursive", True), r.get("runOnChange", True), r.get("excludePatterns") or []) for r in roots))
    new = info.get("pendingNew") or {}
    if new.get("count"):  # in the roots, never ingested: what indexes them
        fixes = ", ".join(f"'{part['fix']}'" for part in new.get("byRoot") or [])
        paths = new.get("paths") or []
        named = ", ".join(paths[:5]) + (f" and {new['count'] - 5} more" if new["count"] > 5 else "")
        lines.append(f"New:       {new['count']} file(s) in the roots not indexed yet"
                     + (f": {named}" if paths else "") + (f"; {fixes} indexes them" if fixes else ""))
    for key, label, what in (("changedSinceIndexed", "Changed:", "changed on disk since indexed"),
                             ("missingSinceIndexed", "Missing:", "deleted, moved or renamed on disk since indexed")):
        part = info.get(key) or {}
        if part.get("count"):  # no sync has seen them yet; a search warns of the same files
            more = f" and {part['count'] - 5} more" if part["count"] > 5 else ""
            lines.append(f"{label:<11}{part['count']} file(s) {what}: {', '.join(part['paths'][:5])}{more}; "
                         f"{part.get('fix', 'mnote-kr sync')}")
    waiting = reg.get("waiting") or []
    if waiting:
        lines.append(f"Waiting:   {len(waiting)} queued action(s) ('mnote-kr sync --wait 60' finishes them)")
    for note in waiting[:WAITING_SHOWN]:  # each by name, with why it waits
        why = waiting_reason(note.get("lastError"), prov)
        lines.append(f"           {note['action']} {note['sourcePath']}" + (f": {why}" if why else ""))
    if len(waiting) > WAITING_SHOWN:
        lines.append(f"           (and {len(waiting) - WAITING_SHOWN} more; '--json' lists all)")
    for failed in reg.get("failed", []):
        lines.append(f"Failed:    {failed['sourcePath']}: {str(failed['reason']).removesuffix(_SEE_STATUS)}")
    for refused in reg.get("refused", []):
        lines.append(f"Refused:   {refused['sourcePath']}: {refused['reason']}")
    for note in reg.get("fallbacks", []):
        lines.append(f"Fallback:  {note['sourcePath']}: {note['reason']}")
    for name, section in (info.get("readers") or {}).items():
        label = (name.upper() if len(name) <= 4 else name.capitalize()) + ":"
        lines.append(f"{label:<11}{section.get('summary', '')}")
        for failed in section.get("failed") or []:
            lines.append(f"           failed: {failed['sourcePath']}: {failed['reason']}")
        for note in section.get("unreadable") or []:
            lines.append(f"           {note['sourcePath']}: {note['reason']}")
    stale = reg.get("staleEntries") or []
    moved = [n for n in stale if str(n.get("reason", "")).startswith("moved to ")]
    for note in moved:  # a rename followed: nothing to repair, only the old path's record left
        lines.append(f"Moved:     {note['sourcePath']} -> {note['reason'][len('moved to '):]}")
    if moved:
        more = (reg.get("movedFollowed") or 0) - len(moved)
        lines.append("           (" + (f"and {more} more; " if more > 0 else "")
                     + "followed: cited under the new path; 'mnote-kr prune' drops the old records)")
    for note in (n for n in stale if n not in moved):
        lines.append(f"Stale:     {note['sourcePath']}: {note['reason']}")
    really = reg.get("stale", 0) - max(reg.get("movedFollowed") or 0, len(moved))  # stale, not a move followed
    if really > 0:
        left = really - (len(stale) - len(moved))
        more = f"{left} more stale; " if left > 0 else ""
        lines.append(f"           ({more}not cited; 'mnote-kr ingest FILE' re-indexes a changed file or adds one back,"
                     " 'mnote-kr prune' drops the records)")
    behind = info.get("leftBehind") or {}
    for note in behind.get("files") or []:  # roots added with --no-follow: what they did not index
        lines.append(f"Not indexed: {note['sourcePath']}: {note['reason']}; {note['fix']}")
    if behind.get("count", 0) > len(behind.get("files") or []):
        lines.append(f"           (and {behind['count'] - len(behind['files'])} more left behind; '--json' lists 50)")
    lines += status_lines(info.get("readings"))  # indexed by an older reading, with the command that re-reads
    skipped = info.get("skipped") or {}
    for note in (skipped.get("files") or [])[:SKIPPED_SHOWN]:  # no provider indexes the type: never sent
        lines.append(f"Skipped:   {note['sourcePath']}: {note['reason']}")
    if skipped.get("count", 0) > min(SKIPPED_SHOWN, len(skipped.get("files") or [])):
        lines.append(f"           (and {skipped['count'] - min(SKIPPED_SHOWN, len(skipped['files']))} more skipped "
                     "for their type; '--json' lists 50)")
    dups = reg.get("duplicateEntries") or []
    for note in dups:
        lines.append(f"Duplicate: {note['sourcePath']}: {note['reason']}")
    n_dups = (reg.get("byStatus") or {}).get("duplicate", 0)
    if n_dups > len(dups):
        lines.append(f"           (and {n_dups - len(dups)} more duplicate(s))")
    if prov.get("notStarted"):  # nothing indexed yet, and status did not start it
        lines.append(f"Provider:  {prov.get('provider') or prov.get('name')}: not started: {prov['notStarted']}")
    elif prov.get("reachable") is False:
        lines.append(f"Provider:  {prov.get('name', prov.get('provider'))}: DOWN: {prov.get('error')}")
    else:
        busy = {True: " (busy indexing)", False: " (idle)"}.get(prov.get("pipelineBusy"), "")
        version = f" {prov['coreVersion']}" if prov.get("coreVersion") else ""
        lines.append(f"Provider:  {prov.get('provider')}{version} at {prov.get('url')}{busy}")
        if prov.get("error"):  # reachable but refusing, e.g. a wrong API key
            lines.append(f"Problem:   {prov['error']}")
        lines.append(f"Models:    language model {prov.get('llmModel') or 'not reported'},"
                     f" embedding {prov.get('embeddingModel') or 'not reported'}")
        lines.append("Rerank:    " + _rerank_text(prov.get("rerank") or {}))
        if prov.get("documentsByStatus"):
            docs = dict(prov["documentsByStatus"])
            total = docs.pop("all", None)
            shown = counts_text({k: n for k, n in docs.items() if n}) or "none"
            lines.append(f"Documents: {shown}" + (f" ({total} in all)" if total is not None else ""))
        if prov.get("unmapped"):
            lines.append(f"Unmapped:  {len(prov['unmapped'])} provider document(s) match no registry entry")
    meant = info.get("meaning") or {}
    if meant:
        lines.append("Places:    " + (meant.get("problem") or f"by words and meaning ({meant.get('model')}), "
                                      f"vectors of {meant.get('files', 0)} set(s) of places (one per file "
                                      "version, a PDF's recognised pages one more) kept in one store for every "
                                      "workspace")
                     + (f"; {meant['embedding']}" if meant.get("embedding") else ""))
        lost = meant.get("wordsOnly") or {}
        if lost.get("count"):  # their places changed since they were embedded (a new reading, a new layout)
            lines.append(f"Places:    {lost['count']} indexed file(s) placed by words only, e.g. {lost['paths'][0]}, "
                         f"until '{lost['command']}' embeds their places")
    reranker = info.get("placeRerank") or {}
    if reranker.get("enabled"):
        lines.append(f"Reranker:  places of each file reranked by {reranker.get('model')} at {reranker.get('url')}")
    elif reranker.get("problem"):
        lines.append(f"Reranker:  off: {reranker['problem']}")
    for setting in prov.get("settings") or []:
        lines.append(f"Setting:   {setting}")
    for warning in prov.get("warnings") or []:
        lines.append(f"Warning:   {warning}")
    for failed in info.get("plugins", {}).get("failed", []):
        lines.append(f"Plugin failed: {failed['name']}: {failed['error']}")
    return "\n".join(lines)


def render_ingest(report: IngestReport) -> str:
    """``mnote-kr ingest`` for people: a line per file sent, failed, refused or passed over, then the counts.

    Files not sent again because they are unchanged are one line when there are several (a folder
    ingested again would list its whole library); one is named. ``--json`` lists every file."""
    unchanged = [item for item in report.items if item.status == "already_registered"]
    shown = report.items if len(unchanged) < 2 else [item for item in report.items if item not in unchanged]
    lines = [f"{item.status:<18} {item.source_path}" + (f" ({item.reason})" if item.reason else "") for item in shown]
    if len(unchanged) > 1:
        lines.append(f"{'unchanged':<18} {len(unchanged)} files already indexed, not sent again "
                     "(--force sends them again; --json lists them)")
    lines += [f"{'skipped':<18} {skipped.path} ({skipped.reason})" for skipped in report.skipped]
    lines.append(", ".join(f"{k}: {v}" for k, v in report.counts.items()) or "nothing to do")
    lost = report.words_only
    if lost is not None:  # an ingest without --wait embeds no places: what does, for the files it looked at
        lines.append(f"{lost.count} file(s) here placed by words only (their places have no vectors), e.g. "
                     f"{lost.paths[0]}: '{lost.command}' embeds their places (ingest does only with --wait)")
    if report.next_call:
        lines.append(report.next_call)
    return "\n".join(lines)


#: A registry status as ``sync`` says it to a person (the statuses are the registry's own words).
_STATUS_WORDS = {"processed": "indexed", "pending": "queued to send", "submitted": "being indexed",
                 "processing": "being indexed", "delete_submitted": "being deleted", "delete_completed": "deleted"}
#: Sent to the provider and not indexed yet (a ``pending`` file was not sent: it waits in the queue).
_IN_FLIGHT = frozenset({"submitted", "processing"})


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _synced(rec: dict[str, Any], now: Mapping[str, str] | None, copies: Mapping[str, str] | None = None) -> str:
    """What a sync's disk step did, in words: ``re-indexed 1 edited file, indexed 2 new files, ...``.

    ``now`` is the registry status of each file it sent, after the provider step (None: not known, so
    a file is only said to be sent); ``copies`` the sent files found copies of a document indexed already,
    with the file cited for it (``outcome.copies_now``): each is named, so every file sent is accounted for."""
    ingest = rec.get("ingest") or {}
    sent = set(ingest.get("ingested") or []) | set(ingest.get("queued") or [])
    parts: list[str] = []
    for key, one, many, done in (("changed", "edited file", "edited files", "re-indexed"),
                                 ("new", "new file", "new files", "indexed")):
        paths = [p for p in (rec.get(key) or {}).get("paths") or [] if p in sent]
        if now is None:
            if paths:
                parts.append(f"sent {_n(len(paths), one, many)} to be {done}")
            continue
        finished = [p for p in paths if now.get(p) == "processed"]
        going = [p for p in paths if now.get(p) in _IN_FLIGHT]
        queued = [p for p in paths if now.get(p) == "pending"]  # never reached the provider (busy or down)
        if finished:
            parts.append(f"{done} {_n(len(finished), one, many)}")
        if going:
            parts.append(f"{_n(len(going), one, many)} still being {done} ('mnote-kr status' follows them)")
        if queued:
            parts.append(f"{_n(len(queued), one, many)} NOT sent (named below; 'mnote-kr sync' retries "
                         f"{'it' if len(queued) == 1 else 'them'})")
        for p in (p for p in paths if now.get(p) == "duplicate"):
            twin = (copies or {}).get(p) or "a document indexed already"
            parts.append(f"{p} is a copy of {twin} (cited from there, not indexed twice)")
    moved = (rec.get("moved") or {}).get("count", 0)
    if moved:
        parts.append("followed " + _n(moved, "rename or move (cited under its new path)",
                                      "renames or moves (cited under their new paths)"))
    restored = (rec.get("restored") or {}).get("count", 0)
    if restored:
        parts.append(_n(restored, "file back on disk and cited again", "files back on disk and cited again"))
    missing = (rec.get("missing") or {}).get("count", 0)
    if missing:
        parts.append(f"{_n(missing, 'deleted file', 'deleted files')} no longer cited")
    return ", ".join(parts)


def not_sent_text(reason: str, waited: Mapping[str, Any] | None) -> str:
    """Why a file a sync meant to send is still queued, in one line with what sends it: LightRAG busy
    (after the sync waited for it, when it did), or its own reason (down, a move waiting for a delete)."""
    busy = _BUSY_REFUSAL.match(reason)
    if busy:
        after = f" for all of the {waited['seconds']:g} s this sync waited" if waited else ""
        detail = reason[busy.end():].lstrip(":; ").strip()
        return f"LightRAG was busy{after}{f': {detail}' if detail else ''}; 'mnote-kr sync' retries it"
    return f"{reason}; 'mnote-kr sync' retries it"


_BUSY_REFUSAL = re.compile(r"LightRAG (?:is|was) busy\b")


def _registry_words(counts: Mapping[str, int]) -> str:
    """The registry after a sync, as a person reads it; stale records say what they are and what drops them."""
    words = ", ".join(f"{n} {_STATUS_WORDS.get(status, status.replace('_', ' '))}"
                      for status, n in counts.items() if status != "stale")
    stale = counts.get("stale", 0)
    if stale:
        words += (", " if words else "") + (
            f"{stale} stale (records of files deleted, moved away or changed, not cited; "
            "'mnote-kr status' names them, 'mnote-kr prune' drops the records)")
    return words


def render_sync(result: dict[str, Any], now: Mapping[str, str] | None = None,
                copies: Mapping[str, str] | None = None) -> str:
    """``mnote-kr sync`` for people: what changed on disk, what the sync did about it in words, then the
    registry. ``now``: the registry status after the sync of each file it sent, ``copies`` those found
    copies of an indexed document (:func:`_synced`)."""
    lines: list[str] = []
    rec = result.get("reconcile")
    if isinstance(rec, dict):
        labels = (("changed", "changed on disk"), ("moved", "moved"), ("missing", "missing from disk"),
                  ("new", "new in an indexed root"), ("restored", "back on disk"))
        for key, label in labels:
            part = rec.get(key) or {}
            for path in part.get("paths", [])[:20]:
                shown = f"{path['from']} -> {path['to']}" if isinstance(path, dict) else path
                lines.append(f"{label + ':':<24}{shown}")
            if part.get("count", 0) > 20:
                lines.append(f"{'':<24}... and {part['count'] - 20} more ('--json' lists all)")
        # Left out by its root's rules after it was ingested: no longer cited, its index deleted.
        excluded = rec.get("excluded") or {}
        for path in excluded.get("paths", [])[:20]:
            lines.append(f"{'now excluded:':<24}{path} ({(excluded.get('reasons') or {}).get(path, 'excluded')})")
        if excluded.get("count", 0) > 20:
            lines.append(f"{'':<24}... and {excluded['count'] - 20} more ('--json' lists all)")
        if excluded.get("count"):
            lines.append(f"{excluded['count']} excluded file(s) dropped from the index: no longer cited")
        # Files of types the provider cannot index: one line, they are found again by every pass.
        skipped = rec.get("skipped") or {}
        if skipped.get("count"):
            first = skipped["paths"][0]
            more = f" and {skipped['count'] - 1} more" if skipped["count"] > 1 else ""
            lines.append(f"Passed over {skipped['count']} file(s) the provider cannot index: {first} "
                         f"({(skipped.get('reasons') or {}).get(first, 'not indexable')}){more}")
        # Not regular files (FIFO, socket, device) and names that are not UTF-8: one line each.
        passed = rec.get("passedOver") or {}
        for path in passed.get("paths", [])[:50]:
            lines.append(f"{'skipped:':<24}{path} ({(passed.get('reasons') or {}).get(path, 'skipped')})")
        if passed.get("count", 0) > 50:
            lines.append(f"{'':<24}... and {passed['count'] - 50} more ('--json' lists all)")
        follow = "'mnote-kr roots add ROOT' (with its rules) makes their root follow"
        new = rec.get("new") or {}
        if new.get("notIngested"):
            names = new["notIngested"]
            how = (f"'mnote-kr ingest {names[0]}' adds it" if len(names) == 1
                   else "'mnote-kr ingest' with their paths adds them")
            lines.append(f"{len(names)} new file(s) not ingested (root added with --no-follow): {how}; {follow}")
        # A changed file is left behind only in a root that opted out of following (--no-follow).
        sent = {p for key in ("ingested", "queued") for p in (rec.get("ingest") or {}).get(key, [])}
        stale = [p for p in (rec.get("changed") or {}).get("paths", []) if p not in sent]
        if stale:
            how = (f"'mnote-kr ingest {stale[0]}' re-indexes it" if len(stale) == 1
                   else "'mnote-kr ingest' with their paths re-indexes them")
            lines.append(f"{len(stale)} changed file(s) not re-indexed (root added with --no-follow): {how}; {follow}")
        lines += sync_lines(rec.get("reread"))  # indexed by an older reading: read again
        lines += words_only_lines(rec.get("wordsOnly"))  # places that lost their vectors: embedded again
        if not lines:
            lines.append(f"Disk: no changes in {rec.get('scanned', 0)} file(s)")
        synced = _synced(rec, now, copies)
        if synced:
            lines.append(f"Synced: {synced}")
    prov = result.get("provider") or {}
    if prov.get("followed"):
        lines.append(f"Followed {prov['followed']} file(s) with the provider")
    for item in (prov.get("notSent") or [])[:50]:  # queued: the provider was busy (after a wait) or down
        lines.append(f"{'NOT sent:':<24}{item['path']} ({not_sent_text(item['reason'], prov.get('busyWait'))})")
    if len(prov.get("notSent") or []) > 50:
        lines.append(f"{'':<24}... and {len(prov['notSent']) - 50} more ('--json' lists all)")
    refused = ((rec if isinstance(rec, dict) else {}).get("ingest") or {}).get("failedReasons") or {}
    for path, reason in list(refused.items())[:50]:
        lines.append(f"{'failed:':<24}{path} ({reason})")
    for key, label in (("failed", "failed:"), ("stillFailed", "still failed:")):  # this run's, then earlier ones
        for failed in (prov.get(key) or [])[:50]:
            lines.append(f"{label:<24}{failed['path']} ({failed['reason']})")
        if len(prov.get(key) or []) > 50:
            lines.append(f"{'':<24}... and {len(prov[key]) - 50} more ('--json' lists all)")
    # The registry as it is now, in words: its status names (and a "before" taken between this sync's disk
    # step and its provider step) meant nothing to a person; --json keeps both counts.
    lines.append(f"Registry: {_registry_words(prov.get('after') or {}) or 'empty'}")
    return "\n".join(lines)
