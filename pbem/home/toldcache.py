"""What the game said of each entry (Game.describe), kept in the home by entry hash, so a
second ``show`` of a save need not replay the game from its first entry again.

``HOME/told/<game id>.json`` maps an entry's key to its note (seq, kind, seat, time,
moves, the describe lines). The key (pbem.session.logbook.told_key) is the entry's hash,
which chains, through ``prev``, to every entry before it and to the header; for an entry
of a round, a digest of the hashes of the round's entries in the file up to it, which
its hash does not pin. So the note of a key is the same whatever save it comes in; the
save itself is still verified every time. The newest MAX_NOTES notes of a game
are kept. A missing or damaged file, or one written by another pbem version (whose games
may describe differently), is read as empty.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pbem import __version__, atomic
from pbem.protocol.saveformat.savefile import GAME_ID, HEX64

FOLDER = "told"
MAX_NOTES = 256  # several rounds of any game: what 'since your last entry' needs
MAX_FILE_BYTES = 4 * 1024 * 1024


class ToldCache:
    def __init__(self, home_path: Path, game_id: str) -> None:
        self.path = Path(home_path) / FOLDER / f"{game_id}.json"
        self.notes: dict[str, dict[str, Any]] = {}
        if not GAME_ID.fullmatch(game_id):
            return
        data = atomic.read_json(self.path, MAX_FILE_BYTES)
        if not isinstance(data, dict) or data.get("pbem") != __version__:
            return
        notes = data.get("notes")
        if isinstance(notes, dict) and all(HEX64.fullmatch(str(k)) and _note_ok(v)
                                           for k, v in notes.items()):
            self.notes = notes

    def get(self, hashes: list[str]) -> list[dict[str, Any]] | None:
        """The notes of these entries, in order, if every one is known; else None."""
        found = [self.notes.get(h) for h in hashes]
        return None if any(n is None for n in found) else [n for n in found if n is not None]

    def put(self, told: list[tuple[str, dict[str, Any]]]) -> None:
        """Keep these (hash, note) pairs; write the file if any was new."""
        new = [(h, n) for h, n in told if self.notes.get(h) != n]
        if not new:
            return
        self.notes.update(new)
        if len(self.notes) > MAX_NOTES:
            newest = sorted(self.notes.items(), key=lambda item: item[1]["seq"])[-MAX_NOTES:]
            self.notes = dict(newest)
        data = {"pbem": __version__, "notes": self.notes}
        # A cache: not flushed to the disk; a lost write costs one replay.
        atomic.replace(self.path, json.dumps(data, ensure_ascii=False,
                                             separators=(",", ":")).encode(), sync=False)


def _note_ok(note: Any) -> bool:
    return (isinstance(note, dict) and isinstance(note.get("seq"), int)
            and isinstance(note.get("kind"), str) and isinstance(note.get("seat"), str)
            and (note.get("time") is None or isinstance(note.get("time"), str))
            and _strings(note.get("moves")) and _strings(note.get("changes")))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
