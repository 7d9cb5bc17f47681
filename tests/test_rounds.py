"""Rounds (PROTOCOL.md section 4, docs/PROTOCOL.md "Rounds"): the joins of a game of
three or more signed in parallel on the create entry, the round digest, incomplete
rounds, assembling, forks and tamper tests."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, PbemError, TurnError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.state.rounds import round_digest
from pbem.session import rounds as assembling
from tests.enginekit import forge, play_game, relinked, with_entries


# ---- the digest, with the vectors docs/PROTOCOL.md gives ---------------------------------
def test_round_digest_vectors() -> None:
    a, b = "00" * 32, "ff" * 32
    assert canonical(["pbem/2/round", a, b]) == (
        b'["pbem/2/round","' + a.encode() + b'","' + b.encode() + b'"]')
    assert round_digest([a, b]) == (
        "bc357d7b215a150db694a734a8220dd4e20f6bd9d556dfda442d0453db4387fa")


def test_round_digest_vectors_match_the_docs() -> None:
    text = Path(__file__).resolve().parents[1].joinpath("docs", "PROTOCOL.md").read_text()
    assert round_digest(["00" * 32, "ff" * 32]) in text
    assert round_digest(["11" * 32, "22" * 32, "33" * 32]) in text


# ---- a game of three -----------------------------------------------------------------------
@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> list[Path]:
    return play_game(homes, tmp_path / "saves")


def fresh(save: savefile.Save, tmp_path: Path, name: str = "stranger") -> session.Verified:
    return session.verify(save, Home(tmp_path / name))


def assert_fork(first: savefile.Save, second: savefile.Save, tmp_path: Path) -> None:
    """``second`` holds another entry of one seat where ``first`` holds one: a home that
    verified ``first`` refuses ``second``, and assembling the two refuses them, as a fork."""
    viewer = Home(tmp_path / "viewer")
    session.verify(first, viewer)
    with pytest.raises(IntegrityError) as info:
        session.verify(second, viewer)
    assert info.value.code == "fork"
    with pytest.raises(IntegrityError) as merged:
        assembling.assemble([first, second])
    assert merged.value.code == "fork"


def test_joins_are_one_round_and_the_start_follows_its_digest(game: list[Path],
                                                            tmp_path: Path) -> None:
    save = savefile.read(game[-1])
    create, join_b, join_c, start = save.entries[:4]
    assert [join_b["kind"], join_c["kind"], start["kind"]] == ["join", "join", "start"]
    assert join_b["round"] == join_c["round"] == 1
    assert join_b["prev"] == join_c["prev"] == digest(create)
    assert "round" not in create and "round" not in start
    assert start["prev"] == round_digest([digest(join_b), digest(join_c)])
    assert fresh(save, tmp_path).report.audit == "clean"


def test_a_join_signed_on_the_invitation_alone_is_an_incomplete_round(
        homes: dict[str, Home], tmp_path: Path) -> None:
    cy_save = invited_join(homes, tmp_path, "cy")
    assert [e["seq"] for e in cy_save.entries] == [0, 2]
    table = fresh(cy_save, tmp_path).table
    assert table.round_seats() == [1, 2] and table.round_missing() == [1]
    assert table.duty() is not None and table.duty().kind == "join"


def invited_join(homes: dict[str, Home], tmp_path: Path, handle: str) -> savefile.Save:
    """The save ``handle`` writes by joining on the host's invitation (no other join)."""
    folder = tmp_path / "inv"
    if not (folder / "created").exists():
        folder.mkdir(parents=True)
        written = session.new_game(homes["ann"], "dice-race", list(homes), [], None,
                                   folder=folder)
        (folder / "created").write_text(str(written.path))
    created = Path((folder / "created").read_text())
    out = folder / f"{handle}.toml"
    session.sign_next(homes[handle], created, "join", [], None, str(out))
    return savefile.read(out)


def test_partial_saves_assemble_into_the_whole_round(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    merged = assembling.assemble([cy, bob])
    assert [e["seat"] for e in merged.entries] == ["ann", "bob", "cy"]
    verified = fresh(merged, tmp_path)
    assert verified.table.round_missing() == [] and verified.table.duty().kind == "start"
    # the host starts on the assembled save: its prev is the round digest
    path = tmp_path / "merged.toml"
    path.write_text(savefile.dumps(merged))
    written = session.sign_next(homes["ann"], path, None, [], None, str(tmp_path / "s.toml"))
    assert written.entry["prev"] == round_digest([digest(merged.entries[1]),
                                                  digest(merged.entries[2])])


# ---- tampering -----------------------------------------------------------------------------
def first_five(game: list[Path]) -> savefile.Save:
    return savefile.read(game[3])  # create, join, join, start


def refused(save: savefile.Save, tmp_path: Path) -> PbemError:
    with pytest.raises(PbemError) as info:
        fresh(save, tmp_path)
    return info.value


def test_round_in_the_wrong_order_is_refused(game: list[Path], tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries)
    entries[1], entries[2] = entries[2], entries[1]
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, IntegrityError) and error.code == "round"


