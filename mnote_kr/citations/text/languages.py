"""Which written language a text is in, telling Japanese from Chinese by its kana.

The other script measures (``otherscript._amounts``, ``neutral.han_share``, ``deeper.script``) read Han and kana
alike as CJK: a Chinese question over a Japanese document then reads as asked in the document's own script, and the
rules that let a place in another language than the question's answer without the question's words never act
("企划提案书的提交截止时间是什么时候？" over a Japanese call for tenders, nc25b Q10: the date line "平成30年10月11日(木)
午後5時まで" holds no word of the question, as no Japanese line can hold its simplified ones). One measure here, shared
by the host and (through ``plugin_api.text_language``) the plugins: it was the LightRAG plugin's
``meaningquery.script``.
"""

from __future__ import annotations

from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["language", "other_language"]

_KANA = lazy_compile("[\u3040-\u30ff]")
_HAN = lazy_compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HANGUL = lazy_compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_ARABIC = lazy_compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]")
_CYRILLIC = lazy_compile("[\u0400-\u04ff]")
_LATIN = lazy_compile("[A-Za-z\u00c0-\u024f]")


def language(text: str) -> str | None:
    """The script most of ``text``'s letters are in: ``ja`` (Han with kana: a Japanese text, not a
    Chinese one), ``zh``, ``ko``, ``arabic``, ``cyrillic``, ``latin``; None without letters. Latin
    letters count a quarter each (a word of Latin letters says about what one Han character does)."""
    kana, han = len(_KANA.findall(text)), len(_HAN.findall(text))
    counts = {"ja": kana + han if kana else 0, "zh": 0 if kana else han, "ko": len(_HANGUL.findall(text)),
              "arabic": len(_ARABIC.findall(text)), "cyrillic": len(_CYRILLIC.findall(text)) / 4,
              "latin": len(_LATIN.findall(text)) / 4}
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] else None


def other_language(text: str, than: str) -> bool:
    """Whether ``text`` and ``than`` are both written and in different languages by :func:`language`."""
    mine, theirs = language(text), language(than)
    return mine is not None and theirs is not None and mine != theirs
