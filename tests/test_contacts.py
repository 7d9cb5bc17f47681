"""Players remembered per home (pbem.contacts): trust on first use, loud on a changed key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import UsageError
from pbem.home import contacts
from pbem.home.contacts import Contacts
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat.savefile import Save

SEATS = ["ann=ann@example.org", "bob=bob@example.org", "cy=cy@example.org"]


def joined_save(homes: dict[str, Home], folder: Path, seats: list[str] | None = None) -> Save:
    """A game everyone has joined (create + two joins), as bob's join left it... plus cy."""
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(homes["ann"], "dice-race", seats or SEATS, [], None, folder=folder)
    for handle in ("bob", "cy"):
        written = session.sign_next(homes[handle], written.path, "join", [], None, None)
    return written.save


def with_key(save: Save, handle: str, pubkey: str) -> Save:
    """The same save with ``handle``'s join entry claiming another key (contacts only reads
    keys; verification would reject this, which is why check_save wants verified saves)."""
    other = copy.deepcopy(save)
    for entry in other.entries:
        if entry["seat"] == handle and entry["kind"] in ("create", "join"):
            entry["pubkey"] = pubkey
    return other


def with_email(save: Save, handle: str, email: str) -> Save:
    other = copy.deepcopy(save)
    for seat in other.header["seats"]:
        if seat["handle"] == handle:
            seat["email"] = email
    return other


@pytest.fixture
def save(homes: dict[str, Home], tmp_path: Path) -> Save:
    return joined_save(homes, tmp_path / "saves")


def test_first_sighting_records_players_with_fingerprints(homes: dict[str, Home],
                                                          save: Save) -> None:
    notices = contacts.check_save(homes["ann"], save)
    new = {n.handle: n for n in notices if n.code == "new-player"}
    assert set(new) == {"bob", "cy"}  # never yourself
    for handle in ("bob", "cy"):
        fp = homes[handle].load().fingerprint
        assert new[handle].fingerprint == fp
        assert new[handle].message.startswith(f"New player {handle}, fingerprint {fp}")
        assert new[handle].level == "info"
    emails = {n.handle: n.message for n in notices if n.code == "new-email"}
    assert set(emails) == {"bob", "cy"} and "bob@example.org" in emails["bob"]
    assert contacts.check_save(homes["ann"], save) == []
    listed = {p["handle"]: p for p in contacts.listing(homes["ann"])}
    assert listed["bob"]["key"] == homes["bob"].load().public_hex
    assert listed["bob"]["emails"] == ["bob@example.org"]
    assert (homes["ann"].path / contacts.FILE).read_text("utf-8").startswith("# Players")


def test_known_handle_with_another_key_is_a_loud_warning_every_time(
        homes: dict[str, Home], save: Save, tmp_path: Path) -> None:
    contacts.check_save(homes["ann"], save)
    impostor = Home(tmp_path / "impostor")
    impostor.keygen("bob")
    forged = with_key(save, "bob", impostor.load().public_hex)
    for _ in range(2):  # not silenced by having been seen once
        [warning] = [n for n in contacts.check_save(homes["ann"], forged) if n.level == "warning"]
        assert warning.code == "key-changed" and warning.handle == "bob"
        assert impostor.load().fingerprint in warning.message
        assert homes["bob"].load().fingerprint in warning.message
        assert "pbem contacts forget bob" in warning.message
        assert str(warning).startswith("WARNING: ")
    # The first key is kept: trust on first use is never replaced silently.
    assert Contacts(homes["ann"]).players["bob"]["key"] == homes["bob"].load().public_hex


def test_forget_lets_a_new_key_be_learnt(homes: dict[str, Home], save: Save,
                                         tmp_path: Path) -> None:
    contacts.check_save(homes["ann"], save)
    fresh = Home(tmp_path / "bob-new-laptop")
    fresh.keygen("bob")
    assert contacts.forget(homes["ann"], "bob")
    assert not contacts.forget(homes["ann"], "bob")
    notices = contacts.check_save(homes["ann"], with_key(save, "bob", fresh.load().public_hex))
    assert [n.code for n in notices if n.handle == "bob"] == ["new-player", "new-email"]
    assert all(n.level == "info" for n in notices)


def test_changed_address_warns_once(homes: dict[str, Home], save: Save) -> None:
    contacts.check_save(homes["ann"], save)
    moved = with_email(save, "bob", "bob@elsewhere.example")
    [warning] = contacts.check_save(homes["ann"], moved)
    assert (warning.code, warning.level) == ("email-changed", "warning")
    assert "bob@elsewhere.example" in warning.message and "bob@example.org" in warning.message
    assert contacts.check_save(homes["ann"], moved) == []


