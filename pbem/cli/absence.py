"""Leaving and missing players: resign, absent, vote, confirm, away."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.common import (
    ACCEPT_KEY,
    NOTE,
    away_time,
    echo,
    home_of,
    interactive,
    mail_after,
    mail_plan,
    resolve_save,
    send_options,
    sign_entry,
    with_note,
)

RESIGN_MEANS = ("Resigning ends the game on your turn: you rank last; the others are ranked "
                "by the scoring of the position now, every score as the rules compute it. "
                "You still owe your final reveal afterwards.")


@click.command()
@click.argument("save")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.option("--yes", is_flag=True, help="Resign without being asked (for scripts).")
@NOTE
@ACCEPT_KEY
@send_options
@click.pass_context
def resign(ctx: click.Context, save: str, out: str | None, yes: bool, note: str | None,
           accept_keys: tuple[str, ...], send_it: bool, to: tuple[str, ...], no_cc: bool,
           **smtp_given: Any) -> None:
    """Concede on your turn: you rank last; the others are ranked by the scoring of the
    position now. At a terminal it asks first; --yes for scripts.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.errors import UsageError

    fields = with_note(None, note)
    path = resolve_save(ctx, save)
    mailing = mail_plan(home_of(ctx), send_it, to, no_cc, smtp_given)
    if not yes:
        if not interactive():
            raise UsageError(f"{RESIGN_MEANS} Nobody is at a terminal to confirm it: add "
                             "--yes to resign.")
        echo(RESIGN_MEANS)
        if not click.confirm("Resign?", default=False):
            echo("Not resigned; nothing was written.")
            return
    written = sign_entry(ctx, path, "resign", [], None, out, accept_keys, fields=fields)
    from pbem.protocol.timekeeping.absence import ranked_others

    seat, table = written.entry["seat"], written.table
    rivals = list(table.game.score_now(table.gstate).rivals)
    echo(f"{seat} resigned: {seat} ranks last; "
         f"{ranked_others(table, [table.resigned], rivals, 'the position now')}.")
    echo(f"Wrote {written.path}")
    mail_after(ctx, written, mailing)


