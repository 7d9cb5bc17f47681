"""Email: send, remind, inbox, sync, auto, contacts, profile."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli.common import (
    EXIT_NOT_SENT,
    deliver,
    echo,
    emit_json,
    home_of,
    report_sent,
    resolve_save,
    smtp_options,
    smtp_settings,
)
from pbem.terminal import printable, printable_json


# ---- email -------------------------------------------------------------------------------
@click.command()
@click.argument("save")
@click.option("--to", "to", multiple=True, metavar="ADDRESS",
              help="Mail these addresses instead of the game's seats.")
@click.option("--no-cc", is_flag=True, help="Mail only the player to act.")
@click.option("--remind", is_flag=True,
              help="Mail the save again to the player to act, saying how long the game has "
                   "waited for them.")
@click.option("--since", type=int, metavar="SEQ",
              help="Describe entries after SEQ (default: after the recipient's last entry).")
@click.option("--eml", type=click.Path(dir_okay=False),
              help="Write the message to FILE for your mail client (never overwrites).")
@click.option("--stdout", "to_stdout", is_flag=True,
              help="Print the message, for 'sendmail -t' or 'msmtp -t'.")
@click.option("--note", "note", metavar="TEXT",
              help="Refused: a note is signed inside an entry, and the save's entries are "
                   "signed already. Give --note to the command that signs, with --send "
                   "('pbem play SAVE MOVES --note TEXT --send').")
@smtp_options
@click.pass_context
def send(ctx: click.Context, save: str, to: tuple[str, ...], no_cc: bool, remind: bool,
         since: int | None, eml: str | None, to_stdout: bool, note: str | None,
         **smtp_given: Any) -> None:
    """Mail a save to the player to act (by SMTP, or as a file with --eml / --stdout).

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.errors import UsageError
    from pbem.mail import message as mail

    if note is not None:
        # Mail text outside the save would be unsigned, so anyone forwarding could change
        # it: table talk is only ever the signed note of an entry.
        raise UsageError("send does not add a note: a note is signed inside an entry, and "
                         "this save's entries are signed already. Sign it with the entry: "
                         "'pbem play SAVE MOVES --note TEXT --send' (vote, absent, resign, "
                         "confirm and away take --note too). Nothing was sent.")
    if eml and to_stdout:
        raise UsageError("Choose --eml FILE or --stdout, not both.")
    home = home_of(ctx)
    save = resolve_save(ctx, save)
    settings = None if eml or to_stdout else smtp_settings(home, smtp_given)
    from pbem.session import withdrawal

    if settings is not None:  # by SMTP: one message per recipient, each its own text
        deliver(mail.compose_each(save, home, body_since=since, cc=not no_cc,
                                   to=list(to) or None, remind=remind), settings, home, save)
        return
    message = mail.compose(save, home, body_since=since, cc=not no_cc, to=list(to) or None,
                           remind=remind)
    if to_stdout:
        click.echo(mail.as_text(message), nl=False)  # MIME-encoded already: ASCII lines
        withdrawal.mark_sent(home, save)  # it left pbem: it can no longer be taken back
        return
    assert eml is not None
    message["X-Unsent"] = "1"  # a draft: mail clients open it ready to send
    written = mail.write_eml(message, eml)
    withdrawal.mark_sent(home, save)
    echo(f"Wrote {written}: open it in your mail client and send it.")


def _imap_options(command: Any) -> Any:
    """How inbox and sync log in to IMAP sources (each wins over the profile's [imap])."""
    for option in reversed([
        click.option("--password-command", metavar="CMD",
                     help="IMAP: a command that prints the password (or, with --auth "
                          "xoauth2, an OAuth2 access token). Default: the profile's; else "
                          "asked at the terminal. Never stored."),
        click.option("--auth", type=click.Choice(["login", "xoauth2"]),
                     help="IMAP: log in with a password (login, the default) or an OAuth2 "
                          "token (xoauth2, for Gmail and Outlook)."),
        click.option("--imap-timeout", type=click.FloatRange(0, 24 * 3600, min_open=True),
                     default=300, show_default=True, metavar="SECONDS",
                     help="IMAP: the most a whole session with one server may take; then "
                          "pbem stops reading it (what was read is kept) and reports it."),
        click.option("--all", "read_all", is_flag=True,
                     help="Read every message again, not only those not read before."),
        click.option("--max-size", type=click.IntRange(1, 1024), default=8, show_default=True,
                     metavar="MIB", help="Largest attachment to read."),
    ]):
        command = option(command)
    return command


