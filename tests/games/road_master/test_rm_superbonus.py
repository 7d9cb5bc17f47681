"""Super Bonus cards: the secret-deck flow in plain mode (RM-A10), scoring (RM-A11, A12,
G4) with the best assignment of delivered cubes, and the choice owed at the game's end."""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rm_support import apply_all, fill, give, placed

from pbem.game import IllegalMoveError
from pbem.protocol.crypto import secretdeck
from pbem_games.road_master import GAME
from pbem_games.road_master.scoring import best_bonus
from pbem_games.road_master.turn import pending_secret_choice

DECK = "superbonus"


def _plain_cards(state: dict, slots: list[str]) -> list[str]:
    """Tests may look behind plain-mode slots; the game itself never does."""
    return [state["secret"][DECK]["slots"][s]["card"] for s in slots]


def _drawn_table():
    t = placed(3)
    t.play(["superbonus"])
    return t


def test_RM_A10_take_super_bonus_reserves_the_top_six_in_secret() -> None:
    """RM-A10: the top 6 are drawn for the taker; others see a count, never the cards."""
    t = placed(3)
    top6 = t.state["secret"][DECK]["order"][:6]
    t.play(["superbonus"])
    assert secretdeck.drawn(t.state, DECK, 0) == top6
    assert secretdeck.remaining(t.state, DECK) == 12
    mine = t.view(0)
    assert [row["slot"] for row in mine["private"]["superbonus"]] == top6
    assert [row["card"] for row in mine["private"]["superbonus"]] == _plain_cards(t.state, top6)
    assert all(row.get("need") for row in mine["private"]["superbonus"])
    for seat in (1, 2, None):
        other = t.view(seat)
        assert other["superbonus"]["drawn"][0] == 6
        text = repr(other)
        assert not any(uid in text for uid in _plain_cards(t.state, top6))
        assert other.get("private", {}).get("superbonus", []) == []


def test_RM_A10_no_choice_in_the_turn_that_drew() -> None:
    """RM-A10 (ruling): the cards are chosen at the start of the drawer's next turn."""
    t = placed(2)
    state = copy.deepcopy(t.state)
    GAME.apply(state, 0, "superbonus")
    drawn = secretdeck.drawn(state, DECK, 0)
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith(("keep", "bottom"))]
    with pytest.raises(IllegalMoveError, match="start of your next turn"):
        GAME.apply(state, 0, f"keep {drawn[0]}")
    GAME.apply(state, 0, "forward 1 exit east left")  # other actions go on as usual
    GAME.end_turn(state, 0)
    with pytest.raises(IllegalMoveError, match="no drawn Super Bonus cards"):
        GAME.apply(state, 1, f"keep {drawn[0]}")  # and nobody else may choose


def test_RM_A10_choice_is_a_free_step_at_the_head_of_the_next_turn() -> None:
    """RM-A10 (ruling): nothing else first; keep 0-3; the rest under the deck in my order."""
    t = _drawn_table()
    t.play([])
    t.play([])
    t.prepare()
    assert t.to_act() == 0
    moves = t.legal_moves()
    assert moves and all(m.split()[0] in ("keep", "bottom") for m in moves)
    assert len(moves) == 6 + 15 + 20 + 6 + 1
    state = copy.deepcopy(t.state)
    with pytest.raises(IllegalMoveError, match="First choose your Super Bonus cards"):
        GAME.apply(state, 0, "forward 1 exit east left")
    with pytest.raises(IllegalMoveError, match="choose your Super Bonus cards: keep up to 3 of s"):
        GAME.end_turn(state, 0)
    drawn = secretdeck.drawn(state, DECK, 0)
    with pytest.raises(IllegalMoveError, match="at most 3"):
        GAME.apply(state, 0, GAME.normalize(state, 0, "keep 1 2 3 4"))
    # keep by position, return by slot id in a chosen order
    assert GAME.normalize(state, 0, "keep 4 2") == f"keep {drawn[1]} {drawn[3]}"
    returned = [drawn[5], drawn[0], drawn[4], drawn[2]]
    cards_back = _plain_cards(state, returned)
    t.play([f"keep {drawn[1]} {drawn[3]}", "bottom " + " ".join(returned),
            "forward 1 exit east left"])
    assert secretdeck.held(t.state, DECK, 0) == [drawn[1], drawn[3]]
    order = t.state["secret"][DECK]["order"]
    assert _plain_cards(t.state, order[-4:]) == cards_back
    assert secretdeck.counts(t.state, DECK) == {0: 2}
    assert t.view(1)["superbonus"]["held"] == [2, 0, 0]


