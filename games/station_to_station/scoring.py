"""Final scoring (STS-G2..G4): points, plus 1 per 2 coal and 1 per $4; ties by cash, coal."""

from __future__ import annotations

from pbem.game import Outcome, State, rank_with_tiebreaks

from .constants import CASH_PER_POINT, COAL_PER_POINT


def final_breakdown(player: dict) -> dict[str, int]:
    parts = dict(player["score"])
    parts["coal"] = player["coal"] // COAL_PER_POINT
    parts["cash"] = player["cash"] // CASH_PER_POINT
    # Goods, tickets and crews score nothing (STS-G3).
    return parts


def outcome(state: State) -> Outcome | None:
    if not state.get("over"):
        return None
    return score_now(state)


def score_now(state: State) -> Outcome:
    """The final scoring applied to ``state``, over or not (a player declared absent)."""
    scores: dict[int, int] = {}
    breakdown: dict[int, dict[str, int]] = {}
    tiebreaks: dict[int, list[int]] = {}
    for seat, player in enumerate(state["players"]):
        parts = final_breakdown(player)
        breakdown[seat] = parts
        scores[seat] = sum(parts.values())
        tiebreaks[seat] = [player["cash"], player["coal"]]
    # A tie left after cash and coal is a shared first place (STS-G4): the ranking says so,
    # and the engine words it ("Shared win: ..."), after ranking a resigner last.
    return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, tiebreaks),
                   breakdown=breakdown, tiebreaks=tiebreaks, tiebreak_names=["cash", "coal"])
