"""Road Master rules version 5 (RM-A10 at the end of the game): every last Super Bonus
choice is made in a turn, before any seat reveals (a reveal publishes its seed, and with
it the cards the seat holds); version 4 made each in its seat's reveal."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import session
from pbem.game import IllegalMoveError
from pbem.protocol.crypto import secretdeck
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem_games.road_master import turn
from tests.enginekit import sign_as
from tests.support.duty import sign_duty

DECK = "superbonus"


def _sign(homes: dict[str, Home], written: session.Written, handle: str,
          moves: list[str]) -> session.Written:
    return session.sign_next(homes[handle], written.path, None, moves, None, None)


def _signer(written: session.Written) -> str:
    duty = written.table.duty()
    assert duty is not None
    return written.table.seats[duty.seat].handle


def _two_draw_in_the_last_round(homes: dict[str, Home], folder: Path) -> session.Written:
    """ann, bob and cy place their trucks, then ann and bob take Super Bonus cards and cy
    passes: with the stall rule at 2 quiet rounds, cy's turn ends the game."""
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(homes["ann"], "road-master", list(homes), ["first=ann"], None,
                               folder=folder)
    while written.table.duty().kind != "turn":
        written = sign_duty(homes, written)
    for handle in homes:
        written = _sign(homes, written, handle, ["place A"])
    written = _sign(homes, written, "ann", ["superbonus"])
    written = _sign(homes, written, "bob", ["superbonus"])
    return _sign(homes, written, "cy", [])


def _choose(table, seat: int) -> list[str]:
    """Keep the first drawn card, put the others under the deck."""
    drawn = secretdeck.drawn(table.gstate, DECK, seat)
    return [f"keep {drawn[0]}", "bottom " + " ".join(drawn[1:])]


