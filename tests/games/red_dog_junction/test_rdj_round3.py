"""Issue items from the third clause audit of Red Dog Junction: the rules text for Posse
(RDJ-V2), the rascals' naming (RDJ-A10, in test_rdj_crew.py), Justin's boost with an empty
bank (RDJ-V5 / RDJ-F3) and the refusals of an empty supply (RDJ-F3)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdj_helpers import act, card_of, clean, give_card, new_game, put, to_display

from pbem.cli import main
from pbem.errors import IllegalMoveError
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction import __file__ as GAME_INIT

GAME_DIR = Path(GAME_INIT).parent


def test_RDJ_V2_rules_text_documents_the_posse_draft() -> None:
    """`pbem rules` said "posse (the crew draft: not yet supported)" and documented `pick`
    for Trail Boss only, though Posse plays."""
    result = CliRunner().invoke(main, ["rules", "red-dog-junction"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "not yet supported" not in text
    assert "posse (2-5 players: the crew draft" in text
    assert "pick s12                   Posse: the crew draft." in text
    assert "Set-up choice (Trail Boss only)" not in text
    assert "- Posse (2-5 players): the rulebook's draft" in text


def test_RDJ_V2_the_rules_text_says_a_passed_hand_is_put_in_a_secret_order() -> None:
    """`pbem rules` and RULINGS.md said a passed Posse hand keeps its slot ids, "so a
    player who held a hand knows which card each later holder takes": untrue, since the
    receiver puts the hand in a secret order (posse.py; in rules version 3 under fresh
    ids, in version 4 in the entry where it picks from it)."""
    text = CliRunner().invoke(main, ["rules", "red-dog-junction"]).output
    rulings = (Path(GAME_DIR) / "RULINGS.md").read_text("utf-8")
    for said in (" ".join(text.split()), " ".join(rulings.split())):
        assert "Slot ids stay the same" not in said
        assert "knows which card each later holder takes" not in said
        assert ("A passed hand is put under keys of its receiver's own in a secret order, "
                "in the entry where the receiver picks from it, so no earlier holder can "
                "follow a card") in said


def _justin_takes(state: dict, ident: str, seed: bytes = b"j") -> tuple[dict, dict]:
    """The human passes; Justin's turn takes ``ident`` (last in the display). Returns the
    states before and after the entry, as `show` and `log` describe them."""
    to_display(state, ident, last=True)
    before = copy.deepcopy(state)
    act(state, "pass", "pass", "pass")
    GAME.end_turn(state, 0)
    GAME.resolve(state, state.pop("pending")[0], Sampler(seed))
    state["pending"] = []
    return before, state


def _drained(state: dict, good: str = "gold") -> None:
    """The bank's ``good`` parked in the human's storage (tests only)."""
    put(state, 0, "storage", **{good: state["bank"][good]})
    state["bank"][good] = 0


def test_RDJ_V5_justins_boost_with_the_bank_empty_says_he_gains_nothing() -> None:
    """With the bank empty Justin correctly gained nothing, but `show` and `log` said
    "Justin took cargo-net: 1 gold from the bank to his home base"."""
    state = new_game(1)
    _drained(state)
    before, after = _justin_takes(state, "cargo-net")
    assert after["justin"]["storage"]["gold"] == before["justin"]["storage"]["gold"]
    assert "cargo-net" in after["discard"]
    told = "\n".join(GAME.describe(before, after, 0)) + "\n".join(after["last"])
    assert "1 gold from the bank" not in told
    assert ("Justin took cargo-net (a boost, discarded): the gold supply (the bank) is "
            "empty, so he gains nothing.") in told
    assert "Justin took cargo-net: 1 gold" not in GAME.render(GAME.view(after, None))


def test_RDJ_V5_justins_boost_with_gold_in_the_bank_still_takes_one() -> None:
    state = new_game(1)
    before, after = _justin_takes(state, "cargo-net")
    assert after["justin"]["storage"]["gold"] == before["justin"]["storage"]["gold"] + 1
    assert any("Justin took cargo-net: 1 gold from the bank to his home base." in line
               for line in GAME.describe(before, after, 0))


def test_RDJ_F3_justins_turns_say_when_a_supply_is_empty() -> None:
    """His miner at an empty planet, his agent and his rascal's deal with an empty bank."""
    state = new_game(1)
    _drained(state)
    put(state, "justin", "ship", scrap=2)
    _, after = _justin_takes(state, card_of(state, "agent"))
    assert any("the gold supply (the bank) is empty, so he trades nothing" in line
               for line in after["last"])
    state = new_game(1)
    _drained(state)
    _, after = _justin_takes(state, "rascal-1")
    assert any("the gold supply (the bank) is empty, so no gold comes with it" in line
               for line in after["last"])
    state = new_game(1)
    put(state, 0, "storage", gas=state["planets"]["gas"])
    state["planets"]["gas"] = 0
    _, after = _justin_takes(state, card_of(state, "miner"))
    before = copy.deepcopy(after)
    act(after, "justin dock gas")
    assert any("the gas supply (the gas planet) is empty, so he mines nothing" in line
               for line in GAME.describe(before, after, 0))


@pytest.mark.parametrize(("arrange", "moves", "words"), [
    ("planet", ["mine"], r"The gas supply \(the gas planet\) is empty: mining would gain"),
    ("bank", ["command mayor"], r"The gold supply \(the bank\) is empty: The Mayor's tax "
                                "would gain nothing"),
    ("whiskey", ["play windfall"], r"The whiskey supply \(the bank\) is empty: Windfall would "
                                   "gain nothing"),
    ("space", ["undock", "salvage scrap"], r"Nothing lies in space \(the supply of goods to "
                                           "salvage is empty\\): salvaging would gain nothing"),
    ("bank", ["trade scrap:gold"], r"The gold supply \(the bank\) is empty: 3 scrap for gold "
                                   "would gain nothing"),
])
def test_RDJ_F3_every_refusal_of_an_empty_supply_says_the_supply_is_empty(
        arrange: str, moves: list[str], words: str) -> None:
    state = new_game(2)
    player = state["players"][0]
    if arrange == "planet":
        player["at"] = "gas"
        put(state, 1, "storage", gas=state["planets"]["gas"])
        state["planets"]["gas"] = 0
    elif arrange in ("bank", "whiskey"):
        _drained(state, "gold" if arrange == "bank" else "whiskey")
    else:
        put(state, 1, "storage", **{g: n for g, n in state["space"].items() if n})
        state["space"] = {g: 0 for g in state["space"]}
    give_card(state, 0, "mayor")
    give_card(state, 0, "windfall")
    state["dice"].update(scrap=3, gold=1)
    if moves[0].startswith("trade"):
        player["at"] = "junction 1"
        put(state, 0, "ship", scrap=3)
    *first, last = moves
    act(state, *first)
    with pytest.raises(IllegalMoveError, match=words):
        act(state, last)
    legal = GAME.legal_moves(state, 0)
    assert not any(m.startswith(last.split()[0] + " " + last.split()[1]) for m in legal
                   if len(last.split()) > 1) and "mine" not in " ".join(legal)
    clean(state)
