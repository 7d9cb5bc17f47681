"""A tiny draft with a secret deck, for engine tests of deal, pass and open.

Set-up deals a private hand of ``hand`` cards to every seat (resolved by the start entry).
Turns go round the table. On its turn a seat either picks one card of the oldest hand
waiting for it (once that hand is readable: `pick sN`) and passes the rest to the left,
or waits (`wait`) while no hand of its own can be read. When every card is picked, every
seat shows its picks (a public open); the game ends once all are shown. A card scores
its number (uids "c1".."c<hand*seats>")."""

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
    queue_chance,
    rank_with_tiebreaks,
    secretdeck,
)

DECK = "draft"


class SecretDraft(Game):
    info = GameInfo(id="secret-draft", title="Secret Draft", rules_version=1, min_players=2,
                    max_players=5,
                    options={"hand": Option(3, "cards dealt to each seat", kind="int", minimum=1,
                                            maximum=9)})

    def stock_components(self) -> dict[str, Any]:
        return {"cards": 45}

    def secret_decks(self, components: dict[str, Any], options: dict[str, Any],
                     players: int) -> dict[str, list[str]]:
        return {DECK: [f"c{i}" for i in range(1, options["hand"] * players + 1)]}

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        state: State = {"turn": 0, "hand": options["hand"], "phase": "deal",
                        "queue": [[] for _ in seats], "acted": False}
        queue_chance(state, {"kind": "deal"})
        return state

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        n = len(state["seats"])
        hands = secretdeck.deal(state, DECK, {seat: state["hand"] for seat in range(n)})
        state["queue"] = [[hands[seat]] for seat in range(n)]
        state["phase"] = "draft"

    def to_act(self, state: State) -> int | None:
        if state["phase"] == "done":
            return None
        return int(state["turn"] % len(state["seats"]))

    def _hand(self, state: State, seat: int) -> list[str]:
        """The oldest hand waiting for ``seat``, if it can read it now."""
        queue = state["queue"][seat]
        if not queue or not secretdeck.settled(state, DECK, queue[0]):
            return []
        return list(queue[0])

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if state["acted"] or state["phase"] == "done":
            return []
        if state["phase"] == "draft":
            hand = self._hand(state, seat)
            if hand:
                return [f"pick {s}" for s in hand]
        return ["wait"]

    def normalize(self, state: State, seat: int, text: str) -> str:
        words = text.lower().split()
        if words == ["wait"] or (len(words) == 2 and words[0] == "pick"):
            return " ".join(words)
        raise InvalidMoveError(f"'{text}' is not a move")

    def apply(self, state: State, seat: int, move: str) -> None:
        if move not in self.legal_moves(state, seat):
            raise IllegalMoveError(f"'{move}' is not possible now")
        state["acted"] = True
        if move == "wait":
            return
        pick = move.split()[1]
        hand = state["queue"][seat].pop(0)
        rest = [s for s in hand if s != pick]
        secretdeck.keep(state, DECK, seat, [pick])
        if rest:
            left = (seat + 1) % len(state["seats"])
            state["queue"][left].append(secretdeck.pass_slots(state, DECK, seat, left, rest))
        if not any(state["queue"]):
            state["phase"] = "show"
            for who in range(len(state["seats"])):
                secretdeck.open_slots(state, DECK, who, secretdeck.held(state, DECK, who))

    def end_turn(self, state: State, seat: int) -> None:
        if not state["acted"]:
            raise IllegalMoveError("pick or wait first")
        state["acted"] = False
        state["turn"] += 1
        shown = secretdeck.opened(state, DECK)
        if state["phase"] == "show" and len(shown) == len(self._all_cards(state)):
            state["phase"] = "done"

    def _all_cards(self, state: State) -> list[str]:
        return [f"c{i}" for i in range(1, state["hand"] * len(state["seats"]) + 1)]

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        view: dict[str, Any] = {"turn": state["turn"], "phase": state["phase"],
                                "held": {str(k): v for k, v in
                                         sorted(secretdeck.counts(state, DECK).items())},
                                "shown": secretdeck.opened(state, DECK)}
        if seat is not None and secrets:
            view["mine"] = dict(sorted(secrets.get(DECK, {}).items()))
        return view

    def render(self, view: dict[str, Any]) -> str:
        return f"turn {view['turn']} ({view['phase']}), held {view['held']}"

    def outcome(self, state: State) -> Outcome | None:
        if self.to_act(state) is not None:
            return None
        scores = {seat: 0 for seat in range(len(state["seats"]))}
        for slot, uid in secretdeck.opened(state, DECK).items():
            scores[secretdeck.holder(state, DECK, slot)] += int(uid[1:])
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, {}))

    def notation(self) -> str:
        return "pick sN | wait"

    def heuristic(self, state: State, seat: int) -> int:
        return len(secretdeck.held(state, DECK, seat))


GAME = SecretDraft()
