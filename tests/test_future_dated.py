"""Entries dated ahead (PROTOCOL.md section 11; docs/protocol-beacon.md): a home that sees
an entry whose signed time is more than an hour ahead of its clock says so, and does not
vote on it or build on it (play, vote, absent; exit 1, nothing written) until its clock
gets there. The clock is PBEM_CLOCK (CLI.md) when set; the suite's fixed clock is
2025-06-02T10:00:00Z."""

from __future__ import annotations

from pathlib import Path

from tests.test_beacon_once import Players

AHEAD = {"PBEM_CLOCK": "2025-06-09T10:00:00Z"}  # a week ahead of the suite's clock


def test_a_proposal_dated_ahead_is_not_voted_on_until_the_clock_gets_there(
        tmp_path: Path) -> None:
    """The attack: cy dates her proposal a week ahead, so that it looks as if bob had
    been silent for his whole patience. ann's pbem refuses to vote on it and says when it
    may; bob's pbem refuses to build on it too."""
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    proposal = game.wrote("cy", "absent", str(base), "bob", "--remedy", "end", env=AHEAD)
    before = sorted(game.saves.iterdir())
    vote = game.run("ann", "vote", str(proposal), "accept", "-o", str(tmp_path / "v.toml"))
    assert vote.exit_code == 1, vote.output
    assert "Entry" in vote.output and "an absent proposal by cy" in vote.output
    assert "more than an hour" in vote.output
    assert "2025-06-09 09:00 UTC" in vote.output  # when it may go on
    assert not (tmp_path / "v.toml").exists() and sorted(game.saves.iterdir()) == before
    shown = game.run("ann", "verify", str(proposal))
    assert shown.exit_code == 0 and "ahead of this computer's clock" in shown.output
    # Within the hour of its time, the vote goes ahead.
    ok = game.run("ann", "vote", str(proposal), "accept", "-o", str(tmp_path / "v.toml"),
                  env={"PBEM_CLOCK": "2025-06-09T09:00:01Z"})
    assert ok.exit_code == 0, ok.output


def test_a_turn_dated_ahead_is_not_built_on(tmp_path: Path) -> None:
    game = Players(tmp_path)
    base = game.until(game.start(), "bob")
    # An hour ahead exactly is a clock a little fast, not a date ahead.
    slightly = game.wrote("bob", "play", str(base), "pass",
                          env={"PBEM_CLOCK": "2025-06-02T11:00:00Z"})
    path = game.until(game.play(slightly), "bob")
    ahead = game.wrote("bob", "play", str(path), "roll", env=AHEAD)
    refused = game.run("cy", "play", str(ahead), "roll", "-o", str(tmp_path / "x.toml"))
    assert refused.exit_code == 1 and "a turn by bob" in refused.output
    absent = game.run("ann", "absent", str(ahead), "cy", "--remedy", "end",
                      "-o", str(tmp_path / "x.toml"))
    assert absent.exit_code == 1 and "dated 2025-06-09 10:00 UTC" in absent.output
    assert not (tmp_path / "x.toml").exists()


def test_a_withheld_reveal_cannot_be_cut_short_by_a_date_ahead(tmp_path: Path) -> None:
    """The same wait for a seat that owes its final reveal: the proposal that it is
    absent, dated ahead, is not voted on."""
    game = Players(tmp_path)
    path = game.start("target=2", "turns=3")
    while True:
        who = game.to_act(path)
        status = game.run(None, "verify", str(path), "--json").output
        if '"next": "reveal"' in status or '"phase": "revealing"' in status:
            break
        path = game.play(path)
    others = [h for h in ("ann", "bob", "cy") if h != who]
    proposal = game.wrote(others[0], "absent", str(path), who, "--remedy", "end", env=AHEAD)
    voted = game.run(others[1], "vote", str(proposal), "accept", "-o", str(tmp_path / "v.toml"))
    assert voted.exit_code == 1 and "more than an hour" in voted.output
