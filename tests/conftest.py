from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbem import registry  # noqa: E402
from tests.support.dice_race import GAME as DICE_RACE  # noqa: E402
from tests.support.secret_draft import GAME as SECRET_DRAFT  # noqa: E402
from tests.support.secret_draw import GAME as SECRET_DRAW  # noqa: E402

registry.register("dice-race", DICE_RACE)
registry.register("secret-draw", SECRET_DRAW)
registry.register("secret-draft", SECRET_DRAFT)


@pytest.fixture
def homes(tmp_path: Path):
    """Three players, each with an identity in its own home."""
    from pbem.protocol.identity import Home

    made = {}
    for handle in ("ann", "bob", "cy"):
        home = Home(tmp_path / "homes" / handle)
        home.keygen(handle)
        made[handle] = home
    return made
