"""A heuristic for the greedy bot: points first, then progress towards deliveries.

The greedy bot plays, one move at a time, whatever raises this number most, so it is a
potential: delivered cubes are worth more than cubes aboard for a contract, which are
worth more near their destination; an empty truck is drawn towards the warehouse of the
colour its best open contract needs. A few open contracts are worth having (so the bot
takes some); more than that only risks penalties. Hidden Super Bonus cards are not
looked at (the heuristic sees the state, and cards are secret in it).
"""

from __future__ import annotations

from typing import Any

from pbem import secretdeck

from . import board
from .model import card
from .turn import pending_secret_choice

State = dict[str, Any]
OPEN_WANTED = 3  # open contracts the bot likes to hold at once
STEP = 8  # value of one space closer to the cubes an open contract needs
CARRY_STEP = 25  # value of one space closer to the destination, per cube aboard
STUCK = 150  # a truck with no road space ahead (both lanes taken, or the road's end)


def distance(state: State, pos: board.Pos, letter: str) -> int:
    """Rough spaces from ``pos`` into warehouse ``letter`` (turning costs extra)."""
    target = state["data"]["houses"][letter]["space"]
    if pos[0] == "wh":
        if pos[1] == letter:
            return 0
        return abs(state["data"]["houses"][pos[1]]["space"] - target) + 2
    ahead = (target - pos[1]) * board.delta(pos[3])
    side = state["data"]["houses"][letter]["side"]
    if ahead > 0:
        return ahead + 1
    if ahead == 0:
        return 1 if pos[2] == side else 4  # wrong lane: back up one and come again
    # Behind: back up space by space, or drive on and turn round in a warehouse.
    return min(2 * -ahead + (1 if pos[2] == side else 4), -ahead + 8)


def _source(state: State, colour: str) -> list[str]:
    return [k for k, v in state["houses"].items() if v.get(colour, 0)]


def heuristic(state: State, seat: int) -> int:
    value = 1000 * int(state["scores"][seat])
    if pending_secret_choice(state, seat):
        value -= 500 * len(secretdeck.drawn(state, "superbonus", seat))  # choose, move on
    truck = state["trucks"][seat]
    if not truck["where"]:
        return value
    pos = board.position(truck)
    aboard = dict(truck["cubes"])
    carry: list[str] = []  # destinations of cubes aboard
    fetch: list[tuple[str, str]] = []  # (colour, destination) still lacking cubes
    open_ = [e for e in state["contracts"][seat] if not e["done"]]
    for rank, entry in enumerate(open_):
        info = card(state, entry["id"])
        value += 700 * entry["cubes"]
        if rank >= OPEN_WANTED:
            value -= 60 * info["penalty"] + 40
            continue
        value += 8 * info["points"]
        need = info["count"] - entry["cubes"]
        use = min(aboard.get(info["colour"], 0), need)
        aboard[info["colour"]] = aboard.get(info["colour"], 0) - use
        value += 600 * use
        if use:
            carry.append(info["to"])
        if use < need:
            fetch.append((info["colour"], info["to"]))
    value -= 20 * sum(n for n in aboard.values() if n > 0)  # cubes carried for nothing
    # Potentials towards the nearest goal, so that moving along a plan always pays.
    if carry:
        value -= CARRY_STEP * min(distance(state, pos, dest) for dest in carry)
    trips = [
        distance(state, pos, src) + _between(state, src, dest)
        for colour, dest in fetch
        for src in _source(state, colour)
    ]
    if trips:
        value -= STEP * min(trips)
    if _stuck(state, seat, pos):
        value -= STUCK  # so that a gridlock gets broken by backing up or turning in
    return value


def _stuck(state: State, seat: int, pos: board.Pos) -> bool:
    if pos[0] != "road":
        return False
    ahead = pos[1] + board.delta(pos[3])
    if not 0 <= ahead < state["data"]["length"]:
        return True
    taken = board.occupancy(state, seat)
    return (ahead, "north") in taken and (ahead, "south") in taken


def _between(state: State, a: str, b: str) -> int:
    houses = state["data"]["houses"]
    return abs(houses[a]["space"] - houses[b]["space"]) + 2
