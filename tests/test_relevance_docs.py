"""``relevanceScore`` is documented with its real range and what it can be compared with.

A newcomer (nc18b, problem 10) saw top scores from 0.69 to 1.5 and found no statement of the scale in the
HTTP docs: a script could not tell what a threshold on it means. The docs now say what it sums, its bounds
(computed here from the ranking's own weights, so the text cannot drift from the code), that it compares
citations of one search only, and that ``weak`` is what judges a search.
"""

from __future__ import annotations

import re
from pathlib import Path

from mnote_kr.citations.rank import ranking

REPO = Path(__file__).resolve().parents[1]
UPPER = (ranking.PROVIDER_WEIGHT + ranking.LEXICAL_WEIGHT + max(ranking.FILE_NAME_BOOST, ranking.NAMED_FILE_BOOST)
         + ranking.FILE_TERMS_WEIGHT + ranking.PHRASE_BOOST + max(ranking.NAMED_WEIGHT, ranking.NAMED_AS_PAGE)
         + ranking.SECTION_WEIGHT)


def _bullet(text: str) -> str:
    start = text.index("- **`relevanceScore`")
    end = text.find("\n- **", start + 1)
    return text[start:end if end > 0 else None]


def test_the_http_docs_say_what_relevance_score_sums_its_range_and_what_judges_weakness() -> None:
    said = " ".join(_bullet((REPO / "docs" / "http-api.md").read_text(encoding="utf-8")).split())
    assert f"at most {UPPER:g}" in said, said
    assert "greater than 0" in said and "scoreParts" in said
    assert "within one search" in said and "`weak`" in said
    for part in ("provider", "lexical", "fileName", "fileTerms", "phrase", "named", "section", "apparatus", "unplaced",
                 "inFile", "exactAhead"):
        assert f"`{part}`" in said, part


def test_the_readme_json_section_points_at_the_same_statement() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line = next(p for p in re.split(r"\n\s*\n", readme) if "`relevanceScore`" in p)
    assert "within one search" in line and "`weak`" in line and "docs/http-api.md" in line, line
