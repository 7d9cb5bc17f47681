"""A deliberately broken game, for the conformance suite's own tests: it never ends at one
allowed option value, and the suite must say so.

Each turn the seat passes; the game ends after ``rounds`` rounds (option, 1 to 6). Its
bug: the turn counter runs on a 24-hour dial (``% 24``), so the end, reached when the
counter equals ``rounds * players``, is never reached when that is 24 (4 players and 6
rounds, 6 players and 4 rounds). At the default, 3 rounds, every player count ends: a
suite that tries only defaults passes it. Never registered as an installed game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.game import (
    Game,
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    Sampler,
    State,
    rank_with_tiebreaks,
)

DIAL = 24


class Wraparound(Game):
    info = GameInfo(id="wraparound", title="Wraparound", rules_version=1, min_players=1,
                    max_players=6,
                    options={"rounds": Option(3, "rounds to play", kind="int", minimum=1,
                                              maximum=6)})

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        return {"turn": 0, "players": len(seats), "rounds": options["rounds"], "acted": False}

    def to_act(self, state: State) -> int | None:
        if state["turn"] == state["rounds"] * state["players"]:
            return None
        return state["turn"] % state["players"]

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return [] if state["acted"] else ["pass"]

    def normalize(self, state: State, seat: int, text: str) -> str:
        if text.strip().lower() != "pass":
            raise InvalidMoveError(f"'{text}' is not a move; say pass")
        return "pass"

    def apply(self, state: State, seat: int, move: str) -> None:
        if state["acted"]:
            raise IllegalMoveError("you have already passed this turn")
        state["acted"] = True

    def end_turn(self, state: State, seat: int) -> None:
        if not state["acted"]:
            raise IllegalMoveError("pass first")
        state["acted"] = False
        state["turn"] = (state["turn"] + 1) % DIAL  # the bug: 24 is never reached

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        return None

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        return {"turn": state["turn"]}

    def render(self, view: dict[str, Any]) -> str:
        return f"turn {view['turn']}"

    def outcome(self, state: State) -> Outcome | None:
        if self.to_act(state) is not None:
            return None
        scores = dict.fromkeys(range(state["players"]), 0)
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def notation(self) -> str:
        return "pass   end your turn"


GAME = Wraparound()
