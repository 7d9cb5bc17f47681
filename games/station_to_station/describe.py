"""What one entry changed (Game.describe): its event notes, then each seat's changed
purse and score, then the chance left waiting for the next player. Public facts only:
everything in Station to Station is public."""

from __future__ import annotations

from typing import Any

from pbem.game import State

from .constants import COAL_LIMIT
from .words import pending_lines, seat_called


def describe(before: State, after: State, seat: int) -> list[str]:
    if not after.get("data"):
        return []
    lines = new_notes(before, after)
    for other in range(len(after.get("players", []))):
        change = purse_change(before, after, other)
        if change:
            lines.append(f"{seat_called(after, other)}: {change}")
    waiting = pending_lines(after)
    if waiting:
        lines.append("Waiting for the next player: " + "; ".join(waiting))
    return lines


def _noted(state: State) -> int:
    return int(state.get("noted", len(state.get("notes", []))))


def new_notes(before: State, after: State) -> list[str]:
    """The notes made between the two states, oldest first."""
    notes = list(after.get("notes", []))
    count = _noted(after) - _noted(before)
    if count <= 0:
        return []
    if count > len(notes):
        return [f"({count - len(notes)} earlier events are not kept)"] + notes
    return notes[-count:]


def _goods(player: dict[str, Any]) -> str:
    return ", ".join(f"{g} {n}" for g, n in player["goods"].items() if n) or "none"


def purse_change(before: State, after: State, seat: int) -> str:
    """``cash $8 -> $3, coal 2 -> 1, points 0 -> 7, goods none -> oil 2``; "" if none."""
    players = before.get("players") or []
    if seat >= len(players) or not before.get("ready"):
        return ""
    old, new = players[seat], after["players"][seat]
    parts = []
    if old["cash"] != new["cash"]:
        parts.append(f"cash ${old['cash']} -> ${new['cash']}")
    if old["coal"] != new["coal"]:
        parts.append(f"coal {old['coal']} -> {new['coal']}")
    if old["points"] != new["points"]:
        parts.append(f"points {old['points']} -> {new['points']}")
    if old["goods"] != new["goods"]:
        parts.append(f"goods {_goods(old)} -> {_goods(new)}")
    lost = new["ledger"]["coal_lost"] - old["ledger"]["coal_lost"]
    if lost:
        parts.append(f"{lost} coal lost over the limit of {COAL_LIMIT}")
    return ", ".join(parts)
