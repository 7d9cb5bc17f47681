"""Reading and changing a Red Dog Junction state: goods, supplies, ships, crews.

The state is a plain dict (see setup.new_state for its shape). Every good sits in exactly
one of: the bank (gold, whiskey), the box (gold set aside with 2 or 3 players), a planet
(its own good), space (scrap and anything jettisoned), a ship or a storage. Goods gained
come from their supply and goods spent go back to it; both pass through here so the end
trigger (the bank's last gold) can never be missed.
"""

from __future__ import annotations

import json
from typing import Any

from pbem.game import Fixed, IllegalMoveError, State, derived

from . import journal
from .constants import (
    ACTIONS_PER_TURN,
    BANK_GOODS,
    CREW_TYPES,
    GOLD,
    GOODS,
    JUSTIN,
    PLANET_GOODS,
    SOLO_ACTIONS,
    SPACE_GOOD,
)

Goods = dict[str, int]


def no_goods() -> Goods:
    return {g: 0 for g in GOODS}


def total(goods: Goods) -> int:
    return sum(goods.values())


def describe(goods: dict[str, int], zeros: bool = False) -> str:
    """'2 scrap and 1 gold' style words for messages ('nothing' when empty); with
    ``zeros`` the goods listed at 0 are named too ('0 scrap')."""
    parts = [f"{goods[g]} {g}" for g in GOODS if g in goods and (zeros or goods[g])]
    return join_and(parts) if parts else "nothing"


def join_and(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def has(goods: Goods, need: dict[str, int]) -> bool:
    return all(goods.get(g, 0) >= n for g, n in need.items())


# Card and tile entries are kept in the state as compact JSON text: a bot deep-copies
# the state for every move it tries, and strings copy for free. Decoded entries are
# shared, so callers only read them.
def encode(entry: dict[str, Any]) -> str:
    return _ENCODE(entry)


# json.dumps(entry, sort_keys=True, separators=(",", ":")) with its encoder made once:
# set-up encodes every card (json.dumps builds an encoder per call for such arguments).
# An entry is a small tree of plain data, never circular: the check only costs time.
_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False).encode


def _entry(table: dict[str, str], ident: str) -> dict[str, Any]:
    """``table[ident]`` decoded: from the table's decoded copy when it is Fixed (set-up's
    working table, shared by every copy of the state), else afresh (a state read back
    from JSON, or set-up still building the table)."""
    if isinstance(table, Fixed):
        return derived(table, "decoded", lambda: decode_all(table))[ident]
    entry: dict[str, Any] = json.loads(table[ident])
    return entry


def decode_all(table: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Every entry of a card or tile table, decoded; copies of a card share their text
    (components.tables), so each text is decoded once and its entry shared."""
    by_text: dict[str, dict[str, Any]] = {}
    for text in table.values():
        if text not in by_text:
            by_text[text] = json.loads(text)
    return {ident: by_text[text] for ident, text in table.items()}


def card(state: State, ident: str) -> dict[str, Any]:
    return _entry(state["rules"]["cards"], ident)


def card_words(state: State, ident: str) -> str:
    """'outlaw-1 (an outlaw, 2 vp)', 'mayor (commander The Mayor, 5 vp)', 'nudge-1 (boost
    Nudge)': a card as the accounts of moves name it."""
    entry = card(state, ident)
    if entry["kind"] == "crew":
        article = "an" if entry["type"][0] in "aeiou" else "a"
        return f"{ident} ({article} {entry['type']}, {entry['vp']} vp)"
    if entry["kind"] == "commander":
        return f"{ident} (commander {entry['name']}, {entry['vp']} vp)"
    return f"{ident} (boost {entry['name']})"


def tile(state: State, ident: str) -> dict[str, Any]:
    """A super deal tile: {"gold": n, "cost": {good: n}}."""
    return _entry(state["rules"]["tiles"], ident)


