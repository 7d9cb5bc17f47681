"""The save file: TOML <-> records, schema checks, atomic never-overwriting writes.

Layout (PROTOCOL.md section 3): ``[header]``, ``[[entry]]`` oldest first, ``[state]``.
Parsing checks every field's type and shape and raises SaveFileError (exit 4) with the
field's place; the cryptographic and rules checks come later, in pbem.ledger/engine.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
from pathlib import Path
from typing import Any

from pbem import atomic, tomltext
from pbem.errors import SaveFileError, UsageError
from pbem.protocol.crypto.entropy import parse_time
from pbem.protocol.crypto.identity import is_address, is_handle
from pbem.protocol.saveformat import packed, timing
from pbem.protocol.saveformat.canonical import NotCanonicalError, check_signable
from pbem.record import Record
from pbem.terminal import printable, shown

FORMAT = "pbem/2"
KINDS = ("create", "join", "start", "turn", "reveal", "resign", "absent", "vote", "confirm",
         "away")
# The kinds that publish the seat's next beacon link (PROTOCOL.md section 5: only play
# publishes links); create and join publish the anchor; every other kind is signed out of
# the order of play and carries no ``beacon`` field.
LINK_KINDS = ("start", "turn", "reveal", "resign")
ANCHOR_KINDS = ("create", "join")
# The kinds that may be signed in a round (PROTOCOL.md section 4, Rounds): such an entry
# carries ``round``, the seq of its round's first entry.
ROUND_KINDS = ("join", "turn", "reveal", "absent")
# How deep ``evidence`` may nest: 1, an entry carried as evidence carries none itself
# (the verifier replays the voided branch's rules, not a branch voided inside it).
MAX_EVIDENCE_DEPTH = 1
# Kind-specific fields of the absent-player entries (PROTOCOL.md section 11).
REMEDIES = ("end", "bot")
VOTES = ("accept", "refuse")
# An entry's signed ``time``: the signer's UTC clock, to the second (PROTOCOL.md section 11).
TIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HEX128 = re.compile(r"^[0-9a-f]{128}$")
GAME_ID = re.compile(r"^[0-9a-f]{32}$")
# The largest save the example games make is under 100 KB and a 2,000-turn game about
# 1 MB; anything past this is refused before it is read (bounded memory and time).
MAX_SAVE_BYTES = 16 * 1024 * 1024
# Every integer in a header (options, component data) is within this, either way: the
# header reaches game code, which may size loops or lists by its numbers. Each game's
# validator bounds its own numbers more tightly.
MAX_HEADER_INT = 1_000_000
# Table talk (PROTOCOL.md section 4): an entry's optional ``note``, one line of at most
# NOTE_MAX_CHARS characters and NOTE_MAX_BYTES bytes of UTF-8, signed with the entry and
# read by nothing but people (never by the rules or the beacon). UTF-8 takes at most 4
# bytes a character, so the byte bound follows from the other: it is said for readers.
NOTE_MAX_CHARS = 500
NOTE_MAX_BYTES = 2000

Entry = dict[str, Any]


class Save(Record):
    def __init__(self, header: dict[str, Any], entries: list[Entry],
                 state: dict[str, Any] | None = None) -> None:
        self.header = header
        self.entries = entries
        self.state = {} if state is None else state

    @property
    def game_id(self) -> str:
        return str(self.header["id"])

    @property
    def ruleset(self) -> str:
        return str(self.header["game"])

    def handles(self) -> list[str]:
        return [s["handle"] for s in self.header["seats"]]


def _fail(where: str, problem: str) -> SaveFileError:
    return SaveFileError(
        f"This save is malformed: {where} {problem}. Ask the sender for the file exactly "
        "as pbem wrote it."
    )


def _expect(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = table.get(key, _MISSING)
    if type(value) is kind:  # the usual case, at once (a bool is not of type int)
        return value
    if value is _MISSING:
        raise _fail(where, f"has no '{key}'")
    if isinstance(value, bool) and kind is int:
        raise _fail(f"{where} '{key}'", "should be an integer, not true/false")
    if not isinstance(value, kind):
        name = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise _fail(f"{where} '{key}'", f"should be {_friendly(name)}")
    return value


_MISSING = object()


def _friendly(name: str) -> str:
    return {"str": "a string", "int": "an integer", "list": "a list", "dict": "a table"}.get(
        name, f"a {name}")


def _hex(table: dict[str, Any], key: str, pattern: re.Pattern[str], where: str) -> str:
    value = _expect(table, key, str, where)
    if not pattern.match(value):
        raise _fail(f"{where} '{key}'", "is not lower-case hex of the right length")
    return str(value)


def _check_links(entry: Entry, kind: str, where: str, depth: int) -> None:
    """The beacon fields (PROTOCOL.md section 5): ``beacon`` on exactly the kinds that
    publish a link or the anchor; a fresh ``anchor`` and skip ``evidence`` only on the kinds
    that publish a link."""
    if kind in LINK_KINDS or kind in ANCHOR_KINDS:
        _hex(entry, "beacon", HEX64, where)
    elif "beacon" in entry:
        raise _fail(f"{where} 'beacon'", f"has no place in {kind!r} entry: only entries in "
                    "the order of play publish beacon links")
    for key in ("anchor", "evidence"):
        if key in entry and kind not in LINK_KINDS:
            raise _fail(f"{where} {key!r}", f"has no place in {kind!r} entry")
    if "anchor" in entry:  # a fresh beacon anchor
        _hex(entry, "anchor", HEX64, where)
    if "evidence" in entry:  # the entries a skip of links rests on
        evidence = entry["evidence"]
        if not isinstance(evidence, list) or not evidence:
            raise _fail(f"{where} 'evidence'", "should be a non-empty list of entries")
        if depth >= MAX_EVIDENCE_DEPTH:
            raise _fail(f"{where} 'evidence'", "is carried inside evidence: it may not nest")
        for number, carried in enumerate(evidence):
            check_entry(carried, number, depth + 1)


def check_header(header: Any) -> dict[str, Any]:
    if not isinstance(header, dict):
        raise _fail("the file", "has no [header] table")
    where = "[header]"
    fmt = _expect(header, "format", str, where)
    if fmt == "pbem/1":
        raise SaveFileError(
            "This save is in format 'pbem/1', whose chance links this pbem no longer trusts "
            "(it reads only 'pbem/2'), so finish that game with the pbem that made it.")
    if fmt != FORMAT:
        raise SaveFileError(
            f"This save is in format {shown(fmt)}, which this pbem does not read (it reads "
            f"'{FORMAT}'). Install a pbem that knows that format."
        )
    _expect(header, "game", str, where)
    _expect(header, "rules_version", int, where)
    _hex(header, "id", GAME_ID, where)
    _expect(header, "created", str, where)
    _expect(header, "options", dict, where)
    _expect(header, "components", dict, where)
    # The game clock (PROTOCOL.md section 11); a header without it has the defaults.
    if "patience" in header and timing.patience_problem(header["patience"]):
        raise _fail(f"{where} 'patience'", timing.patience_problem(header["patience"]))
    if "away" in header and timing.away_problem(header["away"]):
        raise _fail(f"{where} 'away'", timing.away_problem(header["away"]))
    seats = _expect(header, "seats", list, where)
    if not seats:
        raise _fail(where, "lists no seats")
    seen: set[str] = set()
    for i, seat in enumerate(seats, start=1):
        if not isinstance(seat, dict):
            raise _fail(f"{where} seat {i}", "should be a table")
        handle = _expect(seat, "handle", str, f"{where} seat {i}")
        if not is_handle(handle):
            raise _fail(f"{where} seat {i}", "has a handle that is not lower-case letters, "
                        "digits, '-' and '_'")
        if handle in seen:
            raise _fail(where, f"lists '{handle}' twice")
        seen.add(handle)
        if "email" in seat and not is_address(_expect(seat, "email", str, f"{where} seat {i}")):
            raise _fail(f"{where} seat {i}", "has an email that is not one plain mail address")
        if "key" in seat:
            _hex(seat, "key", HEX64, f"{where} seat {i}")
    try:
        check_signable(header, max_int=MAX_HEADER_INT)
    except NotCanonicalError as exc:
        raise _fail(where, f"holds a value that cannot be signed ({exc})") from None
    return header


def check_entry(entry: Any, index: int, depth: int = 0) -> Entry:
    where = f"entry {index}" if not depth else f"evidence entry {index}"
    if not isinstance(entry, dict):
        raise _fail(where, "should be a table")
    _expect(entry, "seq", int, where)
    _expect(entry, "game", str, where)
    _expect(entry, "seat", str, where)
    kind = _expect(entry, "kind", str, where)
    if kind not in KINDS:
        raise _fail(f"{where} 'kind'", f"is {shown(kind)}, not one of {', '.join(KINDS)}")
    _hex(entry, "prev", HEX64, where)
    _check_links(entry, kind, where, depth)
    moves = _expect(entry, "moves", list, where)
    if not all(isinstance(m, str) for m in moves):
        raise _fail(f"{where} 'moves'", "should hold only strings")
    chores = _expect(entry, "chores", list, where)
    if not all(isinstance(c, dict) for c in chores):
        raise _fail(f"{where} 'chores'", "should hold only tables")
    if kind in ("create", "join"):
        _hex(entry, "pubkey", HEX64, where)
        _hex(entry, "seed_commit", HEX64, where)
        _hex(entry, "nonce", HEX64, where)
    if kind == "reveal":
        _hex(entry, "seed", HEX64, where)
    if "round" in entry:
        _check_round(entry, kind, where)
    for field in ("sealed", "salt"):  # a sealed step's commitment and its opening
        if field in entry:
            if kind != "turn":
                raise _fail(f"{where} {field!r}", f"has no place in {kind!r} entry")
            _hex(entry, field, HEX64, where)
    if "time" in entry:
        check_time(entry["time"], where)
    # An away note (PROTOCOL.md section 11): any entry of the seat's own may carry one;
    # an ``away`` entry carries nothing else.
    if "away_until" in entry or kind == "away":
        if "away_until" not in entry:
            raise _fail(where, "is an away entry without 'away_until'")
        check_time(entry["away_until"], where, "away_until")
    _check_absence_fields(entry, kind, where)
    if "note" in entry:
        problem = note_problem(_expect(entry, "note", str, where))
        if problem:
            raise _fail(f"{where} 'note'", problem)
    _hex(entry, "sig", HEX128, where)
    try:
        check_signable(entry)
    except NotCanonicalError as exc:
        raise _fail(where, f"holds a value that cannot be signed ({exc})") from None
    return entry


def _check_round(entry: Entry, kind: str, where: str) -> None:
    """``round``: the seq of the first entry of the round the entry is signed in, at most
    its own (chain.py checks where rounds stand; the engine, which seats sign in them)."""
    if kind not in ROUND_KINDS:
        raise _fail(f"{where} 'round'", f"has no place in {kind!r} entry: only "
                    f"{', '.join(ROUND_KINDS)} entries are signed in rounds")
    first = _expect(entry, "round", int, where)
    if not 1 <= first <= entry["seq"]:
        raise _fail(f"{where} 'round'", "is not the seq of an entry at or before it")


def note_problem(note: str) -> str:
    """What is wrong with ``note`` as an entry's note, '' if nothing: the one rule the
    verifier (a malformed save) and the CLI (a usage error, before signing) both apply."""
    if not note.strip():
        return "is empty or blank"
    try:
        size = len(note.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: bytes that were not UTF-8
        return "is not UTF-8 text"
    if len(note) > NOTE_MAX_CHARS or size > NOTE_MAX_BYTES:
        return (f"is longer than {NOTE_MAX_CHARS} characters or {NOTE_MAX_BYTES} bytes "
                f"({len(note)} characters, {size} bytes)")
    # One line of plain text: no tab or line break, nothing the terminal escapes (control,
    # bidi and zero-width characters), so a note reads the same wherever it is shown.
    if "\t" in note or "\n" in note or printable(note) != note:
        return "holds a control, line-break or invisible formatting character"
    return ""


def said(handle: str, note: str) -> str:
    """'ann wrote: "..."': a note as every report shows it, its signer named (a valid
    note is one line with no control character, see :func:`note_problem`)."""
    return f'{handle} wrote: "{note}"'


def check_time(value: Any, where: str, key: str = "time") -> datetime.datetime:
    """An entry's ``time`` (or ``key``): exactly "YYYY-MM-DDTHH:MM:SSZ", a real UTC date
    and time, no later than the year timing.LAST_YEAR."""
    if not isinstance(value, str) or not TIME.match(value):
        raise _fail(f"{where} '{key}'", 'is not a time written as "YYYY-MM-DDTHH:MM:SSZ"')
    try:
        when = parse_time(value)
    except ValueError:
        raise _fail(f"{where} '{key}'", "is not a real date and time") from None
    if when.year > timing.LAST_YEAR:
        raise _fail(f"{where} '{key}'", f"is after the year {timing.LAST_YEAR}, the last a "
                    "signed time may fall in")
    return when


def _check_absence_fields(entry: Entry, kind: str, where: str) -> None:
    """``absent`` names a seat (``player``) and a ``remedy``; ``vote`` carries ``vote``;
    an entry that plays an absent seat's turns lists them in ``bot`` (each a table with
    ``seat``, a handle, and ``moves``). No other kind carries these fields."""
    if kind == "absent":
        if not is_handle(_expect(entry, "player", str, where)):
            raise _fail(f"{where} 'player'", "is not a handle")
        if _expect(entry, "remedy", str, where) not in REMEDIES:
            raise _fail(f"{where} 'remedy'", f"is not one of {', '.join(REMEDIES)}")
    elif "player" in entry or "remedy" in entry:
        raise _fail(where, "carries 'player' or 'remedy', which only an absent entry has")
    if kind == "vote":
        if _expect(entry, "vote", str, where) not in VOTES:
            raise _fail(f"{where} 'vote'", f"is not one of {', '.join(VOTES)}")
    elif "vote" in entry:
        raise _fail(where, "carries 'vote', which only a vote entry has")
    if "bot" not in entry:
        return
    if kind not in ("turn", "reveal", "resign"):
        raise _fail(where, f"is a {kind} entry but carries bot turns")
    turns = _expect(entry, "bot", list, where)
    for i, turn in enumerate(turns, start=1):
        place = f"{where} bot turn {i}"
        if not isinstance(turn, dict) or set(turn) != {"seat", "moves"}:
            raise _fail(place, "should be a table with 'seat' and 'moves' only")
        if not is_handle(_expect(turn, "seat", str, place)):
            raise _fail(f"{place} 'seat'", "is not a handle")
        moves = _expect(turn, "moves", list, place)
        if not all(isinstance(m, str) for m in moves):
            raise _fail(f"{place} 'moves'", "should hold only strings")


def parse(text: str, name: str = "the save") -> Save:
    if len(text) > MAX_SAVE_BYTES:
        raise SaveFileError(f"{name} is {len(text)} characters long, far larger than any pbem "
                            "save; refusing it.")
    try:
        data = tomltext.loads(text)
    except tomltext.TOMLDecodeError as exc:
        raise SaveFileError(
            f"{name} is not a readable pbem save (TOML error: {exc}). It may be truncated "
            "or re-encoded by a mail client; ask for it again."
        ) from None
    except (ValueError, RecursionError, OverflowError):
        # A number of thousands of digits, or arrays or tables nested thousands deep.
        raise SaveFileError(
            f"{name} is not a pbem save: it holds a number far too long or values nested "
            "far too deep for any save. Ask for the file exactly as pbem wrote it."
        ) from None
    header = check_header(data.get("header"))
    raw_entries = data.get("entry", [])
    if not isinstance(raw_entries, list) or not raw_entries:
        raise _fail("the file", "has no [[entry]] tables")
    entries = [check_entry(e, i) for i, e in enumerate(raw_entries)]
    state = data.get("state", {})
    if not isinstance(state, dict):
        raise _fail("[state]", "should be a table")
    try:
        check_signable(state)
    except NotCanonicalError as exc:
        raise _fail("[state]", f"holds a value no pbem writes ({exc})") from None
    unknown = sorted(set(data) - {"header", "entry", "state"})
    if unknown:
        raise _fail("the file", f"has unexpected tables: {', '.join(unknown)}")
    return Save(header, entries, state)


def read(path: str | Path) -> Save:
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_SAVE_BYTES:
            raise SaveFileError(f"{p} is {size} bytes, far larger than any pbem save; refusing it.")
        with open(p, "rb") as fh:  # at most one byte past the limit, whatever stat said
            raw = fh.read(MAX_SAVE_BYTES + 1)
        if len(raw) > MAX_SAVE_BYTES:
            raise SaveFileError(f"{p} is larger than any pbem save; refusing it.")
    except FileNotFoundError:
        raise SaveFileError(f"There is no file {p}.") from None
    except IsADirectoryError:
        raise SaveFileError(f"{p} is a folder, not a save file.") from None
    except OSError as exc:
        raise SaveFileError(f"{p} cannot be read ({exc.strerror}).") from None
    return parse_bytes(raw, str(p))


def parse_bytes(raw: bytes, name: str = "the save") -> Save:
    if len(raw) > MAX_SAVE_BYTES:
        raise SaveFileError(f"{name} is {len(raw)} bytes, far larger than any pbem save; "
                            "refusing it.")
    if packed.is_gzip(raw):  # stored gzip-compressed: the save is what it inflates to
        raw = packed.unpack(raw, MAX_SAVE_BYTES, name)
    if raw.startswith(b"\xef\xbb\xbf"):  # a BOM added by some editors changes nothing
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveFileError(f"{name} is not UTF-8 text, so not a pbem save.") from None
    return parse(text.replace("\r\n", "\n"), name)


def dumps(save: Save) -> str:
    banner = (
        "# pbem save: open it with 'pbem show FILE'; edit nothing by hand (every entry is\n"
        "# signed and the whole history is re-checked by 'pbem verify').\n"
    )
    if not save.entries or not all(isinstance(e.get("sig"), str) and len(e["sig"]) == 128
                                   for e in save.entries):
        # Not a signed history (no entry, or one short enough to be written inline).
        doc = {"header": save.header, "entry": save.entries, "state": save.state}
        return banner + tomltext.dumps(doc)
    # tomltext.dumps(doc) exactly, section by section: each signed entry's text is kept,
    # as a save is re-written with one entry more at every hop of a game played in one
    # process (the demo, bots, tests).
    parts = [tomltext.section("header", save.header)]
    parts += [_entry_section(e) for e in save.entries]
    parts.append(tomltext.section("state", save.state))
    return banner + "\n".join(parts)


# An entry's JSON in its own key order -> its section; bounded, emptied when full.
_ENTRY_TEXT: dict[str, str] = {}
ENTRY_TEXT_SIZE = 8192


def _entry_section(entry: Entry) -> str:
    key = json.dumps(entry, ensure_ascii=False)
    text = _ENTRY_TEXT.get(key)
    if text is None:
        if len(_ENTRY_TEXT) >= ENTRY_TEXT_SIZE:
            _ENTRY_TEXT.clear()
        text = _ENTRY_TEXT[key] = tomltext.section("entry", entry, in_array=True)
    return text


def write_new(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically; never replace an existing file.

    The bytes go to a temporary file in the same folder, are fsynced, then hard-linked
    into place (link fails if the name exists), so a reader sees all or nothing."""
    target = Path(path)
    if target.exists():
        raise UsageError(f"{target} already exists; pbem never overwrites a save. Use -o NEWNAME.")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"The folder {folder} does not exist; create it or choose another -o.")
    fd, tmp = atomic.temporary(folder, ".pbem-", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise UsageError(
                f"{target} already exists; pbem never overwrites a save. Use -o NEWNAME."
            ) from None
        except OSError:
            # Filesystems without hard links: an exclusive create keeps the promise, and
            # a file it cannot finish (no room, Ctrl-C) is removed, not left half written.
            fd2 = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                with os.fdopen(fd2, "wb") as out:
                    out.write(text.encode("utf-8"))
                    out.flush()
                    os.fsync(out.fileno())
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(target)
                raise
        _fsync_dir(folder)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return target


def holds(path: str | Path, text: str) -> bool:
    """Whether the file at ``path`` holds exactly ``text`` (a save written whole before
    its write was interrupted)."""
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as fh:
            return fh.read(len(data) + 1) == data
    except OSError:
        return False


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def default_name(game: str, game_id: str, seq: int, handle: str) -> str:
    return f"{game}-{game_id[:8]}-{seq:04d}-{handle}.toml"
