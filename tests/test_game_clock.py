"""The game clock through the command line (PROTOCOL.md section 11, revised; issue 21,
findings 2, 3 and 5): patience before a proposal, one proposal per patience, the absent
seat's answer, the confirm, away notes, the header fields, resigning.

Every test plays its week in seconds: each command runs at an explicit PBEM_CLOCK. Each
attack is the one a player holding the source, its own key and every save would try.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.timekeeping import clock
from tests.enginekit import forge, next_entry, seed_of, table_after, with_entries, write

T0 = datetime.datetime(2025, 6, 2, 10, 0, 0, tzinfo=datetime.UTC)  # tests/conftest.py


def at(**delta: float) -> str:
    """T0 plus ``delta``, as PBEM_CLOCK takes it."""
    stamp = timing.stamp(T0 + datetime.timedelta(**delta))
    assert stamp is not None
    return stamp


class Players:
    """Homes for some players, each command at a clock of the test's choosing."""

    def __init__(self, root: Path, *handles: str) -> None:
        self.root = root
        self.runner = CliRunner()
        self.handles = handles
        (root / "saves").mkdir(parents=True)
        for handle in handles:
            assert self.run(handle, "keygen", "--name", handle).exit_code == 0

    def home(self, handle: str) -> Home:
        return Home(self.root / "homes" / handle)

    def run(self, handle: str | None, *args: str, when: str = "") -> Any:
        home = self.root / "homes" / (handle or "nobody")
        result = self.runner.invoke(main, ["--home", str(home), *args],
                                    env={"PBEM_CLOCK": when})
        assert "Traceback" not in result.output and "internal error" not in result.output
        return result

    def wrote(self, handle: str, *args: str, when: str = "") -> str:
        r = self.run(handle, *args, when=when)
        assert r.exit_code == 0, r.output
        return str(r.output.split("Wrote ", 1)[1].split("\n", 1)[0])

    def status(self, path: str, when: str = "") -> dict[str, Any]:
        """verify --json by a home with no seat, at ``when``, by default the newest time
        signed in the save (a home that gets it as it is signed: every entry is in effect
        there, PROTOCOL.md section 11)."""
        newest = max(str(e.get("time", "")) for e in savefile.read(path).entries)
        data: dict[str, Any] = json.loads(
            self.run(None, "verify", path, "--json", when=when or newest).output)
        return data

    def start(self, game: str = "dice-race", *new_args: str, when: str = "") -> str:
        seats = [a for h in self.handles for a in ("--seat", h)]
        path = self.wrote(self.handles[0], "new", game, *seats, *new_args,
                          "-o", str(self.root / "saves" / "new.toml"), when=when)
        for handle in self.handles[1:]:
            path = self.wrote(handle, "join", path, when=when)
        return self.wrote(self.handles[0], "play", path, when=when)

    def play(self, path: str, when: str = "", *extra: str) -> str:
        who = self.status(path)["to_act"]
        return self.wrote(who, "play", path, "--bot", "greedy", *extra, when=when)

    def other(self, handle: str) -> str:
        return next(h for h in self.handles if h != handle)


def nothing_new(t: Players, before: set[Path]) -> None:
    assert set((t.root / "saves").glob("*.toml")) == before, "a refused command wrote a save"


def saves(t: Players) -> set[Path]:
    return set((t.root / "saves").glob("*.toml"))


# ---- patience first ---------------------------------------------------------------------
def test_a_proposal_before_the_patience_is_refused(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    proposer = t.other(absent)
    before = saves(t)
    for early in (at(seconds=5), at(days=6, hours=23, minutes=59)):
        r = t.run(proposer, "absent", path, absent, "--remedy", "end", when=early)
        assert r.exit_code == 1, r.output
        assert f"{absent} still has time" in r.stderr and "2025-06-09 10:00 UTC" in r.stderr
    nothing_new(t, before)
    t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))


def test_a_proposal_with_a_forged_early_time_is_refused(tmp_path: Path) -> None:
    """A cheating client signs its proposal with a time before the entry that made the
    seat to act (or just before its patience ends): every verifier refuses it."""
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"), when=at(hours=1))
    save = savefile.read(path)
    absent = t.status(path)["to_act"]
    proposer = t.other(absent)
    for forged_time in (at(days=-30), at(hours=1, seconds=-1), at(days=7, minutes=59)):
        entry = next_entry(save, t.home(proposer), "absent", player=absent, remedy="end",
                           time=forged_time)
        forged = write(tmp_path, f"forged-{forged_time[:10]}.toml",
                       with_entries(save, [*save.entries, entry]))
        r = t.run(None, "verify", str(forged))
        assert r.exit_code == 1 and "patience is 7 days" in r.stderr, r.output
    # A proposal with no signed time cannot be checked: refused too.
    entry = next_entry(save, t.home(proposer), "absent", player=absent, remedy="end")
    body = {k: v for k, v in entry.items() if k not in ("sig", "time")}
    untimed = write(tmp_path, "untimed.toml",
                    with_entries(save, [*save.entries, forge(body, t.home(proposer).load())]))
    r = t.run(None, "verify", str(untimed))
    assert r.exit_code == 1 and "carries no signed time" in r.stderr, r.output


