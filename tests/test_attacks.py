"""The attacks of issue 8, each replayed by someone who holds the source, their own key and
every save they received, and each refused with its documented exit code.

Named after the attack, so a reader looking for one finds its test here."""

from __future__ import annotations

import contextlib
import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fuzz.mutate import keys_reversed
from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.derive import seed_commitment
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from pbem.protocol.saveformat.savefile import Save
from pbem.protocol.state import headers
from pbem.registry import load as load_game
from tests.enginekit import forge, play_game


def same_key_fresh_home(home: Home, where: Path) -> Home:
    """The same identity (key) in a home that has seen nothing."""
    fresh = Home(where)
    where.mkdir(parents=True)
    for name in ("identity.pem", "identity.toml"):
        shutil.copy(home.path / name, where / name)
    return fresh


def host_reuses_game_id(host: Home, old: Save, handles: list[str], folder: Path,
                        options: list[str] | None = None) -> Path:
    """A cheating host's own code: a new game carrying a finished game's id."""
    game = load_game(old.ruleset)
    header = headers.new_header(game, [(h, "") for h in handles],
                               headers.parse_options(game, options or []))
    header["id"] = old.game_id
    header["created"] = "2030-01-01T00:00:00Z"  # another game, another header
    table = headers.empty_table(header)
    entry, table = signing.sign_entry(table, host.load(), "create")
    path = folder / "reused.toml"
    path.write_text(savefile.dumps(session.appended(Save(header, []), entry, table)), "utf-8")
    return path


def revealed_seeds(save: Save) -> dict[str, bytes]:
    return {e["seat"]: bytes.fromhex(e["seed"]) for e in save.entries if e["kind"] == "reveal"}


# ---- Critical: a re-used game id -----------------------------------------------------------
@pytest.fixture
def finished(homes: dict[str, Home], tmp_path: Path) -> Save:
    paths = play_game({h: homes[h] for h in ("ann", "bob")}, tmp_path / "old")
    save = savefile.read(paths[-1])
    assert set(revealed_seeds(save)) == {"ann", "bob"}, "the old game's seeds are public"
    return save


def test_attack_reused_game_id_joiner_who_saw_the_old_game_refuses(
        homes: dict[str, Home], finished: Save, tmp_path: Path) -> None:
    """The host re-uses a finished game's id; bob's home saw that game and refuses to join
    (exit 3), writing nothing."""
    invite = host_reuses_game_id(homes["ann"], finished, ["ann", "bob"], tmp_path)
    with pytest.raises(IntegrityError) as info:
        session.sign_next(homes["bob"], invite, "join", [], None, str(tmp_path / "j.toml"))
    assert info.value.code == "game-id-reused"
    assert not (tmp_path / "j.toml").exists()
    r = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "join", str(invite),
                                  "-o", str(tmp_path / "j.toml")])
    assert r.exit_code == 3, r.output
    assert "already seen another game with the id" in r.stderr
    assert not (tmp_path / "j.toml").exists()
    # verify says so too, without refusing to read the save.
    r = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "verify", str(invite)])
    assert r.exit_code == 0 and "already seen another game" in r.output


def test_attack_reused_game_id_with_the_old_header_is_a_fork(
        homes: dict[str, Home], finished: Save, tmp_path: Path) -> None:
    """The host copies the old header byte for byte and signs a new create entry: bob's
    home holds ann's old create after the same header, so the new one is a fork."""
    table = headers.empty_table(finished.header)
    entry, table = signing.sign_entry(table, homes["ann"].load(), "create")
    invite = tmp_path / "copy.toml"
    invite.write_text(savefile.dumps(session.appended(Save(finished.header, []), entry, table)))
    with pytest.raises(IntegrityError) as info:
        session.sign_next(homes["bob"], invite, "join", [], None, str(tmp_path / "j.toml"))
    assert info.value.code == "fork"


def test_attack_reused_game_id_fresh_home_same_key_gets_an_unpredictable_seed(
        homes: dict[str, Home], finished: Save, tmp_path: Path) -> None:
    """bob joins from a fresh home with the same key: the join goes through, but the
    host's prediction of bob's seed (his seed revealed in the old game) is wrong."""
    old_bob = revealed_seeds(finished)["bob"]
    invite = host_reuses_game_id(homes["ann"], finished, ["ann", "bob"], tmp_path)
    bob = same_key_fresh_home(homes["bob"], tmp_path / "bob-fresh")
    joined = session.sign_next(bob, invite, "join", [], None, str(tmp_path / "j.toml"))
    entry = joined.entry
    assert entry["pubkey"] == homes["bob"].load().public_hex, "the same key joined"
    assert entry["nonce"] != next(e["nonce"] for e in finished.entries if e["seat"] == "bob")
    # The host's prediction from the old reveal fails: commitment, anchor and every link.
    assert entry["seed_commit"] != seed_commitment(old_bob)
    assert entry["beacon"] != beacon.published(old_bob, 0).hex()
    record = joined.table.seats[1]
    new_seed = signing.seat_seed(joined.table, 1, bob.load())
    assert new_seed != old_bob and seed_commitment(new_seed) == record.seed_commit
    # And ann's next link, hence the start's randomness, is not known to the host from bob.
    assert beacon.published(old_bob, 1) != beacon.published(new_seed, 1)


