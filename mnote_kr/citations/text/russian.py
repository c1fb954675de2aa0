"""Russian words for the matchers: a light stem and the question's function words, one for the locator
(``queryterms``) and the ranking's words (``ranking.terms``: the weak rule, the words a library holds), so a search is
not placed exact on "Усилие удержание" and called lacking "удержания" in one answer (review r28 finding 8).

Which language: a word of the Russian alphabet only (а-я, ё). A word holding a letter Russian lacks (Serbian ј љ њ ћ
ђ џ, Macedonian ѓ ќ ѕ, Ukrainian і ї є ґ, Belarusian ў) is left whole. A Bulgarian word cannot be told from a Russian
one by its letters, and one word says nothing of its text's language: its Russian-like ending is cut too. The cut
is made alike on both sides (the question's word and the file's), so at worst two words of one stem meet; a stem
keeps four letters ("замка" and "замок" still do not meet).
"""

from __future__ import annotations

import re

__all__ = ["RU_ENDINGS", "RU_STOP_WORDS", "russian_stem"]

#: Russian case and number endings, longest first: "удержания" and "удержание", "электромагнитного" and
#: "электромагнитный" meet (nc27c N3).
RU_ENDINGS = ("ями", "ами", "ого", "его", "ому", "ему", "ыми", "ими", "ия", "ие", "ий", "ию", "ии", "ья", "ье",
              "ая", "яя", "ое", "ее", "ые", "ый", "ой", "ую", "юю", "ых", "их", "ом", "ем", "ам", "ям", "ах", "ях",
              "ов", "ев", "ей", "ью", "а", "я", "о", "е", "ы", "и", "у", "ю", "ь", "й")
#: A stem keeps at least this many letters.
RU_STEM_LEAST = 4
#: A question's function words: question words, prepositions, conjunctions, particles, "this".
RU_STOP_WORDS = frozenset("""
    какой какая какое какие каков какова каково каковы что кто где когда куда откуда сколько почему зачем как
    ли же бы у в во на и или не по с со к ко о об от до для из за при под над это этот эта эти то та те
""".split())
_RUSSIAN = re.compile("[\u0430-\u044f\u0451]+")


def russian_stem(word: str) -> str:
    """``word`` (lower case) without its Russian ending (``RU_ENDINGS``, the stem ``RU_STEM_LEAST`` letters at least);
    any other word as it is."""
    if len(word) > RU_STEM_LEAST and _RUSSIAN.fullmatch(word):
        for suf in RU_ENDINGS:
            if word.endswith(suf) and len(word) - len(suf) >= RU_STEM_LEAST:
                return word[: -len(suf)]
    return word
