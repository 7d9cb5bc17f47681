"""Everything a seat can read names no secret card it cannot know (PROTOCOL.md guarantee 3),
over whole games played through homes as players play them: Road Master at six players
with Super Bonus draws, returns and short draws, and the Red Dog Junction Posse draft at
three players (and five under PBEM_TEST_LONG=1).

At every save, as it is written, for every seat's home and for a home with no seat (an
observer holding only the saves), the test reads what that home can read: the save
itself (every field of its entries and [state], and its comment lines), ``show`` (text,
``--json`` and ``--svg``), ``log`` (text and ``--json``), ``verify --json``, ``games
--json``, ``moves --json`` (a seat's home), and the mail the signer composes for the save
(``send --stdout``: its headers and every text part; the board image is drawn from the
public view the SVG shows). It then names every card of the secret deck found in all of
that and compares it with an ideal view worked out from the game's facts alone:

* a seat knows the cards it has read in the clear so far (its drawn, held or hand slots,
  opened with its own seed, ``mental_open.read``), even once they leave it (returned,
  passed on);
* everyone knows a card once the rules open it (a Posse pick shown at the end of the
  draft, a Road Master card held at the end once every seat revealed), and the whole
  Posse deck once every dealt card is shown (the rest is the market deck, by elimination);
* nobody knows anything else.

Two things are left out of the search, each public by the rules: the deck's starting
card list (the first shuffle pass's ``cards``, the rules' own list) and the component data
the save carries (every card's definition). Ciphertexts, key points and proofs carry no
card name; what they could tell by their links is tests/test_no_trail.py's part.

The swap test closes what a search for names cannot see (an order, a count, a slot id
that follows a card): two Road Master games that differ only in where two cards lie,
neither read by ann, must give ann's home and an observer's the same bytes of everything
above at every save, but for the values listed at ``CRYPTO`` below.
"""

from __future__ import annotations

import email
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.errors import PbemError
from pbem.protocol.crypto import mental_open
from pbem.protocol.crypto.identity import Home
from tests.enginekit import deck_root_of
from tests.support import scale
from tests.support.fixed_game import fixed_home
from tests.support.stream import fixed_entropy

HANDLES = ("ann", "bob", "cy", "dee", "eve", "fay")
OBSERVER = "observer"  # a home with no seat: it holds the saves only


class Watch:
    """Follows one game save by save: what each seat may know of the deck, and what every
    home can read that names a card it may not."""

    def __init__(self, root: Path, homes: dict[str, Home], deck: str) -> None:
        self.root, self.homes, self.deck = root, homes, deck
        self.runner = CliRunner()
        self.known: dict[str, set[str]] = {h: set() for h in homes}
        self.cards: re.Pattern[str] | None = None
        self.uids: list[str] = []
        self.problems: list[str] = []
        self.looked: dict[str, int] = {}
        self.saves = 0
        self.lines: set[str] = set()  # every line of the game's own log seen

    def cli(self, home: str, *args: str) -> str:
        result = self.runner.invoke(main, ["--home", str(self.root / "homes" / home), *args])
        assert "Traceback" not in result.output, result.output
        return result.output

    def after(self, written: session.Written, check: bool = True) -> None:
        """Learn what each seat reads at ``written``; then, if ``check``, check what every
        home can read there (the swap test compares what they read instead)."""
        d = written.table.gstate.get("secret", {}).get(self.deck)
        if d is None:
            return
        if self.cards is None:
            self.uids = list(d["cards"])
            words = "|".join(map(re.escape, sorted(self.uids, key=len, reverse=True)))
            self.cards = re.compile(rf"(?<![\w-])({words})(?![\w-])")
        save = written.save
        self.lines.update(written.table.gstate.get("log", []))
        for entry in save.entries:
            if entry["kind"] in ("create", "join"):
                handle = entry["seat"]
                seed = deck_root_of(self.homes[handle].load(), save, entry["nonce"])
                seat = written.table.seat_of(handle)
                assert seat is not None
                self.known[handle] |= set(mental_open.read(
                    d, save.game_id, self.deck, seat, seed, self.uids).values())
        if check:
            self.saves += 1
            public = self.public(written, d)
            for home in [*self.homes, OBSERVER]:
                allowed = public | self.known.get(home, set())
                for what, text in self.readable(written, home).items():
                    self.looked[what] = self.looked.get(what, 0) + 1
                    self.check(text, allowed, f"entry {len(save.entries) - 1}, {home}'s {what}")

    def public(self, written: session.Written, d: dict[str, Any]) -> set[str]:
        """The cards everyone knows: the open slots, every card once every dealt slot is
        open, the held cards each reveal opened, and (Road Master) those the end opened."""
        slots = d["slots"].values()
        # (an open slot, or a held one its holder's reveal opened)
        opened = {s["card"] for s in slots if "card" in s}
        if opened and all(s["status"] in ("open", "deck") for s in slots) and \
                self.deck == "posse":
            return set(self.uids)  # the undealt rest is the market deck, by elimination
        sb = written.table.gstate.get("sb")
        if sb is not None:
            opened |= set(sb["opened"].values())
            final = session.load(written.path, None).report.final
            if final is not None:
                opened |= set(final["sb"]["opened"].values())
        return opened

    def readable(self, written: session.Written, home: str) -> dict[str, str]:
        path = str(written.path)
        save = written.save
        texts = {"save": _save_text(written.path, save)}
        texts["show"] = self.cli(home, "show", path)
        texts["show --json"] = self.cli(home, "show", path, "--json")
        picture = self.root / f"{home}.svg"
        picture.unlink(missing_ok=True)
        self.cli(home, "show", path, "--svg", str(picture))
        texts["show --svg"] = picture.read_text("utf-8") if picture.exists() else ""
        texts["log"] = self.cli(home, "log", path)
        texts["log --json"] = self.cli(home, "log", path, "--json")
        texts["verify --json"] = self.cli(home, "verify", path, "--json")
        texts["games --json"] = self.cli(home, "games", "--json")
        if home != OBSERVER:
            texts["moves --json"] = self.cli(home, "moves", path, "--json")
        if home == save.entries[-1]["seat"]:
            texts["mail"] = _mail_text(self.cli(home, "send", path, "--to", "x@example.org",
                                                "--stdout"))
        return texts

    def check(self, text: str, allowed: set[str], where: str) -> None:
        assert self.cards is not None
        unknown = sorted(set(self.cards.findall(text)) - allowed)
        if unknown:
            self.problems.append(f"{where} names {', '.join(unknown)}")


