"""What pbem says of chance queued inside a round of a simultaneous step (docs/protocol-
rounds.md): the round's entries resolve none of it, so its outcome appears with the
first entry in the order of play after the round, not "when the next player opens the
save" (the next player may be another seat of the round, whose entry draws nothing).
The test game is Sealed Bids with open bids where each bid also rolls a die of luck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from pbem import registry, session
from pbem.cli import main
from pbem.game import State, queue_chance
from pbem.mail import message
from pbem.protocol.crypto.identity import Home
from tests.enginekit import play_game, sign_as
from tests.support.sealed_bids import SealedBids


class LuckyBids(SealedBids):
    """Sealed Bids whose every bid also rolls a die that adds to its seat's points."""

    info = SealedBids.info._replace(id="sealed-bids-lucky", title="Sealed Bids, lucky")

    def apply(self, state: State, seat: int, move: str) -> None:
        super().apply(state, seat, move)
        queue_chance(state, {"kind": "luck", "seat": seat})

    def resolve(self, state: State, request: dict[str, Any], rng: Any) -> None:
        if request["kind"] == "luck":
            state["points"][request["seat"]] += rng.randbelow(3)
        else:
            super().resolve(state, request, rng)


registry.register("sealed-bids-lucky", LuckyBids())


def round_under_way(homes: dict[str, Home], tmp_path: Path) -> session.Written:
    """ann, bob and cy bid face up; ann has bid (her die queued), bob and cy not yet."""
    start = play_game(homes, tmp_path / "s", game="sealed-bids-lucky",
                      options=["open=true", "rounds=3"], stop_after=4)[-1]
    written = sign_as(homes["ann"], start, None)
    table = written.table
    assert table.round_first >= 0 and table.gstate["pending"]
    assert table.round_missing() == [1, 2]
    return written


def mail_text(written: session.Written, sender: Home, to: list[str]) -> str:
    (mail,) = message.compose_each(written.path, sender, to=to)
    return " ".join(mail.get_body(("plain",)).get_content().split())


def test_the_mail_in_a_round_says_the_dice_appear_after_the_round(
        homes: dict[str, Home], tmp_path: Path) -> None:
    written = round_under_way(homes, tmp_path)
    # bob opens the save next and signs: his entry of the round draws nothing
    after_bob = sign_as(homes["bob"], written.path, None)
    assert after_bob.table.gstate["pending"] and after_bob.table.round_first >= 0
    for text in (mail_text(written, homes["ann"], ["bob@example.org"]),
                 mail_text(written, homes["ann"], ["x@example.org", "y@example.org"])):
        assert "when the next player opens the save" not in text
        assert ("Dice rolled and cards drawn in this round are not shown yet: they appear "
                "with the first entry in the order of play after the round (each with the "
                "first such entry by a seat other than the one that rolled or drew it).") in text


def test_the_dice_of_the_round_appear_as_the_mail_says(homes: dict[str, Home],
                                                       tmp_path: Path) -> None:
    """The ground truth of the sentence above: nothing of it drawn inside the round; the
    first entry after it draws what the other seats rolled, the next one the rest."""
    written = round_under_way(homes, tmp_path)
    for handle in ("bob", "cy"):
        written = sign_as(homes[handle], written.path, None)
        assert len(written.table.gstate["pending"]) == 3 - (handle == "bob")
    assert written.table.round_first < 0
    duty = written.table.duty()
    assert duty is not None
    first = written.table.seats[duty.seat].handle
    written = sign_as(homes[first], written.path, None)
    seq = written.entry["seq"]  # its own bid rolls again: not of the round
    left = [r["seat"] for r in written.table.gstate["pending"] if r["seq"] < seq]
    assert left == [duty.seat]


