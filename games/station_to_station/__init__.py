"""Station to Station for pbem (the rulings it follows: RULINGS.md beside this file)."""

from .rules import StationToStation

GAME = StationToStation()

__all__ = ["GAME", "StationToStation"]
