"""Applying one move: the head-of-turn free moves, the actions, and jettison.

Every action uses one of the turn's actions, except that agent moves in a row share one:
an agent action may both move dice and trade, one agent each, so `adjust scrap -1`
followed by `trade scrap:whiskey` is a single action while the player has agents to
spare (the rulebook's example). Any other move closes the open agent action.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.game import IllegalMoveError, State

from . import journal, justin, rascal, setup_choices
from .components import alt_name
from .constants import GOLD
from .crew import (
    check_place,
    do_haul,
    do_mine,
    do_rustle,
    do_salvage,
    do_swap,
    do_trade,
    junction_place,
    move_goods,
    plural,
    rates_at,
    step_die,
)
from .effects import run_effect
from .move import Move, as_dict
from .state import (
    allowed_actions,
    capacity,
    card,
    card_words,
    crew_count,
    crew_types,
    describe,
    dock_dice,
    empty_supply,
    give_back,
    has,
    place_label,
    rascal_names,
    take_supply,
    taken_by,
    total,
)
from .state import tile as deal_tile
from .turnflow import check_turn, head_message, owed_head

HEAD_VERBS = ("justin", "pick", "rascal")  # pick: only in set-up (setup_choices)
AGENT_VERBS = ("trade", "adjust")


def apply_move(state: State, seat: int, move: Move) -> None:
    if setup_choices.active(state):
        setup_choices.apply(state, seat, move)
        return
    check_turn(state, seat)
    journal.begin_move(state)
    head = owed_head(state, seat)
    if head and move.verb != head:
        raise IllegalMoveError(head_message(state, seat, head))
    if move.verb in HEAD_VERBS:
        if move.verb != head:
            raise IllegalMoveError(_late_head(state, seat, move.verb))
        HANDLERS[move.verb](state, seat, move)
        return
    ts = state["ts"]
    if move.verb == "jettison":
        _jettison(state, seat, move)
        ts["agents_left"] = 0
        return
    if move.verb in AGENT_VERBS:
        _agent_move(state, seat, move)
        return
    _need_action(state)
    HANDLERS[move.verb](state, seat, move)
    ts["actions"] += 1
    ts["agents_left"] = 0


def _late_head(state: State, seat: int, verb: str) -> str:
    if verb == "justin":
        return "Justin is not waiting for a dock."
    if verb == "pick":
        return ("Only a Trail Boss player picks a crew card, once, during set-up before the "
                "first turn.")
    if "rascal" not in crew_types(state, seat):
        return "You have no rascals to name."
    if state["ts"]["rascal"]:
        return f"Your rascals are named: {rascal.said(rascal_names(state, seat))}."
    return "Rascals are named at the start of the turn, before any action."


def _need_action(state: State) -> None:
    allowed = allowed_actions(state)
    if state["ts"]["actions"] >= allowed:
        raise IllegalMoveError(f"You have taken all {allowed} actions this turn; only "
                               "`jettison` (when over capacity) may follow.")


def _agent_move(state: State, seat: int, move: Move) -> None:
    ts = state["ts"]
    need = move.number if move.verb == "trade" else 1
    if ts["agents_left"] >= need:  # the open agent action goes on
        HANDLERS[move.verb](state, seat, move)
        ts["agents_left"] -= need
        return
    _need_action(state)
    agents = crew_count(state, seat, "agent")
    if agents < 1:
        raise IllegalMoveError("You have no agents.")
    if need > agents:
        raise IllegalMoveError(f"{plural(need, 'trade')} at once need {need} agents; you have "
                               f"{agents}.")
    HANDLERS[move.verb](state, seat, move)
    ts["actions"] += 1
    ts["agents_left"] = agents - need


def _say(state: State, seat: int, text: str) -> None:
    """The move's own line, before what it caused (see journal.begin_move)."""
    journal.move_line(state, f"{state['seats'][seat]} {text}.")


# ---- head of the turn -------------------------------------------------------------------
def _justin(state: State, seat: int, move: Move) -> None:
    justin.place(state, move.place, journal.note)


def _rascal(state: State, seat: int, move: Move) -> None:
    names = rascal.check(state, seat, move.crew.split())
    state["ts"]["rascal"] = rascal.naming(names)
    _say(state, seat, f"named the rascals: {rascal.said(names)}")


# ---- moving -------------------------------------------------------------------------------
def _undock(state: State, seat: int, move: Move) -> None:
    player = state["players"][seat]
    if player["at"] == "space":
        raise IllegalMoveError("Your ship is already in space.")
    was = player["at"]
    player["at"] = "space"
    _say(state, seat, f"undocked from {place_label(was)} into space")


