"""The layout the games keep: one shape for every game, installed under pbem's own name.

The folder games/ installs as the package ``pbem_games`` (pyproject.toml), so a
``games.py`` or another package called ``games`` cannot hide pbem's games; every game is
found by its entry point alone, and one that cannot be loaded is an error naming it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("red_dog_junction", "road_master", "station_to_station")
SHAPE = ("rules.py", "view.py", "describe.py", "svg.py", "components.py")
OLD = "games"  # the import name the games had, which anyone's module could take
OLD_MODULES = tuple(f"{OLD}.{game}" for game in GAMES)


def test_every_game_has_the_same_five_modules() -> None:
    folders = sorted(p.name for p in (ROOT / "games").iterdir() if (p / "__init__.py").is_file())
    assert folders == list(GAMES)
    for game in GAMES:
        missing = [m for m in SHAPE if not (ROOT / "games" / game / m).is_file()]
        assert missing == [], game


def _old_names(path: Path) -> list[str]:
    """Imports of the old package name, and strings naming one of its modules (the
    sys.modules checks of the start-up tests)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value] if node.value.startswith(OLD_MODULES) else []
        found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                  if n == OLD or n.startswith(f"{OLD}.")]
    return found


def test_no_module_imports_the_games_by_their_old_name() -> None:
    found = []
    for folder in ("pbem", "games", "tests", "bench", "fuzz", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found += _old_names(path)
    assert found == []


def test_the_wheel_holds_every_package_folder_under_its_installed_name() -> None:
    """The packages are listed by hand (a find cannot rename a folder): a new folder
    left out of the list would be missing from a wheel, though an editable install has it."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"pbem_games": "games"}
    folders = {"pbem.drawing.fonts"}  # data only (the bundled fonts), as find listed it
    for top, name in (("pbem", "pbem"), ("games", "pbem_games")):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / top).parts
            folders.add(".".join((name, *parts)))
    assert sorted(setuptools["packages"]) == sorted(folders)


def _pbem(args: list[str], cwd: Path, pythonpath: list[Path]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, pythonpath)))
    return subprocess.run([sys.executable, "-m", "pbem", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=60)


def test_rules_lists_the_games_from_a_folder_holding_a_games_py(tmp_path: Path) -> None:
    """``python -m`` puts the working folder first on the path: a person's own games.py
    there once hid all three games, and ``rules`` listed none of them and exited 0."""
    (tmp_path / "games.py").write_text("raise SystemExit('the folder games.py was imported')\n",
                                       "utf-8")
    (tmp_path / "games").mkdir()  # a package called games beside it, for good measure
    (tmp_path / "games" / "__init__.py").write_text("", "utf-8")
    done = _pbem(["rules"], tmp_path, [])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "red-dog-junction     Red Dog Junction, 1-5 players (rules v7)",
        "road-master          Road Master, 2-6 players (rules v5)",
        "station-to-station   Station to Station, 2-4 players (rules v4)",
    ]


def test_a_registered_game_that_cannot_be_loaded_is_an_error_naming_it(tmp_path: Path) -> None:
    """Games register by entry point alone (a working one is listed beside pbem's own);
    one whose module is missing makes ``rules`` exit 2 (UsageError) naming it, after
    listing the games that load, and ``rules GAME`` for it too."""
    for dist, value in (("dice_plugin", "tests.support.dice_race:GAME"),
                        ("broken_plugin", "pbem_no_such_module.game:GAME")):
        info = tmp_path / f"{dist}-1.0.dist-info"
        info.mkdir()
        name = dist.replace("_", "-")
        (info / "entry_points.txt").write_text(f"[pbem.games]\n{name} = {value}\n", "utf-8")
    done = _pbem(["rules"], tmp_path, [tmp_path, ROOT])
    assert done.returncode == 2
    listed = [line.split()[0] for line in done.stdout.splitlines()]
    assert listed == ["dice-plugin", "red-dog-junction", "road-master", "station-to-station"]
    assert "'broken-plugin'" in done.stderr and "pbem_no_such_module" in done.stderr
    assert "Reinstall the package that provides it." in done.stderr
    assert "Traceback" not in done.stderr
    one = _pbem(["rules", "broken-plugin"], tmp_path, [tmp_path, ROOT])
    assert one.returncode == 2 and "'broken-plugin'" in one.stderr and one.stdout == ""