def test_a_home_refuses_to_create_a_game_id_it_has_seen(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a broken random generator repeats an id; the home notices and writes nothing."""
    from pbem.protocol.crypto import entropy

    (tmp_path / "s").mkdir()
    monkeypatch.setattr(entropy, "fresh_bytes", lambda n: b"\x07" * n)
    session.new_game(homes["ann"], "dice-race", ["ann", "bob"], [], None, folder=tmp_path / "s")
    with pytest.raises(IntegrityError) as info:
        session.new_game(homes["ann"], "dice-race", ["ann", "bob"], [],
                         str(tmp_path / "again.toml"))
    assert info.value.code == "game-id-reused"
    assert not (tmp_path / "again.toml").exists()


def test_a_save_without_nonces_is_malformed(homes: dict[str, Home], tmp_path: Path) -> None:
    """A create/join entry with no nonce (or a bad one) is a malformed save, exit 4."""
    path = play_game(homes, tmp_path / "s", stop_after=2)[-1]
    text = path.read_text("utf-8")
    line = next(t for t in text.splitlines() if t.startswith("nonce = "))
    for changed in (text.replace(line + "\n", "", 1), text.replace(line, 'nonce = "abc"', 1)):
        bad = tmp_path / "old.toml"
        bad.write_text(changed, "utf-8")
        r = CliRunner().invoke(main, ["--home", str(tmp_path / "v"), "verify", str(bad)])
        assert r.exit_code == 4, r.output
        assert "'nonce'" in r.stderr and "older pbem" not in r.stderr


# ---- High: the archive shortcut skipped the checks ---------------------------------------
def _renumbered(entries: list[dict], homes: dict[str, Home], header: dict) -> list[dict]:
    """Re-chain and re-sign every entry after a change, each with its own seat's key (as
    if every player conspired): only the archive's verified hashes can stop it then."""
    out = []
    head = digest(header)
    for seq, entry in enumerate(entries):
        entry = dict(entry, seq=seq, prev=head)
        entry = forge(entry, homes[entry["seat"]].load())
        head = digest(entry)
        out.append(entry)
    return out


def tampers(save: Save, homes: dict[str, Home]) -> dict[str, list[dict]]:
    """Earlier entries edited, dropped, swapped or re-ordered; the last entry untouched."""
    entries = copy.deepcopy(save.entries)
    turn = next(i for i, e in enumerate(entries) if e["kind"] == "turn" and i > 4)
    edited = copy.deepcopy(entries)
    edited[turn]["moves"] = ["pass"] if edited[turn]["moves"] == ["roll"] else ["roll"]
    edited_signed = copy.deepcopy(edited)
    edited_signed[turn] = forge(edited_signed[turn], homes[edited[turn]["seat"]].load())
    swapped = copy.deepcopy(entries)
    swapped[turn], swapped[turn + 1] = swapped[turn + 1], swapped[turn]
    rechained = _renumbered(swapped[:-1], homes, save.header)
    return {
        "edit": edited,
        "edit re-signed by its author": edited_signed,
        "drop": entries[:turn] + entries[turn + 1:],
        "swap": swapped,
        "swap renumbered and re-signed": rechained + [entries[-1]],
        "reorder": entries[:turn] + entries[turn + 2:-1] + entries[turn:turn + 2] + entries[-1:],
    }


@pytest.fixture
def verified_prefix(homes: dict[str, Home], tmp_path: Path) -> tuple[Path, Home, str]:
    """A game in progress whose last save the next player's home has verified."""
    paths = play_game(homes, tmp_path / "saves", options=["target=1000000"], stop_after=12)
    table = session.load(paths[-1], homes["ann"]).table
    duty = table.duty()
    assert duty is not None and duty.kind == "turn"
    actor = table.seats[duty.seat].handle
    session.load(paths[-1], homes[actor])
    return paths[-1], homes[actor], actor


@pytest.mark.parametrize("tamper", ["edit", "edit re-signed by its author", "drop", "swap",
                                    "swap renumbered and re-signed", "reorder"])
def test_attack_archive_shortcut_tampered_earlier_entry_is_refused(
        tamper: str, verified_prefix: tuple[Path, Home, str], homes: dict[str, Home],
        tmp_path: Path) -> None:
    """The home verified the honest save; an earlier entry of the file in hand is changed
    (last entry and [state] untouched): verify, log and play all refuse it, exit 3."""
    path, home, actor = verified_prefix
    save = savefile.read(path)
    forged = Save(save.header, tampers(save, homes)[tamper], save.state)
    assert forged.entries[-1] == save.entries[-1] and forged.state == save.state
    bad = tmp_path / "forged.toml"
    bad.write_text(savefile.dumps(forged), "utf-8")
    with pytest.raises(IntegrityError):
        session.verify(savefile.read(bad), home)
    runner = CliRunner()
    for args in (["verify", str(bad)], ["verify", "--json", str(bad)], ["log", str(bad)],
                 ["play", str(bad), "roll", "-o", str(tmp_path / "next.toml")]):
        r = runner.invoke(main, ["--home", str(home.path), *args])
        assert r.exit_code == 3, (args, r.output)
        assert "Traceback" not in r.output
    assert not (tmp_path / "next.toml").exists()
    # The honest save still verifies incrementally in that home.
    again = session.verify(save, home)
    assert again.report.checked_from == len(save.entries)


