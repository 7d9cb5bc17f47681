"""The travel phase: move, route check, occupancy check (STS-T1), and arrival.

A movement goes by the shortest track: only the stop city counts for the route check
(STS-T5 ruling) and nothing else on the way matters, so the stop names the movement.
"""

from __future__ import annotations

from games.station_to_station.constants import COASTAL_BONUS
from games.station_to_station.routes import (
    can_take_blind,
    route_check,
    settle_owed,
    take_blind,
    take_from_display,
)
from games.station_to_station.state import (
    city_name,
    distances,
    gain_coal,
    note,
    pay_coal,
    seat_name,
    train_owner,
)
from pbem.game import State


def movement_cost(state: State, seat: int, city: str) -> int:
    """Coal for a movement to ``city``: the first space free, then 1 per space (STS-T3)."""
    player = state["players"][seat]
    spaces = distances(state["data"], player["city"])[city]
    free = 1 + state["turn"]["mods"]["free_spaces"]
    return max(0, spaces - free)


def check_travel(state: State, seat: int, city: str) -> str:
    turn = state["turn"]
    player = state["players"][seat]
    if turn["phase"] not in ("market", "again"):
        if turn["phase"] == "choose":
            return "first keep one of your two route cards"
        if turn["phase"] == "route":
            return "first take a new route card for the route you completed"
        return "the train has already finished its travel this turn"
    if city not in state["data"]["cities"]:
        return f"there is no city called '{city}'"
    if city == player["city"]:
        return "the train must move at least 1 space"
    if city == turn["start"]:
        return f"the train may not finish its movement in {city_name(state, city)}, where the turn began"
    cost = movement_cost(state, seat, city)
    if cost > player["coal"]:
        spaces = distances(state["data"], player["city"])[city]
        return (f"{city_name(state, city)} is {spaces} spaces away: that costs {cost} coal "
                f"and you have {player['coal']}")
    return ""


def travel(state: State, seat: int, city: str) -> None:
    turn = state["turn"]
    player = state["players"][seat]
    pay_coal(player, movement_cost(state, seat, city))
    turn["mods"]["free_spaces"] = 0  # crew free spaces serve one movement only
    player["city"] = city
    turn["moves"] += 1
    turn["phase"] = "route"
    note(state, f"{seat_name(state, seat)} travelled to {city_name(state, city)}")
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
                    "the train moves on")
        return
    arrive(state, seat)


def arrive(state: State, seat: int) -> None:
    """STS-ST1: take the city's token; a coastal city adds bonus coal."""
    turn = state["turn"]
    player = state["players"][seat]
    spot = state["map"][player["city"]]
    turn["phase"] = "station"
    if spot["token"]:
        turn["token"] = spot["token"]
        turn["gold"] = spot["gold"]
        turn["took"] = True
        state["map"][player["city"]] = {"token": "", "gold": False}
        if state["data"]["cities"][player["city"]]["coastal"]:
            gain_coal(player, COASTAL_BONUS)


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
        card = take_from_display(state, seat, position, slot)
        note(state, f"{seat_name(state, seat)} took route {card} from the display")
    else:
        take_blind(state, seat, slot)
        note(state, f"{seat_name(state, seat)} took a route card blind")
    settle_owed(state)
    after_route_check(state, seat)
