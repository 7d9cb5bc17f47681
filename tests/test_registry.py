"""The game registry: built-in games load by module path, the same as their entry points
in pyproject.toml, and a command that needs one game scans no package metadata."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pbem import registry

ROOT = Path(__file__).resolve().parent.parent


def test_builtin_games_are_the_entry_points_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["entry-points"][registry.GROUP] == registry.BUILTIN
    # The command runs pbem.cli.run, which freezes what start-up built (gc.freeze) before
    # main; main itself does not, for the processes that call it many times.
    assert project["scripts"] == {"pbem": "pbem.cli:run"}


def test_every_builtin_game_loads_and_is_listed() -> None:
    for name in registry.BUILTIN:
        assert registry.for_save(name).info.id == name
    assert set(registry.BUILTIN) <= set(registry.names())


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
    code = (
        "import contextlib, io, sys\n"
        f"sys.argv = ['pbem', '--home', {home!r}, 'show', {str(save)!r}]\n"
        "from pbem.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dataclasses', 'pickle', "
        "'cryptography', 'email') or m.startswith(('pbem.mail', 'pbem.drawing', "
        "'importlib.metadata'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", (game, out.stdout, out.stderr)