# ---- High: seats bound to keys -------------------------------------------------------------
SMALL_ORDER = [  # the 8 points of small order of edwards25519, canonically encoded
    "0100000000000000000000000000000000000000000000000000000000000000",  # identity
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
    "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
    "0000000000000000000000000000000000000000000000000000000000000080",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
]
NON_CANONICAL = [
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p (= 0)
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1 (= 1)
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  # the same, x "-0"
    "0100000000000000000000000000000000000000000000000000000000000080",  # identity, x "-0"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
]
IDENTITY_SIG = bytes.fromhex(SMALL_ORDER[0]) + bytes(32)


def test_weak_and_non_canonical_keys_are_not_sound(homes: dict[str, Home]) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from pbem.protocol.crypto import edkeys

    for raw in SMALL_ORDER + NON_CANONICAL:
        assert not edkeys.is_sound_key(bytes.fromhex(raw)), raw
    for raw in SMALL_ORDER:
        point = edkeys.decode(bytes.fromhex(raw))
        assert point is not None and edkeys._is_identity(edkeys._times(point, 8))
    for home in homes.values():
        key = home.load().public_raw
        assert edkeys.is_sound_key(key)
        # A sound key plus a point of order 2: on the curve, but not of prime order.
        mixed = edkeys._add(edkeys.decode(key), edkeys.decode(bytes.fromhex(SMALL_ORDER[1])))
        assert not edkeys.is_sound_key(_encode(mixed))
    # Why it matters: under the identity key, one signature passes for every message.
    weak = Ed25519PublicKey.from_public_bytes(bytes.fromhex(SMALL_ORDER[0]))
    for message in (b"bob rolls", b"bob resigns"):
        weak.verify(IDENTITY_SIG, message)


