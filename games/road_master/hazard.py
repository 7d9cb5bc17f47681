"""Hazardous goods: the boom draws of a turn, resolved by the next player's beacon.

The turn that met its first draw left a request: whether the first draw comes right away
(it followed a load/forward/backward, played under the request's ``policy``) and the
actions queued after it, each with the policy for a first half boom in force when it
was played: the draw after a load/forward/backward, or before an unload, goes by it.
Here the six boom cards are drawn without replacement (RM-H8: they are gathered and
reshuffled after every turn, so each turn starts with a full pile), and the queued
actions are applied in order until the player stops on a first half boom (policy stop),
the truck explodes on a second one (RM-H6/H7), or the queue runs out. Then the turn's
end effects run, as end_turn would have run them.
"""

from __future__ import annotations

from typing import Any

from pbem.game import MoveError, Sampler

from .model import add, handle, log, refill_market, take_blind
from .notation import parse
from .turn import ACTION_OF, check_end, finish_turn, perform, yellow_aboard

State = dict[str, Any]


class _Pile:
    """The boom pile of one turn: draws without replacement."""

    def __init__(self, counts: dict[str, int], rng: Sampler) -> None:
        self.ok = counts["ok"]
        self.half = counts["half"]
        self.rng = rng
        self.halves = 0

    def draw(self) -> str:
        total = self.ok + self.half
        if total == 0:  # more draws than cards: the pile is reshuffled only at turn end
            return "ok"
        if self.rng.randbelow(total) < self.half:
            self.half -= 1
            self.halves += 1
            return "half"
        self.ok -= 1
        return "ok"


def resolve_boom(state: State, request: dict[str, Any], rng: Sampler) -> None:
    seat = int(request["seat"])
    who = handle(state, seat)
    pile = _Pile(state["data"]["boom"], rng)
    ctx: dict[str, Any] = {"blue": request["blue"]}
    blinds: list[dict[str, Any]] = []

    def drawn_stops(policy: str) -> bool:
        """Draw one boom card; True if the turn stops here (RM-H5..H7)."""
        result = pile.draw()
        if result == "ok":
            log(state, f"Boom card for {who}: OK.")
            return False
        if pile.halves >= 2:
            cubes = state["trucks"][seat]["cubes"]
            for colour, n in list(cubes.items()):
                add(cubes, colour, -n)
                add(state["removed"], colour, n)
            log(state, f"Second half boom: {who}'s truck explodes; its cubes leave the game.")
            return True
        if policy == "stop":
            log(state, f"Half boom for {who}: {who} stops the turn there (policy stop).")
            return True
        log(state, f"Half boom for {who}: {who} pushes on (policy push).")
        return False

    stopped = bool(request["first"]) and drawn_stops(str(request["policy"]))
    for entry in request["moves"]:
        if stopped:
            break
        try:
            move = parse(state, seat, entry["move"])
        except MoveError as exc:  # cannot happen: the move was checked at submission
            log(state, f"Queued '{entry['move']}' could not be read: {exc.message}")
            break
        action = ACTION_OF[move["kind"]]
        policy = str(entry.get("policy", request["policy"]))
        if action == "unload" and not entry["cont"] and yellow_aboard(state, seat) and drawn_stops(policy):
            break  # RM-H7: an unload whose draw explodes (or stops) does not happen
        try:
            perform(state, seat, move, ctx, blinds.append)
        except MoveError as exc:  # cannot happen either: replayed on the state it was checked on
            log(state, f"Queued '{entry['move']}' could not be played: {exc.message}")
            break
        if action in ("load", "forward", "backward") and yellow_aboard(state, seat):
            stopped = drawn_stops(policy)
    for blind in blinds:
        take_blind(state, blind, rng)
    finish_turn(state, seat, ctx["blue"])
    refill_market(state, rng)
    check_end(state, by_chance=True)  # the replayed actions may have reached the target
