"""The end of the game and scoring (RDJ-G1..G4) and the FAQ answers (RDJ-F1..F10)."""

from __future__ import annotations

import pytest
from rdj_helpers import act, card_of, clean, end, give_card, hire, new_game, put, to_display

from pbem.errors import IllegalMoveError, InvalidMoveError
from pbem_games.red_dog_junction import GAME


def drain_bank(state: dict, leave: int, seat: int = 2) -> None:
    """Park the bank's gold in a storage so that ``leave`` remain."""
    put(state, seat, "storage", gold=state["bank"]["gold"] - leave)


def trading_ann(players: int = 3) -> dict:
    state = new_game(players)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    state["players"][0]["at"] = "junction 1"
    put(state, 0, "ship", scrap=3)
    return state


def test_RDJ_G1_last_bank_gold_gives_everyone_exactly_two_more_turns() -> None:
    state = trading_ann(3)
    drain_bank(state, 1)
    act(state, "trade scrap:gold")  # ann takes the bank's last gold
    assert state["bank"]["gold"] == 0 and state["end"]["gold_fired"]
    act(state, "pass")
    end(state)
    order = []
    while GAME.to_act(state) is not None:
        order.append(state["current"])
        act(state, "pass", "pass")
        end(state)
    assert order == [1, 2, 0, 1, 2, 0]  # from the next player; ann's own come last
    assert GAME.outcome(state) is not None
    assert GAME.legal_moves(state, 0) == []


def test_RDJ_G1_an_empty_bank_shows_gold_0() -> None:
    """The bank's gold at 0 is the end trigger: `show` says so in text and JSON."""
    state = new_game(2)
    drain_bank(state, 0, seat=1)
    shown = GAME.view(state, 0)
    assert shown["bank"]["gold"] == 0
    assert "Bank: gold 0, whiskey 24" in GAME.render(shown)


def test_RDJ_G1_the_trigger_fires_once() -> None:
    state = trading_ann(2)
    drain_bank(state, 1, seat=1)
    to_display(state, "nudge-1")
    act(state, "trade scrap:gold")
    end_after = state["end"]["end_after"]
    assert end_after == state["turn"] + 4
    act(state, "buy nudge-1")  # 1 gold back into the bank
    assert state["bank"]["gold"] == 1
    end(state)
    state["players"][1]["at"] = "junction 6"
    put(state, 1, "ship", scrap=3)
    act(state, "trade scrap:gold")  # the bank empties again: nothing more happens
    assert state["end"]["end_after"] == end_after
    clean(state)


def test_RDJ_G1_gold_leaving_in_a_last_turn_changes_nothing() -> None:
    state = new_game(2)
    state["end"].update(gold_fired=True, end_after=state["turn"])
    act(state, "pass", "pass")
    end(state)
    assert GAME.to_act(state) is None and state["end"]["reason"] == "gold"


def test_RDJ_G2_turning_the_decks_last_card_ends_the_game_at_once() -> None:
    state = new_game(3)
    keep = list(state["deck"][:1])
    state["discard"] += state["deck"][1:]  # leave one card in the deck
    state["deck"] = list(keep)
    target = state["display"][0]
    put(state, 0, "storage", **{g: 4 for g in ("ruby", "oxygen", "gas", "ice", "scrap",
                                                 "whiskey")})
    bought = next(m for m in GAME.legal_moves(state, 0) if m.startswith(f"buy {target}"))
    act(state, bought, "pass")
    end(state)
    assert GAME.to_act(state) is None and state["end"]["reason"] == "deck"
    assert state["deck"] == [] and keep[0] in state["display"] and state.get("pending") == []
    assert GAME.outcome(state) is not None
    clean(state)


def test_RDJ_G2_a_short_deck_leaves_the_display_short() -> None:
    state = new_game(2)
    state["discard"] += state["deck"][1:] + state["display"][4:]
    state["deck"] = state["deck"][:1]
    state["display"] = state["display"][:4]  # two gaps, one card left
    act(state, "pass", "pass")
    end(state)
    assert GAME.to_act(state) is None and len(state["display"]) == 5
    clean(state)


def test_RDJ_G2_a_refill_that_leaves_cards_is_chance_for_the_next_player() -> None:
    state = new_game(2)
    state["discard"] += state["deck"][2:] + state["display"][-1:]
    state["deck"] = state["deck"][:2]
    state["display"].pop()
    act(state, "pass", "pass")
    GAME.end_turn(state, 0)
    assert state["pending"] == [{"kind": "refill", "count": 1}]
    assert GAME.to_act(state) == 1
    clean(state)


