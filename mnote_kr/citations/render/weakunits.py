"""More of the weak rule (``noresults.weak_reason``): a question asking a measured quantity (a voltage, a current, a
power, a temperature, a pressure, a resistance) whose places state none.

"What is the voltage range of the electromagnetic lock's power supply?" over a Russian contract cited "Максимальный
входной ток: 6,5 А", a current, first, and was not said weak (nc29b section 2): the words of an English question cannot
be matched in a Russian place, and the passage around it is about the lock's power supply. What it asks can be: a
voltage is written as a number with its unit (``9 В``, ``12 V``, ``220 VAC``, "twelve volts"), whatever the language
around it, and a place stating no such number does not answer it. The answer, "от 9 В до 12 В", stands elsewhere in
the file.

:func:`unit_reason` says the search is weak when the question asks one of these quantities (:func:`asked`: a what- or
which-question naming it, "how many volts", 电压是多少), and the first place found (the first card's: what a reader
reads first) states no number in its unit, but numbers in another quantity's unit (the current of the nc29b case) or
no number at all (a heading, a name). A place with a bare number ("Voltage: 12", its unit in a column's header) may
answer, so it is never called weak; nor is a question asked as written or naming its file. A card further down
stating the quantity does not clear it (the first is what the flag speaks of; the reason says to check those below):
over this round's user folder, "蓄电池的电压是多少？" cited a battery's capacity "18 Ач" first, while a Chinese
spec sheet's "3.3V" line of another device stood third.
The units read for the quantity asked are read loosely (``12v``, ``12 в``), those of another strictly (their symbol's
case: a Latin "a" after a number is as often an article), so that a doubt leaves a search unflagged.

It is read before the exemptions for a query in another script than every passage: the units are read across scripts.
No tuning question of the retrieval sets asks such a quantity (``benchmarks/weak_variants.py``: no flag changed); the
probes of ``tests/test_weak_units.py`` are written from the corpus (a right answer in volts, amperes, watts and degrees
stays unflagged).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mnote_kr.citations.render.weakmore import names_its_answer

if TYPE_CHECKING:
    from mnote_kr.models import Citation

#: ``unit_reason`` is on (``benchmarks/weak_variants.py`` replays the rule with it off).
UNITS = True

_NUM = r"(?<![\w.,])\d+(?:[.,]\d+)?"
#: An English question asking what a quantity it names is ("What is the voltage range ...", "which temperature").
_WHAT = re.compile(r"^\s*(?:what|which)\b|\b(?:what|which)\s+(?:is|was|are|were|'s)\b|\bat\s+what\b", re.I)
#: A Chinese question asking how much of the quantity (电压是多少, 多少伏).
_ZH_ASKED = r"(?:是|为|有)?(?:多少|多大|多高|几)"

#: name -> (how a question names it, how a question asks it with its unit alone, its unit after a number read loosely,
#: its unit after a number read strictly).
_QUANTITIES: dict[str, tuple[str, str, str, str]] = {
    "voltage": (r"\bvoltages?\b", r"\bhow\s+many\s+(?:kilo|milli)?volts\b|电压" + _ZH_ASKED + r"|多少伏",
                r"[kmкм]?(?:v|в|volts?\b|вольт)",
                r"(?:[kmкм]?[VВ](?:DC|AC)?(?![\w])|(?:kilo|milli)?volts?\b|вольт)"),
    "current": (r"\b(?:electric(?:al)?\s+current|current\s+(?:draw|consumption|rating)|amperage"
                r"|(?:rated|nominal|maximum|minimum|max|input|output|load|operating|supply|charging)\s+current)\b",
                r"\bhow\s+many\s+(?:milli)?amp(?:ere)?s\b|电流" + _ZH_ASKED + r"|多少安",
                r"[mм]?(?:a|а|amps?\b|amperes?\b|ампер)",
                r"(?:[mмк]?[AА](?![\w/·])|(?:milli)?amp(?:ere)?s?\b(?![\s-]hour)|ампер)"),
    "power": (r"\b(?:wattage|power\s+(?:consumption|rating|output|draw|usage))\b",
              r"\bhow\s+many\s+(?:kilo)?watts\b|功率" + _ZH_ASKED + r"|多少瓦",
              r"[kmкм]?(?:w|вт|watts?\b|ватт)", r"(?:[kmMкМ]?(?:W|Вт)(?![\w])|(?:kilo)?watts?\b|ватт)"),
    "temperature": (r"\btemperatures?\b", r"\bhow\s+many\s+degrees\b|温度" + _ZH_ASKED + r"|多少度",
                    r"(?:°|º|℃|℉|degrees?\b|градус|度)", r"(?:°\s*[CFСК]?|℃|℉|degrees?\b|градус)"),
    "pressure": (r"\bpressures?\b", r"压力" + _ZH_ASKED + r"|压强" + _ZH_ASKED,
                 r"[kmгкм]?(?:pa|па|bar|бар|psi|atm|атм|mm\s*hg|мм\s*рт)",
                 r"(?:[kMGкМГ]?(?:Pa|Па)|bar|бар|psi|atm|атм)\b"),
    # a battery's charge ("18 Ач", "7 Ah"): asked rarely by name, read mostly as another quantity's unit
    "charge": (r"\b(?:ampere|amp)[\s-]hours?\b|\bmah\b", r"\bhow\s+many\s+(?:milli)?amp(?:ere)?[\s-]hours\b",
               r"[mм]?(?:ah|ач|а\s?ч|а·ч|amp(?:ere)?[\s-]hours?)",
               r"(?:[mм]?(?:Ah|A/h|Ач|А\s?ч|А/ч|А·ч)(?![\w])|mAh)"),
    "resistance": (r"\b(?:electrical\s+)?resistance\s+(?:value|rating)\b|\binsulation\s+resistance\b",
                   r"\bhow\s+many\s+ohms\b|电阻" + _ZH_ASKED,
                   r"[kmкм]?(?:ω|Ω|ohms?\b|ом)", r"(?:[kMкМ]?(?:Ω|Ом)|ohms?\b)"),
}
_NAMED = {k: re.compile(v[0], re.I) for k, v in _QUANTITIES.items()}
_ALONE = {k: re.compile(v[1], re.I) for k, v in _QUANTITIES.items()}
_LOOSE = {k: re.compile(rf"{_NUM}\s*(?:-\s*{_NUM}\s*)?{v[2]}", re.I) for k, v in _QUANTITIES.items()}
_STRICT = {k: re.compile(rf"{_NUM}\s*{v[3]}") for k, v in _QUANTITIES.items()}
_DIGIT = re.compile(r"\d")
#: The unit's name in words: a place naming it with no digit ("twelve volts", "напряжение в вольтах") may say the value
#: in words.
_WORDS = re.compile(r"\b(?:volts?|amp(?:ere)?s?|watts?|degrees?|pascals?|ohms?)\b|вольт|ампер|ватт|градус"
                    r"|伏|安培|瓦|摄氏", re.I)
#: How a reason names each quantity's unit.
_UNIT_NAMES = {"voltage": "volts", "current": "amperes", "power": "watts", "temperature": "degrees",
               "pressure": "pascals or bars", "charge": "ampere-hours", "resistance": "ohms"}


def asked(query: str) -> list[str]:
    """The quantities ``query`` asks (``_QUANTITIES``'s names, in its order): named in a what- or which-question
    ("What is the voltage range ..."), or asked by its unit ("how many volts", 多少伏, 电压是多少). "Who runs power
    distribution" asks none."""
    what = _WHAT.search(query) is not None
    return [k for k in _QUANTITIES if what and _NAMED[k].search(query) or _ALONE[k].search(query)]


def place_of(c: Citation) -> str:
    """The place a card shows, its own words: its quote, the locator's quote and place text, the headers and row
    label of its table cell (a cell "12" under "Voltage, V"); not its headings (a section's number is no value)."""
    loc = c.locator
    return "\n".join(x for x in (c.display_quote, loc.quote, loc.place_text, *loc.headers, loc.row_label) if x)


def states(quantity: str, text: str) -> bool:
    """``text`` states a number in ``quantity``'s unit, read loosely ("12v", "от 9 до 12 В", "12 volts")."""
    return _LOOSE[quantity].search(text) is not None


def other_units(quantity: str, text: str) -> list[str]:
    """The other quantities ``text`` states a number in the unit of, read strictly ("6,5 А" is a current)."""
    return [k for k in _QUANTITIES if k != quantity and _STRICT[k].search(text)]


#: A question asking a kind of answer a number states (``cues.answer_types``: an amount, a percentage, a distance, a
#: size, a speed) is weak when the first place holds no number at all (no digit, no number word) and no other rule
#: said so: "What is the total contract price including VAT?" cited the heading "Расчет цены контракта" (this round's
#: user check). A date, a duration or a frequency is as often said in words ("in the sixties", "a week", "annually"),
#: and a count too ("How many characters may the summary run to?", t5_en07, is answered on a place the rule's recorded
#: quote cuts before its number): not read. On round 26's floor dump (``benchmarks/weak_variants.py``, tuning groups)
#: it flags one more search, t5_en06 "How big may the applicant's headshot be?" (a wrong file first, on a line with no
#: number), and clears none; off-topic groups unchanged.
NUMBERLESS = True
_NUMBER_KINDS = ("money", "percent", "distance", "size", "speed")
_KIND_NAMES = {"money": "an amount", "percent": "a percentage", "distance": "a distance", "size": "a size",
               "speed": "a speed or rate"}
_NUMBER_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                          r"fifty|hundred|thousand|million|billion|dozen|half|halves|thirds?|quarters?|fifths?|tenths?|twice|double|triple)\b"
                          r"|[一二两三四五六七八九十百千万亿半]", re.I)


