"""Attacks on simultaneous and sealed steps (docs/protocol-rounds.md) by a cheating player
who holds the source, their own key and every save they received, and signs entries by
hand: each is refused. The set-ups are those of tests/test_simultaneous.py (Sealed Bids,
three seats)."""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import IntegrityError, PbemError, TurnError
from pbem.protocol.crypto.derive import sealed_salt
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import chain, engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.rounds import sealed_commitment
from pbem.session import absentees
from tests.enginekit import greedy_to_the_end, relinked, seed_of, sign_as, with_entries
from tests.test_rounds import assert_fork
from tests.test_simultaneous import (
    at_first_step,
    bid,
    engine_link,
    one_step,
    refused,
    sealed_round,
    variants,  # noqa: F401 (autouse: the test variants of Sealed Bids)
)


def authenticated(save: Save, bodies: list[dict[str, object]], homes: dict[str, Home]
                  ) -> PbemError:
    """The error chain.authenticate raises on ``bodies`` re-chained and re-signed."""
    forged = with_entries(save, relinked(save.header, bodies, homes))
    with pytest.raises(PbemError) as info:
        chain.authenticate(forged)
    return info.value


# ---- resource bounds ----------------------------------------------------------------------
def test_a_round_entry_past_the_rounds_slots_is_refused_at_once(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    """bob signs his turn of a three-seat round at a seq past its three slots: refused
    before any game code, however far past (the check for missing entries once read every
    seq up to it: a seq of 10**15 made every home that verified the save hang)."""
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    save = savefile.read(one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"}))
    bodies = copy.deepcopy(save.entries)
    for seq in (7, 10**15):
        bodies[5]["seq"] = seq
        error = authenticated(save, bodies, homes)  # the save ends in the round
        assert isinstance(error, IntegrityError) and error.code == "round"
        assert "at most 3 entries (one a seat), entries 4 to 6" in error.message
        began = time.monotonic()
        after = {**bodies[3], "seq": seq + 1}  # and an entry after the round
        error = authenticated(save, [*bodies, after], homes)
        assert error.code == "round" and "at most 3 entries" in error.message
        assert time.monotonic() - began < 5


def test_a_huge_sealed_or_salt_field_is_malformed() -> None:
    """``sealed`` and ``salt`` are 64 lower-case hex characters, nothing longer (exit 4),
    and only on a turn."""
    base = {"seq": 4, "game": "00" * 16, "seat": "ann", "kind": "turn", "prev": "00" * 32,
            "moves": [], "chores": [], "round": 4, "beacon": "11" * 32, "sig": "22" * 64}
    for field in ("sealed", "salt"):
        for value in ("ab" * 500_000, "AB" * 32, "ab" * 31):
            with pytest.raises(PbemError) as info:
                savefile.check_entry({**base, field: value}, 4)
            assert info.value.exit_code == 4 and field in info.value.message
        with pytest.raises(PbemError) as info:
            savefile.check_entry({**base, "kind": "reveal", "seed": "33" * 32,
                                  field: "ab" * 32}, 4)
        assert info.value.exit_code == 4



# ---- forks --------------------------------------------------------------------------------
def test_two_commitments_by_one_seat_in_its_slot_are_a_fork(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    """ann commits to bid 4 in the save she mails bob and to bid 0 in the one she mails
    cy (both validly signed, in her slot): a home that sees both refuses the second
    (code fork), and so does merge."""
    start = at_first_step(homes, tmp_path / "s")
    first = savefile.read(one_step(homes, start, tmp_path, {"ann": "bid 4"}))
    again = {**copy.deepcopy(first.entries[4]),
             "sealed": sealed_commitment(first.game_id, 4, ["bid 0"], "ab" * 32)}
    second = with_entries(first, relinked(first.header, [*first.entries[:4], again], homes))
    assert_fork(first, second, tmp_path)


# ---- commitment binding ---------------------------------------------------------------------
def test_a_copied_commitment_cannot_be_opened_with_the_copied_seats_moves(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """bob copies ann's commitment as his own, then, once ann has opened hers, opens it
    with ann's moves and salt: the commitment binds the seq of the entry that carries it,
    so it opens only in ann's entry (exit 3, code sealed)."""
    start = at_first_step(homes, tmp_path / "s")
    one = savefile.read(one_step(homes, start, tmp_path, {"ann": "bid 4"}))
    bodies = copy.deepcopy(one.entries)
    bob = {**bodies[4], "seat": "bob", "seq": 5, "beacon": engine_link(one, homes["bob"])}
    cy_save = savefile.read(one_step(homes, start, tmp_path, {"cy": "bid 1"}))
    committed = [*bodies, bob, cy_save.entries[4]]
    forged = with_entries(one, relinked(one.header, committed, homes))
    forged = with_entries(forged, forged.entries, engine.public_state(
        engine.replay(forged, check_snapshot=False).table))
    path = tmp_path / "committed.toml"
    path.write_text(savefile.dumps(forged), "utf-8")
    ann_open = savefile.read(one_step(homes, path, tmp_path, {"ann": "bid 4"}))
    opened = ann_open.entries[-1]
    assert opened["seq"] == 7 and opened["moves"] == ["bid 4"]
    bob_open = {**opened, "seat": "bob", "seq": 8, "beacon": engine_link(ann_open, homes["bob"])}
    error = refused(ann_open, [*copy.deepcopy(ann_open.entries), bob_open], homes)
    assert isinstance(error, IntegrityError) and error.code == "sealed"
    assert "do not match the commitment bob signed in entry 5" in error.message


def test_a_seat_cannot_commit_again_in_place_of_its_opening(homes: dict[str, Home],
                                                               tmp_path: Path) -> None:
    """Having seen ann's opening, bob signs a new commitment (to another bid) where his
    opening goes: refused (code sealed); a seat with moves sealed can only open them."""
    _, committed = sealed_round(homes, tmp_path)
    ann_open = savefile.read(one_step(homes, committed, tmp_path, {"ann": "bid 4"}))
    bodies = copy.deepcopy(ann_open.entries)
    salt = "ab" * 32  # any: the new commitment is refused before any opening
    again = {**bodies[5], "seq": 8, "round": 7, "beacon": engine_link(ann_open, homes["bob"]),
             "sealed": sealed_commitment(ann_open.game_id, 8, ["bid 5"], salt)}
    error = refused(ann_open, [*bodies, again], homes)
    assert isinstance(error, TurnError) and error.code == "sealed"
    assert "must open the moves bob sealed in entry 5" in error.message



# ---- the salt ------------------------------------------------------------------------------
def test_one_seats_salts_at_one_seq_differ_with_the_link_each_commitment_publishes(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """One seq may hold ann's commitments on two branches (a proposal and the answer it
    races): with a salt of the seed and seq alone, the salt her opening published on one
    branch let anyone try every bid against her commitment on the other. Each commitment
    publishes another beacon link (a home never publishes one twice), and the salt is
    derived with it: the published salt opens nothing else."""
    _, committed = sealed_round(homes, tmp_path)
    opened = savefile.read(one_step(homes, committed, tmp_path, {"ann": "bid 4"}))
    commit, opening = opened.entries[4], opened.entries[-1]
    seed = seed_of(homes["ann"], opened)
    assert seed is not None
    game_id = opened.game_id
    link = bytes.fromhex(commit["beacon"])
    assert opening["salt"] == sealed_salt(seed, game_id, 4, link).hex()
    other_link = bytes.fromhex(opening["beacon"])  # a link ann publishes elsewhere
    other_salt = sealed_salt(seed, game_id, 4, other_link).hex()
    assert other_salt != opening["salt"]
    other_commit = sealed_commitment(game_id, 4, ["bid 2"], other_salt)
    assert not any(sealed_commitment(game_id, 4, [f"bid {n}"], opening["salt"]) == other_commit
                   for n in range(7))


# ---- chance -------------------------------------------------------------------------------
def test_a_sealed_game_with_chance_and_a_bot_seat_plays_to_its_end(homes: dict[str, Home],
                                                                   tmp_path: Path) -> None:
    """Bonus After Bids (chance after every step) with cy replaced by the bot: the bot's
    bid and the chance are played in entries of their own, outside the rounds, and no
    bid is ever in the open before both people committed; the game ends and verifies."""
    start = at_first_step(homes, tmp_path / "s", game="bonus-after-bids")
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"})
    proposal = sign_as(homes["ann"], two, "absent", player="cy", remedy="bot")
    path = sign_as(homes["bob"], proposal.path, "vote", vote="accept").path
    path = greedy_to_the_end(homes, path)
    save = savefile.read(path)
    turns = [e for e in save.entries[8:] if e["kind"] == "turn"]
    assert all(("round" in e) == ("sealed" in e or "salt" in e) for e in turns)
    assert all(e["moves"] == [] for e in turns if "round" not in e)
    report = session.verify(save, Home(tmp_path / "stranger")).report
    assert report.audit == "clean" and report.table.duty() is None


# ---- the clock ---------------------------------------------------------------------------
def test_S11_a_proposal_dated_ahead_in_a_commitment_slot_is_not_voted_on(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cy has not committed; ann dates a proposal in cy's slot of the round of
    commitments eight days ahead (past cy's patience by its date): bob's home, whose clock
    says otherwise, neither votes on it nor builds on it until its clock gets there."""
    start = at_first_step(homes, tmp_path / "s")
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"})
    now = os.environ.get("PBEM_CLOCK", "")
    proposal = sign_as(homes["ann"], two, "absent", player="cy", remedy="end")  # +8 days
    assert proposal.entry["round"] == 4 and proposal.entry["seq"] == 6
    monkeypatch.setenv("PBEM_CLOCK", now)
    with pytest.raises(PbemError, match="more than an hour"):
        absentees.sign_absence(homes["bob"], proposal.path, "vote", {"vote": "accept"}, None)


def test_S11_a_commitment_back_dated_into_an_early_slot_does_not_rush_the_opening(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann and cy commit three hours in (ann has cy's at once); bob withholds his
    commitment a week and dates it half an hour before ann's and opens; cy opens a week
    in, and bob proposes ann absent in her slot of the opening round, a patience after
    the round's latest entry: by signed times ann had a week, in truth none. Her home, which signed its
    commitment after bob's date and had his a week later, holds the proposal: bob's is
    not the round's last slot (cy's is, and came in time), and before, only that last
    slot's delay was counted."""
    import datetime

    from pbem.protocol.saveformat import timing

    base = timing.now()

    def clock(hours: float) -> None:
        monkeypatch.setenv("PBEM_CLOCK", str(timing.stamp(base + datetime.timedelta(
            hours=hours))))

    start = at_first_step(homes, tmp_path / "s")
    clock(3)
    ann = bid(homes, "ann", start, tmp_path / "ann.toml", ["bid 1"])
    cy = bid(homes, "cy", ann, tmp_path / "cy.toml", ["bid 2"])
    session.load(cy, homes["ann"])
    clock(2.5)
    bob = bid(homes, "bob", cy, tmp_path / "bob.toml", ["bid 3"])
    opened = bid(homes, "bob", bob, tmp_path / "bob-open.toml")
    clock(7 * 24 + 2)
    opened = bid(homes, "cy", opened, tmp_path / "cy-open.toml")
    clock(7 * 24 + 4)
    proposal = absentees.sign_absence(homes["bob"], opened, "absent",
                                      {"player": "ann", "remedy": "end"}, None)
    assert proposal.table.proposal["player"] == 0  # in effect by signed times
    verified = session.load(proposal.path, homes["ann"])
    assert not verified.table.proposal  # held in ann's home
    assert verified.waiting and verified.waiting[0].seq == proposal.entry["seq"]
