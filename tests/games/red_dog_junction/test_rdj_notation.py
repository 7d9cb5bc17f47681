"""Move notation: friendly input, canonical output, and clear refusals of bad input."""

from __future__ import annotations

import pytest
from rdj_helpers import act, card_of, end, give_card, new_game, put, to_display

from pbem.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, TurnError
from pbem.play.local import LocalTable
from pbem_games.red_dog_junction import GAME


def norm(state: dict, text: str, seat: int = 0) -> str:
    return GAME.normalize(state, seat, text)


@pytest.mark.parametrize(("typed", "canonical"), [
    ("UNDOCK", "undock"),
    ("launch", "undock"),
    ("  dock   J3 ", "dock junction 3"),
    ("dock junction3", "dock junction 3"),
    ("dock 3", "dock junction 3"),
    ("land gas planet", "dock gas"),
    ("dock planet ox", "dock oxygen"),
    ("dock red", "dock ruby"),
    ("dock trinket", "dock shop"),
    ("dock home ann", "dock home"),
    ("dock home BOB", "dock home bob"),
    ("dock bank", "dock bank"),
    ("taxi j5", "taxi 5"),
    ("load 2 ruby gas", "load gas ruby x2"),
    ("load gold*2, ruby", "load gold x2 ruby"),
    ("load gold x 2", "load gold x2"),
    ("LOAD GOLD X\t2 ruby", "load gold x2 ruby"),  # the count's spaces go, whatever case
    ("load gold × 2", "load gold x2"),
    ("load ruby ruby", "load ruby x2"),
    ("unload ALL", "unload all"),
    ("load ruby unload all", "unload all load ruby"),
    ("unload black x3 load wh", "unload scrap x3 load whiskey"),
    ("super deal 8", "deal 8"),
    ("superdeal 6", "deal 6"),
    ("trade scrap for gold 2", "trade scrap:gold x2"),
    ("trade scrap>gold x1", "trade scrap:gold"),
    ("trade scrap -> gold x3", "trade scrap:gold x3"),
    ("trade scrap to gold x 2", "trade scrap:gold x2"),
    ("adjust black down", "adjust scrap -1"),
    ("adjust whiskey up", "adjust whiskey +1"),
    ("rustle BOB me", "rustle ann bob"),
    ("rustle b", "rustle bob"),
    ("swap bob take gold give scrap", "swap bob give scrap take gold"),
    ("salvage 2 scrap", "salvage scrap x2"),
    ("salvage scrap, scrap", "salvage scrap x2"),
    ("rascal min", "rascal miner"),
    ("skip", "pass"),
    ("dump gold*2", "jettison gold x2"),
    ("mine x1", "mine 1"),
    ("mine 2", "mine 2"),
])
def test_friendly_input_normalizes(typed: str, canonical: str) -> None:
    state = new_game(2)
    assert norm(state, typed) == canonical
    assert norm(state, canonical) == canonical


def test_card_names_by_prefix_and_named_payment() -> None:
    state = new_game(2)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    assert norm(state, f"hire {outlaw} pay r") == f"buy {outlaw} pay ruby"
    assert norm(state, "buy outlaw pay gold") == f"buy {outlaw} pay gold"
    give_card(state, 0, "nudge-1")
    give_card(state, 0, "nudge-2")
    give_card(state, 0, "mayor")
    assert norm(state, "play nud gold up") == "play nudge-1 gold +1"
    assert norm(state, "play nudge-2 gold +1") == "play nudge-2 gold +1"
    assert norm(state, "command may") == "command mayor"
    assert norm(state, "buy mayor pay ruby+oxygen") == "buy mayor"


def test_single_free_junction_dock_is_inferred_or_ambiguous() -> None:
    state = new_game(5)
    with pytest.raises(AmbiguousMoveError, match="Say which Junction dock: 1, 2, 3, 4, 5, 6"):
        norm(state, "dock junction")
    for seat, dock in enumerate((1, 2, 3, 4, 6)):
        state["players"][seat]["at"] = f"junction {dock}"
    assert norm(state, "dock junction") == "dock junction 5"


