"""What ``show`` and ``verify`` print or dump, built from a verified save: lines of text
and JSON data (docs/JSON.md). The commands parse their options, call these and print."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem import session
from pbem.errors import PbemError, UsageError
from pbem.outcome import Outcome
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import result
from pbem.protocol.state.table import Report
from pbem.protocol.timekeeping import absence, clock
from pbem.record import Record
from pbem.session import holding, logbook, rounds
from pbem.session.verified import Verified
from pbem.terminal import listed


# ---- shared by show, verify and log -----------------------------------------------------
def late_json(verified: Verified) -> list[dict[str, Any]]:
    """The entries first seen here long after their signed time (docs/JSON.md ``late``)."""
    return [{k: v for k, v in late.items() if k != "words"} for late in verified.late]


def note_lines(notes: list[logbook.EntryNote]) -> list[str]:
    """Entries as 'log' prints them: a heading line, then what each changed."""
    lines = []
    for note in notes:
        lines.append(note.heading())
        lines.extend(f"        {line}" for line in note.changes)
    return lines


def acted_line(acted: list[timing.Acted], you: str = "") -> str:
    """'Last acted: ann (you): entry 30, 2 days ago; bob: entry 31, 5 hours ago; ...'."""
    now = timing.now()
    parts = [f"{a.handle}{' (you)' if a.handle == you else ''}: {a.words(now)}" for a in acted]
    return "Last acted: " + "; ".join(parts) + "."


def result_lines(report: Report) -> list[str]:
    """The result as pbem.protocol.state.result tells it: how the game ended, the audit's
    verdict (what it could not check), every score with its parts, the notes."""
    told = report.result
    if report.audit == "pending":
        return [told["ending"]["text"]] if told.get("over") else []
    lines = [told["ending"]["text"], *result.audit_words(told)]
    outcome = report.outcome
    if outcome is None:
        return lines
    lines += [told["winner"] + ".", "Final scores:"]
    place = 1
    handles = [s.handle for s in report.table.seats]
    for group in outcome.standing():
        for side in group:
            name = handles[side] if isinstance(side, int) else str(side)
            lines.append(f"  {place}. " + _score_line(name, outcome, side, told, len(group)))
        place += len(group)
    return lines + [f"  {note}" for note in outcome.notes]


def _score_line(name: str, outcome: Outcome, side: int | str, told: dict[str, Any],
                shared_by: int) -> str:
    """One side's line of the final scores, after its place: score, parts, tie-breaks."""
    parts = ", ".join(f"{k} {v}" for k, v in told["parts"].get(name, {}).items())
    ties = outcome.tiebreak_words(side)
    tie_text = f"  [{ties}]" if ties else ""
    shared = " (shared)" if shared_by > 1 else ""
    return (f"{name:12} {told['scores'][name]:4}{shared}" + (f"  ({parts})" if parts else "")
            + tie_text)


# ---- show -------------------------------------------------------------------------------
class Shown(Record):
    """A save as ``show`` tells it: the position now (or after entry ``at``) as this
    home's seat sees it, and the entries to tell."""

    def __init__(self, told: logbook.History, at: int | None, home: Home) -> None:
        self.told = told
        self.at = at
        verified = told.verified
        entries = verified.save.entries
        # Seqs, not places: a save holding part of a round may lack an earlier seat's entry.
        self.last_seq = int(entries[-1]["seq"])
        if at is None or (at == self.last_seq and verified.report.final is not None):
            self.table = verified.table
            self.handle, self.view, self.private = session.seat_view(home, verified)
        else:
            self.table = told.tables[at]
            self.handle, self.view, self.private = logbook.view_at(home, verified, self.table)
        shown_entries = entries if at is None else entries[:place_of(at, verified.save) + 1]
        self.acted = timing.last_acted([s.handle for s in self.table.seats], shown_entries)
        # The entries since this seat's last (None: no seat here, or --at).
        self.since = told.notes if at is None and self.handle else None
        self.duty = self.table.duty()
        self.to_act = self.table.seats[self.duty.seat].handle if self.duty else ""

    @property
    def verified(self) -> Verified:
        return self.told.verified

    @property
    def seq(self) -> int:
        return self.last_seq if self.at is None else self.at

    @property
    def heading(self) -> str:
        """The title of a web page of this position."""
        return f"{self.table.game.info.title} {self.table.game_id[:8]}, entry {self.seq}"


def shown(home: Home, path: str | Path, at: int | None) -> Shown:
    """Verify the save at ``path`` and tell it as ``show`` does: entry ``at`` with --at,
    else the entries since this home's seat signed its last (none without a seat)."""
    me = logbook.own_handle(home)

    def wanted(parsed: Save) -> range:
        if at is not None:
            place = check_at(at, parsed, home)
            return range(place, place + 1)
        if me not in parsed.handles():
            return range(0)  # no seat here: no "since your last turn"
        mine = logbook.last_entry_of(parsed, me)
        return range(0 if mine is None else mine + 1, len(parsed.entries))

    return Shown(logbook.history(path, home, wanted, keep=() if at is None else (at,)), at,
                 home)


