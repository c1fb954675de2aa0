"""A question asking what a term is, and the text that names the term: its definition written in prose.

``locate.terms`` reads a standard's term lines ("3 术语和定义"); a paper, a manual or a note names its terms in its
sentences: "... in an advisory data structure which we call the “oracle”" (nc26b Q6, ``pdfjs__tracemonkey.pdf`` p5),
"a structure known as the oracle", "An elastic stop nut is a standard nut with ...", "这种结构称为oracle",
"oracle是指 ...". Such a sentence is what "What is the oracle in TraceMonkey?" asks for; the paragraphs after it use
the term more often ("we consult the oracle ... the now updated oracle information") and hold as many of the
question's words, so words and meaning alone cite them.

* :func:`asked_term`: the names of the term a question asks the meaning of ("What is/are X?", "What does X mean?",
  "Define X", "What is meant by X?", "什么是X", "X是什么(意思)", "X的定义/含义", "X指的是什么"), normalised, longest
  first: X as written and X without the setting after it ("oracle" of "oracle in TraceMonkey", "oracle" of
  "TraceMonkey中的oracle"). A question asking an attribute's value ("What is the minimum distance ...", "What is the
  name of ...") or what is done asks no term.
* :func:`asked_setting`/:func:`keeps_setting`: the words of the setting cut off ("aspirin" of "What are the side
  effects of aspirin?"), and whether a text a place would move to holds those the place's own text holds: a
  definition question's place leaves the text holding its setting for no general definition ("Unwanted reactions
  to any medicine are called side effects", review r27 finding 1).
* :func:`names_term`: whether a text names one of those terms by a naming phrase before it ("which we call the X",
  "we call this X", "called X", "known as X", "referred to as X", "termed X", "denoted X", "defined as X", 称为X,
  叫做X, 简称X, 名为X), defines it ("we define X as", "X is defined as", X是指, X指的是, X定义为, X是一种), or opens a
  sentence saying what it is ("The oracle is a ...", "X are the ..."). A text using the term ("we consult the oracle")
  does not.

Pure: no I/O.
"""

from __future__ import annotations

import functools
import re

from mnote_kr.citations.text.textnorm import lazy_compile, normalize

__all__ = ["asked_setting", "asked_term", "keeps_setting", "names_term"]

#: Questions asking what a term means, on the normalised question (lower case, one space, no end mark).
_ASKING = (
    lazy_compile(r"^what\s+(?:is|are)\s+meant\s+by\s+(?:an?\s+|the\s+)?(.+)$"),
    lazy_compile(r"^what\s+(?:is|are)\s+(?:the\s+)?(?:definition|meaning)\s+of\s+(?:an?\s+|the\s+)?(.+)$"),
    lazy_compile(r"^what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(.+)$"),
    lazy_compile(r"^what\s+does\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for)$"),
    lazy_compile(r"^(?:please\s+)?define\s+(?:an?\s+|the\s+)?(.+)$"),
    lazy_compile(r"^什么(?:是|叫)(?:做)?(.+)$"),
    lazy_compile(r"^(.+?)(?:是|指)什么(?:意思)?$"),
    lazy_compile(r"^(.+?)指的是什么$"),
    lazy_compile(r"^(.+?)的?(?:定义|含义)(?:是什么)?$"),
)
#: A question's first word after "what is (the)" that asks an attribute's value or a deed, not a term.
_NOT_TERMS = frozenset("""minimum maximum number amount size cost price name date time purpose role difference reason
    result effect value total rate percentage share length height width depth weight age status title address
    capital population first last main best most least next previous latest biggest largest smallest highest lowest
    fastest longest shortest average mean typical usual current new only other same done used needed required given
    made said known happening going difference relationship advantage disadvantage benefit""".split())
#: Words after which a term's setting begins ("oracle in tracemonkey", "angle of attack").
_SETTING_RE = lazy_compile(r"\s+(?:in|of|for|on|at|within|inside|from|by|with|between|under|during)\s+")
#: A setting's words: Latin words and Chinese runs ("aspirin", "阿司匹林").
_SETTING_WORD = lazy_compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Words of a setting that say none of it ("the dose of an adult", "the side effects of this drug").
_NOT_SETTING = frozenset("a an the this that these those its their his her our your my s".split())
#: Longest term (words): a question asking about a long phrase asks something else.
MAX_TERM_WORDS = 6
_END_MARKS = " ?？.。!！"


def _asked(question: str) -> tuple[str, str, str] | None:
    """The term ``question`` asks the meaning of as written, without its setting, and the setting cut off
    (normalised; the last two empty when nothing was cut); None when it asks none."""
    q = " ".join(normalize(question or "").split()).strip(_END_MARKS)
    for pattern in _ASKING:
        m = pattern.match(q)
        if m is None:
            continue
        term = m.group(1).strip(" '\"“”‘’《》「」")
        if not term or term.split()[0] in _NOT_TERMS or len(term.split()) > MAX_TERM_WORDS:
            return None
        if term.isascii():
            cut, *rest = _SETTING_RE.split(term, maxsplit=1)
            setting = rest[0] if rest else ""
        else:
            setting, _, cut = term.rpartition("的")
        cut, setting = cut.strip(), setting.strip()
        if not cut or cut == term or len(cut) < 2:
            return term, "", ""
        return term, cut, setting
    return None


