"""Justin, the automaton of the Trailblazer solo mode.

Justin is not a seat: he lives in ``state["justin"]`` and the game plays his turn itself,
inside the ``solo`` chance request queued at the end of each human turn (his turn follows
the human's refill and ends with his own, so all the randomness of both is drawn from one
beacon value before the human sees the table again). He takes the LAST display card (the
far end of the row, the one that has waited longest) and acts by its type. Where the
rulings let player 1 choose for him (which Junction dock, which free planet) his ship
waits in space and the choice is a free move at the head of the human's next turn:
``justin dock junction 3`` or ``justin dock gas``.

Choices the rulings leave open, settled here:
- A commander has no Justin action: it goes onto his stack (its points count) and he does
  nothing else that turn.
- The rascal's super deal costs Justin nothing (his turns are simplified). If the 8-gold
  stack is empty he gains nothing; if player 1's ship holds the shop's dock his ship
  waits in space but the deal still happens.
- At his capacity of 12 he jettisons what he values least (scrap first).
- If the game ends while he waits for a dock, the first free one is used (it changes no
  score).
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.game import IllegalMoveError, Sampler, State

from . import journal
from .constants import (
    GOLD,
    JUNCTION_DOCKS,
    JUSTIN,
    JUSTIN_CAPACITY,
    JUSTIN_CLASS,
    JUSTIN_DEAL,
    JUSTIN_PRIORITY,
    JUSTIN_SWAP,
    JUSTIN_TAKES,
    PLANET_GOODS,
)
from .crew import move_goods
from .move import as_goods, fmt_goods
from .setup import end_game, refill
from .state import card, describe, empty_supply, give_back, place_label, take_supply, total
from .state import tile as deal_tile


def rank(good: str) -> int:
    """Where ``good`` stands in Justin's priority list (mined goods share a place)."""
    return JUSTIN_CLASS[good]


def take_turn(state: State, rng: Sampler) -> None:
    """Justin's whole turn, then his refill and the end-of-game checks."""
    me = state[JUSTIN]
    if not state["display"]:
        return
    ident = state["display"].pop()
    entry = card(state, ident)
    note = f"Justin took {ident}"
    if entry["kind"] == "boost":
        got = take_supply(state, GOLD, 1)
        me["storage"][GOLD] += got
        state["discard"].append(ident)
        note += (": 1 gold from the bank to his home base" if got else
                 f" (a boost, discarded): {_empty(GOLD)}, so he gains nothing")
    else:
        me["stack"].append(ident)
        if entry["kind"] == "commander":
            note += " onto his stack"
        else:
            note += ": " + ACTIONS[entry["type"]](state)
    journal.chance(state, note + ".")
    if not me["awaiting"]:
        jettison_to_capacity(state, journal.chance)
    refill(state, 1, rng)
    end = state["end"]
    if state["phase"] != "over" and end["end_after"] and state["turn"] >= end["end_after"]:
        end_game(state, "gold")
    if state["phase"] == "over":
        if me["awaiting"]:  # the first free dock: it changes no score
            place(state, options(state)[0], journal.chance)
        return
    state["turn"] += 1


def _cowboy(state: State) -> str:
    me = state[JUSTIN]
    me["at"] = "home"
    cargo = {g: n for g, n in me["ship"].items() if n}
    move_goods(me["ship"], me["storage"], cargo)
    return f"to his home base, unloading {describe(cargo)}"


def _scavenger(state: State) -> str:
    me = state[JUSTIN]
    me["at"] = "space"
    wanted = JUSTIN_TAKES
    taken: dict[str, int] = {}
    for good in JUSTIN_PRIORITY:
        n = min(wanted, state["space"][good])
        if n:
            taken[good] = n
            wanted -= n
    move_goods(state["space"], me["ship"], taken)
    if not taken:
        return "to space; nothing lies there to salvage, so he gains nothing"
    return f"to space, salvaging {describe(taken)}"


def _agent(state: State) -> str:
    me = state[JUSTIN]
    me["at"] = "space"
    me["awaiting"] = "junction"
    traded: dict[str, int] = {}
    for good in reversed(JUSTIN_PRIORITY):
        if good == GOLD:
            continue
        n = min(me["ship"][good], state["bank"][GOLD])
        if n:
            me["ship"][good] -= n
            give_back(state, good, n)
            me["ship"][GOLD] += take_supply(state, GOLD, n)
            traded[good] = n
    where = f"to the Junction ({state['seats'][0]} names the dock)"
    if not traded and not state["bank"][GOLD]:
        return f"{where}; {_empty(GOLD)}, so he trades nothing"
    return f"{where}, trading {describe(traded)} for gold 1:1"


def _miner(state: State) -> str:
    me = state[JUSTIN]
    me["at"] = "space"
    me["awaiting"] = "planet"
    return f"to a free planet {state['seats'][0]} names, to mine 3"


