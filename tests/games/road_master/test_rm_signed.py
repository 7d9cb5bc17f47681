"""Road Master through the signed engine, with the mental Super Bonus deck: the rules that
cross entries (boom draws resolved by the next player's beacon) hold there too."""

from __future__ import annotations

from pathlib import Path

from pbem import session
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.support.duty import sign_duty


def _start(homes: dict[str, Home], folder: Path, options: list[str]) -> session.Written:
    handles = list(homes)
    folder.mkdir(parents=True, exist_ok=True)
    written = session.new_game(homes[handles[0]], "road-master", handles, options, None,
                               folder=folder)
    while written.table.duty() is not None and written.table.duty().kind != "turn":
        written = sign_duty(homes, written)
    return written


def _play(homes: dict[str, Home], written: session.Written, moves: list[str]) -> session.Written:
    duty = written.table.duty()
    assert duty is not None
    return session.sign_next(homes[written.table.seats[duty.seat].handle], written.path, None,
                             moves, None, None)


def test_RM_H4_a_super_bonus_queued_behind_boom_draws_is_drawn_in_secret(
        homes: dict[str, Home], tmp_path: Path) -> None:
    """RM-H4 in a signed game: ann loads yellow, then takes Super Bonus (queued, policy
    push so one half boom cannot stop it); the next entry resolves the draw and reserves
    the six cards, the others peel, and ann chooses at the head of her next turn."""
    written = _start(homes, tmp_path / "saves", ["hazardous=true", "first=ann"])
    written = _play(homes, written, ["place F", "policy push", "load yellow", "superbonus"])
    written = _play(homes, written, ["place A"])
    written = _play(homes, written, ["place B"])
    verified = session.load(written.path, homes["ann"])
    handle, view, secrets = session.seat_view(homes["ann"], verified)
    drawn = [row for row in view["private"]["superbonus"] if row["status"] == "drawn"]
    assert len(drawn) == 6 and all(row["card"] for row in drawn)
    assert view["private"]["choice_due"]
    keep = drawn[0]["slot"]
    rest = [row["slot"] for row in drawn[1:]]
    written = _play(homes, written, [f"keep {keep}", "bottom " + " ".join(rest)])
    report = session.verify(savefile.read(written.path), Home(tmp_path / "auditor"),
                            full=True).report
    assert report.audit in ("pending", "clean")
    assert report.table.game.view(report.table.gstate, None)["superbonus"]["held"][0] == 1
