"""A link is published once (PROTOCOL.md section 5; docs/protocol-beacon.md), attacked
through the command line as a returning player would: each home records every place of
its beacon chains it published in a game, on any branch, and never signs two entries
there; only entries in the order of play carry links, and a verifier accepts exactly the
next link, or a skip with evidence of a branch an answer voided (format pbem/2)."""

from __future__ import annotations

import contextlib
import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.errors import IntegrityError, TurnError
from pbem.home.archive import Archive
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge

HANDLES = ("ann", "bob", "cy")


class Players:
    """Three homes playing dice-race through the CLI, one folder of saves."""

    def __init__(self, root: Path, handles: tuple[str, ...] = HANDLES,
                 patience_clock: bool = True) -> None:
        self.root = root
        self.handles = handles
        self.runner = CliRunner()
        self.saves = root / "saves"
        self.saves.mkdir(parents=True)
        self.count = 0
        # The clock every command runs at (PBEM_CLOCK): a proposal moves it on past the
        # game's patience (PROTOCOL.md section 11), and every later command follows.
        self.clock = datetime.datetime(2025, 6, 2, 10, 0, 0, tzinfo=datetime.UTC)
        self.patience_clock = patience_clock
        for handle in handles:
            assert self.run(handle, "keygen", "--name", handle).exit_code == 0

    def home(self, handle: str) -> Home:
        return Home(self.root / "homes" / handle)

    def run(self, handle: str | None, *args: str, env: dict[str, str] | None = None) -> Any:
        home = self.root / "homes" / (handle or "nobody")
        if env is None and self.patience_clock:
            if "absent" in args[:1] and "--remedy" in args:
                self.clock += datetime.timedelta(days=8)
            env = {"PBEM_CLOCK": self.clock.strftime("%Y-%m-%dT%H:%M:%SZ")}
        result = self.runner.invoke(main, ["--home", str(home), *args], env=env)
        assert "Traceback" not in result.output and "internal error" not in result.output
        return result

    def wrote(self, handle: str, *args: str, env: dict[str, str] | None = None) -> Path:
        self.count += 1
        result = self.run(handle, *args, "-o", str(self.saves / f"{self.count:04d}.toml"),
                          env=env)
        assert result.exit_code == 0, result.output
        return self.saves / f"{self.count:04d}.toml"

    def answer(self, handle: str, path: Path, *moves: str) -> Path:
        """``handle``'s turn on ``path``, the save before a proposal against it, signed a
        minute before that proposal: the answer that voids it (PROTOCOL.md section 11)."""
        earlier = self.clock - datetime.timedelta(minutes=1)
        return self.wrote(handle, "play", str(path), *moves,
                          env={"PBEM_CLOCK": earlier.strftime("%Y-%m-%dT%H:%M:%SZ")})

    def start(self, *options: str) -> Path:
        seats = [a for h in self.handles for a in ("--seat", h)]
        opts = [a for o in (options or ("target=1000",)) for a in ("--option", o)]
        path = self.wrote(self.handles[0], "new", "dice-race", *seats, *opts)
        for handle in self.handles[1:]:
            path = self.wrote(handle, "join", str(path))
        return self.wrote(self.handles[0], "play", str(path))

    def to_act(self, path: Path) -> str:
        return str(json.loads(self.run(None, "verify", str(path), "--json").output)["to_act"])

    def play(self, path: Path, *moves: str) -> Path:
        """The next entry, by whoever owes it: ``moves`` (default a roll) for a turn."""
        now = json.loads(self.run(None, "verify", str(path), "--json").output)
        if now["next"] != "turn":
            moves = ()
        elif not moves:
            moves = ("roll",)
        return self.wrote(now["to_act"], "play", str(path), *moves)

    def until(self, path: Path, handle: str) -> Path:
        while self.to_act(path) != handle:
            path = self.play(path)
        return path


def entry(path: Path, index: int = -1) -> dict[str, Any]:
    return savefile.read(path).entries[index]


