"""Road Master's component data: loading components.toml and checking every entry.

The data is plain TOML (see the file's header: representative, editable by an owner of
the physical game). ``validate`` raises ComponentError naming the bad entry, so a save
whose header carries broken data is refused with a sentence, never a traceback.
"""

from __future__ import annotations

import re
from typing import Any

from pbem.game import ComponentReader

ACTIONS = ("forward", "backward", "load", "unload", "contracts", "superbonus")
SIDES = ("north", "south")
CARD_ID = re.compile(r"^[a-z][0-9]{1,3}$")
RULE_INTS = (
    "cubes_per_colour",
    "truck_capacity",
    "actions_per_turn",
    "market_size",
    "contracts_per_take",
    "forward_max",
    "superbonus_draw",
    "superbonus_keep",
)
# Numbers in a save's header size lists, loops and the legal-move combinations (market
# cards taken together, Super Bonus cards kept): bounded, so a crafted save cannot make
# set-up or a turn take minutes or gigabytes. Generous: about twice the printed game.
RULE_MAX = {"cubes_per_colour": 100, "truck_capacity": 20, "actions_per_turn": 12,
            "market_size": 20, "contracts_per_take": 4, "forward_max": 12,
            "superbonus_draw": 12, "superbonus_keep": 12}
# Words of the move notation that a card id or a colour must not shadow.
RESERVED = {"dump", "top", "x", "left", "into", "exit", "east", "west", "all", "none"}


READ = ComponentReader("Road Master")
_fail = READ.fail



def validate(data: Any) -> None:
    """Raise ComponentError naming the first bad entry of ``data``."""
    if not isinstance(data, dict):
        raise _fail("the data", "is not a table")
    rules = READ.table(data, "rules", "the rules section")
    for key in RULE_INTS:
        READ.whole(rules, key, "the rules section", 1, RULE_MAX[key])
    if rules["superbonus_keep"] > rules["superbonus_draw"]:
        raise _fail("the rules section", "keeps more Super Bonus cards than it draws")
    end = READ.table(rules, "end_score", "the rules section")
    for players in range(2, 7):
        READ.whole(end, str(players), f"rules.end_score for {players} players", 1)

    board = READ.table(data, "board", "the board section")
    length = READ.whole(board, "length", "the board section", 2, 100)
    colours = _validate_warehouses(data, length)
    letters = {w["letter"]: w["colour"] for w in data["warehouses"]}
    for key in ("hazardous_colour", "perishable_colour"):
        if rules.get(key) not in colours:
            raise _fail("the rules section", f"names '{key}' {rules.get(key)!r}, no warehouse's colour")

    _validate_tokens(data, rules["actions_per_turn"])
    boom = READ.table(data, "boom", "the boom section")
    if READ.whole(boom, "ok", "the boom section") + READ.whole(boom, "half", "the boom section") < 1:
        raise _fail("the boom section", "has no card")

    cards = READ.table(data, "cards", "the cards section")
    seen: set[str] = set()
    basic = _validate_contracts(cards, "contracts", letters, rules, seen)
    for entry in READ.array(cards, "shortages", "the cards section"):
        where = f"shortage {entry.get('id')!r}" if isinstance(entry, dict) else "a shortage"
        if not isinstance(entry, dict):
            raise _fail(where, "is not a table")
        _card_id(entry, where, seen)
        if entry.get("warehouse") not in letters:
            raise _fail(where, f"names an unknown warehouse {entry.get('warehouse')!r}")
    _validate_superbonus(cards, colours, seen)
    for kind, colour_key in (("hazardous", "hazardous_colour"), ("perishable", "perishable_colour")):
        variant = _validate_contracts(cards, kind, letters, rules, seen)
        by_id = {c["id"]: c for c in basic}
        for entry in variant:
            where = f"{kind} contract {entry['id']!r}"
            if entry["colour"] != rules[colour_key]:
                raise _fail(where, f"must carry {rules[colour_key]} cubes")
            base = by_id.get(entry.get("replaces", ""))
            if base is None:
                raise _fail(where, "must name in 'replaces' the ordinary contract it matches")
            if (base["colour"], base["count"], base["to"]) != (
                entry["colour"], entry["count"], entry["to"]):
                raise _fail(where, f"does not carry the same cubes to the same place as {base['id']}")
            if entry["points"] != base["points"] + 2:
                raise _fail(where, f"must be worth 2 more than {base['id']} ({base['points'] + 2})")


