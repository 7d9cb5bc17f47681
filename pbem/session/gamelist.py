"""What ``pbem games`` prints or dumps: this home's games, whose move, how long they have
waited, the clock, the newest save (README and docs/JSON.md give the keys)."""

from __future__ import annotations

import datetime
from typing import Any

from pbem.home.gameindex import GameRecord
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import timing
from pbem.session import logbook
from pbem.terminal import listed

NO_GAMES = ("This home is in no game yet. 'pbem new' starts one; every save this home "
            "writes, joins, plays, shows, verifies or files from 'pbem inbox' is listed here.")


def listing(home: Home, now: datetime.datetime) -> list[dict[str, Any]]:
    """This home's games: its move first, then the longest waiting, by title and id."""
    listed = [game_line(record, now) for record in logbook.games(home)]
    listed.sort(key=lambda g: (g["order"], -(g["waiting_seconds"] or 0), g["title"], g["id"]))
    return listed


def games_json(home: Home, listed: list[dict[str, Any]]) -> dict[str, Any]:
    """``games --json``: the listing without its sort key and words."""
    return {"home": str(home.path),
            "games": [{k: v for k, v in g.items() if k not in ("order", "clock_words")}
                      for g in listed]}


def games_lines(listed: list[dict[str, Any]]) -> list[str]:
    """What ``games`` prints: four lines or more a game."""
    if not listed:
        return [NO_GAMES]
    lines = []
    for g in listed:
        lines.append(f"{g['short_id']}  {g['title']}, entry {g['seq']}: {g['status']}")
        players = "; ".join(
            f"{p['handle']}{' (you)' if p['you'] else ''}: {p['words']}" for p in g["players"])
        lines.append(f"    last acted: {players}")
        lines += [f"    {line}" for line in g["clock_words"]]
        lines.append(f"    {'MISSING (deleted or moved): ' if g['missing'] else ''}{g['path']}")
    return lines


def game_line(record: GameRecord, now: datetime.datetime) -> dict[str, Any]:
    """One game of 'pbem games' (README: the JSON keys), with its status in words."""
    # Since the entry that made the seat to act (or its vote fall due): a later entry by
    # someone else (an away note, a proposal) does not restart the wait.
    clock = record.clock if isinstance(record.clock, dict) else {}
    since = timing.parse_stamp(clock.get("since")) or timing.parse_stamp(record.time)
    missing = not record.exists()
    if since is None and not missing:
        since = timing.file_time(record.path)
    waiting = None if record.complete or since is None else max(
        0, int((now - since).total_seconds()))
    if record.complete:
        order, status = 2, _over_status(record)
    else:
        order = 0 if record.your_move else 1
        status = _open_status(record, None if waiting is None or since is None
                              else now - since)
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
            "round_missing": list(record.round_missing),
            "waiting_since": timing.stamp(since) if waiting is not None else None,
            "waiting_seconds": waiting, "path": record.path, "missing": missing,
            **_clock_of(record, now)}


def _over_status(record: GameRecord) -> str:
    """A complete game's status: who won, the others' scores, how it ended."""
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
    return status


def _open_status(record: GameRecord, waited: datetime.timedelta | None) -> str:
    """A game still on: who is to do what, for how long already."""
    action = {"create": "create", "join": "join", "start": "start", "turn": "play",
              "reveal": "reveal"}.get(record.next, record.next)
    who = "you" if record.your_move else record.to_act
    if not record.your_move and len(record.round_missing) > 1:  # they sign in parallel
        who = listed(record.round_missing) + " each"
    status = f"{who} to {action}"
    if waited is not None:
        status += f", waiting {timing.duration_words(waited)}"
    if record.over and record.next == "reveal":
        status = "play is over; " + status
    if record.ending:  # a resignation, or a remedy in effect: "(bob played by the bot)"
        status += f" ({record.ending})"
    return status


def _clock_of(record: GameRecord, now: datetime.datetime) -> dict[str, Any]:
    """The game clock of a 'pbem games' line (README keys): when the seat to act passes its
    patience, whether it has, who is away until when; and the same in words."""
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


def _waiting_words(record: GameRecord, now: datetime.datetime) -> list[str]:
    """The entries of the listed save not in effect here (dated ahead), in words."""
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


def _proposal_words(proposal: dict[str, Any], now: datetime.datetime) -> str:
    """A proposal nobody votes on, in words: who may confirm it, from when."""
    player, by = str(proposal.get("player", "?")), str(proposal.get("by", "?"))
    text = f"{by} proposed {player} absent; {player} answers by playing"
    start = timing.parse_stamp(proposal.get("confirm_from"))
    if start is None:
        return text
    when = "now" if start <= now else f"from {timing.shown(start)}"
    return text + f", else {by} can confirm it ('pbem confirm') {when}"


def shown_patience(data: dict[str, Any]) -> str:
    """The game's patience as words ('7 days'), from a 'pbem games' record."""
    span = timing.parse_duration(data.get("patience", timing.DEFAULT_PATIENCE))
    return timing.duration_words(span) if span is not None else "?"
