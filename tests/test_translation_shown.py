"""A newcomer turned ``translate_queries`` on and nothing showed it was on or what it did: the search's
``diagnostics.translation`` says, ``status`` says whether it is on and where set, and the human search
output says "also searched as: ..." only when the translation brought a file the user is shown.

End to end through ``Host`` on the recorded LightRAG payloads of ``test_pipeline_replay``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnote_kr.app.host import Host
from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.text import crosslang
from tests.test_pipeline_replay import AURORA, AURORA_REL, NOTES_REL, Env, chunk_of, fresh_caches, make_env, query_data

QUESTION = "西风原型机由谁设计"  # the Chinese part of notes.md answers it
_CJK = re.compile("[\u4e00-\u9fff]")


def _translating(env: Env) -> Env:
    """The same workspace with ``translate_queries = true`` in its ``.mnote/config.toml``."""
    (env.ws / ".mnote").mkdir(exist_ok=True)
    (env.ws / ".mnote" / "config.toml").write_text("[providers.lightrag]\ntranslate_queries = true\n",
                                                   encoding="utf-8")
    config = {**env.host.config, "providers": {"lightrag": {**env.host.config["providers"]["lightrag"],
                                                            "translate_queries": True}}}
    fresh_caches()
    return Env(host=Host(env.ws, config=config, transport=env.replay.transport), replay=env.replay, ws=env.ws,
               parsed=env.parsed)


def _answering(translated_finds: str):
    """``/query/data``: the Chinese question finds notes.md; its English translation finds ``translated_finds``."""
    chunks = {name: chunk_of("40_query_data_mix.json", name) for name in (AURORA, "notes.md", "upload_me.md")}

    def answer(request: httpx.Request) -> httpx.Response:
        asked = json.loads(request.content)["query"]
        name = "notes.md" if _CJK.search(asked) else translated_finds
        c = chunks[name]
        return httpx.Response(200, json=query_data(("1", name, c["chunk_id"], c["content"])))

    return answer


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    return make_env(tmp_path, monkeypatch)


def _bytes(env: Env) -> dict[str, str]:
    return {rel: hashlib.sha256((env.ws / rel).read_bytes()).hexdigest() for rel in (AURORA_REL, NOTES_REL)}


def test_search_says_the_translation_is_off_and_prints_nothing_of_it(env: Env) -> None:
    env.replay.add("POST", "/query/data", _answering(AURORA))
    result = env.search(QUESTION)
    assert result.diagnostics["translation"] == {"sent": False, "text": None, "addedFiles": 0, "added": [],
                                                 "reason": "off"}
    assert len(env.sent_queries()) == 1
    assert "also searched as" not in render_search(result)


def test_a_translation_that_brings_a_shown_file_is_in_the_json_and_one_human_line(env: Env) -> None:
    crosslang.dictionary()  # parsed: a search translates (a fresh install's first waits for it)
    before = _bytes(env)
    env = _translating(env)
    env.replay.add("POST", "/query/data", _answering(AURORA))
    result = env.search(QUESTION)
    sent = [q["query"] for q in env.sent_queries()]
    assert len(sent) == 2 and sent[0] == QUESTION and not _CJK.search(sent[1])
    told = result.diagnostics["translation"]
    assert told == {"sent": True, "text": sent[1], "addedFiles": 1, "added": [AURORA], "reason": None}
    assert {c.source_root_relative_path for c in result.results} == {NOTES_REL, AURORA_REL}
    lines = render_search(result).splitlines()
    assert [line for line in lines if "also searched" in line] == [f"also searched as: {sent[1]}"]
    assert _bytes(env) == before


@pytest.mark.parametrize("found", ["notes.md", "upload_me.md"])
def test_no_human_line_when_the_translation_brought_no_file_shown(env: Env, found: str) -> None:
    """The translation found the question's own file again, or a file nothing cites (not in the registry):
    the JSON says what it sent and added; the human output is the question's own."""
    crosslang.dictionary()
    env = _translating(env)
    env.replay.add("POST", "/query/data", _answering(found))
    result = env.search(QUESTION)
    told = result.diagnostics["translation"]
    assert told["sent"] is True and told["text"] == env.sent_queries()[1]["query"]
    assert told["added"] == ([] if found == "notes.md" else ["upload_me.md"])
    assert [c.source_root_relative_path for c in result.results] == [NOTES_REL]
    assert "also searched" not in render_search(result)


def test_why_no_translation_was_sent(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """An English question is not translated (only a Chinese one is, into English: ``crossquery.INTO``), and
    says so, not that it held nothing to translate; while the dictionary is parsed none is sent either."""
    env = _translating(env)
    env.replay.add("POST", "/query/data", _answering(AURORA))
    assert env.search("Who designed the Zephyr prototype?").diagnostics["translation"]["reason"] == \
        "only Chinese questions are translated"
    monkeypatch.setattr(crosslang, "ready", lambda: False)
    monkeypatch.setattr(crosslang, "prepare", lambda background=True: None)
    told = env.search(QUESTION).diagnostics["translation"]
    assert told["sent"] is False and told["reason"] == "dictionary not loaded yet"


def _status(env: Env) -> dict[str, Any]:
    env.replay.sample("POST", "/documents/paginated", "34_documents_paginated_all.json")
    return env.host.status()


def test_status_says_whether_query_translation_is_on_and_where_it_is_set(env: Env) -> None:
    off = _status(env)
    assert off["provider"]["extra"]["translateQueries"] == {"on": False, "setIn": None}
    assert [line for line in render_status(off).splitlines() if "translation" in line] == [
        "Setting:   query translation off (the default; translate_queries = true under [providers.lightrag] "
        "turns it on)"]
    env = _translating(env)
    on = _status(env)
    where = str(env.ws / ".mnote" / "config.toml")
    assert on["provider"]["extra"]["translateQueries"] == {"on": True, "setIn": where}
    assert [line for line in render_status(on).splitlines() if "translation" in line] == [
        f"Setting:   query translation on (translate_queries = true in {where})"]
