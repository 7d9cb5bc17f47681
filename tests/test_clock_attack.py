"""A clock nobody can fake (PROTOCOL.md section 11, revised): a home's own clock judges
what is in effect, the seat a proposal names can always answer, and one rule chooses
between the two branches for every verifier.

The attack these tests repeat, through the command line: in a two-player game bob signs
'absent' with his clock set seven days ahead, 'confirm' fourteen days ahead, then his
reveal, and mails the save two real minutes into ann's turn. Before the revision ann's own
'verify --json' said the game was over and bob had won, and her 'play' was refused on the
last save (dated ahead) and on the saves before it (stale)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import forge, next_entry, with_entries
from tests.enginekit import write as write_save
from tests.test_game_clock import Players, at


def forged_removal(t: Players) -> tuple[str, str, str, str]:
    """(the save before the proposal, bob's last save, the one ann is proposed absent
    on, the one bob proposes on): bob dates absent +7d, confirm +14d, then reveals."""
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    ann = t.status(path)["to_act"]
    bob = t.other(ann)
    proposal = t.wrote(bob, "absent", path, ann, "--remedy", "end", when=at(days=7))
    confirmed = t.wrote(bob, "confirm", proposal, when=at(days=14))
    revealed = t.wrote(bob, "play", confirmed, when=at(days=14, minutes=1))
    return path, revealed, ann, bob


def removed(t: Players) -> tuple[str, str, str, str]:
    """(the save the game waits on, the save where the other seat won, the seat waited
    for, the other): the other proposes it absent on day 8, confirms on day 15 and
    reveals a minute later."""
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    waited = t.status(path)["to_act"]
    other = t.other(waited)
    proposal = t.wrote(other, "absent", path, waited, "--remedy", "end", when=at(days=8))
    confirmed = t.wrote(other, "confirm", proposal, when=at(days=15))
    return path, t.wrote(other, "play", confirmed, when=at(days=15, minutes=1)), waited, other


def write(tmp: Path, name: str, save: Save) -> Path:
    """The save as a cheat writes it: with the snapshot its entries replay to."""
    table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
    return write_save(tmp, name, with_entries(save, save.entries, engine.public_state(table)))


def proposal_seq(path: str) -> int:
    return int(savefile.read(path).entries[-1]["seq"])


def verify_json(t: Players, handle: str | None, path: str, when: str) -> dict[str, Any]:
    r = t.run(handle, "verify", path, "--json", when=when)
    data: dict[str, Any] = json.loads(r.output)
    return data


def test_S11_a_removal_dated_ahead_waits_and_is_voided_by_the_answer(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    before, forged, ann, bob = forged_removal(t)
    two_minutes = at(minutes=2)
    data = verify_json(t, ann, forged, two_minutes)
    assert data["ok"] and data["over"] is False and not data["winners"]
    assert data["to_act"] == ann and data["next"] == "turn" and not data["absence"]
    assert [(w["kind"], w["seat"]) for w in data["waiting"]] == [
        ("absent", bob), ("confirm", bob), ("reveal", bob)]
    assert data["waiting"][0]["in_effect_from"] == "2025-06-09T09:00:00Z"
    assert data["waiting"][-1]["in_effect_from"] == "2025-06-16T09:01:00Z"
    text = t.run(ann, "verify", forged, when=two_minutes).output
    assert "not in effect here before 2025-06-09 09:00 UTC" in text
    assert "winner" not in text.lower()
    shown = t.run(ann, "show", forged, when=two_minutes)
    assert shown.exit_code == 0 and "not in effect here" in shown.output
    assert f"Next: turn by {ann}" in shown.output
    seq = data["waiting"][0]["seq"]
    at_waiting = t.run(ann, "show", forged, "--at", str(seq), when=two_minutes)
    assert at_waiting.exit_code == 2 and "is not in effect here yet" in at_waiting.stderr
    log = t.run(ann, "log", forged, "--json", when=two_minutes)
    logged = json.loads(log.output)
    assert [e["seq"] for e in logged["entries"]][-1] == seq - 1 and logged["waiting"]
    games = json.loads(t.run(ann, "games", "--json", when=two_minutes).output)["games"]
    assert games[0]["to_act"] == ann and games[0]["waiting"][0]["seq"] == seq
    assert "not in effect here before 2025-06-09 09:00 UTC" in t.run(
        ann, "games", when=two_minutes).output
    filed = json.loads(t.run(ann, "inbox", forged, "--json", when=two_minutes).output)
    assert filed["games"][0]["to_act"] == ann and not filed["games"][0]["over"]
    assert not filed["games"][0]["command"]  # play on the file would be refused
    assert {p["code"] for p in filed["problems"]} == {"waiting"}
    # ann's play on bob's save is refused (built on entries that wait) ...
    refused = t.run(ann, "play", forged, "roll", when=two_minutes)
    assert refused.exit_code == 1 and "go on from the save before entry" in refused.stderr
    # ... and on the save before the proposal it works: it is not stale.
    answer = t.wrote(ann, "play", before, "roll", when=at(minutes=3))
    assert verify_json(t, ann, answer, at(minutes=3))["to_act"] == bob
    # A third home that has seen both, once its clock is past every date: ann's answer is
    # signed before bob's proposal, so it is the game's branch and bob's is void.
    late = at(days=15)
    third = verify_json(t, None, forged, late)
    assert third["over"] is True and third["void"] is None  # nothing else known yet
    answered = verify_json(t, None, answer, late)
    assert answered["void"] is None
    assert any("This save's branch is the game's" in n for n in answered["notes"])
    third = verify_json(t, None, forged, late)
    assert third["void"] and "The other branch is the game's" in third["void"]
    assert f"{ann}'s turn is signed earlier" in third["void"]
    # bob cannot build on his void branch either (in his own home, once he has seen it:
    # it reaches his home at once; pbem.protocol.timekeeping.holdback).
    t.run(bob, "verify", answer, when=at(minutes=4))
    r = t.run(bob, "absent", forged, ann, "--remedy", "end", when=late)
    assert r.exit_code == 1 and "branch is void" in r.stderr
    # bob's list of games names the game's branch, not his longer void one.
    listed = json.loads(t.run(bob, "games", "--json", when=late).output)["games"][0]
    assert listed["seq"] == proposal_seq(answer) and listed["to_act"] == bob
    # ann's home, seeing bob's save late, says the same; her answer shows first seen late.
    data = verify_json(t, ann, forged, late)
    assert data["void"] and not data["waiting"]
    assert [(x["seq"], x["first_seen"]) for x in data["late"]] == []  # seen in time
    assert "signed" not in " ".join(n for n in data["notes"] if "first seen" in n)


def test_S11_a_removal_dated_ahead_takes_effect_once_the_clock_passes(tmp_path: Path) -> None:
    t = Players(tmp_path, "ann", "bob")
    _, forged, ann, bob = forged_removal(t)
    assert verify_json(t, ann, forged, at(minutes=2))["over"] is False
    midway = verify_json(t, ann, forged, at(days=8))  # the proposal is, the confirm is not
    assert midway["over"] is False and midway["absence"]
    assert [w["kind"] for w in midway["waiting"]] == ["confirm", "reveal"]
    done = verify_json(t, ann, forged, at(days=14, hours=1))
    assert done["over"] is True and done["winners"] == [bob] and not done["waiting"]


def test_S11_hand_signed_entries_dated_ahead_wait(tmp_path: Path) -> None:
    """The same with entries signed by hand (no pbem refuses anything for the cheat):
    the proposal dated ahead waits; a hand-signed answer on the save before it, signed
    earlier, voids it in a home that sees both."""
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    ann = t.status(path)["to_act"]
    bob = t.other(ann)
    save = savefile.read(path)
    proposal = next_entry(save, t.home(bob), "absent", player=ann, remedy="end",
                          time=at(days=30))
    forged = write(tmp_path, "forged.toml", with_entries(save, [*save.entries, proposal]))
    data = verify_json(t, None, str(forged), at(minutes=1))
    assert data["ok"] and data["to_act"] == ann and not data["absence"], data
    assert data["waiting"] == [{"seq": proposal["seq"], "kind": "absent", "seat": bob,
                                "time": at(days=30), "in_effect_from": at(days=29, hours=23)}]
    answer = next_entry(save, t.home(ann), "turn", ["roll"], time=at(days=29))
    answered = write(tmp_path, "answer.toml", with_entries(save, [*save.entries, answer]))
    late = at(days=31)
    assert verify_json(t, None, str(forged), late)["absence"]  # in effect now, alone
    assert verify_json(t, None, str(answered), late)["void"] is None
    assert "The other branch is the game's" in verify_json(t, None, str(forged), late)["void"]
    # An answer signed after the proposal came too late: the proposal's branch stands.
    t2 = Players(tmp_path / "second", "ann", "bob")
    path = t2.play(t2.start("dice-race", "--option", "target=1000"))
    ann, save = t2.status(path)["to_act"], savefile.read(path)
    bob = t2.other(ann)
    proposal = next_entry(save, t2.home(bob), "absent", player=ann, remedy="end",
                          time=at(days=8))
    answer = next_entry(save, t2.home(ann), "turn", ["roll"], time=at(days=8, minutes=1))
    p_path = write(tmp_path, "p.toml", with_entries(save, [*save.entries, proposal]))
    a_path = write(tmp_path, "a.toml", with_entries(save, [*save.entries, answer]))
    assert verify_json(t2, None, str(p_path), late)["void"] is None
    void = verify_json(t2, None, str(a_path), late)["void"]
    assert void and "came too late to answer it" in void


def test_S11_join_and_show_of_an_invitation_state_the_game_clock(tmp_path: Path) -> None:
    """A host may set 1 hour of patience and no away days: the joiner is told before and
    as it joins, with what happens after them."""
    t = Players(tmp_path, "ann", "bob")
    seats = [a for h in t.handles for a in ("--seat", h)]
    invite = t.wrote("ann", "new", "dice-race", *seats, "--option", "target=1000",
                     "--patience", "1h", "--away", "0",
                     "-o", str(tmp_path / "saves" / "new.toml"))
    shown = t.run("bob", "show", invite)
    assert shown.exit_code == 0
    text = " ".join(shown.output.split())
    assert "Game clock (you accept it by joining): patience 1 hour; no seat may declare " \
        "itself away (0 away days)." in text
    assert "proposed absent by any other seat, with remedy 'end'" in text
    assert "the proposer confirms 1 hour after the proposal" in text
    data = json.loads(t.run("bob", "show", invite, "--json").output)
    assert data["clock_terms"] and "patience 1 hour" in data["clock_terms"][0]
    joined = t.run("bob", "join", invite)
    assert joined.exit_code == 0
    assert "Game clock (you accept it by joining): patience 1 hour" in joined.output
    started = t.wrote("ann", "play", joined.output.split("Wrote ", 1)[1].split("\n", 1)[0])
    assert "Game clock" not in t.run("bob", "show", started).output
    assert json.loads(t.run("bob", "show", started, "--json").output)["clock_terms"] is None


def test_S11_an_entry_first_seen_long_after_its_time_is_shown_and_warned_of(
        tmp_path: Path) -> None:
    """bob's proposal is signed on day 7 but reaches ann's home on day 12 (a back-dated
    entry looks the same): show, log and verify say so, in words and JSON; ann's vote to
    accept warns first, her refusal does not."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    absent = t.status(path)["to_act"]
    proposer, voter = (handles[(handles.index(absent) + k) % 3] for k in (1, 2))
    proposal = t.wrote(proposer, "absent", path, absent, "--remedy", "end", when=at(days=7))
    day12 = at(days=12)
    words = "signed 2025-06-09 10:00 UTC, first seen here 2025-06-14 10:00 UTC"
    data = verify_json(t, voter, proposal, day12)
    assert [(x["kind"], x["time"], x["first_seen"]) for x in data["late"]] == [
        ("absent", at(days=7), day12)]
    assert any(words in n for n in data["notes"])
    assert words in t.run(voter, "show", proposal, when=day12).output
    assert words in t.run(voter, "log", proposal, when=day12).output
    assert json.loads(t.run(voter, "log", proposal, "--json", when=day12).output)["late"]
    assert words in t.run(voter, "verify", proposal, when=day12).output
    accepted = t.run(voter, "vote", proposal, "accept", "-o", str(tmp_path / "v.toml"),
                     when=day12)
    assert accepted.exit_code == 0 and "Warning: the proposal rests on an entry that came " \
        "late." in accepted.stderr and words in accepted.stderr
    refused = t.run(voter, "vote", proposal, "refuse", "-o", str(tmp_path / "r.toml"),
                    when=day12)
    assert "Warning" not in refused.stderr
    # The proposer's own home saw it as it signed it; it first saw the start and the turn
    # after it (the newest entries of the save it proposed on), both by one seat, a week
    # late, and says so of both: that is true (a seat's own later turn explains nothing).
    mine = verify_json(t, proposer, proposal, day12)["late"]
    seq, played = proposal_seq(proposal), handles[(handles.index(absent) - 1) % 3]
    assert [(x["seq"], x["seat"], x["first_seen"]) for x in mine] == [
        (seq - 2, played, at(days=7)), (seq - 1, played, at(days=7))]


