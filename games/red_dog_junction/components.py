"""Red Dog Junction's component data: loading components.toml, checking it, and turning it
into the rules tables a game state carries.

The data is plain TOML (see the file's header: representative, editable by an owner of
the physical game). ``validate`` raises ComponentError naming the bad entry, so a save
whose header carries broken data is refused with a sentence, never a traceback.
``tables`` expands the compact data (card copies, starting sets, super deal stacks) into
the lookup tables kept in ``state["rules"]``, so every later call needs only the state.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.game import ComponentReader

from .constants import (
    CREW_TYPES,
    DISPLAY_SIZE,
    EFFECTS,
    GOODS,
    PLANET_GOODS,
)
from .state import encode

CARD_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
MAX_PLAYERS = 5
MIN_COMMANDERS = 6
MIN_BOOSTS = 8
# Words of the move notation a card id must not shadow.
RESERVED = {"all", "pay", "me", "justin", "give", "take", "load", "unload", "x", "home",
            "shop", "space", "junction", "dock", *GOODS, *CREW_TYPES}


READ = ComponentReader("Red Dog Junction")
_fail = READ.fail
MAX_COPIES = 100



def _goods(value: Any, where: str) -> dict[str, int]:
    """A cost or an amount of goods: {good: count >= 1}, at least one good."""
    if not isinstance(value, dict) or not value:
        raise _fail(where, "needs a non-empty table of goods, e.g. { ruby = 2 }")
    for good, count in value.items():
        if good not in GOODS:
            raise _fail(where, f"names '{good}', which is not a good ({', '.join(GOODS)})")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise _fail(where, f"needs a whole number of at least 1 for {good}")
    return value


def _card_id(entry: dict[str, Any], where: str) -> str:
    ident = READ.text(entry, "id", where)
    if not CARD_ID.match(ident):
        raise _fail(where, f"has the id '{ident}': use lower-case words joined by '-'")
    return ident


def validate(data: Any) -> None:
    """Raise ComponentError naming the first bad entry of ``data``."""
    if not isinstance(data, dict):
        raise _fail("the data", "is not a table")
    goods = READ.table(data, "goods")
    if sorted(goods) != sorted(GOODS):
        raise _fail("[goods]", f"must count exactly these goods: {', '.join(GOODS)}")
    for good in GOODS:
        READ.whole(goods, good, f"[goods] {good}", 1)
    setup = READ.table(data, "setup")
    box = READ.whole(setup, "box_gold", "[setup]")
    start_gold = setup.get("start_gold")
    if (not isinstance(start_gold, list) or len(start_gold) != MAX_PLAYERS
            or not all(isinstance(g, int) and not isinstance(g, bool) and g >= 0
                       for g in start_gold)):
        raise _fail("[setup] start_gold", f"must list {MAX_PLAYERS} whole numbers")
    if goods["gold"] <= box + sum(start_gold):
        raise _fail("[goods] gold", "must exceed the box gold plus every starting gold")
    crew = setup.get("start_crew")
    if not isinstance(crew, dict) or not crew:
        raise _fail("[setup] start_crew", "must be a table of crew types")
    for ctype in crew:
        if ctype not in CREW_TYPES:
            raise _fail("[setup] start_crew", f"names '{ctype}', which is not a crew type")
        READ.whole(crew, ctype, f"[setup] start_crew {ctype}", 1)
    places = READ.table(data, "places")
    planets = places.get("planets")
    if not isinstance(planets, list) or sorted(planets) != sorted(PLANET_GOODS):
        raise _fail("[places] planets", f"must list each of {', '.join(PLANET_GOODS)} once")
    READ.text(places, "shop", "[places]")
    _validate_junction(READ.table(data, "junction"))
    ids: set[str] = set()
    market = 0
    for index, entry in enumerate(READ.tables(data, "crew"), 1):
        where = f"crew entry {index}"
        ident = _card_id(entry, where)
        if entry.get("type") not in CREW_TYPES:
            raise _fail(where, f"needs 'type', one of {', '.join(CREW_TYPES)}")
        READ.whole(entry, "vp", where)
        copies = READ.whole(entry, "copies", where, 1, MAX_COPIES)
        alternatives = entry.get("cost")
        if not isinstance(alternatives, list) or not alternatives:
            raise _fail(where, "needs 'cost' as a list of alternatives, e.g. [{ ruby = 2 }]")
        names = [alt_name(_goods(alt, f"{where} cost")) for alt in alternatives]
        if len(set(names)) != len(names):
            raise _fail(where, "lists two cost alternatives with the same goods")
        _add_ids(ids, _copy_ids(ident, copies, always_number=True), where)
        market += copies
    commanders = READ.tables(data, "commander")
    for index, entry in enumerate(commanders, 1):
        where = f"commander '{entry.get('id', index)}'"
        _add_ids(ids, [_card_id(entry, where)], where)
        READ.text(entry, "name", where)
        READ.whole(entry, "vp", where)
        if len(_goods(entry.get("cost"), f"{where} cost")) != 2:
            raise _fail(where, "must cost exactly two kinds of goods together")
        _validate_effect(entry, where)
    if len(commanders) < MIN_COMMANDERS:
        raise _fail("[[commander]]", f"must list at least {MIN_COMMANDERS} commanders")
    market += len(commanders)
    boosts = 0
    for index, entry in enumerate(READ.tables(data, "boost"), 1):
        where = f"boost '{entry.get('id', index)}'"
        ident = _card_id(entry, where)
        READ.text(entry, "name", where)
        copies = READ.whole(entry, "copies", where, 1, MAX_COPIES)
        if _goods(entry.get("cost"), f"{where} cost") != {"gold": 1}:
            raise _fail(where, "must cost 1 gold, as every boost does")
        _validate_effect(entry, where)
        _add_ids(ids, _copy_ids(ident, copies, always_number=False), where)
        boosts += copies
    if boosts < MIN_BOOSTS:
        raise _fail("[[boost]]", f"must make at least {MIN_BOOSTS} boost cards")
    market += boosts
    # The display, one Trail Boss pick per player and at least one refill.
    if market < DISPLAY_SIZE + MAX_PLAYERS + 2:
        raise _fail("the market deck", f"needs at least {DISPLAY_SIZE + MAX_PLAYERS + 2} cards")
    _validate_deals(READ.tables(data, "deal"), ids)


def _validate_junction(junction: dict[str, Any]) -> None:
    if "ring" in junction:
        raise _fail("[junction] ring", "is no longer data: set-up places the six dice at random "
                    "around the Junction (RDJ-S7); remove it")
    sides = READ.whole(junction, "gold_die_sides", "[junction]", 2)
    start = READ.whole(junction, "gold_die_start", "[junction]", 1)
    if start > sides:
        raise _fail("[junction] gold_die_start", "is more than the gold die's sides")


def _validate_effect(entry: dict[str, Any], where: str) -> None:
    effect = entry.get("effect")
    if effect not in EFFECTS:
        raise _fail(where, f"needs 'effect', one of {', '.join(sorted(EFFECTS))}")
    for param in EFFECTS[effect].params:
        READ.whole(entry, param, where, 1)


def _validate_deals(deals: list[dict[str, Any]], ids: set[str]) -> None:
    values: dict[int, int] = {}
    for index, entry in enumerate(deals, 1):
        where = f"deal '{entry.get('id', index)}'"
        _add_ids(ids, [_card_id(entry, where)], where)
        gold = READ.whole(entry, "gold", where, 1)
        _goods(entry.get("cost"), f"{where} cost")
        if "gold" in entry["cost"]:
            raise _fail(where, "must not ask for gold: a super deal pays gold")
        values[gold] = values.get(gold, 0) + 1
    if len(values) != 2:
        raise _fail("[[deal]]", "must make exactly two stacks (two gold values, e.g. 6 and 8)")


def _add_ids(ids: set[str], new: list[str], where: str) -> None:
    for ident in new:
        if ident in RESERVED:
            raise _fail(where, f"makes the id '{ident}', a word of the move notation")
        if ident in ids:
            raise _fail(where, f"repeats the id '{ident}'")
        ids.add(ident)


def _copy_ids(ident: str, copies: int, *, always_number: bool) -> list[str]:
    if copies == 1 and not always_number:
        return [ident]
    return [f"{ident}-{n}" for n in range(1, copies + 1)]


def alt_name(cost: dict[str, int]) -> str:
    """The name of a cost alternative in `buy ... pay NAME`: its goods joined by '+'."""
    return "+".join(g for g in GOODS if g in cost)


def start_card_ids(player: int, start_crew: dict[str, int]) -> list[str]:
    """The starting cards printed with player number ``player`` (1-based)."""
    ids: list[str] = []
    for ctype in CREW_TYPES:
        count = start_crew.get(ctype, 0)
        if count == 1:
            ids.append(f"p{player}-{ctype}")
        else:
            ids.extend(f"p{player}-{ctype}-{n}" for n in range(1, count + 1))
    return ids


def market_ids(data: dict[str, Any]) -> list[str]:
    """The market deck's card ids from validated component data, in the order ``tables``
    lists them: crew copies, commanders, boosts (what Posse's deck needs, without the rest
    of the tables)."""
    market: list[str] = []
    for entry in data["crew"]:
        market += _copy_ids(entry["id"], entry["copies"], always_number=True)
    market += [entry["id"] for entry in data["commander"]]
    for entry in data["boost"]:
        market += _copy_ids(entry["id"], entry["copies"], always_number=False)
    return market


def tables(data: dict[str, Any]) -> dict[str, Any]:
    """The rules tables for ``state["rules"]`` from validated component data."""
    # Each entry is encoded once: its copies share the text (their faces are the same).
    cards: dict[str, str] = {}
    market: list[str] = []
    for entry in data["crew"]:
        face = encode({"kind": "crew", "type": entry["type"], "name": entry["type"],
                       "vp": entry["vp"], "cost": [dict(c) for c in entry["cost"]]})
        for ident in _copy_ids(entry["id"], entry["copies"], always_number=True):
            cards[ident] = face
            market.append(ident)
    for entry in data["commander"]:
        cards[entry["id"]] = encode(_effect_card("commander", entry))
        market.append(entry["id"])
    for entry in data["boost"]:
        face = encode(_effect_card("boost", entry))
        for ident in _copy_ids(entry["id"], entry["copies"], always_number=False):
            cards[ident] = face
            market.append(ident)
    start_crew = data["setup"]["start_crew"]
    faces = {ctype: encode({"kind": "crew", "type": ctype, "name": ctype, "vp": 0, "cost": [],
                            "start": True}) for ctype in start_crew}
    for player in range(1, MAX_PLAYERS + 1):
        for ident in start_card_ids(player, start_crew):
            cards[ident] = faces[ident.split("-")[1]]
    tiles = {d["id"]: encode({"gold": d["gold"], "cost": dict(d["cost"])}) for d in data["deal"]}
    stacks: dict[str, list[str]] = {}
    for deal in data["deal"]:
        stacks.setdefault(str(deal["gold"]), []).append(deal["id"])
    return {
        "amounts": {g: data["goods"][g] for g in GOODS},
        "box_gold": data["setup"]["box_gold"],
        "start_gold": list(data["setup"]["start_gold"]),
        "start_crew": dict(start_crew),
        "shop": data["places"]["shop"],
        "gold_sides": data["junction"]["gold_die_sides"],
        "gold_start": data["junction"]["gold_die_start"],
        "cards": cards,
        "market": market,
        "tiles": tiles,
        "stacks": stacks,
    }


def _effect_card(kind: str, entry: dict[str, Any]) -> dict[str, Any]:
    card: dict[str, Any] = {"kind": kind, "type": "", "name": entry["name"],
                            "vp": entry.get("vp", 0), "cost": [dict(entry["cost"])],
                            "effect": entry["effect"]}
    for param in EFFECTS[entry["effect"]].params:
        card[param] = entry[param]
    return card


def card_text(card: dict[str, Any]) -> str:
    """What a card does, in words (crews do what their type does)."""
    if card["kind"] == "crew":
        return CREW_TEXT[card["type"]]
    spec = EFFECTS[card["effect"]]
    text = spec.text.format(**{p: card[p] for p in spec.params})
    return text + " Once a turn." if card["kind"] == "commander" else text


CREW_TEXT = {
    "cowboy": "+1 ship capacity.",
    "agent": "Docked at the Junction: one trade at the adjacent dice, or move an adjacent "
             "six-sided die by 1.",
    "miner": "Docked at a planet: mine 1 of its good.",
    "scavenger": "In space: salvage 1 good lying in space.",
    "rustler": "Undock any one ship into space.",
    "outlaw": "In space: swap up to 2 goods with another ship in space.",
    "rascal": "At the start of your turn, name a crew type: it counts as that type.",
}
