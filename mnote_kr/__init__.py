"""mnote-kr: a plugin host connecting a person's folders to a LightRAG knowledge base."""

from typing import TYPE_CHECKING

from mnote_kr.errors import (
    DocumentError,
    LocatorError,
    MnoteKrError,
    PluginError,
    ProviderBusyError,
    ProviderError,
    RegistryError,
)

if TYPE_CHECKING:
    from mnote_kr.hookspecs import PROJECT_NAME, hookimpl

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The hook markers need pluggy; a command that loads no plugin (``--help``) never pays for it.
    if name in ("PROJECT_NAME", "hookimpl"):
        from mnote_kr import hookspecs

        return getattr(hookspecs, name)
    raise AttributeError(f"module 'mnote_kr' has no attribute {name!r}")


__all__ = [
    "PROJECT_NAME",
    "DocumentError",
    "LocatorError",
    "MnoteKrError",
    "PluginError",
    "ProviderBusyError",
    "ProviderError",
    "RegistryError",
    "__version__",
    "hookimpl",
]
