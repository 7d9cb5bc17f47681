"""Refusals the clause tests do not reach, each with the words a player reads."""

from __future__ import annotations

import pytest
from rdj_helpers import act, card_of, clean, give_card, new_game, put, stock, to_display

from pbem.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.state import card, tile


def without(state: dict, seat: int, ctype: str) -> None:
    """Take a player's starting crew of a type back to the box (tests only)."""
    crew = state["players"][seat]["crew"]
    crew[:] = [c for c in crew if card(state, c)["type"] != ctype]


def test_buying_with_alternatives_you_cannot_afford() -> None:
    state = new_game(2)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    with pytest.raises(IllegalMoveError, match=f"{outlaw} costs 2 ruby or 3 gold from your "
                                               "storage, which holds 1 gold and 0 ruby"):
        act(state, f"buy {outlaw}")
    with pytest.raises(IllegalMoveError, match="costs 3 gold from your storage, which holds 1"):
        act(state, f"buy {outlaw} pay gold")
    to_display(state, "mayor")
    with pytest.raises(IllegalMoveError, match="mayor cannot be paid with gold"):
        act(state, "buy mayor pay gold")


def test_taxi_to_the_same_dock_and_empty_deal_stacks() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "junction 2"
    with pytest.raises(IllegalMoveError, match="already at Junction dock 2"):
        act(state, "taxi 2")
    state["players"][0]["at"] = "shop"
    state["players"][1]["deals"] += state["stacks"]["8"]
    state["stacks"]["8"] = []
    with pytest.raises(IllegalMoveError, match="The 8-gold stack is empty"):
        act(state, "deal 8")
    assert GAME.normalize(state, 0, "deal") == "deal 6"  # the only stack left
    top = state["stacks"]["6"][0]
    put(state, 0, "ship", **tile(state, top)["cost"])
    assert "deal 6" in GAME.legal_moves(state, 0)
    clean(state)


def test_load_unload_refusals() -> None:
    state = new_game(2)
    put(state, 0, "ship", scrap=1)
    put(state, 0, "storage", scrap=1)
    with pytest.raises(IllegalMoveError, match="Your ship holds 1 scrap, not 2 gold"):
        act(state, "unload gold x2")
    with pytest.raises(IllegalMoveError, match="Scrap cannot be loaded and unloaded at once"):
        act(state, "unload scrap load scrap")
    assert "unload all" in GAME.legal_moves(state, 0)
    assert "unload scrap" not in GAME.legal_moves(state, 0)  # that is `unload all`


def test_crew_refusals_without_the_crew() -> None:
    state = new_game(2)
    for ctype in ("agent", "miner", "scavenger"):
        without(state, 0, ctype)
    state["players"][0]["at"] = "junction 1"
    with pytest.raises(IllegalMoveError, match="You have no agents"):
        act(state, "adjust scrap +1")
    state["players"][0]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="You have no miners"):
        act(state, "mine")
    state["players"][0]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="You have no scavengers"):
        act(state, "salvage scrap")
    assert GAME.legal_moves(state, 0)[0] == "pass"
    assert not any(m.split()[0] in ("mine", "salvage", "trade") for m in GAME.legal_moves(state, 0))


def test_swap_and_trade_refusals() -> None:
    state = new_game(2)
    give_card(state, 0, card_of(state, "outlaw"))
    state["players"][0]["at"] = state["players"][1]["at"] = "space"
    put(state, 1, "ship", gold=1)
    with pytest.raises(IllegalMoveError, match="Swap with another ship, not your own"):
        act(state, "swap me give gold take gold")
    with pytest.raises(IllegalMoveError, match="Your ship holds nothing, not 1 scrap"):
        act(state, "swap bob give scrap take gold")
    state["players"][0]["at"] = "junction 1"
    put(state, 0, "ship", scrap=6)
    with pytest.raises(IllegalMoveError, match="Trade one good for another"):
        act(state, "trade scrap:scrap")


def test_jettison_goods_not_aboard() -> None:
    state = new_game(2)
    put(state, 0, "ship", scrap=5)
    act(state, "pass", "pass")
    with pytest.raises(IllegalMoveError, match="Your ship holds 5 scrap, not 1 gold"):
        act(state, "jettison gold")


def test_names_that_fit_several_ships_or_cards() -> None:
    state = GAME.setup(["bob", "bobby"], {"variant": "standard"}, stock())
    state["seats"] = ["bob", "bobby"]
    GAME.resolve(state, state.pop("pending")[0], Sampler(b"s"))
    with pytest.raises(AmbiguousMoveError, match="more than one ship"):
        GAME.normalize(state, 0, "rustle bo")
    assert GAME.normalize(state, 0, "rustle bob") == "rustle bob"
    to_display(state, "nudge-1")
    to_display(state, "navigator")
    with pytest.raises(AmbiguousMoveError, match="could be navigator, nudge-1|could be nudge-1"):
        GAME.normalize(state, 0, "buy n")
    outside = next(c for c in state["deck"] if c.startswith("sheriff"))
    assert GAME.normalize(state, 0, "buy sher") == f"buy {outside}"  # known, not on display
    with pytest.raises(IllegalMoveError, match="sheriff is not in the display"):
        GAME.apply(state, 0, "buy sheriff")


def test_counts_must_be_positive() -> None:
    state = new_game(2)
    with pytest.raises(InvalidMoveError, match="at least 1"):
        GAME.normalize(state, 0, "load 0 gold")


def test_justin_choices_must_match_his_card() -> None:
    state = new_game(1)
    to_display(state, "miner-1", last=True)
    act(state, "pass", "pass", "pass")
    GAME.end_turn(state, 0)
    GAME.resolve(state, state.pop("pending")[0], Sampler(b"j"))
    state["pending"] = []
    with pytest.raises(IllegalMoveError, match="Justin's miner docks at a planet"):
        act(state, "justin dock junction 2")


def test_justins_rascal_with_an_empty_eight_gold_stack() -> None:
    state = new_game(1)
    to_display(state, "rascal-1", last=True)
    state["players"][0]["deals"] += state["stacks"]["8"]
    state["stacks"]["8"] = []
    act(state, "pass", "pass", "pass")
    GAME.end_turn(state, 0)
    GAME.resolve(state, state.pop("pending")[0], Sampler(b"j"))
    assert state["justin"]["at"] == "shop" and state["justin"]["deals"] == []
    assert any("8-gold stack is empty" in e for e in state["last"])


def test_before_the_start_and_unknown_chance() -> None:
    state = GAME.setup(["ann", "bob"], {"variant": "standard"}, stock())
    state["seats"] = ["ann", "bob"]
    with pytest.raises(IllegalMoveError, match="has not started"):
        GAME.apply(state, 0, "pass")
    assert GAME.outcome(state) is None
    with pytest.raises(ValueError, match="unknown chance request"):
        GAME.resolve(state, {"kind": "meteor"}, Sampler(b"m"))


def test_render_shows_the_countdown_deals_and_the_end() -> None:
    state = new_game(2)
    state["players"][1]["deals"].append(state["stacks"]["6"].pop(0))
    state["end"].update(gold_fired=True, end_after=7)
    text = GAME.render(GAME.view(state, None))
    assert "the game ends after turn 7" in text and "deals: d6-1" in text
    state["phase"] = "over"
    state["end"]["reason"] = "gold"
    assert "GAME OVER (bank gold ran out)" in GAME.render(GAME.view(state, None))
    assert GAME.heuristic(state, 1) > GAME.heuristic(state, 0)  # bob leads, and won
