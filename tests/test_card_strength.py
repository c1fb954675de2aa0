"""Which cards a person reads whole, on every surface: one rule (``citations.render.strength``) for the
CLI's plain ``search``/``ask`` and the web search page. A card scoring under ``FULL_SHARE`` of the best
is listed short (the CLI: one line under "Weaker matches"; the page: one line that opens to the card)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from mnote_kr.citations.render import strength
from mnote_kr.citations.render.cards import render_search
from mnote_kr.models import SearchResults
from mnote_kr.viewer.searchpage import search_page
from tests.test_search_text import cit


def _results(*scores: float | None) -> SearchResults:
    cards = [cit(f"[c{i:03d}]", f"f{i}.md", s, f"quote number {i}") for i, s in enumerate(scores)]
    return SearchResults(query="q", mode="mix", provider="lightrag", results=cards, not_indexed=[], diagnostics={})


def _ids(cards: list) -> list[str]:
    return [c.citation_id for c in cards]


def test_a_card_at_the_share_is_whole_one_just_under_is_short() -> None:
    top = 2.0
    at, under = strength.FULL_SHARE * top, strength.FULL_SHARE * top - 1e-6
    whole, short = strength.by_strength(_results(top, at, under, None).results)
    assert _ids(whole) == ["[c000]", "[c001]", "[c003]"]  # an unscored card is never hidden
    assert _ids(short) == ["[c002]"]


def test_the_first_card_stays_whole_and_a_search_without_scores_is_all_whole() -> None:
    # the pipeline orders by score; were the first not the best, it would still be read whole
    whole, short = strength.by_strength(_results(0.1, 2.0, 0.2).results)
    assert _ids(whole) == ["[c000]", "[c001]"] and _ids(short) == ["[c002]"]
    whole, short = strength.by_strength(_results(None, None).results)
    assert _ids(whole) == ["[c000]", "[c001]"] and short == []
    assert strength.by_strength(_results(0.0, 0.0).results) == (list(_results(0.0, 0.0).results), [])


def _web_split(html: str) -> tuple[list[str], list[str]]:
    """The citation IDs the search page shows whole, and those it lists short (inside a closed <details>)."""
    cards = html.split('<ol class="cards">', 1)[1]
    whole_part, _, short_part = cards.partition('<ol class="cards weaker"')
    whole = re.findall(r'<li class="card" data-citation-id="([^"]+)"', whole_part)
    short = re.findall(r'<li class="card" data-citation-id="([^"]+)"[^>]*><details class="more">'
                       r'<summary class="card-head">', short_part)
    return whole, short


def test_web_search_page_lists_the_weak_tail_short_and_openable() -> None:
    html = search_page("q", results=_results(2.0, 0.5, 0.49, 0.1))
    whole, short = _web_split(html)
    assert whole == ["[c000]", "[c001]"] and short == ["[c002]", "[c003]"]
    assert "Weaker matches" in html
    # the short line says ID, file and place; the rest of the card is in the details, shown on a click
    line = re.search(r'data-citation-id="\[c002\]".*?</summary>', html).group(0)
    assert "[c002]" in line and "f2.md" in line and "paragraph 3" in line and "number 2" not in line
    after = html.split('data-citation-id="[c002]"', 1)[1].split("</details>", 1)[0]
    assert re.search(r'<blockquote class="quote">.*number 2</blockquote>', after)
    # nothing weak: no "Weaker matches" section
    html = search_page("q", results=_results(2.0, 1.0))
    assert _web_split(html) == (["[c000]", "[c001]"], []) and "Weaker matches" not in html


@pytest.mark.parametrize("share", [0.1, 0.6])
def test_cli_and_web_follow_the_one_share(monkeypatch: pytest.MonkeyPatch, share: float) -> None:
    """One definition: moving the share moves both surfaces' split the same way."""
    monkeypatch.setattr(strength, "FULL_SHARE", share)
    results = _results(2.0, 0.5, 0.3, 0.1)
    expected_short = [c.citation_id for c in results.results[1:] if c.relevance_score < share * 2.0]
    _, short = _web_split(search_page("q", results=results))
    assert short == expected_short
    tail = render_search(results).partition("Weaker matches")[2]
    assert re.findall(r"^  (\[c\d+\])", tail, re.M) == expected_short


def test_a_weak_search_lists_every_card_short_on_both_surfaces() -> None:
    """Nothing found seems to answer (``weak``): no card is read whole, on the CLI or the page, under the warning."""
    results = _results(2.0, 1.9, 0.1)
    weak = SearchResults(query="q", mode="mix", provider="lightrag", results=results.results, not_indexed=[],
                         diagnostics={}, weak=True, weak_reason="none of the query's words is in any passage found")
    assert strength.by_strength(weak.results, weak=True) == ([], list(weak.results))
    html = search_page("q", results=weak)
    short = re.findall(r'<li class="card" data-citation-id="([^"]+)"[^>]*><details class="more">', html)
    assert short == ["[c000]", "[c001]", "[c002]"]
    assert html.index('class="banner weak"') < html.index('data-citation-id="[c000]"')
    banner = unescape(re.search(r"<p class=\"banner weak\"[^>]*>(.*?)</p>", html).group(1))
    assert "none of the query's words" in banner and "nearest by meaning" in banner
    assert re.findall(r"^  (\[c\d+\])", render_search(weak), re.M) == ["[c000]", "[c001]", "[c002]"]


def _parted(cid: str, parts: dict[str, float]):  # noqa: ANN202 - a Citation
    import msgspec

    c = cit(cid, f"{cid[1:-1]}.md", round(sum(parts.values()), 6), f"quote of {cid}")
    return msgspec.structs.replace(c, diagnostics=msgspec.structs.replace(c.diagnostics, score_parts=parts))


def test_a_later_card_held_up_by_the_providers_rank_alone_is_short_after_one_holding_the_query_words() -> None:
    # nc24d Q10 "revenue of Widget C on 7 January 2024": the sales row (scored by its words) first, then a handbook
    # paragraph holding none of them whose 0.25 was LightRAG's rank alone, printed whole at 0.255 of the best
    first = _parted("[i525]", {"provider": 1 / 3, "lexical": 0.646076})
    rank_only = _parted("[kr92]", {"provider": 0.25, "lexical": 0.00088, "farInMeaning": -0.00088})
    worded = _parted("[w001]", {"provider": 0.2, "lexical": 0.1})
    whole, short = strength.by_strength([first, rank_only, worded])
    assert _ids(whole) == ["[i525]", "[w001]"] and _ids(short) == ["[kr92]"]
    # the first card barely holds the query's words (a paraphrase): the provider's order is all there is to go by
    faint = _parted("[f001]", {"provider": 0.5, "lexical": 0.1356})
    whole, short = strength.by_strength([faint, rank_only])
    assert _ids(whole) == ["[f001]", "[kr92]"] and short == []
