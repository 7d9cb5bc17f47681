"""The home's archive of seen entries (PROTOCOL.md section 8).

One JSON file per game under ``HOME/archive/``: every entry this home has verified
(by hash, with its predecessor), the newest head seen, and the replayed table at that
head. It proves equivocation (two validly signed entries with the same ``prev``),
notices stale saves, and lets verify re-check only entries it has not seen.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pbem.errors import IntegrityError
from pbem.protocol.savefile import Entry

VERSION = 1


class Archive:
    def __init__(self, folder: Path, game_id: str) -> None:
        self.path = folder / f"{game_id}.json"
        self.game_id = game_id
        self.data: dict[str, Any] = {"version": VERSION, "game": game_id, "header": "",
                                     "entries": {}, "by_prev": {}, "head": {}, "cache": {}}
        try:
            loaded = json.loads(self.path.read_text("utf-8"))
            if loaded.get("version") == VERSION and loaded.get("game") == game_id:
                self.data = loaded
        except (OSError, ValueError):
            pass  # a missing or damaged archive only costs a full re-check

    # ---- questions ----------------------------------------------------------------
    @staticmethod
    def seen(folder: Path, game_id: str) -> bool:
        """Whether this home has an archive of a game with this id (PROTOCOL.md 2)."""
        return (folder / f"{game_id}.json").exists()

    def known(self, entry_hash: str) -> bool:
        return entry_hash in self.data["entries"]

    def head_seq(self) -> int:
        return int(self.data["head"].get("seq", -1))

    def cached_table(self, hashes: list[str]) -> tuple[int, dict[str, Any]] | None:
        """(index after which to resume, table json) if the cache sits on this save's path."""
        cache = self.data.get("cache") or {}
        target = cache.get("hash")
        if not target:
            return None
        for index in range(len(hashes) - 1, -1, -1):
            if hashes[index] == target:
                return index + 1, cache["table"]
        return None

    def fork_with(self, entry: Entry, entry_hash: str) -> Entry | None:
        """An archived, different entry that has the same predecessor, if any."""
        other = self.data["by_prev"].get(entry["prev"])
        if other and other != entry_hash:
            return dict(self.data["entries"][other]["entry"])
        return None

    def staleness(self, hashes: list[str]) -> str:
        """A note if a newer save of this game has been seen, else ''."""
        head = self.data["head"]
        if not hashes or not head:
            return ""
        if head.get("seq", -1) > len(hashes) - 1 and self.known(hashes[-1]):
            return (f"This save is stale: you have already seen a newer one of this game "
                    f"(up to entry {head['seq']}, {head.get('seat', '?')}). Use the newest save.")
        return ""

    # ---- recording ----------------------------------------------------------------
    def record(self, header_hash: str, entries: list[Entry], hashes: list[str],
               table_json: dict[str, Any]) -> None:
        if self.data["header"] and self.data["header"] != header_hash:
            return  # a different header with this id: never mix the two
        self.data["header"] = header_hash
        for entry, h in zip(entries, hashes, strict=True):
            if h not in self.data["entries"]:
                self.data["entries"][h] = {"seq": entry["seq"], "seat": entry["seat"],
                                           "prev": entry["prev"], "entry": entry}
                self.data["by_prev"].setdefault(entry["prev"], h)
        last = entries[-1]
        if last["seq"] >= self.head_seq():
            self.data["head"] = {"seq": last["seq"], "hash": hashes[-1], "seat": last["seat"]}
            self.data["cache"] = {"hash": hashes[-1], "table": table_json}
        self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".archive-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.data, fh, separators=(",", ":"))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def equivocation(entry: Entry, other: Entry) -> IntegrityError:
    seq = entry["seq"]
    return IntegrityError(
        f"Fork: {entry['seat']} signed two different entries {seq} after the same entry "
        f"(one with moves {other['moves']!r}, this one with {entry['moves']!r}). Two "
        "different saves were sent from one turn; settle it with the other players.",
        seq=seq, code="fork",
    )