def test_S11_the_branch_rule_in_one_place() -> None:
    """clock.branch_rule: an answer wins only if signed strictly before the procedure's
    entry; an away note gives way to the in-order entry; otherwise the earlier entry."""
    from pbem.protocol.timekeeping import clock

    def e(kind: str, seat: str, time: str | None) -> dict[str, Any]:
        entry: dict[str, Any] = {"kind": kind, "seat": seat, "seq": 5, "prev": "0" * 64}
        if time is not None:
            entry["time"] = time
        return entry

    proposal = e("absent", "bob", at(days=7))
    for answer, wins in ((e("turn", "ann", at(days=7, seconds=-1)), True),
                         (e("turn", "ann", at(days=7)), False),
                         (e("reveal", "ann", at(days=1)), True),
                         (e("turn", "ann", None), False)):
        for pair in ((proposal, answer), (answer, proposal)):
            assert (clock.branch_rule(*pair)[0] is answer) is wins
    for kind in ("vote", "confirm"):
        later = e(kind, "cy", at(days=9))
        assert clock.branch_rule(later, e("turn", "ann", at(days=8)))[0]["kind"] == "turn"
        assert clock.branch_rule(later, e("turn", "ann", at(days=10)))[0] is later
    note = e("away", "cy", at())
    assert clock.branch_rule(note, e("turn", "ann", at(days=3)))[0]["kind"] == "turn"
    early, late = e("away", "cy", at()), e("absent", "bob", at(days=7))
    assert clock.branch_rule(late, early)[0] is early


