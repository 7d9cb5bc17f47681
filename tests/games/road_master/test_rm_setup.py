"""Set-up (RM-S1..S9), the component data and its validation, options."""

from __future__ import annotations

import copy
from collections import Counter

import pytest
from rm_support import NAMES, placed, table

from pbem.game import ComponentError, IllegalMoveError, OptionError
from pbem.play.local import LocalTable
from pbem.protocol.crypto import secretdeck
from pbem_games.road_master import GAME


def test_RM_S1_six_warehouses_fifteen_cubes_each() -> None:
    """RM-S1: each warehouse starts with 15 cubes of its colour, 90 in all; F yellow, D blue."""
    state = table(3).state
    houses = state["data"]["houses"]
    assert sorted(houses) == list("ABCDEF")
    assert houses["F"]["colour"] == "yellow" and houses["D"]["colour"] == "blue"
    assert sorted(h["colour"] for h in houses.values()) == sorted(
        ["orange", "purple", "green", "blue", "yellow", "brown"])
    for letter, cubes in state["houses"].items():
        assert cubes == {houses[letter]["colour"]: 15} or letter in state["emptied"] or (
            sum(cubes.values()) < 15)  # a set-up shortage may already have hit it
    total = sum(sum(c.values()) for c in state["houses"].values()) + sum(state["removed"].values())
    assert total == 90


def test_RM_S2_advanced_cards_stay_out_of_the_basic_game() -> None:
    """RM-S2: no hazardous or perishable contract and no boom draw in the basic game."""
    state = table(2).state
    kinds = Counter(c["kind"] for c in state["data"]["cards"].values())
    assert kinds == {"basic": 60, "shortage": 6}
    assert state["data"]["hazard"] == "" and state["data"]["perish"] == ""
    advanced = table(2, hazardous=True, perishable=True).state
    kinds = Counter(c["kind"] for c in advanced["data"]["cards"].values())
    assert kinds == {"basic": 38, "hazardous": 11, "perishable": 11, "shortage": 6}


def test_RM_S3_one_deck_of_66_with_nine_in_the_market() -> None:
    """RM-S3: 60 contracts and 6 shortages shuffled together; 9 face up, the rest a deck."""
    state = table(2, shortages=True).state
    assert len(state["data"]["cards"]) == 66
    assert all(state["market"]) and len(state["market"]) == 9
    shown_or_used = [u for u in state["market"]] + state["gone"]
    assert len(state["deck"]) + len(shown_or_used) == 66
    assert GAME.invariants(state) == []


def test_RM_S4_a_shortage_dealt_at_set_up_is_resolved_and_replaced() -> None:
    """RM-S4: a shortage turned up while dealing the market acts at once; 9 contracts show."""
    hit = None
    for seed in range(40):
        t = LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=b"s4-%d" % seed)
        if t.state["gone"]:
            hit = t.state
            break
    assert hit is not None, "no seed dealt a shortage at set-up"
    assert all(hit["data"]["cards"][u]["kind"] == "shortage" for u in hit["gone"])
    assert all(hit["market"]) and all(hit["data"]["cards"][u]["kind"] != "shortage" for u in hit["market"])
    letter = hit["data"]["cards"][hit["gone"][0]]["warehouse"]
    colour = hit["data"]["houses"][letter]["colour"]
    assert hit["houses"][letter][colour] == 8  # 15 - floor(15/2)
    assert hit["removed"][colour] == 7


def test_RM_S5_shortages_can_be_left_out() -> None:
    """RM-S5: option shortages=false leaves the 6 shortage cards out of the deck."""
    state = table(2, shortages=False).state
    assert not [c for c in state["data"]["cards"].values() if c["kind"] == "shortage"]
    assert len(state["deck"]) + 9 == 60


def test_RM_S6_super_bonus_deck_of_18_shuffled_apart() -> None:
    """RM-S6: the 18 Super Bonus cards form their own secret deck."""
    stock = GAME.stock_components()
    decks = GAME.secret_decks(stock, {}, 3)
    assert list(decks) == ["superbonus"] and len(set(decks["superbonus"])) == 18
    state = table(3).state
    assert secretdeck.remaining(state, "superbonus") == 18
    orders = {tuple(LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=s).state["secret"]
                    ["superbonus"]["order"]) for s in (b"a", b"b")}
    assert len(orders) == 1  # slot ids are public and say nothing; the cards behind them differ
    cards = {LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=s).state["secret"]["superbonus"]
             ["slots"]["s0"]["card"] for s in (b"a", b"b", b"c", b"d")}
    assert len(cards) > 1


