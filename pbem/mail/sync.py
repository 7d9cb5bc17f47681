"""``pbem sync``: one command a day. Read every mail source of the profile (inbox),
sign and mail the entries that answer themselves unless that is switched off
(pbem.answer), mail what is queued (pbem.mail.outbox), and list the games waiting for
this home, oldest first."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import PbemError
from pbem.home import gameindex
from pbem.mail import answer, outbox, reminders, smtp
from pbem.mail import message as mail
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import timing
from pbem.session import logbook, withdrawal


@dataclass
class Answered:
    """An entry that answered itself, and where its mail went."""

    title: str
    game_id: str
    seq: int
    kind: str
    moves: list[str]
    path: str
    sent_to: list[str] = field(default_factory=list)
    queued: str = ""  # why it was not mailed now ('' once sent)

    def text(self) -> str:
        what = f"{self.kind}" + (f": {'; '.join(self.moves)}" if self.moves else "")
        head = f"{self.title} {self.game_id[:8]}: entry {self.seq} answered itself ({what})"
        if self.sent_to:
            return f"{head}, mailed to {', '.join(self.sent_to)}."
        return f"{head}, written to {self.path}; not mailed yet ({self.queued}), queued."

    def to_json(self) -> dict[str, Any]:
        return {"game": self.title, "id": self.game_id, "seq": self.seq, "kind": self.kind,
                "moves": self.moves, "path": self.path, "sent_to": self.sent_to,
                "queued": self.queued or None}


@dataclass
class Sent:
    path: str
    sent_to: list[str] = field(default_factory=list)
    failed: str = ""

    def text(self) -> str:
        if self.failed:
            return f"{self.path}: still not mailed ({self.failed})."
        return f"{self.path}: mailed to {', '.join(self.sent_to)}."

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "sent_to": self.sent_to, "failed": self.failed or None}


def mail_settings(home: Home) -> tuple[dict[str, Any] | None, str]:
    """The profile's SMTP settings, or None and why they cannot be used."""
    try:
        settings = smtp.settings(home)
        smtp.check_settings(**settings)
    except PbemError as exc:
        return None, exc.message
    return settings, ""


def _mail(home: Home, path: Path, settings: dict[str, Any] | None, why_not: str
          ) -> tuple[list[str], str]:
    """Mail the save at ``path`` as 'pbem send' does: (accepted addresses, '') or
    ([], why not)."""
    if settings is None:
        return [], why_not
    try:
        result = smtp.send_each(mail.compose_each(path, home, automatic=True), **settings)
    except PbemError as exc:
        return [], exc.message
    withdrawal.mark_sent(home, path)
    return list(result.accepted), ""


def answer_all(home: Home, settings: dict[str, Any] | None, why_not: str = ""
               ) -> tuple[list[Answered], list[str]]:
    """Sign and mail every entry that answers itself in the games waiting for this home
    where auto-answer is on. Returns what answered and a line for each game it could
    not answer (a changed key, a stale save, ...)."""
    done: list[Answered] = []
    trouble: list[str] = []
    for record in logbook.games(home):
        if not record.your_move or not record.exists() or not answer.enabled(home, record.id):
            continue
        try:
            written = answer.answer(home, record.path)
        except PbemError as exc:
            trouble.append(f"{record.title} {record.short_id}: not answered ({exc.message})")
            continue
        if written is None:
            continue
        entry = written.entry
        item = Answered(record.title, record.id, int(entry["seq"]), str(entry["kind"]),
                        list(entry["moves"]), str(written.path))
        item.sent_to, item.queued = _mail(home, written.path, settings, why_not)
        if not item.sent_to:
            outbox.add(home.path, written.path)
        done.append(item)
    return done, trouble


def send_queued(home: Home, settings: dict[str, Any] | None, why_not: str = "",
                skip: Collection[str] = ()) -> list[Sent]:
    """Mail every save in the outbox but those in ``skip`` (tried a moment ago); what is
    mailed (or gone) leaves it."""
    out: list[Sent] = []
    for text in outbox.pending(home.path):
        if text in skip:
            continue
        path = Path(text)
        if not path.is_file():  # taken back ('pbem undo') or moved: nothing to send
            outbox.remove(home.path, text)
            continue
        sent_to, failed = _mail(home, path, settings, why_not)
        if sent_to:
            outbox.remove(home.path, text)
        out.append(Sent(text, sent_to, failed))
    return out


def waiting(home: Home) -> list[gameindex.GameRecord]:
    """The games waiting for this home, the one waiting longest first."""
    mine = [r for r in logbook.games(home) if r.your_move and not r.complete]

    def since(record: gameindex.GameRecord) -> str:
        return record.time or "9999"

    return sorted(mine, key=lambda r: (since(r), r.id))


