"""What an entry changed, in words (Game.describe): every public fact, in order.

Entries are played here as the engine plays them: the chance queued by the entry before
is resolved first (by this entry's beacon), then the moves, then the end of the turn; the
account is ``describe(state before, state after)``. One test goes through the signed
engine (session), the way `play` and `--dry-run` print it.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from rdj_helpers import (
    HANDLES,
    card_of,
    give_card,
    hire,
    new_game,
    put,
    resolve_all,
    stock,
    to_display,
)

from pbem import session
from pbem.play import bots
from pbem.protocol.crypto.identity import Home
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.state import place_label, tile


def entry(state: dict[str, Any], *moves: str, seed: bytes = b"chance") -> list[str]:
    """One turn entry for whoever acts, in place; returns describe's lines."""
    before = copy.deepcopy(state)
    resolve_all(state, seed)
    seat = state["current"]
    for text in moves:
        GAME.apply(state, seat, GAME.normalize(state, seat, text))
    GAME.end_turn(state, seat)
    return GAME.describe(before, state, seat)


def has(lines: list[str], *words: str) -> bool:
    return any(all(w in line for w in words) for line in lines)


def test_the_start_entry_tells_the_whole_set_up() -> None:
    """Dice rolled and where they went, the first player, gold and the display."""
    before = GAME.setup(HANDLES[:3], {"variant": "standard"}, stock())
    before["seats"] = HANDLES[:3]
    after = copy.deepcopy(before)
    resolve_all(after, b"start")
    lines = GAME.describe(before, after, 0)
    first = after["seats"][after["first"]]
    assert lines[0] == f"First player: {first}."
    ring = ", ".join(f"{d} {after['dice'][d]}" for d in after["ring"])
    assert has(lines, "six dice were rolled and placed around the Junction", ring,
               "gold die shows 1")
    assert has(lines, "Starting gold into storage", f"{first} 1")
    assert has(lines, "The display is dealt", *after["display"])
    assert has(lines, "The bank: gold 26 -> 22")
    assert has(lines, "Scores:", f"{first} 0 -> 1")


def test_a_turn_tells_each_move_and_the_chance_it_leaves() -> None:
    state = new_game(2)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    hire(state, 0, "miner")
    lines = entry(state, "undock", "dock gas")
    assert lines == ["ann undocked from home base into space.",
                     "ann docked at the gas planet."]
    entry(state, "pass", "pass")  # bob
    lines = entry(state, "mine 1", "mine")
    assert lines[:2] == ["ann mined 1 gas at the gas planet with 1 miner.",
                         "ann mined 2 gas at the gas planet with 2 miners."]
    # 3 gas on a ship of 3 cowboys: nothing to jettison; 4 would be.
    entry(state, "pass", "pass")
    put(state, 0, "ship", scrap=3)
    lines = entry(state, "undock", "dock junction 1", "jettison gas x3")
    assert lines == ["ann undocked from the gas planet into space.",
                     "ann docked at Junction dock 1 (scrap 3, whiskey 5, gold 1).",
                     "ann jettisoned 3 gas into space (over the capacity of 3)."]


def test_trades_dice_and_the_bank() -> None:
    state = new_game(2)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    state["players"][0]["at"] = "junction 1"
    hire(state, 0, "agent")
    put(state, 0, "ship", scrap=3)
    bank = state["bank"]["gold"]
    lines = entry(state, "adjust scrap -1", "trade scrap:gold", "pass")
    assert lines[0] == "ann had an agent: turned the scrap die from 3 to 2."
    assert lines[1] == ("ann traded 2 scrap for 1 gold at Junction dock 1 (1 trade at scrap 2, "
                        "gold 1).")
    assert f"The bank: gold {bank} -> {bank - 1}." in lines
    assert not has(lines, "Scores")  # gold on a ship scores nothing


def test_buying_refills_and_the_next_entry_tells_the_draw() -> None:
    state = new_game(2)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    put(state, 0, "storage", ruby=2)
    lines = entry(state, f"buy {outlaw} pay ruby", "pass")
    assert lines[0] == (f"ann bought {outlaw} (an outlaw, 2 vp) from the display for 2 ruby "
                        "from storage.")
    assert "Scores: ann 1 -> 3." in lines
    assert lines[-1] == "Chance waiting for the next entry: display refill of 1 card(s)."
    lines = entry(state, "pass", "pass")  # bob's entry resolves the refill first
    assert lines[0].startswith(f"Display refilled with {state['display'][0]} (")
    assert lines[1] == "bob passed (an action doing nothing)."


