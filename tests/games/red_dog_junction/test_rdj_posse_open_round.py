"""Posse (RDJ-V2), rules version 5 (games begun under it play on so; version 6 draws from
two links of the round: test_rdj_posse_pair_draw.py): the opens after the last choice are
one round of deck work while the rest of set-up's chance is pending (docs/protocol-rounds.md, "A round of
deck work that resolves chance"). The entry of one seat of the round, fixed before the
round begins (the first, in seat order, that queued none of the chance: the seat a lone
first open would have been in version 4), draws it from its own beacon link, at its
beginning; the other entries of the round draw nothing. Checked: the draw is the one that
seat's preview showed it, whatever order the round is signed in and whoever signs first;
the other seats' previews show the chance pending (they resolve nothing); a proposal in
that seat's slot leaves it pending, and the seat's answer on top draws the same; a game
begun under version 4 keeps its lone first open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem import registry, session
from pbem.mail import message
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.state.table import Table
from pbem_games.red_dog_junction import posse
from tests.enginekit import sign_as
from tests.games.red_dog_junction.test_rdj_posse_rounds import HANDLES, posse_until
from tests.support.duty import keyed_homes, sign_duty


def opens_ahead(written: session.Written) -> bool:
    """The round of the opens is about to begin: every choice made, none of it signed."""
    table = written.table
    return (table.gstate["phase"] == "draft" and bool(table.gstate["draft"]["shown"])
            and table.round_first < 0 and not posse.due(table.gstate))


def drawn(state: dict[str, Any]) -> tuple[Any, ...]:
    """What the rest of set-up drew: the first player, the dice, the display's seed."""
    return state["first"], state["dice"], state["draft"]["seed"]


def lone_resolver(table: Table) -> int:
    """The seat whose lone entry resolved the chance in version 4: the first seat owing
    work after the last signer, in seat order."""
    last = table.signers[-1]
    return min(table.deck_duty(), key=lambda s: (s - last - 1) % len(table.seats))


def previews(homes: dict[str, Home], table: Table) -> dict[str, Table]:
    return {h: signing.preview(table, homes[h].load()) for h in HANDLES}


@pytest.mark.heavy
@pytest.mark.parametrize("order", [HANDLES, list(reversed(HANDLES)), ["bob", "ann", "cy"]])
def test_RDJ_V2_the_opens_round_draws_what_its_fixed_seat_saw_in_any_order(
        order: list[str], tmp_path: Path) -> None:
    homes, written = posse_until(tmp_path, opens_ahead, 5)
    table = written.table
    assert table.gstate["pending"] and table.deck_round() == [0, 1, 2]
    resolver = table.deck_round_resolver()
    assert resolver == lone_resolver(table)  # the seat version 4's lone entry had
    seen = previews(homes, table)
    handle = HANDLES[resolver]
    assert not seen[handle].gstate["pending"]  # its own link draws it: it sees the draw
    for other in HANDLES:
        if other != handle:  # they draw nothing: they see the chance pending
            assert seen[other].gstate["pending"] == table.gstate["pending"]
    for who in order:
        written = sign_as(homes[who], written.path)
        assert written.entry.get("round") == len(table.signers)
        assert not written.entry["moves"] and written.entry["chores"]
        report = session.verify(savefile.read(written.path), Home(tmp_path / f"a-{who}"))
        assert report.table.gstate == written.table.gstate
        # drawn once the seat's entry is in the save, whoever signed before it
        assert bool(written.table.gstate["pending"]) == (handle not in order[:order.index(who) + 1])
    assert written.table.round_first < 0 and not written.table.gstate["pending"]
    state = written.table.gstate
    assert posse.due(state) or state["phase"] == "play"
    assert drawn(posse.ready(state)) == drawn(posse.ready(seen[handle].gstate))


