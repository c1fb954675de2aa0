"""What the host hands to a provider plugin: configuration, directories, secrets, HTTP.

A provider never reads environment variables, keyring or platformdirs itself; it asks
the context, so tests can inject everything (``transport`` for ``httpx.MockTransport``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # httpx and ssl load with the first client: commands that make no HTTP call skip them
    import ssl

    import httpx

#: Default timeouts (seconds): connect fast, read long enough for a query with a real LLM.
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_CONNECT_TIMEOUT_S = 3.0

_ssl_context: ssl.SSLContext | None = None
_plain_context: ssl.SSLContext | None = None


def _shared_ssl_context() -> ssl.SSLContext:
    """One verified TLS context per process: building one loads the CA bundle (~20 ms),
    which would otherwise be paid on every provider call, even for loopback http URLs."""
    global _ssl_context
    if _ssl_context is None:
        import ssl

        _ssl_context = ssl.create_default_context()
    return _ssl_context


def _context_for(base_url: str) -> ssl.SSLContext:
    """The TLS context for a client of ``base_url``.

    A plain ``http://`` server never uses it, so it gets one without the CA bundle (the bulk
    of a fresh ``status`` process's client set-up). It still verifies certificates: with no
    CA loaded, a redirect to some ``https://`` place fails closed instead of trusting anything.
    """
    global _plain_context
    if base_url.lower().startswith("https:"):
        return _shared_ssl_context()
    if _plain_context is None:
        import ssl

        _plain_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, hostname checked
    return _plain_context


def _no_progress(message: str) -> None:
    return None


def _no_text(path: str) -> str | None:
    return None


def _no_pages(path: str) -> tuple[int, int] | None:
    return None


def _no_suffixes() -> frozenset[str]:
    return frozenset()


@dataclass
class ProviderContext:
    """Everything a provider plugin may use.

    ``config`` is the provider's own section of the configuration
    (``[providers.<name>]``); ``secret(name)`` resolves a secret through the host's
    helper (environment first, then keyring) and returns None when it is not set.
    """

    provider: str
    workspace_root: Path
    config: dict[str, Any]
    data_dir: Path
    state_dir: Path
    cache_dir: Path
    secret: Callable[[str], str | None]
    transport: httpx.BaseTransport | None = None
    progress: Callable[[str], None] = field(default=_no_progress)
    #: The text of a user's file as mnote-kr's own reader for its type sees it (Markdown), or
    #: None; for files the provider's parser fails on or reads only in part (a deck's speaker
    #: notes). Raises ``DocumentError`` when unreadable.
    extract_text: Callable[[str], str | None] = field(default=_no_text)
    #: The text of a file some of whose pages only OCR can read (a PDF with scanned pages: its
    #: text layer's pages and the recognised ones, ``## Page N`` before each), or None when every
    #: page has its text (or no OCR plugin is loaded). Raises ``DocumentError`` when unreadable.
    recognize_text: Callable[[str], str | None] = field(default=_no_text)
    #: ``(pages read by OCR, pages in all)`` of a file ``recognize_text`` recognised, or None (unknown).
    recognized_pages: Callable[[str], tuple[int, int] | None] = field(default=_no_pages)
    #: The suffixes (``".psv"``, lowercased) whose files a loaded plugin reads as text: the locator chosen
    #: for the extension implements ``extract_text``. A provider may send such a file of a type it does not
    #: read as that text (``extract_text``); which plugin reads it is the host's business.
    text_suffixes: Callable[[], frozenset[str]] = field(default=_no_suffixes)
    #: Every registry entry's path, document id, provider name and liveness (``EntryColumns``), read
    #: when called; None from a host that offers none. A renamed file keeps its document under a
    #: name made for its old path: the provider must not take that name for the old path's.
    entry_columns: Callable[[], Any] = field(default=lambda: None)
    #: False for a report that must not start what the provider starts on demand (the managed
    #: engine's server for this workspace): ``status`` of a workspace with no files. The provider
    #: then reports what runs, or ``ProviderStatus.not_started`` (when it would start).
    may_start: bool = True

    def http_client(self, base_url: str, *, timeout: httpx.Timeout | float | None = None,
                    headers: dict[str, str] | None = None, connect_timeout: float | None = None) -> httpx.Client:
        """An httpx client with explicit timeouts and the injected transport, if any.

        For a plain ``http://`` URL and no injected transport, the client is a
        :class:`mnote_kr.plainhttp.PlainClient` (standard library, same interface for JSON
        requests): a fresh CLI process then never imports httpx for a loopback provider.
        """
        read_s = DEFAULT_TIMEOUT_S if timeout is None else timeout
        connect_s = connect_timeout if connect_timeout is not None else DEFAULT_CONNECT_TIMEOUT_S
        if not isinstance(read_s, (int, float)):  # an httpx.Timeout
            connect_s = read_s.connect if read_s.connect is not None else connect_s
            read_s = read_s.read if read_s.read is not None else DEFAULT_TIMEOUT_S

        def real() -> httpx.Client:
            import httpx

            return httpx.Client(
                base_url=base_url,
                timeout=httpx.Timeout(read_s, connect=connect_s),
                headers=headers,
                transport=self.transport,
                verify=_context_for(base_url),
                trust_env=False,  # loopback services must not go through a proxy
            )

        if self.transport is None and base_url.lower().startswith("http://"):
            from mnote_kr.plainhttp import PlainClient

            plain: Any = PlainClient(base_url, timeout=float(read_s), connect_timeout=float(connect_s),
                                     headers=headers, fallback=real)
            return plain  # typed as the httpx client it stands in for
        return real()
