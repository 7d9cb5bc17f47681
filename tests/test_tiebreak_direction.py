"""A tie-break in which fewer is better (docs/ADDING-A-GAME.md, "Tie-breaks"): the outcome
names the direction (``Tiebreak(name, FEWER_IS_BETTER)``) and carries the values as
counted, never negated; the ranking reads the direction and what pbem prints says it in
words. No shipped game has one, so a test game does: Fewest Passes, the dice race whose
tie goes to the seat that passed fewer times."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from pbem import registry, session
from pbem.cli import main
from pbem.game import (
    FEWER_IS_BETTER,
    GameInfo,
    Option,
    Outcome,
    State,
    Tiebreak,
    rank_sides,
    rank_with_tiebreaks,
)
from tests.enginekit import actor
from tests.support.dice_race import DiceRace
from tests.support.fixed_game import started

PASSES = Tiebreak("passes", FEWER_IS_BETTER)


class FewestPasses(DiceRace):
    info = GameInfo(
        id="fewest-passes", title="Fewest Passes", rules_version=1, min_players=2,
        max_players=4,
        options={
            "target": Option(12, "points to win", kind="int", minimum=2, maximum=1_000),
            "turns": Option(3, "turn limit", kind="int", minimum=1, maximum=1_000),
        },
    )

    def setup(self, seats: Sequence[str], options: dict[str, Any],
              components: dict[str, Any]) -> State:
        return {**super().setup(seats, options, components), "passes": [0] * len(seats)}

    def apply(self, state: State, seat: int, move: str) -> None:
        super().apply(state, seat, move)
        if move == "pass":
            state["passes"][seat] += 1

    def outcome(self, state: State) -> Outcome | None:
        return None if self.to_act(state) is not None else self.score_now(state)

    def score_now(self, state: State) -> Outcome:
        scores = dict(enumerate(state["score"]))
        ties = {seat: [passes] for seat, passes in enumerate(state["passes"])}
        return Outcome(scores=scores, ranking=rank_with_tiebreaks(scores, ties, [PASSES]),
                       tiebreaks=ties, tiebreak_names=[PASSES])


registry.register("fewest-passes", FewestPasses())


def test_fewer_is_better_ranks_the_lowest_value_first() -> None:
    scores = {0: 5, 1: 5, 2: 5, 3: 4}
    ties = {0: [3], 1: [1], 2: [2], 3: [0]}
    assert rank_with_tiebreaks(scores, ties, [PASSES]) == [[1], [2], [0], [3]]
    assert rank_with_tiebreaks(scores, ties) == [[0], [2], [1], [3]]  # a plain name: more
    assert rank_with_tiebreaks(scores, ties, ["passes"]) == [[0], [2], [1], [3]]


def test_fewer_is_better_in_a_mixed_ranking_of_seats_and_a_rival() -> None:
    keys: dict[int | str, tuple[int, ...]] = {0: (5, 2, 9), 1: (5, 2, 1), "Bot": (5, 1, 0)}
    names = [Tiebreak("turns", FEWER_IS_BETTER), "crew"]
    assert rank_sides(keys, names) == [["Bot"], [0], [1]]
    assert rank_sides(keys) == [[0], [1], ["Bot"]]


def test_the_outcome_keeps_the_values_as_counted_and_says_the_direction_in_words() -> None:
    out = Outcome(scores={0: 5, 1: 5}, ranking=[[1], [0]], tiebreaks={0: [3], 1: [1]},
                  tiebreak_names=[PASSES, "crew cards"])
    assert out.tiebreaks == {0: [3], 1: [1]}
    assert out.tiebreak_words(0) == "passes 3 (fewer is better)"
    out.tiebreaks = {0: [3, 7], 1: [1, 2]}
    assert out.tiebreak_words(1) == "passes 1 (fewer is better), crew cards 2"
    plain = Outcome(scores={0: 1}, ranking=[[0]], tiebreaks={0: [2]},
                    tiebreak_names=["unused boosts"])
    assert plain.tiebreak_words(0) == "unused boosts 2"  # as printed before


def played_to_a_tie(tmp_path: Path) -> tuple[dict[str, Any], Path, str, str]:
    """ann and bob tie on points (nobody rolls); the seat that acts first passes twice,
    the other once: the other wins the tie-break."""
    homes, path = started(tmp_path, "fewest-passes", ["ann", "bob"])
    first = actor(path)
    second = "bob" if first == "ann" else "ann"
    while (duty := session.load(path, None).table.duty()) is not None:
        handle = session.load(path, None).table.seats[duty.seat].handle
        moves = ["pass"] if duty.kind == "turn" else []
        path = session.sign_next(homes[handle], path, None, moves, None, None).path
    return homes, path, first, second


def test_verify_prints_the_winner_of_a_fewer_is_better_tie_break_in_words(
        tmp_path: Path) -> None:
    homes, path, first, second = played_to_a_tie(tmp_path)
    result = CliRunner().invoke(main, ["--home", str(homes["ann"].path), "verify", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    scores = lines[lines.index("Final scores:") + 1:]
    assert scores[0].startswith(f"  1. {second}") and scores[1].startswith(f"  2. {first}")
    assert scores[0].endswith("[passes 1 (fewer is better)]")
    assert scores[1].endswith("[passes 2 (fewer is better)]")
    assert "passes -" not in result.output  # never negated
    report = session.load(path, None).report
    assert report.result["ranking"] == [[second], [first]]
