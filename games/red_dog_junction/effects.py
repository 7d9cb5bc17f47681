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
)
from .move import Move, as_dict
from .state import crew_count, die_sides, place_label, take_supply


def run_effect(state: State, seat: int, entry: dict[str, Any], move: Move) -> None:
    """Carry out ``entry``'s effect with the arguments in ``move``."""
    effect = entry["effect"]
    player = state["players"][seat]
    if effect == "tax":
        player["storage"][GOLD] += take_supply(state, GOLD, entry["amount"])
    elif effect == "set_die":
        set_die(state, move.die, move.number)
    elif effect == "nudge":
        step_die(state, move.die, move.number)
    elif effect == "flip":
        state["dice"][move.die] = die_sides(state, move.die) + 1 - state["dice"][move.die]
    elif effect == "remote_trade":
        do_trade(state, seat, f"junction {move.number}", move.give, move.get, 1)
    elif effect == "haggle":
        do_trade(state, seat, junction_place(state, seat, "Haggling"), move.give, move.get, 1)
    elif effect == "jump":
        _jump(state, seat, move)
    elif effect == "haul":
        do_haul(state, seat, as_dict(move.goods), as_dict(move.goods2), move.everything)
    elif effect == "deep_mine":
        do_mine(state, seat, crew_count(state, seat, "miner") + entry["bonus"], "miner")
    elif effect == "extra_mine":
        do_mine(state, seat, entry["amount"], "miner")
    elif effect == "posse":
        do_rustle(state, seat, move.ships, crew_count(state, seat, "rustler") + entry["bonus"],
                  "rustler")
    elif effect == "tow":
        do_rustle(state, seat, move.ships, 1, "rustler")
    elif effect == "tractor":
        do_salvage(state, seat, as_dict(move.goods), entry["amount"], "scavenger",
                   in_space=False)
    elif effect == "cargo_net":
        state["ts"]["capacity_bonus"] += entry["amount"]
    elif effect == "windfall":
        player["ship"]["whiskey"] += take_supply(state, "whiskey", entry["amount"])
    else:  # validate_components admits only known effects
        raise IllegalMoveError(f"The effect '{effect}' is unknown.")


def _jump(state: State, seat: int, move: Move) -> None:
    player = state["players"][seat]
    if player["at"] == move.place and not move.ships:
        raise IllegalMoveError(f"Your ship is already at {place_label(move.place)}.")
    check_place(state, str(seat), move.place, move.ships[0] if move.ships else "")
    player["at"] = move.place