def test_RM_S7_each_player_has_truck_seven_tokens_and_score_zero() -> None:
    """RM-S7: one truck, seven action tokens and a score marker on 0 per player."""
    state = table(4).state
    assert state["scores"] == [0, 0, 0, 0]
    assert len(state["trucks"]) == 4
    assert len(state["data"]["tokens"]) == 7


def test_RM_A2_token_faces_over_the_seven_tokens() -> None:
    """RM-A2: faces: contracts 1, Super Bonus 1, load/forward/backward/unload 3 each."""
    faces = Counter(f for t in table(2).state["data"]["tokens"] for f in t)
    assert faces == {"contracts": 1, "superbonus": 1, "load": 3, "forward": 3,
                     "backward": 3, "unload": 3}


def test_RM_S8_truck_placed_on_any_warehouse_on_the_first_turn() -> None:
    """RM-S8: no truck before its first turn; then on any lettered warehouse, free."""
    t = table(3)
    assert all(tr["where"] == "" for tr in t.state["trucks"])
    assert t.legal_moves() == [f"place {x}" for x in "ABCDEF"]
    with pytest.raises(IllegalMoveError, match="Place your truck first"):
        GAME.apply(copy.deepcopy(t.state), 0, "contracts m1")
    t.play(["place E", "forward 4 exit west", "forward 4", "forward 4", "backward"])
    # the placement used no action: four actions followed it
    assert (t.state["trucks"][0]["x"], t.state["trucks"][0]["lane"]) == (4, "north")
    with pytest.raises(Exception, match="place your truck"):
        t.play([])


def test_RM_S8_trucks_share_a_warehouse() -> None:
    """RM-S8 (ruling): any number of trucks may start on the same warehouse."""
    t = placed(3, where="F")
    assert [tr["where"] for tr in t.state["trucks"]] == ["F", "F", "F"]


def test_RM_S9_first_player_random_unless_named() -> None:
    """RM-S9: first player drawn by the start beacon; --option first=HANDLE names one."""
    firsts = {LocalTable(GAME, NAMES[:4], {}, seed=b"f%d" % i).to_act() for i in range(12)}
    assert len(firsts) > 1
    assert LocalTable(GAME, NAMES[:4], {"first": "cy"}, seed=b"x").to_act() == 2
    with pytest.raises(OptionError, match="first=zed names no player"):
        LocalTable(GAME, NAMES[:3], {"first": "zed"}, seed=b"x")


def test_game_info_and_options() -> None:
    info = GAME.info
    assert (info.id, info.min_players, info.max_players) == ("road-master", 2, 6)
    assert {k: o.default for k, o in info.options.items()} == {
        "first": "", "shortages": True, "hazardous": False, "perishable": False}
    assert GAME.notation().count("forward") >= 3


# ---- component validation --------------------------------------------------------------
def _broken(change) -> dict:
    data = copy.deepcopy(GAME.stock_components())
    change(data)
    return data


