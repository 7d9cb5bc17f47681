"""Cleanup and seasons (STS-CL1..CL5), the end of the game and final scoring (STS-G1..G4)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sts_helpers import begin, clean, move_train, play, quick_turn, resolve_all, started, table

from pbem.game import IllegalMoveError
from pbem.protocol.state import result
from pbem.protocol.timekeeping import absence
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.scoring import outcome


def _worked(state: dict, start: str = "omaha", to: str = "denver") -> dict:
    """Seat 0 has travelled from ``start`` and worked; ready for cleanup."""
    move_train(state, 1, "boston")
    begin(state, 0, start)
    play(state, 0, f"travel {to}", "work cash")
    return state


def test_STS_CL1_a_bag_token_goes_onto_the_city_the_turn_began_in() -> None:
    state = _worked(started(2))
    assert state["map"]["omaha"]["token"] == ""
    GAME.end_turn(state, 0)
    assert state["pending"] == [{"kind": "token", "city": "omaha"}]  # drawn by the next beacon
    clean(state)
    bag = set(state["bag"])
    resolve_all(state)
    spot = state["map"]["omaha"]
    assert spot["token"] in bag and spot["gold"] is False
    assert state["current"] == 1
    clean(state)


def _last_of_season(state: dict, tid: str | None = None) -> None:
    """One token still to come this season (``tid`` when given: the rest of the group,
    never to be drawn, goes to the box)."""
    if tid is not None:
        state["box"] += [t for t in state["bag"] if t != tid]
        state["box"].sort()
        state["bag"] = [tid]
    state["bag_left"] = 1


def test_sts_cl2_the_season_ends_when_its_last_token_is_drawn() -> None:
    """STS-CL2 (the literal reading): the cleanup draw that takes the last token out of
    the bag ends the season; the draw is made by the next player's beacon, and the
    season ends with it, before that player's turn."""
    state = _worked(started(2))
    _last_of_season(state)
    GAME.end_turn(state, 0)
    assert state["pending"] == [{"kind": "token", "city": "omaha"}] and state["bag_left"] == 0
    resolve_all(state)
    assert state["data"]["tokens"][state["map"]["omaha"]["token"]]["season"] == "summer"
    assert state["season"] == "autumn" and state["current"] == 1
    assert state["bag"] and all(state["data"]["tokens"][t]["season"] == "autumn" for t in state["bag"])
    assert state["bag_left"] == len(state["bag"]) - state["removal"]["autumn"]
    clean(state)


def test_STS_CL3_supplies_and_railcars_on_the_map_turn_gold_orders_stay() -> None:
    """The token the season's last draw placed is on the map when the season ends, so a
    supply or railcar drawn last turns gold with the rest."""
    state = _worked(started(2))
    kinds = state["data"]["tokens"]
    supply = next(t for t in state["bag"] if kinds[t]["kind"] == "supply")
    _last_of_season(state, supply)
    before = {c: dict(s) for c, s in state["map"].items()}
    GAME.end_turn(state, 0)
    resolve_all(state)
    assert state["map"]["omaha"] == {"token": supply, "gold": True}
    for city, spot in state["map"].items():
        if city != "omaha":
            assert spot["token"] == before[city]["token"]  # every token stays put
        if spot["token"]:
            assert spot["gold"] == (kinds[spot["token"]]["kind"] != "order")
    clean(state)


def test_STS_CL4_seasons_follow_summer_autumn_winter_countdown() -> None:
    state = _worked(started(3))
    removal = state["removal"]
    seen = [state["season"]]
    for _ in range(3):
        _last_of_season(state)
        GAME.end_turn(state, state["current"])
        resolve_all(state)
        seen.append(state["season"])
        assert all(state["data"]["tokens"][t]["season"] == state["season"] for t in state["bag"])
        # The whole group is in the bag; the removed ones just never come out.
        assert state["bag_left"] == len(state["bag"]) - removal.get(state["season"], 0)
        quick_turn_until_cleanup(state)
    assert seen == ["summer", "autumn", "winter", "countdown"]