def test_RM_A10_keep_none_and_fewer_than_six_left() -> None:
    """RM-A10: keeping none is allowed; a short deck deals what is left."""
    t = placed(2)
    state = t.state
    d = state["secret"][DECK]
    d["order"] = d["order"][:4]  # pretend 14 cards are out of reach (for this test only)
    for slot in list(d["slots"]):
        if slot not in d["order"]:
            d["slots"][slot].update(status="held", owner=1)
    t.play(["superbonus"])
    t.play([])
    t.prepare()
    drawn = secretdeck.drawn(t.state, DECK, 0)
    assert len(drawn) == 4
    t.play(["bottom " + " ".join(drawn)])
    assert secretdeck.held(t.state, DECK, 0) == [] and secretdeck.remaining(t.state, DECK) == 4


def test_RM_A10_empty_super_bonus_deck_cannot_be_taken() -> None:
    t = placed(2)
    d = t.state["secret"][DECK]
    for slot in d["order"]:
        d["slots"][slot].update(status="held", owner=1)
    d["order"] = []
    assert "superbonus" not in t.legal_moves()
    with pytest.raises(IllegalMoveError, match="Super Bonus deck is empty"):
        GAME.apply(copy.deepcopy(t.state), 0, "superbonus")


def test_RM_A11_met_scores_its_points_missed_costs_its_penalty() -> None:
    """RM-A11, the rulebook's example: 3 purple + 3 yellow delivered, +6; else -2."""
    card = {"need": {"purple": 3, "yellow": 3}, "points": 6, "penalty": 2}
    assert best_bonus({"purple": 3, "yellow": 4}, [card]) == (6, [True])
    assert best_bonus({"purple": 3, "yellow": 2}, [card]) == (-2, [False])


def test_RM_A12_each_super_bonus_needs_its_own_cubes() -> None:
    """RM-A12: no cube counts for two cards."""
    b1 = {"need": {"purple": 3, "yellow": 3}, "points": 6, "penalty": 2}
    b5 = {"need": {"green": 3, "yellow": 3}, "points": 6, "penalty": 2}
    assert best_bonus({"purple": 3, "green": 3, "yellow": 3}, [b1, b5])[0] == 6 - 2
    assert best_bonus({"purple": 3, "green": 3, "yellow": 6}, [b1, b5])[0] == 12


def test_RM_G4_best_assignment_beats_the_card_order() -> None:
    """RM-G4 (ruling): the allocation best for the player, not first come first served."""
    small = {"need": {"orange": 2, "purple": 2}, "points": 4, "penalty": 1}
    big = {"need": {"purple": 3, "yellow": 3}, "points": 6, "penalty": 2}
    other = {"need": {"orange": 2, "yellow": 2}, "points": 4, "penalty": 1}
    have = {"orange": 2, "purple": 3, "yellow": 3}
    # Meeting 'small' first would leave 1 purple and sink 'big'; the best meets 'big'.
    assert best_bonus(have, [small, big, other]) == (6 - 1 - 1, [False, True, False])


def _brute(have: dict[str, int], cards: list[dict]) -> int:
    best = None
    for pick in itertools.product([False, True], repeat=len(cards)):
        left = dict(have)
        ok = True
        for chosen, card in zip(pick, cards, strict=True):
            if chosen:
                for colour, n in card["need"].items():
                    left[colour] = left.get(colour, 0) - n
                    ok = ok and left[colour] >= 0
        if ok:
            value = sum(c["points"] if p else -c["penalty"] for p, c in zip(pick, cards, strict=True))
            best = value if best is None else max(best, value)
    assert best is not None
    return best


COLOURS = ["orange", "purple", "green", "blue", "brown", "yellow"]


@settings(max_examples=120, deadline=None)
@given(
    have=st.dictionaries(st.sampled_from(COLOURS), st.integers(0, 8)),
    indices=st.lists(st.integers(0, 17), min_size=0, max_size=7),
)
def test_RM_G4_best_assignment_is_exact(have, indices) -> None:
    """RM-G4: the search equals a brute force over every subset of the held cards."""
    stock = GAME.stock_components()["cards"]["superbonus"]
    cards = [{"need": stock[i]["need"], "points": stock[i]["points"], "penalty": stock[i]["penalty"]}
             for i in indices]
    value, met = best_bonus(have, cards)
    assert value == _brute(have, cards)
    left = dict(have)
    for chosen, card in zip(met, cards, strict=True):
        if chosen:
            for colour, n in card["need"].items():
                left[colour] = left.get(colour, 0) - n
    assert all(n >= 0 for n in left.values())


