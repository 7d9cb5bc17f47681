"""What a player must see (issue 9): every public fact in `show`, text and JSON.

Missing before: your own crews' ability text, the route discard pile, the cost to reach
each city, which token was boxed at a stop, and how many tokens each later season holds."""

from __future__ import annotations

import json

from sts_helpers import (
    begin,
    give_crew,
    move_train,
    no_routes,
    place,
    play,
    resolve_all,
    set_purse,
    started,
    token_ids,
)

from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.abilities import ABILITIES


def _position(coal: int = 1) -> dict:
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, "seattle")
    no_routes(state, 0)
    set_purse(state, 0, coal=coal)
    return state


def _text(state: dict, seat: int | None) -> str:
    return GAME.render(GAME.view(state, seat))


def test_show_gives_your_own_crews_ability_text() -> None:
    state = _position()
    give_crew(state, 0, "fireman", "west")
    view = GAME.view(state, 0)
    assert view["crew_text"]["fireman"] == ABILITIES["fireman"].text
    assert f"fireman: {ABILITIES['fireman'].text}" in _text(state, 0)
    json.dumps(view)


def test_show_lists_the_route_discards_face_up() -> None:
    state = _position()
    state["routes"]["deck"].remove("seattle--denver")
    state["routes"]["discards"] = ["seattle--denver"]
    text = _text(state, 1)
    assert "Route deck 27, discards 1 (face up):\n  Seattle - Denver: " in text


def test_STS_T3_show_gives_the_cost_to_reach_each_city() -> None:
    state = _position(coal=1)
    view = GAME.view(state, 0)
    assert view["reach"][0] == {"helena": 0, "minneapolis": 1, "portland": 0,
                                "san-francisco": 1, "salt-lake-city": 1}
    assert list(view["reach"][0]) == ["portland", "san-francisco", "salt-lake-city", "helena",
                                      "minneapolis"]  # map order
    assert ("travel now from Seattle with 1 coal (cheapest paths; a longer one: travel CITY via "
            "CITY ...): free: Portland, Helena; 1 coal: San Francisco, Salt Lake City, Minneapolis"
            ) in " ".join(_text(state, 0).split())
    # A crew's free space counts for the seat moving now.
    give_crew(state, 0, "fireman", "west")
    play(state, 0, "crew fireman")
    assert GAME.view(state, 0)["reach"][0]["denver"] == 1
    # Another seat sees the reach its next turn would have.
    other = GAME.view(state, 1)["reach"][1]
    assert other["albany"] == 0 and other["new-york"] == 0 and "boston" not in other


def test_show_says_which_token_was_boxed_at_a_stop() -> None:
    state = _position()
    supply = token_ids(state, kind="supply")[0]
    place(state, "portland", supply)
    play(state, 0, "travel portland", "supply")
    assert state["boxed"] == [{"token": supply, "gold": False, "city": "portland", "seat": 0}]
    text = _text(state, 1)
    assert "Boxed at stops this season (1):\n  Portland: supply " in text
    state["bag_left"] = 1
    GAME.end_turn(state, 0)
    resolve_all(state)  # the season's last token is drawn: it ends, a new list begins
    assert state["boxed"] == [] and state["season"] == "autumn"
    assert "Boxed at stops" not in _text(state, 1)


def test_show_gives_how_many_tokens_each_later_season_holds() -> None:
    state = _position()
    view = GAME.view(state, None)
    expected = {season: len(state["waiting"][season]) - state["removal"].get(season, 0)
                for season in ("autumn", "winter", "countdown")}
    assert expected["countdown"] == 2  # one per player: never removed (STS-S1)
    assert view["seasons_ahead"] == expected
    later = ", ".join(f"{s} {n}" for s, n in expected.items())
    assert f"later seasons' tokens: {later})" in _text(state, None)


def test_sts_t9_the_text_map_names_both_trains_in_a_taken_city() -> None:
    """STS-T9: a train stopping where another stands must move on; until it does, the
    city holds two trains and the map names both."""
    state = started(2)
    move_train(state, 1, "st-louis")
    begin(state, 0, "oklahoma-city")
    no_routes(state, 0)
    play(state, 0, "travel st-louis")
    assert state["turn"]["phase"] == "again"
    line = next(x for x in _text(state, None).splitlines() if x.strip().startswith("St. Louis"))
    assert "TRAINS ann and bob" in line
    line = next(x for x in _text(state, None).splitlines() if x.strip().startswith("Oklahoma City"))
    assert "TRAIN" not in line
    play(state, 0, "travel memphis")
    lines = _text(state, None).splitlines()
    assert "TRAIN bob" in next(x for x in lines if x.strip().startswith("St. Louis"))
    assert "TRAIN ann" in next(x for x in lines if x.strip().startswith("Memphis"))


def test_sts_c12_show_gives_the_ability_text_of_every_hired_crew() -> None:
    """Crews are public and act at any moment of their owner's turn (STS-C12): the text
    view and the picture give every player's hired crews with their ability text."""
    from tests.support.boards import by_id, parse, text_of

    state = _position()
    give_crew(state, 0, "fireman", "west")
    give_crew(state, 1, "surveyor", "north")
    for viewer in (0, 1, None):
        text = " ".join(_text(state, viewer).split())
        for crew in ("fireman", "surveyor"):
            assert f"{crew}: {ABILITIES[crew].text}" in text, (viewer, crew)
        root = parse(GAME.render_svg(GAME.view(state, viewer)) or "")
        for seat, crew in ((0, "fireman"), (1, "surveyor")):
            card = " ".join(text_of(by_id(root, f"player-{seat}")).split())
            name = state["data"]["crews"][crew]["name"]
            assert f"{name}: {ABILITIES[crew].text}" in card, (viewer, crew)
