from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbem import registry  # noqa: E402
from pbem.protocol.crypto.identity import Home  # noqa: E402
from tests.support import scale  # noqa: E402
from tests.support.dice_race import GAME as DICE_RACE  # noqa: E402
from tests.support.sealed_bids import GAME as SEALED_BIDS  # noqa: E402
from tests.support.secret_draft import GAME as SECRET_DRAFT  # noqa: E402
from tests.support.secret_draw import GAME as SECRET_DRAW  # noqa: E402
from tests.support.secret_grab import GAME as SECRET_GRAB  # noqa: E402

# Property tests draw the same examples on every run and every machine, with no time limit
# per example (a slow machine is not a failure); PBEM_TEST_LONG=1 hunts with fresh ones.
settings.register_profile("pbem", derandomize=not scale.LONG, database=None, deadline=None)
settings.load_profile("pbem")

registry.register("dice-race", DICE_RACE)
registry.register("secret-draw", SECRET_DRAW)
registry.register("secret-draft", SECRET_DRAFT)
registry.register("secret-grab", SECRET_GRAB)
registry.register("sealed-bids", SEALED_BIDS)

FIXED_CLOCK = "2025-06-02T10:00:00Z"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked heavy first, the rest in their usual order: with one worker per
    core, a long test that happened to start last would leave the other cores idle."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


@pytest.fixture(autouse=True, scope="session")
def no_shared_default_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A command run without --home gets a home of this test process, never the user's
    own (~/.local/share/pbem), which parallel workers and other checkouts would share."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PBEM_HOME", raising=False)
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
        patch.setenv("APPDATA", str(tmp_path_factory.mktemp("appdata")))
        yield


@pytest.fixture(autouse=True, scope="session")
def no_disk_flush() -> Iterator[None]:
    """os.fsync does nothing in the test process. pbem flushes every file it writes to the
    disk (saves, archives, the game index): tens of thousands of flushes over the suite,
    about half a millisecond each on these machines, and what they buy (a file that
    survives a power cut) no test can observe. Every other step of every write still runs;
    commands run in a child process flush as usual."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda fd: None)
        yield


@pytest.fixture(autouse=True, scope="session")
def fixed_clock_for_shared_fixtures() -> Iterator[None]:
    """The fixed clock from the start, so that a module's shared fixture signs at the same
    time as its tests read: a home takes an entry dated more than an hour ahead of its
    clock as not yet in effect (PROTOCOL.md section 11)."""
    from pbem.protocol.crypto import entropy

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(entropy, "utc_now", lambda: FIXED_CLOCK)
        yield


@pytest.fixture(autouse=True)
def fixed_entropy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fresh random value pbem draws (keys, game ids, nonces, an unseeded bot) comes
    from a stream fixed by the test's own id, and the clock stands still: each test runs
    the same trajectory on every run, whatever ran before it (pbem.protocol.crypto.entropy)."""
    from pbem.protocol.crypto import entropy
    from tests.support.stream import fixed_bytes

    base = hashlib.sha256(b"pbem-test/" + request.node.nodeid.encode()).digest()
    monkeypatch.setattr(entropy, "fresh_bytes", fixed_bytes(base))
    monkeypatch.setattr(entropy, "utc_now", lambda: FIXED_CLOCK)
    # PBEM_CLOCK (pbem.protocol.saveformat.timing.now) still moves the clock. Set here (empty: the
    # fixed clock) so that a test's own PBEM_CLOCK is undone after it.
    monkeypatch.setenv("PBEM_CLOCK", "")


@pytest.fixture
def homes(tmp_path: Path):
    """Three players, each with an identity in its own home."""
    from pbem.protocol.crypto.identity import Home

    made = {}
    for handle in ("ann", "bob", "cy"):
        home = Home(tmp_path / "homes" / handle)
        home.keygen(handle)
        made[handle] = home
    return made


@pytest.fixture
def two(tmp_path: Path) -> dict[str, Home]:
    """Two homes with identities, ann and bob (the reveal-round tests)."""
    made = {}
    for handle in ("ann", "bob"):
        home = Home(tmp_path / "homes" / handle)
        home.keygen(handle)
        made[handle] = home
    return made
