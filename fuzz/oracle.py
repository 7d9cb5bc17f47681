"""Verifying a mutation twice and judging the result.

Each mutated file is verified in-process through ``pbem.session`` (as ``pbem verify``
does: ``savefile.read`` then ``session.verify``), by a fresh home and by a home that
verified a prefix of the original: the entries before the first changed one, or the
previous save (all but the last entry the file holds) when that is longer, so the
archive's shortcut meets edited, dropped and swapped earlier entries it has vouched for.
A refusal is its exit code; an exception that is not a PbemError is an internal error (a
traceback for the user, exit 70).

An accepted save is compared with the original by its *meaning*: the header, every
entry's seat, kind and moves, the beacon links that decide chance, the seats' keys and
revealed seeds, the replayed game state and snapshot, the audit, the scores and the final
state. Comments, spacing, key order, a nonce or commitment a seat changed in its own
newest join, a field nothing reads: these leave the meaning alone. A re-signed mutation
whose signer's newest entry differs is accepted only as what that seat's own client would
have signed there (``signing.sign_entry`` with the same moves): "a legal alternative";
or as an entry that differs from that only in what the protocol leaves to the end-of-game
audit (a shuffle pass, a re-lock's key point), when the audit with the signer's seed
names it.
Anything else accepted is a change of meaning.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from fuzz.corpus import History, fixed_entropy
from fuzz.mutate import Mutation
from pbem import session
from pbem.errors import PbemError
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import canonical
from pbem.protocol.saveformat.savefile import Entry, Save
from pbem.protocol.state import headers
from pbem.terminal import printable

KEY_KINDS = ("create", "join")
# What a user may see of a refusal: one or two plain sentences on one line.
MAX_MESSAGE = 600
# Control characters and the Unicode marks that reorder or hide text (pbem.terminal).
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
SLOW_SECONDS = 30.0
BIG_RSS_MB = 1024


@dataclass
class Result:
    """One verification: the exit code ``pbem verify`` would give, and what it found."""

    code: int
    seconds: float
    message: str = ""
    error: str = ""  # the PbemError's code, or the exception's type
    trace: str = ""  # internal errors only
    meaning: str = ""  # accepted saves only
    verified: session.Verified | None = field(default=None, repr=False)
    parsed: Save | None = field(default=None, repr=False)  # the file as read, if it parsed


def verify_file(path: Path, home: Home) -> Result:
    start = time.perf_counter()
    parsed = None
    try:
        parsed = savefile.read(path)
        verified = session.verify(parsed, home)
    except PbemError as exc:
        return Result(exc.exit_code, time.perf_counter() - start, exc.message, exc.code,
                      parsed=parsed)
    except Exception as exc:  # noqa: BLE001 - exactly what the fuzzer looks for
        return Result(70, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"[:2000],
                      type(exc).__name__, traceback.format_exc()[-4000:], parsed=parsed)
    seconds = time.perf_counter() - start
    code = 3 if isinstance(verified.report.audit, list) else 0
    try:
        meant = meaning(verified)
    except Exception as exc:  # noqa: BLE001
        return Result(70, seconds, f"meaning: {type(exc).__name__}: {exc}", type(exc).__name__,
                      traceback.format_exc()[-4000:])
    return Result(code, seconds, meaning=meant, verified=verified, parsed=parsed)


def meaning(verified: session.Verified) -> str:
    """A digest of what a save says (see the module docstring)."""
    report, save = verified.report, verified.save
    table = report.table
    outcome = None if report.outcome is None else dict(vars(report.outcome))
    data = {
        "header": save.header,
        "entries": [[e["seq"], e["seat"], e["kind"], e["moves"]] for e in save.entries],
        "links": [e.get("beacon", "") for e in save.entries if e["kind"] not in KEY_KINDS],
        "keys": [s.pubkey for s in table.seats],
        "seeds": [s.seed for s in table.seats],
        "state": save.state,
        "gstate": table.gstate,
        "audit": report.audit,
        "outcome": outcome,
        "final": report.final,
    }
    text = json.dumps(data, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- homes -----------------------------------------------------------------------------------
class Homes:
    """Fresh homes, and homes that verified the first ``m`` entries of a history (made once
    by really verifying that save, then copied for each mutation)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._templates: dict[tuple[str, int], Path] = {}
        self._count = 0

    def fresh(self) -> Home:
        self._count += 1
        path = self.root / "run" / f"home-{self._count}"
        path.mkdir(parents=True)
        return Home(path)

    def after(self, history: History, m: int) -> Home:
        if m <= 0:
            return self.fresh()
        key = (history.name, m)
        if key not in self._templates:
            template = self.root / "templates" / f"{history.name}-{m}"
            if template.exists():
                shutil.rmtree(template)
            # Grown from the longest shorter template of the same game, as a player's home
            # grows save by save: its archive resumes the replay there.
            shorter = [k for k in self._templates if k[0] == history.name and k[1] < m]
            if shorter:
                shutil.copytree(self._templates[max(shorter)], template)
            session.verify(history.prefix(m), Home(template))
            self._templates[key] = template
        self._count += 1
        path = self.root / "run" / f"home-{self._count}"
        shutil.copytree(self._templates[key], path)
        return Home(path)

    def clean(self) -> None:
        shutil.rmtree(self.root / "run", ignore_errors=True)


