"""Rules version 5: the Posse deck is dealt as its last shuffle pass lands, and the last
joiner peels its layer off the others' dealt slots in its join entry, after its pass
(docs/protocol-deck.md, "A deal at the last pass"). Each tampered join below, re-signed
by its own seat as a cheating player could, is refused in words in that entry (exit 3,
code ``chore``); on the code before version 5 dealt at the start, none of these joins
carried peels."""

from __future__ import annotations

import copy
import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.errors import PbemError
from pbem.protocol.crypto import deck_hooks, mental_deck
from pbem.protocol.replay import engine
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.savefile import Save
from tests.enginekit import relinked
from tests.support.duty import bot_game, fixed_identities

DECK = "posse"


@cache
def _set_up(players: int) -> Save:
    """A version 5 Posse game of ``players`` signed to its start entry."""
    return bot_game("red-dog-junction", players, ["variant=posse"],
                    hashlib.sha256(f"early-deal/{players}".encode()).digest(),
                    max_entries=players + 1)


class _Keys:
    def __init__(self, handle: str, players: int) -> None:
        self.identity = next(i for i in fixed_identities(players) if i.handle == handle)

    def load(self) -> object:
        return self.identity


def _forged(save: Save, change: Any) -> Save:
    """``save`` with ``change(entries)`` made, every entry re-signed by its own seat."""
    entries = copy.deepcopy(save.entries)
    change(entries)
    players = len(save.header["seats"])
    homes = {e["seat"]: _Keys(e["seat"], players) for e in entries}
    return Save(save.header, relinked(save.header, entries, homes), {})


def _refused(save: Save) -> PbemError:
    with pytest.raises(PbemError) as caught:
        engine.replay(save, check_snapshot=False)
    return caught.value


def _last_join(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in reversed(entries) if e["kind"] == "join")["chores"][0]


def _own_slot_peel(entries: list[dict[str, Any]]) -> None:
    """A peel of the last joiner's own dealt slot (its first), the proof of another."""
    chore = _last_join(entries)
    own = f"s{9 * (len(entries) - 2)}"
    chore["items"].append({**chore["items"][0], "slot": own})


TAMPERS = {
    "the peels left out": (lambda es: _last_join(es).pop("items"), "omits owed work: peel"),
    "one peel left out": (lambda es: _last_join(es)["items"].pop(3), "omits owed work: peel"),
    "a peel of its own slot": (_own_slot_peel, "peel of slot s18 that it does not owe now"),
    "a peel done twice": (lambda es: _last_join(es)["items"].append(_last_join(es)["items"][0]),
                          "peel of slot s0 that it does not owe now"),
    "a wrong peel": (lambda es: _last_join(es)["items"][0].update(
        ct=_last_join(es)["items"][1]["ct"]), "fails its proof"),
    "a proof for another slot": (lambda es: _last_join(es)["items"][0].update(
        proof=_last_join(es)["items"][1]["proof"]), "fails its proof"),
    "peels in an earlier join": (lambda es: es[1]["chores"][0].update(
        items=_last_join(es)["items"]), "carries other work"),
    "work that is no list": (lambda es: _last_join(es).update(items="peel"),
                             "not a list of items"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_RDJ_V2_a_tampered_last_join_is_refused_in_its_entry(name: str) -> None:
    change, words = TAMPERS[name]
    save = _set_up(3)
    error = _refused(_forged(save, change))
    assert words in error.message and error.code == "chore", error.message
    assert error.seq in (1, 2)
    assert "Traceback" not in error.message


def test_RDJ_V2_the_last_join_carries_exactly_its_peels_and_the_save_verifies() -> None:
    save = _set_up(3)
    join = _last_join(save.entries)
    assert [i["op"] for i in join["items"]] == ["peel"] * 18
    assert sorted(i["slot"] for i in join["items"]) == sorted(f"s{i}" for i in range(18))
    table = engine.replay(save, check_snapshot=False).table
    d = table.gstate["secret"][DECK]
    assert d["deal"] == [9, 9, 9]
    # After the start: seat 1 alone owes a peel, of seat 0's and seat 2's slots.
    assert mental_deck.owing(d) == [1]


def test_RDJ_V2_a_tampered_join_exits_3_in_words(tmp_path: Path) -> None:
    forged = _forged(_set_up(3), TAMPERS["one peel left out"][0])
    path = tmp_path / "forged.toml"
    path.write_text(savefile.dumps(forged), encoding="utf-8")
    result = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "verify", str(path)])
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output and "omits owed work" in result.output


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_RDJ_V2_each_dealt_slot_has_one_peeler_a_stage_the_last_joiner_then_the_host(
        players: int) -> None:
    """Every other seat peels each dealt slot once, one a stage: the last joiner, the host,
    then the others, players - 2 rounds of them, every one at work in all but the last."""
    passes, last = list(range(players)), players - 1
    middle = set(range(1, last))
    rest = {}
    for seat in passes:
        order = deck_hooks._peelers(passes, seat)
        head = [s for s in (last, 0) if s != seat]
        assert order[:len(head)] == head and sorted(order) == [s for s in passes if s != seat]
        rest[seat] = order[len(head):]
    rounds = [{r[k] for r in rest.values() if k < len(r)} for k in range(players)]
    rounds = [r for r in rounds if r]
    assert len(rounds) == players - 2
    assert all(r == middle for r in rounds[:-1])
