"""An English question's exact place holds the words it asks that the document holds (``latinwords``).

The note and the evidence are nc24c's recording (note-084.md, cut from the trustee handbook, and the evidence LightRAG
gave for "How long must a trustee's computer password be?"): paragraph 3, about a trustee's computer rules, holds
"must", "trustee" and "computer", never "password", and was cited exact.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mnote_kr.citations.text.latinwords import asked_verb, is_question, lacked_latin_words
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.default_plugins.text_locator import clear_cache, locate
from mnote_kr.models import LocateRequest

NOTE_084 = (
    "# Note 084 - h Hard drives of all laptops\n\n"
    "h.\tHard drives of all laptops must be encrypted. The encryption tool must meet industry standards such as the "
    "most current Federal Information Processing Standard (FIPS).\n\n"
    "i. \tMobile storage media (for example, USB thumb drives) or the files on them must be encrypted.\n\n"
    "Standing trustees must have a set of rules governing the use of the standing trustee\u2019s computer system by "
    "employees.  These rules should explain the employee\u2019s responsibilities as a user and the penalties for "
    "noncompliance and should include policies for employees regarding Internet access, personal use of the computer, "
    "personal email and personal instant messaging.  All employees must sign the policy acknowledging receipt of "
    "these rules of behavior and an understanding of their responsibilities.  A sample policy statement is found in "
    "the Supplemental Materials.\n\n"
    "2.\tSystem administrators should not provide passwords to the users nor maintain a record of the user "
    "passwords.\n\n"
    "3.\tPasswords should be \u201chard\u201d passwords containing at least 8 alphanumeric characters which are a "
    "combination of numbers and letters.\n\n"
    "4.\tBiometric security devices in combination with passwords provide additional protections.\n\n"
    "5.\tExpense accounting software should be consistent with these security controls.\n\n"
    "6.\tStanding trustee may consider a software provider\u2019s offsite backup service, which automates the backup "
    "process.\n"
)
#: the evidence LightRAG's chunk gave the locator (nc24c's search JSON, ``locatorEvidenceText``)
EVIDENCE = (
    "i. Mobile storage media (for example, USB thumb drives) or the files on them must be encrypted.\n"
    "Standing trustees must have a set of rules governing the use of the standing trustee\u2019s computer system by "
    "employees."
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def _locate(tmp_path: Path, query: str):
    path = tmp_path / "note-084.md"
    path.write_text(NOTE_084, encoding="utf-8")
    before = path.read_bytes()
    loc = locate(LocateRequest(file=str(path), evidence=EVIDENCE, query=query, passage=NOTE_084))
    assert path.read_bytes() == before  # the user's note is read, never written
    return loc


def test_password_question_is_approximate_on_the_paragraph_without_password_and_own_words_exact(tmp_path: Path) -> None:
    loc = _locate(tmp_path, "How long must a trustee's computer password be?")
    assert loc.paragraph_index == 3
    assert loc.locator_degraded
    assert "password" in (loc.reason or "") and "semantic match" in (loc.reason or "")
    # the words the question asks with ("long": how long) or a modal ("must") are not asked of the place
    assert "long" not in (loc.reason or "").split("not ")[-1] and "must" not in (loc.reason or "").split("not ")[-1]
    # asked in the paragraph's own words, it stays exact; so it does beside a word no paragraph of the note holds
    # ("workstation": the question's own wording)
    for query in ("Which rules govern the use of a trustee's computer system?",
                  "Which rules govern the use of a trustee's workstation computer system?"):
        same = _locate(tmp_path, query)
        assert (same.paragraph_index, same.locator_degraded) == (3, False), (query, same.reason)


def test_lacked_latin_words_reads_questions_only() -> None:
    q = normalize("How long must a trustee's computer password be?")
    paras = [normalize(p) for p in NOTE_084.split("\n\n")]
    df: dict[str, int] = {}
    from mnote_kr.citations.text.textnorm import token_set
    for p in paras:
        for t in token_set(p):
            df[t] = df.get(t, 0) + 1
    qt = QueryTerms(q, df, len(paras))
    assert lacked_latin_words(q, qt, paras[3]) == ["password"]
    assert lacked_latin_words(q, qt, paras[7]) == ["password"]
    # "Passwords" holds "password"; "trustee's" and "computer" modify it: the head names what is asked
    assert lacked_latin_words(q, qt, paras[5]) == []
    # a word of the question standing alone is asked ("computer" here), written before another it is not
    alone = normalize("Which password rules apply to the computer?")
    assert lacked_latin_words(alone, QueryTerms(alone, df, len(paras)), paras[5]) == ["computer"]
    assert lacked_latin_words(q, qt, paras[3], besides="the trustee's computer password rules") == []
    statement = normalize("trustee computer password length")
    assert not is_question(statement)
    assert lacked_latin_words(statement, QueryTerms(statement, df, len(paras)), paras[3]) == []
    assert is_question("does a trustee need a password") and is_question("password length?")


#: nc26b Q3 (round 26): the handbook's "M. RETENTION OF RECORDS" (¶1725-¶1731 of unstructured__handbook-872p.docx in
#: body order), and a paragraph elsewhere writing "keep", as a note.
RETENTION = (
    "# M. RETENTION OF RECORDS\n\n"
    "All general ledgers, cash receipts ledgers and disbursement ledgers, and any other documents used in compiling "
    "the accounting records for the Annual Report must be retained in electronic format for a period of not less than "
    "seven years from the issuance of the Annual Report.  Trace reports must be retained in electronic format for a "
    "period of not less than seven years.\n\n"
    "The standing trustee must maintain all bank records, including bank statements, monthly bank reconciliations, "
    "canceled checks, and deposit slips, separate from individual case files and in chronological order, for a period "
    "of not less than seven years.  Canceled checks may be kept in an electronic format.\n\n"
    "Individual case receipts and disbursement records must be retained in electronic format for at least two years "
    "after an order closing the case and discharging the standing trustee is entered by the court.\n\n"
    "# N. OFFICE\n\n"
    "The standing trustee should keep the office open during regular business hours.\n"
)
LEDGERS = RETENTION.split("\n\n")[1].split("  Trace")[0]


def _locate_retention(tmp_path: Path, query: str):
    path = tmp_path / "retention.md"
    path.write_text(RETENTION, encoding="utf-8")
    return locate(LocateRequest(file=str(path), evidence=LEDGERS, query=query, passage=RETENTION))


def test_the_reason_names_the_lacked_word_as_a_word(tmp_path: Path) -> None:
    """nc26b Q3 read "holds some of the query's words, not keep (seg)": the word lacked, joined bare to the template
    and followed by the anchor's kind, read as a garbled phrase. The reason quotes it."""
    loc = _locate_retention(tmp_path, "Why must a trustee keep the general ledgers of the annual report?")
    assert loc.paragraph_index == 1 and loc.locator_degraded
    assert "query's words, not “keep”" in (loc.reason or ""), loc.reason
    assert "not keep (" not in (loc.reason or "")