def original_meaning(history: History, n: int) -> str:
    """The meaning of the original's first ``n`` entries (cached)."""
    if n not in history._meanings:
        history._meanings[n] = meaning(session.verify(history.prefix(n), None))
    return history._meanings[n]


def first_changed(mutation: Mutation, parsed: Save | None) -> int:
    """How many leading entries of the original the mutated file holds unchanged."""
    history, base = mutation.history, mutation.base
    if mutation.first_changed is not None:
        return mutation.first_changed
    if parsed is None:
        return max(0, base - 1)
    try:
        if canonical(parsed.header) != canonical(history.header):
            return 0
        for i, entry in enumerate(parsed.entries[:base]):
            if canonical(entry) != canonical(history.entries[i]):
                return i
    except (TypeError, ValueError):
        return 0
    return min(len(parsed.entries), base)


def archived_prefix(mutation: Mutation, parsed: Save | None) -> int:
    """How many entries of the original the second home verified before the mutated file
    came: the untouched prefix, or the previous save when that is longer (a player who
    received save n-1 and is now sent a save n whose earlier entries were edited: the
    archive vouches for the originals of the edited entries, and must not help them)."""
    untouched = first_changed(mutation, parsed)
    if mutation.first_changed is not None:
        claimed = len(parsed.entries) if parsed is not None else untouched + 1
        return max(untouched, min(claimed, len(mutation.history.entries)) - 1)
    claimed = len(parsed.entries) if parsed is not None else mutation.base
    return max(untouched, min(claimed, mutation.base) - 1)


# ---- judging -------------------------------------------------------------------------------
ACCEPTED_SAME = "accepted, same meaning"
ACCEPTED_ALTERNATIVE = "accepted, a legal alternative"
CHANGED = "accepted with a change of meaning"
# A shuffle pass or key point its signer's seed does not give: checked only once the seeds
# are public (the end-of-game audit names the entry; a verifiable shuffle is out of scope).
ACCEPTED_AUDITED = "accepted, left to the final audit"


def judge(mutation: Mutation, result: Result) -> tuple[str, str]:
    """("refused"|ACCEPTED_SAME|ACCEPTED_ALTERNATIVE|ACCEPTED_AUDITED|CHANGED, why) for an
    accepted save. A skip of beacon links is never accepted (PROTOCOL.md section 5: no
    skips without evidence, which no mutation carries), so an accepted one is CHANGED."""
    if result.code != 0 or result.verified is None:
        return "refused", ""
    save = result.verified.save
    history = mutation.history
    n = len(save.entries)
    if n <= len(history.entries) and result.meaning == original_meaning(history, n):
        return ACCEPTED_SAME, ""
    if not mutation.signer:
        return CHANGED, "a save changed without a signature was accepted with another meaning"
    honest = honest_alternative(mutation, save)
    if honest is None:
        return CHANGED, ("the changed entry was accepted, but its seat's own client would not "
                         "sign those moves there")
    alternative, honest_entry = honest
    if alternative == result.meaning:
        return ACCEPTED_ALTERNATIVE, ""
    if left_to_the_audit(mutation, save, honest_entry):
        return ACCEPTED_AUDITED, ""
    return CHANGED, ("the changed entry was accepted, but it differs from what its seat's own "
                     "client signs with those moves there")


# What a signature covers but no field of an entry is about: two signings differ there.
SIGNING_FIELDS = ("sig", "hash")


