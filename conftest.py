"""Test-wide isolation: every test gets its own MNOTE_KR_HOME and an in-memory keyring."""

from __future__ import annotations

import keyring
import keyring.backend
import keyring.errors
import pytest


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that forgets everything when the test ends."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise keyring.errors.PasswordDeleteError(username)
        del self.store[(service, username)]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    home = tmp_path_factory.mktemp("mnote-home")
    monkeypatch.setenv("MNOTE_KR_HOME", str(home))
    for var in ("MNOTE_KR_LIGHTRAG_API_KEY", "LIGHTRAG_API_KEY", "MNOTE_KR_DISABLE_PLUGINS", "MNOTE_KR_TRACE_PLUGINS"):
        monkeypatch.delenv(var, raising=False)
    backend = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
