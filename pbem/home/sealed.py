"""The moves this home sealed in simultaneous steps (docs/protocol-rounds.md), kept until
it opens them: ``HOME/sealed/<game id>.json``, entry seq -> the moves as typed.

The commitment a sealed entry carries hides its moves, and its salt is derived from the
seat's seed, which the home re-derives; the moves themselves only this file remembers.
A home that lost it (another computer) opens by typing the same moves again: the engine
refuses any that do not match the commitment."""

from __future__ import annotations

import json
from pathlib import Path

from pbem import atomic
from pbem.errors import TurnError

MAX_BYTES = 1024 * 1024


def _path(home_path: Path, game_id: str) -> Path:
    return home_path / "sealed" / f"{game_id}.json"


def keep(home_path: Path, game_id: str, seq: int, moves: list[str]) -> None:
    """Remember the moves sealed in entry ``seq`` of the game."""
    kept = _read(home_path, game_id)
    kept[str(seq)] = list(moves)
    atomic.replace(_path(home_path, game_id), json.dumps(kept, sort_keys=True).encode())


def sealed_moves(home_path: Path, game_id: str, seq: int) -> list[str] | None:
    """The moves this home sealed in entry ``seq`` of the game (None: not kept here)."""
    moves = _read(home_path, game_id).get(str(seq))
    if isinstance(moves, list) and all(isinstance(m, str) for m in moves):
        return list(moves)
    return None


def opening_moves(home_path: Path, game_id: str, seq: int) -> list[str]:
    """The moves this home sealed in entry ``seq``, which its turn now opens; TurnError
    saying what to do when it does not have them."""
    moves = sealed_moves(home_path, game_id, seq)
    if moves is None:
        raise TurnError(f"You sealed your moves in entry {seq} from another home, or this "
                        "home lost them: play the same moves again to open them (pbem "
                        "refuses any others).", code="sealed")
    return moves


def _read(home_path: Path, game_id: str) -> dict[str, object]:
    kept = atomic.read_json(_path(home_path, game_id), MAX_BYTES)
    return kept if isinstance(kept, dict) else {}