def _imap_login(home: Any, password_command: str | None, auth: str | None,
                deadline: float) -> Any:
    """The IMAP login: the options given, else the profile's [imap] settings; at a
    terminal, a prompt when neither names a password command."""
    from pbem.mail import imap, profile

    stored = profile.imap_settings(home)
    command = password_command or stored.get("password_command")
    method = auth or stored.get("auth") or "login"
    ask = None
    if sys.stdin.isatty():
        def ask(what: str) -> str:
            return str(click.prompt(what, hide_input=True, err=True))
    return imap.Login(auth=method, password_command=command, ask=ask, deadline=deadline)


class _Progress:
    """A progress line on stderr while a source gives many messages (rewritten in place
    at a terminal, a line every few seconds elsewhere)."""

    SHOW_FROM = 300  # messages to read before a line is worth it
    EVERY = 2.0  # seconds between lines when not at a terminal

    def __init__(self) -> None:
        import time

        self.clock = time.monotonic
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def __call__(self, source: str, done: int, total: int) -> None:
        if total < self.SHOW_FROM:
            return
        now = self.clock()
        final = done == total
        if not final and now - self.last < (0.2 if self.tty else self.EVERY):
            return
        self.last = now
        text = f"pbem: reading {source}: {done}/{total} messages"
        if self.tty:
            click.echo("\r" + printable(text), err=True, nl=final)
        else:
            echo(text, err=True)


