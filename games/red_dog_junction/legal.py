"""The legal moves of the acting player, as canonical strings in a stable order.

The list is bounded so a greedy bot can try every entry: load/unload lists one good at a
time (counts up to LOAD_MAX); trades list each counted trade once; swaps list, for each
pair of goods, the largest swap; salvage and jettison list every mix when few goods are
taken and, for more, a fill led by each good. Every listed move is legal; mixed forms
that are not listed (`unload scrap load ruby x2`, a smaller swap) are legal when typed.
Order: head-of-turn moves, then `pass` (first, so that a bot that finds nothing better
passes rather than wander), moves of the ship, home, market, shop, crews, cards, and
jettison once the actions are spent.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from pbem.game import State

from . import justin, rascal, setup_choices
from .components import alt_name
from .constants import (
    DICE,
    GOLD,
    GOODS,
    JUNCTION_DOCKS,
    JUSTIN_PRIORITY,
    OUTLAW_GOODS,
    PLANET_GOODS,
)
from .crew import rates_at, trade_gets
from .move import Move, as_goods, fmt
from .state import (
    allowed_actions,
    capacity,
    card,
    crew_count,
    die_sides,
    dock_dice,
    has,
    in_supply,
    occupant,
    ship,
    ship_keys,
    tile,
    total,
)
from .turnflow import owed_head

LOAD_MAX = 8  # load and unload counts listed per good
MIX_MAX = 3  # salvage/jettison sizes up to which every mix is listed
CHEAP_FIRST = tuple(reversed(JUSTIN_PRIORITY))  # fill order when listing big jettisons


def legal_moves(state: State, seat: int) -> list[str]:
    if setup_choices.active(state):
        return [fmt(state, m) for m in setup_choices.legal(state, seat)]
    if state["phase"] != "play" or seat != state["current"]:
        return []
    moves = list(_moves(state, seat))
    seen: set[str] = set()
    out: list[str] = []
    for move in moves:
        text = fmt(state, move)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def _moves(state: State, seat: int) -> Iterator[Move]:
    head = owed_head(state, seat)
    if head == "justin":
        yield from (Move("justin", place=p) for p in justin.options(state))
        return
    if head == "rascal":
        yield from (Move("rascal", crew=names) for names in rascal.legal(state, seat))
        return
    ts = state["ts"]
    action_left = ts["actions"] < allowed_actions(state)
    if action_left:
        yield Move("pass")
        yield from _ship_moves(state, seat)
        yield from _market_moves(state, seat)
        yield from _mines(state, seat)
    agents = max(ts["agents_left"],
                 crew_count(state, seat, "agent") if action_left else 0)
    yield from _agent_moves(state, seat, agents)
    if action_left:
        yield from _space_moves(state, seat)
        yield from _rustles(state, crew_count(state, seat, "rustler"), Move("rustle"))
        yield from _card_moves(state, seat)
    else:
        yield from _jettisons(state, seat)


def _mines(state: State, seat: int) -> Iterator[Move]:
    """`mine 1` .. `mine N` (N miners), but no count above what the planet still holds
    (none at an empty planet: mining there would gain nothing, RDJ-F3)."""
    at = state["players"][seat]["at"]
    miners = crew_count(state, seat, "miner")
    if at in PLANET_GOODS and miners:
        for count in range(1, min(miners, state["planets"][at]) + 1):
            yield Move("mine", number=count)


def _distinct(state: State, idents: list[str]) -> list[str]:
    """One card of each face (copies with the same face play the same)."""
    texts = state["rules"]["cards"]  # an entry's text is its face: all but the id
    seen: set[str] = set()
    out = []
    for ident in idents:
        if texts[ident] not in seen:
            seen.add(texts[ident])
            out.append(ident)
    return out


def free_places(state: State, seat: int) -> list[str]:
    places = [f"junction {n}" for n in range(1, JUNCTION_DOCKS + 1)]
    places += [*PLANET_GOODS, "shop"]
    return [p for p in places if not occupant(state, p)] + ["home"]


def _ship_moves(state: State, seat: int) -> Iterator[Move]:
    at = state["players"][seat]["at"]
    if at == "space":
        yield from (Move("dock", place=p) for p in free_places(state, seat))
        return
    yield Move("undock")
    if at.startswith("junction "):
        for n in range(1, JUNCTION_DOCKS + 1):
            if f"junction {n}" != at and not occupant(state, f"junction {n}"):
                yield Move("taxi", number=n)


def _hauls(state: State, seat: int, base: Move) -> Iterator[Move]:
    player = state["players"][seat]
    cargo = {g: n for g, n in player["ship"].items() if n}
    if cargo:
        yield Move(base.verb, card=base.card, everything=True)
        for good, n in cargo.items():
            for count in range(1, min(n, LOAD_MAX) + 1):
                if len(cargo) > 1 or count < n:  # all of a single good is `unload all`
                    yield Move(base.verb, card=base.card, goods2=((good, count),))
    for good in GOODS:
        for n in range(1, min(player["storage"][good], LOAD_MAX) + 1):
            yield Move(base.verb, card=base.card, goods=((good, n),))


def _market_moves(state: State, seat: int) -> Iterator[Move]:
    player = state["players"][seat]
    if player["at"] == "home":
        yield from _hauls(state, seat, Move("load"))
    for ident in state["display"]:
        alternatives = card(state, ident)["cost"]
        for cost in alternatives:
            if has(player["storage"], cost):
                yield Move("buy", card=ident, alt=alt_name(cost) if len(alternatives) > 1 else "")
    if player["at"] == "shop":
        for key in sorted(state["stacks"], key=int):
            stack = state["stacks"][key]
            if stack and has(player["ship"], tile(state, stack[0])["cost"]):
                yield Move("deal", number=int(key))


def _trades(state: State, seat: int, place: str, max_count: int, base: Move) -> Iterator[Move]:
    rates = rates_at(state, place)
    cargo = state["players"][seat]["ship"]
    for give in rates:
        for get in rates:
            if give == get:
                continue
            for count in range(1, max_count + 1):
                if cargo[give] < rates[give] * count or not trade_gets(state, get, rates[get],
                                                                        count):
                    break
                if base.verb == "trade":
                    yield Move("trade", give=give, get=get, number=count)
                else:  # a card's single trade; the banker's dock rides in ``number``
                    yield Move(base.verb, card=base.card, give=give, get=get,
                               number=base.number)


def _agent_moves(state: State, seat: int, agents: int) -> Iterator[Move]:
    at = state["players"][seat]["at"]
    if agents < 1 or not at.startswith("junction "):
        return
    yield from _trades(state, seat, at, agents, Move("trade"))
    for die in dock_dice(state, at):
        for step in (-1, 1):
            if 1 <= state["dice"][die] + step <= 6:
                yield Move("adjust", die=die, number=step)


def _mixes(avail: dict[str, int], size: int, order: tuple[str, ...]) -> Iterator[dict[str, int]]:
    """Ways to take ``size`` goods from ``avail``: every mix for small sizes, else one
    fill led by each good (as many of it as possible, the rest in ``order``)."""
    size = min(size, total(avail))
    if size < 1:
        return
    kinds = [g for g in order if avail.get(g, 0)]
    if size <= MIX_MAX:
        yield from _every_mix(avail, kinds, size)
        return
    for lead in kinds:
        taken = {lead: min(avail[lead], size)}
        left = size - taken[lead]
        for good in kinds:
            if left and good != lead:
                n = min(avail[good], left)
                taken[good] = n
                left -= n
        yield taken


def _every_mix(avail: dict[str, int], kinds: list[str], size: int) -> Iterator[dict[str, int]]:
    if size == 0:
        yield {}
        return
    if not kinds:
        return
    first, rest = kinds[0], kinds[1:]
    for n in range(min(avail[first], size), -1, -1):
        for tail in _every_mix(avail, rest, size - n):
            yield {first: n, **tail} if n else tail


def _space_moves(state: State, seat: int) -> Iterator[Move]:
    player = state["players"][seat]
    if player["at"] != "space":
        return
    scavengers = crew_count(state, seat, "scavenger")
    if scavengers:
        for mix in _mixes(state["space"], scavengers, GOODS):
            yield Move("salvage", goods=as_goods(mix))
    outlaws = crew_count(state, seat, "outlaw")
    if not outlaws:
        return
    for key in ship_keys(state):
        other = ship(state, key)
        if key == str(seat) or other["at"] != "space":
            continue
        for give in GOODS:
            for take in GOODS:
                n = min(OUTLAW_GOODS * outlaws, player["ship"][give], other["ship"][take])
                if give != take and n:
                    yield Move("swap", ships=(key,), goods=((give, n),), goods2=((take, n),))


def _rustles(state: State, limit: int, base: Move) -> Iterator[Move]:
    docked = [k for k in ship_keys(state) if ship(state, k)["at"] != "space"]
    for size in range(1, min(limit, len(docked)) + 1):
        for group in combinations(docked, size):
            yield Move(base.verb, card=base.card, ships=group)


def _card_moves(state: State, seat: int) -> Iterator[Move]:
    player = state["players"][seat]
    for ident in player["commanders"]:
        if ident not in state["ts"]["commanded"]:
            yield from _effect_moves(state, seat, Move("command", card=ident))
    for ident in _distinct(state, player["boosts"]):
        yield from _effect_moves(state, seat, Move("play", card=ident))


def _effect_moves(state: State, seat: int, base: Move) -> Iterator[Move]:
    entry = card(state, base.card)
    effect = entry["effect"]
    player = state["players"][seat]
    at = player["at"]
    dice = [*DICE, GOLD]
    if effect == "cargo_net" or effect in GAINS and in_supply(state, GAINS[effect]):
        yield base
    elif effect == "set_die":
        for die in dice:
            for face in range(1, die_sides(state, die) + 1):
                if face != state["dice"][die]:
                    yield Move(base.verb, card=base.card, die=die, number=face)
    elif effect == "nudge":
        for die in dice:
            for step in (-1, 1):
                if 1 <= state["dice"][die] + step <= die_sides(state, die):
                    yield Move(base.verb, card=base.card, die=die, number=step)
    elif effect == "flip":
        yield from (Move(base.verb, card=base.card, die=die) for die in dice)
    elif effect == "remote_trade":
        for n in range(1, JUNCTION_DOCKS + 1):
            yield from _trades(state, seat, f"junction {n}", 1,
                               Move(base.verb, card=base.card, number=n))
    elif effect == "haggle":
        if at.startswith("junction "):
            yield from _trades(state, seat, at, 1, base)
    elif effect == "jump":
        for place in free_places(state, seat):
            if place != at:
                yield Move(base.verb, card=base.card, place=place)
    elif effect == "haul":
        yield from _hauls(state, seat, base)
    elif effect in ("deep_mine", "extra_mine"):
        if at in PLANET_GOODS and state["planets"][at]:
            yield base
    elif effect in ("posse", "tow"):
        limit = 1 if effect == "tow" else crew_count(state, seat, "rustler") + entry["bonus"]
        yield from _rustles(state, limit, base)
    elif effect == "tractor":
        for mix in _mixes(state["space"], entry["amount"], GOODS):
            yield Move(base.verb, card=base.card, goods=as_goods(mix))


GAINS = {"tax": GOLD, "windfall": "whiskey"}  # effects that only gain a good from its supply


def _jettisons(state: State, seat: int) -> Iterator[Move]:
    cargo = state["players"][seat]["ship"]
    excess = total(cargo) - capacity(state, seat)
    if excess > 0:
        for mix in _mixes(cargo, excess, CHEAP_FIRST):
            yield Move("jettison", goods=as_goods(mix))
