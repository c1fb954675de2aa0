"""mnote-kr: a plugin host connecting a person's folders to a LightRAG knowledge base."""

from mnote_kr.errors import (
    DocumentError,
    LocatorError,
    MnoteKrError,
    PluginError,
    ProviderBusyError,
    ProviderError,
    RegistryError,
)
from mnote_kr.hookspecs import PROJECT_NAME, hookimpl

__version__ = "0.1.0"

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
