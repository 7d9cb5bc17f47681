"""Branches of a game as a home sees them (PROTOCOL.md sections 5 and 8): the seed is
revealed on one branch only, a home leaves the branches it stops playing on, and a link of
its beacon chains is published once, on any branch."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from pbem import atomic
from pbem.errors import TurnError
from pbem.home import claims
from pbem.home.archive import Archive
from pbem.protocol.crypto.beacon import Position
from pbem.protocol.crypto.identity import Home, Identity
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Entry, Save
from pbem.protocol.state.table import Table
from pbem.session.verified import Verified


def guard_branches(home: Home, verified: Verified, identity: Identity, kind: str,
                   leave_branch: bool = False) -> None:
    """The seed is revealed on one branch only (PROTOCOL.md section 5, the last point):
    TurnError if this home revealed this seat's seed on another branch than this save's,
    or if ``kind`` is a reveal while this home knows a branch of the game that goes on
    without it (and ``leave_branch`` does not drop it)."""
    save, handle = verified.save, identity.handle
    archive = Archive(home.archive_dir, save.game_id)
    mine = [e for e in save.entries if e["seat"] == handle and e["kind"] == "reveal"]
    shown_seq = archive.revealed(handle)
    opens = verified.table.game.opens_at_reveal()
    if shown_seq is not None and not mine:
        # (where the deck's secrets come from a deck seed, the seed opens no card: only
        # the cards the reveal opened are public; PROTOCOL.md section 3)
        public = ("every link of your beacon chain and every secret card your reveal "
                  "opened are" if opens else
                  "every link of your beacon chain and every secret of yours is")
        raise TurnError(
            f"You ({handle}) revealed your seed on another branch of this game (entry "
            f"{shown_seq}): {public} public there, so pbem signs nothing more for you on a "
            "branch without that reveal. Play on the save where you revealed.",
            code="revealed-elsewhere")
    if kind != "reveal" or leave_branch or verified.branches_void:
        return  # (a branch the rule of PROTOCOL.md section 11 voids does not go on)
    others = archive.elsewhere(verified.report.hashes)
    if others:
        seq, seat = others[0]
        more = f" and {len(others) - 1} more" if len(others) > 1 else ""
        raise TurnError(
            f"You ({handle}) cannot reveal your seed on this save: this home has seen another "
            f"branch of this game that goes on without this save (entry {seq} by {seat}"
            f"{more}, on a save this one does not contain). {_reveal_shows(opens)} "
            "Settle with the other players which branch the game continues and play on "
            "that one; if it is this one and they have dropped the other, run 'pbem play "
            "SAVE --leave-branch' to leave it and reveal. Nothing was written.",
            code="other-branch")


def _reveal_shows(opens: bool) -> str:
    """What a reveal on this save makes public on another branch, in a sentence: where the
    reveal opens its seat's cards (Game.opens_at_reveal) its seed opens none."""
    if opens:
        return ("Your seed makes every link of your beacon chain public, on that branch "
                "too, and your reveal opens the secret cards you hold here, which that "
                "branch may share.")
    return ("Your seed makes every link of your beacon chain and every secret card of "
            "yours public, on that branch too.")


def went_on(home: Home, save: Save, entry: savefile.Entry, leave_branch: bool = False) -> None:
    """After this home signed ``entry`` (the last of ``save``): a turn, start or resign
    (or ``leave_branch``) continues this branch, so this home leaves every other one it
    knows; a reveal is recorded (:func:`guard_branches`)."""
    archive = Archive(home.archive_dir, save.game_id)
    with contextlib.suppress(OSError):
        if entry["kind"] == "reveal":
            archive.mark_revealed(entry["seat"], int(entry["seq"]))
        if leave_branch or entry["kind"] in ("turn", "start", "resign"):
            archive.leave([digest(e) for e in save.entries])


LOCKS_DIR = "locks"


def lock_path(home: Home, game_id: str) -> Path:
    """The game's lock in this home (session.game_lock): held from reading a save to
    writing the next, so every claim of a link in the game is made under it."""
    return home.path / LOCKS_DIR / f"{game_id}.lock"


class OwnLinks:
    """A link is published once (PROTOCOL.md section 5): the places of its chains this
    home published in the game, on any branch (``used``); ``claim`` records the next one
    in its archive, under the lock, before the entry is signed; ``writing`` journals the
    save it goes to before that is written; ``release`` gives it back if the save could
    not be written. ``voided``: the evidence the seat's next entry on the save with entry
    hashes ``hashes`` carries, when its next place is one it published on a branch an
    answer to a proposal voided (None if it needs none).

    A claim a pbem of this home left pending (it stopped between the claim and the
    write) is settled first (pbem.home.claims), with a line on stderr: ``held`` says
    the caller holds the game's lock; else it is settled only if no pbem holds it."""

    def __init__(self, home: Home, table: Table, identity: Identity,
                 hashes: list[str] | None = None, held: bool = False) -> None:
        self.archive = Archive(home.archive_dir, table.game_id)
        if self.archive.pending():
            _recover(home, self.archive, held)
        self.handle = identity.handle
        self.used = self.archive.published(identity.handle)
        self.claimed: Position | None = None
        seat = table.seat_of(identity.handle)
        self.voided = None if hashes is None or seat is None or not table.seats[seat].pubkey \
            else signing.find_voided(table, seat, hashes, self.used, self.archive.successors,
                                     self.archive.evidence)

    def branch_words(self, hashes: list[str]) -> str:
        """Which of this home's entries lie on other branches than the save with entry
        hashes ``hashes`` (the branch a refused signer is told to go on with)."""
        mine = [seq for seq, signer in self.archive.elsewhere(hashes) if signer == self.handle]
        if not mine:
            return ""
        return (f" Your entr{'y' if len(mine) == 1 else 'ies'} of that branch: "
                f"{', '.join(str(seq) for seq in mine)} ('pbem games' shows its newest save).")

    def claim(self, place: Position) -> None:
        self.archive.claim(self.handle, place.number)
        self.claimed = place

    def writing(self, path: Path, entry: Entry) -> None:
        """Journal the file the signed ``entry`` is about to be written to."""
        if self.claimed is not None:
            self.archive.writing(self.handle, self.claimed.number, path, entry)

    def release(self) -> None:
        if self.claimed is not None:
            with contextlib.suppress(OSError):
                self.archive.release(self.handle, self.claimed.number)
            self.claimed = None


def _recover(home: Home, archive: Archive, held: bool) -> None:
    """Settle the claims pending in ``archive`` unless a pbem of this home holds the
    game's lock (it may be between its claim and its write); say what became of each."""
    with contextlib.suppress(OSError), contextlib.ExitStack() as stack:
        # (a home it cannot lock or write: the claims stay pending, as they were)
        if held or stack.enter_context(atomic.try_locked(lock_path(home, archive.game_id))):
            for line in claims.recover(archive):
                print(f"pbem: {line}", file=sys.stderr)
