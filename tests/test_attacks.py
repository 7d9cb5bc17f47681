"""The attacks of issue 8, each replayed by someone who holds the source, their own key and
every save they received, and each refused with its documented exit code.

Named after the attack, so a reader looking for one finds its test here."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import IntegrityError
from pbem.protocol import beacon, engine, savefile
from pbem.protocol.canonical import digest
from pbem.protocol.derive import seed_commitment
from pbem.protocol.identity import Home
from pbem.protocol.savefile import Save
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
    header = engine.new_header(game, [(h, "") for h in handles],
                               engine.parse_options(game, options or []))
    header["id"] = old.game_id
    header["created"] = "2030-01-01T00:00:00Z"  # another game, another header
    table = engine.empty_table(header)
    entry, table = engine.sign_entry(table, host.load(), "create")
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
    table = engine.empty_table(finished.header)
    entry, table = engine.sign_entry(table, homes["ann"].load(), "create")
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
    new_seed = engine.seat_seed(joined.table, 1, bob.load())
    assert new_seed != old_bob and seed_commitment(new_seed) == record.seed_commit
    # And ann's next link, hence the start's randomness, is not known to the host from bob.
    assert beacon.published(old_bob, 1) != beacon.published(new_seed, 1)


def test_a_home_refuses_to_create_a_game_id_it_has_seen(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a broken random generator repeats an id; the home notices and writes nothing."""
    from pbem.protocol import entropy

    (tmp_path / "s").mkdir()
    monkeypatch.setattr(entropy, "fresh_bytes", lambda n: b"\x07" * n)
    session.new_game(homes["ann"], "dice-race", ["ann", "bob"], [], None, folder=tmp_path / "s")
    with pytest.raises(IntegrityError) as info:
        session.new_game(homes["ann"], "dice-race", ["ann", "bob"], [],
                         str(tmp_path / "again.toml"))
    assert info.value.code == "game-id-reused"
    assert not (tmp_path / "again.toml").exists()


def test_a_save_without_nonces_was_made_by_an_older_pbem(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    """A create/join entry with no nonce (or a bad one) is a malformed save, exit 4."""
    path = play_game(homes, tmp_path / "s", stop_after=2)[-1]
    text = path.read_text("utf-8")
    line = next(t for t in text.splitlines() if t.startswith("nonce = "))
    for changed in (text.replace(line + "\n", "", 1), text.replace(line, 'nonce = "abc"', 1)):
        bad = tmp_path / "old.toml"
        bad.write_text(changed, "utf-8")
        r = CliRunner().invoke(main, ["--home", str(tmp_path / "v"), "verify", str(bad)])
        assert r.exit_code == 4, r.output
        assert "older pbem" in r.stderr


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
