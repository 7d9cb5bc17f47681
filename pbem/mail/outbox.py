"""Saves this home signed that still wait to be mailed (HOME/outbox.json): ``play
--send`` whose mail failed, and entries that answered themselves while no mail could be
sent. ``pbem sync`` mails them and takes them off. The file only says where to look:
each save is read and verified again before it is mailed."""

from __future__ import annotations

import json
from pathlib import Path

from pbem import atomic

FILE = "outbox.json"
LOCK = "outbox.lock"
MAX_BYTES = 4 * 1024 * 1024


def _read(home_path: Path) -> list[str]:
    data = atomic.read_json(home_path / FILE, MAX_BYTES)
    items = data.get("saves") if isinstance(data, dict) else None
    return [p for p in items if isinstance(p, str)] if isinstance(items, list) else []


def _write(home_path: Path, items: list[str]) -> None:
    atomic.replace(home_path / FILE, json.dumps({"saves": items}, indent=1).encode())


def pending(home_path: Path) -> list[str]:
    return _read(home_path)


def add(home_path: Path, path: Path) -> None:
    text = str(Path(path).absolute())
    with atomic.locked(home_path / LOCK):
        items = _read(home_path)
        if text not in items:
            _write(home_path, [*items, text])


def remove(home_path: Path, path: str) -> None:
    with atomic.locked(home_path / LOCK):
        items = _read(home_path)
        if path in items:
            _write(home_path, [p for p in items if p != path])