# ---- supplies ------------------------------------------------------------------------
def _supply(state: State, good: str) -> dict[str, int]:
    if good in BANK_GOODS:
        return state["bank"]
    if good == SPACE_GOOD:
        return state["space"]
    return state["planets"]


def in_supply(state: State, good: str) -> int:
    """How many of ``good`` its supply holds now (what can still be gained)."""
    return int(_supply(state, good)[good])


def supply_name(good: str) -> str:
    """Where ``good`` is gained from, in words: "the bank", "space", "the ruby planet"."""
    if good in BANK_GOODS:
        return "the bank"
    return "space" if good == SPACE_GOOD else f"the {good} planet"


def empty_supply(good: str) -> str:
    """The words every message uses for an empty supply (RDJ-F3): "The gold supply (the
    bank) is empty", "The gas supply (the gas planet) is empty"."""
    return f"The {good} supply ({supply_name(good)}) is empty"


def refuse_empty(state: State, good: str, doing: str) -> None:
    """Refuse an action that would gain nothing at all because ``good``'s supply is empty
    (the rulings: such an action is refused, saying the supply is empty)."""
    if not in_supply(state, good):
        raise IllegalMoveError(f"{empty_supply(good)}: {doing} would gain nothing.")


def take_supply(state: State, good: str, wanted: int) -> int:
    """Take up to ``wanted`` of ``good`` from its supply; return how many came.

    An empty supply gives nothing (the rulings: no error, just nothing gained)."""
    supply = _supply(state, good)
    taken = min(wanted, supply[good])
    supply[good] -= taken
    if good == GOLD and taken and supply[good] == 0:
        gold_ran_out(state)
    return taken


def give_back(state: State, good: str, count: int) -> None:
    """Spent goods go back where they come from (scrap to space)."""
    _supply(state, good)[good] += count


def gold_ran_out(state: State) -> None:
    """The bank's last gold has left: every turn-taker, starting with the next one,
    plays exactly 2 more turns. The trigger fires once (later returns do not undo it)."""
    end = state["end"]
    if end["gold_fired"]:
        return
    end["gold_fired"] = True
    end["end_after"] = state["turn"] + 2 * turn_takers(state)
    journal.note(state, f"The bank's last gold is gone: every player, starting with the next, "
                        f"takes exactly 2 more turns; the game ends after turn "
                        f"{end['end_after']}.")


def turn_takers(state: State) -> int:
    return len(state["players"]) + (1 if state["solo"] else 0)


# ---- ships ------------------------------------------------------------------------------
def ship_keys(state: State) -> list[str]:
    keys = [str(i) for i in range(len(state["players"]))]
    return keys + [JUSTIN] if state["solo"] else keys


def ship(state: State, key: str) -> dict[str, Any]:
    return state[JUSTIN] if key == JUSTIN else state["players"][int(key)]


def ship_name(state: State, key: str) -> str:
    """The name of a ship's owner in notation and messages (a handle, or Justin's)."""
    if key == JUSTIN:
        return justin_name(state)
    return state["seats"][int(key)]


def justin_name(state: State) -> str:
    # A human who picked the handle "justin" keeps it; the automaton then answers to
    # "automaton" so that every ship has one name.
    return "automaton" if JUSTIN in (s.lower() for s in state["seats"]) else JUSTIN


def name_map(state: State) -> dict[str, str]:
    """Lower-case names (and 'me' is added by callers) -> ship keys."""
    return {ship_name(state, k).lower(): k for k in ship_keys(state)}


def occupant(state: State, place: str) -> str:
    """The ship key docked at ``place`` ("" when free). Home bases are private."""
    if place in ("space", "home"):
        return ""
    # ship_keys' order, without building the keys: asked at every dock and view
    for seat, player in enumerate(state["players"]):
        if player["at"] == place:
            return str(seat)
    if state["solo"] and state[JUSTIN]["at"] == place:
        return JUSTIN
    return ""


