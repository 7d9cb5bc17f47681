"""Every crew ability: the rule as it stands, then the same rule changed by the crew.

Each test first shows the plain rule (an illegal move, a price, a reward), then uses the
crew (hired in an earlier turn) and shows the change; STS-C12 applies to all of them.
"""

from __future__ import annotations

import pytest
from sts_helpers import (
    begin,
    clean,
    give_crew,
    give_route,
    give_tickets,
    make_order,
    market_crew,
    move_train,
    no_routes,
    place,
    play,
    set_purse,
    started,
)

from pbem.game import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.abilities import ABILITIES

STOCK = GAME.stock_components()


def _ready(crew: str | None, city: str, cash: int = 8, coal: int = 2,
           goods: dict[str, int] | None = None) -> dict:
    """Seat 0 to act in ``city`` holding ``crew`` (hired in an earlier turn)."""
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, city)
    no_routes(state, 0)
    if crew:
        give_crew(state, 0, crew, "north")
    set_purse(state, 0, cash=cash, coal=coal, goods=goods or {})
    return state


def _both(crew: str, city: str, **purse: object) -> tuple[dict, dict]:
    return _ready(None, city, **purse), _ready(crew, city, **purse)  # type: ignore[arg-type]


def _player(state: dict) -> dict:
    return state["players"][0]


def _supply(**face: int) -> str:
    return next(t["id"] for t in STOCK["tokens"] if t["kind"] == "supply" and t["start"] == face)


def test_every_ability_in_the_data_has_a_test_here() -> None:
    tested = {name.removeprefix("test_").split("_changes")[0].replace("_", "-")
              for name in globals() if name.startswith("test_") and "_changes" in name}
    assert {c["ability"] for c in STOCK["crews"]} <= tested
    assert set(ABILITIES) <= tested


def test_fireman_changes_the_cost_of_a_movement() -> None:
    plain, crew = _both("fireman", "seattle", coal=0)
    with pytest.raises(IllegalMoveError, match="costs 1 coal"):
        GAME.apply(plain, 0, "travel salt-lake-city")
    play(crew, 0, "crew fireman", "travel salt-lake-city")
    assert _player(crew)["coal"] == 0
    assert crew["turn"]["mods"]["free_spaces"] == 0  # one movement only


def test_engineer_changes_the_cost_of_a_movement() -> None:
    plain, crew = _both("engineer", "seattle", coal=1)
    with pytest.raises(IllegalMoveError, match="costs 2 coal"):
        GAME.apply(plain, 0, "travel denver")
    play(crew, 0, "crew engineer", "travel denver")
    assert _player(crew)["coal"] == 1


def test_coal_broker_changes_the_coal_price() -> None:
    plain, crew = _both("coal-broker", "denver", cash=1, coal=0)
    with pytest.raises(IllegalMoveError, match=r"costs \$3"):
        GAME.apply(plain, 0, "buy coal x1")
    play(crew, 0, "crew coal-broker")
    assert (_player(crew)["cash"], _player(crew)["coal"]) == (0, 1)
    with pytest.raises(IllegalMoveError, match="already been used"):
        GAME.apply(crew, 0, "crew coal-broker")


def test_coal_baron_changes_the_coal_price() -> None:
    plain, crew = _both("coal-baron", "denver", cash=3, coal=0)
    with pytest.raises(IllegalMoveError, match=r"2 coal costs \$6"):
        GAME.apply(plain, 0, "buy coal x2")
    play(crew, 0, "crew coal-baron")
    assert (_player(crew)["cash"], _player(crew)["coal"]) == (0, 2)


def test_importer_changes_the_import_surcharge() -> None:
    plain, crew = _both("importer", "dallas", cash=20, coal=0)
    with pytest.raises(IllegalMoveError, match="importing 2 costs 1 coal"):
        GAME.apply(plain, 0, "buy grain x2")
    play(crew, 0, "crew importer", "buy grain x2")
    assert _player(crew)["goods"]["grain"] == 2
    with pytest.raises(IllegalMoveError, match="importing 2 costs 1 coal"):
        GAME.apply(crew, 0, "buy steel x2")  # only the next pair


