"""A save as a home verified it: the report, and what this home knows beside it (stale,
branches, entries that wait, entries first seen late)."""

from __future__ import annotations

from typing import Any

from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.table import Report, Table
from pbem.record import Record


class Verified(Record):
    def __init__(self, save: Save, report: Report) -> None:
        self.save = save
        self.report = report
        self.notes: list[str] = []
        self.stale = False
        self.id_reused = False  # this home saw another game (another header) with this id
        self.branches: list[str] = []  # also in notes (PROTOCOL.md 11)
        # The seq of this home's reveal on another branch (it signs nothing on this one).
        self.revealed_elsewhere: int | None = None
        # The entries of the file not yet in effect for this home (PROTOCOL.md 11): the
        # save above (``save``, ``report``) ends before them; ``whole`` is the file.
        self.waiting: list[timing.Waiting] = []
        self.whole = save
        self.void = ""  # why this save's branch is not the game's (PROTOCOL.md 11)
        # Every other branch this home knows off this save's path is void by the rule.
        self.branches_void = False
        self.late: list[dict[str, Any]] = []  # entries first seen long after their time

    @property
    def table(self) -> Table:
        return self.report.table

    @property
    def dated_ahead(self) -> bool:
        """Entries of the file wait for this home's clock because they are dated ahead of
        it (no command signs on the file then); entries held back by pbem.protocol.timekeeping.holdback
        wait too, but a home plays on the part in effect."""
        return bool(self.waiting) and not self.waiting[0].reason
