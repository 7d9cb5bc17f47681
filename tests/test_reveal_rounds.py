"""Reveal rounds (docs/protocol-rounds.md): the final reveals of a two-seat game signed in
parallel when they are independent (no chance pending, no deck work owed, no choice
left), their tamper tests, and the absence procedure inside the round (a proposal in the
withholding seat's slot, its patience counted from before the round, the answer, the
branch with the withholder's own reveal in its slot)."""

from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, TurnError, UsageError
from pbem.home.archive import Archive
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.rounds import round_digest
from pbem.session import absentees
from pbem.session import rounds as assembling
from tests.enginekit import forge, play_game, relinked, sign_as, tick, with_entries


def to_the_reveals(homes: dict[str, Home], folder: Path) -> Path:
    """A two-seat game played by greedy bots up to its final reveals; the save there."""
    return last_turn(homes, folder).path


def last_turn(homes: dict[str, Home], folder: Path,
              game: str = "red-dog-junction") -> session.Written:
    """A two-seat game played by greedy bots up to its final reveals: its last turn."""
    handles = list(homes)
    written = session.new_game(homes[handles[0]], game, handles, [], None, folder=folder)
    written = session.sign_next(homes["bob"], written.path, "join", [], None, None)
    while True:
        duty = written.table.duty()
        assert duty is not None
        if duty.kind == "reveal":
            return written
        handle = written.table.seats[duty.seat].handle
        written = session.sign_next(homes[handle], written.path, None, [], "greedy", None)


def fresh(save: Save, tmp_path: Path, name: str = "stranger") -> session.Verified:
    return session.verify(save, Home(tmp_path / name))


def reveal(homes: dict[str, Home], handle: str, path: Path, out: Path) -> Path:
    session.sign_next(homes[handle], path, None, [], None, str(out))
    return out


