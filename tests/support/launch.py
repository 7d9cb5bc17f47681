"""``python -m tests.support.launch ARGS``: the pbem command line with the test games
registered, for tests that run it in a subprocess (a pseudo-terminal, say).

With PBEM_TEST_NO_READLINE=1 the stdlib readline is hidden, as on a Python without it
(Windows), so the prompt's plain fallback can be tested too."""

from __future__ import annotations

import os
import sys

if os.environ.get("PBEM_TEST_NO_READLINE"):
    sys.modules["readline"] = None  # type: ignore[assignment]

from pbem import registry  # noqa: E402
from pbem.cli import main  # noqa: E402
from tests.support.dice_race import GAME as DICE_RACE  # noqa: E402
from tests.support.secret_draw import GAME as SECRET_DRAW  # noqa: E402

registry.register("dice-race", DICE_RACE)
registry.register("secret-draw", SECRET_DRAW)

if __name__ == "__main__":
    main()
