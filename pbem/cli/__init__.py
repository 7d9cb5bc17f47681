"""The command line (CLI.md): thin commands that parse, call pbem.session, print.

Every PbemError becomes one or two plain sentences on stderr and its exit code; any
other exception is a bug, reported without a traceback unless PBEM_DEBUG=1.

The group loads a command's module only when that command runs, completes or is listed
by --help (click's lazy loading: list_commands and get_command); the commands live one
family to a module beside this one, what they share in pbem.cli.common.
"""

from __future__ import annotations

import errno
import gc
import importlib
import os
import sys
from typing import Any, NoReturn

import click

from pbem import __version__
from pbem.cli.common import echo
from pbem.errors import PbemError

# A bug in pbem (an exception that is not a PbemError): EX_SOFTWARE from sysexits.h, so a
# script never mistakes it for a rules refusal (1) or a bad save (3, 4).
EXIT_INTERNAL = 70
# A file the system would not let pbem read or write, outside every check of the command
# itself: exit 2, as for an output file that cannot be written.
OS_REFUSED = 2
# What the system says when a file it names none of cannot be written: no room, no quota,
# a read-only disk, a failing one.
_DISK_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EROFS",
                                                           "EFBIG", "EIO")
                         if hasattr(errno, name))


def _file_refused(exc: OSError) -> bool:
    """Whether ``exc`` is the system refusing a file (no room, no permission), not a
    network's error (the mail modules word those; ssl.SSLError carries a reason)."""
    if isinstance(exc, ConnectionError | TimeoutError) or hasattr(exc, "reason"):
        return False
    return exc.filename is not None or exc.errno in _DISK_ERRNOS

# Command name -> (module in pbem.cli, the click command's name there).
COMMANDS: dict[str, tuple[str, str]] = {
    "keygen": ("setup", "keygen"),
    "whoami": ("setup", "whoami"),
    "rules": ("setup", "rules"),
    "new": ("setup", "new"),
    "join": ("setup", "join"),
    "merge": ("setup", "merge"),
    "demo": ("setup", "demo"),
    "games": ("history", "games_command"),
    "log": ("history", "log"),
    "undo": ("history", "undo"),
    "play": ("play", "play"),
    "moves": ("play", "moves"),
    "resign": ("absence", "resign"),
    "absent": ("absence", "absent"),
    "vote": ("absence", "vote"),
    "confirm": ("absence", "confirm"),
    "away": ("absence", "away"),
    "show": ("show", "show"),
    "verify": ("verify", "verify"),
    "send": ("mail", "send"),
    "remind": ("mail", "remind"),
    "inbox": ("mail", "inbox"),
    "sync": ("mail", "sync"),
    "auto": ("mail", "auto"),
    "contacts": ("mail", "contacts"),
    "profile": ("mail", "profile"),
}


def _fail(exc: PbemError) -> NoReturn:
    echo(f"pbem: {exc.message}", err=True)
    sys.exit(exc.exit_code)


class PbemGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            from pbem.cli import completion

            module, attr = COMMANDS[cmd_name]
            command = getattr(importlib.import_module(f"pbem.cli.{module}"), attr)
            completion.install(command)
            self.commands[cmd_name] = command
        return self.commands.get(cmd_name)

    def _main_shell_completion(self, ctx_args: Any, prog_name: str,
                               complete_var: str | None = None) -> None:
        # A completion request is answered by the class registered for its shell when
        # click starts answering it: pbem's go in first.
        if any(k.endswith("_COMPLETE") for k in os.environ):
            from pbem.cli import completion

            completion.register_shells()
        super()._main_shell_completion(ctx_args, prog_name, complete_var)

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:
            # click suggests from the commands loaded so far; suggest from them all.
            raise click.exceptions.NoSuchCommand(
                exc.command_name, possibilities=self.list_commands(ctx), ctx=ctx) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PbemError as exc:
            _fail(exc)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            echo("pbem: interrupted; nothing was written.", err=True)
            sys.exit(130)
        except BrokenPipeError:
            # The reader went away (`pbem show | head`): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # a bug: say so plainly, keep the traceback for debugging
            if os.environ.get("PBEM_DEBUG"):
                raise
            if isinstance(exc, OSError) and _file_refused(exc):  # the system's, not a bug
                where = f": {exc.filename}" if exc.filename else ""
                echo(f"pbem: A file of this command could not be read or written "
                     f"({exc.strerror or exc}{where}). Make room or fix the permissions, then "
                     "run it again.", err=True)
                sys.exit(OS_REFUSED)
            echo(
                f"pbem: internal error ({type(exc).__name__}: {exc}). Nothing was written. "
                "Please report it; PBEM_DEBUG=1 shows the details.",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--home", type=click.Path(file_okay=False), envvar="PBEM_HOME",
              help="This player's home (identity and archive). Default: $PBEM_HOME or a "
                   "per-user data folder.")
@click.version_option(__version__, prog_name="pbem")
@click.pass_context
def main(ctx: click.Context, home: str | None) -> None:
    """Play board games by email: signed saves, fair dice, no referee."""
    ctx.ensure_object(dict)
    ctx.obj["home"] = home


def run() -> None:
    """The ``pbem`` command (and ``python -m pbem``). A command runs once and exits, so
    what start-up has built is never garbage: frozen, the collector's passes while the
    command imports its modules need not walk it (about 5 ms of start-up). Only here, not
    in ``main``: a process that calls ``main`` many times (tests) must keep collecting.
    The first generation is collected after 20,000 new objects rather than 700: a command
    builds many objects and few cycles, and the passes this saves are about 1% of its
    instructions (valgrind); a long ``sync --every`` still collects."""
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
    main()