def place_label(place: str) -> str:
    if place.startswith("junction "):
        return f"Junction dock {place.split()[1]}"
    if place in PLANET_GOODS:
        return f"the {place} planet"
    return {"shop": "the trinket shop", "home": "home base", "space": "space"}.get(place, place)


def taken_by(state: State, place: str, me: str) -> None:
    """Refuse a dock held by another ship."""
    other = occupant(state, place)
    if other and other != me:
        raise IllegalMoveError(f"{place_label(place)}'s dock is taken by "
                               f"{ship_name(state, other)}.")


def dock_dice(state: State, place: str) -> list[str]:
    """The two six-sided dice beside a Junction dock ("junction N"): the dice at ring
    spots N and N+1 (the ring closes), as set-up placed them."""
    ring = state["ring"]
    number = int(place.split()[1])
    return [ring[number - 1], ring[number % len(ring)]]


def die_sides(state: State, die: str) -> int:
    return state["rules"]["gold_sides"] if die == GOLD else 6


# ---- crews ------------------------------------------------------------------------------
def crew_types(state: State, seat: int) -> list[str]:
    crew = state["players"][seat]["crew"]
    cards = state["rules"]["cards"]
    if not isinstance(cards, Fixed):
        return [card(state, c)["type"] for c in crew]
    # The rules ask this several times a move: one look-up a card.
    types = derived(cards, "types", lambda: {c: _entry(cards, c)["type"] for c in cards})
    return [types[c] for c in crew]


def rascal_names(state: State, seat: int) -> list[str]:
    """The crew type each of the seat's rascals counts as this turn, one word a rascal
    ([] until named). The turn keeps the naming as its move wrote it: one type for all
    the rascals, or one for each (RDJ-A10)."""
    return _rascal_names(state, seat, crew_types(state, seat))


def _rascal_names(state: State, seat: int, types: list[str]) -> list[str]:
    """rascal_names, given the seat's crew_types."""
    named = state["ts"]["rascal"].split() if seat == state["current"] else []
    rascals = types.count("rascal")
    return named * rascals if len(named) == 1 else named


def crew_count(state: State, seat: int, ctype: str) -> int:
    """Crew of a type, each rascal counted once: as the type it names this turn, as a
    rascal until it names one."""
    types = crew_types(state, seat)
    if not state["ts"]["rascal"] or seat != state["current"]:
        return types.count(ctype)  # no rascal named: every card counts as its own type
    return _counted(types, _rascal_names(state, seat, types), ctype)


def crew_counts(state: State, seat: int) -> dict[str, int]:
    """``crew_count`` of every crew type, in CREW_TYPES order (the crew read once)."""
    types = crew_types(state, seat)
    named = _rascal_names(state, seat, types)
    return {ctype: _counted(types, named, ctype) for ctype in CREW_TYPES}


def _counted(types: list[str], named: list[str], ctype: str) -> int:
    """crew_count, given the seat's crew_types and rascal_names."""
    if ctype == "rascal":
        return types.count(ctype) - len(named)
    return types.count(ctype) + named.count(ctype)


def capacity(state: State, seat: int) -> int:
    bonus = state["ts"]["capacity_bonus"] if seat == state["current"] else 0
    return crew_count(state, seat, "cowboy") + bonus


def allowed_actions(state: State) -> int:
    return SOLO_ACTIONS if state["solo"] else ACTIONS_PER_TURN


def goods_owned(state: State, good: str) -> int:
    """Every cube of ``good`` wherever it is (for the conservation check)."""
    count = state["space"][good] + state["box"].get(good, 0)
    if good in BANK_GOODS:
        count += state["bank"][good]
    if good in PLANET_GOODS:
        count += state["planets"][good]
    for key in ship_keys(state):
        owner = ship(state, key)
        count += owner["ship"][good] + owner["storage"][good]
    return count