def _end_with_choice_pending(rules: int | None = None):
    """A 2-player game that ends right after ann drew Super Bonus cards."""
    t = placed(2, rules=rules)
    t.play(["superbonus"])
    state = t.state
    entry = give(state, 1, "c12")
    fill(state, 1, "c12", 2)
    state["scores"][1] = 60  # bob is past the target: his turn ends the round and the game
    assert entry["done"]
    t.play([])
    t.prepare()
    return t


def test_RM_A10_version_4_choice_owed_at_the_end_is_made_in_the_final_step() -> None:
    """Rules version 4 (kept for games begun under it): a Super Bonus drawn in a player's
    last turn is chosen in its reveal, with the game already over."""
    t = _end_with_choice_pending(rules=4)
    assert t.to_act() is None
    assert pending_secret_choice(t.state, 0)
    assert not pending_secret_choice(t.state, 1)
    assert GAME.outcome(t.state) is None  # wait for the choice and the reveal
    moves = GAME.legal_moves(t.state, 0)
    assert moves and all(m.split()[0] in ("keep", "bottom") for m in moves)
    assert GAME.legal_moves(t.state, 1) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        GAME.apply(copy.deepcopy(t.state), 0, "forward 1 exit east left")
    drawn = secretdeck.drawn(t.state, DECK, 0)
    apply_all(t.state, 0, [f"keep {drawn[0]}", "bottom " + " ".join(drawn[1:])])
    assert not pending_secret_choice(t.state, 0)
    out = t.finish()
    assert out is not None
    kept = _plain_cards(t.state, [drawn[0]])[0]
    assert any(f"Super Bonus {kept}" in note for note in out.notes)


def test_RM_A10_last_choice_is_a_turn_before_the_game_is_over() -> None:
    """Rules version 5: a Super Bonus drawn in a player's last turn is chosen in a turn of
    its own once the rules end the game, before anyone reveals; only then is it over."""
    t = _end_with_choice_pending()
    assert t.state["ended"] and t.to_act() == 0
    assert GAME.simultaneous(t.state) == [0]
    assert GAME.outcome(t.state) is None
    moves = GAME.legal_moves(t.state, 0)
    assert moves and all(m.split()[0] in ("keep", "bottom") for m in moves)
    assert GAME.legal_moves(t.state, 1) == []
    with pytest.raises(IllegalMoveError, match="only the last Super Bonus choices"):
        GAME.apply(copy.deepcopy(t.state), 0, "forward 1 exit east left")
    with pytest.raises(IllegalMoveError, match="choose your Super Bonus cards"):
        GAME.end_turn(copy.deepcopy(t.state), 0)
    view = GAME.view(t.state, None)
    assert not view["over"] and view["end"]["last_choices"] == [0]
    assert "but for the last Super Bonus choices, made before any reveal: ann." in GAME.render(view)
    drawn = secretdeck.drawn(t.state, DECK, 0)
    t.play([f"keep {drawn[0]}", "bottom " + " ".join(drawn[1:])])
    assert t.to_act() is None and GAME.simultaneous(t.state) == []
    assert GAME.view(t.state, None)["over"]
    out = t.finish()
    assert out is not None
    kept = _plain_cards(t.state, [drawn[0]])[0]
    assert any(f"Super Bonus {kept}" in note for note in out.notes)


def test_unopened_held_cards_score_their_penalty() -> None:
    """A seat that never revealed: each held card costs the highest Super Bonus penalty."""
    t = _end_with_choice_pending()
    drawn = secretdeck.drawn(t.state, DECK, 0)
    apply_all(t.state, 0, [f"keep {drawn[0]} {drawn[1]}", "bottom " + " ".join(drawn[2:])])
    state = copy.deepcopy(t.state)
    GAME.on_reveal(state, {DECK: {}})  # ann's cards were never opened
    out = GAME.outcome(state)
    assert out is not None
    assert out.breakdown[0]["super bonus"] == -3 * 2
    assert any("never opened" in note for note in out.notes)


def test_super_bonus_uses_cubes_on_partial_contracts_too() -> None:
    """RM-G4 (ruling): cubes on complete and part-filled contracts both count."""
    t = placed(2)
    state = t.state
    give(state, 0, "c13")  # 3 purple -> F
    fill(state, 0, "c13", 2)  # partial
    give(state, 0, "c11")  # 1 purple -> A
    fill(state, 0, "c11", 1)  # complete
    from pbem_games.road_master.scoring import delivered

    assert delivered(state, 0) == {"purple": 3}


