"""The game registry: built-in games load by module path, the same as their entry points
in pyproject.toml, and a command that needs one game scans no package metadata."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from pbem import registry

ROOT = Path(__file__).resolve().parent.parent


def test_builtin_games_are_the_entry_points_of_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["entry-points"][registry.GROUP] == registry.BUILTIN


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
