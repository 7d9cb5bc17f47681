"""Final scoring: penalties, Super Bonuses with the best use of cubes, tie-breaks.

RM-G3: every contract not complete (part-filled included) costs its penalty.
RM-G4/A12: each Super Bonus is met from the cubes lying on its owner's contracts
(complete or partial), each cube used once, choosing the assignment best for the owner.
Cubes of one colour are interchangeable, so an assignment is a choice of which cards to
meet such that, colour by colour, their needs fit in the cubes delivered; the search
below tries every choice (with memoised pruning), which is exact.
RM-G5: cubes on trucks score nothing. RM-G7/G8: ties go to most completed contracts,
then the most valuable single completed contract, else the place is shared.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pbem.game import Outcome, rank_with_tiebreaks, secretdeck

from .model import card, handle, players

State = dict[str, Any]
DECK = "superbonus"


def delivered(state: State, seat: int) -> dict[str, int]:
    """Cubes lying on ``seat``'s contracts, by colour (complete and partial alike)."""
    out: dict[str, int] = {}
    for entry in state["contracts"][seat]:
        if entry["cubes"]:
            colour = card(state, entry["id"])["colour"]
            out[colour] = out.get(colour, 0) + entry["cubes"]
    return out


def best_bonus(have: dict[str, int], cards: list[dict[str, Any]]) -> tuple[int, list[bool]]:
    """The best total of met points minus missed penalties, and which cards are met.

    Every card counts (met: +points, missed: -penalty); the search covers every subset
    of cards that the cubes can serve at once and keeps the best (ties: the earliest
    subset in the order "meet card 1 first"), so no greedy order can miss a better mix."""
    colours = sorted({c for c in have} | {c for b in cards for c in b["need"]})

    @cache
    def search(i: int, left: tuple[int, ...]) -> tuple[int, tuple[bool, ...]]:
        if i == len(cards):
            return 0, ()
        need = cards[i]["need"]
        best_value, best_pick = search(i + 1, left)
        best_value -= cards[i]["penalty"]
        best_pick = (False, *best_pick)
        rest = tuple(n - need.get(c, 0) for c, n in zip(colours, left, strict=True))
        if min(rest, default=0) >= 0:
            value, pick = search(i + 1, rest)
            value += cards[i]["points"]
            if value >= best_value:
                best_value, best_pick = value, (True, *pick)
        return best_value, best_pick

    value, pick = search(0, tuple(have.get(c, 0) for c in colours))
    return value, list(pick)


def unopened_penalty(state: State) -> int:
    """What an unopened held card costs: the highest penalty any Super Bonus carries
    (its owner never revealed it, so it cannot be checked; PROTOCOL.md section 7)."""
    return max((b["penalty"] for b in state["data"]["bonus"].values()), default=0)


def seat_bonus(state: State, seat: int) -> tuple[int, list[str]]:
    """Super Bonus points of ``seat`` and lines explaining them."""
    held = secretdeck.held(state, DECK, seat) if "secret" in state else []
    opened: dict[str, str] = state["sb"]["opened"]
    cards = [opened[s] for s in held if s in opened]
    hidden = [s for s in held if s not in opened]
    value, met = best_bonus(delivered(state, seat), [state["data"]["bonus"][u] for u in cards])
    who = handle(state, seat)
    notes = []
    for uid, ok in zip(cards, met, strict=True):
        info = state["data"]["bonus"][uid]
        sign = f"+{info['points']}" if ok else f"-{info['penalty']}"
        notes.append(f"{who}'s Super Bonus {uid} {'met' if ok else 'unmet'}: {sign}")
    if hidden:
        cost = unopened_penalty(state)
        value -= cost * len(hidden)
        notes.append(f"{who}'s {len(hidden)} Super Bonus card(s) were never opened: -{cost} each")
    return value, notes


def penalties(state: State, seat: int) -> int:
    return sum(card(state, e["id"])["penalty"] for e in state["contracts"][seat] if not e["done"])


def completed(state: State, seat: int) -> list[int]:
    return [card(state, e["id"])["points"] for e in state["contracts"][seat] if e["done"]]


def outcome(state: State) -> Outcome:
    scores: dict[int, int] = {}
    breakdown: dict[int, dict[str, int]] = {}
    tiebreaks: dict[int, list[int]] = {}
    notes: list[str] = []
    for seat in range(players(state)):
        bonus, lines = seat_bonus(state, seat)
        penalty = penalties(state, seat)
        done = completed(state, seat)
        scores[seat] = state["scores"][seat] - penalty + bonus
        breakdown[seat] = {"contracts": state["scores"][seat], "penalties": -penalty,
                           "super bonus": bonus}
        tiebreaks[seat] = [len(done), max(done, default=0)]
        if penalty:
            notes.append(f"{handle(state, seat)} loses {penalty} for unfinished contracts")
        notes.extend(lines)
    return Outcome(
        scores=scores,
        ranking=rank_with_tiebreaks(scores, tiebreaks),
        breakdown=breakdown,
        tiebreaks=tiebreaks,
        tiebreak_names=["completed contracts", "most valuable completed contract"],
        notes=notes,
    )
