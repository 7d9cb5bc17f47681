"""Road Master (2-6 players): contracts, a truck on a two-lane highway, secret Super Bonuses."""

from __future__ import annotations

from .rules import RoadMaster

GAME = RoadMaster()

__all__ = ["GAME", "RoadMaster"]
