"""Reveal rounds of three or more seats (docs/protocol-rounds.md): every seat still to
reveal signs in one round where the reveals are independent; seats withholding their
reveals are proposed absent in their slots, the proposals queued and settled one after
another once the round is complete, so each withholder stays removable and the game
completes with the right result (remedy end: the withholders rank last)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, TurnError, UsageError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.session import absentees
from pbem.session import rounds as assembling
from tests.enginekit import forge, play_game, relinked, tick, with_entries

HANDLES = ("ann", "bob", "cy", "dee", "eve")


def make_homes(root: Path, players: int) -> dict[str, Home]:
    made = {}
    for handle in HANDLES[:players]:
        home = Home(root / "homes" / handle)
        home.keygen(handle)
        made[handle] = home
    return made


def to_the_reveals(homes: dict[str, Home], folder: Path, game: str = "red-dog-junction",
                   rules: int | None = None) -> Path:
    """A game played by greedy bots up to its final reveals; the save there."""
    folder.mkdir(parents=True, exist_ok=True)
    handles = list(homes)
    written = session.new_game(homes[handles[0]], game, handles, [], None, folder=folder,
                               rules=rules)
    while True:
        duty = written.table.duty()
        assert duty is not None
        if duty.kind == "reveal":
            return written.path
        handle = written.table.seats[duty.seat].handle
        kind = "join" if duty.kind == "join" else None
        written = session.sign_next(homes[handle], written.path, kind, [], "greedy", None)


def reveal_all(homes: dict[str, Home], path: Path, handles: list[str]) -> Path:
    """Each of ``handles`` reveals in its slot, each on the save the one before wrote."""
    for handle in handles:
        path = session.sign_next(homes[handle], path, None, [], None, None).path
    return path


def propose(homes: dict[str, Home], by: str, path: Path, player: str) -> session.Written:
    return absentees.sign_absence(homes[by], path, "absent",
                                  {"player": player, "remedy": "end"}, None)


def fresh(save: Save, tmp_path: Path, name: str = "stranger") -> session.Verified:
    return session.verify(save, Home(tmp_path / name))


def settle(homes: dict[str, Home], path: Path, confirmer: str) -> Path:
    """Settle the open proposals one after another: every vote due accepts; with none,
    ``confirmer`` confirms once a patience has run. The last save."""
    while True:
        table = session.load(path, None).table
        if not table.proposal:
            return path
        voters = table.proposal["voters"]
        if voters:
            voter = table.seats[voters[0]].handle
            path = absentees.sign_absence(homes[voter], path, "vote", {"vote": "accept"},
                                          None).path
            continue
        tick(days=7, hours=1)
        by = table.seats[table.proposal["by"]].handle
        assert by == confirmer
        path = absentees.sign_absence(homes[by], path, "confirm", {}, None).path


@pytest.fixture
def five(tmp_path: Path) -> dict[str, Home]:
    return make_homes(tmp_path, 5)


@pytest.fixture
def at_reveals5(five: dict[str, Home], tmp_path: Path) -> Path:
    return to_the_reveals(five, tmp_path / "saves")


# ---- whole games ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5])
def test_rdj_reveals_of_every_seat_are_one_round(tmp_path: Path, players: int) -> None:
    homes = make_homes(tmp_path, players)
    paths = play_game(homes, tmp_path / "saves", game="red-dog-junction", bot="greedy")
    save = savefile.read(paths[-1])
    reveals = save.entries[-players:]
    assert [e["kind"] for e in reveals] == ["reveal"] * players
    assert {e["round"] for e in reveals} == {reveals[0]["seq"]}
    assert {e["prev"] for e in reveals} == {digest(save.entries[-players - 1])}
    assert [e["seat"] for e in reveals] == list(homes)  # seat order
    verified = fresh(save, tmp_path)
    assert verified.report.audit == "clean" and verified.table.duty() is None


@pytest.mark.parametrize("players", [3, 4])
def test_sts_first_reveal_resolves_the_draw_and_the_rest_are_a_round(tmp_path: Path,
                                                                      players: int) -> None:
    """Station to Station's last turn queued a token draw in rules version 3 (a game begun
    under it plays on so): the first reveal resolves it alone; the reveals left are
    independent, so they are one round."""
    homes = make_homes(tmp_path, players)
    paths = play_game(homes, tmp_path / "saves", game="station-to-station", bot="greedy",
                      rules=3)
    save = savefile.read(paths[-1])
    reveals = save.entries[-players:]
    assert [e["kind"] for e in reveals] == ["reveal"] * players
    assert "round" not in reveals[0]
    assert {e.get("round") for e in reveals[1:]} == {reveals[1]["seq"]}
    assert fresh(save, tmp_path).report.audit == "clean"


def test_road_master_reveals_owing_deck_work_stay_one_at_a_time(tmp_path: Path) -> None:
    """Rules version 4 (games begun under it): the reveals carry the deck work owed at the
    end. From version 5 the game waits for that work before the reveals."""
    homes = make_homes(tmp_path, 3)
    paths = play_game(homes, tmp_path / "saves", game="road-master", bot="greedy", rules=4)
    save = savefile.read(paths[-1])
    assert [e["kind"] for e in save.entries[-3:]] == ["reveal"] * 3
    assert all("round" not in e for e in save.entries if e["kind"] == "reveal")


def test_posse_reveals_in_a_round_owe_no_deck_work(tmp_path: Path) -> None:
    """Posse's mental deck: reveals form a round only where nobody owes deck work and
    each seat reads its own draws, so none in it carries chores."""
    homes = make_homes(tmp_path, 3)
    paths = play_game(homes, tmp_path / "saves", game="red-dog-junction",
                      options=["variant=posse"], bot="greedy")
    save = savefile.read(paths[-1])
    assert all(not e["chores"] for e in save.entries if e["kind"] == "reveal" and "round" in e)
    assert fresh(save, tmp_path).report.audit == "clean"


# ---- withholders removed ---------------------------------------------------------------------
def test_one_withholder_of_five_is_voted_out_and_ranks_last(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob", "cy", "dee"])
    table = session.load(path, None).table
    assert table.round_missing() == [4]
    tick(days=8)
    proposal = propose(five, "ann", path, "eve")
    entry = proposal.entry
    assert entry["round"] == entry["seq"] - 4 and entry["prev"] == table.head
    table = proposal.table
    assert table.round_first < 0 and table.proposal["player"] == 4
    assert table.proposal["voters"] == [1, 2, 3]  # every seat that revealed but ann
    last = settle(five, proposal.path, "ann")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert report.table.dropped == [4]
    assert report.outcome is not None and report.outcome.ranking[-1] == [4]
    assert "eve withheld the final reveal: eve ranks last." in report.outcome.notes


def test_two_withholders_are_queued_and_both_removed(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    # eve's slot first: the queue still goes in slot order.
    path = absentees.sign_absence(five["bob"], path, "absent",
                                  {"player": "eve", "remedy": "end"}, None).path
    inside = session.load(path, None).table
    assert inside.round_missing() == [2] and [p["player"] for p in inside.queue] == [4]
    assert inside.duty() == (2, "reveal")  # the empty slot's seat, not a proposed one
    written = propose(five, "ann", path, "cy")
    table = written.table
    assert table.round_first < 0
    # cy's (slot 2) opens first; withholders vote on no other withholder.
    assert table.proposal["player"] == 2 and table.proposal["voters"] == [1, 3]
    assert [p["player"] for p in table.queue] == [4]
    assert table.queue[0]["voters"] == [3, 0]  # after bob, skipping cy and eve
    last = settle(five, written.path, "ann")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert report.table.dropped == [2, 4]
    assert report.outcome is not None and report.outcome.ranking[-1] == [2, 4]
    # What the result says of each removal is what happened, vote by vote.
    said = [(r["player"], r["by"], r["accepted"], r["passed"], r["confirmed"])
            for r in report.result["ending"]["remedies"]]
    assert said == [("cy", "ann", ["bob", "dee"], [], None),
                    ("eve", "bob", ["dee", "ann"], [], None)]


def test_all_but_one_withholding_are_confirmed_out_one_after_another(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = reveal_all(five, at_reveals5, ["cy"])
    tick(days=8)
    for player in ("ann", "bob", "dee", "eve"):
        path = propose(five, "cy", path, player).path
    table = session.load(path, None).table
    assert table.proposal["player"] == 0 and table.proposal["voters"] == []
    assert [p["player"] for p in table.queue] == [1, 3, 4]
    with pytest.raises(TurnError, match="one patience"):
        absentees.sign_absence(five["cy"], path, "confirm", {}, None)
    last = settle(five, path, "cy")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert report.table.dropped == [0, 1, 3, 4]
    assert report.outcome is not None and report.outcome.ranking == [[2], [0, 1, 3, 4]]
    remedies = report.result["ending"]["remedies"]
    assert [(r["player"], r["accepted"], r["confirmer"]) for r in remedies] == [
        (h, [], "cy") for h in ("ann", "bob", "dee", "eve")]
    assert all(r["withheld"] for r in remedies)


def test_a_queued_proposal_counts_its_confirm_from_when_it_opens(
        tmp_path: Path) -> None:
    homes = make_homes(tmp_path, 3)
    path = reveal_all(homes, to_the_reveals(homes, tmp_path / "saves"), ["cy"])
    tick(days=8)
    path = propose(homes, "cy", path, "ann").path
    path = propose(homes, "cy", path, "bob").path
    tick(days=7, hours=1)
    written = absentees.sign_absence(homes["cy"], path, "confirm", {}, None)
    assert written.table.proposal["player"] == 1
    assert written.table.proposal["opened"] == written.entry["time"]
    tick(days=6)
    with pytest.raises(TurnError, match="one patience"):
        absentees.sign_absence(homes["cy"], written.path, "confirm", {}, None)
    tick(days=1, hours=1)
    absentees.sign_absence(homes["cy"], written.path, "confirm", {}, None)


# ---- withholders answering -------------------------------------------------------------------
def cy_and_eve_proposed(five: dict[str, Home], at_reveals5: Path) -> Path:
    """ann, bob and dee reveal; ann proposes cy and eve absent in their slots (the round
    is complete: cy's proposal opens, eve's is queued)."""
    path = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    path = propose(five, "ann", path, "cy").path
    return propose(five, "ann", path, "eve").path


def test_a_withholder_answers_on_top_of_its_queued_proposal(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = cy_and_eve_proposed(five, at_reveals5)
    # eve reveals while cy's proposal is open and hers is queued: hers is void only.
    answer = session.sign_next(five["eve"], path, None, [], None, None)
    assert answer.entry["kind"] == "reveal" and "round" not in answer.entry
    table = answer.table
    assert table.proposal["player"] == 2 and table.queue == []
    last = settle(five, answer.path, "ann")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert report.table.dropped == [2]
    assert report.outcome is not None and report.outcome.ranking[-1] == [2]
    assert [r["player"] for r in report.result["ending"]["remedies"]] == ["cy"]


def test_a_withholder_answers_on_top_of_its_open_proposal(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = cy_and_eve_proposed(five, at_reveals5)
    answer = session.sign_next(five["cy"], path, None, [], None, None)
    assert answer.table.proposal["player"] == 4  # eve's opens now
    assert answer.table.proposal["opened"] == answer.entry["time"]
    last = settle(five, answer.path, "ann")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.dropped == [4]


def test_a_withholders_reveal_in_its_slot_is_a_branch(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    cy = session.sign_next(five["cy"], path, None, [], None, None)  # in its slot, first
    tick(minutes=1)
    proposal = propose(five, "ann", path, "cy")
    assert cy.entry["seq"] == proposal.entry["seq"] and cy.entry["prev"] == proposal.entry["prev"]
    home = Home(tmp_path / "watcher")
    session.verify(proposal.save, home)
    verified = session.verify(cy.save, home)
    assert len(verified.branches) == 1 and "This save's branch is the game's" in \
        verified.branches[0]
    with pytest.raises(UsageError, match="different branches"):
        assembling.assemble([proposal.save, cy.save])


def test_the_withholders_vote_on_no_proposal_and_a_refusal_opens_the_next(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = cy_and_eve_proposed(five, at_reveals5)
    with pytest.raises(TurnError):
        absentees.sign_absence(five["eve"], path, "vote", {"vote": "accept"}, None)
    refused = absentees.sign_absence(five["bob"], path, "vote", {"vote": "refuse"}, None)
    assert refused.table.proposal["player"] == 4 and refused.table.dropped == []
    last = settle(five, refused.path, "ann")
    table = session.load(last, None).table
    assert table.dropped == [4] and table.duty() == (2, "reveal")  # cy, one at a time
    done = session.sign_next(five["cy"], last, None, [], None, None)
    report = fresh(done.save, tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None


# ---- tampers ---------------------------------------------------------------------------------
def refused(save: Save, bodies: list[dict], homes: dict[str, Home]) -> pytest.ExceptionInfo:
    forged = with_entries(save, relinked(save.header, bodies, homes))
    with pytest.raises((TurnError, IntegrityError)) as info:
        engine.replay(forged, check_snapshot=False)
    return info


def absent_body(save: Save, by: str, player: str, seq: int, first: int) -> dict:
    return {"seq": seq, "game": save.game_id, "seat": by, "kind": "absent", "prev": "",
            "round": first, "moves": [], "chores": [], "time": timing.now_stamp(),
            "player": player, "remedy": "end"}


def test_a_proposal_by_a_seat_whose_slot_holds_a_proposal_is_refused(
        five: dict[str, Home], at_reveals5: Path) -> None:
    """bob did not reveal (ann proposed bob in bob's slot): bob may not fill cy's."""
    path = reveal_all(five, at_reveals5, ["ann"])
    tick(days=8)
    save = propose(five, "ann", path, "bob").save
    first = save.entries[-1]["round"]
    body = absent_body(save, "bob", "cy", first + 2, first)
    info = refused(save, [*copy.deepcopy(save.entries), body], five)
    assert info.value.code == "round" and "has not revealed in it" in info.value.message


def test_a_proposal_against_a_seat_whose_slot_is_filled_is_refused(
        five: dict[str, Home], at_reveals5: Path) -> None:
    """bob revealed in the round: ann may not propose bob absent (in the next free slot)."""
    path = reveal_all(five, at_reveals5, ["ann", "bob"])
    tick(days=8)
    save = savefile.read(path)
    first = save.entries[-1]["round"]
    body = absent_body(save, "ann", "bob", first + 2, first)
    info = refused(save, [*copy.deepcopy(save.entries), body], five)
    assert info.value.code == "round" and "has no slot left" in info.value.message


def test_a_proposal_before_patience_in_a_round_is_refused(five: dict[str, Home],
                                                          at_reveals5: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob"])
    tick(days=6)  # a patience (7 days) counts from the entry before the round
    with pytest.raises(TurnError, match="still has time"):
        propose(five, "ann", path, "eve")
    save = savefile.read(path)
    first = save.entries[-1]["round"]
    body = absent_body(save, "ann", "eve", first + 4, first)
    info = refused(save, [*copy.deepcopy(save.entries), body], five)
    assert info.value.code == "patience"


def test_a_reveal_carrying_moves_in_a_five_seat_round_is_refused(
        five: dict[str, Home], at_reveals5: Path) -> None:
    save = savefile.read(reveal_all(five, at_reveals5, list(HANDLES)))
    bodies = copy.deepcopy(save.entries)
    bodies[-3]["moves"] = ["pass"]
    info = refused(save, bodies, five)
    assert info.value.code == "round" and "carries moves" in info.value.message


def test_two_proposals_of_one_seat_in_one_slot_are_a_fork(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob", "cy", "dee"])
    tick(days=8)
    first = propose(five, "ann", path, "eve").save
    tick(minutes=5)
    other = {**first.entries[-1], "time": timing.now_stamp()}
    second = with_entries(first, [*first.entries[:-1], forge(other, five["ann"].load())])
    home = Home(tmp_path / "watcher")
    session.verify(first, home)
    with pytest.raises(IntegrityError) as info:
        session.verify(second, home)
    assert info.value.code == "fork"


def test_a_reveal_and_proposals_of_one_seat_in_different_slots_are_no_fork(
        five: dict[str, Home], at_reveals5: Path, tmp_path: Path) -> None:
    revealed = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    one = propose(five, "ann", revealed, "cy").path
    two = propose(five, "ann", one, "eve").path
    home = Home(tmp_path / "watcher")
    for path in (revealed, one, two):
        verified = session.verify(savefile.read(path), home)
        assert not verified.branches


def test_a_proposal_whose_proposer_never_revealed_is_refused_at_the_save_end(
        five: dict[str, Home], at_reveals5: Path) -> None:
    """bob's proposal in eve's slot, bob's own slot empty: the save ends inside the round
    with a proposal by a seat that did not reveal in it."""
    save = savefile.read(at_reveals5)
    tick(days=8)
    first = len(save.entries)
    body = absent_body(save, "bob", "eve", first + 4, first)
    info = refused(save, [*copy.deepcopy(save.entries), body], five)
    assert info.value.code == "round" and "bob has not revealed in it" in info.value.message


def test_a_later_seat_proposes_an_earlier_slot_in_a_two_seat_round(tmp_path: Path) -> None:
    """bob (slot 1) reveals and proposes ann in slot 0: the save holds the proposal before
    bob's reveal, and it verifies (the proposer's reveal is checked once its slot is in)."""
    homes = make_homes(tmp_path, 2)
    path = reveal_all(homes, to_the_reveals(homes, tmp_path / "saves"), ["bob"])
    tick(days=8)
    written = propose(homes, "bob", path, "ann")
    assert [e["kind"] for e in written.save.entries[-2:]] == ["absent", "reveal"]
    last = settle(homes, written.path, "bob")
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.dropped == [0]


def test_verify_json_says_what_the_round_and_the_queue_wait_for(
        five: dict[str, Home], at_reveals5: Path) -> None:
    import json

    from click.testing import CliRunner

    from pbem.cli import main

    def verified(path: Path) -> dict:
        result = CliRunner().invoke(main, ["verify", "--json", str(path)])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    path = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    inside = propose(five, "bob", path, "eve")
    data = verified(inside.path)
    assert data["round"] == {"seats": list(HANDLES), "missing": ["cy"], "proposed": ["eve"]}
    assert data["queue"] == [{"player": "eve", "by": "bob", "seq": inside.entry["seq"],
                              "remedy": "end"}]
    assert any("Proposed in the round's slots: bob's that eve is absent" in line
               for line in data["absence"])
    after = propose(five, "ann", inside.path, "cy")
    data = verified(after.path)
    assert data["round"] is None and data["to_act"] == "bob" and data["next"] == "vote"
    assert data["queue"] == [{"player": "eve", "by": "bob", "seq": inside.entry["seq"],
                              "remedy": "end"}]
    assert any(line.startswith("Queued behind the open proposal, in order: bob's that eve")
               for line in data["absence"])


def test_auto_answer_signs_a_reveal_in_a_five_seat_round(five: dict[str, Home],
                                                         at_reveals5: Path) -> None:
    from pbem.mail import answer

    assert answer.nothing_to_decide(five["dee"], at_reveals5) == (
        "a reveal with nothing to choose", [])
    written = answer.answer(five["dee"], at_reveals5)
    assert written is not None
    entry = written.entry
    assert entry["kind"] == "reveal" and entry["round"] == entry["seq"] - 3  # dee's slot


def test_remind_names_every_seat_missing_in_the_round(five: dict[str, Home],
                                                      at_reveals5: Path) -> None:
    from pbem.home.contacts import Contacts
    from pbem.mail import message as mail
    from pbem.mail import reminders
    from tests.test_mail import addresses, plain

    path = reveal_all(five, at_reveals5, ["ann", "dee"])
    tick(days=8)
    found = reminders.check(five["ann"], path, "ann", timing.now())
    assert found.due and found.who == "bob, cy and eve"
    contacts = Contacts(five["ann"])
    contacts.check_save(savefile.read(path))
    for handle in ("bob", "cy", "eve"):
        contacts.players[handle]["emails"] = [f"{handle}@example.org"]
    contacts.changed = True
    contacts.write()
    msg = mail.compose(path, five["ann"], remind=True)
    assert addresses(msg, "To") == ["bob@example.org"]
    assert sorted(addresses(msg, "Cc")) == ["cy@example.org", "eve@example.org"]
    assert "this game has waited for bob, cy and eve for 8 days" in plain(msg)


def test_sts_two_withholders_after_the_first_reveal_are_voted_out(tmp_path: Path) -> None:
    """Station to Station of rules version 3, four seats: the first reveal draws the last
    token alone; of the round of the other three, one reveals and proposes the other two,
    and the first revealer (outside the round) votes on each, one after another."""
    homes = make_homes(tmp_path, 4)
    path = to_the_reveals(homes, tmp_path / "saves", game="station-to-station", rules=3)
    first = session.load(path, None).table.duty()
    assert first is not None
    path = session.sign_next(homes[HANDLES[first.seat]], path, None, [], None, None).path
    seats = session.load(path, None).table.round_seats()
    assert len(seats) == 3 and first.seat not in seats
    revealer, *withholders = [HANDLES[s] for s in seats]
    path = reveal_all(homes, path, [revealer])
    tick(days=8)
    for handle in withholders:
        path = propose(homes, revealer, path, handle).path
    table = session.load(path, None).table
    assert table.proposal["voters"] == [first.seat]
    last = settle(homes, path, revealer)
    report = fresh(savefile.read(last), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert report.outcome is not None
    assert [HANDLES[s] for s in report.outcome.ranking[-1]] == withholders


def test_a_withholder_told_its_slot_holds_a_proposal(five: dict[str, Home],
                                                     at_reveals5: Path) -> None:
    path = reveal_all(five, at_reveals5, ["ann", "bob", "dee"])
    tick(days=8)
    path = propose(five, "ann", path, "cy").path
    with pytest.raises(TurnError, match="Your slot in this round holds ann's proposal that "
                       r"you \(cy\) are absent"):
        session.sign_next(five["cy"], path, None, [], None, None)


def test_the_demo_at_five_players_plays_the_reveal_round(tmp_path: Path) -> None:
    """Each home signs its reveal on the same save; the last signer assembles the round."""
    from pbem import demo

    said: list[str] = []
    result = demo.run("red-dog-junction", 5, [], "greedy", str(tmp_path / "d"),
                      echo=said.append)
    assert result.report.audit == "clean" and result.report.table.duty() is None
    assert sum("reveal (in a round)" in line for line in said) == 5
    assert any("assembled the round" in line and "-ann+bob+cy+dee+eve.toml" in line
               for line in said)
    reveals = savefile.read(result.last_save).entries[-5:]
    assert {e.get("round") for e in reveals} == {reveals[0]["seq"]}


class _Enough(Exception):
    """Stops a demo once it has shown what a test needs."""


def test_the_demo_plays_the_posse_drafts_pick_rounds(tmp_path: Path) -> None:
    """At 3 players the Posse draft picks in rounds: each home's bot picks on the same save
    and the round is assembled (the demo signed each pick with no moves, and stopped with
    'the turn cannot end yet' at the first pick)."""
    from pbem import demo

    said: list[str] = []

    def echo(line: str) -> None:
        said.append(line)
        if "assembled the round" in line and any(" pick " in s for s in said):
            raise _Enough

    with pytest.raises(_Enough):
        demo.run("red-dog-junction", 3, ["variant=posse"], "greedy", str(tmp_path / "d"),
                 echo=echo)
    picks = [line for line in said if "turn   (in a round) pick " in line]
    assert [line.split()[1] for line in picks] == ["ann", "bob", "cy"], said


def test_the_demo_tells_an_entry_of_secret_deck_work_as_such(tmp_path: Path) -> None:
    """The Posse deal's and hand-offs' entries carry no move: the demo printed them as a
    bare 'turn', as if a turn had been played."""
    from pbem import demo

    said: list[str] = []

    def echo(line: str) -> None:
        said.append(line)
        if sum("assembled the round" in s for s in said) == 2:
            raise _Enough

    with pytest.raises(_Enough):
        demo.run("red-dog-junction", 3, ["variant=posse"], "greedy", str(tmp_path / "d"),
                 echo=echo)
    work = [line for line in said if line.endswith("(secret-deck work)")]
    assert [line.split()[1] for line in work[-3:]] == ["ann", "bob", "cy"], said
    assert all(line.rstrip().split()[-1] not in ("turn", "round)") for line in said), said