def test_RDJ_G3_scoring_storage_gold_card_points_and_deals() -> None:
    state = new_game(2)
    player = state["players"][0]
    put(state, 0, "storage", gold=4)  # 1 + 4 in storage
    put(state, 0, "ship", gold=6)  # counts nothing
    outlaw = card_of(state, "outlaw")
    give_card(state, 0, outlaw)  # 2 points
    give_card(state, 0, "mayor")  # 5 points
    give_card(state, 0, "nudge-1")  # boosts: nothing
    player["deals"].append(state["stacks"]["6"].pop(0))  # 1 point
    state["phase"] = "over"
    state["end"]["reason"] = "gold"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.breakdown[0] == {"gold": 5, "crew": 2, "commanders": 5, "super deals": 1}
    assert outcome.scores[0] == 13 and outcome.scores[1] == 1
    assert outcome.ranking == [[0], [1]]


def test_RDJ_G4_ties_go_to_unused_boosts_then_crew() -> None:
    state = new_game(3)
    for seat in range(3):
        state["players"][seat]["storage"]["gold"] = 0
    state["bank"]["gold"] += 1 + 1 + 2
    give_card(state, 1, "nudge-1")  # bob: a boost
    hire(state, 2, "cowboy")  # cy: one more crew (1 point)
    give_card(state, 0, card_of(state, "cowboy"))  # ann: the same points as cy
    state["phase"] = "over"
    state["end"]["reason"] = "deck"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores == {0: 1, 1: 0, 2: 1}
    assert outcome.tiebreak_names == ["unused boosts", "crew cards"]
    assert outcome.ranking == [[0, 2], [1]]
    give_card(state, 2, "nudge-2")  # cy now has a boost: breaks the tie
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranking == [[2], [0], [1]]


def test_RDJ_G4_crew_count_breaks_a_tie_of_points_and_boosts() -> None:
    state = new_game(2)
    state["players"][0]["storage"]["gold"] = 1
    state["players"][1]["storage"]["gold"] = 1
    state["players"][1]["crew"].pop()  # bob has one crew fewer
    state["phase"] = "over"
    state["end"]["reason"] = "deck"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.ranking == [[0], [1]]
    assert outcome.tiebreaks == {0: [0, 6], 1: [0, 5]}


def test_RDJ_F1_boosts_score_nothing_but_count_in_ties() -> None:
    state = new_game(2)
    give_card(state, 0, "nudge-1")
    give_card(state, 0, "nudge-2")
    state["phase"] = "over"
    state["end"]["reason"] = "deck"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == {0: 1, 1: 1}
    assert outcome.ranking == [[0], [1]] and outcome.tiebreaks[0][0] == 2


def test_RDJ_F2_gold_may_be_jettisoned() -> None:
    state = new_game(2)
    put(state, 0, "ship", gold=4)
    act(state, "undock", "pass", "jettison gold")
    end(state)
    assert state["space"]["gold"] == 1
    clean(state)


def test_RDJ_F3_mining_an_empty_planet_is_refused_saying_the_supply_is_empty() -> None:
    """The rulings: an action that would gain nothing at all is refused, saying the supply
    is empty (mining an empty planet used the action and gained nothing)."""
    state = new_game(2)
    state["players"][0]["at"] = "gas"
    put(state, 1, "storage", gas=state["planets"]["gas"])
    with pytest.raises(IllegalMoveError, match=r"The gas supply \(the gas planet\) is empty: "
                                               "mining would gain nothing"):
        act(state, "mine")
    assert state["players"][0]["ship"]["gas"] == 0 and state["ts"]["actions"] == 0
    assert not any(m.startswith("mine") for m in GAME.legal_moves(state, 0))
    clean(state)


def test_RDJ_F3_a_trade_that_would_get_nothing_is_refused() -> None:
    """Paying for nothing is no trade: with the bank empty, scrap for gold is refused with
    a sentence, nothing moves, no action is used, and `moves` does not offer it."""
    state = trading_ann(2)
    drain_bank(state, 0, seat=1)
    with pytest.raises(IllegalMoveError, match=r"The gold supply \(the bank\) is empty: 3 scrap "
                                               "for gold would gain nothing"):
        act(state, "trade scrap:gold")
    assert state["players"][0]["ship"]["scrap"] == 3 and state["ts"]["actions"] == 0
    assert not any(m.startswith("trade scrap:gold") for m in GAME.legal_moves(state, 0))
    clean(state)


def test_RDJ_F3_each_trade_of_a_counted_trade_must_get_something() -> None:
    state = trading_ann(2)
    hire(state, 0, "agent")
    put(state, 0, "ship", scrap=3)
    drain_bank(state, 1, seat=1)
    with pytest.raises(IllegalMoveError, match="The bank holds 1 gold: only 1 trade of scrap "
                                               "for gold gets anything"):
        act(state, "trade scrap:gold x2")
    assert "trade scrap:gold" in GAME.legal_moves(state, 0)
    assert "trade scrap:gold x2" not in GAME.legal_moves(state, 0)
    act(state, "trade scrap:gold")
    assert state["players"][0]["ship"]["gold"] == 1 and state["bank"]["gold"] == 0
    clean(state)


