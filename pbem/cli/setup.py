"""Identity and starting games: keygen, whoami, rules, new, join, merge, demo."""

from __future__ import annotations

import os
from typing import Any

import click

from pbem.cli.common import (
    ACCEPT_KEY,
    echo,
    home_of,
    mail_after,
    mail_plan,
    print_keys,
    print_result,
    resolve_save,
    send_options,
    sign_entry,
)
from pbem.errors import PbemError, UsageError
from pbem.terminal import listed


# ---- identity ---------------------------------------------------------------------------
@click.command()
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
    home = home_of(ctx)
    identity = home.keygen(handle, secret)
    echo(f"{identity.handle}  {identity.fingerprint}")
    echo(f"Identity written to {home.path}. Tell your friends your fingerprint so they "
               "can recognise your saves.")


@click.command()
@click.pass_context
def whoami(ctx: click.Context) -> None:
    """Handle and fingerprint of this home."""
    from pbem.protocol.crypto.identity import fingerprint

    info = home_of(ctx).info()
    echo(f"{info['handle']}  {fingerprint(bytes.fromhex(info['public_key']))}")


# ---- games --------------------------------------------------------------------------------
@click.command()
@click.argument("game", required=False)
def rules(game: str | None) -> None:
    """The installed games, or one game's players, options and move notation."""
    from pbem import registry

    if game is None:
        broken = []  # listed after the games that load, as an error: never a silent gap
        for name in registry.names():
            try:
                info = registry.load(name).info
            except PbemError as exc:
                broken.append(exc.message)
                continue
            echo(f"{name:20} {info.title}, {info.min_players}-{info.max_players} players"
                       f" (rules v{info.rules_version})")
        if broken:
            raise UsageError(" ".join(broken))
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


@click.command()
@click.argument("game")
@click.option("--seat", "seats", multiple=True, required=True, metavar="HANDLE[=EMAIL]",
              help="A seat in play order; the first is you (the host). Leave yourself "
                   "out and you take seat 1, before the seats given.")
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

    home = home_of(ctx)
    # The host's own seat takes the profile's address when the host gives none.
    written = session.new_game(home, registry.resolve(game), list(seats), list(options), out,
                               host_email=profile.email(home), patience=patience,
                               away=away_days)
    seated = [str(s["handle"]) for s in written.save.header["seats"]]
    if len(seated) > len(seats):  # the host was left out and so was added as seat 1
        others = seated[1:]
        echo(f"You ({seated[0]}) take seat 1 as the host; {listed(others)} "
             f"follow{'s' if len(others) == 1 else ''} in the order given.")
    pinned = [k for k in written.keys if k.pinned and k.status != "you"]
    if pinned:
        echo("Seats pinned to the keys your contacts know (a join by another key is refused):")
        for k in pinned:
            echo(f"  {k.handle:12} {_pin_fp(written.save, k.handle)}")
    echo(f"Wrote {written.path}")
    echo(written.next_step())


def _pin_fp(save: Any, handle: str) -> str:
    from pbem.protocol.crypto.identity import fingerprint

    seat = next(s for s in save.header["seats"] if s["handle"] == handle)
    return fingerprint(bytes.fromhex(seat["key"]))


@click.command()
@click.argument("save")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@ACCEPT_KEY
@send_options
@click.pass_context
def join(ctx: click.Context, save: str, out: str | None, accept_keys: tuple[str, ...],
         send_it: bool, to: tuple[str, ...], no_cc: bool, **smtp_given: Any) -> None:
    """Take this home's seat in an invited game.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem import session
    from pbem.protocol.timekeeping import clock

    mailing = mail_plan(home_of(ctx), send_it, to, no_cc, smtp_given)
    written = sign_entry(ctx, resolve_save(ctx, save), "join", [], None, out, accept_keys)
    for note in session.component_notes(written.save, home_of(ctx)):
        echo(note)
    for line in clock.terms(written.save.header):
        echo(line)
    print_keys(written, everyone=True)
    echo(f"Wrote {written.path}")
    mail_after(ctx, written, mailing)


@click.command()
@click.argument("saves", nargs=-1, required=True)
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Where to write.")
@click.pass_context
def merge(ctx: click.Context, saves: tuple[str, ...], out: str | None) -> None:
    """Assemble the saves of one game that each hold part of a round (joins signed in
    parallel) into one save, verified, written beside the first.

    Each SAVE is a save file, or a game's short id from 'pbem games'."""
    from pathlib import Path

    from pbem.session import rounds

    if len(saves) < 2:
        raise UsageError("Give two saves or more to merge.")
    paths = [Path(resolve_save(ctx, s)) for s in saves]
    written, merged, missing = rounds.merge_files(paths, home_of(ctx), out)
    echo(f"Wrote {written} ({len(merged.entries)} entries).")
    if missing:
        echo(f"Its round still waits for: {', '.join(missing)}.")


@click.command()
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
    print_result(result.report)
    echo(f"Saves and homes are in {result.folder}")
