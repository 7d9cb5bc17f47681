"""A hundred mutations of the fuzzer (fuzz/, ``make fuzz`` runs 10,000) on every test run,
on two processes: none may be accepted with a change of meaning, none may give a
traceback, the two homes (fresh, and one that verified the untouched prefix) must agree,
and every refusal must be a plain message. The planted-bug tests re-run the few mutations
that expose each planted bug, so they stay quick and can fail."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from fuzz import corpus as corpus_module
from fuzz import run
from fuzz.mutate import mutate
from pbem import tomltext

SEED = 20250602
COUNT = 100


def first(count: int, found: Iterator[int]) -> list[int]:
    """The first ``count`` indexes ``found`` yields: the search stops there (each
    mutation costs a parse and often a signature)."""
    return list(itertools.islice(found, count))


@pytest.fixture(scope="module")
def corpus() -> corpus_module.Corpus:
    return corpus_module.load()


@pytest.mark.heavy
def test_mutations_are_refused_or_keep_their_meaning(
        corpus: corpus_module.Corpus, tmp_path: Path) -> None:
    results = run.run(COUNT, SEED, jobs=2, cli_every=50, corpus=corpus, echo=None)
    summary = run.summarize(results, SEED, corpus, 0.0)
    written = run.write_findings(results, SEED, tmp_path)
    details = [f"#{r.index} {r.op} ({r.detail[:100]}): {c}: {d[:300]}"
               for r in results for c, d in r.findings]
    assert summary.clean, "\n".join(summary.lines + details + [f"reproducers: {written}"])
    # The sample reaches every outcome: each exit code, and saves accepted unchanged in
    # meaning (comments, key order) and as a legal alternative by their own signer.
    codes = Counter(r.fresh for r in results)
    assert {0, 1, 3, 4} <= set(codes), codes
    verdicts = Counter(r.verdict for r in results)
    assert verdicts["accepted, same meaning"] and verdicts["accepted, a legal alternative"]
    assert {r.family for r in results} == {"byte", "toml", "resign"}
    assert sum(1 for r in results if r.cli is not None) == COUNT // 50


def test_mutations_are_reproducible(corpus: corpus_module.Corpus) -> None:
    """Mutation i of a seed is the same every time (the reproducer files rely on it)."""
    for index in (0, 7, 123):
        one, two = mutate(corpus, SEED, index), mutate(corpus, SEED, index)
        assert (one.op, one.detail, one.raw) == (two.op, two.detail, two.raw)
    assert mutate(corpus, SEED, 1).raw != mutate(corpus, SEED + 1, 1).raw


def test_the_fuzzer_catches_a_verifier_that_skips_the_snapshot_check(
        corpus: corpus_module.Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the [state] no longer compared with the replay, hand-edited states are
    accepted with a new meaning, and the fuzzer says so (and would exit 1)."""
    from pbem.protocol.replay import engine

    real = engine.replay
    monkeypatch.setattr(engine, "replay",
                        lambda save, **kw: real(save, **{**kw, "check_snapshot": False}))
    # The first two mutations of this seed that cut the last entries and keep the [state]
    # they left (found by their description, so a change of the corpus cannot empty it).
    picked = first(2, (i for i in range(2000) if "(state kept)" in mutate(corpus, SEED, i).detail))
    assert len(picked) == 2
    results = [r for i in picked
               for r in run.run(1, SEED, jobs=1, cli_every=0, start=i, corpus=corpus, echo=None)]
    summary = run.summarize(results, SEED, corpus, 0.0)
    assert summary.counts.get("accepted with a change of meaning", 0) == 2, summary.lines
    assert not summary.clean


def test_the_fuzzer_catches_an_archive_that_vouches_for_what_it_never_saw(
        corpus: corpus_module.Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive shortcut of issue 8, planted back: a home that has verified a game
    skips the signature of any entry. The second home then accepts what a fresh home
    refuses, and the fuzzer says so."""
    from pbem.home.archive import Archive

    monkeypatch.setattr(Archive, "verified_at", lambda self, index, entry_hash: True)
    # The first four re-signed mutations of this seed that sign an entry with another
    # seat's key (found by their description, so a change of the corpus cannot empty it);
    # the second home meets the forged entry within its vouched prefix in some of them.
    picked = first(4, (i for i in range(2000)
                       if "signed with" in mutate(corpus, SEED, i, ("resign",)).detail))
    assert len(picked) == 4
    results = [r for i in picked
               for r in run.run(1, SEED, jobs=1, cli_every=0, start=i, corpus=corpus, echo=None,
                                families=("resign",))]
    summary = run.summarize(results, SEED, corpus, 0.0)
    assert summary.counts.get("homes disagree", 0) >= 1, summary.lines
    assert not summary.clean


def test_the_fuzzer_catches_a_crash(corpus: corpus_module.Corpus,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A verifier that crashes on some entry (a KeyError, not a PbemError) is an internal
    error, counted and reported."""
    from pbem.protocol.saveformat import savefile

    real = savefile.check_entry

    def crashing(entry: object, index: int) -> dict:
        if index == 2:
            raise KeyError("planted")
        return real(entry, index)

    def reaches_entry_2(raw: bytes) -> bool:
        try:
            return len(tomltext.loads(raw.decode("utf-8")).get("entry", [])) > 2
        except (UnicodeDecodeError, ValueError, RecursionError):
            return False  # refused by the parser before any entry is checked

    picked = first(3, (i for i in range(200) if reaches_entry_2(mutate(corpus, SEED, i).raw)))
    assert len(picked) == 3
    monkeypatch.setattr(savefile, "check_entry", crashing)
    results = [r for i in picked
               for r in run.run(1, SEED, jobs=1, cli_every=0, start=i, corpus=corpus, echo=None)]
    summary = run.summarize(results, SEED, corpus, 0.0)
    assert summary.counts.get("internal errors (tracebacks)", 0) == 3, summary.lines
    assert not summary.clean


def test_a_reversed_shuffle_pass_is_refused_at_once(corpus: corpus_module.Corpus) -> None:
    """Mutation 1112 of seed 1 reverses the starting cards the host's shuffle pass names
    in Road Master's create entry and re-signs it: refused in that entry, as the pass must
    name the cards the rules build, in order (docs/protocol-deck.md). A pass whose
    ciphertexts are reversed fails its proof in that entry
    (tests/test_mental_deck.py, test_cheat_shuffle_passes_are_checked)."""
    [result] = run.run(1, 1, jobs=1, cli_every=0, start=1112, corpus=corpus, echo=None)
    assert (result.op, result.verdict) == ("resign.field", "refused"), result
    assert "entry 0 chores.0.cards: reversed" in result.detail and not result.findings


def test_a_skip_of_beacon_links_is_always_refused(corpus: corpus_module.Corpus) -> None:
    """An entry re-signed with a later link of its seat's own chain (PROTOCOL.md section
    5: no skips without evidence, which no mutation carries) is refused, exit 3; the
    fuzzer has no verdict that accepts one."""
    def skips(index: int) -> bool:  # "entry K beacon: link N of the seat's chain instead of M"
        found = re.match(r"entry \d+ beacon: link (\d+) of the seat's chain instead of (\d+)",
                         mutate(corpus, 1, index).detail)
        return found is not None and found.group(1) != found.group(2)

    picked = first(2, (i for i in range(4000) if skips(i)))
    results = [r for i in picked
               for r in run.run(1, 1, jobs=1, cli_every=0, start=i, corpus=corpus, echo=None)]
    assert results and all(r.verdict == "refused" for r in results), results
    assert all(r.fresh == 3 for r in results), results
