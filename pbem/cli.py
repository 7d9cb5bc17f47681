"""The command line (CLI.md): thin commands that parse, call pbem.session, print.

Every PbemError becomes one or two plain sentences on stderr and its exit code; any
other exception is a bug, reported without a traceback unless PBEM_DEBUG=1.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from pbem import __version__
from pbem.errors import PbemError
from pbem.terminal import printable, printable_json

# A bug in pbem (an exception that is not a PbemError): EX_SOFTWARE from sysexits.h, so a
# script never mistakes it for a rules refusal (1) or a bad save (3, 4).
EXIT_INTERNAL = 70


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo for everything pbem prints: no control character from a save, a mail
    or a file name reaches the terminal (pbem.terminal)."""
    click.echo(printable(message), err=err, nl=nl)


def _home(ctx: click.Context) -> Any:
    from pbem.protocol.identity import Home, default_home

    given = ctx.obj.get("home") if ctx.obj else None
    return Home(Path(given) if given else default_home())


def resolve_save(ctx: click.Context, text: str) -> str:
    """A command's SAVE argument as a file path: a path that exists is used as it is; else
    a game's short id or a unique start of its id means the newest save this home has of
    that game ('pbem games'). An id that fits no game or several is a usage error (exit 2)
    naming the candidates. Every command taking SAVE calls this first."""
    from pbem.session import logbook

    notes: list[str] = []
    found = str(logbook.find_save(_home(ctx), text, notes))
    for note in notes:
        echo(f"pbem: {note}", err=True)
    return found


def _fail(exc: PbemError) -> NoReturn:
    echo(f"pbem: {exc.message}", err=True)
    sys.exit(exc.exit_code)


class PbemGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PbemError as exc:
            _fail(exc)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            echo("pbem: interrupted; nothing was written.", err=True)
            sys.exit(130)
        except BrokenPipeError:
            # The reader went away (`pbem show | head`): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # a bug: say so plainly, keep the traceback for debugging
            if os.environ.get("PBEM_DEBUG"):
                raise
            echo(
                f"pbem: internal error ({type(exc).__name__}: {exc}). Nothing was written. "
                "Please report it; PBEM_DEBUG=1 shows the details.",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)


def _emit_json(data: Any) -> None:
    click.echo(printable_json(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)))


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--home", type=click.Path(file_okay=False), envvar="PBEM_HOME",
              help="This player's home (identity and archive). Default: $PBEM_HOME or a "
                   "per-user data folder.")
@click.version_option(__version__, prog_name="pbem")
@click.pass_context
def main(ctx: click.Context, home: str | None) -> None:
    """Play board games by email: signed saves, fair dice, no referee."""
    ctx.ensure_object(dict)
    ctx.obj["home"] = home


# ---- mail settings shared by send and play --send ------------------------------------
EXIT_NOT_SENT = 5  # README: mail not delivered


def _smtp_options(command: Any) -> Any:
    """The SMTP settings a command may give for one mail (each wins over the profile)."""
    for option in reversed([
        click.option("--smtp", "host", metavar="HOST", help="SMTP server (default: your "
                     "profile's)."),
        click.option("--port", type=click.IntRange(1, 65535)),
        click.option("--security", type=click.Choice(["starttls", "tls", "none"])),
        click.option("--user", metavar="NAME", help="SMTP login."),
        click.option("--password-env", metavar="VAR",
                     help="Environment variable holding the password."),
        click.option("--password-command", metavar="CMD", help="Command that prints the password."),
        click.option("--timeout", type=click.FloatRange(0, 3600, min_open=True), default=30,
                     show_default=True, help="Seconds to wait for the server."),
    ]):
        command = option(command)
    return command


def _send_options(command: Any) -> Any:
    """--send, --to, --no-cc and the SMTP options, for a command that signs an entry
    (as 'play --send': the settings are checked before anything is signed)."""
    command = _smtp_options(command)
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


def _mail_after(ctx: click.Context, written: Any, mailing: dict[str, Any] | None) -> None:
    """Mail a save just signed if --send asked for it, else say whom to send it to."""
    if mailing is None:
        echo(written.next_step())
        return
    _send_written(_home(ctx), written.path, mailing)


def _smtp_settings(home: Any, given: dict[str, Any]) -> dict[str, Any]:
    from pbem.mail import smtp

    keys = ("host", "port", "security", "user", "password_env", "password_command", "timeout")
    settings = smtp.settings(home, **{k: given.get(k) for k in keys})
    smtp.check_settings(**settings)  # before anything is signed or sent
    return settings


def _deliver(message: list[Any], settings: dict[str, Any], home: Any, save: Any) -> None:
    """Send by SMTP and say to whom; exit 5 if the server refused some recipients. The
    save's newest entry is then recorded as sent (it can no longer be taken back)."""
    from pbem.mail import smtp
    from pbem.session import withdrawal

    result = smtp.send_each(message, **settings)
    withdrawal.mark_sent(home, save)
    _report_sent(result)


def _report_sent(result: Any) -> None:
    echo(f"Sent to {', '.join(result.accepted)} via {result.host}:{result.port}.")
    for address, reply in result.refused.items():
        echo(f"pbem: the server refused {address} ({reply}); the others got the mail.",
             err=True)
    if result.refused:
        sys.exit(EXIT_NOT_SENT)


# ---- identity ---------------------------------------------------------------------------
@main.command()
@click.option("--name", "handle", required=True, help="Your handle in games (e.g. ann).")
@click.option("--passphrase", is_flag=True, help="Protect the key with a passphrase (asked "
              "for now; later read from $PBEM_PASSPHRASE or asked at the terminal).")
@click.pass_context
def keygen(ctx: click.Context, handle: str, passphrase: bool) -> None:
    """Make this home's identity (never overwrites one)."""
    secret = None
    if passphrase:
        secret = os.environ.get("PBEM_PASSPHRASE") or click.prompt(
            "Passphrase", hide_input=True, confirmation_prompt=True)
    home = _home(ctx)
    identity = home.keygen(handle, secret)
    echo(f"{identity.handle}  {identity.fingerprint}")
    echo(f"Identity written to {home.path}. Tell your friends your fingerprint so they "
               "can recognise your saves.")


@main.command()
@click.pass_context
def whoami(ctx: click.Context) -> None:
    """Handle and fingerprint of this home."""
    from pbem.protocol.identity import fingerprint

    info = _home(ctx).info()
    echo(f"{info['handle']}  {fingerprint(bytes.fromhex(info['public_key']))}")


# ---- games --------------------------------------------------------------------------------
@main.command()
@click.argument("game", required=False)
def rules(game: str | None) -> None:
    """The installed games, or one game's players, options and move notation."""
    from pbem import registry

    if game is None:
        for name in registry.names():
            try:
                info = registry.load(name).info
            except PbemError as exc:
                echo(f"{name:20} (cannot be loaded: {exc.message})")
                continue
            echo(f"{name:20} {info.title}, {info.min_players}-{info.max_players} players"
                       f" (rules v{info.rules_version})")
        return
    g = registry.load(registry.resolve(game))
    info = g.info
    echo(f"{info.title} ({info.id}), rules version {info.rules_version}")
    echo(f"Players: {info.min_players} to {info.max_players}")
    if info.summary:
        echo(info.summary)
    if info.options:
        echo("\nOptions (--option KEY=VALUE):")
        for name, spec in info.options.items():
            choices = f" [{'|'.join(spec.choices)}]" if spec.choices else ""
            echo(f"  {name}={spec.default}{choices}  {spec.help}")
    echo("\nMove notation:")
    echo(g.notation())


