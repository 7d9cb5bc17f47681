"""Scores: gold in storage (1 each; gold on a ship counts nothing), the printed points of
crews and commanders, 1 per super deal tile. Boosts score nothing but break ties: most
unused boosts, then most crew cards.

In the solo game Justin is scored the same way; he is not a seat, so he ranks in the
outcome as a rival (Outcome.rivals and places), and the notes say who won.
"""

from __future__ import annotations

from typing import Any

from pbem.game import Outcome, State, rank_sides, rank_with_tiebreaks

from .constants import GOLD, JUSTIN
from .state import card

TIEBREAK_NAMES = ["unused boosts", "crew cards"]
JUSTIN_NAME = "Justin"  # how results name the automaton


def breakdown(state: State, owner: dict[str, Any], cards: list[str]) -> dict[str, int]:
    entries = [card(state, c) for c in cards]  # each card read once
    return {
        "gold": owner["storage"][GOLD],
        "crew": sum(e["vp"] for e in entries if e["kind"] == "crew"),
        "commanders": sum(e["vp"] for e in entries if e["kind"] == "commander"),
        "super deals": len(owner["deals"]),
    }


def player_cards(player: dict[str, Any]) -> list[str]:
    return player["crew"] + player["commanders"]


def score_of(state: State, seat: int) -> tuple[int, dict[str, int], list[int]]:
    player = state["players"][seat]
    parts = breakdown(state, player, player_cards(player))
    return sum(parts.values()), parts, [len(player["boosts"]), len(player["crew"])]


def justin_score(state: State) -> tuple[int, dict[str, int], list[int]]:
    me = state[JUSTIN]
    parts = breakdown(state, me, me["stack"])
    crews = [c for c in me["stack"] if card(state, c)["kind"] == "crew"]
    return sum(parts.values()), parts, [0, len(crews)]


def outcome(state: State) -> Outcome | None:
    if state["phase"] != "over":
        return None
    scores: dict[int, int] = {}
    parts: dict[int, dict[str, int]] = {}
    ties: dict[int, list[int]] = {}
    for seat in range(len(state["players"])):
        scores[seat], parts[seat], ties[seat] = score_of(state, seat)
    reason = state["end"]["reason"]
    notes = ["The deck ran out: the game ended at once." if reason == "deck" else
             "The bank's gold ran out and every player took 2 more turns."]
    out = Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, ties), breakdown=parts,
                  tiebreaks=ties, tiebreak_names=list(TIEBREAK_NAMES), notes=notes)
    if state["solo"]:
        notes.append(_solo_note(state))
        with_justin(state, out)
    return out


def with_justin(state: State, out: Outcome) -> None:
    """The solo game's result names both sides: Justin ranks with his score (a rival, not a
    seat), by the same points and tie-breaks as the human."""
    score, parts, ties = justin_score(state)
    out.rivals = {JUSTIN_NAME: score}
    out.rival_breakdown = {JUSTIN_NAME: parts}
    out.rival_tiebreaks = {JUSTIN_NAME: ties}
    keys: dict[int | str, tuple[int, ...]] = {
        seat: (out.scores[seat], *out.tiebreaks.get(seat, [])) for seat in out.scores}
    keys[JUSTIN_NAME] = (score, *ties)
    out.places = rank_sides(keys)


def score_now(state: State) -> Outcome:
    """The final scoring applied to ``state``, over or not (a player declared absent and
    the game stopped): the same points and tie-breaks as at the end."""
    scores: dict[int, int] = {}
    parts: dict[int, dict[str, int]] = {}
    ties: dict[int, list[int]] = {}
    for seat in range(len(state["players"])):
        scores[seat], parts[seat], ties[seat] = score_of(state, seat)
    out = Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, ties), breakdown=parts,
                  tiebreaks=ties, tiebreak_names=list(TIEBREAK_NAMES))
    if state["solo"]:
        with_justin(state, out)
    return out


def _solo_note(state: State) -> str:
    score, parts, _ = justin_score(state)
    spelled = ", ".join(f"{k} {v}" for k, v in parts.items())
    return f"Justin (the automaton) scored {score} ({spelled}): {_solo_verdict(state)}."


def _solo_verdict(state: State) -> str:
    human, _, human_ties = score_of(state, 0)
    score, _, ties = justin_score(state)
    mine, his = (human, *human_ties), (score, *ties)
    name = state["seats"][0]
    return (f"{name} beats Justin" if mine > his else
            "Justin wins" if his > mine else "a shared win with Justin")


def result(state: State) -> dict[str, Any]:
    """The result of a finished game for the view: every score (Justin's too, in the
    solo game), the winners after the tie-breaks, and a sentence."""
    if state["phase"] != "over":
        return {}
    if state["solo"]:
        scores = {state["seats"][0]: score_of(state, 0)[0], "Justin": justin_score(state)[0]}
        verdict = _solo_verdict(state)
        winners = ([state["seats"][0]] if "beats" in verdict else ["Justin"]
                   if verdict == "Justin wins" else [state["seats"][0], "Justin"])
    else:
        out = outcome(state)  # its scores are score_of's: each player is scored once
        assert out is not None
        scores = {name: out.scores[i] for i, name in enumerate(state["seats"])}
        winners = [state["seats"][s] for s in out.ranking[0]]
        verdict = (f"{winners[0]} wins" if len(winners) == 1 else
                   f"a shared win for {' and '.join(winners)}")
    spelled = ", ".join(f"{name} {score}" for name, score in scores.items())
    return {"scores": scores, "winners": winners, "text": f"Final scores: {spelled}: {verdict}."}


def result_line(state: State) -> str:
    return str(result(state).get("text", ""))
