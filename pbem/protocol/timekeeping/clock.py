"""The game clock (PROTOCOL.md section 11): patience, away notes, when a seat may be called
absent.

The header says how long a seat may take: ``patience`` (a duration written as a whole
number and a unit, ``"12h"`` or ``"3d"``; 1 hour to 90 days; default ``"7d"``) and
``away`` (whole days a seat may declare itself away in the whole game; 0 to 365; default
14). A header without them (a save made before the clock) has the defaults.

Every time here is a signed ``time`` of an entry (the signer's claim, PROTOCOL.md
section 11): the rules compare signed times with signed times, never with the verifier's
own clock, so every verifier reaches the same verdict on the same save.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.timing import DEFAULT_AWAY_DAYS, DEFAULT_PATIENCE, parse_duration

# The rule that picks the game's branch (named clock.branch_rule by its callers) needs no
# table, so a skip's evidence (evidence.py) applies it too.
from pbem.protocol.state.branchrule import NOTES, PROCEDURE, Counted, branch_rule  # noqa: F401

if TYPE_CHECKING:
    from pbem.protocol.state.table import Table

def patience(header: dict[str, Any]) -> datetime.timedelta:
    """The game's patience (the header was checked on load: savefile.check_header)."""
    span = parse_duration(header.get("patience", DEFAULT_PATIENCE))
    assert span is not None
    return span


def away_allowance(header: dict[str, Any]) -> datetime.timedelta:
    """How long a seat may declare itself away in the whole game."""
    return datetime.timedelta(days=int(header.get("away", DEFAULT_AWAY_DAYS)))


def patience_text(header: dict[str, Any]) -> str:
    """'7 days', '12 hours'."""
    return timing.duration_words(patience(header))


def parse(stamp: str) -> datetime.datetime | None:
    """A time kept on the table ('' for none)."""
    return timing.parse_stamp(stamp) if stamp else None


def stamp_of(when: datetime.datetime | None) -> str:
    return timing.stamp(when) or ""


def later(*stamps: str) -> str:
    """The latest of some table times ('' when none is known)."""
    known = [s for s in stamps if s]
    return max(known) if known else ""  # the fixed format sorts as time does


def waiting_start(since: str, away_until: str) -> str:
    """When a seat's clock started: the entry that made it to act, or the end of its
    away note if that is later (its clock stopped until then)."""
    return later(since, away_until)


def earliest_proposal(header: dict[str, Any], since: str, away_until: str,
                      against: str) -> datetime.datetime | None:
    """The earliest signed time at which a proposal that a seat is absent is valid:
    ``patience`` after its clock started, and ``patience`` after the last proposal
    against it (or its refusal). None when its clock has no known start (the entry that
    made it to act carries no signed time, a save from before signed times): then the
    proposal starts the clock, and only votes or a confirm one patience later put it
    into effect."""
    start = parse(waiting_start(since, away_until))
    last = parse(against)
    span = patience(header)
    if start is None:
        return None if last is None else last + span
    return max(start, last) + span if last is not None else start + span


def vote_falls_due(proposal: dict[str, Any]) -> str:
    """When the first vote still due on an open proposal fell due: the latest signed time
    of the proposal and the votes on it so far (pbem.protocol.timekeeping.absence.vote_deadlines)."""
    return later(str(proposal.get("time", "")), str(proposal.get("latest", "")),
                 str(proposal.get("opened", "")))


def confirm_falls_due(header: dict[str, Any], proposal: dict[str, Any]
                      ) -> datetime.datetime | None:
    """The earliest signed time of the confirm of a proposal nobody votes on: one patience
    after it (None for a proposal without a time, which check_proposal refuses)."""
    if timing.parse_stamp(proposal.get("time")) is None:
        return None
    # A proposal queued in a round counts from when it opened (docs/protocol-rounds.md).
    made = parse(later(str(proposal["time"]), str(proposal.get("opened", ""))))
    assert made is not None
    return made + patience(header)


