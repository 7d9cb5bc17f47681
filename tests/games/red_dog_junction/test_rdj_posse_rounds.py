"""Posse (RDJ-V2) in rounds (docs/protocol-rounds.md, "Rounds of secret-deck work"): from
three players each pick step is a round of picks, then the engine asks for the deck work
(no seat is handed a turn for it): in rules version 4 a round of the givers' handoffs,
each pick's entry then adopting the hand it picks from; in version 3 a round of the
receivers' re-locks, a round of the givers' peels. Checked here: each entry of a round of
deck work does exactly the work its seat owed when the round began, no more and no less,
and an entry of the picks' round its adopt only (version 3: none); an entry the engine
asked for deck work carries no move; a pick round signed in any order, each seat on the
save the one before wrote, verifies and plays on; and such an entry answers itself.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError, PbemError, TurnError
from pbem.mail import answer
from pbem.protocol.crypto import mental_deck
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.table import Table
from pbem_games.red_dog_junction import posse
from tests.enginekit import forge, with_entries
from tests.support.duty import keyed_homes, sign_duty

HANDLES = ["ann", "bob", "cy"]
DECK = posse.DECK
ROOT: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    ROOT[:] = [tmp_path_factory.mktemp("posse-rounds")]
    _draft.cache_clear()


def posse_until(folder: Path, reached: Callable[[session.Written], bool],
                rules: int | None = None) -> tuple[dict[str, Home], session.Written]:
    """A 3-player Posse game, a home a seat under ``folder``, signed by greedy bots, each
    entry in its seat's home, until ``reached`` holds (``rules``: an older version)."""
    homes = keyed_homes(folder, HANDLES)
    (folder / "saves").mkdir()
    written = session.new_game(homes["ann"], "red-dog-junction", HANDLES, ["variant=posse"],
                               None, folder=folder / "saves", rules=rules)
    while not reached(written):
        assert written.entry["seq"] < 120
        written = sign_duty(homes, written, "greedy")
    return homes, written


def deck_round_ahead(written: session.Written) -> bool:
    return bool(written.table.deck_round()) and written.table.round_first < 0


def draft(rules: int = posse.UNLINKED_RULES) -> tuple[dict[str, Home], Save]:
    """A 3-player Posse game signed to the first turn after the draft, a home a seat
    (``rules``: the version, the current one unless older)."""
    return _draft(rules)


@cache
def _draft(rules: int) -> tuple[dict[str, Home], Save]:
    homes, written = posse_until(ROOT[0] / f"v{rules}", lambda w: drafted(w.table.gstate),
                                 None if rules == posse.UNLINKED_RULES else rules)
    return homes, savefile.read(written.path)


def drafted(state: dict[str, Any]) -> bool:
    """Every pick shown and set-up drawn: the cards wait to be handed out (from version 6
    the draw, at the end of the opens, hands them out at once)."""
    return posse.due(state) or (state["phase"] == "play" and "draft" in state)


def table_before(save: Save, index: int) -> Table:
    """The table before entry ``index`` (the head settled as a verifier settles it)."""
    return engine.replay(with_entries(save, save.entries[:index]), check_snapshot=False).table


def round_entries(save: Save, op: str) -> list[int]:
    """Indexes of the entries of the first round whose entries do ``op`` work."""
    first = next(i for i, e in enumerate(save.entries) if "round" in e and any(
        i["op"] == op for c in e["chores"] for i in c.get("items", [])))
    return [i for i, e in enumerate(save.entries) if e.get("round") == save.entries[first]["round"]]


def refused(homes: dict[str, Home], save: Save, index: int, chores: list[dict[str, Any]],
            moves: list[str] | None = None) -> PbemError:
    """The error verifying ``save`` up to entry ``index`` gives, that entry carrying
    ``chores`` (and ``moves``) and re-signed by its own seat, as a cheating client would."""
    entries = copy.deepcopy(save.entries[: index + 1])
    entries[index]["chores"] = chores
    if moves is not None:
        entries[index]["moves"] = moves
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(PbemError) as caught:
        engine.replay(with_entries(save, entries), check_snapshot=False)
    return caught.value


def work_now(homes: dict[str, Home], save: Save, index: int) -> list[dict[str, Any]]:
    """The chores entry ``index``'s seat would sign on the table before it (the round's
    entries before it in seat order applied): all the work it owes there, done with its
    keys, as a seat that ignored the round would send them."""
    table = table_before(save, index)
    entry = save.entries[index]
    seat = table.seat_of(entry["seat"])
    assert seat is not None
    seed = signing.seat_seed(table, seat, homes[entry["seat"]].load())
    chore = mental_deck.perform(table.gstate["secret"][DECK], DECK, seat, seed, table.game_id,
                                entry["seq"])
    return [] if chore is None else [chore]


