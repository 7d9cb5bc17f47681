"""`pbem new`: a repeated option is refused, and a host left out of the seats is told so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli import main
from pbem.protocol.saveformat import savefile


class Host:
    """ann's home, where the games are made, and the folder they are written to."""

    def __init__(self, root: Path) -> None:
        self.runner = CliRunner()
        self.home = str(root / "homes" / "ann")
        self.saves = root / "saves"
        self.saves.mkdir()

    def new(self, *args: str) -> Result:
        result = self.runner.invoke(main, ["--home", self.home, "new", *args])
        assert "Traceback" not in (result.output + (result.stderr or "")), result.output
        return result

    def files(self) -> list[str]:
        return sorted(p.name for p in self.saves.iterdir())


@pytest.fixture
def ann(tmp_path: Path) -> Host:
    host = Host(tmp_path)
    keygen = host.runner.invoke(main, ["--home", host.home, "keygen", "--name", "ann"])
    assert keygen.exit_code == 0, keygen.output
    return host


def test_an_option_given_twice_is_refused_and_nothing_is_written(ann: Host) -> None:
    r = ann.new("red-dog-junction", "--seat", "ann", "--seat", "bob",
                "--option", "variant=posse", "--option", "variant=standard",
                "-o", str(ann.saves / "g.toml"))
    assert r.exit_code == 2, r.output
    assert "Option variant is given twice (posse, standard); give it once." in r.stderr
    assert ann.files() == []


def test_an_option_given_once_is_still_taken(ann: Host) -> None:
    out = ann.saves / "g.toml"
    r = ann.new("red-dog-junction", "--seat", "ann", "--seat", "bob",
                "--option", "variant=posse", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert savefile.read(out).header["options"]["variant"] == "posse"


def test_a_host_left_out_is_told_they_take_seat_1(ann: Host) -> None:
    out = ann.saves / "i.toml"
    r = ann.new("road-master", "--seat", "bob", "--seat", "cy", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "You (ann) take seat 1 as the host; bob and cy follow in the order given." \
        in r.output
    seats = [s["handle"] for s in savefile.read(out).header["seats"]]
    assert seats == ["ann", "bob", "cy"]  # as documented: seat 1 is you


def test_a_host_who_is_listed_is_not_told_again(ann: Host) -> None:
    r = ann.new("road-master", "--seat", "ann", "--seat", "bob",
                "-o", str(ann.saves / "i.toml"))
    assert r.exit_code == 0, r.output
    assert "take seat 1" not in r.output


def test_the_player_count_counts_the_host_added_as_seat_1(ann: Host) -> None:
    r = ann.new("station-to-station", "--seat", "b", "--seat", "c", "--seat", "d",
                "--seat", "e", "-o", str(ann.saves / "h.toml"))
    assert r.exit_code == 2, r.output
    assert ("Station to Station takes 2 to 4 players; with you and the 4 seats given that "
            "is 5.") in r.stderr
    assert ann.files() == []


def test_the_player_count_of_seats_typed_in_full_is_unchanged(ann: Host) -> None:
    r = ann.new("station-to-station", "--seat", "ann", "--seat", "c", "--seat", "d",
                "--seat", "e", "--seat", "f", "-o", str(ann.saves / "h.toml"))
    assert r.exit_code == 2, r.output
    assert "Station to Station takes 2 to 4 players, not 5." in r.stderr
    assert ann.files() == []


def test_the_seat_help_says_the_host_may_be_left_out(ann: Host) -> None:
    r = ann.runner.invoke(main, ["new", "--help"])
    assert r.exit_code == 0, r.output
    assert "Leave yourself out and you take seat 1" in " ".join(r.output.split())
