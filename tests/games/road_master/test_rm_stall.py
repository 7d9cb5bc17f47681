"""pbem ruling: a Road Master game whose scores stop moving ends (the rulebook never
says what happens when no one can score any more, and by email it would never end)."""

from __future__ import annotations

from games.road_master import GAME
from games.road_master.turn import STALLED_ROUNDS, STALLED_ROUNDS_WITH_DECK
from pbem.local import LocalTable


def quiet_rounds_until_over(empty_deck: bool) -> int:
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    rounds = 0
    placed: set[int] = set()
    while table.to_act() is not None and rounds < 100:
        for _ in range(2):
            table.prepare()
            seat = table.to_act()
            if seat is None:
                break
            if empty_deck:
                table.state["deck"] = []
            table.play([] if seat in placed else ["place A"])
            placed.add(seat)
        rounds += 1
    return rounds


def test_stalled_game_with_empty_deck_ends_after_five_quiet_rounds() -> None:
    # The first round (placements) already scores nothing, so it counts as quiet.
    assert quiet_rounds_until_over(empty_deck=True) == STALLED_ROUNDS


def test_stalled_game_with_cards_left_waits_longer() -> None:
    assert quiet_rounds_until_over(empty_deck=False) == STALLED_ROUNDS_WITH_DECK


def test_a_score_change_resets_the_count() -> None:
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    table.play(["place A"])
    table.play(["place A"])
    table.state["quiet_rounds"] = STALLED_ROUNDS - 1
    table.state["deck"] = []
    table.state["scores"][0] += 3  # a delivery this round
    table.play([])
    table.play([])
    assert table.state["quiet_rounds"] == 0 and table.to_act() is not None
