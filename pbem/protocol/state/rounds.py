"""Rounds (PROTOCOL.md section 4): entries signed in parallel on one predecessor.

A round's entries all carry the same ``prev`` and a signed ``round``, the seq of the
round's first entry; the save holds them in seat order, each at the seq its seat's place
in the round's set fixes. The entry after a complete round has ``prev`` =
:func:`round_digest` of the round's entry digests, in seat order. This module holds that
digest and the structural check chain.py runs before any game code (which seats may sign
in a round is the engine's: pbem.protocol.state.table.Table.round_seats).
"""

from __future__ import annotations

from pbem.errors import IntegrityError
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Entry, Save

# The first item of the list whose canonical bytes a round digest hashes: a list can never
# be read as an entry (a table), and the label keeps it apart from any other list.
ROUND_LABEL = "pbem/2/round"

# The kinds of rounds in whose slot a seat that signed in the round may propose a seat
# still missing absent (docs/protocol-rounds.md): a reveal round and a round of a
# simultaneous step. Joins come before anyone can be declared absent.
SLOT_PROPOSAL_KINDS = ("reveal", "turn")


def admits_slot_proposals(kind: str) -> bool:
    """Whether a round of entries of ``kind`` admits a proposal in a missing seat's slot."""
    return kind in SLOT_PROPOSAL_KINDS


# The first item of the list a sealed move's commitment hashes (docs/protocol-rounds.md).
SEALED_LABEL = "pbem/2/sealed"


def sealed_commitment(game_id: str, seq: int, moves: list[str], salt: str) -> str:
    """SHA-256 hex of the canonical JSON list ``["pbem/2/sealed", game id, seq, moves,
    salt]``: the commitment entry ``seq`` of a sealed step carries in place of its moves
    (canonical strings), ``salt`` the lower-case hex the opening entry publishes."""
    return digest([SEALED_LABEL, game_id, seq, list(moves), salt])


def round_digest(digests: list[str]) -> str:
    """SHA-256 hex of the canonical JSON list ``["pbem/2/round", d1, d2, ...]``: the
    lower-case hex digests of the round's entries, in seat order (PROTOCOL.md, Rounds)."""
    return digest([ROUND_LABEL, *digests])


def save_name(save: Save) -> str:
    """The standard file name of ``save``: as savefile.default_name, but a save ending in
    two or more entries of one round is named by all their signers ('bob+cy'), never by
    one, so it takes no name of a save that holds only that signer's entry."""
    last = save.entries[-1]
    signers = [e["seat"] for e in save.entries
               if "round" in last and e.get("round") == last["round"]]
    who = "+".join(signers) if len(signers) > 1 else last["seat"]
    return savefile.default_name(save.ruleset, save.game_id, last["seq"], who)


class OpenRound:
    """The round chain.authenticate is reading: where it starts, the ``prev`` all its
    entries share, the number of seats of the game (a round has at most one slot each),
    the seq and digest of each of its entries so far."""

    def __init__(self, first: int, prev: str, slots: int) -> None:
        self.first = first
        self.prev = prev
        self.slots = slots
        self.seqs: list[int] = []
        self.digests: list[str] = []

    def expect_seq(self, entry: Entry) -> None:
        """A round entry's seq: at or after the round's first, after the one before it,
        and within the round's slots (one a seat: a seq past them would make the check
        for missing entries, and its message, as long as the forger likes)."""
        seq = entry["seq"]
        low = self.seqs[-1] + 1 if self.seqs else self.first
        if seq < low:
            raise IntegrityError(
                f"Entry {seq} of the round that starts at entry {self.first} stands out of "
                "seat order, or twice: a round's entries are stored in seat order.",
                seq=seq, code="round")
        if seq >= self.first + self.slots:
            raise IntegrityError(
                f"Entry {seq} says it is signed in the round that starts at entry "
                f"{self.first}, but a round of this game has at most {self.slots} entries "
                f"(one a seat), entries {self.first} to {self.first + self.slots - 1}.",
                seq=seq, code="round")

    def close(self, seq: int) -> str:
        """The round ends before entry ``seq``: none of its seqs may be missing (only the
        last round of a save may be incomplete), and its digest is the next ``prev``."""
        missing = sorted(set(range(self.first, self.seqs[-1] + 1)) - set(self.seqs))
        if missing:
            raise IntegrityError(
                f"Entry {seq} follows a round whose entries {_listed(missing)} are missing: "
                "only the last round of a save may be incomplete. Ask the sender for the "
                "complete save, or assemble it with 'pbem merge'.", seq=seq, code="round")
        return round_digest(self.digests)


def _listed(seqs: list[int]) -> str:
    return ", ".join(str(s) for s in seqs) or "(none)"
