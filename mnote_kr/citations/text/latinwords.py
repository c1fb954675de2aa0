"""Which of an English (Latin-script) question's words a place claimed exact must hold.

``cjkwords.lacked_words`` asks a place claimed for a Chinese question to hold each of its words as written. An
English question is read with the same rule, bounded by what English paraphrase allows: "How long must a trustee's
computer password be?" was claimed exact on the note paragraph about a trustee's computer rules (nc24b, nc24c), which
holds "must", "trustee" and "computer" (more than ``textmatch.QUERY_SHARE`` of the query's weight: "computer" is the
rarest word of that note) and never says "password"; the answer, "Passwords should be ... at least 8 alphanumeric
characters", was a place behind it. The document's rarity cannot tell the word asked about (the note says "password"
in three paragraphs, "computer" in one); that the document holds it and the place does not can.

A question's content word (``queryterms.content_terms``: its stop words and scaffolding aside) is asked of the place
when the document holds it somewhere (``QueryTerms.present``): a word no place of the document holds is the question's
own wording ("What legend explains ...", answered by "An apocryphal story ..."), which no place could hold. Not asked:
the word a question word asks with ("how long", "how many", "what colour": the answer states a length, a number, a
colour), modal verbs and quantifiers ("must", "many"), the document title's words, and a modifier: a word written
right before another content word of the question, or its possessor ("computer" and "trustee's" of "trustee's computer
password"; "annual" of "How many days of annual leave do new employees get?", answered by "New employees are entitled
to 20 days of paid leave per year"). The head names what is asked; whether a place lacking its modifier is the asked
thing's neighbour is ``locate.modifiers``' rule, which looks for the paragraph holding the two together. A word is
held standing alone
or inflected ("passwords" for "password"), not as a piece of a longer word. Only questions are read so (a question word
or auxiliary first, or a question mark last): a statement searched for ("Kempe Gowda established a mud fort in 1537")
is matched by its words, and its verbs may be paraphrased ("built"); so may a question's verb (``asked_verb``) in a
place stating the kind of answer the question asks: "How long must a trustee keep the general ledgers ...?" is answered
exact by "... ledgers ... must be retained ... for a period of not less than seven years" (nc26b Q3).
"""

from __future__ import annotations

import re

from mnote_kr.citations.text.queryterms import EMBEDDED_WEIGHT, QueryTerms
from mnote_kr.citations.text.textnorm import iter_tokens, normalize

__all__ = ["ASKED_HELD", "ASKING_AFTER", "MODAL_WORDS", "VERB_PARAPHRASED", "asked_verb", "is_question",
           "lacked_latin_words"]

#: A place claimed exact for an English question holds each of its content words the document holds (False: a share
#: of their weight was enough, before round 24's exact4).
ASKED_HELD = True
#: A place stating the kind of answer its question asks (``cues.answer_types``: "seven years" for "how long") may say
#: the question's verb in other words (``asked_verb``: "retained" for "keep"), as a statement's may (False: every
#: content word asked, as before round 26; nc26b Q3).
VERB_PARAPHRASED = True
#: Question words the next word asks with ("how long", "what colour", "which kind"): the answer states one.
ASKING_AFTER = frozenset("how what which".split())
#: Modal verbs and quantifiers: content words to ``queryterms`` (no stop words), never what a question asks about.
MODAL_WORDS = frozenset("must shall may might ought need needs many much several enough".split())
#: A question's first word that makes it one without a question mark ("is", "does", "can" ...).
_OPENERS = frozenset("""what how where why who which when whose whom is are was were do does did can could will would
    should shall must may might has have had""".split())


def is_question(query: str) -> bool:
    """Whether ``query`` (any case) is a question: it ends with a question mark or opens with a question word or
    an auxiliary."""
    text = (query or "").strip()
    if text.endswith(("?", "？")):
        return True
    first = next(iter_tokens(normalize(text)), None)
    return first is not None and first[0] in _OPENERS


