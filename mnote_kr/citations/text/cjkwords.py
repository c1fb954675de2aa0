"""Which of a query's Chinese n-grams are words it asks for, read with the dictionary.

A Chinese query has no spaces, so the matchers cut it into character bigrams: "遗传性卵巢癌 检测方法"
gives 遗传 传性 性卵 卵巢 巢癌 检测 测方 方法. The bigrams a file holds are its words; of those it lacks,
some are words asked for (遗传, 卵巢, 检测: the file does not answer them) and some are cuts across two
words or a function character (性卵, 测方; 讲了, 了什 in "第3页讲了什么"), asked by nobody. The file alone cannot
tell them apart; the dictionary can: CC-CEDICT's headwords (``crosslang``), the query's Chinese runs cut
into the longest headwords from the left, its question and function words set aside.

``absent_words`` gives the words of two characters or more none of whose bigrams the file holds: a place is
exact for such a query only against the share of the query those words take (an absent Latin word counts
so already: ``namedplaces.asked_of_place``, the PDF locator's ``weighed``). Without the dictionary (the
package missing) no word is known: absent bigrams are cuts, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence

from mnote_kr.citations.text.textnorm import lazy_compile, normalize

__all__ = ["ASKED_WORDS", "ASKING_WORDS", "FUNCTION_WORDS", "READ_BOTH_WAYS", "WORDS_HELD", "absent_words",
           "lacked_words", "query_words"]

#: False: a CJK bigram a file lacks is never a word asked for, as before (the benchmarks' variant).
ASKED_WORDS = True

#: Headwords of the dictionary that glue a question together (pronouns, conjunctions, auxiliaries,
#: "this one", "a kind of"): never words asked for, as ``queryterms.STOP_WORDS`` for Latin.
FUNCTION_WORDS = frozenset("""
    我们 你们 他们 她们 它们 咱们 自己 这个 那个 这些 那些 这里 那里 这样 那样 这种 那种 一个 一些 一种 一下
    可以 能够 应该 需要 已经 没有 不是 就是 还是 或者 以及 而且 并且 但是 因为 所以 如果 虽然 然后 其中 之间
    之一 怎么 什么 哪些 哪个 哪里 如何 为什么 为何 是否 多少 请问 告诉 介绍 有关 关于 提到 说明 讲述 一样
    还有 也是 都是 有没有 是不是 文件 文档 里面 其他 其它 有些 哪儿 哪种 几个 主要 对于 由于 通过 进行
    内容 部分 相关 方面 何时 何地 怎样 怎么样 一下子 为了 以后 之后 以前 之前