def _save_text(path: Path, save: Any) -> str:
    """Every field of the save but the rules' own card list and component data, and the
    file's comment lines."""
    entries = [{**e, "chores": [{k: v for k, v in c.items() if k != "cards"}
                                for c in e["chores"]]} for e in save.entries]
    state = {k: v for k, v in save.state.items() if k != "data"}
    header = {k: v for k, v in save.header.items() if k != "components"}
    comments = [line for line in path.read_text("utf-8").splitlines() if line.startswith("#")]
    return json.dumps({"header": header, "entries": entries, "state": state}) + "\n".join(comments)


def _mail_text(raw: str) -> str:
    """A composed mail's headers and text parts (the attached save is the save checked)."""
    message = email.message_from_string(raw)
    parts = [f"{name}: {value}" for name, value in message.items()]
    for part in message.walk():
        kind = part.get_content_type()
        if kind.startswith("text/"):
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            parts.append(payload.decode("utf-8"))
        elif not kind.startswith("multipart"):
            parts.append(f"<{kind} {part.get_filename()}>")
    assert len(parts) > 3, raw[:500]
    return "\n".join(parts)


def _play(root: Path, ruleset: str, players: int, options: list[str], deck: str,
          limit: int, draws: bool) -> tuple[Watch, session.Written]:
    """A game through homes with fixed keys and fixed entropy, the greedy bot's turns, each
    save watched as it is written, up to ``limit`` entries or the first turn of play (the
    Posse draft over: every card shown). ``draws``: every other turn of every seat but the last
    is a Super Bonus draw alone where it is legal (the greedy bot seldom draws), so draws
    run short and returns complete them."""
    with fixed_entropy(hashlib.sha256(f"secret-views/{ruleset}/{players}".encode()).digest()):
        homes = {h: fixed_home(root / "homes" / h, h) for h in HANDLES[:players]}
        watch = Watch(root, homes, deck)
        (root / "saves").mkdir()
        written = session.new_game(homes["ann"], ruleset, list(homes), options, None,
                                   folder=root / "saves")
        count = 1
        watch.after(written)
        while (duty := written.table.duty()) is not None and count < limit and \
                written.table.gstate.get("phase") != "play":
            handle = written.table.seats[duty.seat].handle
            written = _sign(homes[handle], written, duty.kind,
                            draws and count % 2 == 1 and duty.seat != players - 1)
            count += 1
            watch.after(written)
    return watch, written


