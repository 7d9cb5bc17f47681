"""Reading mail: find every pbem save in .eml files, mbox files and Maildir folders,
verify each in this home, file the newest of each game, and say what needs doing.

Nothing in a mailbox can make :func:`scan` raise: a damaged message, a save that fails
verification, a game this home does not sit in, an attachment too large to read, each
becomes one line of the report (:class:`Problem`) naming the message it came in. Only a
home without an identity is an error (the scan must know who "you" are).

The sources are read by pbem.mail.sources and the findings told by pbem.mail.report;
this module finds the saves in each message, verifies them and files them.

Saves are verified oldest first within each game, so the home's archive follows the game
forward and older saves in the same mail are simply superseded, not "stale". A save is
stale when the home already had something newer before (it has played on, or it was sent
an old save); a fork is two different entries signed by one seat after the same entry.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from email import message_from_bytes
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path

from pbem import registry, session
from pbem.errors import IntegrityError, MoveError, PbemError, SaveFileError, TurnError, UsageError
from pbem.home import gameindex
from pbem.home.archive import Archive
from pbem.home.contacts import Contacts, Notice
from pbem.mail import answer, imap, imapurl
from pbem.mail import message as mail
from pbem.mail.attachments import MAX_PARTS, MAX_RATIO, Found, TooManyParts, iter_saves, reading_policy
from pbem.mail.report import GameSummary, InboxReport, Origin, Problem
from pbem.mail.seen import SeenRecord
from pbem.mail.sources import (
    HEAD_BYTES,
    MESSAGE_FACTOR,
    Progress,
    Raw,
    Reading,
    imap_messages,
    mib,
    raw_messages,
)
from pbem.mail.stash import Stash, StashError, Stored
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine
from pbem.protocol.replay.chain import authenticate
from pbem.protocol.saveformat import packed, savefile, timing
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state.rounds import save_name
from pbem.protocol.state.table import Table
from pbem.session import logbook, rounds

INBOX_DIR = "inbox"
# Of the saves a scan found, those held parsed from the first reading to their
# verification, in bytes of their files: a few saves are parsed once, thousands do not
# fill memory (each of the others is parsed again when its game's turn comes).
HELD_BYTES = 4 * 1024 * 1024


# ---- the saves a message carries -------------------------------------------------------------
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
    """One distinct save found. Its bytes wait in the scan's stash; its parsed save and
    verification are held only while they may still be its game's newest (scan)."""

    origin: Origin
    stored: Stored | None  # None for a round assembled here (held, never stashed)
    key: str = ""  # the digest of its bytes (BOM and CRLF aside): one candidate per key
    copies: list[Origin] = field(default_factory=list)
    file: str = ""  # the path of a save file scanned directly, not carried by a message
    entries: int = 0  # how many entries the save holds: its game's saves go oldest first
    checked: bool = False  # verified in full here (not only known to the archive)
    void: bool = False  # on a branch the rule of PROTOCOL.md section 11 voids
    save: Save | None = None
    verified: session.Verified | None = None

    def parsed(self, stash: Stash) -> Save:
        """The save, parsed from the stash again unless held (SaveFileError as then)."""
        if self.save is not None:
            return self.save
        assert self.stored is not None
        return savefile.parse_bytes(stash.get(self.stored),
                                    f"The attachment {self.origin.attachment}")

    def hold(self, save: Save, verified: session.Verified) -> None:
        """Keep the save verified in full, and what its game's summary may need of it."""
        self.save, self.verified, self.checked = save, verified, True
        self.void = bool(verified.void)

    def release(self) -> None:
        self.save = self.verified = None


def _found(stash: Stash, origin: Origin, data: bytes, file: str = "") -> _Candidate:
    """A save's bytes put in the stash, as a candidate."""
    key = hashlib.sha256(_normal(data)).hexdigest()
    return _Candidate(origin, stash.put(data), key, file=file)


def _bare(raw: Raw, report: InboxReport, stash: Stash, max_bytes: int) -> list[_Candidate]:
    """A save file named as a source; one stored gzip-compressed as the save it inflates
    to, within the same cap (a damaged one as it is: savefile says why when it reads it)."""
    data = raw.data
    if packed.is_gzip(data):
        try:
            data = packed.unpack(data, max_bytes, raw.origin.source)
        except packed.TooLarge:
            report.problems.append(Problem(
                "too-large", f"This save file is gzip-compressed and inflates to more than "
                f"the {mib(max_bytes)} that inbox reads.", raw.origin))
            return []
        except SaveFileError:
            pass
    return [_found(stash, raw.origin, data, raw.origin.source)]