BROKEN = [
    ("contract to unknown warehouse", lambda d: d["cards"]["contracts"][0].update(to="Z"),
     "unknown warehouse"),
    ("contract unknown colour", lambda d: d["cards"]["contracts"][1].update(colour="pink"), "unknown colour"),
    ("contract to own warehouse", lambda d: d["cards"]["contracts"][0].update(to="A"), "own warehouse"),
    ("negative points", lambda d: d["cards"]["contracts"][2].update(points=0), "points"),
    ("repeated id", lambda d: d["cards"]["contracts"][3].update(id="c1"), "repeats an id"),
    ("bad id", lambda d: d["cards"]["contracts"][3].update(id="top"), "one letter"),
    ("shortage unknown warehouse", lambda d: d["cards"]["shortages"][0].update(warehouse="Q"),
     "unknown warehouse"),
    ("bonus unknown colour", lambda d: d["cards"]["superbonus"][0].update(need={"pink": 2}),
     "unknown colour"),
    ("bonus empty need", lambda d: d["cards"]["superbonus"][0].update(need={}), "need"),
    ("hazardous not yellow", lambda d: d["cards"]["hazardous"][0].update(colour="blue"), "yellow"),
    ("hazardous not +2", lambda d: d["cards"]["hazardous"][0].update(points=1), "worth 2 more"),
    ("perishable without match", lambda d: d["cards"]["perishable"][0].update(replaces="c1"),
     "same cubes"),
    ("warehouse off the road", lambda d: d["warehouses"][0].update(space=99), "off a road"),
    ("two warehouses in one place", lambda d: d["warehouses"][1].update(space=1, side="north"),
     "where another warehouse stands"),
    ("token with a bad face", lambda d: d["tokens"][0].update(faces=["forward", "fly"]), "two faces"),
    ("too few tokens", lambda d: d.update(tokens=d["tokens"][:3]), "fewer than"),
    ("no end score for 6", lambda d: d["rules"]["end_score"].pop("6"), "6 players"),
    ("boom pile empty", lambda d: d["boom"].update(ok=0, half=0), "no card"),
    ("rules missing", lambda d: d.pop("rules"), "rules section"),
    ("keep more than drawn", lambda d: d["rules"].update(superbonus_keep=9), "keeps more"),
]


@pytest.mark.parametrize(("case", "change", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_component_errors_name_the_bad_entry(case, change, message) -> None:
    with pytest.raises(ComponentError, match=message):
        GAME.validate_components(_broken(change))


def test_stock_components_are_valid_plain_data() -> None:
    data = GAME.stock_components()
    GAME.validate_components(data)

    def plain(value) -> bool:
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return isinstance(value, (str, int, bool)) and not isinstance(value, float)

    assert plain(data)
    assert len(data["cards"]["contracts"]) == 60 and len(data["cards"]["superbonus"]) == 18


def test_contract_points_grow_with_distance_and_cubes() -> None:
    """The representative contracts: more cubes or a longer haul never pays less."""
    data = GAME.stock_components()
    space = {w["letter"]: w["space"] for w in data["warehouses"]}
    home = {w["colour"]: w["space"] for w in data["warehouses"]}
    rows = [(c["count"], abs(home[c["colour"]] - space[c["to"]]), c["points"])
            for c in data["cards"]["contracts"]]
    for a in rows:
        for b in rows:
            if a[0] <= b[0] and a[1] <= b[1]:
                assert a[2] <= b[2], (a, b)


def test_setup_uses_the_components_argument() -> None:
    """setup() reads the components it is given (a save's header), not the TOML file."""
    data = _broken(lambda d: d["cards"]["contracts"][1].update(points=99))
    t = LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=b"x", components=data)
    assert t.state["data"]["cards"]["c2"]["points"] == 99


def test_component_data_in_the_state_is_shared_by_copies_and_never_written() -> None:
    """state["data"] is fixed at set-up: copies share it (the bots copy the state for each
    move they try) and a write raises; it reads and serialises as a plain table."""
    import json

    state = table(2).state
    clone = copy.deepcopy(state)
    assert clone["data"] is state["data"] and clone["deck"] is not state["deck"]
    assert clone["data"]["cards"] is state["data"]["cards"]
    for write in (lambda d: d.__setitem__("length", 3), lambda d: d["cards"].pop("c1"),
                  lambda d: d["houses"]["A"].update(space=2)):
        with pytest.raises(TypeError, match="fixed at set-up"):
            write(state["data"])
    assert json.loads(json.dumps(state["data"])) == state["data"]


@pytest.mark.parametrize("options", [{}, {"hazardous": True, "perishable": True},
                                     {"shortages": False}])
def test_every_table_of_the_component_data_is_fixed(options: dict) -> None:
    """Set-up builds state["data"] Fixed table by table (no second walk): every table in
    it, down to each card and each Super Bonus card's needs, refuses a write."""
    from pbem.game import Fixed

    def tables(value: object) -> list[object]:
        if isinstance(value, dict):
            return [value] + [t for item in value.values() for t in tables(item)]
        if isinstance(value, list):
            return [t for item in value for t in tables(item)]
        return []

    found = tables(table(3, **options).state["data"])
    assert len(found) > 80
    assert all(type(t) is Fixed for t in found)