def test_S11_a_back_dated_answer_cannot_hide_that_it_came_late(tmp_path: Path) -> None:
    """bob removes ann (absent +8d, confirm +15d, his reveal) and wins; on day 30 ann signs
    her answer dated before the proposal (it voids all that) and, on top of it, an away
    note dated day 30, which used to excuse the answer's delay ('a later entry explains
    the wait'). A seat's own later entry explains nothing: bob's home, seeing that one
    file, still says the answer is signed three weeks before it first saw it."""
    t = Players(tmp_path, "ann", "bob")
    path, won, ann, bob = removed(t)
    assert verify_json(t, bob, won, at(days=16))["winners"] == [bob]
    answer = t.wrote(ann, "play", path, "roll", when=at(days=7, hours=23))
    covered = t.wrote(ann, "away", answer, "--until", at(days=31), when=at(days=30))
    day30 = at(days=30, minutes=5)
    data = verify_json(t, bob, covered, day30)
    # The answer is signed before the proposal, but bob's home signed its proposal and
    # confirm after that time and had the answer only on day 30: there it counts from
    # then, and bob's removal stands (pbem.protocol.timekeeping.holdback).
    assert data["void"] and "The other branch is the game's" in data["void"]
    assert f"{ann}'s turn (2025-07-02 10:05 UTC" in data["void"]
    words = "signed 2025-06-10 09:00 UTC, first seen here 2025-07-02 10:05 UTC"
    assert [(x["seq"], x["kind"], x["seat"]) for x in data["late"]] == [
        (proposal_seq(answer), "turn", ann)]
    assert any(words in n for n in data["notes"])
    assert words in t.run(bob, "show", covered, when=day30).output
    assert words in t.run(bob, "log", covered, when=day30).output