def _dock(state: State, seat: int, move: Move) -> None:
    player = state["players"][seat]
    if player["at"] != "space":
        hint = " or `taxi N` between Junction docks" if player["at"].startswith("junction") else ""
        raise IllegalMoveError(f"Your ship is docked at {place_label(player['at'])}: `undock` "
                               f"first{hint}.")
    check_place(state, str(seat), move.place, move.ships[0] if move.ships else "")
    player["at"] = move.place
    _say(state, seat, f"docked at {_where(state, move.place)}")


def _where(state: State, place: str) -> str:
    """A place, with a Junction dock's trading rates."""
    if not place.startswith("junction "):
        return place_label(place)
    rates = ", ".join(f"{g} {n}" for g, n in rates_at(state, place).items())
    return f"{place_label(place)} ({rates})"


def _taxi(state: State, seat: int, move: Move) -> None:
    here = junction_place(state, seat, "Taxiing")
    there = f"junction {move.number}"
    if here == there:
        raise IllegalMoveError(f"Your ship is already at {place_label(there)}.")
    taken_by(state, there, str(seat))
    state["players"][seat]["at"] = there
    _say(state, seat, f"taxied from {place_label(here)} to {_where(state, there)}")


# ---- home, market, shop -----------------------------------------------------------------
def _load(state: State, seat: int, move: Move) -> None:
    if state["players"][seat]["at"] != "home":
        raise IllegalMoveError("Loading and unloading need your ship docked at your home base.")
    _say(state, seat, do_haul(state, seat, as_dict(move.goods), as_dict(move.goods2),
                              move.everything))


def _buy(state: State, seat: int, move: Move) -> None:
    if move.card not in state["display"]:
        raise IllegalMoveError(f"{move.card} is not in the display.")
    entry = card(state, move.card)
    alternatives = {alt_name(c): c for c in entry["cost"]}
    spoken = " or ".join(describe(c) for c in entry["cost"])
    if move.alt:
        if move.alt not in alternatives:
            raise IllegalMoveError(f"{move.card} cannot be paid with {move.alt}: it costs "
                                   f"{spoken}.")
        cost = alternatives[move.alt]
    else:
        cost = entry["cost"][0]
    storage = state["players"][seat]["storage"]
    if not move.alt and len(alternatives) > 1:
        if not any(has(storage, c) for c in entry["cost"]):
            held = {g: storage[g] for c in entry["cost"] for g in c}
            raise IllegalMoveError(f"{move.card} costs {spoken} from your storage, which holds "
                                   f"{describe(held, zeros=True)}.")
        names = " or ".join(f"`pay {a}`" for a in alternatives)
        raise IllegalMoveError(f"{move.card} costs {spoken}: say which, {names}.")
    if not has(storage, cost):
        raise IllegalMoveError(f"{move.card} costs {describe(cost)} from your storage, which "
                               f"holds {describe({g: storage[g] for g in cost}, zeros=True)}.")
    for good, n in cost.items():
        storage[good] -= n
        give_back(state, good, n)
    state["display"].remove(move.card)
    pile = {"crew": "crew", "commander": "commanders", "boost": "boosts"}[entry["kind"]]
    state["players"][seat][pile].append(move.card)
    _say(state, seat, f"bought {card_words(state, move.card)} from the display for "
                      f"{describe(cost)} from storage")


def _deal(state: State, seat: int, move: Move) -> None:
    player = state["players"][seat]
    if player["at"] != "shop":
        raise IllegalMoveError("Super deals need your ship docked at the trinket shop.")
    stack = state["stacks"][str(move.number)]
    if not stack:
        raise IllegalMoveError(f"The {move.number}-gold stack is empty.")
    tile = stack[0]
    tile_entry = deal_tile(state, tile)
    cost = tile_entry["cost"]
    if not has(player["ship"], cost):
        raise IllegalMoveError(f"The top {move.number}-gold tile ({tile}) asks {describe(cost)} "
                               f"from your ship, which holds {describe(player['ship'])}.")
    for good, n in cost.items():
        player["ship"][good] -= n
        give_back(state, good, n)
    got = take_supply(state, "gold", tile_entry["gold"])
    player["ship"]["gold"] += got
    player["deals"].append(stack.pop(0))
    gold = (f"took {got} gold from the bank onto the ship" if got else
            f"took no gold ({empty_supply(GOLD).lower()})")
    short = " (all the bank had)" if 0 < got < tile_entry["gold"] else ""
    _say(state, seat, f"completed super deal {tile} ({move.number}-gold stack): paid "
                      f"{describe(cost)} from the ship back to their supplies, {gold}{short} "
                      "and the tile (1 point)")


