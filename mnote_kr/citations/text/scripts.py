"""The Unicode script a text's letters are written in, any script: Latin, Cyrillic, Greek, Arabic, Hebrew, Hangul,
Devanagari, Thai ... and the CJK writing (Han ideographs with kana).

The older measures read two scripts, or a list: ``neutral.han_share`` counts Han characters against Latin words and
nothing else (a Russian or Korean passage holds neither: share 0, "Latin"), ``weakscript.latin_share`` Latin letters
against every letter, ``languages.language`` six named ones. The weak rule's across-scripts exemption, asking whether
the query's words can be matched in a passage at all, needs the script itself, whichever it is: a letter's script is
the first word of its Unicode name ("CYRILLIC SMALL LETTER A", "GREEK SMALL LETTER ALPHA", "ARABIC LETTER PEH",
"HANGUL SYLLABLE GA"), so no list of languages is kept. Han ideographs and kana are one script here, ``han``: the
ranking reads both as CJK bigrams, so a Chinese question can share words with a Japanese passage.

A text's units are its words in a spaced script (an Arabic or Hangul word counts one, as a Latin one does) and each
Han or kana character (no spaces between words there), as ``han_share`` counts them.
"""

from __future__ import annotations

import functools
import unicodedata

from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["HAN", "LATIN", "char_script", "main_script", "script_share", "script_units"]

HAN = "han"
LATIN = "latin"

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: A Han or kana character (one unit each); a run of other letters (one unit, read by its first letter); an ASCII word.
_HAN_CHAR = lazy_compile(f"[{_CJK}]")
_RUN = lazy_compile(f"[^\\W\\d_{_CJK}]+")
_ASCII_WORD = lazy_compile("[A-Za-z]+")
#: Unicode name words that are no script's (a width or a style), read past to the next word.
_FORM_WORDS = frozenset({"FULLWIDTH", "HALFWIDTH", "SMALL", "MODIFIER", "MATHEMATICAL", "CIRCLED", "PARENTHESIZED"})
#: Name words of the CJK writing (ideographs, radicals, kana).
_HAN_WORDS = frozenset({"CJK", "HIRAGANA", "KATAKANA", "KANGXI", "IDEOGRAPHIC"})


@functools.lru_cache(maxsize=8192)
def char_script(ch: str) -> str:
    """The script of letter ``ch``, lower case: the first word of its Unicode name (``latin``, ``cyrillic``,
    ``greek``, ``arabic``, ``hangul`` ...), ``han`` for the CJK writing, ``""`` for a character without a name."""
    words = unicodedata.name(ch, "").split()
    while words and words[0] in _FORM_WORDS:
        words = words[1:]
    if not words:
        return ""
    return HAN if words[0] in _HAN_WORDS else words[0].lower()


def script_units(text: str) -> dict[str, int]:
    """How many units (module docstring) of ``text`` each script writes."""
    return dict(_units(text))


@functools.lru_cache(maxsize=1024)
def _units(text: str) -> tuple[tuple[str, int], ...]:
    """``script_units``, kept per text (the weak rule reads one passage's script from several rules): an ASCII text's
    words by one scan of a small class (most passages), else two regex scans and a cached lookup per run of letters
    (about 2.5 times ``han_share``'s cost on a Russian passage)."""
    if text.isascii():
        latin = len(_ASCII_WORD.findall(text))
        return ((LATIN, latin),) if latin else ()
    counts: dict[str, int] = {}
    if han := len(_HAN_CHAR.findall(text)):
        counts[HAN] = han
    for run in _RUN.findall(text):
        script = char_script(run[0])
        counts[script] = counts.get(script, 0) + 1
    return tuple(counts.items())


def script_share(text: str, script: str) -> float:
    """The share of ``text``'s units written in ``script`` (0 without letters)."""
    counts = dict(_units(text))
    total = sum(counts.values())
    return counts.get(script, 0) / total if total else 0.0


def main_script(text: str) -> str | None:
    """The script most of ``text``'s units are written in (None without letters)."""
    counts = dict(_units(text))
    return max(counts, key=lambda s: counts[s]) if counts else None
