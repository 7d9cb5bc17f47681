"""Taking back an entry not yet sent (PROTOCOL.md section 10): ``withdraw`` sets the
newest save aside and names the one before it; ``mark_sent`` records what was sent.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import NamedTuple

from pbem import session
from pbem.errors import PbemError, TurnError, UsageError
from pbem.home import gameindex
from pbem.home.archive import Archive
from pbem.protocol.crypto.beacon import Position
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save


# ---- taking back an entry not yet sent (PROTOCOL.md section 10) ------------------------------
class Withdrawn(NamedTuple):
    entry: savefile.Entry  # the entry taken back
    kept_as: Path  # the withdrawn save, renamed so that it is not taken for the current one
    previous: Path  # the save to play on again
    wrote_previous: bool  # pbem wrote ``previous`` (else it was there already)


WITHDRAWN_SUFFIX = ".withdrawn"


def withdraw(home: Home, path: str | Path) -> Withdrawn:
    """``pbem undo SAVE``: take back this home's newest entry, if nobody can have it.

    Only the newest entry of the game, signed by this home, with no later entry seen by
    this home, and never mailed by ``pbem send``/``play --send``. The archive records the
    withdrawal (so the replacement is no fork here, and a save holding the withdrawn
    entry is refused); the file is renamed to ``NAME.withdrawn``; the save before the
    entry is written next to it unless it is there already."""
    identity = home.load()
    source = Path(path)
    verified = session.load(source, home)
    save, table = verified.save, verified.table
    entry = save.entries[-1]
    entry_hash = verified.report.hashes[-1]
    seq, kind, signer = entry["seq"], entry["kind"], entry["seat"]
    what = f"entry {seq} ({kind} by {signer})"
    seat = table.seat_of(signer)
    if signer != identity.handle or seat is None or \
            table.seats[seat].pubkey != identity.public_hex:
        raise TurnError(f"The newest entry of this save, {what}, was not signed by you "
                        f"({identity.handle}): only its signer can take it back.")
    if kind in ("create", "join"):
        raise TurnError(f"{what.capitalize()} cannot be taken back: it holds your key and "
                        "the nonce of your secrets. Start a new game instead.")
    archive = Archive(home.archive_dir, save.game_id)
    later = archive.successor_of(entry_hash)
    if verified.stale or later is not None:
        after = f" (entry {later[0]} by {later[1]})" if later else ""
        raise TurnError(f"This home has already seen an entry after {what}{after}: the game "
                        "has moved on, so it can no longer be taken back.")
    if archive.was_sent(entry_hash):
        raise TurnError(f"{what.capitalize()} was already mailed (pbem send): the others may "
                        "have it, so it can no longer be taken back. Play on from it; after an "
                        "entry has been sent only the other players could agree to undo it.")
    before = Save(save.header, save.entries[:-1], {})
    before.state = engine.public_state(engine.replay(before, check_snapshot=False,
                                                     audit_secrets=False).table)
    previous, wrote = _previous_save(before, source)
    archive.withdraw(entry, entry_hash)
    if kind == "reveal":  # the seed was never mailed: the reveal can be signed again
        archive.unmark_revealed(signer, seq)
    # Its link was never sent: the replacement signs at the same place (section 10). An
    # entry signed out of the order of play published no link, so it gives none back.
    if kind in savefile.LINK_KINDS:
        record = table.seats[seat]
        archive.release(signer, Position(record.chain, record.depth).number)
    kept_as = _set_aside(source)
    if wrote:
        savefile.write_new(previous, savefile.dumps(before))
    # The game's short id names the save before it again ('pbem games', every SAVE).
    with contextlib.suppress(OSError):
        gameindex.GameIndex(home.path).withdraw(save.game_id, entry_hash)
    with contextlib.suppress(PbemError):
        session.load(previous, home)  # verified, and recorded as the newest save of the game
    return Withdrawn(entry, kept_as, previous, wrote)


def _previous_save(before: Save, near: Path) -> tuple[Path, bool]:
    """Where the save before the withdrawn entry is: its standard name next to ``near``
    if that file holds exactly it, else a free name to write it to."""
    last = before.entries[-1]
    name = savefile.default_name(before.ruleset, before.game_id, last["seq"], last["seat"])
    target = near.parent / name
    for number in range(1, 100):
        if not target.exists():
            return target, True
        try:
            there = savefile.read(target)
            if digest(there.entries[-1]) == digest(last) and len(there.entries) == len(before.entries):
                return target, False
        except PbemError:
            pass
        target = near.parent / name.replace(".toml", f"-{number}.toml")
    raise UsageError(f"Too many files named like {name} in {near.parent}; tidy the folder.")


def _set_aside(source: Path) -> Path:
    """Rename the withdrawn save to NAME.withdrawn (never over another file)."""
    target = source.with_name(source.name + WITHDRAWN_SUFFIX)
    number = 1
    while target.exists():
        target = source.with_name(f"{source.name}{WITHDRAWN_SUFFIX}{number}")
        number += 1
    try:
        source.rename(target)
    except OSError as exc:
        raise UsageError(f"The entry was taken back, but {source} could not be renamed "
                         f"({exc.strerror}); do not send it: delete it or rename it yourself."
                         ) from None
    return target


def mark_sent(home: Home, save: Save | str | Path) -> None:
    """Record in the home's archive that this save left by mail (``pbem send``, ``play
    --send``): its newest entry can no longer be taken back (PROTOCOL.md section 10).
    A save that cannot be read, or an archive that cannot be written, records nothing."""
    with contextlib.suppress(PbemError, OSError):
        parsed = save if isinstance(save, Save) else savefile.read(save)
        last = parsed.entries[-1]
        Archive(home.archive_dir, parsed.game_id).mark_sent(digest(last), last["seq"])