@click.command()
@click.argument("save", required=False)
@click.option("--dry-run", is_flag=True, help="Say whom a reminder would go to; mail nothing.")
@smtp_options
@click.pass_context
def remind(ctx: click.Context, save: str | None, dry_run: bool, **smtp_given: Any) -> None:
    """Mail a reminder to each player past their patience (the game's clock), at most once
    a day per game. Without SAVE: every game of this home ('pbem games').

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.mail import message as mail
    from pbem.mail import reminders, smtp
    from pbem.protocol.saveformat import timing
    from pbem.session import logbook

    home = home_of(ctx)
    me = logbook.own_handle(home)
    if save is not None:
        paths = [resolve_save(ctx, save)]
    else:
        paths = [r.path for r in logbook.games(home) if not r.complete and r.exists()]
    now = timing.now()
    settings: dict[str, Any] | None = None
    for path in paths:
        found = reminders.check(home, path, me, now)
        name, who = found.name, found.who
        if not found.due:
            echo(f"{name}: {found.why_not}")
        elif dry_run:
            echo(f"{name}: would remind {who} (past patience since {found.past_shown()}).")
        else:
            if settings is None:
                settings = smtp_settings(home, smtp_given)
            message = mail.compose(path, home, cc=False, remind=True)
            result = smtp.send(message, **settings)
            reminders.record(home, found.game_id, now)
            echo(f"{name}: reminded {who} (past patience since {found.past_shown()}).")
            report_sent(result)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--no-file", is_flag=True, help="Do not copy the newest saves into HOME/inbox "
              "(and do not record the messages as read).")
@click.option("--answer", "answer_them", is_flag=True,
              help="Then sign and mail the entries that need no decision (a final reveal, a "
                   "forced turn) in the games where auto-answer is on (the default; 'pbem auto').")
@_imap_options
@click.pass_context
def inbox(ctx: click.Context, paths: tuple[str, ...], as_json: bool, no_file: bool,
          answer_them: bool, max_size: int, read_all: bool, password_command: str | None,
          auth: str | None, imap_timeout: float) -> None:
    """Find, verify and file the saves in mail: .eml files, mbox files, Maildir folders,
    folders of those, or IMAP mailboxes (imaps://USER@HOST[:PORT]/MAILBOX, or imap://
    with STARTTLS).

    A mailbox (Maildir, mbox, IMAP) gives only the messages not read before; --all
    reads everything again. Mail is never deleted, moved or flagged."""
    from pbem.errors import UsageError
    from pbem.mail import imapurl
    from pbem.mail import inbox as inbox_mod

    missing = [p for p in paths if not imapurl.is_url(p) and not os.path.lexists(p)]
    if missing:
        raise UsageError(f"There is no file or folder {', '.join(missing)}; nothing was "
                         "scanned. Check the path" + ("s." if len(missing) > 1 else "."))
    home = home_of(ctx)
    login = _imap_login(home, password_command, auth, imap_timeout) \
        if any(imapurl.is_url(p) for p in paths) else None
    report = inbox_mod.scan(list(paths), home, max_bytes=max_size * 1024 * 1024,
                            file_saves=not no_file, read_all=read_all, login=login,
                            progress=_Progress())
    answered: list[Any] = []
    trouble: list[str] = []
    if answer_them:
        from pbem.mail import sync as sync_mod

        settings, why_not = sync_mod.mail_settings(home)
        answered, trouble = sync_mod.answer_all(home, settings, why_not)
    if as_json:
        data = report.to_json()
        if answer_them:
            data["answered"] = [a.to_json() for a in answered]
            data["not_answered"] = trouble
        emit_json(data)
    else:
        echo(report.text(), nl=False)
        _print_answered(answered, trouble)
    code = report.exit_code()
    if code:
        sys.exit(code)


def _print_answered(answered: list[Any], trouble: list[str]) -> None:
    if answered or trouble:
        echo("")
        echo("Answered by themselves (auto-answer is on; 'pbem undo' takes back one not "
             "mailed yet):" if answered else "Auto-answer:")
    for item in answered:
        echo(f"  {item.text()}")
    for line in trouble:
        echo(f"  ! {line}")


@click.command()
@click.option("--every", type=click.IntRange(1, 24 * 60), metavar="MINUTES",
              help="Keep syncing, every MINUTES, until stopped (Ctrl-C).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per round).")
@click.option("--no-remind", is_flag=True,
              help="Mail no reminders (still say who is past patience).")
@_imap_options
@click.pass_context
def sync(ctx: click.Context, every: int | None, as_json: bool, no_remind: bool, max_size: int,
         read_all: bool, password_command: str | None, auth: str | None,
         imap_timeout: float) -> None:
    """One command a day: read every mail source in the profile (as 'pbem inbox'), sign
    and mail the entries that answer themselves where auto-answer is on, mail what is
    queued, mail the reminders that are due (as 'pbem remind', at most once a day per
    game), then say who is past patience and list the games waiting for you, oldest
    first.

    Sources are added with 'pbem profile --source SOURCE'; auto-answer is on unless
    switched off with 'pbem profile --auto-answer off' (every game) or 'pbem auto SAVE
    off' (one)."""
    import time

    from pbem.errors import UsageError
    from pbem.mail import imapurl
    from pbem.mail import profile as profile_mod

    home = home_of(ctx)
    sources = profile_mod.load(home).sources
    if not sources:
        raise UsageError("This home has no mail sources: add one with 'pbem profile --source "
                         "imaps://USER@HOST/INBOX' (or a Maildir, mbox or folder), then run "
                         "'pbem sync' again.")
    login = _imap_login(home, password_command, auth, imap_timeout) \
        if any(imapurl.is_url(p) for p in sources) else None
    if every is None:
        code = _sync_round(home, sources, login, max_size, read_all, as_json, no_remind)
        if code:
            sys.exit(code)
        return
    try:
        while True:
            _sync_round(home, sources, login, max_size, read_all, as_json, no_remind)
            read_all = False
            if not as_json:
                echo(f"(next sync in {every} minute(s); Ctrl-C stops)")
            time.sleep(every * 60)
    except KeyboardInterrupt:
        echo("pbem: sync stopped.", err=True)


