"""Entry times for people (PROTOCOL.md section 11): when each seat last acted, how long a
game has waited.

An entry's ``time`` is its signer's clock, signed, as ``"YYYY-MM-DDTHH:MM:SSZ"``: a claim,
not proof. Saves made before the field existed carry none, so every function here takes
an entry without one (or with one that does not parse) as "time unknown". Nothing from a
save is printed as it is: only the parsed time, formatted here.
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from pbem.errors import UsageError
from pbem.protocol.crypto import entropy
from pbem.terminal import shown as shown_text

_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
# Signed times come before this year: the clock rules add patiences, away spans and
# votes' deadlines to them, which past year 9999 no date can hold (a save that signed
# 9999-12-31 made every verifier fail with an internal error).
LAST_YEAR = 8999


def signed_time(entry: dict[str, Any]) -> datetime.datetime | None:
    """The entry's signed ``time`` (UTC), or None if it has none or a malformed one."""
    return parse_stamp(entry.get("time"))


def parse_stamp(value: object) -> datetime.datetime | None:
    """A ``"YYYY-MM-DDTHH:MM:SSZ"`` time (UTC); None for anything else."""
    if not isinstance(value, str) or not _STAMP.fullmatch(value):
        return None
    try:
        when = entropy.parse_time(value)
    except ValueError:  # 2025-13-40T...: the right shape, not a date
        return None
    return when if when.year <= LAST_YEAR else None


def stamp(when: datetime.datetime | None) -> str | None:
    """The time as an entry writes it ("2025-06-02T10:00:00Z"), for JSON; None stays None."""
    return None if when is None else when.strftime(entropy.TIME_FORMAT)


def file_time(path: str | Path) -> datetime.datetime | None:
    """When the file was last written (UTC), or None if it cannot be read."""
    try:
        return datetime.datetime.fromtimestamp(Path(path).stat().st_mtime, datetime.UTC)
    except (OSError, OverflowError, ValueError):
        return None


CLOCK_VARIABLE = "PBEM_CLOCK"


def now() -> datetime.datetime:
    """The clock this process reads (UTC), the one place every clock reading comes from:
    ``PBEM_CLOCK=YYYY-MM-DDTHH:MM:SSZ`` from the environment if it is set (tests and
    scripted games play a week in seconds, and check the clock rules of PROTOCOL.md
    section 11), else the system's clock through pbem.protocol.crypto.entropy (which the test
    suite fixes). A malformed PBEM_CLOCK is a usage error (exit 2), never ignored."""
    given = os.environ.get(CLOCK_VARIABLE)
    if given is None or given == "":
        return entropy.parse_time(entropy.utc_now())
    when = parse_stamp(given)
    if when is None:
        raise UsageError(f"{CLOCK_VARIABLE} is set to {shown_text(given, 40)}, which is not a "
                         f"UTC time written YYYY-MM-DDTHH:MM:SSZ up to the year {LAST_YEAR} (for "
                         "example 2025-06-02T10:00:00Z). "
                         f"Fix it, or unset {CLOCK_VARIABLE} to use this computer's clock.")
    return when


def now_stamp() -> str:
    """:func:`now` as an entry signs it ("2025-06-02T10:00:00Z")."""
    return now().strftime(entropy.TIME_FORMAT)


# An entry dated further ahead of this clock is not in effect until the clock gets there
# (PROTOCOL.md section 11): a proposer cannot skip a wait by dating it ahead.
AHEAD_LIMIT = datetime.timedelta(hours=1)


def in_effect(entries: list[dict[str, Any]], at: datetime.datetime | None = None) -> int:
    """How many of a save's entries are in effect for a home whose clock reads ``at``
    (default :func:`now`): all of them up to the first one dated more than AHEAD_LIMIT
    ahead of it (PROTOCOL.md section 11). That one, and every entry built on it, waits:
    the home treats the save as ending before it. The create entry is always in effect
    (a game whose create waits has no seats to wait for)."""
    at = now() if at is None else at
    for index, entry in enumerate(entries):
        when = signed_time(entry)
        if index and when is not None and when - at > AHEAD_LIMIT:
            return index
    return len(entries)


class Waiting(NamedTuple):
    """An entry not yet in effect for this home (:func:`in_effect`)."""

    seq: int
    kind: str
    seat: str
    time: datetime.datetime | None  # its signed time
    from_: datetime.datetime  # when this home's clock lets it take effect
    reason: str = ""  # why, when it is not its date (pbem.protocol.timekeeping.holdback.words)

    def words(self, at: datetime.datetime) -> str:
        if self.reason:
            return self.reason
        what = f"Entry {self.seq} ({kind_words(self.kind)} by {self.seat})"
        until = f"it is not in effect here before {shown(self.from_)}"
        if self.time is not None and self.time - at > AHEAD_LIMIT:
            return (f"{what} is dated {shown(self.time)}, more than an hour ahead of this "
                    f"computer's clock ({shown(at)}): {until}.")
        return f"{what} is built on an entry that waits: {until}."

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "seat": self.seat,
                "time": stamp(self.time), "in_effect_from": stamp(self.from_)}


def waiting(entries: list[dict[str, Any]], held: datetime.datetime | None = None,
            reason: str = "") -> list[Waiting]:
    """The entries :func:`in_effect` cut off, each with when it takes effect here: an hour
    before the latest signed time among it and the waiting entries before it. ``held``:
    the first one is held back until then (pbem.protocol.timekeeping.holdback), for ``reason``."""
    out: list[Waiting] = []
    latest: datetime.datetime | None = None if held is None else held + AHEAD_LIMIT
    for index, entry in enumerate(entries):
        when = signed_time(entry)
        if when is not None and (latest is None or when > latest):
            latest = when
        assert latest is not None  # the first one waits for its own time
        out.append(Waiting(int(entry["seq"]), str(entry["kind"]), str(entry["seat"]), when,
                           latest - AHEAD_LIMIT, reason if index == 0 else ""))
    return out


