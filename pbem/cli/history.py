"""A home's games and a game's past: games, log, undo."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.common import (
    echo,
    emit_json,
    home_of,
    late_json,
    print_acted,
    print_notes,
    resolve_save,
)


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def games_command(ctx: click.Context, as_json: bool) -> None:
    """The games this home is in: whose move, how long they have waited, the newest save.

    Each game's short id can stand for SAVE in every command (the newest save this home
    wrote, verified or filed from the inbox)."""
    from pbem.protocol import timing
    from pbem.session import logbook

    home = home_of(ctx)
    now = timing.now()
    listed = [_game_line(record, now) for record in logbook.games(home)]
    listed.sort(key=lambda g: (g["order"], -(g["waiting_seconds"] or 0), g["title"], g["id"]))
    if as_json:
        emit_json({"home": str(home.path),
                    "games": [{k: v for k, v in g.items() if k not in ("order", "clock_words")}
                              for g in listed]})
        return
    if not listed:
        echo("This home is in no game yet. 'pbem new' starts one; every save this home "
             "writes, joins, plays, shows, verifies or files from 'pbem inbox' is listed here.")
        return
    for g in listed:
        echo(f"{g['short_id']}  {g['title']}, entry {g['seq']}: {g['status']}")
        players = "; ".join(
            f"{p['handle']}{' (you)' if p['you'] else ''}: {p['words']}" for p in g["players"])
        echo(f"    last acted: {players}")
        for line in g["clock_words"]:
            echo(f"    {line}")
        echo(f"    {'MISSING (deleted or moved): ' if g['missing'] else ''}{g['path']}")


def _game_line(record: Any, now: Any) -> dict[str, Any]:
    """One game of 'pbem games' (README: the JSON keys), with its status in words."""
    from pbem.protocol import timing

    # Since the entry that made the seat to act (or its vote fall due): a later entry by
    # someone else (an away note, a proposal) does not restart the wait.
    clock = record.clock if isinstance(record.clock, dict) else {}
    since = timing.parse_stamp(clock.get("since")) or timing.parse_stamp(record.time)
    missing = not record.exists()
    if since is None and not missing:
        since = timing.file_time(record.path)
    waiting = None if record.complete or since is None else max(
        0, int((now - since).total_seconds()))
    action = {"create": "create", "join": "join", "start": "start", "turn": "play",
              "reveal": "reveal"}.get(record.next, record.next)
    if record.complete:
        order = 2
        if record.audit == "failed":
            status = "over; THE AUDIT FAILED ('pbem verify' says why)"
        elif record.winners:
            won = ", ".join(f"{w} ({record.scores.get(w, 0)})" for w in record.winners)
            status = f"over, won by {won}" if len(record.winners) == 1 else \
                f"over, shared by {won}"
            # The index keeps the scores in the ranking's order (a resigner last).
            rest = [f"{n} {v}" for n, v in record.scores.items() if n not in record.winners]
            status += f"; {', '.join(rest)}" if rest else ""
        else:
            status = "over"
        if record.ending:
            status += f" ({record.ending})"
        if record.audit == "partial":
            status += "; audit partial: a seat never revealed"
    else:
        order = 0 if record.your_move else 1
        who = "you" if record.your_move else record.to_act
        status = f"{who} to {action}"
        if waiting is not None:
            status += f", waiting {timing.duration_words(now - since)}"
        if record.over and record.next == "reveal":
            status = "play is over; " + status
        if record.ending:  # a resignation, or a remedy in effect: "(bob played by the bot)"
            status += f" ({record.ending})"
    players = []
    for acted in record.acted:
        item = timing.Acted(acted["handle"], acted.get("seq"),
                            timing.parse_stamp(acted.get("time")))
        players.append({"handle": item.handle, "you": item.handle == record.you,
                        "seq": item.seq, "time": acted.get("time"), "words": item.words(now)})
    return {"order": order, "id": record.id, "short_id": record.short_id, "game": record.game,
            "title": record.title, "seq": record.seq, "status": status,
            "players": players, "you": record.you, "to_act": record.to_act or None,
            "next": record.next or None, "your_move": record.your_move,
            "over": record.over, "complete": record.complete, "audit": record.audit,
            "winners": record.winners, "scores": record.scores or None,
            "ending": record.ending, "time": record.time,
            "waiting_since": timing.stamp(since) if waiting is not None else None,
            "waiting_seconds": waiting, "path": record.path, "missing": missing,
            **_clock_of(record, now)}


def _clock_of(record: Any, now: Any) -> dict[str, Any]:
    """The game clock of a 'pbem games' line (README keys): when the seat to act passes its
    patience, whether it has, who is away until when; and the same in words."""
    from pbem.protocol import timing

    data = record.clock
    ends = timing.parse_stamp(data.get("patience_ends")) if not record.complete else None
    raw = data.get("away")
    away = {h: t for h, t in raw.items() if isinstance(h, str)
            and timing.parse_stamp(t) is not None} if isinstance(raw, dict) else {}
    words = []
    if ends is not None:
        words.append(f"patience ({shown_patience(data)}) of {record.to_act} "
                     + (f"runs out {timing.shown(ends)}" if ends > now
                        else f"ran out {timing.shown(ends)}: the next vote, or a confirm, "
                             f"passes over {record.to_act}'s vote"
                        if data.get("next") == "vote"
                        else f"ran out {timing.shown(ends)}: another player may propose "
                             f"{record.to_act} absent"))
    proposal = data.get("proposal")
    if isinstance(proposal, dict) and not record.complete:
        words.append(_proposal_words(proposal, now))
    for handle, until in away.items():
        end = timing.parse_stamp(until)
        if end is not None and end > now:
            words.append(f"away: {handle} until {timing.shown(end)}")
    words.extend(_waiting_words(record, now))
    return {"patience_ends": timing.stamp(ends), "past_patience": ends is not None and
            ends <= now, "away": away, "clock_words": words, "waiting": record.waiting}


def _waiting_words(record: Any, now: Any) -> list[str]:
    """The entries of the listed save not in effect here (dated ahead), in words."""
    from pbem.protocol import timing

    if not record.waiting:
        return []
    first, last = record.waiting[0], record.waiting[-1]
    what = (f"entr{'ies' if len(record.waiting) > 1 else 'y'} {first['seq']}"
            + (f"-{last['seq']}" if len(record.waiting) > 1 else "")
            + f" ({timing.kind_words(str(first['kind']))} by {first['seat']}"
            + (" and what is built on it)" if len(record.waiting) > 1 else ")"))
    start = timing.parse_stamp(first["in_effect_from"])
    if start is not None and start > now:
        return [f"{what} dated ahead: not in effect here before {timing.shown(start)}; "
                "this listing goes by the save before it"]
    return [f"{what} dated ahead: in effect here now; 'pbem verify' the save to bring "
            "this listing up to date"]


def _proposal_words(proposal: dict[str, Any], now: Any) -> str:
    """A proposal nobody votes on, in words: who may confirm it, from when."""
    from pbem.protocol import timing

    player, by = str(proposal.get("player", "?")), str(proposal.get("by", "?"))
    text = f"{by} proposed {player} absent; {player} answers by playing"
    start = timing.parse_stamp(proposal.get("confirm_from"))
    if start is None:
        return text
    when = "now" if start <= now else f"from {timing.shown(start)}"
    return text + f", else {by} can confirm it ('pbem confirm') {when}"


def shown_patience(data: dict[str, Any]) -> str:
    """The game's patience as words ('7 days'), from a 'pbem games' record."""
    from pbem.protocol import timing

    span = timing.parse_duration(data.get("patience", timing.DEFAULT_PATIENCE))
    return timing.duration_words(span) if span is not None else "?"


@click.command()
@click.argument("save")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def log(ctx: click.Context, save: str, as_json: bool) -> None:
    """The history: each entry (seq, kind, seat, signed time, moves), then what it did.

    Under each entry, the game's own account of what it changed: cards drawn, dice,
    refills, boom cards, scores and goods, not only the typed moves. SAVE is a save file,
    or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.protocol import timing
    from pbem.session import logbook

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
                    "late": late_json(verified), "void": verified.void or None})
        return
    print_notes(told.notes)
    now = timing.now()
    for line in [*(w.words(now) for w in verified.waiting),
                 *(late["words"] for late in verified.late),
                 *([verified.void] if verified.void else [])]:
        echo(line)
    print_acted(acted, logbook.own_handle(home))


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