def test_the_branch_trick_never_sees_a_link_twice(tmp_path: Path) -> None:
    """Issue 21, finding 1, as pbem/2 answers it. cy proposes bob absent: the proposal,
    signed out of the order of play, publishes no link. bob comes back on the save before
    it and plays a roll that cy's next entry resolves, with exactly cy's next link, which
    nobody has seen."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    assert "beacon" not in entry(proposal)
    back = game.answer("bob", base, "roll")  # the branch before the proposal
    game.run("cy", "verify", str(back))  # cy's home learns of bob's branch
    assert game.to_act(back) == "cy"
    answered = game.wrote("cy", "play", str(back), "pass")
    signed = entry(answered)
    previous = next(e for e in reversed(savefile.read(base).entries)
                    if e["seat"] == "cy" and "beacon" in e)
    assert beacon.follows(bytes.fromhex(signed["beacon"]), bytes.fromhex(previous["beacon"]))
    assert "evidence" not in signed
    assert game.run(None, "verify", str(answered)).exit_code == 0


def test_a_vote_cut_behind_the_game_publishes_no_link(tmp_path: Path) -> None:
    """The same for a vote: ann votes on the proposal (no link), bob comes back before
    it; ann's next entry on bob's branch takes ann's next link."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    voted = game.wrote("ann", "vote", str(proposal), "accept")
    assert "beacon" not in entry(voted)
    back = game.answer("bob", base, "roll")
    on = game.wrote("cy", "play", str(back), "roll")
    game.run("ann", "verify", str(voted))
    mine = game.wrote("ann", "play", str(on), "roll")
    previous = next(e for e in reversed(savefile.read(base).entries) if e["seat"] == "ann")
    assert beacon.follows(bytes.fromhex(entry(mine)["beacon"]),
                          bytes.fromhex(previous["beacon"]))
    assert game.run(None, "verify", str(mine)).exit_code == 0


def forged_link(game: Players, tmp_path: Path, path: Path, down: int) -> Any:
    """Verify the save at ``path`` with its last entry re-signed by its seat with the link
    ``down`` places below its previous one."""
    save = savefile.read(path)
    table = engine.replay(savefile.Save(save.header, save.entries[:-1], {}),
                          check_snapshot=False).table
    last = save.entries[-1]
    seat = table.seat_of(last["seat"])
    assert seat is not None
    identity = game.home(last["seat"]).load()
    seed = signing.seat_seed(table, seat, identity)
    forged = dict(last)
    forged["beacon"] = beacon.published(seed, table.seats[seat].depth + down).hex()
    forged = forge(forged, identity)
    target = tmp_path / f"down{down}.toml"
    cheat = savefile.Save(save.header, save.entries[:-1] + [forged], save.state)
    with contextlib.suppress(IntegrityError):  # the [state] the forged link gives, if any
        cheat.state = engine.public_state(engine.replay(cheat, check_snapshot=False).table)
    target.write_text(savefile.dumps(cheat), "utf-8")
    return game.run(f"verifier{down}", "verify", str(target))  # a home that saw no other


def test_a_bare_skip_of_links_is_refused(tmp_path: Path) -> None:
    """No skips (PROTOCOL.md section 5): a hand-signed entry with its seat's link 2 places
    down is refused (exit 3, code beacon), so nobody picks among links for the chance its
    entry resolves; the next link, 1 place down, is what verify accepts."""
    game = Players(tmp_path)
    path = game.play(game.until(game.start(), "bob"))
    assert forged_link(game, tmp_path, path, 1).exit_code == 0
    for down in (2, 3, 65):
        result = forged_link(game, tmp_path, path, down)
        assert result.exit_code == 3, result.output
        assert "not the next link of the seat's chain" in result.output
    refused = json.loads(game.run("fresh", "verify", str(tmp_path / "down2.toml"),
                                  "--json").output)
    assert [e["code"] for e in refused["errors"]] == ["beacon"], refused


def test_the_host_cannot_pick_its_start_link(tmp_path: Path) -> None:
    """The review's second attack: the host signs ``start`` with a link further down its
    chain to pick the first player. Only its first link is accepted."""
    game = Players(tmp_path)
    started = game.start()
    assert entry(started)["kind"] == "start"
    assert forged_link(game, tmp_path, started, 1).exit_code == 0
    for down in (2, 9, 64):
        picked = forged_link(game, tmp_path, started, down)
        assert picked.exit_code == 3 and "no link may be skipped" in picked.output


