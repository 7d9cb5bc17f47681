"""Red Dog Junction for pbem: trade, mine and scheme for gold at the edge of space."""

from .rules import RedDogJunction as _RedDogJunction

GAME = _RedDogJunction()

__all__ = ["GAME"]