def test_a_back_dated_turn_does_not_start_the_next_seats_clock_early(tmp_path: Path) -> None:
    """The proposer signs its own turn dated 30 days back (a modified client: pbem itself
    refuses to build on an entry dated ahead of its clock), then proposes the next seat
    absent at once: the next seat's clock starts at the latest signed time before it (its
    own last entry), not at the back-dated one."""
    t = Players(tmp_path, "ann", "bob")
    path = t.start("dice-race", "--option", "target=1000", when=at())
    path = t.play(path, at(days=1))
    cheat = t.status(path)["to_act"]
    save = savefile.read(path)
    turn = next_entry(save, t.home(cheat), "turn", ["roll"], time=at(days=-29))
    path = str(write(tmp_path / "saves", "backdated.toml",
                     with_entries(save, [*save.entries, turn],
                                  engine.public_state(engine.replay(
                                      with_entries(save, [*save.entries, turn]),
                                      check_snapshot=False).table))))
    assert t.status(path)["ok"], t.status(path)
    victim = t.status(path)["to_act"]
    assert victim != cheat
    r = t.run(cheat, "absent", path, victim, "--remedy", "end", when=at(days=1, hours=1))
    assert r.exit_code == 1 and f"{victim} still has time" in r.stderr, r.output
    assert "2025-06-10 10:00 UTC" in r.stderr  # patience after the victim's own entry


# ---- the instant win (finding 2) ----------------------------------------------------------
def finished_road_master(t: Players) -> str:
    """A two-player Road Master game played to its end, up to the reveal of the seat
    that reveals last (the other has revealed)."""
    path = t.start("road-master")
    for _ in range(200):
        status = t.status(path)
        if status["next"] == "reveal" and len(status["awaiting"]) == 1:
            return path
        path = t.play(path)
    raise AssertionError("the game did not end")


@pytest.mark.heavy
def test_the_loser_cannot_declare_the_winner_absent_at_once(tmp_path: Path) -> None:
    """Finding 2: in a finished two-player game, the seat that has revealed declared the
    other absent seconds into its reveal and took first place. Now it waits one
    patience to propose and another to confirm, and the other may still reveal."""
    t = Players(tmp_path, "ann", "bob")
    path = finished_road_master(t)
    awaited = t.status(path)["to_act"]
    other = t.other(awaited)
    before = saves(t)
    r = t.run(other, "absent", path, awaited, "--remedy", "end", when=at(minutes=1))
    assert r.exit_code == 1 and f"{awaited} still has time" in r.stderr
    nothing_new(t, before)
    proposal = t.wrote(other, "absent", path, awaited, "--remedy", "end", when=at(days=7))
    status = t.status(proposal)
    assert status["ranking"] is None and status["audit"] == "pending"
    assert status["to_act"] == awaited and status["next"] == "reveal"
    r = t.run(other, "confirm", proposal, when=at(days=13, hours=23))
    assert r.exit_code == 1 and "2025-06-16 10:00 UTC" in r.stderr, r.output
    # Without an answer, the confirm one patience after the proposal ends it: two full
    # patience periods of signed silence.
    confirmed = t.wrote(other, "confirm", proposal, when=at(days=14))
    ended = t.status(confirmed)
    assert ended["ranking"][-1] == [awaited] and ended["to_act"] is None
    assert awaited in ended["unaudited"][0]
    # Had the winner answered by revealing on top of the proposal, the game would have
    # ended as the rules say, with nothing left to confirm.
    answered = t.wrote(awaited, "play", proposal, when=at(days=8))
    final = t.status(answered)
    assert final["audit"] == "clean" and final["to_act"] is None and not final["unaudited"]
    # (bob's home has it within minutes: a home that signed its confirm on day 14 and
    # had an answer dated day 8 only later would count the answer from then.)
    r = t.run(other, "confirm", answered, when=at(days=8, minutes=5))
    assert r.exit_code == 1 and "No proposal is open" in r.stderr, r.output


