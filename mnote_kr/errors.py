"""The whole error tree of mnote-kr.

Every error the host or a plugin raises on purpose derives from ``MnoteKrError``.
The CLI turns one into ``Error: <message>`` and an exit code, the HTTP API into a
status code and ``{"error": {"code", "message", "hint"}}``; nowhere else catches them
broadly.

    MnoteKrError
    ├── UsageError            bad arguments or a request the caller can fix (exit 2, HTTP 400)
    │   └── PathNotAllowedError   traversal, absolute escape, symlink leaving a root
    ├── NotFoundError         an unknown citation, source or root (exit 1, HTTP 404)
    ├── IngestFailedError     ingest or sync finished, but some files failed to index (exit 1)
    ├── WaitTimeoutError      a --wait ended with files still being indexed (exit 1)
    ├── PluginError           a plugin failed to load or a hook raised
    ├── ProviderError         the retrieval provider failed (down, slow, garbage)
    │   ├── ProviderBusyError     the provider is busy; retry later, nothing is lost
    │   ├── ProviderStoppedError  the user stopped the provider's engine ('mnote-kr engine stop') during the work
    │   └── ProviderLostError     the provider stopped answering during a wait; ``report`` says what was done
    ├── LocatorError          a source file could not be read for locating
    │   └── DocumentError         broken, encrypted, oversized or hostile document
    │       └── OverBudgetError       over a reader's budget: refused before the provider sees it
    ├── RegistryError         the source registry cannot be read or written
    │   └── RegistryCorruptError  a snapshot on disk is unreadable (previous kept)
    ├── MissingSecretError    a required secret is not configured
    └── ConfigError           the configuration file is invalid
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging


class MnoteKrError(Exception):
    """Base of every deliberate mnote-kr error.

    ``hint`` says how to fix it; ``code`` is a stable machine-readable name.
    """

    code = "error"
    exit_code = 1
    http_status = 500

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class UsageError(MnoteKrError):
    """The caller asked for something impossible or malformed."""

    code = "usage"
    exit_code = 2
    http_status = 400


class PathNotAllowedError(UsageError):
    """A path resolves outside the workspace's allowed roots."""

    code = "path_not_allowed"
    http_status = 403

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(
            f"Path not allowed: {path}: {reason}",
            hint="give a path inside the workspace, without '..' or symlinks leaving it",
        )
        self.path = str(path)
        self.reason = reason


class NotFoundError(MnoteKrError):
    """An unknown citation, source, root or plugin."""

    code = "not_found"
    http_status = 404


class IngestFailedError(MnoteKrError):
    """Ingest (or sync) ran to the end, but some files failed to index; the report names them."""

    code = "ingest_failed"


class WaitTimeoutError(MnoteKrError):
    """``ingest --wait`` or ``sync --wait`` ran to the end of its wait with files still being indexed;
    the report names them, and the provider goes on indexing them."""

    code = "wait_timed_out"


class PluginError(MnoteKrError):
    """A plugin could not be loaded or one of its hooks raised."""

    code = "plugin"

    def __init__(
        self, message: str, *, plugin: str | None = None, hook: str | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.plugin = plugin
        self.hook = hook


class ProviderError(MnoteKrError):
    """The retrieval provider (LightRAG) failed: down, timed out, or answered garbage."""

    code = "provider"
    http_status = 502

    def __init__(self, message: str, *, url: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.url = url


class ProviderBusyError(ProviderError):
    """The provider is busy; the work is queued and retried later."""

    code = "provider_busy"
    http_status = 503

    def __init__(self, message: str, *, url: str | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, url=url, hint="the request stays queued and is retried by 'mnote-kr sync'")
        self.retry_after = retry_after


class ProviderStoppedError(ProviderError):
    """The user stopped the provider's engine ('mnote-kr engine stop') while this work used it: a stop asked for,
    not a failure. What it left undone is resumed by 'mnote-kr sync' or 'mnote-kr ingest' once the engine runs
    again; reports say so (nc28c read "processing when the provider stopped answering" after a stop)."""


class ProviderLostError(ProviderError):
    """The provider stopped answering while ``ingest --wait`` followed its work (its engine stopped): the
    ingest's ``report`` (``provider_error`` set) says which files were indexed and which not, and the CLI
    prints it before this error's one line (nc26c: an engine stopped mid-ingest left only that line)."""

    def __init__(self, message: str, *, report: Any, url: str | None = None,  # noqa: ANN401
                 hint: str | None = None) -> None:
        # ``report`` is an ``IngestReport``: this module sits below the models, so it is not named here
        super().__init__(message, url=url, hint=hint)
        self.report = report


class LocatorError(MnoteKrError):
    """A source file could not be read for locating a citation."""

    code = "locator"
    http_status = 422

    def __init__(self, message: str, *, path: str | Path | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.path = str(path) if path is not None else None


class DocumentError(LocatorError):
    """A document is broken, encrypted, oversized or hostile (zip bomb, entities)."""

    code = "document"


class OverBudgetError(DocumentError):
    """A document is over one of its reader's budgets (bytes, XML size, nesting, text, pages).

    ``limit`` names the budget (``"XML part size 64 MiB"``): the file is refused before the
    provider sees it (``check_budget``), where a merely broken file is still sent.
    """

    code = "over_budget"

    def __init__(self, message: str, *, limit: str, path: str | Path | None = None, hint: str | None = None) -> None:
        super().__init__(message, path=path, hint=hint)
        self.limit = limit


class RegistryError(MnoteKrError):
    """The source registry cannot be read or written."""

    code = "registry"

    def __init__(self, message: str, *, path: str | Path | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.path = str(path) if path is not None else None


class RegistryCorruptError(RegistryError):
    """A registry snapshot is unreadable; the previous generation is offered."""

    code = "registry_corrupt"


class MissingSecretError(MnoteKrError):
    """A required secret is not configured."""

    code = "missing_secret"
    exit_code = 2

    def __init__(self, name: str, env_var: str) -> None:
        super().__init__(
            f"No {name} configured",
            hint=f"run 'mnote-kr secrets set {name}' or set {env_var}",
        )
        self.name = name


class ConfigError(MnoteKrError):
    """The configuration file is invalid."""

    code = "config"
    exit_code = 2


def log_failure(logger: logging.Logger, method: str, path: str, exc: MnoteKrError, status: int | None = None) -> None:
    """A deliberate error the HTTP API or the web UI answers with a 5xx status (``status``; by default the
    error's own), in the server's log, as docs/http-api.md promises: the server's fault, or the provider's,
    where a 4xx is the client's. ``path`` without its query (a token may be in it)."""
    status = exc.http_status if status is None else status
    if status < 500:
        return
    say = logger.error if status == 500 else logger.warning
    say("%s %s answered %d %s: %s", method, path, status, exc.code, exc)