def test_the_mail_while_a_vote_is_due_says_a_vote_draws_nothing(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Dice Race: one seat rolls, the next (past its patience) is proposed absent by the
    third; the mail to the voter (the roller) said the roll was made 'in the last entry'
    (the proposal) and would appear 'when the next player opens the save': the voter's
    entry resolves nothing."""
    from tests.enginekit import actor, tick

    start = play_game(homes, tmp_path / "d", game="dice-race", options=["target=1000"],
                      stop_after=4)[-1]
    roller = actor(start)
    written = session.sign_next(homes[roller], start, None, ["roll"], None, None)
    rolled = written.entry["seq"]
    absent = actor(written.path)
    proposer = next(h for h in homes if h not in (roller, absent))
    assert written.table.gstate["pending"]
    tick(days=8)
    written = sign_as(homes[proposer], written.path, "absent", player=absent, remedy="bot")
    duty = written.table.duty()
    assert duty is not None and duty.kind == "vote" and written.table.gstate["pending"]
    assert written.table.seats[duty.seat].handle == roller
    voted = sign_as(homes[roller], written.path, "vote", vote="accept")
    assert voted.table.gstate["pending"]  # the vote drew nothing: the mail's ground truth
    text = mail_text(written, homes[proposer], [f"{roller}@example.org"])
    assert "when the next player opens the save" not in text
    assert "in the last entry" not in text
    assert (f"Dice rolled and cards drawn in entry {rolled} are not shown yet: they appear "
            "with the next entry in the order of play by another seat than the one that "
            "rolled or drew them (a vote resolves nothing).") in text


def test_the_entry_resolving_the_chance_before_a_sealed_step_is_told_as_such(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Sealed bids, the prizes reshuffled after each step: the entry that completes the
    openings queues the chance, and the first seat of the next sealed step signs a turn
    with no moves that only resolves it. The mail said 'ann ended the turn' (her turn
    comes in the round of commitments after it) and the log said nothing of it."""
    import tests.test_round_chance  # noqa: F401  (registers sealed-bids-reshuffled)
    from tests.support.duty import sign_duty

    path = play_game(homes, tmp_path / "s", game="sealed-bids-reshuffled",
                     options=["rounds=4"], stop_after=4)[-1]
    written = session.sign_next(homes["ann"], path, None, [], "greedy", None)
    while not (written.entry["kind"] == "turn" and not written.entry["moves"]
               and "round" not in written.entry):
        assert written.entry["seq"] < 20
        written = sign_duty(homes, written, "greedy")
    seq, who = written.entry["seq"], written.entry["seat"]
    assert not written.table.gstate["pending"] and written.table.round_missing()
    said = (f"{who} resolved the chance pending before the sealed step (no move: {who}'s "
            "own turn comes in the step's round)")
    text = mail_text(written, homes[who], ["x@example.org"])
    assert f"{seq} {said}" in text and f"{who} ended the turn" not in text
    log = CliRunner().invoke(main, ["--home", str(homes[who].path), "log", str(written.path)])
    assert f"\n        {said}.\n" in log.output


def test_the_mail_after_a_roll_says_the_next_entry_by_another_seat_draws_it(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """Dice Race: after a roll, the mail said the die appears 'when the next player opens
    the save', untrue where the next player is played by the bot (the seat after it signs
    the entry that draws it). It names the entry that draws it, whoever signs it; that
    entry does draw it (the ground truth)."""
    from tests.enginekit import actor

    start = play_game(homes, tmp_path / "d", game="dice-race", options=["target=1000"],
                      stop_after=4)[-1]
    roller = actor(start)
    written = session.sign_next(homes[roller], start, None, ["roll"], None, None)
    assert written.table.gstate["pending"]
    text = mail_text(written, homes[roller], [f"{actor(written.path)}@example.org"])
    assert "when the next player opens the save" not in text
    assert ("Dice rolled and cards drawn in the last entry are not shown yet: they appear "
            "with the next entry in the order of play by another seat than the one that "
            "rolled or drew them.") in text
    drawn = sign_as(homes[actor(written.path)], written.path, None)
    assert not [r for r in drawn.table.gstate["pending"] if r["seq"] == written.entry["seq"]]
