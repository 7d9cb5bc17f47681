"""Building exact Station to Station positions for rule tests.

Every helper moves components between their real places (bag, map, tickets, crews...)
and keeps the cash/coal ledgers straight, so ``GAME.invariants`` holds in every test
position and a test can check it after the rule under test has run.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from pbem.game import State
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.state import new_turn

SEATS = ["ann", "bob", "cy", "dee"]


def table(players: int = 2, seed: bytes = b"sts") -> LocalTable:
    return LocalTable(GAME, SEATS[:players], seed=seed)


def rng(label: str = "test") -> Sampler:
    return Sampler(hashlib.sha256(label.encode()).digest())


def started(players: int = 2, seed: bytes = b"sts") -> State:
    """A state right after the set-up deal (a copy, free to edit)."""
    return copy.deepcopy(table(players, seed).state)


def token_ids(state: State, **want: Any) -> list[str]:
    """Ids of tokens whose data fields match ``want`` (e.g. kind="order", season="summer")."""
    return [tid for tid, t in state["data"]["tokens"].items()
            if all(t.get(k) == v for k, v in want.items())]


def _remove_token(state: State, tid: str) -> None:
    """Lift a token out of wherever it is (kept in one place only)."""
    if tid in state["bag"]:
        state["bag"].remove(tid)
        return
    for ids in state["waiting"].values():
        if tid in ids:
            ids.remove(tid)
            return
    if tid in state["box"]:
        state["box"].remove(tid)
        return
    for spot in state["map"].values():
        if spot["token"] == tid:
            # Keep every empty city filled: take a waiting winter token for it.
            spot["token"], spot["gold"] = state["waiting"]["winter"].pop(), False
            return
    for player in state["players"]:
        for ids in player["tickets"].values():
            if tid in ids:
                ids.remove(tid)
                return
    raise AssertionError(f"token {tid} not found")


def lift(state: State, tid: str) -> None:
    """Take token ``tid`` out of play (from the bag, the box, the map or a ticket pile)."""
    _remove_token(state, tid)


def place(state: State, city: str, tid: str, gold: bool = False) -> None:
    """Put token ``tid`` on ``city``; the city's old token goes into the box."""
    old = state["map"][city]["token"]
    _remove_token(state, tid)
    if old:
        state["box"].append(old)
        state["box"].sort()
    state["map"][city] = {"token": tid, "gold": gold}


def make_order(state: State, tid: str, goods: list[str], rewards: list[dict[str, int]]) -> str:
    """Rewrite an order token's face in this state's data (for a worked example). Set-up
    makes the data one Fixed table that cannot change: this state gets a plain copy."""
    state["data"] = json.loads(json.dumps(state["data"]))
    token = state["data"]["tokens"][tid]
    assert token["kind"] == "order"
    token["goods"] = list(goods)
    token["rewards"] = [dict(r) for r in rewards]
    return tid


def move_train(state: State, seat: int, city: str) -> None:
    """Stand ``seat``'s train in ``city`` (its token, if any, goes to the box)."""
    old = state["map"][city]["token"]
    if old:
        state["box"].append(old)
        state["box"].sort()
        state["map"][city] = {"token": "", "gold": False}
    here = state["players"][seat]["city"]
    state["players"][seat]["city"] = city
    if here and here != city and not state["map"][here]["token"]:
        # Fill the city left behind from the waiting winter group (kept out of the bag
        # so the bag's count of tokens still to come stays right).
        state["map"][here] = {"token": state["waiting"]["winter"].pop(), "gold": False}


def begin(state: State, seat: int, city: str | None = None) -> State:
    """Make it ``seat``'s turn in the market phase (route choices made for everybody)."""
    for player in state["players"]:
        if player["choice"]:
            state["routes"]["discards"] += player["choice"]
            state["routes"]["discards"].sort()
            player["choice"] = []
    if city is not None:
        move_train(state, seat, city)
    state["current"] = seat
    new_turn(state, seat)
    return state


def set_purse(state: State, seat: int, cash: int | None = None, coal: int | None = None,
              goods: dict[str, int] | None = None) -> None:
    """Set cash, coal and goods, booking the change in the ledger as income."""
    player = state["players"][seat]
    ledger = player["ledger"]
    if cash is not None:
        ledger["cash_in"] += cash - player["cash"]
        player["cash"] = cash
    if coal is not None:
        ledger["coal_in"] += coal - player["coal"]
        player["coal"] = coal
    if goods is not None:
        for good in player["goods"]:
            new = goods.get(good, 0)
            ledger["goods_in"] += new - player["goods"][good]
            player["goods"][good] = new


