"""Reading mail: find every pbem save in .eml files, mbox files and Maildir folders,
verify each in this home, file the newest of each game, and say what needs doing.

Nothing in a mailbox can make :func:`scan` raise: a damaged message, a save that fails
verification, a game this home does not sit in, an attachment too large to read, each
becomes one line of the report (:class:`Problem`) naming the message it came in. Only a
home without an identity is an error (the scan must know who "you" are).

Saves are verified oldest first within each game, so the home's archive follows the game
forward and older saves in the same mail are simply superseded, not "stale". A save is
stale when the home already had something newer before (it has played on, or it was sent
an old save); a fork is two different entries signed by one seat after the same entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import mailbox
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from email import message_from_bytes, policy
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path
from typing import Any

from pbem import registry, session
from pbem.errors import IntegrityError, MoveError, PbemError, SaveFileError, TurnError, UsageError
from pbem.mail import imap, imapurl
from pbem.mail import message as mail
from pbem.mail.seen import SeenRecord, SourceSeen, message_digest
from pbem.protocol import engine, savefile
from pbem.protocol.archive import Archive
from pbem.protocol.canonical import digest
from pbem.protocol.contacts import Contacts, Notice
from pbem.protocol.identity import Home
from pbem.protocol.savefile import Save
from pbem.protocol.table import Table

INBOX_DIR = "inbox"
EXIT_SERVER = 5  # an IMAP server could not be read (as for mail not sent)
MESSAGE_FACTOR = 4  # a whole message over 4x the attachment cap is not parsed
# Problem codes, by level. Errors are signs of cheating or of a broken save; the CLI
# exits 3 when one of INTEGRITY is present.
INTEGRITY = ("fork", "tampered", "rules", "audit")
LEVELS = {
    "fork": "error", "tampered": "error", "rules": "error", "audit": "error",
    "malformed": "error",
    "unknown-game": "warning", "too-large": "warning", "broken-mime": "warning",
    "missing-save": "warning", "unreadable": "warning", "not-found": "warning",
    "server": "error",  # an IMAP server unreachable or refusing the login: exit 5
    "filing": "warning", "not-seated": "note", "stale": "note", "no-saves": "note",
    "branch": "note",  # the absent player came back while the others voted (PROTOCOL.md 11)
}


@dataclass
class Origin:
    """Where a save (or a problem) came from."""

    source: str  # the path given to scan
    where: str = ""  # "message 4" in an mbox, the key in a Maildir, "" for one .eml
    sender: str = ""
    subject: str = ""
    date: str = ""
    attachment: str = ""

    def label(self) -> str:
        place = self.source + (f" {self.where}" if self.where else "")
        bits = []
        if self.sender:
            bits.append(f"from {self.sender}")
        if self.subject:
            bits.append(f'"{self.subject}"')
        if self.date:
            bits.append(self.date)
        if self.attachment:
            bits.append(f"attachment {self.attachment}")
        return place + (f" ({', '.join(bits)})" if bits else "")

    def to_json(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Problem:
    code: str
    message: str
    origin: Origin | None = None
    game_id: str = ""
    seq: int | None = None

    @property
    def level(self) -> str:
        return LEVELS.get(self.code, "warning")

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "level": self.level, "message": self.message,
                "id": self.game_id or None, "seq": self.seq,
                "origin": self.origin.to_json() if self.origin else None}

    def text(self) -> str:
        where = f" [{self.origin.label()}]" if self.origin else ""
        return f"{self.level.upper()} {self.code}: {self.message}{where}"


@dataclass
class GameSummary:
    """One game found in the mail: its newest valid save and what to do now."""

    ruleset: str
    title: str
    game_id: str
    seq: int  # of the newest valid save in the mail
    signer: str
    origin: Origin
    filed: str = ""  # path of the copy in HOME/inbox ('' if not filed)
    filed_how: str = ""  # "new", "already there", or why not
    head_seq: int = -1  # the newest entry this home has (may be newer than the mail's)
    to_act: str = ""
    next: str = ""  # join, start, turn, reveal; '' when complete
    your_move: bool = False
    over: bool = False
    command: str = ""
    save_as: str = ""  # the name the command expects the attachment under ('' if filed)
    older: int = 0  # older valid saves of this game in the mail
    stale: bool = False
    fork: bool = False
    winners: list[str] = field(default_factory=list)  # "ann (14)", once audited clean
    problems: list[Problem] = field(default_factory=list)

    def quiet(self) -> bool:
        """Nothing to do or to see: a game this home has played on from, or one already
        filed that waits for someone else; one line in the report."""
        if any(p.code != "stale" for p in self.problems):
            return False
        return self.stale or (self.filed_how == "already there" and not self.your_move)

    def status(self) -> str:
        if self.over and not self.next:
            if not self.winners:
                return "complete"
            return "complete, won by " + " and ".join(self.winners) + (
                " (shared)" if len(self.winners) > 1 else "")
        action = mail.ACTIONS.get(self.next, self.next)
        if self.your_move:
            return f"YOUR MOVE ({action})"
        return f"waiting for {self.to_act} ({action})"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.ruleset, "title": self.title, "id": self.game_id, "seq": self.seq,
                "signer": self.signer, "origin": self.origin.to_json(), "filed": self.filed or None,
                "filed_how": self.filed_how, "head_seq": self.head_seq,
                "to_act": self.to_act or None, "next": self.next or None,
                "your_move": self.your_move, "over": self.over, "command": self.command or None,
                "save_as": self.save_as or None, "older": self.older, "stale": self.stale, "fork": self.fork,
                "winners": self.winners,
                "problems": [p.to_json() for p in self.problems]}


@dataclass
class InboxReport:
    home: str
    handle: str
    max_bytes: int
    sources: list[str] = field(default_factory=list)
    messages: int = 0
    already_read: int = 0  # messages skipped: read by an earlier inbox (--all reads them)
    saves: int = 0  # save attachments found (copies included)
    duplicates: int = 0  # of those, byte-identical copies of one already seen
    verified: int = 0  # distinct saves that verified
    games: list[GameSummary] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def exit_code(self) -> int:
        """3 if any save shows cheating or tampering (fork, broken signature, illegal
        history), else 0: every other problem is reported, not failed on."""
        if any(p.code in INTEGRITY for p in self.problems):
            return 3
        return EXIT_SERVER if any(p.code == "server" for p in self.problems) else 0

    def to_json(self) -> dict[str, Any]:
        return {"home": self.home, "handle": self.handle, "sources": self.sources,
                "messages": self.messages, "already_read": self.already_read,
                "saves": self.saves, "duplicates": self.duplicates,
                "verified": self.verified, "max_bytes": self.max_bytes,
                "your_move": [g.game_id for g in self.games if g.your_move],
                "games": [g.to_json() for g in self.games],
                "problems": [p.to_json() for p in self.problems],
                "notices": [n.to_json() for n in self.notices]}

    def text(self) -> str:
        lines = [f"Mail for {self.handle} ({self.home}): {len(self.sources)} source(s), "
                 f"{self.messages} message(s)"
                 + (f" new ({self.already_read} read before skipped; --all reads them again)"
                    if self.already_read else "")
                 + f", {self.saves} save(s) found"
                 + (f" ({self.duplicates} duplicate copies)" if self.duplicates else "")
                 + f", {self.verified} verified."]
        quiet = [g for g in self.games if g.quiet()]
        for g in self.games:
            if g in quiet:
                continue
            lines.append("")
            lines.append(f"{g.title} {g.game_id[:8]}: entry {g.seq} by {g.signer} - {g.status()}")
            lines.append(f"    newest in mail: {g.origin.label()}")
            if g.stale:
                lines.append(f"    you already have entry {g.head_seq}: nothing new here")
            if g.filed:
                lines.append(f"    filed: {g.filed}" + (" (already there)"
                                                         if g.filed_how == "already there" else ""))
            if g.command and g.save_as:
                lines.append(f"    save the attachment as {g.save_as}, then run: {g.command}")
            elif g.command:
                lines.append(f"    run: {g.command}")
            if g.older:
                lines.append(f"    ({g.older} older save(s) of this game in the mail)")
            for p in g.problems:
                lines.append(f"    ! {p.text()}")
        if quiet:
            lines += ["", f"Nothing new ({len(quiet)} game(s)):"]
            for g in quiet:
                if g.stale:
                    lines.append(f"  {g.title} {g.game_id[:8]}: you have played on (entry "
                                 f"{g.head_seq}; the mail's newest is entry {g.seq}) - "
                                 f"{g.status()}")
                else:
                    lines.append(f"  {g.title} {g.game_id[:8]}: entry {g.seq} by {g.signer}, "
                                 f"already filed - {g.status()}")
        loose = [p for p in self.problems if not any(p in g.problems for g in self.games)]
        if loose:
            lines += ["", f"Problems ({len(loose)}):"]
            lines += [f"  - {p.text()}" for p in loose]
        if self.notices:
            lines += ["", "Players:"]
            lines += [f"  {'!' if n.level == 'warning' else '-'} {n}" for n in self.notices]
        if not self.games and not self.problems:
            lines += ["", "No pbem saves found."]
        return "\n".join(lines) + "\n"


# ---- reading sources -------------------------------------------------------------------------
Progress = Callable[[str, int, int], None]  # (source, messages done, messages to read)


@dataclass
class _Reading:
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
class _Raw:
    origin: Origin
    data: bytes
    bare: bool = False  # a save file given directly, not a message


def _is_maildir(path: Path) -> bool:
    return (path / "cur").is_dir() and (path / "new").is_dir()


def _file_kind(path: Path) -> str:
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.startswith(b"From "):
        return "mbox"
    stripped = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if stripped.startswith((b"# pbem save", b"[header]")):
        return "save"
    return "eml"


def _raw_messages(path: Path, report: InboxReport, reading: _Reading) -> Iterator[_Raw]:
    """Every message (as bytes) in one source not read before, or problems for what
    cannot be read."""
    source = str(path)
    if not path.exists():
        report.problems.append(Problem("not-found", f"There is no file or folder {path}.",
                                       Origin(source)))
        return
    try:
        if path.is_dir() and _is_maildir(path):
            yield from _maildir(path, report, reading)
            return
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            for child in files:
                yield from _raw_messages(child, report, reading)
            return
        kind = _file_kind(path)
        if kind == "mbox":
            yield from _mbox(path, report, reading)
        elif kind == "save":
            yield _Raw(Origin(source, attachment=path.name), path.read_bytes(), bare=True)
        else:
            yield _Raw(Origin(source), path.read_bytes())
    except (OSError, mailbox.Error) as exc:
        report.problems.append(Problem("unreadable", f"{path} cannot be read ({exc}).",
                                       Origin(source)))


def _maildir(path: Path, report: InboxReport, reading: _Reading) -> Iterator[_Raw]:
    """The messages of a Maildir whose keys were not read before."""
    source, record = str(path), str(path.resolve())
    box = mailbox.Maildir(source, factory=None, create=False)
    keys = sorted(box.keys())
    before = set() if reading.read_all else reading.seen.get(record).keys
    fresh = [k for k in keys if k not in before]
    report.already_read += len(keys) - len(fresh)
    done: set[str] = set(before) & set(keys)
    for number, key in enumerate(fresh, start=1):
        reading.tick(source, number, len(fresh))
        yield from _one_message(box, key, Origin(source, f"message {key}"), report)
        done.add(key)
    reading.now[record] = SourceSeen(keys=done)


def _mbox(path: Path, report: InboxReport, reading: _Reading) -> Iterator[_Raw]:
    """The messages of an mbox whose bytes were not read before."""
    source, record = str(path), str(path.resolve())
    before = set() if reading.read_all else reading.seen.get(record).keys
    done: set[str] = set()
    mbox = mailbox.mbox(source, create=False)
    try:
        keys = list(mbox.iterkeys())
        for number, key in enumerate(keys, start=1):
            reading.tick(source, number, len(keys))
            try:
                data = mbox.get_bytes(key)
            except (OSError, mailbox.Error, KeyError) as exc:
                report.problems.append(Problem(
                    "unreadable", f"This message cannot be read ({exc}).",
                    Origin(source, f"message {number}")))
                continue
            name = message_digest(data)
            done.add(name)
            if name in before:
                report.already_read += 1
                continue
            yield _Raw(Origin(source, f"message {number}"), data)
    finally:
        mbox.close()
    reading.now[record] = SourceSeen(keys=done)


def _imap(url: str, report: InboxReport, reading: _Reading, max_bytes: int) -> Iterator[_Raw]:
    """The messages of an IMAP mailbox above the last UID read (of its UIDVALIDITY)."""
    source = imapurl.parse_url(url)
    login = reading.login or imap.Login()
    try:
        reader = imap.Reader(source, login)
    except imap.MailServerError as exc:
        report.problems.append(Problem("server", exc.message, Origin(source.key)))
        return
    try:
        known = reading.seen.get(source.key)
        after = known.last_uid if known.uidvalidity == reader.uidvalidity \
            and not reading.read_all else 0
        uids = reader.new_uids(after)
        if after:
            report.already_read += _count_up_to(reader, after)
        last = after
        for number, item in enumerate(reader.fetch(uids, MESSAGE_FACTOR * max_bytes), start=1):
            reading.tick(source.key, number, len(uids))
            origin = Origin(source.key, f"UID {item.uid}")
            last = max(last, item.uid)
            if item.data is not None:
                yield _Raw(origin, item.data)
                continue
            report.messages += 1
            if b"pbem" in item.header.lower():
                report.problems.append(Problem(
                    "too-large", f"This message of {_mib(item.size)} was not read: inbox reads "
                    f"messages up to {_mib(MESSAGE_FACTOR * max_bytes)} ({MESSAGE_FACTOR} times "
                    "--max-size); one that carries a save is far smaller.", origin))
        reading.now[source.key] = SourceSeen(uidvalidity=reader.uidvalidity, last_uid=last)
    except imap.MailServerError as exc:
        report.problems.append(Problem("server", exc.message, Origin(source.key)))
    finally:
        reader.close()


def _count_up_to(reader: imap.Reader, last: int) -> int:
    """How many messages at or below UID ``last`` are in the mailbox (skipped as read)."""
    return len(reader.new_uids(0)) - len(reader.new_uids(last))


def _one_message(box: mailbox.Mailbox, key: str, origin: Origin,
                 report: InboxReport) -> Iterator[_Raw]:
    """One message of a mailbox, or a problem if that one cannot be read (the others can)."""
    try:
        data = box.get_bytes(key)
    except (OSError, mailbox.Error, KeyError) as exc:
        report.problems.append(Problem("unreadable", f"This message cannot be read ({exc}).",
                                       origin))
        return
    yield _Raw(origin, data)


def _header(message: Message, name: str) -> str:
    """A header decoded for people (raw UTF-8 or RFC 2047 words), on one line; '' if
    absent. Control characters are kept for the CLI to escape (pbem.terminal)."""
    wanted = name.lower()
    value = next((str(v) for k, v in message.raw_items() if k.lower() == wanted), None)
    if value is None:
        return ""
    text = mail.clean_text(value)
    with contextlib.suppress(Exception):  # the email package can trip on hostile headers
        text = mail.clean_text(str(make_header(decode_header(text))))
    return " ".join(text.split())


@dataclass
class _Candidate:
    origin: Origin
    data: bytes
    copies: list[Origin] = field(default_factory=list)
    file: str = ""  # the path of a save file scanned directly, not carried by a message
    save: Save | None = None
    verified: session.Verified | None = None


def _candidates(raw: _Raw, report: InboxReport, max_bytes: int) -> list[_Candidate]:
    """The save attachments of one message; problems for everything else odd in it."""
    report.messages += 1
    if raw.bare:
        if len(raw.data) > max_bytes:
            report.problems.append(Problem(
                "too-large", f"This save file is {_mib(len(raw.data))}, over the "
                f"{_mib(max_bytes)} that inbox reads.", raw.origin))
            return []
        return [_Candidate(raw.origin, raw.data, file=raw.origin.source)]
    cap = MESSAGE_FACTOR * max_bytes
    if len(raw.data) > cap:  # parsing costs ~10x its size in memory: a 200 MB mail, 2 GB
        if b"pbem" in raw.data[:65536].lower():
            report.problems.append(Problem(
                "too-large", f"This message of {_mib(len(raw.data))} was not read: inbox reads "
                f"messages up to {_mib(cap)} ({MESSAGE_FACTOR} times --max-size); one that "
                "carries a save is far smaller.", raw.origin))
        return []
    try:
        # compat32: the modern header registry parses every header eagerly and costs
        # several times more; only a few headers are read here, decoded by _header.
        message = message_from_bytes(raw.data, policy=policy.compat32)
        origin = Origin(raw.origin.source, raw.origin.where, _header(message, "From"),
                        _header(message, "Subject"), _header(message, "Date"))
        found = mail.find_saves(message, max_bytes)
        defects = mail.defects(message)
        claims = mail.mentions_pbem(message)
    except Exception as exc:  # hostile MIME must not stop the scan of a whole mailbox
        report.problems.append(Problem(
            "unreadable", f"This message could not be parsed as email ({type(exc).__name__}).",
            raw.origin))
        return []
    out: list[_Candidate] = []
    for item in found:
        where = Origin(**{**asdict(origin), "attachment": item.name})
        if item.problem == "too-large":
            report.problems.append(Problem(
                "too-large", f"An attachment of {_mib(item.size)} that may be a save was not "
                f"read: inbox reads at most {_mib(max_bytes)} per attachment (a real save "
                "is far smaller).", where))
        else:
            out.append(_Candidate(where, item.data))
    if not found:
        if defects and (claims or b"pbem" in raw.data.lower()):
            report.problems.append(Problem(
                "broken-mime", "This message is damaged (" + ", ".join(defects) + ") and no "
                "save could be read from it. Ask the sender to attach the save again.", origin))
        elif claims:
            seq = _header(message, "X-Pbem-Seq")
            report.problems.append(Problem(
                "missing-save", "This message is about a pbem game"
                + (f" (entry {seq})" if seq else "") + " but carries no save: the attachment "
                "was dropped or stripped on the way. Ask the sender for it.", origin))
    return out


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB" if size >= 1024 * 1024 else f"{size} bytes"


# ---- the scan ----------------------------------------------------------------------------------
def scan(paths: Sequence[str | Path], home: Home, *, max_bytes: int = mail.MAX_ATTACHMENT_BYTES,
         file_saves: bool = True, read_all: bool = False, login: imap.Login | None = None,
         progress: Progress | None = None) -> InboxReport:
    """Read every message in ``paths`` (.eml files, mbox files, Maildir folders, folders of
    those, bare save files, or IMAP mailboxes ``imap[s]://USER@HOST[:PORT]/MAILBOX``),
    verify every save found in ``home`` and summarise per game.

    A Maildir, an mbox or an IMAP mailbox gives only the messages not read before
    (pbem.mail.seen; ``read_all`` reads them all again); what was read is recorded once
    the scan is done, unless ``file_saves`` is False (a look that files nothing records
    nothing). The newest valid save of each game is copied to ``HOME/inbox/`` (never
    overwriting) unless ``file_saves`` is False. Raises IdentityError (no identity in
    ``home``), UsageError for an IMAP address that is not one or a login with no password
    to give; everything found in the mail is a line of the report, an IMAP server that
    cannot be reached or refuses the login too (code "server")."""
    info = home.info()
    me, my_key = str(info["handle"]), str(info.get("public_key", ""))
    report = InboxReport(home=str(home.path), handle=me, max_bytes=max_bytes)
    by_content: dict[str, _Candidate] = {}
    reading = _Reading(SeenRecord(home.path), read_all, login, progress)
    for url in (str(p) for p in paths if imapurl.is_url(str(p))):
        imapurl.parse_url(url)  # a bad address stops the scan before anything is read
    for path in paths:
        report.sources.append(str(path))
        before, problems_before = report.messages, len(report.problems)
        skipped_before = report.already_read
        found_here = 0
        raws = _imap(str(path), report, reading, max_bytes) if imapurl.is_url(str(path)) \
            else _raw_messages(Path(path), report, reading)
        for raw in raws:
            for cand in _candidates(raw, report, max_bytes):
                found_here += 1
                report.saves += 1
                key = hashlib.sha256(_normal(cand.data)).hexdigest()
                if key in by_content:
                    report.duplicates += 1
                    by_content[key].copies.append(cand.origin)
                else:
                    by_content[key] = cand
        if not found_here and len(report.problems) == problems_before \
                and report.already_read == skipped_before:
            report.problems.append(Problem(
                "no-saves", f"No pbem save found in {path} ({report.messages - before} "
                "message(s) read).", Origin(str(path))))
    games = _parse_and_sort(list(by_content.values()), report, me, my_key)
    contacts = Contacts(home)
    for game_id, candidates in games.items():
        summary = _verify_game(game_id, candidates, home, me, report, file_saves)
        if summary is not None:
            report.games.append(summary)
            newest = max((c for c in candidates if c.verified is not None),
                         key=lambda c: len(c.save.entries) if c.save else 0)
            if newest.save is not None:  # addresses from its signed seats, never from From:
                report.notices.extend(contacts.check_save(newest.save))
    try:
        contacts.write()
        if file_saves:
            reading.seen.update(reading.now)
    except OSError as exc:
        report.problems.append(Problem("filing", f"Could not update the contacts or the "
                                       f"record of mail read in {home.path} ({exc.strerror})."))
    report.games.sort(key=lambda g: (not g.your_move, g.title, g.game_id))
    return report


def _normal(data: bytes) -> bytes:
    return data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")


def _unchecked(exc: Exception, cand: _Candidate, game_id: str = "") -> Problem:
    """The report line for an attachment whose reading or checking failed unexpectedly."""
    return Problem("malformed", f"This attachment could not be checked ({type(exc).__name__}); "
                   "it was skipped. If it is a genuine save, please report it (PBEM_DEBUG=1 "
                   "'pbem verify FILE' shows the details)." + _copies(cand), cand.origin, game_id)


def _copies(cand: _Candidate) -> str:
    n = len(cand.copies)
    return f" (The same file came in {n} other message(s).)" if n else ""


def _parse_and_sort(candidates: Iterable[_Candidate], report: InboxReport, me: str,
                    my_key: str) -> dict[str, list[_Candidate]]:
    """Parse each distinct save; keep those of known games this home sits in, by game,
    oldest first."""
    installed = set(registry.names())
    games: dict[str, list[_Candidate]] = {}
    for cand in candidates:
        try:
            save = savefile.parse_bytes(cand.data, f"The attachment {cand.origin.attachment}")
        except SaveFileError as exc:
            report.problems.append(Problem("malformed", exc.message + _copies(cand), cand.origin))
            continue
        except Exception as exc:  # one hostile attachment must not stop the scan
            report.problems.append(_unchecked(exc, cand))
            continue
        cand.save = save
        last = save.entries[-1]
        where = f"{save.ruleset} {save.game_id[:8]} entry {last['seq']} ({last['seat']})"
        if save.ruleset not in installed:
            report.problems.append(Problem(
                "unknown-game", f"{where} is a game of '{save.ruleset}', which this pbem does "
                f"not have (installed: {', '.join(sorted(installed)) or 'none'})." + _copies(cand),
                cand.origin, save.game_id, last["seq"]))
            continue
        if me not in save.handles():
            report.problems.append(Problem(
                "not-seated", f"{where}: you ({me}) have no seat in this game (its seats: "
                f"{', '.join(save.handles())}). It was not verified or filed." + _copies(cand),
                cand.origin, save.game_id, last["seq"]))
            continue
        taken = [e["pubkey"] for e in save.entries
                 if e["seat"] == me and e["kind"] in ("create", "join")]
        if taken and taken[0] != my_key:
            report.problems.append(Problem(
                "not-seated", f"{where}: the seat '{me}' in this game was taken by another "
                "key, so it is another player's game, not yours. It was not verified or "
                "filed." + _copies(cand), cand.origin, save.game_id, last["seq"]))
            continue
        games.setdefault(save.game_id, []).append(cand)
    for group in games.values():
        group.sort(key=lambda c: len(c.save.entries) if c.save else 0)
    return games


def _verify_game(game_id: str, candidates: list[_Candidate], home: Home, me: str,
                 report: InboxReport, file_saves: bool) -> GameSummary | None:
    """Verify one game's saves oldest first; the summary of its newest valid save."""
    problems: list[Problem] = []
    seen_entries: dict[tuple[int, str], Origin] = {}  # (seq, hash) -> where it came from
    valid: list[_Candidate] = []
    for index, cand in enumerate(candidates):
        save = cand.save
        assert save is not None
        hashes = _superseded_and_known(home, save) if index < len(candidates) - 1 else None
        if hashes is not None:
            # Every entry was verified in this home before and a newer save exists: a
            # full replay of this old one would only re-check its [state] snapshot.
            cand.verified = None
            report.verified += 1
            valid.append(cand)
            for entry, entry_hash in zip(save.entries, hashes, strict=True):
                seen_entries.setdefault((entry["seq"], entry_hash), cand.origin)
            continue
        try:
            verified = session.verify(save, home)
        except PbemError as exc:
            problems.append(_refusal(exc, cand, game_id, seen_entries))
            continue
        except Exception as exc:  # a check that trips must not stop the scan
            problems.append(_unchecked(exc, cand, game_id))
            continue
        cand.verified = verified
        report.verified += 1
        valid.append(cand)
        problems.extend(Problem("branch", note, cand.origin, game_id, save.entries[-1]["seq"])
                        for note in verified.branches)
        for entry, entry_hash in zip(save.entries, verified.report.hashes, strict=True):
            seen_entries.setdefault((entry["seq"], entry_hash), cand.origin)
    # The summary rests on a full check: if the newest good save was one skipped above
    # (a newer one failed), verify it now.
    while valid and valid[-1].verified is None:
        cand = valid[-1]
        assert cand.save is not None
        try:
            cand.verified = session.verify(cand.save, home)
        except Exception as exc:  # PbemError, or a check that trips: never stop the scan
            problems.append(_refusal(exc, cand, game_id, seen_entries)
                            if isinstance(exc, PbemError) else _unchecked(exc, cand, game_id))
            report.verified -= 1
            valid.pop()
    report.problems.extend(problems)
    if not valid:
        return None
    newest = valid[-1]
    assert newest.save is not None and newest.verified is not None
    save, verified = newest.save, newest.verified
    last = save.entries[-1]
    table = verified.table
    summary = GameSummary(
        ruleset=save.ruleset, title=table.game.info.title, game_id=game_id, seq=last["seq"],
        signer=last["seat"], origin=newest.origin, older=len(valid) - 1,
        head_seq=last["seq"], problems=problems,
        fork=any(p.code == "fork" for p in problems))
    if verified.stale:
        summary.stale = True
        newer = _archived_table(home, save)
        if newer is not None:
            table, summary.head_seq = newer
        stale = Problem("stale", f"The newest save of {summary.title} {game_id[:8]} in the mail "
                        f"is entry {last['seq']} ({last['seat']}), older than entry "
                        f"{summary.head_seq} you already have: nothing new, or you have played "
                        "on from it.", newest.origin, game_id, last["seq"])
        summary.problems.append(stale)
        report.problems.append(stale)
    elif file_saves:
        _file(summary, save, home, report)
        if summary.filed:  # 'pbem games' and short ids name the filed copy
            session.remember(home, verified, Path(summary.filed))
    _result(summary, verified, newest, report)
    duty = table.duty()
    summary.over = table.over()
    if duty is not None:
        summary.to_act = table.seats[duty.seat].handle
        summary.next = duty.kind
        summary.your_move = summary.to_act == me
        if summary.your_move and not summary.stale:
            verb = duty.kind if duty.kind in ("join", "vote") else "play"
            target = _target(summary, newest, save)
            if not summary.filed and not newest.file:
                summary.save_as = target
            summary.command = (f"pbem {verb} {mail.shell_word(target)}"
                               + {"turn": " MOVE ...", "vote": " accept|refuse"}.get(
                                   duty.kind, ""))
    return summary


def _result(summary: GameSummary, verified: session.Verified, newest: _Candidate,
            report: InboxReport) -> None:
    """The winners of a finished game, or an error if its audit names a cheat."""
    result = verified.report
    if isinstance(result.audit, list):
        problem = Problem("audit", "The final audit of this game failed: "
                          + "; ".join(result.audit) + " Run 'pbem verify' on it for details.",
                          newest.origin, summary.game_id, summary.seq)
        summary.problems.append(problem)
        report.problems.append(problem)
        return
    told = result.result  # the one summary (pbem.protocol.result): a solo rival too
    if result.outcome is None or result.audit != "clean" or not told.get("winners"):
        return
    summary.winners = [f"{name} ({told['scores'][name]})" for name in told["winners"]]


def _target(summary: GameSummary, newest: _Candidate, save: Save) -> str:
    """The file the suggested command names: the filed copy, the save file scanned, or
    the attachment's name, if it can be shown and typed as it is (else the standard
    name to save it under)."""
    if summary.filed:
        return summary.filed
    if newest.file:
        return newest.file
    name = newest.origin.attachment
    if mail.plain_name(name):
        return name
    last = save.entries[-1]
    return savefile.default_name(save.ruleset, save.game_id, last["seq"], last["seat"])


def _refusal(exc: PbemError, cand: _Candidate, game_id: str,
             seen_entries: dict[tuple[int, str], Origin]) -> Problem:
    """The report line for a save that verify refused, by the kind of refusal."""
    text = exc.message + _copies(cand)
    if isinstance(exc, IntegrityError):
        code = "fork" if exc.code == "fork" else "tampered"
        if code == "fork":
            other = next((o for (seq, _), o in seen_entries.items() if seq == exc.seq), None)
            if other is not None:
                text = f"{exc.message} The other branch came in {other.label()}.{_copies(cand)}"
    elif isinstance(exc, TurnError | MoveError):
        code, text = "rules", "The history breaks the rules: " + text
    else:  # SaveFileError (rules version, components), UsageError (a broken game plug-in)
        code = "malformed"
    return Problem(code, text, cand.origin, game_id, exc.seq)


def _superseded_and_known(home: Home, save: Save) -> list[str] | None:
    """The entry hashes of ``save`` if this home's archive already verified every one of
    them and holds a newer entry of the game; else None (the save must be verified)."""
    archive = Archive(home.archive_dir, save.game_id)
    if archive.head_seq() <= save.entries[-1]["seq"] or archive.data["header"] != digest(save.header):
        return None
    hashes = [engine.entry_hash(e) for e in save.entries]
    return hashes if all(archive.known(h) for h in hashes) else None


def _archived_table(home: Home, save: Save) -> tuple[Table, int] | None:
    """The table at the newest entry this home's archive holds for the game, if cached."""
    archive = Archive(home.archive_dir, save.game_id)
    cache = archive.data.get("cache") or {}
    if not cache.get("table"):
        return None
    try:
        return Table.from_json(save.header, cache["table"]), archive.head_seq()
    except (KeyError, TypeError):
        return None


def _file(summary: GameSummary, save: Save, home: Home, report: InboxReport) -> None:
    """Copy the save to HOME/inbox/ under its standard name, never overwriting."""
    last = save.entries[-1]
    folder = home.path / INBOX_DIR
    target = folder / savefile.default_name(save.ruleset, save.game_id, last["seq"], last["seat"])
    text = savefile.dumps(save)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            savefile.write_new(target, text)
            summary.filed, summary.filed_how = str(target), "new"
            return
    except UsageError:
        pass  # created meanwhile: compare below
    except OSError as exc:
        problem = Problem("filing", f"Could not file the save in {folder} ({exc.strerror}).",
                          summary.origin, save.game_id, last["seq"])
        summary.problems.append(problem)
        report.problems.append(problem)
        return
    try:
        existing = savefile.read(target)
        same = engine.entry_hash(existing.entries[-1]) == engine.entry_hash(last)
    except SaveFileError:
        same = False
    if same:
        summary.filed, summary.filed_how = str(target), "already there"
        return
    problem = Problem("filing", f"{target} already exists with different contents; it was "
                      "left alone and this save was not filed.", summary.origin, save.game_id,
                      last["seq"])
    summary.filed_how = "name taken"
    summary.problems.append(problem)
    report.problems.append(problem)