@pytest.mark.parametrize(("typed", "error", "words"), [
    ("", InvalidMoveError, "empty"),
    ("fly to mars", InvalidMoveError, "'fly' is not a move"),
    ("undock now", InvalidMoveError, "takes nothing after it"),
    ("dock", InvalidMoveError, "Say where to dock"),
    ("dock space", InvalidMoveError, "use `undock`"),
    ("dock mars", InvalidMoveError, "'mars' is not a place"),
    ("dock junction 9", InvalidMoveError, "numbered 1 to 6"),
    ("dock home ann bob", InvalidMoveError, "Say `dock home`"),
    ("taxi", InvalidMoveError, "Say which Junction dock to taxi to"),
    ("load g", AmbiguousMoveError, "could be gold or gas"),
    ("load tea", InvalidMoveError, "'tea' is not a good"),
    ("load x2", InvalidMoveError, "must follow a good"),
    ("load 2", InvalidMoveError, "must be followed by a good"),
    ("load 2 3 gold", InvalidMoveError, "two counts in a row"),
    ("load gold x0", InvalidMoveError, "'x0' is not a count: write at least x1"),
    ("unload", InvalidMoveError, "name the goods for unload"),
    ("load all", InvalidMoveError, "Name the goods to load"),
    ("load ruby load gas", InvalidMoveError, "Say `load` once"),
    ("buy", InvalidMoveError, "Say which card to buy"),
    ("buy zzz", InvalidMoveError, "no card 'zzz'"),
    ("buy mayor ruby", InvalidMoveError, "buy CARD pay GOODS"),
    ("deal 7", InvalidMoveError, "stacks are 6 and 8"),
    ("deal", AmbiguousMoveError, "deal 6 or deal 8"),
    ("rustle", InvalidMoveError, "Name the ships"),
    ("rustle zed", InvalidMoveError, "no ship called 'zed'"),
    ("rustle bob bob", InvalidMoveError, "each ship once"),
    ("swap bob scrap gold", InvalidMoveError, "swap NAME give GOODS take GOODS"),
    ("swap bob scrap give gold take ruby", InvalidMoveError, "swap NAME give GOODS"),
    ("trade scrap", InvalidMoveError, "GIVE:GET"),
    ("trade scrap:gold:ruby", InvalidMoveError, "GIVE:GET"),
    ("adjust scrap 2", InvalidMoveError, "adjust DIE \\+1"),
    ("rascal", InvalidMoveError, "rascal TYPE"),
    ("rascal pilot", InvalidMoveError, "'pilot' is not a crew type"),
    ("play", InvalidMoveError, "Say which card to play"),
    ("play mayor", InvalidMoveError, "mayor is not a boost"),
    ("command nudge-1", InvalidMoveError, "nudge-1 is not a commander"),
    ("play nudge-1", InvalidMoveError, "play nudge-1 DIE \\+1\\|-1"),
    ("play nudge-1 gold 2", InvalidMoveError, "play nudge-1 DIE"),
    ("play loaded-die gold", InvalidMoveError, "DIE FACE"),
    ("play flip-die gold 2", InvalidMoveError, "play flip-die DIE"),
    ("command mayor now", InvalidMoveError, "Write `command mayor`"),
    ("command banker scrap:gold", InvalidMoveError, "DOCK GIVE:GET"),
    ("command quartermaster all", InvalidMoveError, "unload GOODS load GOODS"),
    ("pick", InvalidMoveError, "pick CARD"),
    ("justin dock home", InvalidMoveError, "Junction dock or a planet"),
])
def test_malformed_moves_are_refused_plainly(typed: str, error: type, words: str) -> None:
    state = new_game(2)
    with pytest.raises(error, match=words):
        norm(state, typed)


@pytest.mark.parametrize("typed", [
    "load gold x0",
    "load gold 0x",
    "unload gold x0",
    "unload scrap load gold x0",
    "salvage scrap x0",
    "jettison gold x00",
    "swap bob give scrap x0 take gold",
    "swap bob give scrap take gold x0",
    "trade scrap:gold x0",
    "trade scrap for gold 0",
])
def test_a_zero_count_is_refused_as_not_a_count(typed: str) -> None:
    # It used to say "'x0' must follow a good", which it does: the count is what is wrong.
    state = new_game(2)
    with pytest.raises(InvalidMoveError, match="is not a count: write at least x1") as refused:
        norm(state, typed)
    assert "must follow a good" not in str(refused.value)
    assert "GIVE:GET" not in str(refused.value)


