"""The two bases of every contract in ``mnote_kr.models``: camelCase on the wire, keyword-only."""

from __future__ import annotations

import msgspec


class Base(msgspec.Struct, rename="camel", kw_only=True, omit_defaults=False):
    """Shared options: camelCase on the wire, keyword-only construction."""


class Frozen(msgspec.Struct, rename="camel", kw_only=True, frozen=True):
    """An immutable contract value (camelCase on the wire, keyword-only)."""
