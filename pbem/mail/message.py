"""Saves as email: composing the message that carries a save, and finding saves in one.

A composed message is multipart/mixed: a multipart/alternative with a plain-text body and
an HTML body (the same words, plus the board as a PNG image in a multipart/related part,
at most 800 pixels wide, since most mail clients show no SVG), the save attached as
``application/toml`` under its file name (or, when only that makes the mail fit its
budget, gzip-compressed as ``application/gzip`` named NAME.gz), and the board's SVG page
attached for browsers (when there is no PNG).
Headers name the game for people (Subject, the same for every mail of one game, since
Gmail and Outlook group conversations by subject; what changes is in the body) and for
programs (``X-Pbem-Game``, ``X-Pbem-Seq``, ``X-Pbem-Ruleset``, ``X-Pbem-To-Act``, as
docs/JSON.md's "Mail headers" tells them). The Message-ID of an entry's mail is computed
from the game id, the entry's seq and its hash (:func:`entry_msgid`), so every home knows
the id of the mail of any entry without having kept it: In-Reply-To names the previous
entry's mail and References the game's first mail and that one, and clients thread a whole
game together. A mail no person asked for at that moment (a reminder, a mail sent by
``sync``) says so with ``Auto-Submitted: auto-generated`` (RFC 3834), so autoresponders
leave it alone.

Reading is by content, not by labels: any part whose decoded bytes look like a pbem save
is a candidate, whatever its name, content type or transfer encoding, because mail
clients rename, re-type and re-encode attachments.
"""

from __future__ import annotations

import binascii
import dataclasses
import datetime
import html
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Any, NamedTuple

from pbem import __version__, session
from pbem.drawing.page import html_page
from pbem.drawing.png import MAIL_WIDTH, PictureError, mail_png, squeezed
from pbem.errors import TurnError, UsageError
from pbem.home.contacts import Contacts
from pbem.mail import packing

# The reading side (attachments.py) is named mail.X by its callers too.
from pbem.mail.attachments import (  # noqa: F401
    MAX_ATTACHMENT_BYTES,
    Found,
    clean_text,
    defects,
    find_saves,
    looks_like_save,
    mentions_pbem,
)
from pbem.mail.nextstep import chance_paragraph, each_to_run, shell_word, what_to_run
from pbem.mail.profile import email as home_email
from pbem.mail.viewtable import view_table_html
from pbem.protocol.crypto.identity import Home, check_address, is_address, is_handle
from pbem.protocol.replay.engine import entry_hash
from pbem.protocol.saveformat import savefile, timing
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.saveformat.timing import duration_words, parse_stamp, shown, waiting_since
from pbem.protocol.state import result
from pbem.protocol.state.table import Table
from pbem.protocol.timekeeping import absence, clock
from pbem.session import logbook, rounds
from pbem.terminal import listed, printable

# A turn mail stays under MAIL_BUDGET bytes (what every mailbox and provider takes
# without complaint) where it can: the save always goes, and the board at twice the
# pixels; a mail they make larger says so under the board.
MAIL_BUDGET = 500 * 1000
MAIL_MARGIN = 24 * 1024  # headers, MIME boundaries, line ends the estimate leaves out
MAX_BODY_ENTRIES = 40  # a body longer than this points at 'pbem log' instead
ROOT_DOMAIN = "pbem.game"
# Message-IDs are made up, not any host's: a reserved domain (RFC 2606) no mail can come from.
MSGID_DOMAIN = "pbem.invalid"
ACTIONS = {"create": "create", "join": "join", "start": "start", "turn": "play",
           "reveal": "reveal", "vote": "vote"}


class MailConfigError(UsageError):
    """A mail setting that cannot work: no recipient, no sender, a bad option (exit 2)."""


# ---- composing ---------------------------------------------------------------------------
@dataclass
class Seat:
    handle: str
    email: str  # from the save's header, else from this home's contacts; may be ''
    pubkey: str


def entry_msgid(game_id: str, entry: savefile.Entry) -> str:
    """The Message-ID of the mail that carries ``entry``: the same in every home and for
    every recipient's copy, so a later mail can name it as its parent; the entry's hash
    keeps two rival entries with one seq (a fork) apart."""
    return f"<pbem.{game_id}.{entry['seq']}.{entry_hash(entry)[:8]}@{MSGID_DOMAIN}>"


