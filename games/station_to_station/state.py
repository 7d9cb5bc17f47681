"""The state's shape, set-up, and the small helpers every rule module shares.

Cash, coal and goods change only through the helpers here, which also keep a per-player
ledger, so ``invariants`` can check that money and coal are accounted for.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from typing import Any

from pbem.game import State, derived, queue_chance

from . import components
from .constants import (
    COAL_LIMIT,
    FREIGHT_CARS,
    ROUTE_SLOTS,
    SEASONS,
    START_CASH,
    START_COAL,
)

# Event notes kept in the state: enough for every event of one entry (the set-up deal
# makes about 30), which ``describe`` reads back; ``noted`` counts every note ever made.
NOTES_KEPT = 48

# What a phase still owes before the turn can go on (or end), with the move to type.
OWED = {
    "choose": "keep one of your two route cards (route keep 1 or route keep 2)",
    "market": "the train must travel at least 1 space (travel <city>)",
    "again": "another train is in this city, so the train must move on (travel <city>)",
    "route": "take a new route card for the route you completed (route take display 1, "
             "route take display 2 or route take blind)",
    "station": "take a station action (order, supply, railcar or work coal/cash/both)",
    "paying": "finish paying for the crew or caboose under way (pay <ticket>)",
}
BLOCKING = ("choose", "route", "again", "paying")  # phases whose debt comes before all else


def owed_first(state: State) -> str:
    """"first <what is owed>" when the phase owes a move before anything else, else ""."""
    phase = state["turn"].get("phase", "")
    return f"first {OWED[phase]}" if phase in BLOCKING else ""


def setup_state(seats: list[str], components_data: dict[str, Any]) -> State:
    """Everything before the `start` beacon; the shuffles and deals are one chance request."""
    # The map never changes: one Fixed table that every copy of the state shares.
    data = components.index(components_data)
    players = len(seats)
    removal = data["removal"][str(players)]
    groups: dict[str, list[str]] = {s: [] for s in SEASONS}
    unused: list[str] = []  # countdown tokens for more players than this game has
    for tid, token in data["tokens"].items():
        if token["season"] == "countdown" and token["players"] > players:
            unused.append(tid)
        else:
            groups[token["season"]].append(tid)
    for ids in groups.values():
        ids.sort()
    regions = data["regions"]
    state: State = {
        "data": data,
        "seats": list(seats),
        "ready": False,  # set once the set-up request is resolved
        "over": False,
        "current": 0,
        "first": 0,
        "turns": 0,
        "season": "summer",
        "final_round": False,
        # Removal at set-up is deferred: the whole group goes in the bag and the season
        # ends after (size - removed) draws. A uniform draw from an unseen random subset is
        # the same as a uniform draw from the whole group, and nobody sees the boxed tokens.
        "bag": groups["summer"],
        "bag_left": len(groups["summer"]) - removal["summer"],
        "removal": dict(removal),
        "waiting": {s: groups[s] for s in SEASONS[1:]},
        "box": sorted(unused),
        "map": {city: {"token": "", "gold": False} for city in data["cities"]},
        "routes": {
            "deck": sorted(rid for rid, r in data["routes"].items() if not r["start"]),
            "discards": [],
            "display": [],
            "box": [],
            "starts": sorted(rid for rid, r in data["routes"].items() if r["start"]),
        },
        "crews": {
            deck: {
                "deck": sorted(cid for cid, c in data["crews"].items() if c["deck"] == deck),
                "discards": [],
                "market": {r: "" for r in regions},
            }
            for deck in ("basic", "skilled")
        },
        "cabooses": list(data["cabooses"]),
        "players": [new_player(regions, data["goods"]) for _ in seats],
        "turn": {},
        "notes": [],
        "noted": 0,
        "boxed": [],  # tokens boxed at a stop this season: {token, gold, city, seat}
        "pending": [],
    }
    queue_chance(state, {"kind": "setup"})
    return state


def new_player(regions: list[str], goods: dict[str, int]) -> dict[str, Any]:
    return {
        "city": "",
        "cash": START_CASH,
        "coal": START_COAL,
        "points": 0,
        "score": {"orders": 0, "routes": 0, "supplies": 0, "cabooses": 0},
        "goods": {g: 0 for g in goods},
        "railcars": [],
        "routes": [{"card": "", "marker": "", "pending": False} for _ in range(ROUTE_SLOTS)],
        "choice": [],
        "tickets": {r: [] for r in regions},
        "crews": {r: "" for r in regions},
        "wilds": [],
        "caboose": 0,
        "ledger": {"cash_in": 0, "cash_out": 0, "coal_in": 0, "coal_out": 0, "coal_lost": 0,
                   "goods_in": 0, "goods_out": 0},
    }


def new_turn(state: State, seat: int) -> None:
    player = state["players"][seat]
    state["turn"] = {
        "seat": seat,
        "phase": "choose" if player["choice"] else "market",
        "start": player["city"],
        "moves": 0,
        "owed": [],
        "token": "",
        "gold": False,
        "took": False,  # a token was taken at the stop (for the coastal bonus crews)
        "did": {},  # the station action once taken: action, token, gold, label
        "used": [],
        "hired": "",
        "job": {},  # a crew hire or caboose being paid for, ticket by ticket
        "mods": {
            "free_spaces": 0,
            "import_free": 0,
            "import_free_all": False,
            "pair_discount": 0,
            "pair_discount_all": False,
            "order_discount": [],
            "work_cash": 0,
            "supply_cash": 0,
            "order_points": 0,
            "order_all": False,
            "route_points": 0,
            "basic_any_one": False,
            "skilled_as_basic": False,
            "caboose_three": False,
        },
    }


# ---- players ------------------------------------------------------------------------
def gain_cash(player: dict[str, Any], amount: int) -> None:
    player["cash"] += amount
    player["ledger"]["cash_in"] += amount


def pay_cash(player: dict[str, Any], amount: int) -> None:
    assert 0 <= amount <= player["cash"], "checked before paying"
    player["cash"] -= amount
    player["ledger"]["cash_out"] += amount


def gain_coal(player: dict[str, Any], amount: int) -> int:
    """Add coal up to the limit; return how much was lost over it."""
    kept = max(0, min(amount, COAL_LIMIT - player["coal"]))
    player["coal"] += kept
    player["ledger"]["coal_in"] += amount
    player["ledger"]["coal_lost"] += amount - kept
    return amount - kept


def pay_coal(player: dict[str, Any], amount: int) -> None:
    assert 0 <= amount <= player["coal"], "checked before paying"
    player["coal"] -= amount
    player["ledger"]["coal_out"] += amount


def goods_held(player: dict[str, Any]) -> int:
    return sum(player["goods"].values())


def free_cars(player: dict[str, Any]) -> int:
    return FREIGHT_CARS - goods_held(player)


def load_goods(player: dict[str, Any], good: str, amount: int) -> int:
    """Load up to ``amount`` goods as room allows; return how many were loaded."""
    loaded = max(0, min(amount, free_cars(player)))
    player["goods"][good] += loaded
    player["ledger"]["goods_in"] += loaded
    return loaded


def unload_goods(player: dict[str, Any], good: str, amount: int) -> None:
    assert 0 <= amount <= player["goods"][good], "checked before unloading"
    player["goods"][good] -= amount
    player["ledger"]["goods_out"] += amount


def score(player: dict[str, Any], part: str, points: int) -> None:
    player["points"] += points
    player["score"][part] += points


# ---- the board ----------------------------------------------------------------------
def distances(data: dict[str, Any], origin: str) -> dict[str, int]:
    """Spaces from ``origin`` to every city along track (breadth first), worked out once
    per origin on the set-up's Fixed map. The caller must not change the result."""
    return derived(data, f"distances from {origin}", lambda: _breadth_first(data, origin))


