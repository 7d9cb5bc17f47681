"""Verifying many saves at once (``pbem verify SAVE SAVE ...``): one result per file, in
argument order, each file checked exactly as ``pbem verify`` checks it alone.

Files run in parallel processes (``jobs``), but the saves of one game always run in one
process, one after another in argument order: what the home's archive says of a game
(stale, a fork, the rules replay it may skip) then depends only on the order of the
arguments, so ``--jobs 2`` prints what ``--jobs 1`` prints. The game a file belongs to is
read from its header's ``id`` line before it is parsed, only to choose its process; a file
that hides its id there runs on its own, and the archive's lock (pbem.home.archive)
still keeps two processes writing one game's archive from losing each other's entries.
The home-wide files (the games index, the contacts) are written by the calling process
alone, file by file in argument order, from what the workers send back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import session
from pbem.errors import PbemError
from pbem.home.gameindex import GameRecord
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import packed, savefile
from pbem.protocol.saveformat.savefile import Save

EXIT_INTERNAL = 70  # as the CLI's: a bug, never the file's fault
# The header's id line as pbem writes it (the header comes first in every save).
_ID_LINE = re.compile(rb'^id = "([0-9a-f]{32})"\r?$', re.MULTILINE)
_PEEK_BYTES = 64 * 1024


@dataclass
class Checked:
    """One file's result (README: the JSON keys of ``verify SAVE...  --json``)."""

    path: str
    exit_code: int = 0
    game: str | None = None
    id: str | None = None
    entries: int | None = None
    to_act: str | None = None
    next: str | None = None
    over: bool | None = None
    audit: Any = None
    scores: dict[str, int] | None = None
    stale: bool = False
    notes: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    # For the calling process, which writes the home-wide files (not printed):
    seats: Save | None = None  # header and key entries, for the contacts
    record: GameRecord | None = None  # the games index's summary

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def fail(self, code: int, error_code: str, message: str, seq: int | None = None) -> None:
        self.exit_code = max(self.exit_code, code)
        self.errors.append({"code": error_code, "seq": seq, "message": message})

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "ok": self.ok, "exit_code": self.exit_code,
                "game": self.game, "id": self.id, "entries": self.entries,
                "to_act": self.to_act, "next": self.next, "over": self.over,
                "audit": self.audit, "scores": self.scores, "stale": self.stale,
                "notes": self.notes, "errors": self.errors}

    def line(self) -> str:
        """'PATH: ok (road-master 057846d5, 21 entries)', or refused with the reason."""
        about = ", ".join(part for part in (
            f"{self.game} {self.id[:8]}" if self.game and self.id else "",
            f"{self.entries} entr{'y' if self.entries == 1 else 'ies'}"
            if self.entries is not None else "",
            f"audit {self.audit}" if self.ok and self.audit in ("clean", "partial") else "",
            "stale" if self.stale else "") if part)
        about = f" ({about})" if about else ""
        if self.ok:
            return f"{self.path}: ok{about}"
        reason = " ".join(e["message"] for e in self.errors)
        return f"{self.path}: refused, exit {self.exit_code}{about}: {reason}"


def peek_game_id(path: str) -> str | None:
    """The id a save's header line claims (unchecked: it only chooses the process)."""
    try:
        with open(path, "rb") as fh:
            start = fh.read(_PEEK_BYTES)
        if packed.is_gzip(start):  # a save stored gzip-compressed
            start = packed.head(start, _PEEK_BYTES)
        found = _ID_LINE.search(start)
    except OSError:
        return None
    return found.group(1).decode() if found else None


def groups(paths: list[str]) -> list[list[int]]:
    """The files' positions, grouped by game (in argument order within and across groups);
    a file whose game cannot be told is a group of its own."""
    by_game: dict[str, list[int]] = {}
    out: list[list[int]] = []
    for i, path in enumerate(paths):
        game_id = peek_game_id(path)
        if game_id is None:
            out.append([i])
        elif game_id in by_game:
            by_game[game_id].append(i)
        else:
            by_game[game_id] = [i]
            out.append(by_game[game_id])
    return out