def give_tickets(state: State, seat: int, region: str, count: int) -> None:
    """File ``count`` order tickets under ``region`` (orders taken from the waiting winter group)."""
    for _ in range(count):
        pool = [t for t in state["waiting"]["winter"] if state["data"]["tokens"][t]["kind"] == "order"]
        tid = pool[0]
        _remove_token(state, tid)
        state["players"][seat]["tickets"][region].append(tid)


def give_crew(state: State, seat: int, crew: str, region: str) -> None:
    """Put ``crew`` in ``seat``'s crew space for ``region`` (from wherever it was)."""
    for stock in state["crews"].values():
        if crew in stock["deck"]:
            stock["deck"].remove(crew)
        if crew in stock["discards"]:
            stock["discards"].remove(crew)
        for slot, held in stock["market"].items():
            if held == crew:
                stock["market"][slot] = ""
    player = state["players"][seat]
    old = player["crews"][region]
    if old:
        deck = state["data"]["crews"][old]["deck"]
        state["crews"][deck]["discards"].append(old)
    player["crews"][region] = crew


def market_crew(state: State, deck: str, region: str, crew: str) -> None:
    """Put ``crew`` in the market slot (the slot's old crew goes back to the deck)."""
    stock = state["crews"][deck]
    old = stock["market"][region]
    for slot, held in stock["market"].items():
        if held == crew:
            stock["market"][slot] = ""
    if crew in stock["deck"]:
        stock["deck"].remove(crew)
    if old and old != crew:
        stock["deck"].append(old)
        stock["deck"].sort()
    stock["market"][region] = crew


def play(state: State, seat: int, *moves: str) -> State:
    """Normalize and apply each move in place (like one part of a turn)."""
    for text in moves:
        GAME.apply(state, seat, GAME.normalize(state, seat, text))
    return state


def resolve_all(state: State, label: str = "resolve") -> None:
    """Resolve every pending request, as the next player's beacon would."""
    sampler = rng(label)
    pending, state["pending"] = state.get("pending", []), []
    for request in pending:
        body = {k: v for k, v in request.items() if k != "seq"}
        GAME.resolve(state, body, sampler)


def clean(state: State) -> None:
    """Assert the conservation invariants hold."""
    broken = GAME.invariants(state)
    assert not broken, broken


def give_route(state: State, seat: int, slot: int, rid: str, marker: str = "") -> None:
    """Put route card ``rid`` in ``seat``'s route slot (1 or 2) with an optional marker."""
    routes = state["routes"]
    for pile in (routes["deck"], routes["discards"], routes["box"]):
        if rid in pile:
            pile.remove(rid)
    if rid in routes["display"]:
        routes["display"][routes["display"].index(rid)] = routes["deck"].pop()
    for player in state["players"]:
        if rid in player["choice"]:
            player["choice"].remove(rid)
        for entry in player["routes"]:
            if entry["card"] == rid:
                entry.update(card="", marker="", pending=False)
    entry = state["players"][seat]["routes"][slot - 1]
    if entry["card"]:
        pile = routes["box"] if state["data"]["routes"][entry["card"]]["start"] else routes["discards"]
        pile.append(entry["card"])
        pile.sort()
    state["players"][seat]["routes"][slot - 1] = {"card": rid, "marker": marker, "pending": False}


def quick_turn(state: State, label: str = "quick") -> list[str]:
    """Play a plain turn for whoever acts (keep, travel to the first city listed, work for
    cash), end it and resolve its chance as the next player would. Returns the moves."""
    seat = state["current"]
    played = []
    while not GAME.can_end_turn(state, seat):
        legal = GAME.legal_moves(state, seat)
        for prefix in ("route keep", "route take", "travel", "work cash"):
            options = [m for m in legal if m.startswith(prefix)]
            if options:
                GAME.apply(state, seat, options[0])
                played.append(options[0])
                break
        else:
            raise AssertionError(f"no plain move in {legal}")
    GAME.end_turn(state, seat)
    resolve_all(state, f"{label}-{state['turns']}")
    return played


def no_routes(state: State, seat: int) -> None:
    """Box ``seat``'s route cards so no route check interferes with the rule under test."""
    player = state["players"][seat]
    for slot, entry in enumerate(player["routes"]):
        if entry["card"]:
            start = state["data"]["routes"][entry["card"]]["start"]
            pile = state["routes"]["box"] if start else state["routes"]["discards"]
            pile.append(entry["card"])
            pile.sort()
        player["routes"][slot] = {"card": "", "marker": "", "pending": False}
