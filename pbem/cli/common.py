"""What the commands share: printing (no control character reaches the terminal),
the home and SAVE arguments, the mail options and delivery, signing, the reports
several commands print."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import click

from pbem.errors import PbemError
from pbem.terminal import printable, printable_json


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo for everything pbem prints: no control character from a save, a mail
    or a file name reaches the terminal (pbem.terminal)."""
    click.echo(printable(message), err=err, nl=nl)


def home_of(ctx: click.Context) -> Any:
    from pbem.protocol.crypto.identity import Home, default_home

    given = ctx.obj.get("home") if ctx.obj else None
    return Home(Path(given) if given else default_home())


def resolve_save(ctx: click.Context, text: str) -> str:
    """A command's SAVE argument as a file path: a path that exists is used as it is; else
    a game's short id or a unique start of its id means the newest save this home has of
    that game ('pbem games'). An id that fits no game or several is a usage error (exit 2)
    naming the candidates. Every command taking SAVE calls this first."""
    from pbem.session import logbook

    notes: list[str] = []
    found = str(logbook.find_save(home_of(ctx), text, notes))
    for note in notes:
        echo(f"pbem: {note}", err=True)
    return found


def emit_json(data: Any) -> None:
    click.echo(printable_json(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)))


# ---- mail settings shared by send and play --send ------------------------------------
EXIT_NOT_SENT = 5  # README: mail not delivered


def smtp_options(command: Any) -> Any:
    """The SMTP settings a command may give for one mail (each wins over the profile)."""
    for option in reversed([
        click.option("--smtp", "host", metavar="HOST", help="SMTP server (default: your "
                     "profile's)."),
        click.option("--port", type=click.IntRange(1, 65535)),
        click.option("--security", type=click.Choice(["starttls", "tls", "none"])),
        click.option("--user", metavar="NAME", help="SMTP login."),
        click.option("--password-env", metavar="VAR",
                     help="Environment variable holding the password."),
        click.option("--password-command", metavar="CMD", help="Command that prints the password "
                     "(with --smtp-auth xoauth2: an OAuth2 access token)."),
        click.option("--smtp-auth", "auth", type=click.Choice(["login", "xoauth2"]),
                     help="Log in with a password (login) or an OAuth2 access token (xoauth2, "
                          "sent by XOAUTH2 or OAUTHBEARER). Default: your profile's, else login."),
        click.option("--timeout", type=click.FloatRange(0, 3600, min_open=True), default=30,
                     show_default=True, help="Seconds to wait for the server."),
    ]):
        command = option(command)
    return command


def send_options(command: Any) -> Any:
    """--send, --to, --no-cc and the SMTP options, for a command that signs an entry
    (as 'play --send': the settings are checked before anything is signed)."""
    command = smtp_options(command)
    for option in reversed([
        click.option("--send", "send_it", is_flag=True,
                     help="Also mail the new save to the player to act, by SMTP with your "
                          "profile's settings (as 'pbem send' does)."),
        click.option("--to", "to", multiple=True, metavar="ADDRESS",
                     help="With --send: mail these addresses instead of the game's seats."),
        click.option("--no-cc", is_flag=True, help="With --send: mail only the player to act."),
    ]):
        command = option(command)
    return command


def mail_after(ctx: click.Context, written: Any, mailing: dict[str, Any] | None) -> None:
    """Mail a save just signed if --send asked for it, else say whom to send it to."""
    if mailing is None:
        echo(written.next_step())
        return
    send_written(home_of(ctx), written.path, mailing)


def smtp_settings(home: Any, given: dict[str, Any]) -> dict[str, Any]:
    from pbem.mail import smtp

    keys = ("host", "port", "security", "user", "password_env", "password_command", "timeout",
            "auth")
    settings = smtp.settings(home, **{k: given.get(k) for k in keys})
    smtp.check_settings(**settings)  # before anything is signed or sent
    return settings


def deliver(message: list[Any], settings: dict[str, Any], home: Any, save: Any) -> None:
    """Send by SMTP and say to whom; exit 5 if the server refused some recipients. The
    save's newest entry is then recorded as sent (it can no longer be taken back)."""
    from pbem.mail import smtp
    from pbem.session import withdrawal

    result = smtp.send_each(message, **settings)
    withdrawal.mark_sent(home, save)
    report_sent(result)


def report_sent(result: Any) -> None:
    echo(f"Sent to {', '.join(result.accepted)} via {result.host}:{result.port}.")
    for address, reply in result.refused.items():
        echo(f"pbem: the server refused {address} ({reply}); the others got the mail.",
             err=True)
    if result.refused:
        sys.exit(EXIT_NOT_SENT)


ACCEPT_KEY = click.option(
    "--accept-key", "accept_keys", multiple=True, metavar="HANDLE",
    help="Go on although HANDLE signs with another key than the one this home knows "
         "(after checking the new fingerprint with that player); the new key is remembered.")

NOTE = click.option(
    "--note", "note", metavar="TEXT",
    help="Table talk: a short note signed inside the entry (one line, at most 500 "
         "characters), shown to the others in the mail, 'pbem show' and 'pbem log'. It "
         "changes nothing in the game.")


