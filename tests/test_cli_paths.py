"""The two command-line parsers agree: for every click command and every spelling of each of its
options, the hand-written fast path (``cli/fast.py``) either parses the argument list exactly as
click does or leaves it to click.

The fast path stays hand-written because it exists to not import click (docs/cold-start.md has
the measured cost: click's import is about as long as the interpreter's own start); generating it
from the click definitions would need click at start-up, or a generated table kept in step by a
test like this one. This test walks click's definitions, so an option added to a command the fast
path knows is either parsed the same way or deferred, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from mnote_kr.cli import fast
from mnote_kr.cli.main import cli


def commands(group: click.Group, words: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every built-in command under ``group`` with the words that name it."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*words, name))
        else:
            yield (*words, name), command


def sample(param: click.Parameter, folder: Path) -> str:
    """A valid value for ``param``: a choice, a number, an existing folder, or a plain word."""
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(list(kind.choices)[-1])
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return "3"
    if isinstance(kind, click.Path):
        return str(folder)
    return "word"


def spellings(command: click.Command, folder: Path) -> Iterator[list[str]]:
    """Argument lists for ``command``: its arguments, then each spelling of each option alone,
    as ``--name value`` and ``--name=value``, once and twice; the options the fast path knows
    all together."""
    arguments = [sample(p, folder) for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.is_eager and not p.hidden]
    yield arguments
    every: list[str] = []
    for option in options:
        for spelling in (*option.opts, *option.secondary_opts):
            if option.is_flag:
                forms = [[spelling]]
            else:
                value = sample(option, folder)
                forms = [[spelling, value]]
                if spelling.startswith("--"):
                    forms.append([f"{spelling}={value}"])
            for form in forms:
                yield [*arguments, *form]
                yield [*form, *arguments]
                yield [*arguments, *form, *form]
            every += forms[0] if spelling != "--no-rerank" else []
    yield [*arguments, *every]


def clicks_reading(words: tuple[str, ...], argv: list[str], folder: Path) -> dict[str, Any] | None:
    """The keyword arguments click passes the command for ``argv`` (None: a usage error)."""
    command: click.Command = cli
    for word in words:
        assert isinstance(command, click.Group)
        command = command.commands[word]
    try:
        ctx = command.make_context(" ".join(words), list(argv))
    except click.UsageError:
        return None
    return dict(ctx.params)


def test_every_command_and_option_is_parsed_alike_or_left_to_click(tmp_path: Path) -> None:
    taken: dict[tuple[str, ...], int] = {}
    for words, command in commands(cli):
        for rest in spellings(command, tmp_path):
            for root in ([], ["-w", str(tmp_path)], [f"--workspace={tmp_path}"]):
                argv = [*root, *words, *rest]
                parsed = fast.parse(argv)
                if parsed is None:
                    continue  # click's own path: nothing to compare
                workspace, fast_words, as_json, kwargs = parsed
                assert fast_words == words, argv
                assert workspace == (str(tmp_path) if root else None), argv
                reading = clicks_reading(words, rest, tmp_path)
                assert reading is not None, f"the fast path took {argv}, which click refuses"
                assert reading.pop("as_json") == as_json, argv
                assert reading == kwargs, argv
                taken[words] = taken.get(words, 0) + 1
    # The walk did reach the fast path, for exactly the commands it serves.
    assert set(taken) == set(fast._SPECS), taken
    assert all(n >= 3 for n in taken.values()), taken


def test_every_fast_spelling_is_a_spelling_of_its_click_command() -> None:
    known = dict(commands(cli))
    for words, spec in fast._SPECS.items():
        command = known[words]
        spelled = {s for p in command.params if isinstance(p, click.Option) for s in (*p.opts, *p.secondary_opts)}
        assert set(spec.options) | {"--json"} <= spelled, words
        arguments = [p.name for p in command.params if isinstance(p, click.Argument)]
        assert arguments == ([spec.argument] if spec.argument else []), words
    root = {s for p in cli.params for s in p.opts}
    assert {"-w", "--workspace"} <= root


@pytest.mark.parametrize("planted", ["extra-option", "changed-default"])
def test_the_agreement_check_catches_a_fast_path_out_of_step(planted: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    spec = fast._SPECS[("search",)]
    if planted == "extra-option":  # the fast path takes a spelling click does not have
        options = {**spec.options, "--limit": ("top_k", "int")}
        monkeypatch.setitem(fast._SPECS, ("search",), spec._replace(options=options))
        assert fast.parse(["search", "q", "--limit", "3"]) is not None
        assert clicks_reading(("search",), ["q", "--limit", "3"], tmp_path) is None
        with pytest.raises(AssertionError):
            test_every_fast_spelling_is_a_spelling_of_its_click_command()
    else:  # the fast path's default drifted from click's
        monkeypatch.setitem(fast._SPECS, ("search",), spec._replace(defaults={**spec.defaults, "top_k": 10}))
        with pytest.raises(AssertionError):
            test_every_command_and_option_is_parsed_alike_or_left_to_click(tmp_path)