def quick_turn_until_cleanup(state: dict) -> None:
    """Play the current seat's moves but leave the cleanup to the caller."""
    seat = state["current"]
    while not GAME.can_end_turn(state, seat):
        legal = GAME.legal_moves(state, seat)
        move = next(m for m in legal if m.startswith(("route keep", "route take", "travel", "work cash")))
        GAME.apply(state, seat, move)


def _to_winters_last_token(players: int) -> dict:
    """A real game, each player's first turn played, then winter with one token to come."""
    state = started(players)
    for _ in range(players):
        quick_turn(state)
    state["box"] += state["bag"]
    for season in ("autumn", "winter"):
        state["box"] += state["waiting"].pop(season)
    state["box"].sort()
    state["bag"] = [state["box"].pop()]  # a winter token (the box is sorted: wi- last)
    state["season"], state["bag_left"] = "winter", 1
    clean(state)
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sts_cl5_after_the_countdown_warning_every_player_plays_one_last_turn(players: int) -> None:
    """STS-CL5 made true by the literal STS-CL2: the cleanup drawing winter's last token
    fills the bag with the countdown tokens (one per player), and then every player, the
    one who drew it included, plays exactly one more turn, each placing one."""
    state = _to_winters_last_token(players)
    trigger = state["current"]
    quick_turn(state)
    assert state["season"] == "countdown" and state["final_round"]
    assert len(state["bag"]) == state["bag_left"] == players
    assert "LAST ROUND" in GAME.render(GAME.view(state, None))
    assert any("every player now plays one last turn" in n for n in state["notes"])
    after: list[int] = []
    while GAME.to_act(state) is not None:
        assert len(after) < players, "the game went on past the countdown"
        after.append(state["current"])
        quick_turn(state)
    assert after == [(trigger + 1 + i) % players for i in range(players)]
    assert state["bag"] == [] and state["over"]
    clean(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_STS_G1_the_game_ends_after_the_last_countdown_token_is_placed(players: int) -> None:
    state = _to_winters_last_token(players)
    quick_turn(state)
    countdown = set(state["bag"])
    while GAME.to_act(state) is not None:
        quick_turn(state)
    # Every countdown token of this player count is on the board.
    on_map = {spot["token"] for spot in state["map"].values()}
    assert countdown <= on_map and len(countdown) == players
    assert GAME.to_act(state) is None and GAME.legal_moves(state, 0) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        GAME.apply(state, 0, "work cash")
    assert outcome(state) is not None
    clean(state)


def test_STS_G2_one_point_per_two_coal_and_per_four_dollars_remainders_dropped() -> None:
    state = started(2)
    state["over"] = True
    a, b = state["players"]
    a.update(cash=7, coal=3, points=10)
    a["score"]["orders"] = 10
    b.update(cash=3, coal=1, points=0)
    result = GAME.outcome(state)
    assert result is not None
    assert result.scores == {0: 10 + 1 + 1, 1: 0}
    assert result.breakdown[0] == {"orders": 10, "routes": 0, "supplies": 0, "cabooses": 0,
                                   "coal": 1, "cash": 1}


def test_STS_G3_goods_tickets_and_crews_score_nothing() -> None:
    state = started(2)
    state["over"] = True
    rich = state["players"][0]
    rich["goods"]["steel"] = 8
    rich["tickets"]["north"] = ["wi-o01"]
    rich["crews"]["west"] = "fireman"
    rich["wilds"] = ["start-seattle"]
    result = GAME.outcome(state)
    assert result is not None and result.scores[0] == result.scores[1]


def test_STS_G4_ties_go_to_cash_then_coal_else_shared() -> None:
    state = started(3)
    state["over"] = True
    for player, (cash, coal, points) in zip(state["players"], [(4, 2, 9), (8, 0, 9), (4, 2, 9)],
                                            strict=True):
        player.update(cash=cash, coal=coal, points=points)
        player["score"]["routes"] = points
    result = GAME.outcome(state)
    assert result is not None
    # All score 11: bob has most cash; ann and cy tie on cash and coal and share.
    assert set(result.scores.values()) == {11}
    assert result.ranking == [[1], [0, 2]]
    assert result.tiebreak_names == ["cash", "coal"]
    state["players"][2]["coal"] = 4  # 12 points for cy now
    assert GAME.outcome(state).ranking[0] == [2]  # type: ignore[union-attr]
    state["players"][2].update(coal=2, cash=5)  # still 11, more cash than ann
    assert GAME.outcome(state).ranking == [[1], [2], [0]]  # type: ignore[union-attr]


def test_STS_G4_a_shared_win_is_the_rankings_so_a_resignation_ranks_it_anew() -> None:
    """ann and cy tie for first after cash and coal, and cy resigned: cy ranks last, ann
    wins alone, and no line of the result still calls it a shared win (the game's own
    note once did, after the engine had ranked cy last)."""
    state = started(3)
    for player, (cash, coal, points) in zip(state["players"], [(4, 2, 9), (0, 0, 3), (4, 2, 9)],
                                            strict=True):
        player.update(cash=cash, coal=coal, points=points)
        player["score"]["routes"] = points
    assert GAME.score_now(state).ranking == [[0, 2], [1]]
    table = SimpleNamespace(game=GAME, resigned=2, dropped=[], stopped=False,
                            seats=[SimpleNamespace(handle=h) for h in state["seats"]])
    out = absence.outcome(table, state)  # type: ignore[arg-type]
    assert out.ranking == [[0], [1], [2]]
    names = state["seats"]
    words = result.winner_words({"ranking": [[names[s] for s in g] for g in out.ranking],
                                 "scores": {names[s]: v for s, v in out.scores.items()}})
    assert words == f"Winner: {names[0]} with 11 points"
    assert not [n for n in out.notes if "win" in n.lower()], out.notes


def test_sts_cl2_season_change_in_a_real_game_comes_before_the_next_turn() -> None:
    """Play a 2-player game until a cleanup draws summer's last token: the next player's
    turn already sees the gold faces and the autumn bag (not one turn later)."""
    t = table(2, b"seasons")
    state = t.state
    while state["bag_left"] > 1:
        quick_turn(state)
    assert state["season"] == "summer"
    start = state["players"][state["current"]]["city"]
    quick_turn_until_cleanup(state)
    GAME.end_turn(state, state["turn"]["seat"])
    assert state["bag_left"] == 0 and state["season"] == "summer"  # the draw is pending
    resolve_all(state)  # the next player's beacon: the last summer token comes out
    assert state["season"] == "autumn" and not state["final_round"]
    assert state["turn"]["phase"] in ("choose", "market")  # before the next player's moves
    kinds = state["data"]["tokens"]
    assert kinds[state["map"][start]["token"]]["season"] == "summer"
    for spot in state["map"].values():
        if spot["token"] and kinds[spot["token"]]["kind"] != "order":
            assert spot["gold"]
    quick_turn(state)  # that player's cleanup draws the first autumn token
    drawn = [spot for city, spot in state["map"].items() if spot["token"] in kinds
             and kinds[spot["token"]]["season"] == "autumn"]
    assert len(drawn) == 1 and drawn[0]["gold"] is False  # drawn on its starting face
    clean(state)


def test_STS_CL1_the_draw_waits_for_the_next_players_beacon() -> None:
    t = table(2, b"timing")
    seat = t.to_act()
    start = t.state["players"][seat]["city"]
    here = t.state["data"]["cities"][start]["track"]
    trains = {p["city"] for p in t.state["players"]}
    t.play(["route keep 1", f"travel {next(c for c in here if c not in trains)}", "work cash"])
    assert [r["kind"] for r in t.state["pending"]] == ["token"]  # public, not yet drawn
    assert t.state["map"][start]["token"] == ""
    t.legal_moves()  # the next player opens the save: their beacon resolves it
    assert t.state["pending"] == [] and t.state["map"][start]["token"]