# ---- crew actions -------------------------------------------------------------------------
def _mine(state: State, seat: int, move: Move) -> None:
    miners = crew_count(state, seat, "miner")
    if move.number > miners > 0:
        raise IllegalMoveError(f"You have {plural(miners, 'miner')}: `mine {miners}` at most.")
    used = min(move.number, miners)
    done = do_mine(state, seat, used, "miner")
    _say(state, seat, f"{done} with {plural(used, 'miner')}")


def _rustle(state: State, seat: int, move: Move) -> None:
    done = do_rustle(state, seat, move.ships, crew_count(state, seat, "rustler"), "rustler")
    _say(state, seat, f"sent rustlers: {done}")


def _swap(state: State, seat: int, move: Move) -> None:
    done = do_swap(state, seat, move.ships[0], as_dict(move.goods), as_dict(move.goods2),
                   crew_count(state, seat, "outlaw"))
    _say(state, seat, f"sent outlaws in space: {done}")


def _salvage(state: State, seat: int, move: Move) -> None:
    _say(state, seat, "salvaged: " + do_salvage(state, seat, as_dict(move.goods),
                                                 crew_count(state, seat, "scavenger"),
                                                 "scavenger"))


def _trade(state: State, seat: int, move: Move) -> None:
    place = junction_place(state, seat, "Trading")
    _say(state, seat, do_trade(state, seat, place, move.give, move.get, move.number))


def _adjust(state: State, seat: int, move: Move) -> None:
    place = junction_place(state, seat, "Moving a die with an agent")
    beside = dock_dice(state, place)
    if move.die not in beside:
        raise IllegalMoveError(f"Agents move only the six-sided dice beside your dock: "
                               f"{beside[0]} and {beside[1]}.")
    _say(state, seat, "had an agent: " + step_die(state, move.die, move.number))


# ---- cards, pass, jettison ----------------------------------------------------------------
def _play(state: State, seat: int, move: Move) -> None:
    player = state["players"][seat]
    if move.card not in player["boosts"]:
        if move.card in player["played"]:
            raise IllegalMoveError(f"{move.card} was already played this turn.")
        raise IllegalMoveError(f"You have no boost {move.card}.")
    done = run_effect(state, seat, card(state, move.card), move)
    player["boosts"].remove(move.card)
    player["played"].append(move.card)
    _say(state, seat, f"played the boost {move.card}: {done}")


def _command(state: State, seat: int, move: Move) -> None:
    if move.card not in state["players"][seat]["commanders"]:
        raise IllegalMoveError(f"You have no commander {move.card}.")
    if move.card in state["ts"]["commanded"]:
        raise IllegalMoveError(f"{card(state, move.card)['name']} has already acted this turn.")
    done = run_effect(state, seat, card(state, move.card), move)
    state["ts"]["commanded"].append(move.card)
    _say(state, seat, f"used the commander {card(state, move.card)['name']}: {done}")


def _pass(state: State, seat: int, move: Move) -> None:
    """Passing does nothing but use an action."""
    _say(state, seat, "passed (an action doing nothing)")


def _jettison(state: State, seat: int, move: Move) -> None:
    allowed = allowed_actions(state)
    if state["ts"]["actions"] < allowed:
        raise IllegalMoveError(f"Jettison comes at the end of the turn, after your {allowed} "
                               "actions.")
    cargo = state["players"][seat]["ship"]
    excess = total(cargo) - capacity(state, seat)
    goods = as_dict(move.goods)
    if excess <= 0:
        raise IllegalMoveError("Your ship is not over its capacity: nothing needs jettisoning.")
    if total(goods) > excess:
        raise IllegalMoveError(f"Jettison only down to capacity: {plural(excess, 'good')} "
                               "more at most.")
    if not has(cargo, goods):
        raise IllegalMoveError(f"Your ship holds {describe(cargo)}, not {describe(goods)}.")
    move_goods(cargo, state["space"], goods)
    _say(state, seat, f"jettisoned {describe(goods)} into space (over the capacity of "
                      f"{capacity(state, seat)})")


HANDLERS: dict[str, Callable[[State, int, Move], None]] = {
    "justin": _justin, "rascal": _rascal, "undock": _undock, "dock": _dock,
    "taxi": _taxi, "load": _load, "buy": _buy, "deal": _deal, "mine": _mine,
    "rustle": _rustle, "swap": _swap, "salvage": _salvage, "trade": _trade,
    "adjust": _adjust, "play": _play, "command": _command, "pass": _pass,
}