def away_span(note_time: datetime.datetime, until: datetime.datetime,
              previous_until: str) -> datetime.timedelta:
    """How much of a seat's away allowance a note signed at ``note_time`` uses: the time
    it adds after the seat's earlier note (overlap is not counted twice)."""
    start = max(note_time, parse(previous_until) or note_time)
    return max(datetime.timedelta(0), until - start)


def status(table: Table) -> dict[str, Any]:
    """Who the game waits for, since when (``since``: the signed time of the entry that
    made them to act; ``clock_from``: later if they are away), when their patience runs
    out, and who is away until when, as signed times ('pbem games', 'pbem show', 'pbem remind'; README keys).
    While a vote is due, they are the voter's: when its vote fell due and when it is
    passed over. ``patience_ends`` is None when nobody can be proposed absent or passed
    over (the game is complete or not started, the seat is proposed absent already) or
    the clock has no known start (a save from before signed times). ``proposal``: a
    proposal nobody votes on, waiting for the seat it names or its proposer's confirm
    (who, by whom, from when it can be confirmed), else None."""
    duty = table.duty()
    waiting = table.waiting_duty()
    out: dict[str, Any] = {"to_act": None, "next": None, "since": None, "clock_from": None,
                           "patience":
                           str(table.header.get("patience", DEFAULT_PATIENCE)),
                           "patience_ends": None, "proposal": None,
                           "away": {table.seats[s].handle: until
                                    for s, until in enumerate(table.away_until) if until}}
    if duty is None:
        return out
    out["to_act"], out["next"] = table.seats[duty.seat].handle, duty.kind
    if duty.kind == "vote":
        # The voter's clock: its vote is passed over a patience after it fell due.
        start = vote_falls_due(table.proposal)
        out["since"] = start or None
        out["clock_from"] = waiting_start(start, table.away_until[duty.seat]) or None
        ends = earliest_proposal(table.header, start, table.away_until[duty.seat], "")
        out["patience_ends"] = stamp_of(ends) or None
        return out
    if waiting is None or waiting.kind not in ("turn", "reveal"):
        return out
    seat = waiting.seat
    out["since"] = table.since or None
    out["clock_from"] = waiting_start(table.since, table.away_until[seat]) or None
    if table.proposal:  # the seat is proposed absent already; nobody votes on it
        out["proposal"] = {"player": table.seats[table.proposal["player"]].handle,
                           "by": table.seats[table.proposal["by"]].handle,
                           "confirm_from": stamp_of(confirm_falls_due(table.header,
                                                                      table.proposal)) or None}
        return out
    ends = earliest_proposal(table.header, table.since, table.away_until[seat],
                             table.against[seat])
    out["patience_ends"] = stamp_of(ends) or None
    return out


def lines(table: Table, now: datetime.datetime) -> list[str]:
    """The clock in words for 'pbem show': who is to act since when, when their patience
    runs out (or ran out), who is away. Nothing to act in a complete game. In a round,
    every seat still to sign in it acts now: seats whose clocks agree share a line."""
    info = status(table)
    out = []
    if info["to_act"] is not None:
        since = parse(info["since"] or "")
        for handles, start, ends in _clock_groups(table, info):
            kind = "secret-deck work" if table.deck_work_next() else info["next"]
            out.append(_to_act_line(table.header, kind, handles, since, start, ends, now))
    for handle, until in info["away"].items():
        end = parse(until)
        if end is not None and end > now:
            out.append(f"Away: {handle} until {timing.shown(end)}.")
    return out


def _clock_groups(table: Table, info: dict[str, Any]
                  ) -> list[tuple[list[str], datetime.datetime | None,
                                  datetime.datetime | None]]:
    """(handles, clock start, patience end) of the seats acting now, in seat order:
    the one seat :func:`status` tells, or in a turn or reveal round with no proposal
    open, each seat still to sign in it (its clock runs from the entry before the
    round), seats with the same start and end in one group."""
    first = ([info["to_act"]], parse(info["clock_from"] or ""),
             parse(info["patience_ends"] or ""))
    duty = table.duty()
    missing = table.round_missing()
    if (duty is None or duty.kind not in ("turn", "reveal") or duty.seat not in missing
            or len(missing) < 2 or info["proposal"] is not None or table.proposal):
        return [first]
    groups: dict[tuple[str, str], list[str]] = {}
    for seat in missing:
        ends = earliest_proposal(table.header, table.since, table.away_until[seat],
                                 table.against[seat])
        key = (waiting_start(table.since, table.away_until[seat]), stamp_of(ends))
        groups.setdefault(key, []).append(table.seats[seat].handle)
    return [(handles, parse(start), parse(ends)) for (start, ends), handles in groups.items()]


