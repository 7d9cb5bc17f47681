"""The home's archive of seen entries (PROTOCOL.md sections 2, 8 and 9).

Per game, under ``HOME/archive/``:

``<game id>.json``
    the header hash (and the digest of the component data it carries, which the note on
    component data needs: ``components``), every entry this home verified (hash -> position and signer), the
    verified successors of each entry (the first in ``by_prev``, any other, signed by
    another seat, in ``alt``: a branch, PROTOCOL.md section 11), the newest head seen and
    the replayed table at that head; the entries this home withdrew with ``pbem undo``
    and the entries it mailed (``sent``: those can no longer be withdrawn, section 10);
    every place of its beacon chains this home published in the game, on any branch
    (``published``: handle -> sorted [first, last] runs of beacon.Position numbers),
    claimed under the lock before the entry is signed (section 5: a link is published
    once), with a journal of each claim whose save is not yet written (``claims``:
    handle -> place -> what it was for, pbem.home.claims); the entries of branches this
    home left (``left``: it went on with another, section 11) and the seats whose reveal
    it signed (``revealed``: handle -> seq): it never reveals a seed while it knows a
    branch that goes on without that reveal, and signs nothing on such a branch once it
    has; the beacon link of every verified entry
    in the order of play (``links``: a hash of the link -> entry hash), so a link signed
    again after another predecessor is refused (section 5).
    Hashes only (and, while a save is being written, its path and its new entry's
    signature): reading and rewriting it stays cheap.
``<game id>.evidence.jsonl``
    each verified entry in full, one JSON line each, appended once. Read only when a fork
    is found, to show the entry the new one conflicts with.

It proves equivocation (two validly signed entries by one seat after the same entry),
tells a branch (two entries by different seats after the same entry: the absent player
came back while the others voted) from a fork, notices stale saves (a save this home has
seen an entry after), tells chain.authenticate which entries it verified at which position
(their second signature check can be skipped; nothing else is), and gives the table to
resume the rules replay from. The game ids it holds are the ids this home has seen: it
refuses to create or sign in a game whose id it saw with another header.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pbem import atomic
from pbem.errors import IntegrityError, TurnError, UsageError
from pbem.hashing import sha256_hex
from pbem.protocol.saveformat import timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import HEX64, LINK_KINDS, Entry
from pbem.protocol.timekeeping import clock
from pbem.terminal import shown

VERSION = 2
MAX_EVIDENCE_LINE = 4 * 1024 * 1024


class Archive:
    def __init__(self, folder: Path, game_id: str) -> None:
        self.path = folder / f"{game_id}.json"
        self.evidence_path = folder / f"{game_id}.evidence.jsonl"
        self.lock_path = folder / f"{game_id}.lock"
        self.game_id = game_id
        self.data: dict[str, Any] = _empty(game_id)
        self._unfiled: list[tuple[str, Entry]] = []  # evidence to append at the next write
        self._load()

    def _load(self) -> None:
        self.data = _empty(self.game_id)
        self._unfiled = []
        game_id = self.game_id
        try:
            loaded = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError, RecursionError):
            return  # a missing or damaged archive only costs a full re-check
        if not isinstance(loaded, dict) or loaded.get("game") != game_id:
            return
        if loaded.get("version") == VERSION and _well_formed(loaded):
            for key in ("alt", "withdrawn", "sent", "published", "revealed", "first_seen",
                        "links", "rounds"):
                loaded.setdefault(key, {})  # absent from older archives
            loaded.setdefault("left", [])
            loaded["claims"] = _journal(loaded.get("claims"))
            self.data = loaded

    # ---- questions ----------------------------------------------------------------
    @staticmethod
    def seen(folder: Path, game_id: str) -> bool:
        """Whether this home has an archive of a game with this id (PROTOCOL.md 2)."""
        return (folder / f"{game_id}.json").exists()

    def known(self, entry_hash: str) -> bool:
        return entry_hash in self.data["entries"]

    def verified_at(self, index: int, entry_hash: str) -> bool:
        """True if this home verified exactly this entry at position ``index`` (the
        caller, chain.authenticate, has checked the prev chain up to it)."""
        place = self.data["entries"].get(entry_hash)
        return place is not None and place[0] == index

    def head_seq(self) -> int:
        return int(self.data["head"].get("seq", -1))

    def cached_table(self, hashes: list[str]) -> tuple[int, dict[str, Any]] | None:
        """(index after which to resume, table json) if the cache sits on this save's path.

        ``hashes`` must come from chain.authenticate of the save: then the entry with the
        cached hash, and every entry before it, are those this home replayed. Where that
        entry ends a round, its hash pins the entry before the round but not the round's
        other entries (each follows the entry before the round): the save's round
        digest there must be the head the cached table reached (PROTOCOL.md section 4),
        else a save with another entry in an earlier slot would be read with this
        table."""
        cache = self.data.get("cache") or {}
        target = cache.get("hash")
        if not target:
            return None
        place = self.data["entries"].get(target)
        if place is None:
            return None
        index = place[0]
        if index >= len(hashes) or hashes[index] != target:
            return None
        table = cache["table"]
        if not isinstance(table, dict) or table.get("head") != self._tail(hashes[:index + 1]):
            return None
        return index + 1, table

    def successors(self, prev: str) -> list[str]:
        """The hashes of the verified entries that follow the entry ``prev``, oldest first."""
        first = self.data["by_prev"].get(prev)
        return ([first] if first else []) + list(self.data["alt"].get(prev, []))

    def fork_with(self, entry: Entry, entry_hash: str) -> Entry | None:
        """An archived, different entry by the same seat that has the same predecessor,
        if any (the full entry from the evidence file, or its position and signer if that
        is lost)."""
        for other in self.successors(entry["prev"]):
            seq, seat = self.data["entries"][other]
            if other != entry_hash and seat == entry["seat"] \
                    and not self._same_round(entry, other):
                return self.evidence(other) or {"seq": seq, "seat": seat, "moves": None}
        return None

    def check_fork(self, entry: Entry, entry_hash: str) -> None:
        """Raise IntegrityError("fork") if this home verified another entry by the same
        seat after the same predecessor (PROTOCOL.md section 8); an entry by another seat
        there is a branch, not a fork (section 11). An entry this home withdrew with
        ``pbem undo`` is refused: TurnError("withdrawn"), or the fork if its replacement
        was signed (section 10)."""
        evidence = self.fork_with(entry, entry_hash)
        if evidence is not None:
            note = (" This home took back the second with 'pbem undo' and signed the first "
                    "instead; the one taken back was mailed anyway."
                    if entry_hash in self.data["withdrawn"] else "")
            raise equivocation(entry, evidence, note)
        self._check_link_once(entry, entry_hash)
        if entry_hash in self.data["withdrawn"]:
            raise TurnError(
                f"Entry {entry['seq']} of this save ({entry['kind']} by {entry['seat']}) was "
                "taken back with 'pbem undo' in this home; it is no longer part of the game. "
                "Play on the save before it instead.", seq=entry["seq"], code="withdrawn")

    def _check_link_once(self, entry: Entry, entry_hash: str) -> None:
        """Raise IntegrityError("beacon") if this home verified another entry, after
        another predecessor, that carries this entry's beacon link (PROTOCOL.md section 5,
        a link is published once): a seat that published a link on a branch an answer
        voided skips it on the game's branch, with that branch as evidence. Signing the
        place again instead would let it choose between two outcomes of the chance its
        link resolves. (The same place after the same predecessor is a fork, or an undo:
        check_fork's.)"""
        other = self.data["links"].get(_link_key(entry)) if entry["kind"] in LINK_KINDS \
            else None
        if other is None or other == entry_hash or other not in self.data["entries"]:
            return
        seq, seat = self.data["entries"][other]
        raise IntegrityError(
            f"Entry {entry['seq']} ({entry['seat']}) carries the beacon link {seat} published "
            f"in entry {seq} of another branch this home has seen: a link is published once. "
            f"On this branch {seat}'s entry must skip that place, carrying the other branch "
            "as evidence; signing it again lets the signer choose between two outcomes of "
            "its chance. The save is refused.", seq=int(entry["seq"]), code="beacon")

    def branch_notes(self, entries: list[Entry], hashes: list[str],
                     counted: clock.Counted | None = None) -> list[Branch]:
        """A sentence for each entry of this save that another verified entry, by another
        seat, also follows (two branches, PROTOCOL.md section 11), saying which branch is
        the game's by the rule of clock.branch_rule (``counted``: this home's view of when
        entries count from, pbem.protocol.timekeeping.holdback), and whether this save's is
        void."""
        notes = []
        for entry, entry_hash in zip(entries, hashes, strict=True):
            for other in self.successors(entry["prev"]):
                seq, seat = self.data["entries"][other]
                if other == entry_hash or seat == entry["seat"] or self._same_round(entry, other):
                    continue
                notes.append(_branch(entry, self.evidence(other), int(seq), str(seat), counted))
        return notes

    def _same_round(self, entry: Entry, other: str) -> bool:
        """Whether the verified entry ``other`` stands in another slot of the round
        ``entry`` is signed in (PROTOCOL.md section 4): entries of one round share their
        predecessor without being branches or forks (a seat that revealed in a reveal
        round may propose a seat absent in that seat's slot). Two different entries in
        one slot are a branch (by two seats) or a fork (by one)."""
        seq, _ = self.data["entries"][other]
        return ("round" in entry and self.data["rounds"].get(other) == entry["round"]
                and int(seq) != entry["seq"])

    def successor_of(self, entry_hash: str) -> tuple[int, str] | None:
        """(seq, signer) of a verified entry that follows ``entry_hash``, if any."""
        for other in self.successors(entry_hash):
            seq, seat = self.data["entries"][other]
            return int(seq), str(seat)
        return None

    def published(self, handle: str) -> set[int]:
        """The places (beacon.Position numbers) of ``handle``'s chains this home published
        in this game, on any branch."""
        return {n for first, last in self.data["published"].get(handle, [])
                for n in range(first, last + 1)}

    def claim(self, handle: str, place: int) -> None:
        """Record, under the lock and before the entry is signed, that this home publishes
        ``handle``'s link at ``place``; TurnError if it did already (another pbem of this
        home signed there since this one read the archive: run the command again)."""
        with self._changing():
            used = self.published(handle)
            if place in used:
                raise TurnError(
                    "Another pbem of this home has just signed an entry of this game with the "
                    "same beacon link. Nothing was written; run the command again.",
                    code="link-used")
            self._set_published(handle, used | {place})
            # The journal (``claims``): claimed, nothing written yet (see pbem.home.claims).
            self.data["claims"].setdefault(handle, {})[str(place)] = {}
            try:
                self._write()
            except OSError as exc:  # no room, no permission: before anything is signed
                raise UsageError(
                    f"Could not record the entry about to be signed in {self.path.parent} "
                    f"({exc.strerror}). Nothing was signed or written.") from None

    def release(self, handle: str, place: int) -> None:
        """The entry that claimed ``place`` was never written, or ``pbem undo`` took it
        back before it was mailed (PROTOCOL.md section 10): the place is free again (its
        replacement signs at the same place), and its journal record goes."""
        with self._changing():
            used = self.published(handle)
            journal = self._unjournal(handle, str(place))
            if place in used:
                self._set_published(handle, used - {place})
            if place in used or journal is not None:
                self._write()

    def writing(self, handle: str, place: int, path: Path, entry: Entry) -> None:
        """Journal, before its save is written, what ``handle``'s claim of ``place`` was
        for: the entry (its hash, its link's key and its signature, which finds its
        bytes in a file) and the file its save goes to (pbem.home.claims reads it)."""
        with self._changing():
            if place not in self.published(handle):
                return  # (no claim to journal: nothing of this home's is pending)
            self.data["claims"].setdefault(handle, {})[str(place)] = {
                "path": os.path.abspath(path), "entry": digest(entry),
                "link": _link_key(entry), "sig": str(entry["sig"])}
            try:
                self._write()
            except OSError as exc:  # no room: before anything is written
                raise UsageError(
                    f"Could not record the entry about to be written in {self.path.parent} "
                    f"({exc.strerror}). Nothing was written.") from None

    def pending(self) -> list[tuple[str, int, dict[str, Any]]]:
        """(handle, place, journal record) of every claim whose save this home has not
        seen written, in order."""
        return [(handle, int(place), self.data["claims"][handle][place])
                for handle in sorted(self.data["claims"])
                for place in sorted(self.data["claims"][handle], key=int)]

    def has_link(self, key: str) -> bool:
        """Whether a verified entry carries the link whose key (_link_key) is ``key``."""
        return self.data["links"].get(key) in self.data["entries"]

    def settle(self, handle: str, place: int) -> None:
        """Drop the journal record of ``handle``'s claim of ``place``; the claim stays."""
        with self._changing():
            if self._unjournal(handle, str(place)) is not None:
                self._write()

    def written(self, entry_hash: str) -> None:
        """The save holding this home's new entry ``entry_hash`` is written whole: its
        claim is no longer pending, and a withdrawn entry signed again byte for byte
        (same moves, same second) is the game's entry once more."""
        if entry_hash not in self.data["withdrawn"] and not self._journaled(entry_hash):
            return
        with self._changing():
            changed = self.data["withdrawn"].pop(entry_hash, None) is not None
            if self._settled(entry_hash) or changed:
                self._write()

    def _journaled(self, entry_hash: str) -> bool:
        return any(record.get("entry") == entry_hash
                   for places in self.data["claims"].values() for record in places.values())

    def _settled(self, entry_hash: str) -> bool:
        """Drop the journal record of the claim made for the entry ``entry_hash``, if any."""
        for handle, places in sorted(self.data["claims"].items()):
            for place, record in sorted(places.items()):
                if record.get("entry") == entry_hash:
                    self._unjournal(handle, place)
                    return True
        return False

    def _unjournal(self, handle: str, place: str) -> dict[str, Any] | None:
        """Take the journal record of ``handle``'s claim of ``place`` out, if there is one."""
        places = self.data["claims"].get(handle, {})
        record = places.pop(place, None)
        if not places:
            self.data["claims"].pop(handle, None)
        return record

    def _set_published(self, handle: str, places: set[int]) -> None:
        runs: list[list[int]] = []
        for n in sorted(places):
            if runs and runs[-1][1] == n - 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        self.data["published"][handle] = runs

    # ---- branches and the seed (PROTOCOL.md section 5, the last point) ------------
    def elsewhere(self, hashes: list[str]) -> list[tuple[int, str]]:
        """(seq, signer) of every verified entry that is not on the path ``hashes`` (a
        save's entry hashes) and not on a branch this home left, oldest first: the
        branches of the game this home knows to go on without that save."""
        path, left = set(hashes), set(self.data["left"])
        return sorted((int(place[0]), str(place[1]))
                      for h, place in self.data["entries"].items()
                      if h not in path and h not in left)

    def leave(self, hashes: list[str]) -> None:
        """This home goes on with the save whose path is ``hashes``: every other entry it
        knows now is on a branch it leaves (an entry seen later on it counts again)."""
        path = set(hashes)
        if not self.elsewhere(hashes):
            return
        with self._changing():
            known = set(self.data["left"])
            self.data["left"].extend(h for h in self.data["entries"]
                                     if h not in path and h not in known)
            self._write()

    def revealed(self, handle: str) -> int | None:
        """The seq of ``handle``'s reveal, if this home signed it in this game (on any
        branch)."""
        seq = self.data["revealed"].get(handle)
        return seq if isinstance(seq, int) else None

    def mark_revealed(self, handle: str, seq: int) -> None:
        """Record that this home signed ``handle``'s reveal, entry ``seq``."""
        with self._changing():
            if handle not in self.data["revealed"]:
                self.data["revealed"][handle] = seq
                self._write()

    def unmark_revealed(self, handle: str, seq: int) -> None:
        """``pbem undo`` took back ``handle``'s reveal, entry ``seq``, before it was mailed:
        the seed is public on no branch, so the home may reveal it again (the same seed)."""
        with self._changing():
            if self.data["revealed"].get(handle) == seq:
                del self.data["revealed"][handle]
                self._write()

    def was_sent(self, entry_hash: str) -> bool:
        return entry_hash in self.data["sent"]

    def evidence(self, entry_hash: str) -> Entry | None:
        """The full entry with this hash, from the evidence file (read only for a fork)."""
        for wanted, entry in self._unfiled:
            if wanted == entry_hash:
                return entry
        try:
            with open(self.evidence_path, encoding="utf-8") as fh:
                for line in fh:
                    if len(line) > MAX_EVIDENCE_LINE or f'"{entry_hash}"' not in line:
                        continue
                    with contextlib.suppress(ValueError, RecursionError):
                        item = json.loads(line)
                        if isinstance(item, dict) and isinstance(item.get("entry"), dict) \
                                and digest(item["entry"]) == entry_hash:
                            return dict(item["entry"])
        except OSError:
            return None
        return None

    def staleness(self, hashes: list[str]) -> str:
        """A note if this home has seen an entry after this save's last one, else ''.

        (Not merely a longer save: a longer one on another branch does not make this one
        stale, PROTOCOL.md section 11.)"""
        head = self.data["head"]
        after = self.successor_of(self._tail(hashes)) if hashes else None
        if after is None:
            return ""
        seq, seat = after
        if head.get("seq", -1) >= seq:
            seq, seat = head["seq"], head.get("seat", "?")
        return (f"This save is stale: you have already seen a newer one of this game "
                f"(up to entry {seq}, {seat}). Use the newest save.")

    def _tail(self, hashes: list[str]) -> str:
        """The hash the entry after a save with these entry hashes follows: the last one's,
        or, where the save ends in a round, the round digest of its entries there
        (PROTOCOL.md section 4; only a complete round has a successor)."""
        rounds = self.data["rounds"]
        first = rounds.get(hashes[-1])
        if first is None:
            return hashes[-1]
        from pbem.protocol.state.rounds import round_digest

        tail: list[str] = []
        for h in reversed(hashes):
            if rounds.get(h) != first:
                break
            tail.insert(0, h)
        return round_digest(tail)

    # ---- recording ----------------------------------------------------------------
    def record(self, header_hash: str, entries: list[Entry], hashes: list[str],
               table_json: dict[str, Any], components: str = "", seen: str = "",
               waiting: tuple[str, ...] = (), later: tuple[str, ...] = ()) -> None:
        """File a verified save: its entries, its head and the table there. ``components``:
        ``digest(header["components"])``, kept beside the header hash it belongs to.

        ``seen``: this home's clock, filed as the first sight of each entry of the file it
        had not verified before: those of ``hashes`` and of ``waiting`` (the entries not
        yet in effect here, PROTOCOL.md section 11: only their first sight is filed; they
        are no successor and no head, so the save before them is not stale). ``later``,
        one per entry of ``hashes`` + ``waiting``: the newest signed time of the entries
        after it in the file by other seats ('' if none, timing.signed_after), filed with
        it (:func:`first_seen`); for the first save of a game this home sees, ``seen``
        itself."""
        with self._changing():
            known = self.data["entries"]
            every = [*hashes, *waiting]
            # A home's first sight of a game tells nothing of when each entry was signed:
            # it was not following. Its first entries are filed as explained (on time).
            later = later if known else tuple(seen for _ in every)
            after = dict(zip(every, later, strict=True)) if later else {}
            fresh = [h for h in every if h not in known]
            changed = self._record(header_hash, entries, hashes, table_json, components)
            changed = bool(seen) and self._first_sight(fresh, seen, after) or changed
            if changed or self._unfiled:  # a save seen before changes nothing: no write
                self._write()

    def _first_sight(self, hashes: list[str], seen: str, after: dict[str, str]) -> bool:
        """File ``seen`` as the first sight of each of ``hashes`` (entries this home had
        not verified) that has none yet, with the newest time signed after it."""
        known = self.data["first_seen"]
        fresh = [h for h in hashes if h not in known]
        for h in fresh:
            known[h] = [seen, after.get(h, "")]
        return bool(fresh)

    def late(self, entries: list[Entry], hashes: list[str], limit: datetime.timedelta
             ) -> list[dict[str, Any]]:
        """The entries of a file (``hashes``: theirs) that reached this home more than
        ``limit`` after their signed time (clock.late_after), each as docs/JSON.md's
        ``late`` lists it, with its sentence (``words``). An entry that came with a later
        one by another seat signed after it is not counted: that one came late, or the
        file waited for it (the usual way of a game of three or more)."""
        out = []
        for entry, entry_hash in zip(entries, hashes, strict=True):
            seen_text, after_text = self.first_seen(entry_hash)
            seen, when = timing.parse_stamp(seen_text), timing.signed_time(entry)
            after = timing.parse_stamp(after_text)
            if seen is None or when is None or (after is not None and after >= when):
                continue
            if seen - when > limit:
                out.append({"seq": entry["seq"], "kind": entry["kind"], "seat": entry["seat"],
                            "time": timing.stamp(when), "first_seen": timing.stamp(seen),
                            "words": clock.late_words(entry, seen)})
        return out

    def first_seen(self, entry_hash: str) -> tuple[str, str]:
        """(when this home first saw the entry, the newest time signed after it in the
        file it came in), ('', '') if it has no record: an entry that came with later
        entries reached this home late because of them, not of itself."""
        value = self.data["first_seen"].get(entry_hash)
        return (str(value[0]), str(value[1])) if isinstance(value, list) else ("", "")

    def components_digest(self, header_hash: str) -> str | None:
        """The digest of the component data of the header this home filed, if it is the
        header with hash ``header_hash`` and the digest was kept with it."""
        if self.data["header"] != header_hash or not header_hash:
            return None
        return self.data.get("components") or None

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """A change to the archive file: under its lock, on what the file holds now (another
        process may have recorded entries since this one read it; none is lost)."""
        with atomic.locked(self.lock_path):
            self._load()
            yield

    def _record(self, header_hash: str, entries: list[Entry], hashes: list[str],
                table_json: dict[str, Any], components: str) -> bool:
        """File the save in memory; whether anything changed."""
        if self.data["header"] and self.data["header"] != header_hash:
            return False  # a different header with this id: never mix the two
        changed = self.data["header"] != header_hash
        self.data["header"] = header_hash
        if components and self.data.get("components") != components:
            self.data["components"] = components
            changed = True
        for entry, h in zip(entries, hashes, strict=True):
            if h not in self.data["entries"]:
                self.data["entries"][h] = [entry["seq"], entry["seat"]]
                first = self.data["by_prev"].setdefault(entry["prev"], h)
                if first != h:
                    self.data["alt"].setdefault(entry["prev"], []).append(h)
                if entry["kind"] in LINK_KINDS:
                    self.data["links"].setdefault(_link_key(entry), h)
                if "round" in entry:
                    self.data["rounds"][h] = entry["round"]
                self._settled(h)  # the claim of its link is no longer pending
                self._unfiled.append((h, entry))
        last = entries[-1]
        if last["seq"] >= self.head_seq():
            head = {"seq": last["seq"], "hash": hashes[-1], "seat": last["seat"]}
            # A table in an incomplete round is never resumed from: the save that
            # completes the round may hold entries before this one (PROTOCOL.md 4).
            in_round = int(table_json.get("round_first", -1)) >= 0
            cache = {} if in_round else {"hash": hashes[-1], "table": table_json}
            changed = changed or self.data["head"] != head or self.data["cache"] != cache
            self.data["head"], self.data["cache"] = head, cache
        return changed

    def withdraw(self, entry: Entry, entry_hash: str) -> None:
        """Record that this home took back its entry ``entry_hash`` (``pbem undo``,
        PROTOCOL.md section 10): it leaves the verified entries, so its replacement is no
        fork here and a save holding it is refused; the head goes back to the entry
        before it."""
        with self._changing():
            self._withdraw(entry, entry_hash)

    def _withdraw(self, entry: Entry, entry_hash: str) -> None:
        place = self.data["entries"].pop(entry_hash, None)
        prev = entry["prev"]
        others = self.data["alt"].get(prev, [])
        if self.data["by_prev"].get(prev) == entry_hash:
            if others:
                self.data["by_prev"][prev] = others.pop(0)
            else:
                del self.data["by_prev"][prev]
        elif entry_hash in others:
            others.remove(entry_hash)
        if prev in self.data["alt"] and not others:
            del self.data["alt"][prev]
        self.data["withdrawn"][entry_hash] = place or [entry["seq"], entry["seat"]]
        if entry["kind"] in LINK_KINDS and self.data["links"].get(_link_key(entry)) == entry_hash:
            del self.data["links"][_link_key(entry)]  # its replacement signs the same link
        if self.data["head"].get("hash") == entry_hash:
            before = self.data["entries"].get(prev)
            self.data["head"] = ({"seq": before[0], "hash": prev, "seat": before[1]}
                                 if before else {})
            self.data["cache"] = {}
        self._write()

    def mark_sent(self, entry_hash: str, seq: int) -> None:
        """Record that this home mailed a save ending with this entry."""
        with self._changing():
            if entry_hash not in self.data["sent"]:
                self.data["sent"][entry_hash] = seq
                self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._unfiled:
            # Evidence first: an entry listed in the archive has its evidence on disk.
            with open(self.evidence_path, "a", encoding="utf-8") as fh:
                for h, entry in self._unfiled:
                    fh.write(json.dumps({"hash": h, "entry": entry}, ensure_ascii=False,
                                        separators=(",", ":")) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            self._unfiled = []
        atomic.replace(self.path, json.dumps(self.data, separators=(",", ":")).encode("utf-8"))


class Branch(NamedTuple):
    """Two branches seen by this home, in words; ``void``: this save's is not the game's."""

    note: str
    void: bool
    decided: bool = True  # False: the other entry's evidence is lost


def _branch(entry: Entry, other: Entry | None, seq: int, seat: str,
            counted: clock.Counted | None = None) -> Branch:
    """Which of two branches after entry ``seq - 1`` is the game's: this save's, going on
    with ``entry``, or the other, going on with ``other`` (by ``seat``; None if its
    evidence is lost)."""
    head = (f"Two branches after entry {seq - 1}: this save goes on with "
            f"{_a(entry['kind'])} by {entry['seat']} (entry {seq}), another save this home "
            f"has seen with {_a(str((other or {}).get('kind', 'entry')))} by {seat}.")
    if other is None:
        return Branch(f"{head} This home lost its copy of the other entry and cannot tell "
                      "which branch is the game's; verify the other save again.", False, False)
    winner, why = clock.branch_rule(entry, other, counted)
    if winner is entry:
        return Branch(f"{head} This save's branch is the game's: {why}; the other and "
                      "everything built on it is void.", False)
    return Branch(f"{head} The other branch is the game's: {why}; this save's branch is "
                  "void, and pbem signs nothing on it.", True)


def _link_key(entry: Entry) -> str:
    """The key ``links`` files an entry's beacon link under: a hash of it, apart from
    the chain's own (one SHA-256 of a link is the seat's previous link), so the archive
    holds hashes only."""
    return sha256_hex(b"pbem/archive/link" + bytes.fromhex(entry["beacon"]))


def _empty(game_id: str) -> dict[str, Any]:
    return {"version": VERSION, "game": game_id, "header": "", "entries": {}, "by_prev": {},
            "alt": {}, "head": {}, "cache": {}, "withdrawn": {}, "sent": {}, "published": {},
            "revealed": {}, "left": [], "first_seen": {}, "links": {}, "rounds": {},
            "claims": {}}


def _journal(value: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """The journal of claims (``claims``: handle -> place -> record) as far as it has
    the shape pbem.home.claims reads: a record that is no object is read as a damaged
    one, and a claim with no record stays as it was before the journal (published: a
    place is never freed on a guess)."""
    if not isinstance(value, dict):
        return {}
    return {handle: {place: record if isinstance(record, dict) else {"damaged": True}
                     for place, record in places.items()
                     if place.isascii() and place.isdigit()}
            for handle, places in value.items() if isinstance(places, dict)}


def _well_formed(data: dict[str, Any]) -> bool:
    """Enough shape to use without a KeyError; anything else is read as no archive."""
    entries, by_prev = data.get("entries"), data.get("by_prev")
    return (isinstance(data.get("header"), str) and isinstance(entries, dict)
            and isinstance(by_prev, dict) and isinstance(data.get("head"), dict)
            and isinstance(data.get("cache"), dict)
            and all(isinstance(v, list) and len(v) == 2 and isinstance(v[0], int)
                    for v in entries.values())
            and all(v in entries for v in by_prev.values())
            and all(isinstance(data.get(k, {}), dict)
                    for k in ("alt", "withdrawn", "sent", "published", "revealed",
                              "first_seen", "links"))
            and all(isinstance(v, str) for v in data.get("links", {}).values())
            and isinstance(data.get("rounds", {}), dict)
            and all(isinstance(v, int) for v in data.get("rounds", {}).values())
            and isinstance(data.get("left", []), list)
            and all(isinstance(h, str) for h in data.get("left", []))
            and all(isinstance(runs, list) and all(
                        isinstance(r, list) and len(r) == 2
                        and all(isinstance(n, int) and not isinstance(n, bool) for n in r)
                        and 0 < r[0] <= r[1] for r in runs)
                    for runs in data.get("published", {}).values())
            and _digest_or_absent(data.get("components"))
            and all(isinstance(v, list) and len(v) == 2 and all(isinstance(t, str) for t in v)
                    for v in data.get("first_seen", {}).values())
            and all(isinstance(v, list) and all(h in entries for h in v)
                    for v in data.get("alt", {}).values()))


def _digest_or_absent(value: Any) -> bool:
    return value is None or (isinstance(value, str) and HEX64.fullmatch(value) is not None)


def _a(kind: str) -> str:
    """'a turn', 'an absent' (proposal) ..."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}" + (" proposal" if kind == "absent"
                                                               else "")


def equivocation(entry: Entry, other: Entry, note: str = "") -> IntegrityError:
    seq = entry["seq"]
    theirs = "moves unknown" if other.get("moves") is None else f"moves {shown(other['moves'], 80)}"
    return IntegrityError(
        f"Fork: {entry['seat']} signed two different entries {seq} after the same entry "
        f"(one with {theirs}, this one with moves {shown(entry['moves'], 80)}). Two "
        "different saves were sent from one turn; settle it with the other players." + note,
        seq=seq, code="fork",
    )
