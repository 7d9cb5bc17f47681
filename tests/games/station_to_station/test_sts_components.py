"""The representative component data: what the rulings fix, and validation of bad data."""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import pytest
from sts_helpers import SEATS

from pbem.errors import SaveFileError
from pbem.game import ComponentError
from pbem.play.local import LocalTable
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.abilities import ABILITIES

STOCK = GAME.stock_components()


def _distance(data: dict[str, Any], a: str, b: str) -> int:
    seen = {a: 0}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        for other in data["cities"][here]["track"]:
            if other not in seen:
                seen[other] = seen[here] + 1
                queue.append(other)
    return seen[b]


def _plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return isinstance(value, (str, int, bool)) and not isinstance(value, float)


def test_stock_data_is_plain_and_valid() -> None:
    assert _plain(STOCK)
    GAME.validate_components(STOCK)


def test_coastal_bonus_cities_are_the_rulebooks_seven() -> None:
    coastal = {c for c, city in STOCK["cities"].items() if city["coastal"]}
    assert coastal == {"seattle", "san-francisco", "los-angeles", "boston", "new-york",
                       "charleston", "miami"}


def test_map_matches_the_rulebook_examples() -> None:
    cities = STOCK["cities"]
    assert cities["st-louis"]["region"] == "south"
    # New Orleans - Houston - Oklahoma City is a 2-space trip through Houston.
    assert "houston" in cities["new-orleans"]["track"]
    assert "oklahoma-city" in cities["houston"]["track"]
    assert _distance(STOCK, "new-orleans", "oklahoma-city") == 2
    assert "oklahoma-city" in cities["st-louis"]["track"]


def test_every_city_has_two_neighbours_a_region_and_a_market() -> None:
    assert len(STOCK["regions"]) == 4
    for slug, city in STOCK["cities"].items():
        assert len(city["track"]) >= 2, slug
        assert city["region"] in STOCK["regions"]
        assert city["market"]
        for other in city["track"]:
            assert slug in STOCK["cities"][other]["track"]


def test_four_goods_with_pair_prices_fit_the_market_example() -> None:
    goods = STOCK["goods"]
    assert len(goods) == 4 and {"oil", "grain", "steel"} <= set(goods)
    # 2 oil + 2 grain (imported) cost $8 and 1 coal.
    assert goods["oil"]["pair_price"] + goods["grain"]["pair_price"] == 8


def test_crew_decks_have_at_least_twelve_abilities_each() -> None:
    for deck in ("basic", "skilled"):
        cards = [c for c in STOCK["crews"] if c["deck"] == deck]
        assert len({c["ability"] for c in cards}) >= 12
        assert all(ABILITIES[c["ability"]].deck == deck for c in cards)


def test_sts_s1_countdown_tokens_one_per_player_and_none_removed() -> None:
    """STS-S1: countdown tokens are set aside before the removal, so the removal table
    counts the season groups only; each countdown token names the fewest players that
    use it, one per player."""
    for row in STOCK["removal"]:
        assert set(row) == {"players", "summer", "autumn", "winter"}
        used = [t for t in STOCK["tokens"] if t["season"] == "countdown" and t["players"] <= row["players"]]
        assert len(used) == row["players"]


def test_start_routes_and_cabooses() -> None:
    starts = STOCK["start_routes"]
    assert len(starts) == 4
    assert len({r["start"] for r in starts}) == 4
    assert all(r["start"] in r["cities"] for r in starts)
    assert STOCK["cabooses"][0] == 10
    assert STOCK["cabooses"] == sorted(STOCK["cabooses"], reverse=True)


