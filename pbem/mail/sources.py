"""Reading mail sources for ``pbem inbox``: every message not read before in an .eml
file, an mbox file, a Maildir folder, a folder of those, a bare save file or an IMAP
mailbox, as bytes with where it came from.

Nothing here raises for what a source holds: a file or message that cannot be read
becomes a problem in the report, and the other messages are still read. What was read is
noted in ``Reading.now``, for the scan to record once it is done (pbem.mail.seen)."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from pbem.mail import imap, imapurl
from pbem.mail.report import InboxReport, Origin, Problem
from pbem.mail.seen import Resume, SeenRecord, SourceSeen, message_digest
from pbem.protocol.saveformat import packed

MESSAGE_FACTOR = 4  # a whole message over 4x the attachment cap is not parsed
# Of a message over its cap, only this much is read: enough to tell whether it is about
# pbem (and so worth a line of the report); the rest is never read into memory.
HEAD_BYTES = 64 * 1024

Progress = Callable[[str, int, int], None]  # (source, messages done, messages to read)


@dataclass
class Reading:
    """How a scan reads its sources: what was read before (skipped unless ``read_all``),
    what it reads now (recorded once the scan is done), how to log in to IMAP."""

    seen: SeenRecord
    read_all: bool = False
    login: imap.Login | None = None
    progress: Progress | None = None
    now: dict[str, SourceSeen] = field(default_factory=dict)

    def tick(self, source: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(source, done, total)


@dataclass
class Raw:
    origin: Origin
    data: bytes  # the message, or only its first HEAD_BYTES if it is over its cap
    bare: bool = False  # a save file given directly, not a message
    size: int = -1  # the whole message's bytes (``len(data)`` unless only its head was read)

    def __post_init__(self) -> None:
        if self.size < 0:
            self.size = len(self.data)


class NotAFile(OSError):
    """A pipe, a device or a socket where mail or a save was to be: never opened for
    reading in earnest (a pipe with no writer would wait for ever, /dev/zero never ends)."""

    def __str__(self) -> str:
        return "not a plain file: a pipe, a device or a socket"


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is (or links to) a plain file; NotAFile if not.
    Opened without blocking, so a pipe with no writer is found out, not waited on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    fh = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        fh.close()
        raise NotAFile()
    return fh


def _read_capped(path: Path, cap: int) -> tuple[bytes, int]:
    """The bytes of the plain file at ``path`` and its size: only its head (HEAD_BYTES)
    if it holds more than ``cap`` bytes, which are never read."""
    with _open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(HEAD_BYTES if size > cap else cap + 1)  # +1: it may grow meanwhile
    return data, max(size, len(data))


def _is_maildir(path: Path) -> bool:
    return (path / "cur").is_dir() and (path / "new").is_dir()


def _file_kind(path: Path) -> str:
    with _open_regular(path) as fh:
        head = fh.read(4096)
    if head.startswith(b"From "):
        return "mbox"
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if stripped.startswith((b"# pbem save", b"[header]")) or packed.is_gzip(head):
        return "save"  # a gzip file is no mail: savefile reads it as a packed save
    return "eml"


def raw_messages(path: Path, report: InboxReport, reading: Reading,
                 max_bytes: int) -> Iterator[Raw]:
    """Every message (as bytes) in one source not read before, or problems for what
    cannot be read. A message is read up to MESSAGE_FACTOR times ``max_bytes`` (a bare
    save up to ``max_bytes``): of a longer one, only its head."""
    cap = MESSAGE_FACTOR * max_bytes
    source = str(path)
    if not path.exists():
        report.problems.append(Problem("not-found", f"There is no file or folder {path}.",
                                       Origin(source)))
        return
    try:
        if path.is_dir() and _is_maildir(path):
            yield from _maildir(path, report, reading, cap)
            return
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            for child in files:
                yield from raw_messages(child, report, reading, max_bytes)
            return
        kind = _file_kind(path)
        if kind == "mbox":
            yield from _mbox(path, report, reading, cap)
        elif kind == "save":
            data, size = _read_capped(path, max_bytes)
            yield Raw(Origin(source, attachment=path.name), data, bare=True, size=size)
        else:
            data, size = _read_capped(path, cap)
            yield Raw(Origin(source), data, size=size)
    except OSError as exc:
        report.problems.append(Problem("unreadable", f"{path} cannot be read ({exc}).",
                                       Origin(source)))


def _maildir(path: Path, report: InboxReport, reading: Reading, cap: int) -> Iterator[Raw]:
    """The messages of a Maildir whose keys were not read before."""
    source, record = str(path), str(path.resolve())
    files = _maildir_files(path)
    keys = sorted(files)
    before = set() if reading.read_all else reading.seen.get(record).keys
    fresh = [k for k in keys if k not in before]
    report.already_read += len(keys) - len(fresh)
    done: set[str] = set(before) & set(keys)
    for number, key in enumerate(fresh, start=1):
        reading.tick(source, number, len(fresh))
        yield from _one_message(files[key], cap, Origin(source, f"message {key}"), report)
        done.add(key)
    reading.now[record] = SourceSeen(keys=done)


def _maildir_files(path: Path) -> dict[str, Path]:
    """A Maildir's messages by key, as mailbox.Maildir names them (the file name up to
    its first ':', new/ over cur/; folders left out), so that the keys recorded before
    still match; read here, not by mailbox, whose reads have no bound."""
    files: dict[str, Path] = {}
    for sub in ("cur", "new"):
        for name in sorted(os.listdir(path / sub)):
            if not (path / sub / name).is_dir():
                files[name.split(":")[0]] = path / sub / name
    return files


def _mbox(path: Path, report: InboxReport, reading: Reading, cap: int) -> Iterator[Raw]:
    """The messages of an mbox whose bytes were not read before: from where the last scan
    stopped if every byte before that is unchanged, else the whole file (the messages
    read before skipped by their digest)."""
    source, record = str(path), str(path.resolve())
    known = SourceSeen() if reading.read_all else reading.seen.get(record)
    with _open_regular(path) as fh:
        prefix = _Prefix(fh)
        resume = known.resume if known.resume and prefix.holds(known.resume) else None
        start, skipped = (resume.offset, resume.messages) if resume else (0, 0)
        report.already_read += skipped
        done = set(known.keys) if resume else set()  # appended to: all still there
        toc = _mbox_toc(fh, start)
        for number, (begin, stop) in enumerate(toc, start=1):
            reading.tick(source, number, len(toc))
            data, size = _mbox_message(fh, begin, stop, cap)
            name = message_digest(data)
            done.add(name)
            if name in known.keys:
                report.already_read += 1
                continue
            yield Raw(Origin(source, f"message {skipped + number}"), data, size=size)
        # Next time from the last message: read again, as it may have been cut short
        # by a delivery under way (its digest skips it if it was not).
        last = toc[-1][0] if toc else 0
        resume = Resume(last, prefix.digest(last), skipped + len(toc) - 1) if last else None
    reading.now[record] = SourceSeen(keys=done, resume=resume)


LINESEP = os.linesep.encode()


def _mbox_toc(fh: BinaryIO, start: int) -> list[tuple[int, int]]:
    """Where each message of an mbox from byte ``start`` on lies: from its "From " line
    to its end (before the blank line that comes before the next "From " line), as
    mailbox.mbox finds them. Read in pieces of at most HEAD_BYTES: a line of gigabytes
    (no line break in a huge attachment) is never held whole."""
    fh.seek(start)
    starts: list[int] = []
    stops: list[int] = []
    position, last_empty, line_start = start, False, True
    while piece := fh.readline(HEAD_BYTES):
        if line_start and piece.startswith(b"From "):
            if len(stops) < len(starts):
                stops.append(position - len(LINESEP) if last_empty else position)
            starts.append(position)
            last_empty = False
        else:
            last_empty = line_start and piece == LINESEP
        position += len(piece)
        line_start = piece.endswith(b"\n")
    if len(stops) < len(starts):
        stops.append(position - len(LINESEP) if last_empty else position)
    return list(zip(starts, stops, strict=True))


def _mbox_message(fh: BinaryIO, begin: int, stop: int, cap: int) -> tuple[bytes, int]:
    """A message's bytes without its "From " line, as mailbox.mbox.get_bytes gives them,
    and its size: only its first HEAD_BYTES if it is over ``cap`` bytes."""
    fh.seek(begin)
    while (piece := fh.readline(HEAD_BYTES)) and not piece.endswith(b"\n"):
        pass  # the rest of a "From " line longer than a piece
    size = max(stop - fh.tell(), 0)
    data = fh.read(HEAD_BYTES if size > cap else size)
    return (data if LINESEP == b"\n" else data.replace(LINESEP, b"\n")), size


class _Prefix:
    """The SHA-256 of an open file's first bytes, each byte read once however far it
    is asked for."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh, self.hashed, self.hash = fh, 0, hashlib.sha256()

    def digest(self, end: int) -> str:
        """The digest of the bytes before ``end`` ('' if the file is shorter)."""
        if end < self.hashed:
            self.hashed, self.hash = 0, hashlib.sha256()
        self.fh.seek(self.hashed)
        while self.hashed < end:
            block = self.fh.read(min(end - self.hashed, 1024 * 1024))
            if not block:
                return ""
            self.hash.update(block)
            self.hashed += len(block)
        return self.hash.hexdigest()

    def holds(self, resume: Resume) -> bool:
        """Whether the bytes before ``resume.offset`` are those read then, and a message
        still starts there."""
        self.fh.seek(resume.offset)
        return self.fh.read(5) == b"From " and self.digest(resume.offset) == resume.digest


