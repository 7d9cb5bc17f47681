"""The players this home has met, remembered per home (HOME/contacts.toml).

Trust on first use, as ssh does with host keys: the first time a handle is seen with a
key (from its create/join entry) the pair is recorded and reported as a new player with
its fingerprint, so the person can compare it with the fingerprint their friend reads out.
Later, the same handle or one of its addresses appearing with a different key is a loud
warning: it may be a stranger who chose the same handle. The recorded key is never
replaced silently; ``forget`` drops a player so the next sighting is learnt afresh.

Call :func:`check_save` only on a save that verified: only then are its keys the keys
that really signed it.

    [players.bob]
    key = "9f1c..."                  # hex Ed25519 public key, "" until bob joins a game
    fingerprint = "1a2b:3c4d:5e6f:7a8b"
    emails = ["bob@example.org"]
    first_seen = "dice-race 1a2b3c4d"
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, NamedTuple

from pbem import atomic, tomltext
from pbem.errors import UsageError
from pbem.protocol.crypto.identity import Home, check_address, check_handle, fingerprint
from pbem.protocol.saveformat.savefile import Save

FILE = "contacts.toml"
LOCK_FILE = "contacts.lock"  # held while check_save reads, changes and writes the file


class Notice(NamedTuple):
    """Something learnt about a player. ``level`` is "info" or "warning"; ``code`` is one
    of new-player, new-email, key-changed, email-changed, email-key-changed,
    handle-clash."""

    level: str
    code: str
    handle: str
    message: str
    fingerprint: str = ""

    def to_json(self) -> dict[str, str]:
        return self._asdict()

    def __str__(self) -> str:
        return ("WARNING: " if self.level == "warning" else "") + self.message


class SeatKey(NamedTuple):
    """One seat's key as this home sees it (PROTOCOL.md section 3). ``status``:
    "you" (this home's own key), "new" (a handle this home has no key for), "known" (the
    key this home knows for the handle), "changed" (another key than the one this home
    knows for the handle: stop until the user confirms) or "waiting" (not joined yet).
    ``pinned`` says the header binds the seat to that key (the host's contacts knew it)."""

    handle: str
    key: str
    status: str
    pinned: bool = False
    known_key: str = ""

    @property
    def fingerprint(self) -> str:
        return _fp(self.key) if self.key else ""

    def line(self) -> str:
        """``bob  1a2b:3c4d:5e6f:7a8b  known`` (CHANGED in capitals, with the old key)."""
        if self.status == "waiting":
            return f"{self.handle:12} (not joined yet)" + ("  pinned" if self.pinned else "")
        words = {"you": "you", "new": "new", "known": "known",
                 "changed": f"CHANGED (you know {self.handle} as {_fp(self.known_key)})"}
        pin = ", pinned by the host" if self.pinned and self.status != "you" else ""
        return f"{self.handle:12} {self.fingerprint}  {words[self.status]}{pin}"

    def to_json(self) -> dict[str, Any]:
        return {"handle": self.handle, "fingerprint": self.fingerprint, "status": self.status,
                "pinned": self.pinned}


def _fp(key_hex: str) -> str:
    try:
        return fingerprint(bytes.fromhex(key_hex))
    except ValueError:
        return "?"


class Contacts:
    """HOME/contacts.toml, loaded once; :meth:`write` saves it if anything changed."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.path: Path = home.path / FILE
        self.players: dict[str, dict[str, Any]] = {}
        self.changed = False
        self.own_handle = ""
        self.own_key = ""
        if home.has_identity():
            with contextlib.suppress(Exception):  # contacts still work without an identity
                info = home.info()
                self.own_handle = str(info.get("handle", ""))
                self.own_key = str(info.get("public_key", ""))
        try:
            with open(self.path, "rb") as fh:
                data = tomltext.load(fh)
        except FileNotFoundError:
            return
        except (OSError, tomltext.TOMLDecodeError) as exc:
            raise UsageError(f"{self.path} is unreadable ({exc}); fix or delete it.") from None
        players = data.get("players", {})
        if isinstance(players, dict):
            for handle, rec in players.items():
                if isinstance(rec, dict):
                    self.players[handle] = {
                        "key": str(rec.get("key", "")),
                        "fingerprint": str(rec.get("fingerprint", "")),
                        "emails": [str(e) for e in rec.get("emails", []) if isinstance(e, str)],
                        "first_seen": str(rec.get("first_seen", "")),
                    }

    # ---- questions ---------------------------------------------------------------
    def email_for(self, handle: str, key: str = "") -> str:
        """A remembered address for ``handle`` ('' if none, or if ``key`` is given and
        differs from the remembered key: never mail a stranger who took the name)."""
        rec = self.players.get(handle)
        if rec is None or not rec["emails"]:
            return ""
        if key and rec["key"] and rec["key"] != key:
            return ""
        return str(rec["emails"][0])

    def key_for(self, handle: str) -> str:
        """The key this home knows for ``handle`` ('' if none)."""
        rec = self.players.get(handle)
        return str(rec["key"]) if rec else ""

    def seat_keys(self, save: Save) -> list[SeatKey]:
        """Every seat of a verified save with its key, new / known / CHANGED against what
        this home knows (and "you" for this home's own seat)."""
        keys = {e["seat"]: e["pubkey"] for e in save.entries if e["kind"] in ("create", "join")}
        out = []
        for seat in save.header["seats"]:
            handle = seat["handle"]
            key = keys.get(handle, "")
            pinned = bool(seat.get("key"))
            known = self.key_for(handle)
            if not key:
                status = "waiting"
            elif handle == self.own_handle and key == self.own_key:
                status = "you"
            elif not known:
                status = "new"
            else:
                status = "known" if known == key else "changed"
            out.append(SeatKey(handle, key, status, pinned, known if status == "changed" else ""))
        return out

    def holders_of(self, email: str) -> list[str]:
        wanted = email.lower()
        return [h for h, rec in self.players.items()
                if any(e.lower() == wanted for e in rec["emails"])]

    # ---- learning ----------------------------------------------------------------
    def check_save(self, save: Save) -> list[Notice]:
        """Record new players and addresses from a verified save; return what is new or
        suspicious. An address comes only from a seat that signed its own create or join
        (its entry's chain covers the header holding it), never from the host's word
        alone, nor from the mail that carried the save: a ``From:`` line is whatever its
        sender typed (PROTOCOL.md 3)."""
        notices: list[Notice] = []
        keys = {e["seat"]: e["pubkey"] for e in save.entries if e["kind"] in ("create", "join")}
        where = f"{save.ruleset} {save.game_id[:8]}"
        for seat in save.header["seats"]:
            handle = seat["handle"]
            key = keys.get(handle, "")
            email = seat.get("email", "")
            if handle == self.own_handle:
                if key and self.own_key and key != self.own_key:
                    notices.append(Notice(
                        "warning", "handle-clash", handle,
                        f"Game {where} has a seat '{handle}' (your handle) taken with another "
                        f"key (fingerprint {_fp(key)}): that player is not you.", _fp(key)))
                continue
            notices.extend(self._see_key(handle, key, where))
            # The header is the host's word: a seat's address is learnt only once that
            # seat has signed on top of it (its create or join), never from the host
            # alone, who could seat a friend at the host's own address.
            if email and key:
                notices.extend(self._see_email(handle, key, email, where))
        return notices

    def _see_key(self, handle: str, key: str, where: str) -> list[Notice]:
        rec = self.players.get(handle)
        if rec is None:
            rec = {"key": "", "fingerprint": "", "emails": [], "first_seen": where}
            self.players[handle] = rec
            self.changed = True
        if not key:
            return []
        if not rec["key"]:
            rec["key"], rec["fingerprint"] = key, _fp(key)
            rec["first_seen"] = rec["first_seen"] or where  # '' if the user named them first
            self.changed = True
            return [Notice("info", "new-player", handle,
                           f"New player {handle}, fingerprint {rec['fingerprint']} (in {where}). "
                           f"Compare it with the fingerprint {handle} gets from 'pbem whoami'.",
                           rec["fingerprint"])]
        if rec["key"] != key:
            return [Notice(
                "warning", "key-changed", handle,
                f"{handle} in {where} signs with a different key (fingerprint {_fp(key)}) from "
                f"the {handle} you know (fingerprint {rec['fingerprint']}, first seen in "
                f"{rec['first_seen']}). It may be someone else using the name. Check the "
                f"fingerprint with {handle} another way before playing; if {handle} really has "
                f"a new key, run 'pbem contacts forget {handle}'.", _fp(key))]
        return []

    def _see_email(self, handle: str, key: str, email: str, where: str) -> list[Notice]:
        notices: list[Notice] = []
        for other in self.holders_of(email):
            if other == handle:
                continue
            other_key = self.players[other]["key"]
            if key and other_key and other_key != key:
                notices.append(Notice(
                    "warning", "email-key-changed", handle,
                    f"{where} gives the address {email} to {handle} (fingerprint {_fp(key)}), "
                    f"but you know that address as {other}'s (fingerprint {_fp(other_key)}). "
                    "Mail for one of them may reach the other; check with both.", _fp(key)))
        rec = self.players[handle]
        if any(e.lower() == email.lower() for e in rec["emails"]):
            return notices
        if rec["emails"]:
            notices.append(Notice(
                "warning", "email-changed", handle,
                f"{where} gives {handle}'s address as {email}, but you knew {handle} at "
                f"{rec['emails'][0]}. Saves you mail in this game go to {email}; make sure "
                f"{handle} reads it.", rec["fingerprint"]))
        else:
            notices.append(Notice("info", "new-email", handle,
                                  f"Address for {handle}: {email} (from {where}).",
                                  rec["fingerprint"]))
        rec["emails"].append(email)
        self.changed = True
        return notices

    def set_email(self, handle: str, email: str) -> None:
        """The user's own word for ``handle``'s address: it goes first, so mail uses it."""
        rec = self.players.setdefault(
            handle, {"key": "", "fingerprint": "", "emails": [], "first_seen": ""})
        rec["emails"] = [email] + [e for e in rec["emails"] if e.lower() != email.lower()]
        self.changed = True

    def accept_key(self, handle: str, key: str, where: str) -> None:
        """The user confirmed that ``handle`` now signs with ``key``: remember it, keeping
        the handle's addresses (the one way a known key is replaced)."""
        rec = self.players.setdefault(
            handle, {"key": "", "fingerprint": "", "emails": [], "first_seen": where})
        if rec["key"] != key:
            rec["key"], rec["fingerprint"] = key, _fp(key)
            self.changed = True

    def forget(self, handle: str) -> bool:
        """Drop a player (after a genuine key change); True if it was known."""
        if self.players.pop(handle, None) is None:
            return False
        self.changed = True
        return True

    # ---- storing -----------------------------------------------------------------
    def write(self) -> None:
        """Save the file atomically if anything changed (it holds no secret)."""
        if not self.changed:
            return

        self.home.path.mkdir(parents=True, exist_ok=True)
        atomic.replace(self.path, (
            "# Players this home has met (pbem). Edit only to forget someone.\n"
            + tomltext.dumps({"players": self.players})).encode("utf-8"))
        self.changed = False


def check_save(home: Home, save: Save) -> list[Notice]:
    """Learn the players of a verified save; the notices to print (warnings loudly).
    Under the home's contacts lock: two pbem processes never lose each other's players."""
    with atomic.locked(home.path / LOCK_FILE):
        contacts = Contacts(home)
        notices = contacts.check_save(save)
        with contextlib.suppress(OSError):  # no room: the players are learnt next time
            contacts.write()
    return notices


def set_email(home: Home, handle: str, email: str) -> str:
    """Remember the address the user gives for ``handle`` (both checked); the address."""
    check_handle(handle)
    email = check_address(email)
    contacts = Contacts(home)
    contacts.set_email(handle, email)
    contacts.write()
    return email


def forget(home: Home, handle: str) -> bool:
    contacts = Contacts(home)
    known = contacts.forget(handle)
    contacts.write()
    return known


def listing(home: Home) -> list[dict[str, Any]]:
    """Every remembered player, sorted by handle, for ``pbem contacts``."""
    contacts = Contacts(home)
    return [{"handle": h, **rec} for h, rec in sorted(contacts.players.items())]
