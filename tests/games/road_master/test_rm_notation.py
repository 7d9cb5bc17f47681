"""Notation: friendly input is normalised to one canonical string; bad input is refused."""

from __future__ import annotations

import pytest
from rm_support import give, load_truck, placed, table

from pbem.game import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem_games.road_master import GAME


@pytest.mark.parametrize(("typed", "canonical"), [
    ("LOAD Orange X2 purple", "load orange x2 purple"),
    ("load 2 or pu", "load orange x2 purple"),
    ("ld purple, orange 2", "load orange x2 purple"),
    ("load orange x 2", "load orange x2"),
    ("load orange\tX \t2", "load orange x2"),
    ("ld2 orange", "load orange x2"),
    ("dump y", "dump yellow"),
    ("contracts 5 m2 deck", "contracts m2 m5 top"),
    ("take top m9", "contracts m9 top"),
    ("sb", "superbonus"),
    ("policy go", "policy push"),
])
def test_friendly_variants(typed: str, canonical: str) -> None:
    t = placed(2, where="C", hazardous=True)
    assert GAME.normalize(t.state, 0, typed) == canonical


def test_forward_and_backward_variants() -> None:
    t = placed(2, where="C")
    state = t.state
    assert GAME.normalize(state, 0, "f2 exit w") == "forward 2 exit west"
    assert GAME.normalize(state, 0, "Forward 1 EXIT east LEFT") == "forward 1 exit east left"
    assert GAME.normalize(state, 0, "fwd 2 west") == "forward 2 exit west"
    state["trucks"][0].update(where="road", x=7, lane="south", heading="east")
    assert GAME.normalize(state, 0, "forward 3 in c") == "forward 3 into C"
    assert GAME.normalize(state, 0, "back") == "backward"
    assert GAME.normalize(state, 0, "reverse into b") == "backward into B"


def test_unload_variants_imply_the_contract_colour() -> None:
    t = placed(2, where="D")
    give(t.state, 0, "c12")
    give(t.state, 0, "c45")
    load_truck(t.state, 0, "purple", 2)
    assert GAME.normalize(t.state, 0, "unload c12 x2") == "unload c12 purple x2"
    assert GAME.normalize(t.state, 0, "ul c45 2 brown, c12") == "unload c12 purple c45 brown x2"
    with pytest.raises(IllegalMoveError, match="c99 is not one of your contracts"):
        GAME.normalize(t.state, 0, "unload c99 x2")


@pytest.mark.parametrize(("typed", "error", "message"), [
    ("", InvalidMoveError, "empty"),
    ("fly 3", InvalidMoveError, "not a Road Master move"),
    ("forward", InvalidMoveError, "how far"),
    ("forward 2 sideways", InvalidMoveError, "does not belong"),
    ("load b", AmbiguousMoveError, "blue or brown"),
    ("load pink", InvalidMoveError, "not a cube colour"),
    ("load 2", InvalidMoveError, "count without a colour"),
    ("contracts m12", InvalidMoveError, "no market slot m12"),
    ("contracts m1 m1", InvalidMoveError, "named twice"),
    ("contracts top top", InvalidMoveError, "only once"),
    ("place Q", InvalidMoveError, "Say which warehouse"),
    ("policy maybe", InvalidMoveError, "policy stop"),
    ("keep", InvalidMoveError, "Say which cards"),
    ("superbonus now", InvalidMoveError, "no arguments"),
    ("unload purple", InvalidMoveError, "Name a contract first"),
])
def test_invalid_input_is_refused_with_a_reason(typed, error, message) -> None:
    t = placed(2, where="C")
    with pytest.raises(error, match=message):
        GAME.normalize(t.state, 0, typed)


def test_every_legal_move_is_canonical() -> None:
    """normalize(m) == m for the legal moves of a few varied positions."""
    t = placed(3, where="D", hazardous=True)
    give(t.state, 0, "c12")
    load_truck(t.state, 0, "purple", 2)
    for state in (t.state, table(2).state):
        seat = GAME.to_act(state)
        assert seat is not None
        for move in GAME.legal_moves(state, seat):
            assert GAME.normalize(state, seat, move) == move


def test_notation_documents_every_move_form() -> None:
    text = GAME.notation()
    for form in ("place C", "forward 3", "forward 2 exit west", "backward", "load orange x2 purple",
                 "unload c17 orange x2", "dump blue", "contracts m2 m5 top", "superbonus",
                 "keep s3 s7", "bottom s1 s2 s5", "policy push"):
        assert form in text


def test_rules_text_states_the_play_by_email_rulings() -> None:
    """`pbem rules road-master` says the default boom policy, that the Super Bonus choice
    waits for the next turn, the stall rule (RM-X1), the lone-truck and dump rulings."""
    text = " ".join(GAME.notation().split())
    for sentence in (
        "`policy stop` (the default: the turn ends there)",
        "The keep/return choice waits until the start of your next turn",
        "Stall rule (RM-X1): the game also ends after 20 complete rounds in which no score "
        "changed, or 10 such rounds once the contract deck is spent",
        "A round is counted once, after its boom cards are drawn",
        "A lone truck never seals a warehouse",
        "only colours none of your open contracts needs",
        "Contracts and Super Bonus are safe",
        "`contracts top` takes that very card",
    ):
        assert sentence in text, sentence


def test_rulings_file_keeps_the_revised_rulings_in_the_repository() -> None:
    """games/road_master/RULINGS.md gives the rulings the game follows (RM-M1 pass-through,
    RM-M5 for backward moves, RM-M7 backing out, RM-H5 policy by position), standing alone:
    no path outside the repository."""
    from pathlib import Path

    import pbem_games.road_master as package

    text = " ".join((Path(package.__file__).parent / "RULINGS.md").read_text("utf-8").split())
    for sentence in (
        "A forward move may pass through a warehouse",
        "pbem holds every move to it, forward and backward",
        "out of a warehouse** onto its road space, in the right lane of the heading the truck "
        "came in with",
        "A policy holds from where it stands among the turn's moves until the next `policy` move.",
        "Cards out of the game are public",
    ):
        assert sentence in text, sentence
    assert "shared/" not in text and "../" not in text