def test_super_deals_home_and_score() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "shop"
    top = state["stacks"]["8"][0]
    put(state, 0, "ship", **tile(state, top)["cost"])
    lines = entry(state, "deal 8", "undock", "jettison gold x5")
    assert lines[0].startswith(f"ann completed super deal {top} (8-gold stack): paid ")
    assert "took 8 gold from the bank onto the ship and the tile (1 point)" in lines[0]
    assert "Scores: ann 1 -> 2." in lines
    entry(state, "pass", "pass")
    lines = entry(state, "dock home", "unload all")
    assert lines[1] == "ann unloaded 3 gold into storage."
    assert "Scores: ann 2 -> 5." in lines


def test_crews_cards_and_the_rascal() -> None:
    state = new_game(3)
    for ident in ("rascal-1", "nudge-1", "mayor"):
        give_card(state, 0, ident)
    hire(state, 0, "rustler")
    state["players"][1]["at"] = "gas"
    lines = entry(state, "rascal rustler", "rustle ann bob", "play nudge-1 gold +1")
    assert lines[0] == "ann named the rascals: they count as rustlers this turn."
    assert lines[1] == ("ann sent rustlers: undocked ann's ship (from home base) and bob's ship "
                        "(from the gas planet) into space.")
    assert lines[2] == "ann played the boost nudge-1: turned the gold die from 1 to 2."
    assert lines[3] == "ann's played boosts go to the discard pile: nudge-1."
    entry(state, "pass", "pass")
    entry(state, "pass", "pass")
    lines = entry(state, "rascal cowboy", "command mayor", "pass")
    assert lines[1] == "ann used the commander The Mayor: took 1 gold from the bank into storage."


def test_outlaws_and_scavengers_in_space() -> None:
    state = new_game(2)
    hire(state, 0, "outlaw")
    state["players"][0]["at"] = state["players"][1]["at"] = "space"
    put(state, 0, "ship", scrap=2)
    put(state, 1, "ship", gold=2)
    state["space"]["gold"] += 1
    state["bank"]["gold"] -= 1
    lines = entry(state, "swap bob give scrap x2 take gold x2", "salvage gold")
    assert lines == ["ann sent outlaws in space: swapped 2 scrap for bob's 2 gold.",
                     "ann salvaged: took 1 gold from space onto the ship."]


def test_the_gold_end_trigger_and_the_result() -> None:
    state = new_game(2)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    state["players"][0]["at"] = "junction 1"
    put(state, 1, "storage", gold=state["bank"]["gold"] - 1)
    put(state, 0, "ship", scrap=3)
    lines = entry(state, "trade scrap:gold", "pass")
    assert lines[1].startswith("The bank's last gold is gone: every player, starting with the "
                               "next, takes exactly 2 more turns; the game ends after turn")
    assert "The bank: gold 1 -> 0." in lines
    for _ in range(3):
        lines = entry(state, "pass", "pass")
    lines = entry(state, "pass", "pass")
    assert GAME.to_act(state) is None
    assert "The last turns are played: the game ends." in lines
    assert lines[-1].startswith("Final scores: ann ") and lines[-1].endswith("bob wins.")


def test_solo_justins_turn_opens_the_humans_next_entry() -> None:
    state = new_game(1, seed=b"solo")
    to_display(state, "miner-1", last=True)
    lines = entry(state, "pass", "pass", "pass")
    assert lines[-1] == "Chance waiting for the next entry: Justin's turn."
    lines = entry(state, "justin dock ice", "pass", "pass", "pass")
    assert lines[0] == "Justin took miner-1: to a free planet ann names, to mine 3."
    assert lines[1].startswith("Display refilled with ")  # after his turn, his refill
    assert lines[2] == "Justin docked at the ice planet (named by ann) and mined 3 ice."
    assert lines[3] == "ann passed (an action doing nothing)."


def test_solo_result_when_justin_wins() -> None:
    state = new_game(1, seed=b"solo")
    state["justin"]["stack"].append(state["deck"].pop(state["deck"].index("mayor")))
    state["end"].update(gold_fired=True, end_after=state["turn"])
    lines = entry(state, "pass", "pass", "pass")
    assert lines[-1] == "Final scores: ann 1, Justin 6: Justin wins."
    shown = GAME.view(state, 0)
    assert shown["result"] == {"scores": {"ann": 1, "Justin": 6}, "winners": ["Justin"],
                               "text": "Final scores: ann 1, Justin 6: Justin wins."}
    assert "Final scores: ann 1, Justin 6: Justin wins." in GAME.render(shown)


