"""Taking a turn: play, and moves (what may be played)."""

from __future__ import annotations

import sys
from typing import Any

import click

from pbem.cli.common import (
    ACCEPT_KEY,
    NOTE,
    away_time,
    echo,
    emit_json,
    home_of,
    mail_plan,
    print_keys,
    resolve_save,
    send_written,
    sign_entry,
    smtp_options,
    with_note,
)
from pbem.errors import PbemError


@click.command()
@click.argument("save")
@click.argument("moves", nargs=-1)
@click.option("-f", "--file", "movefile", type=click.File("rb"),
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
@NOTE
@smtp_options
@ACCEPT_KEY
@click.pass_context
def play(ctx: click.Context, save: str, moves: tuple[str, ...], movefile: Any, bot: str | None,
         out: str | None, dry_run: bool, send_it: bool, to: tuple[str, ...], no_cc: bool,
         away_until: str | None, note: str | None, accept_keys: tuple[str, ...],
         leave_branch: bool, **smtp_given: Any) -> None:
    """Sign what this seat owes now: the start, a whole turn, or the final reveal.

    Several moves may be one argument, separated by ';'. With no moves, at a terminal, a
    prompt opens to type the turn move by move. SAVE is a save file, or a game's short id
    (or the start of its id) from 'pbem games'."""
    from pbem import prompt
    from pbem.errors import MoveError, UsageError
    from pbem.protocol.state.turns import split_moves

    all_moves = list(moves)
    if movefile is not None:
        all_moves += _read_movefile(movefile)
    all_moves = split_moves(all_moves)
    if bot and all_moves:
        raise UsageError("Give moves or --bot, not both.")
    fields = {"away_until": away_time(away_until, "--away-until")} if away_until else None
    fields = with_note(fields, note)
    home = home_of(ctx)
    save = resolve_save(ctx, save)
    mailing = mail_plan(home, send_it, to, no_cc, smtp_given)
    typed = None
    if not all_moves and not bot and _at_terminal():
        typed = prompt.type_turn(home, save)
    try:
        written = sign_entry(ctx, save, None, typed or all_moves, bot, out, accept_keys,
                        dry_run=dry_run, fields=fields, leave_branch=leave_branch)
    except MoveError as exc:
        if moves and movefile is None:  # words typed without quotes?
            hint = prompt.quoting_hint(home, save, "play", all_moves, exc)
        elif all_moves or bot or typed is not None:  # a move file's lines need no quotes
            hint = ""
        else:  # a turn is owed and nothing was typed: say how to type it
            hint = prompt.no_moves_hint(save)
        raise _with_hint(exc, hint) from None
    entry = written.entry
    print_keys(written, everyone=entry["kind"] in ("join", "start"))
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
    send_written(home, written.path, mailing)


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


# A move file is a turn's moves, one a line: far below this.
MAX_MOVE_FILE = 1 << 20


def _read_movefile(handle: Any) -> list[str]:
    """The moves of a move file: UTF-8 text (a byte-order mark, as some editors write,
    is dropped), one a line, '#' starting a comment."""
    from pbem.errors import UsageError
    from pbem.terminal import shown

    name = shown(getattr(handle, "name", "-"), 80)
    data = handle.read(MAX_MOVE_FILE + 1)
    if len(data) > MAX_MOVE_FILE:
        raise UsageError(f"The move file {name} is over {MAX_MOVE_FILE // 1024} KB: a move "
                         "file holds one turn's moves, one a line.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"The move file {name} is not UTF-8 text; save it as UTF-8 and "
                         "run the command again.") from None
    moves = []
    for line in text.splitlines():
        move = line.split("#", 1)[0].strip()
        if move:
            moves.append(move)
    return moves


@click.command()
@click.argument("save")
@click.argument("moves", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def moves(ctx: click.Context, save: str, moves: tuple[str, ...], as_json: bool) -> None:
    """The legal next moves for this seat after the given ones (a game may group a long
    family of choices on one line; --json lists every move).

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.errors import MoveError
    from pbem.protocol.state.turns import split_moves

    home = home_of(ctx)
    save = resolve_save(ctx, save)
    typed = split_moves(moves)
    try:
        handle, legal, lines, signable = session.legal_moves_shown(
            home, save, typed, warn=lambda words: echo(f"pbem: {words}", err=True))
    except MoveError as exc:
        from pbem import prompt  # the hints load only when a move is refused

        hint = prompt.quoting_hint(home, save, "moves", typed, exc)
        raise _with_hint(exc, hint) from None
    if as_json:
        emit_json({"seat": handle, "moves": legal, "can_end_turn": signable is not None})
        return
    for line in lines:
        echo(line)
    if signable is not None:
        echo(_SIGNABLE.get(signable, f"(no moves: your {signable} is owed)")
             if signable != "reveal" or legal else
             "(no choices left: your final reveal is owed; 'pbem play' signs it)")
    elif not legal:
        echo("(no moves: nothing is owed by you right now)")


# What 'moves' says where the entry owed may be signed as it stands (after the moves
# typed): not every entry is a turn.
_SIGNABLE = {"turn": "(the turn may end here)",
             "deck": "(no moves: this entry only does the secret-deck work you owe; 'pbem "
                     "play' with no moves signs it)",
             "reveal": "(your final reveal may be signed here)",
             "start": "(no moves: the start is owed; 'pbem play' signs it)",
             "join": "(no moves: your join is owed; 'pbem join' signs it)",
             "vote": "(no moves: your vote on the open proposal is owed; 'pbem vote SAVE "
                     "accept' or 'pbem vote SAVE refuse' signs it)"}
