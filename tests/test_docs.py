"""The product stands alone: each game's rulings live in its own folder, and nothing the
product ships (code, data, docs, README) points at files outside the repository. The
systemd units and cron line docs/PLAYING.md gives for 'pbem sync' are well formed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["red_dog_junction", "road_master", "station_to_station"]
# What each game's RULINGS.md must cover (a clause id the tests name, and a topic).
MUST_SAY = {
    "red_dog_junction": ["RDJ-A10", "RDJ-V4", "Justin", "Posse", "Trail Boss", "empty"],
    "road_master": ["RM-M1", "RM-X1"],
    "station_to_station": ["STS-CL2", "STS-S1"],
}


def _shipped(folder: str) -> list[Path]:
    """The files of one shipped folder (or README.md itself), caches left out."""
    if folder == "README.md":
        return [ROOT / folder]
    return sorted(p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


@pytest.mark.parametrize("game", GAMES)
def test_the_rulings_live_beside_the_game(game: str) -> None:
    """RDJ, RM and STS: each game folder holds its RULINGS.md (cf. STS-CL2's test)."""
    text = (ROOT / "games" / game / "RULINGS.md").read_text(encoding="utf-8")
    for word in MUST_SAY[game]:
        assert word in text, (game, word)
    assert "shared/" not in text


@pytest.mark.parametrize("folder", [
    "pbem", "games", "docs", "README.md",
])
def test_nothing_shipped_points_outside_the_repository(folder: str) -> None:
    """No code, data or doc the product ships mentions a `shared/` path."""
    bad = [str(p.relative_to(ROOT)) for p in _shipped(folder)
           if "shared/" in p.read_text(encoding="utf-8", errors="replace")]
    assert bad == []


def _playing_blocks(language: str) -> list[str]:
    """The code blocks of docs/PLAYING.md in ``language`` (where the README points for
    keeping sync running)."""
    text = (ROOT / "docs" / "PLAYING.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)


def test_the_playing_guide_systemd_timer_verifies(tmp_path: Path) -> None:
    """The systemd user units docs/PLAYING.md gives for 'pbem sync' pass 'systemd-analyze
    verify' (the service's pbem replaced by this one: verify checks it can be run)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    pbem = Path(sys.executable).parent / "pbem"
    units = []
    for block in _playing_blocks("ini"):
        first, _, body = block.partition("\n")
        name = first.removeprefix("# ~/.config/systemd/user/")
        assert name != first and name.startswith("pbem-sync."), first
        (tmp_path / name).write_text(body.replace("%h/.local/bin/pbem", str(pbem)))
        units.append(str(tmp_path / name))
    assert sorted(Path(u).name for u in units) == ["pbem-sync.service", "pbem-sync.timer"]
    done = subprocess.run([analyze, "verify", *units], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0 and not done.stderr, done.stderr


def test_the_playing_guide_cron_line_is_one_good_crontab_entry() -> None:
    field = r"(\*|\d+(-\d+)?(,\d+(-\d+)?)*)(/\d+)?"
    [block] = _playing_blocks("crontab")
    [line] = block.splitlines()
    assert re.fullmatch(rf"{field}( {field}){{4}} \S+/pbem sync( .*)?", line), line
    minute, hour, day, month, weekday = line.split()[:5]
    assert minute == "*/30" and (hour, day, month, weekday) == ("*", "*", "*", "*")
