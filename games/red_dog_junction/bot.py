"""The greedy bot's evaluation: points now, plus what goods, cards and position are worth
on the way to points. Values are in hundredths of a victory point.

The shape matters more than the numbers. A good on a ship is worth the better of two
routes: traded for gold at the Junction (at the dice's current rates) or stored at home
to buy the cards on display. Either way it gains value as the ship gets closer to where
the route ends (a dock beside its die, or home), so a player looking one move ahead
still mines, flies, trades, unloads and buys. Cargo over capacity is worth nothing, so
mining stops when the hold is full; a docked ship at a planet it can mine is worth a
little, so an empty ship heads out.
"""

from __future__ import annotations

from pbem.game import State

from . import posse
from .constants import GOLD, PLANET_GOODS
from .scoring import score_of
from .state import capacity, card, crew_count, crew_types, dock_dice, total

POINT = 100
CARD_WORTH = {"crew": 45, "commander": 60}
BOOST_WORTH = 20  # a boost: a tie-break and one action's help
STARTING_CREW = 30  # a starting crew card drafted in Posse: no points, but it works
STORED = 30  # a non-gold good in storage that some display card asks for
STORED_CAP = 6  # ... up to this many of it
GOLD_ON_SHIP = {"home": 95, "space": 88}  # elsewhere 85
# Route factors in per cent: what share of its worth a good keeps from where the ship is.
TRADE_ROUTE = {"beside": 80, "junction": 68, "space": 70}  # elsewhere 65
STORE_ROUTE = {"home": 95, "space": 85}  # elsewhere 80
# Cargo and position are worked out in 1/FINE of the heuristic's unit, in integers only:
# the steady bot (PROTOCOL.md section 11) plays by this heuristic and every verifier
# re-plays its turns, so it must give the same number on every machine and Python (a
# float sum does not: Python 3.12 sums floats with compensation, 3.11 does not).
# 6,000 = 100 (per cent) x 60 (a multiple of every die face, so a rate is exact).
FINE = 6000
PER_CENT = FINE // 100  # one per cent of the unit, in 1/FINE


def heuristic(state: State, seat: int) -> int:
    if state["phase"] == "draft":
        return _draft_worth(state, seat)
    player = state["players"][seat]
    points, _, ties = score_of(state, seat)
    value = points * POINT + ties[0] * BOOST_WORTH
    for ident in player["crew"] + player["commanders"]:
        entry = card(state, ident)
        if not entry.get("start"):
            value += CARD_WORTH[entry["kind"]]
    wanted = _wanted(state)
    for good, n in player["storage"].items():
        if good != GOLD:
            worth = STORED if good in wanted else 5
            value += worth * min(n, STORED_CAP) + 3 * max(0, n - STORED_CAP)
    value += (_cargo(state, seat, wanted) + _position(state, seat, wanted)) // FINE
    if state["phase"] == "over":
        value += 1000 * POINT * _won(state, seat)
    return value


def _draft_worth(state: State, seat: int) -> int:
    """Posse's draft: what the cards the seat has picked are worth, as far as it knows
    them (its own picks only: posse.known never gives another seat's cards)."""
    known = posse.known(state, seat)
    value = 0
    for slot in posse.picks_of(state, seat):
        if slot in known:
            value += card_worth(card(state, known[slot]))
    return value


def card_worth(entry: dict[str, object]) -> int:
    """A card in hand at the start: its points and what it does (a starting card has no
    points but still works; a boost is a tie-break and one action's help)."""
    kind = str(entry["kind"])
    if kind == "boost":
        return BOOST_WORTH
    if entry.get("start"):
        return STARTING_CREW
    return int(str(entry["vp"])) * POINT + CARD_WORTH[kind]


def _wanted(state: State) -> set[str]:
    """Goods that some display card can be bought with."""
    return {g for c in state["display"] for cost in card(state, c)["cost"] for g in cost}


def _trade_unit(state: State, seat: int, good: str) -> int:
    """One ``good`` on the ship, to be traded for gold at the Junction from where it is
    (in 1/FINE)."""
    at = state["players"][seat]["at"]
    if good == GOLD:
        return GOLD_ON_SHIP.get(at, 85) * FINE
    spot = at
    if at.startswith("junction "):
        ship = state["players"][seat]["ship"]
        tradable = ship[good] >= state["dice"][good] and crew_count(state, seat, "agent") > 0
        spot = "beside" if good in dock_dice(state, at) and tradable else "junction"
    # A trade's gold must fit in the hold too, so no good is worth more than a gold: the
    # rate is gold's die over the good's, at most 1.
    gold, die = state["dice"][GOLD], state["dice"][good]
    return 85 * TRADE_ROUTE.get(spot, 65) * PER_CENT * min(gold, die) // die


def _cargo(state: State, seat: int, wanted: set[str]) -> int:
    """The ship's goods, each by its better route; the store route of a good pays only
    until storage holds STORED_CAP of it; only a full hold's worth counts (in 1/FINE);
    half of it in space beside another player's outlaws."""
    player = state["players"][seat]
    at = player["at"]
    worths: list[int] = []
    for good, n in player["ship"].items():
        for k in range(n):
            if good == GOLD:
                worths.append(_trade_unit(state, seat, good))
                continue
            useful = good in wanted and player["storage"][good] + k < STORED_CAP
            store = (STORED if useful else 5) * STORE_ROUTE.get(at, 80) * PER_CENT
            worths.append(max(_trade_unit(state, seat, good), store))
    worths.sort(reverse=True)
    kept = sum(worths[: max(capacity(state, seat), 0)])
    return kept // 2 if at == "space" and _raiders(state, seat) else kept


def _raiders(state: State, seat: int) -> bool:
    """This ship and another in space, both with outlaws (or rascals that may be named
    so): each can swap the other's cargo away on its turn. Counting that risk sends a
    ship with cargo on its way instead of swapping the same goods back and forth for ever
    (each taking back what the other took). A ship without outlaws is not deterred from
    space: one raid is not a loop, and a raider parked in space would block the way."""
    if not _raider(state, seat):
        return False
    return any(other != seat and player["at"] == "space" and _raider(state, other)
               for other, player in enumerate(state["players"]))


def _raider(state: State, seat: int) -> bool:
    types = crew_types(state, seat)
    return "outlaw" in types or "rascal" in types


def _position(state: State, seat: int, wanted: set[str]) -> int:
    """Where the ship is, for what it can load next (in 1/FINE)."""
    player = state["players"][seat]
    at = player["at"]
    room = capacity(state, seat) - total(player["ship"])
    if room <= 0:
        return 0
    if at in PLANET_GOODS:
        reach = min(crew_count(state, seat, "miner"), state["planets"][at], room)
        useful = at in wanted and state["players"][seat]["storage"][at] < STORED_CAP
        unit = max(_trade_unit(state, seat, at), STORED * 80 * PER_CENT if useful else 0)
        return 6 * unit * reach // 10
    if at == "space":
        return (8 + 4 * min(state["space"][GOLD], room) * crew_count(state, seat, "scavenger")
                ) * FINE
    return 0


def _won(state: State, seat: int) -> int:
    mine = score_of(state, seat)[0]
    best = max(score_of(state, s)[0] for s in range(len(state["players"])))
    return 1 if mine == best else 0
