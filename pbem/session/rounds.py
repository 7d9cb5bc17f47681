"""Assembling a round (PROTOCOL.md section 4): one save from saves that each hold part of
it, as ``pbem merge`` and the mail commands do."""

from __future__ import annotations

from pbem.errors import IntegrityError, UsageError
from pbem.protocol import engine
from pbem.protocol.archive import equivocation
from pbem.protocol.canonical import digest
from pbem.protocol.savefile import Entry, Save


def assemble(saves: list[Save]) -> Save:
    """The save holding every entry of ``saves`` (saves of one game, each a prefix of it
    or holding part of its last round), with its state replayed. UsageError if they are
    of different games or branches, IntegrityError("fork") if one seat signed two
    different entries at one place; the result is checked by engine.replay."""
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


__all__ = ["assemble", "IntegrityError"]
