"""Evidence for a skip of beacon links (PROTOCOL.md section 5, "A link is published once").

A seat never publishes a link twice and never skips one, with one exception. Seat X,
proposed absent in entry s (an ``absent`` entry A), may answer on the save before the
proposal: its entry P at s, a sibling of A, makes its branch the game's and voids the
branch built on A. A seat Y that signed entries in the order of play on that voided branch
published links there; on P's branch its next entry skips exactly those places and
carries, as ``evidence``, the voided branch's entries from A up to the last of Y's
link-carrying ones there. :func:`check` is what a verifier accepts:

* the first is an ``absent`` entry at some seq s below the skipping entry, naming the seat
  whose entry at s on this save (P) has A's ``prev`` and is not A, and P publishes a link
  (X's answer, in the order of play) and wins by the branch rule (branchrule.branch_rule:
  signed before A);
* they are consecutive entries (seq s, s+1, ...), each one's ``prev`` the hash of the one
  before, of this game, each validly signed by the key its seat joined this save with;
* the last is Y's and carries a link, and Y published no link on this save after s (so
  Y's chain stands where it stood when the branches parted).

The caller then follows Y's chain through Y's link-carrying evidence entries, one link at
a time, and on to the skipping entry's own link, and the rules replay (engine) replays
the evidence as a branch of the game from where it parted, none of it dated ahead of the
home's clock: every skipped place is one Y published, in a signed entry, on a valid
branch the answer voided. What a seat able to sign such a branch alone can still do is
in docs/protocol-beacon.md.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.errors import IntegrityError
from pbem.protocol.crypto.identity import verify_signature
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import LINK_KINDS, Entry, Save
from pbem.protocol.state.branchrule import branch_rule


def forks(entries: list[Entry]) -> dict[int, int]:
    """seq -> the seq its evidence parts from the save at, for each entry carrying some."""
    return {int(e["seq"]): int(e["evidence"][0]["seq"]) for e in entries if "evidence" in e}


def own_links(entry: Entry) -> list[Entry]:
    """The entries of ``entry``'s evidence by its own seat that publish a link, in order."""
    return [e for e in entry.get("evidence", [])
            if e["seat"] == entry["seat"] and e["kind"] in LINK_KINDS]


def check(save: Save, index: int, keys: dict[str, str], hashes: list[str],
          last_link_seq: int) -> list[Entry]:
    """The link-carrying evidence entries of entry ``index``'s seat, once the evidence is
    found sound (see the module docstring); IntegrityError (exit 3, code beacon) if not.
    ``keys``: handle -> key of the seats joined; ``hashes``: the digests of the entries
    before ``index``; ``last_link_seq``: the entry that published the seat's newest link."""
    entry = save.entries[index]
    handle = entry["seat"]
    carried: list[Entry] = entry["evidence"]
    first = carried[0]
    fork = first["seq"]

    def refuse(why: str) -> IntegrityError:
        return IntegrityError(
            f"Entry {index} ({handle}) skips beacon links on evidence that does not hold: "
            f"{why}. A skip is accepted only where an answer to a proposal voided the "
            "branch the seat published those links on.", seq=index, code="beacon")

    if first["kind"] != "absent" or not 0 < fork < index:
        raise refuse("its first entry is not a proposal made before this entry")
    answer = save.entries[fork]
    if (answer["seat"] != first.get("player") or answer["prev"] != first["prev"]
            or hashes[fork] == digest(first) or answer["kind"] not in LINK_KINDS):
        raise refuse(f"entry {fork} of this save is not the answer of the seat that "
                     "proposal names, signed on the save before it")
    if branch_rule(answer, first)[0] is not answer:
        raise refuse(f"entry {fork} of this save, the answer, is not signed before the "
                     "proposal, so it voided nothing")
    if last_link_seq > fork:
        raise refuse(f"{handle} published a link on this save after entry {fork} already")
    head = first["prev"]
    for offset, voided in enumerate(carried):
        _check_voided(voided, fork + offset, head, save.game_id, keys, refuse)
        head = digest(voided)
    last = carried[-1]
    if last["seat"] != handle or last["kind"] not in LINK_KINDS:
        raise refuse(f"its last entry is not one of {handle}'s that publishes a link")
    return own_links(entry)


def _check_voided(voided: Entry, seq: int, head: str, game_id: str, keys: dict[str, str],
                  refuse: Callable[[str], IntegrityError]) -> None:
    """One entry of the voided branch: its place in that branch and its signature."""
    if voided["seq"] != seq or voided["prev"] != head or voided["game"] != game_id:
        raise refuse(f"its entry {seq} does not follow the one before it on one branch")
    key = keys.get(voided["seat"])
    if key is None or voided["kind"] in ("create", "join"):
        raise refuse(f"its entry {seq} is by no seat that joined this save")
    body = canonical({k: v for k, v in voided.items() if k != "sig"})
    if not verify_signature(bytes.fromhex(key), bytes.fromhex(voided["sig"]), body):
        raise refuse(f"its entry {seq} does not match {voided['seat']}'s signature")
