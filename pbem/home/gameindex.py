"""The games this home is in and where its newest save of each is: ``pbem games``, and a
game's short id wherever a command takes SAVE.

``HOME/games.json`` holds one summary per game id, of the newest save this home wrote
(``new``, ``join``, ``play``), verified (``verify``, ``show``, ``moves``, ...) or filed
(``inbox``): its path, its last entry, who is to act, when each seat last acted, the
winners. Each summary is made from a save just verified, and the file only ever says
where to look: every command still verifies the save it reads. It is written atomically;
a missing or damaged file, or a damaged summary in it, reads as no game (the next save
verified records it again), and a save file deleted since is reported as missing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from pbem import atomic
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import GAME_ID, Save
from pbem.protocol.state.table import Report
from pbem.protocol.timekeeping import clock

INDEX_FILE = "games.json"
LOCK_FILE = "games.lock"  # held while the index is read, changed and written
VERSION = 1
MAX_INDEX_BYTES = 16 * 1024 * 1024  # a home in thousands of games stays far below
SHORT_ID_LENGTH = 8
ID_PREFIX = re.compile(r"^[0-9a-f]{1,32}$")


class GameRecord(NamedTuple):
    """What ``pbem games`` says of one game, from the newest save this home has seen.
    Never changed in place (the default lists are shared)."""

    id: str
    game: str  # the ruleset, e.g. red-dog-junction
    title: str
    header: str  # the header's hash: a game id seen with another header is not mixed in
    path: str  # absolute path of the newest save
    seq: int  # its last entry
    entry: str  # that entry's hash
    you: str  # this home's handle
    players: list[str]
    to_act: str = ""  # '' once every seat has revealed
    next: str = ""  # create, join, start, turn, reveal; '' when complete
    over: bool = False  # play is over (the reveals may still be owed)
    audit: str = "pending"  # pending, clean, partial (a seat never revealed) or failed
    winners: list[str] = []  # names (a solo game's automaton too), once audited
    scores: dict[str, int] = {}  # name -> score, once audited; in the ranking's order
    ending: str = ""  # how it ended, if not by the rules alone ("bob resigned")
    time: str | None = None  # the last entry's signed time, if it has one
    acted: list[dict[str, Any]] = []  # timing.Acted.to_json()
    clock: dict[str, Any] = {}  # pbem.protocol.timekeeping.clock.status: patience, away notes
    # The save's entries not yet in effect here when it was verified (timing.Waiting's
    # JSON): the record describes the save up to the entry before them.
    waiting: list[dict[str, Any]] = []
    # Every seat still to sign in the round under way, in seat order ([] when no round
    # is): each acts now as much as ``to_act``, the first of them (or this home's seat).
    round_missing: list[str] = []

    @property
    def short_id(self) -> str:
        return self.id[:SHORT_ID_LENGTH]

    @property
    def complete(self) -> bool:
        return not self.next

    @property
    def your_move(self) -> bool:
        return bool(self.to_act) and self.to_act == self.you

    def exists(self) -> bool:
        return Path(self.path).is_file()

    def to_json(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_json(cls, data: Any) -> GameRecord | None:
        """A record read back from the file, or None if it is not one pbem wrote."""
        if not isinstance(data, dict):
            return None
        try:
            record = cls(**data)
        except TypeError:
            return None
        return record if _well_formed(record) else None


def _well_formed(r: GameRecord) -> bool:
    texts = (r.id, r.game, r.title, r.header, r.path, r.entry, r.you, r.to_act, r.next, r.audit,
             r.ending)
    return (all(isinstance(t, str) for t in texts) and bool(GAME_ID.fullmatch(r.id))
            and isinstance(r.seq, int) and not isinstance(r.seq, bool)
            and isinstance(r.over, bool)
            and isinstance(r.players, list) and all(isinstance(p, str) for p in r.players)
            and isinstance(r.winners, list) and all(isinstance(w, str) for w in r.winners)
            and isinstance(r.scores, dict)
            and all(isinstance(k, str) and isinstance(v, int) for k, v in r.scores.items())
            and (r.time is None or isinstance(r.time, str))
            and isinstance(r.acted, list) and all(_acted_ok(a) for a in r.acted)
            and isinstance(r.clock, dict)
            and isinstance(r.waiting, list) and all(
                isinstance(w, dict) and isinstance(w.get("in_effect_from"), str)
                and isinstance(w.get("seq"), int) for w in r.waiting)
            and isinstance(r.round_missing, list)
            and all(isinstance(h, str) for h in r.round_missing))


def _acted_ok(item: Any) -> bool:
    return (isinstance(item, dict) and isinstance(item.get("handle"), str)
            and (item.get("seq") is None or isinstance(item.get("seq"), int))
            and (item.get("time") is None or isinstance(item.get("time"), str)))


def summarize(save: Save, report: Report, path: Path, you: str,
              waiting: tuple[dict[str, Any], ...] = ()) -> GameRecord:
    """The record of a save just verified (``report``), found at ``path``; ``waiting``:
    the entries of the file not yet in effect here (``save`` ends before them)."""
    table = report.table
    duty = table.duty_for(table.seat_of(you))  # in a round, every seat still to sign acts
    last = save.entries[-1]
    seats = [s.handle for s in table.seats]
    told = report.result  # pbem.protocol.state.result: rivals (solo's automaton) ranked too
    audit = str(told.get("audit", "pending"))
    winners: list[str] = []
    scores: dict[str, int] = {}
    if told.get("scores") is not None and audit in ("clean", "partial"):
        # In the order of the ranking (tie-breaks, a resigner last), which 'pbem games'
        # follows: by points alone a resigner tied with another seat could read as ahead.
        ranked = [str(n) for group in told.get("ranking") or [] for n in group]
        given = {str(k): int(v) for k, v in told["scores"].items()}
        scores = {n: given[n] for n in [*ranked, *given] if n in given}
        winners = [str(w) for w in told["winners"]]
    return GameRecord(
        id=save.game_id, game=save.ruleset, title=table.game.info.title,
        # Entry 0's prev is the header's hash (checked by chain.authenticate): no need
        # to hash a header of thousands of lines again.
        header=str(save.entries[0]["prev"]), path=str(path.absolute()), seq=int(last["seq"]),
        entry=report.hashes[-1], you=you, players=seats,
        to_act=table.seats[duty.seat].handle if duty else "",
        next=duty.kind if duty else "", over=table.over(), audit=audit, winners=winners,
        scores=scores, ending=str(told.get("ending", {}).get("short", "")),
        time=timing.stamp(timing.signed_time(last)),
        acted=[a.to_json() for a in timing.last_acted(seats, save.entries)],
        clock=clock.status(table), waiting=list(waiting),
        round_missing=[table.seats[s].handle for s in table.round_missing()])


class GameIndex:
    """``HOME/games.json``: read once, changed by :meth:`remember`."""

    def __init__(self, home_path: Path) -> None:
        self.path = Path(home_path) / INDEX_FILE
        self.lock_path = Path(home_path) / LOCK_FILE
        self.records: dict[str, GameRecord] = {}
        self._load()

    def _load(self) -> None:
        self.records = {}
        # No index yet, or a damaged one: no games until saves are seen again.
        data = atomic.read_json(self.path, MAX_INDEX_BYTES)
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return
        games = data.get("games")
        if not isinstance(games, dict):
            return
        for game_id, item in games.items():
            record = GameRecord.from_json(item)
            if record is not None and record.id == game_id:
                self.records[game_id] = record

    def games(self) -> list[GameRecord]:
        return list(self.records.values())

    def matching(self, prefix: str) -> list[GameRecord]:
        """The games whose id starts with ``prefix`` (lower-case hex), by id."""
        return sorted((r for r in self.records.values() if r.id.startswith(prefix)),
                      key=lambda r: r.id)

    def remember(self, record: GameRecord, replace: bool = False) -> bool:
        """Keep ``record`` if its save is at least as new as the one known (same header),
        or whatever its length if ``replace`` (its branch is the game's, and the one known
        may be on a void branch); write the file if anything changed. Returns whether it
        was kept."""
        with atomic.locked(self.lock_path):
            self._load()  # another process may have recorded a game since
            return self._remember(record, replace)

    def _remember(self, record: GameRecord, replace: bool = False) -> bool:
        known = self.records.get(record.id)
        if known is not None:
            if known.header != record.header or (record.seq < known.seq and not replace):
                return False
            if known == record:
                return True
        self.records[record.id] = record
        self._write()
        return True

    def withdraw(self, game_id: str, entry_hash: str) -> bool:
        """Forget the game's record if its newest save ends with this entry (``undo``
        withdrew it): the next save of the game verified or written is recorded, older
        or not. Returns whether a record was dropped."""
        with atomic.locked(self.lock_path):
            self._load()
            return self._withdraw(game_id, entry_hash)

    def _withdraw(self, game_id: str, entry_hash: str) -> bool:
        known = self.records.get(game_id)
        if known is None or known.entry != entry_hash:
            return False
        del self.records[game_id]
        self._write()
        return True

    def _write(self) -> None:
        data = {"version": VERSION,
                "games": {k: r.to_json() for k, r in sorted(self.records.items())}}
        atomic.replace(self.path, json.dumps(data, indent=1, ensure_ascii=False).encode())
