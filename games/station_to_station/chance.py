"""Resolving queued chance: the set-up deal, bag draws, route draws, crew refills.

Decks and the bag are kept as sorted multisets of public ids; a draw takes a uniform
item (PROTOCOL.md section 5: equivalent to a shuffled face-down pile).
"""

from __future__ import annotations

from typing import Any

from pbem.game import Sampler, State

from .cleanup import end_season, place_token
from .routes import mark_if_here
from .state import new_turn, note, seat_name
from .words import crew_text, describe_route


def resolve(state: State, request: dict[str, Any], rng: Sampler) -> None:
    kind = request.get("kind")
    if kind == "setup":
        _setup(state, rng)
    elif kind == "token":
        draw_token(state, str(request["city"]), rng)
        if state["bag_left"] == 0:
            end_season(state)  # STS-CL2: that draw took the season's last token
    elif kind == "route-blind":
        _route_blind(state, int(request["seat"]), int(request["slot"]), rng)
    elif kind == "route-display":
        _route_display(state, rng)
    elif kind == "crew":
        _crew_refill(state, str(request["deck"]), str(request["region"]), rng)
    else:
        raise ValueError(f"unknown chance request {request!r}")


def _take(pile: list[str], rng: Sampler) -> str:
    return pile.pop(rng.randbelow(len(pile)))


def _setup(state: State, rng: Sampler) -> None:
    players = state["players"]
    count = len(players)
    state["first"] = rng.randbelow(count)
    state["current"] = state["first"]
    # STS-S4: each crew deck fills its 4 region slots.
    for deck in ("basic", "skilled"):
        stock = state["crews"][deck]
        for region in state["data"]["regions"]:
            stock["market"][region] = _take(stock["deck"], rng)
    # STS-S8/S9: one start route each (dealt in seat order), train and marker on its start.
    routes = state["routes"]
    starts = routes.pop("starts")
    for player in players:
        rid = _take(starts, rng)
        start = state["data"]["routes"][rid]["start"]
        player["routes"][0] = {"card": rid, "marker": start, "pending": False}
        player["city"] = start
    routes["box"].extend(sorted(starts))
    # STS-S10: 2 standard routes each (the keep is the first move of their first turn),
    # then STS-S5: the display.
    for player in players:
        player["choice"] = [_take(routes["deck"], rng), _take(routes["deck"], rng)]
    routes["display"] = [_take(routes["deck"], rng), _take(routes["deck"], rng)]
    # STS-S11: a bag token on every city without a train.
    occupied = {p["city"] for p in players}
    for city in state["data"]["cities"]:
        if city not in occupied:
            state["bag_left"] -= 1
            draw_token(state, city, rng)
    state["ready"] = True
    new_turn(state, state["current"])
    note(state, f"{seat_name(state, state['first'])} plays first")


def draw_token(state: State, city: str, rng: Sampler) -> None:
    """Put a token drawn from the bag on ``city`` (cleanup.place_token)."""
    place_token(state, city, _take(state["bag"], rng))


def draw_route(state: State, rng: Sampler) -> str:
    """A uniform card from the deck; an empty deck is first refilled from the discards."""
    routes = state["routes"]
    if not routes["deck"] and routes["discards"]:
        routes["deck"] = sorted(routes["discards"])
        routes["discards"] = []
        note(state, "the route deck was empty: its face-up discards were shuffled into a new deck")
    return _take(routes["deck"], rng) if routes["deck"] else ""


def _route_blind(state: State, seat: int, slot: int, rng: Sampler) -> None:
    player = state["players"][seat]
    card = draw_route(state, rng)
    player["routes"][slot] = {"card": card, "marker": "", "pending": False}
    if card:
        note(state, f"{seat_name(state, seat)} drew route {describe_route(state['data'], card)} blind")
        mark_if_here(state, player, slot)
    else:
        note(state, f"no route card was left for {seat_name(state, seat)}'s blind draw")


def _route_display(state: State, rng: Sampler) -> None:
    routes = state["routes"]
    if len(routes["display"]) < 2:
        card = draw_route(state, rng)
        if card:
            routes["display"].append(card)
            note(state, f"route {describe_route(state['data'], card)} was turned up in the display")


def _crew_refill(state: State, deck: str, region: str, rng: Sampler) -> None:
    stock = state["crews"][deck]
    if stock["market"][region]:
        return
    if not stock["deck"]:
        # STS-C9: an empty crew deck is rebuilt from its discards.
        stock["deck"] = sorted(stock["discards"])
        stock["discards"] = []
        note(state, f"the {deck} crew deck was empty: its discards were shuffled into a new deck")
    if stock["deck"]:
        crew = _take(stock["deck"], rng)
        stock["market"][region] = crew
        note(state, f"the {deck} {region} crew slot was refilled: {crew} ({crew_text(state['data'], crew)})")
