"""pbem ruling: a Road Master game whose scores stop moving ends (the rulebook never
says what happens when no one can score any more, and by email it would never end)."""

from __future__ import annotations

from games.road_master import GAME
from games.road_master.turn import STALLED_ROUNDS, STALLED_ROUNDS_EMPTY_DECK
from pbem.play.local import LocalTable


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


def test_stalled_game_with_empty_deck_ends_sooner() -> None:
    # The first round (placements) already scores nothing, so it counts as quiet.
    assert quiet_rounds_until_over(empty_deck=True) == STALLED_ROUNDS_EMPTY_DECK


def test_stalled_game_with_cards_left_waits_longer() -> None:
    assert quiet_rounds_until_over(empty_deck=False) == STALLED_ROUNDS


def test_quiet_rounds_before_the_deck_ran_out_do_not_shorten_the_wait() -> None:
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    table.play(["place A"])
    table.play(["place A"])
    table.state["quiet_rounds"] = 9  # nine quiet rounds while contracts were left
    table.state["deck"] = []
    for _ in range(STALLED_ROUNDS_EMPTY_DECK - 1):
        table.play([])
        table.play([])
    assert table.to_act() is not None and table.state["quiet_empty"] == 9


def test_a_score_change_resets_the_count() -> None:
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    table.play(["place A"])
    table.play(["place A"])
    table.state["quiet_rounds"] = STALLED_ROUNDS - 1
    table.state["quiet_empty"] = STALLED_ROUNDS_EMPTY_DECK - 1
    table.state["deck"] = []
    table.state["scores"][0] += 3  # a delivery this round
    table.play([])
    table.play([])
    assert table.state["quiet_rounds"] == 0 and table.state["quiet_empty"] == 0
    assert table.to_act() is not None