def test_a_place_stating_the_kind_asked_may_say_the_questions_verb_in_other_words(tmp_path: Path) -> None:
    """nc26b Q3: "How long must a trustee keep the general ledgers after the annual report?" on the handbook's
    paragraph saying the ledgers "must be retained ... for a period of not less than seven years from the issuance of
    the Annual Report": every word of the question but its verb, and the duration it asks. A verb is paraphrased
    ("retained" for "keep"), as a statement's may be; the thing asked about (its nouns) is not."""
    loc = _locate_retention(tmp_path, "How long must a trustee keep the general ledgers after the annual report?")
    assert (loc.paragraph_index, loc.locator_degraded) == (1, False), loc.reason
    # asking no kind of answer, the place shows nothing for the verb it lacks
    why = _locate_retention(tmp_path, "Why must a trustee keep the general ledgers of the annual report?")
    assert why.locator_degraded
    # lacking a noun of the question besides its verb: the thing asked about is not there
    other = _locate_retention(tmp_path, "How long must a trustee keep the general ledgers and the case files?")
    assert other.paragraph_index != 1 or other.locator_degraded, other.reason


@pytest.mark.parametrize(("question", "verb"), [
    ("How long must a trustee keep the general ledgers after the annual report?", "keep"),
    ("How long does the warranty last?", "last"),
    ("How many years must the ledgers be kept?", "kept"),
    ("How often should the standing trustee reconcile the bank account?", "reconcile"),
    ("When did Weizenbaum create ELIZA?", None),  # a name after the verb: which word is the verb is not told
    ("When did weizenbaum create eliza", None),
    ("What is the oracle in TraceMonkey?", None),  # no auxiliary: no verb to paraphrase
    ("How long must a trustee's computer password be?", None),
])
def test_the_verb_of_a_question_is_the_word_after_its_auxiliarys_subject(question: str, verb: str | None) -> None:
    assert asked_verb(question) == verb


def test_the_reason_ends_without_the_anchor_s_internal_kind(tmp_path: Path) -> None:
    """nc29a: reasons ended in an unexplained "(seg)" ("matched evidence holding the query terms (seg)"), the
    matcher's name for the kind of evidence window it matched (seg, qwin, heading): a reader's reason says none."""
    loc = _locate_retention(tmp_path, "Why must a trustee keep the general ledgers of the annual report?")
    assert loc.reason and loc.locator_reason
    for said in (loc.reason, loc.locator_reason):
        assert not re.search(r"\((?:seg|qwin|heading|anchor)\)", said), said
