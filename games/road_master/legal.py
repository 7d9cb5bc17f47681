"""The legal moves of the moment, as canonical strings in a stable order.

The list stays bounded (a few hundred at most): loads and dumps are listed one colour at
a time (any mix may still be typed: 'load orange x2 purple'), unloads one contract at a
time plus one 'everything that fits here'; every contracts choice (up to 175: 1-3 of
the 9 market cards and the deck's top); the Super Bonus return lists one card at a time
and the whole lot in draw order (any order may be typed); a boom policy only when it
would change something. Everything listed is legal now.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any

from pbem.game import secretdeck

from . import board, bonus_draw
from .actions import needs_colour
from .model import card
from .notation import cubes_words
from .turn import DECK, can_take, choice_due, is_over, to_act, yellow_aboard

State = dict[str, Any]


def legal_moves(state: State, seat: int, every_contract: bool = True) -> list[str]:
    """``every_contract=False`` (the bots' list): contracts only one at a time and as
    cards that make one trip together (see _trip_contracts)."""
    actor = to_act(state)
    if choice_due(state, seat):
        return choice_moves(state, seat)
    if actor != seat or is_over(state):  # version 5's last choices: nothing else
        return []
    truck = state["trucks"][seat]
    if not truck["where"]:
        return [f"place {letter}" for letter in state["data"]["houses"]]
    moves: list[str] = []
    if can_take(state, "forward"):
        moves += list(board.forward_options(state, seat))
    if can_take(state, "backward"):
        moves += list(board.backward_options(state, seat))
    if truck["where"] != "road":
        if can_take(state, "load"):
            moves += _loads(state, seat)
        if can_take(state, "unload"):
            moves += _unloads(state, seat) + _dumps(state, seat)
    if can_take(state, "contracts"):
        moves += _contracts(state) if every_contract else _trip_contracts(state)
    if (can_take(state, "superbonus") and not state["sb"].get("closed")
            and bonus_draw.can_draw(state, seat) and not bonus_draw.waiting(state, seat)
            and not secretdeck.drawn(state, DECK, seat)):
        moves.append("superbonus")
    if state["data"]["hazard"] and policy_matters(state, seat):
        moves.append("policy push" if state["turn"]["policy"] == "stop" else "policy stop")
    return moves


def policy_matters(state: State, seat: int) -> bool:
    """Could a policy set now change this turn (RM-H5)? A policy governs the draws of the
    actions played after it, so only if the next action may draw (yellow aboard, or a
    yellow load here) and something could still follow that draw: another action after
    a load/forward/backward, or the unload itself after the draw before it."""
    turn = state["turn"]
    left = state["data"]["per_turn"] - len(turn["actions"])
    truck = state["trucks"][seat]
    in_house = truck["where"] not in ("", "road")
    if yellow_aboard(state, seat):
        return left >= 2 or (left == 1 and in_house and turn["last"] != "unload")
    colour = state["data"]["hazard"]
    room = state["data"]["capacity"] - sum(truck["cubes"].values())
    loadable = in_house and room > 0 and state["houses"][truck["where"]].get(colour, 0) > 0
    return left >= 2 and loadable and can_take(state, "load")


def choice_moves(state: State, seat: int) -> list[str]:
    """Keep (any 1..k of the drawn cards) and return (each card, or all in draw order)."""
    if not secretdeck.readable(state, DECK, seat):
        return []
    drawn = bonus_draw.undecided(state, seat)
    room = state["data"]["sb_keep"] - state["sb_kept"][seat]
    moves = []
    for size in range(1, min(room, len(drawn)) + 1):
        moves += ["keep " + " ".join(c) for c in combinations(drawn, size)]
    moves += [f"bottom {slot}" for slot in drawn]
    if len(drawn) > 1:
        moves.append("bottom " + " ".join(drawn))
    return moves


def _loads(state: State, seat: int) -> list[str]:
    truck = state["trucks"][seat]
    room = state["data"]["capacity"] - sum(truck["cubes"].values())
    house = state["houses"][truck["where"]]
    out = []
    for colour in state["data"]["colours"]:
        for n in range(1, min(room, house.get(colour, 0)) + 1):
            out.append(f"load {colour} x{n}" if n > 1 else f"load {colour}")
    return out


def _unloads(state: State, seat: int) -> list[str]:
    truck = state["trucks"][seat]
    here = truck["where"]
    left = dict(truck["cubes"])
    out = []
    everything: list[str] = []
    for entry in state["contracts"][seat]:
        info = card(state, entry["id"])
        if entry["done"] or info["to"] != here:
            continue
        colour = info["colour"]
        aboard = truck["cubes"].get(colour, 0)
        for n in range(1, min(aboard, info["count"] - entry["cubes"]) + 1):
            out.append(f"unload {entry['id']} {cubes_words({colour: n}, [colour])}")
        fit = min(left.get(colour, 0), info["count"] - entry["cubes"])
        if fit:
            left[colour] -= fit
            everything.append(f"{entry['id']} {cubes_words({colour: fit}, [colour])}")
    if len(everything) > 1:
        out.append("unload " + " ".join(everything))
    return out


def _dumps(state: State, seat: int) -> list[str]:
    cubes = state["trucks"][seat]["cubes"]
    out = []
    for colour in state["data"]["colours"]:
        if needs_colour(state, seat, colour):
            continue  # RM-A16: only colours unrelated to your contracts
        for n in range(1, cubes.get(colour, 0) + 1):
            out.append(f"dump {colour} x{n}" if n > 1 else f"dump {colour}")
    return out


def _contracts(state: State) -> list[str]:
    """Every choice the notation accepts (RM-A4): 1 to 3 of the market cards and the
    deck's top, singles first, each choice once (slots in order, the top last)."""
    refs = [f"m{i + 1}" for i, uid in enumerate(state["market"]) if uid]
    refs += ["top"] if state["deck"] else []
    out = []
    for size in range(1, state["data"]["take"] + 1):
        out += ["contracts " + " ".join(combo) for combo in combinations(refs, size)]
    return out


def _trip_contracts(state: State) -> list[str]:
    """The contracts choices a bot weighs: each contract on its own (a market slot, or
    the deck's top), plus the market cards that make one trip together: 2 or 3 cards of
    one colour (loaded at one warehouse) or to one destination (delivered at one stop)."""
    cards = state["data"]["cards"]
    slots = {f"m{i + 1}": cards[uid] for i, uid in enumerate(state["market"]) if uid}
    refs = list(slots) + (["top"] if state["deck"] else [])
    out = [f"contracts {ref}" for ref in refs]
    for size in range(2, state["data"]["take"] + 1):
        for combo in combinations(slots, size):
            infos = [slots[ref] for ref in combo]
            if len({c["colour"] for c in infos}) == 1 or len({c["to"] for c in infos}) == 1:
                out.append("contracts " + " ".join(combo))
    return out


GROUP_AT = 10  # more contracts choices than this print as one line


def move_lines(moves: list[str]) -> list[str]:
    """The moves for people (``pbem moves``): every contracts choice, when they are all
    the combinations of 1 to k of some cards (as legal_moves lists them), is one line
    saying so, in the place of the first; everything else one a line."""
    choices = [m for m in moves if m.startswith("contracts ")]
    refs: list[str] = []
    for move in choices:
        refs += [r for r in move.split()[1:] if r not in refs]
    most = max((len(m.split()) - 1 for m in choices), default=0)
    if len(choices) <= GROUP_AT or len(set(choices)) != sum(comb(len(refs), k) for k in range(1, most + 1)):
        return list(moves)
    line = (f"contracts ... (any 1 to {most} of {' '.join(refs)}: {len(choices)} choices, "
            f"e.g. contracts {' '.join(refs[:2])}; `moves --json` lists each)")
    first = moves.index(choices[0])
    rest = [m for m in moves if not m.startswith("contracts ")]
    return rest[:first] + [line] + rest[first:]
