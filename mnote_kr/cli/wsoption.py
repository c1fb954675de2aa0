"""``--workspace`` after the command as well: ``mnote-kr status --workspace DIR`` as ``mnote-kr
--workspace DIR status``.

click gives a group's options to the group alone, so the same option is added to every command
under it (built-in and plugin-provided), with a callback that sets the workspace the group's
context object (``Ctx``) builds its host on. The commands that name no workspace (``plugins``,
``locate``) accept it and read none, as they do before the command. Two different folders, one
before and one after, are a usage error rather than a silent choice.
"""

from __future__ import annotations

import os

import click

from mnote_kr.cli.reports import Ctx

_SPELLINGS = ("--workspace", "-w")


def _set(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    obj = ctx.find_object(Ctx)
    if value is None or obj is None:
        return
    if obj.workspace is not None and os.path.realpath(obj.workspace) != os.path.realpath(value):
        raise click.UsageError(f"--workspace given twice, as {obj.workspace} and as {value}: give one", ctx=ctx)
    obj.workspace = value


def accept_after(command: click.Command) -> None:
    """Give ``command``, and every command under it, the group's ``--workspace``/``-w`` (unless it
    has an option of that spelling already); adding it twice does nothing."""
    if not any(spelling in param.opts for param in command.params for spelling in _SPELLINGS):
        command.params.append(click.Option(
            list(_SPELLINGS), type=click.Path(file_okay=False), default=None, expose_value=False, callback=_set,
            help="Workspace folder, as before the command (default: nearest folder upward holding .mnote/)."))
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_after(sub)
