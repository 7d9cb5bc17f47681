"""The fuzzer's inputs: valid saves of every game, mid-game and finished, made the same
way on every run.

Two sources:

* the example saves in ``saves/`` (``make saves`` writes them; nobody holds their keys),
  used for byte and TOML mutations;
* games played here by bots with fixed identities, a fixed game id, a fixed clock and a
  fixed entropy stream, so the fuzzer holds every seat's key and can re-sign an entry as
  its own seat would (the semantic mutations). Road Master is played by a random bot that
  draws Super Bonus cards, so its history carries peels and re-locks with their proofs.

The played games are cached under ``fuzz/cache/`` (git-ignored), keyed by a hash of the
source of pbem and the games: a change to either plays them again, so their entries carry
whatever fields the current engine signs.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import PbemError
from pbem.play import bots
from pbem.protocol.crypto import entropy
from pbem.protocol.crypto.identity import Identity
from pbem.protocol.replay import engine, signing
from pbem.protocol.replay.chain import authenticate
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from pbem.protocol.state.table import Table
from pbem.registry import load as load_game
from tests.support.stream import fixed_bytes

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "fuzz" / "cache"
HANDLES = ("ann", "bob", "cy", "dee")
CLOCK = "2025-06-02T10:00:00Z"
MAX_ENTRIES = 1500


@dataclass(frozen=True)
class Recipe:
    """One game played by bots with fixed identities."""

    name: str
    game: str
    players: int
    options: tuple[str, ...] = ()
    bot: str = "random:1"
    pin: bool = False  # pin every seat's key in the header (PROTOCOL.md section 3)


RECIPES = (
    Recipe("rdj-3p", "red-dog-junction", 3, bot="greedy"),
    Recipe("rdj-trail-boss-2p", "red-dog-junction", 2, ("variant=trail-boss",), "greedy",
           pin=True),
    # random:1 draws Super Bonus cards 7 times: 62 peels and 42 re-locks, each with a proof.
    Recipe("rm-3p-superbonus", "road-master", 3, bot="random:1", pin=True),
    Recipe("rm-2p-hazardous", "road-master", 2, ("hazardous=true", "perishable=true"),
           "random:2"),
    Recipe("sts-3p", "station-to-station", 3, bot="random:2"),
)


def identity(handle: str) -> Identity:
    """A fixed Ed25519 identity per handle (the fuzzer plays every seat)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"pbem-fuzz/" + handle.encode()).digest())
    return Identity(handle, key.public_key().public_bytes_raw(), key)


@contextlib.contextmanager
def fixed_entropy(label: str, nonce: bytes | None = None, clock: str = CLOCK) -> Iterator[None]:
    """Every fresh value pbem draws comes from a stream fixed by ``label`` (or is
    ``nonce``, when given: re-signing an entry with the nonce it already carries), and
    the clock stands still."""
    stream = fixed_bytes(hashlib.sha256(b"pbem-fuzz/entropy/" + label.encode()).digest())

    def fresh_bytes(n: int) -> bytes:
        return nonce if nonce is not None and len(nonce) == n else stream(n)

    saved = entropy.fresh_bytes, entropy.utc_now
    entropy.fresh_bytes, entropy.utc_now = fresh_bytes, lambda: clock
    try:
        yield
    finally:
        entropy.fresh_bytes, entropy.utc_now = saved


@dataclass
class History:
    """A game's signed history and the table after each entry."""

    name: str
    header: dict[str, Any]
    entries: list[dict[str, Any]]
    tables: list[Table]  # tables[i]: after entry i
    keys: dict[str, Identity] = field(default_factory=dict)  # handle -> identity, if held
    _meanings: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def game(self) -> str:
        return str(self.header["game"])

    @property
    def game_id(self) -> str:
        return str(self.header["id"])

    def prefix(self, n: int) -> Save:
        """The save as pbem wrote it after ``n`` entries (1 <= n <= len(entries))."""
        return Save(copy.deepcopy(self.header), copy.deepcopy(self.entries[:n]),
                    engine.public_state(self.tables[n - 1]))

    def table_before(self, index: int) -> Table:
        """The table entry ``index`` was signed on."""
        if index == 0:
            return headers.empty_table(copy.deepcopy(self.header))
        return self.tables[index - 1]


@dataclass
class Input:
    """One file the mutations start from: the first ``n`` entries of a history."""

    history: History
    n: int
    raw: bytes
    source: str  # "saves/..." or "played"

    @property
    def name(self) -> str:
        return f"{self.history.name}@{self.n}"


@dataclass
class Corpus:
    histories: list[History]
    inputs: list[Input]

    def signed(self) -> list[History]:
        """Histories whose keys the fuzzer holds."""
        return [h for h in self.histories if h.keys]


