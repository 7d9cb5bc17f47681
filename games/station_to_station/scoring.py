"""Final scoring (STS-G2..G4): points, plus 1 per 2 coal and 1 per $4; ties by cash, coal."""

from __future__ import annotations

from games.station_to_station.constants import CASH_PER_POINT, COAL_PER_POINT
from pbem.game import Outcome, State, rank_with_tiebreaks


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
    ranking = rank_with_tiebreaks(scores, tiebreaks)
    notes = []
    if ranking and len(ranking[0]) > 1:
        names = ", ".join(str(state["seats"][s]) if s < len(state.get("seats", [])) else str(s)
                          for s in ranking[0])
        notes.append(f"shared win: {names}")
    return Outcome(scores=scores, ranking=ranking, breakdown=breakdown, tiebreaks=tiebreaks,
                   tiebreak_names=["cash", "coal"], notes=notes)
