"""Attacks by a cheating player (its source, its own key, every save it received) on what
landed together: rounds, packed saves and a home that was there. Each test asserts the
attack FAILS; they stand as regression guards."""

from __future__ import annotations

import copy
import datetime
import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError, PbemError, SaveFileError, TurnError
from pbem.home.archive import Archive
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import packed, savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.timekeeping import holdback
from pbem.session import absentees, holding
from pbem.session import rounds as assembling
from tests.enginekit import forge, next_entry, play_game, relinked, sign_as, tick, with_entries
from tests.test_reveal_rounds import last_time, reveal, to_the_reveals
from tests.test_rounds import invited_join


@pytest.fixture
def at_reveals(two: dict[str, Home], tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    return to_the_reveals(two, folder)


def cli(home: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def stranger(save: Save, tmp_path: Path) -> session.Verified:
    return session.verify(save, Home(tmp_path / "stranger"))


def replay_refused(save: Save) -> PbemError:
    with pytest.raises(PbemError) as info:
        engine.replay(save, check_snapshot=False)
    return info.value


# ---- rounds: joins ---------------------------------------------------------------------------
def test_a_join_re_used_in_another_game_is_refused(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    (tmp_path / "other").mkdir()
    other = session.new_game(homes["ann"], "dice-race", list(homes), [], None,
                             folder=tmp_path / "other")
    moved = {**bob.entries[1], "prev": digest(other.save.entries[0])}  # bob's own signature
    error = replay_refused(with_entries(other.save, [other.save.entries[0], moved]))
    assert isinstance(error, IntegrityError)
    # re-signed by bob with the other game's id it is bob's own join there, nothing more:
    # its seed commitment binds the other game's seed (the nonce is per game).
    with pytest.raises(PbemError):
        stranger(with_entries(other.save, [other.save.entries[0], forge(moved, homes["bob"]
                                                                         .load())]), tmp_path)


def test_a_join_signed_in_the_round_with_a_wrong_round_field_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    for first in (2, 0):  # a round that starts at its own seq, or before the game
        bad = forge({**bob.entries[1], "round": first}, homes["bob"].load())
        with pytest.raises(PbemError):
            stranger(with_entries(bob, [bob.entries[0], bad]), tmp_path)


def test_a_join_on_another_joiners_partial_save_at_a_wrong_seq_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    cy = invited_join(homes, tmp_path, "cy")  # entries 0 and 2
    bob_join = copy.deepcopy(invited_join(homes, tmp_path, "bob").entries[1])
    bob_join["seq"] = 3  # after cy's, as if the round were one after another
    entries = relinked(cy.header, [cy.entries[0], cy.entries[1], bob_join], homes)
    with pytest.raises(PbemError):
        stranger(with_entries(cy, entries), tmp_path)


def test_a_join_marked_as_a_round_in_a_game_whose_joins_are_no_round_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "rm", game="road-master", stop_after=2)
    save = savefile.read(paths[-1])
    marked = forge({**save.entries[1], "round": 1}, homes["bob"].load())
    error = replay_refused(with_entries(save, [save.entries[0], marked]))
    assert isinstance(error, (TurnError, IntegrityError))


def test_a_joiner_forking_its_join_to_two_seats_is_a_fork_in_a_home_that_sees_both(
        homes: dict[str, Home], tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    again = forge({**bob.entries[1], "nonce": "cd" * 32}, homes["bob"].load())
    to_cy = assembling.assemble([with_entries(bob, [bob.entries[0], again]), cy])
    host = homes["ann"]
    session.verify(bob, host)
    with pytest.raises(IntegrityError) as info:
        session.verify(to_cy, host)
    assert info.value.code == "fork"


def test_one_seat_s_join_in_the_round_and_one_after_another_is_a_fork(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """bob signs his join in the round and again without the round mark (the form of
    saves from before rounds): two entries of one seat at one place, whichever comes
    first."""
    bob = invited_join(homes, tmp_path, "bob")
    unmarked = forge({k: v for k, v in bob.entries[1].items() if k != "round"},
                     homes["bob"].load())
    other = with_entries(bob, [bob.entries[0], unmarked])
    assert stranger(other, tmp_path).table.duty() is not None  # valid on its own
    for first, second in ((bob, other), (other, bob)):
        home = Home(tmp_path / f"viewer-{len(first.entries[1])}")
        session.verify(first, home)
        with pytest.raises(IntegrityError) as info:
            session.verify(second, home)
        assert info.value.code == "fork"


# ---- rounds: merge -----------------------------------------------------------------------------
def test_merge_of_two_games_or_of_a_tampered_save_writes_nothing(
        homes: dict[str, Home], tmp_path: Path) -> None:
    invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    other = play_game(homes, tmp_path / "other", stop_after=2)
    folder = tmp_path / "inv"
    before = set(folder.iterdir())
    result = cli(tmp_path / "homes" / "ann", "merge", str(folder / "bob.toml"), str(other[-1]))
    assert result.exit_code == 2 and "not of one game" in result.output
    entry = {**cy.entries[1], "nonce": "ee" * 32}  # altered, signature left as it was
    tampered = folder / "cy-tampered.toml"
    tampered.write_text(savefile.dumps(with_entries(cy, [cy.entries[0], entry])))
    before.add(tampered)
    result = cli(tmp_path / "homes" / "ann", "merge", str(folder / "bob.toml"), str(tampered))
    assert result.exit_code == 3, result.output
    assert set(folder.iterdir()) == before


def test_merge_of_two_branches_is_refused(two: dict[str, Home], at_reveals: Path,
                                          tmp_path: Path) -> None:
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    proposal = sign_as(two["ann"], ann, "absent", player="bob", remedy="end")
    bob = reveal(two, "bob", ann, tmp_path / "bob.toml")
    result = cli(tmp_path / "homes" / "bob", "merge", str(proposal.path), str(bob),
                 "--output", str(tmp_path / "m.toml"))
    assert result.exit_code == 2 and "different branches" in result.output
    assert not (tmp_path / "m.toml").exists()


# ---- rounds: a poisoned archive ----------------------------------------------------------------
def poison(home: Home, game_id: str, entry: dict[str, Any], first: int) -> None:
    """Write ``entry`` into ``home``'s archive as if verified in round ``first``."""
    archive = Archive(home.archive_dir, game_id)
    data = json.loads(archive.path.read_text("utf-8"))
    data["rounds"][digest(entry)] = first
    archive.path.write_text(json.dumps(data), "utf-8")
    with open(archive.evidence_path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"hash": digest(entry), "entry": entry}) + "\n")


def test_a_poisoned_archive_never_completes_a_round_with_a_forged_entry(
        homes: dict[str, Home], tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    host = homes["ann"]
    session.verify(bob, host)
    forged = {**cy.entries[1], "nonce": "ab" * 32}  # cy's join, altered, its old signature
    poison(host, bob.game_id, forged, 1)
    assert assembling.from_archive(host, bob) is None
    wrong_key = forge({**cy.entries[1], "nonce": "ab" * 32}, homes["bob"].load())
    poison(host, bob.game_id, wrong_key, 1)
    assert assembling.from_archive(host, bob) is None
    # and the inbox files bob's save as it is: a round still waiting for cy
    from pbem.mail import inbox
    report = inbox.scan([tmp_path / "inv" / "bob.toml"], host)
    (summary,) = report.games
    assert summary.filed.endswith("-0001-bob.toml")


def test_a_poisoned_archive_does_not_make_a_tampered_save_verify(
        homes: dict[str, Home], tmp_path: Path) -> None:
    bob = invited_join(homes, tmp_path, "bob")
    cy = invited_join(homes, tmp_path, "cy")
    host = homes["ann"]
    session.verify(bob, host)
    session.verify(cy, host)  # the archive holds the real joins
    tampered = {**bob.entries[1], "nonce": "ab" * 32}
    bad = with_entries(bob, [bob.entries[0], tampered])
    poison(host, bob.game_id, tampered, 1)
    path = tmp_path / "bad.toml"
    path.write_text(savefile.dumps(bad))
    result = cli(tmp_path / "homes" / "ann", "verify", str(path))
    assert result.exit_code == 3, result.output


# ---- rounds: reveals of two seats ------------------------------------------------------------
def ann_revealed(two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> Save:
    return savefile.read(reveal(two, "ann", at_reveals, tmp_path / "ann.toml"))


def test_a_reveal_in_a_round_carrying_chores_is_refused(two: dict[str, Home], at_reveals: Path,
                                                        tmp_path: Path) -> None:
    save = ann_revealed(two, at_reveals, tmp_path)
    chored = {**save.entries[-1], "chores": [{"kind": "draw", "cards": [1]}]}
    forged = with_entries(save, relinked(save.header, [*save.entries[:-1], chored], two))
    replay_refused(forged)


def test_the_reveals_of_a_round_resolve_no_chance(two: dict[str, Home], at_reveals: Path,
                                                  tmp_path: Path) -> None:
    before = session.load(at_reveals, None).table
    ann = ann_revealed(two, at_reveals, tmp_path)
    table = engine.replay(ann, check_snapshot=False).table
    assert table.gstate == before.gstate  # nothing drawn, rolled or moved in the round
    assert not table.gstate.get("pending")


def test_a_proposal_in_a_reveal_round_against_the_seat_that_revealed_is_refused(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    proposal = sign_as(two["ann"], ann, "absent", player="bob", remedy="end").entry
    save = savefile.read(ann)
    for player, signer in (("ann", "ann"), ("ann", "bob")):  # itself; the withholder
        body = {**proposal, "player": player, "seat": signer}
        forged = with_entries(save, relinked(save.header, [*save.entries, body], two))
        error = replay_refused(forged)
        assert isinstance(error, (TurnError, IntegrityError))


def test_the_withholder_cannot_back_date_its_late_reveal_to_win_the_branch_rule(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    """bob withholds until ann's proposal, then signs its reveal in its slot dated before
    the proposal: ann's home, which was signing meanwhile, counts it from when it had it."""
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    home = two["ann"]
    proposal = sign_as(home, ann, "absent", player="bob", remedy="end")  # 8 days on
    session.verify(proposal.save, home)
    late = savefile.read(reveal(two, "bob", ann, tmp_path / "bob.toml")).entries[-1]
    proposed = timing.parse_stamp(str(proposal.entry["time"]))
    assert proposed is not None
    early = timing.stamp(proposed - datetime.timedelta(hours=1))
    back = forge({**late, "time": early}, two["bob"].load())
    save = savefile.read(ann)
    entries = [*save.entries, back]
    table = engine.replay(Save(save.header, entries), check_snapshot=False).table
    bob_save = Save(save.header, entries, engine.public_state(table))
    tick(days=3)  # bob's answer comes three days after the proposal it claims to precede
    verified = session.verify(bob_save, home)
    assert len(verified.branches) == 1 and verified.void
    assert "The other branch is the game's" in verified.branches[0]


# ---- packed saves ------------------------------------------------------------------------------
def test_a_packed_save_is_read_as_the_save_inside_whatever_its_name(
        homes: dict[str, Home], tmp_path: Path) -> None:
    one = play_game(homes, tmp_path / "one", stop_after=4)[-1]
    two_games = play_game(homes, tmp_path / "two", stop_after=4)[-1]
    path = tmp_path / one.name.replace(".toml", ".toml.gz")
    path.write_bytes(packed.pack(two_games.read_bytes()))  # named as one, holding the other
    assert savefile.read(path).game_id == savefile.read(two_games).game_id
    result = cli(tmp_path / "reader", "verify", "--json", str(path))
    assert result.exit_code == 0 and savefile.read(two_games).game_id in result.output


@pytest.mark.parametrize("make", [
    lambda d: packed.pack(packed.pack(d)),  # gzip inside gzip
    lambda d: gzip.compress(d[: len(d) // 2], mtime=0),  # a whole gzip of half a save
    lambda d: packed.pack(d)[:12],  # the header and hardly more
    lambda d: packed.GZIP_MAGIC,  # only the magic bytes
], ids=["nested", "half-save", "header-only", "magic-only"])
def test_odd_packed_files_are_malformed_never_a_traceback(
        homes: dict[str, Home], tmp_path: Path, make) -> None:
    save = play_game(homes, tmp_path / "g", stop_after=4)[-1]
    path = tmp_path / "odd.toml.gz"
    path.write_bytes(make(save.read_bytes()))
    with pytest.raises(SaveFileError):
        savefile.read(path)
    assert cli(tmp_path / "reader", "verify", str(path)).exit_code == 4


def test_a_save_packed_twice_is_malformed_for_inbox_as_for_every_command(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A gzip inside a gzip is no save: inbox once inflated it twice (the second time past
    its own cap) and reported as verified a file that verify and play refuse."""
    from pbem.mail import inbox

    save = play_game(homes, tmp_path / "g", stop_after=4)[-1]
    path = tmp_path / "twice.toml.gz"
    path.write_bytes(packed.pack(packed.pack(save.read_bytes())))
    assert cli(tmp_path / "reader", "verify", str(path)).exit_code == 4
    report = inbox.scan([path], homes["cy"])
    assert report.verified == 0 and report.problems, report.text()
    assert "gzip" in report.problems[0].message
    with pytest.raises(SaveFileError, match="another gzip"):
        packed.unpack(packed.pack(packed.pack(b"x")), savefile.MAX_SAVE_BYTES)


def test_a_gz_of_a_re_signed_save_is_tampered_exit_3(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    save = savefile.read(play_game(homes, tmp_path / "g", stop_after=5)[-1])
    entries = copy.deepcopy(save.entries)
    entries[-1] = forge({**entries[-1], "moves": ["nonsense"]}, homes["bob"].load())
    path = tmp_path / "forged.toml.gz"
    path.write_bytes(packed.pack(savefile.dumps(with_entries(save, entries)).encode()))
    result = cli(tmp_path / "reader", "verify", str(path))
    assert result.exit_code in (1, 3), result.output


# ---- a home that was there ---------------------------------------------------------------------
def _sight(mine: tuple[int, ...], seen: dict[str, int], at_day: int) -> holdback.Sight:
    base = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

    def day(n: float) -> datetime.datetime:
        return base + datetime.timedelta(days=n)

    return holdback.Sight(lambda h: day(seen[h]) if h in seen else None,
                          tuple(day(d) for d in mine), "ann", datetime.timedelta(days=1),
                          day(at_day))


def _entry(kind: str, seat: str, days: float, seq: int) -> dict[str, Any]:
    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC) \
        + datetime.timedelta(days=days)
    return {"kind": kind, "seat": seat, "seq": seq, "time": timing.stamp(when)}


def test_S11_a_hold_ends_at_a_fixed_time_however_long_the_home_waits() -> None:
    """No seat can make a game stuck for good in a home: once seen, an entry's hold ends
    at one time, not a patience after 'now'."""
    entries = [_entry("turn", "bob", 0, 1), _entry("absent", "cy", 8, 2)]
    hashes = ["t", "p"]
    ends = {holdback.held(entries, hashes, _sight((3,), {"t": 8, "p": 8}, at))[1]
            for at in (9, 12, 14)}
    assert len(ends) == 1
    assert holdback.held(entries, hashes, _sight((3,), {"t": 8, "p": 8}, 30)) == (2, None)


def test_S11_a_home_s_own_entries_are_never_held_against_it() -> None:
    """A seat cannot make a home hold that home's own proposal by back-dating the turn
    before it: an entry counts late only where this home signed something meanwhile."""
    entries = [_entry("turn", "bob", 0, 1), {**_entry("absent", "ann", 8, 2)}]
    cut = holdback.held(entries, ["t", "p"], _sight((), {"t": 8, "p": 8}, 9))
    assert cut == (2, None)


def test_S11_a_proposal_back_dated_into_a_reveal_round_slot_does_not_beat_the_reveal(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path) -> None:
    """ann reveals, bob reveals in his slot a patience and an hour after the last turn;
    two days later ann signs her proposal in bob's slot dated before his reveal. Bob's
    home, which signed its reveal meanwhile, counts the proposal from when it had it, so
    his reveal stays the game's there."""
    start = timing.parse_stamp(last_time(at_reveals))
    assert start is not None
    ann = reveal(two, "ann", at_reveals, tmp_path / "ann.toml")
    set_clock(start + datetime.timedelta(days=7, hours=1))
    bob = reveal(two, "bob", ann, tmp_path / "bob.toml")
    set_clock(start + datetime.timedelta(days=7, minutes=5))  # ann's back-dated clock
    proposal = absentees.sign_absence(two["ann"], ann, "absent",
                                      {"player": "bob", "remedy": "end"}, None)
    set_clock(start + datetime.timedelta(days=9))
    verified = session.verify(proposal.save, two["bob"])
    assert verified.void and "branch is void" in verified.branches[0]
    assert "The other branch is the game's" in verified.branches[0]
    mine = session.verify(savefile.read(bob), two["bob"])
    assert not mine.void and "This save's branch is the game's" in mine.branches[0]
    # a stranger goes by signed times: the earlier-dated proposal wins there
    watcher = Home(tmp_path / "watcher")
    session.verify(proposal.save, watcher)
    assert session.verify(savefile.read(bob), watcher).void


def set_clock(when: datetime.datetime) -> None:
    os.environ["PBEM_CLOCK"] = str(timing.stamp(when))  # undone by tests/conftest.py


@pytest.mark.parametrize("handle, kind, in_slot, fields", [
    ("bob", "resign", True, {}),  # the withholder resigns instead of revealing its seed
    ("bob", "resign", False, {}),
    ("ann", "resign", False, {}),
    ("bob", "turn", True, {}),
    ("bob", "away", True, {"away_until": "2030-01-01T00:00:00Z"}),
    ("ann", "away", False, {"away_until": "2030-01-01T00:00:00Z"}),
    ("ann", "reveal", True, {"seed": "reuse"}),  # the revealer again, in bob's slot
], ids=["bob-resign-slot", "bob-resign", "ann-resign", "bob-turn-slot", "bob-away-slot",
        "ann-away", "ann-reveal-again"])
def test_nothing_but_a_reveal_or_the_proposal_follows_a_reveal_in_the_round(
        two: dict[str, Home], at_reveals: Path, tmp_path: Path, handle: str, kind: str,
        in_slot: bool, fields: dict[str, str]) -> None:
    save = ann_revealed(two, at_reveals, tmp_path)
    last = save.entries[-1]
    extra: dict[str, Any] = {**fields, **({"round": last["round"]} if in_slot else {})}
    if extra.get("seed") == "reuse":
        extra["seed"] = last["seed"]
    body = next_entry(save, two[handle], kind, **extra)
    forged = with_entries(save, relinked(save.header, [*save.entries, body], two))
    assert isinstance(replay_refused(forged), TurnError)


def to_cys_turn_after_bobs(homes: dict[str, Home], folder: Path) -> session.Written:
    """A game of three played by bots until cy is to play a turn on bob's."""
    written = session.new_game(homes["ann"], "dice-race", list(homes), [], None,
                               folder=folder)
    while True:
        duty = written.table.duty()
        assert duty is not None
        handle = written.table.seats[duty.seat].handle
        if handle == "cy" and duty.kind == "turn" and written.entry["seat"] == "bob" \
                and written.entry["kind"] == "turn":
            return written
        tick(minutes=10)
        kind = "join" if duty.kind == "join" else None
        written = session.sign_next(homes[handle], written.path, kind, [],
                                    "random:3" if kind is None else None, None)


def test_S11_an_away_note_dated_before_the_turn_it_follows_makes_no_home_hold_a_proposal(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """cy, silent on its turn, signs an away note on bob's turn dated a day before it and
    sends it to ann alone; ann proposes cy absent on it a patience after bob's turn. In
    bob's home (which signed its turn after the note's date and had the note only with the
    proposal) the note is no entry missed while playing: nothing can have been signed
    before the entry it follows. Before, bob's home held the proposal nine days more and
    counted it from then in the branch rule, so cy's late answer won there and lost in
    ann's home: one cheater split two honest homes."""
    folder = tmp_path / "g"
    folder.mkdir()
    bobs = to_cys_turn_after_bobs(homes, folder)
    turn_time = timing.parse_stamp(str(bobs.entry["time"]))
    assert turn_time is not None
    before = turn_time - datetime.timedelta(days=1)
    note = next_entry(bobs.save, homes["cy"], "away", time=timing.stamp(before),
                      away_until=timing.stamp(before + datetime.timedelta(hours=1)))
    entries = [*bobs.save.entries, note]
    table = engine.replay(Save(bobs.save.header, entries), check_snapshot=False).table
    noted = write_save(folder / "cy-away.toml",
                       Save(bobs.save.header, entries, engine.public_state(table)))
    set_clock(turn_time + datetime.timedelta(days=8))
    proposal = absentees.sign_absence(homes["ann"], noted, "absent",
                                      {"player": "cy", "remedy": "end"}, None)
    session.verify(proposal.save, homes["bob"])
    cut = holding.here(proposal.save, homes["bob"])
    assert cut.upto == len(proposal.save.entries) and cut.held is None, cut.reason


def test_S11_a_delay_counts_from_no_earlier_than_the_entries_followed() -> None:
    """The rule by itself: cy's note dated a day before bob's turn it follows, seen with
    ann's proposal on day 8, is not late in bob's home (bob signed only that turn)."""
    entries = [_entry("turn", "bob", 0, 5), _entry("away", "cy", -1, 6),
               _entry("absent", "ann", 8, 7)]
    seen = {"t": 0, "a": 8, "p": 8}
    sight = _sight((0,), seen, 9)._replace(me="bob")
    assert holdback.held(entries, ["t", "a", "p"], sight) == (3, None)
    assert holdback.dated(entries, 1) == holdback.dated(entries, 0)
    # the same note dated after the turn: as before, late only if bob signed meanwhile
    entries[1] = _entry("away", "cy", 0.5, 6)
    assert holdback.held(entries, ["t", "a", "p"], sight) == (3, None)
    assert holdback.held(entries, ["t", "a", "p"], sight._replace(
        mine=_sight((0, 1), seen, 9).mine))[0] == 2


def write_save(path: Path, save: Save) -> Path:
    path.write_text(savefile.dumps(save), "utf-8")
    return path
