"""The game registry: every game, pbem's own included, is found by its entry point alone,
read as importlib.metadata reads it, and a command that needs one game imports no
package metadata."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from pbem import registry, session
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile

ROOT = Path(__file__).resolve().parent.parent


def test_the_games_are_the_entry_points_of_pyproject_and_no_list_of_ours() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = project["entry-points"][registry.GROUP]
    installed = registry._installed()
    assert {k: installed[k] for k in declared} == declared
    assert installed == {ep.name: ep.value for ep in entry_points(group=registry.GROUP)}
    text = (ROOT / "pbem" / "registry.py").read_text("utf-8")
    assert not [g for g in ("red_dog_junction", "road_master", "station_to_station") if g in text]
    # The command runs pbem.cli.run, which freezes what start-up built (gc.freeze) before
    # main; main itself does not, for the processes that call it many times.
    assert project["scripts"] == {"pbem": "pbem.cli:run"}


def test_every_installed_game_loads_and_is_listed() -> None:
    for name in ("red-dog-junction", "road-master", "station-to-station"):
        assert registry.for_save(name).info.id == name
        assert name in registry.names()


def test_the_entry_points_file_is_read_as_ini() -> None:
    text = ("[console_scripts]\npbem = pbem.cli:run\n\n# a comment\n[pbem.games]\n"
            "  dice = some.module:GAME  \n; another comment\nother=x:y.z\n[later]\nq = r:s\n")
    assert registry.entry_points_in(text) == {"dice": "some.module:GAME", "other": "x:y.z"}


def test_a_plug_in_is_found_by_its_entry_point_and_the_first_on_the_path_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, value in ((first, "tests.support.launch:DICE_RACE"), (second, "nowhere:GAME")):
        info = folder / "pbem_dice-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "entry_points.txt").write_text(f"[pbem.games]\ndice-plugin = {value}\n", "utf-8")
    broken = first / "odd-2.0.dist-info"
    broken.mkdir()
    (broken / "entry_points.txt").write_bytes(b"[pbem.games]\nbad = \xff\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second), *sys.path])
    registry._installed.cache_clear()
    registry._load_entry_point.cache_clear()
    try:
        assert registry._installed()["dice-plugin"] == "tests.support.launch:DICE_RACE"
        assert "bad" not in registry._installed()
        assert registry.load("dice-plugin").info.id == "dice-race"
    finally:
        registry._installed.cache_clear()
        registry._load_entry_point.cache_clear()


def test_verifying_a_save_imports_no_metadata_mail_or_drawing() -> None:
    """What 'pbem verify' and 'show' need of a game, without the modules they never use
    (each costs start-up time: importlib.metadata imports the email package)."""
    for game, other in (("road-master", "red_dog_junction"),
                        ("red-dog-junction", "station_to_station")):
        save = sorted((ROOT / "saves" / game).glob("*.toml"))[2]
        code = (
            "import sys\n"
            "from pbem import session\n"
            f"session.verify(session.savefile.read({str(save)!r}), None)\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('importlib.metadata', "
            f"'email', 'pbem.mail', 'games.{other}', 'hypothesis', 'tomli_w', 'xml', "
            "'urllib.request', 'tempfile', 'importlib.resources', 'concurrent', '_strptime'"
            ")) or m.endswith('.svg'))\n"
            "print(bad)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT)
        assert out.stdout.strip() == "[]", (game, out.stdout)


def test_the_kit_escapes_as_xml_sax_saxutils_does() -> None:
    """The drawing kit's own escape and quoteattr (saxutils costs start-up time)."""
    from xml.sax import saxutils

    from pbem.drawing import canvas

    for text in ("a&b<c>d", 'x"y', "x'y", "x\"y'z", "l\nm\rn\to", "&amp;", "", "]]>"):
        assert canvas.escape(text) == saxutils.escape(text)
        assert canvas.quoteattr(text) == saxutils.quoteattr(text)


def modules_loaded(args: list[str], names: tuple[str, ...]) -> list[str]:
    """The modules among ``names`` (and their submodules) that ``pbem ARGS`` loads, run in
    a fresh interpreter."""
    code = (
        "import contextlib, io, sys\n"
        f"sys.argv = ['pbem', *{args!r}]\n"
        "from pbem.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        f"names = {names!r}\n"
        "print(sorted(m for m in sys.modules\n"
        "             if any(m == n or m.startswith(n + '.') for n in names)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stderr == "", out.stderr
    return list(ast.literal_eval(out.stdout.strip()))


@pytest.mark.parametrize("game", ["red-dog-junction", "road-master", "station-to-station"])
def test_showing_a_save_the_home_has_verified_imports_only_what_it_needs(
        game: str, tmp_path: Path) -> None:
    """Issue 12's start-up: 'pbem show' of a save this home verified before loads no
    dataclasses (their methods are generated with exec at import), no pickle (no state is
    copied: the home keeps the installed data's digest), no cryptography (every signature
    is vouched by the archive), and no mail or drawing code."""
    save = sorted((ROOT / "saves" / game).glob("*.toml"))[2]
    home = str(tmp_path / "home")
    subprocess.run([sys.executable, "-m", "pbem", "--home", home, "verify", str(save)],
                   capture_output=True, check=True, cwd=ROOT)
    loaded = modules_loaded(["--home", home, "show", str(save)], (
        "dataclasses", "pickle", "cryptography", "email", "pbem.mail", "pbem.drawing",
        "importlib.metadata"))
    assert loaded == [], game


def test_reading_a_newly_received_save_imports_only_what_it_needs(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Start-up at the floor: 'show', 'moves' and 'verify' of a save the home has not seen
    yet (in the home of the seat to act, which holds its identity) load no bots, no
    cryptography PEM reader (an unencrypted key is read directly), no nacl.bindings
    (libsodium's functions are called through pbem.protocol.crypto.sodium), no mail or drawing,
    no prompt, no hashlib or hmac (a second OpenSSL), no pickle, no dataclasses."""
    from tests.enginekit import play_game

    paths = play_game(homes, tmp_path / "saves", "road-master", bot="random:3", stop_after=14)
    save = savefile.read(paths[-1])
    table = session.verify(save, None).table
    duty = table.duty()
    assert duty is not None and save.entries[-1]["kind"] == "turn"
    receiver = homes[table.seats[duty.seat].handle]
    for command in ("show", "moves", "verify"):
        home = tmp_path / f"home-{command}"
        shutil.copytree(receiver.path, home)
        loaded = modules_loaded(["--home", str(home), command, str(paths[-1])], (
            "cryptography.hazmat.primitives.serialization", "nacl.bindings", "pbem.play",
            "pbem.mail", "pbem.drawing", "importlib.metadata", "email", "pbem.prompt",
            "dataclasses", "hashlib", "hmac", "pickle", "pbem_games.road_master.bot",
            "pbem_games.road_master.conservation"))
        assert loaded == [], command