def left_to_the_audit(mutation: Mutation, save: Save, honest_entry: Entry) -> bool:
    """True if the accepted last entry differs from the honest one only in its secret-deck
    chores, in what no proof covers before the seeds are public (a shuffle pass's
    permutation and key point, a re-lock's key point: PROTOCOL.md sections 6 and 7), and
    the end-of-game audit, given the signer's seed, names that entry. Such a save is
    accepted mid-game by design; the fuzzer checks the audit would catch it."""
    last = save.entries[-1]
    plain = {k: v for k, v in last.items() if k not in SIGNING_FIELDS and k != "chores"}
    honest_plain = {k: v for k, v in honest_entry.items()
                    if k not in SIGNING_FIELDS and k != "chores"}
    if canonical(plain) != canonical(honest_plain) or last["chores"] == honest_entry["chores"]:
        return False
    table = headers.empty_table(copy.deepcopy(save.header))
    for entry in save.entries:
        table, _ = engine.step(table, entry, replay=True)
    seat = table.seat_of(mutation.signer)
    if seat is None:
        return False
    seed = signing.seat_seed(table, seat, mutation.history.keys[mutation.signer])
    table = headers.empty_table(copy.deepcopy(save.header))
    for entry in save.entries:
        table, _ = engine.step(table, entry, replay=True, audit_seeds={seat: seed})
    return any(line.startswith(f"entry {last['seq']} ") for line in table.findings)


def honest_alternative(mutation: Mutation, save: Save) -> tuple[str, Entry] | None:
    """The meaning of the save the last entry's seat would have signed with the same
    moves (and the same nonce and clock), if the rest of the history is the original's,
    and that entry; None if there is no such save."""
    history = mutation.history
    last = save.entries[-1]
    n = len(save.entries)
    if last["seat"] != mutation.signer or mutation.signer not in history.keys:
        return None
    same_header = canonical(save.header) == canonical(history.header)
    if not same_header and n != 1:
        return None
    if any(canonical(a) != canonical(b) for a, b in zip(save.entries[:-1], history.entries,
                                                         strict=False)):
        return None
    nonce = last.get("nonce")
    clock = last.get("time")
    try:
        with fixed_entropy("alternative",
                          nonce=bytes.fromhex(nonce) if isinstance(nonce, str) else None,
                          clock=clock if isinstance(clock, str) else "2025-06-02T10:00:00Z"):
            table = (headers.empty_table(copy.deepcopy(save.header)) if n == 1
                     else history.tables[n - 2])
            entry, new = signing.sign_entry(table, history.keys[mutation.signer], last["kind"],
                                           list(last["moves"]))
        honest = Save(copy.deepcopy(save.header), copy.deepcopy(save.entries[:-1]) + [entry],
                      engine.public_state(new))
        return meaning(session.verify(honest, None)), entry
    except PbemError:
        return None


# ---- messages ------------------------------------------------------------------------------
def message_problem(message: str) -> str:
    """Why a refusal's message is not one or two plain sentences on a line, or ''."""
    shown = printable(message)
    if "\n" in shown.strip():
        return "the message runs over several lines"
    if len(shown) > MAX_MESSAGE:
        return f"the message is {len(shown)} characters long"
    if "Traceback" in shown:
        return "the message holds a traceback"
    return ""


# ---- the command line ------------------------------------------------------------------------
def pbem_command() -> list[str]:
    script = Path(sys.executable).parent / "pbem"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from pbem.cli import main; main()"]


def run_cli(path: Path, home: Home, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_DEBUG", "PBEM_HOME")}
    done = subprocess.run([*pbem_command(), "--home", str(home.path), *args, str(path)],
                          capture_output=True, env=env, timeout=300, check=False)
    return (done.returncode, done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


def cli_problems(code: int, out: str, err: str, expected: int) -> list[str]:
    """What is wrong with one run of ``pbem verify`` on a mutated save."""
    problems = []
    if code != expected:
        problems.append(f"exit {code}, in-process {expected}")
    if "Traceback" in out + err:
        problems.append("a traceback on the terminal")
    if UNSAFE.search(out + err):
        problems.append("a control character on the terminal")
    if code not in (0, 3) or err.strip():
        lines = err.strip().splitlines()
        if code != 0 and not err.startswith("pbem: "):
            problems.append("stderr does not start with 'pbem: '")
        if len(lines) > 2 or len(err) > MAX_MESSAGE + 10:
            problems.append(f"stderr is {len(lines)} lines, {len(err)} characters")
    if code == 0 and "verified" not in out:
        problems.append("accepted without saying so")
    return problems