def _candidates(raw: Raw, report: InboxReport, stash: Stash,
                max_bytes: int) -> list[_Candidate]:
    """The save attachments of one message, each put in the stash as it is found;
    problems for everything else odd in it."""
    report.messages += 1
    if raw.bare:
        if raw.size > max_bytes:
            report.problems.append(Problem(
                "too-large", f"This save file is {mib(raw.size)}, over the "
                f"{mib(max_bytes)} that inbox reads.", raw.origin))
            return []
        return _bare(raw, report, stash, max_bytes)
    cap = MESSAGE_FACTOR * max_bytes
    if raw.size > cap:  # parsing costs ~10x its size in memory: a 200 MB mail, 2 GB
        if b"pbem" in raw.data[:HEAD_BYTES].lower():  # only the head was read (sources)
            report.problems.append(Problem(
                "too-large", f"This message of {mib(raw.size)} was not read: inbox reads "
                f"messages up to {mib(cap)} ({MESSAGE_FACTOR} times --max-size); one that "
                "carries a save is far smaller.", raw.origin))
        return []
    try:
        # compat32 (bounded): the modern header registry parses every header eagerly and
        # costs several times more; only a few headers are read here, decoded by _header.
        message = message_from_bytes(raw.data, policy=reading_policy())
        origin = Origin(raw.origin.source, raw.origin.where, _header(message, "From"),
                        _header(message, "Subject"), _header(message, "Date"))
        found = [_stashed(item, origin, stash) for item in iter_saves(message, max_bytes)]
        defects = mail.defects(message)
        claims = mail.mentions_pbem(message)
    except StashError:
        raise  # the disk's refusal, not the message's
    except TooManyParts:
        report.problems.append(Problem(
            "unreadable", f"This message has more than {MAX_PARTS} MIME parts, far more "
            "than a mail that carries a save; it was not read.", raw.origin))
        return []
    except Exception as exc:  # hostile MIME must not stop the scan of a whole mailbox
        report.problems.append(Problem(
            "unreadable", f"This message could not be parsed as email ({type(exc).__name__}).",
            raw.origin))
        return []
    out: list[_Candidate] = []
    for item, cand in found:
        if cand is not None:
            out.append(cand)
        else:
            report.problems.append(Problem("too-large", _not_read(item, max_bytes),
                                           _attached(origin, item)))
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


def _not_read(item: Found, max_bytes: int) -> str:
    """Why a part that may be a save was not read (attachments.Found.problem)."""
    if item.inflating == "ratio":
        return (f"This gzip-compressed attachment of {mib(item.size)} was not read: a part "
                f"of it inflates to more than {MAX_RATIO} times its size, far more than a "
                "save that pbem writes compresses.")
    if item.inflating == "cap":
        return (f"This gzip-compressed attachment of {mib(item.size)} was not read: it "
                f"inflates to more than the {mib(max_bytes)} that inbox reads per "
                "attachment (a real save is far smaller).")
    return (f"An attachment of {mib(item.size)} that may be a save was not read: inbox "
            f"reads at most {mib(max_bytes)} per attachment (a real save is far smaller).")


def _attached(origin: Origin, item: Found) -> Origin:
    return Origin(**{**asdict(origin), "attachment": item.name})


