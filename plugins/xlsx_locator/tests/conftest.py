"""The XLSX locator's tests: every plugin loaded once a module."""

from __future__ import annotations

import pytest

from mnote_kr.plugins import load_plugins


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)