def check_one(home: Home, shown: str, path: str, full: bool) -> Checked:
    """One file, as ``pbem verify`` checks it; nothing raised, every failure in the result."""
    out = Checked(shown)
    try:
        save = savefile.read(path)
        out.game, out.id, out.entries = save.ruleset, save.game_id, len(save.entries)
        verified = session.verify(save, home, full=full)
        report, table = verified.report, verified.table
        duty = table.duty()
        out.to_act = table.seats[duty.seat].handle if duty else None
        out.next = duty.kind if duty else None
        out.over = table.over()
        # As `verify --json` says them, from the one summary (pbem.protocol.state.result)
        out.audit = report.audit if isinstance(report.audit, list) else report.result["audit"]
        out.scores = report.result["scores"]
        out.stale, out.notes = verified.stale, list(verified.notes)
        out.entries = len(table.signers)
        out.seats = Save(save.header, [e for e in save.entries
                                       if e["kind"] in ("create", "join")], {})
        out.record = session.index_record(home, verified, Path(path))
        if isinstance(report.audit, list):
            out.fail(3, "audit", "The audit failed: " + "; ".join(report.audit))
    except PbemError as exc:
        out.fail(exc.exit_code, exc.code, exc.message, exc.seq)
    except Exception as exc:  # a bug: this file's result says so, the others go on
        out.fail(EXIT_INTERNAL, "internal", f"internal error ({type(exc).__name__}: {exc}). "
                 "Please report it; 'pbem verify' of this file alone with PBEM_DEBUG=1 "
                 "shows the details.")
    return out


def check_group(home_path: str, files: list[tuple[str, str]], full: bool) -> list[Checked]:
    """The files of one game, in order (run in a worker process)."""
    home = Home(Path(home_path))
    return [check_one(home, shown, path, full) for shown, path in files]


def verify_many(home: Home, files: list[tuple[str, str | PbemError]], *, full: bool = False,
                jobs: int = 1, learn: Callable[[Save], list[Any]] | None = None
                ) -> Iterator[tuple[Checked, list[Any]]]:
    """Each file's result in argument order, as soon as it and those before it are done.

    ``files``: (name to show, path) pairs; instead of a path, the error that finding it
    gave (an unknown short id: a result with that error). ``learn`` is told of each verified save (the
    contacts: its notices come back beside the result); the games index is updated here,
    in argument order, by this process only."""
    order = groups([path if isinstance(path, str) else "" for _, path in files])
    group_of = {i: g for g, members in enumerate(order) for i in members}
    runs: list[Future[list[Checked]]] = []
    pool = None
    if jobs > 1 and len(order) > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=min(jobs, len(order)))
        runs = [pool.submit(check_group, str(home.path), _paths(files, members), full)
                for members in order]
    done: dict[int, list[Checked]] = {}
    try:
        for i in range(len(files)):
            g = group_of[i]
            if g not in done:
                done[g] = _results(runs[g] if pool else None, home, order[g], files, full)
            result = done[g][order[g].index(i)]
            yield result, _home_wide(home, result, learn)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _paths(files: list[tuple[str, str | PbemError]], members: list[int]
           ) -> list[tuple[str, str]]:
    return [(files[i][0], path) for i in members if isinstance(path := files[i][1], str)]


def _results(run: Future[list[Checked]] | None, home: Home, members: list[int],
             files: list[tuple[str, str | PbemError]], full: bool) -> list[Checked]:
    error = files[members[0]][1]
    if isinstance(error, PbemError):  # a group of its own (groups() found no id)
        out = Checked(files[members[0]][0])
        out.fail(error.exit_code, error.code, error.message, error.seq)
        return [out]
    if run is None:
        return check_group(str(home.path), _paths(files, members), full)
    try:
        return run.result()
    except Exception as exc:  # a worker died (killed, out of memory): say so per file
        lost = []
        for i in members:
            out = Checked(files[i][0])
            out.fail(EXIT_INTERNAL, "internal", f"internal error: the process verifying "
                     f"this file stopped ({type(exc).__name__}: {exc}). Verify it alone.")
            lost.append(out)
        return lost


def _home_wide(home: Home, result: Checked, learn: Callable[[Save], list[Any]] | None
               ) -> list[Any]:
    """The games index and the contacts, from this file's result (this process only)."""
    if result.record is not None:
        session.remember_record(home, result.record)
    if result.seats is None or learn is None:
        return []
    try:
        return learn(result.seats)
    except PbemError as exc:  # as a single verify: its exit code for this file
        result.fail(exc.exit_code, exc.code, exc.message, exc.seq)
        return []
