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
from pbem.protocol.crypto.identity import Home
from tests.enginekit import play_game
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