@pytest.mark.heavy
def test_RDJ_V2_a_proposal_in_the_drawing_seats_slot_draws_nothing_and_its_answer_the_same(
        tmp_path: Path) -> None:
    """bob and cy open; cy then proposes ann, the seat whose entry draws, absent in her
    slot (remedy end). Nothing of the round draws: the chance stays pending. ann answers
    with her opens on top of the proposal, from the same link her slot would have
    carried: the same draw, so proposing gains the proposer no other outcome."""
    homes, written = posse_until(tmp_path, opens_ahead, 5)
    assert written.table.deck_round_resolver() == 0
    expected = drawn(posse.ready(signing.preview(written.table, homes["ann"].load()).gstate))
    written = sign_as(homes["bob"], written.path)
    written = sign_as(homes["cy"], written.path)
    written = sign_as(homes["cy"], written.path, "absent", player="ann", remedy="end")
    assert written.table.round_first < 0 and written.table.gstate["pending"]
    assert written.table.proposal.get("player") == 0
    written = sign_as(homes["ann"], written.path)
    assert not written.table.proposal and not written.table.gstate["pending"]
    assert drawn(posse.ready(written.table.gstate)) == expected
    while written.table.duty() is not None and written.table.gstate["phase"] != "play":
        written = sign_duty(homes, written, "greedy")
    session.verify(savefile.read(written.path), Home(tmp_path / "auditor"))


@pytest.mark.heavy
def test_RDJ_V2_a_draft_begun_under_version_4_keeps_its_lone_first_open(
        tmp_path: Path) -> None:
    homes, written = posse_until(tmp_path, opens_ahead, 4)
    table = written.table
    assert table.gstate["pending"] and table.deck_round() == []
    assert table.deck_round_resolver() == -1
    written = sign_duty(homes, written, "greedy")
    assert "round" not in written.entry and not written.table.gstate["pending"]
    assert written.table.deck_round() == [1, 2]  # the others' opens, after it


@pytest.mark.heavy
def test_RDJ_V2_a_player_who_has_shown_its_picks_still_sees_them(tmp_path: Path) -> None:
    """bob's opens are signed, ann's not yet: bob's view listed 'Your picks so far: none'
    (his secrets no longer hold the slots he opened), and said the dice were placed by
    'the entry after the draft's last choice', which ann's entry of the round need not be."""
    homes, written = posse_until(tmp_path, opens_ahead)
    written = sign_as(homes["bob"], written.path)
    assert written.table.gstate["pending"]
    _, view, _ = session.seat_view(homes["bob"], session.load(written.path, homes["bob"]))
    assert len(view["draft"]["picks"]) == 8
    text = registry.load("red-dog-junction").render(view)
    assert "Your picks so far (8):" in text
    assert "placed after the draft's last choice, by the entry that draws the rest" in text


@pytest.mark.heavy
def test_RDJ_V2_the_mail_during_the_opens_round_names_the_seat_whose_entry_draws(
        tmp_path: Path) -> None:
    """cy opens first and mails the save: the rest of set-up is drawn by ann's entry of
    the round, not by whoever opens the save next (bob, opening it, sees it pending)."""
    homes, written = posse_until(tmp_path, opens_ahead, 5)
    written = sign_as(homes["cy"], written.path)
    assert written.table.deck_round_resolver() == 0
    assert signing.preview(written.table, homes["bob"].load()).gstate["pending"]
    (mail,) = message.compose_each(written.path, homes["cy"], to=["bob@example.org"])
    text = " ".join(mail.get_body(("plain",)).get_content().split())
    assert "when the next player opens the save" not in text
    assert ("not shown yet: ann's entry of this round draws them, and they appear when ann "
            "opens the save.") in text
    # their entries take no move: the mail said 'It is the move of each of ... pbem play
    # FILE MOVE ...'
    assert ("ann and bob each sign an entry now, in parallel: secret-deck work, no move to "
            "choose.") in text
    assert "MOVE ..." not in text


