"""The shape of a turn: what is owed at its head, what ends it, what comes after it.

Head of a turn (free moves, in this order, each refused-until-done):
  1. solo: player 1 names Justin's dock if his last card asked for it;
  2. a player with rascals names the crew type they count as this turn.
(The Trail Boss crew picks come before the first turn: see setup_choices.)
Then the actions (2, or 3 for the solo human), then `jettison` down to capacity.

End of a turn: played boosts are discarded; the display refill is queued as chance (or,
when the deck cannot fill it, the rest of the deck is turned and the game ends at once:
no randomness is needed for that); the bank-gold countdown is checked; the next player
acts. In the solo game Justin's turn (with his own refill) is queued behind the human's.
"""

from __future__ import annotations

from typing import Any

from pbem.game import IllegalMoveError, Sampler, State, queue_chance

from . import journal, justin, posse, setup_choices
from .constants import DISPLAY_SIZE, JUSTIN
from .setup import deal_display, end_game, fresh_turn, refill, resolve_setup
from .state import allowed_actions, capacity, crew_types, total


def owed_head(state: State, seat: int) -> str:
    """The free move the player must make before anything else ("" when none)."""
    if state["solo"] and state[JUSTIN]["awaiting"]:
        return "justin"
    ts = state["ts"]
    if not ts["rascal"] and not ts["actions"] and "rascal" in crew_types(state, seat):
        return "rascal"
    return ""


HEAD_ASKS = {
    "justin": "First name Justin's dock, e.g. `justin dock {example}`.",
    "rascal": "First name the crew type your rascals count as this turn, e.g. `rascal miner`.",
}


def head_message(state: State, seat: int, head: str) -> str:
    example = justin.options(state)[0] if head == "justin" else ""
    return HEAD_ASKS[head].format(example=example)


def check_turn(state: State, seat: int) -> None:
    if state["phase"] == "over":
        raise IllegalMoveError("The game is over.")
    if state["phase"] != "play":
        raise IllegalMoveError("The game has not started yet.")
    if seat != state["current"]:
        raise IllegalMoveError(f"It is not {state['seats'][seat]}'s turn.")


def check_can_end(state: State, seat: int) -> None:
    """Raise saying what is still owed before the turn can end."""
    if setup_choices.active(state):
        setup_choices.check_end(state, seat)
        return
    check_turn(state, seat)
    head = owed_head(state, seat)
    if head:
        raise IllegalMoveError(head_message(state, seat, head))
    allowed = allowed_actions(state)
    taken = state["ts"]["actions"]
    if taken < allowed:
        raise IllegalMoveError(f"{allowed} actions required, {taken} taken; play `pass` for "
                               "each action you skip.")
    cargo = state["players"][seat]["ship"]
    excess = total(cargo) - capacity(state, seat)
    if excess > 0:
        example = next(g for g in reversed(list(cargo)) if cargo[g])
        n = min(excess, cargo[example])
        raise IllegalMoveError(
            f"Your ship carries {total(cargo)} goods but holds {capacity(state, seat)} at the "
            f"end of a turn: jettison {excess} (e.g. `jettison {example}"
            f"{f' x{n}' if n > 1 else ''}`).")


def end_turn(state: State, seat: int) -> None:
    if setup_choices.active(state):
        setup_choices.end(state, seat)
        journal.close(state)
        return
    check_can_end(state, seat)
    player = state["players"][seat]
    name = state["seats"][seat]
    if player["played"]:
        journal.note(state, f"{name}'s played boosts go to the discard pile: "
                            f"{', '.join(player['played'])}.")
    state["discard"].extend(player["played"])
    player["played"] = []
    state["last"] = []
    need = DISPLAY_SIZE - len(state["display"]) - pending_refills(state)
    if need > 0 and len(state["deck"]) <= need:
        refill(state, need, None)  # turns the deck's last card: the game ends at once
        need = 0
    if state["phase"] != "over":
        end = state["end"]
        if end["end_after"] and state["turn"] >= end["end_after"]:
            end_game(state, "gold")
    state["ts"] = fresh_turn()
    if state["phase"] != "over":
        state["turn"] += 1
        if state["solo"]:
            queue_chance(state, {"kind": "solo", "refill": max(need, 0)})
        else:
            state["current"] = (seat + 1) % len(state["players"])
            if need > 0:
                queue_chance(state, {"kind": "refill", "count": need})
    journal.close(state)


def pending_refills(state: State) -> int:
    pending = state.get("pending")
    if not pending:  # as at most ends of turns
        return 0
    return sum(r.get("count", r.get("refill", 0)) for r in pending
               if r.get("kind") in ("refill", "solo", "deal"))


def resolve(state: State, request: dict[str, Any], rng: Sampler) -> None:
    kind = request.get("kind")
    if kind == "setup":
        if state["variant"] == "posse":
            posse.deal(state)  # the rest of set-up comes after the draft
        else:
            resolve_setup(state, rng)
            setup_choices.begin(state, rng)
        journal.close(state)  # the start entry holds the set-up and nothing else
    elif kind == "posse":
        posse.resolve(state, rng)
    elif kind == "deal":
        deal_display(state, rng)
    elif kind == "refill":
        if state["phase"] != "over":
            refill(state, int(request["count"]), rng)
    elif kind == "solo":
        if state["phase"] != "over":
            refill(state, int(request["refill"]), rng)
        if state["phase"] != "over":
            justin.take_turn(state, rng)
    else:
        raise ValueError(f"unknown chance request {request!r}")