def test_undo_still_signs_the_same_link(tmp_path: Path) -> None:
    """PROTOCOL.md section 10: the replacement of an entry taken back (never sent) has the
    same beacon link; the home's record of published places gives it back."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    first = game.wrote("bob", "play", str(base), "roll")
    link = entry(first)["beacon"]
    assert game.run("bob", "undo", str(first)).exit_code == 0
    again = game.wrote("bob", "play", str(base), "pass")
    assert entry(again)["beacon"] == link and entry(again)["moves"] == ["pass"]


def test_a_link_published_on_another_branch_is_never_signed_again(tmp_path: Path) -> None:
    """A home that played in turn on another branch since a save cannot sign in turn on
    it (its next link is published there): exit 1, nothing written, and it is told to play
    on the branch that holds its entry. An entry out of the order of play carries no link,
    so it is not refused for that."""
    game = Players(tmp_path, ("ann", "bob"))
    base = game.until(game.start(), "bob")
    game.wrote("bob", "play", str(base), "roll")
    before = sorted(game.saves.iterdir())
    home = game.home("bob")
    table = engine.replay(savefile.read(base)).table
    seat = table.seat_of("bob")
    assert seat is not None
    used = Archive(home.archive_dir, table.game_id).published("bob")
    with pytest.raises(TurnError) as refused:
        signing.sign_entry(table, home.load(), "turn", ["roll"], used=used)
    assert refused.value.code == "branch-behind"
    assert "the game goes on with the branch that holds your entry" in str(refused.value)
    result = game.run("bob", "play", str(base), "pass", "-o", str(tmp_path / "x.toml"))
    assert result.exit_code == 1, result.output
    assert sorted(game.saves.iterdir()) == before and not (tmp_path / "x.toml").exists()


# ---- the seed is revealed on one branch only ------------------------------------------------
def status(game: Players, path: Path) -> dict[str, Any]:
    return dict(json.loads(game.run(None, "verify", str(path), "--json").output))


def test_no_reveal_on_a_branch_cut_behind_the_game(tmp_path: Path) -> None:
    """Issue 21, finding 1, second half. The game went on after bob came back (ann and
    cy played on his branch); ann then tries to vote on cy's old proposal that bob is
    absent, cut behind the game, which would end the game there and have her reveal a
    seed still in use where the game goes on. bob's answer is signed before the
    proposal, so the proposal's branch is void (PROTOCOL.md section 11): the vote is
    refused, exit 1, nothing written, and the main line goes on."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    main_line = game.play(game.play(game.answer("bob", base, "roll")))
    game.run("ann", "verify", str(proposal))
    game.run("cy", "verify", str(main_line))
    before = sorted(game.saves.iterdir())
    refused = game.run("ann", "vote", str(proposal), "accept", "-o", str(tmp_path / "v.toml"))
    assert refused.exit_code == 1, refused.output
    assert "The other branch is the game's" in refused.output
    assert "bob's turn is signed earlier" in refused.output
    assert not (tmp_path / "v.toml").exists() and sorted(game.saves.iterdir()) == before
    on = game.play(main_line)
    assert game.run(None, "verify", str(on)).exit_code == 0


