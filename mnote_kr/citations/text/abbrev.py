"""A word abbreviated with a full stop meets the query word it stands for: "temp." is "temperature".

Data sheets and tables write their labels short ("Ambient temp.", "Min. -5, max. +40", "Package no.",
"approx. 3 kg"): a question asks in full words ("the ambient temperature range"), so by words alone the row
holding the answer shared only "ambient" with it and a title naming the topic won (nc18b problem 2).

The rule, kept narrow (measured over the test corpus and the recorded LightRAG chunks, see the r18 report):

* only a word written with its full stop right after it (``temp.``, never ``temp``: a folder "temp" is no
  "template"), of ASCII letters, standing as a word of its own (no letter or digit before it, none joined
  after the stop: "e.g" and "U.S." are not abbreviations of a longer word);
* a prefix of at least ``PREFIX_MIN`` letters of the query word, which is at least ``LONGER_BY`` letters
  longer (a plural or another inflection is the stemmer's: "system." already meets "systems");
* cut where abbreviations are cut (``conventional_cut``): after a consonant and before a vowel of the word
  (temp|erature, max|imum, approx|imately, jan|uary), and not a whole word with an ending of its own
  (process|ing, interest|ing, act|ive: ``_ENDINGS``). "temp." is then no "template" (temp|late), "bank." no
  "bankruptcy", "table." no "tableformer", and a sentence's "... hiring process." no "processing";
* not the last part of a host name or a path ("faa.gov." is no "government": a full stop, "@" or "/" before it);
* or one of the few common contractions that are no prefix, or whose cut the convention does not follow
  (``CONTRACTIONS``: "no." is "number", "qty." is "quantity", "feb." is "february").

Measured (r19, ``benchmarks/abbreviations.py``: 61 corpus files read plainly, 5.4 M characters, the
held-out benchmarks' files left out, against the words of the tuning questions; every match read and
judged): 146 matches, 66 right (58 of them "no." for "number"), 80 wrong ("bank." for "bankruptcy" 16,
"law." for "lawyers" 16, "process." for "processing" 9 ...); with the cut and host-name rules 78 matches,
66 right (none lost), 12 wrong ("et seq." for "sequential" 4, "form." for "formatting" 2, "ABS." for
"absorbs" 2, "Rev." for "review", "Inc.", "Chang.", "Nov." for "novelists").

A sentence-final word is a word with a full stop after it too ("the system." and a query's "systematic"):
such a hit weighs what an inflection the light stemmer missed weighs (the callers' own weights), never
what the word as written does, so it can join a cluster but not outrank a place holding the word itself.
"""

from __future__ import annotations

import re

__all__ = ["CONTRACTIONS", "LONGER_BY", "PREFIX_MIN", "abbreviated_at", "abbreviates", "conventional_cut"]

#: Fewest letters an abbreviation written as the word's beginning must have ("max.", "min.", "temp.").
PREFIX_MIN = 3
#: Fewest letters the full word has beyond the abbreviation ("temp." 4 -> "temperature" 11).
LONGER_BY = 2
#: Contractions that are no prefix of their word: the common ones of data sheets and order tables.
CONTRACTIONS: dict[str, frozenset[str]] = {
    "no": frozenset({"number", "numbers"}),
    "nr": frozenset({"number", "numbers"}),
    "qty": frozenset({"quantity", "quantities"}),
    "amt": frozenset({"amount", "amounts"}),
    "wt": frozenset({"weight", "weights"}),
    "pcs": frozenset({"pieces", "piece"}),
    "dept": frozenset({"department", "departments"}),
    "yr": frozenset({"year", "years"}),
    "yrs": frozenset({"year", "years"}),
    "feb": frozenset({"february"}),  # cut before a consonant, against the convention (``conventional_cut``)
    "mar": frozenset({"march"}),
    "dia": frozenset({"diameter"}),
    "elec": frozenset({"electric", "electrical", "electricity"}),
}