def place_of(seq: int, save: Save) -> int:
    """Where the entry numbered ``seq`` stands in ``save`` (-1 if it holds none)."""
    return next((place for place, e in enumerate(save.entries) if e["seq"] == seq), -1)


def check_at(at: int, save: Save, home: Home | None) -> int:
    """Where in ``save`` the entry ``at`` stands; a UsageError for an --at that names no
    entry in effect here."""
    place = place_of(at, save)
    if place < 0:
        raise UsageError(f"--at {at}: this save has entries {_seq_spans(save)}; give one "
                         "of them.")
    cut = holding.here(save, home).upto
    if place >= cut:
        last = save.entries[cut - 1]["seq"]
        raise UsageError(f"--at {at}: entry {at} is not in effect here yet (it is dated, or "
                         "built on an entry dated, more than an hour ahead of this "
                         "computer's clock, or it counts a patience from entries this home "
                         f"had only later); give one of entries 0 to {last}. 'pbem "
                         "verify' says from when it is in effect.")
    return place


def _seq_spans(save: Save) -> str:
    """The seqs of ``save``'s entries in words: '0 to 9', or '0 to 8 and 10' for a save
    holding part of a round."""
    spans: list[list[int]] = []
    for seq in sorted(int(e["seq"]) for e in save.entries):
        if spans and seq == spans[-1][1] + 1:
            spans[-1][1] = seq
        else:
            spans.append([seq, seq])
    words = [f"{a} to {b}" if b > a else str(a) for a, b in spans]
    return listed(words)


def draw(seen: Shown, svg: str | None, html: str | None, png: str | None) -> list[str]:
    """Draw the pictures asked for (all drawn before any is written, and the targets
    checked before drawing: no save, pipe or name twice); the paths written, in order."""
    asked = {flag: path for flag, path in (("--svg", svg), ("--html", html), ("--png", png))
             if path is not None}
    if not asked:
        return []
    from pbem.drawing import page as render  # only to draw: it costs start-up time

    render.check_picture_targets(asked)
    game = seen.table.game
    pictures: list[tuple[str, str | bytes]] = []
    if svg:
        pictures.append((svg, render.svg_of(game, seen.view)))
    if html:
        pictures.append((html, render.html_page(game, seen.view, seen.heading)))
    if png:
        pictures.append((png, render.png_page(game, seen.view)))
    for target, picture in pictures:
        render.write_picture(target, picture)
    return [target for target, _ in pictures]


def show_json(seen: Shown, notices: list[Any]) -> dict[str, Any]:
    """``show --json`` (docs/JSON.md)."""
    verified, table, at, duty = seen.verified, seen.table, seen.at, seen.duty
    data = {"game": table.header["game"], "id": table.game_id, "seat": seen.handle,
            "to_act": seen.to_act, "phase": table.phase(), "state": seen.view,
            "private": seen.private, "notes": verified.notes,
            "waiting": [w.to_json() for w in verified.waiting],
            "void": verified.void or None, "late": late_json(verified),
            "players": [n.to_json() for n in notices],
            "last_acted": [a.to_json() for a in seen.acted],
            "absence": absence.lines(table),
            "result": verified.report.result if at is None else None,
            "round": rounds.status(table), "queue": absence.queue_status(table)}
    if at is None:
        data["since_your_last_turn"] = (None if seen.since is None
                                        else [n.to_json() for n in seen.since])
        data["clock"] = clock.status(table)
        data["clock_terms"] = clock.terms(table.header) if table.phase() == "joining" else None
    else:
        data["at"] = at
        data["entry"] = seen.told.notes[0].to_json()
        data["next"] = duty.kind if duty else None
    return data


def show_lines(seen: Shown, drawn: list[str]) -> list[str]:
    """What ``show`` prints: the heading, who is next, the clock, the board, the pictures
    ``drawn``, the entries since this seat's last, who acted when, the result."""
    lines = _show_heading(seen) + [*seen.verified.notes, "", seen.table.game.render(seen.view)]
    lines += [f"Drew {path}" for path in drawn]
    if seen.since is not None:
        lines += _since_lines(seen)
    lines.append(acted_line(seen.acted, seen.handle))
    if not seen.duty and (seen.at is None or seen.at == seen.last_seq):
        lines += result_lines(seen.verified.report)
    return lines


