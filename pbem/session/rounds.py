"""Assembling a round (PROTOCOL.md section 4): one save from saves that each hold part of
it (``pbem merge``), or from a save and the entries of its last round this home's
archive verified in other saves (``pbem inbox`` and ``pbem sync`` do it by themselves)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.errors import PbemError, UsageError
from pbem.home.archive import Archive, equivocation
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Entry, Save
from pbem.protocol.state.rounds import save_name
from pbem.protocol.state.table import Table


def assemble(saves: list[Save]) -> Save:
    """The save holding every entry of ``saves`` (saves of one game, each a prefix of it
    or holding part of its last round), with its state replayed. UsageError if they are
    of different games or branches, IntegrityError("fork") if one seat signed two
    different entries at one place; the result is checked by engine.replay (not the
    end-of-game audit: the caller verifies the save it keeps)."""
    header = saves[0].header
    header_hash = digest(header)
    by_seq: dict[int, Entry] = {}
    for save in saves:
        if digest(save.header) != header_hash:
            raise UsageError("These saves are not of one game (their headers differ); "
                             "only saves of the same game can be assembled.")
        for entry in save.entries:
            _place(by_seq, entry)
    entries = [by_seq[seq] for seq in sorted(by_seq)]
    table = engine.replay(Save(header, entries), check_snapshot=False,
                          audit_secrets=False).table
    return Save(header, entries, engine.public_state(table))


def _place(by_seq: dict[int, Entry], entry: Entry) -> None:
    other = by_seq.setdefault(entry["seq"], entry)
    if other is entry or digest(other) == digest(entry):
        return
    if other["seat"] == entry["seat"] and other["prev"] == entry["prev"]:
        raise equivocation(entry, other)
    raise UsageError(
        f"These saves hold different entries at entry {entry['seq']} ({other['kind']} by "
        f"{other['seat']}, {entry['kind']} by {entry['seat']}): they are different "
        "branches of the game, not parts of one round.")


def from_archive(home: Home, save: Save) -> Save | None:
    """``save`` with the entries of its last round (it ends in one) that this home's
    archive verified in other saves and ``save`` lacks; None if there are none, or if
    they do not assemble with it (then the save stands as it is)."""
    first = save.entries[-1].get("round")
    if first is None:
        return None
    archive = Archive(home.archive_dir, save.game_id)
    if archive.data["header"] != digest(save.header):
        return None
    have = {digest(e) for e in save.entries}
    prev = save.entries[-1]["prev"]
    extra = [archive.evidence(h) for h, at in sorted(archive.data["rounds"].items())
             if at == first and h not in have]
    found = [e for e in extra if e is not None and e["prev"] == prev]
    if not found:
        return None
    try:
        return assemble([save, Save(save.header, found)])
    except PbemError:
        return None


def merge_files(paths: list[Path], home: Home | None, out: str | None
                ) -> tuple[Path, Save, list[str]]:
    """``pbem merge``: read the saves, assemble them, verify the result in ``home`` (its
    fork check sees every entry) and write it to ``out`` (default: its standard name
    beside the first save). Nothing is written if any check fails. Returns the path, the
    save and the handles its last round still waits for."""
    from pbem import session

    saves = [savefile.read(p) for p in paths]
    merged = assemble(saves)
    verified = session.verify(merged, home, record=False)
    session.refuse_stale(verified, home)
    target = Path(out) if out else paths[0].parent / save_name(merged)
    written = savefile.write_new(target, savefile.dumps(merged))
    if home is not None:
        session.verify(merged, home, path=written)
    table = verified.table
    return written, merged, [table.seats[s].handle for s in table.round_missing()]


def status(table: Table) -> dict[str, Any] | None:
    """docs/JSON.md's ``round``: the seats of the round the game waits on, those whose
    entry is missing from the save and those whose slot holds a proposal that they are
    absent, by handle in seat order, and for a round of turns what it signs
    (``sealed``: "sealed", "opening" or "") and whether it is secret-deck work the engine
    asked for (``deck_work``); None when it waits on no round."""
    seats = table.round_seats()
    if not seats:
        return None
    found: dict[str, Any] = {
        "seats": [table.seats[s].handle for s in seats],
        "missing": [table.seats[s].handle for s in table.round_missing()],
        "proposed": [table.seats[s].handle for s in table.round_signed
                     if not table.round_revealed(s)]}
    duty = table.duty()
    if duty is not None and duty.kind == "turn":
        found["sealed"] = table.step_kind()
        found["deck_work"] = table.deck_work_next()
    return found


def acting(table: Table) -> list[int]:
    """The seats that act now, in seat order: in a round, every seat still to sign in it
    (each signs in parallel); otherwise the one seat the duty names ([] with no duty)."""
    duty = table.duty()
    if duty is None:
        return []
    missing = table.round_missing()
    return missing if duty.seat in missing else [duty.seat]


def next_words(table: Table) -> tuple[str, list[str]]:
    """Who acts next, for ``show`` and ``verify``: ("turn by ann", ["ann"]), or in a round
    where several seats still sign, ("a turn by each of ann, cy", ["ann", "cy"]);
    ("", []) with no duty."""
    duty = table.duty()
    if duty is None:
        return "", []
    handles = [table.seats[s].handle for s in acting(table)]
    if table.deck_work_next():  # a turn that only does the deck work its seat owes
        return f"secret-deck work by {_each(handles)}", handles
    if len(handles) == 1:
        return f"{duty.kind} by {handles[0]}", handles
    return f"a {duty.kind} by each of {', '.join(handles)}", handles


def _each(handles: list[str]) -> str:
    return handles[0] if len(handles) == 1 else f"each of {', '.join(handles)}"


def status_line(table: Table) -> str:
    """The sentence ``verify`` and ``show`` print for :func:`status` ('' if no round)."""
    found = status(table)
    if found is None:
        return ""
    duty = table.duty()
    kind = duty.kind if duty is not None else "entrie"  # a round stands before the end
    proposed = found["proposed"]
    done = [h for h in found["seats"] if h not in found["missing"] and h not in proposed]
    held = f"this save holds those of {', '.join(done)}" if done else "this save holds none"
    if proposed:  # a slot holding a proposal holds no entry of its seat
        held += (f", and a proposal that {proposed[0]} is absent in {proposed[0]}'s slot"
                 if len(proposed) == 1 else
                 f", and proposals that {', '.join(proposed)} are absent in their slots")
    sealed = {"sealed": " (sealed: each commits to its moves, which the next round opens)",
              "opening": " (opening the moves each sealed)"}.get(found.get("sealed", ""), "")
    if table.deck_work_next():
        kind, sealed = "entrie", " doing the secret-deck work each seat owes (no move to choose)"
    return (f"Round: the {kind}s of {', '.join(found['seats'])}{sealed}, signed in parallel; "
            f"{held}; "
            f"missing: {', '.join(found['missing'])}. Any home holding them all assembles "
            "the save ('pbem merge', or 'pbem inbox' by itself).")