def test_master_importer_changes_the_import_surcharge() -> None:
    plain, crew = _both("master-importer", "dallas", cash=40, coal=0)
    with pytest.raises(IllegalMoveError, match="importing 4 costs 2 coal"):
        GAME.apply(plain, 0, "buy grain x4")
    play(crew, 0, "crew master-importer", "buy grain x4", "buy steel x2")
    assert _player(crew)["coal"] == 0 and _player(crew)["goods"]["steel"] == 2


def test_haggler_changes_the_pair_price() -> None:
    plain, crew = _both("haggler", "dallas", cash=20)
    play(plain, 0, "buy oil x2")
    play(crew, 0, "crew haggler", "buy oil x2", "buy oil x2")
    assert _player(plain)["cash"] == 15
    assert _player(crew)["cash"] == 20 - 4 - 5  # only the next pair is cheaper


def test_trader_changes_the_pair_price() -> None:
    plain, crew = _both("trader", "dallas", cash=20)
    play(plain, 0, "buy oil x4")
    play(crew, 0, "crew trader", "buy oil x4")
    assert (_player(plain)["cash"], _player(crew)["cash"]) == (10, 12)


def test_porter_changes_the_pair_rule() -> None:
    plain, crew = _both("porter", "dallas", cash=3)
    with pytest.raises(IllegalMoveError, match="pairs"):
        GAME.apply(plain, 0, "buy oil x1")
    play(crew, 0, "crew porter oil")
    assert _player(crew)["goods"]["oil"] == 1 and _player(crew)["cash"] == 0  # $5 / 2 up
    other = _ready("porter", "dallas", cash=9)
    with pytest.raises(IllegalMoveError, match="only goods of the local market"):
        GAME.apply(other, 0, "crew porter grain")


def test_teamster_changes_the_rule_on_throwing_goods_off() -> None:
    plain, crew = _both("teamster", "dallas", goods={"oil": 1})
    with pytest.raises(IllegalMoveError, match="only to make room"):
        GAME.apply(plain, 0, "discard oil")
    play(crew, 0, "travel houston", "crew teamster oil")  # any phase
    assert (_player(crew)["goods"]["oil"], _player(crew)["cash"]) == (0, 10)
    clean(crew)


def _order_here(state: dict, goods: list[str], rewards: list[dict[str, int]], city: str = "houston") -> str:
    tid = make_order(state, "su-o05", goods, rewards)
    place(state, city, tid)
    return tid