def _show_heading(seen: Shown) -> list[str]:
    """The lines above the board: the position, the entry told (--at), who is next,
    absences, the clock (and an invitation's clock terms)."""
    table, at, duty = seen.table, seen.at, seen.duty
    title, short, phase = table.game.info.title, table.game_id[:8], table.phase()
    if at is None:
        lines = [f"{title}  game {short}  entry {seen.last_seq}  phase {phase}"]
    else:
        lines = [f"{title}  game {short}  after entry {at} (of {seen.last_seq})  phase {phase}",
                 *note_lines(seen.told.notes)]
    if duty:
        told, handles = rounds.next_words(table)
        if seen.handle in handles:
            told += ("  (you, but not on this branch: see below)"
                     if seen.verified.revealed_elsewhere is not None
                     else "  (you)" if len(handles) == 1 else "  (you among them)")
        lines.append(("Next: " if at is None else "Next then: ") + told)
        if rounds.status(table):
            lines.append(rounds.status_line(table))
    lines += absence.lines(table)
    if at is None:
        lines += clock.lines(table, timing.now())
        if phase == "joining":  # an invitation: the clock a joiner accepts
            lines += clock.terms(table.header)
    return lines


def _since_lines(seen: Shown) -> list[str]:
    mine = logbook.last_entry_of(seen.verified.save, seen.handle)
    return ["", f"Since your last entry ({mine}):" if mine is not None else
            "Since the start (you have signed nothing yet):",
            *(note_lines(seen.since) if seen.since else ["  nothing yet."])]


# ---- verify -----------------------------------------------------------------------------
def verify_failed_json(exc: PbemError) -> dict[str, Any]:
    """``verify --json`` of a save that could not be verified."""
    return {"ok": False, "game": None, "id": None, "entries": None, "to_act": None,
            "over": None, "audit": None, "scores": None, "awaiting": [],
            "errors": [{"code": exc.code, "seq": exc.seq, "message": exc.message}]}


def verify_json(verified: Verified, notices: list[Any]) -> dict[str, Any]:
    """``verify --json`` of one save (docs/JSON.md)."""
    report = verified.report
    table = report.table
    duty = table.duty()
    told = report.result
    return {
        "ok": report.audit in ("clean", "pending"),
        "game": table.header["game"], "id": table.game_id,
        "entries": len(table.signers),
        "to_act": table.seats[duty.seat].handle if duty else None,
        "next": duty.kind if duty else None,
        "over": table.over(),
        "audit": report.audit if isinstance(report.audit, list) else told["audit"],
        "scores": told["scores"], "ranking": told["ranking"], "rivals": told["rivals"],
        "parts": told["parts"], "winners": told["winners"], "ending": told["ending"],
        "revealed": told["revealed"], "unrevealed": told["unrevealed"],
        "awaiting": [table.seats[s].handle for s in table.awaiting_reveals()],
        "stale": verified.stale, "notes": verified.notes,
        "waiting": [w.to_json() for w in verified.waiting], "void": verified.void or None,
        "late": late_json(verified),
        "absence": absence.lines(table), "unaudited": report.unaudited,
        "closed": told.get("closed", []),
        "players": [n.to_json() for n in notices],
        "checked_from": report.checked_from, "round": rounds.status(table),
        "queue": absence.queue_status(table), "errors": []}


def verify_lines(verified: Verified) -> list[str]:
    """What ``verify`` prints of one save."""
    report = verified.report
    table = report.table
    lines = [_verified_line(verified)]
    if report.checked_from:
        lines.append(f"(The chain of all entries was checked; the rules replay of entries 0-"
                     f"{report.checked_from - 1} was verified before in this home; --full "
                     "re-runs it.)")
    lines += verified.notes
    if table.duty():
        lines.append(f"Next: {rounds.next_words(table)[0]}.")
    if rounds.status(table):
        lines.append(rounds.status_line(table))
    lines += absence.lines(table)
    awaiting = [table.seats[s].handle for s in table.awaiting_reveals()]
    if awaiting:
        # In a round of reveals every seat still to reveal signs now, not the first alone.
        missing = [table.seats[s].handle for s in table.round_missing()]
        now = (f"awaiting each of {', '.join(missing)} now, in parallel" if len(missing) > 1
               else f"awaiting {awaiting[0]} now")
        lines.append(f"The game is over; the audit is pending until {', '.join(awaiting)} "
                     f"reveal{'s' if len(awaiting) == 1 else ''} ({now}).")
    return lines + result_lines(report)


def _verified_line(verified: Verified) -> str:
    table = verified.table
    waiting = len(verified.waiting)
    return (f"{table.header['game']} {table.game_id[:8]}: {len(table.signers)} entries "
            "verified (signatures, chain, beacon links, rules replay, snapshot)."
            + (f" {waiting} more entr"
               + ("y in the file, checked too, is" if waiting == 1
                  else "ies in the file, checked too, are")
               + " not in effect here yet (see below)." if waiting else ""))


def audit_failed(verified: Verified) -> bool:
    """The audit found a cheat (``verify`` exits 3)."""
    return isinstance(verified.report.audit, list)
