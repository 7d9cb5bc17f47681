"""The market phase: coal, local and imported goods in pairs, throwing goods off.

Every rule has a ``check_*`` that returns the reason a move is illegal ("" when legal),
used both by ``apply`` (to raise) and by ``legal_moves`` (to list), so they agree.
"""

from __future__ import annotations

from typing import Any

from pbem.game import State

from .constants import COAL_LIMIT, COAL_PRICE, IMPORT_COAL
from .state import (
    city_name,
    free_cars,
    gain_coal,
    load_goods,
    note,
    pay_cash,
    pay_coal,
    seat_name,
    token_face,
    unload_goods,
)

NOT_MARKET = "goods and coal are bought only in the market phase, before the train moves"


def is_local(state: State, good: str) -> bool:
    player = state["players"][state["turn"]["seat"]]
    return good in state["data"]["cities"][player["city"]]["market"]


def check_buy_coal(state: State, seat: int, count: int) -> str:
    player = state["players"][seat]
    if state["turn"]["phase"] != "market":
        return NOT_MARKET
    if count < 1:
        return "buy at least 1 coal"
    if player["coal"] + count > COAL_LIMIT:
        return f"you hold {player['coal']} coal and may store at most {COAL_LIMIT}"
    if COAL_PRICE * count > player["cash"]:
        return f"{count} coal costs ${COAL_PRICE * count} and you have ${player['cash']}"
    return ""


def buy_coal(state: State, seat: int, count: int) -> None:
    player = state["players"][seat]
    pay_cash(player, COAL_PRICE * count)
    gain_coal(player, count)
    note(state, f"{seat_name(state, seat)} bought {count} coal for ${COAL_PRICE * count}")


def pair_costs(state: State, good: str, pairs: int) -> tuple[int, int]:
    """Dollars and coal for ``pairs`` pairs of ``good`` bought now (crew discounts applied)."""
    mods = state["turn"]["mods"]
    imported = not is_local(state, good)
    cash = coal = 0
    haggle = mods["pair_discount"]
    free_imports = mods["import_free"]
    for _ in range(pairs):
        price = state["data"]["goods"][good]
        if mods["pair_discount_all"]:
            price -= 1
        if haggle:
            price -= 1
            haggle -= 1
        cash += max(0, price)
        if imported and not mods["import_free_all"]:
            if free_imports:
                free_imports -= 1
            else:
                coal += IMPORT_COAL
    return cash, coal


def check_buy_goods(state: State, seat: int, good: str, count: int) -> str:
    player = state["players"][seat]
    if state["turn"]["phase"] != "market":
        return NOT_MARKET
    if good not in state["data"]["goods"]:
        return f"there is no good called '{good}'"
    if count < 2 or count % 2:
        return "goods are bought in pairs: buy 2, 4, 6 or 8 of a kind"
    pairs = count // 2
    room = free_cars(player)
    if room <= 2 * (pairs - 1):
        # STS-M6: a pair may load short, but a pair that loads nothing is no purchase.
        return (f"only {room} freight car(s) are free; buy fewer pairs or discard goods first"
                if room else "your 8 freight cars are full; discard goods first")
    cash, coal = pair_costs(state, good, pairs)
    if cash > player["cash"]:
        return f"{count} {good} cost ${cash} and you have ${player['cash']}"
    if coal > player["coal"]:
        here = city_name(state, player["city"])
        return (f"{good} is not sold at {here}: importing {count} costs {coal} coal "
                f"and you have {player['coal']}")
    return ""


def buy_goods(state: State, seat: int, good: str, count: int) -> int:
    """Pay for every pair, load what fits (STS-M6); return the number loaded."""
    player = state["players"][seat]
    mods = state["turn"]["mods"]
    pairs = count // 2
    cash, coal = pair_costs(state, good, pairs)
    imported = not is_local(state, good)
    pay_cash(player, cash)
    pay_coal(player, coal)
    if imported and not mods["import_free_all"]:
        mods["import_free"] = max(0, mods["import_free"] - pairs)
    mods["pair_discount"] = max(0, mods["pair_discount"] - pairs)
    loaded = load_goods(player, good, count)
    price = f"${cash}" + (f" and {coal} coal" if coal else "")
    short = f" ({loaded} loaded: the freight cars are full)" if loaded < count else ""
    note(state, f"{seat_name(state, seat)} {'imported' if imported else 'bought'} {count} {good} "
                f"for {price}{short}")
    return loaded


def supply_goods(state: State, seat: int) -> int:
    """Goods the token in hand would load if it is a supply (0 otherwise)."""
    turn = state["turn"]
    if not turn["token"] or state["data"]["tokens"][turn["token"]]["kind"] != "supply":
        return 0
    face: dict[str, Any] = token_face(state, turn["token"], turn["gold"])
    return sum(v for k, v in face.items() if k in state["data"]["goods"])


def check_discard(state: State, seat: int, good: str) -> str:
    player = state["players"][seat]
    phase = state["turn"]["phase"]
    if good not in state["data"]["goods"]:
        return f"there is no good called '{good}'"
    if player["goods"][good] < 1:
        return f"your train carries no {good}"
    if phase == "market":
        if free_cars(player) >= 2:
            return "goods are thrown off only to make room: a whole pair still fits"
        return ""
    if phase == "station" and supply_goods(state, seat) > free_cars(player):
        return ""
    return "goods are thrown off only to make room for goods being loaded"


def discard(state: State, seat: int, good: str) -> None:
    unload_goods(state["players"][seat], good, 1)
    note(state, f"{seat_name(state, seat)} threw 1 {good} off the train")
