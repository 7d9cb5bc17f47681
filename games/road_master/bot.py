"""A heuristic for the greedy bot: points first, then progress towards deliveries.

The greedy bot plays, one move at a time, whatever raises this number most, and ends its
turn when nothing does; so the number is built as a potential in which every step of a
delivery pays and no step of it costs:

- score, and cubes already lying on open contracts, count most;
- a few *live* open contracts (ones the cubes left on the board can still complete) are
  worth holding, by their points; more than ``OPEN_WANTED`` only risk penalties, and
  dead ones are sunk (they neither count nor block taking new ones);
- a cube aboard that a live contract needs is worth nearly as much as a delivered one,
  a cube aboard for nothing costs a little (so it gets dumped);
- the truck's *plan distance* is the rough number of spaces to the nearest goal: the
  destination of cubes it carries, or a warehouse holding cubes a contract still needs
  plus the way on to that contract's destination. Loading does not change it (the trip
  from a warehouse to the destination is the same whether the cubes still lie there or
  are aboard), driving towards a goal lowers it, and with no goal at all it is the
  longest trip there is, so taking a reachable contract always pays. A contract needing
  more cubes than the truck has room for is served by a part delivery first, and one
  whose cubes cannot be loaded until other cargo is delivered waits for that;
- perishable cubes loaded this turn that cannot reach a destination before the turn
  ends (too far for the tokens left) are useless: they would spoil (RM-P2).

Super Bonus cards are weighed in bot_bonus.py from the seat's own ``secrets`` only (the
state holds no card anyone may read): without them (``heuristic``) drawn cards are just
returned and no draw looks worth taking.
"""

from __future__ import annotations

from typing import Any

from . import board, bot_bonus, tokens
from .model import card
from .scoring import delivered
from .turn import to_act

State = dict[str, Any]
OPEN_WANTED = 3  # live open contracts the bot likes to hold at once
SCORE = 1000  # one point scored
DELIVERED = 700  # one cube lying on an open contract
ABOARD = 600  # one cube aboard that a live contract needs
USELESS = 20  # cost of a cube aboard that no live contract needs
POINT = 40  # one point of a live contract held (so several are taken at once)
EXTRA = 40  # cost of holding one more live contract than wanted, plus 60 per penalty point
STEP = 25  # one space of the plan distance
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


def _longest_trip(state: State) -> int:
    """More than any plan can need: end to end of the road twice, in and out."""
    return 2 * (int(state["data"]["length"]) + 4)


def _available(state: State, seat: int) -> dict[str, int]:
    """Cubes this seat could still get: lying in warehouses, or on its own truck."""
    out = dict(state["trucks"][seat]["cubes"])
    for cubes in state["houses"].values():
        for colour, n in cubes.items():
            out[colour] = out.get(colour, 0) + n
    return out


def heuristic(state: State, seat: int, secrets: dict[str, dict[str, str]] | None = None) -> int:
    """How good ``state`` looks for ``seat``, knowing its own ``secrets`` (see view)."""
    value = SCORE * int(state["scores"][seat])
    truck = state["trucks"][seat]
    if not truck["where"]:
        return value + bot_bonus.value(state, seat, delivered(state, seat), secrets or {})
    pos = board.position(truck)
    aboard = dict(truck["cubes"])
    spoiling = _spoiling(state, seat, pos)
    if spoiling:  # lost at the turn's end: worth nothing, and they take room
        aboard[state["data"]["perish"]] -= spoiling
    left = _available(state, seat)
    plans: list[tuple[dict[str, Any], int, int]] = []  # (card, cubes still owed, cubes aboard for it)
    live = 0
    for entry in state["contracts"][seat]:
        if entry["done"]:
            continue
        info = card(state, entry["id"])
        colour = info["colour"]
        value += DELIVERED * entry["cubes"]
        need = info["count"] - entry["cubes"]
        if left.get(colour, 0) < need:
            continue  # dead: the board no longer holds the cubes it needs
        left[colour] -= need
        live += 1
        if live > OPEN_WANTED:
            value -= 60 * info["penalty"] + EXTRA
            continue
        value += POINT * info["points"]
        use = min(aboard.get(colour, 0), need)
        aboard[colour] = aboard.get(colour, 0) - use
        value += ABOARD * use
        plans.append((info, need, use))
    useless = sum(n for n in aboard.values() if n > 0) + spoiling
    value -= USELESS * useless  # cubes carried for nothing (dumping them frees room)
    free = int(state["data"]["capacity"]) - (sum(truck["cubes"].values()) - useless)
    projected = delivered(state, seat)
    for info, need, _ in plans:
        projected[info["colour"]] = projected.get(info["colour"], 0) + need
    value += bot_bonus.value(state, seat, projected, secrets or {})
    goals = [g for info, need, use in plans for g in _goals(state, pos, info, need, use, free)]
    value -= STEP * min(goals, default=_longest_trip(state))
    if _stuck(state, seat, pos):
        value -= STUCK  # so that a gridlock gets broken by backing up or turning in
    return value


def _spoiling(state: State, seat: int, pos: board.Pos) -> int:
    """Perishable cubes loaded this turn that cannot reach a destination before the turn
    ends (RM-P2): each forward goes at most ``fmax`` spaces, and delivering is an unload,
    all on tokens still free this turn."""
    colour = state["data"]["perish"]
    truck = state["trucks"][seat]
    fresh = min(truck["cubes"].get(colour, 0), state["turn"]["blue"])
    if not fresh or to_act(state) != seat:
        return 0
    turn = state["turn"]
    fmax = int(state["data"]["fmax"])
    for entry in state["contracts"][seat]:
        info = card(state, entry["id"])
        if entry["done"] or info["colour"] != colour:
            continue
        spaces = distance(state, pos, info["to"])
        plan = ["forward"] * (-(-spaces // fmax))
        if plan or turn["last"] != "unload":
            plan.append("unload")
        if tokens.fits([*turn["actions"], *plan], state["data"]["tokens"], state["data"]["per_turn"]):
            return 0
    return fresh


def _goals(state: State, pos: board.Pos, info: dict[str, Any], need: int, use: int,
           free: int) -> list[int]:
    """Plan distances for one live contract: ``need`` cubes still owed, ``use`` of them
    aboard, ``free`` room on the truck once useless cubes are dumped."""
    dest = info["to"]
    if use == need:
        return [distance(state, pos, dest)]
    sources = _sources(state, info["colour"])
    capacity = int(state["data"]["capacity"])
    if free >= min(need - use, capacity):  # room for the rest (or a full load): fetch it
        return [distance(state, pos, src) + _between(state, src, dest) for src in sources]
    if not use or not sources:
        return []  # no room: the truck delivers its other cubes first
    # Not room for the rest: deliver part now, then go back and forth for the rest.
    return [distance(state, pos, dest) + 2 * min(_between(state, dest, src) for src in sources)]


def _sources(state: State, colour: str) -> list[str]:
    return [k for k, v in state["houses"].items() if v.get(colour, 0)]


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
