"""A card kept before it is readable, whose peel an absent seat never signs, stays closed:
every result names it, whose it is and how the rules scored it (PROTOCOL.md section 7).
The game is tests/support/secret_grab.py (a seat keeps the card it draws at once)."""

from __future__ import annotations

import email
import json
from pathlib import Path
from typing import Any

from pbem import session
from tests.enginekit import tick
from tests.test_absent_cli import Table3

CLOSED = ("the card ann holds in slot {slot} of deck 'cards' stays closed under bob's "
          "layer: bob never revealed, so nobody can open it, and the rules scored ann "
          "without it.")


def _game_with_a_closed_card(t: Table3) -> tuple[str, str]:
    """ann grabs a card; bob, who owes its peel, is declared absent (remedy end); ann and
    cy reveal. Returns the final save and ann's slot."""
    path = t.start("secret-grab")
    assert t.status(path)["to_act"] == "ann"
    path = t.wrote("ann", "play", path, "grab")  # kept before bob and cy peel it
    assert t.status(path)["to_act"] == "bob"
    tick(days=8)  # past bob's patience
    path = t.wrote("cy", "absent", path, "bob", "--remedy", "end")
    path = t.wrote("ann", "vote", path, "accept")
    final = t.finish(path)
    assert final["over"] and final["to_act"] is None
    saves = sorted(t.saves.glob("*.toml"), key=lambda p: len(p.read_text()))
    [held] = json.loads(t.run(None, "show", str(saves[-1]), "--json").output)["result"]["closed"]
    return str(saves[-1]), str(held["slot"])


def test_every_result_names_a_card_left_closed_under_an_absent_seats_layer(
        tmp_path: Path) -> None:
    t = Table3(tmp_path)
    path, slot = _game_with_a_closed_card(t)
    text = CLOSED.format(slot=slot)
    # verify, JSON: the closed card, structured and as a line of unaudited.
    data: dict[str, Any] = json.loads(t.run(None, "verify", path, "--json").output)
    assert data["audit"] == "partial"
    assert data["closed"] == [{"deck": "cards", "slot": slot, "holder": "ann",
                               "status": "held", "under": ["bob"], "text": text}]
    assert text in data["unaudited"]
    assert data["scores"]["ann"] == 0  # scored without it
    # verify and show, text.
    for args in (("verify", path), ("show", path)):
        out = t.run(None, *args).output
        assert f"Not audited: {text}" in " ".join(out.split()), args
    # show --json's result, and the picture's result section (every picture draws its
    # verdict lines).
    shown = json.loads(t.run("ann", "show", path, "--json").output)
    assert shown["result"]["closed"][0]["text"] == text
    report = session.load(path, None).report
    section = session.final_result(report)
    assert section is not None
    assert f"Not audited: {text}" in [line.strip() for line in section["verdict"]]
    # The mail of the final save.
    r = t.run("ann", "send", path, "--to", "cy@example.org", "--stdout")
    assert r.exit_code == 0, r.output
    message = email.message_from_string(r.output)
    body = " ".join(part.get_payload(decode=True).decode() for part in message.walk()
                    if part.get_content_type() == "text/plain")
    assert f"Not audited: {text}" in " ".join(body.split())  # as verify and show say it