def test_S11_a_time_no_date_can_follow_is_refused_not_an_internal_error(
        tmp_path: Path) -> None:
    """A turn signed by hand at 9999-12-31T23:59:59Z, and a proposal on it: the clock
    rules add a patience to that time, past the last date there is. Every command on the
    save used to fail with an internal error (exit 70); now the save is malformed (exit
    4), and PBEM_CLOCK so far ahead is a usage error (exit 2)."""
    t = Players(tmp_path, "ann", "bob")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    save = savefile.read(path)
    ann = t.status(path)["to_act"]
    bob = t.other(ann)
    last = "9999-12-31T23:59:59Z"
    turn = next_entry(save, t.home(ann), "turn", ["roll"], time=last)
    played = with_entries(save, [*save.entries, turn])
    proposal = next_entry(played, t.home(ann), "absent", player=bob, remedy="end", time=last)
    forged = write_save(tmp_path, "forged.toml", with_entries(played, [*played.entries,
                                                                       proposal]))
    for command in ("verify", "show", "log"):
        r = t.run(bob, command, str(forged), when=at(minutes=5))
        assert r.exit_code == 4, r.output
        assert f"entry {turn['seq']} 'time' is after the year 8999" in r.output
    r = t.run(bob, "show", path, when=last)
    assert r.exit_code == 2 and "up to the year 8999" in r.output


