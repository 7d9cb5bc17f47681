"""The travel phase: move, route check, occupancy check (STS-T1), and arrival.

A movement goes along track by any path the player names (STS-T3): the first space is
free and each further space costs 1 coal. Without a named path the train takes a
shortest one. Only the stop city counts for the route check (STS-T5 ruling), so a path
changes nothing but the coal paid; cities on it may repeat, even the start city, which
only may not be the stop (STS-T4).
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem.game import State

from .constants import COASTAL_BONUS
from .routes import (
    can_take_blind,
    route_check,
    settle_owed,
    take_blind,
    take_from_display,
)
from .state import (
    city_name,
    distances,
    gain_coal,
    note,
    owed_first,
    pay_coal,
    seat_name,
    train_owner,
)
from .words import describe_token


def free_spaces(state: State) -> int:
    """Spaces of the next movement that cost no coal: the first, plus crew bonuses."""
    return 1 + int(state["turn"]["mods"]["free_spaces"])


def coal_for(state: State, spaces: int) -> int:
    """STS-T3: the first space free, then 1 coal per space."""
    return max(0, spaces - free_spaces(state))


def path_spaces(state: State, seat: int, city: str, via: Sequence[str] = ()) -> int:
    """Spaces of the movement to ``city`` (through ``via`` if named, else a shortest
    path); -1 when a named step has no track or the city is not on the map."""
    if _bad_step(state, seat, city, via):
        return -1
    return _spaces(state, seat, city, via)


def _spaces(state: State, seat: int, city: str, via: Sequence[str]) -> int:
    """``path_spaces`` of a movement whose steps are known to be good."""
    if via:
        return len(via) + 1
    return distances(state["data"], state["players"][seat]["city"]).get(city, -1)


def cheapest_costs(state: State, seat: int) -> dict[str, int]:
    """Coal for the cheapest movement to every city the seat's train may stop at, in map
    order: for the seat moving now with this turn's free spaces and not back to where
    the turn began (STS-T4); for anyone else as their next turn would begin."""
    here = state["players"][seat]["city"]
    if not here:
        return {}
    turn = state.get("turn") or {}
    moving = turn.get("seat") == seat and turn.get("phase") in ("choose", "market", "again")
    free = free_spaces(state) if moving else 1
    barred = {here, turn["start"] if moving else here}
    spaces = distances(state["data"], here)
    return {city: max(0, spaces[city] - free) for city in state["data"]["cities"]
            if city in spaces and city not in barred}


def cost_words(coal: int) -> str:
    return "free" if coal == 0 else f"{coal} coal"


def spaces_words(spaces: int) -> str:
    return f"{spaces} space{'' if spaces == 1 else 's'}"


def _costs(coal: int) -> str:
    return "is free" if coal == 0 else f"costs {coal} coal"


def _bad_step(state: State, seat: int, city: str, via: Sequence[str]) -> str:
    path = [state["players"][seat]["city"], *via, city]
    cities = state["data"]["cities"]
    for step in path:
        if step not in cities:
            return f"there is no city called '{step}'"
    if not via:
        return ""  # a shortest path: the map is connected
    for a, b in zip(path, path[1:], strict=False):
        if b not in cities[a]["track"]:
            return f"there is no track from {city_name(state, a)} to {city_name(state, b)}"
    return ""


def check_travel(state: State, seat: int, city: str, via: Sequence[str] = (), coal: int = -1) -> str:
    """Why the movement is illegal ("" if legal); ``coal`` is the cost as written (-1: not
    written), which must be the path's cost."""
    turn = state["turn"]
    player = state["players"][seat]
    if turn["phase"] not in ("market", "again"):
        if turn["phase"] in ("choose", "route"):
            return owed_first(state)
        return "the train has already finished its travel this turn"
    reason = _bad_step(state, seat, city, via)
    if reason:
        return reason
    if city == player["city"] and not via:
        return "the train must move at least 1 space"
    if city == turn["start"]:
        return f"the train may not finish its movement in {city_name(state, city)}, where the turn began"
    spaces = _spaces(state, seat, city, via)
    cost = coal_for(state, spaces)
    if coal >= 0 and coal != cost:
        if via:
            return f"that path is {spaces_words(spaces)} and {_costs(cost)}, not {cost_words(coal)}"
        return (f"the cheapest path to {city_name(state, city)} ({spaces_words(spaces)}) "
                f"{_costs(cost)}; to pay more, name a longer path: travel {city} via "
                "<city> <city> ...")
    if cost > player["coal"]:
        where = f"that path is {spaces} spaces" if via else \
            f"{city_name(state, city)} is {spaces} spaces away"
        return f"{where}: that costs {cost} coal and you have {player['coal']}"
    return ""


