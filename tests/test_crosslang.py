"""Questions in another language: CC-CEDICT's glosses and headwords, read from the installed wheel."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap

import pytest

from mnote_kr.citations.text import crosslang


@pytest.fixture(scope="module")
def book() -> crosslang.Dictionary:
    return crosslang.parse_cedict(gzip.decompress(crosslang.data_path().read_bytes()).decode("utf-8").splitlines())


def _line(simplified: str) -> str:
    """The dictionary's own line of a headword (the expected English is read from it, not from the code)."""
    text = gzip.decompress(crosslang.data_path().read_bytes()).decode("utf-8")
    return next(line for line in text.splitlines() if line.split(" ")[1:2] == [simplified])


def test_a_chinese_question_is_glossed_with_the_first_sense_of_its_words(book: crosslang.Dictionary) -> None:
    # 銀牌 银牌 [yin2 pai2] /silver medal/CL:枚[mei2]/ : the sense, not the classifier
    sense = _line("银牌").split("/")[1]
    found = crosslang.to_english("问哪个国家拿了两枚银牌", book)
    assert found is not None and found.into == "en"
    assert set(sense.split()) <= set(found.words)
    assert "country" in found.words  # 国家: country; nation; state
    assert "cl" not in found.words and "mei" not in found.words


def test_a_character_of_several_entries_gives_its_first_word_not_another(book: crosslang.Dictionary) -> None:
    # 的 is "of" (de5) before "taxi" (di1) and "target" (di4): the question's 的 is never a taxi
    found = crosslang.to_english("化验出来的结果", book)
    assert found is not None and {"chemical", "examination"} <= set(found.words)
    assert not {"taxi", "cab", "target"} & set(found.words)


def test_latin_words_and_numbers_of_a_chinese_question_stay(book: crosslang.Dictionary) -> None:
    found = crosslang.to_english("LightRAG 2024年的打字机", book)
    assert found is not None and found.text.split()[:2] == ["LightRAG", "2024"] and "typewriter" in found.words


def test_an_english_question_gives_the_headwords_whose_whole_first_sense_it_is(book: crosslang.Dictionary) -> None:
    assert _line("游乐园").endswith("/amusement park/")
    found = crosslang.to_chinese("Where is the amusement park?", book)
    assert found is not None and found.into == "zh" and found.words[0] == "游乐园"
    invented = crosslang.to_chinese("who invented the typewriter", book)
    assert invented is not None and {"发明", "打字机"} <= set(invented.words)


def test_nothing_to_translate_is_none(book: crosslang.Dictionary) -> None:
    assert crosslang.translate("what is it", book) is None  # stop words only
    assert crosslang.to_chinese("银牌", book) is None and crosslang.to_english("silver medal", book) is None


_NO_NETWORK = textwrap.dedent("""
    import socket
    def _refuse(*args, **kwargs):
        raise OSError("network disabled by the test's socket guard")
    socket.socket.connect = _refuse
    socket.socket.connect_ex = _refuse
    socket.getaddrinfo = _refuse
    socket.create_connection = _refuse
    from mnote_kr.citations.text import crosslang
    assert not crosslang.ready()
    print(crosslang.translate("两枚银牌").text, crosslang.ready())
""")


def test_the_dictionary_loads_from_the_wheel_with_every_socket_refused_and_is_cached(tmp_path) -> None:
    env = {**__import__("os").environ, "MNOTE_KR_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-c", _NO_NETWORK], capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["silver", "medal", "True"]
    assert len(list((tmp_path / "home" / "cache" / "crosslang").glob("cedict-*.msgpack"))) == 1