def round_kinds(save: Save) -> list[str]:
    """What each round of ``save`` does, in order: "pick" (with the chore ops its entries
    carry, if any, after a "+") or the ops of a round of deck work."""
    kinds = []
    for e in save.entries:
        ops = sorted({i["op"] for c in e["chores"] for i in c.get("items", [])})
        what = "+".join((["pick"] if e["moves"] else []) + ops) or "-"
        if "round" in e and (not kinds or kinds[-1][0] != e["round"]):
            kinds.append((e["round"], what))
    return [what for _, what in kinds]


@pytest.mark.heavy
@pytest.mark.parametrize(("rules", "alone"), [(4, 3), (5, 1)])
def test_RDJ_V2_each_pick_step_is_a_round_of_handoffs_then_of_picks_that_adopt(
        rules: int, alone: int) -> None:
    """Entries signed alone, none a pick: version 4, the two deal peels after the start
    and the first open (it draws the rest of set-up; the others open in a round); version
    5, one deal peel (the others were in the last join and the start), and the opens are
    all in one round, its first seat's entry drawing."""
    _, save = draft(rules)
    kinds = round_kinds(save)
    assert kinds[:5] == ["pick", "handoff", "pick+adopt", "handoff", "pick+adopt"]
    signed_alone = [e for e in save.entries if e["kind"] == "turn" and "round" not in e]
    assert [bool(e["moves"]) for e in signed_alone] == [False] * alone
    opens = [e for e in save.entries if e.get("round") and any(
        i["op"] == "open" for c in e["chores"] for i in c.get("items", []))]
    assert len(opens) == (2 if rules == 4 else 3) and kinds[-1] == "open"


@pytest.mark.heavy
def test_RDJ_V2_each_pick_step_is_a_round_of_picks_then_of_relocks_then_of_peels() -> None:
    """Version 3."""
    _, save = draft(3)
    assert round_kinds(save)[:6] == ["pick", "shuffle", "peel"] * 2
    # outside rounds, only the deal's peels (on the same slots) and the entry that draws
    # the rest of set-up with its opens: nobody was handed a turn for deck work
    alone = [e for e in save.entries if e["kind"] == "turn" and "round" not in e]
    assert [bool(e["moves"]) for e in alone] == [False, False, False]


@pytest.mark.heavy
@pytest.mark.parametrize(("rules", "op"), [(3, "shuffle"), (4, "handoff")])
def test_RDJ_V2_a_deck_round_entry_that_omits_its_work_is_refused(rules: int, op: str) -> None:
    homes, save = draft(rules)
    index = round_entries(save, op)[1]
    error = refused(homes, save, index, [])
    assert isinstance(error, TurnError) and "omits the secret-deck work" in error.message


@pytest.mark.heavy
def test_RDJ_V2_a_deck_round_entry_doing_work_owed_only_through_the_round_is_refused() -> None:
    """The last seat of a round of re-locks owes, once the first seat's re-lock of the hand
    it passed is applied, that hand's peel: work the round's other entries made owed,
    which it could not know when the round began. Its entry with it (all it owes on the
    table in seat order) is refused: the peel is the next round's. (Version 3.)"""
    homes, save = draft(3)
    index = round_entries(save, "shuffle")[-1]
    everything = work_now(homes, save, index)
    assert {i["op"] for i in everything[0]["items"]} == {"shuffle", "peel"}
    error = refused(homes, save, index, everything)
    assert isinstance(error, IntegrityError) and error.code == "chore"
    assert "is not what its seat owed when the round began: it does a peel of slot" \
        in error.message


@pytest.mark.heavy
def test_RDJ_V2_a_handoff_round_entry_adopting_what_the_round_handed_it_is_refused() -> None:
    """In a round of handoffs, bob's hand from ann is handed off by ann's entry, before
    bob's in seat order: bob's entry with its adopt of it (all it owes on the table in
    seat order) is refused: the adopt goes in bob's pick of the next round."""
    homes, save = draft()
    index = round_entries(save, "handoff")[1]
    everything = work_now(homes, save, index)
    assert {i["op"] for i in everything[0]["items"]} == {"handoff", "adopt"}
    error = refused(homes, save, index, everything)
    assert isinstance(error, IntegrityError) and error.code == "chore"
    assert "is not what its seat owed when the round began: it does an adoption" in error.message


@pytest.mark.heavy
@pytest.mark.parametrize(("rules", "op"), [(3, "peel"), (4, "handoff")])
def test_RDJ_V2_an_entry_asked_for_deck_work_carries_no_move(rules: int, op: str) -> None:
    homes, save = draft(rules)
    index = round_entries(save, op)[0]
    error = refused(homes, save, index, save.entries[index]["chores"], moves=["pick s1"])
    assert isinstance(error, TurnError) and "waits on secret-deck work" in error.message