def _breadth_first(data: dict[str, Any], origin: str) -> dict[str, int]:
    cities = data["cities"]
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        for other in cities[here]["track"]:
            if other not in dist:
                dist[other] = dist[here] + 1
                queue.append(other)
    return dist


def train_owner(state: State, city: str, besides: int) -> int:
    """The seat of another train in ``city``, or -1."""
    for seat, player in enumerate(state["players"]):
        if seat != besides and player["city"] == city:
            return seat
    return -1


def city_name(state: State, city: str) -> str:
    return str(state["data"]["cities"][city]["name"])


def seat_name(state: State, seat: int) -> str:
    seats = state.get("seats") or []
    return str(seats[seat]) if seat < len(seats) else f"seat {seat}"


def note(state: State, text: str) -> None:
    """One event, in words for people: the view's recent events and ``describe``."""
    notes = state.setdefault("notes", [])
    notes.append(text)
    del notes[:-NOTES_KEPT]
    state["noted"] = int(state.get("noted", 0)) + 1


def put_sorted(pile: list[str], item: str) -> None:
    insort(pile, item)


def pending_count(state: State, *kinds: str) -> int:
    return sum(1 for r in state.get("pending", []) if r.get("kind") in kinds)


def route_cards_available(state: State) -> int:
    """Standard route cards a new draw could still reach (deck and discards, less claims)."""
    routes = state["routes"]
    claims = pending_count(state, "route-blind", "route-display")
    return len(routes["deck"]) + len(routes["discards"]) - claims


def token_face(state: State, tid: str, gold: bool) -> Any:
    """What a supply or railcar token shows on the given face."""
    return state["data"]["tokens"][tid]["gold" if gold else "start"]
