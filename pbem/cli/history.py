"""A home's games and a game's past: games, log, undo."""

from __future__ import annotations

import click

from pbem.cli.common import (
    echo,
    emit_json,
    home_of,
    resolve_save,
)


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def games_command(ctx: click.Context, as_json: bool) -> None:
    """The games this home is in: whose move, how long they have waited, the newest save.

    Each game's short id can stand for SAVE in every command (the newest save this home
    wrote, verified or filed from the inbox)."""
    from pbem.protocol.saveformat import timing
    from pbem.session import gamelist

    home = home_of(ctx)
    listed = gamelist.listing(home, timing.now())
    if as_json:
        emit_json(gamelist.games_json(home, listed))
        return
    for line in gamelist.games_lines(listed):
        echo(line)


@click.command()
@click.argument("save")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def log(ctx: click.Context, save: str, as_json: bool) -> None:
    """The history: each entry (seq, kind, seat, signed time, moves), then what it did.

    Under each entry, the game's own account of what it changed: cards drawn, dice,
    refills, boom cards, scores and goods, not only the typed moves. SAVE is a save file,
    or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.protocol.saveformat import timing
    from pbem.session import logbook, reports

    home = home_of(ctx)
    told = logbook.history(resolve_save(ctx, save), home,
                           lambda parsed: range(len(parsed.entries)))
    table = told.verified.table
    acted = timing.last_acted([s.handle for s in table.seats], told.verified.save.entries)
    verified = told.verified
    if as_json:
        emit_json({"game": table.header["game"], "id": table.game_id,
                    "entries": [n.to_json() for n in told.notes],
                    "last_acted": [a.to_json() for a in acted],
                    "waiting": [w.to_json() for w in verified.waiting],
                    "late": reports.late_json(verified), "void": verified.void or None})
        return
    for line in reports.note_lines(told.notes):
        echo(line)
    now = timing.now()
    for line in [*(w.words(now) for w in verified.waiting),
                 *(late["words"] for late in verified.late),
                 *([verified.void] if verified.void else [])]:
        echo(line)
    echo(reports.acted_line(acted, logbook.own_handle(home)))


@click.command()
@click.argument("save")
@click.pass_context
def undo(ctx: click.Context, save: str) -> None:
    """Take back your newest entry before it is mailed (SAVE: the save you wrote, or the
    game's short id).

    The save you played on becomes the newest again (and the game's short id names it);
    play there again. The new entry takes the same place in the game, so chance comes
    out exactly as before."""
    from pbem.session import withdrawal

    done = withdrawal.withdraw(home_of(ctx), resolve_save(ctx, save))
    entry = done.entry
    moves = f": {'; '.join(entry['moves'])}" if entry["moves"] else ""
    echo(f"Took back entry {entry['seq']} ({entry['kind']} by {entry['seat']}{moves}).")
    echo(f"The withdrawn save is kept as {done.kept_as}: do not send it (pbem refuses it "
         "from now on).")
    again = "Wrote" if done.wrote_previous else "The save before it is"
    examples = " or ".join(f"'{command.format(save=done.previous)}'" for command in
                           _SIGN_AGAIN.get(entry["kind"], ("pbem play {save} MOVE ...",)))
    echo(f"{again} {done.previous}: sign again on it, e.g. {examples}. "
         "The new entry takes the same place (same number, same beacon link), so every "
         "chance it resolves comes out as before, and what it asks for stays unknown.")


# How to sign again what was taken back, by the kind of entry it was (a turn: play).
_SIGN_AGAIN = {"vote": ("pbem vote {save} accept", "pbem vote {save} refuse"),
               "absent": ("pbem absent {save} HANDLE --remedy REMEDY",),
               "confirm": ("pbem confirm {save}",), "away": ("pbem away {save} --until TIME",),
               "resign": ("pbem resign {save}",), "reveal": ("pbem play {save}",),
               "start": ("pbem play {save}",)}
