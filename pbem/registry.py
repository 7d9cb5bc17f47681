"""Installed games: every one is registered by its ``pbem.games`` entry point alone.

A game's package declares, in its pyproject.toml::

    [project.entry-points."pbem.games"]
    my-game = "my_package.my_game:GAME"

and nothing else names it: pbem's own three games are found exactly so.

The entry points are read from the ``entry_points.txt`` of each distribution on
``sys.path`` (``*.dist-info``, or ``*.egg-info`` of an older install), the file
``importlib.metadata`` reads too. Importing ``importlib.metadata`` costs as much as the
rest of a command's start-up (it imports the email package, to parse metadata pbem never
needs), so this module reads that one file itself: a folder listing per ``sys.path``
entry and one small file per distribution that has one. Where two distributions declare
the same game name, the first on ``sys.path`` wins, as with ``importlib.metadata``.
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache

from pbem.errors import SaveFileError, UsageError
from pbem.game import Game, one_match

GROUP = "pbem.games"
OWN_GAMES = "pbem_games."  # the package pbem's own games install as (the folder games/)
ENTRY_POINTS_FILE = "entry_points.txt"

_extra: dict[str, Game] = {}


def register(name: str, game: Game) -> None:
    """Add a game without an entry point (tests, plug-ins loaded by hand)."""
    _extra[name] = game


def entry_points_in(text: str, group: str = GROUP) -> dict[str, str]:
    """``name -> "module:attribute"`` of ``group`` in the text of an entry_points.txt
    (an INI file: ``[group]`` headers, ``name = value`` lines, ``#`` or ``;`` comments)."""
    found: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            found.setdefault(name.strip(), value.strip())
    return found


@cache
def _installed() -> dict[str, str]:
    """Every installed ``pbem.games`` entry point: name -> "module:attribute"."""
    found: dict[str, str] = {}
    seen: set[str] = set()  # distributions, by normalised name: the first on the path wins
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for name in names:
            stem, dot, suffix = name.rpartition(".")
            if not dot or suffix not in ("dist-info", "egg-info"):
                continue
            dist = stem.partition("-")[0].lower().replace("_", "-").replace(".", "-")
            if dist in seen:
                continue
            seen.add(dist)
            try:
                with open(os.path.join(folder or ".", name, ENTRY_POINTS_FILE), encoding="utf-8") as fh:
                    text = fh.read(1 << 20)
            except (OSError, UnicodeDecodeError):
                continue
            for game, value in entry_points_in(text).items():
                found.setdefault(game, value)
    return found


def names() -> list[str]:
    return sorted(set(_installed()) | set(_extra))


def resolve(typed: str) -> str:
    """The installed game a person means by ``typed``: its name, or a start of exactly one
    name ('station' for station-to-station). Case does not matter, nor spaces for dashes.

    UsageError (exit 2) lists the games that start so when there are several, and every
    installed game when none does. Saves name their game exactly (see ``for_save``)."""
    key = "-".join(typed.strip().lower().split())
    known = names()
    return one_match(
        key, known,
        ambiguous=lambda hits: f"'{typed}' could be any of {', '.join(hits)}; type more of the name.",
        unknown=lambda: f"There is no game '{typed}'. Installed games: {', '.join(known) or 'none'}.",
        errors=(UsageError, UsageError))


def load(name: str) -> Game:
    if name in _extra:
        return _extra[name]
    return _load_entry_point(name)


@cache
def _load_entry_point(name: str) -> Game:
    value = _installed().get(name)
    if value is None:
        raise UsageError(f"There is no game '{name}'. Installed games: {', '.join(names()) or 'none'}.")
    module, _, attribute = value.partition(":")
    try:
        game: object = importlib.import_module(module.strip())
        for part in attribute.strip().split("."):
            game = getattr(game, part)
    except Exception as exc:  # a broken plug-in must not take the whole CLI down
        fix = "Reinstall pbem." if module.strip().startswith(OWN_GAMES) else (
            "Reinstall the package that provides it.")
        raise UsageError(f"The game '{name}' is installed but cannot be loaded ({exc}). "
                         f"{fix}") from None
    if not isinstance(game, Game):
        raise UsageError(f"The entry point for '{name}' does not give a pbem Game.")
    return game


def for_save(name: str) -> Game:
    """The game a save names, or a SaveFileError (exit 4) if it is not installed."""
    if name in _extra:
        return _extra[name]
    if name not in _installed():
        raise SaveFileError(
            f"This save is a game of '{name}', which this pbem does not have. Installed "
            f"games: {', '.join(names()) or 'none'}. Install a pbem that includes it."
        )
    return load(name)
