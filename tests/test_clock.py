"""The clock a process reads (CLI.md: PBEM_CLOCK; PROTOCOL.md section 11): one function,
pbem.protocol.saveformat.timing.now, used for every signed time."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.saveformat import savefile, timing


def test_pbem_clock_sets_the_time_every_entry_signs(tmp_path: Path) -> None:
    runner = CliRunner()
    home = str(tmp_path / "ann")
    assert runner.invoke(main, ["--home", home, "keygen", "--name", "ann"]).exit_code == 0
    out = tmp_path / "new.toml"
    result = runner.invoke(main, ["--home", home, "new", "dice-race", "--seat", "ann",
                                  "--seat", "bob", "-o", str(out)],
                           env={"PBEM_CLOCK": "2031-02-03T04:05:06Z"})
    assert result.exit_code == 0, result.output
    save = savefile.read(out)
    assert save.entries[0]["time"] == "2031-02-03T04:05:06Z"
    assert save.header["created"] == "2031-02-03T04:05:06Z"


def test_a_malformed_pbem_clock_is_a_usage_error(tmp_path: Path) -> None:
    runner = CliRunner()
    home = str(tmp_path / "ann")
    assert runner.invoke(main, ["--home", home, "keygen", "--name", "ann"]).exit_code == 0
    result = runner.invoke(main, ["--home", home, "new", "dice-race", "--seat", "ann",
                                  "--seat", "bob", "-o", str(tmp_path / "x.toml")],
                           env={"PBEM_CLOCK": "tomorrow\x1b[2J"})
    assert result.exit_code == 2
    assert "PBEM_CLOCK" in result.output and "\x1b" not in result.output
    assert not (tmp_path / "x.toml").exists()


def test_now_reads_pbem_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_CLOCK", "2030-01-01T00:00:00Z")
    assert timing.now_stamp() == "2030-01-01T00:00:00Z"
    monkeypatch.delenv("PBEM_CLOCK")
    assert timing.now_stamp() == "2025-06-02T10:00:00Z"  # the suite's fixed clock