def lacked_latin_words(query: str, qt: QueryTerms, norm: str, besides: str = "", *, states_kind: bool = False
                       ) -> list[str]:
    """The Latin content words of question ``query`` (as written) that ``norm`` (a place's normalised text) does
    not hold while the document does (``qt``: the query's terms over that document), the asking, modal and title
    (``besides``) words aside (see the module docstring); and, when the place ``states_kind`` of answer the question
    asks, the question's verb (``VERB_PARAPHRASED``). Empty for a statement or without ``ASKED_HELD``."""
    if not ASKED_HELD or not is_question(query):
        return []
    verb = asked_verb(query) if states_kind and VERB_PARAPHRASED else None
    q = normalize(query)
    words = [tok for tok, _s, _e in iter_tokens(q)]
    asking = {b for a, b in zip(words, words[1:], strict=False) if a in ASKING_AFTER}
    asking |= _modifiers(q, {t.word for k, t in enumerate(qt.terms) if not t.cjk and qt.weights[k] > 0})
    held = {k for k, _pos, w in qt.hits(norm) if w >= 2 * EMBEDDED_WEIGHT}
    title = {k for k, _pos, w in qt.hits(besides) if w >= 2 * EMBEDDED_WEIGHT} if besides else set()
    return [t.word for k, t in enumerate(qt.terms)
            if not t.cjk and t.word and qt.present[k] and qt.weights[k] > 0 and k not in held and k not in title
            and t.word not in asking and t.word not in MODAL_WORDS and t.word != verb]


#: A question's verb: after an auxiliary ("must", "does", "should" ...) and its subject (a determiner and one or two
#: words, or one word alone: "must a trustee keep", "should the standing trustee reconcile", "must ledgers be kept"),
#: followed by a determiner, a pronoun, a preposition or the question's end ("does the warranty last?"). Matched on the
#: question as written: a capitalised word is a name, no verb. "did Weizenbaum create ELIZA" tells no verb: a name
#: after a bare subject could as well be the object as the verb.
_DETERMINER = "a|an|the|this|that|these|those|my|our|your|his|her|its|their|each|every|all|any"
_VERB_RE = re.compile(
    rf"\b(?:must|should|shall|can|could|will|would|may|might|do|does|did)\s+"
    rf"(?:(?:{_DETERMINER})\s+[a-z][a-z-]*(?:['’]s)?(?:\s+[a-z][a-z-]*(?:['’]s)?)??|[a-z][a-z-]*)\s+"
    rf"(?:(?:be|been|have\s+been)\s+)?([a-z][a-z-]*)"
    rf"(?=\s+(?:{_DETERMINER}|it|them|him|us|me|you|for|after|before|until|during|on|in|at|by|to|from|with|within)\b"
    rf"|\s*[?.!]*\s*$)")


def asked_verb(query: str) -> str | None:
    """The verb of question ``query`` as written (``_VERB_RE``), lower case: the relation its answer states, which a
    place may write in other words ("retained" for "keep"); None when the question tells none."""
    m = _VERB_RE.search(" ".join((query or "").split()))
    verb = m.group(1) if m else None
    return None if verb is None or verb in MODAL_WORDS or verb in ("be", "been", "have") else verb


#: What stands between a modifier and the word it modifies: spaces and hyphens, after a possessive's "'s" or "'".
_MODIFIER_GAP = re.compile(r"(?:['’]s?)?[\s\-‐‑–]{1,3}")


def _modifiers(q: str, content: set[str]) -> set[str]:
    """The ``content`` words of normalised question ``q`` written right before another of them (``_MODIFIER_GAP``):
    "computer" and "trustee" of "trustee's computer password", never "password" (before "be")."""
    toks = [(tok, s, e) for tok, s, e in iter_tokens(q) if not (tok == "s" and s > 0 and q[s - 1] in "'’")]
    return {a for (a, _sa, ea), (b, sb, _eb) in zip(toks, toks[1:], strict=False)
            if a in content and b in content and a != b and _MODIFIER_GAP.fullmatch(q[ea:sb])}
