"""What each entry did, in words: the lines ``Game.describe`` returns.

Every change to the table is written down here as it happens, as a short public line:
chance resolved at the head of an entry (the dice and display of set-up, refills,
Justin's turn), each move of the entry, and what the end of a turn does. An entry is
closed when its work is done (the end of a turn or of a set-up choice, the start
entry's set-up); the next line written opens a new one. So the lines of one entry are
exactly those new in the state after it, which ``new_lines`` finds from the states before
and after: every public fact, with no replay and no moves needed.

``state["last"]`` (the view's "since your last look") keeps the chance lines only, as
the view has always shown them.
"""

from __future__ import annotations

from typing import Any

from pbem.game import State


def fresh() -> dict[str, Any]:
    return {"entry": 0, "closed": False, "lines": [], "mark": 0}


def _open(state: State) -> dict[str, Any]:
    journal: dict[str, Any] = state["journal"]
    if journal["closed"]:
        journal.update(entry=journal["entry"] + 1, lines=[], closed=False, mark=0)
    return journal


def note(state: State, line: str) -> None:
    """Write one line of what the entry in progress did."""
    _open(state)["lines"].append(line)


def begin_move(state: State) -> None:
    """A move starts: its own line (``move_line``) goes before the lines of what it
    caused (the bank's last gold leaving, say)."""
    journal = _open(state)
    journal["mark"] = len(journal["lines"])


def move_line(state: State, line: str) -> None:
    journal = _open(state)
    journal["lines"].insert(min(journal["mark"], len(journal["lines"])), line)


def chance(state: State, line: str) -> None:
    """A line for chance resolved (also shown as "since your last look")."""
    note(state, line)
    state["last"].append(line.rstrip("."))


def late(state: State, line: str) -> None:
    """A chance line that belongs to the entry last written, even if its work is done
    (Posse: the cards handed out once that entry's chores showed the last pick)."""
    state["journal"]["lines"].append(line)
    state["last"].append(line.rstrip("."))


def close(state: State) -> None:
    """The entry's work is done: the next line belongs to the next entry."""
    state["journal"]["closed"] = True


def new_lines(before: State, after: State) -> list[str]:
    """The lines written between ``before`` and ``after``, the states around one entry."""
    old, new = before.get("journal"), after.get("journal")
    if new is None:
        return []
    if old is None or old["entry"] != new["entry"]:
        return list(new["lines"])
    return list(new["lines"][len(old["lines"]):])