def test_choice_waits_while_the_cards_are_not_readable(monkeypatch) -> None:
    """Mental mode: until the others have unlocked the drawn cards, the turn goes on
    without the choice (and no second draw); the choice is due once they are readable."""
    t = _drawn_table()
    t.play([])
    t.play([])
    t.prepare()
    monkeypatch.setattr(secretdeck, "readable", lambda state, deck, seat: False)
    state = copy.deepcopy(t.state)
    moves = GAME.legal_moves(state, 0)
    assert "superbonus" not in moves and not [m for m in moves if m.startswith("keep")]
    with pytest.raises(IllegalMoveError, match="still have drawn Super Bonus cards"):
        GAME.apply(copy.deepcopy(state), 0, "superbonus")
    with pytest.raises(IllegalMoveError, match="cannot be read yet"):
        GAME.apply(copy.deepcopy(state), 0, "bottom 1")
    GAME.apply(state, 0, "forward 1 exit east left")
    GAME.end_turn(state, 0)  # the choice is not owed yet
    monkeypatch.undo()
    assert pending_secret_choice(state, 0)


# ---- the short draw (RM-A10, revised ruling) ---------------------------------------------
def _choose(t, keep: int = 3) -> tuple[list[str], list[str]]:
    """The seat to act keeps its first ``keep`` drawn cards and returns the rest; returns
    (kept cards, returned cards) as uids."""
    t.prepare()
    seat = t.to_act()
    drawn = secretdeck.drawn(t.state, DECK, seat)
    kept, back = _plain_cards(t.state, drawn[:keep]), _plain_cards(t.state, drawn[keep:])
    moves = [f"keep {' '.join(drawn[:keep])}"] if drawn[:keep] else []
    t.play(moves + ([f"bottom {' '.join(drawn[keep:])}"] if drawn[keep:] else []))
    return kept, back


def _four_drew_and_kept_three():
    """Four players each drew Super Bonus cards and kept 3 (seat 3, short at first, was
    completed to 6 and returned 3): everyone holds 3, the pile holds 6."""
    t = placed(4)
    for _ in range(4):
        t.play(["superbonus"])
    for _ in range(3):
        _choose(t, keep=3)
    t.prepare()
    _choose(t, keep=3)
    return t


@pytest.mark.parametrize("players", [4, 5, 6])
def test_RM_A10_a_short_draw_takes_what_is_there_and_is_completed_from_the_next_returns(
        players: int) -> None:
    """RM-A10 (revised): with 4 to 6 players the first three draws empty the pile; the
    next drawers are not refused: each takes what is there (nothing) and is completed, up
    to 6, from the next cards returned, in the order they are returned, oldest draw first."""
    t = placed(players)
    for _ in range(players):
        t.play(["superbonus"])
    assert [len(secretdeck.drawn(t.state, DECK, s)) for s in range(players)] == \
        [6, 6, 6] + [0] * (players - 3)
    assert t.state["sb"]["short"] == [[s, 6] for s in range(3, players)]
    assert "the other 6 come from the next cards returned" in " ".join(t.state["log"])
    returned: list[str] = []
    for _ in range(3):  # seats 0, 1, 2 choose: 3 kept, 3 returned each
        returned += _choose(t)[1]
        t.prepare()
    got = {s: _plain_cards(t.state, secretdeck.drawn(t.state, DECK, s)) for s in range(3, players)}
    # In order: seat 3 gets the first six returned, seat 4 the next three, seat 5 none yet.
    assert sorted(got[3]) == sorted(returned[:6])
    if players >= 5:
        assert sorted(got[4]) == sorted(returned[6:9])
        assert t.state["sb"]["short"][0] == [4, 3]
    else:
        assert secretdeck.remaining(t.state, DECK) == 3
        assert "short" not in t.state["sb"]
    if players == 6:
        assert got[5] == [] and t.state["sb"]["short"][1] == [5, 6]
    # Seat 3's draw is complete: its choice is due at the head of its turn.
    assert t.to_act() == 3
    assert all(m.split()[0] in ("keep", "bottom") for m in t.legal_moves())


