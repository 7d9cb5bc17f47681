"""Mutations of valid saves, each a pure function of (seed, index): the same mutation on
every run and every machine (choices come from pbem's SHAKE-256 sampler, never
``random``).

Three families:

``byte``
    flip bits, insert, delete, truncate, duplicate or move byte ranges of the file.
``toml``
    parse the file, change it as an editor (or a broken mail client) would, write it back:
    a value of another type, other numbers (huge, negative, zero), long strings, control
    and bidi characters, deep nesting, keys, entries and tables dropped, duplicated,
    re-ordered or swapped, an entry or chore copied from another save or game; and changes
    that keep the meaning (comments, spacing, key order, quoting, number formats).
``resign``
    what a player holding the source and their own key can send: an entry of their own
    seat changed (any field it has: moves, chores, proofs, beacon, nonce, key, time, ...)
    and signed again with that seat's key, the save cut after it (or not) and its
    [state] recomputed, so only the rules, the chain and the proofs can refuse it. Also:
    another seat's key, another entry's chores replayed, a header re-signed by the host,
    an entry out of turn, a reveal in mid-game.

Fields are found by walking what an entry holds, not from a fixed list, so entry kinds
and fields added later (``absent``, ``vote``, ``time``) are mutated too.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tomli_w

from fuzz.corpus import Corpus, History, Input, fixed_entropy
from pbem import tomltext
from pbem.errors import PbemError
from pbem.play import bots
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.sampler import Sampler
from pbem.protocol.replay import engine, signing
from pbem.protocol.replay.chain import unsigned
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import LINK_KINDS
from pbem.protocol.state import headers

Path_ = tuple[Any, ...]  # keys and list positions from the document's root


@dataclass
class Mutation:
    family: str  # byte, toml, resign
    op: str  # e.g. "resign.moves.legal"
    detail: str  # where and what, for the reproducer
    raw: bytes
    history: History
    base: int  # entries of the original the mutation started from
    signer: str = ""  # the handle whose key signed the changed entry (resign family)
    first_changed: int | None = None  # set by resign mutations (the oracle finds it otherwise)


FAMILIES = (("byte", 25), ("toml", 35), ("resign", 40))
BANNER = "# pbem save: mutated by the fuzzer\n"


def rng_for(seed: int, index: int) -> Sampler:
    return Sampler(hashlib.sha256(f"pbem-fuzz/{seed}/{index}".encode()).digest())


def weighted(rng: Sampler, options: tuple[tuple[str, int], ...] | list[tuple[str, int]]) -> str:
    total = sum(w for _, w in options)
    pick = rng.randbelow(total)
    for name, weight in options:
        if pick < weight:
            return name
        pick -= weight
    raise AssertionError("unreachable")


def mutate(corpus: Corpus, seed: int, index: int, families: tuple[str, ...] = ()) -> Mutation:
    """Mutation ``index`` of ``seed`` (of the given families only, if any are named)."""
    rng = rng_for(seed, index)
    family = weighted(rng, [(f, w) for f, w in FAMILIES if not families or f in families])
    if family == "resign" and corpus.signed():
        return resign_mutation(rng, corpus)
    source = rng.choice(corpus.inputs)
    if family == "byte":
        return byte_mutation(rng, source)
    return toml_mutation(rng, corpus, source)


# ---- values -------------------------------------------------------------------------------
CONTROL = ["\x1b[2J\x1b[H", "\x1b]0;owned\x07", "\u202e", "\u2066", "\u200b", "\x00", "\r",
           "\n", "\t", "\x7f", "\x9b", "\u2028", "\ufeff", "\x08\x08\x08"]
NUMBERS = [0, 1, -1, 2, 7, 255, 4095, 4096, 10**6, 10**6 + 1, 2**31, 2**53 - 1, 2**53,
           -(2**53), 2**63 - 1, -(2**63), 10**30]


def other_type(rng: Sampler, value: Any) -> Any:
    """A value of a different type (what a hand edit or another program writes)."""
    candidates: list[Any] = ["", "x", "0", "true", 0, 1, -1, True, False, [], [1], ["a"], {},
                             {"a": 1}, 1.5, float("inf"), float("nan"),
                             datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC),
                             datetime.date(2025, 1, 1)]
    picks = [c for c in candidates if type(c) is not type(value)]
    return copy.deepcopy(rng.choice(picks))


def tweak(rng: Sampler, value: Any, pool: list[Any]) -> tuple[str, Any]:
    """A changed value and a word for the change."""
    if isinstance(value, bool):
        options = ["flip", "type", "pool"]
    elif isinstance(value, int):
        options = ["number", "number", "type", "pool"]
    elif isinstance(value, str):
        options = ["string", "string", "control", "long", "type", "pool", "pool"]
    elif isinstance(value, list):
        options = ["list", "list", "type", "pool", "nest"]
    elif isinstance(value, dict):
        options = ["dict", "dict", "type", "pool", "nest"]
    else:
        options = ["type"]
    how = rng.choice(options)
    if how == "pool":
        others = [p for p in pool if canonical_or_none(p) != canonical_or_none(value)]
        if others:
            return "from elsewhere", copy.deepcopy(rng.choice(others))
        how = "type"
    if how == "flip":
        return "flipped", not value
    if how == "number":
        choice = rng.randbelow(4)
        if choice == 0:
            return "+1", value + 1
        if choice == 1:
            return "-1", value - 1
        if choice == 2:
            return "negated", -value if value else -1
        return "number", rng.choice(NUMBERS)
    if how == "string":
        return string_tweak(rng, value)
    if how == "control":
        at = rng.randbelow(len(value) + 1)
        return "control character", value[:at] + rng.choice(CONTROL) + value[at:]
    if how == "long":
        # Up to the file's bound (16,384 characters) and just past it.
        unit = rng.choice(["A", value or "x", "\u202e"])
        size = rng.choice([1000, 16_384, 16_385, 100_000])
        return f"a string of {size} characters", (unit * (size // len(unit) + 1))[:size]
    if how == "list":
        return list_tweak(rng, value, pool)
    if how == "dict":
        return dict_tweak(rng, value, pool)
    if how == "nest":
        depth = rng.choice([2, 31, 33, 200])
        nested: Any = copy.deepcopy(value)
        for _ in range(depth):
            nested = [nested] if rng.randbelow(2) else {"a": nested}
        return f"nested {depth} deep", nested
    return "type", other_type(rng, value)


def canonical_or_none(value: Any) -> bytes | None:
    try:
        return canonical(value)
    except (TypeError, ValueError):
        return None


def string_tweak(rng: Sampler, value: str) -> tuple[str, str]:
    choice = rng.randbelow(8)
    if not value:
        return "filled", rng.choice(["x", "0" * 64, "ann", "pass"])
    at = rng.randbelow(len(value))
    if choice == 0:
        return "emptied", ""
    if choice == 1:
        return "one character changed", value[:at] + _other_char(rng, value[at]) + value[at + 1:]
    if choice == 2:
        return "one character dropped", value[:at] + value[at + 1:]
    if choice == 3:
        return "one character added", value[:at] + rng.choice("0aZ -;'\"\\") + value[at:]
    if choice == 4:
        return "upper case", value.upper() if value.upper() != value else value + "X"
    if choice == 5:
        return "doubled", value + value
    if choice == 6:
        return "spaces around", f"  {value} "
    return "cut", value[: at]


ODD_NUMBERS = ["0", "-1", "00", "007", "99999999999999999999", "10" * 300, "\u00b2", "\u0663",
               "1_0", "+1", "1.5", "0x1", "\uff11", "-0"]


def move_tweak(rng: Sampler, move: str, words: list[str]) -> tuple[str, str]:
    """A move in the game's own notation, changed as a parser would least like: odd
    numbers (huge, negative, superscript or Arabic-Indic digits), words swapped, dropped,
    doubled or taken from other moves, a Cyrillic look-alike letter."""
    import re

    parts = move.split(" ")
    choice = rng.randbelow(6)
    numbers = list(re.finditer(r"\d+", move))
    if choice == 0 and numbers:
        spot = rng.choice(numbers)
        odd = rng.choice(ODD_NUMBERS)
        return f"number {spot.group()} -> {odd[:12]!r}", move[:spot.start()] + odd + move[spot.end():]
    if choice == 1 and len(parts) > 1:
        i, j = rng.randbelow(len(parts)), rng.randbelow(len(parts))
        parts[i], parts[j] = parts[j], parts[i]
        return "words swapped", " ".join(parts)
    if choice == 2 and len(parts) > 1:
        del parts[rng.randbelow(len(parts))]
        return "a word dropped", " ".join(parts)
    if choice == 3 and words:
        parts.insert(rng.randbelow(len(parts) + 1), rng.choice(words))
        return "a word from another move added", " ".join(parts)
    if choice == 4 and words:
        parts[rng.randbelow(len(parts))] = rng.choice(words)
        return "a word replaced by one of another move", " ".join(parts)
    if "a" in move:
        return "Cyrillic look-alike letter", move.replace("a", "\u0430", 1)
    return "a word doubled", " ".join(parts + parts[-1:])


def _other_char(rng: Sampler, c: str) -> str:
    alphabet = "0123456789abcdefABCDEF xyz-_"
    options = [a for a in alphabet if a != c]
    return rng.choice(options)


def list_tweak(rng: Sampler, value: list[Any], pool: list[Any]) -> tuple[str, list[Any]]:
    out = copy.deepcopy(value)
    choice = rng.randbelow(7)
    if not out or choice == 0:
        extra = [p for p in pool if isinstance(p, list) and p]
        if extra:
            out.append(copy.deepcopy(rng.choice(rng.choice(extra))))
            return "item from elsewhere appended", out
        return "emptied", []
    i = rng.randbelow(len(out))
    if choice == 1:
        del out[i]
        return f"item {i} dropped", out
    if choice == 2:
        out.insert(i, copy.deepcopy(out[i]))
        return f"item {i} duplicated", out
    if choice == 3 and len(out) > 1:
        j = rng.randbelow(len(out))
        out[i], out[j] = out[j], out[i]
        return f"items {i} and {j} swapped", out
    if choice == 4:
        out.reverse()
        return "reversed", out
    if choice == 5:
        return "emptied", []
    return "item changed", out[:i] + [tweak(rng, out[i], [])[1]] + out[i + 1:]


def dict_tweak(rng: Sampler, value: dict[str, Any], pool: list[Any]) -> tuple[str, dict[str, Any]]:
    out = copy.deepcopy(value)
    keys = list(out)
    choice = rng.randbelow(5)
    if keys and choice == 0:
        key = rng.choice(keys)
        del out[key]
        return f"key {key!r} dropped", out
    if keys and choice == 1:
        key = rng.choice(keys)
        out[key + "_"] = out.pop(key)
        return f"key {key!r} renamed", out
    if keys and choice == 2:
        return "keys re-ordered", dict(reversed(list(out.items())))
    if len(keys) > 1 and choice == 3:
        a, b = rng.sample(keys, 2)
        out[a], out[b] = out[b], out[a]
        return f"values of {a!r} and {b!r} swapped", out
    out[rng.choice(["extra", "note", "time", "seq", "x" * 40])] = rng.choice(
        [1, "x", True, [], {"a": 1}, "\u202e"])
    return "key added", out


# ---- paths in a document ------------------------------------------------------------------
def walk(value: Any, path: Path_ = ()) -> list[Path_]:
    """The path of every value under ``value`` (itself excluded), lists cut at 12 items."""
    found: list[Path_] = []
    stack: list[tuple[Any, Path_]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if where != path:
            found.append(where)
        if isinstance(item, dict):
            stack.extend((sub, where + (key,)) for key, sub in item.items())
        elif isinstance(item, list):
            positions = range(len(item)) if len(item) <= 12 else sorted(
                {0, 1, len(item) // 2, len(item) - 1} | set(range(0, len(item), max(1, len(item) // 8))))
            stack.extend((item[i], where + (i,)) for i in positions)
    found.sort(key=repr)
    return found


def get(doc: Any, path: Path_) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def put(doc: Any, path: Path_, value: Any) -> None:
    get(doc, path[:-1])[path[-1]] = value


def drop(doc: Any, path: Path_) -> None:
    del get(doc, path[:-1])[path[-1]]


def pool_for(corpus: Corpus, key: Any) -> list[Any]:
    """Values the same key holds elsewhere in the corpus (every game, every entry)."""
    pools = _POOLS.setdefault(id(corpus), {})
    if not pools:
        for history in corpus.histories:
            for entry in history.entries:
                for path in walk(entry):
                    name = path[-1]
                    if isinstance(name, str):
                        bucket = pools.setdefault(name, [])
                        if len(bucket) < 60:
                            bucket.append(get(entry, path))
            for path in walk(history.header):
                name = path[-1]
                if isinstance(name, str):
                    bucket = pools.setdefault(name, [])
                    if len(bucket) < 60:
                        bucket.append(get(history.header, path))
    return pools.get(key, []) if isinstance(key, str) else []


_POOLS: dict[int, dict[str, list[Any]]] = {}


# ---- byte mutations --------------------------------------------------------------------------
INTERESTING = [b"\x00", b"\xff", b"\r", b"\n", b"\x1b[31m", "\u202e".encode(), b'"', b"'", b"[",
               b"]", b"=", b"{", b"#", b"\\", b"\xc3", b"\xef\xbb\xbf", b"9" * 400, b" "]


def byte_mutation(rng: Sampler, source: Input) -> Mutation:
    data = bytearray(source.raw)
    op = rng.choice(["flip", "flip", "insert", "delete", "truncate", "duplicate", "move",
                     "hex"])
    size = len(data)
    at = rng.randbelow(size)
    if op == "flip":
        count = rng.choice([1, 1, 2, 8])
        spots = [rng.randbelow(size) for _ in range(count)]
        for spot in spots:
            data[spot] ^= 1 << rng.randbelow(8)
        detail = f"bits flipped at {spots}"
    elif op == "insert":
        chunk = rng.choice(INTERESTING) if rng.randbelow(2) else rng.read(rng.randint(1, 64))
        data[at:at] = chunk
        detail = f"{len(chunk)} bytes inserted at {at}"
    elif op == "delete":
        length = rng.choice([1, 2, 16, 256, 4096])
        del data[at:at + length]
        detail = f"{length} bytes deleted at {at}"
    elif op == "truncate":
        del data[at:]
        detail = f"cut at {at} of {size}"
    elif op == "duplicate":
        length = rng.choice([1, 40, 400, 4000, size])
        chunk = bytes(data[at:at + length])
        where = rng.choice([at + len(chunk), rng.randbelow(size + 1)])
        data[where:where] = chunk
        detail = f"{len(chunk)} bytes from {at} copied to {where}"
    elif op == "move":
        length = rng.choice([10, 100, 1000])
        chunk = bytes(data[at:at + length])
        del data[at:at + length]
        where = rng.randbelow(len(data) + 1)
        data[where:where] = chunk
        detail = f"{len(chunk)} bytes moved from {at} to {where}"
    else:
        # One hex digit of a hash, key or signature (or a character of a base64url point or
        # proof that happens to be one): still TOML, no longer what was signed.
        spots = [i for i in range(size - 1) if data[i] in b"0123456789abcdef"
                 and data[i + 1] in b"0123456789abcdef"]
        spot = rng.choice(spots) if spots else at
        data[spot] = ord(rng.choice([c for c in "0123456789abcdef" if ord(c) != data[spot]]))
        detail = f"hex digit changed at {spot}"
    return Mutation("byte", f"byte.{op}", detail, bytes(data), source.history, source.n)


# ---- TOML mutations --------------------------------------------------------------------------
def parse(raw: bytes) -> dict[str, Any]:
    return tomltext.loads(raw.decode("utf-8"))


def dump(doc: dict[str, Any]) -> bytes:
    return (BANNER + tomli_w.dumps(doc)).encode("utf-8")


def region_path(rng: Sampler, doc: dict[str, Any]) -> Path_:
    """A value to change: in the header, an entry, the state, or the top level."""
    region = weighted(rng, (("header", 20), ("entry", 55), ("state", 15), ("top", 10)))
    if region == "entry" and doc.get("entry"):
        i = rng.randbelow(len(doc["entry"]))
        paths = walk(doc["entry"][i], ("entry", i))
        return rng.choice(paths) if paths else ("entry", i)
    if region in ("header", "state") and isinstance(doc.get(region), dict):
        paths = walk(doc[region], (region,))
        if paths:
            return rng.choice(paths)
    return (rng.choice(list(doc)),)


TOML_OPS = (
    ("value", 30), ("drop-key", 8), ("swap-values", 5), ("entries", 12), ("tables", 5),
    ("copy-foreign", 10), ("text", 15), ("same-meaning", 15))


def toml_mutation(rng: Sampler, corpus: Corpus, source: Input) -> Mutation:
    doc = parse(source.raw)
    op = weighted(rng, TOML_OPS)
    base = source.n
    raw: bytes
    if op == "value":
        path = region_path(rng, doc)
        how, value = tweak(rng, get(doc, path), pool_for(corpus, path[-1]))
        put(doc, path, value)
        detail = f"{_show(path)}: {how}"
    elif op == "drop-key":
        path = region_path(rng, doc)
        drop(doc, path)
        detail = f"{_show(path)} dropped"
    elif op == "swap-values":
        path = region_path(rng, doc)
        siblings = [p for p in walk(get(doc, path[:-1]), path[:-1])
                    if len(p) == len(path) and p != path] or [path]
        other = rng.choice(siblings)
        a, b = get(doc, path), get(doc, other)
        put(doc, path, b)
        put(doc, other, a)
        detail = f"{_show(path)} and {_show(other)} swapped"
    elif op == "entries":
        detail = entries_op(rng, doc)
    elif op == "tables":
        detail = tables_op(rng, doc)
    elif op == "copy-foreign":
        detail = copy_foreign(rng, corpus, source, doc)
    elif op == "text":
        raw, detail = text_op(rng, source.raw.decode("utf-8"))
        return Mutation("toml", f"toml.{op}", detail, raw, source.history, base)
    else:
        raw, detail = same_meaning(rng, source.raw.decode("utf-8"), doc)
        return Mutation("toml", f"toml.{op}", detail, raw, source.history, base)
    try:
        raw = dump(doc)
    except (TypeError, ValueError) as exc:  # a value tomli_w cannot write: keep the text
        raw, detail = source.raw, f"{detail} (not writable: {exc}; unchanged)"
    return Mutation("toml", f"toml.{op}", detail, raw, source.history, base)


def _show(path: Path_) -> str:
    return ".".join(str(p) for p in path)[:120]


def entries_op(rng: Sampler, doc: dict[str, Any]) -> str:
    entries = doc.get("entry")
    if not isinstance(entries, list) or not entries:
        doc["entry"] = []
        return "entries emptied"
    n = len(entries)
    i, j = rng.randbelow(n), rng.randbelow(n)
    choice = rng.randbelow(7)
    if choice == 0:
        del entries[i]
        return f"entry {i} dropped"
    if choice == 1:
        entries.insert(j, copy.deepcopy(entries[i]))
        return f"entry {i} duplicated at {j}"
    if choice == 2:
        entries[i], entries[j] = entries[j], entries[i]
        return f"entries {i} and {j} swapped"
    if choice == 3:
        entries.append(entries.pop(i))
        return f"entry {i} moved to the end"
    if choice == 4:
        del entries[i:]
        return f"entries from {i} dropped (state kept)"
    if choice == 5:
        entries.reverse()
        return "entries reversed"
    entries[i] = copy.deepcopy(entries[j])
    return f"entry {i} replaced by entry {j}"


def tables_op(rng: Sampler, doc: dict[str, Any]) -> str:
    choice = rng.randbelow(6)
    if choice == 0:
        name = rng.choice(list(doc))
        del doc[name]
        return f"table {name} dropped"
    if choice == 1:
        doc[rng.choice(["extra", "Header", "entries", "state2"])] = {"a": 1}
        return "unknown table added"
    if choice == 2 and isinstance(doc.get("header"), dict):
        name = rng.choice(["options", "components", "seats"])
        doc["header"].pop(name, None)
        return f"header.{name} dropped"
    if choice == 3 and isinstance(doc.get("header"), dict) and isinstance(doc.get("state"), dict):
        doc["header"], doc["state"] = doc["state"], doc["header"]
        return "header and state swapped"
    if choice == 4 and isinstance(doc.get("entry"), list) and doc["entry"]:
        doc["state"] = copy.deepcopy(doc["entry"][-1])
        return "state replaced by the last entry"
    doc["state"] = {}
    return "state emptied"


def copy_foreign(rng: Sampler, corpus: Corpus, source: Input, doc: dict[str, Any]) -> str:
    """An entry, a chore, the header or the state from another save (this game or another)."""
    other = rng.choice(corpus.inputs)
    theirs = parse(other.raw)
    what = rng.randbelow(5)
    entries = doc.get("entry") if isinstance(doc.get("entry"), list) else []
    if what == 0 and theirs["entry"]:
        k = rng.randbelow(len(theirs["entry"]))
        entry = theirs["entry"][k]
        if entries and rng.randbelow(2):
            i = rng.randbelow(len(entries))
            entries[i] = entry
            return f"entry {i} replaced by entry {k} of {other.name}"
        doc.setdefault("entry", []).append(entry)
        return f"entry {k} of {other.name} appended"
    if what == 1:
        chores = [c for e in theirs["entry"] for c in e.get("chores", [])]
        if chores and entries:
            i = rng.randbelow(len(entries))
            chore = rng.choice(chores)
            entries[i].setdefault("chores", []).append(chore)
            return f"a chore of {other.name} appended to entry {i}"
    if what == 2:
        doc["header"] = theirs["header"]
        return f"header of {other.name}"
    if what == 3:
        doc["state"] = theirs.get("state", {})
        return f"state of {other.name}"
    if entries and theirs["entry"]:
        i = rng.randbelow(len(entries))
        mine, their = entries[i], rng.choice(theirs["entry"])
        key = rng.choice(sorted(set(mine) & set(their)) or ["moves"])
        mine[key] = their.get(key)
        return f"entry {i} {key!r} from {other.name}"
    doc["entry"] = theirs["entry"]
    return f"entries of {other.name}"


def text_op(rng: Sampler, text: str) -> tuple[bytes, str]:
    """Edits only text can make: duplicate keys and tables, deep nesting, long numbers."""
    lines = text.split("\n")
    assignments = [i for i, line in enumerate(lines) if " = " in line and not line.startswith("#")]
    tables = [i for i, line in enumerate(lines) if line.startswith("[")]
    choice = rng.randbelow(6)
    i = rng.choice(assignments)
    key = lines[i].split(" = ", 1)[0]
    if choice == 0:
        lines.insert(i + 1, lines[i])
        detail = f"line {i} duplicated (key {key.strip()!r} twice)"
    elif choice == 1 and tables:
        t = rng.choice(tables)
        end = next((j for j in range(t + 1, len(lines)) if lines[j].startswith("[")), len(lines))
        lines[end:end] = lines[t:end]
        detail = f"table at line {t} duplicated"
    elif choice == 2:
        depth = rng.choice([33, 1000, 5000])
        lines[i] = f"{key} = " + "[" * depth + "]" * depth
        detail = f"{key.strip()} nested {depth} deep (arrays)"
    elif choice == 3:
        depth = rng.choice([33, 1000, 5000])
        lines[i] = f"{key} = " + "{a = " * depth + "1" + "}" * depth
        detail = f"{key.strip()} nested {depth} deep (inline tables)"
    elif choice == 4:
        digits = rng.choice([17, 20, 400, 5000])
        lines[i] = f"{key} = " + "9" * digits
        detail = f"{key.strip()} = a {digits}-digit number"
    else:
        depth = rng.choice([40, 3000])
        lines.append("[state." + ".".join(["a"] * depth) + "]")
        lines.append("b = 1")
        detail = f"a table {depth} deep"
    return "\n".join(lines).encode("utf-8"), detail


def same_meaning(rng: Sampler, text: str, doc: dict[str, Any]) -> tuple[bytes, str]:
    """Edits that change nothing pbem reads: comments, spacing, key order, quoting."""
    lines = text.split("\n")
    choice = rng.randbelow(7)
    if choice == 0:
        at = rng.randbelow(len(lines) + 1)
        lines.insert(at, "# a comment \u202e added by hand")
        return "\n".join(lines).encode(), f"comment at line {at}"
    if choice == 1:
        return text.replace("\n", "\r\n").encode(), "CRLF line ends"
    if choice == 2:
        return "\n".join(line.replace(" = ", "   =   ", 1) for line in lines).encode(), "spacing"
    if choice == 3:
        return dump(doc), "re-written by tomli_w"
    if choice == 4:
        return dump(keys_reversed(doc)), "every table's keys in reverse order"
    if choice == 5:
        return b"\xef\xbb\xbf" + text.encode(), "byte order mark"
    # A basic string written as a literal one: the same value.
    candidates = [i for i, line in enumerate(lines) if line.count('"') == 2 and "'" not in line
                  and "\\" not in line]
    if not candidates:
        return text.encode(), "unchanged"
    i = rng.choice(candidates)
    lines[i] = lines[i].replace('"', "'")
    return "\n".join(lines).encode(), f"line {i} quoted with ' instead of \""


def keys_reversed(value: Any) -> Any:
    """``value`` with every table's keys in reverse order (the same TOML document)."""
    if isinstance(value, dict):
        return {k: keys_reversed(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [keys_reversed(v) for v in value]
    return value


# ---- re-signed mutations (the cheating player's own client) ----------------------------------
RESIGN_OPS = (
    ("field", 30), ("moves", 18), ("chores", 16), ("beacon", 6), ("replay-chores", 6),
    ("header", 6), ("wrong-key", 4), ("out-of-turn", 4), ("early-reveal", 3), ("kind", 4),
    ("tail", 3))


def resign_mutation(rng: Sampler, corpus: Corpus) -> Mutation:
    history = rng.choice(corpus.signed())
    entries = copy.deepcopy(history.entries)
    op = weighted(rng, RESIGN_OPS)
    k = rng.randbelow(len(entries))
    header = copy.deepcopy(history.header)
    signer = entries[k]["seat"]
    detail: str
    if op == "field":
        entry = entries[k]
        paths = [p for p in walk(entry) if p[0] != "sig"]
        path = rng.choice(paths)
        how, value = tweak(rng, get(entry, path), pool_for(corpus, path[-1]))
        put(entry, path, value)
        detail = f"entry {k} {_show(path)}: {how}"
    elif op == "moves":
        detail = moves_op(rng, corpus, history, entries, k)
    elif op == "chores":
        k = _pick(rng, entries, lambda e: bool(e["chores"]), k)
        signer = entries[k]["seat"]
        detail = chores_op(rng, entries, k)
    elif op == "replay-chores":
        k = _pick(rng, entries, lambda e: e["kind"] not in ("create",), k)
        signer = entries[k]["seat"]
        donors = [i for i, e in enumerate(entries) if e["chores"] and i != k]
        foreign = [(h, i) for h in corpus.signed() if h is not history
                   for i, e in enumerate(h.entries) if e["chores"]]
        if foreign and rng.randbelow(4) == 0:
            other, d = rng.choice(foreign)
            entries[k]["chores"] = copy.deepcopy(other.entries[d]["chores"])
            detail = f"entry {k} carries the chores of entry {d} of {other.name}"
        elif donors:
            d = rng.choice(donors)
            entries[k]["chores"] = copy.deepcopy(entries[d]["chores"])
            detail = f"entry {k} carries the chores of entry {d} ({entries[d]['seat']})"
        else:
            entries[k]["chores"] = []
            detail = f"entry {k} chores dropped"
    elif op == "beacon":
        detail = beacon_op(rng, history, entries, k)
    elif op == "header":
        k = 0
        signer = entries[0]["seat"]
        paths = walk(header)
        path = rng.choice(paths)
        how, value = tweak(rng, get(header, path), pool_for(corpus, path[-1]))
        put(header, path, value)
        entries[0]["prev"] = _digest_or_keep(header, entries[0]["prev"])
        detail = f"header {_show(path)}: {how}; create re-signed by the host"
    elif op == "wrong-key":
        others = [h for h in history.keys if h != entries[k]["seat"]]
        signer = rng.choice(others)
        if rng.randbelow(2):
            entries[k]["moves"] = list(entries[k]["moves"]) + ["pass"]
        detail = f"entry {k} ({entries[k]['seat']}) signed with {signer}'s key"
    elif op == "out-of-turn":
        detail, signer = out_of_turn(rng, history, entries, k)
    elif op == "early-reveal":
        k = _pick(rng, entries, lambda e: e["kind"] in ("turn", "start"), k)
        signer = entries[k]["seat"]
        detail = early_reveal(history, entries, k)
    elif op == "kind":
        kinds = list(savefile.KINDS) + ["absent", "vote", "withdraw"]
        old = entries[k]["kind"]
        entries[k]["kind"] = rng.choice([x for x in kinds if x != old])
        detail = f"entry {k} kind {old} -> {entries[k]['kind']}"
    else:
        # The signer's newest entry signed again unchanged, and the tail kept: the same save.
        detail = f"entry {k} re-signed unchanged"
    keep_tail = op in ("tail",) or rng.randbelow(5) == 0
    if not keep_tail:
        del entries[k + 1:]
    identity = history.keys[signer]
    try:
        entries[k] = {**unsigned(entries[k]), "sig": identity.sign(canonical(unsigned(entries[k]))).hex()}
    except (TypeError, ValueError):
        detail += " (not signable: left unsigned)"
    # The cheater also writes the [state] its change would give, so only the rules, the
    # chain and the proofs stand between it and acceptance.
    state = attacker_state(history, header, entries, k)
    save = savefile.Save(header, entries, state)
    try:
        raw = savefile.dumps(save).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raw = savefile.dumps(history.prefix(len(entries))).encode("utf-8")
        detail += f" (not writable: {exc}; unchanged)"
    if not keep_tail:
        detail += f"; cut after entry {k}"
    return Mutation("resign", f"resign.{op}", detail, raw, history, len(history.entries),
                    signer=signer, first_changed=k)


def _pick(rng: Sampler, entries: list[dict[str, Any]], wanted: Callable[[dict[str, Any]], bool],
          default: int) -> int:
    found = [i for i, e in enumerate(entries) if wanted(e)]
    return rng.choice(found) if found else default


def _digest_or_keep(header: dict[str, Any], old: str) -> str:
    try:
        return digest(header)
    except (TypeError, ValueError):
        return old


def attacker_state(history: History, header: dict[str, Any], entries: list[dict[str, Any]],
                   k: int) -> dict[str, Any]:
    """The [state] the changed history replays to (the honest one if it does not)."""
    try:
        with fixed_entropy("attacker"):
            if k == 0 or canonical(header) != canonical(history.header):
                table = headers.empty_table(copy.deepcopy(header))
                start = 0
            else:
                table, start = history.tables[k - 1], k
            for entry in entries[start:]:
                table, _ = engine.step(table, copy.deepcopy(entry), replay=True)
            return engine.public_state(table)
    except Exception:  # noqa: BLE001 - whatever fails here, verify meets it too
        n = min(len(entries), len(history.entries))
        return engine.public_state(history.tables[n - 1])


def moves_op(rng: Sampler, corpus: Corpus, history: History, entries: list[dict[str, Any]],
             k: int) -> str:
    entry = entries[k]
    choice = rng.randbelow(8)
    if choice <= 2 and entry["kind"] == "turn":
        # Another whole turn the seat could have played: accepted only as exactly that.
        table = history.table_before(k)
        identity = history.keys[entry["seat"]]
        try:
            shown = signing.preview(table, identity)
            seat = table.seat_of(entry["seat"])
            assert seat is not None
            turn = bots.choose_turn(shown.game, shown.gstate, seat, f"random:{rng.randbelow(10**6)}",
                                    salt=str(k))
        except PbemError as exc:
            return f"entry {k}: no other turn ({exc.message[:60]})"
        old = entry["moves"]
        entry["moves"] = turn
        return f"entry {k} moves {old} -> another legal turn {turn}"
    if choice == 3:
        donors = [e for h in corpus.signed() for e in h.entries if e["moves"]]
        donor = rng.choice(donors)
        entry["moves"] = list(donor["moves"])
        return f"entry {k} moves from elsewhere: {donor['moves']}"
    if choice == 4 and entry["moves"]:
        i = rng.randbelow(len(entry["moves"]))
        words = [w for e in history.entries for m in e["moves"] for w in m.split()]
        how, value = (move_tweak(rng, entry["moves"][i], words) if rng.randbelow(3)
                      else string_tweak(rng, entry["moves"][i]))
        entry["moves"][i] = value
        return f"entry {k} move {i}: {how} ({value[:60]!r})"
    if choice == 5:
        extra = rng.choice(["pass", "superbonus", "keep s1", "roll", "bottom s1 s2",
                            "contracts top", "route keep 1", "x" * 20000, "\u202epass",
                            "pass\x1b[2J"])
        entry["moves"] = list(entry["moves"]) + [extra]
        return f"entry {k} move {extra[:30]!r} appended"
    if choice == 6 and entry["moves"]:
        how, changed = list_tweak(rng, list(entry["moves"]), [])
        entry["moves"] = changed
        return f"entry {k} moves: {how}"
    entry["moves"] = []
    return f"entry {k} moves emptied"


def chores_op(rng: Sampler, entries: list[dict[str, Any]], k: int) -> str:
    entry = entries[k]
    if not entry["chores"]:
        entry["chores"] = [{"deck": "superbonus", "op": "work", "items": []}]
        return f"entry {k}: an empty chore added"
    c = rng.randbelow(len(entry["chores"]))
    chore = entry["chores"][c]
    items = chore.get("items") or chore.get("cts") or []
    choice = rng.randbelow(9)
    key = "items" if "items" in chore else "cts"
    if choice == 0:
        entry["chores"].append(copy.deepcopy(chore))
        return f"entry {k} chore {c} twice"
    if choice == 1:
        del entry["chores"][c]
        return f"entry {k} chore {c} dropped"
    if choice == 2 and len(items) > 1:
        how, value = list_tweak(rng, items, [])
        chore[key] = value
        return f"entry {k} chore {c} {key}: {how}"
    if choice == 3 and key == "items" and items:
        # A value taken from another item of the same chore (another slot's ciphertext,
        # proof, key or serial): each is bound to its own slot.
        i, j = rng.randbelow(len(items)), rng.randbelow(len(items))
        field = rng.choice([f for f in items[i] if f in items[j]] or ["op"])
        items[i][field] = items[j][field]
        return f"entry {k} chore {c} item {i} {field} from item {j}"
    if choice == 4 and key == "items" and items:
        i = rng.randbelow(len(items))
        flips = {"peel": "open", "open": "peel", "lock": "peel"}
        items[i]["op"] = flips.get(items[i].get("op"), "lock")
        return f"entry {k} chore {c} item {i} op -> {items[i]['op']}"
    if choice == 5 and key == "items" and items:
        i = rng.randbelow(len(items))
        if "serial" in items[i]:
            items[i]["serial"] += rng.choice([-1, 1, 1000])
            return f"entry {k} chore {c} item {i} serial changed"
    if choice == 6 and key == "cts" and items:
        i, j = rng.randbelow(len(items)), rng.randbelow(len(items))
        items[i] = items[j]
        return f"entry {k} shuffle ciphertext {i} = {j}"
    paths = [p for p in walk(chore) if p]
    path = rng.choice(paths)
    how, value = tweak(rng, get(chore, path), [])
    put(chore, path, value)
    return f"entry {k} chore {c} {_show(path)}: {how}"


def beacon_op(rng: Sampler, history: History, entries: list[dict[str, Any]], k: int) -> str:
    entry = entries[k]
    seat = entry["seat"]
    own = [i for i, e in enumerate(entries) if e["seat"] == seat and i != k and "beacon" in e]
    choice = rng.randbelow(4)
    if choice == 0 and own:
        i = rng.choice(own)
        entry["beacon"] = entries[i]["beacon"]
        return f"entry {k} beacon replayed from entry {i}"
    if choice == 1:
        # The seat's own chain too far down (it holds the seed): skipping one or two links
        # (a verifier accepts no bare skip), or none.
        nonce = next(e["nonce"] for e in history.entries if e["seat"] == seat
                     and e["kind"] in ("create", "join"))
        seed = history.keys[seat].seed(history.game_id, bytes.fromhex(nonce))
        links = sum(1 for e in history.entries[:k] if e["seat"] == seat
                    and e["kind"] in LINK_KINDS)
        step = rng.choice([2, 3, 0])
        entry["beacon"] = beacon.published(seed, links + step).hex()
        return f"entry {k} beacon: link {links + step} of the seat's chain instead of {links + 1}"
    if choice == 2:
        others = [e["beacon"] for e in entries if e["seat"] != seat and "beacon" in e]
        if others:
            entry["beacon"] = rng.choice(others)
            return f"entry {k} beacon of another seat"
    entry["beacon"] = hashlib.sha256(rng.read(16)).hexdigest()
    return f"entry {k} beacon: random"


def out_of_turn(rng: Sampler, history: History, entries: list[dict[str, Any]],
                k: int) -> tuple[str, str]:
    """Entry k signed by a seat whose turn it is not, with that seat's own next link."""
    entry = entries[k]
    others = [h for h in history.keys if h != entry["seat"]]
    intruder = rng.choice(others)
    table = history.table_before(k)
    seat = table.seat_of(intruder)
    if seat is None or not table.seats[seat].nonce:
        return f"entry {k}: {intruder} had not joined (unchanged)", entry["seat"]
    link = signing.next_link(table, seat, history.keys[intruder])
    entry["seat"] = intruder
    entry["beacon"] = link.hex()
    return f"entry {k} by {intruder} out of turn", intruder


def early_reveal(history: History, entries: list[dict[str, Any]], k: int) -> str:
    """The seat reveals its seed in mid-game instead of playing."""
    entry = entries[k]
    table = history.table_before(k)
    seat = table.seat_of(entry["seat"])
    assert seat is not None
    identity = history.keys[entry["seat"]]
    entry["kind"] = "reveal"
    entry["moves"] = []
    entry["seed"] = signing.seat_seed(table, seat, identity).hex()
    return f"entry {k} turned into an early reveal"
