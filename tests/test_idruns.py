"""Runs of counting strings (the registry's compact chunk ids): lossless for any list of strings."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnote_kr.core.idruns import MAX_COUNT, MAX_PREFIX, MAX_WIDTH, IdRun, expand, expand_run, expand_runs, run_of


def counting(prefix: str, start: int, count: int, width: int) -> list[str]:
    """The list a run stands for, spelled out here independently of the module."""
    return [prefix + str(k).zfill(width) for k in range(start, start + count)]


def test_ids_that_count_up_are_one_run_and_expand_back() -> None:
    ids = [f"doc-5f3a-chunk-{c:03d}" for c in range(22)]
    assert run_of(ids) == ("doc-5f3a-chunk-", 0, 22, 3)
    assert expand("doc-5f3a-chunk-", 0, 22, 3) == ids
    assert expand_run(IdRun("doc-5f3a-chunk-", 0, 22, 3)) == ids
    assert expand("a\0-", 8, 3, 1) == counting("a\0-", 8, 3, 1)  # never found by run_of, but decodes right


@pytest.mark.parametrize(("ids", "run"), [
    (["x-998", "x-999", "x-1000", "x-1001"], ("x-", 998, 4, 3)),  # the padding is a minimum width
    (["p5", "p6", "p7", "p8", "p9", "p10"], ("p", 5, 6, 1)),
    (["000", "001", "002"], ("", 0, 3, 3)),  # no prefix at all
    (["a-0099", "a-0100"], ("a-", 99, 2, 4)),
    ([f"z{k:05d}" for k in range(20_000, 20_050)], ("z", 20_000, 50, 5)),  # past the cached tables
    ([f"w{k:012d}" for k in range(3)], ("w", 0, 3, 12)),  # a width with no cached table
    (["é-01", "é-02"], ("é-", 1, 2, 2)),
])
def test_edge_runs(ids: list[str], run: tuple[str, int, int, int]) -> None:
    assert run_of(ids) == run
    assert expand(*run) == ids == counting(*run)


@pytest.mark.parametrize("ids", [
    [],
    ["doc-chunk-000"],  # one id: kept as written
    ["x-001", "x-003"],  # a gap
    ["x-001", "x-000"],  # counting down
    ["x-001", "x-01"],  # the width changes
    ["x-01", "x-002"],
    ["x-000", "y-001"],  # another prefix
    ["x-000", "x-001", "x-001"],
    ["a\0-000", "a\0-001"],  # a NUL in the prefix: the check joins with NULs, so none is a run
    ["x-000", "x-001\0x-002"],  # one string holding a NUL that looks like two of the run
    ["x-000\0x-001", "x-002"],
    ["abc", "abd"],  # no number
    ["x-٠", "x-١"],  # digits that are not ASCII
    ["x-000", 1],  # not all strings
    [1, 2],
    [f"x{'0' * (MAX_WIDTH + 1)}", f"x{'0' * MAX_WIDTH}1"],  # wider than a stored run may be
])
def test_lists_that_are_not_exactly_a_run_are_kept_as_they_are(ids: list) -> None:
    assert run_of(ids) is None


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet=st.sampled_from("ab-0123456789\0é"), max_size=6), max_size=8))
def test_any_list_of_strings_is_a_run_only_if_the_run_expands_to_it(ids: list[str]) -> None:
    run = run_of(ids)
    assert run is None or expand(*run) == ids


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(prefix=st.text(alphabet=st.sampled_from("ab-_.\0é9"), max_size=5), start=st.integers(0, 12_000),
       count=st.integers(2, 40), width=st.integers(1, 6), edit=st.integers(-1, 45),
       how=st.sampled_from(["none", "drop", "dup", "char", "swap"]))
def test_counting_lists_and_near_misses_round_trip(prefix: str, start: int, count: int, width: int, edit: int,
                                                    how: str) -> None:
    ids = counting(prefix, start, count, width)
    i = edit % count
    if how == "drop":
        del ids[i]
    elif how == "dup":
        ids.insert(i, ids[i])
    elif how == "char":
        ids[i] = ids[i] + "7"
    elif how == "swap" and count > 2:
        ids[i], ids[(i + 1) % count] = ids[(i + 1) % count], ids[i]
    run = run_of(ids)
    assert run is None or expand(*run) == ids
    if how == "none" and "\0" not in prefix and not prefix[-1:].isdigit():
        assert run is not None and run[:3] == (prefix, start, count)  # a clean run is always found
        assert run[3] == max(width, len(str(start)))  # the width of the first number as written


def test_a_stored_run_outside_the_limits_does_not_decode() -> None:
    decoder = msgspec.msgpack.Decoder(IdRun)
    assert decoder.decode(msgspec.msgpack.encode(["p", 0, 3, 3])) == IdRun("p", 0, 3, 3)
    for bad in (["p", -1, 3, 3], ["p", 0, 0, 3], ["p", 0, 3, 0], ["p", 0, 3, MAX_WIDTH + 1], ["p", 0, 1 << 40, 3]):
        with pytest.raises(msgspec.ValidationError):
            decoder.decode(msgspec.msgpack.encode(bad))


def test_expanding_the_runs_of_a_chunk_matches_expanding_each() -> None:
    runs = [IdRun("d-", 0, 5, 3), None, IdRun("x\0", 7, 2, 1), IdRun("w", 16_380, 9, 2), IdRun("z", 0, 2, 20)]
    assert expand_runs(runs) == [counting("d-", 0, 5, 3), None, counting("x\0", 7, 2, 1),
                                 counting("w", 16_380, 9, 2), counting("z", 0, 2, 20)]


def test_runs_past_the_stored_bounds_stay_lists_and_a_damaged_run_past_them_is_refused() -> None:
    """What a few damaged bytes can make a reader build is bounded: a run's count and prefix
    length are capped; a longer list or prefix is kept as the list it is (still lossless)."""
    long_prefix = "p" * (MAX_PREFIX + 1)
    assert run_of([f"{long_prefix}{k:03d}" for k in range(3)]) is None
    assert run_of([f"x-{k:06d}" for k in range(MAX_COUNT + 1)]) is None
    assert run_of([f"x-{k:06d}" for k in range(MAX_COUNT)]) == ("x-", 0, MAX_COUNT, 6)
    decoder = msgspec.msgpack.Decoder(IdRun)
    for bad in ([long_prefix, 0, 3, 3], ["p", 0, MAX_COUNT + 1, 3]):
        with pytest.raises(msgspec.ValidationError):
            decoder.decode(msgspec.msgpack.encode(bad))
