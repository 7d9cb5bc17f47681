"""Station to Station for pbem (rulebook: shared/rules/station-to-station.ja.txt)."""

from games.station_to_station.rules import StationToStation

GAME = StationToStation()

__all__ = ["GAME", "StationToStation"]