def imap_messages(url: str, report: InboxReport, reading: Reading, max_bytes: int) -> Iterator[Raw]:
    """The messages of an IMAP mailbox above the last UID read (of its UIDVALIDITY)."""
    source = imapurl.parse_url(url)
    login = reading.login or imap.Login()
    try:
        reader = imap.Reader(source, login)
    except imap.MailServerError as exc:
        report.problems.append(Problem("server", exc.message, Origin(source.key)))
        return
    known = reading.seen.get(source.key)
    after = known.last_uid if known.uidvalidity == reader.uidvalidity \
        and not reading.read_all else 0
    last, failed = after, False
    try:
        uids = reader.new_uids(after)
        if after:
            report.already_read += _count_up_to(reader, after)
        for number, item in enumerate(reader.fetch(uids, MESSAGE_FACTOR * max_bytes), start=1):
            reading.tick(source.key, number, len(uids))
            origin = Origin(source.key, f"UID {item.uid}")
            last = max(last, item.uid)
            if item.data is not None:
                yield Raw(origin, item.data)
                continue
            report.messages += 1
            if b"pbem" in item.header.lower():
                report.problems.append(Problem(
                    "too-large", f"This message of {mib(item.size)} was not read: inbox reads "
                    f"messages up to {mib(MESSAGE_FACTOR * max_bytes)} ({MESSAGE_FACTOR} times "
                    "--max-size); one that carries a save is far smaller.", origin))
    except imap.MailServerError as exc:
        report.problems.append(Problem("server", exc.message, Origin(source.key)))
        failed = True
    finally:
        reader.close()
    # Messages come in UID order, each handled before the next is fetched: up to ``last``
    # all was read, even when the server failed later (the next scan goes on from there).
    if not failed or last > after:
        reading.now[source.key] = SourceSeen(uidvalidity=reader.uidvalidity, last_uid=last)


def _count_up_to(reader: imap.Reader, last: int) -> int:
    """How many messages at or below UID ``last`` are in the mailbox (skipped as read)."""
    return len(reader.new_uids(0)) - len(reader.new_uids(last))


def _one_message(path: Path, cap: int, origin: Origin, report: InboxReport) -> Iterator[Raw]:
    """One message of a Maildir (only its head if it is over ``cap`` bytes), or a problem
    if that one cannot be read (the others can)."""
    try:
        data, size = _read_capped(path, cap)
    except OSError as exc:
        report.problems.append(Problem("unreadable", f"This message cannot be read ({exc}).",
                                       origin))
        return
    data = data if LINESEP == b"\n" else data.replace(LINESEP, b"\n")
    yield Raw(origin, data, size=size)


def mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size >= 1024 * 1024 else f"{size} bytes"
