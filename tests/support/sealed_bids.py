"""A tiny auction for engine tests of simultaneous steps (Game.simultaneous).

Each round every seat bids at once for that round's prize, from the coins it has left
(`bid N`, 0 up to its coins). Once every seat has bid, the highest bid wins (ties go to
the lowest seat); the winner pays its bid and scores the prize. The prizes (1..rounds,
one each) are shuffled at set-up (chance, resolved by the start entry). After the last
round the most points win, then the most coins left. The bids are sealed (each seat
commits to its bid, and the bids are opened once every seat has committed), unless the
option ``open`` has them made face up.

The bids of a round are one simultaneous step: each seat's bid is legal against the
state before the step (it spends only that seat's coins) and the step is settled when
the last seat ends its turn, whoever that is, so the bids give the same state in any
order."""

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
)


class SealedBids(Game):
    info = GameInfo(
        id="sealed-bids", title="Sealed Bids", rules_version=1, min_players=2, max_players=4,
        options={
            "rounds": Option(3, "prizes auctioned", kind="int", minimum=1, maximum=12),
            "purse": Option(6, "coins each seat starts with", kind="int", minimum=1,
                            maximum=50),
            "open": Option(False, "bids are made face up (a step that is not sealed)",
                           kind="bool"),
        },
    )

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        n = len(seats)
        state: State = {"round": 0, "rounds": options["rounds"],
                        "prizes": list(range(1, options["rounds"] + 1)),
                        "coins": [options["purse"]] * n, "points": [0] * n,
                        "bids": [-1] * n, "done": [False] * n, "last": [],
                        "open": options["open"]}
        queue_chance(state, {"kind": "prizes"})
        return state

    def resolve(self, state: State, request: dict[str, Any], rng: Sampler) -> None:
        rng.shuffle(state["prizes"])

    def simultaneous(self, state: State) -> list[int]:
        if state["round"] >= state["rounds"]:
            return []
        return [s for s, done in enumerate(state["done"]) if not done]

    def sealed(self, state: State) -> bool:
        return not state["open"]

    def to_act(self, state: State) -> int | None:
        waiting = self.simultaneous(state)
        return waiting[0] if waiting else None

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if state["round"] >= state["rounds"] or state["bids"][seat] >= 0 \
                or state["done"][seat]:
            return []
        return [f"bid {n}" for n in range(state["coins"][seat] + 1)]

    def normalize(self, state: State, seat: int, text: str) -> str:
        words = text.strip().lower().split()
        if len(words) == 2 and words[0] in ("bid", "b") and words[1].isdigit() \
                and len(words[1]) <= 4:
            return f"bid {int(words[1])}"
        raise InvalidMoveError(f"'{text[:40]}' is not a move; say bid N")

    def apply(self, state: State, seat: int, move: str) -> None:
        if move not in self.legal_moves(state, seat):
            raise IllegalMoveError(f"{move} is not a bid you can make now (you have "
                                   f"{state['coins'][seat]} coins, one bid a round)")
        state["bids"][seat] = int(move.split()[1])

    def end_turn(self, state: State, seat: int) -> None:
        if state["bids"][seat] < 0:
            raise IllegalMoveError("bid first")
        state["done"][seat] = True
        if all(state["done"]):
            self._settle(state)

    def _settle(self, state: State) -> None:
        """Every seat has bid: the highest bid (the lowest seat on a tie) wins the prize."""
        bids = state["bids"]
        winner = max(range(len(bids)), key=lambda s: (bids[s], -s))
        prize = state["prizes"][state["round"]]
        state["coins"][winner] -= bids[winner]
        state["points"][winner] += prize
        state["last"] = [list(bids), winner, prize]
        state["bids"] = [-1] * len(bids)
        state["done"] = [False] * len(bids)
        state["round"] += 1

    def view(self, state: State, seat: int | None,
             secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "round": state["round"], "rounds": state["rounds"],
            "prize": state["prizes"][state["round"]] if state["round"] < state["rounds"] else 0,
            "coins": list(state["coins"]), "points": list(state["points"]),
            "bid": [bool(d) for d in state["done"]], "last": list(state["last"])}
        if seat is not None and state["bids"][seat] >= 0:
            shown["my_bid"] = state["bids"][seat]
        return shown

    def render(self, view: dict[str, Any]) -> str:
        lines = [f"round {view['round'] + 1} of {view['rounds']}, prize {view['prize']}",
                 "coins: " + " ".join(str(c) for c in view["coins"]),
                 "points: " + " ".join(str(p) for p in view["points"])]
        if view["last"]:
            bids, winner, prize = view["last"]
            lines.append(f"last round: bids {bids}, seat {winner} won {prize}")
        return "\n".join(lines)

    def describe(self, before: State, after: State, seat: int) -> list[str]:
        if after["round"] == before["round"]:
            return [f"{after['seats'][seat]} bid"] if after["done"] != before["done"] else []
        bids, winner, prize = after["last"]
        return [f"bids {bids}: {after['seats'][winner]} won the prize of {prize}"]

    def outcome(self, state: State) -> Outcome | None:
        if state["round"] < state["rounds"]:
            return None
        return self.score_now(state)

    def score_now(self, state: State) -> Outcome:
        scores = dict(enumerate(state["points"]))
        coins = {s: [c] for s, c in enumerate(state["coins"])}
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, coins, ["coins"]),
                       tiebreaks=coins, tiebreak_names=["coins"])

    def notation(self) -> str:
        return "bid N   bid N of your coins for this round's prize (bid 3)"

    def heuristic(self, state: State, seat: int) -> int:
        return 10 * state["points"][seat] + state["coins"][seat]


GAME = SealedBids()
