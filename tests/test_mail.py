"""Composing the message that carries a save (pbem.mail) and the home's mail profile.

Every message here is built from real saves of the tiny "dice-race" test game, signed in
three separate homes, and read back with the standard library's email parser."""

from __future__ import annotations

import re
from email import message_from_bytes, message_from_string, policy
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path

import pytest

from pbem import session
from pbem.errors import TurnError, UsageError
from pbem.mail import message as mail
from pbem.mail import profile
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.support.dice_race import GAME as DICE_RACE
from tests.support.duty import sign_duty

EMAILS = {"ann": "ann@example.org", "bob": "bob@example.org", "cy": "cy@example.org"}


def play(homes: dict[str, Home], folder: Path, *, emails: dict[str, str] | None = None,
         stop_after: int | None = None, bot: str = "random:7") -> list[session.Written]:
    """A dice-race game whose header carries the players' addresses; every hop written."""
    emails = EMAILS if emails is None else emails
    folder.mkdir(parents=True, exist_ok=True)
    seats = [f"{h}={emails[h]}" if emails.get(h) else h for h in homes]
    # Stopped early: an unreachable target, so random keys never end the game before.
    options = ["target=1000000"] if stop_after is not None else []
    written = session.new_game(homes["ann"], "dice-race", seats, options, None, folder=folder)
    hops = [written]
    while written.table.duty() is not None and (stop_after is None or len(hops) < stop_after):
        written = sign_duty(homes, written, bot)
        hops.append(written)
    return hops


def signer_home(homes: dict[str, Home], hop: session.Written) -> Home:
    return homes[hop.entry["seat"]]


def addresses(msg: EmailMessage, name: str) -> list[str]:
    return [a for _, a in getaddresses([str(v) for v in msg.get_all(name, [])])]


def plain(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def html_part(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def attachment(msg: EmailMessage) -> EmailMessage:
    parts = list(msg.iter_attachments())
    assert len(parts) == 1
    return parts[0]


@pytest.fixture
def midgame(homes: dict[str, Home], tmp_path: Path) -> list[session.Written]:
    return play(homes, tmp_path / "saves", stop_after=9)


# ---- addressing ---------------------------------------------------------------------------
def test_to_is_the_seat_to_act_and_cc_the_others(homes: dict[str, Home],
                                                  midgame: list[session.Written]) -> None:
    last = midgame[-1]
    sender = last.entry["seat"]
    actor = last.table.seats[last.table.duty().seat].handle  # type: ignore[union-attr]
    assert actor != sender
    msg = mail.compose(last.path, signer_home(homes, last))
    assert addresses(msg, "To") == [EMAILS[actor]]
    others = {EMAILS[h] for h in EMAILS} - {EMAILS[actor], EMAILS[sender]}
    assert set(addresses(msg, "Cc")) == others
    # The sender's address comes from its seat in the header when no profile is set.
    assert addresses(msg, "From") == [EMAILS[sender]]
    assert str(msg["From"]).startswith(sender)


def test_cc_can_be_left_out(homes: dict[str, Home], midgame: list[session.Written]) -> None:
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last), cc=False)
    assert msg["Cc"] is None
    assert len(addresses(msg, "To")) == 1


def test_profile_address_is_the_from(homes: dict[str, Home],
                                     midgame: list[session.Written]) -> None:
    last = midgame[-1]
    home = signer_home(homes, last)
    profile.set_email(home, "me@home.example")
    msg = mail.compose(last.path, home)
    assert addresses(msg, "From") == ["me@home.example"]


def test_seat_without_address_is_named_in_the_body(homes: dict[str, Home],
                                                   tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s", emails={"ann": EMAILS["ann"], "bob": EMAILS["bob"]},
                stop_after=9)
    # Find a hop that cy is not to act on, signed by ann or bob: cy is named, not mailed.
    hop = next(h for h in reversed(hops) if h.entry["seat"] != "cy"
               and h.table.duty() is not None
               and h.table.seats[h.table.duty().seat].handle != "cy")  # type: ignore[union-attr]
    msg = mail.compose(hop.path, signer_home(homes, hop))
    assert "cy@example.org" not in str(msg)
    body = plain(msg)
    assert "No mail address is known for cy: please forward this message to cy by hand." in body
    assert "cy (no address)" in body


