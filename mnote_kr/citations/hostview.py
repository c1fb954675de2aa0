"""What the citation pipeline needs of a host: a narrow, typed view.

The pipeline takes this protocol rather than ``mnote_kr.app.host.Host`` so that the host can
call the pipeline without the two importing each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mnote_kr.context import ProviderContext
    from mnote_kr.core.registry import Registry, RegistryStore
    from mnote_kr.core.workspace import Workspace
    from mnote_kr.plugins import Plugins


class HostView(Protocol):
    """The parts of ``Host`` that search, ask and open use."""

    @property
    def root(self) -> Path: ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def plugins(self) -> Plugins: ...

    @property
    def config(self) -> dict[str, Any]: ...

    @property
    def store(self) -> RegistryStore: ...

    def context(self) -> ProviderContext: ...

    def registry(self) -> Registry: ...