def with_note(fields: dict[str, str] | None, note: str | None) -> dict[str, str] | None:
    """``fields`` with the entry's ``note`` added, if given; a UsageError, before anything
    is signed, for a note the verifier would refuse (savefile.note_problem)."""
    if note is None:
        return fields
    from pbem.errors import UsageError
    from pbem.protocol.saveformat.savefile import NOTE_MAX_CHARS, note_problem

    problem = note_problem(note)
    if problem:
        raise UsageError(f"The --note text {problem}. Nothing was signed: a note is one line "
                         f"of plain text, at most {NOTE_MAX_CHARS} characters.")
    return {**(fields or {}), "note": note}


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _confirm_key(seat_key: Any) -> bool:
    """At a terminal, ask before signing on top of a CHANGED key; elsewhere, refuse."""
    if not interactive():
        return False
    echo(f"WARNING: {seat_key.line()}", err=True)
    return click.confirm(f"Have you checked with {seat_key.handle} that {seat_key.fingerprint} "
                         "is their new key?", default=False, err=True)


def sign_entry(ctx: click.Context, save: str, kind: str | None, moves: list[str], bot: str | None,
          out: str | None, accept_keys: tuple[str, ...], dry_run: bool = False,
          fields: dict[str, str] | None = None, leave_branch: bool = False) -> Any:
    from pbem import session

    # A join (signed by 'pbem join', or 'pbem play' on an invitation) only under the
    # game's current rules version (pbem/session/invitation.py).
    return session.sign_next(home_of(ctx), save, kind, moves, bot, out, dry_run=dry_run,
                             accept_keys=accept_keys, confirm=_confirm_key, fields=fields,
                             leave_branch=leave_branch, current_rules=True)


def away_time(text: str, flag: str) -> str:
    """An away note's end as an entry writes it: a UTC time (YYYY-MM-DDTHH:MM:SSZ), a day
    (YYYY-MM-DD: its start, UTC) or a span from now (12h, 10d)."""
    import datetime

    from pbem.errors import UsageError
    from pbem.protocol.saveformat import timing

    text = text.strip()
    when = timing.parse_stamp(text) or timing.parse_stamp(f"{text}T00:00:00Z")
    span = timing.parse_duration(text)
    if when is None and span is not None:
        when = timing.now() + span
    if when is None:
        raise UsageError(f"{flag} takes a UTC time such as 2025-06-20T18:00:00Z, a day such "
                         "as 2025-06-20, or a span from now such as 10d or 36h.")
    if when <= timing.now():
        raise UsageError(f"{flag} {timing.shown(when)} is not in the future.")
    assert isinstance(when, datetime.datetime)
    return timing.stamp(when) or ""


def print_keys(written: Any, everyone: bool) -> None:
    """Each seat's key as new / known / CHANGED (PROTOCOL.md section 3): every seat when
    joining or starting, else only what is not already known."""
    shown = [k for k in written.keys if everyone or k.status in ("new", "changed")]
    if not shown:
        return
    echo("Seats and keys (compare fingerprints with the players another way):" if everyone
         else "Keys first seen here (compare fingerprints with the players another way):")
    for seat_key in shown:
        echo(f"  {seat_key.line()}")


def mail_plan(home: Any, send_it: bool, to: tuple[str, ...], no_cc: bool,
               smtp_given: dict[str, Any]) -> dict[str, Any] | None:
    """What ``play --send`` will do, checked before anything is signed: a setting that
    cannot work stops the command while nothing is written yet."""
    from pbem.errors import UsageError
    from pbem.mail import profile
    from pbem.protocol.crypto.identity import check_address

    given = {k: v for k, v in smtp_given.items() if v is not None and k != "timeout"}
    if not send_it:
        if to or no_cc or given:
            raise UsageError("--to, --no-cc and the SMTP options go with --send.")
        return None
    profile.email(home)  # a broken From address is found now, not after signing
    return {"to": [check_address(a) for a in to], "cc": not no_cc, "options_given": bool(given),
            "settings": smtp_settings(home, smtp_given)}


def send_written(home: Any, path: Path, mailing: dict[str, Any]) -> None:
    """Mail a save just written; if that fails the save stays, and the user is told how
    to send it again (exit 5)."""
    from pbem.mail import message as mail
    from pbem.mail import smtp

    try:
        messages = mail.compose_each(path, home, cc=mailing["cc"], to=mailing["to"] or None)
        result = smtp.send_each(messages, **mailing["settings"])
        from pbem.session import withdrawal

        withdrawal.mark_sent(home, path)
    except PbemError as exc:
        again = " ".join(["pbem send", mail.shell_word(path)]
                         + [f"--to {mail.shell_word(a)}" for a in mailing["to"]]
                         + ([] if mailing["cc"] else ["--no-cc"]))
        if mailing["options_given"]:
            again += " and the same SMTP options"
        from pbem.mail import outbox

        with contextlib.suppress(OSError):
            outbox.add(home.path, path)
        echo(f"pbem: {exc.message}", err=True)
        echo(f"pbem: the save was written but not mailed. When that is fixed, send it with: "
             f"{again}", err=True)
        echo("pbem: it is queued: 'pbem sync' mails it too.", err=True)
        sys.exit(EXIT_NOT_SENT)
    report_sent(result)


def player_notices(home: Any, save: Any, quiet: bool) -> list[Any]:
    """Remember the players of a verified save; print what is new or suspicious."""
    from pbem.home import contacts

    if not home.has_identity():
        return []
    notices = contacts.check_save(home, save)
    if not quiet:
        for notice in notices:
            echo(str(notice), err=notice.level == "warning")
    return notices


def print_result(report: Any) -> None:
    """The result of a game (pbem.session.reports.result_lines)."""
    from pbem.session import reports

    for line in reports.result_lines(report):
        echo(line)
