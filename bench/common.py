"""Shared helpers for the benchmarks: timing with medians, games built in memory."""

from __future__ import annotations

import contextlib
import hashlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbem import registry  # noqa: E402
from pbem.play import bots  # noqa: E402
from pbem.protocol.crypto.identity import Home  # noqa: E402
from pbem.protocol.replay import engine, signing  # noqa: E402
from pbem.protocol.saveformat.savefile import Save  # noqa: E402
from pbem.protocol.state import headers  # noqa: E402


def register_test_games() -> None:
    from tests.support.dice_race import GAME

    registry.register("dice-race", GAME)


def _median(fn: Callable[[], Any], repeat: int, clock: Callable[[], float]) -> float:
    """Median of ``clock``'s advance over ``repeat`` runs of ``fn`` (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def median_time(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Median wall time of ``fn`` in seconds over ``repeat`` runs (after one warm-up)."""
    return _median(fn, repeat, time.perf_counter)


def median_cpu(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Median CPU time of ``fn`` in seconds (process time: on a shared machine it moves
    less with the load than wall time does)."""
    return _median(fn, repeat, time.process_time)


def homes(n: int) -> list[Home]:
    root = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    made = []
    for i in range(n):
        home = Home(root / f"p{i}")
        home.keygen(f"p{i}")
        made.append(home)
    return made


def build_game(ruleset: str, players: int, options: list[str], bot: str = "random:1",
               max_entries: int | None = None) -> Save:
    """A whole game signed in memory (no files), each seat with its own identity."""
    game = registry.load(ruleset)
    people = homes(players)
    ids = [h.load() for h in people]
    typed = headers.parse_options(game, options)
    header = headers.new_header(game, [(i.handle, "") for i in ids], typed)
    table = headers.empty_table(header)
    entries = []
    while True:
        duty = table.duty()
        if duty is None or (max_entries is not None and len(entries) >= max_entries):
            break
        missing = table.round_missing()  # a round's entries go in seat order
        seat = missing[0] if missing else duty.seat
        who = ids[seat]
        shown = signing.preview(table, who)
        kind = shown.duty().kind  # type: ignore[union-attr]
        moves: list[str] = []
        if kind == "turn":
            moves = bots.choose_turn(shown.game, shown.gstate, seat, bot,
                                     salt=str(len(entries)))
        entry, table = signing.sign_entry(table, who, kind, moves)
        entries.append(entry)
    return Save(header, entries, engine.public_state(table))


def loadable_games() -> list[str]:
    """Installed games that load (a game still being written is skipped, with a note)."""
    from pbem.errors import PbemError

    names = []
    for name in registry.names():
        try:
            registry.load(name)
        except PbemError as exc:
            print(f"  (skipping {name}: {exc.message})")
            continue
        names.append(name)
    return names


# ---- verify against its floor -----------------------------------------------------------
@contextlib.contextmanager
def fixed_entropy(label: str) -> Iterator[None]:
    """Every fresh random value (game id, nonces) from a stream fixed by ``label`` and a
    clock that stands still, as the tests do: the same game is built on every run and by
    every version of the code, so figures taken before and after a change compare."""
    from tests.support.stream import fixed_entropy as fixed

    with fixed(_entropy_seed(label)):
        yield


def _entropy_seed(label: str) -> bytes:
    return hashlib.sha256(b"pbem-bench/" + label.encode()).digest()


def build_fixed(ruleset: str, players: int, options: list[str], bot: str = "greedy",
                max_entries: int = 3000, *, label: str = "", game_id: str = "") -> Save:
    """A whole game signed in memory, the same on every run (fixed keys and entropy, from
    ``label``: by default the game's own words); ``game_id`` names it where given."""
    from tests.support.duty import bot_game

    label = label or f"{ruleset}/{players}/{','.join(options)}/{bot}"
    return bot_game(ruleset, players, options, _entropy_seed(label), bot, max_entries,
                    game_id)


def floor_run(text: str) -> Callable[[], None]:
    """What no verifier can skip: parse the TOML and, per entry, build its canonical JSON,
    check its Ed25519 signature and hash it for the chain."""
    from pbem import tomltext
    from pbem.protocol.crypto.identity import verify_signature
    from pbem.protocol.saveformat.canonical import canonical, digest

    data = tomltext.loads(text)
    keys = {e["seat"]: bytes.fromhex(e["pubkey"]) for e in data["entry"] if "pubkey" in e}

    def run() -> None:
        parsed = tomltext.loads(text)
        for entry in parsed["entry"]:
            body = {k: v for k, v in entry.items() if k != "sig"}
            verify_signature(keys[entry["seat"]], bytes.fromhex(entry["sig"]), canonical(body))
            digest(entry)

    return run


def as_new_process() -> None:
    """Forget what this process worked out about earlier saves and a new ``pbem`` process
    would work out again: every seat's beacon chain, which keys are sound, the cards'
    points of the secret deck, the shuffle proofs' generators, which component data
    passed its checks, and what a game remembers across states (Station to Station's
    order payments by the goods owed and the discounts held)."""
    from pbem.protocol.crypto import beacon, edkeys, mental, shuffle_proof
    from pbem.protocol.state import headers
    from pbem_games.station_to_station import station

    beacon.forget_chains()
    edkeys.is_sound_key.cache_clear()
    mental.card_point.cache_clear()
    shuffle_proof.generator.cache_clear()
    shuffle_proof._generator_sum.cache_clear()
    headers._VALID_COMPONENTS.clear()
    station._remainders.cache_clear()


def full_verify_run(text: str) -> Callable[[], None]:
    """``pbem verify --full`` in process: parse, every check, the audit (no archive)."""
    from pbem import session
    from pbem.protocol.saveformat import savefile

    def run() -> None:
        as_new_process()
        session.verify(savefile.parse(text), None, full=True)

    return run


@contextlib.contextmanager
def crypto_timed() -> Iterator[list[float]]:
    """While open, the CPU seconds every call into the cryptography the protocol requires
    beyond the floor adds to the list it yields (``spent[0]``): the group operations of
    the secret deck's proofs and re-encryptions (libsodium) and the audit's walk up each
    seat's beacon chain from its revealed seed (PROTOCOL.md sections 5 to 7). Timed call
    by call inside a verify, so it is their bare cost, not an estimate."""
    from types import SimpleNamespace

    from pbem.protocol.crypto import beacon, mental, shuffle_proof

    spent = [0.0]

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args)
            finally:
                spent[0] += time.process_time() - start
        return run

    sodium, walk, to_anchor = mental.sodium, beacon._walk, beacon._walk_to_anchor
    names = [n for n in dir(sodium) if n.startswith(("crypto_core_ed25519", "crypto_scalarmult"))]
    try:
        counted = SimpleNamespace(**{n: timed(getattr(sodium, n)) for n in names})
        mental.sodium = shuffle_proof.sodium = counted  # type: ignore[assignment]
        beacon._walk, beacon._walk_to_anchor = timed(walk), timed(to_anchor)
        yield spent
    finally:
        mental.sodium = shuffle_proof.sodium = sodium
        beacon._walk, beacon._walk_to_anchor = walk, to_anchor


def crypto_run(text: str) -> tuple[Callable[[], None], list[float]]:
    """A ``verify --full`` of ``text`` as a new process runs it (full_verify_run) that
    appends to the list it returns the CPU seconds each run spent in the required
    cryptography (crypto_timed). Timed beside the floor and the plain verify, round by
    round, so that each round's crypto share comes from the same moment as the rest."""
    verify = full_verify_run(text)
    shares: list[float] = []

    def run() -> None:
        with crypto_timed() as spent:
            verify()
        shares.append(spent[0])

    return run, shares


def paired_times(runs: list[Callable[[], Any]], repeat: int) -> list[list[float]]:
    """CPU seconds of each of ``runs`` in each of ``repeat`` rounds, timed in turn
    (interleaved, after one warm-up each) so that the machine's load falls on all of them
    alike. CPU time of this process, not wall time: on a shared machine wall time also
    counts the waits for a core, which come and go; for work on one thread the two agree
    on a quiet one."""
    for fn in runs:
        fn()
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for fn, spent in zip(runs, times, strict=True):
            start = time.process_time()
            fn()
            spent.append(time.process_time() - start)
    return times


def paired_medians(runs: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The median of each run's times from :func:`paired_times`."""
    return [statistics.median(spent) for spent in paired_times(runs, repeat)]


def machine_speed() -> str:
    """A line saying how fast this machine is now: the median of 21 walks of 4,096 SHA-256
    links (one seat's beacon chain). The host's load moves every figure; this one helps
    compare runs of different days (1.6 ms on a quiet 2-core machine here, 2026-11-30)."""
    times = []
    for _ in range(21):
        value = b"\0" * 32
        start = time.perf_counter()
        for _ in range(4096):
            value = hashlib.sha256(value).digest()
        times.append(time.perf_counter() - start)
    return f"machine speed: a 4,096-link SHA-256 walk takes {sorted(times)[10] * 1000:.2f} ms"

