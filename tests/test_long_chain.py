"""A chain never runs out (PROTOCOL.md section 5; docs/protocol-beacon.md): before its
last 64 links a seat's entry publishes a fresh anchor (field ``anchor``, derived from its
seed under the label "pbem/1/beacon-renewed"), and its next entry continues on that chain.
Before this rule a legal 8,194-entry pass loop exhausted a seat's 4,096 links, and play,
show and absent ended in an internal error (issue 21, finding 4).

A genuine game that long costs about 15 s to build and verify on this machine (8,250
entries: 7 s to sign, 8 s to verify, nearly all of it Ed25519), and every command on it
re-reads a 3.6 MB save. So the commands are run on games whose chains are made short by
a test hook (``short_chains``: 200 links; the margin of 127 unused links stays, so the fresh
anchor is due from link 73), and one solo game of 4,100 entries crosses the real 4,096-link chain
in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError
from pbem.home.archive import Archive
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.identity import Home, Identity
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import forge

SHORT = 200


@pytest.fixture
def short_chains(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test hook: chains of 200 links in this process only (a real save always has
    4,096; a save made here fails a real pbem's audit)."""
    beacon.forget_chains()
    monkeypatch.setattr(beacon, "CHAIN_LENGTH", SHORT)
    monkeypatch.setattr(beacon, "ANCHOR_ZONE", SHORT - 127)
    yield
    beacon.forget_chains()


class PassLoop:
    """A dice race played by passing, signed in process (``extend``) after a create, join
    and start written through pbem.session; ``write`` puts it in a file."""

    def __init__(self, root: Path, handles: tuple[str, ...], turns: int) -> None:
        self.root = root
        self.homes = {h: Home(root / "homes" / h) for h in handles}
        for handle, home in self.homes.items():
            home.keygen(handle)
        folder = root / "saves"
        folder.mkdir(parents=True)
        written = session.new_game(self.homes[handles[0]], "dice-race", list(handles),
                                   ["target=1000", f"turns={turns}"], None, folder=folder)
        for handle in handles[1:]:
            written = session.sign_next(self.homes[handle], written.path, "join", [], None, None)
        if len(handles) > 1:
            written = session.sign_next(self.homes[handles[0]], written.path, None, [], None,
                                        None)
        self.ids: dict[str, Identity] = {h: home.load() for h, home in self.homes.items()}
        self.header = written.save.header
        self.entries = list(written.save.entries)
        self.table = written.table

    def extend(self, count: int | None = None, used: dict[str, set[int]] | None = None) -> None:
        """``count`` more entries (passes, then the reveals), or all of them."""
        done = 0
        while (count is None or done < count) and (duty := self.table.duty()) is not None:
            handle = self.table.seats[duty.seat].handle
            moves = ["pass"] if duty.kind == "turn" else []
            entry, self.table = signing.sign_entry(self.table, self.ids[handle], duty.kind, moves,
                                                  used=(used or {}).get(handle, ()))
            self.entries.append(entry)
            done += 1

    def save(self) -> Save:
        return Save(self.header, list(self.entries), engine.public_state(self.table))

    def write(self, name: str) -> Path:
        path = self.root / "saves" / name
        path.write_text(savefile.dumps(self.save()), "utf-8")
        return path

    def run(self, handle: str | None, *args: str, env: dict[str, str] | None = None) -> Any:
        home = self.root / "homes" / (handle or "nobody")
        result = CliRunner().invoke(main, ["--home", str(home), *args], env=env)
        assert "Traceback" not in result.output and "internal error" not in result.output
        return result


def renewals(save: Save) -> list[dict[str, Any]]:
    return [e for e in save.entries if "anchor" in e]


