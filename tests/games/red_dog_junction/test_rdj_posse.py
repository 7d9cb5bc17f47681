"""Posse (RDJ-V2), the rules in plain mode: the deck, the deal, pick and pass left, the last
card of a hand, set-up after the draft, refusals, the bots. Signed games, with the mental
deck and its cheats, are in test_rdj_posse_engine.py.

「余分な初期カードを取り除きます ... 各プレイヤーにカウボーイカードを1枚ずつ渡します。残りの
乗組員、司令官、ブーストのカードをすべて1つの山札にしてシャッフルします。山札から各プレイ
ヤーに9枚ずつのカードを配ります。プレイヤーはカード1枚を選び、残りのカードの手札を左隣の
プレイヤーに渡します ... 通常どおりゲームのセットアップを続行します。これらの10枚のカード
(ドラフトした9枚+カウボーイ1枚)を各プレイヤーの初期乗組員、司令官、ブーストとして」
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable

import pytest
from rdj_helpers import HANDLES

from pbem.errors import IllegalMoveError, MoveError
from pbem.game import secretdeck
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem_games.red_dog_junction import GAME, bot, posse
from pbem_games.red_dog_junction.components import start_card_ids
from pbem_games.red_dog_junction.state import card

DECK = posse.DECK


def new_table(players: int, seed: bytes = b"posse") -> LocalTable:
    return LocalTable(GAME, HANDLES[:players], {"variant": "posse"}, seed=seed)


def uid_of(table: LocalTable, slot: str) -> str:
    return str(table.state["secret"][DECK]["slots"][slot]["card"])


def hand_now(table: LocalTable, seat: int) -> list[str]:
    return posse.hand(table.state, seat)


Chooser = Callable[[LocalTable, int], list[str]]


def first_card(table: LocalTable, seat: int) -> list[str]:
    return table.legal_moves()[:1]


def draft(table: LocalTable, choose: Chooser = first_card) -> list[tuple[int, list[str], str]]:
    """Play the draft; every pick as (seat, the hand it saw, the slot it kept)."""
    picks = []
    while True:
        table.prepare()  # after the last choice this draws the rest of set-up
        if table.state["phase"] != "draft":
            break
        seat = table.to_act()
        assert seat is not None
        hand = hand_now(table, seat)
        moves = choose(table, seat) if hand else []
        table.play(moves)
        if moves:
            picks.append((seat, hand, moves[0].split()[1]))
        assert len(picks) < 100
    return picks


def names_in(text: str, uids: set[str]) -> set[str]:
    return {u for u in uids if re.search(rf"(?<![\w-]){re.escape(u)}(?![\w-])", text)}


# ---- the deck and the deal -------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_RDJ_V2_the_deck_is_the_starting_sets_less_a_cowboy_each_and_the_market(
        players: int) -> None:
    table = new_table(players)
    rules = table.state["rules"]
    cards = posse.deck_cards(rules, players)
    assert len(cards) == len(set(cards)) == len(rules["market"]) + 5 * players
    assert set(rules["market"]) <= set(cards)
    for number in range(1, 6):
        starting = start_card_ids(number, rules["start_crew"])
        if number <= players:  # each player keeps one cowboy; the rest of the set is drafted
            assert table.state["players"][number - 1]["crew"] == [f"p{number}-cowboy-1"]
            assert set(starting) - set(cards) == {f"p{number}-cowboy-1"}
        else:  # the unused starting cards are out of the game
            assert not set(starting) & set(cards)
    deck = table.state["secret"][DECK]
    assert sorted(slot["card"] for slot in deck["slots"].values()) == sorted(cards)
    assert GAME.invariants(table.state) == []


@pytest.mark.parametrize("players", [2, 5])
def test_RDJ_V2_the_start_deals_9_cards_to_each_player_in_secret(players: int) -> None:
    table = new_table(players)
    state = table.state
    assert state["phase"] == "draft" and state["display"] == [] and state["deck"] == []
    assert state["ring"] == [] and state["pending"] == []  # first player, dice: after the draft
    hands = {seat: [uid_of(table, s) for s in hand_now(table, seat)] for seat in range(players)}
    assert all(len(h) == 9 for h in hands.values())
    assert len({u for h in hands.values() for u in h}) == 9 * players
    everyone = json.dumps(table.view(None))
    assert "hand" not in table.view(None)["draft"]
    assert not names_in(everyone, set(posse.deck_cards(state["rules"], players)))
    for seat in range(players):
        shown = table.view(seat)["draft"]
        assert [c["id"] for c in shown["hand"]] == hands[seat]
        assert [c["move"] for c in shown["hand"]] == [f"pick {s}" for s in hand_now(table, seat)]
        others = {u for s, h in hands.items() if s != seat for u in h}
        assert not names_in(json.dumps(table.view(seat)), others), "another player's hand shows"


# ---- pick and pass ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_RDJ_V2_pick_one_and_pass_the_rest_left_until_every_card_is_taken(players: int) -> None:
    table = new_table(players, seed=b"pass %d" % players)
    seen: list[tuple[int, list[str], str]] = []  # (seat, cards of the hand, card kept)

    def choose(table: LocalTable, seat: int) -> list[str]:
        moves = first_card(table, seat)
        cards = sorted(uid_of(table, s) for s in hand_now(table, seat))
        seen.append((seat, cards, uid_of(table, moves[0].split()[1])))
        return moves

    draft(table, choose)
    coming: dict[int, list[list[str]]] = {seat: [] for seat in range(players)}  # by card
    sizes: dict[int, list[int]] = {seat: [] for seat in range(players)}
    for seat, hand, kept in seen:
        sizes[seat].append(len(hand))
        if len(sizes[seat]) > 1:  # every hand after the first: the oldest passed by the right
            assert hand == coming[seat].pop(0), (seat, hand)
        if len(hand) > 2:
            coming[(seat + 1) % players].append([c for c in hand if c != kept])
    assert all(sizes[seat] == [9, 8, 7, 6, 5, 4, 3, 2] for seat in range(players))
    assert table.state["draft"]["choices"] == [8] * players


def test_RDJ_V2_the_last_card_of_a_hand_is_the_left_players_without_a_choice() -> None:
    table = new_table(3, seed=b"last")
    picks = draft(table)
    last_cards = table.state["draft"]["for_left"]
    assert len(last_cards) == 3
    for seat, hand, kept in picks:
        if len(hand) == 2:
            (rest,) = [s for s in hand if s != kept]
            assert last_cards[rest] == (seat + 1) % 3
            # kept by its holder for the left player: no pass, and no choice for anyone
            assert secretdeck.holder(table.state, DECK, rest) == seat


@pytest.mark.parametrize("players", [2, 3, 5])
def test_RDJ_V2_the_ten_cards_are_each_players_start_and_set_up_goes_on(players: int) -> None:
    table = new_table(players, seed=b"start %d" % players)
    picks = draft(table)
    table.prepare()  # the next entry draws the rest of set-up
    state = table.state
    assert state["phase"] == "play" and state["turn"] == 1
    assert table.to_act() == state["first"] == state["current"]
    assert sorted(state["ring"]) == sorted(["whiskey", "scrap", "gas", "ice", "ruby", "oxygen"])
    assert len(state["display"]) == 6
    expected: dict[int, set[str]] = {seat: {f"p{seat + 1}-cowboy-1"} for seat in range(players)}
    for seat, _, kept in picks:
        expected[seat].add(uid_of(table, kept))
    for slot, left in state["draft"]["for_left"].items():
        expected[int(left)].add(uid_of(table, slot))
    drafted = set()
    for seat, player in enumerate(state["players"]):
        held = player["crew"] + player["commanders"] + player["boosts"]
        assert len(held) == 10 and set(held) == expected[seat]
        assert all(card(state, c)["kind"] == "crew" for c in player["crew"])
        assert all(card(state, c)["kind"] == "commander" for c in player["commanders"])
        assert all(card(state, c)["kind"] == "boost" for c in player["boosts"])
        drafted |= set(held)
    rest = set(posse.deck_cards(state["rules"], players)) - drafted
    assert set(state["deck"]) | set(state["display"]) == rest  # the rest is the market
    assert sum(state["players"][s]["storage"]["gold"] for s in range(players)) > 0
    assert GAME.invariants(state) == []


def test_RDJ_V2_first_player_and_dice_are_drawn_after_the_last_choice() -> None:
    """Set-up goes on after the draft: nobody knows the first player or the dice while
    choosing."""
    table = new_table(3, seed=b"after")
    while True:
        assert table.state["ring"] == [] and table.view(None)["ring"] == []
        assert "First player" not in " ".join(table.state["last"])
        table.prepare()
        if table.state["phase"] != "draft":
            break
        table.play(table.legal_moves()[:1])
    assert table.state["ring"] and any("First player" in e for e in table.state["last"])


def test_RDJ_V2_a_starting_card_left_in_the_market_costs_what_its_type_costs() -> None:
    table = new_table(2, seed=b"price")
    draft(table)
    table.prepare()
    state = copy.deepcopy(table.state)
    for ident in ("p1-agent", "p2-miner", "p1-cowboy-2"):
        entry = card(state, ident)
        kind = entry["type"]
        market = next(c for c in state["rules"]["market"] if card(state, c)["type"] == kind)
        assert entry["cost"] == card(state, market)["cost"] and entry["vp"] == 0
    left = next(c for c in state["deck"] if card(state, c).get("start"))  # this deal leaves some
    state["deck"][state["deck"].index(left)] = state["display"][0]  # turned into the display
    seat = state["current"]
    state["display"][0] = left
    cost = card(state, left)["cost"][0]
    for good, n in cost.items():
        supply = state["bank"] if good in ("gold", "whiskey") else (
            state["space"] if good == "scrap" else state["planets"])
        supply[good] -= n
        state["players"][seat]["storage"][good] += n
    from pbem_games.red_dog_junction.components import alt_name

    GAME.apply(state, seat, GAME.normalize(state, seat, f"buy {left} pay {alt_name(cost)}"))
    assert GAME.invariants(state) == []
    assert left in state["players"][seat]["crew"]


# ---- what may be picked -----------------------------------------------------------------------
def test_RDJ_V2_moves_list_the_hand_and_a_pick_may_name_its_position() -> None:
    table = new_table(3, seed=b"moves")
    seat = table.to_act()
    assert seat is not None
    hand = hand_now(table, seat)
    assert table.legal_moves() == [f"pick {s}" for s in hand]
    state = table.state
    assert GAME.normalize(state, seat, "pick 3") == f"pick {hand[2]}"
    assert GAME.normalize(state, seat, f"Pick #{hand[4]}") == f"pick {hand[4]}"
    # the table picks together: every seat picks from its own hand in the step
    assert GAME.simultaneous(state) == [0, 1, 2] and seat == 0
    assert all(GAME.legal_moves(state, s) == [f"pick {c}" for c in posse.hand(state, s)]
               for s in range(3))
    assert table.play(["pick 3"]) == [f"pick {hand[2]}"]


def test_RDJ_V2_picks_that_break_the_rules_are_refused_with_what_to_do() -> None:
    table = new_table(3, seed=b"refuse")
    state = table.state
    seat = table.to_act()
    assert seat is not None
    other = (seat + 1) % 3
    theirs = posse.hand(state, other)[0]
    mine = posse.hand(state, seat)
    work = copy.deepcopy(state)
    with pytest.raises(IllegalMoveError, match=f"Slot {theirs} is not in your hand"):
        GAME.apply(work, seat, f"pick {theirs}")  # a card another player holds
    pile = state["secret"][DECK]["order"][0]
    with pytest.raises(IllegalMoveError, match=f"Slot {pile} is not in your hand"):
        GAME.apply(work, seat, f"pick {pile}")  # a card still in the deck
    with pytest.raises(MoveError, match="A card's name is never written"):
        GAME.normalize(work, seat, f"pick {uid_of(table, mine[0])}")
    with pytest.raises(IllegalMoveError, match="Posse draft is on"):
        GAME.apply(work, seat, GAME.normalize(work, seat, "undock"))
    with pytest.raises(IllegalMoveError, match="Pick a card of your hand"):
        GAME.end_turn(work, seat)  # a seat that can pick must
    GAME.apply(work, seat, f"pick {mine[0]}")
    with pytest.raises(IllegalMoveError, match="One pick an entry"):
        GAME.apply(work, seat, f"pick {mine[1]}")
    with pytest.raises(IllegalMoveError, match="One pick an entry"):
        GAME.normalize(work, seat, "pick 1")
    assert work["secret"][DECK]["slots"][mine[0]]["status"] == "held"
    GAME.end_turn(work, seat)
    # its next pick waits for the step: the others pick first (the hand passed to it too)
    GAME.apply(work, (seat + 2) % 3, f"pick {posse.hand(work, (seat + 2) % 3)[0]}")
    GAME.end_turn(work, (seat + 2) % 3)
    assert posse.hand(work, seat) and GAME.legal_moves(work, seat) == []
    with pytest.raises(IllegalMoveError, match="draft entry, not"):
        GAME.apply(work, seat, f"pick {posse.hand(work, seat)[0]}")  # out of turn


# ---- bots -------------------------------------------------------------------------------------
def test_RDJ_V2_the_greedy_bot_takes_the_best_card_of_its_own_hand() -> None:
    table = new_table(3, seed=b"greedy")
    state = table.state
    seat = table.to_act()
    assert seat is not None
    hand = posse.hand(state, seat)
    worth = {s: bot.card_worth(card(state, uid_of(table, s))) for s in hand}
    (move,) = bots.choose_turn(GAME, state, seat, "greedy", salt="1")
    assert worth[move.split()[1]] == max(worth.values())


def test_RDJ_V2_a_bot_uses_only_what_its_seat_knows() -> None:
    """The bot's choice follows the cards its seat can read (``secrets``, as a signed
    game gives them) and nothing else: other hands, changed, change nothing; told other
    cards for its own slots, it follows what it is told."""
    table = new_table(3, seed=b"knows")
    state = table.state
    seat = table.to_act()
    assert seat is not None
    hand = posse.hand(state, seat)
    chosen = bots.choose_turn(GAME, state, seat, "greedy", salt="1")
    shuffled = copy.deepcopy(state)
    others = [s for o in range(3) if o != seat for s in posse.hand(shuffled, o)]
    slots = shuffled["secret"][DECK]["slots"]
    values = [slots[s]["card"] for s in others]
    for slot, value in zip(others, reversed(values), strict=True):
        slots[slot]["card"] = value
    assert bots.choose_turn(GAME, shuffled, seat, "greedy", salt="1") == chosen
    # As a signed game's bot: its seat's secrets, here a made-up hand with one commander.
    told = {s: "p1-miner" for s in hand}
    told[hand[5]] = "mayor"
    assert bots.choose_turn(GAME, state, seat, "greedy", salt="1",
                            secrets={DECK: told}) == [f"pick {hand[5]}"]


@pytest.mark.parametrize("players,drafter", [(2, "greedy"), (3, "random:3"), (4, "greedy"),
                                             (5, "random:5")])
def test_RDJ_V2_whole_games_play_to_the_end(players: int, drafter: str) -> None:
    """Drafted by random or greedy picks, then played out by the greedy bot."""
    table = new_table(players, seed=b"whole %d" % players)
    entries = 0
    while table.to_act() is not None:
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        name = drafter if table.state["phase"] == "draft" else "greedy"
        table.play(bots.choose_turn(GAME, table.state, seat, name, salt=str(entries)))
        assert GAME.invariants(table.state) == [], entries
        entries += 1
        assert entries < 1500
    outcome = table.finish()
    assert outcome is not None and len(outcome.scores) == players


def test_RDJ_V2_the_view_and_the_picture_show_hand_picks_and_the_card_kept_for_the_left() -> None:
    from tests.support.boards import by_id, has_id, parse, text_of

    table = new_table(2, seed=b"view")
    while table.state["phase"] == "draft" and table.state["draft"]["choices"] != [8, 7] \
            and table.state["draft"]["choices"] != [7, 8]:
        table.play(table.legal_moves()[:1])
    seat = next(s for s in range(2) if table.state["draft"]["choices"][s] == 8)
    shown = table.view(seat)["draft"]
    assert len(shown["picks"]) == 8 and len(shown["for_left"]) == 1
    assert shown["pass_to"] == HANDLES[1 - seat]
    words = GAME.render(table.view(seat))
    assert "Your picks so far (8):" in words and f"Kept for {HANDLES[1 - seat]}" in words
    root = parse(GAME.render_svg(table.view(seat)))
    picks = text_of(by_id(root, "draft-picks"))
    assert all(c["id"] in picks for c in shown["picks"])
    assert shown["for_left"][0]["id"] in text_of(by_id(root, "draft-for-left"))
    other = table.view(1 - seat)["draft"]
    assert other["hand"] and len(other["picks"]) == 7
    hand_root = parse(GAME.render_svg(table.view(1 - seat)))
    hand = text_of(by_id(hand_root, "draft-hand"))
    assert all(c["move"] in hand and c["id"] in hand for c in other["hand"])
    public = parse(GAME.render_svg(table.view(None)))
    assert not has_id(public, "draft-hand") and not has_id(public, "draft-picks")
    assert "Next entry:" in text_of(by_id(public, "status"))


@pytest.mark.parametrize("rules", [3, 4])
@pytest.mark.parametrize("players", [2, 3])
def test_RDJ_V2_the_rest_of_a_hand_goes_left_once_the_left_player_has_picked(
        players: int, rules: int) -> None:
    """A player never holds two hands to read: the rest of a hand waits with its giver
    until the player on the left has picked from the hand it holds, then is passed (in
    signed play its re-lock and peel could otherwise be done early, by an away note or a
    proposal, while the receiver still had a hand to pick from)."""
    table = LocalTable(GAME.for_rules(rules), HANDLES[:players], {"variant": "posse"},
                       seed=b"held")
    seat = table.to_act()
    assert seat is not None
    left = (seat + 1) % players
    mine, theirs = hand_now(table, seat), hand_now(table, left)
    table.play([f"pick {mine[0]}"])
    state = table.state
    assert state["draft"]["queue"][left] == [theirs]  # only its own hand
    assert state["draft"]["held"][left] == mine[1:]  # the rest, still the giver's
    assert all(state["secret"][DECK]["slots"][s]["owner"] == seat for s in mine[1:])
    assert table.to_act() == left
    table.play([f"pick {theirs[0]}"])
    state = table.state
    assert state["draft"]["held"][left] == [] and len(state["draft"]["queue"][left]) == 1
    passed = state["draft"]["queue"][left][0]
    assert len(passed) == len(mine) - 1
    if rules == 3:  # fresh ids; version 4 keeps them (its receiver's adopt re-orders them)
        assert not set(passed) & set(mine)
    else:
        assert passed == mine[1:]