def test_actor_without_address_means_mail_to_the_others(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s", emails={"ann": EMAILS["ann"], "bob": EMAILS["bob"]},
                stop_after=2)
    joined = hops[1]  # bob joined; cy, who has no address, joins next
    assert joined.entry["seat"] == "bob"
    msg = mail.compose(joined.path, homes["bob"])
    assert addresses(msg, "To") == [EMAILS["ann"]]
    assert msg["Cc"] is None
    assert msg["X-Pbem-To-Act"] == "cy join"
    assert "forward this message to cy" in plain(msg)


def test_nobody_to_mail_is_a_config_error_unless_to_is_given(homes: dict[str, Home],
                                                              tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s", emails={}, stop_after=5)
    last = hops[-1]
    with pytest.raises(mail.MailConfigError) as info:
        mail.compose(last.path, signer_home(homes, last))
    assert info.value.exit_code == 2
    assert "--to" in info.value.message
    msg = mail.compose(last.path, signer_home(homes, last), to=["friend@example.net"])
    assert addresses(msg, "To") == ["friend@example.net"]
    assert msg["From"] is None  # unknown: msmtp -t or the server fills it in


def test_contacts_supply_an_address_the_header_lacks(homes: dict[str, Home],
                                                     tmp_path: Path) -> None:
    from pbem.home.contacts import Contacts

    hops = play(homes, tmp_path / "s", emails={"ann": EMAILS["ann"]}, stop_after=9)
    hop = next(h for h in reversed(hops) if h.entry["seat"] == "ann")
    contacts = Contacts(homes["ann"])
    contacts.check_save(hop.save)
    contacts.players["bob"]["emails"] = ["bob@contacts.example"]
    contacts.changed = True
    contacts.write()
    msg = mail.compose(hop.path, homes["ann"])
    assert "bob@contacts.example" in addresses(msg, "To") + addresses(msg, "Cc")


# ---- subject, headers, threading ----------------------------------------------------------
def test_one_subject_per_game_and_the_body_says_what_changed(
        homes: dict[str, Home], midgame: list[session.Written]) -> None:
    """Gmail and Outlook thread by subject: every mail of a game has the same one (title
    and short id); the entry and who acts are in the body's title and X-Pbem-To-Act."""
    last = midgame[-1]
    game_id = last.save.game_id
    duty = last.table.duty()
    assert duty is not None and duty.kind == "turn"
    actor = last.table.seats[duty.seat].handle
    messages = mail.compose_each(last.path, signer_home(homes, last))
    messages.append(mail.compose(last.path, signer_home(homes, last), remind=True))
    assert {str(m["Subject"]) for m in messages} == {f"[pbem] Dice Race {game_id[:8]}"}
    title = f"Dice Race, game {game_id[:8]}, entry {last.entry['seq']}: {actor} to play\n"
    assert plain(messages[0]).startswith(title)
    assert plain(messages[-1]).startswith("Reminder: " + title)


def test_headers_identify_the_game_and_thread_it(homes: dict[str, Home],
                                                 midgame: list[session.Written]) -> None:
    a, b = midgame[-2], midgame[-1]
    first = mail.compose(a.path, signer_home(homes, a))
    second = mail.compose(b.path, signer_home(homes, b))
    game_id = b.save.game_id
    for msg, hop in ((first, a), (second, b)):
        assert msg["X-Pbem-Game"] == game_id
        assert msg["X-Pbem-Seq"] == str(hop.entry["seq"])
        assert re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", str(msg["Message-ID"]))
        assert msg["Date"] is not None
    assert first["Message-ID"] != second["Message-ID"]
    assert second["In-Reply-To"] == first["Message-ID"]
    import datetime

    when = datetime.datetime(2025, 6, 2, 10, 30, tzinfo=datetime.UTC)
    dated = mail.compose(b.path, signer_home(homes, b), now=when)
    assert dated["Date"].datetime == when


# ---- body --------------------------------------------------------------------------------
def test_body_tells_what_happened_since_the_reader_last_acted(
        homes: dict[str, Home], midgame: list[session.Written]) -> None:
    last = midgame[-1]
    save = last.save
    duty = last.table.duty()
    assert duty is not None
    reader = last.table.seats[duty.seat].handle
    mine = [e["seq"] for e in save.entries if e["seat"] == reader]
    body = plain(mail.compose(last.path, signer_home(homes, last)))
    assert f"Since your last entry ({mine[-1]}):" in body
    for entry in save.entries:
        line = f"{entry['seq']:4d}  {mail.describe_entry(entry)}"
        assert (line in body) == (entry["seq"] > mine[-1]), line
    assert f"It is your move, {reader}" in body
    assert f"pbem play {last.path.name} MOVE ..." in body
    assert DICE_RACE.render(save.state["view"]) in body


def test_body_since_overrides_the_start(homes: dict[str, Home],
                                        midgame: list[session.Written]) -> None:
    last = midgame[-1]
    body = plain(mail.compose(last.path, signer_home(homes, last), body_since=-1))
    assert "From the start:" in body
    assert "   0  ann created the game" in body
    body = plain(mail.compose(last.path, signer_home(homes, last), body_since=5))
    assert "After entry 5:" in body
    assert "   5  " not in body and "   6  " in body


def test_describe_entry_covers_every_kind() -> None:
    base = {"seq": 3, "seat": "cy", "moves": []}
    assert mail.describe_entry({**base, "kind": "create"}) == "cy created the game"
    assert mail.describe_entry({**base, "kind": "join"}) == "cy joined"
    assert mail.describe_entry({**base, "kind": "start"}) == "cy started the game"
    assert mail.describe_entry({**base, "kind": "resign"}) == "cy resigned"
    assert mail.describe_entry({**base, "kind": "turn", "moves": ["mine", "trade scrap:gold x2"]}
                               ) == "cy played: mine; trade scrap:gold x2"
    assert mail.describe_entry({**base, "kind": "turn"}) == "cy ended the turn"
    # deck work the engine asked for (it said "ended the turn", though no turn was played)
    chore = [{"deck": "posse", "op": "work", "items": []}]
    assert mail.describe_entry({**base, "kind": "turn", "chores": chore}
                               ) == "cy made no move and did the secret-deck work they owed"
    assert "final audit" in mail.describe_entry({**base, "kind": "reveal"})


def test_invitation_after_create_says_join(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s", stop_after=1)
    msg = mail.compose(hops[0].path, homes["ann"])
    assert msg["X-Pbem-To-Act"] == "bob, cy join"  # the joins' round: both still to sign
    assert addresses(msg, "To") == [EMAILS["bob"]]
    body = " ".join(plain(msg).split())
    name = hops[0].path.name
    # Both are invited and join in parallel: the mail (To bob, Cc cy) says so to both.
    assert (f"bob and cy are invited and each join now, in parallel: save the attached "
            f"{name} and join with pbem join {name} (first time? make an identity with "
            "'pbem keygen --name bob' or 'pbem keygen --name cy', whichever you are)") in body


def test_to_act_header_names_every_seat_still_to_sign_in_a_round(homes: dict[str, Home],
                                                                 tmp_path: Path) -> None:
    """X-Pbem-To-Act: in a round (the joins of bob and cy), every seat still to sign in it,
    comma-separated in seat order, then the kind of entry; outside a round the one seat."""
    written = session.new_game(homes["ann"], "dice-race", [f"{h}={EMAILS[h]}" for h in homes],
                               ["target=1000000"], None, folder=tmp_path)
    told = []
    for _ in range(4):  # each save mailed as it is written (an older one is stale)
        told.append(mail.compose(written.path, signer_home(homes, written))["X-Pbem-To-Act"])
        duty = written.table.duty()
        assert duty is not None
        written = sign_duty(homes, written, "random:7")
    assert told == ["bob, cy join", "cy join", "ann start",
                    f"{written.table.seats[duty.seat].handle} turn"]


def test_finished_game_goes_to_everyone_with_the_scores(homes: dict[str, Home],
                                                        tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s")
    last = hops[-1]
    assert last.table.duty() is None
    msg = mail.compose(last.path, signer_home(homes, last))
    assert plain(msg).splitlines()[0].endswith(": game over")
    assert msg["X-Pbem-To-Act"] is None
    sender = last.entry["seat"]
    assert set(addresses(msg, "To")) == {EMAILS[h] for h in EMAILS if h != sender}
    body = plain(msg)
    assert f"pbem verify {last.path.name}" in body
    assert "Final scores, best first:" in body


def test_stale_save_is_not_mailed(homes: dict[str, Home], midgame: list[session.Written]) -> None:
    old = midgame[-3]
    # The last signer has seen everything up to the newest save: the old one is stale.
    with pytest.raises(TurnError, match="stale"):
        mail.compose(old.path, signer_home(homes, midgame[-1]))


# ---- HTML and the board -------------------------------------------------------------------
def test_html_alternative_repeats_the_text_and_shows_a_board_table(
        homes: dict[str, Home], midgame: list[session.Written]) -> None:
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last))
    assert msg.get_content_type() == "multipart/mixed"
    alternative = next(msg.iter_parts())
    assert alternative.get_content_type() == "multipart/alternative"
    page = html_part(msg)
    assert "<svg" not in page
    assert "<table" in page and "<th style=\"text-align:left;vertical-align:top\">score</th>" in page
    import html as html_mod

    for line in plain(msg).splitlines():
        words = line.strip()
        if words and not words.startswith("scores:") and "The board" not in words:
            assert html_mod.escape(words) in page, words


def test_html_embeds_the_games_board_as_a_png_when_it_has_render_svg(
        homes: dict[str, Home], midgame: list[session.Written],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that draws its board: the HTML body shows it as a cid: PNG image (see
    test_pictures for the image itself), and no page repeats the picture; one that does
    not: the view as tables, and no image."""
    seen: list[dict] = []

    def render_svg(view: dict) -> str:
        seen.append(view)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" '
                f'viewBox="0 0 40 20"><text y="15">{view["score"]}</text></svg>')

    monkeypatch.setattr(DICE_RACE, "render_svg", render_svg, raising=False)
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last))
    page = html_part(msg)
    assert seen and all(view == last.save.state["view"] for view in seen)
    assert '<img src="cid:' in page and "<svg" not in page and "<table" not in page
    pages = [p for p in msg.iter_attachments() if p.get_content_type() == "text/html"]
    assert pages == []
    monkeypatch.setattr(DICE_RACE, "render_svg", lambda view: None, raising=False)
    msg = mail.compose(last.path, signer_home(homes, last))
    assert "<table" in html_part(msg) and "cid:" not in html_part(msg)
    assert [p.get_content_type() for p in msg.walk() if not p.is_multipart()] == \
        ["text/plain", "text/html", "application/toml"]


def test_view_table_html_escapes_and_nests() -> None:
    out = mail.view_table_html({"a<b": [{"x": 1, "y": True}, {"x": 2}], "n": [], "s": "<i>"})
    assert "a&lt;b" in out and "&lt;i&gt;" in out and "<i>none</i>" in out
    assert "<th>x</th><th>y</th>" in out and "yes" in out


# ---- the attachment -----------------------------------------------------------------------
def test_attachment_is_the_file_byte_for_byte(homes: dict[str, Home],
                                              midgame: list[session.Written]) -> None:
    last = midgame[-1]
    part = attachment(mail.compose(last.path, signer_home(homes, last)))
    assert part.get_content_type() == "application/toml"
    assert part.get_filename() == last.path.name
    assert part.get_content() == last.path.read_bytes()


def test_a_save_object_is_attached_under_its_default_name(
        homes: dict[str, Home], midgame: list[session.Written]) -> None:
    last = midgame[-1]
    part = attachment(mail.compose(last.save, signer_home(homes, last)))
    entry = last.entry
    assert part.get_filename() == savefile.default_name("dice-race", last.save.game_id,
                                                       entry["seq"], entry["seat"])
    assert savefile.parse_bytes(part.get_content()).entries == last.save.entries


def test_eml_round_trip_and_never_overwrites(homes: dict[str, Home],
                                             midgame: list[session.Written],
                                             tmp_path: Path) -> None:
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last))
    target = tmp_path / f"{last.path.stem}.eml"
    mail.write_eml(msg, target)
    raw = target.read_bytes()
    assert b"\r\n" not in raw
    with pytest.raises(UsageError, match="never overwrites"):
        mail.write_eml(msg, target)
    back = message_from_bytes(raw, policy=policy.default)
    found = mail.find_saves(back)
    assert [f.name for f in found] == [last.path.name]
    assert found[0].data == last.path.read_bytes()
    # Read back from the text form (--stdout) as well.
    found = mail.find_saves(message_from_string(mail.as_text(msg), policy=policy.default))
    assert found[0].data == last.path.read_bytes()


# ---- finding saves in a message -----------------------------------------------------------
def test_find_saves_ignores_bodies_and_reports_oversized_saves(
        homes: dict[str, Home], midgame: list[session.Written]) -> None:
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last))
    assert len(mail.find_saves(msg)) == 1  # not the text or HTML body
    size = len(last.path.read_bytes())
    found = mail.find_saves(msg, max_bytes=size // 2)
    assert [(f.problem, f.data) for f in found] == [("too-large", b"")]


def test_oversized_non_save_is_ignored() -> None:
    msg = EmailMessage()
    msg["Subject"] = "holiday"
    msg.set_content("photos attached")
    msg.add_attachment(b"\x89PNG" + b"\0" * 5000, maintype="image", subtype="png",
                       filename="beach.png")
    assert mail.find_saves(msg, max_bytes=1000) == []


def test_forwarded_message_save_is_found(homes: dict[str, Home],
                                         midgame: list[session.Written]) -> None:
    last = midgame[-1]
    inner = mail.compose(last.path, signer_home(homes, last))
    outer = EmailMessage()
    outer["Subject"] = "Fwd: your move"
    outer.set_content("see below")
    outer.add_attachment(inner)  # message/rfc822
    found = mail.find_saves(outer)
    assert [f.data for f in found] == [last.path.read_bytes()]


# ---- the profile --------------------------------------------------------------------------
def test_profile_checks_addresses_and_never_stores_passwords(tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    assert profile.email(home) == ""
    assert profile.set_email(home, "  ann@example.org ") == "ann@example.org"
    assert profile.email(home) == "ann@example.org"
    for bad in ("ann", "ann@", "Ann <ann@example.org>", "a b@example.org", "ann@localhost"):
        with pytest.raises(UsageError):
            profile.set_email(home, bad)
    with pytest.raises(UsageError, match="never stores a password"):
        profile.set_smtp(home, password="hunter2")
    with pytest.raises(UsageError, match="security"):
        profile.set_smtp(home, security="ssl")
    with pytest.raises(UsageError, match="port"):
        profile.set_smtp(home, port=70000)
    assert profile.set_smtp(home, host="smtp.example.org", port=587, user="ann",
                            password_env="PBEM_SMTP_PASSWORD") == {
        "host": "smtp.example.org", "port": 587, "user": "ann",
        "password_env": "PBEM_SMTP_PASSWORD"}
    assert profile.set_smtp(home, user=None)["host"] == "smtp.example.org"
    assert "user" not in profile.load(home).smtp
    assert profile.load(home).email == "ann@example.org"
    (home.path / profile.FILE).write_text("email = [", "utf-8")
    with pytest.raises(UsageError, match="unreadable"):
        profile.load(home)


# ---- reminders (issue 11) -------------------------------------------------------------------
def test_duration_words() -> None:
    from datetime import timedelta

    cases = {timedelta(seconds=20): "under a minute", timedelta(minutes=1): "1 minute",
             timedelta(minutes=59): "59 minutes", timedelta(hours=5, minutes=59): "5 hours",
             timedelta(days=1): "1 day", timedelta(days=1, hours=4): "1 day 4 hours",
             timedelta(days=2, hours=1): "2 days 1 hour", timedelta(days=9, hours=7): "9 days 7 hours",
             timedelta(days=6, hours=23, minutes=59): "6 days 23 hours",
             timedelta(seconds=-60): "under a minute"}  # a clock ahead of ours
    for span, words in cases.items():
        assert mail.duration_words(span) == words


def test_waiting_since_prefers_the_signed_time(tmp_path: Path) -> None:
    import datetime
    import os

    save = tmp_path / "s.toml"
    save.write_text("x")
    os.utime(save, (1_700_000_000, 1_700_000_000))
    entry = {"seq": 7, "seat": "bob", "time": "2025-06-01T08:30:00Z"}
    when, source = mail.waiting_since(entry, save)  # type: ignore[arg-type]
    assert when == datetime.datetime(2025, 6, 1, 8, 30, tzinfo=datetime.UTC)
    assert source == "the time bob signed in entry 7"
    for bad in ({"seq": 7, "seat": "bob"}, {"seq": 7, "seat": "bob", "time": "yesterday"},
                {"seq": 7, "seat": "bob", "time": 1_700_000_000}):
        when, source = mail.waiting_since(bad, save)  # type: ignore[arg-type]
        assert when == datetime.datetime.fromtimestamp(1_700_000_000, datetime.UTC)
        assert source.startswith("the date of the save file")
    assert mail.waiting_since({"seq": 1, "seat": "a"}, None) == (None, "")  # type: ignore[arg-type]
    assert mail.waiting_since({"seq": 1, "seat": "a"}, tmp_path / "gone") == (None, "")  # type: ignore[arg-type]


def test_remind_refuses_a_finished_game(homes: dict[str, Home], tmp_path: Path) -> None:
    hops = play(homes, tmp_path / "s")
    with pytest.raises(UsageError, match="nobody to remind"):
        mail.compose(hops[-1].path, homes["ann"], remind=True)


def test_commands_in_the_body_quote_the_file_name(homes: dict[str, Home],
                                                  midgame: list[session.Written],
                                                  tmp_path: Path) -> None:
    import shlex
    import shutil

    last = midgame[-1]
    odd = tmp_path / "my turn; $(rm -rf ~).toml"
    shutil.copy(last.path, odd)
    msg = mail.compose(odd, signer_home(homes, last))
    body = plain(msg)
    [line] = [ln for ln in body.splitlines() if ln.strip().startswith("pbem play")]
    assert shlex.split(line)[:3] == ["pbem", "play", odd.name]
    assert attachment(msg).get_filename() == odd.name
    ugly = tmp_path / "\x1b[2Jturn\u202e.toml"
    shutil.copy(last.path, ugly)
    msg = mail.compose(ugly, signer_home(homes, last))
    assert attachment(msg).get_filename() == last.path.name  # the standard name instead
    assert "\x1b" not in mail.as_text(msg) and "\u202e" not in plain(msg)


def test_no_control_character_reaches_the_message(homes: dict[str, Home],
                                                  midgame: list[session.Written],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a game's rendering holds, --stdout prints no escape sequence."""
    monkeypatch.setattr(DICE_RACE, "render", lambda view: "\x1b]0;owned\x07board\u202e")
    monkeypatch.setattr(DICE_RACE, "render_svg", lambda view: "<svg>\x1b[2J</svg>")
    last = midgame[-1]
    msg = mail.compose(last.path, signer_home(homes, last))
    raw = mail.as_text(msg)
    assert not any(ch in raw for ch in ("\x1b", "\x07", "\u202e"))
    assert "\\x1b]0;owned\\x07board\\u202e" in plain(msg)
    assert "\x1b" not in html_part(msg)