def test_known_address_given_to_another_key_warns(homes: dict[str, Home], save: Save) -> None:
    contacts.check_save(homes["ann"], save)
    swapped = with_email(save, "cy", "bob@example.org")
    notices = contacts.check_save(homes["ann"], swapped)
    [clash] = [n for n in notices if n.code == "email-key-changed"]
    assert clash.level == "warning" and clash.handle == "cy"
    assert "bob@example.org" in clash.message and "bob's" in clash.message


def test_own_handle_with_another_key_is_flagged(homes: dict[str, Home], save: Save,
                                                tmp_path: Path) -> None:
    other_ann = Home(tmp_path / "ann2")
    other_ann.keygen("ann")
    notices = contacts.check_save(other_ann, save)
    [clash] = [n for n in notices if n.code == "handle-clash"]
    assert clash.level == "warning" and "not you" in clash.message
    assert "ann" not in Contacts(other_ann).players


def test_addresses_come_only_from_signed_seats_or_the_user(homes: dict[str, Home],
                                                           tmp_path: Path) -> None:
    """PROTOCOL.md 3: an address is learnt from the signed seats of a verified save or
    from the user, never from the mail that carried it (check_save takes no sender)."""
    folder = tmp_path / "s"
    folder.mkdir()
    created = session.new_game(homes["ann"], "dice-race", ["ann", "bob", "cy"], [], None,
                               folder=folder)
    bob = session.sign_next(homes["bob"], created.path, "join", [], None, None)
    with pytest.raises(TypeError):
        contacts.check_save(homes["cy"], bob.save, sender_email="mallory@evil.example")  # type: ignore[call-arg]
    contacts.set_email(homes["cy"], "ann", "ann@mail.example")  # before ann is ever seen
    notices = contacts.check_save(homes["cy"], bob.save)
    assert [n.code for n in notices] == ["new-player", "new-player"]
    assert Contacts(homes["cy"]).email_for("bob") == ""
    ann = Contacts(homes["cy"]).players["ann"]
    assert ann["emails"] == ["ann@mail.example"] and ann["key"] == homes["ann"].load().public_hex
    assert ann["first_seen"] == f"dice-race {bob.save.game_id[:8]}"
    # The user's own word: checked, remembered, and first in line from then on.
    assert contacts.set_email(homes["cy"], "bob", " bob@mail.example ") == "bob@mail.example"
    assert Contacts(homes["cy"]).email_for("bob") == "bob@mail.example"
    assert Contacts(homes["cy"]).players["bob"]["key"] == homes["bob"].load().public_hex
    contacts.check_save(homes["cy"], with_email(bob.save, "bob", "bob@other.example"))
    assert Contacts(homes["cy"]).email_for("bob") == "bob@mail.example"
    for bad in ("bob@mail.example, eve@evil.example", "bob@mail.example\r\nBcc: eve@x.org"):
        with pytest.raises(UsageError, match="not a mail address"):
            contacts.set_email(homes["cy"], "bob", bad)
    with pytest.raises(UsageError, match="not a usable handle"):
        contacts.set_email(homes["cy"], "bob\nx", "bob@mail.example")
    assert Contacts(homes["cy"]).players["bob"]["emails"] == ["bob@mail.example",
                                                              "bob@other.example"]


def test_email_for_refuses_a_stranger_with_the_same_name(homes: dict[str, Home],
                                                          save: Save) -> None:
    contacts.check_save(homes["ann"], save)
    book = Contacts(homes["ann"])
    assert book.email_for("bob") == "bob@example.org"
    assert book.email_for("bob", homes["bob"].load().public_hex) == "bob@example.org"
    assert book.email_for("bob", "00" * 32) == ""
    assert book.email_for("nobody") == ""


def test_unreadable_contacts_file_is_a_clear_error(homes: dict[str, Home], save: Save) -> None:
    (homes["ann"].path / contacts.FILE).write_text("[players\n", "utf-8")
    with pytest.raises(UsageError, match="contacts.toml is unreadable"):
        contacts.check_save(homes["ann"], save)


def test_contacts_work_in_a_home_without_identity(save: Save, tmp_path: Path) -> None:
    notices = contacts.check_save(Home(tmp_path / "anyone"), save)
    assert sorted(n.handle for n in notices if n.code == "new-player") == ["ann", "bob", "cy"]
