"""verify: check whole histories, one save or many."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from pbem.cli.common import (
    echo,
    emit_json,
    home_of,
    player_notices,
    resolve_save,
)
from pbem.errors import PbemError
from pbem.terminal import printable_json


@click.command()
@click.argument("saves", metavar="SAVE...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON (with several saves: one JSON object per line).")
@click.option("--full", is_flag=True, help="Re-check every entry, ignoring the archive.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
              metavar="N", help="With several saves: verify in N processes at once.")
@click.pass_context
def verify(ctx: click.Context, saves: tuple[str, ...], as_json: bool, full: bool,
           jobs: int) -> None:
    """Check everything: signatures, chain, beacon, rules replay, snapshot, audit.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'.

    \b
    With several saves, one line per file in the order given:
      PATH: ok (GAME ID, N entries[, audit clean][, stale])
      PATH: refused, exit CODE (GAME ID, N entries): REASON

    or with --json one JSON object per line, with the keys "path", "ok", "exit_code",
    "game", "id", "entries", "to_act", "next", "over", "audit", "scores", "stale",
    "notes", "players" and "errors" (as for one save). A bad file never stops the
    others. Exit 0 if
    every save verified, else the highest exit code among the files (1 rules, 2 usage,
    3 integrity, 4 malformed or missing, 70 a bug). The saves of one game are checked in
    one process, in the order given, so --jobs never changes what is printed."""
    if len(saves) > 1:
        _verify_many(ctx, list(saves), as_json, full, jobs)
        return
    _verify_one(ctx, saves[0], as_json, full)


def _verify_many(ctx: click.Context, saves: list[str], as_json: bool, full: bool,
                 jobs: int) -> None:
    from pbem import batch

    home = home_of(ctx)
    files: list[tuple[str, str | PbemError]] = []
    for text in saves:
        try:
            files.append((text, resolve_save(ctx, text)))
        except PbemError as exc:  # an id that fits no game or several: that file's line
            files.append((text, exc))
    worst = 0

    def learn(save: Any) -> list[Any]:
        return player_notices(home, save, True)

    for result, notices in batch.verify_many(home, files, full=full, jobs=jobs, learn=learn):
        worst = max(worst, result.exit_code)
        if as_json:
            data = {**result.to_json(), "players": [n.to_json() for n in notices]}
            click.echo(printable_json(json.dumps(data, sort_keys=True, ensure_ascii=False)))
            continue
        echo(result.line())
        for notice in notices:
            if notice.level == "warning":
                echo(f"{result.path}: {notice}", err=True)
    if worst:
        sys.exit(worst)


def _verify_one(ctx: click.Context, save: str, as_json: bool, full: bool) -> None:
    from pbem import session
    from pbem.session import reports

    home = home_of(ctx)
    try:
        verified = session.load(resolve_save(ctx, save), home, full=full)
    except PbemError as exc:
        if as_json:
            emit_json(reports.verify_failed_json(exc))
            sys.exit(exc.exit_code)
        raise
    notices = player_notices(home, verified.save, as_json)
    if as_json:
        emit_json(reports.verify_json(verified, notices))
    else:
        for line in reports.verify_lines(verified):
            echo(line)
    if reports.audit_failed(verified):
        sys.exit(3)
