"""Joining under the current rules only.

A game keeps the rules version it began under (``GameInfo.older_rules``), so games under
way finish as they began. A new game begins under the current version: an older one may
have a weakness a newer one mends (Red Dog Junction's Posse before rules version 6 let
the host work out the rest of set-up before keeping its last card), and only the host
could have chosen it (``pbem new`` always uses the current version; a host holding the
source can write any). So a seat joins only a game of the current version.
"""

from __future__ import annotations

from pathlib import Path

from pbem.errors import PbemError, SaveFileError
from pbem.protocol.saveformat import savefile
from pbem.registry import load as load_game


def refuse_older_rules(path: str | Path, handle: str | None = None) -> None:
    """SaveFileError (exit 4) where the invitation at ``path`` is of an older rules version
    of its game than the current one. With ``handle``, only where the entry it would sign
    is its join (no create or join of its own in the save yet): 'pbem play' on an
    invitation signs the join too. Reads the header and the entries' kinds only: anything
    else wrong with the save is for the join's own verification to say."""
    try:
        save = savefile.read(path)
        header = save.header
        game = load_game(str(header["game"]))
    except (PbemError, KeyError, TypeError, ValueError):
        return
    if handle is not None and any(e.get("seat") == handle and e.get("kind") in ("create", "join")
                                  for e in save.entries):
        return
    version, current = header.get("rules_version"), game.info.rules_version
    if not isinstance(version, int) or isinstance(version, bool) or version == current:
        return
    if version in game.info.older_rules:
        raise SaveFileError(
            f"This invitation is for {game.info.title} rules version {version}; pbem plays "
            f"older versions only to finish games already under way, and begins new ones under "
            f"version {current}. Ask the host to create the game again with this pbem.")
