"""``pbem remind``: which games wait for a seat past its patience, and when this home last
mailed a reminder for each (PROTOCOL.md section 11: at most once a day per game).

The record is ``HOME/reminders.json``, ``{"version": 1, "games": {game id: time}}``, the
home's own file: a damaged one counts as no reminder sent (at worst one mail too many).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import atomic
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import GAME_ID
from pbem.terminal import listed

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


@dataclass
class Check:
    """Whether a reminder for one game may be mailed now (``pbem remind``, ``pbem sync``)
    and, when not, why."""

    name: str  # "Title abcd1234"
    game_id: str
    who: str | None  # the seat the game waits for
    past: datetime.datetime | None  # when that seat's patience ran out, if it has
    why_not: str = ""  # why no reminder may go ('' when one may)
    next_at: datetime.datetime | None = None  # reminded less than a day ago: the next from
    vote: bool = False  # the seat to act owes a vote (passed over, not proposed absent)
    first: str | None = None  # the seat the clock names: in a round, the first missing
    round_missing: list[str] = field(default_factory=list)  # every seat missing in a round
    several: bool = False  # ``who`` names several seats (the others missing in a round)

    @property
    def due(self) -> bool:
        return not self.why_not

    def past_shown(self) -> str:
        """When the patience ran out, as shown to people."""
        return timing.shown(self.past) if self.past is not None else "never"


def _no_patience(info: dict[str, Any], proposal: bool, me: str, joining: str = "") -> str:
    """Why nobody's patience runs out now, from the clock's status (clock.status);
    ``joining``: the seats still to join a round of joins, in words."""
    who, kind = info["to_act"], info["next"]
    if who is None:
        return "nobody is to act"
    if who == me:
        return "it waits for you"
    if kind == "vote":
        return f"{who} votes next"
    if proposal:
        return f"{who} is proposed absent already"
    if kind in ("join", "start"):
        action = "join" if kind == "join" else "start the game"
        who = joining or who
        return f"it waits for {who} to {action}, and no patience is counted before the game starts"
    return "its entries carry no signed time to count patience from"


def check(home: Home, path: str | Path, me: str, now: datetime.datetime) -> Check:
    """Whether the game of the save at ``path`` waits for a seat past its patience that
    this home may remind now (at most once a day per game). Raises what loading raises."""
    from pbem import session
    from pbem.protocol.timekeeping import clock

    verified = session.load(path, home)
    table = verified.table
    info = clock.status(table)
    missing = [table.seats[s].handle for s in table.round_missing()]
    joining = listed(missing) if len(missing) > 1 else ""
    who, ends = info["to_act"], timing.parse_stamp(info["patience_ends"])
    others = [h for h in missing if h != me]
    several = False
    if who is not None and info["next"] in ("reveal", "turn") and len(missing) > 1:
        # A round of reveals or of a step's turns: each seat missing in it acts now, this
        # home's seat among them or not (the clock names the first alone).
        who, several = listed(others), len(others) > 1
    past = ends if ends is not None and ends <= now else None
    found = Check(f"{table.game.info.title} {table.game_id[:8]}", table.game_id, who, past,
                  vote=info["next"] == "vote", first=info["to_act"], round_missing=missing,
                  several=several)
    if verified.stale:
        found.why_not = (f"{path} is not the newest save of the game this home has seen; "
                         "skipped.")
    elif who is None or ends is None or who == me:
        found.why_not = f"no reminder ({_no_patience(info, bool(table.proposal), me, joining)})."
    elif past is None:
        whose = f"the patience of {who} runs out" if found.several else \
            f"{who}'s patience runs out"
        found.why_not = f"no reminder; {whose} {timing.shown(ends)}."
    elif (after := next_allowed(home, table.game_id)) is not None and now < after:
        found.next_at = after
        found.why_not = (f"{who} {'were' if found.several else 'was'} reminded less than a "
                         f"day ago; the next reminder can go from {timing.shown(after)}.")
    return found