_VOWELS = frozenset("aeiou")
#: Endings that make a whole word another word of its family (process|ing, act|ive, form|ally, met|er): a word
#: written whole with one of these after it is that word inflected or derived, never written short.
_ENDINGS = frozenset({"ing", "ings", "ed", "er", "ers", "or", "ors", "al", "als", "ally", "ive", "ively", "ly",
                      "ness", "ment", "ments", "able", "ful", "less", "ism", "ist", "ists", "ity"})

#: A run of ASCII letters standing as a word, with a full stop right after it that no letter or digit
#: follows ("temp." yes; "e.g" and "U.S" no: the stop joins letters there).
_ABBREVIATION = re.compile(r"(?<![^\W_])(?<![./@])([a-z]{2,8})\.(?![^\W_])")


def abbreviates(short: str, word: str) -> bool:
    """Whether ``short`` (lower case, written with a full stop in the text) stands for the query's ``word``
    (lower case): a long enough beginning of a longer word, or one of ``CONTRACTIONS``."""
    if word in CONTRACTIONS.get(short, ()):
        return True
    return (len(short) >= PREFIX_MIN and short.isascii() and short.isalpha()
            and len(word) >= len(short) + LONGER_BY and word.startswith(short) and conventional_cut(short, word))


def conventional_cut(short: str, word: str) -> bool:
    """Whether ``word`` written short as its beginning ``short`` is cut as abbreviations are: after a consonant,
    before a vowel ("temp|erature", not "temp|late"), and not a whole word with an ending (``_ENDINGS``:
    "process|ing")."""
    rest = word[len(short):]
    return short[-1] not in _VOWELS and rest[0] in _VOWELS and rest not in _ENDINGS


def abbreviated_at(text: str, word: str, cased: str | None = None) -> list[int]:
    """Where ``text`` (lower-cased, or folded keeping positions) writes ``word`` abbreviated with a full
    stop (``in_label``; ``cased`` is ``text`` before it was lower-cased, when the caller has it): the
    abbreviation's first character, in order. Empty for a word no abbreviation could stand for."""
    if len(word) < PREFIX_MIN + LONGER_BY and not any(word in full for full in CONTRACTIONS.values()):
        return []
    if "." not in text:
        return []
    return [m.start() for m in _ABBREVIATION.finditer(text)
            if abbreviates(m.group(1), word) and in_label(text, m.start(), m.end(), cased)]


#: Most words the line of an abbreviation ending it may hold: a label or a cell ("Ambient temp."), not a
#: sentence ("... in the system.").
LABEL_WORDS = 4
_WORD = re.compile(r"[^\W_]+")
#: Marks that close a sentence or follow its stop: quotes, brackets, more stops ("for...", a dot leader).
_CLOSING = frozenset(".\"'”’)]»…")


def in_label(text: str, start: int, end: int, cased: str | None = None) -> bool:
    """Whether the word ``text[start:end]`` (its full stop last) reads as an abbreviation, not a sentence's
    last word: a tab (the next cell), a digit, a sign or a mark follows it ("Min. -5", "temp. | ºC", "no.:"), not
    one closing a sentence (a quote, a bracket, more stops: ``_CLOSING``);
    or it ends a short line (``LABEL_WORDS``); or a lower-case letter follows it in ``cased`` ("temp. ºC", "approx.
    three": no sentence starts so). A capital, or any letter when the case is lost, may open another sentence
    ("... in the system. The"): no abbreviation there."""
    i = end
    if i < len(text) and text[i] == "\t":
        return True
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] not in "\r\n":
        if text[i].isalpha():
            return cased is not None and len(cased) == len(text) and cased[i].islower()
        return text[i] not in _CLOSING
    line = text.rfind("\n", 0, start) + 1
    return len(_WORD.findall(text, line, end)) <= LABEL_WORDS
