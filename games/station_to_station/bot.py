"""The greedy bot's evaluation, in twelfths of a point so that everything stays integer.

A point is 12, a coal 6 (2 coal score a point), a dollar 3 ($4 score a point). Goods
are worth more when an order nearby asks for them, so the bot buys what it can deliver.
"""

from __future__ import annotations

from typing import Any

from pbem.game import State

from .constants import SEASONS
from .state import distances

POINT, COAL, CASH = 12, 6, 3


def _reward_value(option: dict[str, int]) -> int:
    return POINT * option.get("points", 0) + COAL * option.get("coal", 0) + CASH * option.get("cash", 0)


def _demand(state: State, seat: int) -> set[str]:
    """Goods asked for by orders within 2 spaces of the train (or in hand)."""
    player = state["players"][seat]
    tokens = state["data"]["tokens"]
    near = distances(state["data"], player["city"])
    wanted: set[str] = set()
    for city, spot in state["map"].items():
        if spot["token"] and near.get(city, 99) <= 2 and tokens[spot["token"]]["kind"] == "order":
            wanted.update(tokens[spot["token"]]["goods"])
    held = (state.get("turn") or {}).get("token")
    if held and tokens[held]["kind"] == "order":
        wanted.update(tokens[held]["goods"])
    return wanted


def _in_hand(state: State, seat: int, player: dict[str, Any]) -> int:
    """What the token taken at the stop promises, before the station action."""
    turn = state.get("turn") or {}
    if turn.get("seat") != seat or turn.get("phase") != "station" or not turn.get("token"):
        return 0
    token = state["data"]["tokens"][turn["token"]]
    if token["kind"] == "order":
        if all(player["goods"][g] >= token["goods"].count(g) for g in set(token["goods"])):
            return max(_reward_value(o) for o in token["rewards"])
        return 0
    if token["kind"] == "supply":
        face = token["gold" if turn["gold"] else "start"]
        return _reward_value(face) + sum(v * 4 for k, v in face.items() if k in player["goods"])
    return 20


def heuristic(state: State, seat: int) -> int:
    if not state.get("ready"):
        return 0
    player = state["players"][seat]
    prices = state["data"]["goods"]
    wanted = _demand(state, seat)
    value = POINT * player["points"] + COAL * player["coal"] + CASH * player["cash"]
    for good, count in player["goods"].items():
        value += count * prices[good] * (2 if good in wanted else 1)
    seasons_left = len(SEASONS) - SEASONS.index(state["season"])
    value += 5 * seasons_left * len(player["railcars"])
    value += 4 * sum(len(t) for t in player["tickets"].values()) + 4 * len(player["wilds"])
    value += 10 * sum(1 for c in player["crews"].values() if c)
    # A marker is half a route; between two cards (the Surveyor's choice) the one worth more.
    marked = [e["card"] for e in player["routes"] if e["marker"] and e["card"]]
    value += sum(6 + state["data"]["routes"][card]["points"] for card in marked)
    value += _in_hand(state, seat, player) + _job(state, seat)
    return int(value)


def _job(state: State, seat: int) -> int:
    """A hire or caboose under way: what it brings, less the tickets it will cost, with the
    tickets already paid given back, so each payment keeps the value level."""
    turn = state.get("turn") or {}
    job = turn.get("job") or {}
    if turn.get("seat") != seat or not job:
        return 0
    if job["kind"] == "caboose":
        gain, cost = POINT * state["cabooses"][0], 4 * 4
    else:
        # A crew replacing (or discarded for) the one already in its space adds little.
        taken = bool(state["players"][seat]["crews"][job["region"]]) or job["keep_old"]
        gain, cost = (2 if taken else 10), 4 * (1 if job["deck"] == "basic" else 2)
    return gain - cost + 4 * len(job["paid"])
