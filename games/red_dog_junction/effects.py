"""Commander and boost effects (the card reference of constants.EFFECTS).

Every effect is deterministic: no card draws, rolls or otherwise asks for chance in the
middle of a turn. Dice effects reach any die, the gold die included ("any die" in the
FAQ), within its faces.
"""

from __future__ import annotations

from typing import Any

from pbem.game import IllegalMoveError, State

from .constants import GOLD
from .crew import (
    check_place,
    do_haul,
    do_mine,
    do_rustle,
    do_salvage,
    do_trade,
    junction_place,
    set_die,
    step_die,
    turn_die,
)
from .move import Move, as_dict
from .state import crew_count, die_sides, place_label, refuse_empty, take_supply


def run_effect(state: State, seat: int, entry: dict[str, Any], move: Move) -> str:
    """Carry out ``entry``'s effect with the arguments in ``move``; say what it did."""
    effect = entry["effect"]
    player = state["players"][seat]
    if effect == "tax":
        refuse_empty(state, GOLD, f"{entry['name']}'s tax")
        got = take_supply(state, GOLD, entry["amount"])
        player["storage"][GOLD] += got
        return f"took {got} gold from the bank into storage"
    if effect == "set_die":
        return set_die(state, move.die, move.number)
    if effect == "nudge":
        return step_die(state, move.die, move.number)
    if effect == "flip":
        return turn_die(state, move.die,
                        die_sides(state, move.die) + 1 - state["dice"][move.die])
    if effect == "remote_trade":
        return do_trade(state, seat, f"junction {move.number}", move.give, move.get, 1)
    if effect == "haggle":
        return do_trade(state, seat, junction_place(state, seat, "Haggling"), move.give,
                        move.get, 1)
    if effect == "jump":
        return _jump(state, seat, move)
    if effect == "haul":
        return do_haul(state, seat, as_dict(move.goods), as_dict(move.goods2), move.everything)
    if effect == "deep_mine":
        return do_mine(state, seat, crew_count(state, seat, "miner") + entry["bonus"], "miner")
    if effect == "extra_mine":
        return do_mine(state, seat, entry["amount"], "miner")
    if effect == "posse":
        return do_rustle(state, seat, move.ships,
                         crew_count(state, seat, "rustler") + entry["bonus"], "rustler")
    if effect == "tow":
        return do_rustle(state, seat, move.ships, 1, "rustler")
    if effect == "tractor":
        return do_salvage(state, seat, as_dict(move.goods), entry["amount"], "scavenger",
                          in_space=False)
    if effect == "cargo_net":
        state["ts"]["capacity_bonus"] += entry["amount"]
        return f"the ship holds {entry['amount']} more at the end of this turn"
    if effect == "windfall":
        refuse_empty(state, "whiskey", f"{entry['name']}")
        got = take_supply(state, "whiskey", entry["amount"])
        player["ship"]["whiskey"] += got
        return f"took {got} whiskey from the bank onto the ship"
    # validate_components admits only known effects
    raise IllegalMoveError(f"The effect '{effect}' is unknown.")


def _jump(state: State, seat: int, move: Move) -> str:
    player = state["players"][seat]
    if player["at"] == move.place and not move.ships:
        raise IllegalMoveError(f"Your ship is already at {place_label(move.place)}.")
    check_place(state, str(seat), move.place, move.ships[0] if move.ships else "")
    was = player["at"]
    player["at"] = move.place
    return f"moved the ship from {place_label(was)} to {place_label(move.place)}"
