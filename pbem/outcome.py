"""A finished game's result (``Outcome``) and the rankings games build it with: below the
game contract (pbem.game re-exports them for games) and the drawing kit, which draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pbem.record import Record

MORE_IS_BETTER = "more"
FEWER_IS_BETTER = "fewer"


class Tiebreak(NamedTuple):
    """A tie-break as an outcome names it: what it counts, and which way it counts
    (``better``: MORE_IS_BETTER or FEWER_IS_BETTER). The values stay as counted (a
    player's 12 turns are 12, never -12); the ranking reads the direction."""

    name: str
    better: str = MORE_IS_BETTER

    def words(self, value: int) -> str:
        """'crew cards 5'; 'turns taken 12 (fewer is better)'."""
        return f"{self.name} {value}" + (" (fewer is better)" if self.fewer else "")

    @property
    def fewer(self) -> bool:
        return self.better == FEWER_IS_BETTER


def tiebreak_rules(names: Sequence[str | Tiebreak]) -> list[Tiebreak]:
    """Tie-breaks as named in an outcome: a plain name counts more-is-better."""
    return [n if isinstance(n, Tiebreak) else Tiebreak(n) for n in names]


def tie_key(score: int, ties: Sequence[int], names: Sequence[str | Tiebreak] = ()
            ) -> tuple[int, ...]:
    """The key that ranks a side, highest first: its score, then each tie-break, turned
    round where fewer is better (a key only: never shown, never stored)."""
    rules = tiebreak_rules(names)
    return (score, *(-v if i < len(rules) and rules[i].fewer else v
                     for i, v in enumerate(ties)))


class Outcome(Record):
    """Final result. ``scores`` maps seat -> total; ``ranking`` lists groups of tied
    seats best first (after tie-breaks); ``breakdown`` maps seat -> {label: points};
    ``tiebreaks`` maps seat -> the tie-break values used, in order, as counted;
    ``tiebreak_names`` names them, each a plain name (more is better) or a ``Tiebreak``
    saying which way it counts (rank with ``rank_with_tiebreaks(..., names)``, which
    reads it); ``notes`` are lines for people ("bob resigned", "cy's Super Bonus 2 unmet: -2").

    A rival that is not a seat (the automaton of a solo game) ranks too: ``rivals`` maps
    its name -> total, ``rival_breakdown`` and ``rival_tiebreaks`` as for seats, and
    ``places`` is the whole ranking, seats (int) and rivals (their names) together, best
    first; empty means ``ranking`` (no rivals)."""

    def __init__(self, scores: dict[int, int], ranking: list[list[int]],
                 breakdown: dict[int, dict[str, int]] | None = None,
                 tiebreaks: dict[int, list[int]] | None = None,
                 tiebreak_names: list[str | Tiebreak] | None = None,
                 notes: list[str] | None = None,
                 rivals: dict[str, int] | None = None,
                 rival_breakdown: dict[str, dict[str, int]] | None = None,
                 rival_tiebreaks: dict[str, list[int]] | None = None,
                 places: list[list[int | str]] | None = None) -> None:
        self.scores = scores
        self.ranking = ranking
        self.breakdown = {} if breakdown is None else breakdown
        self.tiebreaks = {} if tiebreaks is None else tiebreaks
        self.tiebreak_names: list[str | Tiebreak] = (
            [] if tiebreak_names is None else tiebreak_names)
        self.notes = [] if notes is None else notes
        self.rivals = {} if rivals is None else rivals
        self.rival_breakdown = {} if rival_breakdown is None else rival_breakdown
        self.rival_tiebreaks = {} if rival_tiebreaks is None else rival_tiebreaks
        self.places = [] if places is None else places

    def standing(self) -> list[list[int | str]]:
        """Every ranked side best first: seats (int) and rivals (their names)."""
        if self.places:
            return [list(group) for group in self.places]
        return [list(group) for group in self.ranking]

    def tiebreak_words(self, side: int | str) -> str:
        """A side's tie-breaks for people ('unused boosts 2, crew cards 5'), '' if none."""
        ties = (self.tiebreaks.get(side) if isinstance(side, int)
                else self.rival_tiebreaks.get(side))
        if not ties or not self.tiebreak_names:
            return ""
        rules = tiebreak_rules(self.tiebreak_names)
        return ", ".join(rule.words(v) for rule, v in zip(rules, ties, strict=False))


def rank_sides(keys: dict[int | str, tuple[int, ...]],
               names: Sequence[str | Tiebreak] = ()) -> list[list[int | str]]:
    """Group seats and rivals best first by their (score, *tiebreaks), highest first
    (lowest first for a tie-break ``names`` says fewer is better); sides still equal share
    a group (seats first, then rivals, each in order)."""
    keyed: dict[tuple[int, ...], list[int | str]] = {}
    for side in sorted(keys, key=lambda k: (isinstance(k, str), str(k) if isinstance(k, str)
                                            else f"{k:09d}")):
        score, *ties = keys[side]
        keyed.setdefault(tie_key(score, ties, names), []).append(side)
    return [keyed[k] for k in sorted(keyed, reverse=True)]


def rank_with_tiebreaks(
    scores: dict[int, int], tiebreaks: dict[int, list[int]],
    names: Sequence[str | Tiebreak] = (),
) -> list[list[int]]:
    """Group seats best first by (score, *tiebreaks), compared highest-first, except a
    tie-break ``names`` says fewer is better: lowest first.

    Seats still equal after every tie-break share a group (a shared place)."""
    keyed: dict[tuple[int, ...], list[int]] = {}
    for seat in sorted(scores):
        key = tie_key(scores[seat], tiebreaks.get(seat, []), names)
        keyed.setdefault(key, []).append(seat)
    return [keyed[k] for k in sorted(keyed, reverse=True)]
