"""Table talk: an entry's signed ``note`` (PROTOCOL.md section 4). Signed with the entry,
shown by show, log and the mail, bounded and free of control characters (exit 4 in a
save, exit 2 on the command line, nothing written), and never an input to chance."""

from __future__ import annotations

import email
import json
import shutil
from pathlib import Path

import pytest

from pbem import session
from pbem.protocol.crypto.identity import Home
from pbem.protocol.replay import engine, signing
from pbem.protocol.saveformat import savefile
from tests.enginekit import forge, tick
from tests.test_absent_cli import Table3

NOTE = "Nice move — watch the east line, bob"


def _mail_text(path: Path) -> str:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    return str(body.get_content())


def _edited(path: str, out: Path, **changes: object) -> Path:
    """The save at ``path`` with its last entry changed, not re-signed."""
    save = savefile.read(path)
    entries = [*save.entries[:-1], {**save.entries[-1], **changes}]
    out.write_text(savefile.dumps(savefile.Save(save.header, entries, save.state)), "utf-8")
    return out


def test_note_round_trips_play_verify_show_log_mail(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start("road-master")
    who = t.status(path)["to_act"]
    r = t.run(who, "play", path, "--bot", "greedy", "--note", NOTE)
    assert r.exit_code == 0, r.output
    noted = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    assert savefile.read(noted).entries[-1]["note"] == NOTE
    line = f'{who} wrote: "{NOTE}"'
    # A fresh home (no identity, no archive) verifies it and shows it.
    assert t.run(None, "verify", noted).exit_code == 0
    log = t.run(None, "log", noted)
    assert log.exit_code == 0 and line in log.output
    entries = json.loads(t.run(None, "log", noted, "--json").output)["entries"]
    assert [e["note"] for e in entries][-2:] == [None, NOTE]
    reader = t.status(noted)["to_act"]
    shown = t.run(reader, "show", noted)
    assert shown.exit_code == 0
    assert line in shown.output.split("Since your last entry", 1)[1]
    since = json.loads(t.run(reader, "show", noted, "--json").output)["since_your_last_turn"]
    assert since[-1]["note"] == NOTE
    eml = tmp_path / "turn.eml"
    assert t.run(who, "send", noted, "--eml", str(eml), "--to", "x@example.org").exit_code == 0
    assert f"        {line}" in _mail_text(eml)


def test_note_on_vote_and_absent_shows_to_the_others(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.play(t.start("dice-race"))
    absent = t.status(path)["to_act"]
    handles = ("ann", "bob", "cy")
    proposer = handles[(handles.index(absent) + 1) % 3]
    voter = handles[(handles.index(absent) + 2) % 3]
    tick(days=8)
    proposed = t.wrote(proposer, "absent", path, absent, "--remedy", "end",
                       "--note", "gone a week, sorry")
    voted = t.wrote(voter, "vote", proposed, "accept", "--note", "agreed")
    assert savefile.read(voted).entries[-2]["note"] == "gone a week, sorry"
    for reader in (absent, voter):  # the others see the proposer's note
        assert f'{proposer} wrote: "gone a week, sorry"' in t.run(reader, "log", voted).output
    shown = t.run(absent, "show", voted)
    assert f'{proposer} wrote: "gone a week, sorry"' in shown.output
    assert f'{voter} wrote: "agreed"' in shown.output
    eml = tmp_path / "vote.eml"
    assert t.run(voter, "send", voted, "--eml", str(eml), "--to", "x@example.org").exit_code == 0
    assert f'{voter} wrote: "agreed"' in _mail_text(eml)


def test_edited_note_breaks_the_signature(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start("dice-race")
    who = t.status(path)["to_act"]
    noted = t.wrote(who, "play", path, "--bot", "greedy", "--note", "gl hf")
    edited = _edited(noted, tmp_path / "edited.toml", note="you all cheat")
    assert t.run(None, "verify", str(edited)).exit_code == 3
    added = _edited(path, tmp_path / "added.toml", note="never said this")
    assert t.run(None, "verify", str(added)).exit_code == 3


BAD_NOTES = {"too long": "x" * (savefile.NOTE_MAX_CHARS + 1),
             "escape sequence": "fine \x1b[2J then not", "line break": "one\ntwo",
             "tab": "a\tb", "bidi override": "abc\u202edef", "zero width": "a\u200bb",
             "empty": "  "}


@pytest.mark.parametrize("note", list(BAD_NOTES.values()), ids=list(BAD_NOTES))
def test_hand_signed_bad_note_is_malformed(tmp_path: Path, note: str) -> None:
    t = Table3(tmp_path)
    path = t.play(t.start("dice-race"))
    save = savefile.read(path)
    signer = save.entries[-1]["seat"]
    forged = forge({**save.entries[-1], "note": note}, Home(tmp_path / "homes" / signer).load())
    out = tmp_path / "forged.toml"
    out.write_text(savefile.dumps(savefile.Save(save.header, [*save.entries[:-1], forged],
                                                save.state)), "utf-8")
    r = t.run(None, "verify", str(out))
    assert r.exit_code == 4, r.output
    assert "'note'" in r.output


def test_hand_signed_note_that_is_not_a_string_is_malformed(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.play(t.start("dice-race"))
    save = savefile.read(path)
    signer = save.entries[-1]["seat"]
    forged = forge({**save.entries[-1], "note": 7}, Home(tmp_path / "homes" / signer).load())
    out = tmp_path / "forged.toml"
    out.write_text(savefile.dumps(savefile.Save(save.header, [*save.entries[:-1], forged],
                                                save.state)), "utf-8")
    assert t.run(None, "verify", str(out)).exit_code == 4


def test_a_note_at_the_bound_verifies(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start("dice-race")
    who = t.status(path)["to_act"]
    longest = "\U0001f600" * savefile.NOTE_MAX_CHARS  # 500 characters, 2,000 bytes
    noted = t.wrote(who, "play", path, "--bot", "greedy", "--note", longest)
    assert t.run(None, "verify", noted).exit_code == 0


@pytest.mark.parametrize("note", list(BAD_NOTES.values()), ids=list(BAD_NOTES))
def test_cli_refuses_a_bad_note_and_writes_nothing(tmp_path: Path, note: str) -> None:
    t = Table3(tmp_path)
    path = t.play(t.start("dice-race"))
    who = t.status(path)["to_act"]
    before = sorted(p.name for p in t.saves.iterdir())
    other = next(h for h in ("ann", "bob", "cy") if h != who)
    for handle, args in ((who, ("play", path, "--bot", "greedy")), (who, ("resign", path,
                                                                          "--yes")),
                         (other, ("absent", path, who, "--remedy", "end")),
                         (other, ("away", path, "--until", "3d"))):
        r = t.run(handle, *args, "--note", note)
        assert r.exit_code == 2, (args, r.output)
        assert "--note" in r.output and "Nothing was signed" in r.output
    assert sorted(p.name for p in t.saves.iterdir()) == before


def test_send_refuses_a_note_pointing_at_the_signing_command(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start("dice-race")
    eml = tmp_path / "m.eml"
    r = t.run("ann", "send", path, "--eml", str(eml), "--note", "hello")
    assert r.exit_code == 2
    assert "--note TEXT --send" in r.output and not eml.exists()


def test_a_note_changes_no_chance_outcome(tmp_path: Path) -> None:
    """The same moves from the same position, with and without a note: what chance
    resolves for the next seat is the same (the beacon reads game id, seq and links)."""
    t = Table3(tmp_path)
    path = t.play(t.start("road-master"))
    who = t.status(path)["to_act"]
    home = tmp_path / "homes" / who
    twin = tmp_path / "twin"
    shutil.copytree(home, twin)  # the same seat signing twice, on two branches
    noted_path = t.wrote(who, "play", path, "--bot", "greedy", "--note", "this changes nothing")
    noted = session.load(noted_path, None)
    entry = noted.save.entries[-1]
    plain = session.sign_next(Home(twin), path, None, entry["moves"], None,
                              str(tmp_path / "b.toml"))
    assert entry["note"] == "this changes nothing" and "note" not in plain.entry
    assert entry["beacon"] == plain.entry["beacon"]
    assert noted.table.gstate == plain.table.gstate
    nxt = noted.table.seats[noted.table.duty().seat].handle
    reader = Home(tmp_path / "homes" / nxt).load()
    a = signing.preview(engine.replay(savefile.read(noted_path)).table, reader)
    b = signing.preview(engine.replay(savefile.read(plain.path)).table, reader)
    assert a.gstate == b.gstate
    assert noted.table.gstate.get("pending") and a.gstate != noted.table.gstate


def test_undo_then_sign_again_keeps_or_drops_the_note_as_given(tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path = t.start("dice-race")
    who = t.status(path)["to_act"]
    first = t.wrote(who, "play", path, "--bot", "greedy", "--note", "oops, wrong words")
    assert t.run(who, "undo", first).exit_code == 0
    plain = t.wrote(who, "play", path, "--bot", "greedy", "-o", str(tmp_path / "b.toml"))
    assert "note" not in savefile.read(plain).entries[-1]
    assert t.run(who, "undo", plain).exit_code == 0
    other = t.wrote(who, "play", path, "--bot", "greedy", "--note", "better words",
                    "-o", str(tmp_path / "c.toml"))
    assert savefile.read(other).entries[-1]["note"] == "better words"
