"""Conservation checks: every token, route card, crew and caboose in exactly one place;
money, coal and goods matching each player's ledger; trains and tokens where they may be."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.game import State

from .constants import COAL_LIMIT, FREIGHT_CARS, START_CASH, START_COAL


def _once(kind: str, expected: list[str], places: list[tuple[str, list[str]]]) -> list[str]:
    seen: Counter[str] = Counter()
    for _, items in places:
        seen.update(items)
    broken = []
    for item in sorted(set(expected) | set(seen)):
        if seen[item] != 1:
            where = [name for name, items in places if item in items]
            broken.append(f"{kind} {item} is in {seen[item]} places ({', '.join(where) or 'none'})")
    return broken[:5]


def check(state: State) -> list[str]:
    data = state["data"]
    players = state["players"]
    turn = state.get("turn") or {}
    broken: list[str] = []

    # Tokens: the bag (and the season groups waiting), the map, a hand, tickets, the box.
    places = [("bag", list(state["bag"])), ("box", list(state["box"]))]
    places += [(f"waiting {s}", list(ids)) for s, ids in state["waiting"].items()]
    places.append(("map", [spot["token"] for spot in state["map"].values() if spot["token"]]))
    if turn.get("token"):
        places.append(("hand", [turn["token"]]))
    for seat, player in enumerate(players):
        tickets = [t for ids in player["tickets"].values() for t in ids]
        tickets += [w for w in player["wilds"] if w in data["tokens"]]
        places.append((f"seat {seat} tickets", tickets))
        places.append((f"seat {seat} railcars", [car["id"] for car in player["railcars"]]))
    broken += _once("token", list(data["tokens"]), places)
    drawing = sum(1 for r in state.get("pending", []) if r.get("kind") == "token")
    if not 0 <= state["bag_left"] <= len(state["bag"]) - drawing:
        broken.append(f"the bag has {len(state['bag'])} tokens, {drawing} being drawn, "
                      f"but {state['bag_left']} still to come")

    # Route cards.
    routes = state["routes"]
    places = [(name, list(routes[name])) for name in ("deck", "discards", "display", "box")]
    places.append(("unused starts", list(routes.get("starts", []))))
    for seat, player in enumerate(players):
        held = [e["card"] for e in player["routes"] if e["card"]] + list(player["choice"])
        held += [w for w in player["wilds"] if w in data["routes"]]
        places.append((f"seat {seat}", held))
    broken += _once("route", list(data["routes"]), places)

    # Crews.
    places = []
    for deck, stock in state["crews"].items():
        places += [(f"{deck} deck", list(stock["deck"])), (f"{deck} discards", list(stock["discards"])),
                   (f"{deck} market", [c for c in stock["market"].values() if c])]
    for seat, player in enumerate(players):
        places.append((f"seat {seat} crews", [c for c in player["crews"].values() if c]))
    broken += _once("crew", list(data["crews"]), places)

    cabooses = list(state["cabooses"]) + [p["caboose"] for p in players if p["caboose"]]
    if sorted(cabooses) != sorted(data["cabooses"]):
        broken.append(f"cabooses {sorted(cabooses)} do not match the set {sorted(data['cabooses'])}")

    for seat, player in enumerate(players):
        broken += _player(state, seat, player)
    broken += _board(state)
    return broken


def _player(state: State, seat: int, player: dict[str, Any]) -> list[str]:
    broken = []
    ledger = player["ledger"]
    who = f"seat {seat}"
    if player["cash"] < 0 or player["cash"] != START_CASH + ledger["cash_in"] - ledger["cash_out"]:
        broken.append(f"{who} has ${player['cash']}, not what its ledger adds up to")
    expected = START_COAL + ledger["coal_in"] - ledger["coal_out"] - ledger["coal_lost"]
    if not 0 <= player["coal"] <= COAL_LIMIT or player["coal"] != expected:
        broken.append(f"{who} has {player['coal']} coal, its ledger says {expected}")
    goods = sum(player["goods"].values())
    if min(player["goods"].values()) < 0 or goods > FREIGHT_CARS:
        broken.append(f"{who} carries {goods} goods")
    booked = ledger["goods_in"] - ledger["goods_out"]
    if goods != booked:
        broken.append(f"{who} carries {goods} goods, its ledger says {booked}")
    parts = sum(player["score"].values())
    if player["points"] != parts:
        broken.append(f"{who} has {player['points']} points but its parts add to {parts}")
    for slot, entry in enumerate(player["routes"], start=1):
        card = state["data"]["routes"].get(entry["card"])
        if entry["marker"] and (card is None or entry["marker"] not in card["cities"]):
            broken.append(f"{who}'s route marker in slot {slot} is not on a city of its card")
        if entry["pending"] and entry["card"]:
            broken.append(f"{who}'s route slot {slot} is both drawn and pending")
    return broken


def _board(state: State) -> list[str]:
    if not state.get("ready"):
        return []
    broken = []
    turn = state.get("turn") or {}
    moving = turn.get("seat", -1) if turn.get("phase") in ("again", "route") else -1
    trains = [p["city"] for s, p in enumerate(state["players"]) if s != moving]
    if len(set(trains)) != len(trains):
        broken.append("two trains stand in one city")
    drawing = {r.get("city") for r in state.get("pending", []) if r.get("kind") == "token"}
    for city, spot in state["map"].items():
        if spot["token"] and city in trains:
            broken.append(f"{city} holds both a train and a token")
        if spot["token"] and city in drawing:
            broken.append(f"{city} holds a token and has another being drawn onto it")
    if not state.get("over"):
        started = turn.get("start", "") if turn.get("moves") else ""
        here = {p["city"] for p in state["players"]}
        for city, spot in state["map"].items():
            if not spot["token"] and city not in here and city not in drawing and city != started:
                broken.append(f"{city} has neither train nor token")
    return broken