def test_a_long_pass_loop_plays_shows_and_proposes_past_the_chain(
        short_chains: None, tmp_path: Path) -> None:
    """Each seat signs 270 entries on chains of 200 links: fresh anchors keep it going.
    show, play and absent all work through the command line, and the finished game's
    audit checks every anchor against its seed: clean."""
    game = PassLoop(tmp_path, ("ann", "bob"), turns=560)
    game.extend(540)
    path = game.write("long.toml")
    for handle in ("ann", "bob"):
        table = game.table
        record = table.seats[table.seat_of(handle)]  # type: ignore[index]
        assert record.links > SHORT and record.chain >= 2 and len(record.anchors) >= 2
        assert record.depth <= beacon.ANCHOR_ZONE  # no skips: the anchor's link at most
    to_act = game.table.seats[game.table.duty().seat].handle  # type: ignore[union-attr]
    other = next(h for h in ("ann", "bob") if h != to_act)
    shown = game.run(to_act, "show", str(path))
    assert shown.exit_code == 0, shown.output
    played = game.run(to_act, "play", str(path), "pass", "-o", str(tmp_path / "played.toml"))
    assert played.exit_code == 0, played.output
    # The other player proposes the one to act absent (dated later: patience).
    proposed = game.run(other, "absent", str(path), to_act, "--remedy", "end",
                        "-o", str(tmp_path / "absent.toml"),
                        env={"PBEM_CLOCK": "2025-08-01T10:00:00Z"})
    assert proposed.exit_code == 0, proposed.output
    # The game goes on from the played save to its end: passes, then both reveals.
    after = savefile.read(tmp_path / "played.toml")
    game.entries = list(after.entries)
    game.table = engine.replay(after).table
    used = {h: Archive(home.archive_dir, after.game_id).published(h)
            for h, home in game.homes.items()}
    game.extend(used=used)
    final = game.write("final.toml")
    report = json.loads(game.run(None, "verify", str(final), "--json").output)
    assert report["audit"] == "clean" and not report["to_act"], report
    assert len(renewals(game.save())) >= 4


def chain_game(tmp_path: Path, entries: int = 180) -> PassLoop:
    game = PassLoop(tmp_path, ("ann", "bob"), turns=400)
    game.extend(entries)
    return game


def first_renewal(game: PassLoop, handle: str = "bob") -> int:
    return next(i for i, e in enumerate(game.entries) if "anchor" in e and e["seat"] == handle)


def next_of(game: PassLoop, index: int) -> int:
    seat = game.entries[index]["seat"]
    return next(i for i in range(index + 1, len(game.entries))
                if game.entries[i]["seat"] == seat)


def test_a_wrong_fresh_anchor_is_refused(short_chains: None, tmp_path: Path) -> None:
    """bob's entry announces an anchor his next link does not descend from: exit 3."""
    game = chain_game(tmp_path)
    at = first_renewal(game)
    entries = [dict(e) for e in game.entries[:at + 1]]
    entries[at]["anchor"] = "ab" * 32
    entries[at] = forge(entries[at], game.ids["bob"])
    # The entries after it follow again (prev), each re-signed by its seat.
    for i in range(at + 1, next_of(game, at) + 1):
        entry = dict(game.entries[i])
        entry["prev"] = engine.entry_hash(entries[-1])
        entries.append(forge(entry, game.ids[entry["seat"]]))
    path = game.root / "saves" / "wrong.toml"
    path.write_text(savefile.dumps(Save(game.header, entries, game.save().state)), "utf-8")
    result = game.run(None, "verify", str(path))
    assert result.exit_code == 3, result.output
    assert "fresh chain whose anchor the seat published" in result.output


