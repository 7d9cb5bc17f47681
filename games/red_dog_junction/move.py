"""A move as a record, and its one canonical string.

``notation.parse`` turns what people type into a Move; ``fmt`` writes it back in the
canonical form the log keeps (see notation_doc.py for every form).
"""

from __future__ import annotations

from typing import NamedTuple

from pbem.game import State

from .constants import EFFECTS, GOODS
from .state import card, ship_name

GoodsT = tuple[tuple[str, int], ...]


class Move(NamedTuple):
    verb: str
    card: str = ""  # buy, play, command, pick
    alt: str = ""  # buy: the named cost alternative
    place: str = ""  # dock, justin, jump: "junction 3", a planet, "shop", "home", "bank"
    number: int = 0  # taxi dock, deal stack, trade or mine count, die face or step, banker's dock
    goods: GoodsT = ()  # load, jettison, salvage, tractor, swap's give
    goods2: GoodsT = ()  # unload, swap's take
    everything: bool = False  # unload all
    ships: tuple[str, ...] = ()  # rustle, posse, tow, swap, another's home: ship keys
    give: str = ""
    get: str = ""
    die: str = ""
    crew: str = ""  # rascal


def fmt_goods(goods: GoodsT) -> str:
    return " ".join(g if n == 1 else f"{g} x{n}" for g, n in goods)


def as_dict(goods: GoodsT) -> dict[str, int]:
    return dict(goods)


def as_goods(counts: dict[str, int]) -> GoodsT:
    return tuple((g, counts[g]) for g in GOODS if counts.get(g, 0) > 0)


def fmt(state: State, move: Move) -> str:
    verb = move.verb
    if verb in ("undock", "pass"):
        return verb
    if verb == "mine":
        return f"mine {move.number}" if move.number else "mine"
    if verb == "dock":
        if move.ships:
            return f"dock home {ship_name(state, move.ships[0])}"
        return f"dock {move.place}"
    if verb == "taxi":
        return f"taxi {move.number}"
    if verb == "load":
        return fmt_load(move)
    if verb == "buy":
        return f"buy {move.card}" + (f" pay {move.alt}" if move.alt else "")
    if verb == "deal":
        return f"deal {move.number}"
    if verb == "rustle":
        return "rustle " + " ".join(ship_name(state, k) for k in move.ships)
    if verb == "swap":
        return (f"swap {ship_name(state, move.ships[0])} give {fmt_goods(move.goods)} "
                f"take {fmt_goods(move.goods2)}")
    if verb in ("salvage", "jettison"):
        return f"{verb} {fmt_goods(move.goods)}"
    if verb == "trade":
        return f"trade {move.give}:{move.get}" + (f" x{move.number}" if move.number > 1 else "")
    if verb == "adjust":
        return f"adjust {move.die} {move.number:+d}"
    if verb == "rascal":
        return f"rascal {move.crew}"
    if verb == "pick":
        return f"pick {move.card}"
    if verb == "justin":
        return f"justin dock {move.place}"
    return f"{verb} {move.card}" + fmt_effect_args(state, move)


def fmt_load(move: Move) -> str:
    parts = []
    if move.everything:
        parts.append("unload all")
    elif move.goods2:
        parts.append(f"unload {fmt_goods(move.goods2)}")
    if move.goods:
        parts.append(f"load {fmt_goods(move.goods)}")
    return " ".join(parts)


def fmt_effect_args(state: State, move: Move) -> str:
    shape = EFFECTS[card(state, move.card)["effect"]].args
    if shape == "none":
        return ""
    if shape == "die_value":
        return f" {move.die} {move.number}"
    if shape == "die_delta":
        return f" {move.die} {move.number:+d}"
    if shape == "die":
        return f" {move.die}"
    if shape == "dock_trade":
        return f" {move.number} {move.give}:{move.get}"
    if shape == "trade":
        return f" {move.give}:{move.get}"
    if shape == "place":
        if move.ships:
            return f" home {ship_name(state, move.ships[0])}"
        return f" {move.place}"
    if shape == "haul":
        return " " + fmt_load(move)
    if shape in ("ships", "ship"):
        return " " + " ".join(ship_name(state, k) for k in move.ships)
    return " " + fmt_goods(move.goods)
