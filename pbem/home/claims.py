"""Claims of beacon links whose save was never written (docs/protocol-beacon.md, "The
home's record"): a crash, a power loss or ``kill -9`` between claiming a link and
writing the save must not lock the seat out of its game.

The archive journals each claim (``claims``: handle -> place -> record). The claim writes
an empty record (claimed, nothing written yet); just before the save is written, the
record names the file it goes to and the entry (its hash, its link's key, its signature);
once the save is written whole, or the archive files an entry carrying that link, the
record goes and the claim stays for good. A record still there belongs to a pbem that
stopped between the two, provided no pbem of this home holds the game's lock (the
signer holds it from reading the save to writing the next, so the caller of
:func:`recover` holds it). Then:

- an empty record: the write had not begun, and the signed entry never left the memory
  of the process that died. The link is free again.
- a record whose file holds the entry's signature, or whose link a verified entry
  carries: the save was written; the claim stays (the entry may have been mailed).
- else: the only file that ever held the entry is the atomic write's temporary file
  (a hidden ``.pbem-*.tmp`` beside the target, never mailed by pbem); it is removed, and
  the link is free again. A temporary file that cannot be removed, or a target that
  cannot be read, leaves the claim pending: pbem frees a link only when it can tell.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pbem.home.archive import Archive
from pbem.protocol.saveformat.savefile import HEX64, HEX128, MAX_SAVE_BYTES
from pbem.terminal import printable

TEMPORARY = (".pbem-", ".tmp")  # the name savefile.write_new gives the bytes before the link


def recover(archive: Archive) -> list[str]:
    """Settle every pending claim of ``archive``'s game; a sentence for each, saying what
    became of it (or why it stays pending). The caller holds the game's lock in this
    home: no claim of the game is live."""
    return [_settle(archive, handle, place, record)
            for handle, place, record in archive.pending()]


def _settle(archive: Archive, handle: str, place: int, record: dict[str, Any]) -> str:
    start = printable(f"An earlier play by {handle} on game {archive.game_id[:8]} was "
                      "interrupted")
    if not record:  # claimed, and stopped before the save's file was journaled
        archive.release(handle, place)
        return f"{start} before its save was written; its beacon link is free again."
    path, link, sig = record.get("path"), record.get("link"), record.get("sig")
    if not (isinstance(path, str) and isinstance(link, str) and isinstance(sig, str)
            and HEX64.fullmatch(link) and HEX128.fullmatch(sig)):
        archive.settle(handle, place)  # damaged: the claim stays, as before the journal
        return (f"{start}, and this home's record of it is damaged: its beacon link stays "
                "published, since pbem cannot tell whether its save was written.")
    where = printable(path)
    held = _holds(Path(path), sig.encode("ascii"))
    if held:
        _remove_leftovers(Path(path).parent, sig.encode("ascii"))  # (a copy of that save)
        archive.settle(handle, place)
        return (f"{start} after its save was written ({where}); that entry stands, and the "
                "game goes on from that save.")
    if archive.has_link(link):  # (a save of this home's was seen with that link)
        archive.settle(handle, place)
        return (f"{start}; this home has verified an entry with the beacon link it claimed, "
                "so that link stays published.")
    if held is None or not _remove_leftovers(Path(path).parent, sig.encode("ascii")):
        return (f"{start}; pbem cannot read {where} or its folder to tell whether its save "
                "was written, so its beacon link stays published for now.")
    archive.release(handle, place)
    return f"{start} before its save was written; its beacon link is free again."


def _holds(path: Path, sig: bytes) -> bool | None:
    """Whether the file at ``path`` holds the signature ``sig``; None if pbem cannot
    tell (unreadable, or larger than any save)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SAVE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        # No file, in a folder that is there: none was written. No folder (a drive taken
        # out, a folder moved): pbem cannot tell.
        return False if path.parent.is_dir() else None
    except IsADirectoryError:
        return False
    except OSError:
        return None
    return None if len(data) > MAX_SAVE_BYTES and sig not in data else sig in data


def _remove_leftovers(folder: Path, sig: bytes) -> bool:
    """Remove the atomic write's temporary files in ``folder`` that hold ``sig`` (the
    entry's bytes, whole or cut short); whether none is left. Another file is never
    touched: a temporary file without it is another write's, perhaps in progress."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return False
    for name in names:
        if name.startswith(TEMPORARY[0]) and name.endswith(TEMPORARY[1]):
            held = _holds(folder / name, sig)
            if held is None:
                return False
            if held:
                try:
                    os.unlink(folder / name)
                except FileNotFoundError:
                    continue
                except OSError:
                    return False
    return True
