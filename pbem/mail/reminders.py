"""``pbem remind``: which games wait for a seat past its patience, and when this home last
mailed a reminder for each (PROTOCOL.md section 11: at most once a day per game).

The record is ``HOME/reminders.json``, ``{"version": 1, "games": {game id: time}}``, the
home's own file: a damaged one counts as no reminder sent (at worst one mail too many).
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from pbem import atomic
from pbem.protocol import timing
from pbem.protocol.identity import Home
from pbem.protocol.savefile import GAME_ID

FILE = "reminders.json"
VERSION = 1
EVERY = datetime.timedelta(days=1)
MAX_BYTES = 1024 * 1024


def _path(home: Home) -> Path:
    return Path(home.path) / FILE


def _load(home: Home) -> dict[str, str]:
    data = atomic.read_json(_path(home), MAX_BYTES)
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    games = data.get("games")
    if not isinstance(games, dict):
        return {}
    return {k: v for k, v in games.items() if isinstance(k, str) and GAME_ID.fullmatch(k)
            and timing.parse_stamp(v) is not None}


def last_sent(home: Home, game_id: str) -> datetime.datetime | None:
    """When this home last mailed a reminder for the game (None: never)."""
    return timing.parse_stamp(_load(home).get(game_id))


def next_allowed(home: Home, game_id: str) -> datetime.datetime | None:
    """When the next reminder for the game may go (None: now)."""
    last = last_sent(home, game_id)
    return None if last is None else last + EVERY


def record(home: Home, game_id: str, when: datetime.datetime) -> None:
    """Remember that a reminder for the game was mailed at ``when``."""
    games = _load(home)
    games[game_id] = timing.stamp(when) or ""
    data = json.dumps({"version": VERSION, "games": games}, sort_keys=True, indent=1)
    atomic.replace(_path(home), data.encode("utf-8"))