def test_loader_changes_the_goods_an_order_needs() -> None:
    states = _both("loader", "dallas", goods={"steel": 1})
    for state in states:
        _order_here(state, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
        play(state, 0, "travel houston")
    plain, crew = states
    with pytest.raises(IllegalMoveError, match="lacks the goods"):
        GAME.apply(plain, 0, "order points")
    play(crew, 0, "crew loader oil", "order points")
    assert _player(crew)["points"] == 5 and _player(crew)["goods"]["steel"] == 0


def test_shunter_changes_the_work_reward() -> None:
    plain, crew = _both("shunter", "dallas", cash=0)
    play(plain, 0, "travel houston", "work cash")
    play(crew, 0, "travel houston", "crew shunter", "work cash")
    assert (_player(plain)["cash"], _player(crew)["cash"]) == (5, 7)


def test_dockhand_changes_the_coastal_bonus() -> None:
    plain, crew = _both("dockhand", "portland", coal=0)
    play(plain, 0, "travel seattle")
    play(crew, 0, "travel seattle", "crew dockhand")
    assert (_player(plain)["coal"], _player(crew)["coal"]) == (1, 2)
    inland = _ready("dockhand", "dallas")
    play(inland, 0, "travel houston")
    with pytest.raises(IllegalMoveError, match="coastal city"):
        GAME.apply(inland, 0, "crew dockhand")


def test_quartermaster_changes_the_supply_reward() -> None:
    states = _both("quartermaster", "dallas", cash=0)
    for state in states:
        place(state, "houston", _supply(cash=4))
        play(state, 0, "travel houston")
    plain, crew = states
    play(plain, 0, "supply")
    play(crew, 0, "crew quartermaster", "supply")
    assert (_player(plain)["cash"], _player(crew)["cash"]) == (4, 6)


def test_conductor_changes_which_route_cards_you_hold() -> None:
    state = _ready("conductor", "dallas")
    give_route(state, 0, 2, "seattle--denver")
    shown = state["routes"]["display"][0]
    play(state, 0, "crew conductor 2 display 1")
    assert _player(state)["routes"][1]["card"] == shown
    assert "seattle--denver" in state["routes"]["discards"]
    assert state["pending"] == [{"kind": "route-display"}]
    marked = _ready("conductor", "dallas")
    give_route(marked, 0, 2, "seattle--denver", marker="seattle")
    with pytest.raises(IllegalMoveError, match="already has a marker"):
        GAME.apply(marked, 0, "crew conductor 2 display 1")
    clean(state)


def _crew_turn(crew: str | None, tickets: dict[str, int]) -> dict:
    state = _ready(crew, "omaha")
    for region, count in tickets.items():
        give_tickets(state, 0, region, count)
    market_crew(state, "basic", "west", "porter")
    market_crew(state, "skilled", "west", "engineer")
    play(state, 0, "travel denver", "work cash")
    return state


def test_clerk_changes_the_basic_hiring_cost() -> None:
    plain, crew = _crew_turn(None, {"south": 1}), _crew_turn("clerk", {"south": 1})
    with pytest.raises(IllegalMoveError, match="1 west ticket or any 2"):
        GAME.apply(plain, 0, "hire basic west")  # 1 other ticket is not enough
    play(crew, 0, "crew clerk", "hire basic west", "pay south")
    assert _player(crew)["crews"]["west"] == "porter"


def test_recruiter_changes_the_skilled_hiring_cost() -> None:
    plain, crew = _crew_turn(None, {"west": 1}), _crew_turn("recruiter", {"west": 1})
    with pytest.raises(IllegalMoveError, match="1 west ticket plus 1 any"):
        GAME.apply(plain, 0, "hire skilled west")
    play(crew, 0, "crew recruiter", "hire skilled west", "pay west")
    assert _player(crew)["crews"]["west"] == "engineer"


def test_paymaster_changes_the_caboose_cost() -> None:
    tickets = {"south": 1, "east": 1, "west": 1}
    plain, crew = _crew_turn(None, tickets), _crew_turn("paymaster", tickets)
    with pytest.raises(IllegalMoveError, match="each of 4 different regions"):
        GAME.apply(plain, 0, "caboose")
    play(crew, 0, "crew paymaster", "caboose", "pay south", "pay east", "pay west")
    assert _player(crew)["caboose"] == 10


def test_ticket_agent_changes_a_tickets_region() -> None:
    plain, crew = _crew_turn(None, {"south": 1}), _crew_turn("ticket-agent", {"south": 1})
    with pytest.raises(IllegalMoveError, match="1 west ticket or any 2"):
        GAME.apply(plain, 0, "hire basic west")
    play(crew, 0, "crew ticket-agent south", "hire basic west", "pay wild")
    assert _player(crew)["crews"]["west"] == "porter" and not _player(crew)["wilds"]
    clean(crew)


def test_steward_changes_an_orders_points() -> None:
    states = _both("steward", "dallas", goods={"oil": 1, "steel": 1})
    for state in states:
        _order_here(state, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    plain, crew = states
    play(plain, 0, "travel houston", "order points")
    play(crew, 0, "crew steward", "travel houston", "order points")
    assert (_player(plain)["points"], _player(crew)["points"]) == (5, 7)


def test_stationmaster_changes_the_choice_of_reward() -> None:
    states = _both("stationmaster", "dallas", cash=0, coal=0, goods={"oil": 1, "steel": 1})
    for state in states:
        _order_here(state, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
        play(state, 0, "travel houston")
    plain, crew = states
    play(plain, 0, "order cash")
    play(crew, 0, "crew stationmaster")
    assert [m for m in GAME.legal_moves(crew, 0) if m.startswith("order")] == ["order"]
    play(crew, 0, "order")
    assert (_player(plain)["cash"], _player(plain)["points"]) == (8, 0)
    assert (_player(crew)["cash"], _player(crew)["coal"], _player(crew)["points"]) == (8, 1, 5)


def test_cartographer_changes_a_routes_points() -> None:
    states = _both("cartographer", "salt-lake-city")
    for state in states:
        give_route(state, 0, 2, "seattle--denver", marker="seattle")
    plain, crew = states
    play(plain, 0, "travel denver")
    play(crew, 0, "crew cartographer", "travel denver")
    points = STOCK["routes"][0]["points"]
    assert STOCK["routes"][0]["id"] == "seattle--denver"
    assert (_player(plain)["points"], _player(crew)["points"]) == (points, points + 2)


def test_surveyor_changes_where_a_route_marker_goes() -> None:
    states = _both("surveyor", "salt-lake-city")
    for state in states:
        give_route(state, 0, 2, "seattle--denver")
    plain, crew = states
    play(plain, 0, "travel seattle via portland")
    assert _player(plain)["routes"][1]["marker"] == "seattle"  # only a stop marks a city
    play(crew, 0, "crew surveyor denver")  # Denver is next to Salt Lake City
    assert _player(crew)["routes"][1]["marker"] == "denver"
    with pytest.raises(IllegalMoveError):
        GAME.apply(_ready("surveyor", "dallas"), 0, "crew surveyor denver")
    play(crew, 0, "travel seattle via portland")
    assert _player(crew)["score"]["routes"] == STOCK["routes"][0]["points"]  # completed


def test_yardmaster_changes_a_tokens_face() -> None:
    token = _supply(coal=2)
    states = _both("yardmaster", "dallas", coal=0)
    for state in states:
        place(state, "houston", token)
        play(state, 0, "travel houston")
    plain, crew = states
    play(plain, 0, "supply")
    play(crew, 0, "crew yardmaster", "supply")
    gold = STOCK["tokens"][[t["id"] for t in STOCK["tokens"]].index(token)]["gold"]["coal"]
    assert (_player(plain)["coal"], _player(crew)["coal"]) == (2, gold)


def test_foreman_changes_how_often_you_work() -> None:
    plain, crew = _both("foreman", "dallas", cash=0)
    play(plain, 0, "travel houston", "work cash")
    with pytest.raises(IllegalMoveError, match="already taken"):
        GAME.apply(plain, 0, "work cash")
    play(crew, 0, "travel houston", "work cash", "crew foreman cash")
    assert (_player(plain)["cash"], _player(crew)["cash"]) == (5, 10)


def test_STS_C12_cartographer_text_rules_and_effect_agree() -> None:
    """One reading everywhere: a crew's effect lasts the turn it is used in (STS-C12: used
    once a turn, ready again after cleanup), so the Cartographer adds 2 points to each
    route completed later in that turn, and none in later turns."""
    market_text = ABILITIES["cartographer"].text
    rules_line = next(line for line in GAME.notation().splitlines() if "crew cartographer" in line)
    for text in (market_text, rules_line):
        assert "later this turn" in text and "after this turn" not in text
    assert "effect lasts until the end of the turn" in " ".join(GAME.notation().split())
    state = _ready("cartographer", "salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    play(state, 0, "crew cartographer", "travel denver")
    points = STOCK["routes"][0]["points"]
    assert _player(state)["points"] == points + 2
    # The next turn the bonus is gone unless the Cartographer is used again.
    begin(state, 0, "salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    play(state, 0, "travel denver")
    assert _player(state)["points"] == 2 * points + 2
    clean(state)


def test_no_ability_text_reaches_past_the_turn_it_is_used_in() -> None:
    for key, ability in ABILITIES.items():
        assert "after this turn" not in ability.text, key
        assert "next turn" not in ability.text, key


def test_sts_c12_the_surveyor_marks_the_card_the_player_chooses() -> None:
    """STS-C12 ruling: a card that names a choice is the player's choice. With Denver on
    both unmarked route cards, the move names the card: moves lists both, each is read
    and written back the same, and the one named gets the marker."""
    state = _ready("surveyor", "salt-lake-city")
    give_route(state, 0, 1, "los-angeles--denver")
    give_route(state, 0, 2, "seattle--denver")
    listed = [m for m in GAME.legal_moves(state, 0) if m.startswith("crew surveyor denver")]
    assert listed == ["crew surveyor denver route 1", "crew surveyor denver route 2"]
    for move in listed:
        assert GAME.normalize(state, 0, move) == move
    assert GAME.normalize(state, 0, "use surveyor Denver 2") == "crew surveyor denver route 2"
    assert GAME.normalize(state, 0, "crew surveyor denver route 02") == "crew surveyor denver route 2"
    for bad in ("crew surveyor denver route 0", "crew surveyor denver route 3"):
        with pytest.raises(InvalidMoveError, match="route slots are 1 and 2"):
            GAME.normalize(state, 0, bad)
    with pytest.raises(AmbiguousMoveError, match="crew surveyor denver route 2"):
        GAME.normalize(state, 0, "crew surveyor denver")
    play(state, 0, "crew surveyor denver route 2")
    assert [e["marker"] for e in _player(state)["routes"]] == ["", "denver"]
    assert "marked Denver on route Seattle - Denver" in state["notes"][-1]
    clean(state)
    # With one card left that fits, the card is not named (and a named slot is dropped).
    state = _ready("surveyor", "salt-lake-city")
    give_route(state, 0, 1, "los-angeles--denver", marker="los-angeles")
    give_route(state, 0, 2, "seattle--denver")
    assert "crew surveyor denver" in GAME.legal_moves(state, 0)
    assert GAME.normalize(state, 0, "crew surveyor denver route 2") == "crew surveyor denver"
    with pytest.raises(IllegalMoveError, match="slot 1 already has a marker"):
        GAME.apply(state, 0, "crew surveyor denver route 1")


def test_sts_c12_the_bot_values_the_surveyors_two_choices_apart() -> None:
    """Between two cards the greedy bot's evaluation prefers marking the one worth more
    (Seattle - Denver, 5 points, over Los Angeles - Denver, 3), so its pick never rests
    on the order of the list."""
    values = {}
    for move in ("crew surveyor denver route 1", "crew surveyor denver route 2"):
        state = _ready("surveyor", "salt-lake-city")
        give_route(state, 0, 1, "los-angeles--denver")
        give_route(state, 0, 2, "seattle--denver")
        play(state, 0, move)
        values[move] = GAME.heuristic(state, 0)
    assert values["crew surveyor denver route 2"] > values["crew surveyor denver route 1"]


# ---- STS-C12: every crew at any moment its text can still act ------------------------
def test_sts_c12_dockhand_after_the_station_action() -> None:
    """「自分のターン中いつでも」: the Dockhand's text ("after taking a token in a coastal
    city") holds as long as the turn lasts, the station action taken or not."""
    state = _ready("dockhand", "portland", coal=0)
    play(state, 0, "travel seattle", "work cash", "crew dockhand")
    assert _player(state)["coal"] == 2  # the coastal bonus and the dockhand's
    clean(state)


def test_sts_c12_quartermaster_after_the_supply() -> None:
    state = _ready("quartermaster", "dallas", cash=0)
    place(state, "houston", _supply(cash=4))
    play(state, 0, "travel houston", "supply", "crew quartermaster")
    assert _player(state)["cash"] == 6
    assert "$2 more for the supply taken" in state["notes"][-1]
    worked = _ready("quartermaster", "dallas", cash=0)
    play(worked, 0, "travel houston", "work cash")
    with pytest.raises(IllegalMoveError, match="you took none this turn"):
        GAME.apply(worked, 0, "crew quartermaster")
    early = _ready("quartermaster", "dallas", cash=0)
    place(early, "houston", _supply(cash=4))
    play(early, 0, "crew quartermaster", "travel houston", "supply")  # before moving, too
    assert _player(early)["cash"] == 6
    clean(state)


def test_sts_c12_steward_after_the_order() -> None:
    state = _ready("steward", "dallas", goods={"oil": 1, "steel": 1})
    _order_here(state, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    play(state, 0, "travel houston", "order points", "crew steward")
    assert _player(state)["points"] == 7 and _player(state)["score"]["orders"] == 7
    worked = _ready("steward", "dallas")
    play(worked, 0, "travel houston", "work cash")
    with pytest.raises(IllegalMoveError, match="you fulfilled none"):
        GAME.apply(worked, 0, "crew steward")
    clean(state)


def test_sts_c12_yardmaster_after_taking_a_railcar() -> None:
    state = _ready("yardmaster", "dallas")
    place(state, "houston", "su-r29")
    play(state, 0, "travel houston", "railcar", "crew yardmaster")
    assert _player(state)["railcars"] == [{"id": "su-r29", "gold": True}]
    supply = _ready("yardmaster", "dallas")
    place(supply, "houston", _supply(cash=4))
    play(supply, 0, "travel houston", "supply")
    with pytest.raises(IllegalMoveError, match="use the yardmaster before taking a supply"):
        GAME.apply(supply, 0, "crew yardmaster")
    clean(state)


def test_sts_c12_shunter_and_stationmaster_after_the_station_action() -> None:
    shunter = _ready("shunter", "dallas", cash=0)
    play(shunter, 0, "travel houston", "work cash", "crew shunter")
    assert _player(shunter)["cash"] == 7
    state = _ready("stationmaster", "dallas", cash=0, coal=0, goods={"oil": 1, "steel": 1})
    _order_here(state, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    play(state, 0, "travel houston", "order cash", "crew stationmaster")
    assert (_player(state)["cash"], _player(state)["coal"], _player(state)["points"]) == (8, 1, 5)
    assert "also took the order's other rewards: 5 pts" in state["notes"][-1]
    clean(state)


def test_sts_c12_crews_about_this_turn_may_be_used_before_moving() -> None:
    """The Loader, Clerk and the coal crews name no phase: the Loader and Clerk act on
    the order or hire to come; coal may be bought for $1 after travelling."""
    loader = _ready("loader", "dallas", goods={"steel": 1})
    _order_here(loader, ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    play(loader, 0, "crew loader oil", "travel houston", "order points")
    assert _player(loader)["points"] == 5
    clerk = _ready("clerk", "omaha")
    give_tickets(clerk, 0, "south", 1)
    market_crew(clerk, "basic", "west", "porter")
    play(clerk, 0, "crew clerk", "travel denver", "work cash", "hire basic west", "pay south")
    assert _player(clerk)["crews"]["west"] == "porter"
    broker = _ready("coal-broker", "dallas", cash=1, coal=0)
    play(broker, 0, "travel houston", "work cash", "crew coal-broker")
    assert _player(broker)["coal"] == 1
    hired = _crew_turn("clerk", {"south": 2})
    play(hired, 0, "hire basic west", "pay south", "pay south")
    with pytest.raises(IllegalMoveError, match="used before hiring or taking a caboose"):
        GAME.apply(hired, 0, "crew clerk")


def test_sts_c12_every_crew_text_and_its_timing_agree() -> None:
    """A crew whose text names no moment may be used at any moment of the turn; one that
    acts at one moment only says so in its text."""
    for key, ability in ABILITIES.items():
        text = ability.text.lower()
        if set(ability.phases) >= {"market", "again", "station", "crew", "done"}:
            continue
        said = any(word in text for word in ("before", "after", "next", "later", "this turn"))
        assert said, f"{key}: '{ability.text}' does not say when it acts, yet is refused sometimes"