def resigned(game: PassLoop, entries: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """``entries[:index + 1]`` with the last one re-signed by its seat."""
    out = [dict(e) for e in entries[:index + 1]]
    out[index] = forge(out[index], game.ids[out[index]["seat"]])
    return out


@pytest.mark.parametrize("change", ["missing", "early", "twice"])
def test_an_anchor_missing_early_or_twice_is_refused(short_chains: None, tmp_path: Path,
                                                     change: str) -> None:
    game = chain_game(tmp_path)
    at = first_renewal(game)
    entries = [dict(e) for e in game.entries]
    if change == "missing":
        del entries[at]["anchor"]
        index, words = at, "without publishing a fresh anchor"
    elif change == "early":
        index = next(i for i, e in enumerate(entries) if e["seat"] == "bob" and e["kind"] == "turn")
        entries[index]["anchor"] = "cd" * 32
        words = "too early"
    else:
        index = next_of(game, at)
        entries[index]["anchor"] = entries[at]["anchor"]
        words = "one the seat published before"
    save = Save(game.header, resigned(game, entries, index), {})
    with pytest.raises(IntegrityError) as info:
        engine.replay(save, check_snapshot=False)
    assert info.value.exit_code == 3 and words in info.value.message
    assert info.value.code == "beacon"


@pytest.mark.parametrize("earlier", ["renewed", "joined"])
def test_a_fresh_anchor_published_before_is_refused_at_once(
        short_chains: None, tmp_path: Path, earlier: str) -> None:
    """PROTOCOL.md section 5: bob's second fresh anchor, due at the right link, equal to
    one he published before (his first fresh anchor, or the anchor he joined with), would
    let his links repeat links everyone has seen. Refused by the verifier at once (exit 3,
    code beacon), not left to the audit."""
    game = chain_game(tmp_path, 300)
    first = first_renewal(game)
    second = next(i for i in range(first + 1, len(game.entries))
                  if "anchor" in game.entries[i] and game.entries[i]["seat"] == "bob")
    entries = [dict(e) for e in game.entries]
    joined = next(e for e in entries if e["seat"] == "bob" and e["kind"] == "join")
    entries[second]["anchor"] = (entries[first]["anchor"] if earlier == "renewed"
                                 else joined["beacon"])
    save = Save(game.header, resigned(game, entries, second), {})
    with pytest.raises(IntegrityError) as info:
        engine.replay(save, check_snapshot=False, audit_secrets=False)
    assert info.value.code == "beacon" and info.value.exit_code == 3
    assert "one the seat published before" in info.value.message


def test_an_anchor_not_from_the_seed_is_named_by_the_audit(
        short_chains: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheating client starts bob's fresh chains from a secret of its own choosing (to
    steer chance): every link checks, but the audit, with bob's seed, names bob."""
    game = PassLoop(tmp_path, ("ann", "bob"), turns=300)
    honest = beacon._start
    table = game.table
    bob_seed = signing.seat_seed(table, table.seat_of("bob"), game.ids["bob"])  # type: ignore[arg-type]

    def cheat(seed: bytes, chain: int) -> bytes:
        return honest(seed[::-1] if seed == bob_seed and chain else seed, chain)

    monkeypatch.setattr(beacon, "_start", cheat)
    game.extend()
    monkeypatch.setattr(beacon, "_start", honest)
    beacon.forget_chains()
    path = game.write("cheat.toml")
    result = game.run(None, "verify", str(path))
    assert result.exit_code == 3, result.output
    assert "bob: the fresh beacon anchor bob published in entry" in result.output
    assert "ann: the fresh" not in result.output


@pytest.mark.heavy
def test_a_solo_game_crosses_the_real_4096_link_chain(tmp_path: Path) -> None:
    """The real constants, no hook: a solo pass loop of 4,100 entries (its one seat signs
    every entry) publishes its fresh anchor at link 3,969, goes on past 4,096, and the
    audit of the finished game is clean."""
    assert beacon.CHAIN_LENGTH == 4096 and beacon.ANCHOR_ZONE == 3969
    game = PassLoop(tmp_path, ("ann",), turns=4100)
    game.extend()
    save = game.save()
    (fresh,) = renewals(save)
    assert fresh["seq"] == 3969  # create is entry 0; entry k publishes link k
    report = engine.replay(save)
    record = report.table.seats[0]
    # The start, 4,100 turns and the reveal: 4,102 links, the last 133 on the fresh chain.
    assert record.links == len(save.entries) - 1 == 4102
    assert record.chain == 1 and record.depth == 4102 - 3969
    assert report.audit == "clean"


def test_a_fresh_chain_starts_from_the_seed_under_its_own_label() -> None:
    """Chain k >= 1 starts at HKDF(seed, "pbem/1/beacon-renewed" || k as 4 bytes); its
    anchor is 4,096 hashes on (docs/protocol-beacon.md), and chain 0 is unchanged."""
    import hashlib

    from pbem.protocol.crypto.derive import BEACON, derive

    seed = bytes(range(32))
    for chain, label in ((0, BEACON), (1, b"pbem/1/beacon-renewed\x00\x00\x00\x01"),
                         (2, b"pbem/1/beacon-renewed\x00\x00\x00\x02")):
        value = derive(seed, label, 32)
        for _ in range(4096):
            value = hashlib.sha256(value).digest()
        assert beacon.anchor(seed, chain) == value
        assert beacon.published(seed, 1, chain) != beacon.published(seed, 1, (chain + 1) % 3)


def test_two_claims_of_one_place_are_refused(tmp_path: Path) -> None:
    """Two pbem processes of one home cannot both sign at one place: the claim is made
    under the archive's lock, on the file as it is then."""
    from pbem.errors import TurnError

    first, second = Archive(tmp_path, "ab" * 16), Archive(tmp_path, "ab" * 16)
    first.claim("ann", 5)
    with pytest.raises(TurnError) as info:
        second.claim("ann", 5)
    assert info.value.code == "link-used"
    second.claim("ann", 6)
    assert Archive(tmp_path, "ab" * 16).published("ann") == {5, 6}
    assert Archive(tmp_path, "ab" * 16).data["published"]["ann"] == [[5, 6]]
