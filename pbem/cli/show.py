"""show: the position, as text, JSON or a picture."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.common import (
    _absence_lines,
    _emit_json,
    _home,
    _late_json,
    _player_notices,
    _print_acted,
    _print_notes,
    _print_result,
    echo,
    resolve_save,
)


@click.command()
@click.argument("save")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--at", "at", type=click.IntRange(min=0), metavar="SEQ",
              help="Show the position after entry SEQ (as your seat saw it then) and what "
                   "that entry did.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this SVG file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a web page with the board and the text view.")
@click.option("--png", "png_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this PNG image.")
@click.pass_context
def show(ctx: click.Context, save: str, as_json: bool, at: int | None, svg_path: str | None,
         html_path: str | None, png_path: str | None) -> None:
    """The game as this home's seat sees it, and what the others did since your last turn.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.protocol import clock, timing
    from pbem.session import logbook, rounds

    home = _home(ctx)
    path = resolve_save(ctx, save)
    me = logbook.own_handle(home)

    def wanted(parsed: Any) -> range:
        """The entries to tell: entry SEQ with --at, else those since this seat's last."""
        if at is not None:
            _check_at(at, parsed)
            return range(at, at + 1)
        if me not in parsed.handles():
            return range(0)  # no seat here: no "since your last turn"
        mine = logbook.last_entry_of(parsed, me)
        return range(0 if mine is None else mine + 1, len(parsed.entries))

    told = logbook.history(path, home, wanted, keep=() if at is None else (at,))
    verified = told.verified
    notices = _player_notices(home, verified.save, as_json)
    entries = verified.save.entries
    last_seq = len(entries) - 1
    if at is None or (at == last_seq and verified.report.final is not None):
        table = verified.table
        handle, view, private = session.seat_view(home, verified)
    else:
        table = told.tables[at]
        handle, view, private = logbook.view_at(home, verified, table)
    shown_entries = entries if at is None else entries[:at + 1]
    acted = timing.last_acted([s.handle for s in table.seats], shown_entries)
    since = told.notes if at is None and handle else None
    duty = table.duty()
    to_act = table.seats[duty.seat].handle if duty else ""
    game = table.game
    seq = last_seq if at is None else at
    heading = f"{game.info.title} {table.game_id[:8]}, entry {seq}"
    pictures: list[tuple[str, str | bytes]] = []  # all drawn before any is written
    asked = {flag: path for flag, path in (("--svg", svg_path), ("--html", html_path),
                                           ("--png", png_path)) if path is not None}
    if asked:
        from pbem.drawing import page as render  # only to draw: it costs start-up time

        render.check_picture_targets(asked)  # no save, pipe or name twice: before drawing
    if svg_path:
        pictures.append((svg_path, render.svg_of(game, view)))
    if html_path:
        pictures.append((html_path, render.html_page(game, view, heading)))
    if png_path:
        pictures.append((png_path, render.png_page(game, view)))
    for target, picture in pictures:
        render.write_picture(target, picture)
    if as_json:
        data = {"game": table.header["game"], "id": table.game_id, "seat": handle,
                "to_act": to_act, "phase": table.phase(), "state": view,
                "private": private, "notes": verified.notes,
                "waiting": [w.to_json() for w in verified.waiting],
                "void": verified.void or None, "late": _late_json(verified),
                "players": [n.to_json() for n in notices],
                "last_acted": [a.to_json() for a in acted],
                "absence": _absence_lines(table),
                "result": verified.report.result if at is None else None,
                "round": rounds.status(table)}
        if at is None:
            data["since_your_last_turn"] = None if since is None else [n.to_json() for n in since]
            data["clock"] = clock.status(table)
            data["clock_terms"] = (clock.terms(table.header) if table.phase() == "joining"
                                   else None)
        else:
            data["at"] = at
            data["entry"] = told.notes[0].to_json()
            data["next"] = duty.kind if duty else None
        _emit_json(data)
        return
    if at is None:
        echo(f"{game.info.title}  game {table.game_id[:8]}  entry {last_seq}  "
             f"phase {table.phase()}")
    else:
        echo(f"{game.info.title}  game {table.game_id[:8]}  after entry {at} (of "
             f"{last_seq})  phase {table.phase()}")
        _print_notes(told.notes)
    if duty:
        you = ("  (you, but not on this branch: see below)"
               if verified.revealed_elsewhere is not None else "  (you)")
        echo(("Next: " if at is None else "Next then: ") + f"{duty.kind} by {to_act}"
             + (you if to_act == handle else ""))
        if rounds.status(table):
            echo(rounds.status_line(table))
    for line in _absence_lines(table):
        echo(line)
    if at is None:
        for line in clock.lines(table, timing.now()):
            echo(line)
        if table.phase() == "joining":  # an invitation: the clock a joiner accepts
            for line in clock.terms(table.header):
                echo(line)
    for note in verified.notes:
        echo(note)
    echo()
    echo(game.render(view))
    for picture_path in (svg_path, html_path, png_path):
        if picture_path:
            echo(f"Drew {picture_path}")
    if since is not None:
        mine = logbook.last_entry_of(verified.save, handle)
        echo()
        echo(f"Since your last entry ({mine}):" if mine is not None else
             "Since the start (you have signed nothing yet):")
        if since:
            _print_notes(since)
        else:
            echo("  nothing yet.")
    _print_acted(acted, handle)
    if not duty and (at is None or at == last_seq):
        _print_result(verified.report)


def _check_at(at: int, save: Any) -> None:
    from pbem.errors import UsageError
    from pbem.protocol import timing

    last = len(save.entries) - 1
    if at > last:
        raise UsageError(f"--at {at}: this save has entries 0 to {last}; give one of them.")
    cut = timing.in_effect(save.entries)
    if at >= cut:
        raise UsageError(f"--at {at}: entry {at} is not in effect here yet (it is dated, or "
                         "built on an entry dated, more than an hour ahead of this "
                         f"computer's clock); give one of entries 0 to {cut - 1}. 'pbem "
                         "verify' says from when it is in effect.")