def _stashed(item: Found, origin: Origin, stash: Stash) -> tuple[Found, _Candidate | None]:
    """A part found, its bytes moved to the stash as a candidate (None for a part not
    read): the message's saves are never all held at once."""
    if item.problem:
        return item, None
    return replace(item, data=b""), _found(stash, _attached(origin, item), item.data)


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
    nothing). The newest valid save of each game (not one of a branch the rule of
    PROTOCOL.md section 11 voids, where a save of the game's branch came too) is copied
    to ``HOME/inbox/`` (never overwriting) unless ``file_saves`` is False. Raises
    IdentityError (no identity in ``home``), UsageError for an IMAP address that is not
    one or a login with no password to give; everything found in the mail is a line of
    the report, an IMAP server that cannot be reached or refuses the login too (code
    "server")."""
    info = home.info()
    me = str(info["handle"])
    report = InboxReport(home=str(home.path), handle=me, max_bytes=max_bytes)
    reading = Reading(SeenRecord(home.path), read_all, login, progress)
    for url in (str(p) for p in paths if imapurl.is_url(str(p))):
        imapurl.parse_url(url)  # a bad address stops the scan before anything is read
    # Memory stays bounded however many saves the mail holds: their bytes wait in the
    # stash, and a game's saves are parsed and verified one at a time (_verify_game).
    with Stash() as stash:
        by_content = _read_sources(paths, report, reading, stash, max_bytes)
        games = _parse_and_sort(list(by_content.values()), report, me,
                                str(info.get("public_key", "")), stash)
        contacts = Contacts(home)
        for game_id, candidates in games.items():
            summary = _verify_game(game_id, candidates, home, me, report, file_saves, stash)
            if summary is not None:
                report.games.append(summary)
                report.notices.extend(_signed_contacts(contacts, candidates, stash))
            for cand in candidates:
                cand.release()
    try:
        contacts.write()
        if file_saves:
            reading.seen.update(reading.now)
    except OSError as exc:
        report.problems.append(Problem("filing", f"Could not update the contacts or the "
                                       f"record of mail read in {home.path} ({exc.strerror})."))
    report.games.sort(key=lambda g: (not g.your_move, g.title, g.game_id))
    return report


def _read_sources(paths: Sequence[str | Path], report: InboxReport, reading: Reading,
                  stash: Stash, max_bytes: int) -> dict[str, _Candidate]:
    """Every distinct save in the sources, by the digest of its bytes (a copy is counted
    and noted on the first one found), its bytes put in ``stash``."""
    by_content: dict[str, _Candidate] = {}
    for path in paths:
        report.sources.append(str(path))
        before, problems_before = report.messages, len(report.problems)
        skipped_before = report.already_read
        found_here = 0
        raws = imap_messages(str(path), report, reading, max_bytes) if imapurl.is_url(str(path)) \
            else raw_messages(Path(path), report, reading, max_bytes)
        for raw in raws:
            for cand in _candidates(raw, report, stash, max_bytes):
                found_here += 1
                report.saves += 1
                if cand.key in by_content:
                    report.duplicates += 1
                    by_content[cand.key].copies.append(cand.origin)
                else:
                    by_content[cand.key] = cand
        if not found_here and len(report.problems) == problems_before \
                and report.already_read == skipped_before:
            report.problems.append(Problem(
                "no-saves", f"No pbem save found in {path} ({report.messages - before} "
                "message(s) read).", Origin(str(path))))
    return by_content


def _signed_contacts(contacts: Contacts, candidates: list[_Candidate],
                     stash: Stash) -> list[Notice]:
    """The addresses of the game's longest save verified here, from its signed seats
    (never from From:), checked against the contacts."""
    newest = max((c for c in candidates if c.checked), key=lambda c: c.entries)
    return contacts.check_save(newest.parsed(stash))


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
                    my_key: str, stash: Stash) -> dict[str, list[_Candidate]]:
    """Parse each distinct save; keep those of known games this home sits in, by game,
    oldest first. The first of them are held parsed, up to HELD_BYTES of their files;
    the others are parsed again when their turn comes."""
    installed = set(registry.names())
    games: dict[str, list[_Candidate]] = {}
    room = HELD_BYTES
    for cand in candidates:
        try:
            save = cand.parsed(stash)
        except SaveFileError as exc:
            report.problems.append(Problem("malformed", exc.message + _copies(cand), cand.origin))
            continue
        except StashError:
            raise
        except Exception as exc:  # one hostile attachment must not stop the scan
            report.problems.append(_unchecked(exc, cand))
            continue
        cand.entries = len(save.entries)
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
        if cand.stored is not None and cand.stored.size <= room:
            cand.save, room = save, room - cand.stored.size
    for group in games.values():
        group.sort(key=lambda c: c.entries)
    return games


def _verify_game(game_id: str, candidates: list[_Candidate], home: Home, me: str,
                 report: InboxReport, file_saves: bool, stash: Stash) -> GameSummary | None:
    """Verify one game's saves oldest first; the summary of its newest valid save."""
    problems: list[Problem] = []
    seen_entries: dict[int, Origin] = {}  # seq -> where an entry of it first came from
    valid = _check_each(game_id, candidates, home, report, problems, seen_entries, stash)
    # A save on a branch the rule of PROTOCOL.md section 11 voids is never the newest
    # while a save of the game's branch came too: else the mail's order would choose.
    void = [c for c in valid if c.void]
    if len(void) < len(valid):
        valid = [*void, *(c for c in valid if not c.void)]
    # The summary rests on a full check: if the newest good save was one skipped above
    # (a newer one failed), verify it now.
    while valid and not valid[-1].checked:
        cand = valid[-1]
        save = cand.parsed(stash)
        try:
            cand.hold(save, session.verify(save, home))
        except Exception as exc:  # PbemError, or a check that trips: never stop the scan
            problems.append(_refusal(exc, cand, game_id, seen_entries)
                            if isinstance(exc, PbemError) else _unchecked(exc, cand, game_id))
            report.verified -= 1
            valid.pop()
    if file_saves and valid:
        _assemble_round(valid, home)
    report.problems.extend(problems)
    if not valid:
        return None
    newest = valid[-1]
    assert newest.save is not None and newest.verified is not None
    # The file as it came (filed as it is), and the save this home goes by: without its
    # entries not yet in effect here (PROTOCOL.md section 11).
    whole, verified = newest.save, newest.verified
    save = verified.save
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
        _file(summary, whole, home, report)
        if summary.filed:  # 'pbem games' and short ids name the filed copy
            session.remember(home, verified, Path(summary.filed))
    _result(summary, verified, newest, report)
    summary.over = table.over()
    _next_step(summary, table, verified, newest, whole, home, me)
    return summary


def _check_each(game_id: str, candidates: list[_Candidate], home: Home,
                report: InboxReport, problems: list[Problem], seen_entries: dict[int, Origin],
                stash: Stash) -> list[_Candidate]:
    """The saves of one game that pass, oldest first: each verified (or, superseded and
    known to the archive, only authenticated); the reasons for the others in
    ``problems``. Of the saves verified in full only the newest of the game's branch and
    the newest of a voided one stay held (_Candidate.hold): the newest of the game is one
    of them or a save skipped after them, parsed again when needed."""
    valid: list[_Candidate] = []
    held: dict[bool, _Candidate] = {}  # by void: the newest save verified in full
    for index, cand in enumerate(candidates):
        save = cand.parsed(stash)
        hashes = _superseded_and_known(home, save) if index < len(candidates) - 1 else None
        if hashes is not None:
            # Every entry was verified in this home before and a newer save exists: a
            # full replay of this old one would only re-check its [state] snapshot.
            report.verified += 1
            valid.append(cand)
            for entry in save.entries:
                seen_entries.setdefault(entry["seq"], cand.origin)
            cand.release()
            continue
        cand.release()  # held again below if it passes
        try:
            verified = session.verify(save, home)
        except PbemError as exc:
            problems.append(_refusal(exc, cand, game_id, seen_entries))
            continue
        except Exception as exc:  # a check that trips must not stop the scan
            problems.append(_unchecked(exc, cand, game_id))
            continue
        if bool(verified.void) in held:
            held[bool(verified.void)].release()
        cand.hold(save, verified)
        held[cand.void] = cand
        report.verified += 1
        valid.append(cand)
        problems.extend(Problem("branch", note, cand.origin, game_id, save.entries[-1]["seq"])
                        for note in verified.branches)
        problems.extend(Problem("waiting", w.words(timing.now()), cand.origin, game_id, w.seq)
                        for w in verified.waiting)
        problems.extend(Problem("late", late["words"], cand.origin, game_id, late["seq"])
                        for late in verified.late)
        for entry in verified.save.entries:
            seen_entries.setdefault(entry["seq"], cand.origin)
    return valid


def _next_step(summary: GameSummary, table: Table, verified: session.Verified,
               newest: _Candidate, whole: Save, home: Home, me: str) -> None:
    """Who is to act next, and, where it is this home on a save it goes by, the command
    to run (and where to save the mail's file first)."""
    duty = table.duty_for(table.seat_of(me))  # in a round, every seat still to sign acts
    if duty is None:
        return
    summary.to_act = table.seats[duty.seat].handle
    summary.round_missing = [table.seats[s].handle for s in table.round_missing()]
    summary.next = duty.kind
    summary.your_move = summary.to_act == me
    if summary.your_move and not summary.stale and not verified.dated_ahead \
            and not verified.void:
        verb = duty.kind if duty.kind in ("join", "vote") else "play"
        target = _target(summary, newest, whole, home)
        if not summary.filed and not newest.file:
            summary.save_as = target
        summary.command = (f"pbem {verb} {mail.shell_word(target)}"
                           + {"turn": " MOVE ...", "vote": " accept|refuse"}.get(
                               duty.kind, ""))
        if verb == "play" and not summary.save_as:
            _no_decision(summary, home, summary.filed or newest.file, target)


def _assemble_round(valid: list[_Candidate], home: Home) -> None:
    """Where the newest save ends in a round that other saves this home verified (in this
    mail or before) complete or extend, go on with the assembled save (PROTOCOL.md
    section 4): it is verified here and filed under its own name (protocol.rounds.save_name)."""
    newest = valid[-1]
    assert newest.save is not None
    merged = rounds.from_archive(home, newest.save)
    if merged is None:
        return
    try:
        verified = session.verify(merged, home)
    except PbemError:
        return  # the newest save stands as it came
    valid.append(_Candidate(newest.origin, None, entries=len(merged.entries), checked=True,
                            save=merged, verified=verified))


def _no_decision(summary: GameSummary, home: Home, path: str, target: str) -> None:
    """Describe an entry owed that holds no decision as what it is, and give the command
    that signs it whole."""
    found = answer.nothing_to_decide(home, path)
    if found is None:
        return
    summary.no_decision, moves = found
    summary.command = f"pbem play {mail.shell_word(target)}" + (
        f" {mail.shell_word('; '.join(moves))}" if moves else "")


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
    told = result.result  # the one summary (pbem.protocol.state.result): a solo rival too
    if result.outcome is None or result.audit != "clean" or not told.get("winners"):
        return
    summary.winners = [f"{name} ({told['scores'][name]})" for name in told["winners"]]


def _target(summary: GameSummary, newest: _Candidate, save: Save, home: Home) -> str:
    """What the suggested command names: the game's short id where it names the filed
    copy (as 'pbem games' shows it), else the filed copy, the save file scanned, or the
    attachment's name, if it can be shown and typed as it is (else the standard name to
    save it under)."""
    if summary.filed:
        return _short_id(home, save.game_id, summary.filed)
    if newest.file:
        return newest.file
    name = newest.origin.attachment
    if mail.plain_name(name):
        return name
    last = save.entries[-1]
    return savefile.default_name(save.ruleset, save.game_id, last["seq"], last["seat"])


def _short_id(home: Home, game_id: str, path: str) -> str:
    """The game's short id if it names the save at ``path`` (this home's newest of the
    game), else the path."""
    short = game_id[:gameindex.SHORT_ID_LENGTH]
    try:
        found = logbook.find_save(home, short)
    except PbemError:
        return path
    return short if found.resolve() == Path(path).resolve() else path


def _refusal(exc: PbemError, cand: _Candidate, game_id: str,
             seen_entries: dict[int, Origin]) -> Problem:
    """The report line for a save that verify refused, by the kind of refusal."""
    text = exc.message + _copies(cand)
    if isinstance(exc, IntegrityError):
        code = "fork" if exc.code == "fork" else "tampered"
        if code == "fork":
            other = seen_entries.get(exc.seq) if exc.seq is not None else None
            if other is not None:
                text = f"{exc.message} The other branch came in {other.label()}.{_copies(cand)}"
    elif isinstance(exc, TurnError | MoveError):
        code, text = "rules", "The history breaks the rules: " + text
    else:  # SaveFileError (rules version, components), UsageError (a broken game plug-in)
        code = "malformed"
    return Problem(code, text, cand.origin, game_id, exc.seq)


def _superseded_and_known(home: Home, save: Save) -> list[str] | None:
    """The entry hashes of ``save`` if this home's archive already verified every one of
    them, the file chains them as they were verified (chain.authenticate, no signature
    checked again: known entries in another order, or a round's slots swapped, are no
    save) and the archive holds a newer entry of the game; else None (the save must be
    verified)."""
    archive = Archive(home.archive_dir, save.game_id)
    if archive.head_seq() <= save.entries[-1]["seq"] or archive.data["header"] != digest(save.header):
        return None
    hashes = [engine.entry_hash(e) for e in save.entries]
    if not all(archive.known(h) for h in hashes):
        return None
    try:
        authenticate(save, vouched=archive.verified_at)
    except PbemError:
        return None  # verified in full: the refusal is reported as any other
    return hashes


def _archived_table(home: Home, save: Save) -> tuple[Table, int] | None:
    """The table at the newest entry this home's archive holds for the game, if cached."""
    archive = Archive(home.archive_dir, save.game_id)
    cache = archive.data.get("cache") or {}
    if not cache.get("table"):
        return None
    try:
        return Table.from_json(save.header, cache["table"]), archive.head_seq()
    except (KeyError, TypeError, ValueError):
        return None


def _file(summary: GameSummary, save: Save, home: Home, report: InboxReport) -> None:
    """Copy the save to HOME/inbox/ under its standard name, never overwriting."""
    last = save.entries[-1]
    folder = home.path / INBOX_DIR
    target = folder / save_name(save)
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
