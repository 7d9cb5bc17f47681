"""Joining under the current rules only.

A game keeps the rules version it began under (``GameInfo.older_rules``), so games under
way finish as they began. A new game begins under the current version: an older one may
have a weakness a newer one mends (Red Dog Junction's Posse before rules version 6 let
the host work out the rest of set-up before keeping its last card), and only the host
could have chosen it (``pbem new`` always uses the current version; a host holding the
source can write any). So a seat joins only a game of the current version.
"""

from __future__ import annotations

from typing import Any

from pbem.errors import SaveFileError
from pbem.registry import load as load_game


def refuse_older_rules(header: dict[str, Any]) -> None:
    """SaveFileError (exit 4) where the game of ``header`` (a verified save's, whose next
    entry would be this seat's join) is of an older rules version of its game than the
    current one."""
    game = load_game(str(header["game"]))
    version, current = int(header["rules_version"]), game.info.rules_version
    if version != current:
        raise SaveFileError(
            f"This invitation is for {game.info.title} rules version {version}; pbem plays "
            f"older versions only to finish games already under way, and begins new ones under "
            f"version {current}. Ask the host to create the game again with this pbem.")
