"""verify: check whole histories, one save or many."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from pbem.cli.common import (
    _absence_lines,
    _emit_json,
    _home,
    _late_json,
    _player_notices,
    _print_result,
    echo,
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

    home = _home(ctx)
    files: list[tuple[str, str | PbemError]] = []
    for text in saves:
        try:
            files.append((text, resolve_save(ctx, text)))
        except PbemError as exc:  # an id that fits no game or several: that file's line
            files.append((text, exc))
    worst = 0

    def learn(save: Any) -> list[Any]:
        return _player_notices(home, save, True)

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

    home = _home(ctx)
    try:
        verified = session.load(resolve_save(ctx, save), home, full=full)
    except PbemError as exc:
        if as_json:
            _emit_json({"ok": False, "game": None, "id": None, "entries": None, "to_act": None,
                        "over": None, "audit": None, "scores": None, "awaiting": [],
                        "errors": [{"code": exc.code, "seq": exc.seq, "message": exc.message}]})
            sys.exit(exc.exit_code)
        raise
    notices = _player_notices(home, verified.save, as_json)
    report = verified.report
    table = report.table
    duty = table.duty()
    told = report.result
    if as_json:
        _emit_json({
            "ok": report.audit in ("clean", "pending"),
            "game": table.header["game"], "id": table.game_id,
            "entries": len(table.signers),
            "to_act": table.seats[duty.seat].handle if duty else None,
            "next": duty.kind if duty else None,
            "over": table.over(),
            "audit": report.audit if isinstance(report.audit, list) else told["audit"],
            "scores": told["scores"], "ranking": told["ranking"], "rivals": told["rivals"],
            "parts": told["parts"], "winners": told["winners"], "ending": told["ending"],
            "revealed": told["revealed"], "unrevealed": told["unrevealed"],
            "awaiting": [table.seats[s].handle for s in table.awaiting_reveals()],
            "stale": verified.stale, "notes": verified.notes,
            "waiting": [w.to_json() for w in verified.waiting], "void": verified.void or None,
            "late": _late_json(verified),
            "absence": _absence_lines(table), "unaudited": report.unaudited,
            "closed": told.get("closed", []),
            "players": [n.to_json() for n in notices],
            "checked_from": report.checked_from, "round": _round(table), "errors": []})
    else:
        echo(f"{table.header['game']} {table.game_id[:8]}: {len(table.signers)} entries "
                   "verified (signatures, chain, beacon links, rules replay, snapshot)."
             + (f" {len(verified.waiting)} more entr"
                + ("y in the file, checked too, is" if len(verified.waiting) == 1
                   else "ies in the file, checked too, are")
                + " not in effect here yet (see below)." if verified.waiting else ""))
        if report.checked_from:
            echo(f"(The chain of all entries was checked; the rules replay of entries 0-"
                 f"{report.checked_from - 1} was verified before in this home; --full "
                 "re-runs it.)")
        for note in verified.notes:
            echo(note)
        if duty:
            echo(f"Next: {duty.kind} by {table.seats[duty.seat].handle}.")
        if _round(table):
            echo(_round_line(table))
        for line in _absence_lines(table):
            echo(line)
        awaiting = [table.seats[s].handle for s in table.awaiting_reveals()]
        if awaiting:
            echo(f"The game is over; the audit is pending until {', '.join(awaiting)} "
                 f"reveal{'s' if len(awaiting) == 1 else ''} (awaiting {awaiting[0]} now).")
        _print_result(report)
    if isinstance(report.audit, list):
        sys.exit(3)


def _round(table: Any) -> Any:
    from pbem.session import rounds

    return rounds.status(table)


def _round_line(table: Any) -> str:
    from pbem.session import rounds

    return rounds.status_line(table)
