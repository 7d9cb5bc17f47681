"""Notation: friendly input, canonical output, and the errors for bad input; render."""

from __future__ import annotations

import pytest
from sts_helpers import begin, give_crew, move_train, no_routes, play, set_purse, started, table

from pbem.game import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.abilities import ABILITIES


@pytest.fixture()
def market() -> dict:
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, "dallas")
    no_routes(state, 0)
    set_purse(state, 0, cash=30, coal=5)
    return state


@pytest.mark.parametrize(("typed", "canonical"), [
    ("buy oil x2", "buy oil x2"),
    ("Buy 2 Oil", "buy oil x2"),
    ("buy oil", "buy oil x2"),
    ("import grain x 4", "buy grain x4"),
    ("buy coal", "buy coal x1"),
    ("BUY   COAL  X3", "buy coal x3"),
    ("buy 3 coal", "buy coal x3"),
    ("travel Oklahoma City", "travel oklahoma-city (free)"),
    ("go okla", "travel oklahoma-city (free)"),
    ("go to houston", "travel houston (free)"),
    ("travel to New Orleans", "travel new-orleans (1 coal)"),
    ("travel new-orleans for 1 coal", "travel new-orleans (1 coal)"),
    ("travel el-paso (free)", "travel el-paso (free)"),
    ("travel new-orleans via houston", "travel new-orleans via houston (1 coal)"),
    ("travel via houston new-orleans", "travel new-orleans via houston (1 coal)"),
    ("travel houston new orleans", "travel new-orleans via houston (1 coal)"),
    ("travel to st louis via okla", "travel st-louis via oklahoma-city (1 coal)"),
    ("travel dallas houston new orleans", "travel new-orleans via houston (1 coal)"),
    ("travel new-orleans via dallas houston", "travel new-orleans via houston (1 coal)"),
    ("move El Paso", "travel el-paso (free)"),
    ("drop Grain", "discard grain"),
    ("work $5", "work cash"),
    ("work 2 coal", "work coal"),
    ("work mixed", "work both"),
    ("work 1 coal and $2", "work both"),
    ("take supply", "supply"),
    ("RAILCAR", "railcar"),
    ("keep 2", "route keep 2"),
    ("take blind", "route take blind"),
    ("route take deck", "route take blind"),
    ("route display 1", "route take display 1"),
    ("hire basic w", "hire basic west"),
    ("hire skilled North keep old", "hire skilled north keep old"),
    ("hire skilled north keep new", "hire skilled north"),
    ("pay north crew", "pay north-crew"),
    ("pay s-crew", "pay south-crew"),
    ("pay Wild", "pay wild"),
    ("caboose", "caboose"),
    ("crew fireman", "crew fireman"),
])
def test_friendly_input_normalizes_to_the_canonical_move(market: dict, typed: str, canonical: str) -> None:
    assert GAME.normalize(market, 0, typed) == canonical


def test_crew_names_and_arguments_are_read_by_what_the_ability_takes(market: dict) -> None:
    give_crew(market, 0, "coal-broker", "north")
    give_crew(market, 0, "conductor", "south")
    give_crew(market, 0, "porter", "east")
    give_crew(market, 0, "surveyor", "west")
    assert GAME.normalize(market, 0, "crew coal broker") == "crew coal-broker"
    assert GAME.normalize(market, 0, "use conductor 2 1") == "crew conductor 2 display 1"
    assert GAME.normalize(market, 0, "crew porter Oil") == "crew porter oil"
    assert GAME.normalize(market, 0, "crew surveyor El Paso") == "crew surveyor el-paso"


@pytest.mark.parametrize(("typed", "message"), [
    ("", "an empty move"),
    ("fly denver", "unknown move 'fly'"),
    ("buy", "write 'buy coal x2'"),
    ("buy unicorn x2", "no good called 'unicorn'"),
    ("buy oil xx", "write 'buy coal x2'"),
    ("travel", "say where the train goes"),
    ("go to", "say where the train goes"),
    ("travel denver via", "name the cities after 'via'"),
    ("travel atlantis", "no city called 'atlantis'"),
    ("discard", "discard one good at a time"),
    ("work hard", "work for coal, cash, both"),
    ("hire wizard west", "hire basic <region>"),
    ("hire basic west give west", "'hire basic west keep old'"),
    ("hire basic west pay west", "'hire basic west', 'pay west'"),
    ("pay", "name the ticket you pay"),
    ("pay west east", "pay one ticket per move"),
    ("hire basic mars", "no region called 'mars'"),
    ("route keep", "write 'route keep 1'"),
    ("route keep one", "'one' is not a number"),
    ("caboose pay north south east west", "'caboose', 'pay north'"),
    ("crew", "name the crew"),
    ("crew wizard", "no crew called 'wizard'"),
    ("order steel", "write 'order'"),
    ("supply now", "takes nothing more"),
])
def test_bad_syntax_is_an_invalid_move(market: dict, typed: str, message: str) -> None:
    with pytest.raises(InvalidMoveError) as caught:
        GAME.normalize(market, 0, typed)
    assert message in str(caught.value)


