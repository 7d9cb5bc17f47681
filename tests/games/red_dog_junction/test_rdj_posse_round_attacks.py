"""Posse (RDJ-V2) rounds of secret-deck work against a cheating or withholding seat
(docs/protocol-rounds.md, "Rounds of secret-deck work"). Checked: an entry the engine
asked for deck work carries no sealed commitment and no opening (it would be told as a
sealed turn); a seat proposed absent in a slot of a round of deck work can be voted out
(remedy ``end``: the game stops, the audit says what stays closed) and can answer the
proposal by signing the work it owes, after which the draft plays on to its end; an
entry of a round of deck work signed without its ``round``, or twice, is refused; the
draft's view names no single seat as signing next where a round signs; a stalling seat
cannot read two hands at once (the rest of a hand waits for its receiver's pick).
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import TurnError
from pbem.game import secretdeck
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.session import absentees
from pbem_games.red_dog_junction import posse, view
from tests.enginekit import forge, sign_as, tick, with_entries
from tests.games.red_dog_junction.test_rdj_posse_engine import readable_hands
from tests.games.red_dog_junction.test_rdj_posse_rounds import HANDLES
from tests.support.duty import keyed_homes, sign_duty

ROOT: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    ROOT[:] = [tmp_path_factory.mktemp("posse-round-attacks")]
    first_steps.cache_clear()


def new_posse(folder: Path) -> tuple[dict[str, Home], session.Written]:
    """A 3-player Posse game created in ``folder``, a home a seat."""
    homes = keyed_homes(folder, HANDLES)
    (folder / "saves").mkdir(parents=True)
    return homes, session.new_game(homes["ann"], "red-dog-junction", HANDLES,
                                   ["variant=posse"], None, folder=folder / "saves")


def to_relocks(folder: Path) -> tuple[dict[str, Home], session.Written]:
    """A 3-player Posse game signed up to its first round of deck work after a pick step
    (version 4: the handoffs; version 3: the re-locks), none signed."""
    homes, written = new_posse(folder)
    while not (written.table.deck_round() and written.table.round_first < 0
               and written.table.gstate["draft"]["choices"][0] == 1):
        assert written.entry["seq"] < 30
        written = sign_duty(homes, written, "greedy")
    return homes, written


@cache
def first_steps() -> tuple[dict[str, Home], Save]:
    """The first re-lock round of a 3-player Posse game, signed (a save of entries in
    rounds of deck work, and the deal's peels one after another before them)."""
    homes, written = to_relocks(ROOT[0])
    for handle in HANDLES:
        written = sign_as(homes[handle], written.path)
    return homes, savefile.read(written.path)


@pytest.mark.parametrize("field", ["sealed", "salt"])
@pytest.mark.parametrize("where", ["the deal's peels", "a round of re-locks"])
def test_RDJ_V2_an_entry_asked_for_deck_work_carries_nothing_sealed(field: str,
                                                                   where: str) -> None:
    homes, save = first_steps()
    index = next(i for i, e in enumerate(save.entries) if e["kind"] == "turn"
                 and not e["moves"] and ("round" in e) == (where != "the deal's peels"))
    assert not save.entries[index]["moves"] and save.entries[index]["chores"]
    entries = copy.deepcopy(save.entries[: index + 1])
    entries[index][field] = "00" * 32
    entries[index] = forge(entries[index], homes[entries[index]["seat"]].load())
    with pytest.raises(TurnError) as caught:
        engine.replay(with_entries(save, entries), check_snapshot=False)
    assert caught.value.code == "sealed" and "carries a sealed move" in caught.value.message


def test_RDJ_V2_a_deck_round_entry_without_its_round_or_a_second_one_is_refused() -> None:
    """ann's entry of the round of re-locks signed as an entry in seat order (no
    ``round``), or a second entry of ann's in the round (her next beacon link, as her
    own client could make it): each refused as a round's entry."""
    homes, save = first_steps()
    index = next(i for i, e in enumerate(save.entries) if "round" in e and not e["moves"])
    ann = homes[save.entries[index]["seat"]].load()
    alone = copy.deepcopy(save.entries[index])
    del alone["round"]
    again = copy.deepcopy(save.entries[index])
    again["seq"] += 1
    table = engine.replay(with_entries(save, save.entries[: index + 1]),
                          check_snapshot=False).table
    again["beacon"] = signing.next_link(table, 0, ann).hex()
    for entries, words in ((save.entries[:index] + [forge(alone, ann)], "must be signed in"),
                           (save.entries[: index + 1] + [forge(again, ann)],
                            "ann has signed in it already")):
        with pytest.raises(TurnError) as caught:
            engine.replay(with_entries(save, entries), check_snapshot=False)
        assert caught.value.code == "round" and words in caught.value.message


def draft_words(save: Save, count: int) -> tuple[str, str, list[str]]:
    """The text view of the state after the first ``count`` entries of ``save``: its
    draft head line, its 'Waiting for' line ('' if none), the players it marks acting."""
    table = engine.replay(with_entries(save, save.entries[:count]), check_snapshot=False).table
    lines = view.render(view.view(table.gstate, None)).splitlines()
    head = next(line for line in lines if "the Posse draft;" in line)
    waiting = next((line.strip() for line in lines if "Waiting for:" in line), "")
    marked = [line[2:].split()[0] for line in lines if line.startswith(" *")]
    return head.split("the Posse draft; ")[1], waiting, marked


def test_RDJ_V2_the_draft_view_names_no_single_signer_of_a_round() -> None:
    """From three players the picks of a step and the deck work between steps are
    signed in parallel: the view said '<one seat> signs the next entry' (the game's
    to_act, not the engine's), marked that seat alone, and said the deck work owed
    during a pick step was done by the owing seats' next entries (their picks do none)."""
    _, save = first_steps()
    first_pick = next(i for i, e in enumerate(save.entries) if e["moves"])
    after_ann = draft_words(save, first_pick + 1)
    # (ann's rest waits for bob's pick: nothing is owed inside the step)
    assert after_ann == ("bob and cy still to pick in this step", "", ["bob", "cy"])
    relocks = next(i for i, e in enumerate(save.entries) if "round" in e and not e["moves"])
    head, waiting, marked = draft_words(save, relocks)
    assert head == "the deck work on the hands comes before the next picks" and not marked
    assert waiting == "Waiting for: deck work owed by ann, bob and cy (done by their next " \
                      "entries)."
    # Version 4: once the hands are handed off, each pick's entry takes its hand: the
    # picks are all the next step waits for (it said it waited for deck work as well).
    head, waiting, marked = draft_words(save, len(save.entries))
    assert head == "ann, bob and cy still to pick in this step" and waiting == ""


def withheld_relock(folder: Path, proposer: str) -> tuple[dict[str, Home], session.Written]:
    """The first round of re-locks with cy's slot holding a proposal that cy is absent
    (remedy ``end``): by bob after signing its own slot, or by ann before bob signs his."""
    homes, written = to_relocks(folder)
    written = sign_as(homes["ann"], written.path)
    if proposer == "bob":
        written = sign_as(homes["bob"], written.path)
    written = sign_as(homes[proposer], written.path, "absent", player="cy", remedy="end")
    assert written.entry.get("round") == written.entry["seq"] - 2
    if proposer == "ann":
        written = sign_as(homes["bob"], written.path)
    duty = written.table.duty()
    assert duty is not None and (duty.kind, duty.seat) == ("vote", 1 if proposer == "ann" else 0)
    return homes, written


@pytest.mark.parametrize("proposer", ["bob", "ann"])
def test_RDJ_V2_a_seat_withholding_its_deck_work_in_a_round_can_be_voted_out(
        proposer: str, tmp_path: Path) -> None:
    """The proposal in the round's last slot asks who signs next before the round is
    complete (it used to fail there, with an IndexError shown to the player)."""
    homes, written = withheld_relock(tmp_path, proposer)
    voter = "bob" if proposer == "ann" else "ann"
    tick(hours=1)
    written = sign_as(homes[voter], written.path, "vote", vote="accept")
    while (duty := written.table.duty()) is not None:
        assert duty.kind == "reveal"
        written = sign_duty(homes, written)
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor")).report
    assert report.result["ending"]["how"] == "absent"
    assert report.result["ranking"] == [["ann", "bob"], ["cy"]]
    assert report.result["audit"] == "partial" and report.result["unrevealed"] == ["cy"]


def test_RDJ_V2_a_seat_proposed_absent_in_a_round_of_deck_work_answers_with_its_work(
        tmp_path: Path) -> None:
    """cy, proposed absent in its slot, signs the deck work it owes on top of the
    proposal: that answers it (PROTOCOL.md section 11), whichever seat the round of deck
    work formed after it would name first; the draft then plays on, one hand at a time."""
    homes, written = withheld_relock(tmp_path, "bob")
    written = sign_as(homes["cy"], written.path)
    assert not written.table.proposal and not written.entry["moves"]
    assert written.entry["chores"], "the answer does the work cy owed"
    while (state := written.table.gstate)["phase"] == "draft":
        assert written.entry["seq"] < 100, "the draft does not end"
        for queue in state["draft"]["queue"]:
            assert sum(secretdeck.settled(state, posse.DECK, h) for h in queue) <= 1
        # version 4: a hand waiting only for its seat's own adopt of it is one it reads
        assert all(readable_hands(state, seat) <= 1 for seat in range(len(HANDLES)))
        written = sign_duty(homes, written, "greedy")
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor")).report
    assert report.table.gstate["phase"] == "play"


def test_RDJ_V2_a_stalling_seat_cannot_read_its_next_hand_before_it_picks(
        tmp_path: Path) -> None:
    """bob stalls in a pick round, is proposed absent in his slot, the proposal refused;
    still to pick, bob signs an away note, and ann's next proposal that bob is absent
    follows. Both do the deck work their seats owe: had ann passed her hand's rest with
    her pick, bob's note would re-lock it and ann's proposal peel it, and bob could read
    that hand and the one he is still to pick from. The rest waits for bob's pick."""
    homes, written = new_posse(tmp_path)
    while not (written.table.step_round() and written.table.round_first < 0):
        written = sign_duty(homes, written, "greedy")
    written = sign_as(homes["ann"], written.path)
    written = sign_as(homes["cy"], written.path)
    written = sign_as(homes["cy"], written.path, "absent", player="bob", remedy="end")
    tick(hours=1)
    written = sign_as(homes["ann"], written.path, "vote", vote="refuse")
    until = tick(days=2)
    tick(days=-2)
    written = absentees.sign_absence(homes["bob"], written.path, "away",
                                     {"away_until": until}, None)
    tick(days=20)
    written = sign_as(homes["ann"], written.path, "absent", player="bob", remedy="end")
    state = written.table.gstate
    queue = state["draft"]["queue"][HANDLES.index("bob")]
    assert sum(secretdeck.settled(state, posse.DECK, h) for h in queue) <= 1
    # version 4: a hand waiting only for bob's own adopt of it is one bob reads
    assert readable_hands(state, HANDLES.index("bob")) <= 1