def early_proposal_refused(t: Players, path: str, caller: str, target: str,
                           when: str) -> Path:
    """A proposal that ``target`` is absent, signed at ``when`` by ``caller``'s own key on
    top of ``path`` as a cheating client would (no patience check): every verifier refuses
    it. Returns the forged save."""
    save = savefile.read(path)
    entry = next_entry(save, t.home(caller), "absent", player=target, remedy="end",
                       time=when)
    forged = write(t.root, f"early-{target}-{when[:10]}.toml",
                   with_entries(save, [*save.entries, entry]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and "patience is 7 days" in r.stderr, r.output
    return forged


@pytest.mark.parametrize("remedy", ["bot", "end"])
def test_the_seat_a_remedy_makes_to_act_has_its_whole_patience(tmp_path: Path,
                                                               remedy: str) -> None:
    """The last vote puts the remedy into effect and makes another seat to act: the bot's
    signer, or the first revealer after ``end``. Its clock starts at that vote, not at the
    entry that made the absent seat to act, a week before: nobody may call it absent an
    hour into its own duty."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    absent = t.status(path)["to_act"]
    proposer = handles[(handles.index(absent) + 1) % 3]
    voter = handles[(handles.index(absent) + 2) % 3]
    path = t.wrote(proposer, "absent", path, absent, "--remedy", remedy, when=at(days=7))
    path = t.wrote(voter, "vote", path, "accept", when=at(days=9))
    status = t.status(path)
    duty = status["to_act"]
    assert duty != absent and status["next"] == ("turn" if remedy == "bot" else "reveal")
    caller = next(h for h in handles if h not in (absent, duty))
    shown = json.loads(t.run(caller, "show", path, "--json", when=at(days=9)).output)["clock"]
    assert shown["since"] == at(days=9) and shown["patience_ends"] == at(days=16)
    before = saves(t)
    for early in (at(days=9, hours=1), at(days=15, hours=23)):
        r = t.run(caller, "absent", path, duty, "--remedy", "end", when=early)
        assert r.exit_code == 1 and f"{duty} still has time" in r.stderr, r.output
        assert "2025-06-18 10:00 UTC" in r.stderr, r.stderr
    nothing_new(t, before)
    # The same proposal from a cheating client: every verifier refuses it.
    forged = early_proposal_refused(t, path, caller, duty, at(days=9, hours=1))
    # A home whose archive caches the table as an older pbem worked it out (the clock
    # still at the absent seat's) replays instead of resuming from it, and refuses too.
    archive = t.root / "homes" / caller / "archive" / f"{savefile.read(path).game_id}.json"
    data = json.loads(archive.read_text())
    table = data["cache"]["table"]
    assert table["since"] == at(days=9)
    del table["format"]
    table["since"] = at()
    archive.write_text(json.dumps(data))
    r = t.run(caller, "verify", str(forged))
    assert r.exit_code == 1 and "patience is 7 days" in r.stderr, r.output
    t.wrote(caller, "absent", path, duty, "--remedy", "end", when=at(days=16))


def test_a_back_dated_last_vote_does_not_shorten_the_new_seats_patience(tmp_path: Path) -> None:
    """Four players: the first voter accepts two days after the proposal, and the last
    voter (in league with a caller) signs its accept dated back to the proposal. The
    seat the remedy makes to act was not to act before that first accept, so its clock
    starts there: the caller's proposal a patience after the proposal is refused."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    absent = t.status(path)["to_act"]
    proposer, first, last = (handles[(handles.index(absent) + k) % 4] for k in (1, 2, 3))
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    path = t.wrote(first, "vote", path, "accept", when=at(days=9))
    save = savefile.read(path)
    vote = next_entry(save, t.home(last), "vote", vote="accept", time=at(days=7, minutes=1))
    entries = [*save.entries, vote]  # with the [state] it leads to, as a cheat would write
    state = engine.public_state(table_after(with_entries(save, entries)))
    voted = write(tmp_path, "back-dated-vote.toml", with_entries(save, entries, state))
    status = t.status(str(voted))
    duty = status["to_act"]  # the first revealer, whoever it is in seat order
    assert status["next"] == "reveal" and duty != absent
    caller = next(h for h in handles if h not in (absent, duty))
    assert json.loads(t.run(caller, "show", str(voted), "--json", when=at(days=9)).output)[
        "clock"]["since"] == at(days=9)
    early_proposal_refused(t, str(voted), caller, duty, at(days=14, hours=1))


# ---- one proposal per patience (finding 3) ------------------------------------------------
def test_proposals_again_and_again_are_refused(tmp_path: Path) -> None:
    """Finding 3: five proposals in a row, each refused, all valid. Now a new proposal
    against the same seat waits one patience after the last refusal."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    handles = list(t.handles)
    proposer = handles[(handles.index(absent) + 1) % 3]
    voter = handles[(handles.index(absent) + 2) % 3]
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    path = t.wrote(voter, "vote", path, "refuse", when=at(days=7, hours=1))
    before = saves(t)
    for when in (at(days=7, hours=2), at(days=14)):
        r = t.run(proposer, "absent", path, absent, "--remedy", "end", when=when)
        assert r.exit_code == 1 and "2025-06-16 11:00 UTC" in r.stderr, r.stderr
    r = t.run(voter, "absent", path, absent, "--remedy", "end", when=at(days=10))
    assert r.exit_code == 1, "the limit is per seat proposed, whoever proposes"
    nothing_new(t, before)
    # The same proposal built by a cheating client is refused by every verifier.
    save = savefile.read(path)
    entry = next_entry(save, t.home(proposer), "absent", player=absent, remedy="end",
                       time=at(days=8))
    forged = write(tmp_path, "again.toml", with_entries(save, [*save.entries, entry]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and "the last proposal against" in r.stderr
    t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=14, hours=1))


# ---- the answer and the confirm -----------------------------------------------------------
def two_player_proposal(t: Players) -> tuple[str, str, str, str]:
    """(save before, proposal save, absent, proposer) in a two-player dice race."""
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    proposer = t.other(absent)
    r = t.run(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    assert r.exit_code == 0, r.output
    assert "takes effect only if" in r.output and "2025-06-16 10:00 UTC" in r.output
    proposal = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    return path, proposal, absent, proposer


def test_a_confirm_too_early_is_refused(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    _, proposal, absent, proposer = two_player_proposal(t)
    status = t.status(proposal)
    assert status["to_act"] == absent and status["over"] is False  # nothing in effect yet
    before = saves(t)
    r = t.run(proposer, "confirm", proposal, when=at(days=13, hours=23, minutes=59))
    assert r.exit_code == 1 and "from 2025-06-16 10:00 UTC" in r.stderr
    r = t.run(absent, "confirm", proposal, when=at(days=20))
    assert r.exit_code == 1 and "not yours to confirm" in r.stderr
    assert "answer it by playing" in r.stderr and "can confirm" not in r.stderr
    r = t.run(proposer, "play", proposal, "roll", when=at(days=8))
    assert r.exit_code == 1 and "can be confirmed with 'pbem confirm' from 2025-06-16" in r.stderr
    for listing in ((), ("--remedy", "end")):  # one proposal at a time
        r = t.run(proposer, "absent", proposal, absent, *listing, when=at(days=20))
        assert r.exit_code == 1 and "waits until this one is settled" in r.stderr, r.output
    nothing_new(t, before)
    save = savefile.read(proposal)
    entry = next_entry(save, t.home(proposer), "confirm", time=at(days=10))
    forged = write(tmp_path, "early-confirm.toml", with_entries(save, [*save.entries, entry]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and "one patience" in r.stderr
    done = t.wrote(proposer, "confirm", proposal, when=at(days=14))
    assert t.status(done)["absence"] and t.status(done)["over"] is True


def test_a_confirm_after_the_answer_is_refused(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    _, proposal, absent, proposer = two_player_proposal(t)
    # The absent player answers by playing on top of the proposal: it is void.
    answered = t.wrote(absent, "play", proposal, "roll", when=at(days=9))
    status = t.status(answered)
    assert status["ok"] and not status["absence"] and status["to_act"] == proposer
    shown = t.run(absent, "show", answered)
    assert "proposed" not in shown.output
    # The proposer's confirm on the save after the answer: nothing to confirm.
    r = t.run(proposer, "confirm", answered, when=at(days=15))
    assert r.exit_code == 1 and "No proposal is open" in r.stderr
    # Forged on top of the answer, or on the proposal itself once the answer is known
    # (a branch), a confirm after an answer is refused by the rules replay.
    save = savefile.read(answered)
    entry = next_entry(save, t.home(proposer), "confirm", time=at(days=15))
    forged = write(tmp_path, "confirm-after-answer.toml",
                   with_entries(save, [*save.entries, entry]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and "no proposal is open" in r.stderr
    # Later proposals against the answering seat wait a patience after its answer.
    r = t.run(proposer, "play", answered, "roll", when=at(days=9, hours=1))
    assert r.exit_code == 0, r.output


def test_a_second_confirm_says_the_remedy_is_in_effect(tmp_path: Path) -> None:
    """A confirm on the save where the remedy took effect says so, not that the player
    may have answered."""
    t = Players(tmp_path, "ann", "bob")
    _, proposal, absent, proposer = two_player_proposal(t)
    done = t.wrote(proposer, "confirm", proposal, when=at(days=14))
    before = saves(t)
    r = t.run(proposer, "confirm", done, when=at(days=15))
    assert r.exit_code == 1 and f"a remedy is in effect already for {absent}" in r.stderr
    assert "answered" not in r.stderr
    nothing_new(t, before)


def test_the_absent_seat_does_not_vote_but_answers(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    handles = list(t.handles)
    proposer = handles[(handles.index(absent) + 1) % 3]
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    r = t.run(absent, "vote", path, "accept", when=at(days=7))
    assert r.exit_code == 1 and "answer it by playing" in r.stderr
    answered = t.wrote(absent, "play", path, "roll", when=at(days=7, hours=3))
    status = t.status(answered)
    assert status["ok"] and status["next"] == "turn" and not status["absence"]


# ---- a vote that does not come (passed over) ------------------------------------------------
def four_with_a_proposal(t: Players, when: str = "") -> tuple[str, str, str, str, str]:
    """(proposal save, absent, proposer, first voter, last voter) in a four-player dice
    race: the seat to act is proposed absent on day 7 (remedy end)."""
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    absent = t.status(path)["to_act"]
    proposer, first, last = (handles[(handles.index(absent) + k) % 4] for k in (1, 2, 3))
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=when or at(days=7))
    return path, absent, proposer, first, last


def test_a_silent_voter_is_passed_over_by_the_next_vote(tmp_path: Path) -> None:
    """PROTOCOL.md section 11: the game is never stuck for good. The seat proposed absent
    and the voter due are both silent: a patience after the vote fell due, the next voter's
    vote passes over it (counted as an acceptance), and not an hour before."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t)
    shown = t.run(last, "show", path, when=at(days=8)).output
    assert f"votes still due, in order: {first}'s, by 2025-06-16 10:00 UTC; then {last}'s, " \
        "by 2025-06-23 10:00 UTC" in " ".join(shown.split()), shown
    before = saves(t)
    r = t.run(last, "vote", path, "accept", when=at(days=13, hours=23))
    assert r.exit_code == 1 and f"It is {first}'s turn to vote" in r.stderr, r.output
    assert "from 2025-06-16 10:00 UTC on" in r.stderr, r.stderr
    r = t.run(proposer, "confirm", path, when=at(days=20))
    assert r.exit_code == 1 and "from 2025-06-23 10:00 UTC on" in r.stderr, r.output
    nothing_new(t, before)
    # The same vote from a cheating client, an hour early: every verifier refuses it.
    save = savefile.read(path)
    early = next_entry(save, t.home(last), "vote", vote="accept", time=at(days=13, hours=23))
    forged = write(tmp_path, "early-pass.toml", with_entries(save, [*save.entries, early]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and f"the next vote is {first}'s" in r.stderr, r.output
    done = t.wrote(last, "vote", path, "accept", when=at(days=14))
    status = t.status(done)
    assert status["over"] is True and status["next"] == "reveal"
    [remedy] = status["ending"]["remedies"]
    assert remedy["accepted"] == [last] and remedy["passed"] == [first]
    assert f"the vote of {first} passed over" in status["ending"]["text"]
    log = t.run(None, "log", done, when=at(days=14)).output
    assert re.search(rf"{last} voted to accept {proposer}'s proposal that {absent} is absent "
                     rf"\(entry \d+, remedy 'end'\), passing over the vote of {first} ", log)
    # The voter passed over votes no more.
    r = t.run(first, "vote", done, "refuse", when=at(days=14, hours=1))
    assert r.exit_code == 1, r.output


def test_a_passing_vote_may_refuse(tmp_path: Path) -> None:
    """The next voter's vote passes over the silent one whatever it says: a refusal voids
    the proposal, and the game waits for the seat proposed absent again."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, _, first, last = four_with_a_proposal(t)
    done = t.wrote(last, "vote", path, "refuse", when=at(days=14))
    status = t.status(done)
    assert status["to_act"] == absent and not status["absence"] and status["over"] is False


def test_silent_votes_are_passed_over_by_a_confirm(tmp_path: Path) -> None:
    """Both voters silent: each has a whole patience in turn, then the proposer confirms;
    with the proposer silent too, a seat that accepted confirms."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t)
    save = savefile.read(path)
    early = next_entry(save, t.home(proposer), "confirm", time=at(days=20, hours=23))
    forged = write(tmp_path, "early-confirm.toml", with_entries(save, [*save.entries, early]))
    r = t.run(None, "verify", str(forged))
    assert r.exit_code == 1 and "before 2025-06-23 10:00 UTC" in r.stderr, r.output
    r = t.run(absent, "confirm", path, when=at(days=30))
    assert r.exit_code == 1, r.output
    r = t.run(proposer, "play", path, "roll", when=at(days=8))
    assert r.exit_code == 1 and f"It is {first}'s turn to vote" in r.stderr, r.output
    assert "'pbem confirm' passes over them from 2025-06-23 10:00 UTC on" in r.stderr
    shown = json.loads(t.run(first, "show", path, "--json", when=at(days=8)).output)["clock"]
    assert (shown["to_act"], shown["next"]) == (first, "vote")
    assert (shown["since"], shown["patience_ends"]) == (at(days=7), at(days=14))
    done = t.wrote(proposer, "confirm", path, when=at(days=21))
    [remedy] = t.status(done)["ending"]["remedies"]
    assert remedy["passed"] == [first, last] and remedy["accepted"] == []
    assert remedy["confirmer"] == proposer
    # The proposer silent too: the first voter accepted, the last is silent.
    t2 = Players(tmp_path / "second", "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t2)
    path = t2.wrote(first, "vote", path, "accept", when=at(days=8))
    r = t2.run(last, "confirm", path, when=at(days=30))
    assert r.exit_code == 1 and "You vote on the proposal" in r.stderr, r.output
    r = t2.run(first, "confirm", path, when=at(days=14, hours=23))
    assert r.exit_code == 1 and "from 2025-06-17 10:00 UTC on" in r.stderr, r.output
    done = t2.wrote(first, "confirm", path, when=at(days=15))
    status = t2.status(done)
    assert status["over"] is True
    [remedy] = status["ending"]["remedies"]
    assert remedy["accepted"] == [first] and remedy["passed"] == [last]
    assert remedy["confirmer"] == first


def test_a_voters_away_note_stops_its_vote_clock(tmp_path: Path) -> None:
    """A voter away when its vote falls due has its whole patience after the note ends."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    absent = t.status(path)["to_act"]
    proposer, voter = (handles[(handles.index(absent) + k) % 3] for k in (1, 2))
    path = t.wrote(voter, "away", path, "--until", at(days=10), when=at(days=1))
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    r = t.run(proposer, "confirm", path, when=at(days=16, hours=23))
    assert r.exit_code == 1 and "from 2025-06-19 10:00 UTC on" in r.stderr, r.output
    done = t.wrote(proposer, "confirm", path, when=at(days=17))
    assert t.status(done)["ending"]["remedies"][0]["passed"] == [voter]


def test_a_voter_adds_its_away_note_to_its_vote(tmp_path: Path) -> None:
    """While a proposal is open an away entry is refused, and says how a voter adds the
    note instead: to its vote (pbem vote --away-until), which stops its clock."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t)
    before = saves(t)
    r = t.run(first, "away", path, "--until", "2025-06-20", when=at(days=8))
    assert r.exit_code == 1 and "pbem vote --away-until" in r.stderr, r.output
    nothing_new(t, before)
    r = t.run(first, "vote", path, "accept", "--away-until", "2025-06-20", when=at(days=8))
    assert r.exit_code == 0, r.output
    assert f"{first} accepts." in r.output
    assert f"{first} is away until 2025-06-20 00:00 UTC" in r.output
    voted = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    entry = savefile.read(Path(voted)).entries[-1]
    assert entry["kind"] == "vote" and entry["away_until"] == "2025-06-20T00:00:00Z"
    clock = json.loads(t.run(last, "show", voted, "--json", when=at(days=8)).output)["clock"]
    assert clock["away"][first] == "2025-06-20T00:00:00Z"


def test_undo_of_a_vote_says_how_to_vote_again(tmp_path: Path) -> None:
    """Undo names the command that signs again what was taken back: a vote, not a move."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t)
    voted = t.wrote(first, "vote", path, "accept", when=at(days=8))
    r = t.run(first, "undo", voted, when=at(days=8))
    assert r.exit_code == 0, r.output
    assert f"e.g. 'pbem vote {path} accept' or 'pbem vote {path} refuse'" in r.output, r.output
    assert "pbem play" not in r.output
    again = t.wrote(first, "vote", path, "refuse", when=at(days=8))
    assert savefile.read(Path(again)).entries[-1]["vote"] == "refuse"


def test_refusals_during_a_proposal_are_short_and_say_what_to_do(tmp_path: Path) -> None:
    """The voter due who plays instead, and a second proposal, are refused in two
    sentences naming the open proposal (show has it whole), nothing written."""
    t = Players(tmp_path, "ann", "bob", "cy", "dee")
    path, absent, proposer, first, last = four_with_a_proposal(t)
    before = saves(t)
    named = f"{proposer}'s proposal that {absent} is absent (entry "
    r = t.run(first, "play", path, "roll", when=at(days=8))
    assert r.exit_code == 1 and f"It is your vote on {named}" in r.stderr, r.output
    assert "'pbem vote SAVE accept' or 'pbem vote SAVE refuse'" in r.stderr
    r = t.run(last, "absent", path, absent, "--remedy", "end", when=at(days=8))
    assert r.exit_code == 1 and f"A proposal is open: {named}" in r.stderr, r.output
    for refused in (t.run(first, "play", path, "roll", when=at(days=8)), r):
        assert refused.stderr.count(". ") + refused.stderr.count("). ") <= 2, refused.stderr
        assert "means:" not in refused.stderr
    nothing_new(t, before)


# ---- away notes ---------------------------------------------------------------------------
def test_an_away_note_stops_the_clock_within_the_allowance(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000", "--away", "10"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    before = saves(t)
    r = t.run(absent, "away", path, "--until", at(days=11), when=at(minutes=1))
    assert r.exit_code == 1 and "more than the 10 days" in r.stderr, r.output
    r = t.run(absent, "away", path, "--until", "2020-01-01", when=at(minutes=1))
    assert r.exit_code == 2 and "not in the future" in r.stderr
    nothing_new(t, before)
    path = t.wrote(absent, "away", path, "--until", "2025-06-09", when=at(minutes=1))
    assert savefile.read(path).entries[-1]["away_until"] == "2025-06-09T00:00:00Z"
    # Patience counts from the end of the away note (June 9 00:00 + 7 days).
    r = t.run(other, "absent", path, absent, "--remedy", "end", when=at(days=8))
    assert r.exit_code == 1 and "2025-06-16 00:00 UTC" in r.stderr, r.stderr
    # A note on a turn: the rest of the allowance (10 days, 6 days 14 hours used).
    r = t.run(absent, "play", path, "roll", "--away-until", at(days=11), when=at(days=1))
    assert r.exit_code == 1 and "left" in r.stderr
    played = t.wrote(absent, "play", path, "roll", "--away-until", "2025-06-10",
                     when=at(days=1))
    assert savefile.read(played).entries[-1]["away_until"] == "2025-06-10T00:00:00Z"
    t.wrote(other, "absent", path, absent, "--remedy", "end", when=at(days=14))


# ---- the header -----------------------------------------------------------------------------
def test_new_sets_the_game_clock_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    for bad in ("30m", "0d", "91d", "3 days", "-1d"):
        r = t.run("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob",
                  "--patience", bad, "-o", str(tmp_path / f"bad{bad}.toml"))
        assert r.exit_code == 2 and "--patience" in r.stderr, (bad, r.output)
    r = t.run("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob", "--away", "400")
    assert r.exit_code == 2
    path = t.wrote("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob",
                   "--patience", "12h", "--away", "3", "-o", str(tmp_path / "g.toml"))
    header = savefile.read(path).header
    assert header["patience"] == "12h" and header["away"] == 3
    default = t.wrote("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob",
                      "-o", str(tmp_path / "d.toml"))
    assert savefile.read(default).header["patience"] == "7d"
    assert savefile.read(default).header["away"] == 14
    text = Path(path).read_text()
    for field, value in (("patience", '"12x"'), ("patience", "12"), ("away", "-1"),
                         ("away", '"3"')):
        current = f'{field} = "12h"' if field == "patience" else f"{field} = 3"
        assert current in text
        broken = tmp_path / f"broken-{field}-{value.strip(chr(34))}.toml"
        broken.write_text(text.replace(current, f"{field} = {value}", 1))
        r = t.run(None, "verify", str(broken))
        assert r.exit_code == 4 and f"'{field}'" in r.stderr, r.output


def test_a_shorter_patience_is_the_one_counted(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000", "--patience", "12h"))
    absent = t.status(path)["to_act"]
    r = t.run(t.other(absent), "absent", path, absent, "--remedy", "end", when=at(hours=11))
    assert r.exit_code == 1 and "12 hours" in r.stderr
    t.wrote(t.other(absent), "absent", path, absent, "--remedy", "end", when=at(hours=12))


def test_a_header_without_the_clock_has_the_defaults() -> None:
    assert clock.patience({}) == datetime.timedelta(days=7)
    assert clock.away_allowance({}) == datetime.timedelta(days=14)
    header = {"patience": "36h", "away": 0}
    assert clock.patience(header) == datetime.timedelta(hours=36)
    assert clock.away_allowance(header) == datetime.timedelta(0)


# ---- the clock itself -----------------------------------------------------------------------
def test_pbem_clock_sets_the_signed_time_and_a_bad_one_is_a_usage_error(
        tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.start("dice-race", when="2031-01-02T03:04:05Z")
    assert savefile.read(path).entries[-1]["time"] == "2031-01-02T03:04:05Z"
    for bad in ("tomorrow", "2031-02-30T00:00:00Z", "2031-01-02 03:04:05"):
        r = t.run("bob", "show", path, when=bad)
        assert r.exit_code == 2 and "PBEM_CLOCK" in r.stderr, r.output


# ---- resigning (finding 5) ------------------------------------------------------------------
def test_resign_asks_first_and_ranks_by_the_scoring_of_the_position(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.start("dice-race", "--option", "target=1000")
    for _ in range(6):
        path = t.play(path)
    resigner = t.status(path)["to_act"]
    before = saves(t)
    r = t.run(resigner, "resign", path)
    assert r.exit_code == 2 and "--yes" in r.stderr and "rank last" in r.stderr
    nothing_new(t, before)
    r = t.run(resigner, "resign", path, "--yes")
    assert r.exit_code == 0, r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    others = " and ".join(h for h in t.handles if h != resigner)
    assert f"{resigner} ranks last; {others} are ranked by the rules' scoring" in r.output
    # The position when the resignation was signed (the roll it resolved included).
    scores_now = engine.replay(savefile.read(path)).table.gstate["score"]
    status = t.status(path)
    assert status["next"] == "reveal" and resigner in status["awaiting"]
    for _ in range(3):
        status = t.status(path)
        if status["to_act"] is None:
            break
        path = t.wrote(status["to_act"], "play", path)
    final = t.status(path)
    assert final["audit"] == "clean" and final["ranking"][-1] == [resigner]
    seats = list(t.handles)
    # Every score as the rules compute it (once all 0, "the others share the win").
    assert final["scores"] == {h: scores_now[i] for i, h in enumerate(seats)}
    assert any(v != 0 for v in final["scores"].values())
    # The others in the order of their scores.
    ranked = [h for group in final["ranking"][:-1] for h in group]
    assert sorted(ranked) == sorted(h for h in seats if h != resigner)
    points = [final["scores"][h] for h in ranked]
    assert points == sorted(points, reverse=True)
    r = t.run(None, "verify", path)
    assert f"{resigner} resigned: {resigner} ranks last" in r.output
    assert f"{others} are ranked by the rules' scoring of the position when {resigner} " \
        "resigned." in r.output
    assert "share the win" not in r.output


def test_a_solo_resignation_names_the_automaton_that_is_scored(tmp_path: Path) -> None:
    """Solo Red Dog Junction: after ann resigns, Justin alone is scored; no line speaks
    of 'the others'."""
    t = Players(tmp_path, "ann")
    path = t.start("red-dog-junction")
    while t.status(path)["next"] != "turn":
        path = t.play(path)
    r = t.run("ann", "resign", path, "--yes")
    assert r.exit_code == 0, r.output
    assert "ann ranks last; Justin is scored by the rules on the position now." in r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    while t.status(path)["to_act"] is not None:
        path = t.play(path)
    out = t.run(None, "verify", path).output
    assert "Justin is scored by the rules on the position when ann resigned." in out
    assert "others" not in out and "Winner: Justin" in out


def resigned_three(root: Path) -> tuple[Players, str, str]:
    """Three players of dice-race six entries into play, then the seat to act resigns:
    (the players, the resignation's save, the resigner)."""
    t = Players(root, "ann", "bob", "cy")
    path = t.start("dice-race", "--option", "target=1000")
    for _ in range(6):
        path = t.play(path)
    resigner = t.status(path)["to_act"]
    return t, t.wrote(resigner, "resign", path, "--yes"), resigner


def test_after_a_resignation_no_reveal_takes_moves(tmp_path: Path) -> None:
    """The rules still gave the resigner its turn, so its reveal took moves: `play --bot`
    played a whole turn there, after the resignation, changing the position the others
    are ranked by. Now no reveal offers or carries a move, and a forged one is refused."""
    t, path, resigner = resigned_three(tmp_path)
    table = engine.replay(savefile.read(path)).table
    scores_then = list(table.gstate["score"])
    assert table.game.legal_moves(table.gstate, table.seat_of(resigner)) == ["roll", "pass"]
    while (who := t.status(path)["awaiting"][0]) != resigner:
        listed = json.loads(t.run(who, "moves", path, "--json").output)
        assert listed["moves"] == [] and listed["can_end_turn"] is True
        path = t.wrote(who, "play", path, "--bot", "greedy")
        assert savefile.read(path).entries[-1]["moves"] == []
    # The resigner's own reveal: nothing offered, and a bot plays nothing.
    assert json.loads(t.run(resigner, "moves", path, "--json").output)["moves"] == []
    save = savefile.read(path)
    seed = seed_of(t.home(resigner), save)
    assert seed is not None
    for moves in (["roll"], ["pass"]):
        # The reveals after a resignation are a round: the resigner's in its slot.
        entries = [*save.entries, next_entry(save, t.home(resigner), "reveal", moves,
                                             seed=seed.hex())]
        forged = with_entries(save, sorted(entries, key=lambda e: int(e["seq"])))
        target = write(tmp_path, f"forged-{moves[0]}.toml", forged)
        r = t.run(None, "verify", str(target))
        assert r.exit_code == 1, r.output
        assert f"the game ended when {resigner} resigned, so a reveal carries no moves" in \
            r.stderr
    before = saves(t)
    r = t.run(resigner, "play", path, "roll")
    assert r.exit_code == 1 and "carries no moves" in r.stderr, r.output
    nothing_new(t, before)
    path = t.wrote(resigner, "play", path, "--bot", "greedy")
    while (who := t.status(path)["to_act"]) is not None:
        path = t.wrote(who, "play", path, "--bot", "greedy")
    final = t.status(path)
    assert all(e["moves"] == [] for e in savefile.read(path).entries if e["kind"] == "reveal")
    assert final["audit"] == "clean" and final["ranking"][-1] == [resigner]
    assert final["scores"] == {h: scores_then[i] for i, h in enumerate(t.handles)}


def test_games_lists_the_scores_in_the_order_of_the_ranking(tmp_path: Path) -> None:
    """`pbem games` listed the others by points alone: with a tie, or a resigner ahead on
    points, "won by ann (9); bob 6, cy 6" read as if the resigner bob came second."""
    from pbem.home import gameindex
    from pbem.session.gamelist import game_line

    t, path, resigner = resigned_three(tmp_path)
    while (who := t.status(path)["to_act"]) is not None:
        path = t.wrote(who, "play", path, "--bot", "greedy")
    final = t.status(path)
    order = [h for group in final["ranking"] for h in group]
    assert order[-1] == resigner
    # The reveals after a resignation are a round: the resigner's home reads the final save.
    assert t.run(resigner, "verify", path).exit_code == 0
    line = t.run(resigner, "games").output.split("\n", 1)[0]
    assert re.findall(r"(ann|bob|cy) \(?\d+", line) == order, line
    # A resigner ahead of a seat on points, and a tie the tie-break decided.
    save = savefile.read(path)
    report = engine.replay(save)
    report.result = {**report.result, "audit": "clean", "winners": ["cy"],
                     "ranking": [["cy"], ["ann"], ["bob"]],
                     "scores": {"ann": 6, "bob": 9, "cy": 6}}
    record = gameindex.summarize(save, report, Path(path), "ann")
    assert list(record.scores) == ["cy", "ann", "bob"]
    status = game_line(record, timing.now())["status"]
    assert status.startswith("over, won by cy (6); ann 6, bob 9")


# ---- what games, show and remind say ------------------------------------------------------
def test_show_and_games_say_who_is_to_act_since_when_and_until_when(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    path = t.wrote(absent, "away", path, "--until", "2025-06-05", when=at(hours=1))
    shown = t.run(other, "show", path, when=at(days=1))
    assert (f"To act: {absent} (turn) since 2025-06-02 10:00 UTC; away, so the clock counts "
            "from 2025-06-05 00:00 UTC; patience (7 days) runs out 2025-06-12 00:00 UTC, in 8 "
            "days 14 hours.") in shown.output, shown.output
    assert f"Away: {absent} until 2025-06-05 00:00 UTC." in shown.output
    data = json.loads(t.run(other, "show", path, "--json", when=at(days=1)).output)
    assert data["clock"] == {"to_act": absent, "next": "turn", "since": "2025-06-02T10:00:00Z",
                             "clock_from": "2025-06-05T00:00:00Z",
                             "patience": "7d", "patience_ends": "2025-06-12T00:00:00Z",
                             "proposal": None, "away": {absent: "2025-06-05T00:00:00Z"}}
    listed = json.loads(t.run(other, "games", "--json", when=at(days=1)).output)["games"][0]
    assert listed["patience_ends"] == "2025-06-12T00:00:00Z" and not listed["past_patience"]
    assert listed["away"] == {absent: "2025-06-05T00:00:00Z"}
    soon = t.run(other, "games", when=at(days=9))
    assert f"patience (7 days) of {absent} runs out 2025-06-12 00:00 UTC" in soon.output
    later = t.run(other, "games", when=at(days=10, hours=14))
    assert f"ran out 2025-06-12 00:00 UTC: another player may propose {absent}" \
        in later.output, later.output
    assert json.loads(t.run(other, "games", "--json", when=at(days=10, hours=14)).output)[
        "games"][0]["past_patience"]
    shown = t.run(other, "show", path, when=at(days=10, hours=14))
    assert "past patience (7 days) since 2025-06-12 00:00 UTC" in shown.output


def test_games_counts_the_wait_from_the_entry_that_made_the_seat_to_act(
        tmp_path: Path) -> None:
    """An entry by someone else that leaves the turn where it was (an away note, a
    proposal nobody votes on) does not restart the wait 'games' shows, and a proposal
    waiting for its confirm says who can confirm it from when."""
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    path = t.wrote(other, "away", path, "--until", "2025-06-04", when=at(days=1))
    listed = json.loads(t.run(other, "games", "--json", when=at(days=2)).output)["games"][0]
    assert listed["to_act"] == absent and listed["waiting_since"] == "2025-06-02T10:00:00Z"
    assert "waiting 2 days" in t.run(other, "games", when=at(days=2)).output
    r = t.run(other, "absent", path, absent, "--remedy", "end", when=at(days=8))
    assert r.exit_code == 0, r.output
    proposal = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    listed = json.loads(t.run(other, "games", "--json", when=at(days=8)).output)["games"][0]
    assert listed["waiting_since"] == "2025-06-02T10:00:00Z" and listed["patience_ends"] is None
    words = t.run(other, "games", when=at(days=8)).output
    assert (f"{other} proposed {absent} absent; {absent} answers by playing, else {other} can "
            "confirm it ('pbem confirm') from 2025-06-17 10:00 UTC") in words, words
    clock = json.loads(t.run(other, "show", proposal, "--json", when=at(days=8)).output)["clock"]
    assert clock["proposal"] == {"player": absent, "by": other,
                                 "confirm_from": "2025-06-17T10:00:00Z"}
    assert "can confirm it ('pbem confirm') now" in t.run(other, "games", when=at(days=16)).output


def test_remind_with_no_smtp_server_names_a_way_that_exists(tmp_path: Path) -> None:
    """With no SMTP server known, remind says how to write the reminder to a file instead,
    and that way works: 'pbem send SAVE --remind --eml FILE'."""
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    assert t.run(other, "contacts", "email", absent, f"{absent}@example.org").exit_code == 0
    r = t.run(other, "remind", path, when=at(days=8))
    assert r.exit_code == 2 and "'pbem send SAVE --eml FILE' (with --remind" in r.stderr, r.output
    eml = tmp_path / "reminder.eml"
    r = t.run(other, "send", path, "--remind", "--eml", str(eml), when=at(days=8))
    assert r.exit_code == 0 and b"Reminder" in eml.read_bytes(), r.output


def test_remind_mails_whoever_is_past_patience_once_a_day(tmp_path: Path) -> None:
    pytest.importorskip("aiosmtpd")
    from tests.test_smtp import Controller, Sink, free_port

    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    absent = t.status(path)["to_act"]
    other = t.other(absent)
    assert t.run(other, "profile", "--email", f"{other}@example.org").exit_code == 0
    assert t.run(other, "contacts", "email", absent, f"{absent}@example.org").exit_code == 0
    r = t.run(other, "remind", when=at(days=6))
    assert r.exit_code == 0 and "patience runs out 2025-06-09 10:00 UTC" in r.output
    sink, port = Sink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    smtp = ("--smtp", "127.0.0.1", "--port", str(port), "--security", "none")
    try:
        r = t.run(other, "remind", *smtp, when=at(days=8))
        assert r.exit_code == 0 and f"reminded {absent}" in r.output, r.output
        assert len(sink.received) == 1 and sink.received[0]["to"] == [f"{absent}@example.org"]
        assert b"Reminder" in sink.received[0]["content"]
        r = t.run(other, "remind", path, *smtp,
                  when=at(days=8, hours=23))
        assert r.exit_code == 0 and "less than a day ago" in r.output
        assert len(sink.received) == 1
        r = t.run(other, "remind", *smtp, when=at(days=9))
        assert r.exit_code == 0 and f"reminded {absent}" in r.output
        assert len(sink.received) == 2
        r = t.run(absent, "remind", path, *smtp, when=at(days=20))
        assert r.exit_code == 0 and "it waits for you" in r.output
        assert len(sink.received) == 2
        # A command that signs mails with --send, as 'play --send' does.
        r = t.run(other, "away", path, "--until", "2025-06-15", "--send", *smtp,
                  when=at(days=9, hours=1))
        assert r.exit_code == 0 and f"Sent to {absent}@example.org" in r.output, r.output
        assert len(sink.received) == 3
    finally:
        controller.stop()
