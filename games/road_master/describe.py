"""What one entry changed, in words for people (Game.describe): public facts only.

An entry first resolves the chance queued before it (market refills, a card taken blind,
the previous turn's boom cards and the actions that waited on them), then plays its
seat's moves. Every event of both is written to the state's log as it happens (loads,
deliveries, drives, boom cards, refills, shortages, emptied warehouses, Super Bonus
draws by count); ``log_count`` says how many lines are new. Around them come what the
log does not say: score changes, the deck's new top, the actions waiting for boom cards
with the policy in force, the chance the next player's beacon resolves, and the stall
count. Nothing here reads a secret: Super Bonus cards appear as counts.
"""

from __future__ import annotations

from typing import Any

from .model import handle, players
from .turn import STALLED_ROUNDS, STALLED_ROUNDS_EMPTY_DECK, draws_text, planned_draws, to_act

State = dict[str, Any]
POLICY_WORDS = {
    "stop": "policy stop: a first half boom ends the turn there",
    "push": "policy push: the turn goes on after a first half boom; a second explodes the truck",
}


def describe(before: State, after: State, seat: int) -> list[str]:
    lines = _events(before, after)
    lines += _scores(before, after)
    if after.get("deck_top") and after.get("deck_top") != before.get("deck_top"):
        lines.append(f"The contract deck's top card now shows {after['deck_top']}.")
    lines += _waiting(after, seat)
    lines += _stall(before, after)
    if _triggered(after) and not _triggered(before):
        lines.append("The end is triggered: this round is the last.")
    return lines


def _events(before: State, after: State) -> list[str]:
    new = after.get("log_count", 0) - before.get("log_count", 0)
    if new <= 0:
        return []
    kept = after["log"][-new:]
    if new > len(kept):
        return [f"({new - len(kept)} earlier event(s) are no longer kept)"] + kept
    return list(kept)


def _scores(before: State, after: State) -> list[str]:
    out = []
    for s in range(players(after)):
        old, new = before["scores"][s], after["scores"][s]
        if old != new:
            out.append(f"{handle(after, s)}'s score: {old} -> {new} ({new - old:+d}).")
    return out


def _next(after: State) -> str:
    """When queued chance is drawn: at the start of the next entry in the order of play by
    another seat, which comes before the next turn of the seat to act, whether that seat
    signs it or the seat after it plays it for the bot (an absent seat's turn)."""
    actor = to_act(after)
    return f"before {handle(after, actor)}'s next turn" if actor is not None else "by the next entry"


def _waiting(after: State, seat: int) -> list[str]:
    """Chance queued by this entry: the next player's beacon resolves it."""
    out = []
    other = []
    for request in after.get("pending", []):
        kind = request.get("kind")
        if kind == "boom":
            who = handle(after, int(request["seat"]))
            queued = [str(q["move"]) for q in request["moves"]]
            first = "right away" if request["first"] else "before the next unload"
            out.append(f"Boom cards for {who} are drawn {_next(after)} (the first "
                       f"{first}); waiting on them: {'; '.join(queued) or 'no more actions'}.")
            draws = planned_draws(request)
            policies = {d["policy"] for d in draws}
            if len(policies) == 1:
                out.append(f"{who} plays {POLICY_WORDS[policies.pop()]}.")
            else:  # RM-H5: a policy holds from where it stands until the next one
                out.append(f"{who}'s policy on a first half boom, draw by draw (stop: the "
                           f"turn ends there; push: it goes on): {draws_text(draws)}.")
            other.append("after them, the market refill and the deck's new top")
        elif kind == "blind":
            back = f" ({request['back']} back)" if request.get("back") else ""
            other.append(f"the card {handle(after, int(request['seat']))} took from the "
                         f"deck's top{back}")
        elif kind == "refill":
            other.append("the market refill and the deck's new top")
    if other:
        out.append(f"Drawn {_next(after)}: {', '.join(other)}.")
    return out


def _stall(before: State, after: State) -> list[str]:
    old, new = before.get("quiet_rounds", 0), after.get("quiet_rounds", 0)
    if old == new or after.get("ended"):
        return []
    if not new:
        return ["A score moved: the count of quiet rounds starts again."]
    line = f"No score has moved for {new} round(s); the game ends at {STALLED_ROUNDS}"
    if not after["deck"]:
        line += (f", or at {STALLED_ROUNDS_EMPTY_DECK} with the contract deck spent "
                 f"({after.get('quiet_empty', 0)} so far)")
    return [line + "."]


def _triggered(state: State) -> bool:
    return max(state["scores"]) >= state["data"]["target"] and not state["ended"]