def _sign(home: Home, written: session.Written, kind: str, draw: bool, bot: str = "greedy"
          ) -> session.Written:
    if kind == "turn" and draw:
        try:
            return session.sign_next(home, written.path, None, ["superbonus"], None, None)
        except PbemError:  # no draw now: the bot's turn
            pass
    return session.sign_next(home, written.path, "join" if kind == "join" else None, [],
                             bot if kind in ("turn", "reveal") else None, None)


def _moves(written: session.Written, verb: str) -> int:
    return sum(m.split()[0] == verb for e in written.save.entries for m in e["moves"])


@pytest.mark.heavy
def test_super_bonus_cards_are_read_by_their_holder_alone_everywhere(tmp_path: Path) -> None:
    """Six players, a whole game to its audit: draws, short draws completed from the
    next returns, keeps and returns, and the held cards opened at the end."""
    watch, written = _play(tmp_path, "road-master", 6, [], "superbonus", 400, draws=True)
    assert watch.problems == [], watch.problems[:5]
    assert written.table.duty() is None
    assert any("come from the next cards returned" in line for line in watch.lines)
    assert any("the draw is complete" in line for line in watch.lines)
    assert _moves(written, "superbonus") >= 9 and _moves(written, "bottom") >= 8
    assert _moves(written, "keep") >= 2
    count = len(written.save.entries)
    assert watch.saves == count and watch.looked["mail"] == count
    assert watch.looked["save"] == count * 7
    assert sum(bool(cards) for cards in watch.known.values()) >= 4  # drawers who read
    _the_check_would_find_a_leak(watch)


@pytest.mark.heavy
@pytest.mark.parametrize("players", scale.cases([3, 5], quick=[3]))
def test_posse_cards_are_read_by_their_holder_alone_everywhere(players: int,
                                                                tmp_path: Path) -> None:
    """The whole draft, from the create entry to the first turn of play, when the shown
    picks are handed out (rules version 5: the deal at the last pass, one-step passes,
    the opens in a round). Five players under PBEM_TEST_LONG=1 only: about 120 entries,
    each read by six homes (about ten minutes)."""
    watch, written = _play(tmp_path, "red-dog-junction", players, ["variant=posse"], "posse",
                           400, draws=False)
    assert written.table.gstate["phase"] == "play"
    assert _moves(written, "pick") == 8 * players
    assert all(len(watch.known[h]) >= 9 for h in HANDLES[:players])
    assert watch.problems == [], watch.problems[:5]
    assert watch.saves >= 8 * 2 + 5 and watch.looked["mail"] == watch.saves
    _the_check_would_find_a_leak(watch)


def _the_check_would_find_a_leak(watch: Watch) -> None:
    """The check itself can fail: a card ann never read, in a text ann reads, is found."""
    secret = sorted(set(watch.uids) - watch.known["ann"])[0]
    watch.problems = []
    watch.check(f'{{"private": {{"s9": "{secret}"}}}}', watch.known["ann"], "planted")
    assert watch.problems == [f"planted names {secret}"]


# ---- the swap test ---------------------------------------------------------------------------
# Values that are ciphertexts, key points, proofs, hashes and signatures: unpadded
# base64url of 43 characters or more (a point is 43, a Chaum-Pedersen proof 86, a shuffle
# proof's pieces longer) and hex of 64 characters or more (an entry hash, a signature).
# They differ between two games whose cards differ, and tell nothing of the cards under the
# DDH assumption; everything else must be the same bytes.
# A mail's Message-ID (and the In-Reply-To and References naming the entry before) ends
# in the first 8 hex digits of its entry's hash, and its MIME boundary is drawn at random
# by the email library: both are left out too.
CRYPTO = re.compile(r"(?<![A-Za-z0-9_-])(?:[A-Za-z0-9_-]{43,}|[0-9a-f]{64,})(?![A-Za-z0-9_-])")
MESSAGE_ID = re.compile(r"(<pbem\.[0-9a-f]{32}\.\d+\.)[0-9a-f]{8}@")
BOUNDARY = re.compile(r"={15}\d{19}==")


def _masked(text: str) -> str:
    text = MESSAGE_ID.sub(r"\1<hash>@", text)
    return BOUNDARY.sub("<boundary>", CRYPTO.sub("<crypto>", text))