@click.command()
@click.argument("save")
@click.argument("handle")
@click.option("--remedy", type=click.Choice(["end", "bot"]),
              help="end: the game stops, HANDLE ranks last; bot: a deterministic bot plays "
                   "HANDLE's turns. Without it: list the remedies open now, write nothing.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@NOTE
@send_options
@click.pass_context
def absent(ctx: click.Context, save: str, handle: str, remedy: str | None,
           out: str | None, note: str | None, send_it: bool, to: tuple[str, ...], no_cc: bool,
           **smtp_given: Any) -> None:
    """Propose that HANDLE, whom the game waits for, is absent; the others then vote.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.session import absentees

    fields = with_note({"player": handle, "remedy": remedy or ""}, note)
    assert fields is not None
    save = resolve_save(ctx, save)

    if remedy is None:
        verified, seats, offered = absentees.remedies(home_of(ctx), save, handle)
        if verified.table.proposal:
            from pbem.errors import TurnError
            from pbem.protocol.timekeeping import absence

            raise TurnError(" ".join(absence.lines(verified.table)) + " A new proposal waits "
                            "until this one is settled.")
        if not offered:
            from pbem.errors import TurnError

            raise TurnError(absentees.not_proposable(verified.table, seats, handle))
        echo(f"Remedies open if {handle} is declared absent now (choose one with --remedy; "
             "nothing was written):")
        for name, text in offered.items():
            echo(f"  {name}: {text}")
        from pbem.protocol.saveformat import timing

        target = verified.table.seat_of(handle)
        assert target is not None  # remedies are offered only for a seat of the game
        due = absentees.proposal_due(verified.table, target)
        if due is not None and timing.now() < due:
            echo(f"{handle} still has time: a proposal is valid from {timing.shown(due)} on "
                 "(the game's patience, in signed times).")
        return
    mailing = mail_plan(home_of(ctx), send_it, to, no_cc, smtp_given)
    written = absentees.sign_absence(home_of(ctx), save, "absent", fields, out)
    _print_absence(written)
    mail_after(ctx, written, mailing)


@click.command()
@click.argument("save")
@click.argument("choice", type=click.Choice(["accept", "refuse"]))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.option("--away-until", "away_until", metavar="TIME",
              help="Also sign an away note: your clock stops until TIME "
                   "(YYYY-MM-DDTHH:MM:SSZ, YYYY-MM-DD, or a span from now such as 10d).")
@NOTE
@send_options
@click.pass_context
def vote(ctx: click.Context, save: str, choice: str, out: str | None, away_until: str | None,
         note: str | None, send_it: bool, to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Vote on the proposal that a player is absent: accept or refuse (one refusal is
    enough to void it; the game then waits for that player again).

    Votes are due in seat order. A vote not signed within a patience of falling due may be
    passed over, counted as an acceptance, by the next voter's vote (or a confirm after
    the last); until then it can still be signed and counts. SAVE is a save file, or a
    game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.protocol.timekeeping import absence
    from pbem.session import absentees

    fields: dict[str, str] = {"vote": choice}
    if away_until:
        fields["away_until"] = away_time(away_until, "--away-until")
    fields = with_note(fields, note) or fields
    home = home_of(ctx)
    save = resolve_save(ctx, save)
    mailing = mail_plan(home, send_it, to, no_cc, smtp_given)
    loaded = session.load(save, home)
    # Another branch (the player proposed absent came back on the save before the
    # proposal): the voter sees it before voting on this one.
    for line in [*loaded.branches, *absence.lines(loaded.table)]:
        echo(line)
    if choice == "accept":
        for line in absentees.late_warnings(loaded):
            echo(line, err=True)
    written = absentees.sign_absence(home, save, "vote", fields, out)
    _print_absence(written)
    mail_after(ctx, written, mailing)


@click.command()
@click.argument("save")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@NOTE
@send_options
@click.pass_context
def confirm(ctx: click.Context, save: str, out: str | None, note: str | None, send_it: bool,
            to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Put a proposal that a player is absent into effect when no vote will come.

    With no one to vote (two players, say), the proposer confirms one patience after the
    proposal. With votes still due, the proposer or a player who accepted confirms once
    each of them is a patience overdue: they are passed over, counted as acceptances.
    Never once that player has answered by playing. SAVE is a save file, or a game's
    short id from 'pbem games'."""
    from pbem import session
    from pbem.session import absentees

    fields = with_note({}, note) or {}
    home = home_of(ctx)
    path = resolve_save(ctx, save)
    mailing = mail_plan(home, send_it, to, no_cc, smtp_given)
    loaded = session.load(path, home)
    for line in loaded.branches:
        echo(line)
    for line in absentees.late_warnings(loaded):
        echo(line, err=True)
    written = absentees.sign_absence(home, path, "confirm", fields, out)
    _print_absence(written)
    mail_after(ctx, written, mailing)


@click.command()
@click.argument("save")
@click.option("--until", "until", required=True, metavar="TIME",
              help="When you are back: YYYY-MM-DDTHH:MM:SSZ, YYYY-MM-DD (UTC), or a span "
                   "from now such as 10d.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@NOTE
@send_options
@click.pass_context
def away(ctx: click.Context, save: str, until: str, out: str | None, note: str | None, send_it: bool,
         to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Sign an away note: your clock stops until TIME (within the game's away days), so
    nobody can propose you absent before TIME plus the game's patience.

    It is an entry of its own, signed whoever is to act; 'play --away-until' adds the
    same note to a turn. SAVE is a save file, or a game's short id from 'pbem games'."""
    from pbem.session import absentees

    fields = with_note({"away_until": away_time(until, "--until")}, note) or {}
    home = home_of(ctx)
    path = resolve_save(ctx, save)
    mailing = mail_plan(home, send_it, to, no_cc, smtp_given)
    written = absentees.sign_absence(home, path, "away", fields, out)
    _print_away(written)
    echo(f"Wrote {written.path}")
    mail_after(ctx, written, mailing)


def _print_away(written: Any) -> None:
    import datetime

    from pbem.protocol.saveformat import timing
    from pbem.protocol.timekeeping import clock

    entry, table = written.entry, written.table
    seat = table.seat_of(entry["seat"])
    until = timing.parse_stamp(entry["away_until"])
    assert until is not None and seat is not None
    left = clock.away_allowance(table.header).total_seconds() - table.away_used[seat]
    echo(f"{entry['seat']} is away until {timing.shown(until)}: nobody can propose "
         f"{entry['seat']} absent before then plus the game's patience "
         f"({clock.patience_text(table.header)}). Away time left in this game: "
         f"{timing.duration_words(datetime.timedelta(seconds=left))}.")


def _print_absence(written: Any) -> None:
    """What an absent or vote entry did, what it means, whom to send it to."""
    from pbem.protocol.timekeeping import absence

    entry, table, before = written.entry, written.table, written.previous
    refused = entry.get("vote") == "refuse"
    if entry["kind"] == "absent":
        echo(f"{entry['seat']} proposes that {entry['player']} is absent, remedy "
             f"'{entry['remedy']}'.")
    elif refused:
        player = before.seats[before.proposal["player"]].handle
        echo(f"{entry['seat']} refuses: the proposal is void and the game waits for "
             f"{player} again.")
    elif entry["kind"] == "confirm":
        player = before.seats[before.proposal["player"]].handle
        echo(f"{entry['seat']} confirms that {player} is absent"
             f"{absence.passing_words(absence.passed_by(before, entry))}.")
    else:
        echo(f"{entry['seat']} accepts{absence.passing_words(absence.passed_by(before, entry))}.")
    for line in absence.lines(table):
        echo(line)
    if not table.proposal and not refused:
        echo("Nobody else votes: the remedy is in effect from this entry on.")
    if "away_until" in entry:
        _print_away(written)
    echo(f"Wrote {written.path}")