def _broken(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(STOCK)
    change(data)
    return data


def _token(data: dict[str, Any], tid: str) -> dict[str, Any]:
    return next(t for t in data["tokens"] if t["id"] == tid)


def _unlink(data: dict[str, Any], a: str, b: str) -> None:
    data["cities"][a]["track"].remove(b)
    data["cities"][b]["track"].remove(a)


def _island(data: dict[str, Any]) -> None:
    for name, others in {"x1": ["x2", "x3"], "x2": ["x1", "x3"], "x3": ["x1", "x2"]}.items():
        data["cities"][name] = {"name": name, "region": "west", "coastal": False,
                                "market": ["oil"], "track": others}


BAD_DATA = [
    ("asymmetric track", lambda d: d["cities"]["portland"]["track"].remove("seattle"),
     "'seattle' lists track to 'portland' but 'portland' does not list 'seattle'"),
    ("one neighbour", lambda d: _unlink(d, "seattle", "helena"), "has 1 neighbour(s)"),
    ("unknown region", lambda d: d["cities"]["denver"].update(region="midwest"),
     "city 'denver' has unknown region 'midwest'"),
    ("unknown good", lambda d: d["cities"]["denver"]["market"].append("gold"),
     "city 'denver' sells unknown good 'gold'"),
    ("track to nowhere", lambda d: d["cities"]["denver"]["track"].append("atlantis"),
     "track to unknown city 'atlantis'"),
    ("island", _island, "cannot be reached by track"),
    ("three regions", lambda d: d["regions"].pop(), "exactly four distinct regions"),
    ("float price", lambda d: d["goods"]["oil"].update(pair_price=2.5), "good 'oil' needs a positive"),
    ("duplicate token", lambda d: d["tokens"].append(dict(d["tokens"][0])), "is listed twice"),
    ("big summer order", lambda d: _token(d, "su-o01").update(goods=["oil"] * 5),
     "a summer order needs 2 to 4 goods"),
    ("mixed countdown", lambda d: _token(d, "cd-o01").update(goods=["oil", "grain", "oil", "oil"]),
     "a countdown order asks for one type of good"),
    ("winter cash", lambda d: _token(d, "wi-o01").update(rewards=[{"cash": 9}]), "gives points only"),
    ("unknown ability", lambda d: d["crews"][0].update(ability="wizard"), "unknown ability 'wizard'"),
    ("ability in the wrong deck", lambda d: d["crews"][0].update(deck="skilled"), "is a basic ability"),
    ("missing removal row", lambda d: d["removal"].pop(1), "no row for 3 players"),
    ("removal of a whole season", lambda d: d["removal"][0].update(autumn=99), "takes all 24 autumn"),
    ("countdown removed at random", lambda d: d["removal"][0].update(countdown=2),
     "names countdown tokens, which are never removed at random"),
    ("countdown without players", lambda d: _token(d, "cd-o04").pop("players"), "needs players"),
    ("a countdown token too many", lambda d: _token(d, "cd-o04").update(players=3),
     "a game of 3 players uses 4 countdown tokens"),
    ("players on a summer token", lambda d: _token(d, "su-o01").update(players=2),
     "only countdown tokens name players"),
    ("route to nowhere", lambda d: d["routes"][0].update(cities=["seattle", "atlantis"]),
     "names unknown city 'atlantis'"),
    ("start off its route", lambda d: d["start_routes"][0].update(start="miami"), "train icon off"),
    ("cabooses upside down", lambda d: d["cabooses"].reverse(), "from the highest down"),
]


@pytest.mark.parametrize(("label", "change", "message"), BAD_DATA, ids=[b[0] for b in BAD_DATA])
def test_bad_components_are_rejected_with_a_clear_message(label: str, change: Any, message: str) -> None:
    with pytest.raises(ComponentError) as caught:
        GAME.validate_components(_broken(change))
    assert message in str(caught.value)
    assert str(caught.value).startswith("Station to Station components: ")


# Whole sentences, one per kind of check: each check builds its message only when it
# fails, so these pin the words (and which check speaks first) of every family.
WHOLE_MESSAGES = [
    (lambda d: d["cities"]["seattle"].pop("name"), "city 'seattle' needs a name"),
    (lambda d: d["cities"]["seattle"].pop("coastal"), "city 'seattle' needs coastal = true or false"),
    (lambda d: d["cities"]["seattle"].pop("market"), "city 'seattle' market must be a list of names"),
    (lambda d: d["cities"]["seattle"].update(market=[]),
     "city 'seattle' needs a local market of at least one good"),
    (lambda d: d["cities"]["seattle"].update(track=["portland", 7]),
     "city 'seattle' track must be a list of names"),
    (lambda d: d["cities"]["seattle"]["track"].append("portland"), "city 'seattle' lists a neighbour twice"),
    (lambda d: d["cities"]["seattle"]["track"].append("seattle"), "city 'seattle' has track to itself"),
    (lambda d: d["cities"]["seattle"].pop("y"), "city 'seattle' gives x without y"),
    (lambda d: d["cities"]["seattle"].update(x=10001),
     "city 'seattle' needs x as a whole number from 0 to 10000"),
    (lambda d: d["cities"]["chicago"].update(x=d["cities"]["portland"]["x"], y=d["cities"]["portland"]["y"]),
     "city 'chicago' is drawn on the same point as 'portland'"),
    (lambda d: d["tokens"][0].update(season="spring"), "token 'su-o01' has unknown season 'spring'"),
    (lambda d: d["tokens"][0].update(kind=True), "token 'su-o01' has unknown kind True"),
    (lambda d: _token(d, "su-s21").update(season="countdown"), "token 'su-s21': countdown tokens are orders"),
    (lambda d: _token(d, "su-o01").update(goods=["oil", "zzz"]),
     "token 'su-o01' asks for unknown good 'zzz'"),
    (lambda d: _token(d, "su-o01").pop("rewards"), "token 'su-o01' needs a list of rewards"),
    (lambda d: _token(d, "su-o01")["rewards"][0].update(cash=0),
     "token 'su-o01' reward gives a non-positive 'cash'"),
    (lambda d: _token(d, "su-o01")["rewards"][0].update(gems=1),
     "token 'su-o01' reward has unknown reward 'gems'"),
    (lambda d: _token(d, "su-o01")["rewards"].append({"points": 1}),
     "token 'su-o01': its reward options must lead with different things (cash, coal, points)"),
    (lambda d: _token(d, "su-o01").update(rewards=[{"points": 1}, {"cash": 2}]),
     "token 'su-o01': a summer order offers cash (maybe with coal) or points"),
    (lambda d: _token(d, "au-o01")["rewards"][0].pop("cash"),
     "token 'au-o01': an autumn order gives one combined reward with points"),
    (lambda d: _token(d, "su-s21").update(start={}), "token 'su-s21' start face must be a non-empty table"),
    (lambda d: _token(d, "su-r29").update(gold=[]), "token 'su-r29' gold face pictures no good"),
    (lambda d: _token(d, "su-r29").update(gold=["gems"]),
     "token 'su-r29' gold face pictures unknown good 'gems'"),
    (lambda d: d["routes"].append(dict(d["routes"][0])),
     f"route '{STOCK['routes'][0]['id']}' is listed twice"),
    (lambda d: d["start_routes"][0].update(cities=["seattle", "seattle"]),
     "route 'start-seattle' needs two different cities"),
    (lambda d: d["start_routes"][0].pop("points"), "route 'start-seattle' needs points"),
    (lambda d: d["start_routes"][0].update(reward={"points": 1}),
     "route 'start-seattle' has unknown reward 'points'"),
    (lambda d: d["start_routes"][1].update(start=d["start_routes"][0]["start"],
                                           cities=d["start_routes"][0]["cities"]),
     f"start route '{STOCK['start_routes'][1]['id']}' shares its start city"),
    (lambda d: d["crews"].append(dict(d["crews"][0])), "crew 'fireman' is listed twice"),
    (lambda d: d["crews"][0].update(name=""), "crew 'fireman' needs a name"),
    (lambda d: d["crews"][0].update(deck="elite"), "crew 'fireman' needs deck basic or skilled"),
    (lambda d: d["crews"][0].update(deck="skilled"), "crew 'fireman': ability 'fireman' is a basic ability"),
]


@pytest.mark.parametrize(("change", "message"), WHOLE_MESSAGES, ids=[m[1] for m in WHOLE_MESSAGES])
def test_bad_components_get_their_whole_sentence(change: Any, message: str) -> None:
    with pytest.raises(ComponentError) as caught:
        GAME.validate_components(_broken(change))
    assert str(caught.value) == f"Station to Station components: {message}."


def test_component_errors_are_save_file_errors_and_stop_a_table() -> None:
    data = _broken(lambda d: d["cities"]["portland"]["track"].remove("seattle"))
    with pytest.raises(SaveFileError):
        LocalTable(GAME, SEATS[:2], components=data)


def test_setup_uses_the_components_it_is_given() -> None:
    data = copy.deepcopy(STOCK)
    data["goods"]["oil"]["pair_price"] = 7
    state = GAME.setup(SEATS[:2], {}, data)
    assert state["data"]["goods"]["oil"] == 7


def test_sts_cl2_the_rulings_live_beside_the_game_and_point_nowhere_outside() -> None:
    """The rulings the game follows are kept in the repository (RULINGS.md), the revised
    STS-CL2 among them, and neither it nor the game's code points outside it."""
    from pathlib import Path

    folder = Path(GAME.stock_file()).parent
    rulings = (folder / "RULINGS.md").read_text(encoding="utf-8")
    assert "STS-CL2" in rulings and "last token" in rulings and "STS-S1" in rulings
    for path in [folder / "RULINGS.md", *folder.glob("*.py")]:
        assert "shared/" not in path.read_text(encoding="utf-8"), path