def numberless_reason(citations: list[Citation], query: str) -> str | None:
    """Why a search asking a kind of answer a number states is weak (``NUMBERLESS``), or None."""
    from mnote_kr.citations.rank.cues import answer_types
    from mnote_kr.citations.rank.ranking import fold

    if not NUMBERLESS or not citations or not query \
            or names_its_answer(c.diagnostics.score_parts for c in citations):
        return None
    kinds = [k for k in answer_types(fold(query)) if k in _NUMBER_KINDS]
    first = place_of(citations[0])
    if not kinds or not first.strip() or _DIGIT.search(first) or _NUMBER_WORD.search(first):
        return None  # (a card showing none of its place's words says nothing of what it holds)
    what = " or ".join(_KIND_NAMES[k] for k in kinds)
    return (f"the query asks {what}, and the first place found states no number: it does not answer it; check the "
            "places below it, or nothing in your files may answer it")


def unit_reason(citations: list[Citation], query: str) -> str | None:
    """Why a search asking a measured quantity is weak (module docstring), or None."""
    if not UNITS or not citations or not query or names_its_answer(c.diagnostics.score_parts for c in citations):
        return None
    kinds = asked(query)
    if not kinds:
        return None
    first = place_of(citations[0])
    if not first.strip() or any(states(k, first) for k in kinds):
        return None
    others = sorted({o for k in kinds for o in other_units(k, first)} - set(kinds))
    if others:
        what = "states " + " and ".join(f"a {o} (in {_UNIT_NAMES[o]})" for o in others) + ", no " + " or ".join(kinds)
    elif not _DIGIT.search(first) and not _WORDS.search(first):
        what = "states no number"
    else:
        return None
    wanted = " or ".join(kinds)
    units = " or ".join(_UNIT_NAMES[k] for k in kinds)
    return (f"the query asks a {wanted} (a number in {units}), and the first place found {what}: it does not answer "
            "it; check the places below it, or nothing in your files may answer it")
