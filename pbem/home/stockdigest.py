"""The digest of each installed game's component data, kept in the home under the hash of
the file it is read from (Game.stock_file).

Every verify tells whether a save's components differ from the installed ones
(session.component_notes). Reading and checking the installed data for that took 5 to
15 ms of a command's start-up (Station to Station's map most); hashing the file's bytes
takes a tenth of a millisecond. The digest is of the data as the game reads it, a pure
function of the file's bytes for one pbem version; an edited file has another hash and
is read again. ``HOME/components.json``: {"pbem": version, "games": {game: {"file":
sha256 of the file, "digest": digest of its data}}}. A missing or damaged file, or one
written by another pbem version, is read as empty; a home that cannot be written only
reads the data each time.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem import __version__, atomic
from pbem.game import Game
from pbem.hashing import sha256_hex
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import HEX64

FILE = "components.json"
MAX_FILE_BYTES = 64 * 1024  # a line per installed game


def stock_digest(home_path: Path | None, game: Game) -> str:
    """The digest of ``game``'s installed component data: the one the home keeps for its
    file, or worked out (then kept, when the game reads it from one file)."""
    source = game.stock_file()
    if home_path is None or source is None:
        return _worked_out(game, type(game).stock_components)
    try:
        file_hash = sha256_hex(source.read_bytes())
    except OSError:
        return _worked_out(game, type(game).stock_components)
    path = Path(home_path) / FILE
    games = _read(path)
    known = games.get(game.info.id)
    if known is not None and known["file"] == file_hash:
        return str(known["digest"])
    found = _worked_out(game, type(game).stock_components)
    games[game.info.id] = {"file": file_hash, "digest": found}
    data = {"pbem": __version__, "games": games}
    # A cache: not flushed to the disk; a lost write costs one reading of the data.
    with contextlib.suppress(OSError):
        atomic.replace(path, json.dumps(data, sort_keys=True).encode(), sync=False)
    return found


@functools.cache
def _worked_out(game: Game, reader: Callable[..., Any]) -> str:
    """The digest of the installed data, read once per process and reader (``reader`` is
    the game's ``stock_components``: a test replacing it reads afresh)."""
    return digest(game.stock_components())


def _read(path: Path) -> dict[str, dict[str, Any]]:
    data = atomic.read_json(path, MAX_FILE_BYTES)
    if not isinstance(data, dict) or data.get("pbem") != __version__:
        return {}
    games = data.get("games")
    if not isinstance(games, dict):
        return {}
    return {name: entry for name, entry in games.items() if _entry_ok(entry)}


def _entry_ok(entry: Any) -> bool:
    return (isinstance(entry, dict) and set(entry) == {"file", "digest"}
            and all(isinstance(v, str) and HEX64.fullmatch(v) for v in entry.values()))
