"""What ``pbem inbox`` found: the report of a scan, one summary per game and one line
per problem, as text for people and as JSON (``pbem inbox --json``).

A problem's code gives its level: errors are signs of cheating or of a broken save (the
CLI exits 3 when one of INTEGRITY is present, 5 when an IMAP server could not be read);
warnings and notes are reported, not failed on."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pbem.home.contacts import Notice
from pbem.mail import message as mail

EXIT_SERVER = 5  # an IMAP server could not be read (as for mail not sent)
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
    "waiting": "note",  # entries dated ahead, not yet in effect here (PROTOCOL.md 11)
    "late": "note",  # an entry first seen here long after its signed time
}
SOURCE_FAILED = ("server", "not-found", "unreadable")  # with no message named: a source


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
    round_missing: list[str] = field(default_factory=list)  # every seat still to sign
    next: str = ""  # join, start, turn, reveal; '' when complete
    your_move: bool = False
    over: bool = False
    command: str = ""
    no_decision: str = ""  # your entry holds no decision: what it is ('deck work only')
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
        if self.your_move and self.no_decision:
            return f"YOUR ENTRY ({action}; nothing to decide: {self.no_decision})"
        if self.your_move:
            return f"YOUR MOVE ({action})"
        if len(self.round_missing) > 1:  # a round: each of them signs now, in parallel
            return f"waiting for each of {', '.join(self.round_missing)} ({action})"
        return f"waiting for {self.to_act} ({action})"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.ruleset, "title": self.title, "id": self.game_id, "seq": self.seq,
                "signer": self.signer, "origin": self.origin.to_json(), "filed": self.filed or None,
                "filed_how": self.filed_how, "head_seq": self.head_seq,
                "to_act": self.to_act or None, "round_missing": self.round_missing,
                "next": self.next or None,
                "your_move": self.your_move, "no_decision": self.no_decision or None,
                "over": self.over, "command": self.command or None,
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

    def unread_sources(self) -> list[str]:
        """The sources (or the files of a folder source) that could not be read at all: an
        IMAP server unreachable or refusing the login, a path missing or unreadable."""
        out: list[str] = []
        for p in self.problems:
            if p.code in SOURCE_FAILED and p.origin is not None and not p.origin.where \
                    and p.origin.source not in out:
                out.append(p.origin.source)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"home": self.home, "handle": self.handle, "sources": self.sources,
                "messages": self.messages, "already_read": self.already_read,
                "saves": self.saves, "duplicates": self.duplicates,
                "verified": self.verified, "max_bytes": self.max_bytes,
                "unread_sources": self.unread_sources(),
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