def _card_id(entry: dict[str, Any], where: str, seen: set[str]) -> str:
    uid = entry.get("id")
    if not isinstance(uid, str) or not CARD_ID.match(uid):
        raise _fail(where, "needs an 'id' of one letter and 1-3 digits (like c17)")
    if uid in seen:
        raise _fail(where, "repeats an id used by another card")
    seen.add(uid)
    return uid


def _validate_warehouses(data: dict[str, Any], length: int) -> list[str]:
    houses = READ.array(data, "warehouses", "the warehouses")
    if len(houses) < 2:
        raise _fail("the warehouses", "must number at least two")
    colours: list[str] = []
    letters: set[str] = set()
    places: set[tuple[int, str]] = set()
    for index, house in enumerate(houses, start=1):
        where = f"warehouse {index}"
        if not isinstance(house, dict):
            raise _fail(where, "is not a table")
        letter = READ.text(house, "letter", where)
        where = f"warehouse {letter}"
        if not re.match(r"^[A-Z]$", letter) or letter in letters:
            raise _fail(where, "needs a single capital letter not used by another warehouse")
        letters.add(letter)
        colour = READ.text(house, "colour", where)
        if not re.match(r"^[a-z]+$", colour) or colour in colours or colour in RESERVED:
            raise _fail(where, f"has a bad or repeated colour {colour!r}")
        colours.append(colour)
        space = READ.whole(house, "space", where)
        if space >= length:
            raise _fail(where, f"stands beside space {space}, off a road of {length} spaces")
        side = house.get("side")
        if side not in SIDES:
            raise _fail(where, "needs 'side' north or south")
        if (space, side) in places:
            raise _fail(where, "stands where another warehouse stands")
        places.add((space, side))
    for colour in colours:
        clash = [c for c in colours if c != colour and c.startswith(colour)]
        if clash:
            raise _fail(f"colour {colour!r}", f"is the start of {clash[0]!r}; names must not nest")
    return colours


def _validate_tokens(data: dict[str, Any], per_turn: int) -> None:
    tokens = READ.array(data, "tokens", "the tokens")
    if len(tokens) < per_turn:
        raise _fail("the tokens", f"number fewer than the {per_turn} actions of a turn")
    for index, token in enumerate(tokens, start=1):
        faces = token.get("faces") if isinstance(token, dict) else None
        if not isinstance(faces, list) or len(faces) != 2 or any(f not in ACTIONS for f in faces):
            raise _fail(f"token {index}", f"needs two faces among {', '.join(ACTIONS)}")


def _validate_contracts(
    cards: dict[str, Any], key: str, letters: dict[str, str], rules: dict[str, Any], seen: set[str]
) -> list[dict[str, Any]]:
    entries = READ.array(cards, key, "the cards section")
    for entry in entries:
        where = f"{key} entry {entry.get('id')!r}" if isinstance(entry, dict) else f"a {key} entry"
        if not isinstance(entry, dict):
            raise _fail(where, "is not a table")
        _card_id(entry, where, seen)
        if entry.get("colour") not in letters.values():
            raise _fail(where, f"has an unknown colour {entry.get('colour')!r}")
        dest = entry.get("to")
        if dest not in letters:
            raise _fail(where, f"goes to an unknown warehouse {dest!r}")
        if letters[dest] == entry["colour"]:
            raise _fail(where, "delivers cubes to their own warehouse")
        count = READ.whole(entry, "count", where, 1)
        if count > rules["truck_capacity"] * 4:
            raise _fail(where, "asks for more cubes than could ever be delivered")
        READ.whole(entry, "points", where, 1)
        READ.whole(entry, "penalty", where)
    return entries


def _validate_superbonus(cards: dict[str, Any], colours: list[str], seen: set[str]) -> None:
    entries = READ.array(cards, "superbonus", "the cards section")
    if not entries:
        raise _fail("the Super Bonus cards", "are missing")
    for entry in entries:
        where = f"Super Bonus {entry.get('id')!r}" if isinstance(entry, dict) else "a Super Bonus"
        if not isinstance(entry, dict):
            raise _fail(where, "is not a table")
        _card_id(entry, where, seen)
        need = entry.get("need")
        if not isinstance(need, dict) or not need:
            raise _fail(where, "needs a 'need' table of colours and counts")
        for colour, count in need.items():
            if colour not in colours:
                raise _fail(where, f"needs an unknown colour {colour!r}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise _fail(where, f"needs a positive count of {colour}")
        READ.whole(entry, "points", where, 1)
        READ.whole(entry, "penalty", where)