def test_a_branch_played_on_leaves_the_other_and_the_game_ends_cleanly(tmp_path: Path) -> None:
    """The honest path: bob comes back before cy's proposal and ann's vote; cy and ann play
    on his branch (each leaves the proposal's branch by playing), the game ends there and
    every seat reveals; the audit is clean."""
    game = Players(tmp_path)
    base = game.until(game.start("target=1000", "turns=9"), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    voted_on = game.run("ann", "verify", str(proposal))
    assert voted_on.exit_code == 0
    path = game.answer("bob", base, "roll")
    for _ in range(40):
        if not status(game, path)["to_act"]:
            break
        path = game.play(path)
    final = status(game, path)
    assert not final["to_act"] and final["audit"] == "clean", final


def test_an_answer_that_voids_a_branch_skips_on_evidence(tmp_path: Path) -> None:
    """The one skip (PROTOCOL.md section 5): cy proposes bob absent with remedy bot, ann
    accepts, cy plays bob's turn for the bot and its own in turn (publishing its next
    link there). bob answers on the save before the proposal, which voids that branch.
    cy's next entry on bob's branch skips exactly the link it published there and carries
    the voided branch as evidence; every verifier accepts it and verify names the skip.
    Stripped of its evidence, or with the evidence cut short, it is refused (exit 3)."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "bot")
    voted = game.wrote("ann", "vote", str(proposal), "accept")
    assert game.to_act(voted) == "cy"
    voided = game.wrote("cy", "play", str(voted), "roll")
    assert entry(voided).get("bot") and "beacon" in entry(voided)
    back = game.answer("bob", base, "roll")
    game.run("cy", "verify", str(back))
    answered = game.wrote("cy", "play", str(back), "pass")
    signed = entry(answered)
    carried = signed["evidence"]
    assert [e["kind"] for e in carried] == ["absent", "vote", "turn"]
    assert carried[-1]["beacon"] == entry(voided)["beacon"]
    assert beacon.follows(bytes.fromhex(signed["beacon"]), bytes.fromhex(carried[-1]["beacon"]))
    shown = game.run(None, "verify", str(answered))
    assert shown.exit_code == 0, shown.output
    assert f"Entry {signed['seq']} (cy) skips 1 link of cy's beacon chain" in shown.output
    assert "skips" not in game.run(None, "verify", str(back)).output
    save = savefile.read(answered)
    cy = game.home("cy").load()
    # A branch cy made up alone: its proposal, then its own turn straight on (no vote: not
    # a valid branch of the game), chained and signed by cy. Refused: the verifier replays
    # the rules of the branch the evidence carries.
    alone = dict(carried[-1], seq=carried[0]["seq"] + 1, prev=engine.entry_hash(carried[0]))
    made_up = [carried[0], forge(alone, cy)]
    for number, bad in enumerate(([], carried[:-1], carried[1:], made_up)):
        forged = {k: v for k, v in signed.items() if k != "evidence"}
        if bad:
            forged["evidence"] = bad
        target = tmp_path / f"bad{number}.toml"
        target.write_text(savefile.dumps(savefile.Save(
            save.header, save.entries[:-1] + [forge(forged, cy)], save.state)), "utf-8")
        result = game.run(f"verifier{number}", "verify", str(target))
        assert result.exit_code == 3, result.output
        assert "skips beacon links" in result.output or "next link" in result.output
    assert "not a valid branch of this game" in result.output, result.output


def honest_skip(game: Players) -> tuple[Path, Path]:
    """(cy's proposal that bob is absent, cy's entry that skips on evidence): ann accepts,
    cy plays bob's turn for the bot and its own; bob answers on the save before the
    proposal; cy's next entry on bob's branch skips the link it published on the other."""
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "bot")
    voted = game.wrote("ann", "vote", str(proposal), "accept")
    game.wrote("cy", "play", str(voted), "roll")
    back = game.answer("bob", base, "roll")
    game.run("cy", "verify", str(back))
    return proposal, game.wrote("cy", "play", str(back), "pass")


def test_a_skip_on_an_answer_signed_after_the_proposal_is_refused(tmp_path: Path) -> None:
    """The evidence must show a branch the answer voided by the branch rule: an answer
    signed after the proposal voids nothing, so a skip resting on it is refused (exit 3),
    though its entries chain and are signed. Built from the honest skip, with bob's answer
    re-signed a minute after the proposal and cy's skipping entry re-chained on it."""
    game = Players(tmp_path)
    proposal, answered = honest_skip(game)
    save = savefile.read(answered)
    late = datetime.datetime.strptime(entry(proposal)["time"], "%Y-%m-%dT%H:%M:%SZ") \
        + datetime.timedelta(minutes=1)
    bob_late = forge({**{k: v for k, v in save.entries[-2].items() if k != "sig"},
                      "time": late.strftime("%Y-%m-%dT%H:%M:%SZ")}, game.home("bob").load())
    cy_on_it = forge({**{k: v for k, v in save.entries[-1].items() if k != "sig"},
                      "prev": engine.entry_hash(bob_late)}, game.home("cy").load())
    target = tmp_path / "late-answer.toml"
    target.write_text(savefile.dumps(savefile.Save(
        save.header, [*save.entries[:-2], bob_late, cy_on_it], save.state)), "utf-8")
    result = game.run("verifier", "verify", str(target))
    assert result.exit_code == 3, result.output
    assert "is not signed before the proposal, so it voided nothing" in result.output
    assert game.run("verifier2", "verify", str(answered)).exit_code == 0  # the honest one


def test_a_link_published_on_a_voided_branch_is_not_signed_again_on_the_game_s(
        tmp_path: Path) -> None:
    """cy played in turn on the branch bob's answer voided (its link resolved bob's roll
    there). On bob's branch cy's entry must skip that link with the branch as evidence; a
    cy holding the source could instead sign the same link again (every verifier took it
    as the next one) and choose, of the two, the outcome it likes. A home that has seen
    cy's entry on the voided branch refuses the second use (exit 3, code beacon)."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "bot")
    voted = game.wrote("ann", "vote", str(proposal), "accept")
    voided = game.wrote("cy", "play", str(voted), "roll")
    back = game.answer("bob", base, "roll")
    for handle in ("ann", "bob", "cy"):
        assert game.run(handle, "verify", str(voided)).exit_code == 0
    answered = game.wrote("cy", "play", str(back), "pass")
    save = savefile.read(answered)
    again = {k: v for k, v in entry(answered).items() if k not in ("evidence", "sig")}
    again["beacon"] = entry(voided)["beacon"]
    forged = forge(again, game.home("cy").load())
    table = engine.replay(savefile.Save(save.header, [*save.entries[:-1], forged], save.state),
                          check_snapshot=False, audit_secrets=False).table
    target = tmp_path / "again.toml"
    target.write_text(savefile.dumps(savefile.Save(save.header, [*save.entries[:-1], forged],
                                                   engine.public_state(table))), "utf-8")
    for handle in ("ann", "bob"):
        result = game.run(handle, "verify", str(target), "--json")
        assert result.exit_code == 3, result.output
        errors = json.loads(result.output)["errors"]
        assert [e["code"] for e in errors] == ["beacon"]
        assert "carries the beacon link cy published in entry" in errors[0]["message"]
    # The honest entry, which skips that link on evidence, still verifies there.
    assert game.run("ann", "verify", str(answered)).exit_code == 0


def test_evidence_dated_ahead_or_nested_is_refused(tmp_path: Path) -> None:
    """Evidence as a cheat would forge it: its last entry re-signed a year ahead (not in
    effect yet: exit 3), or carrying evidence itself (malformed: exit 4). Neither is an
    internal error, and the honest skip still verifies."""
    game = Players(tmp_path)
    proposal, answered = honest_skip(game)
    signed, save = entry(answered), savefile.read(answered)
    cy = game.home("cy").load()
    carried = signed["evidence"]
    ahead = forge({**{k: v for k, v in carried[-1].items() if k != "sig"},
                   "time": "2026-06-02T10:00:00Z"}, cy)
    nested = forge({**{k: v for k, v in carried[-1].items() if k != "sig"},
                    "evidence": carried}, cy)
    for name, bad, code in (("ahead", ahead, 3), ("nested", nested, 4)):
        forged = forge({**{k: v for k, v in signed.items() if k != "sig"},
                        "evidence": [*carried[:-1], bad]}, cy)
        target = tmp_path / f"{name}.toml"
        target.write_text(savefile.dumps(savefile.Save(
            save.header, [*save.entries[:-1], forged], save.state)), "utf-8")
        result = game.run(f"verifier-{name}", "verify", str(target))
        assert result.exit_code == code, result.output
    assert "more than an hour ahead" in game.run("verifier-ahead", "verify",
                                                 str(tmp_path / "ahead.toml")).output
    assert game.run("verifier", "verify", str(answered)).exit_code == 0


def test_a_save_that_could_not_be_written_gives_its_link_back(tmp_path: Path) -> None:
    """pbem never writes over a file: when -o names one that exists, nothing is written,
    so the link was never published and the next try signs with it (no skip)."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    taken = tmp_path / "taken.toml"
    taken.write_text("not a save", "utf-8")
    refused = game.run("bob", "play", str(base), "roll", "-o", str(taken))
    assert refused.exit_code == 2 and "already exists" in refused.output
    played = game.wrote("bob", "play", str(base), "roll")
    previous = next(e for e in reversed(savefile.read(base).entries) if e["seat"] == "bob")
    assert beacon.follows(bytes.fromhex(entry(played)["beacon"]),
                          bytes.fromhex(previous["beacon"]))
