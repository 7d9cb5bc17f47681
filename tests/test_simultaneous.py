"""Simultaneous steps (Game.simultaneous, Game.sealed; docs/protocol-rounds.md): the turns
of a step signed as one round, sealed steps (a round of commitments, then a round of
openings), secrecy before the openings, tamper tests, chance and absence around a step.
The test game is Sealed Bids (tests/support/sealed_bids.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import registry, session
from pbem.cli import main
from pbem.errors import IntegrityError, PbemError, TurnError
from pbem.game import State, queue_chance
from pbem.protocol.crypto.derive import sealed_salt
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.rounds import round_digest, sealed_commitment
from pbem.session import rounds as assembling
from tests.enginekit import (
    greedy_to_the_end,
    play_game,
    relinked,
    seed_of,
    sign_as,
    tick,
    with_entries,
)
from tests.support.sealed_bids import SealedBids


class HostSitsOut(SealedBids):
    """Sealed Bids in which seat 0 never bids: each step is the set of the other seats."""

    info = SealedBids.info._replace(id="host-sits-out", title="Host Sits Out")

    def setup(self, seats: Any, options: dict[str, Any], components: dict[str, Any]) -> State:
        state = super().setup(seats, options, components)
        state["done"][0] = True
        return state

    def _settle(self, state: State) -> None:
        super()._settle(state)
        state["done"][0] = True


class BonusAfterBids(SealedBids):
    """Sealed Bids whose every settled step queues chance (a bonus coin for one seat),
    in the end_turn of the step's last seat: the same whatever order the turns came in."""

    info = SealedBids.info._replace(id="bonus-after-bids", title="Bonus After Bids")

    def _settle(self, state: State) -> None:
        super()._settle(state)
        queue_chance(state, {"kind": "bonus"})

    def resolve(self, state: State, request: dict[str, Any], rng: Any) -> None:
        if request["kind"] == "bonus":
            state["coins"][rng.randbelow(len(state["coins"]))] += 1
        else:
            super().resolve(state, request, rng)


@pytest.fixture(autouse=True)
def variants(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variants above, installed for this module's tests only (the conformance suite
    lists the registered games)."""
    for game in (HostSitsOut(), BonusAfterBids()):
        monkeypatch.setitem(registry._extra, game.info.id, game)


def fresh(save: Save, tmp_path: Path, name: str = "stranger") -> session.Verified:
    return session.verify(save, Home(tmp_path / name))


def at_first_step(homes: dict[str, Home], folder: Path, game: str = "sealed-bids",
                  options: list[str] | None = None) -> Path:
    """Created, joined and started: the save on which the first step's round is signed."""
    return play_game(homes, folder, game=game, options=options, stop_after=4)[-1]


def bid(homes: dict[str, Home], handle: str, path: Path, out: Path,
        moves: list[str] | None = None) -> Path:
    """``handle``'s turn on the save at ``path`` (its bid, or opening its sealed bid)."""
    session.sign_next(homes[handle], path, None, moves or [], None, str(out))
    return out


def one_step(homes: dict[str, Home], path: Path, folder: Path, bids: dict[str, str]) -> Path:
    """Each seat of ``bids`` signs its turn on the save the one before it wrote."""
    for handle, move in bids.items():
        path = bid(homes, handle, path, folder / f"{handle}-{path.stem}.toml", [move])
    return path


# ---- the contract -----------------------------------------------------------------------
def test_the_real_games_declare_no_step() -> None:
    """Backward compatible: the hooks default to sequential, unsealed play."""
    from pbem.play.local import LocalTable

    for name in ("red-dog-junction", "road-master", "station-to-station"):
        game = registry.load(name)
        table = LocalTable(game, ["a", "b", "c"], {}, seed=b"contract")
        table.prepare()
        assert game.simultaneous(table.state) == [] and not game.sealed(table.state)


# ---- a step in the open --------------------------------------------------------------------
def test_an_open_step_is_one_round_and_the_next_entry_follows_its_digest(
        homes: dict[str, Home], tmp_path: Path) -> None:
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    end = one_step(homes, start, tmp_path, {"ann": "bid 2", "bob": "bid 3", "cy": "bid 1"})
    save = savefile.read(end)
    round_entries = save.entries[4:7]
    assert [e["round"] for e in round_entries] == [4, 4, 4]
    assert [e["moves"] for e in round_entries] == [["bid 2"], ["bid 3"], ["bid 1"]]
    assert {e["prev"] for e in round_entries} == {digest(save.entries[3])}
    table = fresh(save, tmp_path).table
    assert table.gstate["last"] == [[2, 3, 1], 1, table.gstate["last"][2]]  # bob won
    nxt = bid(homes, "cy", end, tmp_path / "next.toml", ["bid 0"])
    entry = savefile.read(nxt).entries[-1]
    assert entry["prev"] == round_digest([digest(e) for e in round_entries])
    assert entry["round"] == 7


