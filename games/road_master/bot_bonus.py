"""What Super Bonus cards are worth to the greedy bot, from what its seat may know.

The seat knows its own cards only through ``secrets`` (slot -> card, the slots it drew or
holds and can read, as ``view`` gets them); the state says only how many cards anyone has.
So the bot values:

- its held cards by the best use of the cubes on its contracts (RM-G4): half on the
  cubes delivered now and half on those once its live contracts are complete, less a
  little risk each (a card kept on a coin toss is not worth keeping);
- drawn cards it can read but has not chosen from: one flat cost while any is left, so
  it chooses at once, keeping a card exactly when its worth beats that risk and
  returning the rest (a cost per card would make returning all six look best);
- held cards it cannot read (never, in play; a bot not given its secrets): a risk each;
- drawn cards it cannot read yet (taken this turn, or still being unlocked): the
  expected worth of the best keep from such a draw, over the cards it does not know,
  so it takes Super Bonus when the draw is worth more than the contracts token's other
  use; but only when it is given its secrets (else it could never judge the cards) and
  holds live contracts (else the token must find the truck work, or the game stalls).

Everything is in the heuristic's units (SCORE per point), in integers.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any

from pbem.game import secretdeck

from .bonus_draw import undecided
from .scoring import best_bonus, delivered
from .turn import DECK, choice_due, is_over

State = dict[str, Any]
Card = tuple[tuple[tuple[str, int], ...], int, int]  # (need, points, penalty), hashable
Cubes = tuple[tuple[str, int], ...]

SCORE = 1000  # one point (as in bot.py)
RISK = 300  # what keeping a card costs beyond its computed worth
PENDING = 500  # readable drawn cards not yet all kept or returned
MIN_DRAW = 1000  # a draw worth less than a point is not worth the action


def value(state: State, seat: int, projected: dict[str, int],
          secrets: dict[str, dict[str, str]]) -> int:
    """Super Bonus worth for ``seat``; ``projected``: the cubes on its contracts once its
    live contracts are complete."""
    if "secret" not in state:
        return 0
    mine = secrets.get(DECK, {})
    bonus = state["data"]["bonus"]
    held_slots = secretdeck.held(state, DECK, seat)
    held = [_card(bonus[mine[s]]) for s in held_slots if s in mine]
    drawn = undecided(state, seat)
    due = choice_due(state, seat)
    now = _items(delivered(state, seat))
    later = _items(projected)
    over = is_over(state)
    if over:
        worth = SCORE * _best(now, tuple(held))
    else:
        worth = SCORE * (_best(now, tuple(held)) + _best(later, tuple(held))) // 2
        worth -= RISK * len(held_slots)  # a card it cannot read counts as a risk only
    known = [s for s in drawn if s in mine]
    worth -= PENDING if drawn and (known or due) else 0
    # A draw is weighed only by a bot that will read its cards (given its secrets) and
    # while deliveries are under way (else the contracts token must find it work).
    judging = DECK in secrets and later != now
    if len(known) < len(drawn) and not over and not due and judging:
        seen = {mine[s] for s in mine}
        pool = tuple(sorted(_card(b) for uid, b in bonus.items() if uid not in seen))
        draw_size = len(drawn) - len(known)
        keep = int(state["data"]["sb_keep"]) - int(state["sb_kept"][seat])
        expected = _expected_keep(now, later, tuple(held), pool, draw_size, keep)
        worth += expected // 2 if expected >= MIN_DRAW else 0
    return worth


def _card(info: dict[str, Any]) -> Card:
    return (tuple(sorted(info["need"].items())), int(info["points"]), int(info["penalty"]))


def _items(cubes: dict[str, int]) -> Cubes:
    return tuple(sorted((c, n) for c, n in cubes.items() if n > 0))


@lru_cache(maxsize=4096)
def _best(have: Cubes, cards: tuple[Card, ...]) -> int:
    """Points of the best use of ``have`` for ``cards`` (met: +points, missed: -penalty)."""
    if not cards:
        return 0
    listed = [{"need": dict(need), "points": points, "penalty": penalty}
              for need, points, penalty in cards]
    return best_bonus(dict(have), listed)[0]


@lru_cache(maxsize=1024)
def _expected_keep(now: Cubes, later: Cubes, held: tuple[Card, ...], pool: tuple[Card, ...],
                   draw: int, keep: int) -> int:
    """SCORE x the expected gain of keeping the best (up to ``keep``) of ``draw`` cards
    drawn at random from ``pool``: each card's gain is what it adds to the held cards,
    valued as ``value`` values held cards (so the bot keeps what it expected to keep);
    a card is kept when it gains and is among the best drawn."""
    base = _best(now, held) + _best(later, held)
    gains = sorted((SCORE * (_best(now, (*held, card)) + _best(later, (*held, card)) - base) // 2
                    - RISK for card in pool), reverse=True)
    n = len(pool)
    draw = min(draw, n)
    if not draw or keep <= 0:
        return 0
    total = 0
    ways = comb(n - 1, draw - 1)  # draws that include a given card
    for rank, gain in enumerate(gains):
        if gain <= 0:
            break
        # The card is drawn, and fewer than ``keep`` of the ``rank`` better ones are.
        kept = sum(comb(rank, j) * comb(n - 1 - rank, draw - 1 - j) for j in range(min(keep, draw)))
        total += gain * kept * draw // (n * ways) if ways else 0
    return total