@pytest.mark.heavy
@pytest.mark.parametrize("first", ["bob", "ann"])
def test_RDJ_V2_a_second_withholder_of_the_opens_round_answering_first_draws_nothing(
        first: str, tmp_path: Path) -> None:
    """ann (whose entry draws) and bob both withhold their opens; cy opens and proposes
    both absent in their slots. bob's answer, signed on top of his proposal while ann's
    is open, draws what his slot would have: nothing (his preview shows the chance
    pending). Were it to draw with bob's own link, bob would read that outcome before
    answering and choose between it and ann's by answering now or waiting. ann's answer
    draws what her preview showed her before the round, whether she answers second or
    first (in any order among the withholders: her answer first, on top of her open
    proposal, was refused, "the next entry must be a turn by bob")."""
    homes, written = posse_until(tmp_path, opens_ahead, 5)
    expected = drawn(posse.ready(signing.preview(written.table, homes["ann"].load()).gstate))
    written = sign_as(homes["cy"], written.path)
    for absent in ("ann", "bob"):
        written = sign_as(homes["cy"], written.path, "absent", player=absent, remedy="end")
    table = written.table
    assert table.round_first < 0 and table.proposal["player"] == 0 and table.gstate["pending"]
    assert signing.preview(table, homes["bob"].load()).gstate["pending"]
    for who in (first, "ann" if first == "bob" else "bob"):
        written = sign_as(homes[who], written.path)
        assert "round" not in written.entry and not written.entry["moves"]
        assert bool(written.table.gstate["pending"]) == (who == "bob" == first)
    assert not written.table.gstate["pending"] and not written.table.proposal
    assert drawn(posse.ready(written.table.gstate)) == expected
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor"))
    assert report.table.gstate == written.table.gstate


@pytest.mark.heavy
def test_RDJ_V2_before_the_opens_every_player_still_sees_its_picks(tmp_path: Path) -> None:
    """Every choice made, no open signed yet: each seat's view listed 'Your picks so far:
    none' (its cards, owed an open, were left out of what its seed reads), though the
    counts said 8 each."""
    homes, written = posse_until(tmp_path, opens_ahead)
    game = registry.load("red-dog-junction")
    for handle in HANDLES:
        _, view, _ = session.seat_view(homes[handle], session.load(written.path, homes[handle]))
        seat = HANDLES.index(handle)
        assert [c["slot"] for c in view["draft"]["picks"]] == posse.picks_of(
            written.table.gstate, seat)
        assert len(view["draft"]["picks"]) == 8
        assert "Your picks so far (8):" in game.render(view)


@pytest.mark.heavy
def test_RDJ_V2_the_drawing_withholder_answers_first_while_a_vote_is_owed(
        tmp_path: Path) -> None:
    """Four players: ann (whose entry draws) and dan withhold their opens; bob proposes
    both absent in their slots, cy the one voter. ann answers first, on top of her open
    proposal: her answer draws, and opens dan's proposal, which names cy (its vote) next.
    It was refused ("the next entry must be a vote by cy"); dan's answer follows."""
    handles = ["ann", "bob", "cy", "dan"]
    homes = keyed_homes(tmp_path, handles)
    (tmp_path / "saves").mkdir()
    written = session.new_game(homes["ann"], "red-dog-junction", handles, ["variant=posse"],
                               None, folder=tmp_path / "saves", rules=5)
    while not opens_ahead(written):
        written = sign_duty(homes, written, "greedy")
    assert written.table.deck_round_resolver() == 0
    expected = drawn(posse.ready(signing.preview(written.table, homes["ann"].load()).gstate))
    for who in ("bob", "cy"):
        written = sign_as(homes[who], written.path)
    for absent in ("ann", "dan"):
        written = sign_as(homes["bob"], written.path, "absent", player=absent, remedy="end")
    assert written.table.proposal["voters"] == [2]
    written = sign_as(homes["ann"], written.path)
    assert written.table.proposal["player"] == 3 and not written.table.gstate["pending"]
    assert drawn(posse.ready(written.table.gstate)) == expected
    written = sign_as(homes["dan"], written.path)
    assert not written.table.proposal and not written.table.queue
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor"))
    assert report.table.gstate == written.table.gstate