def test_S11_a_back_dated_comeback_fails_in_the_home_that_was_playing(
        tmp_path: Path) -> None:
    """bob, silent for a month, signs on day 30 an answer dated before ann's proposal, then
    a proposal that ann is absent dated a patience after that answer, its confirm and his
    reveal, all dated in the past. By signed times bob wins (a home with no seat says so).
    ann's home signed her proposal, confirm and reveal after the answer's date and had it
    only on day 30 (pbem.protocol.timekeeping.holdback): there the answer counts from
    day 30, too late to void her removal of bob, and bob's proposal waits a patience after ann had it.
    Every entry bob dated back is shown as late, each one: before, only the last was
    named, each earlier one excused by bob's own later entry."""
    t = Players(tmp_path, "ann", "bob")
    path, won, bob, ann = removed(t)
    answer = t.wrote(bob, "play", path, "roll", when=at(days=7, hours=23))
    against = t.wrote(bob, "absent", answer, ann, "--remedy", "end", when=at(days=15))
    confirmed = t.wrote(bob, "confirm", against, when=at(days=22))
    revealed = t.wrote(bob, "play", confirmed, when=at(days=22, minutes=1))
    assert verify_json(t, None, revealed, at(days=30))["winners"] == [bob]
    data = verify_json(t, ann, revealed, at(days=30))
    assert not data["over"] and not data["winners"] and data["void"]
    assert "The other branch is the game's" in data["void"]
    assert [w["kind"] for w in data["waiting"]] == ["absent", "confirm", "reveal"]
    first = proposal_seq(answer)
    assert [(x["seq"], x["seat"], x["first_seen"]) for x in data["late"]] == [
        (seq, bob, at(days=30)) for seq in range(first, first + 4)]
    shown = t.run(ann, "show", revealed, when=at(days=30)).output
    assert f"Entry {first + 1} (an absent proposal by {bob}) is signed" in shown
    assert verify_json(t, ann, won, at(days=30, minutes=1))["winners"] == [ann]
    listed = json.loads(t.run(ann, "games", "--json", when=at(days=30, minutes=2)).output)
    assert listed["games"][0]["seq"] == proposal_seq(won)


def test_S11_a_turn_signed_without_a_time_is_warned_of_before_an_accept(
        tmp_path: Path) -> None:
    """bob signs his turn without a time (by hand) on day 6: cy's patience then counts
    from ann's turn of day 0, so on day 7 bob proposes cy absent and ann's accept removes
    cy a day after cy got the turn; no entry came 'late', since the turn has no time to
    be late by. ann's vote now warns first (and goes on: the rules allow it)."""
    t = Players(tmp_path, "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    handles = list(t.handles)
    signer = t.status(path)["to_act"]
    named, voter = (handles[(handles.index(signer) + k) % 3] for k in (1, 2))
    save = savefile.read(path)
    turn = next_entry(save, t.home(signer), "turn", ["roll"])
    untimed = forge({k: v for k, v in turn.items() if k not in ("time", "sig")},
                    t.home(signer).load())
    played = write(tmp_path, "untimed.toml", with_entries(save, [*save.entries, untimed]))
    proposal = t.wrote(signer, "absent", str(played), named, "--remedy", "bot",
                       when=at(days=7))
    accepted = t.run(voter, "vote", proposal, "accept", "-o", str(tmp_path / "v.toml"),
                     when=at(days=7, minutes=5))
    assert accepted.exit_code == 0
    text = " ".join(accepted.stderr.split())
    assert (f"Warning: entry {untimed['seq']} (a turn by {signer}), the last before the "
            f"proposal, carries no signed time, so {named}'s patience counts from an "
            "earlier entry") in text
    # With the turn's time signed (in a game of its own), no such warning.
    t = Players(tmp_path / "second", "ann", "bob", "cy")
    path = t.play(t.start("dice-race", "--option", "target=1000"))
    signer = t.status(path)["to_act"]
    named, voter = (handles[(handles.index(signer) + k) % 3] for k in (1, 2))
    played = t.wrote(signer, "play", path, "roll", when=at(days=6))
    assert t.run(voter, "verify", played, when=at(days=6)).exit_code == 0
    proposal = t.wrote(signer, "absent", played, named, "--remedy", "bot", when=at(days=13))
    accepted = t.run(voter, "vote", proposal, "accept", "-o", str(tmp_path / "w.toml"),
                     when=at(days=13, minutes=5))
    assert accepted.exit_code == 0 and "Warning" not in accepted.stderr