def signed_after(entries: list[dict[str, Any]]) -> tuple[str, ...]:
    """For each entry, the newest signed time of the entries after it by other seats ('' if
    none): what explains why it reached a home late (the file waited for them). A seat's
    own later entries explain nothing: else a seat that back-dates an entry would hide
    that it came late by signing an away note on it before mailing it."""
    out: list[str] = []
    newest: dict[str, str] = {}  # seat -> the newest time it signed after this entry
    for entry in reversed(entries):
        seat = str(entry["seat"])
        out.append(max((t for s, t in newest.items() if s != seat), default=""))
        newest[seat] = max(newest.get(seat, ""), stamp(signed_time(entry)) or "")
    return tuple(reversed(out))


def kind_words(kind: str) -> str:
    """'an absent proposal', 'a vote', 'a turn'."""
    return {"absent": "an absent proposal", "vote": "a vote", "away": "an away note"}.get(
        kind, f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}")


def shown(when: datetime.datetime) -> str:
    """'2025-06-02 10:00 UTC'."""
    return when.strftime("%Y-%m-%d %H:%M UTC")


def duration_words(span: datetime.timedelta) -> str:
    """'3 days', '6 days 23 hours', '5 hours', '12 minutes', 'under a minute': whole
    units, never rounded up, and the hours kept beside the days ('in 6 days' for a
    deadline 6 days 23 hours away would read as a day sooner than it is)."""
    minutes = max(0, int(span.total_seconds()) // 60)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60

    def unit(n: int, word: str) -> str:
        return f"{n} {word}" + ("" if n == 1 else "s")

    if days:
        return unit(days, "day") + (f" {unit(hours, 'hour')}" if hours else "")
    if hours:
        return unit(hours, "hour")
    return unit(mins, "minute") if mins else "under a minute"


def ago(when: datetime.datetime, at: datetime.datetime) -> str:
    """'3 hours ago', 'under a minute ago'; a time ahead of ``at`` (a fast clock) is
    'just now', never a negative span."""
    if when >= at:
        return "just now"
    return f"{duration_words(at - when)} ago"


class Acted(NamedTuple):
    """A seat's newest entry in a save: its seq and the time it signed (None: unknown)."""

    handle: str
    seq: int | None = None  # None: this seat has signed nothing yet
    time: datetime.datetime | None = None

    def words(self, at: datetime.datetime) -> str:
        """'entry 12, 3 hours ago'; 'entry 12' when it signed no time; 'not yet'."""
        if self.seq is None:
            return "not yet"
        if self.time is None:
            return f"entry {self.seq}"
        return f"entry {self.seq}, {ago(self.time, at)}"

    def to_json(self) -> dict[str, Any]:
        return {"handle": self.handle, "seq": self.seq, "time": stamp(self.time)}


def last_acted(handles: Iterable[str], entries: Iterable[dict[str, Any]]) -> list[Acted]:
    """Each seat's newest entry, in seat order."""
    newest: dict[str, dict[str, Any]] = {}
    for entry in entries:
        newest[entry["seat"]] = entry
    out = []
    for handle in handles:
        last = newest.get(handle)
        out.append(Acted(handle) if last is None
                   else Acted(handle, int(last["seq"]), signed_time(last)))
    return out


def waiting_since(entry: dict[str, Any], path: Path | None) -> tuple[datetime.datetime | None,
                                                                    str]:
    """(since when the game has waited after ``entry``, where that time comes from).

    The entry's signed ``time`` field if it has a well-formed one; else the date of the
    save file at ``path`` (older saves carry no time); else (None, '')."""
    when = signed_time(entry)
    if when is not None:
        return when, f"the time {entry['seat']} signed in entry {entry['seq']}"
    if path is not None:
        mtime = file_time(path)
        if mtime is not None:
            return mtime, "the date of the save file; this save's entries carry no signed time"
    return None, ""


# ---- the header's durations (checked when a save is read: savefile.check_header) ----
DEFAULT_PATIENCE = "7d"
DEFAULT_AWAY_DAYS = 14
MIN_PATIENCE = datetime.timedelta(hours=1)
MAX_PATIENCE = datetime.timedelta(days=90)
MAX_AWAY_DAYS = 365
_DURATION = re.compile(r"^([1-9][0-9]{0,4})([hd])$")


def parse_duration(text: object) -> datetime.timedelta | None:
    """``"12h"`` / ``"3d"`` -> the span; None for anything else."""
    if not isinstance(text, str):
        return None
    match = _DURATION.fullmatch(text)
    if match is None:
        return None
    number, unit = int(match.group(1)), match.group(2)
    return datetime.timedelta(hours=number) if unit == "h" else datetime.timedelta(days=number)


def patience_problem(value: object) -> str:
    """Why ``value`` is no patience ('' if it is one)."""
    span = parse_duration(value)
    if span is None:
        return 'should be a whole number of hours or days, such as "12h" or "3d"'
    if not MIN_PATIENCE <= span <= MAX_PATIENCE:
        return "should be between 1 hour (1h) and 90 days (90d)"
    return ""


def away_problem(value: object) -> str:
    """Why ``value`` is no away allowance ('' if it is one)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return "should be a whole number of days"
    if not 0 <= value <= MAX_AWAY_DAYS:
        return f"should be between 0 and {MAX_AWAY_DAYS} days"
    return ""