def test_ambiguous_input_names_the_choices(market: dict) -> None:
    with pytest.raises(AmbiguousMoveError, match="new-orleans, new-york"):
        GAME.normalize(market, 0, "travel new")
    with pytest.raises(AmbiguousMoveError, match="could be the crew coal-baron, coal-broker"):
        GAME.normalize(market, 0, "crew coal")


@pytest.mark.parametrize(("move", "reason"), [
    ("buy coal x9", "may store at most 9"),
    ("travel dallas", "at least 1 space"),
    ("travel boston", "spaces away"),
    ("travel denver via houston", "no track from Houston to Denver"),
    ("travel oklahoma-city (1 coal)", "(1 space) is free; to pay more, name a longer path"),
    ("travel new-orleans via houston (2 coal)", "that path is 2 spaces and costs 1 coal, not 2 coal"),
    ("route take blind", "no new route card is owed"),
    ("order", "comes after the train has travelled"),
    ("supply", "comes after the train has travelled"),
    ("hire basic west", "after the station action: first travel (travel <city>), then take the station"),
    ("caboose", "after the station action"),
    ("pay west", "after choosing a crew to hire or the caboose"),
    ("crew fireman", "you have not hired the fireman"),
    ("route keep 1", "once, at the head of your first turn"),
    ("discard oil", "carries no oil"),
])
def test_illegal_moves_say_why(market: dict, move: str, reason: str) -> None:
    with pytest.raises(IllegalMoveError) as caught:
        GAME.apply(market, 0, GAME.normalize(market, 0, move))
    assert reason in str(caught.value)


def test_moves_out_of_turn_are_refused() -> None:
    t = table(2)
    other = 1 - t.to_act()
    assert GAME.legal_moves(t.state, other) == []
    with pytest.raises(IllegalMoveError, match="not seat"):
        GAME.apply(t.state, other, "route keep 1")
    with pytest.raises(IllegalMoveError, match="not seat"):
        GAME.end_turn(t.state, other)


def test_end_turn_says_what_is_owed(market: dict) -> None:
    with pytest.raises(IllegalMoveError, match="must travel at least 1 space"):
        GAME.end_turn(market, 0)
    play(market, 0, "travel houston")
    with pytest.raises(IllegalMoveError, match="take a station action"):
        GAME.end_turn(market, 0)


def test_notation_documents_every_move_form_and_every_crew() -> None:
    text = GAME.notation()
    for form in ("route keep 1", "buy coal x2", "buy oil x2", "discard grain", "travel denver",
                 "route take display 1", "route take blind", "order cash", "order cash pay oil",
                 "supply", "railcar", "work coal", "hire basic west", "hire skilled north",
                 "keep old", "caboose", "pay west", "north-crew", "wild"):
        assert form in text, form
    for ability in ABILITIES:
        assert f"crew {ability}" in text, ability


def test_render_shows_the_board_players_and_pending_chance() -> None:
    t = table(3, b"render")
    t.play(["route keep 1", _first_travel(t), "work cash"])
    text = GAME.render(t.view(0))
    for fact in ("STATION TO STATION", "To act:", "ann", "bob", "cy", "Oklahoma City", "Route display",
                 "Crew market", "Cabooses", "token draw onto", "tickets:"):
        assert fact in text, fact
    assert "you" in next(line for line in text.splitlines() if line.startswith("ann ("))
    assert "you" not in GAME.render(t.view(None)).split("Cabooses")[1].split("Recent")[0]


def _first_travel(t: object) -> str:
    state = t.state  # type: ignore[attr-defined]
    here = state["players"][state["current"]]["city"]
    trains = {p["city"] for p in state["players"]}
    return "travel " + next(c for c in state["data"]["cities"][here]["track"] if c not in trains)


def test_render_before_the_deal_and_after_the_end() -> None:
    fresh = GAME.setup(["ann", "bob"], {}, GAME.stock_components())
    assert "Waiting for the set-up deal" in GAME.render(GAME.view(fresh, None))
    assert "set-up deal" in GAME.render(GAME.view(fresh, None))
    state = started(2)
    state["over"], state["turn"] = True, {}
    text = GAME.render(GAME.view(state, 1))
    assert "The game is over." in text and "To act" not in text
