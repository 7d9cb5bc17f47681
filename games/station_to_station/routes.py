"""Route cards: the route check at a stop, completing a route, taking a new card."""

from __future__ import annotations

from typing import Any

from pbem.game import State, queue_chance

from .constants import DISPLAY_SIZE
from .state import (
    city_name,
    gain_cash,
    gain_coal,
    note,
    pending_count,
    put_sorted,
    route_cards_available,
    score,
    seat_name,
)
from .words import describe_route, reward_text, route_name


def mark_if_here(state: State, player: dict[str, Any], slot: int) -> None:
    """A new route card naming the train's city gets a marker there at once."""
    entry = player["routes"][slot]
    if entry["card"] and player["city"] in state["data"]["routes"][entry["card"]]["cities"]:
        entry["marker"] = player["city"]
        seat = next(i for i, p in enumerate(state["players"]) if p is player)
        note(state, f"{seat_name(state, seat)}'s train is in {city_name(state, player['city'])}: "
                    f"route {route_name(state['data'], entry['card'])} gets a marker there")


def route_check(state: State, seat: int, city: str) -> None:
    """STS-T5/T6: at the stop city only, mark a first city or complete a route."""
    player = state["players"][seat]
    for slot, entry in enumerate(player["routes"]):
        card = entry["card"]
        if not card or entry["pending"]:
            continue
        pair = state["data"]["routes"][card]["cities"]
        if city not in pair:
            continue
        if not entry["marker"]:
            entry["marker"] = city
            note(state, f"{seat_name(state, seat)} marked {city_name(state, city)} on route "
                        f"{route_name(state['data'], card)}")
        elif entry["marker"] != city:
            complete_route(state, seat, slot)
    settle_owed(state)


def complete_route(state: State, seat: int, slot: int) -> None:
    """STS-T7/T8: score and reward, then discard (or keep a start route as a wild)."""
    player = state["players"][seat]
    card = player["routes"][slot]["card"]
    route = state["data"]["routes"][card]
    bonus = state["turn"]["mods"]["route_points"]
    points = route["points"] + bonus
    score(player, "routes", points)
    gain_cash(player, route["reward"].get("cash", 0))
    gain_coal(player, route["reward"].get("coal", 0))
    if route["start"]:
        player["wilds"].append(card)
    else:
        put_sorted(state["routes"]["discards"], card)
    player["routes"][slot] = {"card": "", "marker": "", "pending": False}
    state["turn"]["owed"].append(slot)
    reward = reward_text(route["reward"])
    extra = f" (with {bonus} from the cartographer)" if bonus else ""
    kept = "kept aside as a wild ticket" if route["start"] else "discarded face up"
    note(state, f"{seat_name(state, seat)} completed route {route_name(state['data'], card)}: "
                f"{points} pts{extra}{' +' + reward if reward else ''}; the card is {kept}")
    top_up_display(state)


def can_take_blind(state: State) -> bool:
    return route_cards_available(state) > 0


def settle_owed(state: State) -> None:
    """A completed route owes a new card; with no card anywhere the slot stays empty."""
    turn = state["turn"]
    while turn["owed"] and not state["routes"]["display"] and not can_take_blind(state):
        turn["owed"].pop(0)
        note(state, "no route card was left to take: the route slot stays empty")


def take_from_display(state: State, seat: int, position: int, slot: int) -> str:
    player = state["players"][seat]
    card = state["routes"]["display"].pop(position - 1)
    player["routes"][slot] = {"card": card, "marker": "", "pending": False}
    note(state, f"{seat_name(state, seat)} took route {describe_route(state['data'], card)} "
                "from the display")
    mark_if_here(state, player, slot)
    top_up_display(state)
    return str(card)


def take_blind(state: State, seat: int, slot: int) -> None:
    """STS-T7 ruling: the blind card arrives when the next player opens the save."""
    player = state["players"][seat]
    player["routes"][slot] = {"card": "", "marker": "", "pending": True}
    queue_chance(state, {"kind": "route-blind", "seat": seat, "slot": slot})


def top_up_display(state: State) -> None:
    """Ask for a refill of each empty display place that a card could still fill."""
    routes = state["routes"]
    missing = DISPLAY_SIZE - len(routes["display"]) - pending_count(state, "route-display")
    for _ in range(missing):
        if route_cards_available(state) <= 0:
            break
        queue_chance(state, {"kind": "route-display"})


def check_keep(state: State, seat: int, position: int) -> str:
    if state["turn"]["phase"] != "choose":
        return "the choice of a first standard route is made once, at the head of your first turn"
    if position not in (1, 2):
        return "keep route card 1 or 2"
    return ""


def keep_route(state: State, seat: int, position: int) -> None:
    """STS-S10: keep 1 of the 2 drawn standard routes, discard the other face up."""
    player = state["players"][seat]
    kept = player["choice"][position - 1]
    dropped = player["choice"][2 - position]
    put_sorted(state["routes"]["discards"], dropped)
    player["choice"] = []
    player["routes"][1] = {"card": kept, "marker": "", "pending": False}
    state["turn"]["phase"] = "market"
    note(state, f"{seat_name(state, seat)} kept route {describe_route(state['data'], kept)} and "
                f"discarded {route_name(state['data'], dropped)} face up")
    mark_if_here(state, player, 1)