def travel(state: State, seat: int, city: str, via: Sequence[str] = ()) -> None:
    """A movement ``check_travel`` found legal."""
    turn = state["turn"]
    player = state["players"][seat]
    spaces = _spaces(state, seat, city, via)
    cost = coal_for(state, spaces)
    pay_coal(player, cost)
    turn["mods"]["free_spaces"] = 0  # crew free spaces serve one movement only
    start = player["city"]
    player["city"] = city
    turn["moves"] += 1
    turn["phase"] = "route"
    path = f" via {', '.join(city_name(state, c) for c in via)}" if via else ""
    note(state, f"{seat_name(state, seat)} travelled from {city_name(state, start)} to "
                f"{city_name(state, city)}{path} ({spaces_words(spaces)}, {cost_words(cost)})")
    route_check(state, seat, city)
    after_route_check(state, seat)


def after_route_check(state: State, seat: int) -> None:
    """Once no new route card is owed: the occupancy check, then arrival."""
    turn = state["turn"]
    if turn["owed"]:
        return
    player = state["players"][seat]
    other = train_owner(state, player["city"], seat)
    if other >= 0:
        # STS-T9: move again, the first space free again.
        turn["phase"] = "again"
        note(state, f"{seat_name(state, other)}'s train is in {city_name(state, player['city'])}: "
                    f"{seat_name(state, seat)}'s train must move on (the first space free again)")
        return
    arrive(state, seat)


def arrive(state: State, seat: int) -> None:
    """STS-ST1: take the city's token; a coastal city adds bonus coal."""
    turn = state["turn"]
    player = state["players"][seat]
    spot = state["map"][player["city"]]
    turn["phase"] = "station"
    here = city_name(state, player["city"])
    if spot["token"]:
        turn["token"] = spot["token"]
        turn["gold"] = spot["gold"]
        turn["took"] = True
        state["map"][player["city"]] = {"token": "", "gold": False}
        bonus = ""
        if state["data"]["cities"][player["city"]]["coastal"]:
            gain_coal(player, COASTAL_BONUS)
            bonus = f" and {COASTAL_BONUS} bonus coal (coastal city)"
        note(state, f"{seat_name(state, seat)} took the token at {here}: "
                    f"{describe_token(state['data'], spot['token'], spot['gold'])}{bonus}")
    else:
        note(state, f"there is no token at {here}: {seat_name(state, seat)} may only work")


def check_route_take(state: State, seat: int, source: str, position: int) -> str:
    if state["turn"]["phase"] != "route" or not state["turn"]["owed"]:
        return "no new route card is owed now"
    if source == "display":
        display = state["routes"]["display"]
        if not 1 <= position <= len(display):
            if not display:
                return "the route display is empty (a refill is on its way); take one blind"
            return f"the route display has {len(display)} card(s)"
        return ""
    if not can_take_blind(state):
        return "the route deck and its discards are empty; take a card from the display"
    return ""


def route_take(state: State, seat: int, source: str, position: int) -> None:
    turn = state["turn"]
    slot = turn["owed"].pop(0)
    if source == "display":
        take_from_display(state, seat, position, slot)
    else:
        take_blind(state, seat, slot)
        note(state, f"{seat_name(state, seat)} took a route card blind from the deck "
                    "(it arrives with the next player)")
    settle_owed(state)
    after_route_check(state, seat)
