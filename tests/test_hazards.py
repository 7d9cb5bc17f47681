"""Nothing lost, nothing confused: each hazard is refused with a clear message and
nothing written (an address learnt from a stranger, a short id shared with a stranger's
invitation, a picture over a save, a recorded file replaced by another game's save,
two plays at once, keygen over a broken link, a host-signed option the game refuses)."""

from __future__ import annotations

import copy
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import TurnError
from pbem.home import contacts
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import signing
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest
from tests.enginekit import actor, forge, play_game


def run(home: Home, *args: str) -> Any:
    result = CliRunner().invoke(main, ["--home", str(home.path), *args])
    assert "Traceback" not in result.output and "internal error" not in result.output
    return result


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def mallory(tmp_path: Path) -> Home:
    home = Home(tmp_path / "homes" / "mallory")
    home.keygen("mallory")
    return home


def test_a_strangers_invitation_teaches_no_address(homes: dict[str, Home], mallory: Home,
                                                   tmp_path: Path) -> None:
    """Mallory seats bob at her own address: ann's contacts must not learn it (only a
    seat's own signed entry, or the user, gives its address)."""
    folder = tmp_path / "invite"
    folder.mkdir()
    invite = session.new_game(mallory, "dice-race", ["mallory", "ann=ann@example.org",
                                                     "bob=mallory@evil.example"], [], None,
                              folder=folder)
    contacts.check_save(homes["ann"], session.load(invite.path, homes["ann"]).save)
    known = {p["handle"]: p["emails"] for p in contacts.listing(homes["ann"])}
    assert known.get("bob", []) == []
    # Once bob signs his own join on a header that gives his address, it is learnt.
    folder = tmp_path / "real"
    folder.mkdir()
    real = session.new_game(homes["cy"], "dice-race", ["cy", "ann", "bob=bob@example.org"], [],
                            None, folder=folder)
    joined = session.sign_next(homes["ann"], real.path, "join", [], None, None)
    joined = session.sign_next(homes["bob"], joined.path, "join", [], None, None)
    contacts.check_save(homes["ann"], joined.save)
    known = {p["handle"]: p["emails"] for p in contacts.listing(homes["ann"])}
    assert known["bob"] == ["bob@example.org"]


