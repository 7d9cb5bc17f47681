"""The greedy bot and Super Bonus cards: it takes them when a draw is worth more than
the contracts token's other use, keeps the cards its deliveries can meet, and knows only
what its seat knows: its own cards through ``secrets``, never another seat's."""

from __future__ import annotations

import copy

import pytest
from rm_support import NAMES, fill, give, placed

from pbem.play.bots import choose_turn
from pbem.play.local import LocalTable
from pbem.protocol.crypto import secretdeck
from pbem_games.road_master import GAME

DECK = "superbonus"


def _mine(state: dict, seat: int) -> dict[str, dict[str, str]]:
    """What ``seat`` may read of the secret deck (as the engine gives a bot)."""
    return {DECK: secretdeck.readable_plain(state["secret"][DECK], seat)}


def _rig_top(state: dict, uids: list[str]) -> None:
    """Put the Super Bonus cards ``uids`` on top of the pile, in this order (plain mode)."""
    d = state["secret"][DECK]
    by_card = {v["card"]: s for s, v in d["slots"].items() if v["status"] == "deck"}
    top = [by_card[u] for u in uids]
    d["order"] = top + [s for s in d["order"] if s not in top]


def _delivered_ann(t: LocalTable) -> None:
    """ann has delivered 3 purple and 3 brown (c20 to F, c47 to D: complete)."""
    for uid in ("c20", "c47"):
        if uid not in t.state["market"] and uid not in t.state["deck"]:
            pytest.skip(f"{uid} left the game at set-up")
        give(t.state, 0, uid)
        fill(t.state, 0, uid, 3)


def test_greedy_keeps_the_super_bonus_its_deliveries_meet_and_returns_the_rest() -> None:
    t = placed(2)
    _delivered_ann(t)
    _rig_top(t.state, ["b6", "b1", "b2", "b3", "b4", "b5"])  # b6: 3 purple + 3 brown
    t.play(["superbonus"])
    t.play([])
    t.prepare()
    moves = choose_turn(GAME, t.state, 0, "greedy:1", secrets=_mine(t.state, 0))
    drawn = secretdeck.drawn(t.state, DECK, 0)
    assert moves[0] == f"keep {drawn[0]}", moves
    assert moves[1].startswith("bottom ") and len(moves[1].split()) == 6
    t.play(moves)
    assert len(secretdeck.held(t.state, DECK, 0)) == 1


def test_greedy_without_its_secrets_keeps_nothing_it_cannot_judge() -> None:
    """Without ``secrets`` (a bot that was not given its cards) nothing is kept blind."""
    t = placed(2)
    _delivered_ann(t)
    _rig_top(t.state, ["b6", "b1", "b2", "b3", "b4", "b5"])
    t.play(["superbonus"])
    t.play([])
    t.prepare()
    moves = choose_turn(GAME, t.state, 0, "greedy:1")
    assert not [m for m in moves if m.startswith("keep")]


def test_greedy_takes_super_bonus_when_a_draw_is_worth_it() -> None:
    """With cubes delivered that many cards can use, and nothing better for the contracts
    token, a draw pays: the greedy bot takes Super Bonus."""
    t = placed(2, where="F")
    _delivered_ann(t)
    for uid in ("c13", "c14", "c11"):  # open contracts enough: more would only risk penalties
        if uid in t.state["market"] or uid in t.state["deck"]:
            give(t.state, 0, uid)
    assert GAME.heuristic_knowing(_after(t.state, "superbonus"), 0, _mine(t.state, 0)) > \
        GAME.heuristic_knowing(t.state, 0, _mine(t.state, 0))
    moves = choose_turn(GAME, t.state, 0, "greedy:1", secrets=_mine(t.state, 0))
    assert "superbonus" in moves, moves


def _after(state: dict, move: str) -> dict:
    trial = copy.deepcopy(state)
    GAME.apply(trial, 0, move)
    return trial


def test_the_heuristic_reads_no_card_but_the_seats_own_secrets() -> None:
    """Permuting which card lies in which slot, other than the cards ``secrets`` names,
    changes nothing the bot computes: it cannot peek at the plain deck's slots (in a
    signed game they are ciphertexts anyway)."""
    t = LocalTable(GAME, NAMES[:3], {"first": "ann"}, seed=b"peek")
    for _ in range(3):
        t.play([f"place {'ACE'[len(t.history) % 3]}"])
    t.play(["superbonus"])
    t.play(["superbonus"])
    t.play([])
    t.prepare()
    state = t.state
    mine = _mine(state, 0)
    base = [GAME.heuristic_knowing(state, seat, mine if seat == 0 else {}) for seat in range(3)]
    d = state["secret"][DECK]
    hidden = [s for s, v in d["slots"].items() if s not in mine[DECK]]
    cards = [d["slots"][s]["card"] for s in hidden]
    for shift in (1, 5):
        trial = copy.deepcopy(state)
        rotated = cards[shift % len(cards):] + cards[:shift % len(cards)]
        for slot, card in zip(hidden, rotated, strict=True):
            trial["secret"][DECK]["slots"][slot]["card"] = card
        again = [GAME.heuristic_knowing(trial, s, mine if s == 0 else {}) for s in range(3)]
        assert again == base


@pytest.mark.heavy
@pytest.mark.slow
def test_a_greedy_demo_draws_super_bonus_cards_and_audits_clean(tmp_path) -> None:
    """Issue 12: `pbem demo road-master --players 4` shows the secret deck in use."""
    from pbem import demo

    lines: list[str] = []
    result = demo.run("road-master", 4, [], "greedy", str(tmp_path), echo=lines.append)
    assert result.report.audit == "clean"
    assert any("superbonus" in line for line in lines)
    assert any(line.split()[3:4] == ["keep"] or "; keep " in line or " keep s" in line
               for line in lines)