@pytest.mark.heavy
def test_RDJ_V2_a_pick_in_a_round_carries_no_deck_work() -> None:
    """The last pick of a round passes the hand kept for its seat (its right neighbour's
    rest, waiting for this pick), so its seat owes that hand's re-lock after its move;
    the pick carrying it (the chore its seat signs in the next round) is refused: it is
    the next round's. (Version 3.)"""
    homes, save = draft(3)
    first = next(e["round"] for e in save.entries if "round" in e and e["moves"])
    last = max(i for i, e in enumerate(save.entries) if e.get("round") == first)
    relocks = round_entries(save, "shuffle")
    relock = next(i for i in relocks if save.entries[i]["seat"] == save.entries[last]["seat"])
    error = refused(homes, save, last, save.entries[relock]["chores"])
    assert isinstance(error, IntegrityError) and "it does a shuffled re-lock" in error.message


@pytest.mark.heavy
@pytest.mark.parametrize("rules", [3, 4])
def test_RDJ_V2_a_pick_round_signed_in_reverse_order_verifies(tmp_path: Path, rules: int) -> None:
    """Each seat of the second pick round (version 4: whose entries adopt) signs on the
    save the seat after it wrote (so each save holds a later seat's entry of the round):
    the written saves verify in a home that saw none of them, and the draft plays on to
    its end."""
    homes, written = posse_until(
        tmp_path, lambda w: (bool(w.table.step_round()) and w.table.round_first < 0
                             and w.table.gstate["draft"]["choices"][0] == 1), rules)
    for handle in reversed(HANDLES):
        written = session.sign_next(homes[handle], written.path, None, [], "greedy", None)
        report = session.verify(savefile.read(written.path), Home(tmp_path / f"a-{handle}"))
        assert report.table.gstate == written.table.gstate
    assert written.table.round_first < 0  # complete
    while not posse.due(written.table.gstate):
        assert written.entry["seq"] < 120
        written = sign_duty(homes, written, "greedy")
    session.verify(savefile.read(written.path), Home(tmp_path / "auditor"))


@pytest.mark.heavy
@pytest.mark.parametrize("rules", [3, 4])
def test_RDJ_V2_an_entry_of_a_deck_round_answers_itself(tmp_path: Path, rules: int) -> None:
    homes, written = posse_until(tmp_path, deck_round_ahead, rules)
    for handle in HANDLES:
        told = answer.nothing_to_decide(homes[handle], written.path)
        assert told == ("deck work only", [])


@pytest.mark.heavy
def test_RDJ_V2_show_and_moves_say_a_deck_round_is_deck_work(tmp_path: Path) -> None:
    """In a round of handoffs, ann's entry signed: 'show', 'verify' and 'moves' say the
    next entries are secret-deck work by bob and cy, with no move (not a turn)."""
    homes, written = posse_until(tmp_path, deck_round_ahead)
    written = sign_duty(homes, written, "greedy")  # ann's, the first of the round
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(main, ["--home", str(tmp_path / "homes" / "bob"), *args])
        assert result.exit_code == 0, result.output
        return result.output

    shown = run("show", str(written.path))
    assert "Next: secret-deck work by each of bob, cy  (you among them)" in shown
    assert ("Round: the entries of ann, bob, cy doing the secret-deck work each seat owes "
            "(no move to choose), signed in parallel; this save holds those of ann; "
            "missing: bob, cy.") in shown
    assert "To act: bob, cy (secret-deck work each, in parallel) since" in shown
    assert "Next: secret-deck work by each of bob, cy." in run("verify", str(written.path))
    assert run("moves", str(written.path)) == (
        "(no moves: this entry only does the secret-deck work you owe; 'pbem play' with no "
        "moves signs it)\n")
    picked = runner.invoke(main, ["--home", str(tmp_path / "homes" / "bob"), "play",
                                  str(written.path), "pick 1"])
    assert picked.exit_code == 1 and picked.output.strip() == (
        "pbem: You owe secret-deck work now, which takes no moves; run 'pbem play SAVE' with "
        "no moves.")
    data = json.loads(run("verify", str(written.path), "--json"))
    assert data["round"]["deck_work"] is True and data["round"]["sealed"] == ""


@pytest.mark.heavy
@pytest.mark.parametrize("op", ["handoff", "adopt"])
@pytest.mark.parametrize("bad", [[], {}, ["adopt"]])
def test_RDJ_V2_a_round_entry_whose_item_names_no_op_in_words_is_refused(op: str,
                                                                        bad: Any) -> None:
    """An item of a round's entry (a round of handoffs; a pick round, its adopts) whose
    ``op`` is a list or a table, signed by its own seat: refused with exit 3 in words,
    never a traceback (the round's check describes the item it did not owe)."""
    homes, save = draft()
    index = round_entries(save, op)[0]
    chores = copy.deepcopy(save.entries[index]["chores"])
    chores[0]["items"][0]["op"] = bad
    error = refused(homes, save, index, chores)
    assert isinstance(error, IntegrityError) and error.code == "chore"
    assert "is not what its seat owed when the round began: it does an item" in error.message