@pytest.fixture
def at_reveals(two: dict[str, Home], tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    return to_the_reveals(two, folder)


# ---- whole games ---------------------------------------------------------------------------
def test_rdj_two_seat_reveals_are_one_round(two: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(two, tmp_path / "saves", game="red-dog-junction", bot="greedy")
    save = savefile.read(paths[-1])
    first, second = save.entries[-2:]
    assert [first["kind"], second["kind"]] == ["reveal", "reveal"]
    assert first["round"] == second["round"] == first["seq"]
    assert first["prev"] == second["prev"] == digest(save.entries[-3])
    assert [first["seat"], second["seat"]] == ["ann", "bob"]  # seat order
    verified = fresh(save, tmp_path)
    assert verified.report.audit == "clean" and verified.table.duty() is None


@pytest.mark.parametrize("game", ["road-master", "station-to-station"])
def test_reveals_after_pending_chance_stay_one_at_a_time(two: dict[str, Home], tmp_path: Path,
                                                         game: str) -> None:
    """These games of rules version 3 (games begun under it play on so) end with chance
    queued (a refill, a token draw): the first reveal resolves it, so it is no round; the
    last reveal alone is none either."""
    paths = play_game(two, tmp_path / "saves", game=game, bot="greedy", rules=3)
    save = savefile.read(paths[-1])
    assert [e["kind"] for e in save.entries[-2:]] == ["reveal", "reveal"]
    assert all("round" not in e for e in save.entries)
    assert fresh(save, tmp_path).report.audit == "clean"


def test_each_seat_of_the_round_acts_now(at_reveals: Path) -> None:
    table = session.load(at_reveals, None).table
    assert table.round_seats() == [0, 1] and table.round_missing() == [0, 1]
    for seat in (0, 1):
        duty = table.duty_for(seat)
        assert duty is not None and duty == (seat, "reveal")


def test_the_two_reveals_assemble_in_either_order(two: dict[str, Home], at_reveals: Path,
                                                  tmp_path: Path) -> None:
    bob = reveal(two, "bob", at_reveals, tmp_path / "bob.toml")
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    incomplete = fresh(savefile.read(bob), tmp_path, "one")
    assert incomplete.table.round_missing() == [0]
    merged = assembling.assemble([savefile.read(bob), savefile.read(ann)])
    report = fresh(merged, tmp_path, "two").report
    assert report.audit == "clean" and report.table.duty() is None


# ---- tamper tests --------------------------------------------------------------------------
def complete_round(two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> Save:
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    return savefile.read(reveal(two, "bob", ann, tmp_path / "both.toml"))


def refused(save: Save, bodies: list[dict], homes: dict[str, Home], tmp_path: Path
            ) -> pytest.ExceptionInfo:
    forged = with_entries(save, relinked(save.header, bodies, homes))
    with pytest.raises((TurnError, IntegrityError)) as info:
        engine.replay(forged, check_snapshot=False)
    return info


def test_a_reveal_in_a_round_carrying_moves_is_refused(two: dict[str, Home], at_reveals: Path,
                                                       tmp_path: Path) -> None:
    save = complete_round(two, at_reveals, tmp_path)
    bodies = copy.deepcopy(save.entries)
    bodies[-2]["moves"] = ["pass"]
    info = refused(save, bodies, two, tmp_path)
    assert info.value.code == "round" and "carries moves" in info.value.message


def test_a_reveal_round_where_none_is_allowed_is_refused(two: dict[str, Home], tmp_path: Path
                                                         ) -> None:
    """Station to Station's last turn queues chance in rules version 3: the reveals may
    not be a round."""
    paths = play_game(two, tmp_path / "saves", game="station-to-station", bot="greedy",
                      rules=3)
    save = savefile.read(paths[-1])
    bodies = copy.deepcopy(save.entries)
    first = bodies[-2]["seq"]
    bodies[-2]["round"] = bodies[-1]["round"] = first
    info = refused(save, bodies, two, tmp_path)
    assert info.value.code == "round"


def test_a_reveal_in_the_wrong_slot_is_refused(two: dict[str, Home], at_reveals: Path,
                                               tmp_path: Path) -> None:
    save = complete_round(two, at_reveals, tmp_path)
    bodies = copy.deepcopy(save.entries)
    ann, bob = bodies[-2], bodies[-1]
    ann["seq"], bob["seq"] = bob["seq"], ann["seq"]
    bodies[-2:] = [bob, ann]
    info = refused(save, bodies, two, tmp_path)
    assert info.value.code == "round" and "as its entry" in info.value.message


def test_a_seat_twice_in_a_reveal_round_is_refused(two: dict[str, Home], at_reveals: Path,
                                                   tmp_path: Path) -> None:
    save = complete_round(two, at_reveals, tmp_path)
    bodies = copy.deepcopy(save.entries)
    # ann signs bob's slot too, with ann's next beacon link (the chain accepts it).
    after_ann = engine.replay(with_entries(save, save.entries[:-1]), check_snapshot=False,
                              audit_secrets=False).table
    link = signing.next_link(after_ann, 0, two["ann"].load()).hex()
    bodies[-1] = {**bodies[-2], "seq": bodies[-1]["seq"], "beacon": link}
    info = refused(save, bodies, two, tmp_path)
    assert info.value.code == "round" and "has signed in it already" in info.value.message


def test_two_reveals_of_one_seat_in_its_slot_are_a_fork(two: dict[str, Home], at_reveals: Path,
                                                        tmp_path: Path) -> None:
    first = savefile.read(reveal(two, "ann", at_reveals, tmp_path / "ann1.toml"))
    other = {**first.entries[-1], "time": timing.stamp(timing.now() + timedelta(minutes=5))}
    second = with_entries(first, [*first.entries[:-1], forge(other, two["ann"].load())])
    assert digest(first.entries[-1]) != digest(second.entries[-1])
    home = Home(tmp_path / "watcher")
    session.verify(first, home)
    with pytest.raises(IntegrityError) as info:
        session.verify(second, home)
    assert info.value.code == "fork"


# ---- a seat withholding its reveal in the round ------------------------------------------------
def last_time(path: Path) -> str:
    return str(savefile.read(path).entries[-1]["time"])


def test_patience_runs_from_before_the_round_and_the_proposal_fills_the_slot(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    before = timing.parse_stamp(last_time(at_reveals))
    assert before is not None
    tick(days=6)
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    table = session.load(ann, two["ann"]).table
    assert table.since == timing.stamp(before)  # ann's reveal started no clock
    with pytest.raises(TurnError, match="patience") as info:  # 6 days after bob's start
        absentees.sign_absence(two["ann"], ann, "absent", {"player": "bob", "remedy": "end"},
                               None)
    assert "(in 1 day)" in info.value.message  # 7 days from the turn before the round
    proposal = sign_as(two["ann"], ann, "absent", player="bob", remedy="end")  # 14 days on
    entry = proposal.entry
    reveal_entry = savefile.read(ann).entries[-1]
    assert entry["round"] == reveal_entry["round"] and entry["seq"] == reveal_entry["seq"] + 1
    assert entry["prev"] == reveal_entry["prev"]
    table = proposal.table
    assert table.round_first < 0 and table.proposal["player"] == 1
    assert table.head == round_digest([digest(reveal_entry), digest(entry)])
    duty = table.duty()
    assert duty is not None and duty == (1, "reveal")
    with pytest.raises(TurnError, match="one patience"):
        sign_as(two["ann"], proposal.path, "confirm")
    tick(days=7, hours=1)
    confirmed = sign_as(two["ann"], proposal.path, "confirm")
    report = fresh(confirmed.save, tmp_path).report
    assert report.table.duty() is None and report.table.dropped == [1]
    assert report.outcome is not None and report.outcome.ranking[-1] == [1]


def test_the_withholder_answers_on_top_of_the_proposal(two: dict[str, Home], at_reveals: Path,
                                                       tmp_path: Path) -> None:
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    proposal = sign_as(two["ann"], ann, "absent", player="bob", remedy="end")
    answer = reveal(two, "bob", proposal.path, tmp_path / "answer.toml")
    save = savefile.read(answer)
    assert "round" not in save.entries[-1] and save.entries[-1]["kind"] == "reveal"
    report = fresh(save, tmp_path).report
    assert report.audit == "clean" and not report.table.dropped
    assert report.table.duty() is None


def test_the_withholders_reveal_in_its_slot_is_a_branch_it_wins_when_signed_earlier(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    tick(days=8)
    bob = reveal(two, "bob", ann, tmp_path / "bob.toml")  # in its slot, signed first
    tick(minutes=1)
    proposal = absentees.sign_absence(two["ann"], ann, "absent",
                                      {"player": "bob", "remedy": "end"}, None)
    bob_entry, ann_absent = savefile.read(bob).entries[-1], proposal.entry
    assert bob_entry["seq"] == ann_absent["seq"] and bob_entry["prev"] == ann_absent["prev"]
    # A home that holds both: not round siblings, not a fork, but two branches, and the
    # answer signed earlier is the game's.
    home = Home(tmp_path / "watcher")
    session.verify(proposal.save, home)
    verified = session.verify(savefile.read(bob), home)
    notes = verified.branches
    assert len(notes) == 1 and "This save's branch is the game's" in notes[0]
    assert not verified.void
    archive = Archive(home.archive_dir, verified.save.game_id)
    assert archive.fork_with(bob_entry, digest(bob_entry)) is None
    with pytest.raises(UsageError, match="different branches"):
        assembling.assemble([proposal.save, savefile.read(bob)])


def test_a_proposal_in_the_round_by_a_seat_that_has_not_revealed_is_refused(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    save = savefile.read(reveal(two, "ann", at_reveals, tmp_path / "ann.toml"))
    tick(days=8)
    forged = copy.deepcopy(save.entries)
    forged[-1] = {"seq": forged[-1]["seq"] + 1, "game": save.game_id, "seat": "bob",
                  "kind": "absent", "prev": forged[-1]["prev"], "round": forged[-1]["round"],
                  "moves": [], "chores": [], "time": timing.now_stamp(), "player": "ann",
                  "remedy": "end"}
    bodies = [*save.entries[:-1], forged[-1]]
    with pytest.raises((TurnError, IntegrityError)):
        engine.replay(with_entries(save, relinked(save.header, bodies, two)),
                      check_snapshot=False)


def test_an_away_note_inside_a_reveal_round_is_refused_in_words(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    """An entry in no slot cannot follow an incomplete round: refused before signing, in
    a sentence, not by the chain check of the save written."""
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    until = timing.stamp(timing.now() + timedelta(days=3))
    assert until is not None
    with pytest.raises(TurnError, match="inside a round of final reveals") as info:
        absentees.sign_absence(two["bob"], ann, "away", {"away_until": until}, None)
    assert info.value.code == "away"


def test_a_proposal_in_no_slot_of_the_round_is_refused_not_a_traceback(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    save = savefile.read(reveal(two, "ann", at_reveals, tmp_path / "ann.toml"))
    table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
    tick(days=8)
    entry = {"seq": len(table.signers), "game": save.game_id, "seat": "ann", "kind": "absent",
             "prev": table.head, "moves": [], "chores": [], "time": timing.now_stamp(),
             "player": "bob", "remedy": "end"}
    with pytest.raises(TurnError, match="no slot of the round") as info:
        engine.step(table, forge(entry, two["ann"].load()))
    assert info.value.code == "round"


# ---- homes: what each reads, assembling, answering by itself --------------------------------
def test_each_seat_reads_that_it_reveals_now_and_a_revealer_that_it_waits(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    from pbem.mail import inbox

    for handle in ("ann", "bob"):
        (summary,) = inbox.scan([at_reveals], two[handle]).games
        assert summary.your_move and summary.next == "reveal" and summary.to_act == handle
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    (summary,) = inbox.scan([ann], two["ann"]).games
    assert not summary.your_move and summary.to_act == "bob"
    (summary,) = inbox.scan([ann], two["bob"]).games
    assert summary.your_move and summary.next == "reveal" and summary.to_act == "bob"


def test_inbox_assembles_the_reveals_it_reads(two: dict[str, Home], at_reveals: Path,
                                              tmp_path: Path) -> None:
    from pbem.mail import inbox

    bob = reveal(two, "bob", at_reveals, tmp_path / "bob.toml")
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    (summary,) = inbox.scan([bob, ann], two["ann"]).games
    assert summary.filed.endswith("-ann+bob.toml") and not summary.your_move
    report = fresh(savefile.read(summary.filed), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None


def test_auto_answer_signs_a_reveal_in_the_round(two: dict[str, Home], at_reveals: Path) -> None:
    from pbem.mail import answer

    assert answer.nothing_to_decide(two["bob"], at_reveals) == (
        "a reveal with nothing to choose", [])
    written = answer.answer(two["bob"], at_reveals)
    assert written is not None
    entry = written.entry
    assert entry["kind"] == "reveal" and entry["round"] == entry["seq"] - 1  # bob's slot


def test_the_last_turn_tells_both_seats_to_reveal_in_parallel(two: dict[str, Home],
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    written = last_turn(two, folder)
    me = written.entry["seat"]
    other = "bob" if me == "ann" else "ann"
    step = written.next_step()
    assert step.startswith(f"Send it to {other}, who reveals with 'pbem play'"), step
    assert "signed in parallel" in step and "You reveal now too" in step
    ann = reveal(two, "ann", written.path, tmp_path / "ann.toml")
    assert session.load(ann, two["ann"]).table.round_missing() == [1]


def test_two_seat_reveals_one_after_another_still_verify(two: dict[str, Home],
                                                         tmp_path: Path) -> None:
    """Saves made before reveal rounds: the two reveals in the order of play, without
    ``round``, each on the one before it."""
    save = complete_round(two, to_the_reveals(two, _folder(tmp_path)), tmp_path)
    before = engine.replay(with_entries(save, save.entries[:-2]), check_snapshot=False,
                           audit_secrets=False).table
    duty = before.duty()
    assert duty is not None
    reveals = [{k: v for k, v in e.items() if k != "round"} for e in save.entries[-2:]]
    if reveals[0]["seat"] != before.seats[duty.seat].handle:
        reveals.reverse()
    first = reveals[0]["seq"] = len(save.entries) - 2
    reveals[1]["seq"] = first + 1
    bodies = [*save.entries[:-2], *reveals]
    sequential = with_entries(save, relinked(save.header, bodies, two))
    report = engine.replay(sequential, check_snapshot=False)
    assert report.audit == "clean" and report.table.duty() is None


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "seq-saves"
    folder.mkdir()
    return folder


def test_the_round_status_names_both_seats_and_those_missing(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    table = session.load(at_reveals, None).table
    assert assembling.status(table) == {"seats": ["ann", "bob"], "missing": ["ann", "bob"],
                                        "proposed": []}
    ann = session.load(reveal(two, "ann", at_reveals, tmp_path / "ann.toml"), None).table
    assert assembling.status(ann) == {"seats": ["ann", "bob"], "missing": ["bob"],
                                      "proposed": []}
    assert "Round: the reveals of ann, bob" in assembling.status_line(ann)