# ---- playing a game ----------------------------------------------------------------------
def play(recipe: Recipe) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and every entry of a whole game played by ``recipe``'s bot."""
    game = load_game(recipe.game)
    ids = [identity(h) for h in HANDLES[: recipe.players]]
    with fixed_entropy(recipe.name):
        keys = {i.handle: i.public_hex for i in ids} if recipe.pin else None
        header = headers.new_header(game, [(i.handle, "") for i in ids],
                                   headers.parse_options(game, list(recipe.options)), keys=keys)
        header["id"] = hashlib.sha256(b"pbem-fuzz/game/" + recipe.name.encode()).hexdigest()[:32]
        table = headers.empty_table(header)
        entries: list[dict[str, Any]] = []
        while (duty := table.duty()) is not None:
            if len(entries) >= MAX_ENTRIES:
                raise RuntimeError(f"{recipe.name} did not end within {MAX_ENTRIES} entries")
            missing = table.round_missing()  # a round's entries go in seat order
            seat = missing[0] if missing else duty.seat
            who = ids[seat]
            shown = signing.preview(table, who)
            kind = shown.duty().kind  # type: ignore[union-attr]
            salt = f"{recipe.name}/{len(entries)}"
            moves: list[str] = []
            if kind == "turn":
                moves = bots.choose_turn(shown.game, shown.gstate, seat, recipe.bot, salt=salt)
            elif kind == "reveal":
                moves = bots.choose_free_moves(shown.game, shown.gstate, seat, recipe.bot,
                                               salt=salt)
            entry, table = signing.sign_entry(table, who, kind, moves)
            entries.append(entry)
    return header, entries


def replay_tables(header: dict[str, Any], entries: list[dict[str, Any]]) -> list[Table]:
    """The table after each entry (a PbemError if the history does not verify)."""
    authenticate(Save(header, entries, {}))  # header hash, chain, keys, signatures, links
    table = headers.empty_table(header)
    tables = []
    for entry in entries:
        table, _ = engine.step(table, entry, replay=True)
        table.settle_head(engine.entry_hash(entry))
        tables.append(table)
    return tables


def source_hash() -> str:
    """A hash of everything that decides what a played game's entries look like."""
    h = hashlib.sha256(repr(RECIPES).encode())
    for folder in ("pbem", "games"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def played(recipes: tuple[Recipe, ...] = RECIPES, echo: Any = None) -> list[History]:
    """Every recipe's game, from the cache when the source has not changed."""
    key = source_hash()
    path = CACHE / f"played-{key}.json"
    cached: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        cached = json.loads(path.read_text("utf-8"))
    out: list[History] = []
    changed = False
    for recipe in recipes:
        histories = None
        if recipe.name in cached:
            header, entries = cached[recipe.name]["header"], cached[recipe.name]["entries"]
            with contextlib.suppress(PbemError):
                histories = History(recipe.name, header, entries, replay_tables(header, entries))
        if histories is None:
            if echo:
                echo(f"  playing {recipe.name} ({recipe.game}, {recipe.players} players, "
                     f"{recipe.bot}) ...")
            header, entries = play(recipe)
            cached[recipe.name] = {"header": header, "entries": entries}
            changed = True
            histories = History(recipe.name, header, entries, replay_tables(header, entries))
        histories.keys = {h: identity(h) for h in HANDLES[: recipe.players]}
        out.append(histories)
    if changed:
        _write_atomic(path, json.dumps(cached, separators=(",", ":")))
    return out


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---- the example saves -----------------------------------------------------------------------
def examples(folder: Path = ROOT / "saves") -> tuple[list[History], list[Input]]:
    """One history per game of saves/ (its longest save) and an input per file."""
    histories: list[History] = []
    inputs: list[Input] = []
    for game_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = sorted(game_dir.glob("*.toml"))
        if not files:
            continue
        saves = [(f, savefile.read(f)) for f in files]
        longest = max(saves, key=lambda fs: len(fs[1].entries))[1]
        history = History(f"example-{game_dir.name}", longest.header, longest.entries,
                          replay_tables(longest.header, longest.entries))
        histories.append(history)
        for f, save in saves:
            if save.entries != longest.entries[: len(save.entries)]:
                continue  # not a prefix of the longest: not one game
            inputs.append(Input(history, len(save.entries), f.read_bytes(),
                                f"saves/{game_dir.name}/{f.name}"))
    return histories, inputs


def checkpoints(history: History) -> list[int]:
    """Entry counts worth starting from: the create, the start, the first turns, two
    mid-game points, after the first secret draw, the first reveal and the end."""
    entries = history.entries
    n = len(entries)
    marks = {1, n}
    kinds = [e["kind"] for e in entries]
    if "start" in kinds:
        marks.add(kinds.index("start") + 1)
        marks.add(min(n, kinds.index("start") + 3))
    if "reveal" in kinds:
        marks.add(kinds.index("reveal") + 1)
    marks |= {max(1, n // 3), max(1, (2 * n) // 3)}
    draws = [i for i, e in enumerate(entries)
             if any(item.get("op") == "peel" for c in e["chores"] for item in c.get("items", []))]
    if draws:
        marks.add(draws[0] + 1)  # a peel just done: more owed by the next seats
        marks.add(draws[len(draws) // 2] + 1)
    return sorted(marks)


def load(echo: Any = None, recipes: tuple[Recipe, ...] = RECIPES) -> Corpus:
    histories, inputs = examples()
    for history in played(recipes, echo):
        histories.append(history)
        for n in checkpoints(history):
            raw = savefile.dumps(history.prefix(n)).encode("utf-8")
            inputs.append(Input(history, n, raw, "played"))
    return Corpus(histories, inputs)