def waiting_lines(records: list[gameindex.GameRecord], no_decision: dict[str, str], now: Any,
                  unread: list[str]) -> list[str]:
    """The end of sync's report: the games waiting for this home, and a word on the
    sources it could not read (a game waiting there is not known here)."""
    lines = [f"Waiting for you ({len(records)}), the longest first:"] if records else []
    lines += [f"  {waiting_line(r, now, no_decision.get(r.id, ''))}" for r in records]
    if not unread:
        return lines or ["No game is waiting for you."]
    where = ", ".join(unread)
    if records:
        return [*lines, f"(Could not read {where}: a game whose move arrived there may be "
                "missing from this list.)"]
    return [f"Could not read {where}: no game this home knows of is waiting for you, but "
            "mail there may hold one."]


def no_decision(home: Home, records: list[gameindex.GameRecord]) -> dict[str, str]:
    """For each game whose entry owed holds no decision, by id: what it is."""
    out: dict[str, str] = {}
    for record in records:
        if record.next in ("turn", "reveal") and record.exists():
            found = answer.nothing_to_decide(home, record.path)
            if found:
                out[record.id] = found[0]
    return out


def waiting_line(record: gameindex.GameRecord, now: Any, no_decision: str = "") -> str:
    action = {"join": "join", "start": "start", "turn": "play", "reveal": "reveal",
              "vote": "vote"}.get(record.next, record.next)
    if no_decision:
        action += f" (nothing to decide: {no_decision})"
    stamp = timing.parse_stamp(record.time)
    since = f", waiting since {record.time} ({timing.duration_words(now - stamp)})" \
        if stamp is not None else ""
    return f"{record.short_id}  {record.title}, entry {record.seq}: you to {action}{since}"


@dataclass
class Overdue:
    """A game whose seat to act is past its patience, and the reminder sync mailed for it
    (or why none went)."""

    found: reminders.Check
    me: str
    sent_to: list[str] = field(default_factory=list)
    not_sent: str = ""  # why a reminder that was due was not mailed

    def text(self) -> str:
        found, who = self.found, self.found.who
        since = found.past_shown()
        if who == self.me:
            then = ("the next vote, or a confirm, may pass over your vote" if found.vote
                    else "another player may propose you absent")
            return f"{found.name}: your patience ran out {since}: {then}."
        head = f"{found.name}: {who} {'are' if found.several else 'is'} past patience since " \
            f"{since}"
        if self.sent_to:
            return f"{head}; reminded ({', '.join(self.sent_to)})."
        if self.not_sent:
            return f"{head}; not reminded ({self.not_sent})."
        return f"{head}; {found.why_not}"

    def to_json(self) -> dict[str, Any]:
        found = self.found
        # to_act is a handle, as everywhere (in a round: the first seat missing, as the
        # clock names it); round_missing every seat still to sign in the round.
        yours = self.me in found.round_missing if found.round_missing else \
            found.first == self.me
        return {"id": found.game_id, "to_act": found.first,
                "round_missing": found.round_missing, "yours": yours,
                "past_patience_since": timing.stamp(found.past), "reminded": self.sent_to,
                "next_reminder": timing.stamp(found.next_at),
                "not_reminded": self.not_sent or (None if found.due else found.why_not)}


def remind_due(home: Home, settings: dict[str, Any] | None, why_not: str, now: Any,
               mail_them: str = "") -> list[Overdue]:
    """Every game of this home whose seat to act is past its patience, the reminders that
    are due mailed as 'pbem remind' mails them (at most once a day per game), unless
    ``mail_them`` says why not (--no-remind, --dry-run)."""
    me = logbook.own_handle(home)
    out: list[Overdue] = []
    for record in logbook.games(home):
        # The index keeps each game's clock: only a game past patience there is loaded.
        ends = timing.parse_stamp(record.clock.get("patience_ends"))
        if record.complete or ends is None or ends > now or not record.exists():
            continue
        try:
            found = reminders.check(home, record.path, me, now)
        except PbemError:  # a save that no longer loads: 'pbem games' and 'remind' say why
            continue
        if found.past is None:
            continue
        item = Overdue(found, me)
        out.append(item)
        if not found.due or found.who == me:
            continue
        if mail_them or settings is None:
            item.not_sent = mail_them or why_not
            continue
        try:
            message = mail.compose(record.path, home, cc=False, remind=True)
        except mail.MailConfigError:  # the one a reminder meets: no address for the seat
            item.not_sent = (f"no mail address is known for {found.who}: remember one with "
                             f"'pbem contacts email {found.who} ADDRESS'")
            continue
        except PbemError as exc:
            item.not_sent = exc.message
            continue
        try:
            result = smtp.send(message, **settings)
        except PbemError as exc:
            item.not_sent = exc.message
            continue
        reminders.record(home, found.game_id, now)
        item.sent_to = list(result.accepted)
    return sorted(out, key=lambda o: (o.found.past or now, o.found.game_id))