def _sync_round(home: Any, sources: list[str], login: Any, max_size: int, read_all: bool,
                as_json: bool, no_remind: bool = False) -> int:
    """One sync: returns the exit code it would end with (0, 3 for a cheat, 5 for a
    source or a mail that failed)."""
    from pbem.mail import inbox as inbox_mod
    from pbem.mail import sync as sync_mod
    from pbem.protocol.saveformat import timing

    report = inbox_mod.scan(sources, home, max_bytes=max_size * 1024 * 1024,
                            read_all=read_all, login=login, progress=_Progress())
    settings, why_not = sync_mod.mail_settings(home)
    answered, trouble = sync_mod.answer_all(home, settings, why_not)
    sent = sync_mod.send_queued(home, settings, why_not,
                                skip={str(Path(a.path).absolute()) for a in answered})
    now = timing.now()
    overdue = sync_mod.remind_due(home, settings, why_not, now,
                                  "--no-remind" if no_remind else "")
    waiting = sync_mod.waiting(home)
    plain = sync_mod.no_decision(home, waiting)
    if as_json:
        click.echo(printable_json(json.dumps({
            "inbox": report.to_json(), "answered": [a.to_json() for a in answered],
            "not_answered": trouble, "sent": [s.to_json() for s in sent],
            "past_patience": [o.to_json() for o in overdue],
            "waiting": [{"id": r.id, "short_id": r.short_id, "game": r.game, "title": r.title,
                         "seq": r.seq, "next": r.next, "since": r.time,
                         "no_decision": plain.get(r.id), "path": r.path} for r in waiting]},
            sort_keys=True, ensure_ascii=False)))
    else:
        echo(report.text(), nl=False)
        _print_answered(answered, trouble)
        if sent:
            echo("")
            echo("Queued mail:")
            for item in sent:
                echo(f"  {item.text()}")
        if overdue:
            echo("")
            echo(f"Past patience ({len(overdue)}):")
            for late in overdue:
                echo(f"  {late.text()}")
        echo("")
        for line in sync_mod.waiting_lines(waiting, plain, now, report.unread_sources()):
            echo(line)
    code = report.exit_code()
    if not code and (any(s.failed for s in sent) or any(a.queued for a in answered)
                     or any(o.not_sent and not no_remind for o in overdue)):
        code = EXIT_NOT_SENT  # something signed, or a reminder due, is still not mailed
    return code


@click.command()
@click.argument("save")
@click.argument("state", type=click.Choice(["on", "off"]), required=False)
@click.pass_context
def auto(ctx: click.Context, save: str, state: str | None) -> None:
    """Whether this game's entries that need no decision (a final reveal, a forced turn)
    answer themselves in 'pbem sync' and 'pbem inbox --answer': on or off for this game
    (over the home's 'pbem profile --auto-answer'); without on/off, say which it is."""
    from pbem.mail import answer
    from pbem.mail import profile as profile_mod
    from pbem.protocol.saveformat import savefile

    home = home_of(ctx)
    parsed = savefile.read(resolve_save(ctx, save))
    if state is not None:
        profile_mod.set_auto_answer(home, state == "on", parsed.game_id)
    on = answer.enabled(home, parsed.game_id)
    echo(f"Auto-answer for {parsed.ruleset} {parsed.game_id[:8]}: {'on' if on else 'off'}"
         + (" (never a choice: only a final reveal or a turn whose content is forced)."
            if on else "."))


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def contacts(ctx: click.Context, as_json: bool) -> None:
    """The players this home has seen, with their key fingerprints."""
    from pbem.home import contacts as contacts_mod

    if ctx.invoked_subcommand is not None:
        return
    people = contacts_mod.listing(home_of(ctx))
    if as_json:
        emit_json(people)
        return
    if not people:
        echo("No players seen yet.")
    for person in people:
        emails = ", ".join(person["emails"])
        echo(f"{person['handle']:12} {person['fingerprint']:20} {emails}".rstrip())


