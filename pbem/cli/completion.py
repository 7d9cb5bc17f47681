"""Shell completion (docs/PLAYING.md, "Shell completion"): every SAVE argument completes short ids
and files; play's and moves' MOVE arguments complete the legal moves (click's
shell_complete). A move of several words completes as one argument: zsh and fish quote
what they insert, bash does not, so pbem quotes it for bash."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import click


def _completion_home(ctx: click.Context) -> Any:
    from pbem.protocol.crypto.identity import Home, default_home

    root = ctx.find_root()
    given = root.params.get("home") or os.environ.get("PBEM_HOME")
    return Home(Path(given) if given else default_home())


def _complete_save(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """A game's short id (from 'pbem games') or a file name."""
    from click.shell_completion import CompletionItem

    from pbem.session import logbook

    items: list[Any] = []
    try:
        for record in sorted(logbook.games(_completion_home(ctx)), key=lambda r: r.id):
            if record.short_id.startswith(incomplete.lower()) and not record.complete:
                items.append(CompletionItem(record.short_id,
                                            help=f"{record.title}, entry {record.seq}"))
    except Exception:  # noqa: S110 - completion never prints an error into the shell
        pass
    return [*items, CompletionItem(incomplete, type="file")]


def _complete_move(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """The legal next moves of this home's seat after the moves already typed."""
    from click.shell_completion import CompletionItem

    from pbem import session
    from pbem.protocol.state.turns import split_moves
    from pbem.session import logbook

    save = ctx.params.get("save")
    if not save:
        return []
    try:
        home = _completion_home(ctx)
        path = logbook.find_save(home, str(save))
        typed = split_moves(list(ctx.params.get("moves") or ()))
        _, legal, _ = session.legal_moves(home, path, typed)
    except Exception:  # a bad save or no turn owed: nothing to offer
        return []
    return [CompletionItem(m) for m in legal if m.startswith(incomplete)]


def install(command: click.Command) -> None:
    """Give a command's SAVE and MOVE arguments their completion (done as the lazy group
    loads the command)."""
    for param in command.params:
        if isinstance(param, click.Argument) and param.name in ("save", "saves"):
            param._custom_shell_complete = _complete_save  # noqa: SLF001
        elif isinstance(param, click.Argument) and param.name == "moves" \
                and command.name in ("play", "moves"):
            param._custom_shell_complete = _complete_move  # noqa: SLF001


BASH_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]*")  # inserted by bash as it is: one word


def bash_word(text: str) -> str:
    """``text`` as bash should insert it: quoted when it has a space or a character bash
    treats specially. Single quotes, since the completion script reads each reply with
    'read', which would eat a backslash."""
    if BASH_PLAIN.fullmatch(text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def register_shells() -> None:
    """Use pbem's bash completion in place of click's (run before a completion request is
    answered)."""
    from click.shell_completion import BashComplete, CompletionItem, add_completion_class

    class QuotingBash(BashComplete):
        """click's bash completion, a reply of several words quoted: bash inserts a reply
        as it is, so 'route keep 1' would become three arguments."""

        def format_completion(self, item: CompletionItem) -> str:
            if item.type == "plain":
                return f"plain,{bash_word(item.value)}"
            return super().format_completion(item)

    add_completion_class(QuotingBash, "bash")