def _to_act_line(header: dict[str, Any], kind: str, handles: list[str],
                 since: datetime.datetime | None, start: datetime.datetime | None,
                 ends: datetime.datetime | None, now: datetime.datetime) -> str:
    """One 'To act:' sentence of :func:`lines`, of one seat or of several seats of a
    round whose clocks agree."""
    who = " or ".join(handles)
    each = f"{kind} each" if kind == "secret-deck work" else f"a {kind} each"
    text = (f"To act: {handles[0]} ({kind})" if len(handles) == 1 else
            f"To act: {', '.join(handles)} ({each}, in parallel)")
    if since is not None:
        text += f" since {timing.shown(since)}"
    if start is not None and start != since:
        text += f"; away, so the clock counts from {timing.shown(start)}"
    if ends is not None:
        span = patience_text(header)
        if ends > now:
            text += (f"; patience ({span}) runs out {timing.shown(ends)}, in "
                     f"{timing.duration_words(ends - now)}")
        elif kind == "vote":
            text += (f"; past patience ({span}) since {timing.shown(ends)}: the next "
                     f"vote, or a confirm, passes over {who}'s vote (counted "
                     "as an acceptance)")
        else:
            text += (f"; past patience ({span}) since {timing.shown(ends)}: another "
                     f"player may propose {who} absent ('pbem absent')")
    return text + "."


# The rule that picks the game's branch lives in branchrule.py (it needs no table).

# ---- first seen: an entry that reached this home long after its signed time ----------
FIRST_SEEN_LATE = datetime.timedelta(days=1)


def late_after(header: dict[str, Any]) -> datetime.timedelta:
    """How long after its signed time an entry may first reach a home before the home
    shows it as late: a day, or the game's patience if that is shorter."""
    return min(FIRST_SEEN_LATE, patience(header))


def late_words(entry: dict[str, Any], seen: datetime.datetime) -> str:
    """'Entry 5 (a turn by ann) is signed 2027-03-06 10:00 UTC, first seen here
    2027-03-15 09:00 UTC.'"""
    when = timing.signed_time(entry)
    assert when is not None
    return (f"Entry {entry['seq']} ({timing.kind_words(str(entry['kind']))} by "
            f"{entry['seat']}) is signed {timing.shown(when)}, first seen here "
            f"{timing.shown(seen)}: {timing.duration_words(seen - when)} later.")


# ---- the terms a joiner accepts ('pbem join', 'pbem show' of an invitation) -------------
def terms(header: dict[str, Any]) -> list[str]:
    """The game clock of the header in words: what a player accepts by joining."""
    span = patience_text(header)
    days = away_allowance(header).days
    away = (f"each seat may sign away notes for up to {days} day{'s' if days != 1 else ''} "
            "in the whole game (its clock stops until the note ends)" if days
            else "no seat may declare itself away (0 away days)")
    return [
        f"Game clock (you accept it by joining): patience {span}; {away}.",
        f"A seat the game waits for longer than its patience (in signed times) may be "
        "proposed absent by any other seat, with remedy 'end' (the game ends and it ranks "
        "last) or, where the rules and the table allow, 'bot' (the rules' bot plays its "
        "turns); the other seats vote, a vote not signed within a patience is passed over "
        f"as an acceptance, and with nobody to vote the proposer confirms {span} after "
        "the proposal. Until the remedy takes effect the seat can answer by playing, and "
        "an entry dated more than an hour ahead of your clock takes effect for you only "
        "when your clock gets there.",
    ]
