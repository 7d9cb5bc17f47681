"""``make fuzz``: mutate valid saves, verify each mutation twice, count, report.

    python -m fuzz.run [--count N] [--seed S] [--jobs J] [--cli-every K] [--index I]

Mutation ``i`` of seed ``S`` is the same on every run and machine, whatever ``--jobs``;
``--index I`` re-runs one mutation and prints everything about it. Every finding (a
mutated save accepted with a change of meaning, an internal error, two homes that
disagree, a message that is not one or two plain sentences, a CLI run that differs from
the in-process one, a verification slower than 30 s or a process above 1 GB) is written
to ``fuzz/findings/`` (git-ignored) as the mutated save plus a JSON file with the seed,
the index and the mutation, and the run exits 1.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz import corpus as corpus_module  # noqa: E402
from fuzz.mutate import Mutation, mutate  # noqa: E402
from fuzz.oracle import (  # noqa: E402
    BIG_RSS_MB,
    CHANGED,
    SLOW_SECONDS,
    Homes,
    Result,
    archived_prefix,
    cli_problems,
    judge,
    message_problem,
    run_cli,
    verify_file,
)

FINDINGS = ROOT / "fuzz" / "findings"
# A mutation whose whole handling (making it, two verifications, the judging, the CLI)
# takes longer than this is stopped and reported: a hang must not stall the run.
HANG_SECONDS = 180
# The counts that must be 0 (the run exits 1 otherwise).
MUST_BE_ZERO = ("accepted with a change of meaning", "internal errors (tracebacks)",
                "homes disagree", "messages not plain", "CLI differs or misbehaves",
                "too slow or too big", "fuzzer errors")


@dataclass
class Outcome:
    """What one mutation gave (small and picklable: it crosses process boundaries)."""

    index: int
    family: str
    op: str
    detail: str
    source: str
    prefix: int
    fresh: int
    archived: int
    verdict: str
    seconds: list[float]
    rss_mb: float
    findings: list[tuple[str, str]] = field(default_factory=list)
    cli: list[int] | None = None
    raw: bytes | None = None  # only with findings
    messages: list[str] = field(default_factory=list)


class Hung(BaseException):
    """Raised by the alarm: a BaseException, so no ``except Exception`` swallows it."""


class Worker:
    def __init__(self, corpus: corpus_module.Corpus, seed: int, cli_every: int, root: Path,
                 families: tuple[str, ...] = ()) -> None:
        self.corpus = corpus
        self.families = families
        self.seed = seed
        self.cli_every = cli_every
        self.homes = Homes(root)

    def run(self, index: int) -> Outcome:
        def hung(signum: int, frame: Any) -> None:
            raise Hung

        previous = signal.signal(signal.SIGALRM, hung)
        signal.alarm(HANG_SECONDS)
        try:
            return self._run(index)
        except Hung:
            self.homes.clean()
            return Outcome(index, "?", "?", "", "?", 0, -1, -1, "hung", [], _rss_mb(),
                           [("too slow or too big", f"mutation {index} took over "
                             f"{HANG_SECONDS} s: " + traceback.format_exc()[-2000:])])
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    def _run(self, index: int) -> Outcome:
        try:
            mutation = mutate(self.corpus, self.seed, index, self.families)
        except Exception:  # noqa: BLE001 - a bug in the fuzzer: say so, go on
            return Outcome(index, "?", "?", "", "?", 0, -1, -1, "fuzzer error", [], _rss_mb(),
                           [("fuzzer errors", traceback.format_exc()[-3000:])])
        try:
            return self.verify(index, mutation)
        except Exception:  # noqa: BLE001 - pbem failing on the untouched original
            self.homes.clean()
            return Outcome(index, mutation.family, mutation.op, mutation.detail,
                           f"{mutation.history.name}@{mutation.base}", 0, 70, 70, "crashed", [],
                           _rss_mb(), [("internal errors (tracebacks)",
                                        "while verifying or judging: " +
                                        traceback.format_exc()[-3000:])], raw=mutation.raw)

    def verify(self, index: int, mutation: Mutation) -> Outcome:
        run_dir = self.homes.root / "run"
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / f"mutation-{index}.toml"
        path.write_bytes(mutation.raw)
        fresh = verify_file(path, self.homes.fresh())
        prefix = archived_prefix(mutation, fresh.parsed)
        archived_home = self.homes.after(mutation.history, prefix)
        archived = verify_file(path, archived_home)
        verdict, why = judge(mutation, fresh)
        out = Outcome(index, mutation.family, mutation.op, mutation.detail,
                      f"{mutation.history.name}@{mutation.base}", prefix, fresh.code,
                      archived.code, verdict, [fresh.seconds, archived.seconds], _rss_mb(),
                      messages=[fresh.message, archived.message])
        out.findings = self.findings(mutation, prefix, fresh, archived, verdict, why)
        if self.cli_every and index % self.cli_every == 0:
            out.cli, problems = self.through_cli(path, mutation, prefix, fresh, archived)
            out.findings += [("CLI differs or misbehaves", p) for p in problems]
        if out.findings:
            out.raw = mutation.raw
        self.homes.clean()
        return out

    def findings(self, mutation: Mutation, prefix: int, fresh: Result, archived: Result,
                 verdict: str, why: str) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for label, result in (("fresh home", fresh), ("home that verified the prefix", archived)):
            if result.code == 70:
                found.append(("internal errors (tracebacks)", f"{label}: {result.message}\n"
                              f"{result.trace}"))
            elif result.code != 0:
                problem = message_problem(result.message)
                if problem:
                    found.append(("messages not plain", f"{label}: {problem}: "
                                  f"{result.message[:300]!r}"))
            if result.seconds > SLOW_SECONDS:
                found.append(("too slow or too big", f"{label}: {result.seconds:.1f} s"))
        if verdict == CHANGED:
            found.append(("accepted with a change of meaning", why))
        if archived.code == 0 and fresh.code == 0:
            second, why2 = judge(mutation, archived)
            if second == CHANGED and verdict != CHANGED:
                found.append(("accepted with a change of meaning", f"(the archived home) {why2}"))
        if fresh.code != archived.code:
            found.append(("homes disagree", f"fresh home exit {fresh.code} ({fresh.error}: "
                          f"{fresh.message[:200]}), home that verified entries 0-"
                          f"{prefix - 1} exit {archived.code} "
                          f"({archived.error}: {archived.message[:200]})"))
        elif fresh.code == 0 and fresh.meaning != archived.meaning:
            found.append(("homes disagree", "both accept, with different meanings"))
        if _rss_mb() > BIG_RSS_MB:
            found.append(("too slow or too big", f"process at {_rss_mb():.0f} MB"))
        return found

    def through_cli(self, path: Path, mutation: Mutation, prefix: int, fresh: Result,
                    archived: Result) -> tuple[list[int], list[str]]:
        codes, problems = [], []
        for label, home, expected in (
                ("fresh home", self.homes.fresh(), fresh.code),
                ("home that verified the prefix", self.homes.after(mutation.history, prefix),
                 archived.code)):
            code, out, err = run_cli(path, home, "verify")
            codes.append(code)
            problems += [f"{label}: {p}: {err.strip()[:300]!r}"
                         for p in cli_problems(code, out, err, expected)]
        return codes, problems


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- running many ------------------------------------------------------------------------------
_WORKER: Worker | None = None


def _init(corpus: corpus_module.Corpus, seed: int, cli_every: int, root: str,
          families: tuple[str, ...]) -> None:
    global _WORKER
    _WORKER = Worker(corpus, seed, cli_every, Path(tempfile.mkdtemp(dir=root)), families)


def _one(index: int) -> Outcome:
    assert _WORKER is not None
    return _WORKER.run(index)


def run(count: int, seed: int, jobs: int, cli_every: int, start: int = 0,
        corpus: corpus_module.Corpus | None = None, echo: Any = None,
        families: tuple[str, ...] = (), findings: Path | None = None) -> list[Outcome]:
    """Mutations ``start`` .. ``start + count - 1``; each finding's reproducer is written
    to ``findings`` (if given) as soon as it is found."""
    corpus = corpus or corpus_module.load(echo=echo)
    root = tempfile.mkdtemp(prefix="pbem-fuzz-")
    indices = range(start, start + count)
    results: list[Outcome] = []
    began = time.perf_counter()
    try:
        if jobs <= 1:
            _init(corpus, seed, cli_every, root, families)
            iterator: Any = map(_one, indices)
            pool = None
        else:
            pool = multiprocessing.get_context("fork").Pool(
                jobs, initializer=_init, initargs=(corpus, seed, cli_every, root, families))
            iterator = pool.imap(_one, indices, chunksize=4)
        for outcome in iterator:
            results.append(outcome)
            if outcome.findings and findings is not None:
                write_findings([outcome], seed, findings, families)
            done = len(results)
            if echo and done % 500 == 0:
                echo(f"  {done}/{count} mutations, {time.perf_counter() - began:.0f} s, "
                     f"findings so far: {sum(1 for r in results if r.findings)}")
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


@dataclass
class Summary:
    lines: list[str]
    counts: dict[str, int]

    @property
    def clean(self) -> bool:
        return all(self.counts.get(name, 0) == 0 for name in MUST_BE_ZERO)


def summarize(results: list[Outcome], seed: int, corpus: corpus_module.Corpus,
              seconds: float) -> Summary:
    families = Counter(r.family for r in results)
    fresh = Counter(r.fresh for r in results)
    archived = Counter(r.archived for r in results)
    verdicts = Counter(r.verdict for r in results)
    counts: Counter[str] = Counter()
    for r in results:
        for category in {c for c, _ in r.findings}:
            counts[category] += 1
    times = [(s, r.index) for r in results for s in r.seconds]
    median = statistics.median(s for s, _ in times) if times else 0.0
    slowest = max(times) if times else (0.0, -1)
    rss = max(results, key=lambda r: r.rss_mb) if results else None
    cli_runs = [r for r in results if r.cli is not None]
    games = sorted({h.game for h in corpus.histories})

    def hist(counter: Counter[int]) -> str:
        return ", ".join(f"{code}: {n}" for code, n in sorted(counter.items()))

    mix = ", ".join(f"{f} {n}" for f, n in sorted(families.items()))
    lines = [
        f"pbem fuzz, seed {seed}: {len(results)} mutations ({mix})"
        f" of {len(corpus.inputs)} saves of {len(games)} games ({', '.join(games)}), {seconds:.0f} s",
        f"  exit codes, fresh home:                 {hist(fresh)}",
        f"  exit codes, home that verified prefix:  {hist(archived)}",
        f"  refused: {verdicts['refused']}; accepted, same meaning: "
        f"{verdicts['accepted, same meaning']}; accepted, a legal alternative by its own "
        f"signer: {verdicts['accepted, a legal alternative']}; accepted, a shuffle pass or "
        f"key point the final audit names: {verdicts['accepted, left to the final audit']}",
    ]
    for name in MUST_BE_ZERO:
        lines.append(f"  {name + ':':<40} {counts.get(name, 0)}   (must be 0)")
    lines.append(f"  CLI sample: {len(cli_runs)} mutations x 2 homes through 'pbem verify' in a "
                 "subprocess (exit code, stderr, terminal)")
    lines.append(f"  verify time: median {median * 1000:.0f} ms, max {slowest[0] * 1000:.0f} ms "
                 f"(mutation {slowest[1]}); max memory (peak RSS of a verifying process): "
                 f"{rss.rss_mb if rss else 0:.0f} MB")
    by_op: dict[str, Counter[Any]] = defaultdict(Counter)
    for r in results:
        by_op[r.op][r.fresh] += 1
        if r.verdict != "refused":
            by_op[r.op][r.verdict] += 1
    lines.append("  by mutation (fresh home exit codes; accepted ones by verdict):")
    for op in sorted(by_op):
        parts = ", ".join(f"{k}: {v}" for k, v in sorted(by_op[op].items(), key=lambda kv: str(kv[0])))
        lines.append(f"    {op:<28} {sum(v for k, v in by_op[op].items() if isinstance(k, int)):5}  {parts}")
    return Summary(lines, dict(counts))


def write_findings(results: list[Outcome], seed: int, folder: Path = FINDINGS,
                   families: tuple[str, ...] = ()) -> list[Path]:
    written = []
    flags = "".join(f" --family {f}" for f in families)
    for r in results:
        if not r.findings or r.raw is None:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"seed{seed}-{r.index:06d}"
        stem.with_suffix(".toml").write_bytes(r.raw)
        stem.with_suffix(".json").write_text(json.dumps({
            "seed": seed, "index": r.index, "family": r.family, "mutation": r.op,
            "detail": r.detail, "source": r.source, "untouched_prefix": r.prefix,
            "exit_fresh": r.fresh, "exit_home_with_prefix": r.archived, "verdict": r.verdict,
            "messages": r.messages, "findings": [{"category": c, "detail": d} for c, d in r.findings],
            "reproduce": f"python -m fuzz.run --seed {seed} --index {r.index}{flags}",
        }, indent=2, ensure_ascii=True) + "\n")
        written.append(stem.with_suffix(".toml"))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000, help="mutations (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--start", type=int, default=0, help="first mutation index")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes (default: 2, or 1 on one core)")
    parser.add_argument("--cli-every", type=int, default=100,
                        help="every K-th mutation also through the CLI (0: never)")
    parser.add_argument("--family", action="append", choices=["byte", "toml", "resign"],
                        help="only these families of mutation (repeatable; default all)")
    parser.add_argument("--index", type=int, help="re-run one mutation and show it")
    args = parser.parse_args(argv)
    families = tuple(args.family or ())
    if args.index is not None:
        return show_one(args.seed, args.index, families)
    began = time.perf_counter()
    corpus = corpus_module.load(echo=_say)
    shutil.rmtree(FINDINGS, ignore_errors=True)
    results = run(args.count, args.seed, args.jobs, args.cli_every, args.start, corpus, _say,
                  families, FINDINGS)
    summary = summarize(results, args.seed, corpus, time.perf_counter() - began)
    print("\n".join(summary.lines))
    written = sorted(FINDINGS.glob("*.toml")) if FINDINGS.exists() else []
    if written:
        print(f"{len(written)} reproducers in {FINDINGS.relative_to(ROOT)}/ "
              f"(python -m fuzz.run --seed {args.seed} --index I re-runs one)")
        for r in results:
            for category, detail in r.findings[:1]:
                print(f"  #{r.index} {r.op} ({r.detail[:80]}): {category}: {detail.splitlines()[0][:200]}")
    return 0 if summary.clean else 1


def _say(text: str) -> None:
    print(text, flush=True)


def show_one(seed: int, index: int, families: tuple[str, ...] = ()) -> int:
    corpus = corpus_module.load(echo=_say)
    root = Path(tempfile.mkdtemp(prefix="pbem-fuzz-"))
    try:
        worker = Worker(corpus, seed, 1, root, families)
        r = worker.run(index)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"mutation {index} of seed {seed}: {r.op} on {r.source}: {r.detail}")
    print(f"  untouched prefix: {r.prefix} entries")
    print(f"  fresh home: exit {r.fresh}; home that verified the prefix: exit {r.archived}; "
          f"CLI: {r.cli}; verdict: {r.verdict}")
    for message in r.messages:
        if message:
            print(f"  message: {message[:500]}")
    for category, detail in r.findings:
        print(f"  FINDING {category}: {detail}")
    return 1 if r.findings else 0


if __name__ == "__main__":
    sys.exit(main())
