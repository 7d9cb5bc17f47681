"""The market phase (STS-M2..M9)."""

from __future__ import annotations

import pytest
from sts_helpers import begin, clean, lift, play, set_purse, started

from pbem.game import IllegalMoveError
from pbem_games.station_to_station import GAME


def _at(city: str, cash: int = 20, coal: int = 2, goods: dict[str, int] | None = None) -> dict:
    state = begin(started(2), 0, city)
    set_purse(state, 0, cash=cash, coal=coal, goods=goods or {})
    return state


def _player(state: dict) -> dict:
    return state["players"][0]


def test_STS_M9_market_example_two_oil_and_two_imported_grain() -> None:
    """Jess buys 2 oil (local) and 2 grain (imported): $8 and 1 coal."""
    state = _at("dallas", cash=10, coal=2)  # Dallas sells oil and cattle, not grain
    play(state, 0, "buy oil x2", "buy grain x2")
    player = _player(state)
    assert (player["cash"], player["coal"]) == (2, 1)
    assert player["goods"] == {"grain": 2, "cattle": 0, "oil": 2, "steel": 0}
    clean(state)


def test_STS_M2_any_mix_any_order_repeated_or_nothing() -> None:
    state = _at("dallas", cash=40, coal=3)
    play(state, 0, "buy coal x1", "buy cattle x2", "buy grain x2", "buy coal x2", "buy cattle x2")
    assert _player(state)["goods"]["cattle"] == 4 and _player(state)["goods"]["grain"] == 2
    # Buying nothing is fine: travel straight away.
    idle = _at("dallas")
    play(idle, 0, "travel houston", "work cash")
    assert GAME.can_end_turn(idle, 0)


def test_STS_M3_coal_at_3_dollars_up_to_9_and_overflow_lost() -> None:
    state = _at("dallas", cash=30, coal=5)
    assert "buy coal x4" in GAME.legal_moves(state, 0)
    assert "buy coal x5" not in GAME.legal_moves(state, 0)
    with pytest.raises(IllegalMoveError, match="may store at most 9"):
        GAME.apply(state, 0, "buy coal x5")
    play(state, 0, "buy coal x4")
    assert (_player(state)["cash"], _player(state)["coal"]) == (18, 9)
    poor = _at("dallas", cash=5, coal=0)
    with pytest.raises(IllegalMoveError, match=r"2 coal costs \$6 and you have \$5"):
        GAME.apply(poor, 0, "buy coal x2")
    # Coal received past 9 from any source is lost.
    play(state, 0, "travel houston", "work coal")
    assert _player(state)["coal"] == 9 and _player(state)["ledger"]["coal_lost"] == 2
    clean(state)


def test_STS_M4_goods_in_pairs_at_the_standard_pair_price() -> None:
    state = _at("dallas", cash=20)
    with pytest.raises(IllegalMoveError, match="bought in pairs"):
        GAME.apply(state, 0, "buy oil x3")
    play(state, 0, "buy oil x4")
    assert _player(state)["cash"] == 20 - 2 * state["data"]["goods"]["oil"]
    assert _player(state)["goods"]["oil"] == 4


def test_STS_M5_eight_freight_cars_railcars_and_caboose_do_not_count() -> None:
    state = _at("dallas", cash=40, goods={"cattle": 6})
    player = _player(state)
    player["railcars"] = [{"id": t, "gold": False} for t in ("su-r29", "su-r30", "su-r31")]
    for tid in ("su-r29", "su-r30", "su-r31"):
        lift(state, tid)
    player["caboose"] = state["cabooses"].pop(0)
    play(state, 0, "buy oil x2")  # 6 goods + 2: the railcars and the caboose take no car
    assert sum(player["goods"].values()) == 8
    with pytest.raises(IllegalMoveError, match="8 freight cars are full"):
        GAME.apply(state, 0, "buy oil x2")


def test_STS_M6_a_pair_that_does_not_fit_loads_short_or_goods_are_thrown_off() -> None:
    state = _at("dallas", cash=20, goods={"grain": 7})
    play(state, 0, "buy oil x2")  # one car free: 1 oil loads, the full pair is paid
    player = _player(state)
    assert player["goods"]["oil"] == 1 and player["cash"] == 20 - state["data"]["goods"]["oil"]
    # Full now: throw goods off to make room for the next pair.
    assert "discard grain" in GAME.legal_moves(state, 0)
    play(state, 0, "discard grain", "discard grain", "buy cattle x2")
    assert player["goods"] == {"grain": 5, "cattle": 2, "oil": 1, "steel": 0}
    with pytest.raises(IllegalMoveError, match="only to make room"):
        GAME.apply(_at("dallas", goods={"grain": 2}), 0, "discard grain")
    clean(state)


def test_STS_M7_imports_cost_one_coal_more_per_pair_and_new_coal_pays() -> None:
    state = _at("dallas", cash=20, coal=0)
    with pytest.raises(IllegalMoveError, match="grain is not sold at Dallas: importing 2 costs 1 coal"):
        GAME.apply(state, 0, "buy grain x2")
    play(state, 0, "buy coal x1", "buy grain x2")  # coal bought this turn pays the import
    assert (_player(state)["coal"], _player(state)["goods"]["grain"]) == (0, 2)
    two_pairs = _at("dallas", cash=20, coal=2)
    play(two_pairs, 0, "buy steel x4")
    assert _player(two_pairs)["coal"] == 0  # 1 coal per imported pair


def test_STS_M8_nothing_is_bought_once_the_train_has_moved() -> None:
    state = _at("dallas", cash=20)
    play(state, 0, "travel houston")
    for move in ("buy oil x2", "buy coal x1"):
        with pytest.raises(IllegalMoveError, match="before the train moves"):
            GAME.apply(state, 0, move)
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith("buy")]