def test_round_out_of_order_even_renumbered_is_refused(
        game: list[Path], homes: dict[str, Home], tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries)
    bob, cy = entries[1], entries[2]
    bob["seq"], cy["seq"] = 2, 1
    entries[1:3] = [forge(cy, homes["cy"].load()), forge(bob, homes["bob"].load())]
    error = refused(with_entries(save, entries[:3]), tmp_path)
    assert isinstance(error, TurnError) and error.code == "round"


def test_duplicate_seat_in_a_round_is_refused(game: list[Path], homes: dict[str, Home],
                                              tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:2])
    again = copy.deepcopy(entries[1])
    again["seq"] = 2
    entries.append(forge(again, homes["bob"].load()))
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, PbemError) and "bob" in error.message


def test_seat_not_in_the_round_is_refused(game: list[Path], homes: dict[str, Home],
                                          tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:2])
    host = copy.deepcopy(entries[1])
    host.update(seat="ann", seq=2, pubkey=save.entries[0]["pubkey"])
    entries.append(forge(host, homes["ann"].load()))
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, TurnError) and "ann" in error.message


def test_wrong_round_digest_is_refused(game: list[Path], homes: dict[str, Home],
                                       tmp_path: Path) -> None:
    save = first_five(game)
    for wrong in (digest(save.entries[2]), digest([digest(save.entries[1]),
                                                  digest(save.entries[2])])):
        entries = copy.deepcopy(save.entries[:4])
        entries[3]["prev"] = wrong
        entries[3] = forge(entries[3], homes["ann"].load())
        error = refused(with_entries(save, entries), tmp_path)
        assert isinstance(error, IntegrityError) and error.code == "chain"


def test_entry_from_outside_the_round_with_its_prev_is_refused(
        game: list[Path], homes: dict[str, Home], tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:4])
    entries[3]["prev"] = digest(entries[0])  # the start, on the create, after the round
    entries[3] = forge(entries[3], homes["ann"].load())
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, IntegrityError) and error.code == "chain"


def test_join_without_its_round_mark_in_a_started_round_is_refused(
        game: list[Path], homes: dict[str, Home], tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:3])
    del entries[2]["round"]
    entries[2]["prev"] = round_digest([digest(entries[1])])  # as if bob's round were done
    entries[2] = forge(entries[2], homes["cy"].load())
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, TurnError) and error.code == "round"


def test_joins_signed_one_after_another_still_verify(game: list[Path],
                                                     homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    """Saves of format pbem/2 made before rounds: every join on the one before it."""
    save = savefile.read(game[-1])
    bodies = copy.deepcopy(save.entries)
    for body in bodies[1:3]:
        del body["round"]
    old_style = with_entries(save, relinked(save.header, bodies, homes))
    assert old_style.entries[2]["prev"] == digest(old_style.entries[1])
    verified = fresh(old_style, tmp_path)
    assert verified.report.audit == "clean" and verified.table.round_seats() == []
    # ...and a join in a round after one signed in order is refused
    mixed = copy.deepcopy(bodies[:3])
    mixed[2]["round"] = 2
    with pytest.raises(TurnError) as info:
        fresh(with_entries(save, relinked(save.header, mixed, homes)), tmp_path / "m")
    assert info.value.code == "round"


def test_round_entry_with_a_wrong_seq_for_its_seat_is_refused(
        game: list[Path], homes: dict[str, Home], tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:1]) + [copy.deepcopy(save.entries[2])]
    entries[1]["seq"] = 1  # cy's join at bob's place
    entries[1] = forge(entries[1], homes["cy"].load())
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, TurnError) and error.code == "round"


def test_round_missing_an_entry_before_a_later_one_is_refused(
        game: list[Path], tmp_path: Path) -> None:
    save = first_five(game)
    entries = [save.entries[0], save.entries[2], save.entries[3]]
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, IntegrityError) and error.code == "round"


