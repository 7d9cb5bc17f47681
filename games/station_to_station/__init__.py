"""Station to Station for pbem (the rulings it follows: RULINGS.md beside this file)."""

from games.station_to_station.rules import StationToStation

GAME = StationToStation()

__all__ = ["GAME", "StationToStation"]
