"""Many random games, 2 to 6 players, with and without the advanced options.

Moves are drawn uniformly from legal_moves (plus 'end the turn' when allowed) with a
seeded Sampler. After every move: cubes and cards are conserved (invariants), and every
legal move listed is canonical; once a turn, every listed move applies without error;
every seat's view is free of other seats' Super Bonus cards. Some games use a low end
target (edited component data) so that endings, the final choice and the reveal run.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re

import pytest
from rm_support import NAMES

from pbem.game import copy_state
from pbem.play.local import LocalTable
from pbem.protocol.crypto import secretdeck
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.road_master import GAME
from pbem_games.road_master.turn import pending_secret_choice
from tests.support import scale

END = "<end>"
OPTION_SETS = [{}, {"hazardous": True}, {"perishable": True},
               {"hazardous": True, "perishable": True, "shortages": False}]


def _low_target(target: int) -> dict:
    data = copy.deepcopy(GAME.stock_components())
    data["rules"]["end_score"] = {str(n): target for n in range(2, 7)}
    return data


def _secret_cards(state: dict, seat: int) -> set[str]:
    """Cards behind ``seat``'s drawn and held slots (test-only peek at plain mode)."""
    d = state["secret"]["superbonus"]
    return {v["card"] for v in d["slots"].values() if v["owner"] == seat and v["status"] != "deck"}


ALL_CARDS = {card["id"] for card in GAME.stock_components()["cards"]["superbonus"]}
# Card ids are word characters only, so a card is named in a text exactly when it is one of
# the text's words (what the regular expression \b{uid}\b finds), looked up in one pass.
assert all(re.fullmatch(r"\w+", uid) for uid in ALL_CARDS)


def _check_views(t: LocalTable) -> None:
    all_cards = ALL_CARDS
    n = len(t.state["scores"])
    revealed = t.state["sb"]["revealed"]
    for seat in [None, *range(n)]:
        words = set(re.findall(r"\w+", json.dumps(t.view(seat))))
        mine = _secret_cards(t.state, seat) if seat is not None else set()
        for uid in all_cards - mine:
            if revealed and uid in t.state["sb"]["opened"].values():
                continue
            assert uid not in words, f"{uid} leaks into the view of seat {seat}"
        assert GAME.render(t.view(seat))


def play_random(players: int, options: dict, seed: bytes, cap: int, components=None,
                bias: bool = False) -> LocalTable:
    opts = dict(options)
    t = LocalTable(GAME, NAMES[:players], opts, seed=seed, components=components)
    rng = Sampler(hashlib.sha256(b"moves/" + seed).digest())
    for turn in range(cap):
        t.prepare()
        seat = t.to_act()
        if seat is None:
            break
        moves = _pick_turn(t, seat, rng, check_all=turn % 7 == 0, bias=bias)
        t.play(moves)
        assert GAME.invariants(t.state) == []
        # hazard.py logs a queued action it cannot replay: every one was checked when played
        assert not [line for line in t.state["log"] if "could not be" in line]
        if turn % 4 == 0:
            _check_views(t)
    return t


PRODUCTIVE = ("unload", "load", "contracts")


def _pick_turn(t: LocalTable, seat: int, rng: Sampler, check_all: bool, bias: bool = False) -> list[str]:
    working = copy_state(t.state)
    chosen: list[str] = []
    for step in range(40):
        moves = GAME.legal_moves(working, seat)
        assert len(moves) < 400
        for move in moves:
            assert GAME.normalize(working, seat, move) == move
        if check_all and step == 0:
            for move in moves:
                GAME.apply(copy_state(working), seat, move)
        can_end = GAME.can_end_turn(working, seat)
        assert moves or can_end, "a seat is stuck: no move and the turn cannot end"
        pool = moves + ([END] if can_end else [])
        useful = [m for m in moves if m.startswith(PRODUCTIVE) or " into " in m]
        if bias and useful and rng.randbelow(2):
            pool = useful  # half the time, a uniform pick among the moves that score
        move = pool[rng.randbelow(len(pool))]
        if move == END:
            break
        GAME.apply(working, seat, move)
        chosen.append(move)
        assert GAME.invariants(working) == [], move
    return chosen


def _finish(t: LocalTable, rng: Sampler):
    """The final step: owed Super Bonus choices, then the reveal and the outcome."""
    n = len(t.state["scores"])
    for seat in range(n):
        for _ in range(10):
            moves = GAME.legal_moves(t.state, seat)
            if not pending_secret_choice(t.state, seat):
                break
            GAME.apply(t.state, seat, moves[rng.randbelow(len(moves))])
    out = t.finish()
    assert out is not None
    assert sorted(s for group in out.ranking for s in group) == list(range(n))
    assert set(out.scores) == set(range(n))
    for seat in range(n):
        parts = out.breakdown[seat]
        assert sum(parts.values()) == out.scores[seat]
    _check_views(t)
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("options", OPTION_SETS, ids=["basic", "hazardous", "perishable", "both"])
def test_random_games_keep_invariants(players: int, options: dict) -> None:
    seed = f"prop/{players}/{sorted(options.items())}".encode()
    t = play_random(players, options, seed, cap=12 * players)
    assert GAME.invariants(t.state) == []


def _to_the_end(players: int, options: dict, target: int) -> None:
    seed = f"end/{players}/{sorted(options.items())}".encode()
    rng = Sampler(hashlib.sha256(b"final/" + seed).digest())
    for attempt in range(3):
        t = play_random(players, options, seed + bytes([attempt]), cap=300,
                        components=_low_target(target), bias=True)
        t.prepare()
        if t.to_act() is None:
            _finish(t, rng)
            return
    pytest.fail("no random game reached the end within 300 turns")


@pytest.mark.parametrize(("players", "options"), [
    (2, OPTION_SETS[3]), (3, OPTION_SETS[0]), (4, OPTION_SETS[1]), (5, OPTION_SETS[2]),
    (6, OPTION_SETS[0]),
])
def test_random_games_to_the_end(players: int, options: dict) -> None:
    """With a low target, random games end; the final choice, reveal and outcome run."""
    _to_the_end(players, options, target=6)


OPTION_IDS = ["basic", "hazardous", "perishable", "both"]
EVERY = [(players, i) for i in range(4) for players in range(2, 7)]
# Quick: each player count once and each option set at least once (with the five above).
TO_THE_END = scale.cases(EVERY, [(p, i) for p, i in EVERY if (p + i) % 4 == 1])


@pytest.mark.slow
@pytest.mark.parametrize(("players", "option_set"), TO_THE_END,
                         ids=[f"{OPTION_IDS[i]}-{p}" for p, i in TO_THE_END])
def test_random_games_to_the_end_every_option(players: int, option_set: int) -> None:
    _to_the_end(players, OPTION_SETS[option_set], target=12)


def test_super_bonus_cards_never_leak_in_a_long_game() -> None:
    """Super Bonus taken often: views hold only the viewer's own cards."""
    t = LocalTable(GAME, NAMES[:3], {"first": "ann"}, seed=b"leak")
    for _ in range(3):
        t.play(["place C"])
    for _ in range(9):
        t.prepare()
        seat = t.to_act()
        assert seat is not None
        moves = []
        if pending_secret_choice(t.state, seat):
            drawn = secretdeck.drawn(t.state, "superbonus", seat)
            moves = [f"keep {drawn[0]}", "bottom " + " ".join(drawn[1:])]
        if secretdeck.remaining(t.state, "superbonus"):
            moves.append("superbonus")
        t.play(moves)
        _check_views(t)
    held = secretdeck.counts(t.state, "superbonus")
    assert sum(held.values()) >= 3
