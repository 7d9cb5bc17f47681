"""A finished game's result (``Outcome``) and the rankings games build it with: below the
game contract (pbem.game re-exports them for games) and the drawing kit, which draws it.
"""

from __future__ import annotations

from pbem.record import Record


class Outcome(Record):
    """Final result. ``scores`` maps seat -> total; ``ranking`` lists groups of tied
    seats best first (after tie-breaks); ``breakdown`` maps seat -> {label: points};
    ``tiebreaks`` maps seat -> the tie-break values used, in order; ``notes`` are lines
    for people ("bob resigned", "cy's Super Bonus 2 unmet: -2").

    A rival that is not a seat (the automaton of a solo game) ranks too: ``rivals`` maps
    its name -> total, ``rival_breakdown`` and ``rival_tiebreaks`` as for seats, and
    ``places`` is the whole ranking, seats (int) and rivals (their names) together, best
    first; empty means ``ranking`` (no rivals)."""

    def __init__(self, scores: dict[int, int], ranking: list[list[int]],
                 breakdown: dict[int, dict[str, int]] | None = None,
                 tiebreaks: dict[int, list[int]] | None = None,
                 tiebreak_names: list[str] | None = None,
                 notes: list[str] | None = None,
                 rivals: dict[str, int] | None = None,
                 rival_breakdown: dict[str, dict[str, int]] | None = None,
                 rival_tiebreaks: dict[str, list[int]] | None = None,
                 places: list[list[int | str]] | None = None) -> None:
        self.scores = scores
        self.ranking = ranking
        self.breakdown = {} if breakdown is None else breakdown
        self.tiebreaks = {} if tiebreaks is None else tiebreaks
        self.tiebreak_names = [] if tiebreak_names is None else tiebreak_names
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


def rank_sides(keys: dict[int | str, tuple[int, ...]]) -> list[list[int | str]]:
    """Group seats and rivals best first by their (score, *tiebreaks), highest first;
    sides still equal share a group (seats first, then rivals, each in order)."""
    keyed: dict[tuple[int, ...], list[int | str]] = {}
    for side in sorted(keys, key=lambda k: (isinstance(k, str), str(k) if isinstance(k, str)
                                            else f"{k:09d}")):
        keyed.setdefault(keys[side], []).append(side)
    return [keyed[k] for k in sorted(keyed, reverse=True)]


def rank_with_tiebreaks(
    scores: dict[int, int], tiebreaks: dict[int, list[int]]
) -> list[list[int]]:
    """Group seats best first by (score, *tiebreaks), all compared highest-first.

    Seats still equal after every tie-break share a group (a shared place)."""
    keyed: dict[tuple[int, ...], list[int]] = {}
    for seat in sorted(scores):
        key = (scores[seat], *tiebreaks.get(seat, []))
        keyed.setdefault(key, []).append(seat)
    return [keyed[k] for k in sorted(keyed, reverse=True)]