@contacts.command("email")
@click.argument("handle")
@click.argument("address")
@click.pass_context
def contacts_email(ctx: click.Context, handle: str, address: str) -> None:
    """Remember a player's mail address (your word; a From: line never teaches one)."""
    from pbem.home import contacts as contacts_mod

    address = contacts_mod.set_email(home_of(ctx), handle, address)
    echo(f"Mail for {handle} goes to {address} where a game's seats give no address.")


@contacts.command("forget")
@click.argument("handle")
@click.pass_context
def contacts_forget(ctx: click.Context, handle: str) -> None:
    """Forget a player (after they really did change their key)."""
    from pbem.errors import UsageError
    from pbem.home import contacts as contacts_mod

    if not contacts_mod.forget(home_of(ctx), handle):
        raise UsageError(f"This home has never seen a player called {handle}.")
    echo(f"Forgot {handle}; their next save will introduce them again.")


@click.command()
@click.option("--email", metavar="ADDRESS", help="Your email address, used as From.")
@click.option("--smtp", "host", metavar="HOST", help="Remember this SMTP server.")
@click.option("--port", type=click.IntRange(1, 65535))
@click.option("--security", type=click.Choice(["starttls", "tls", "none"]))
@click.option("--user", metavar="NAME")
@click.option("--password-env", metavar="VAR")
@click.option("--password-command", metavar="CMD")
@click.option("--smtp-auth", type=click.Choice(["login", "xoauth2"]),
              help="How sending logs in: a password (login) or an OAuth2 access token "
                   "(xoauth2; without an SMTP password source, the --imap-password-command "
                   "of an xoauth2 IMAP login serves).")
@click.option("--source", "sources", multiple=True, metavar="SOURCE",
              help="Add a mail source for 'pbem sync': a Maildir, mbox, folder or IMAP "
                   "address (imaps://USER@HOST/MAILBOX).")
@click.option("--remove-source", "removed", multiple=True, metavar="SOURCE",
              help="Stop reading this source in 'pbem sync'.")
@click.option("--imap-password-command", metavar="CMD",
              help="Command that prints the IMAP password or OAuth2 token ('' removes it).")
@click.option("--imap-auth", type=click.Choice(["login", "xoauth2"]),
              help="How IMAP sources log in: a password (login) or an OAuth2 token.")
@click.option("--auto-answer", type=click.Choice(["on", "off"]),
              help="Whether 'pbem sync' signs and mails entries that need no decision (a "
                   "final reveal, a forced turn) in every game: on unless switched off "
                   "('pbem auto SAVE' sets one game).")
@click.pass_context
def profile(ctx: click.Context, email: str | None, host: str | None, port: int | None,
            security: str | None, user: str | None, password_env: str | None,
            password_command: str | None, smtp_auth: str | None, sources: tuple[str, ...],
            removed: tuple[str, ...], imap_password_command: str | None, imap_auth: str | None,
            auto_answer: str | None) -> None:
    """Show or set this home's email address, SMTP and IMAP settings and mail sources
    (never a password)."""
    from pbem.mail import profile as profile_mod

    home = home_of(ctx)
    if email:
        profile_mod.set_email(home, email)
    smtp_given = {"host": host, "port": port, "security": security, "user": user,
                  "password_env": password_env, "password_command": password_command,
                  "auth": smtp_auth}
    if any(v is not None for v in smtp_given.values()):
        profile_mod.set_smtp(home, **{k: v for k, v in smtp_given.items() if v is not None})
    if imap_password_command is not None or imap_auth is not None:
        profile_mod.set_imap(home, password_command=imap_password_command, auth=imap_auth)
    for source in sources:
        profile_mod.add_source(home, source)
    for source in removed:
        profile_mod.remove_source(home, source)
    if auto_answer is not None:
        profile_mod.set_auto_answer(home, auto_answer == "on")
    current = profile_mod.load(home)
    echo(f"email: {current.email or '(not set)'}")
    for key, value in sorted(current.smtp.items()):
        echo(f"smtp {key}: {value}")
    for key, value in sorted(current.imap.items()):
        echo(f"imap {key}: {value}")
    for source in current.sources:
        echo(f"source: {source}")
    echo(f"auto-answer: {'off' if current.extra.get('auto_answer') is False else 'on'}")
