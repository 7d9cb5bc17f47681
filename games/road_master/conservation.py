"""Conservation checks: nothing appears or vanishes except by the rules."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pbem.game import secretdeck

from .model import card, players

State = dict[str, Any]


def broken_invariants(state: State) -> list[str]:
    """Every broken invariant as a sentence (empty when the state is sound)."""
    return _cubes(state) + _cards(state) + _trucks(state) + _scores(state) + _bonus(state)


def _cubes(state: State) -> list[str]:
    data = state["data"]
    per_colour = data["cubes_total"] // len(data["colours"])
    count: Counter[str] = Counter()
    problems = []
    places: list[tuple[str, dict[str, int]]] = [(f"warehouse {k}", v) for k, v in state["houses"].items()]
    places += [(f"truck {i}", t["cubes"]) for i, t in enumerate(state["trucks"])]
    places.append(("the removed pile", state["removed"]))
    for where, cubes in places:
        for colour, n in cubes.items():
            if not isinstance(n, int) or n <= 0:
                problems.append(f"{where} has a bad count {n!r} of {colour}.")
            count[colour] += n
    for held in state["contracts"]:
        for entry in held:
            count[card(state, entry["id"])["colour"]] += entry["cubes"]
    for colour in data["colours"]:
        if count[colour] != per_colour:
            problems.append(f"{count[colour]} {colour} cubes are accounted for, not {per_colour}.")
    if sum(count.values()) != data["cubes_total"]:
        problems.append(f"{sum(count.values())} cubes in all, not {data['cubes_total']}.")
    return problems


def _cards(state: State) -> list[str]:
    seen = [u for u in state["market"] if u] + list(state["deck"]) + list(state["gone"])
    seen += [e["id"] for held in state["contracts"] for e in held]
    dupes = sorted(u for u, n in Counter(seen).items() if n > 1)
    missing = sorted(set(state["data"]["cards"]) - set(seen))
    extra = sorted(set(seen) - set(state["data"]["cards"]))
    problems = []
    if dupes:
        problems.append(f"Contract cards in two places at once: {', '.join(dupes)}.")
    if missing:
        problems.append(f"Contract cards lost: {', '.join(missing)}.")
    if extra:
        problems.append(f"Unknown contract cards: {', '.join(extra)}.")
    return problems


def _trucks(state: State) -> list[str]:
    data = state["data"]
    problems = []
    spots: Counter[tuple[int, str]] = Counter()
    for i, truck in enumerate(state["trucks"]):
        if sum(truck["cubes"].values()) > data["capacity"]:
            problems.append(f"Truck {i} carries more than {data['capacity']} cubes.")
        if truck["where"] == "road":
            if not 0 <= truck["x"] < data["length"] or truck["lane"] not in ("north", "south"):
                problems.append(f"Truck {i} is off the road.")
            spots[(truck["x"], truck["lane"])] += 1
        elif truck["where"] and truck["where"] not in data["houses"]:
            problems.append(f"Truck {i} is in an unknown place {truck['where']!r}.")
    for (x, lane), n in spots.items():
        if n > 1:
            problems.append(f"{n} trucks share space {x} ({lane} lane).")
    return problems


def _scores(state: State) -> list[str]:
    problems = []
    for seat in range(players(state)):
        earned = 0
        for entry in state["contracts"][seat]:
            info = card(state, entry["id"])
            if not 0 <= entry["cubes"] <= info["count"] or entry["done"] != (entry["cubes"] == info["count"]):
                problems.append(f"Contract {entry['id']} of seat {seat} has a bad fill.")
            earned += info["points"] if entry["done"] else 0
        if earned != state["scores"][seat]:
            problems.append(f"Seat {seat} scores {state['scores'][seat]} but completed {earned} points.")
    return problems


def _bonus(state: State) -> list[str]:
    if "secret" not in state:
        return []
    deck = "superbonus"
    n = players(state)
    total = secretdeck.remaining(state, deck)
    for s in range(n):
        total += len(secretdeck.held(state, deck, s)) + len(secretdeck.drawn(state, deck, s))
    expected = len(state["data"]["bonus"])
    if total != expected:
        return [f"{total} Super Bonus cards are accounted for, not {expected}."]
    return []
