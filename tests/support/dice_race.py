"""A tiny game for engine tests: race to a target by rolling dice.

Each turn the seat rolls (queued chance: resolved by the next seat's beacon) or passes.
Its only purpose is to exercise the engine without depending on a real ruleset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import (
    ComponentError,
    Game,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    Sampler,
    State,
    queue_chance,
    rank_with_tiebreaks,
)


class DiceRace(Game):
    info = GameInfo(
        id="dice-race", title="Dice Race", rules_version=1, min_players=1, max_players=4,
        options={
            "target": Option(12, "points to win", kind="int", minimum=2, maximum=1_000_000),
            "turns": Option(200, "turn limit", kind="int", minimum=1, maximum=100_000),
        },
    )

    def stock_components(self) -> dict[str, Any]:
        return {"die": 6}

    def validate_components(self, data: dict[str, Any]) -> None:
        if not isinstance(data.get("die"), int) or data["die"] < 2:
            raise ComponentError("components: 'die' must be a whole number of faces, 2 or more")

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        state: State = {"score": [0] * len(seats), "turn": 0, "first": 0, "acted": False,
                        "target": options["target"], "turns": options["turns"],
                        "die": components["die"], "rolls": 0}
        queue_chance(state, {"kind": "first"})
        return state

    def to_act(self, state: State) -> int | None:
        if max(state["score"]) >= state["target"] or state["turn"] >= state["turns"]:
            return None
        n = len(state["score"])
        return (state["first"] + state["turn"]) % n

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return [] if state["acted"] else ["roll", "pass"]

    def normalize(self, state: State, seat: int, text: str) -> str:
        word = text.strip().lower()
        if word in ("roll", "r"):
            return "roll"
        if word in ("pass", "p"):
            return "pass"
        raise InvalidMoveError(f"'{text}' is not a move; say roll or pass")

    def apply(self, state: State, seat: int, move: str) -> None:
        if state["acted"]:
            raise IllegalMoveError("you have already acted this turn")
        state["acted"] = True
        if move == "roll":
            state["rolls"] += 1
            queue_chance(state, {"kind": "roll", "seat": seat})

    def end_turn(self, state: State, seat: int) -> None:
        if not state["acted"]:
            raise IllegalMoveError("roll or pass first")
        state["acted"] = False
        state["turn"] += 1

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        if request["kind"] == "first":
            state["first"] = rng.randbelow(len(state["score"]))
        else:
            state["score"][request["seat"]] += rng.randint(1, state["die"])

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        return {"score": list(state["score"]), "turn": state["turn"],
                "pending": len(state.get("pending", []))}

    def render(self, view: dict[str, Any]) -> str:
        return "scores: " + " ".join(str(s) for s in view["score"])

    def outcome(self, state: State) -> Outcome | None:
        if self.to_act(state) is not None:
            return None
        scores = dict(enumerate(state["score"]))
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def score_now(self, state: State) -> Outcome:
        scores = dict(enumerate(state["score"]))
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def notation(self) -> str:
        return "roll   roll the die (resolved when the next player opens the save)\npass"

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        lines = [f"{after['seats'][s]} rolled {new - old}"
                 for s, (old, new) in enumerate(zip(before["score"], after["score"], strict=True))
                 if new != old]
        if any(r["kind"] == "roll" for r in after.get("pending", [])):
            lines.append("a roll waits for the next player's entry")
        return lines

    def heuristic(self, state: State, seat: int) -> int:
        return state["rolls"]


GAME = DiceRace()