def test_turns_signed_in_any_order_assemble_to_one_save(homes: dict[str, Home],
                                                         tmp_path: Path) -> None:
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    cy = savefile.read(bid(homes, "cy", start, tmp_path / "cy.toml", ["bid 4"]))
    assert [e["seq"] for e in cy.entries][-1] == 6  # cy's slot, before ann's and bob's
    ann = savefile.read(bid(homes, "ann", start, tmp_path / "ann.toml", ["bid 4"]))
    bob = savefile.read(bid(homes, "bob", start, tmp_path / "bob.toml", ["bid 1"]))
    merged = assembling.assemble([cy, bob, ann])
    assert [e["seat"] for e in merged.entries[4:]] == ["ann", "bob", "cy"]
    table = fresh(merged, tmp_path).table
    assert table.round_first < 0 and table.gstate["last"][:2] == [[4, 1, 4], 0]


def test_each_seat_of_the_step_acts_now(homes: dict[str, Home], tmp_path: Path) -> None:
    start = at_first_step(homes, tmp_path / "s")
    table = session.load(start, homes["ann"]).table
    assert table.round_seats() == [0, 1, 2]
    for seat in range(3):
        duty = table.duty_for(seat)
        assert duty is not None and duty == (seat, "turn")


def test_a_whole_sealed_game_verifies_clean(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", game="sealed-bids", bot="random:3")
    save = savefile.read(paths[-1])
    verified = fresh(save, tmp_path)
    assert verified.report.audit == "clean" and verified.table.duty() is None
    turns = [e for e in save.entries if e["kind"] == "turn"]
    assert len(turns) == 2 * 3 * 3  # three rounds of bids, each sealed then opened
    commits, openings = turns[0::6] + turns[1::6] + turns[2::6], turns[3::6] + turns[4::6]
    assert all("sealed" in e and e["moves"] == [] and "salt" not in e for e in commits)
    assert all("salt" in e and e["moves"] and "sealed" not in e for e in openings)


# ---- sealed steps ----------------------------------------------------------------------------
def sealed_round(homes: dict[str, Home], tmp_path: Path) -> tuple[Path, Path]:
    """The first step's commitments (ann 4, bob 5, cy 2): (the start save, the save after
    the three commitments)."""
    start = at_first_step(homes, tmp_path / "s")
    return start, one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5",
                                                    "cy": "bid 2"})


def test_a_sealed_step_commits_then_opens(homes: dict[str, Home], tmp_path: Path) -> None:
    start, committed = sealed_round(homes, tmp_path)
    save = savefile.read(committed)
    ann_commit = save.entries[4]
    seed = seed_of(homes["ann"], save)
    assert seed is not None
    salt = sealed_salt(seed, save.game_id, 4, bytes.fromhex(ann_commit["beacon"])).hex()
    assert ann_commit["sealed"] == sealed_commitment(save.game_id, 4, ["bid 4"], salt)
    table = fresh(save, tmp_path).table
    assert table.step_kind() == "opening" and table.round_seats() == [0, 1, 2]
    assert table.gstate["round"] == 0 and table.gstate["bids"] == [-1, -1, -1]
    # each home opens what it sealed, playing no moves
    opened = committed
    for handle in ("ann", "bob", "cy"):
        opened = bid(homes, handle, opened, tmp_path / f"open-{handle}.toml")
    final = savefile.read(opened)
    assert [e["moves"] for e in final.entries[7:10]] == [["bid 4"], ["bid 5"], ["bid 2"]]
    assert final.entries[7]["salt"] == salt and final.entries[7]["round"] == 7
    table = fresh(final, tmp_path).table
    assert table.gstate["last"][:2] == [[4, 5, 2], 1] and table.commits == []


def test_an_opening_of_other_moves_is_refused_before_signing(homes: dict[str, Home],
                                                             tmp_path: Path) -> None:
    _, committed = sealed_round(homes, tmp_path)
    with pytest.raises(TurnError, match="not the moves you sealed"):
        bid(homes, "ann", committed, tmp_path / "x.toml", ["bid 3"])
    assert not (tmp_path / "x.toml").exists()


