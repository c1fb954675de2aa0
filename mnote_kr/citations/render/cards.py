"""Human-readable search, answer and open output: source cards and the places they name. ``status`` is
``statustext.py``, ``ingest`` and ``sync`` ``synctext.py``. JSON output never goes through here."""

from __future__ import annotations

from mnote_kr.citations.map.stillindexing import REASON as STILL_INDEXING
from mnote_kr.citations.render.alsoasked import also_searched, held_note
from mnote_kr.citations.render.excerpt import excerpt
from mnote_kr.citations.render.noresults import more_left_behind, more_skipped
from mnote_kr.citations.render.precision import paragraph_number, placed_words, precision_words, review_comment
from mnote_kr.citations.render.strength import by_strength, weaker_named
from mnote_kr.core.pending import CHANGED_SINCE_INDEXED, MISSING_SINCE_INDEXED, MOVED, NEW_IN_ROOT
from mnote_kr.models import (
    AgentQueryResult,
    Citation,
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
        said = placed_words(loc)
        return words + (said if said and said.strip(" ()") not in words else "")
    if loc.locator_precision == "bbox" and loc.page is not None:
        words += f", p.{loc.page}"
        if numbers and loc.bbox and len(loc.bbox) == 4:
            x0, y0, x1, y1 = loc.bbox
            words += f" at ({x0:g}, {y0:g})-({x1:g}, {y1:g}) {loc.bbox_unit} from the {loc.bbox_origin}"
    elif loc.locator_precision == "paragraph" and loc.paragraph_index is not None:
        approx = placed_words(loc) if loc.locator_degraded else ""
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
    return f"search {issue.search_query!r}{search_way(issue)}{when}: " + (quote or "(no quote)")


def search_way(issue: IssuedQuote) -> str:
    """`` in mode naive over papers/a.pdf``: how the search differed from the default (``mix`` over the whole
    library), which is said by nothing; so are a mode and scope not kept (an ID printed before they were). The
    same words searched two ways read as two searches (nc29b: three issues alike but their keys)."""
    mode = f" in mode {issue.search_mode}" if issue.search_mode not in (None, "mix") else ""
    return mode + (f" over {', '.join(issue.search_scope)}" if issue.search_scope else "")


#: Queries ``open`` names of the earlier searches that showed the same quote (nc24a: 8 searches, 8 copies).
SAME_QUOTE_NAMED = 3


def _same_quote(issues: list[IssuedQuote]) -> list[list[IssuedQuote]]:
    """The searches grouped by the quote they showed (as printed: spaces folded), newest first in each group,
    the groups in the order of their newest search: a quote is printed once however many searches showed it."""
    groups: dict[str, list[IssuedQuote]] = {}
    for issue in issues:
        groups.setdefault(" ".join((issue.display_quote or "").split()), []).append(issue)
    return list(groups.values())


def _also(same: list[IssuedQuote]) -> str:
    """``  the same quote from 2 earlier searches: 'a', 'b'`` under a quote, or nothing."""
    if not same:
        return ""
    named = ", ".join(f"{i.search_query!r}{search_way(i)}" for i in same[:SAME_QUOTE_NAMED])
    more = f" and {len(same) - SAME_QUOTE_NAMED} more" if len(same) > SAME_QUOTE_NAMED else ""
    return f"\n  the same quote from {len(same)} earlier search{'es' if len(same) > 1 else ''}: {named}{more}"


def render_open(plan: OpenPlan) -> str:
    """``mnote-kr open`` for people: the citation, file and kind, the place in the source cards' words
    (``passage box (approximate), p.4 at ...``), the citation URL after ``link:``, then the quote and the
    search it came from. The URL's ``paragraph=`` is the contract's ``paragraphIndex``, counted from 0; printed
    under a paragraph counted from 1, the line says so (a newcomer read ``paragraph 177`` above ``paragraph=176``
    as a mistake). An ID names a place and several searches may have printed it, each with its own quote: the
    latest's comes first and says so, the earlier ones follow (``OpenPlan.issues``), each quote once, with the
    other searches that showed it named under it."""
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
        groups = _same_quote(issues)
        said = (f"\nquote from the latest of {len(issues)} searches that printed {plan.citation_id}, "
                f"{_issue_words(groups[0][0])}{_also(groups[0][1:])}"
                + "".join(f"\n  earlier, {_issue_words(g[0])}{_also(g[1:])}" for g in groups[1:]))
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
        lines.append(f"             {excerpt((alt.display_quote or '').replace(chr(10), ' '), c.search_query, 160, 0)}")
    return "\n".join(lines)


def weak_line(reason: str | None) -> str:
    """The weak-result warning, said before the cards."""
    return f"Weak result: {reason}." if reason else ""


def render_search(result: SearchResults) -> str:
    out = [weak_line(result.weak_reason)] if result.weak and result.results else []
    # before the cards: a file the query names that cannot be cited is easy to miss after six cards
    diagnostics = result.diagnostics if isinstance(result.diagnostics, dict) else {}
    out += _not_indexed_lines(result.not_indexed, _sent_count(diagnostics), _sent_count(diagnostics, "newNotIngested"))
    out += filter(None, [more_left_behind(diagnostics), more_skipped(diagnostics)])
    out += _cards(result.results, weak=result.weak)
    # a translation's file among them; a file holding the query's words LightRAG returned nothing of (without
    # results the no-results message names it)
    out += filter(None, [also_searched(diagnostics, result.results),
                         held_note(diagnostics, result.weak_reason) if result.results else None])
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
    """Source cards: those :func:`card_split` keeps whole, then its lines for the weaker ones."""
    whole, lines = card_split(cards, keep=keep, weak=weak)
    return [source_card(c) for c in whole] + lines


def card_split(cards: list[Citation], *, keep: str = "", weak: bool = False) -> tuple[list[Citation], list[str]]:
    """The cards a person reads whole, in order: those :func:`~mnote_kr.citations.render.strength.by_strength`
    keeps (and any whose ID ``keep``, an answer, cites); and the lines after them: the weaker ones
    ``strength.weaker_named`` names, one line each, then one counting the rest. ``weak`` (nothing seems to answer,
    said on the line before): no card is whole but one cited, each named one has a short quote to judge it by.
    Plain ``search``, ``ask`` and ``demo`` print these."""
    whole, short = by_strength(cards, weak=weak)
    cited = [c for c in short if keep and c.citation_id in keep]
    short, rest = weaker_named(cards, [c for c in short if c not in cited], weak=weak)
    out: list[str] = []
    if short and weak:
        out.append("Nearest by meaning, one line each ('mnote-kr open ID' shows one whole, --json quotes them all):")
        out += [f"  {c.citation_id} {c.source_root_relative_path}: {_place_words(c)}  \"{_short_quote(c)}\""
                for c in short]
    elif short:
        out.append("Weaker matches (nearest by meaning; 'mnote-kr open ID' shows one, --json quotes them):")
        out += [f"  {c.citation_id} {c.source_root_relative_path}: {_place_words(c)}" for c in short]
    if rest:
        out.append(unnamed_line(len(rest), listed=bool(short)))
    return [c for c in cards if c in whole or c in cited], out


def unnamed_line(count: int, *, listed: bool) -> str:
    """The one line counting the weaker matches :func:`~mnote_kr.citations.render.strength.weaker_named` does not
    name: ``  and 4 more file(s) found only as near by meaning, further from the query ('--json' lists them)`` under
    the named ones, ``4 more file(s) ...`` alone when none is named."""
    lead = "  and " if listed else ""
    return f"{lead}{count} more file(s) found only as near by meaning, further from the query ('--json' lists them)"


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


#: How many files still being indexed a search's text names on its one line about them.
STILL_INDEXING_NAMED = 5


def still_indexing_line(paths: list[str], count: int = 0) -> str:
    """``2 file(s) still being indexed: kb/a.docx, kb/b.pdf (not cited until ...)``: new files sent and not
    indexed yet, in one line whatever their number (``count``: all of them, when more were listed)."""
    count = max(count, len(paths))
    more = f" and {count - STILL_INDEXING_NAMED} more" if count > STILL_INDEXING_NAMED else ""
    return (f"{count} file(s) still being indexed: {', '.join(paths[:STILL_INDEXING_NAMED])}{more} (sent, not "
            "cited until LightRAG has indexed them; search again then; 'mnote-kr sync --wait 60' follows them)")


_NEW = NEW_IN_ROOT + ": "


def new_files_line(new: list[NotIndexed], count: int = 0) -> str:
    """``2 new file(s) in the roots not ingested yet: kb/a.docx, kb/b.pdf; 'mnote-kr ingest kb' indexes them``:
    the files of the roots no ingest has seen, in one line whatever their number (``count``: all of them)."""
    count = max(count, len(new))
    more = f" and {count - STILL_INDEXING_NAMED} more" if count > STILL_INDEXING_NAMED else ""
    fixes = dict.fromkeys(ni.reason[len(_NEW):].removesuffix(" indexes it") for ni in new)
    return (f"{count} new file(s) in the roots not ingested yet: "
            f"{', '.join(ni.source_path for ni in new[:STILL_INDEXING_NAMED])}{more}; {', '.join(fixes)} indexes them")


def _not_indexed_lines(items: list[NotIndexed], sent_count: int = 0, new_count: int = 0) -> list[str]:
    """One line per file that cannot be cited; the status in words ("not indexed" is said once), one
    line for all the new files still being indexed (``sent_count``: how many in all) and one for the files of
    the roots never ingested (``new_count``: how many in all). A file
    changed or gone since it was indexed says so first: ``changed since indexed: FILE: run 'mnote-kr sync'``.
    Past ``SKIPPED_LINES`` files skipped for their type, one line counts the rest: a folder of archives
    must not push the cards off the screen."""
    skipped = [ni for ni in items if ni.status == "skipped"][SKIPPED_LINES:]
    sent = [ni.source_path for ni in items if ni.reason == STILL_INDEXING]
    lines = [still_indexing_line(sent, sent_count)] if sent else []
    new = [ni for ni in items if ni.reason.startswith(_NEW)]
    if new:
        lines.append(new_files_line(new, new_count))
    for ni in items:
        if ni in skipped or ni.reason == STILL_INDEXING or ni.reason.startswith(_NEW):
            continue
        if ni.reason.startswith(MOVED + ": "):  # "moved: OLD -> NEW: run 'mnote-kr sync' (...)", as status reads it
            lines.append(ni.reason)
            continue
        since = next((p for p in _SINCE_INDEXED if ni.reason.startswith(p + ": ")), None)
        lines.append(f"{since}: {ni.source_path}: {ni.reason[len(since) + 2:]}" if since
                     else f"not indexed: {ni.source_path} ({not_indexed_text(ni)})")
    if skipped:
        lines.append(f"not indexed: {len(skipped)} more file(s) skipped for their type ('--json' lists them, "
                     "'mnote-kr status' names them)")
    return lines


def _sent_count(diagnostics: object, key: str = "stillIndexing") -> int:
    """How many files ``diagnostics[key]`` counts (``stillIndexing``: new files sent; ``newNotIngested``: files
    never ingested; 0: none, or no such note)."""
    said = diagnostics.get(key) if isinstance(diagnostics, dict) else None
    return int(said.get("count") or 0) if isinstance(said, dict) else 0


def render_answer(result: AgentQueryResult) -> str:
    if result.answer is not None:
        out = [result.answer, *(f"note: {n}" for n in result.notes)]  # a weak result is one of them
    else:  # the notes say why first (no LLM configured, and how to configure one), then the citations
        out = ["No answer" + (":" if result.notes else "."), *(f"  {n}" for n in result.notes)]
    out += _not_indexed_lines(result.not_indexed)  # before the cards, as search's
    out += ["", *_cards(result.citations, keep=result.answer or "", weak=result.weak)]
    return "\n".join(out)
