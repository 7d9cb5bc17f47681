"""A home that was there: no patience counts, for it, from an entry it did not have
(PROTOCOL.md section 11, "A home that was there").

A signed time is its signer's claim. A seat can date back a turn (an answer to a proposal
against it: that is its right) and then date back, a patience after it, a proposal that
the seat whose turn came next is absent, its confirm and its own entries after them, all
signed in real minutes: by signed times the next seat was silent for a patience it never
had. Most homes cannot tell that from slow mail. A home that signed entries of this game
(on any branch) after an entry's signed time, but first saw that entry only later, can:
it was playing, and the entry was not with it. For that home the entry counts as signed
when it first saw it, wherever a patience counts from it:

* an entry of the absence procedure (a proposal, a vote, a confirm) takes effect here only
  as much later than its signed time as the latest of those entries came (the entries from
  the one in the order of play before the procedure up to it; where that one completes
  a round, from the round's first entry: the clock after a round starts at the latest
  time of all its entries, so a back-dated entry in any slot of it counts);
* the branch rule (branchrule.branch_rule), where a seat's answer meets an entry of the
  procedure, compares the times each counts from here: a proposal with the time above,
  an answer with the time this home first had it. So an answer dated back to before a
  proposal voids it, for this home, only if this home had it before the proposal.

A home that signed nothing in the meantime (the seat really was away) counts signed times,
as every other verifier does, so an honest removal stands everywhere. Nothing here changes
what a save means to a verifier with no archive; it changes only what this home builds on.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from pbem.protocol.saveformat import timing
from pbem.protocol.state.branchrule import NOTES, PROCEDURE

Entry = dict[str, Any]


class Sight(NamedTuple):
    """What this home knows of when it saw a game's entries."""

    first_seen: Callable[[str], datetime.datetime | None]  # by entry hash; None: not yet
    mine: tuple[datetime.datetime, ...]  # when this home signed entries of this game
    me: str  # this home's handle ('' : none)
    limit: datetime.timedelta  # clock.late_after: a delay shorter than this is mail
    at: datetime.datetime  # this home's clock


def dated_times(entries: Sequence[Entry]) -> list[datetime.datetime | None]:
    """Each entry's signed time, or the latest signed time of the entries before it that
    it follows, if later: nothing is signed before an entry it follows, so an earlier
    date claims no earlier sight (a seat could else date a note before the turn it follows
    and make a home that signed that turn hold a proposal against the seat). The other
    entries of its round it does not follow (they share its predecessor). None: unsigned."""
    out: list[datetime.datetime | None] = []
    latest: datetime.datetime | None = None  # of every entry so far
    before_round: datetime.datetime | None = None  # of the entries before the round under way
    current: object = None  # the ``round`` of the round under way
    for entry in entries:
        first = entry.get("round")
        if first is not None and first != current:
            before_round = latest
        current = first
        floor = before_round if first is not None else latest
        when = timing.signed_time(entry)
        out.append(None if when is None else max(when, floor) if floor else when)
        if when is not None and (latest is None or when > latest):
            latest = when
    return out


def dated(entries: Sequence[Entry], index: int) -> datetime.datetime | None:
    """``entries[index]``'s time as :func:`dated_times` gives it."""
    return dated_times(entries[:index + 1])[index]


def _delay(entry: Entry, entry_hash: str, when: datetime.datetime | None, sight: Sight
           ) -> datetime.timedelta:
    """How much later than ``when`` (its :func:`dated_times` time) this home counts
    ``entry``: the time between that and this home's first sight of it, when this home
    signed entries of the game in between and the gap is longer than mail explains; else
    nothing."""
    none = datetime.timedelta(0)
    if when is None or entry.get("seat") == sight.me:
        return none
    seen = sight.first_seen(entry_hash) or sight.at
    if seen - when <= sight.limit or not any(when < t < seen for t in sight.mine):
        return none
    return seen - when


def _held_from(entries: Sequence[Entry], hashes: Sequence[str], index: int, sight: Sight,
               times: Sequence[datetime.datetime | None]) -> datetime.datetime | None:
    """When ``entries[index]``, if it is an entry of the absence procedure, takes effect
    for this home, where that is later than its signed time; else None. ``times``: the
    entries' :func:`dated_times`."""
    entry = entries[index]
    when = timing.signed_time(entry)
    if entry.get("kind") not in PROCEDURE or when is None:
        return None
    start = index
    while start > 0 and entries[start].get("kind") in PROCEDURE + NOTES:
        start -= 1  # back to the entry in the order of play the procedure counts from
    if "round" in entry:  # a proposal in a round's slot counts from the entry before it
        start = min(start, _round_start(entries, index) - 1)
    if start >= 0 and "round" in entries[start]:
        # That entry completes a round: the clock starts at the latest time of all the
        # round's entries (engine._round_clock), each of which may have come late.
        start = _round_start(entries, start)
    shift = max(_delay(entries[k], hashes[k], times[k], sight)
                for k in range(start, index + 1))
    return when + shift if shift else None


def _round_start(entries: Sequence[Entry], index: int) -> int:
    """The index of the first entry of the round ``entries[index]`` is signed in."""
    first = entries[index]["round"]
    return next(k for k in range(index + 1) if entries[k].get("round") == first)


def counted(entries: Sequence[Entry], hashes: Sequence[str], index: int, sight: Sight
            ) -> datetime.datetime | None:
    """When ``entries[index]`` counts from for this home in the branch rule, where that is
    later than its signed time: when it takes effect here for an entry of the procedure,
    else its :func:`dated_times` time plus its delay; None: from its signed time."""
    times = dated_times(entries[:index + 1])
    entry = entries[index]
    if entry.get("kind") in PROCEDURE:
        return _held_from(entries, hashes, index, sight, times)
    when = times[index]
    late = _delay(entry, hashes[index], when, sight)
    return when + late if when is not None and late else None


def held(entries: Sequence[Entry], hashes: Sequence[str], sight: Sight
         ) -> tuple[int, datetime.datetime | None]:
    """(the index of the first entry this home holds back, when it takes effect here), or
    (len(entries), None) when it holds back none."""
    times: list[datetime.datetime | None] | None = None  # worked out once, if needed
    for index, entry in enumerate(entries):
        if entry.get("kind") in PROCEDURE:
            times = times if times is not None else dated_times(entries)
            start = _held_from(entries, hashes, index, sight, times)
            if start is not None and start > sight.at:
                return index, start
    return len(entries), None


def words(entry: Entry, start: datetime.datetime) -> str:
    """Why an entry waits here: its sentence for verify, show and log."""
    return (f"Entry {entry['seq']} ({timing.kind_words(str(entry['kind']))} by "
            f"{entry['seat']}) counts a patience from entries this home first saw long after "
            "their signed times, while it was signing entries of this game itself: here it "
            f"takes effect only from {timing.shown(start)}, a patience after this home had "
            "them, and the seat it names may answer before then.")
