"""A tiny game with a secret deck, for engine tests of the mental deck.

On a turn a seat either draws (the top 2 cards are reserved for it, in secret) or
passes. At the head of its next turn it must keep one drawn card and put the other
under the deck (`keep sX`, then `bottom sY`). After `rounds` rounds the game ends;
each held card scores its number (card uids are "c1".."c12")."""

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


class SecretDraw(Game):
    info = GameInfo(id="secret-draw", title="Secret Draw", rules_version=1, min_players=1,
                    max_players=6,
                    options={"rounds": Option(3, "rounds to play", kind="int", minimum=1,
                                              maximum=50)})

    def stock_components(self) -> dict[str, Any]:
        return {"cards": [f"c{i}" for i in range(1, 13)]}

    def secret_decks(self, components: dict[str, Any], options: dict[str, Any],
                     players: int) -> dict[str, list[str]]:
        return {DECK: list(components["cards"])}

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        return {"turn": 0, "rounds": options["rounds"], "acted": False, "opened": {}}

    def to_act(self, state: State) -> int | None:
        n = len(state["seats"])
        return None if state["turn"] >= state["rounds"] * n else state["turn"] % n

    def _choosing(self, state: State, seat: int) -> list[str]:
        return secretdeck.drawn(state, DECK, seat)

    def legal_moves(self, state: State, seat: int) -> list[str]:
        drawn = [] if state["acted"] else self._choosing(state, seat)
        if len(drawn) == 2:
            return [f"keep {s}" for s in drawn]
        if len(drawn) == 1:
            return [f"bottom {drawn[0]}"]
        if state["acted"]:
            return []
        return (["draw"] if secretdeck.remaining(state, DECK) >= 2 else []) + ["pass"]

    def normalize(self, state: State, seat: int, text: str) -> str:
        words = text.lower().split()
        if words in (["draw"], ["pass"]) or (len(words) == 2 and words[0] in ("keep", "bottom")):
            return " ".join(words)
        raise InvalidMoveError(f"'{text}' is not a move")

    def apply(self, state: State, seat: int, move: str) -> None:
        if move not in self.legal_moves(state, seat):
            raise IllegalMoveError(f"'{move}' is not possible now")
        word, _, arg = move.partition(" ")
        if word == "keep":
            secretdeck.keep(state, DECK, seat, [arg])
        elif word == "bottom":
            secretdeck.return_bottom(state, DECK, seat, [arg])
        elif word == "draw":
            secretdeck.reserve_top(state, DECK, seat, 2)
            state["acted"] = True
        else:
            state["acted"] = True

    def end_turn(self, state: State, seat: int) -> None:
        if not state["acted"]:
            raise IllegalMoveError("draw or pass first")
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

    def outcome(self, state: State) -> Outcome | None:
        if self.to_act(state) is not None:
            return None
        scores = {}
        for seat in range(len(state["seats"])):
            held = secretdeck.held(state, DECK, seat)
            scores[seat] = sum(int(state["opened"].get(s, "c0")[1:]) for s in held)
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def notation(self) -> str:
        return "draw | pass | keep sN | bottom sN"

    def heuristic(self, state: State, seat: int) -> int:
        return len(secretdeck.held(state, DECK, seat))


GAME = SecretDraw()
