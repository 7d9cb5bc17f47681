"""Helpers for the Road Master tests: tables, hand-made positions, scripted chance."""

from __future__ import annotations

import copy
from typing import Any

from pbem.play.local import LocalTable
from pbem_games.road_master import GAME
from pbem_games.road_master.model import add

State = dict[str, Any]
NAMES = ["ann", "bob", "cy", "dee", "eve", "fay"]


def table(n: int = 2, rules: int | None = None, **options: Any) -> LocalTable:
    """A table where ann plays first (unless told otherwise), set-up resolved; under the
    current rules unless ``rules`` names an older version."""
    options.setdefault("first", "ann")
    game = GAME if rules is None else GAME.for_rules(rules)
    return LocalTable(game, NAMES[:n], options, seed=b"rm-test")


def placed(n: int = 2, where: str = "A", rules: int | None = None,
           **options: Any) -> LocalTable:
    """A table after every truck was placed (seat i at ``where``), ann to act again."""
    t = table(n, rules, **options)
    for _ in range(n):
        t.play([f"place {where}"])
    t.prepare()
    return t


class Script:
    """A stand-in for the Sampler that answers randbelow from a list (for boom cards).

    A negative answer counts from the top: -1 is n - 1 (an OK card on a fresh pile)."""

    def __init__(self, answers: list[int]) -> None:
        self.answers = list(answers)
        self.asked: list[int] = []

    def randbelow(self, n: int) -> int:
        self.asked.append(n)
        value = self.answers.pop(0) if self.answers else 0
        if value < 0:
            value += n
        assert 0 <= value < n, f"scripted {value} is out of range for randbelow({n})"
        return value


def truck(state: State, seat: int, where: str, x: int = -1, lane: str = "", heading: str = "") -> None:
    """Put a truck somewhere: a warehouse letter, or 'road' with x/lane/heading."""
    t = state["trucks"][seat]
    if where == "road":
        t.update(where="road", x=x, lane=lane, heading=heading)
    else:
        t.update(where=where, x=-1, lane="", heading="")


def load_truck(state: State, seat: int, colour: str, n: int) -> None:
    """Move n cubes of a colour from its own warehouse onto a truck (conserving cubes)."""
    letter = next(k for k, h in state["data"]["houses"].items() if h["colour"] == colour)
    add(state["houses"][letter], colour, -n)
    add(state["trucks"][seat]["cubes"], colour, n)


def give(state: State, seat: int, uid: str) -> dict[str, Any]:
    """Hand a contract card to a seat, taking it from the market or the deck."""
    if uid in state["market"]:
        state["market"][state["market"].index(uid)] = ""
    elif uid in state["deck"]:
        state["deck"].remove(uid)
    else:
        raise AssertionError(f"{uid} is neither in the market nor in the deck")
    entry = {"id": uid, "cubes": 0, "done": False}
    state["contracts"][seat].append(entry)
    return entry


def fill(state: State, seat: int, uid: str, cubes: int) -> None:
    """Put delivered cubes on a held contract (taken from the colour's warehouse)."""
    entry = next(e for e in state["contracts"][seat] if e["id"] == uid)
    colour = state["data"]["cards"][uid]["colour"]
    letter = next(k for k, h in state["data"]["houses"].items() if h["colour"] == colour)
    add(state["houses"][letter], colour, -cubes)
    entry["cubes"] += cubes
    if entry["cubes"] == state["data"]["cards"][uid]["count"]:
        entry["done"] = True
        state["scores"][seat] += state["data"]["cards"][uid]["points"]


def apply_all(state: State, seat: int, moves: list[str]) -> None:
    for move in moves:
        GAME.apply(state, seat, GAME.normalize(state, seat, move))


def after(state: State, seat: int, moves: list[str]) -> State:
    """A copy of ``state`` after ``moves``."""
    trial = copy.deepcopy(state)
    apply_all(trial, seat, moves)
    return trial


def clear_road(state: State) -> None:
    """Park every truck in warehouse A (off the road)."""
    for seat in range(len(state["trucks"])):
        truck(state, seat, "A")