def test_an_entry_with_nothing_new_says_nothing() -> None:
    state = new_game(2)
    entry(state, "pass", "pass")
    assert GAME.describe(state, copy.deepcopy(state), 1) == []


def test_play_and_dry_run_print_the_account(tmp_path: Path) -> None:
    """Through the signed engine: the entry's account as `play` prints it."""
    homes = {h: Home(tmp_path / h) for h in ("ann", "bob")}
    for handle, home in homes.items():
        home.keygen(handle)
    written = session.new_game(homes["ann"], "red-dog-junction", ["ann", "bob"], [], None,
                               folder=tmp_path)
    written = session.sign_next(homes["bob"], written.path, "join", [], None, None)
    written = session.sign_next(homes["ann"], written.path, None, [], None, None)
    first = written.table.seats[written.table.gstate["first"]].handle
    trial = session.sign_next(homes[first], written.path, None, ["undock", "pass"], None, None,
                              dry_run=True)
    lines = trial.changes()
    assert lines == [f"{first} undocked from home base into space.",
                     f"{first} passed (an action doing nothing)."]


# ---- completeness over whole random games ---------------------------------------------------
def _owners(state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found = [(name, state["players"][i]) for i, name in enumerate(state["seats"])]
    return found + ([("Justin", state["justin"])] if state["solo"] else [])


def _unsaid(before: dict[str, Any], after: dict[str, Any], lines: list[str]) -> list[str]:
    """Public changes between two states that no line tells: each owner's moves, goods and
    cards (in a line naming the owner), the dice, the display, the bank, the end."""
    text = " ".join(lines)
    missing = []
    for (name, old), (_, new) in zip(_owners(before), _owners(after), strict=True):
        told = " ".join(line for line in lines if name in line)
        if old["at"] != new["at"] and place_label(new["at"]) not in told:
            missing.append(f"{name} to {new['at']}")
        for key in ("ship", "storage"):
            missing += [f"{name}'s {key} {good}" for good, n in new[key].items()
                        if old[key][good] != n and good not in told]
        for key in ("crew", "commanders", "boosts", "deals", "stack"):
            missing += [f"{name}'s {key} {c}" for c in new.get(key, [])
                        if c not in old.get(key, []) and c not in told]
    for die, face in after["dice"].items():
        turned = any(f"{die} die from " in line and f" to {face}" in line for line in lines)
        if before["dice"][die] != face and not turned and f"{die} {face}" not in text:
            missing.append(f"the {die} die")
    missing += [f"display card {c}" for c in after["display"]
                if c not in before["display"] and c not in text]
    for good in ("gold", "whiskey"):
        if before["bank"][good] != after["bank"][good] and \
                f"{good} {before['bank'][good]} -> {after['bank'][good]}" not in text:
            missing.append(f"bank {good}")
    if after["end"]["gold_fired"] and not before["end"]["gold_fired"] and \
            "last gold is gone" not in text:
        missing.append("the gold end trigger")
    if after["phase"] == "over" and before["phase"] != "over" and "Final scores" not in text:
        missing.append("the result")
    return missing


@pytest.mark.parametrize(("players", "variant"), [(1, "standard"), (2, "trail-boss"),
                                                  (3, "standard"), (4, "standard")])
def test_every_public_change_of_a_random_game_is_told(players: int, variant: str) -> None:
    rng = Sampler(f"describe-{players}".encode())
    state = GAME.setup(HANDLES[:players], {"variant": variant}, stock())
    state["seats"] = HANDLES[:players]
    for number in range(300):
        before = copy.deepcopy(state)
        resolve_all(state, f"entry-{number}".encode())
        seat = GAME.to_act(state)
        if seat is None:
            lines = GAME.describe(before, state, 0)
            assert not _unsaid(before, state, lines), lines
            break
        if number:  # the start entry holds no moves
            for _ in range(12):
                legal = GAME.legal_moves(state, seat)
                if not legal or (GAME.can_end_turn(state, seat) and rng.randbelow(3) == 0):
                    break
                GAME.apply(state, seat, legal[rng.randbelow(len(legal))])
            if not GAME.can_end_turn(state, seat):
                for move in bots.choose_turn(GAME, state, seat, "random:1"):
                    GAME.apply(state, seat, move)
            GAME.end_turn(state, seat)
        lines = GAME.describe(before, state, seat)
        missing = _unsaid(before, state, lines)
        assert not missing, (number, missing, lines)