def _swap_game(root: Path, swap: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch
               ) -> tuple[dict[str, list[str]], session.Written, dict[str, set[str]]]:
    """A Road Master game at four players by the random bot (its choices never look at a
    card), a Super Bonus draw at each turn of bob, cy and dee where it is legal, in
    the folder ``root``, for its first 48 entries (before the end opens the held cards).
    ``swap``: the last shuffle pass exchanges the cards its permutation puts in those two
    positions (slots s_i and s_j), and nothing else changes. Returns what ann's home and
    an observer's read at every save (masked), the last save, and the cards each seat read."""
    from pbem.protocol.crypto import mental

    plain = mental.permutation

    def permutation(seed: bytes, deck: str, pass_index: int, size: int) -> list[int]:
        perm = plain(seed, deck, pass_index, size)
        if swap is not None and pass_index == 3:  # the last joiner's pass
            i, j = swap
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    monkeypatch.setattr(mental, "permutation", permutation)
    read: dict[str, list[str]] = {"ann": [], OBSERVER: []}
    with fixed_entropy(hashlib.sha256(b"secret-views/swap").digest()):
        homes = {h: fixed_home(root / "homes" / h, h) for h in HANDLES[:4]}
        watch = Watch(root, homes, "superbonus")
        (root / "saves").mkdir()
        written = session.new_game(homes["ann"], "road-master", list(homes), [], None,
                                   folder=root / "saves")
        while (duty := written.table.duty()) is not None and len(written.save.entries) < 48:
            handle = written.table.seats[duty.seat].handle
            written = _sign(homes[handle], written, duty.kind,
                            handle != "ann", "random:7")
            watch.after(written, check=False)
            for home in read:
                texts = watch.readable(written, home)
                read[home].append("\n".join(f"== {k}\n{_masked(v)}" for k, v in texts.items()))
            read["ann"][-1] += _masked(written.path.read_text("utf-8"))
    monkeypatch.setattr(mental, "permutation", plain)
    return read, written, watch.known


def _starting_cards(written: session.Written, homes_root: Path) -> list[str]:
    """The card of s0, s1, ... after the last shuffle pass (every seat's deck key off)."""
    from pbem.protocol.crypto import mental
    from pbem.protocol.replay import engine
    from pbem.protocol.state import headers

    save = written.save
    table = headers.empty_table(save.header)
    for entry in save.entries[:4]:
        table, _ = engine.step(table, entry, replay=True)
    d = table.gstate["secret"]["superbonus"]
    keys = []
    for entry in save.entries[:4]:
        home = fixed_home(homes_root / entry["seat"], entry["seat"])
        seed = deck_root_of(home.load(), save, entry["nonce"])
        keys.append(mental.deck_key(seed, "superbonus"))
    points = mental.card_points(save.game_id, "superbonus", d["cards"])
    cards = []
    for sid in d["order"]:
        point = mental.point_bytes(d["slots"][sid]["ct"])
        for key in keys:
            point = mental.decrypt(key, point)
        cards.append(points[point])
    return cards


@pytest.mark.heavy
def test_a_swap_of_two_cards_ann_never_reads_changes_nothing_ann_or_an_observer_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two games that differ only in which of two Super Bonus cards lies where (the last
    shuffle pass exchanges them) give ann, who never reads either, and an observer the same
    bytes of everything they read at every save, ciphertexts, proofs, hashes and
    signatures aside; a seat that reads one of them sees the difference."""
    game = tmp_path / "game"
    first, written, known = _swap_game(game, None, monkeypatch)
    cards = _starting_cards(written, game / "homes")
    assert written.table.duty() is not None  # not over: no card opened yet
    hidden = [i for i, uid in enumerate(cards) if uid not in known["ann"]]
    # Two cards ann never reads, one of them read by a seat that never reads the other.
    i, j, reader = next((i, j, h) for i in hidden for j in hidden for h in ("bob", "cy", "dee")
                        if cards[i] in known[h] and cards[j] not in known[h])
    game.rename(tmp_path / "first")
    second, swapped, known_after = _swap_game(game, (i, j), monkeypatch)
    assert _starting_cards(swapped, game / "homes")[i] == cards[j]
    assert [e["moves"] for e in swapped.save.entries] == [e["moves"] for e in written.save.entries]
    assert known_after[reader] != known[reader]  # the swap is seen by a seat that reads it
    assert known_after["ann"] == known["ann"]
    for home in ("ann", OBSERVER):
        assert len(first[home]) == len(second[home]) == 47  # every save after the create
        for at, (one, other) in enumerate(zip(first[home], second[home], strict=True)):
            differ = [f"{a!r} / {b!r}" for a, b in zip(one.splitlines(), other.splitlines(),
                                                        strict=False) if a != b]
            assert one == other, f"{home} reads something else at save {at}: {differ[:8]}"