def test_a_home_that_lost_its_sealed_moves_is_told_to_play_them_again(
        homes: dict[str, Home], tmp_path: Path) -> None:
    _, committed = sealed_round(homes, tmp_path)
    for kept in (homes["ann"].path / "sealed").iterdir():
        kept.unlink()
    with pytest.raises(TurnError, match="play the same moves again") as info:
        bid(homes, "ann", committed, tmp_path / "x.toml")
    assert info.value.code == "sealed"
    bid(homes, "ann", committed, tmp_path / "x.toml", ["bid 4"])  # typed again: accepted


SECRET_BIDS = ("bid 4", "bid 5")


def test_no_sealed_bid_is_readable_before_every_seat_committed(homes: dict[str, Home],
                                                               tmp_path: Path) -> None:
    """ann and bob have committed, cy has not: nothing cy (or anyone) reads names their
    bids: the save, show, show --json, log, verify --json, the mail and the views."""
    start = at_first_step(homes, tmp_path / "s")
    two = one_step(homes, start, tmp_path, {"ann": SECRET_BIDS[0], "bob": SECRET_BIDS[1]})
    text = two.read_text("utf-8")
    runner = CliRunner()
    outputs = [text]
    for args in (["show", str(two)], ["show", "--json", str(two)], ["log", str(two)],
                 ["verify", "--json", str(two)]):
        result = runner.invoke(main, ["--home", str(homes["cy"].path), *args])
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.output)
    from pbem.mail import message

    mail = message.compose(two, homes["bob"], to=["cy@example.org"])
    outputs.append("\n".join(str(part.get_content()) for part in mail.walk()
                             if part.get_content_maintype() == "text"))
    assert "It is your move, cy" in outputs[-1]
    table = session.load(two, homes["cy"]).table
    outputs.append(json.dumps(table.game.view(table.gstate, 2)))
    outputs.append(json.dumps(table.game.view(table.gstate, None)))
    for output in outputs:
        for secret in SECRET_BIDS:
            assert secret not in output
        assert '"my_bid"' not in output