def test_round_mark_on_a_start_is_malformed(game: list[Path], homes: dict[str, Home],
                                            tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy(save.entries[:4])
    entries[3]["round"] = 3
    with pytest.raises(PbemError) as info:
        savefile.parse(savefile.dumps(with_entries(save, entries)))
    assert "round" in info.value.message


def test_two_joins_by_one_seat_in_a_round_are_a_fork(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    first = invited_join(homes, tmp_path, "bob")
    again = copy.deepcopy(first.entries[1])
    again["nonce"] = "ab" * 32  # another join of bob's, validly signed
    second = with_entries(first, [first.entries[0], forge(again, homes["bob"].load())])
    assert_fork(first, second, tmp_path)


def test_merge_writes_the_assembled_save(homes: dict[str, Home], tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    invited_join(homes, tmp_path, "cy")
    folder = tmp_path / "inv"
    written, merged, missing = assembling.merge_files(
        [folder / "bob.toml", folder / "cy.toml"], homes["ann"], None)
    assert missing == []
    assert written.name.endswith("-0002-bob+cy.toml")
    assert savefile.read(written).entries == merged.entries
    assert merged.entries[:2] == bob.entries


def test_a_home_completes_a_round_from_its_archive(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    host = homes["ann"]
    session.verify(bob, host)
    assert assembling.from_archive(host, bob) is None  # nothing more seen yet
    session.verify(cy, host)
    whole = assembling.from_archive(host, bob)
    assert whole is not None and [e["seat"] for e in whole.entries] == ["ann", "bob", "cy"]


def test_round_siblings_are_no_branch(homes: dict[str, Home], tmp_path: Path) -> None:
    viewer = Home(tmp_path / "viewer")
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    session.verify(bob, viewer)
    verified = session.verify(cy, viewer)
    assert verified.branches == [] and not verified.void and not verified.stale


def test_a_mental_deck_game_keeps_its_joins_one_after_another(
        homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "rm", game="road-master", stop_after=4)
    save = savefile.read(paths[-1])
    assert [e["kind"] for e in save.entries] == ["create", "join", "join", "start"]
    assert all("round" not in e for e in save.entries)
    assert save.entries[2]["prev"] == digest(save.entries[1])
    assert engine.replay(save).table.started


def test_inbox_assembles_the_joins_it_reads(homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem.mail import inbox

    invited_join(homes, tmp_path, "bob")
    invited_join(homes, tmp_path, "cy")
    folder = tmp_path / "inv"
    report = inbox.scan([folder / "bob.toml", folder / "cy.toml"], homes["ann"])
    (summary,) = report.games
    assert summary.your_move and summary.next == "start"
    assert summary.filed.endswith("-0002-bob+cy.toml")
    assert [e["seat"] for e in savefile.read(summary.filed).entries] == ["ann", "bob", "cy"]


def test_start_after_an_incomplete_round_is_refused(game: list[Path], homes: dict[str, Home],
                                                    tmp_path: Path) -> None:
    save = first_five(game)
    entries = copy.deepcopy([save.entries[0], save.entries[1], save.entries[3]])
    entries[2].update(seq=2, prev=round_digest([digest(entries[1])]))
    entries[2] = forge(entries[2], homes["ann"].load())
    error = refused(with_entries(save, entries), tmp_path)
    assert isinstance(error, TurnError) and "join" in error.message


def test_every_join_of_a_round_may_come_first(homes: dict[str, Home], tmp_path: Path) -> None:
    """Signed on the invitation in either order, the joins give the same save."""
    cy = invited_join(homes, tmp_path, "cy")
    bob = invited_join(homes, tmp_path, "bob")
    assert assembling.assemble([cy, bob]).entries == assembling.assemble([bob, cy]).entries


def test_every_invitee_reads_that_it_joins_now(homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem.home import gameindex
    from pbem.mail import inbox

    invited_join(homes, tmp_path, "bob")
    created = Path((tmp_path / "inv" / "created").read_text())
    for handle in ("bob", "cy"):
        (summary,) = inbox.scan([created], homes[handle]).games
        assert summary.your_move and summary.next == "join" and summary.to_act == handle
    bob_save = tmp_path / "inv" / "bob.toml"
    verified = session.load(bob_save, homes["cy"])
    record = gameindex.summarize(verified.save, verified.report, bob_save, "cy")
    assert record.to_act == "cy" and record.next == "join"


def test_a_save_ending_in_a_round_is_stale_once_the_start_is_seen(
        game: list[Path], tmp_path: Path) -> None:
    viewer = Home(tmp_path / "viewer")
    session.verify(savefile.read(game[3]), viewer)  # create, join, join, start
    joined = savefile.read(game[3])
    joined = with_entries(joined, joined.entries[:3],
                          engine.public_state(engine.replay(
                              with_entries(joined, joined.entries[:3]),
                              check_snapshot=False).table))
    assert session.verify(joined, viewer).stale


def test_a_join_signed_on_a_later_seat_s_partial_save_goes_in_seat_order(
        homes: dict[str, Home], tmp_path: Path) -> None:
    invited_join(homes, tmp_path, "cy")
    cy_path = tmp_path / "inv" / "cy.toml"
    written = session.sign_next(homes["bob"], cy_path, "join", [], None, None)
    assert written.path.name.endswith("-0002-bob+cy.toml")
    save = savefile.read(written.path)
    assert [e["seat"] for e in save.entries] == ["ann", "bob", "cy"]
    assert written.table.duty().kind == "start"
    start = session.sign_next(homes["ann"], written.path, None, [], None,
                              str(tmp_path / "start.toml"))
    assert start.entry["prev"] == round_digest([digest(save.entries[1]),
                                                digest(save.entries[2])])