def test_the_compiled_key_check_and_the_python_one_agree(homes: dict[str, Home],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A key is checked by libsodium's compiled test when PyNaCl's module loads (it does
    here), by our Python one otherwise; both give the same answer on every weak,
    non-canonical, mixed-order and sound key, and on random bytes."""
    import hashlib

    from pbem.protocol.crypto import edkeys

    compiled = edkeys._compiled_check()
    assert compiled is not None, "the fast path is what runs on this install"

    def point(raw: bytes) -> tuple[int, int, int, int]:
        decoded = edkeys.decode(raw)
        assert decoded is not None
        return decoded

    sound = [home.load().public_raw for home in homes.values()]
    torsion = [point(bytes.fromhex(raw)) for raw in SMALL_ORDER[1:]]  # all but the identity
    mixed = [_encode(edkeys._add(point(key), t)) for key in sound for t in torsion]
    triples = [_encode(edkeys._times(point(key), 3)) for key in sound]
    weak = [bytes.fromhex(r) for r in SMALL_ORDER + NON_CANONICAL] + mixed
    assert len(mixed) == 7 * len(sound)
    assert [compiled(raw) for raw in sound + triples + weak] == (
        [True] * 2 * len(sound) + [False] * len(weak))
    # Random bytes: about half are points, an eighth of those of prime order.
    stream = [hashlib.sha256(b"key %d" % i).digest() for i in range(400)]
    assert 10 < sum(map(compiled, stream)) < 50
    cases = sound + triples + weak + stream
    for raw in cases:
        assert compiled(raw) == edkeys.is_sound_key_in_python(raw), raw.hex()
    # Anything but 32 bytes is refused before libsodium reads it.
    for raw in (b"", sound[0][:31], sound[0] + b"\x00"):
        assert not edkeys.is_sound_key(raw)

    # is_sound_key itself goes the compiled way: the Python check is not called.
    def not_called(raw: bytes) -> bool:
        raise AssertionError("the Python check ran")

    monkeypatch.setattr(edkeys, "is_sound_key_in_python", not_called)
    edkeys.is_sound_key.cache_clear()
    assert edkeys.is_sound_key(sound[0]) and not edkeys.is_sound_key(weak[0])
    monkeypatch.undo()

    # Without PyNaCl's module, the Python check runs and gives the same answers.
    def missing(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(edkeys.importlib, "import_module", missing)
    edkeys._compiled_check.cache_clear()
    edkeys.is_sound_key.cache_clear()
    try:
        assert edkeys._compiled_check() is None
        assert [edkeys.is_sound_key(raw) for raw in cases] == [compiled(raw) for raw in cases]
    finally:
        monkeypatch.undo()
        edkeys._compiled_check.cache_clear()
        edkeys.is_sound_key.cache_clear()
    assert edkeys._compiled_check() is not None


def _encode(point: tuple[int, int, int, int]) -> bytes:
    from pbem.protocol.crypto import edkeys

    x, y, z, _ = point
    zi = pow(z, edkeys.P - 2, edkeys.P)
    x, y = x * zi % edkeys.P, y * zi % edkeys.P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _invitation(homes: dict[str, Home], folder: Path, seats: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return session.new_game(homes["ann"], "dice-race", seats, [], None, folder=folder).path


def _join_entry(save: Save, handle: str, pubkey: str) -> dict:
    return {"seq": len(save.entries), "game": save.game_id, "seat": handle, "kind": "join",
            "prev": digest(save.entries[-1]), "moves": [], "chores": [], "pubkey": pubkey,
            "nonce": "11" * 32, "seed_commit": "22" * 32, "beacon": "33" * 32}


def _verify_cli(home: Path, save: Save, tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "crafted.toml"
    path.write_text(savefile.dumps(save), "utf-8")
    r = CliRunner().invoke(main, ["--home", str(home), "verify", "--json", str(path)])
    import json

    return r.exit_code, json.loads(r.output)["errors"][0]["code"]


def test_attack_weak_key_join_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    """bob joins with the identity point as his key and the one signature that passes for
    anything: then anyone could sign bob's turns. Refused, exit 3 (weak-key)."""
    invite = savefile.read(_invitation(homes, tmp_path / "s", ["ann", "bob"]))
    entry = _join_entry(invite, "bob", SMALL_ORDER[0])
    entry["sig"] = IDENTITY_SIG.hex()
    crafted = Save(invite.header, invite.entries + [entry], {})
    with pytest.raises(IntegrityError) as info:
        session.verify(crafted, Home(tmp_path / "v"))
    assert info.value.code == "weak-key" and "weak key" in info.value.message
    assert _verify_cli(tmp_path / "v2", crafted, tmp_path) == (3, "weak-key")


def test_attack_one_key_on_two_seats_is_refused(homes: dict[str, Home], tmp_path: Path) -> None:
    """ann takes bob's seat too, with her own key: exit 3 (key-reused)."""
    invite = savefile.read(_invitation(homes, tmp_path / "s", ["ann", "bob"]))
    ann = homes["ann"].load()
    crafted = Save(invite.header,
                   invite.entries + [forge(_join_entry(invite, "bob", ann.public_hex), ann)], {})
    with pytest.raises(IntegrityError) as info:
        session.verify(crafted, Home(tmp_path / "v"))
    assert info.value.code == "key-reused"
    assert _verify_cli(tmp_path / "v2", crafted, tmp_path) == (3, "key-reused")
    # A home called bob holding ann's key is stopped before it signs anything.
    twin = same_key_fresh_home(homes["ann"], tmp_path / "twin")
    (twin.path / "identity.toml").write_text(
        (twin.path / "identity.toml").read_text().replace('"ann"', '"bob"'))
    r = CliRunner().invoke(main, ["--home", str(twin.path), "join", str(tmp_path / "s" /
                                  next(p.name for p in (tmp_path / "s").iterdir())),
                                  "-o", str(tmp_path / "j.toml")])
    assert r.exit_code == 3 and "already holds ann's seat" in r.stderr
    assert not (tmp_path / "j.toml").exists()


def test_attack_impostor_takes_a_pinned_seat(homes: dict[str, Home], tmp_path: Path) -> None:
    """ann knows bob from an earlier game, so 'new' pins bob's key in the header; an
    impostor calling himself bob cannot join (exit 3, key-pinned), nor can a crafted save."""
    play_game({"ann": homes["ann"], "bob": homes["bob"]}, tmp_path / "earlier", stop_after=3)
    runner = CliRunner()
    first = tmp_path / "g0.toml"
    r = runner.invoke(main, ["--home", str(homes["ann"].path), "new", "dice-race", "--seat",
                             "ann", "--seat", "bob", "--seat", "cy", "-o", str(first)])
    assert r.exit_code == 0, r.output
    assert "pinned" in r.output and homes["bob"].load().fingerprint in r.output
    header = savefile.read(first).header
    assert header["seats"][1]["key"] == homes["bob"].load().public_hex
    assert header["seats"][0]["key"] == homes["ann"].load().public_hex
    assert "key" not in header["seats"][2], "cy is unknown to ann: not pinned"
    impostor = Home(tmp_path / "impostor")
    impostor.keygen("bob")
    r = runner.invoke(main, ["--home", str(impostor.path), "join", str(first),
                             "-o", str(tmp_path / "j.toml")])
    assert r.exit_code == 3 and "pinned" in r.stderr, r.output
    assert not (tmp_path / "j.toml").exists()
    invite = savefile.read(first)
    fake = impostor.load()
    crafted = Save(invite.header, invite.entries + [forge(_join_entry(invite, "bob",
                                                                      fake.public_hex), fake)], {})
    assert _verify_cli(tmp_path / "v", crafted, tmp_path) == (3, "key-pinned")
    # The real bob joins as usual.
    r = runner.invoke(main, ["--home", str(homes["bob"].path), "join", str(first)])
    assert r.exit_code == 0, r.output


def test_attack_impostor_in_an_unpinned_seat_stops_the_next_signer(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Nobody pinned bob (the host did not know him); an impostor joins as bob. cy, who
    knows the real bob, is stopped at join (exit 3, nothing written) until cy accepts
    the key; the host, who learnt the real bob meanwhile, is stopped at the start."""
    play_game({"cy": homes["cy"], "bob": homes["bob"]}, tmp_path / "earlier", stop_after=3)
    runner = CliRunner()

    def run(home: Path, *args: str) -> object:
        return runner.invoke(main, ["--home", str(home), *args])

    first = tmp_path / "g0.toml"
    assert run(homes["ann"].path, "new", "dice-race", "--seat", "ann", "--seat", "bob",
               "--seat", "cy", "-o", str(first)).exit_code == 0
    assert "key" not in savefile.read(first).header["seats"][1]
    impostor = Home(tmp_path / "impostor")
    impostor.keygen("bob")
    r = run(impostor.path, "join", str(first), "-o", str(tmp_path / "1.toml"))
    assert r.exit_code == 0, r.output
    assert "ann" in r.output and "new" in r.output and "you" in r.output
    r = run(homes["cy"].path, "join", str(tmp_path / "1.toml"), "-o", str(tmp_path / "2.toml"))
    assert r.exit_code == 3, r.output
    assert "--accept-key bob" in r.stderr and "someone else" in r.stderr
    assert not (tmp_path / "2.toml").exists()
    r = run(homes["cy"].path, "join", str(tmp_path / "1.toml"), "-o", str(tmp_path / "2.toml"),
            "--accept-key", "bob")
    assert r.exit_code == 0, r.output
    assert "CHANGED" in r.output and impostor.load().fingerprint in r.output
    # ann learns the real bob elsewhere before she starts this game.
    play_game({"ann": homes["ann"], "bob": homes["bob"]}, tmp_path / "other", stop_after=3)
    r = run(homes["ann"].path, "play", str(tmp_path / "2.toml"), "-o", str(tmp_path / "3.toml"))
    assert r.exit_code == 3 and "--accept-key bob" in r.stderr, r.output
    assert not (tmp_path / "3.toml").exists()
    r = run(homes["ann"].path, "play", str(tmp_path / "2.toml"), "-o", str(tmp_path / "3.toml"),
            "--accept-key", "bob")
    assert r.exit_code == 0, r.output
    lines = {line.split()[0]: line for line in r.output.splitlines() if line.startswith("  ")}
    assert "you" in lines["ann"] and "new" in lines["cy"]
    assert "CHANGED" in lines["bob"] and homes["bob"].load().fingerprint in lines["bob"]


# ---- Medium: header before game code, every number bounded ---------------------------------
def _signed_by_host(home: Home, header: dict, folder: Path, name: str = "host.toml") -> Path:
    """A create entry the host signs over whatever header it likes (its own client)."""
    identity = home.load()
    entry = {"seq": 0, "game": header["id"], "seat": identity.handle, "kind": "create",
             "prev": digest(header), "moves": [], "chores": [], "pubkey": identity.public_hex,
             "nonce": "44" * 32, "seed_commit": "55" * 32, "beacon": "66" * 32}
    path = folder / name
    path.write_text(savefile.dumps(Save(header, [forge(entry, identity)], {})), "utf-8")
    return path


def _header(game: str, handles: list[str]) -> dict:
    g = load_game(game)
    return headers.new_header(g, [(h, "") for h in handles], headers.parse_options(g, []))


def _cli(home: Path, *args: str) -> tuple[int, str, float]:
    import time

    start = time.perf_counter()
    r = CliRunner().invoke(main, ["--home", str(home), *args])
    assert "Traceback" not in r.output
    return r.exit_code, r.stderr, time.perf_counter() - start


def test_attack_header_reaches_game_code_only_after_its_hash_and_signature(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand-edited header (copies raised) is refused as an altered header (exit 3)
    before the game's validator or set-up sees it."""
    from pbem_games.red_dog_junction.rules import RedDogJunction

    path = _signed_by_host(homes["ann"], _header("red-dog-junction", ["ann", "bob"]), tmp_path)
    text = path.read_text()
    assert "copies = 3" in text
    edited = tmp_path / "edited.toml"
    edited.write_text(text.replace("copies = 3", "copies = 100000", 1))
    seen: list[str] = []
    for method in ("validate_components", "validate_options", "setup"):
        monkeypatch.setattr(RedDogJunction, method,
                            lambda *a, _m=method, **k: seen.append(_m))  # type: ignore[misc]
    code, err, _ = _cli(tmp_path / "v", "verify", str(edited))
    assert code == 3 and "header was altered" in err
    assert seen == [], "game code saw an unauthenticated header"


@pytest.mark.parametrize(("game", "old", "new", "why"), [
    ("red-dog-junction", "copies = 3", "copies = 1000000000", "beyond"),  # the engine's bound
    ("red-dog-junction", "copies = 3", "copies = 100000", "copies"),  # the game's bound
    ("road-master", "market_size = 9", "market_size = 100000000", "beyond"),
    ("road-master", "market_size = 9", "market_size = 5000", "market_size"),
    ("road-master", "contracts_per_take = 3", "contracts_per_take = 20", "contracts_per_take"),
    ("road-master", "length = ", "length = 1000000 #", "length"),
])
def test_attack_host_signs_huge_numbers_into_the_header(
        game: str, old: str, new: str, why: str, homes: dict[str, Home], tmp_path: Path) -> None:
    """The host signs a header whose numbers would cost gigabytes or minutes: refused at
    once, exit 4, naming the number."""
    clean = _signed_by_host(homes["ann"], _header(game, ["ann", "bob"]), tmp_path)
    header = savefile.read(clean).header
    text = savefile.dumps(Save(header, [], {})).split("[state]")[0]
    assert old in text, old
    doctored = __import__("tomllib").loads(text.replace(old, new, 1).split("\n", 2)[2])["header"]
    path = _signed_by_host(homes["ann"], doctored, tmp_path, "huge.toml")
    code, err, seconds = _cli(tmp_path / "v", "verify", str(path))
    assert code == 4 and why in err, err
    assert seconds < 5
    code, err, _ = _cli(homes["bob"].path, "join", str(path), "-o", str(tmp_path / "j.toml"))
    assert code == 4 and not (tmp_path / "j.toml").exists()


@pytest.mark.parametrize(("value", "message"), [
    ('"false"', "true or false"), ("0", "true or false"), ("[true]", "true or false")])
def test_attack_option_of_the_wrong_type_is_refused(
        value: str, message: str, homes: dict[str, Home], tmp_path: Path) -> None:
    """hazardous = "false" (a string) was read as true: now the save is malformed."""
    clean = savefile.read(_signed_by_host(homes["ann"], _header("road-master", ["ann", "bob"]),
                                          tmp_path))
    header = copy.deepcopy(clean.header)
    header["options"]["hazardous"] = __import__("tomllib").loads(f"v = {value}")["v"]
    path = _signed_by_host(homes["ann"], header, tmp_path, "typed.toml")
    code, err, _ = _cli(tmp_path / "v", "verify", str(path))
    assert code == 4 and message in err and "hazardous" in err


@pytest.mark.heavy
def test_game_code_failing_on_header_data_is_a_malformed_save(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Every table and value of each game's component data (the first 2 items of each
    list), replaced by a value of another type: the header check refuses it with a
    SaveFileError (exit 4), never a TypeError or KeyError from a validator."""
    from pbem.errors import SaveFileError

    def places(value: object, path: list) -> list[list]:
        """The path of every table and value (the first 3 items of each list)."""
        found = [path]
        if isinstance(value, dict):
            for key, sub in value.items():
                found += places(sub, path + [key])
        elif isinstance(value, list):
            for i, sub in enumerate(value[:2]):
                found += places(sub, path + [i])
        return found

    def replaced(value: Any, path: list, wrong: object) -> Any:
        """``value`` with the item at ``path`` replaced: the tables and lists on the path
        are copied, the rest is shared (empty_table reads the header, never changes it)."""
        if not path:
            return wrong
        copied = dict(value) if isinstance(value, dict) else list(value)
        copied[path[0]] = replaced(value[path[0]], path[1:], wrong)
        return copied

    for game in ("red-dog-junction", "road-master", "station-to-station"):
        header = _header(game, ["ann", "bob"])
        untouched = copy.deepcopy(header)
        for path in places(header["components"], [])[1:]:
            for wrong in ("x", 7, [1, "a"], {"a": 1}):
                with contextlib.suppress(SaveFileError):
                    headers.empty_table(replaced(header, ["components", *path], wrong))
        assert header == untouched


# ---- Medium: malformed input never crashes -------------------------------------------------
@pytest.mark.parametrize("name", ["deep arrays", "deep inline tables", "deep tables",
                                  "5000-digit integer", "4000-digit integer", "huge string",
                                  "float", "date", "64 MB", "NUL bytes"])
def test_attack_malformed_input_exits_4_in_plain_words(name: str, homes: dict[str, Home],
                                                       tmp_path: Path) -> None:
    good = play_game(homes, tmp_path / "s", stop_after=3)[-1].read_text()
    cases = {
        "deep arrays": good + "\n[extra]\nx = " + "[" * 3000 + "]" * 3000 + "\n",
        "deep inline tables": good.replace('moves = []', "moves = " + "[{a = " * 3000 + "1"
                                           + "}]" * 3000, 1),
        "deep tables": good + "\n[state." + ".".join(["a"] * 3000) + "]\nb = 1\n",
        "5000-digit integer": good.replace("seq = 1\n", "seq = " + "9" * 5000 + "\n", 1),
        "4000-digit integer": good.replace("seq = 1\n", "seq = " + "9" * 4000 + "\n", 1),
        "huge string": good.replace('moves = []', 'moves = ["' + "x" * 5_000_000 + '"]', 1),
        "float": good.replace("seq = 1\n", "seq = 1e300\n", 1),
        "date": good.replace("seq = 1\n", "seq = 2025-01-01\n", 1),
        "NUL bytes": good.replace("moves = []", 'moves = ["\\u0000"]', 1) + "\x00",
    }
    path = tmp_path / "bad.toml"
    if name == "64 MB":
        path.write_bytes(good.encode() + b"#" * (64 * 1024 * 1024))
    else:
        path.write_text(cases[name], "utf-8")
    code, err, seconds = _cli(tmp_path / "v", "verify", str(path))
    assert code == 4, err
    assert err.startswith("pbem: ") and len(err.strip().splitlines()) <= 2 and len(err) < 600
    assert seconds < 10


@pytest.mark.parametrize("content", ["", "handle = 3\n", "[[[", "handle = \"ann\"\n",
                                     'handle = "ann"\npublic_key = "zz"\n'])
def test_damaged_identity_file_is_a_plain_sentence(content: str, tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    home.keygen("ann")
    (home.path / "identity.toml").write_text(content)
    for args in (["whoami"], ["new", "dice-race", "--seat", "ann"],
                 ["keygen", "--name", "ann"]):
        code, err, _ = _cli(home.path, *args)
        assert code == 2, (args, err)
        assert "identity" in err and "internal error" not in err


# ---- Low: an internal error has its own exit code ------------------------------------------
def test_a_bug_exits_70_not_1(homes: dict[str, Home], tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in game code during replay is neither a rules refusal (1) nor a bad save."""
    from tests.support.dice_race import DiceRace

    path = play_game(homes, tmp_path / "s", stop_after=6)[-1]
    monkeypatch.delenv("PBEM_DEBUG", raising=False)
    monkeypatch.setattr(DiceRace, "end_turn", lambda *a: 1 // 0)
    code, err, _ = _cli(tmp_path / "v", "verify", str(path))
    assert code == 70 and "internal error (ZeroDivisionError" in err


# ---- High: whose reveal is awaited -------------------------------------------------------
def test_verify_says_whose_reveal_is_awaited(homes: dict[str, Home], tmp_path: Path) -> None:
    import json

    paths = play_game(homes, tmp_path / "s")
    final = savefile.read(paths[-1])
    first_reveal = next(i for i, e in enumerate(final.entries) if e["kind"] == "reveal")
    revealing = paths[first_reveal]  # the save with one reveal: two are awaited
    r = CliRunner().invoke(main, ["--home", str(tmp_path / "v"), "verify", "--json",
                                  str(revealing)])
    data = json.loads(r.output)
    assert data["audit"] == "pending" and data["over"]
    revealed = final.entries[first_reveal]["seat"]
    assert len(data["awaiting"]) == 2 and revealed not in data["awaiting"]
    assert data["awaiting"][0] == data["to_act"]
    r = CliRunner().invoke(main, ["--home", str(tmp_path / "v"), "verify", str(revealing)])
    assert f"until {', '.join(data['awaiting'])} reveal" in r.output
    r = CliRunner().invoke(main, ["--home", str(tmp_path / "v"), "verify", "--json",
                                  str(paths[-1])])
    assert json.loads(r.output)["awaiting"] == []


# ---- Mutations of valid saves never give a traceback ---------------------------------------
@pytest.mark.parametrize("wrong", [["cards"], {"a": 1}, 7, True])
def test_signed_chore_of_the_wrong_shape_is_refused(wrong: object, homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    """A seat signs a chore whose deck name is not a text: refused (exit 3), no crash."""
    paths = play_game(homes, tmp_path / "s", game="secret-draw", stop_after=2)
    save = savefile.read(paths[-1])
    entries = copy.deepcopy(save.entries)
    assert entries[-1]["chores"], "a join carries the seat's shuffle pass"
    entries[-1]["chores"][0]["deck"] = wrong
    entries[-1] = forge(entries[-1], homes[entries[-1]["seat"]].load())
    with pytest.raises(IntegrityError) as info:
        session.verify(Save(save.header, entries, save.state), Home(tmp_path / "v"))
    assert info.value.code == "chore"


def test_changed_key_is_asked_about_at_a_terminal(homes: dict[str, Home], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """At a terminal, a CHANGED key is a question: 'n' writes nothing, 'y' goes on."""
    import pbem.cli.common

    play_game({"cy": homes["cy"], "bob": homes["bob"]}, tmp_path / "earlier", stop_after=3)
    runner = CliRunner()
    first = tmp_path / "g0.toml"
    runner.invoke(main, ["--home", str(homes["ann"].path), "new", "dice-race", "--seat", "ann",
                         "--seat", "bob", "--seat", "cy", "-o", str(first)])
    impostor = Home(tmp_path / "impostor")
    impostor.keygen("bob")
    runner.invoke(main, ["--home", str(impostor.path), "join", str(first), "-o",
                         str(tmp_path / "1.toml")])
    monkeypatch.setattr(pbem.cli.common, "interactive", lambda: True)
    args = ["--home", str(homes["cy"].path), "join", str(tmp_path / "1.toml"), "-o",
            str(tmp_path / "2.toml")]
    r = runner.invoke(main, args, input="n\n")
    assert r.exit_code == 3 and "CHANGED" in r.stderr and not (tmp_path / "2.toml").exists()
    r = runner.invoke(main, args, input="y\n")
    assert r.exit_code == 0 and (tmp_path / "2.toml").exists()


def test_every_int_option_of_every_game_is_bounded() -> None:
    """Options are bounded by their spec (an unbounded int option would reach game code
    with any number up to the header's generic bound)."""
    from pbem import registry

    for name in registry.names():
        for key, spec in registry.load(name).info.options.items():
            if spec.kind == "int":
                assert spec.minimum is not None and spec.maximum is not None, (name, key)


# ---- Found by the fuzzer (fuzz/, make fuzz) ----------------------------------------------
def test_attack_key_order_in_the_header_cannot_change_the_game(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Canonical JSON sorts keys, so no signature covers the order in which the file lists
    a table's keys. Station to Station's set-up and chance followed that order: anyone
    forwarding a save could re-order the header's tables (no key needed) and a fresh home
    replayed another game from the same signed entries than a home that had verified them
    (the fuzzer's "homes disagree"). Game code now sees header data in sorted key order."""
    import tomli_w

    from pbem.protocol.saveformat.canonical import canonical

    paths = play_game(homes, tmp_path / "s", game="station-to-station", bot="random:2",
                      stop_after=12)
    save = savefile.read(paths[-1])
    reordered = tmp_path / "reordered.toml"
    reordered.write_text(tomli_w.dumps({"header": keys_reversed(save.header),
                                        "entry": save.entries, "state": save.state}), "utf-8")
    honest = session.verify(save, Home(tmp_path / "a"))
    again = session.verify(savefile.read(reordered), Home(tmp_path / "b"))
    assert canonical(again.table.gstate) == canonical(honest.table.gstate)
    assert again.save.state == honest.save.state


def _quoting_cases(save: Save, homes: dict[str, Home]) -> dict[str, Save]:
    """Saves whose refusal quotes a value the sender chose: 16,000 characters of it, a
    line break, terminal escapes."""
    entries = copy.deepcopy(save.entries)
    last = entries[-1]
    long_kind = copy.deepcopy(entries)
    long_kind[-1]["kind"] = "turn" * 4000
    odd_seat = copy.deepcopy(entries)
    odd_seat[-1]["seat"] = "b\nob\x1b[2J" + "o" * 16000
    long_move = copy.deepcopy(entries)
    long_move[-1]["moves"] = ["roll" + "\u202e" * 16000]
    long_move[-1] = forge(long_move[-1], homes[last["seat"]].load())
    deep: object = 1
    for _ in range(40):
        deep = {"k" * 300 + "\n": deep}
    return {
        "long kind": Save(save.header, long_kind, save.state),
        "seat with a line break": Save(save.header, odd_seat, save.state),
        "long move, re-signed": Save(save.header, long_move, save.state),
        "long keys nested deep": Save(save.header, entries, {"x": deep}),
    }


@pytest.mark.parametrize("case", ["long kind", "seat with a line break",
                                  "long move, re-signed", "long keys nested deep"])
def test_a_value_from_the_file_is_quoted_short_in_the_message(
        case: str, homes: dict[str, Home], tmp_path: Path) -> None:
    """A refusal is one or two plain sentences on one line, whatever the file holds (the
    fuzzer found messages of 100,000 characters and line breaks from a save)."""
    path = play_game(homes, tmp_path / "s", stop_after=8)[-1]
    crafted = tmp_path / "crafted.toml"
    crafted.write_text(savefile.dumps(_quoting_cases(savefile.read(path), homes)[case]), "utf-8")
    code, err, _ = _cli(tmp_path / "v", "verify", str(crafted))
    assert code in (1, 3, 4), err
    assert err.startswith("pbem: ") and len(err) < 600, err[:300]
    assert len(err.strip().splitlines()) == 1 and "\x1b" not in err and "\u202e" not in err


# ---- The archive's shortcut: resuming skips re-checking the header it replayed ---------------
def test_attack_reused_game_id_with_bad_component_data_is_checked_in_full(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """A home resumes a replay from its archive, without checking the header's options and
    component data again, only for the header it replayed itself (the cached table sits on
    an entry whose hash chains back to that header). The host's own code signs a new
    create entry under the id of a game bob's home is playing, with component data no
    validator accepts: bob's home checks that header in full and refuses it (exit 4)."""
    players = {h: homes[h] for h in ("ann", "bob")}
    paths = play_game(players, tmp_path / "game", "red-dog-junction", stop_after=6)
    playing = savefile.read(paths[-1])
    session.verify(playing, homes["bob"])  # bob's archive holds the game and its table
    header = copy.deepcopy(playing.header)
    header["created"] = "2030-01-01T00:00:00Z"
    header["components"]["goods"]["gold"] = "plenty"
    table = headers.empty_table(playing.header)  # the host's code skips the validator
    table.header, table.head = header, digest(header)
    entry, table = signing.sign_entry(table, homes["ann"].load(), "create")
    crafted = tmp_path / "crafted.toml"
    crafted.write_text(savefile.dumps(Save(header, [entry], playing.state)), "utf-8")
    r = CliRunner().invoke(main, ["--home", str(homes["bob"].path), "verify", str(crafted)])
    assert r.exit_code == 4, r.output
    assert "Red Dog Junction components: [goods] gold" in r.stderr


def test_component_data_is_validated_once_per_digest_and_again_when_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """check_header_game validates a save's component data once per process for the same
    canonical bytes (verify at the floor), but a header whose components differ in any
    value has another digest and is validated afresh: a tampered copy never rides on the
    record of the genuine one."""
    from pbem.errors import SaveFileError
    from pbem_games.red_dog_junction.rules import RedDogJunction

    real = RedDogJunction.validate_components
    calls: list[int] = []

    def counted(self: Any, data: dict[str, Any]) -> None:
        calls.append(1)
        real(self, data)

    monkeypatch.setattr(RedDogJunction, "validate_components", counted)
    header = _header("red-dog-junction", ["ann", "bob"])
    calls.clear()  # the installed data, validated as it was read
    headers.check_header_game(header)
    headers.check_header_game(copy.deepcopy(header))
    assert len(calls) == 1
    changed = copy.deepcopy(header)
    changed["components"]["crew"][0]["copies"] = 3  # still valid: validated again
    headers.check_header_game(changed)
    assert len(calls) == 2
    tampered = copy.deepcopy(header)
    tampered["components"]["crew"][0]["copies"] = 100000  # beyond the game's bound
    for _ in range(2):
        with pytest.raises(SaveFileError, match="copies"):
            headers.check_header_game(tampered)
    assert len(calls) == 4  # a refused digest is never recorded as valid


def test_attack_host_signs_data_too_small_for_an_option(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """RDJ-V2: the host signs Posse for 4 players over valid component data whose deck is
    too small for the deal (4-card starting sets, a 21-card market: 33 cards, 36 dealt).
    The options are checked against the save's own data: exit 4 with a sentence at
    verify and join, not a failure at the start entry's deal."""
    g = load_game("red-dog-junction")
    header = headers.new_header(g, [(h, "") for h in ("ann", "bob", "cy", "dee")],
                                headers.parse_options(g, ["variant=posse"]))
    data = header["components"]
    data["setup"]["start_crew"] = {"cowboy": 1, "agent": 1, "miner": 1, "scavenger": 1}
    data["commander"], data["boost"] = data["commander"][:6], data["boost"][:8]
    for entry in [*data["crew"], *data["boost"]]:
        entry["copies"] = 1
    g.validate_components(data)  # each table alone is fine
    path = _signed_by_host(homes["ann"], header, tmp_path, "small.toml")
    code, err, _ = _cli(tmp_path / "v", "verify", str(path))
    assert code == 4, err
    assert "The save's options are not valid: The Posse draft deals 9 cards to each of 4 " \
           "players, 36 in all, but this game's component data makes a deck of 33." in err
    code, err, _ = _cli(homes["bob"].path, "join", str(path), "-o", str(tmp_path / "j.toml"))
    assert code == 4 and "component data makes a deck of 33" in err
    assert not (tmp_path / "j.toml").exists()
