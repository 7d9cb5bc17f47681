"""pbem ruling: a Road Master game whose scores stop moving ends (the rulebook never
says what happens when no one can score any more, and by email it would never end)."""

from __future__ import annotations

from pbem.play.local import LocalTable
from pbem_games.road_master import GAME
from pbem_games.road_master.turn import STALLED_ROUNDS, STALLED_ROUNDS_EMPTY_DECK


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


# ---- RM-X1 with hazardous goods: a round is counted once, after its booms resolve ----------
OK = -1  # a scripted boom draw that turns up an OK card (see rm_support.Script)


def _boom_last_turn(quiet: int) -> LocalTable:
    """Two players, hazardous goods: bob's turn closes the round and waits on a boom draw
    before it unloads 2 purple onto c12 at D (+5), with ``quiet`` quiet rounds before."""
    from rm_support import give, load_truck, placed, truck

    table = placed(2, hazardous=True)
    state = table.state
    truck(state, 1, "D")
    give(state, 1, "c12")
    load_truck(state, 1, "purple", 2)
    load_truck(state, 1, "yellow", 1)
    state["quiet_rounds"] = quiet
    state["round_score"] = sum(state["scores"])
    table.play([])
    table.play(["unload c12 purple x2"])  # the draw comes first: the unload is queued
    assert [p["kind"] for p in table.state["pending"]] == ["boom"]
    return table


def _resolve(table: LocalTable, answers: list[int]) -> None:
    from rm_support import Script

    state = table.state
    request = next(p for p in state["pending"] if p["kind"] == "boom")
    state["pending"].remove(request)
    GAME.resolve(state, {k: v for k, v in request.items() if k != "seq"}, Script(answers))


def test_RM_X1_a_round_ending_with_boom_draws_is_counted_once() -> None:
    """RM-X1: the round whose last turn draws boom cards counts once, when they resolve."""
    table = _boom_last_turn(quiet=4)
    assert table.state["quiet_rounds"] == 4  # not counted on the rolled-back state
    _resolve(table, [OK])
    assert table.state["scores"][1] == 5  # the queued unload scored: not a quiet round
    assert table.state["quiet_rounds"] == 0
    quiet = _boom_last_turn(quiet=4)
    _resolve(quiet, [0])  # a half boom before the unload: policy stop, no delivery
    assert quiet.state["scores"][1] == 0 and quiet.state["quiet_rounds"] == 5


def test_RM_X1_a_queued_delivery_never_scores_into_a_finished_game() -> None:
    """RM-X1: one quiet round short of the limit, a boom-delayed delivery keeps the game
    going (the check runs after the booms, not on the state rolled back to the draw)."""
    table = _boom_last_turn(quiet=STALLED_ROUNDS - 1)
    assert table.to_act() is not None and not table.state["ended"]
    _resolve(table, [OK])
    assert table.state["scores"][1] == 5
    assert not table.state["ended"] and table.to_act() == 0
    assert table.state["quiet_rounds"] == 0


def test_RM_X1_the_stall_ends_the_game_after_booms_that_score_nothing() -> None:
    """RM-X1: if the booms stop the delivery, the round was quiet and the game ends."""
    table = _boom_last_turn(quiet=STALLED_ROUNDS - 1)
    _resolve(table, [0])  # half boom, policy stop: no delivery
    assert table.state["scores"] == [0, 0]
    assert table.state["ended"] and table.to_act() is None
    assert table.state["quiet_rounds"] == STALLED_ROUNDS


def test_rm_x1_the_stall_message_says_which_limit_ended_the_game() -> None:
    """RM-X1: after five quiet rounds with contracts left and ten with the deck spent the
    game ends by the deck-spent limit, and the log says so: 15 quiet rounds, the last 10
    with the deck spent (not only "15 rounds", which is neither limit)."""
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    table.play(["place A"])
    table.play(["place A"])
    table.state["quiet_rounds"] = 5  # five quiet rounds while cards were left
    table.state["deck"] = []
    while table.to_act() is not None:
        table.play([])
    assert table.state["quiet_rounds"] == 15 and table.state["quiet_empty"] == 10
    assert ("No score has changed for 15 rounds, the last 10 of them with the contract deck "
            "spent: by the stall rule (10 such rounds once the deck is spent) the game is "
            "over.") in table.state["log"]


def test_rm_x1_the_twenty_round_stall_names_its_limit() -> None:
    assert quiet_rounds_until_over(empty_deck=False) == STALLED_ROUNDS
    table = LocalTable(GAME, ["ann", "bob"], seed=b"stall")
    table.play(["place A"])
    table.play(["place A"])
    table.state["quiet_rounds"] = STALLED_ROUNDS - 2
    while table.to_act() is not None:
        table.play([])
    assert ("No score has changed for 20 rounds: by the stall rule (20 such rounds) the game "
            "is over.") in table.state["log"]
