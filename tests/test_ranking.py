"""Ranking of a search's citations: the passage that answers first (mnote_kr.citations.ranking)."""

from __future__ import annotations

from mnote_kr.citations.ranking import Candidate, bm25, relevance, terms


def test_answering_passage_overtakes_the_providers_first_neighbour() -> None:
    cands = [
        Candidate(0, "history.pdf", "The Evolution of the Word Processor. The concept predates computers."),
        Candidate(1, "history.pdf", "Patented in 1868 by Christopher Latham Sholes, the typewriter revolutionized "
                                    "written communication."),
        Candidate(2, "other.docx", "Bangalore lies on the Mysore plateau."),
    ]
    scores = [value for value, _ in relevance("when was the typewriter patented", cands, 3)]
    assert scores[1] > scores[0] > scores[2]


def test_without_query_words_in_any_passage_the_provider_order_stands() -> None:
    cands = [Candidate(i, "a.pdf", text) for i, text in enumerate(["alpha beta", "gamma delta", "epsilon"])]
    values = [value for value, parts in relevance("zeta", cands, 3)]
    assert values == sorted(values, reverse=True)
    assert all(parts["lexical"] == 0.0 for _, parts in relevance("zeta", cands, 3))


def test_chinese_is_matched_by_bigrams_and_function_characters_do_not_count() -> None:
    texts = ["本合同一式四份，自双方签章后生效。", "如有未尽事宜，由双方依法订立补充合同。"]
    s = bm25("合同没有写到的未尽事宜怎么处理", texts)
    assert s[1] > s[0] > 0.0
    assert "未尽" in terms("写到的未尽") and "的了" not in terms("写到的了")
    assert bm25("的了是", texts) == [0.0, 0.0]


def test_words_meet_their_plural_and_stop_words_are_ignored() -> None:
    assert terms("The batteries of the cells") == terms("battery cell")
    s = bm25("what is the battery", ["the the the what is", "one battery here"])
    assert s[0] == 0.0 and s[1] > 0.0


def test_terms_are_found_at_word_starts_with_accents_and_compatibility_forms_folded() -> None:
    from mnote_kr.citations.ranking import find_terms

    text = "In 1537, Kempé Gowdā built a competent mud fort. ⽂档 patented"
    hits = find_terms(text, "Kempe Gowda patent mud fort 文档")
    assert text.index("Kempé") in {p for p, _ in hits} and text.index("⽂档") in {p for p, _ in hits}
    words = sorted({i for _, i in hits})
    assert words == [0, 1, 2, 3, 4, 5]  # every query term, accents and ⽂ (U+2F42) folded
    assert text.index("competent") + 3 not in {p for p, _ in hits}  # 'pet...' inside a word is no hit
    assert [text[p : p + 6] for p, i in hits if i == 2] == ["patent"]
