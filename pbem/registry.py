"""Installed games, found through the ``pbem.games`` entry point and loaded lazily.

The games that ship with pbem are known by their module path (BUILTIN, the same as the
entry points in pyproject.toml): loading one needs no scan of the installed packages'
metadata, which costs a third of a command's start-up (importlib.metadata imports the
email package and reads every installed distribution). The scan runs only when a command
needs the list of every game (``rules``, ``new``, a save naming a game not built in).
A plug-in cannot replace a built-in game under its name.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from pbem.errors import SaveFileError, UsageError
from pbem.game import Game

GROUP = "pbem.games"

# name -> "module:attribute", as in pyproject.toml's [project.entry-points."pbem.games"]
# (tests/test_registry.py keeps the two the same).
BUILTIN = {
    "red-dog-junction": "games.red_dog_junction:GAME",
    "road-master": "games.road_master:GAME",
    "station-to-station": "games.station_to_station:GAME",
}

_extra: dict[str, Game] = {}


class _Builtin:
    """A built-in game's entry, loaded by its module path (as an EntryPoint is)."""

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        return getattr(importlib.import_module(module), attribute)


@cache
def _plugins() -> dict[str, object]:
    """Games installed by other packages, through the entry point (the slow scan)."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)
            if ep.name not in BUILTIN}


def _entries() -> dict[str, object]:
    return {**{name: _Builtin(name, value) for name, value in BUILTIN.items()}, **_plugins()}


def _entry(name: str) -> object | None:
    if name in BUILTIN:
        return _Builtin(name, BUILTIN[name])
    return _plugins().get(name)


def register(name: str, game: Game) -> None:
    """Add a game without an entry point (tests, plug-ins loaded by hand)."""
    _extra[name] = game


def names() -> list[str]:
    return sorted(set(_entries()) | set(_extra))


def resolve(typed: str) -> str:
    """The installed game a person means by ``typed``: its name, or a start of exactly one
    name ('station' for station-to-station). Case does not matter, nor spaces for dashes.

    UsageError (exit 2) lists the games that start so when there are several, and every
    installed game when none does. Saves name their game exactly (see ``for_save``)."""
    key = "-".join(typed.strip().lower().split())
    known = names()
    if key in known:
        return key
    hits = [name for name in known if key and name.startswith(key)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise UsageError(f"'{typed}' could be any of {', '.join(hits)}; type more of the name.")
    raise UsageError(f"There is no game '{typed}'. Installed games: {', '.join(known) or 'none'}.")


def load(name: str) -> Game:
    if name in _extra:
        return _extra[name]
    return _load_entry_point(name)


@cache
def _load_entry_point(name: str) -> Game:
    ep = _entry(name)
    if ep is None:
        raise UsageError(f"There is no game '{name}'. Installed games: {', '.join(names()) or 'none'}.")
    try:
        game = ep.load()  # type: ignore[attr-defined]
    except Exception as exc:  # a broken plug-in must not take the whole CLI down
        raise UsageError(f"The game '{name}' is installed but cannot be loaded ({exc}). "
                         "Reinstall pbem.") from None
    if not isinstance(game, Game):
        raise UsageError(f"The entry point for '{name}' does not give a pbem Game.")
    return game


def for_save(name: str) -> Game:
    """The game a save names, or a SaveFileError (exit 4) if it is not installed."""
    if name in _extra:
        return _extra[name]
    if name not in BUILTIN and _entry(name) is None:
        raise SaveFileError(
            f"This save is a game of '{name}', which this pbem does not have. Installed "
            f"games: {', '.join(names()) or 'none'}. Install a pbem that includes it."
        )
    return load(name)
