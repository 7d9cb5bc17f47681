"""RM-A10 Super Bonus draws, the short draw included (the revised ruling).

By mail the keep/return choice comes a turn after the draw, so with 4 to 6 players the
pile can be empty when the next player draws, though at a table the earlier drawers'
returns would already be under it. Ruling: a draw that finds fewer than ``sb_draw`` cards
takes what is there and is completed, up to ``sb_draw``, from the next cards returned, in
the order they are returned and before any later draw.

``state["sb"]["short"]`` is the queue of open short draws, oldest first: ``[seat,
missing]`` pairs. A returned batch goes under the pile (secretdeck gives it fresh ids and
the others shuffle it) and its top cards then complete the oldest open draw first. A short
drawer chooses only once its draw is complete, or once no card can come back before its
choice (no seat outside the queue has drawn cards still to choose from): its draw then
stays as it is, as at a table whose deck holds fewer cards than a draw.
"""

from __future__ import annotations

from typing import Any

from pbem.game import IllegalMoveError, secretdeck

from .model import handle, log

State = dict[str, Any]
DECK = "superbonus"


def _queue(state: State) -> list[list[int]]:
    queue: list[list[int]] = state["sb"].setdefault("short", [])
    return queue


def undecided(state: State, seat: int) -> list[str]:
    """``seat``'s drawn cards still to keep or return: all its drawn cards but those a last
    choice set aside (version 5, set_aside)."""
    aside = state["sb"].get("aside", [])
    return [s for s in secretdeck.drawn(state, DECK, seat) if s not in aside]


def set_aside(state: State, seat: int, slots: list[str]) -> None:
    """Version 5, in the last choices: the cards not kept stay face down where they are,
    never returned under the deck. No one draws again, so a return would change nothing
    but cost the others a shuffle each, one after another, before the reveals."""
    state["sb"].setdefault("aside", []).extend(slots)
    log(state, f"{handle(state, seat)} sets {len(slots)} card(s) aside, face down: the game "
               "is over, so no one draws them again.")


def waiting(state: State, seat: int) -> int:
    """How many cards ``seat``'s open short draw still waits for (0 if none)."""
    return next((missing for who, missing in state["sb"].get("short", []) if who == seat), 0)


def _returns_pending(state: State, seats: set[int]) -> bool:
    """Has any of ``seats`` drawn cards still to keep or return?"""
    return any(secretdeck.drawn(state, DECK, s) for s in sorted(seats))


def can_draw(state: State, seat: int) -> bool:
    """RM-A10: a draw takes what the pile holds, or waits for returns that will come
    (another seat has drawn cards still to choose from)."""
    others = set(range(len(state["scores"]))) - {seat}
    return secretdeck.remaining(state, DECK) > 0 or _returns_pending(state, others)


def draw(state: State, seat: int) -> None:
    """Reserve the top ``sb_draw`` cards for ``seat``; a short draw joins the queue."""
    want = state["data"]["sb_draw"]
    if not can_draw(state, seat):
        raise IllegalMoveError("The Super Bonus deck is empty, and no drawn card is waiting to "
                               "be returned under it.")
    slots = secretdeck.reserve_top(state, DECK, seat, want)
    missing = want - len(slots)
    if missing:
        _queue(state).append([seat, missing])
        log(state, f"{handle(state, seat)} draws {len(slots)} Super Bonus card(s) in secret; "
                   f"the other {missing} come from the next cards returned under the deck.")
    else:
        log(state, f"{handle(state, seat)} draws {len(slots)} Super Bonus card(s) in secret.")
    settle(state)


def complete(state: State) -> None:
    """After a return: the pile's top cards (the batch just returned, the pile being empty
    while a draw is open) complete the open short draws, oldest first."""
    queue = _queue(state)
    while queue and secretdeck.remaining(state, DECK):
        seat, missing = queue[0]
        slots = secretdeck.reserve_top(state, DECK, seat, missing)
        left = missing - len(slots)
        if left:
            queue[0][1] = left
        else:
            queue.pop(0)
        log(state, f"{handle(state, seat)} draws {len(slots)} of the returned card(s) in secret"
                   + (f"; {left} more to come." if left else ": the draw is complete."))
    settle(state)


def settle(state: State) -> None:
    """Close the oldest open short draws that no return can complete any more: no seat
    outside the queue has drawn cards to choose from (a later queued draw chooses only
    after the oldest one, so it returns nothing first)."""
    queue = _queue(state)
    while queue and not _returns_pending(
            state, set(range(len(state["scores"]))) - {who for who, _ in queue}):
        seat, missing = queue.pop(0)
        got = state["data"]["sb_draw"] - missing
        log(state, f"No more Super Bonus cards can come back before {handle(state, seat)} "
                   f"chooses: {handle(state, seat)}'s draw stays at {got} card(s).")
    if not queue:
        state["sb"].pop("short", None)  # only while a draw is open: older saves stay the same


def close_all(state: State) -> None:
    """Rules version 5, as the rules end the game: every open short draw stays as it is.
    The last choices are then made together, each from the drawer's own cards (they set
    aside what they do not keep): completed from another's, a draw would make one last
    choice wait for another and depend on the order they are applied in."""
    for seat, missing in _queue(state):
        got = state["data"]["sb_draw"] - missing
        log(state, f"The game is over: {handle(state, seat)}'s draw stays at {got} card(s).")
    state["sb"].pop("short", None)


def close(state: State, seat: int) -> None:
    """The game is over: ``seat``'s open draw stays as it is (no later draw can come)."""
    queue = _queue(state)
    state["sb"]["short"] = [pair for pair in queue if pair[0] != seat]
    settle(state)