@pytest.mark.parametrize(("moves", "words"), [
    (["buy mayor"], "mayor is not in the display"),
    (["play nudge-1 gold +1"], "You have no boost nudge-1"),
    (["command mayor"], "You have no commander mayor"),
    (["undock", "undock"], "already in space"),
    (["taxi 2"], "Taxiing needs your ship docked at the Junction"),
    (["mine"], "Mining needs your ship docked at a planet"),
    (["trade scrap:gold"], "Trading needs your ship docked at the Junction"),
    (["adjust scrap +1"], "Moving a die with an agent needs your ship docked at the Junction"),
    (["salvage scrap"], "Salvaging needs your ship in space"),
    (["deal 8"], "Super deals need your ship docked at the trinket shop"),
    (["unload all"], "Your ship is empty"),
    (["load ruby"], "Your storage holds 1 gold, not 1 ruby"),
    (["undock", "swap bob give gold take gold"], "You have no outlaws"),
    (["justin dock gas"], "Justin is not waiting for a dock"),
    (["pass", "pass", "jettison gold"], "not over its capacity"),
])
def test_illegal_moves_say_why(moves: list[str], words: str) -> None:
    state = new_game(2)
    with pytest.raises(IllegalMoveError, match=words):
        act(state, *moves)


def test_moves_out_of_turn_or_after_the_end_are_refused() -> None:
    state = new_game(2)
    with pytest.raises(IllegalMoveError, match="It is not bob's turn"):
        GAME.apply(state, 1, "pass")
    state["phase"] = "over"
    with pytest.raises(IllegalMoveError, match="The game is over"):
        GAME.apply(state, 0, "pass")
    assert not GAME.can_end_turn(state, 0)


def test_local_table_reports_the_bad_move_and_the_owed_actions() -> None:
    table = LocalTable(GAME, ["ann", "bob"], seed=b"notation")
    seat = table.to_act()
    with pytest.raises(InvalidMoveError, match="move 2 \\('dock mars'\\)"):
        table.play(["undock", "dock mars"])
    with pytest.raises(IllegalMoveError, match="the turn cannot end yet: 2 actions required, 1"):
        table.play(["undock"])
    assert table.to_act() == seat
    assert table.play(["UNDOCK", "Dock Gas"]) == ["undock", "dock gas"]
    table.state["phase"] = "over"
    with pytest.raises(TurnError, match="over"):
        table.play(["pass", "pass"])


def test_notation_documents_every_move_form() -> None:
    text = GAME.notation()
    for form in ("undock", "dock junction 3", "dock gas", "taxi 5", "load ruby x2 gas",
                 "unload all", "buy outlaw-1 pay ruby", "deal 8", "mine 2", "rustle bob cy",
                 "swap bob give scrap x2 take gold x2", "salvage gold scrap",
                 "trade scrap:gold x2", "adjust scrap -1", "rascal miner", "play nudge-1 gold +1",
                 "command mayor", "pass", "jettison scrap x2", "pick miner-2",
                 "justin dock junction 3"):
        assert form in text, form
    assert "ring order is fixed component data is withdrawn" in " ".join(text.split())
    state = new_game(2)
    for line in ("undock", "taxi 5", "mine 1", "pass", "trade scrap:gold x2", "adjust scrap -1"):
        assert norm(state, line) == line


def test_views_are_plain_data_and_render_every_public_fact() -> None:
    state = new_game(3)
    state["players"][1]["at"] = "junction 2"
    put(state, 1, "ship", ruby=2)
    give_card(state, 2, "mayor")
    state["dice"]["gold"] = 3
    for seat in (None, 0, 1):
        view = GAME.view(state, seat)
        _plain(view)
    text = GAME.render(GAME.view(state, 0))
    for fact in ("ann to act", "actions 0/2", "gold die 3", "[2: bob]", "ruby 2", "mayor",
                 state["display"][0], "Bank:", "Planets:", "Shop:", "score"):
        assert fact in text, fact
    act(state, "pass", "pass")
    end(state)
    assert "Since your last look" not in GAME.render(GAME.view(state, 1))


def _plain(value: object) -> None:
    assert value is not None
    assert not isinstance(value, (float, tuple, set))
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str)
            _plain(item)
    elif isinstance(value, list):
        for item in value:
            _plain(item)


def test_an_ambiguous_payment_names_the_moves_to_type() -> None:
    """Issue 11: the hint is the whole move (`buy outlaw-1 pay ruby`), not a fragment that
    the notation would refuse (`pay ruby`)."""
    state = new_game(2)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    put(state, 0, "storage", ruby=2, gold=3)
    with pytest.raises(AmbiguousMoveError) as caught:
        norm(state, f"buy {outlaw}")
    message = str(caught.value)
    assert f"`buy {outlaw} pay ruby`" in message and f"`buy {outlaw} pay gold`" in message
    assert norm(state, f"buy {outlaw} pay ruby") == f"buy {outlaw} pay ruby"
