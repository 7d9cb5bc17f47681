"""A tiny game whose seats keep a secret card before they can read it, for the cards an
absent seat leaves closed (PROTOCOL.md section 7). Secret Draw (tests/support/secret_draw.py)
with other moves and scoring.

On a turn a seat grabs the top card (drawn in secret and kept at once, before the other
seats have peeled their layers from it) or passes. After `rounds` rounds the game ends;
each held card scores its number; a card the audit could not open is not given to the
scoring, so it scores nothing (also when the game is stopped early)."""

from __future__ import annotations

from typing import Any

from pbem.game import (
    GameInfo,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    State,
    rank_with_tiebreaks,
    secretdeck,
)
from tests.support.secret_draw import DECK, SecretDraw


class SecretGrab(SecretDraw):
    info = GameInfo(id="secret-grab", title="Secret Grab", rules_version=1, min_players=1,
                    max_players=4,
                    options={"rounds": Option(2, "rounds to play", kind="int", minimum=1,
                                              maximum=3)})

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

    def score_now(self, state: State) -> Outcome:
        opened: dict[str, Any] = state["opened"]
        scores = {seat: sum(int(opened.get(s, "c0")[1:]) for s in secretdeck.held(state, DECK, seat))
                  for seat in range(len(state["seats"]))}
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def outcome(self, state: State) -> Outcome | None:
        return None if self.to_act(state) is not None else self.score_now(state)

    def notation(self) -> str:
        return "grab | pass"


GAME = SecretGrab()