def test_RM_A10_last_choices_are_a_round_of_turns_before_a_round_of_reveals(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann and bob draw in the last round. Once cy's turn ends the game, ann's peel on
    bob's cards is asked for (bob's on ann's rode in his turn), then ann and bob choose in
    one round of turns, each before anyone has revealed. The cards they do not keep are
    set aside (no one draws again: a return would only owe the others' shuffles), so the
    game is over right after that round and the three reveals form a round that carries
    no moves."""
    monkeypatch.setattr(turn, "STALLED_ROUNDS", 2)
    written = _two_draw_in_the_last_round(homes, tmp_path / "saves")
    table = written.table
    assert table.gstate["ended"] and table.game.to_act(table.gstate) is not None
    assert table.game.waits_on_deck(table.gstate)  # ann's layer is still on bob's cards
    # ann can read her own cards, but nobody decides while the game waits on deck work:
    # her choice is not offered (a bot signing for her does the work only) nor taken.
    assert secretdeck.readable(table.gstate, DECK, 0)
    assert table.game.legal_moves(table.gstate, 0) == []
    drawn = secretdeck.drawn(table.gstate, DECK, 0)
    with pytest.raises(IllegalMoveError, match="another chooser's drawn cards are not readable"):
        table.game.apply(copy.deepcopy(table.gstate), 0, f"keep {drawn[0]}")
    while table.game.waits_on_deck(table.gstate):
        assert _signer(written) == "ann"
        written = sign_duty(homes, written, "greedy")
        table = written.table
    assert table.game.simultaneous(table.gstate) == [0, 1]
    assert table.step_round() == [0, 1]
    first = len(savefile.read(written.path).entries)
    for seat, handle in ((1, "bob"), (0, "ann")):  # signed in either order: one round
        written = _sign(homes, written, handle, _choose(table, seat))
    entries = savefile.read(written.path).entries
    choices = entries[first:]
    assert [e["kind"] for e in choices] == ["turn", "turn"]
    assert [e["round"] for e in choices] == [first, first]
    assert not any(e["kind"] == "reveal" for e in entries)
    table = written.table
    assert table.gstate["sb"]["aside"] and not secretdeck.owing(table.gstate, DECK)
    assert table.game.to_act(table.gstate) is None
    assert table.reveal_round() == [0, 1, 2]
    while table.duty() is not None:
        written = sign_duty(homes, written)
        table = written.table
    reveals = [e for e in savefile.read(written.path).entries if e["kind"] == "reveal"]
    assert len(reveals) == 3 and len({e["round"] for e in reveals}) == 1
    assert all(not e["moves"] for e in reveals)
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor"),
                            full=True).report
    assert report.audit == "clean"
    assert report.outcome is not None
    assert report.table.game.view(report.table.gstate, None)["superbonus"]["held"][:2] == [1, 1]


def test_RM_A10_a_seat_withholding_its_last_choice_is_declared_absent_and_the_game_ends(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann chooses in her slot of the round of last choices, bob never does: a draw is
    under way, so remedy ``end`` is the only one offered (no bot, which could never read
    bob's cards); ann proposes it in bob's slot, cy accepts, ann confirms, and ann's and
    cy's reveals (no moves: the game was stopped) complete the game, audited clean."""
    monkeypatch.setattr(turn, "STALLED_ROUNDS", 2)
    written = _two_draw_in_the_last_round(homes, tmp_path / "saves")
    while written.table.game.waits_on_deck(written.table.gstate):
        written = sign_duty(homes, written)
    table = written.table
    assert sorted(table.game.remedies(table.gstate, 1)) == ["end"]
    written = _sign(homes, written, "ann", _choose(table, 0))
    path = sign_as(homes["ann"], written.path, "absent", player="bob", remedy="end").path
    for _ in range(12):
        table = session.load(path, homes["ann"]).table
        duty = table.duty()
        if duty is None:
            break
        handle = table.seats[duty.seat].handle
        assert handle != "bob"
        if duty.kind == "vote":
            path = sign_as(homes[handle], path, "vote", vote="accept").path
        elif table.proposal and table.proposal.get("confirm"):
            path = sign_as(homes[handle], path, "confirm").path
        else:
            assert duty.kind == "reveal"
            path = sign_as(homes[handle], path, None, bot=None).path
    save = savefile.read(path)
    assert all(not e["moves"] for e in save.entries if e["kind"] == "reveal")
    report = session.verify(save, Home(tmp_path / "auditor"), full=True).report
    assert report.table.duty() is None and report.table.dropped == [1]
    assert report.audit == "clean" and report.outcome is not None
    assert report.outcome.ranking[-1] == [1]


def test_RM_H3_boom_cards_that_end_the_game_leave_the_resolvers_turn_before_the_choices(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cy's last turn loads yellow (RM-H3: a boom card is drawn after it, by ann's next
    entry), and the round is checked only then (RM-X1 with the stall rule at 2 rounds).
    ann's entry draws the boom card and so ends the game; bob still has cards drawn in
    that round. ann's entry is then still her turn (nothing to play, her peel on bob's
    cards in it), not a reveal: bob chooses next, and only then does anyone reveal."""
    monkeypatch.setattr(turn, "STALLED_ROUNDS", 2)
    folder = tmp_path / "saves"
    folder.mkdir()
    written = session.new_game(homes["ann"], "road-master", list(homes),
                               ["first=ann", "hazardous=true"], None, folder=folder)
    while written.table.duty().kind != "turn":
        written = sign_duty(homes, written)
    for handle, where in (("ann", "A"), ("bob", "A"), ("cy", "F")):
        written = _sign(homes, written, handle, [f"place {where}"])
    written = _sign(homes, written, "ann", [])
    written = _sign(homes, written, "bob", ["superbonus"])
    written = _sign(homes, written, "cy", ["load yellow"])
    assert not written.table.gstate["ended"] and written.table.gstate["pending"]
    written = _sign(homes, written, "ann", [])  # draws the boom card: the game ends
    table = written.table
    assert table.gstate["ended"] and savefile.read(written.path).entries[-1]["kind"] == "turn"
    assert table.game.to_act(table.gstate) == 1 and table.game.legal_moves(table.gstate, 1)
    written = _sign(homes, written, "bob", _choose(table, 1))
    assert written.table.game.to_act(written.table.gstate) is None
    while written.table.duty() is not None:
        written = sign_duty(homes, written)
    save = savefile.read(written.path)
    reveals = [e for e in save.entries if e["kind"] == "reveal"]
    assert len(reveals) == 3 and len({e.get("round") for e in reveals}) == 1
    assert session.verify(save, Home(tmp_path / "auditor"), full=True).report.audit == "clean"
