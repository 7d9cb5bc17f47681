"""What pbem says about a Road Master game of rules version 5 (Game.opens_at_reveal), whose
deck secrets come from a deck seed no entry publishes, stays exactly true: no seat's
shuffles and peels are checked against a seed there (each was proved in its entry), so
the line for a seat that never revealed names what its reveal would have checked (its
beacon chain) and opened (its held cards), not its deck work (PROTOCOL.md sections 7 and
11). Version 4, whose revealed seeds check every seat's key points, keeps its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import session
from pbem.errors import TurnError
from pbem.home.archive import Archive
from pbem.protocol.crypto.identity import Home
from pbem.session.branches import guard_branches
from tests.enginekit import play_game
from tests.support.fixed_game import fixed_home
from tests.test_absent import fresh, play_to_end, propose, vote_all


def _absent_line(homes: dict[str, Home], tmp_path: Path, rules: int | None) -> tuple[str, list[str]]:
    """A Road Master game stopped early by the remedy ``end``, revealed to its end: the
    absent seat and the report's unaudited lines."""
    path = play_game(homes, tmp_path / "saves", game="road-master", bot="greedy",
                     stop_after=8, rules=rules)[-1]
    absent, _, path = propose(homes, path, "end")
    path = play_to_end(homes, vote_all(homes, path))
    report = session.verify(session.load(path, None).save, fresh(tmp_path), full=True).report
    assert report.outcome is not None and not isinstance(report.audit, list)
    return absent, list(report.unaudited)


@pytest.mark.heavy
def test_RM_A11_version_5_never_says_an_absent_seats_deck_work_went_unchecked(
        homes: dict[str, Home], tmp_path: Path) -> None:
    absent, lines = _absent_line(homes, tmp_path, None)
    assert lines[0] == (f"{absent}'s secrets were not audited ({absent} was declared absent "
                        f"and never revealed): {absent}'s beacon chain and the secret cards "
                        f"{absent} held stay unchecked.")


@pytest.mark.heavy
def test_RM_A11_version_4_still_names_the_absent_seats_shuffles_and_peels(
        homes: dict[str, Home], tmp_path: Path) -> None:
    absent, lines = _absent_line(homes, tmp_path, 4)
    assert lines[0] == (f"{absent}'s secrets were not audited ({absent} was declared absent "
                        f"and never revealed): {absent}'s beacon chain, shuffles and peels, "
                        f"and the secret cards {absent} held stay unchecked.")


def _at_anns_reveal(homes: dict[str, Home], folder: Path, rules: int | None) -> Path:
    """A two-seat Road Master game played by greedy bots up to ann's reveal."""
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(homes["ann"], "road-master", ["ann", "bob"], [], None,
                               folder=folder, rules=rules)
    written = session.sign_next(homes["bob"], written.path, "join", [], None, None)
    while (duty := written.table.duty()) is not None and not (
            duty.kind == "reveal" and duty.seat == 0):
        handle = written.table.seats[duty.seat].handle
        written = session.sign_next(homes[handle], written.path, None, [], "greedy", None)
    return written.path


def _branch_refusals(tmp_path: Path, rules: int | None) -> tuple[str, str]:
    """What ann's home says (1) refusing her reveal on a save while it knows a branch
    going on without it (her reveal signed in another home of hers), (2) refusing any
    entry of hers once it has revealed her seed elsewhere."""
    homes = {h: fixed_home(tmp_path / "homes" / h, h) for h in ("ann", "bob")}
    path = _at_anns_reveal(homes, tmp_path / "saves", rules)
    other = session.sign_next(fixed_home(tmp_path / "elsewhere", "ann"), path, None, [], None,
                              str(tmp_path / "branch.toml")).path
    session.load(other, homes["ann"])  # this home now knows that branch
    verified = session.load(path, homes["ann"])
    said = []
    for kind in ("reveal", "turn"):
        if kind == "turn":
            Archive(homes["ann"].archive_dir, verified.save.game_id).mark_revealed("ann", 99)
        with pytest.raises(TurnError) as info:
            guard_branches(homes["ann"], verified, homes["ann"].load(), kind)
        said.append(" ".join(info.value.message.split()))
    return said[0], said[1]


@pytest.mark.heavy
def test_RM_A11_version_5_branch_refusals_say_what_a_reveal_makes_public(tmp_path: Path) -> None:
    """Version 5: the seed opens no card; the reveal opens the cards its seat holds."""
    other_branch, revealed = _branch_refusals(tmp_path, None)
    assert ("Your seed makes every link of your beacon chain public, on that branch too, and "
            "your reveal opens the secret cards you hold here, which that branch may share."
            ) in other_branch
    assert ("every link of your beacon chain and every secret card your reveal opened are "
            "public there") in revealed
    assert "every secret of yours" not in revealed + other_branch
    assert "every secret card of yours" not in revealed + other_branch


@pytest.mark.heavy
def test_RM_A11_version_4_branch_refusals_still_say_the_seed_opens_every_card(
        tmp_path: Path) -> None:
    other_branch, revealed = _branch_refusals(tmp_path, 4)
    assert ("Your seed makes every link of your beacon chain and every secret card of yours "
            "public, on that branch too.") in other_branch
    assert "every link of your beacon chain and every secret of yours is public there" in revealed


def test_protocol_names_every_game_whose_revealed_seeds_open_every_slot() -> None:
    """PROTOCOL.md section 1 says where guarantee (3) ends with the game: it names each
    installed game whose current rules version deals from a secret deck and still has its
    seeds open every slot (no Game.opens_at_reveal), and a joiner can still join it."""
    from pbem import registry
    from pbem.game import Game

    text = (Path(__file__).parent.parent / "docs" / "PROTOCOL.md").read_text()
    paragraph = " ".join(text.split("Guarantee (3) holds after the game too")[1]
                         .split("\n\n")[0].split())
    for name in registry.names():
        game = registry.load(name)
        shipped = not type(game).__module__.startswith("tests.")  # (not the tests' games)
        if not shipped or type(game).secret_decks is Game.secret_decks or game.opens_at_reveal():
            continue
        assert game.info.title in paragraph, name


def test_the_reveal_rounds_page_says_a_reveal_there_opens_its_own_held_cards() -> None:
    """docs/protocol-rounds.md said a reveal in a reveal round does no deck work; from
    Road Master 5 it opens its own seat's held cards there (PROTOCOL.md section 6)."""
    text = " ".join((Path(__file__).parent.parent / "docs" / "protocol-rounds.md")
                    .read_text().split())
    said = text.split("A reveal signed in it therefore carries no moves")[1].split(". The set")[0]
    assert "does no deck work and" not in said
    assert "does no deck work but the opens of its own seat's held cards" in said
