"""Posse (RDJ-V2): who is to act, as every view of the draft tells it, is the seat the
engine waits for. Between pick steps the engine asks for the secret-deck work itself and
does not ask the game whose turn it is (docs/protocol-rounds.md, "Rounds of secret-deck
work"), so the game's own answer, stored in the save's ``[state]``, may name another
seat: what `show`, `show --json`, the picture and the mail show names the engine's.
"""

from __future__ import annotations

import email
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import registry, session
from pbem.cli import main
from pbem.play import bots
from pbem.protocol.replay import signing
from pbem.protocol.state import headers
from pbem.protocol.state.table import Table
from pbem.session import rounds
from pbem_games.red_dog_junction import svg
from tests.support.duty import fixed_identities, keyed_homes, sign_duty
from tests.support.stream import fixed_entropy

HEAD = "Red Dog Junction (posse), set-up: the Posse draft; "


def draft_tables(players: int) -> list[Table]:
    """Every table of a Posse draft by greedy bots, from the start entry to the first turn
    (fixed identities and entropy: the same draft on every run)."""
    with fixed_entropy(b"posse-to-act"):
        game = registry.load("red-dog-junction")
        ids = fixed_identities(players)
        header = headers.new_header(game, [(i.handle, "") for i in ids],
                                    headers.parse_options(game, ["variant=posse"]))
        table = headers.empty_table(header)
        out = []
        while (duty := table.duty()) is not None and table.gstate.get("phase") != "play":
            if table.started:
                out.append(table)
            missing = table.round_missing()  # a round's entries go in seat order
            seat = missing[0] if missing else duty.seat
            shown = signing.preview(table, ids[seat])
            kind = shown.duty().kind  # type: ignore[union-attr]
            moves = (bots.choose_turn(shown.game, shown.gstate, seat, "greedy",
                                      salt=str(len(table.signers))) if kind == "turn" else [])
            table = signing.sign_entry(table, ids[seat], kind, moves)[1]
        return out


def expected_next(table: Table, view: dict[str, Any]) -> str:
    """What the draft's heading says comes next, from the engine's duty alone."""
    handles = [table.seats[s].handle for s in rounds.acting(table)]
    if len(table.seats) < 3:
        return f"{handles[0]} signs the next entry"
    if not table.deck_work_next():  # a round of picks, or the last pick of one
        named = handles[0] if len(handles) == 1 else (", ".join(handles[:-1])
                                                      + f" and {handles[-1]}")
        return f"{named} still to pick in this step"
    return ("every pick is made" if view["draft"]["shown"]
            else "the deck work on the hands comes before the next picks")


@pytest.mark.heavy
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_RDJ_V2_every_view_of_the_draft_names_the_seat_the_engine_waits_for(
        players: int) -> None:
    """RDJ-V2: at every entry of whole drafts, the view as the session shows it names the
    engine's to_act, its heading says what the engine waits for, its picture's title
    the same, and the player list marks only seats the engine waits for."""
    drafts = 0
    for table in draft_tables(players):
        duty = table.duty()
        assert duty is not None
        view = session.with_engine_to_act(table, table.game.view(table.gstate, None))
        if view["phase"] != "draft":
            continue  # the draft is over: the cards are handed out as the next entry reads
        drafts += 1
        assert view["to_act"] == table.seats[duty.seat].handle
        said = expected_next(table, view)
        text = table.game.render(view).splitlines()
        assert text[0] == HEAD + said
        assert svg._title(view) == f"Red Dog Junction, turn {view['turn']}, the Posse draft, " + (
            f"{view['to_act']} signs next" if players < 3 else said)
        marked = {line[2:].split()[0] for line in text if line.startswith(" *")}
        assert marked <= {table.seats[s].handle for s in rounds.acting(table)}
    assert drafts > 8 * players  # every pick, and the deck work between


HANDLES = ["ann", "bob", "cy", "dee"]


def test_RDJ_V2_show_the_picture_and_the_mail_name_the_seat_asked_for_deck_work(
        tmp_path: Path) -> None:
    """RDJ-V2, four players: after the first pick step, where the engine asks dee alone
    for the deck work it owes while the game's own to_act (in the save's [state]) names
    another seat, `show --json`'s state and the picture's title name
    what the engine waits for, the mail's board says the deck work comes first, and the
    save's [state] keeps the game's own answer."""
    homes = keyed_homes(tmp_path, HANDLES)
    (tmp_path / "saves").mkdir()
    written = session.new_game(homes["ann"], "red-dog-junction", HANDLES, ["variant=posse"],
                               None, folder=tmp_path / "saves")

    def game_elsewhere(table: Table) -> bool:
        duty = table.duty()
        return (duty is not None and table.deck_work_next() and len(rounds.acting(table)) == 1
                and table.game.to_act(table.gstate) != duty.seat)

    while not game_elsewhere(written.table):
        assert written.entry["seq"] < 40
        written = sign_duty(homes, written, "greedy")
    path = str(written.path)
    stored = written.save.state["view"]["to_act"]
    assert stored != "dee"  # the game's own answer, as signed states keep it
    runner = CliRunner()

    def run(handle: str, *args: str) -> str:
        result = runner.invoke(main, ["--home", str(homes[handle].path), *args])
        assert result.exit_code == 0, result.output
        return result.output

    assert json.loads(run("ann", "verify", path, "--json"))["to_act"] == "dee"
    for handle in ("ann", "dee"):
        shown = json.loads(run(handle, "show", path, "--json"))
        assert (shown["to_act"], shown["state"]["to_act"]) == ("dee", "dee")
        then = json.loads(run(handle, "show", path, "--at", str(written.entry["seq"]), "--json"))
        assert (then["to_act"], then["state"]["to_act"]) == ("dee", "dee")
        picture = tmp_path / f"{handle}.svg"
        run(handle, "show", path, "--svg", str(picture))
        title = ET.parse(picture).getroot().find("{http://www.w3.org/2000/svg}title")
        assert title is not None and title.text == ("Red Dog Junction, turn 1, the Posse "
                                                    "draft, the deck work on the hands comes "
                                                    "before the next picks")
    mail = email.message_from_string(run("bob", "send", path, "--stdout", "--to",
                                         "x@example.org"))
    body = next(p for p in mail.walk() if p.get_content_type() == "text/plain")
    text = body.get_payload(decode=True).decode()
    assert f"    {HEAD}the deck work on the hands comes before the next picks\n" in text
    assert f"{stored} signs" not in text
