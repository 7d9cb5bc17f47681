"""What ``pbem inbox`` has already read from each mailbox (HOME/inbox-seen.json).

Per source: an IMAP mailbox keeps its UIDVALIDITY and the highest UID read (a server
gives new mail higher UIDs; a new UIDVALIDITY means the old UIDs mean nothing, so all is
read again); a Maildir keeps the keys of the messages read (a key stays when a mail
client moves the file from new/ to cur/); an mbox keeps a digest of each message's bytes
(an mbox has no other stable name for a message) and where the next scan may resume: the
offset of the last message read, a digest of every byte before it, and how many messages
those bytes hold. A scan resumes there only if those bytes are unchanged (mail is only
appended); a rewritten or truncated mbox is read whole again, its messages skipped by
digest. Single files and folders of files are always read whole.

The record only saves time: a message skipped was read, verified and filed before (its
saves are in this home's archive and inbox), and ``--all`` reads everything again. A
missing or damaged file reads as "nothing read yet"."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem import atomic

FILE = "inbox-seen.json"
LOCK = "inbox-seen.lock"
VERSION = 1
MAX_BYTES = 64 * 1024 * 1024


def message_digest(data: bytes) -> str:
    """The name an mbox message is remembered by: 128 bits of its SHA-256."""
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True)
class Resume:
    """Where an mbox scan may start: byte ``offset`` (the start of the last message
    read, read again next time: it may have been cut short while being written), the
    SHA-256 of every byte before it, and the number of messages in those bytes."""

    offset: int
    digest: str
    messages: int

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "digest": self.digest, "messages": self.messages}

    @classmethod
    def from_json(cls, data: Any) -> Resume | None:
        if not isinstance(data, dict):
            return None
        offset, digest, messages = data.get("offset"), data.get("digest"), data.get("messages")
        if not (type(offset) is int and type(messages) is int and isinstance(digest, str)
                and offset > 0 and messages >= 0 and len(digest) == 64):
            return None
        return cls(offset, digest, messages)


@dataclass
class SourceSeen:
    """What one source has had read from it (``uidvalidity``/``last_uid`` for IMAP,
    ``keys`` for Maildir keys or mbox digests; ``resume`` for an mbox)."""

    uidvalidity: int = 0
    last_uid: int = 0
    keys: set[str] = field(default_factory=set)
    resume: Resume | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.uidvalidity:
            out["uidvalidity"], out["last_uid"] = self.uidvalidity, self.last_uid
        if self.keys:
            out["keys"] = sorted(self.keys)
        if self.resume is not None:
            out["resume"] = self.resume.to_json()
        return out

    @classmethod
    def from_json(cls, data: Any) -> SourceSeen:
        if not isinstance(data, dict):
            return cls()
        validity, last = data.get("uidvalidity", 0), data.get("last_uid", 0)
        keys = data.get("keys", [])
        if not (isinstance(validity, int) and isinstance(last, int)):
            validity = last = 0
        if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
            keys = []
        return cls(validity, last, set(keys), Resume.from_json(data.get("resume")))


class SeenRecord:
    """The file, read once; :meth:`update` merges what a scan read and writes it."""

    def __init__(self, home_path: Path) -> None:
        self.path = Path(home_path) / FILE
        self.lock = Path(home_path) / LOCK
        self.sources = self._read()

    def _read(self) -> dict[str, SourceSeen]:
        data = atomic.read_json(self.path, MAX_BYTES)
        if not isinstance(data, dict) or data.get("version") != VERSION \
                or not isinstance(data.get("sources"), dict):
            return {}
        return {str(k): SourceSeen.from_json(v) for k, v in data["sources"].items()}

    def get(self, source: str) -> SourceSeen:
        return self.sources.get(source) or SourceSeen()

    def update(self, read: dict[str, SourceSeen]) -> None:
        """Add what was read now (per source) to the file, under its lock: another
        process may have recorded other sources meanwhile."""
        if not read:
            return
        with atomic.locked(self.lock):
            current = self._read()
            for source, now in read.items():
                known = current.get(source) or SourceSeen()
                if now.uidvalidity:
                    if now.uidvalidity != known.uidvalidity:
                        known = SourceSeen(keys=known.keys)
                    known.uidvalidity = now.uidvalidity
                    known.last_uid = max(known.last_uid, now.last_uid)
                # The keys given are the whole set now (read before and still there,
                # or read now): a message deleted from the mailbox is forgotten.
                if now.keys or not now.uidvalidity:
                    known.keys = set(now.keys)
                    known.resume = now.resume
                current[source] = known
            data = {"version": VERSION,
                    "sources": {k: v.to_json() for k, v in sorted(current.items())}}
            atomic.replace(self.path, json.dumps(data, indent=0).encode())
            self.sources = current
