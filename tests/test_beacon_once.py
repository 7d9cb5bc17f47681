"""A link is published once (PROTOCOL.md section 5; docs/protocol-beacon.md), attacked
through the command line as a returning player would: each home records every place of
its beacon chains it published in a game, on any branch, and never signs two entries
there; a verifier accepts a skip of up to 64 places and no more."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol import beacon, engine, savefile, signing
from pbem.protocol.archive import Archive
from pbem.protocol.identity import Home
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
    """Issue 21, finding 1. cy proposes bob absent: the proposal publishes cy's next link.
    bob comes back on the save before it and plays a roll that cy's next entry resolves.
    Before this rule, cy's pbem signed that entry with the link bob had seen in the
    proposal, so bob could try every move privately and play the roll whose chance he
    liked. Now cy's entry on bob's branch takes a place cy's home never published."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    seen = entry(proposal)["beacon"]  # bob has this save: he knows this link
    back = game.answer("bob", base, "roll")  # the branch before the proposal
    cy_home = game.home("cy")
    game.run("cy", "verify", str(back))  # cy's home learns of bob's branch
    assert game.to_act(back) == "cy"
    answered = game.wrote("cy", "play", str(back), "pass")
    signed = entry(answered)
    assert signed["seat"] == "cy" and signed["beacon"] != seen
    # The link skipped is the one the proposal used: one hash more takes it to cy's link
    # before the proposal, and every verifier accepts it.
    previous = next(e for e in reversed(savefile.read(base).entries) if e["seat"] == "cy")
    assert beacon.descent(bytes.fromhex(signed["beacon"]), bytes.fromhex(previous["beacon"])) == 2
    assert game.run(None, "verify", str(answered)).exit_code == 0
    # Her home recorded both places, under its lock, in its archive.
    table = engine.replay(savefile.read(answered)).table
    record = table.seats[table.seat_of("cy")]  # type: ignore[index]
    archive = Archive(cy_home.archive_dir, table.game_id)
    assert {record.depth - 1, record.depth} <= archive.published("cy")


def test_a_vote_cut_behind_the_game_takes_a_fresh_link(tmp_path: Path) -> None:
    """The same for a vote: ann votes on the proposal, bob comes back before it; ann's
    next entry on bob's branch does not repeat the vote's link."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    voted = game.wrote("ann", "vote", str(proposal), "accept")
    back = game.answer("bob", base, "roll")
    on = game.wrote("cy", "play", str(back), "roll")
    assert entry(on)["beacon"] != entry(proposal)["beacon"]
    game.run("ann", "verify", str(voted))
    mine = game.wrote("ann", "play", str(on), "roll")
    assert entry(mine)["beacon"] != entry(voted)["beacon"]
    assert game.run(None, "verify", str(mine)).exit_code == 0


def test_a_skip_of_more_than_64_links_is_refused(tmp_path: Path) -> None:
    """A verifier hashes at most 64 times: a link further down is refused (exit 3), so a
    seat cannot pick among many links of its chain for the one whose chance it likes."""
    game = Players(tmp_path)
    path = game.play(game.until(game.start(), "bob"))
    save = savefile.read(path)
    table = engine.replay(savefile.Save(save.header, save.entries[:-1], {}),
                          check_snapshot=False).table
    seat = table.seat_of("bob")
    assert seat is not None
    seed = signing.seat_seed(table, seat, game.home("bob").load())
    last = save.entries[-1]
    for skip, code in ((beacon.MAX_SKIP, 0), (beacon.MAX_SKIP + 1, 3)):
        forged = dict(last)
        forged["beacon"] = beacon.published(seed, table.seats[seat].depth + skip).hex()
        forged = forge(forged, game.home("bob").load())
        target = tmp_path / f"skip{skip}.toml"
        target.write_text(savefile.dumps(savefile.Save(save.header, save.entries[:-1] + [forged],
                                                       save.state)), "utf-8")
        result = game.run(None, "verify", str(target))
        assert result.exit_code == code, result.output
        if code:
            assert "within 64 links" in result.output


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


@pytest.mark.parametrize("kind", ["turn", "absent"])
def test_a_branch_too_far_behind_is_refused_plainly(tmp_path: Path, kind: str) -> None:
    """A home that published more than 64 places on another branch since a save cannot
    sign on it (a verifier would refuse the skip): exit 1, nothing written."""
    game = Players(tmp_path, ("ann", "bob"))
    base = game.until(game.start(), "bob")
    path = base
    for _ in range(2 * beacon.MAX_SKIP + 2):
        path = game.play(path, "pass")
    assert game.to_act(path) == "bob"
    before = sorted(game.saves.iterdir())
    if kind == "turn":
        result = game.run("bob", "play", str(base), "roll", "-o", str(tmp_path / "x.toml"))
    else:
        result = game.run("ann", "absent", str(base), "bob", "--remedy", "end", "-o",
                          str(tmp_path / "x.toml"))
    assert result.exit_code == 1, result.output
    assert "stale" in result.output or "too far behind" in result.output
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


def test_verify_shows_every_skip(tmp_path: Path) -> None:
    """A skip is never hidden: a seat that skipped links without a branch behind it could
    have chosen among that many links, so verify says which entry skipped how many."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    game.wrote("cy", "absent", str(base), "bob", "--remedy", "end")
    back = game.answer("bob", base, "roll")
    answered = game.wrote("cy", "play", str(back), "pass")
    seq = entry(answered)["seq"]
    shown = game.run(None, "verify", str(answered))
    assert shown.exit_code == 0
    assert f"Entry {seq} (cy) skips 1 link of cy's beacon chain" in shown.output
    assert "skips" not in game.run(None, "verify", str(back)).output


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
    assert beacon.descent(bytes.fromhex(entry(played)["beacon"]),
                          bytes.fromhex(previous["beacon"])) == 1