""".split())

_CJK_RUN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: White space between two Chinese characters (a line wrapped inside a word).
_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_CJK_GAP = lazy_compile(rf"(?<={_HAN})\s+(?={_HAN})")


def query_words(query: str, *, backward: bool = False) -> tuple[str, ...]:
    """The query's Chinese words by the dictionary, in order, each once: every run of Chinese characters cut
    into the longest headwords from the left (``backward``: from the right), words of two characters or more that
    are no ``FUNCTION_WORDS`` (question words among them); none without the dictionary or ``ASKED_WORDS``."""
    return _query_words(normalize(query or ""), backward) if ASKED_WORDS else ()


@functools.lru_cache(maxsize=256)
def _query_words(norm: str, backward: bool = False) -> tuple[str, ...]:
    runs = _CJK_RUN.findall(norm)
    if not runs:
        return ()
    gloss = _headwords()
    if not gloss:
        return ()
    from mnote_kr.citations.text.crosslang import segment

    out: dict[str, None] = {}
    for run in runs:
        for word in segment(run, gloss, backward=backward):
            if len(word) >= 2 and word not in FUNCTION_WORDS:
                out.setdefault(word)
    return tuple(out)


def _headwords() -> dict[str, str]:
    """CC-CEDICT's headwords (the parse is cached on disk: a load of ~0.1 s, once per process); empty when
    the package or its data file is missing."""
    from mnote_kr.citations.text import crosslang

    try:
        return crosslang.dictionary().gloss
    except (OSError, ValueError):
        return {}


def absent_words(query: str | Sequence[str], held: Collection[str]) -> list[str]:
    """The query's Chinese words (``query_words``; or ``query`` itself, those words) none of whose bigrams
    ``held`` holds (a file's tokens): words asked for that the file lacks. A word some of whose bigrams the file
    holds is asked through those."""
    words = query_words(query) if isinstance(query, str) else query
    return [w for w in words if not any(w[i:i + 2] in held for i in range(len(w) - 1))]


#: A place claimed exact for a Chinese question holds each of its words as written, its characters together (False:
#: a share of the query's bigrams was enough, before round 24: "PSR团队里需要哪几种类型的评价人员" was exact on a
#: paragraph about training the 评价人员, "收益成本分析" on a table row holding 每股收益 and 营业成本, nc24a).
WORDS_HELD = True
#: Words of the dictionary that ask (how long, how many, which kinds, what it means: 什么意思): asked with, never
#: asked for.
ASKING_WORDS = frozenset("多久 多长 多大 多远 多高 多重 多深 多快 几次 几个 几种 几类 几年 几天 几月 意思".split())


def lacked_words(query: str, norm: str, besides: str = "") -> list[str]:
    """The query's Chinese words (``query_words``) that ``norm`` (a place's normalised text) does not hold as
    written: a place lacking one does not hold what the question asks, whatever share of its bigrams it holds. A
    word the file lacks too is lacked: no place of the file holds it. Not asked of the place: the ``ASKING_WORDS``,
    the verb a question word follows ("为了达到什么目的": 达到; "写进哪些内容": 写进, ``_asking_verbs``), and the words
    ``besides`` holds (normalised: the document's title, which names what every place of it is about). A line
    break or space between two Chinese characters (a PDF's line wrapping "诸暨\n市") joins them. The query is read
    both ways (``READ_BOTH_WAYS``): its words cut from the left and from the right, and the reading whose words the
    place lacks fewer of names them (on a tie, the reading cut as a reader would, ``_miscuts``, then from the right):
    "核安全法第十六条规定了什么" read from the left
    cuts 条规 across 第十六条|规定, a word no reader sees, and a paragraph quoting "第十六条明确规定" lacks none
    read from the right (nc28b). Empty without ``WORDS_HELD`` or the dictionary."""
    if not WORDS_HELD:
        return []
    left = _lacked(query_words(query), query, norm, besides)
    if not READ_BOTH_WAYS or not left:
        return left
    right = _lacked(query_words(query, backward=True), query, norm, besides)
    if len(right) != len(left):
        return right if len(right) < len(left) else left
    return right if _miscuts(normalize(query), True) <= _miscuts(normalize(query), False) else left


#: Structural and aspect particles: each follows a word (国家|的, 讨论|了, 研究|过), never standing alone after a
#: question or function word, nor first in a run: "如何|了|解和" and "如何|着|手下" are no reader's cut,
#: "如何|了解|和" is.
_PARTICLES = frozenset("的地得了着过")
#: Characters a reader sees standing alone in a question (particles, conjunctions, prepositions, adverbs, locatives,
#: numerals, demonstratives): a lone character of any other kind is the piece a cut left over ("国|家的": 国).
_LONE_CHARS = frozenset("的地得了着过和与及或并而且在是有为把被对从向于给让将就都也还又再很最更太不没别吗呢吧啊呀之其"
                        "此各每该本这那哪谁何几多上中下内外前后里间旁一二三四五六七八九十百千万亿两第个")


@functools.lru_cache(maxsize=256)
def _miscuts(norm: str, backward: bool) -> tuple[int, int, int]:
    """How far a reading of ``norm``'s Chinese runs (cut from the left, or from the right) is from a reader's, the
    least first: its particles standing alone with nothing before them to follow (a run's start, a question or
    function word, another particle); its lone characters of no ``_LONE_CHARS`` kind (国 of 国|家的, 决 of
    讨论|了解|决|方案); its particles standing alone (了 of 员工|了|解和|使用, where 员工|了解|和|使用 keeps it in a
    word). Every piece of either reading is a dictionary word (解和 and 家的 are headwords as much as 了解 and 国家),
    and many words start or end with a particle (了解, 着手, 目的, 过程): neither tells the two apart."""
    gloss = _headwords()
    if not gloss:
        return (0, 0, 0)
    from mnote_kr.citations.text.crosslang import segment

    stranded = lone = particles = 0
    for run in _CJK_RUN.findall(norm):
        pieces = segment(run, gloss, backward=backward)
        for k, piece in enumerate(pieces):
            if len(piece) > 1:
                continue
            if piece in _PARTICLES:
                before = pieces[k - 1] if k else ""
                stranded += not before or before in FUNCTION_WORDS or before in _PARTICLES
                particles += 1
            elif piece not in _LONE_CHARS:
                lone += 1
    return (stranded, lone, particles)


#: A place lacks the words of the query's reading it holds best, cut from the left or from the right (False: from the
#: left only, before round 28, when "第十六条规定" was asked its cut 条规).
READ_BOTH_WAYS = True


def _lacked(asked: Sequence[str], query: str, norm: str, besides: str) -> list[str]:
    """Of the words ``asked`` (a reading of ``query``), those ``norm`` does not hold (see ``lacked_words``)."""
    words = [w for w in asked if w not in ASKING_WORDS and w not in norm and w not in besides]
    if words and _CJK_GAP.search(norm):
        joined = _CJK_GAP.sub("", norm)
        words = [w for w in words if w not in joined]
    if words:
        verbs = _asking_verbs(normalize(query))
        words = [w for w in words if w not in verbs]
    return words


#: Words before a question word read as its verb phrase (an adverb and the verb: "需要重点关注哪些": 重点, 关注).
ASKING_VERB_WORDS = 2
#: Question words a verb before asks with ("达到什么目的", "包括哪些", "写进哪些内容", "排名第几").
_QUESTION_WORD = lazy_compile(r"什么|哪|多少|几|如何|怎样|怎么")


@functools.lru_cache(maxsize=256)
def _asking_verbs(norm: str) -> frozenset[str]:
    """The dictionary's words standing right before a question word in ``norm`` (``ASKING_VERB_WORDS``, back to a
    function word or a lone character): the question's verb, asked with (the answer says "目的是", not "达到"),
    never a word a place must hold."""
    gloss = _headwords()
    if not gloss:
        return frozenset()
    from mnote_kr.citations.text.crosslang import segment

    out: set[str] = set()
    for run in _CJK_RUN.findall(norm):
        pieces = segment(run, gloss)
        for k, piece in enumerate(pieces):
            if not _QUESTION_WORD.match(piece):
                continue
            # the verb and the adverb before it ("重点关注哪些"), back to a function word or a lone character
            for before in pieces[max(0, k - ASKING_VERB_WORDS):k][::-1]:
                if len(before) < 2 or before in FUNCTION_WORDS:
                    break
                out.add(before)
    return frozenset(out)
