"""A quote placed on one bullet of a list carries the sibling bullets the question asks about.

nc17b P10: "when were Sentiers Chelsea and SAFE Chelsea met in May 2020" boxed the bullet "• SAFE Chelsea le
27 mai;" on page 7 of the Chelsea PDF and quoted it alone: "Sentiers Chelsea le 25 mai", the bullet before
it in the same list, was left out. A sibling bullet joins the quote when it holds a word of the question the
placed bullet lacks, or when the question asks for a list ("what were ..."), while the quote fits its limit.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS
from mnote_kr.citations.pipeline import _place_quote
from mnote_kr.models import Locator
from mnote_kr.plugins import load_plugins

# the chunk's cleaned words around the list (LightRAG's text of page 7, a list's lines run together)
CONTEXT = ("Les premières rencontres ont eu lieu en mai 2020, par le biais d’une plateforme virtuelle afin de "
           "respecter les normes d’hygiène mises en place. Les groupes ci-haut mentionnés ont été rencontrés comme "
           "suit : • Sentiers Chelsea le 25 mai; • SAFE Chelsea le 27 mai; • les deux conseillers responsables du "
           "transport actif le 28 mai; • les membres du Comité consultatif des loisirs les 28 mai et 2 juin. Suite "
           "à ces rencontres, un exercice de recoupement des points en commun a été effectué par l’équipe des "
           "loisirs. Les deuxièmes rencontres ont eu lieu en juin 2020 : • le 17 juin avec SAFE; • le 18 juin avec "
           "Sentiers Chelsea; • le 19 juin avec le Comité des loisirs.")
SAFE = "• SAFE Chelsea le 27 mai;"


def _quote(place: str, query: str) -> str:
    loc = Locator(locator_precision="bbox", page=7, bbox=[72.0, 500.0, 300.0, 512.0], place_text=place + "\n")
    return _place_quote(load_plugins(None), loc, CONTEXT, query)[0]


def test_a_sibling_bullet_holding_the_questions_other_words_joins_the_quote() -> None:
    shown = _quote(SAFE, "when were Sentiers Chelsea and SAFE Chelsea met in May 2020")
    assert shown == "• Sentiers Chelsea le 25 mai; • SAFE Chelsea le 27 mai;", shown


def test_a_question_asking_for_a_list_gets_the_lists_bullets_and_no_more() -> None:
    shown = _quote(SAFE, "what were the meetings held in May 2020")
    assert shown.startswith("• Sentiers Chelsea le 25 mai; • SAFE") and shown.endswith("les 28 mai et 2 juin."), shown
    assert "Suite" not in shown and "17 juin" not in shown and len(shown) <= QUOTE_CHARS  # one list, not the next


def test_a_bullet_that_holds_the_answer_alone_or_no_bullet_is_quoted_as_before() -> None:
    assert _quote(SAFE, "when was SAFE Chelsea met") == SAFE
    assert _quote("• le 18 juin avec Sentiers Chelsea;", "when was Sentiers Chelsea met in June") \
        == "• le 18 juin avec Sentiers Chelsea;"  # its list's other bullets hold none of the question's words
