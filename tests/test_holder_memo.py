"""``caches.memo.HolderMemo``: the memo the locators keep a document's counts in (answer types shown, scripts)."""

from __future__ import annotations

from collections.abc import Callable

from mnote_kr.citations.caches.memo import HolderMemo


class Doc:
    """A stand-in for a document: equal to any other, so only identity tells two apart."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Doc)

    __hash__ = object.__hash__


def test_an_answer_is_worked_out_once_per_holder_and_again_for_another_holder_under_the_same_key() -> None:
    memo: HolderMemo[list[str]] = HolderMemo(4)
    made: list[str] = []
    first, second = Doc(), Doc()

    def make(name: str) -> Callable[[], list[str]]:
        return lambda: made.append(name) or [name]

    assert memo.get("k", first, make("first")) == ["first"]
    assert memo.get("k", first, make("again")) == ["first"]
    # the same key with another (equal, not identical) document: an id reused after the first died
    assert memo.get("k", second, make("second")) == ["second"]
    assert made == ["first", "second"]


def test_the_least_recently_used_answer_goes_first_when_the_memo_is_full() -> None:
    memo: HolderMemo[int] = HolderMemo(2)
    made: list[str] = []
    doc = Doc()

    def get(key: str) -> int:
        return memo.get(key, doc, lambda: made.append(key) or len(made))

    get("a"), get("b"), get("a"), get("c")  # "b" is the least recently used when "c" comes
    get("a")
    get("b")
    assert made == ["a", "b", "c", "b"]