@main.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def games_command(ctx: click.Context, as_json: bool) -> None:
    """The games this home is in: whose move, how long they have waited, the newest save.

    Each game's short id can stand for SAVE in every command (the newest save this home
    wrote, verified or filed from the inbox)."""
    from pbem.protocol import timing
    from pbem.session import logbook

    home = _home(ctx)
    now = timing.now()
    listed = [_game_line(record, now) for record in logbook.games(home)]
    listed.sort(key=lambda g: (g["order"], -(g["waiting_seconds"] or 0), g["title"], g["id"]))
    if as_json:
        _emit_json({"home": str(home.path),
                    "games": [{k: v for k, v in g.items() if k not in ("order", "clock_words")}
                              for g in listed]})
        return
    if not listed:
        echo("This home is in no game yet. 'pbem new' starts one; every save this home "
             "writes, joins, plays, shows, verifies or files from 'pbem inbox' is listed here.")
        return
    for g in listed:
        echo(f"{g['short_id']}  {g['title']}, entry {g['seq']}: {g['status']}")
        players = "; ".join(
            f"{p['handle']}{' (you)' if p['you'] else ''}: {p['words']}" for p in g["players"])
        echo(f"    last acted: {players}")
        for line in g["clock_words"]:
            echo(f"    {line}")
        echo(f"    {'MISSING (deleted or moved): ' if g['missing'] else ''}{g['path']}")


def _game_line(record: Any, now: Any) -> dict[str, Any]:
    """One game of 'pbem games' (README: the JSON keys), with its status in words."""
    from pbem.protocol import timing

    since = timing.parse_stamp(record.time)
    missing = not record.exists()
    if since is None and not missing:
        since = timing.file_time(record.path)
    waiting = None if record.complete or since is None else max(
        0, int((now - since).total_seconds()))
    action = {"create": "create", "join": "join", "start": "start", "turn": "play",
              "reveal": "reveal"}.get(record.next, record.next)
    if record.complete:
        order = 2
        if record.audit == "failed":
            status = "over; THE AUDIT FAILED ('pbem verify' says why)"
        elif record.winners:
            won = ", ".join(f"{w} ({record.scores.get(w, 0)})" for w in record.winners)
            status = f"over, won by {won}" if len(record.winners) == 1 else \
                f"over, shared by {won}"
            rest = [f"{n} {v}" for n, v in sorted(record.scores.items(), key=lambda i: -i[1])
                    if n not in record.winners]
            status += f"; {', '.join(rest)}" if rest else ""
        else:
            status = "over"
        if record.ending:
            status += f" ({record.ending})"
        if record.audit == "partial":
            status += "; audit partial: a seat never revealed"
    else:
        order = 0 if record.your_move else 1
        who = "you" if record.your_move else record.to_act
        status = f"{who} to {action}"
        if waiting is not None:
            status += f", waiting {timing.duration_words(now - since)}"
        if record.over and record.next == "reveal":
            status = "play is over; " + status
    players = []
    for acted in record.acted:
        item = timing.Acted(acted["handle"], acted.get("seq"),
                            timing.parse_stamp(acted.get("time")))
        players.append({"handle": item.handle, "you": item.handle == record.you,
                        "seq": item.seq, "time": acted.get("time"), "words": item.words(now)})
    return {"order": order, "id": record.id, "short_id": record.short_id, "game": record.game,
            "title": record.title, "seq": record.seq, "status": status,
            "players": players, "you": record.you, "to_act": record.to_act or None,
            "next": record.next or None, "your_move": record.your_move,
            "over": record.over, "complete": record.complete, "audit": record.audit,
            "winners": record.winners, "scores": record.scores or None,
            "ending": record.ending, "time": record.time,
            "waiting_since": timing.stamp(since) if waiting is not None else None,
            "waiting_seconds": waiting, "path": record.path, "missing": missing,
            **_clock_of(record, now)}


def _clock_of(record: Any, now: Any) -> dict[str, Any]:
    """The game clock of a 'pbem games' line (README keys): when the seat to act passes its
    patience, whether it has, who is away until when; and the same in words."""
    from pbem.protocol import timing

    data = record.clock
    ends = timing.parse_stamp(data.get("patience_ends")) if not record.complete else None
    raw = data.get("away")
    away = {h: t for h, t in raw.items() if isinstance(h, str)
            and timing.parse_stamp(t) is not None} if isinstance(raw, dict) else {}
    words = []
    if ends is not None:
        words.append(f"patience ({shown_patience(data)}) of {record.to_act} "
                     + (f"runs out {timing.shown(ends)}" if ends > now
                        else f"ran out {timing.shown(ends)}: another player may propose "
                             f"{record.to_act} absent"))
    for handle, until in away.items():
        end = timing.parse_stamp(until)
        if end is not None and end > now:
            words.append(f"away: {handle} until {timing.shown(end)}")
    return {"patience_ends": timing.stamp(ends), "past_patience": ends is not None and
            ends <= now, "away": away, "clock_words": words}


def shown_patience(data: dict[str, Any]) -> str:
    """The game's patience as words ('7 days'), from a 'pbem games' record."""
    from pbem.protocol import timing

    span = timing.parse_duration(data.get("patience", timing.DEFAULT_PATIENCE))
    return timing.duration_words(span) if span is not None else "?"


@main.command()
@click.argument("game")
@click.option("--seat", "seats", multiple=True, required=True, metavar="HANDLE[=EMAIL]",
              help="A seat in play order; the first is you (the host).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option (see 'pbem rules GAME').")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.option("--patience", default="7d", show_default=True, metavar="DURATION",
              help="How long a seat may take before it can be proposed absent: hours or "
                   "days such as 12h or 3d (1h to 90d).")
@click.option("--away", "away_days", type=click.IntRange(0, 365), default=14,
              show_default=True, metavar="DAYS",
              help="Days each seat may declare itself away in the whole game ('pbem away').")
@click.pass_context
def new(ctx: click.Context, game: str, seats: tuple[str, ...], options: tuple[str, ...],
        out: str | None, patience: str, away_days: int) -> None:
    """Create a game and write its first save (GAME: a name or a unique start of one)."""
    from pbem import registry, session
    from pbem.mail import profile

    home = _home(ctx)
    # The host's own seat takes the profile's address when the host gives none.
    written = session.new_game(home, registry.resolve(game), list(seats), list(options), out,
                               host_email=profile.email(home), patience=patience,
                               away=away_days)
    pinned = [k for k in written.keys if k.pinned and k.status != "you"]
    if pinned:
        echo("Seats pinned to the keys your contacts know (a join by another key is refused):")
        for k in pinned:
            echo(f"  {k.handle:12} {_pin_fp(written.save, k.handle)}")
    echo(f"Wrote {written.path}")
    echo(written.next_step())


def _pin_fp(save: Any, handle: str) -> str:
    from pbem.protocol.identity import fingerprint

    seat = next(s for s in save.header["seats"] if s["handle"] == handle)
    return fingerprint(bytes.fromhex(seat["key"]))


ACCEPT_KEY = click.option(
    "--accept-key", "accept_keys", multiple=True, metavar="HANDLE",
    help="Go on although HANDLE signs with another key than the one this home knows "
         "(after checking the new fingerprint with that player); the new key is remembered.")


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _confirm_key(seat_key: Any) -> bool:
    """At a terminal, ask before signing on top of a CHANGED key; elsewhere, refuse."""
    if not _interactive():
        return False
    echo(f"WARNING: {seat_key.line()}", err=True)
    return click.confirm(f"Have you checked with {seat_key.handle} that {seat_key.fingerprint} "
                         "is their new key?", default=False, err=True)