# ---- what each home reads ------------------------------------------------------------------
def test_show_and_log_read_a_round_holding_a_later_seat_alone(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    """bob's commitment signed on the start save is entry 5 at place 4 of the file: show
    and log tell it (they read entries by place, not by seq), and say the round is sealed."""
    start = at_first_step(homes, tmp_path / "s")
    bob = bid(homes, "bob", start, tmp_path / "bob.toml", ["bid 4"])
    runner = CliRunner()
    home = ["--home", str(homes["cy"].path)]
    shown = runner.invoke(main, [*home, "show", str(bob)])
    assert shown.exit_code == 0, shown.output
    assert "Round: the turns of ann, bob, cy (sealed: each commits to its moves" in shown.output
    assert "missing: ann, cy" in shown.output
    log = runner.invoke(main, [*home, "log", str(bob)])
    assert log.exit_code == 0, log.output
    assert "bob sealed its moves" in log.output and "bid 4" not in log.output
    report = json.loads(runner.invoke(main, [*home, "verify", "--json", str(bob)]).output)
    assert report["round"] == {"seats": ["ann", "bob", "cy"], "missing": ["ann", "cy"],
                               "proposed": [], "sealed": "sealed",
                               "deck_work": False}


def test_every_seat_of_the_step_is_told_it_plays_now(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", game="sealed-bids", stop_after=3)
    started = session.sign_next(homes["ann"], paths[-1], None, [], None,
                                str(tmp_path / "start.toml"))
    step = started.next_step()
    assert step.startswith("Send it to every other player: the sealed turns of a "
                           "simultaneous step are signed in parallel"), step
    assert "bob, cy still play. You play now too" in step
    for seat, handle in enumerate(("ann", "bob", "cy")):
        turn = session.owed(homes[handle], started.path)
        assert turn.kind == "turn" and turn.seat == seat  # its own seat, not the first


def test_moves_and_auto_answer_are_for_the_seat_that_asks(homes: dict[str, Home],
                                                          tmp_path: Path) -> None:
    """In a step's round every seat acts: 'moves' lists the asker's choices and the auto
    answer decides nothing for it (bob has 1 coin left and cy none: cy's only bid is
    forced, bob's is a choice)."""
    from pbem.mail import answer

    start = at_first_step(homes, tmp_path / "s", options=["open=true", "purse=1"])
    end = one_step(homes, start, tmp_path, {"ann": "bid 0", "bob": "bid 0", "cy": "bid 1"})
    assert session.load(end, homes["ann"]).table.gstate["coins"] == [1, 1, 0]
    assert answer.nothing_to_decide(homes["cy"], end) == ("forced: bid 0", ["bid 0"])
    assert answer.nothing_to_decide(homes["bob"], end) is None
    runner = CliRunner()
    listed = runner.invoke(main, ["--home", str(homes["cy"].path), "moves", str(end)])
    assert listed.exit_code == 0 and listed.output.split("\n")[0] == "bid 0"
    assert "bid 1" not in listed.output


def test_inbox_assembles_the_turns_it_reads(homes: dict[str, Home], tmp_path: Path) -> None:
    from pbem.mail import inbox

    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    saves = [bid(homes, handle, start, tmp_path / f"{handle}.toml", ["bid 1"])
             for handle in ("cy", "ann", "bob")]
    (summary,) = inbox.scan(saves, homes["ann"]).games
    assert summary.filed.endswith("-ann+bob+cy.toml") and summary.your_move
    table = fresh(savefile.read(summary.filed), tmp_path).table
    assert table.gstate["round"] == 1 and table.round_first < 0


def test_the_clock_after_a_round_starts_at_its_latest_entry(homes: dict[str, Home],
                                                            tmp_path: Path) -> None:
    """The turns of a round start nobody's clock; the entry that completes it starts the
    next seat's at the latest signed time of the round, whichever slot holds it."""
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    tick(days=1)
    late = [savefile.read(bid(homes, h, start, tmp_path / f"{h}.toml", ["bid 1"]))
            for h in ("bob", "cy")]
    assert session.load(tmp_path / "cy.toml", homes["cy"]).table.since == \
        savefile.read(start).entries[-1]["time"]
    tick(days=1)
    ann = savefile.read(bid(homes, "ann", start, tmp_path / "ann.toml", ["bid 1"]))
    table = fresh(assembling.assemble([*late, ann]), tmp_path).table
    assert table.round_first < 0 and table.since == ann.entries[-1]["time"]


# ---- tampering ---------------------------------------------------------------------------
def refused(save: Save, bodies: list[dict[str, Any]], homes: dict[str, Home]) -> PbemError:
    forged = with_entries(save, relinked(save.header, bodies, homes))
    with pytest.raises(PbemError) as info:
        engine.replay(forged, check_snapshot=False)
    return info.value


def test_a_turn_in_the_round_by_a_seat_not_in_the_step_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    start = at_first_step(homes, tmp_path / "s", game="host-sits-out", options=["open=true"])
    save = savefile.read(bid(homes, "bob", start, tmp_path / "bob.toml", ["bid 1"]))
    assert save.entries[-1]["round"] == 4 and save.entries[-1]["seq"] == 4  # bob: place 0
    bodies = copy.deepcopy(save.entries)
    host = {**bodies[-1], "seat": "ann", "seq": 5, "moves": ["bid 1"]}
    host["beacon"] = engine_link(save, homes["ann"])
    error = refused(save, [*bodies, host], homes)
    assert error.code == "round" and "ann is not one of its seats" in error.message


def engine_link(save: Save, home: Home) -> str:
    """The next beacon link of ``home``'s seat in ``save`` (a forger knows its own)."""
    from pbem.protocol.replay import signing

    table = engine.replay(save, check_snapshot=False, audit_secrets=False).table
    identity = home.load()
    seat = table.seat_of(identity.handle)
    assert seat is not None
    return signing.next_link(table, seat, identity).hex()


def test_a_seat_twice_in_one_round_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    save = savefile.read(one_step(homes, start, tmp_path, {"ann": "bid 1", "bob": "bid 1"}))
    bodies = copy.deepcopy(save.entries)
    again = {**bodies[-1], "seq": 6, "moves": ["bid 0"], "beacon": engine_link(save, homes["bob"])}
    error = refused(save, [*bodies, again], homes)
    assert error.code == "round" and "bob has signed in it already" in error.message


def _no_round(body: dict[str, Any]) -> None:
    del body["round"]


@pytest.mark.parametrize(("change", "code"), [
    (_no_round, "round"),  # a turn of the step signed outside its round
    (lambda body: body.update(sealed="00" * 32), "sealed"),  # sealed, in an open step
    (lambda body: body.update(bot=[{"seat": "bob", "moves": ["bid 0"]}]), "bot-move"),
])
def test_an_altered_turn_of_an_open_step_is_refused(homes: dict[str, Home], tmp_path: Path,
                                                    change: Any, code: str) -> None:
    start = at_first_step(homes, tmp_path / "s", options=["open=true"])
    save = savefile.read(bid(homes, "ann", start, tmp_path / "ann.toml", ["bid 1"]))
    bodies = copy.deepcopy(save.entries)
    change(bodies[-1])
    assert refused(save, bodies, homes).code == code


def test_moves_in_a_sealed_entry_are_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    start, committed = sealed_round(homes, tmp_path)
    save = savefile.read(committed)
    bodies = copy.deepcopy(save.entries)
    bodies[5]["moves"] = ["bid 5"]  # bob's bid in the clear beside its commitment
    error = refused(save, bodies, homes)
    assert isinstance(error, TurnError) and error.code == "sealed"
    del bodies[5]["sealed"]  # ...or instead of it
    error = refused(save, bodies, homes)
    assert isinstance(error, TurnError) and error.code == "sealed"


def test_an_opening_before_every_seat_committed_is_refused(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    start, committed = sealed_round(homes, tmp_path)
    save = savefile.read(committed)
    seed = seed_of(homes["cy"], save)
    assert seed is not None
    bodies = copy.deepcopy(save.entries)
    cy = bodies[6]
    del cy["sealed"]
    cy.update(moves=["bid 2"],
              salt=sealed_salt(seed, save.game_id, 6, bytes.fromhex(cy["beacon"])).hex())
    error = refused(save, bodies, homes)
    assert isinstance(error, TurnError) and error.code == "sealed"
    assert "only once every seat of the step has committed" in error.message


def test_an_opening_that_does_not_match_its_commitment_is_refused(
        homes: dict[str, Home], tmp_path: Path) -> None:
    _, committed = sealed_round(homes, tmp_path)
    opened = bid(homes, "ann", committed, tmp_path / "open.toml")
    save = savefile.read(opened)
    bodies = copy.deepcopy(save.entries)
    bodies[-1]["moves"] = ["bid 0"]  # ann sealed 4 and would rather have bid 0
    error = refused(save, bodies, homes)
    assert isinstance(error, IntegrityError) and error.code == "sealed"
    assert "do not match the commitment ann signed in entry 4" in error.message
    bodies[-1]["moves"] = ["bid 4"]
    del bodies[-1]["salt"]  # the right moves without their salt
    error = refused(save, bodies, homes)
    assert error.code == "sealed"


def test_the_audit_names_a_seat_whose_opening_published_a_salt_of_its_own(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """bob seals his bid under a salt he chose (a fixed one others may know, so his bid
    was readable before it opened) instead of the one his seed derives: the engine can
    only check that it opens the commitment, and the audit, once his seed is public,
    names him and the entries."""
    paths = play_game(homes, tmp_path / "s", game="sealed-bids", options=["rounds=1"],
                      bot="random:3")
    save = savefile.read(paths[-1])
    assert fresh(save, tmp_path).report.audit == "clean"
    bodies = copy.deepcopy(save.entries)
    commit, opening = bodies[5], bodies[8]
    assert commit["seat"] == opening["seat"] == "bob" and "sealed" in commit
    chosen = "ab" * 32
    commit["sealed"] = sealed_commitment(save.game_id, 5, opening["moves"], chosen)
    opening["salt"] = chosen
    forged = with_entries(save, relinked(save.header, bodies, homes))
    report = fresh(forged, tmp_path, "other").report
    assert report.audit == [
        "bob: the salt bob published in entry 8, opening the moves sealed in entry 5, is "
        "not the one derived from bob's revealed seed: bob chose it, so others may have "
        "known it, and the moves it hid, before they were opened."]
    written = tmp_path / "forged.toml"
    written.write_text(savefile.dumps(forged), "utf-8")
    shown = CliRunner().invoke(main, ["--home", str(tmp_path / "other"), "verify",
                                      str(written)])
    assert shown.exit_code == 3
    assert ("AUDIT FAILED: bob: the salt bob published in entry 8, opening the moves "
            "sealed in entry 5, is not the one derived from bob's revealed seed: bob chose "
            "it, so others may have known it, and the moves it hid, before they were "
            "opened.\n") in shown.output


# ---- chance around a step ------------------------------------------------------------------
def test_chance_queued_in_a_round_waits_and_the_next_step_waits_for_it(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A round's entries resolve no chance: the bonus the step queued (in cy's entry, the
    last in seat order) is pending after it; with chance pending the next step is no
    round: ann's turn, an ordinary entry, resolves it, and then bob and cy, still to act,
    form a round (docs/protocol-rounds.md)."""
    start = at_first_step(homes, tmp_path / "s", game="bonus-after-bids", options=["open=true"])
    end = one_step(homes, start, tmp_path, {"cy": "bid 1", "ann": "bid 1", "bob": "bid 1"})
    table = fresh(savefile.read(end), tmp_path).table
    assert [r["seq"] for r in table.gstate["pending"]] == [6]
    assert table.round_seats() == []  # chance pending: no round
    ann = bid(homes, "ann", end, tmp_path / "ann2.toml", ["bid 0"])
    entry = savefile.read(ann).entries[-1]
    assert "round" not in entry and entry["seq"] == 7
    table = fresh(savefile.read(ann), tmp_path / "a").table
    assert table.gstate["pending"] == [] and sum(table.gstate["coins"]) == 3 * 6 - 1 + 1
    assert table.round_seats() == [1, 2]
    bob = savefile.read(bid(homes, "bob", ann, tmp_path / "bob2.toml", ["bid 0"])).entries[-1]
    assert bob["round"] == 8 and bob["seq"] == 8


def test_chance_pending_ahead_of_a_sealed_step_is_resolved_before_its_commitments(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """The bonus cy's opening queued is pending when the next (sealed) step comes. Were
    the step a round now, the first entry after its rounds would resolve the bonus, and
    its signer, whose own next beacon link draws it, would know it while committing, the
    others not. So ann first signs an entry that resolves it and carries no moves (nor
    anything sealed); then the three commit in a round, each knowing the bonus."""
    start = at_first_step(homes, tmp_path / "s", game="bonus-after-bids")
    committed = one_step(homes, start, tmp_path, {"ann": "bid 1", "bob": "bid 1",
                                                  "cy": "bid 1"})
    opened = committed
    for handle in ("ann", "bob", "cy"):
        opened = bid(homes, handle, opened, tmp_path / f"open-{handle}.toml")
    table = fresh(savefile.read(opened), tmp_path).table
    assert [r["seq"] for r in table.gstate["pending"]] == [9]
    assert table.round_seats() == [] and table.duty() == (0, "turn")
    resolved = bid(homes, "ann", opened, tmp_path / "resolved.toml")
    entry = savefile.read(resolved).entries[-1]
    assert entry["seq"] == 10 and entry["moves"] == [] and "round" not in entry
    assert "sealed" not in entry and "salt" not in entry
    table = fresh(savefile.read(resolved), tmp_path / "r").table
    assert table.gstate["pending"] == [] and table.round_seats() == [0, 1, 2]
    assert table.step_kind() == "sealed"
    nxt = savefile.read(bid(homes, "bob", resolved, tmp_path / "next.toml", ["bid 0"]))
    assert "sealed" in nxt.entries[-1] and nxt.entries[-1]["round"] == 11


def test_a_sealed_round_signed_with_chance_pending_is_refused(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    """The attack the entry above prevents: ann commits in a round while the bonus is
    still pending (her own next link would draw it after the rounds), or plays her bid
    in the entry that resolves it: both refused (code round)."""
    start = at_first_step(homes, tmp_path / "s", game="bonus-after-bids")
    opened = one_step(homes, start, tmp_path, {"ann": "bid 1", "bob": "bid 1", "cy": "bid 1"})
    for handle in ("ann", "bob", "cy"):
        opened = bid(homes, handle, opened, tmp_path / f"open-{handle}.toml")
    save = savefile.read(opened)
    salt = "ab" * 32  # any: nothing here gets as far as an opening
    commit = {"seq": 10, "game": save.game_id, "seat": "ann", "kind": "turn", "moves": [],
              "chores": [], "time": save.entries[-1]["time"], "round": 10,
              "beacon": engine_link(save, homes["ann"]),
              "sealed": sealed_commitment(save.game_id, 10, ["bid 0"], salt)}
    bodies = copy.deepcopy(save.entries)
    assert refused(save, [*bodies, commit], homes).code == "round"
    in_open = {k: v for k, v in commit.items() if k not in ("round", "sealed")}
    assert refused(save, [*bodies, {**in_open, "moves": ["bid 0"]}], homes).code == "round"


# ---- absence in a step -------------------------------------------------------------------
def test_a_withholder_of_a_sealed_step_stays_removable(homes: dict[str, Home],
                                                       tmp_path: Path) -> None:
    """cy never commits: its patience counts from the entry before the round (the others'
    commitments do not restart it), and ann proposes cy absent in cy's slot, which
    completes the round; bob's vote and the remedy follow."""
    start = at_first_step(homes, tmp_path / "s")
    before = savefile.read(start).entries[-1]["time"]
    tick(days=6)
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"})
    table = session.load(two, homes["ann"]).table
    assert table.since == before and table.round_missing() == [2]
    with pytest.raises(TurnError, match="patience"):
        from pbem.session import absentees

        absentees.sign_absence(homes["ann"], two, "absent", {"player": "cy", "remedy": "end"},
                               None)
    proposal = sign_as(homes["ann"], two, "absent", player="cy", remedy="end")  # 14 days on
    entry = proposal.entry
    assert entry["round"] == 4 and entry["seq"] == 6
    assert entry["prev"] == savefile.read(two).entries[-1]["prev"]
    table = proposal.table
    assert table.round_first < 0 and table.proposal["player"] == 2
    voted = sign_as(homes["bob"], proposal.path, "vote", vote="accept")
    report = fresh(voted.save, tmp_path).report
    assert report.table.dropped == [2] and report.table.stopped
    duty = report.table.duty()
    assert duty is not None and duty.kind == "reveal"


def test_a_withholder_of_its_opening_stays_removable(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    """Every seat committed; ann and bob opened, cy withholds its opening having seen
    theirs: proposed absent in its slot of the opening round (it gains only delay)."""
    _, committed = sealed_round(homes, tmp_path)
    opened = committed
    for handle in ("ann", "bob"):
        opened = bid(homes, handle, opened, tmp_path / f"open-{handle}.toml")
    proposal = sign_as(homes["ann"], opened, "absent", player="cy", remedy="bot")
    assert proposal.entry["round"] == 7 and proposal.entry["seq"] == 9
    voted = sign_as(homes["bob"], proposal.path, "vote", vote="accept")
    table = fresh(voted.save, tmp_path).table
    assert table.bots == [2] and table.commits == []  # cy's commitment is void
    nxt = session.sign_next(homes["ann"], voted.path, None, [], "greedy", None)
    assert nxt.entry.get("bot")  # the bot plays cy's bid in the open, in ann's entry


def test_a_seat_played_by_the_bot_plays_its_sealed_step_after_the_others(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """cy never commits and is replaced by the bot: ann and bob go on sealing and opening
    their bids in rounds (never a bid in the open before both committed), and cy's bid is
    played by the bot after the openings, in an entry of ann's that plays the bot's turn
    only; the game goes on to its end and verifies."""
    start = at_first_step(homes, tmp_path / "s")
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"})
    proposal = sign_as(homes["ann"], two, "absent", player="cy", remedy="bot")
    voted = sign_as(homes["bob"], proposal.path, "vote", vote="accept")
    path = voted.path
    path = greedy_to_the_end(homes, path)
    save = savefile.read(path)
    later = [e for e in save.entries[len(voted.save.entries):] if e["kind"] == "turn"]
    assert all("sealed" in e or "salt" in e or (e.get("bot") and e["moves"] == [])
               for e in later)
    # cy's bid in each of the 3 rounds; the last one ends the game, in ann's reveal
    assert [e["kind"] for e in save.entries if e.get("bot")] == ["turn", "turn", "reveal"]
    report = fresh(save, tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None


def four_homes(tmp_path: Path) -> dict[str, Home]:
    made = {}
    for handle in ("ann", "bob", "cy", "dan"):
        home = Home(tmp_path / "homes4" / handle)
        home.keygen(handle)
        made[handle] = home
    return made


def two_withheld(homes: dict[str, Home], tmp_path: Path, kind: str = "sealed"
                 ) -> session.Written:
    """A sealed step of four seats in which cy and dan never commit: ann fills both
    their slots with proposals (remedy bot), completing the round. ``kind`` "open": a
    step in the open instead (cy and dan never bid); "opening": all four committed, and
    cy and dan never open."""
    options = ["open=true"] if kind == "open" else None
    start = play_game(homes, tmp_path / "s", game="sealed-bids", options=options,
                      stop_after=5)[-1]
    two = one_step(homes, start, tmp_path, {"ann": "bid 4", "bob": "bid 5"} if
                   kind != "opening" else {"ann": "bid 4", "bob": "bid 5", "cy": "bid 2",
                                           "dan": "bid 1"})
    if kind == "opening":
        (tmp_path / "open").mkdir()
        for handle in ("ann", "bob"):
            two = bid(homes, handle, two, tmp_path / "open" / f"{handle}.toml")
    first = sign_as(homes["ann"], two, "absent", player="cy", remedy="bot")
    assert first.table.round_missing() == [3]  # the round waits for dan's slot
    return sign_as(homes["ann"], first.path, "absent", player="dan", remedy="bot")


def test_two_withholders_of_a_sealed_step_are_removed_one_after_another(
        tmp_path: Path) -> None:
    """Both proposals stand in the round's slots; once it is complete cy's opens, with
    bob (neither proposed nor the proposer) its only voter, and dan's waits in the queue
    behind it; each acceptance puts its remedy into effect and the game plays on to its
    end with both seats played by the bot."""
    homes = four_homes(tmp_path)
    second = two_withheld(homes, tmp_path)
    table = second.table
    assert table.round_first < 0 and table.proposal["player"] == 2
    assert table.proposal["voters"] == [1] and [p["player"] for p in table.queue] == [3]
    one = sign_as(homes["bob"], second.path, "vote", vote="accept")
    assert one.table.bots == [2] and one.table.proposal["player"] == 3
    both = sign_as(homes["bob"], one.path, "vote", vote="accept")
    assert both.table.bots == [2, 3] and not both.table.queue
    path = both.path
    path = greedy_to_the_end(homes, path)
    report = fresh(savefile.read(path), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None


def test_a_queued_withholder_of_a_step_answers_with_its_turn(tmp_path: Path) -> None:
    """dan, whose proposal waits behind cy's, plays its turn of the step on top of the
    save: that voids dan's proposal only, and cy's stays open for bob's vote. The step
    is sealed and others committed, so dan's turn is a commitment too (nothing in the
    open before every seat committed); once cy's proposal is settled, the three open."""
    homes = four_homes(tmp_path)
    second = two_withheld(homes, tmp_path)
    answer = session.sign_next(homes["dan"], second.path, None, ["bid 2"], None, None)
    table = answer.table
    assert table.proposal["player"] == 2 and table.queue == []
    assert answer.entry["kind"] == "turn" and answer.entry["moves"] == []
    assert "sealed" in answer.entry and "round" not in answer.entry
    voted = sign_as(homes["bob"], answer.path, "vote", vote="accept")
    assert voted.table.bots == [2] and not voted.table.proposal
    assert voted.table.round_seats() == [0, 1, 3] and voted.table.step_kind() == "opening"


@pytest.mark.parametrize("first", ["cy", "dan"])
@pytest.mark.parametrize("kind", ["open", "sealed", "opening"])
def test_withholders_of_a_step_answer_in_any_order(kind: str, first: str,
                                                   tmp_path: Path) -> None:
    """cy's proposal is open, dan's queued behind it; either answers first with its turn
    of the step (in the open, its commitment, or its opening: docs/protocol-rounds.md, in
    any order among the withholders), voiding its own proposal only; the other answers
    next, and the game plays on to its end with nobody played by the bot."""
    homes = four_homes(tmp_path)
    path = two_withheld(homes, tmp_path, kind).path
    second = "dan" if first == "cy" else "cy"
    for who, left in ((first, second), (second, None)):
        moves = [] if kind == "opening" else [{"cy": "bid 2", "dan": "bid 1"}[who]]
        answer = session.sign_next(homes[who], path, None, moves, None, None)
        assert answer.entry["kind"] == "turn" and "round" not in answer.entry
        assert ("sealed" in answer.entry) == (kind == "sealed")
        table, path = answer.table, answer.path
        assert table.proposal.get("player") == (None if left is None else
                                                 ["ann", "bob", "cy", "dan"].index(left))
        assert table.queue == []
    report = fresh(savefile.read(greedy_to_the_end(homes, path)), tmp_path).report
    assert report.audit == "clean" and report.table.duty() is None
    assert not report.table.bots and not report.table.dropped


# ---- the spec's vectors ---------------------------------------------------------------------
VECTOR_GAME = "00112233445566778899aabbccddeeff"


def test_sealed_commitment_vectors_match_the_docs() -> None:
    salt = "ab" * 32
    assert canonical(["pbem/2/sealed", VECTOR_GAME, 4, ["bid 4"], salt]) == (
        b'["pbem/2/sealed","' + VECTOR_GAME.encode() + b'",4,["bid 4"],"' + salt.encode()
        + b'"]')
    text = Path(__file__).resolve().parents[1].joinpath("docs", "protocol-rounds.md"
                                                        ).read_text("utf-8")
    assert sealed_commitment(VECTOR_GAME, 4, ["bid 4"], salt) in text
    assert sealed_commitment(VECTOR_GAME, 17, [], "00" * 32) in text
    assert sealed_salt(b"\x01" * 32, VECTOR_GAME, 4, b"\x22" * 32).hex() in text