def test_a_short_id_shared_with_a_strangers_invitation_names_the_game_joined(
        homes: dict[str, Home], mallory: Home, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    saves = play_game(homes, tmp_path / "saves", stop_after=4)
    real_id = savefile.read(saves[-1]).game_id
    bob = homes["bob"]
    assert run(bob, "show", str(saves[-1])).exit_code == 0
    from pbem.protocol.crypto import entropy

    fresh = entropy.fresh_bytes

    def chosen(n: int) -> bytes:  # the stranger picks an id that starts like bob's game
        return bytes.fromhex(real_id[:8]) + fresh(n - 4) if n == 16 else fresh(n)

    monkeypatch.setattr(entropy, "fresh_bytes", chosen)
    folder = tmp_path / "invite"
    folder.mkdir()
    invite = session.new_game(mallory, "dice-race", ["mallory", "bob"], [], None, folder=folder)
    monkeypatch.setattr(entropy, "fresh_bytes", fresh)
    assert invite.save.game_id[:8] == real_id[:8] != invite.save.game_id
    assert run(bob, "show", str(invite.path)).exit_code == 0  # now in bob's index too
    shown = run(bob, "show", real_id[:8], "--json")
    assert shown.exit_code == 0, shown.output
    assert "not joined" in shown.stderr and real_id in shown.stderr
    assert '"id": "' + real_id in shown.stdout


@pytest.mark.parametrize("flag", ["--html", "--svg", "--png"])
def test_show_never_writes_a_picture_over_a_save(homes: dict[str, Home], tmp_path: Path,
                                                 flag: str) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    made = session.new_game(homes["ann"], "road-master", ["ann", "bob"], [], None, folder=folder)
    other = folder / "board.svg"
    before = files(folder)
    result = run(homes["ann"], "show", str(made.path), "--html", str(other), flag,
                 str(made.path))
    assert result.exit_code == 2 and "never written over a save" in result.output
    assert files(folder) == before  # not even the other picture


def test_show_draws_only_to_a_plain_file_of_its_own(homes: dict[str, Home],
                                                    tmp_path: Path) -> None:
    """A pipe as a picture's target hung for ever (its reading waited); a device was
    replaced by the picture; an empty name wrote nothing and said nothing; two pictures
    to one name left the last in it. Each is a usage error before anything is drawn."""
    import os

    folder = tmp_path / "saves"
    folder.mkdir()
    made = session.new_game(homes["ann"], "road-master", ["ann", "bob"], [], None, folder=folder)
    pipe = folder / "board.svg"
    os.mkfifo(pipe)
    before = files(folder)
    for args, said in ((["--svg", str(pipe)], "is not a plain file"),
                       (["--png", str(folder)], ""),
                       (["--svg", ""], "--svg needs a file name"),
                       (["--svg", str(folder / "b.svg"), "--png", str(folder / "b.svg")],
                        "--svg and --png name the same file")):
        result = run(homes["ann"], "show", str(made.path), *args)
        assert result.exit_code == 2 and said in result.output, (args, result.output)
        assert files(folder) == before


def test_a_recorded_file_replaced_by_another_games_save_is_not_signed(
        homes: dict[str, Home], tmp_path: Path) -> None:
    first = play_game(homes, tmp_path / "one", stop_after=4)[-1]
    me = actor(first)
    assert run(homes[me], "show", str(first)).exit_code == 0
    game_id = savefile.read(first).game_id
    other = play_game(homes, tmp_path / "two", stop_after=4)[-1]
    first.write_bytes(other.read_bytes())  # the file the index names now holds game two
    before = {**files(first.parent), **files(other.parent)}
    result = run(homes[me], "play", game_id[:8], "roll")
    assert result.exit_code == 2 and "now holds another game" in result.output, result.output
    assert {**files(first.parent), **files(other.parent)} == before


def test_two_plays_at_once_cannot_both_sign(homes: dict[str, Home], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """While one play signs, a second one in the same home waits for the game's lock,
    then finds the entry the first wrote and refuses (a fork): never two entries of one
    seat at one position."""
    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    me = homes[actor(save)]
    real_sign = signing.sign_entry
    second: dict[str, Any] = {}

    def other_play() -> None:
        try:
            second["written"] = session.sign_next(me, save, None, ["pass"], None,
                                                  str(tmp_path / "second.toml"))
        except TurnError as exc:
            second["refused"] = exc.message

    def sign_entry(*args: Any, **kwargs: Any) -> Any:
        if "thread" not in second:  # the first play, mid-way: start the other one now
            second["thread"] = threading.Thread(target=other_play)
            second["thread"].start()
            second["thread"].join(timeout=1.0)
        return real_sign(*args, **kwargs)

    monkeypatch.setattr(signing, "sign_entry", sign_entry)
    session.sign_next(me, save, None, ["roll"], None, str(tmp_path / "first.toml"))
    second["thread"].join()
    assert "written" not in second and "stale" in second["refused"]
    assert not (tmp_path / "second.toml").exists()


def test_keygen_over_a_dangling_link_is_refused(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    home.path.mkdir()
    os.symlink(tmp_path / "nowhere", home.path / "identity.pem")
    result = run(home, "keygen", "--name", "ann")
    assert result.exit_code == 2 and "in the way" in result.output, result.output
    assert not (tmp_path / "nowhere").exists()


def test_a_host_signed_option_the_game_refuses_is_a_malformed_save(
        homes: dict[str, Home], tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    made = session.new_game(homes["ann"], "road-master", ["ann", "bob"], [], None, folder=folder)
    header = copy.deepcopy(made.save.header)
    header["options"]["first"] = "zed"
    entry = dict(made.save.entries[0], prev=digest(header))
    bad = savefile.Save(header, [forge(entry, homes["ann"].load())], made.save.state)
    path = folder / "bad.toml"
    path.write_text(savefile.dumps(bad), "utf-8")
    result = run(homes["bob"], "verify", str(path))
    assert result.exit_code == 4, result.output
    assert "first=zed" in result.output
    # Typed by the user at 'new', the same option is a usage error.
    typed = run(homes["ann"], "new", "road-master", "--seat", "ann", "--seat", "bob",
                "--option", "first=zed", "-o", str(folder / "new.toml"))
    assert typed.exit_code == 2 and not (folder / "new.toml").exists()