def _rustler(state: State) -> str:
    state[JUSTIN]["at"] = "space"
    state["players"][0]["at"] = "space"
    return f"his ship and {state['seats'][0]}'s ship to space"


def _outlaw(state: State) -> str:
    me = state[JUSTIN]
    human = state["players"][0]
    me["at"] = human["at"] = "space"
    # His cheapest goods against the human's best ones, while each pair gains him a class.
    mine = [g for g in reversed(JUSTIN_PRIORITY) for _ in range(me["ship"][g])]
    theirs = [g for g in JUSTIN_PRIORITY for _ in range(human["ship"][g])]
    give: dict[str, int] = {}
    take: dict[str, int] = {}
    for mine_good, their_good in list(zip(mine, theirs, strict=False))[:JUSTIN_SWAP]:
        if rank(their_good) >= rank(mine_good):
            break
        give[mine_good] = give.get(mine_good, 0) + 1
        take[their_good] = take.get(their_good, 0) + 1
    move_goods(me["ship"], human["ship"], give)
    move_goods(human["ship"], me["ship"], take)
    name = state["seats"][0]
    if not give:
        return f"his ship and {name}'s ship to space; no swap gains him anything"
    return (f"his ship and {name}'s ship to space, swapping his {fmt_goods(as_goods(give))} "
            f"for {name}'s {fmt_goods(as_goods(take))}")


def _rascal(state: State) -> str:
    me = state[JUSTIN]
    blocked = state["players"][0]["at"] == "shop"
    me["at"] = "space" if blocked else "shop"
    stack = state["stacks"].get(str(JUSTIN_DEAL), [])
    where = (f"waits in space by the shop ({state['seats'][0]}'s ship holds its dock)" if blocked
             else "to the trinket shop")
    if not stack:
        return f"{where}; the {JUSTIN_DEAL}-gold stack is empty"
    tile = stack.pop(0)
    me["deals"].append(tile)
    gold = take_supply(state, GOLD, deal_tile(state, tile)["gold"])
    me["ship"][GOLD] += gold
    if not gold:
        return f"{where}, taking super deal {tile}; {_empty(GOLD)}, so no gold comes with it"
    return f"{where}, taking super deal {tile} and {gold} gold onto his ship"


ACTIONS = {
    "cowboy": _cowboy, "scavenger": _scavenger, "agent": _agent, "miner": _miner,
    "rustler": _rustler, "outlaw": _outlaw, "rascal": _rascal,
}


def _empty(good: str) -> str:
    """'the gold supply (the bank) is empty', inside a sentence."""
    return empty_supply(good)[0].lower() + empty_supply(good)[1:]


def jettison_to_capacity(state: State, say: Callable[[State, str], None]) -> None:
    me = state[JUSTIN]
    excess = total(me["ship"]) - JUSTIN_CAPACITY
    dropped: dict[str, int] = {}
    for good in reversed(JUSTIN_PRIORITY):
        if excess <= 0:
            break
        n = min(excess, me["ship"][good])
        if n:
            dropped[good] = n
            excess -= n
    move_goods(me["ship"], state["space"], dropped)
    if dropped:
        say(state, f"Justin jettisoned {describe(dropped)} into space (he holds "
                   f"{JUSTIN_CAPACITY}).")


def options(state: State) -> list[str]:
    """The docks player 1 may name for Justin now (any not held by player 1's ship)."""
    kind = state[JUSTIN]["awaiting"]
    if kind == "junction":
        places = [f"junction {n}" for n in range(1, JUNCTION_DOCKS + 1)]
    elif kind == "planet":
        places = list(PLANET_GOODS)
    else:
        return []
    return [p for p in places if state["players"][0]["at"] != p]


def place(state: State, where: str, say: Callable[[State, str], None]) -> None:
    """Player 1 names Justin's dock (or, once the game is over, the first free one is
    taken); a miner then mines 3 there. ``say`` writes what he did."""
    me = state[JUSTIN]
    kind = me["awaiting"]
    if not kind:
        raise IllegalMoveError("Justin is not waiting for a dock.")
    if kind == "junction" and not where.startswith("junction "):
        raise IllegalMoveError("Justin's agent docks at the Junction: name a Junction dock.")
    if kind == "planet" and where not in PLANET_GOODS:
        raise IllegalMoveError("Justin's miner docks at a planet: name a free planet.")
    if where not in options(state):
        raise IllegalMoveError(f"{place_label(where)}'s dock is taken by your ship.")
    me["at"] = where
    me["awaiting"] = ""
    named = "the first free dock" if state["phase"] == "over" else state["seats"][0]
    done = f"Justin docked at {place_label(where)} (named by {named})"
    if kind == "planet":
        got = take_supply(state, where, JUSTIN_TAKES)
        me["ship"][where] += got
        done += f" and mined {got} {where}" if got else f"; {_empty(where)}, so he mines nothing"
    say(state, done + ".")
    jettison_to_capacity(state, say)