def test_RM_A10_a_short_draw_comes_before_any_later_draw() -> None:
    """RM-A10 (revised): seat 0 returns and draws again while seat 3 waits: seat 3 is
    completed first; seat 0's new draw waits behind it."""
    t = placed(4)
    for _ in range(4):
        t.play(["superbonus"])
    t.prepare()
    drawn = secretdeck.drawn(t.state, DECK, 0)
    t.play([f"keep {' '.join(drawn[:3])}", f"bottom {' '.join(drawn[3:])}", "superbonus"])
    assert len(secretdeck.drawn(t.state, DECK, 3)) == 3
    assert secretdeck.drawn(t.state, DECK, 0) == []
    assert t.state["sb"]["short"] == [[3, 3], [0, 6]]
    _choose(t)  # seat 1 returns 3: seat 3 complete
    assert len(secretdeck.drawn(t.state, DECK, 3)) == 6 and t.state["sb"]["short"] == [[0, 6]]
    _choose(t)  # seat 2 returns 3: they go to seat 0
    assert len(secretdeck.drawn(t.state, DECK, 0)) == 3 and t.state["sb"]["short"] == [[0, 3]]


def test_RM_A10_a_short_draw_waits_to_be_chosen_and_closes_when_nothing_can_come_back() -> None:
    """The short drawer chooses once complete; if no card can come back before its choice
    (nobody else has drawn cards to choose from), its draw stays as it is."""
    t = _four_drew_and_kept_three()
    state = copy.deepcopy(t.state)
    # Everyone holds 3 and the pile holds 6: each of seats 0..2 may draw; the first gets 6.
    assert secretdeck.remaining(state, DECK) == 6
    t.play(["superbonus"])
    t.play(["superbonus"])  # seat 1: nothing left, but seat 0's cards will come back
    assert t.state["sb"]["short"] == [[1, 6]]
    t.play([])
    t.play([])
    t.prepare()
    kept, back = _choose(t, keep=3)  # seat 0 returns 3: they complete seat 1 in part
    assert sorted(_plain_cards(t.state, secretdeck.drawn(t.state, DECK, 1))) == sorted(back)
    # Nobody else has drawn cards now: seat 1's draw stays at 3 and its choice is due.
    assert "short" not in t.state["sb"]
    assert "draw stays at 3 card(s)" in t.state["log"][-1]
    assert kept


def test_RM_A10_the_super_bonus_deck_is_empty_only_when_no_card_can_come_back() -> None:
    t = _four_drew_and_kept_three()
    for _ in range(2):
        t.play(["superbonus"])  # seat 0 takes the last 6, seat 1 waits for them
    t.play([])
    t.play([])
    _choose(t, keep=3)  # seat 0: 3 back to seat 1, whose draw closes at 3
    t.prepare()
    _choose(t, keep=3)  # seat 1 keeps all 3 of its cards
    state = t.state
    assert secretdeck.remaining(state, DECK) == 0 and not any(
        secretdeck.drawn(state, DECK, s) for s in range(4))
    seat = t.to_act()
    assert "superbonus" not in t.legal_moves()
    with pytest.raises(IllegalMoveError, match="Super Bonus deck is empty"):
        GAME.apply(copy.deepcopy(state), seat, "superbonus")


def test_RM_A10_version_5_open_short_draws_stay_as_they_are_when_the_game_ends() -> None:
    """Rules version 5: the round in which all five draw ends the game, seats 3 and 4 still
    waiting for returned cards. Their draws stay as they are (nothing), and seats 0-2
    make their last choices together, setting aside what they do not keep: no card goes
    under the deck or to a waiting drawer, and no shuffle is owed before the reveals."""
    t = placed(5)
    for seat in range(5):
        if seat == 4:
            t.state["scores"][0] = 60  # ann is past the target: eve's turn ends the game
        t.play(["superbonus"])
    t.prepare()
    log = " ".join(t.state["log"])
    assert "The game is over: dee's draw stays at 0 card(s)." in log
    assert "The game is over: eve's draw stays at 0 card(s)." in log
    assert "short" not in t.state["sb"]
    assert GAME.simultaneous(t.state) == [0, 1, 2] and t.to_act() == 0
    pile = secretdeck.remaining(t.state, DECK)
    for seat in (0, 1, 2):
        drawn = secretdeck.drawn(t.state, DECK, seat)
        t.play([f"keep {' '.join(drawn[:3])}", f"bottom {' '.join(drawn[3:])}"])
    assert "cy sets 3 card(s) aside, face down" in " ".join(t.state["log"])
    assert secretdeck.remaining(t.state, DECK) == pile
    assert [len(secretdeck.held(t.state, DECK, s)) for s in range(5)] == [3, 3, 3, 0, 0]
    assert not any(pending_secret_choice(t.state, s) for s in range(5))
    view = GAME.view(t.state, 2, {DECK: secretdeck.readable_plain(t.state["secret"][DECK], 2)})
    assert [r["status"] for r in view["private"]["superbonus"]] == ["held"] * 3 + ["aside"] * 3
    assert view["superbonus"]["drawn"] == [0] * 5
    assert t.to_act() is None and t.finish() is not None