def _sign(ctx: click.Context, save: str, kind: str | None, moves: list[str], bot: str | None,
          out: str | None, accept_keys: tuple[str, ...], dry_run: bool = False,
          fields: dict[str, str] | None = None, leave_branch: bool = False) -> Any:
    from pbem import session

    return session.sign_next(_home(ctx), save, kind, moves, bot, out, dry_run=dry_run,
                             accept_keys=accept_keys, confirm=_confirm_key, fields=fields,
                             leave_branch=leave_branch)


def _away_time(text: str, flag: str) -> str:
    """An away note's end as an entry writes it: a UTC time (YYYY-MM-DDTHH:MM:SSZ), a day
    (YYYY-MM-DD: its start, UTC) or a span from now (12h, 10d)."""
    import datetime

    from pbem.errors import UsageError
    from pbem.protocol import timing

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


def _print_keys(written: Any, everyone: bool) -> None:
    """Each seat's key as new / known / CHANGED (PROTOCOL.md section 3): every seat when
    joining or starting, else only what is not already known."""
    shown = [k for k in written.keys if everyone or k.status in ("new", "changed")]
    if not shown:
        return
    echo("Seats and keys (compare fingerprints with the players another way):" if everyone
         else "Keys first seen here (compare fingerprints with the players another way):")
    for seat_key in shown:
        echo(f"  {seat_key.line()}")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@ACCEPT_KEY
