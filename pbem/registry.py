"""Installed games, found through the ``pbem.games`` entry point and loaded lazily."""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from pbem.errors import SaveFileError, UsageError
from pbem.game import Game

GROUP = "pbem.games"


_extra: dict[str, Game] = {}


@cache
def _entries() -> dict[str, object]:
    return {ep.name: ep for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


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
    ep = _entries().get(name)
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
    if name not in _entries() and name not in _extra:
        raise SaveFileError(
            f"This save is a game of '{name}', which this pbem does not have. Installed "
            f"games: {', '.join(names()) or 'none'}. Install a pbem that includes it."
        )
    return load(name)
