"""A tiny game whose seats keep a secret card before they can read it, for the cards an
absent seat leaves closed (PROTOCOL.md section 7).

On a turn a seat grabs the top card (drawn in secret and kept at once, before the other
seats have peeled their layers from it) or passes. After `rounds` rounds the game ends;
each held card scores its number (uids "c1".."c8"); a card the audit could not open is
not given to the scoring, so it scores nothing."""

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
    secretdeck,
)

DECK = "cards"


class SecretGrab(Game):
    info = GameInfo(id="secret-grab", title="Secret Grab", rules_version=1, min_players=1,
                    max_players=4,
                    options={"rounds": Option(2, "rounds to play", kind="int", minimum=1,
                                              maximum=8)})

    def stock_components(self) -> dict[str, Any]:
        return {"cards": [f"c{i}" for i in range(1, 9)]}

    def secret_decks(self, components: dict[str, Any], options: dict[str, Any],
                     players: int) -> dict[str, list[str]]:
        return {DECK: list(components["cards"])}

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        return {"turn": 0, "rounds": options["rounds"], "acted": False, "opened": {}}

    def to_act(self, state: State) -> int | None:
        n = len(state["seats"])
        return None if state["turn"] >= state["rounds"] * n else state["turn"] % n

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if state["acted"]:
            return []
        return (["grab"] if secretdeck.remaining(state, DECK) else []) + ["pass"]

    def normalize(self, state: State, seat: int, text: str) -> str:
        word = text.strip().lower()
        if word in ("grab", "pass"):
            return word
        raise InvalidMoveError(f"'{text}' is not a move")

    def apply(self, state: State, seat: int, move: str) -> None:
        if move not in self.legal_moves(state, seat):
            raise IllegalMoveError(f"'{move}' is not possible now")
        if move == "grab":  # kept at once: the others' peels come in their next entries
            secretdeck.keep(state, DECK, seat, secretdeck.reserve_top(state, DECK, seat, 1))
        state["acted"] = True

    def end_turn(self, state: State, seat: int) -> None:
        if not state["acted"]:
            raise IllegalMoveError("grab or pass first")
        state["acted"] = False
        state["turn"] += 1

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        raise AssertionError("no chance in this game")

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        held = secretdeck.counts(state, DECK)
        view: dict[str, Any] = {"turn": state["turn"],
                                "held": {str(k): v for k, v in sorted(held.items())},
                                "pile": secretdeck.remaining(state, DECK)}
        if seat is not None and secrets:
            view["mine"] = dict(sorted(secrets.get(DECK, {}).items()))
        return view

    def render(self, view: dict[str, Any]) -> str:
        return f"turn {view['turn']}, pile {view['pile']}, held {view['held']}"

    def on_reveal(self, state: State, opened: dict[str, dict[str, str]]) -> None:
        state["opened"] = dict(opened.get(DECK, {}))

    def score_now(self, state: State) -> Outcome:
        scores = {seat: sum(int(state["opened"].get(s, "c0")[1:])
                            for s in secretdeck.held(state, DECK, seat))
                  for seat in range(len(state["seats"]))}
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def outcome(self, state: State) -> Outcome | None:
        return None if self.to_act(state) is not None else self.score_now(state)

    def notation(self) -> str:
        return "grab | pass"

    def heuristic(self, state: State, seat: int) -> int:
        return len(secretdeck.held(state, DECK, seat))


GAME = SecretGrab()