@_send_options
@click.pass_context
def join(ctx: click.Context, save: str, out: str | None, accept_keys: tuple[str, ...],
         send_it: bool, to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Take this home's seat in an invited game.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session

    mailing = _mail_plan(_home(ctx), send_it, to, no_cc, smtp_given)
    written = _sign(ctx, resolve_save(ctx, save), "join", [], None, out, accept_keys)
    for note in session.component_notes(written.save, _home(ctx)):
        echo(note)
    _print_keys(written, everyone=True)
    echo(f"Wrote {written.path}")
    _mail_after(ctx, written, mailing)


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("moves", nargs=-1)
@click.option("-f", "--file", "movefile", type=click.File("r"),
              help="Read moves from a file, one per line ('#' starts a comment; - is stdin).")
@click.option("--bot", metavar="NAME[:SEED]", help="Let a bot choose: random[:SEED] or greedy.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.option("--dry-run", is_flag=True, help="Check and show the result; write nothing.")
@click.option("--send", "send_it", is_flag=True,
              help="Also mail the new save to the player to act, by SMTP with your profile's "
                   "settings (as 'pbem send' does).")
@click.option("--to", "to", multiple=True, metavar="ADDRESS",
              help="With --send: mail these addresses instead of the game's seats.")
@click.option("--no-cc", is_flag=True, help="With --send: mail only the player to act.")
@click.option("--away-until", "away_until", metavar="TIME",
              help="Also sign an away note: your clock stops until TIME "
                   "(YYYY-MM-DDTHH:MM:SSZ, YYYY-MM-DD, or a span from now such as 10d).")
@click.option("--leave-branch", is_flag=True,
              help="The players dropped the other branch of this game that this home has "
                   "seen: leave it (a reveal is refused while this home knows one).")
@_smtp_options
@ACCEPT_KEY
@click.pass_context
def play(ctx: click.Context, save: str, moves: tuple[str, ...], movefile: Any, bot: str | None,
         out: str | None, dry_run: bool, send_it: bool, to: tuple[str, ...], no_cc: bool,
         away_until: str | None, accept_keys: tuple[str, ...], leave_branch: bool,
         **smtp_given: Any) -> None:
    """Sign what this seat owes now: the start, a whole turn, or the final reveal.

    Several moves may be one argument, separated by ';'. With no moves, at a terminal, a
    prompt opens to type the turn move by move. SAVE is a save file, or a game's short id
    (or the start of its id) from 'pbem games'."""
    from pbem import prompt
    from pbem.errors import MoveError, UsageError

    all_moves = list(moves)
    if movefile is not None:
        all_moves += _read_movefile(movefile)
    all_moves = prompt.split_moves(all_moves)
    if bot and all_moves:
        raise UsageError("Give moves or --bot, not both.")
    home = _home(ctx)
    save = resolve_save(ctx, save)
    mailing = _mail_plan(home, send_it, to, no_cc, smtp_given)
    fields = {"away_until": _away_time(away_until, "--away-until")} if away_until else None
    typed = None
    if not all_moves and not bot and _at_terminal():
        typed = prompt.type_turn(home, save)
    try:
        written = _sign(ctx, save, None, typed or all_moves, bot, out, accept_keys,
                        dry_run=dry_run, fields=fields, leave_branch=leave_branch)
    except MoveError as exc:
        if all_moves:  # words typed without quotes?
            hint = prompt.quoting_hint(home, save, "play", all_moves, exc)
        elif bot or typed is not None:
            hint = ""
        else:  # a turn is owed and nothing was typed: say how to type it
            hint = prompt.no_moves_hint(save)
        raise _with_hint(exc, hint) from None
    entry = written.entry
    _print_keys(written, everyone=entry["kind"] in ("join", "start"))
    for turn in entry.get("bot", []):  # an absent player's turn (PROTOCOL.md section 11)
        echo(f"{turn['seat']}'s turn, played by the bot: {'; '.join(turn['moves']) or '-'}")
    if entry["moves"]:
        echo(f"{entry['kind']} by {entry['seat']}: {'; '.join(entry['moves'])}")
    for line in written.changes():
        echo(f"  {line}")
    if dry_run:
        echo("Dry run: the turn is legal; nothing was written" + (" or sent." if send_it else "."))
        return
    echo(f"Wrote {written.path}")
    if mailing is None:
        echo(written.next_step())
        return
    _send_written(home, written.path, mailing)


def _mail_plan(home: Any, send_it: bool, to: tuple[str, ...], no_cc: bool,
               smtp_given: dict[str, Any]) -> dict[str, Any] | None:
    """What ``play --send`` will do, checked before anything is signed: a setting that
    cannot work stops the command while nothing is written yet."""
    from pbem.errors import UsageError
    from pbem.mail import profile
    from pbem.protocol.identity import check_address

    given = {k: v for k, v in smtp_given.items() if v is not None and k != "timeout"}
    if not send_it:
        if to or no_cc or given:
            raise UsageError("--to, --no-cc and the SMTP options go with --send.")
        return None
    profile.email(home)  # a broken From address is found now, not after signing
    return {"to": [check_address(a) for a in to], "cc": not no_cc, "options_given": bool(given),
            "settings": _smtp_settings(home, smtp_given)}


def _send_written(home: Any, path: Path, mailing: dict[str, Any]) -> None:
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
    _report_sent(result)


def _with_hint(exc: PbemError, hint: str) -> PbemError:
    """The same error with a sentence on how to type moves after its own."""
    if not hint:
        return exc
    text = exc.message.rstrip()
    if not text.endswith((".", "!", "?")):
        text += "."
    return type(exc)(f"{text} {hint}", seq=exc.seq, code=exc.code)


def _at_terminal() -> bool:
    """A person at a terminal, not a script or a pipe: the prompt may open."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _read_movefile(handle: Any) -> list[str]:
    moves = []
    for line in handle:
        text = line.split("#", 1)[0].strip()
        if text:
            moves.append(text)
    return moves


RESIGN_MEANS = ("Resigning ends the game on your turn: you rank last; the others are ranked "
                "by the scoring of the position now, every score as the rules compute it. "
                "You still owe your final reveal afterwards.")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.option("--yes", is_flag=True, help="Resign without being asked (for scripts).")
@ACCEPT_KEY
@_send_options
@click.pass_context
def resign(ctx: click.Context, save: str, out: str | None, yes: bool,
           accept_keys: tuple[str, ...], send_it: bool, to: tuple[str, ...], no_cc: bool,
           **smtp_given: Any) -> None:
    """Concede on your turn: you rank last; the others are ranked by the scoring of the
    position now. At a terminal it asks first; --yes for scripts.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.errors import UsageError

    path = resolve_save(ctx, save)
    mailing = _mail_plan(_home(ctx), send_it, to, no_cc, smtp_given)
    if not yes:
        if not _interactive():
            raise UsageError(f"{RESIGN_MEANS} Nobody is at a terminal to confirm it: add "
                             "--yes to resign.")
        echo(RESIGN_MEANS)
        if not click.confirm("Resign?", default=False):
            echo("Not resigned; nothing was written.")
            return
    written = _sign(ctx, path, "resign", [], None, out, accept_keys)
    echo(f"{written.entry['seat']} resigned: {written.entry['seat']} ranks last; the others "
         "are ranked by the scoring of the position now.")
    echo(f"Wrote {written.path}")
    _mail_after(ctx, written, mailing)


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.pass_context
def undo(ctx: click.Context, save: str) -> None:
    """Take back your newest entry before it is mailed (SAVE: the save you wrote, or the
    game's short id).

    The save you played on becomes the newest again (and the game's short id names it);
    play there again. The new entry takes the same place in the game, so chance comes
    out exactly as before."""
    from pbem.session import withdrawal

    done = withdrawal.withdraw(_home(ctx), resolve_save(ctx, save))
    entry = done.entry
    moves = f": {'; '.join(entry['moves'])}" if entry["moves"] else ""
    echo(f"Took back entry {entry['seq']} ({entry['kind']} by {entry['seat']}{moves}).")
    echo(f"The withdrawn save is kept as {done.kept_as}: do not send it (pbem refuses it "
         "from now on).")
    again = "Wrote" if done.wrote_previous else "The save before it is"
    echo(f"{again} {done.previous}: sign again on it, e.g. 'pbem play {done.previous} MOVE ...'. "
         "The new entry takes the same place (same number, same beacon link), so every "
         "chance it resolves comes out as before, and what it asks for stays unknown.")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("handle")
@click.option("--remedy", type=click.Choice(["end", "bot"]),
              help="end: the game stops, HANDLE ranks last; bot: a deterministic bot plays "
                   "HANDLE's turns. Without it: list the remedies open now, write nothing.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@_send_options
@click.pass_context
def absent(ctx: click.Context, save: str, handle: str, remedy: str | None,
           out: str | None, send_it: bool, to: tuple[str, ...], no_cc: bool,
           **smtp_given: Any) -> None:
    """Propose that HANDLE, whom the game waits for, is absent; the others then vote.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.session import absentees

    save = resolve_save(ctx, save)

    if remedy is None:
        verified, offered = absentees.remedies(_home(ctx), save)
        waiting = verified.table.duty()
        if verified.table.proposal:
            from pbem.errors import TurnError
            from pbem.protocol import absence

            raise TurnError(" ".join(absence.lines(verified.table)) + " A new proposal waits "
                            "until this one is settled.")
        if not offered or waiting is None or verified.table.seats[waiting.seat].handle != handle:
            from pbem.errors import TurnError

            who = verified.table.seats[waiting.seat].handle if waiting else "nobody"
            raise TurnError(f"The game waits for {who}, not {handle}: only the player the game "
                            "waits for (on a turn or the final reveal) can be declared absent.")
        echo(f"Remedies open if {handle} is declared absent now (choose one with --remedy; "
             "nothing was written):")
        for name, text in offered.items():
            echo(f"  {name}: {text}")
        from pbem.protocol import timing

        due = absentees.proposal_due(verified.table, waiting.seat)
        if due is not None and timing.now() < due:
            echo(f"{handle} still has time: a proposal is valid from {timing.shown(due)} on "
                 "(the game's patience, in signed times).")
        return
    mailing = _mail_plan(_home(ctx), send_it, to, no_cc, smtp_given)
    written = absentees.sign_absence(_home(ctx), save, "absent",
                                   {"player": handle, "remedy": remedy}, out)
    _print_absence(written)
    _mail_after(ctx, written, mailing)


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("choice", type=click.Choice(["accept", "refuse"]))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@_send_options
@click.pass_context
def vote(ctx: click.Context, save: str, choice: str, out: str | None, send_it: bool,
         to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Vote on the proposal that a player is absent: accept or refuse (one refusal is
    enough to void it; the game then waits for that player again).

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.protocol import absence
    from pbem.session import absentees

    home = _home(ctx)
    save = resolve_save(ctx, save)
    mailing = _mail_plan(home, send_it, to, no_cc, smtp_given)
    proposal = absence.lines(session.load(save, home).table)
    for line in proposal:
        echo(line)
    written = absentees.sign_absence(home, save, "vote", {"vote": choice}, out)
    _print_absence(written)
    _mail_after(ctx, written, mailing)


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@_send_options
@click.pass_context
def confirm(ctx: click.Context, save: str, out: str | None, send_it: bool,
            to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Put your proposal that a player is absent into effect, when nobody else votes on it.

    Only one patience after the proposal, and only if that player has not answered by
    playing. SAVE is a save file, or a game's short id from 'pbem games'."""
    from pbem.session import absentees

    home = _home(ctx)
    path = resolve_save(ctx, save)
    mailing = _mail_plan(home, send_it, to, no_cc, smtp_given)
    written = absentees.sign_absence(home, path, "confirm", {}, out)
    _print_absence(written)
    _mail_after(ctx, written, mailing)


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("--until", "until", required=True, metavar="TIME",
              help="When you are back: YYYY-MM-DDTHH:MM:SSZ, YYYY-MM-DD (UTC), or a span "
                   "from now such as 10d.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@_send_options
@click.pass_context
def away(ctx: click.Context, save: str, until: str, out: str | None, send_it: bool,
         to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Sign an away note: your clock stops until TIME (within the game's away days), so
    nobody can propose you absent before TIME plus the game's patience.

    It is an entry of its own, signed whoever is to act; 'play --away-until' adds the
    same note to a turn. SAVE is a save file, or a game's short id from 'pbem games'."""
    from pbem.session import absentees

    home = _home(ctx)
    path = resolve_save(ctx, save)
    mailing = _mail_plan(home, send_it, to, no_cc, smtp_given)
    written = absentees.sign_absence(home, path, "away",
                                   {"away_until": _away_time(until, "--until")}, out)
    _print_away(written)
    echo(f"Wrote {written.path}")
    _mail_after(ctx, written, mailing)


def _print_away(written: Any) -> None:
    import datetime

    from pbem.protocol import clock, timing

    entry, table = written.entry, written.table
    seat = table.seat_of(entry["seat"])
    until = timing.parse_stamp(entry["away_until"])
    assert until is not None and seat is not None
    left = clock.away_allowance(table.header).total_seconds() - table.away_used[seat]
    echo(f"{entry['seat']} is away until {timing.shown(until)}: nobody can propose "
         f"{entry['seat']} absent before then plus the game's patience "
         f"({clock.patience_text(table.header)}). Away time left in this game: "
         f"{timing.duration_words(datetime.timedelta(seconds=left))}.")


def _print_absence(written: Any) -> None:
    """What an absent or vote entry did, what it means, whom to send it to."""
    from pbem.protocol import absence

    entry, table, before = written.entry, written.table, written.previous
    refused = entry.get("vote") == "refuse"
    if entry["kind"] == "absent":
        echo(f"{entry['seat']} proposes that {entry['player']} is absent, remedy "
             f"'{entry['remedy']}'.")
    elif refused:
        player = before.seats[before.proposal["player"]].handle
        echo(f"{entry['seat']} refuses: the proposal is void and the game waits for "
             f"{player} again.")
    elif entry["kind"] == "confirm":
        player = before.seats[before.proposal["player"]].handle
        echo(f"{entry['seat']} confirms that {player} is absent.")
    else:
        echo(f"{entry['seat']} accepts.")
    for line in absence.lines(table):
        echo(line)
    if not table.proposal and not refused:
        echo("Nobody else votes: the remedy is in effect from this entry on.")
    echo(f"Wrote {written.path}")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("moves", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def moves(ctx: click.Context, save: str, moves: tuple[str, ...], as_json: bool) -> None:
    """The legal next moves for this seat after the given ones (a game may group a long
    family of choices on one line; --json lists every move).

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import prompt, session
    from pbem.errors import MoveError

    home = _home(ctx)
    save = resolve_save(ctx, save)
    typed = prompt.split_moves(moves)
    try:
        handle, legal, lines, can_end = session.legal_moves_shown(home, save, typed)
    except MoveError as exc:
        hint = prompt.quoting_hint(home, save, "moves", typed, exc)
        raise _with_hint(exc, hint) from None
    if as_json:
        _emit_json({"seat": handle, "moves": legal, "can_end_turn": can_end})
        return
    for line in lines:
        echo(line)
    if can_end:
        echo("(the turn may end here)")
    elif not legal:
        echo("(no moves: nothing is owed by you right now)")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--at", "at", type=click.IntRange(min=0), metavar="SEQ",
              help="Show the position after entry SEQ (as your seat saw it then) and what "
                   "that entry did.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this SVG file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a web page with the board and the text view.")
@click.option("--png", "png_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this PNG image.")
@click.pass_context
def show(ctx: click.Context, save: str, as_json: bool, at: int | None, svg_path: str | None,
         html_path: str | None, png_path: str | None) -> None:
    """The game as this home's seat sees it, and what the others did since your last turn.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.protocol import clock, timing
    from pbem.session import logbook

    home = _home(ctx)
    path = resolve_save(ctx, save)
    me = logbook.own_handle(home)

    def wanted(parsed: Any) -> range:
        """The entries to tell: entry SEQ with --at, else those since this seat's last."""
        if at is not None:
            _check_at(at, parsed)
            return range(at, at + 1)
        if me not in parsed.handles():
            return range(0)  # no seat here: no "since your last turn"
        mine = logbook.last_entry_of(parsed, me)
        return range(0 if mine is None else mine + 1, len(parsed.entries))

    told = logbook.history(path, home, wanted, keep=() if at is None else (at,))
    verified = told.verified
    notices = _player_notices(home, verified.save, as_json)
    entries = verified.save.entries
    last_seq = len(entries) - 1
    if at is None or (at == last_seq and verified.report.final is not None):
        table = verified.table
        handle, view, private = session.seat_view(home, verified)
    else:
        table = told.tables[at]
        handle, view, private = logbook.view_at(home, verified, table)
    shown_entries = entries if at is None else entries[:at + 1]
    acted = timing.last_acted([s.handle for s in table.seats], shown_entries)
    since = told.notes if at is None and handle else None
    duty = table.duty()
    to_act = table.seats[duty.seat].handle if duty else ""
    game = table.game
    seq = last_seq if at is None else at
    heading = f"{game.info.title} {table.game_id[:8]}, entry {seq}"
    pictures: list[tuple[str, str | bytes]] = []  # all drawn before any is written
    if svg_path or html_path or png_path:
        from pbem.drawing import page as render  # only to draw: it costs start-up time
    if svg_path:
        pictures.append((svg_path, render.svg_of(game, view)))
    if html_path:
        pictures.append((html_path, render.html_page(game, view, heading)))
    if png_path:
        pictures.append((png_path, render.png_page(game, view)))
    for target, _ in pictures:  # no save is ever written over: check all before any
        render.refuse_save_target(target)
    for target, picture in pictures:
        render.write_picture(target, picture)
    if as_json:
        data = {"game": table.header["game"], "id": table.game_id, "seat": handle,
                "to_act": to_act, "phase": table.phase(), "state": view,
                "private": private, "notes": verified.notes,
                "players": [n.to_json() for n in notices],
                "last_acted": [a.to_json() for a in acted],
                "absence": _absence_lines(table),
                "result": verified.report.result if at is None else None}
        if at is None:
            data["since_your_last_turn"] = None if since is None else [n.to_json() for n in since]
            data["clock"] = clock.status(table)
        else:
            data["at"] = at
            data["entry"] = told.notes[0].to_json()
            data["next"] = duty.kind if duty else None
        _emit_json(data)
        return
    if at is None:
        echo(f"{game.info.title}  game {table.game_id[:8]}  entry {last_seq}  "
             f"phase {table.phase()}")
    else:
        echo(f"{game.info.title}  game {table.game_id[:8]}  after entry {at} (of "
             f"{last_seq})  phase {table.phase()}")
        _print_notes(told.notes)
    if duty:
        echo(("Next: " if at is None else "Next then: ") + f"{duty.kind} by {to_act}"
             + ("  (you)" if to_act == handle else ""))
    for line in _absence_lines(table):
        echo(line)
    if at is None:
        for line in clock.lines(table, timing.now()):
            echo(line)
    for note in verified.notes:
        echo(note)
    echo()
    echo(game.render(view))
    for picture_path in (svg_path, html_path, png_path):
        if picture_path:
            echo(f"Drew {picture_path}")
    if since is not None:
        mine = logbook.last_entry_of(verified.save, handle)
        echo()
        echo(f"Since your last entry ({mine}):" if mine is not None else
             "Since the start (you have signed nothing yet):")
        if since:
            _print_notes(since)
        else:
            echo("  nothing yet.")
    _print_acted(acted, handle)
    if not duty and (at is None or at == last_seq):
        _print_result(verified.report)


def _check_at(at: int, save: Any) -> None:
    from pbem.errors import UsageError

    last = len(save.entries) - 1
    if at > last:
        raise UsageError(f"--at {at}: this save has entries 0 to {last}; give one of them.")


def _print_notes(notes: list[Any]) -> None:
    """Entries as 'log' prints them: a heading line, then what each changed."""
    for note in notes:
        echo(note.heading())
        for line in note.changes:
            echo(f"        {line}")


def _print_acted(acted: list[Any], you: str = "") -> None:
    """'Last acted: ann (you): entry 30, 2 days ago; bob: entry 31, 5 hours ago; ...'."""
    from pbem.protocol import timing

    now = timing.now()
    parts = [f"{a.handle}{' (you)' if a.handle == you else ''}: {a.words(now)}" for a in acted]
    echo("Last acted: " + "; ".join(parts) + ".")


def _absence_lines(table: Any) -> list[str]:
    """Absent players and an open proposal, with what its remedy means (section 11)."""
    from pbem.protocol import absence

    return absence.lines(table)


def _player_notices(home: Any, save: Any, quiet: bool) -> list[Any]:
    """Remember the players of a verified save; print what is new or suspicious."""
    from pbem.protocol import contacts

    if not home.has_identity():
        return []
    notices = contacts.check_save(home, save)
    if not quiet:
        for notice in notices:
            echo(str(notice), err=notice.level == "warning")
    return notices


@main.command()
@click.argument("saves", metavar="SAVE...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON (with several saves: one JSON object per line).")
@click.option("--full", is_flag=True, help="Re-check every entry, ignoring the archive.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=1, show_default=True,
              metavar="N", help="With several saves: verify in N processes at once.")
@click.pass_context
def verify(ctx: click.Context, saves: tuple[str, ...], as_json: bool, full: bool,
           jobs: int) -> None:
    """Check everything: signatures, chain, beacon, rules replay, snapshot, audit.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'.

    \b
    With several saves, one line per file in the order given:
      PATH: ok (GAME ID, N entries[, audit clean][, stale])
      PATH: refused, exit CODE (GAME ID, N entries): REASON

    or with --json one JSON object per line, with the keys "path", "ok", "exit_code",
    "game", "id", "entries", "to_act", "next", "over", "audit", "scores", "stale",
    "notes", "players" and "errors" (as for one save). A bad file never stops the
    others. Exit 0 if
    every save verified, else the highest exit code among the files (1 rules, 2 usage,
    3 integrity, 4 malformed or missing, 70 a bug). The saves of one game are checked in
    one process, in the order given, so --jobs never changes what is printed."""
    if len(saves) > 1:
        _verify_many(ctx, list(saves), as_json, full, jobs)
        return
    one = click.Argument(["save"], type=click.Path(dir_okay=False))  # its own usage errors
    save = one.type.convert(saves[0], one, ctx)
    _verify_one(ctx, str(save), as_json, full)


def _verify_many(ctx: click.Context, saves: list[str], as_json: bool, full: bool,
                 jobs: int) -> None:
    from pbem import batch

    home = _home(ctx)
    files: list[tuple[str, str | PbemError]] = []
    for text in saves:
        try:
            files.append((text, resolve_save(ctx, text)))
        except PbemError as exc:  # an id that fits no game or several: that file's line
            files.append((text, exc))
    worst = 0

    def learn(save: Any) -> list[Any]:
        return _player_notices(home, save, True)

    for result, notices in batch.verify_many(home, files, full=full, jobs=jobs, learn=learn):
        worst = max(worst, result.exit_code)
        if as_json:
            data = {**result.to_json(), "players": [n.to_json() for n in notices]}
            click.echo(printable_json(json.dumps(data, sort_keys=True, ensure_ascii=False)))
            continue
        echo(result.line())
        for notice in notices:
            if notice.level == "warning":
                echo(f"{result.path}: {notice}", err=True)
    if worst:
        sys.exit(worst)


def _verify_one(ctx: click.Context, save: str, as_json: bool, full: bool) -> None:
    from pbem import session

    home = _home(ctx)
    try:
        verified = session.load(resolve_save(ctx, save), home, full=full)
    except PbemError as exc:
        if as_json:
            _emit_json({"ok": False, "game": None, "id": None, "entries": None, "to_act": None,
                        "over": None, "audit": None, "scores": None, "awaiting": [],
                        "errors": [{"code": exc.code, "seq": exc.seq, "message": exc.message}]})
            sys.exit(exc.exit_code)
        raise
    notices = _player_notices(home, verified.save, as_json)
    report = verified.report
    table = report.table
    duty = table.duty()
    told = report.result
    if as_json:
        _emit_json({
            "ok": report.audit in ("clean", "pending"),
            "game": table.header["game"], "id": table.game_id,
            "entries": len(table.signers),
            "to_act": table.seats[duty.seat].handle if duty else None,
            "next": duty.kind if duty else None,
            "over": table.over(),
            "audit": report.audit if isinstance(report.audit, list) else told["audit"],
            "scores": told["scores"], "ranking": told["ranking"], "rivals": told["rivals"],
            "parts": told["parts"], "winners": told["winners"], "ending": told["ending"],
            "revealed": told["revealed"], "unrevealed": told["unrevealed"],
            "awaiting": [table.seats[s].handle for s in table.awaiting_reveals()],
            "stale": verified.stale, "notes": verified.notes,
            "absence": _absence_lines(table), "unaudited": report.unaudited,
            "players": [n.to_json() for n in notices],
            "checked_from": report.checked_from, "errors": []})
    else:
        echo(f"{table.header['game']} {table.game_id[:8]}: {len(table.signers)} entries "
                   "verified (signatures, chain, beacon links, rules replay, snapshot).")
        if report.checked_from:
            echo(f"(The chain of all entries was checked; the rules replay of entries 0-"
                 f"{report.checked_from - 1} was verified before in this home; --full "
                 "re-runs it.)")
        for note in verified.notes:
            echo(note)
        if duty:
            echo(f"Next: {duty.kind} by {table.seats[duty.seat].handle}.")
        for line in _absence_lines(table):
            echo(line)
        awaiting = [table.seats[s].handle for s in table.awaiting_reveals()]
        if awaiting:
            echo(f"The game is over; the audit is pending until {', '.join(awaiting)} "
                 f"reveal{'s' if len(awaiting) == 1 else ''} (awaiting {awaiting[0]} now).")
        _print_result(report)
    if isinstance(report.audit, list):
        sys.exit(3)


def _print_result(report: Any) -> None:
    """The result as pbem.protocol.result tells it: how the game ended, the audit's
    verdict (what it could not check), every score with its parts, the notes."""
    from pbem.protocol import result

    told = report.result
    if report.audit == "pending":
        if told.get("over"):
            echo(told["ending"]["text"])
        return
    echo(told["ending"]["text"])
    for line in result.audit_words(told):
        echo(line)
    outcome = report.outcome
    if outcome is None:
        return
    echo(told["winner"] + ".")
    echo("Final scores:")
    place = 1
    handles = [s.handle for s in report.table.seats]
    for group in outcome.standing():
        for side in group:
            name = handles[side] if isinstance(side, int) else str(side)
            parts = ", ".join(f"{k} {v}" for k, v in told["parts"].get(name, {}).items())
            ties = (outcome.tiebreaks.get(side) if isinstance(side, int)
                    else outcome.rival_tiebreaks.get(side))
            tie_text = ""
            if ties and outcome.tiebreak_names:
                tie_text = "  [" + ", ".join(f"{n} {v}" for n, v in
                                             zip(outcome.tiebreak_names, ties, strict=False)) + "]"
            shared = " (shared)" if len(group) > 1 else ""
            echo(f"  {place}. {name:12} {told['scores'][name]:4}"
                 f"{shared}" + (f"  ({parts})" if parts else "") + tie_text)
        place += len(group)
    for note in outcome.notes:
        echo(f"  {note}")


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def log(ctx: click.Context, save: str, as_json: bool) -> None:
    """The history: each entry (seq, kind, seat, signed time, moves), then what it did.

    Under each entry, the game's own account of what it changed: cards drawn, dice,
    refills, boom cards, scores and goods, not only the typed moves. SAVE is a save file,
    or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.protocol import timing
    from pbem.session import logbook

    home = _home(ctx)
    told = logbook.history(resolve_save(ctx, save), home,
                           lambda parsed: range(len(parsed.entries)))
    table = told.verified.table
    acted = timing.last_acted([s.handle for s in table.seats], told.verified.save.entries)
    if as_json:
        _emit_json({"game": table.header["game"], "id": table.game_id,
                    "entries": [n.to_json() for n in told.notes],
                    "last_acted": [a.to_json() for a in acted]})
        return
    _print_notes(told.notes)
    _print_acted(acted, logbook.own_handle(home))


# ---- email -------------------------------------------------------------------------------
@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
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
@_smtp_options
@click.pass_context
def send(ctx: click.Context, save: str, to: tuple[str, ...], no_cc: bool, remind: bool,
         since: int | None, eml: str | None, to_stdout: bool, **smtp_given: Any) -> None:
    """Mail a save to the player to act (by SMTP, or as a file with --eml / --stdout).

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.errors import UsageError
    from pbem.mail import message as mail

    if eml and to_stdout:
        raise UsageError("Choose --eml FILE or --stdout, not both.")
    home = _home(ctx)
    save = resolve_save(ctx, save)
    settings = None if eml or to_stdout else _smtp_settings(home, smtp_given)
    from pbem.session import withdrawal

    if settings is not None:  # by SMTP: one message per recipient, each its own text
        _deliver(mail.compose_each(save, home, body_since=since, cc=not no_cc,
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
        click.option("--all", "read_all", is_flag=True,
                     help="Read every message again, not only those not read before."),
        click.option("--max-size", type=click.IntRange(1, 1024), default=8, show_default=True,
                     metavar="MIB", help="Largest attachment to read."),
    ]):
        command = option(command)
    return command


def _imap_login(home: Any, password_command: str | None, auth: str | None) -> Any:
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
    return imap.Login(auth=method, password_command=command, ask=ask)


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


@main.command()
@click.argument("save", required=False)
@click.option("--dry-run", is_flag=True, help="Say whom a reminder would go to; mail nothing.")
@_smtp_options
@click.pass_context
def remind(ctx: click.Context, save: str | None, dry_run: bool, **smtp_given: Any) -> None:
    """Mail a reminder to each player past their patience (the game's clock), at most once
    a day per game. Without SAVE: every game of this home ('pbem games').

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.mail import message as mail
    from pbem.mail import reminders, smtp
    from pbem.protocol import clock, timing
    from pbem.session import logbook

    home = _home(ctx)
    me = logbook.own_handle(home)
    if save is not None:
        paths = [resolve_save(ctx, save)]
    else:
        paths = [r.path for r in logbook.games(home) if not r.complete and r.exists()]
    now = timing.now()
    settings: dict[str, Any] | None = None
    for path in paths:
        verified = session.load(path, home)
        table = verified.table
        name = f"{table.game.info.title} {table.game_id[:8]}"
        info = clock.status(table)
        who, ends = info["to_act"], timing.parse_stamp(info["patience_ends"])
        if verified.stale:
            echo(f"{name}: {path} is not the newest save of the game this home has seen; "
                 "skipped.")
        elif who is None or ends is None or who == me:
            what = ("nobody is to act" if who is None else "it waits for you" if who == me
                    else f"{who} votes next" if info["next"] == "vote"
                    else f"{who} is proposed absent already" if table.proposal
                    else "its entries carry no signed time to count patience from")
            echo(f"{name}: no reminder ({what}).")
        elif ends > now:
            echo(f"{name}: no reminder; {who}'s patience runs out {timing.shown(ends)}.")
        elif (after := reminders.next_allowed(home, table.game_id)) is not None and now < after:
            echo(f"{name}: {who} was reminded less than a day ago; the next reminder can go "
                 f"from {timing.shown(after)}.")
        elif dry_run:
            echo(f"{name}: would remind {who} (past patience since {timing.shown(ends)}).")
        else:
            if settings is None:
                settings = _smtp_settings(home, smtp_given)
            message = mail.compose(path, home, cc=False, remind=True)
            result = smtp.send(message, **settings)
            reminders.record(home, table.game_id, now)
            echo(f"{name}: reminded {who} (past patience since {timing.shown(ends)}).")
            _report_sent(result)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--no-file", is_flag=True, help="Do not copy the newest saves into HOME/inbox "
              "(and do not record the messages as read).")
@click.option("--answer", "answer_them", is_flag=True,
              help="Then sign and mail the entries that need no decision (a final reveal, a "
                   "forced turn) in the games where auto-answer is on ('pbem auto').")
@_imap_options
@click.pass_context
def inbox(ctx: click.Context, paths: tuple[str, ...], as_json: bool, no_file: bool,
          answer_them: bool, max_size: int, read_all: bool, password_command: str | None,
          auth: str | None) -> None:
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
    home = _home(ctx)
    login = _imap_login(home, password_command, auth) if any(imapurl.is_url(p) for p in paths) \
        else None
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
        _emit_json(data)
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


@main.command()
@click.option("--every", type=click.IntRange(1, 24 * 60), metavar="MINUTES",
              help="Keep syncing, every MINUTES, until stopped (Ctrl-C).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per round).")
@_imap_options
@click.pass_context
def sync(ctx: click.Context, every: int | None, as_json: bool, max_size: int, read_all: bool,
         password_command: str | None, auth: str | None) -> None:
    """One command a day: read every mail source in the profile (as 'pbem inbox'), sign
    and mail the entries that answer themselves where auto-answer is on, mail what is
    queued, then list the games waiting for you, oldest first.

    Sources are added with 'pbem profile --source SOURCE'; auto-answer is switched on
    with 'pbem profile --auto-answer on' (every game) or 'pbem auto SAVE on' (one)."""
    import time

    from pbem.errors import UsageError
    from pbem.mail import imapurl
    from pbem.mail import profile as profile_mod

    home = _home(ctx)
    sources = profile_mod.load(home).sources
    if not sources:
        raise UsageError("This home has no mail sources: add one with 'pbem profile --source "
                         "imaps://USER@HOST/INBOX' (or a Maildir, mbox or folder), then run "
                         "'pbem sync' again.")
    login = _imap_login(home, password_command, auth) if any(imapurl.is_url(p) for p in sources) \
        else None
    if every is None:
        code = _sync_round(home, sources, login, max_size, read_all, as_json)
        if code:
            sys.exit(code)
        return
    try:
        while True:
            _sync_round(home, sources, login, max_size, read_all, as_json)
            read_all = False
            if not as_json:
                echo(f"(next sync in {every} minute(s); Ctrl-C stops)")
            time.sleep(every * 60)
    except KeyboardInterrupt:
        echo("pbem: sync stopped.", err=True)


def _sync_round(home: Any, sources: list[str], login: Any, max_size: int, read_all: bool,
                as_json: bool) -> int:
    """One sync: returns the exit code it would end with (0, 3 for a cheat, 5 for a
    source or a mail that failed)."""
    from pbem.mail import inbox as inbox_mod
    from pbem.mail import sync as sync_mod
    from pbem.protocol import timing

    report = inbox_mod.scan(sources, home, max_bytes=max_size * 1024 * 1024,
                            read_all=read_all, login=login, progress=_Progress())
    settings, why_not = sync_mod.mail_settings(home)
    answered, trouble = sync_mod.answer_all(home, settings, why_not)
    sent = sync_mod.send_queued(home, settings, why_not,
                                skip={str(Path(a.path).absolute()) for a in answered})
    waiting = sync_mod.waiting(home)
    now = timing.now()
    if as_json:
        click.echo(printable_json(json.dumps({
            "inbox": report.to_json(), "answered": [a.to_json() for a in answered],
            "not_answered": trouble, "sent": [s.to_json() for s in sent],
            "waiting": [{"id": r.id, "short_id": r.short_id, "game": r.game, "title": r.title,
                         "seq": r.seq, "next": r.next, "since": r.time,
                         "path": r.path} for r in waiting]},
            sort_keys=True, ensure_ascii=False)))
    else:
        echo(report.text(), nl=False)
        _print_answered(answered, trouble)
        if sent:
            echo("")
            echo("Queued mail:")
            for item in sent:
                echo(f"  {item.text()}")
        echo("")
        if waiting:
            echo(f"Waiting for you ({len(waiting)}), the longest first:")
            for record in waiting:
                echo(f"  {sync_mod.waiting_line(record, now)}")
        else:
            echo("No game is waiting for you.")
    code = report.exit_code()
    if not code and (any(s.failed for s in sent) or any(a.queued for a in answered)):
        code = EXIT_NOT_SENT  # something signed is still not mailed
    return code


@main.command()
@click.argument("save", type=click.Path(dir_okay=False))
@click.argument("state", type=click.Choice(["on", "off"]), required=False)
@click.pass_context
def auto(ctx: click.Context, save: str, state: str | None) -> None:
    """Whether this game's entries that need no decision (a final reveal, a forced turn)
    answer themselves in 'pbem sync' and 'pbem inbox --answer': on or off for this game
    (over the home's 'pbem profile --auto-answer'); without on/off, say which it is."""
    from pbem.mail import answer
    from pbem.mail import profile as profile_mod
    from pbem.protocol import savefile

    home = _home(ctx)
    parsed = savefile.read(resolve_save(ctx, save))
    if state is not None:
        profile_mod.set_auto_answer(home, state == "on", parsed.game_id)
    on = answer.enabled(home, parsed.game_id)
    echo(f"Auto-answer for {parsed.ruleset} {parsed.game_id[:8]}: {'on' if on else 'off'}"
         + (" (never a choice: only a final reveal or a turn whose content is forced)."
            if on else "."))


@main.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def contacts(ctx: click.Context, as_json: bool) -> None:
    """The players this home has seen, with their key fingerprints."""
    from pbem.protocol import contacts as contacts_mod

    if ctx.invoked_subcommand is not None:
        return
    people = contacts_mod.listing(_home(ctx))
    if as_json:
        _emit_json(people)
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
    from pbem.protocol import contacts as contacts_mod

    address = contacts_mod.set_email(_home(ctx), handle, address)
    echo(f"Mail for {handle} goes to {address} where a game's seats give no address.")


@contacts.command("forget")
@click.argument("handle")
@click.pass_context
def contacts_forget(ctx: click.Context, handle: str) -> None:
    """Forget a player (after they really did change their key)."""
    from pbem.errors import UsageError
    from pbem.protocol import contacts as contacts_mod

    if not contacts_mod.forget(_home(ctx), handle):
        raise UsageError(f"This home has never seen a player called {handle}.")
    echo(f"Forgot {handle}; their next save will introduce them again.")


@main.command()
@click.option("--email", metavar="ADDRESS", help="Your email address, used as From.")
@click.option("--smtp", "host", metavar="HOST", help="Remember this SMTP server.")
@click.option("--port", type=click.IntRange(1, 65535))
@click.option("--security", type=click.Choice(["starttls", "tls", "none"]))
@click.option("--user", metavar="NAME")
@click.option("--password-env", metavar="VAR")
@click.option("--password-command", metavar="CMD")
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
              help="Let 'pbem sync' sign and mail entries that need no decision (a final "
                   "reveal, a forced turn) in every game ('pbem auto SAVE' sets one game).")
@click.pass_context
def profile(ctx: click.Context, email: str | None, host: str | None, port: int | None,
            security: str | None, user: str | None, password_env: str | None,
            password_command: str | None, sources: tuple[str, ...], removed: tuple[str, ...],
            imap_password_command: str | None, imap_auth: str | None,
            auto_answer: str | None) -> None:
    """Show or set this home's email address, SMTP and IMAP settings and mail sources
    (never a password)."""
    from pbem.mail import profile as profile_mod

    home = _home(ctx)
    if email:
        profile_mod.set_email(home, email)
    smtp_given = {"host": host, "port": port, "security": security, "user": user,
                  "password_env": password_env, "password_command": password_command}
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
    echo(f"auto-answer: {'on' if current.extra.get('auto_answer') is True else 'off'}")


@main.command()
@click.argument("game", required=False, default="red-dog-junction")
@click.option("--players", type=int, default=None, help="How many bots (default: 3, or the "
              "game's minimum).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE")
@click.option("--bot", default="greedy", show_default=True, help="greedy or random[:SEED].")
@click.option("--dir", "folder", type=click.Path(file_okay=False),
              help="Where the homes and saves go (default: a new temporary folder).")
@click.option("--quiet", is_flag=True, help="Print only the result.")
def demo(game: str, players: int | None, options: tuple[str, ...], bot: str,
         folder: str | None, quiet: bool) -> None:
    """A whole game between bots, each with its own home, verified at every hop."""
    from pbem import demo as demo_mod
    from pbem import registry

    result = demo_mod.run(registry.resolve(game), players, list(options), bot, folder,
                          echo=(lambda _line: None) if quiet else echo)
    _print_result(result.report)
    echo(f"Saves and homes are in {result.folder}")


# ---- shell completion (README: "Shell completion") ------------------------------------------
def _completion_home(ctx: click.Context) -> Any:
    from pbem.protocol.identity import Home, default_home

    root = ctx.find_root()
    given = root.params.get("home") or os.environ.get("PBEM_HOME")
    return Home(Path(given) if given else default_home())


def _complete_save(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """A game's short id (from 'pbem games') or a file name."""
    from click.shell_completion import CompletionItem

    from pbem.session import logbook

    items: list[Any] = []
    try:
        for record in sorted(logbook.games(_completion_home(ctx)), key=lambda r: r.id):
            if record.short_id.startswith(incomplete.lower()) and not record.complete:
                items.append(CompletionItem(record.short_id,
                                            help=f"{record.title}, entry {record.seq}"))
    except Exception:  # noqa: S110 - completion never prints an error into the shell
        pass
    return [*items, CompletionItem(incomplete, type="file")]


def _complete_move(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """The legal next moves of this home's seat after the moves already typed."""
    from click.shell_completion import CompletionItem

    from pbem import prompt, session
    from pbem.session import logbook

    save = ctx.params.get("save")
    if not save:
        return []
    try:
        home = _completion_home(ctx)
        path = logbook.find_save(home, str(save))
        typed = prompt.split_moves(list(ctx.params.get("moves") or ()))
        _, legal, _ = session.legal_moves(home, path, typed)
    except Exception:  # a bad save or no turn owed: nothing to offer
        return []
    return [CompletionItem(m) for m in legal if m.startswith(incomplete)]


def _install_completion() -> None:
    """Every SAVE argument completes short ids and files; play's and moves' MOVE
    arguments complete the legal moves (click's shell_complete)."""
    for command in main.commands.values():
        for param in command.params:
            if isinstance(param, click.Argument) and param.name in ("save", "saves"):
                param._custom_shell_complete = _complete_save  # noqa: SLF001
            elif isinstance(param, click.Argument) and param.name == "moves" \
                    and command.name in ("play", "moves"):
                param._custom_shell_complete = _complete_move  # noqa: SLF001


_install_completion()


def run() -> None:
    """The ``pbem`` command (and ``python -m pbem``). A command runs once and exits, so
    what start-up has built is never garbage: frozen, the collector's passes while the
    command imports its modules need not walk it (about 5 ms of start-up). Only here, not
    in ``main``: a process that calls ``main`` many times (tests) must keep collecting."""
    gc.freeze()
    main()


if __name__ == "__main__":  # python -m pbem.cli
    run()