def asked_term(question: str) -> tuple[str, ...]:
    """The names of the term ``question`` asks the meaning of, normalised, longest first; () when it asks none."""
    asked = _asked(question)
    if asked is None:
        return ()
    return tuple(n for n in asked[:2] if len(n) >= 2)


def asked_setting(question: str) -> tuple[str, ...]:
    """The words of the setting :func:`asked_term` cut off the term ``question`` asks about, normalised: "aspirin"
    of "What are the side effects of aspirin?", "tracemonkey" of "TraceMonkey中的oracle是什么"; () when none was
    cut. Articles and possessives are no setting's words; a Chinese setting's last 中/里/内/上 is its preposition."""
    asked = _asked(question)
    if asked is None or not asked[2]:
        return ()
    words = _SETTING_WORD.findall(asked[2].rstrip("中里内上"))
    return tuple(w for w in words if w not in _NOT_SETTING)


def keeps_setting(question: str, chosen: str, pick: str) -> bool:
    """Whether the text ``pick`` holds every word of the setting of ``question``'s term (:func:`asked_setting`)
    that the text ``chosen`` holds: a definition question's place moves from ``chosen`` to ``pick`` only then.
    "What are the side effects of aspirin?" stays on "Aspirin side effects include ...", not "... are called side
    effects"; "What is the oracle in TraceMonkey?" moves to "which we call the oracle" when the text it leaves
    does not say "TraceMonkey" either (the paper's subject, written in neither)."""
    setting = asked_setting(question)
    if not setting:
        return True
    have, there = " ".join(normalize(chosen).split()), " ".join(normalize(pick).split())
    return all(_holds(there, w) for w in setting if _holds(have, w))


def _holds(norm: str, word: str) -> bool:
    """Whether normalised text ``norm`` holds ``word`` (a Latin word at a word's start: "aspirin's" holds
    "aspirin")."""
    if not word.isascii():
        return word in norm
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}", norm) is not None


_QUOTE_OPEN = "[\"“'‘「『《]?"
_QUOTE_CLOSE = "[\"”'’」』》]?"
#: A naming phrase right before the term (English): "which we call the", "known as", "referred to as" ...
_BEFORE = (r"(?:\bcall(?:s|ed)?|\bnamed?|\btermed|\bdubbed|\bknown\s+as|\breferred\s+to\s+as|\brefer\s+to\s+\w+\s+as"
           r"|\bdenoted(?:\s+as|\s+by)?|\bdefined\s+as)\s+(?:(?:this|it|these|them|that)\s+)?(?:(?:an?|the)\s+)?")
_BEFORE_CJK = "(?:称为|称作|称之为|叫做|叫作|简称|名为|定义为)"
_AFTER_CJK = "(?:是指|指的是|被定义为|定义为|是一种|是一个|是一类)"


@functools.lru_cache(maxsize=64)
def _naming(name: str) -> re.Pattern[str]:
    """The phrases naming or defining term ``name`` (module docstring). Compiled with ``re`` itself: the term is the
    user's word, and the regex cache keeps what it compiles on disk."""
    term = r"[\s-]+".join(re.escape(w) for w in name.split())
    # beside Chinese a Latin term stands between any characters but Latin letters and digits ("称为oracle。")
    bare = rf"(?<![a-z0-9_-]){term}(?![a-z0-9_-])" if name.isascii() else term
    cjk = rf"{_BEFORE_CJK}\s*{_QUOTE_OPEN}\s*{bare}|{bare}\s*{_QUOTE_CLOSE}\s*{_AFTER_CJK}"
    if not name.isascii():
        return re.compile(cjk)
    word = rf"(?<![\w-]){_QUOTE_OPEN}{term}{_QUOTE_CLOSE}(?![\w-])"
    return re.compile(
        rf"{_BEFORE}{word}"
        # "we call this structure the oracle"
        rf"|\bcall(?:s|ed)?\s+(?:this|it|these|them|that|such)\s+(?:[\w-]+\s+){{0,3}}?(?:(?:an?|the)\s+)?{word}"
        rf"|\bdefine[sd]?\s+(?:(?:an?|the)\s+)?{word}\s+(?:as|to\s+be)\b"
        rf"|{word}\s+(?:\([^)]{{0,40}}\)\s+)?(?:is|are)\s+defined\s+as\b"
        # a sentence opening on the term and saying what it is: "The oracle is a data structure ..."
        rf"|(?:^|[.!?:;]\s+|\n\s*)(?:(?:an?|the)\s+)?{word}\s+(?:\([^)]{{0,40}}\)\s+)?(?:is|are)\s+(?:an?|the|one)\s"
        rf"|{cjk}")


def names_term(text: str, names: tuple[str, ...]) -> bool:
    """Whether ``text`` names or defines one of the term's ``names`` (:func:`asked_term`'s), as the module docstring
    says."""
    if not names or not text:
        return False
    norm = " ".join(normalize(text).split())
    return any(n in norm and _naming(n).search(norm) is not None for n in names)
