"""What of a save is in effect for this home: entries dated ahead wait for its clock
(pbem.protocol.saveformat.timing.in_effect), and entries of the absence procedure that count a
patience from entries this home did not have while it was playing wait a patience after it
had them (pbem.protocol.timekeeping.holdback). One cut for verify, show and log."""

from __future__ import annotations

import datetime
from typing import Any, NamedTuple

from pbem.errors import PbemError
from pbem.home.archive import Archive
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.branchrule import PROCEDURE
from pbem.protocol.timekeeping import clock, holdback


class Cut(NamedTuple):
    """The entries in effect here are ``save.entries[:upto]``; the first after them is
    held back (not merely dated ahead) until ``held``, for ``reason``."""

    upto: int
    held: datetime.datetime | None = None
    reason: str = ""

    def waiting(self, save: Save) -> list[timing.Waiting]:
        return timing.waiting(save.entries[self.upto:], self.held, self.reason)


def own_handle(home: Home | None) -> str:
    """This home's handle, '' if it has none (or its identity cannot be read)."""
    if home is None or not home.has_identity():
        return ""
    try:
        return str(home.info().get("handle", ""))
    except PbemError:
        return ""


def sight(archive: Archive, me: str, header: dict[str, Any], at: datetime.datetime
          ) -> holdback.Sight:
    """What ``archive`` (this home's, of the save's game) knows of when it saw entries."""
    def first_seen(entry_hash: str) -> datetime.datetime | None:
        return timing.parse_stamp(archive.first_seen(entry_hash)[0])

    mine = tuple(sorted(t for h, (_, seat) in archive.data["entries"].items()
                        if seat == me and (t := first_seen(h)) is not None)) if me else ()
    return holdback.Sight(first_seen, mine, me, clock.late_after(header), at)


def cut(save: Save, archive: Archive | None, me: str, at: datetime.datetime) -> Cut:
    """How much of ``save`` is in effect for this home at ``at``."""
    index = timing.in_effect(save.entries, at)
    entries = save.entries[:index]
    # Cheapest first: most saves hold no entry of the absence procedure.
    if archive is None or not me or not any(e["kind"] in PROCEDURE for e in entries) \
            or archive.data["header"] != digest(save.header):
        return Cut(index)
    hashes = [engine.entry_hash(e) for e in entries]
    first, start = holdback.held(entries, hashes, sight(archive, me, save.header, at))
    if start is None:
        return Cut(index)
    return Cut(first, start, holdback.words(entries[first], start))


def here(save: Save, home: Home | None, at: datetime.datetime | None = None) -> Cut:
    """:func:`cut` with this home's archive and clock."""
    archive = Archive(home.archive_dir, save.game_id) if home is not None else None
    return cut(save, archive, own_handle(home), timing.now() if at is None else at)


def counted_rule(save: Save, hashes: list[str], archive: Archive, me: str,
                 at: datetime.datetime) -> clock.Counted | None:
    """The branch rule's view of this home (branchrule.branch_rule ``counted``): when an
    entry that follows an entry of ``save`` counts from here (holdback.counted)."""
    if not me:
        return None
    seen: list[holdback.Sight] = []  # read from the archive only if a branch asks

    def counted(entry: dict[str, Any]) -> datetime.datetime | None:
        seq = entry.get("seq")
        if not isinstance(seq, int) or not 0 < seq <= len(hashes):
            return None
        if not seen:
            seen.append(sight(archive, me, save.header, at))
        prefix, prefix_hashes = [*save.entries[:seq], entry], [*hashes[:seq], digest(entry)]
        return holdback.counted(prefix, prefix_hashes, seq, seen[0])

    return counted