def thread_headers(game_id: str, entries: Sequence[savefile.Entry], *,
                   reminder: datetime.datetime | None = None) -> dict[str, str]:
    """Message-ID, In-Reply-To and References for the mail of the last of ``entries``.

    The parent is the mail of the entry before; References holds the game's first mail
    and the parent, no more (a long header gains nothing: clients thread on any id they
    know). A reminder for the last entry replies to that entry's mail and has an id of its
    own (a receiving server drops a second mail with an id it has seen)."""
    last = entries[-1]
    if reminder is not None:
        when = reminder.astimezone(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
        own = f"<pbem.{game_id}.{last['seq']}.{entry_hash(last)[:8]}.reminder.{when}@{MSGID_DOMAIN}>"
        chain = [*entries[:1], last]
    else:
        own = entry_msgid(game_id, last)
        chain = [*entries[:1], *entries[-2:-1]] if len(entries) > 1 else []
    ids = list(dict.fromkeys(entry_msgid(game_id, e) for e in chain))  # root, parent
    headers = {"Message-ID": own}
    if ids:
        headers["In-Reply-To"] = ids[-1]
        headers["References"] = " ".join(ids)
    return headers


def subject_of(title: str, game_id: str) -> str:
    """The one Subject of every mail of a game."""
    return f"[pbem] {title} {game_id[:8]}"


# Every mail pbem sends on its own (a reminder, what sync mails) carries these: RFC 3834's
# mark that keeps vacation responders quiet, and Exchange's own way of asking the same
# (out-of-office and auto-replies only: "All" would also suppress the bounce that tells
# the sender an address is wrong).
AUTOMATIC_HEADERS = {"Auto-Submitted": "auto-generated",
                     "X-Auto-Response-Suppress": "OOF, AutoReply"}


def _load(save: Save | str | Path) -> tuple[Save, str, bytes]:
    """(save, attachment file name, attachment bytes): a file is attached byte for byte."""
    if isinstance(save, Save):
        last = save.entries[-1]
        name = savefile.default_name(save.ruleset, save.game_id, last["seq"], last["seat"])
        return save, name, savefile.dumps(save).encode("utf-8")
    path = Path(save)
    parsed = savefile.read(path)
    name = path.name
    if not plain_name(name):  # a name that would garble the body and the commands in it
        last = parsed.entries[-1]
        name = savefile.default_name(parsed.ruleset, parsed.game_id, last["seq"], last["seat"])
    return (parsed, *packing.as_saved(name, path.read_bytes()))


def describe_entry(entry: savefile.Entry, you: str = "") -> str:
    """One plain line for an entry: "cy played: mine; trade scrap:gold x2". ``you``: the
    reader's handle, for the one line that speaks of a player other than its signer."""
    who, kind, moves = entry["seat"], entry["kind"], "; ".join(entry["moves"])
    if kind == "create":
        return f"{who} created the game"
    if kind == "join":
        return f"{who} joined"
    if kind == "start":
        return f"{who} started the game"
    if kind == "resign":
        return f"{who} resigned"
    if kind == "absent":
        absent = f"you ({you}) are" if entry["player"] == you else f"{entry['player']} is"
        return f"{who} proposed that {absent} absent (remedy {entry['remedy']})"
    if kind == "vote":
        return f"{who} voted to {entry['vote']} the proposal"
    if kind == "confirm":
        return f"{who} confirmed the proposal that a player is absent"
    if kind == "away":
        until = parse_stamp(entry.get("away_until"))
        return f"{who} signed an away note" + (f" until {shown(until)}" if until else "")
    if kind == "reveal":
        return f"{who} revealed their secrets for the final audit" + (f" and played: {moves}"
                                                                       if moves else "")
    if "sealed" in entry:  # a sealed step's commitment: no moves, they stay hidden
        return f"{who} sealed their moves for the step (opened once every seat has sealed)"
    bot = logbook.bot_turn_words(entry)
    if bot:  # an absent player's turn, played by the bot (PROTOCOL.md section 11)
        bot = f"{who} played {bot}, then "
        who = ""
    played = "opened the moves they sealed" if "salt" in entry else "played"
    # (no move but deck work: an entry the engine asked for deck work, or an empty turn)
    empty = "made no move and did the secret-deck work they owed" if entry.get("chores") \
        else "ended the turn"
    return bot + (f"{who} {played}: {moves}".lstrip() if moves else f"{who} {empty}".lstrip())


def _seats(table: Table, contacts: Contacts) -> list[Seat]:
    """The seats with their addresses: the signed header's (checked when the save was
    read), else this home's contacts', if it is one plain address (contacts.toml is a
    file anyone can edit; a comma there must not add a recipient)."""
    seats = []
    for s in table.seats:
        known = contacts.email_for(s.handle, s.pubkey)
        seats.append(Seat(s.handle, s.email or (known if is_address(known) else ""), s.pubkey))
    return seats


def _own_handle(home: Home) -> str:
    """This home's handle, '' without an identity; UsageError if identity.toml holds
    something that is not a handle (it would become a header of the mail)."""
    if not home.has_identity():
        return ""
    handle = home.handle()
    if not is_handle(handle):
        raise UsageError(f"The handle in {home.path / 'identity.toml'} is not a usable handle "
                         "(lower-case letters, digits, '-' or '_'); restore the file from a "
                         "backup or make a new home.")
    return handle


@dataclass
class _Body:
    """The message's words as sections, rendered once as text and once as HTML."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    history_title: str = ""
    board_text: str = ""
    after: list[str] = field(default_factory=list)

    def text(self) -> str:
        out = [self.title, ""]
        if self.history:
            out += [self.history_title] + [f"  {line}" for line in self.history] + [""]
        for para in self.paragraphs:
            out += [para, ""]
        if self.board_text:
            out += ["The board (what everyone can see):", ""]
            out += ["    " + line for line in self.board_text.splitlines()] + [""]
        for para in self.after:
            out += [para, ""]
        return "\n".join(out).rstrip() + "\n"

    def html(self, board_html: str) -> str:
        esc = html.escape
        parts = [f"<h2 style=\"font-family:sans-serif\">{esc(self.title)}</h2>"]
        if self.history:
            parts.append(f"<p>{esc(self.history_title)}</p><pre style=\"white-space:pre-wrap\">"
                         + "\n".join(esc(line) for line in self.history) + "</pre>")
        for para in self.paragraphs:
            parts.append(_html_para(para))
        parts.append("<p>The board (what everyone can see):</p>")
        parts.append(f"<div class=\"pbem-board\">{board_html}</div>")
        for para in self.after:
            parts.append(_html_para(para))
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
                + esc(self.title) + "</title></head>\n<body style=\"font-family:sans-serif;"
                "max-width:800px\">\n"
                + "\n".join(parts) + "\n</body></html>\n")


def _html_para(para: str) -> str:
    # Indented lines are commands to copy: keep them monospaced.
    lines = para.splitlines()
    out = []
    for line in lines:
        if line.startswith("    "):
            out.append(f"<pre>{html.escape(line.strip())}</pre>")
        else:
            out.append(f"<p>{html.escape(line)}</p>")
    return "".join(out)


@dataclass
class Board:
    """The board in a message: HTML for the body, and (for a game that draws one) its PNG
    to embed as a cid: image and its SVG page to attach for browsers."""

    html: str
    png: bytes = b""
    cid: str = ""
    page: str = ""


def board(table: Table, view: dict[str, Any], cid: str, heading: str) -> Board:
    """The game's ``render_svg(view)`` as a PNG image shown MAIL_WIDTH CSS pixels wide and
    drawn once, at twice the pixels (most mail clients show no SVG), else (a game that
    draws none, or a renderer that fails) the view as HTML tables. The SVG page is
    attached only when there is no PNG: with the image in the body it would repeat the
    picture (and weigh about a sixth of the mail). The board is never made less sharp or
    left out to fit the budget (:func:`_save_beside`)."""
    svg = table.game.render_svg(view)
    if not (isinstance(svg, str) and svg.strip()):
        return Board(view_table_html(view))
    try:
        png = mail_png(svg)
    except PictureError:  # the attached page still shows it in a browser
        return Board(view_table_html(view), page=html_page(table.game, view, heading))
    pixels_wide, pixels_high = struct.unpack(">II", png[16:24])  # from the PNG's header
    width = min(MAIL_WIDTH, pixels_wide)
    height = -(-pixels_high * width // pixels_wide)
    img = (f"<img src=\"cid:{html.escape(cid)}\" width=\"{width}\" height=\"{height}\" "
           f"alt=\"{html.escape(heading)}: the board\" style=\"max-width:100%;height:auto\">")
    return Board(img, png, cid)


def _save_beside(drawn: Board, filename: str, data: bytes, attached: str,
                 text_size: int) -> tuple[Board, packing.Attached]:
    """The save's attachment (as it is if the mail fits MAIL_BUDGET with it and the board,
    else gzip-compressed) and the board: where the two do not fit, its PNG squeezed (the
    same pixels in fewer bytes, slower to make), and where they still do not, it says so
    under it."""
    room = MAIL_BUDGET - MAIL_MARGIN - text_size - _base64_size(len(drawn.png))
    part = packing.attachment(filename, data, attached, room)
    if drawn.png and part.size > room:
        smaller = squeezed(drawn.png)
        room += _base64_size(len(drawn.png)) - _base64_size(len(smaller))
        drawn = dataclasses.replace(drawn, png=smaller)
        part = packing.attachment(filename, data, attached, room)
    if drawn.png and part.size > room:
        note = html.escape(over_budget_note(len(data), len(drawn.png), part.size))
        drawn = dataclasses.replace(drawn, html=drawn.html + f"<p><small>{note}</small></p>")
    return drawn, part


def over_budget_note(save_bytes: int, png_bytes: int, save_attached: int) -> str:
    """What a mail says under a board that does not fit beside its save in MAIL_BUDGET."""
    return (f"This mail is larger than the {MAIL_BUDGET // 1000} KB pbem keeps a mail under "
            f"where it can: the save is {_kb(save_bytes)} ({_kb(save_attached)} "
            f"as attached), the board {_kb(png_bytes)}. The board is sent at full "
            "sharpness all the same.")


def _kb(n: int) -> str:
    return f"{-(-n // 1000)} KB"


_base64_size = packing.base64_size


def save_text(data: bytes) -> str:
    """The save as its attachment carries it: quoted-printable of its bytes, every byte
    kept (a line end is ``=0A``, so no mail hop can turn it into CRLF; the lines are soft
    breaks of at most 76 characters, 78 where the first is escaped). A save, mostly ASCII,
    grows by a tenth to a sixth this way, not the third of base64. No line starts with
    ``From `` (an mbox would write ``>From``) nor ``.`` (SMTP undoes dot-stuffing, not
    every other tool does)."""
    text = binascii.b2a_qp(data, quotetabs=False, istext=False, header=False).decode("ascii")
    lines = text.split("\n")
    return "\n".join(_guarded(line) for line in lines)


def _guarded(line: str) -> str:
    if line.startswith("From "):
        return "=46" + line[1:]
    if line.startswith("."):
        return "=2E" + line[1:]
    return line


def _since(table: Table, save: Save, reader: int | None,
           body_since: int | None) -> tuple[int, str]:
    """(the seq after which entries are news to the reader, the words that say so)."""
    if body_since is not None:
        return body_since, (f"After entry {body_since}:" if body_since >= 0 else "From the start:")
    if reader is not None:
        handle = table.seats[reader].handle
        mine = [e["seq"] for e in save.entries if e["seat"] == handle]
        if mine:
            return mine[-1], f"Since your last entry ({mine[-1]}):"
        return -1, "From the start:"
    since = max(-1, int(save.entries[-1]["seq"]) - MAX_BODY_ENTRIES)  # a seq, as above
    return since, (f"After entry {since}:" if since >= 0 else "From the start:")


def compose_each(save: Save | str | Path, sender_home: Home, *, body_since: int | None = None,
                 cc: bool = True, to: Sequence[str] | None = None,
                 now: datetime.datetime | None = None, remind: bool = False,
                 automatic: bool = False) -> list[EmailMessage]:
    """One message per recipient, each with its own text: To: that player alone, "since
    your last entry" counted from their own last entry, "it is your move" only to the
    player to act. The recipients are those :func:`compose` would address (the player
    to act first); with ``to`` (addresses given by hand) it is that one message. The save
    is verified once and the board drawn once for them all."""
    mailing = _Mailing(save, sender_home, now)
    asked = _Asked(body_since, remind, automatic or remind)
    first = _message(mailing, asked, to=to, cc=cc)
    if to:
        return [first]
    seats = _addressed(mailing, cc and not remind)
    if len(seats) <= 1:
        return [first]
    return [_message(mailing, asked, reader=seat) for seat in seats]


def compose(save: Save | str | Path, sender_home: Home, *, body_since: int | None = None,
            cc: bool = True, to: Sequence[str] | None = None,
            now: datetime.datetime | None = None, remind: bool = False,
            automatic: bool = False) -> EmailMessage:
    """The email that carries ``save`` (a path, attached byte for byte, or a Save); the
    save gzip-compressed, as NAME.gz, if the mail fits its budget only so (packing).

    To: the seat that acts next (its address from the save's header, else from this
    home's contacts); Cc: the other seats with an address, unless ``cc`` is False. ``to``
    replaces every recipient. From: this home's handle and address (pbem.profile, else its
    seat's address in the header). The body tells what happened after entry
    ``body_since`` (default: after the recipient's own last entry) and what to run.

    The save is verified in ``sender_home`` first: a stale save is refused (TurnError, it
    would fork the game), an altered one raises the verify error. MailConfigError (exit 2)
    if nobody can be addressed and ``to`` is not given.

    ``remind``: the same save again, to the seat to act only, saying since when the game
    has waited for it (:func:`waiting_since`); UsageError if the game is over or waits
    for this home itself. ``automatic`` (implied by ``remind``): no person sends this
    mail now, and its headers say so (AUTOMATIC_HEADERS)."""
    mailing = _Mailing(save, sender_home, now)
    return _message(mailing, _Asked(body_since, remind, automatic or remind), to=to, cc=cc)


class _Asked(NamedTuple):
    """What the sender asked of a mail besides its recipients."""

    body_since: int | None  # tell the entries after this one (None: the reader's last)
    remind: bool
    automatic: bool  # no person sends it now: its headers say so


class _Mailing:
    """A save verified in the sender's home, and who is who in it: what every mail of
    it shares (the board is drawn for the first and kept for the others)."""

    def __init__(self, save: Save | str | Path, sender_home: Home,
                 now: datetime.datetime | None) -> None:
        self.parsed, self.filename, self.data = _load(save)
        self.path = None if isinstance(save, Save) else Path(save)
        self.attached = save_text(self.data)
        self.settling: dict[int, str] = {}  # seq -> a vote's or confirm's words, as in log
        self.verified = self._verify(sender_home)
        if self.verified.stale:
            raise TurnError(self.verified.notes[0] + " Mail the newest save instead.")
        self.home = sender_home
        self.table = self.verified.table
        self.seats = _seats(self.table, Contacts(sender_home))
        self.me = _own_handle(sender_home)
        self.my_seat = self.table.seat_of(self.me) if self.me else None
        self.duty = self.table.duty()
        self.actor = self.duty.seat if self.duty else None
        self.seq = self.parsed.entries[-1]["seq"]
        now = now or timing.now()  # the process clock (PBEM_CLOCK, when set)
        self.now = now if now.tzinfo is not None else now.replace(tzinfo=datetime.UTC)
        self.view = session.public_view(self.verified)  # with the final result once audited
        self.board: Board | None = None
        self.save_part: packing.Attached | None = None  # the save as attached

    def _verify(self, home: Home) -> session.Verified:
        """The save verified; a vote or a confirm the body may list is told as `log` tells
        it, naming the proposal it settles, which the table before it holds (the replay
        then starts before it, not from the home's cached table)."""
        shown = self.parsed.entries[-MAX_BODY_ENTRIES:]
        # (and a turn with no moves, which may only resolve the chance before a sealed step)
        settling = [int(e["seq"]) for e in shown if e["kind"] in ("vote", "confirm")
                    or (e["kind"] == "turn" and not e["moves"] and "round" not in e)]
        if not settling:
            return session.verify(self.parsed, home)

        def tell(before: Table, _after: Table, entry: savefile.Entry) -> None:
            seq = int(entry["seq"])
            if seq in settling and entry["kind"] != "turn":
                self.settling[seq] = logbook.settling_words(entry, before)
            elif seq in settling and (resolving := logbook.resolving_words(entry, before)):
                bot = logbook.bot_turn_words(entry)
                self.settling[seq] = resolving + (f"; it also played {bot}" if bot else "")

        return session.verify(self.parsed, home, on_entry=tell, told_from=min(settling))

    @property
    def other_actor(self) -> int | None:
        """The seat to act, unless it is this home's."""
        return self.actor if self.actor is not None and self.actor != self.my_seat else None

    def waiting(self) -> list[int]:
        """The seats the game waits for but this home's: those missing in a round, or one."""
        seats = self.table.round_missing() or ([self.actor] if self.actor is not None else [])
        return [s for s in seats if s != self.my_seat]

    @property
    def cid(self) -> str:
        """The board image's Content-ID: short, so that no header is folded."""
        return f"board.{self.table.game_id[:16]}.{self.seq}@{ROOT_DOMAIN}"


def _message(mailing: _Mailing, asked: _Asked, *, to: Sequence[str] | None = None,
             cc: bool = True, reader: int | None = None) -> EmailMessage:
    """One mail of ``mailing``: to ``reader`` alone with its own text (compose_each), else
    as :func:`compose` addresses it."""
    waited: tuple[datetime.datetime | None, str] = (None, "")
    if asked.remind:
        waited = _check_reminder(mailing, to)
        cc = False
    to_list, cc_list = _recipients(mailing, to, cc, reader)
    if asked.remind and reader is None and not to:  # each seat missing but this home's
        waiting = [formataddr((mailing.seats[s].handle, mailing.seats[s].email))
                   for s in mailing.waiting() if mailing.seats[s].email]
        to_list, cc_list = waiting[:1], waiting[1:]
    if not to_list:
        raise MailConfigError(
            "Nobody in this game has a known mail address (seats are given as HANDLE=EMAIL "
            "to 'pbem new'). Give the address yourself with --to ADDRESS, or remember a "
            "player's with 'pbem contacts email HANDLE ADDRESS'.")
    if reader is None and len(mailing.table.round_missing()) < 2:
        reader = mailing.other_actor  # else no reader: each seat of the round reads it
    body = _mail_body(mailing, asked, reader, waited, mailing.filename)
    drawn, save_part = _board_of(mailing, body)
    if save_part.name != mailing.filename:  # the words name the file as attached
        body = _mail_body(mailing, asked, reader, waited, save_part.name)
    msg = _headers(mailing, asked, to_list, cc_list)
    _add_parts(msg, mailing, body, drawn, save_part)
    return msg


def _check_reminder(mailing: _Mailing, to: Sequence[str] | None
                    ) -> tuple[datetime.datetime | None, str]:
    """Since when the game has waited for the seat a reminder goes to, and how that is
    counted; a UsageError if nobody else is to act, a MailConfigError for no address."""
    duty, waiting = mailing.duty, mailing.waiting()
    if duty is None or mailing.actor is None:
        raise UsageError("This game is over: nobody is waiting, so there is nobody to "
                         "remind.")
    if not waiting:  # in a round, the others missing in it are reminded
        raise UsageError(f"The game waits for you ({mailing.me}, to {ACTIONS[duty.kind]}): "
                         "there is nobody to remind.")
    actor = waiting[0]
    who = mailing.seats[actor].handle
    if not to and not mailing.seats[actor].email:
        raise MailConfigError(f"No mail address is known for {who}: give one with --to "
                              f"ADDRESS, or remember it with 'pbem contacts email {who} "
                              "ADDRESS'.")
    return _waited(mailing.table, mailing.parsed, mailing.path)


def _recipients(mailing: _Mailing, to: Sequence[str] | None, cc: bool, reader: int | None
                ) -> tuple[list[str], list[str]]:
    """(To, Cc): ``reader`` alone; else the addresses ``to``; else the seat to act,
    copying the others; if the seat to act is this home's (or has no address), everyone
    else with an address directly."""
    seats = mailing.seats
    if reader is not None:
        return [formataddr((seats[reader].handle, seats[reader].email))], []
    if to:
        return [check_address(a) for a in to if a.strip()], []  # one address each
    others = [s for i, s in enumerate(seats) if i != mailing.my_seat and s.email]
    actor = mailing.other_actor
    if actor is not None and seats[actor].email:
        copied = [s for s in others if s.handle != seats[actor].handle] if cc else []
        return ([formataddr((seats[actor].handle, seats[actor].email))],
                [formataddr((s.handle, s.email)) for s in copied])
    return [formataddr((s.handle, s.email)) for s in others], []


def _addressed(mailing: _Mailing, cc: bool) -> list[int]:
    """The seats :func:`_recipients` addresses without ``to``, the player to act first."""
    actor = mailing.other_actor
    first = [actor] if actor is not None and mailing.seats[actor].email else []
    rest = [i for i, s in enumerate(mailing.seats)
            if i != mailing.my_seat and s.email and i not in first]
    return first + (rest if cc or not first else [])


def _mail_body(mailing: _Mailing, asked: _Asked, reader: int | None,
               waited: tuple[datetime.datetime | None, str], filename: str) -> _Body:
    """The words of one mail: its title, the entries since the reader's last, the board
    as text, what to run; a reminder says since when the game has waited."""
    table, duty = mailing.table, mailing.duty
    acting = ", ".join(table.seats[s].handle for s in rounds.acting(table))
    status = "game over" if duty is None else f"{acting} to {ACTIONS[duty.kind]}"
    since, since_words = _since(table, mailing.parsed, reader, asked.body_since)
    body = _body(table, mailing.parsed, mailing.seats, filename, reader,
                 mailing.my_seat, since, mailing.verified, mailing.settling)
    body.title += f": {status}"
    body.history_title = since_words
    if asked.remind and mailing.actor is not None:
        body.title = "Reminder: " + body.title
        names = listed([table.seats[s].handle for s in mailing.waiting()])
        body.paragraphs.insert(0, _reminder(names, *waited, mailing.now))
    body.board_text = table.game.render(mailing.view)
    return body


def _headers(mailing: _Mailing, asked: _Asked, to_list: list[str],
             cc_list: list[str]) -> EmailMessage:
    """A message with every header: for people (From: the profile's address, else this
    seat's in the header), for threading, and for programs (X-Pbem-*)."""
    table, parsed, duty, me = mailing.table, mailing.parsed, mailing.duty, mailing.me
    my_email = home_email(mailing.home) or (
        mailing.seats[mailing.my_seat].email if mailing.my_seat is not None else "")
    msg = EmailMessage(policy=policy.default)
    msg["Subject"] = subject_of(table.game.info.title, table.game_id)
    if my_email:
        msg["From"] = formataddr((me, my_email)) if me else my_email
    msg["To"] = ", ".join(to_list)
    if cc_list:
        msg["Cc"] = ", ".join(cc_list)
    msg["Date"] = format_datetime(mailing.now.astimezone())
    for name, value in thread_headers(table.game_id, parsed.entries,
                                      reminder=mailing.now if asked.remind else None).items():
        msg[name] = value
    if asked.automatic:
        for name, value in AUTOMATIC_HEADERS.items():
            msg[name] = value
    msg["X-Pbem-Game"] = table.game_id
    msg["X-Pbem-Seq"] = str(mailing.seq)
    msg["X-Pbem-Ruleset"] = parsed.ruleset
    if duty is not None:  # in a round, every seat still to sign in it
        acting = ", ".join(table.seats[s].handle for s in rounds.acting(table))
        msg["X-Pbem-To-Act"] = f"{acting} {duty.kind}"
    msg["X-Mailer"] = f"pbem {__version__}"
    return msg


def _add_parts(msg: EmailMessage, mailing: _Mailing, body: _Body, drawn: Board,
               save_part: packing.Attached) -> None:
    """The plain text and HTML bodies (the board embedded), the save, the board's page."""
    # No control character reaches a reader's terminal (--stdout) or mail client, whatever
    # a game's rendering or a move's text holds.
    text = printable(body.text())
    msg.set_content(text, cte=_cte(text))
    page = printable(body.html(drawn.html))
    msg.add_alternative(page, subtype="html", cte=_cte(page))
    if drawn.png:  # the HTML part becomes multipart/related: the page and its image
        html_body = msg.get_body(preferencelist=("html",))
        assert html_body is not None
        html_body.add_related(drawn.png, maintype="image", subtype="png",
                              cid=f"<{mailing.cid}>", disposition="inline",
                              filename="board.png")
    # Quoted-printable, so that the file arrives byte for byte (as 7bit text mail would
    # turn its LF line ends into CRLF on the way) and a quarter smaller than as base64.
    # The library's own quoted-printable also encodes every space: the text is ours.
    # A save packed to fit (pbem.mail.packing) goes as base64 gzip.
    msg.add_attachment(save_part.data, maintype="application", subtype=save_part.subtype,
                       filename=save_part.name, cte=save_part.cte)
    if not save_part.packed:
        [*_, part] = msg.iter_attachments()
        part.set_payload(mailing.attached)
    if drawn.page:
        msg.add_attachment(drawn.page, subtype="html", cte=_cte(drawn.page),
                           filename=f"{Path(mailing.filename).stem}-board.html")


def _board_of(mailing: _Mailing, body: _Body) -> tuple[Board, packing.Attached]:
    """The board and the save's attachment, decided for the first mail of ``mailing`` in
    the room its size leaves (:func:`_save_beside`), the same for every other recipient."""
    if mailing.board is None or mailing.save_part is None:
        text_size = 2 * len(body.text().encode("utf-8")) + 4096  # plain, html, headers
        title = mailing.table.game.info.title
        drawn = board(mailing.table, mailing.view, mailing.cid,
                      f"{title} {mailing.table.game_id[:8]}, entry {mailing.seq}")
        mailing.board, mailing.save_part = _save_beside(
            drawn, mailing.filename, mailing.data, mailing.attached, text_size)
    return mailing.board, mailing.save_part


def _waited(table: Table, parsed: Save, path: Path | None
            ) -> tuple[datetime.datetime | None, str]:
    """Since when the game has waited for the seat to act (or its vote), as its clock
    counts (PROTOCOL.md section 11): from the entry that made it to act, which a later
    entry by someone else (an away note, a proposal) does not move, nor a back-dated one;
    for a save from before signed times, the save file's date."""
    info = clock.status(table)
    since = parse_stamp(info["since"] or "")
    if since is None or parse_stamp(parsed.entries[-1].get("time", "")) is None:
        return waiting_since(parsed.entries[-1], path)  # a save from before signed times
    if info["next"] == "vote":
        return since, f"when {info['to_act']}'s vote fell due, in signed times"
    if len(table.round_missing()) > 1:  # the clock names the first of them alone
        return since, "the signed time of the entry before the round, which made it their move"
    return since, f"the signed time of the entry that made it {info['to_act']}'s move"


def _reminder(handle: str, since: datetime.datetime | None, source: str,
              now: datetime.datetime) -> str:
    if since is None:
        return f"A reminder: this game is waiting for {handle}."
    return (f"A reminder: this game has waited for {handle} for {duration_words(now - since)}, "
            f"since {since.strftime('%Y-%m-%d %H:%M')} UTC ({source}).")


def _cte(text: str) -> str:
    # 7bit where it is safe; quoted-printable otherwise, so no SMTP hop needs 8BITMIME.
    if text.isascii() and all(len(line) <= 900 for line in text.splitlines()):
        return "7bit"
    return "quoted-printable"


def _body(table: Table, save: Save, seats: list[Seat], filename: str, reader: int | None,
          my_seat: int | None, since: int, verified: session.Verified,
          settling: dict[int, str]) -> _Body:
    game = table.game
    duty = table.duty()
    seq = save.entries[-1]["seq"]
    body = _Body(f"{game.info.title}, game {table.game_id[:8]}, entry {seq}")
    news = [e for e in save.entries if e["seq"] > since]
    if len(news) > MAX_BODY_ENTRIES:
        skipped = len(news) - MAX_BODY_ENTRIES
        news = news[-MAX_BODY_ENTRIES:]
        body.history.append(f"(... {skipped} earlier entries: 'pbem log {shell_word(filename)}' "
                            "lists all)")
    you = seats[reader].handle if reader is not None else ""
    for e in news:
        line = settling.get(int(e["seq"])) or describe_entry(e, you)
        body.history.append(f"{e['seq']:4d}  {line}")
        if e.get("note"):  # table talk, quoted under its entry (escaped in the HTML part)
            body.history.append(f"        {savefile.said(e['seat'], e['note'])}")

    if duty is None:
        told = verified.report.result  # the one result every command tells (protocol.result)
        unrevealed = told.get("unrevealed", [])
        revealed = ("every seat has revealed" if not unrevealed else
                    f"every seat has revealed but {', '.join(unrevealed)}, declared absent")
        body.paragraphs.append(f"The game is over and {revealed}. Check the final scores and "
                               f"the audit with:\n    pbem verify {shell_word(filename)}")
        if told.get("ranking"):
            scores = told["scores"]
            ranking = "; ".join(", ".join(f"{n} {scores[n]}" for n in group)
                                for group in told["ranking"])
            body.paragraphs.append(f"{told['ending']['text']} {told['winner']}. Final scores, "
                                   f"best first: {ranking}.")
            # The verdict whole: a partial audit names what went unchecked, a card left
            # closed under an absent seat's layer among it (as every result does).
            verdict = result.audit_words(told)
            body.paragraphs += ["\n".join(verdict)] if verdict else []
    else:
        # In a round (the joins, the final reveals) every seat still to sign in it acts now.
        to_sign = table.round_missing()
        acting = reader if reader in to_sign else duty.seat
        several = reader not in to_sign and len(to_sign) > 1
        who = listed([seats[s].handle for s in to_sign]) if several else seats[acting].handle
        chores = duty.kind == "turn" and table.deck_work_next()  # no move to choose
        body.paragraphs.append(
            each_to_run(duty.kind, [seats[s].handle for s in to_sign], filename, chores)
            if several and reader is None else
            what_to_run(duty.kind, who, filename, several=several,
                        addressed=reader == acting, is_me=my_seat == acting and not several,
                        bystander=reader not in (None, acting),
                        proposed=reader in absence.proposed(table), deck_work=chores))
        if table.gstate.get("pending"):
            body.paragraphs.append(chance_paragraph(table, duty.kind, seq))
        # Who is absent and who signs for the bot, or the open proposal: the board below
        # names the absent seat to act in the rules' own words.
        body.paragraphs += absence.lines(table, you=you)
    # Entries of the file not yet in effect for the sender's home (PROTOCOL.md section 11).
    body.paragraphs += [w.words(timing.now()) for w in verified.waiting]
    missing = [s.handle for i, s in enumerate(seats) if not s.email and i != my_seat]
    if missing:
        names = ", ".join(missing)
        body.after.append(f"No mail address is known for {names}: please forward this message "
                          f"to {'them' if len(missing) > 1 else names} by hand.")
    seat_words = []
    acting_now = table.round_missing() or ([duty.seat] if duty is not None else [])
    for i, s in enumerate(seats):
        tags = [t for t, on in (("sender", i == my_seat), ("next", i in acting_now)) if on]
        seat_words.append(s.handle + (f" <{s.email}>" if s.email else " (no address)")
                          + (f" [{', '.join(tags)}]" if tags else ""))
    body.after.append("Seats: " + "; ".join(seat_words) + ".")
    me = table.seats[my_seat] if my_seat is not None else None
    sent_by = ""
    if me is not None and me.pubkey:
        from pbem.protocol.crypto.identity import fingerprint

        sent_by = f"Sent by {me.handle}, fingerprint {fingerprint(bytes.fromhex(me.pubkey))}. "
    body.after.append(sent_by + f"'pbem verify {shell_word(filename)}' re-checks every signature "
                      "and move.")
    return body


def plain_name(name: str) -> bool:
    """Whether ``name`` is a file name that can be shown and typed as it is: one path
    component, no control, reordering or undecodable character."""
    return (bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name
            and printable(name) == name and "\n" not in name and "\t" not in name
            and "\ufffd" not in name)


def as_text(message: EmailMessage) -> str:
    """The message as text with LF line ends: for --stdout (sendmail -t, msmtp -t) or .eml."""
    return message.as_string(policy=message.policy.clone(linesep="\n"))


def write_eml(message: EmailMessage, path: str | Path) -> Path:
    """Write the message atomically to a new file; never overwrites (UsageError)."""
    target = Path(path)
    try:
        return savefile.write_new(target, as_text(message))
    except UsageError:  # its words are about saves and -o; these are about --eml
        if target.exists():
            raise UsageError(f"{target} already exists; pbem never overwrites a file. Give "
                             "another name with --eml NEWNAME.") from None
        raise UsageError(f"The folder {target.parent} does not exist; create it or give "
                         "another --eml FILE.") from None
    except OSError as exc:
        raise UsageError(f"Could not write {target} ({exc.strerror}).") from None