def test_RDJ_F3_a_trade_the_supply_only_partly_pays_still_goes_ahead() -> None:
    """An empty supply limits a trade to what is there (the rulings); only nothing at all
    is refused."""
    state = trading_ann(2)
    state["dice"]["gold"] = 2
    drain_bank(state, 1, seat=1)
    act(state, "trade scrap:gold")
    assert state["players"][0]["ship"]["gold"] == 1 and state["players"][0]["ship"]["scrap"] == 0
    clean(state)


def test_RDJ_F3_scrap_from_an_empty_space_is_no_trade() -> None:
    """Scrap received in a trade comes from space; with none there, the trade is refused."""
    state = trading_ann(2)
    put(state, 0, "ship", whiskey=5)
    state["players"][1]["storage"]["scrap"] += state["space"]["scrap"]
    state["space"]["scrap"] = 0
    with pytest.raises(IllegalMoveError, match=r"The scrap supply \(space\) is empty: 5 whiskey "
                                               "for scrap would gain nothing"):
        act(state, "trade whiskey:scrap")
    clean(state)


def test_RDJ_F4_trading_only_at_the_junction_unless_a_card_says() -> None:
    state = new_game(2)
    put(state, 0, "ship", scrap=6)
    state["players"][0]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="Trading needs your ship docked at the Junction"):
        act(state, "trade scrap:gold")
    give_card(state, 0, "banker")
    state["dice"].update(scrap=3, gold=1)
    act(state, "command banker 1 scrap:gold")  # the card says otherwise
    assert state["players"][0]["ship"]["gold"] == 1


def test_RDJ_F5_players_never_trade_with_each_other() -> None:
    state = trading_ann(2)
    with pytest.raises(InvalidMoveError):
        act(state, "trade bob scrap:gold")
    put(state, 1, "ship", gold=2)
    act(state, "trade scrap:gold")
    assert state["players"][1]["ship"]["gold"] == 2  # the gold came from the bank


def test_RDJ_F6_the_bank_is_not_a_place() -> None:
    state = new_game(2)
    act(state, "undock")
    with pytest.raises(IllegalMoveError, match="The bank is not a place ships can visit"):
        act(state, "dock bank")
    assert not any("bank" in m for m in GAME.legal_moves(state, 0))


def test_RDJ_F7_scrap_spent_on_trades_or_cards_returns_to_space() -> None:
    state = trading_ann(2)
    space = state["space"]["scrap"]
    act(state, "trade scrap:gold")
    assert state["space"]["scrap"] == space + 3
    agent = card_of(state, "agent")
    to_display(state, agent)
    put(state, 0, "storage", scrap=3)
    space = state["space"]["scrap"]
    act(state, f"buy {agent} pay scrap")
    assert state["space"]["scrap"] == space + 3
    clean(state)


def test_RDJ_F8_any_die_includes_the_gold_die() -> None:
    state = new_game(2)
    give_card(state, 0, "nudge-1")
    assert "play nudge-1 gold +1" in GAME.legal_moves(state, 0)
    act(state, "play nudge-1 gold +1")
    assert state["dice"]["gold"] == 2


def test_RDJ_F9_the_display_cannot_be_refreshed() -> None:
    state = new_game(2)
    with pytest.raises(InvalidMoveError, match="'refresh' is not a move"):
        act(state, "refresh")
    display = list(state["display"])
    for _ in range(4):
        act(state, "pass", "pass")
        end(state)
    assert state["display"] == display
    verbs = {m.split()[0] for m in GAME.legal_moves(state, state["current"])}
    assert verbs <= {"undock", "dock", "taxi", "load", "unload", "buy", "deal", "mine", "rustle",
                     "swap", "salvage", "trade", "adjust", "play", "command", "pass"}


def test_RDJ_F10_no_limit_to_crews_and_commanders() -> None:
    state = new_game(2)
    hire(state, 0, "cowboy", 4)
    hire(state, 0, "miner", 4)
    for ident in ("mayor", "croupier", "banker", "navigator", "quartermaster", "foreman",
                  "sheriff"):
        give_card(state, 0, ident)
    assert len(state["players"][0]["crew"]) == 14
    assert len(state["players"][0]["commanders"]) == 7
    state["players"][0]["at"] = "ruby"
    act(state, "mine")
    assert state["players"][0]["ship"]["ruby"] == 5
    clean(state)
