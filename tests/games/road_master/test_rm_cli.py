"""Road Master through the command line: what `moves` and `rules` print for people."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli import main


def _run(root: Path, handle: str, *args: str) -> Result:
    result = CliRunner().invoke(main, ["--home", str(root / handle), *args])
    assert "Traceback" not in result.output
    return result


def _wrote(root: Path, handle: str, *args: str) -> str:
    result = _run(root, handle, *args)
    assert result.exit_code == 0, result.output
    return result.output.split("Wrote ", 1)[1].split("\n", 1)[0]


def _started(root: Path) -> str:
    """A two-player game, ann to play first, started."""
    for handle in ("ann", "bob"):
        assert _run(root, handle, "keygen", "--name", handle).exit_code == 0
    path = _wrote(root, "ann", "new", "road-master", "--seat", "ann", "--seat", "bob",
                  "--option", "first=ann", "-o", str(root / "new.toml"))
    path = _wrote(root, "bob", "join", path)
    return _wrote(root, "ann", "play", path)


def test_moves_groups_the_contracts_choices_in_text_and_lists_each_in_json(tmp_path: Path) -> None:
    """`moves` prints every 1-3 choice of the 10 contracts on offer as one line, not one
    line each; `moves --json` is still the complete list of legal moves."""
    path = _started(tmp_path)
    full = json.loads(_run(tmp_path, "ann", "moves", path, "place B", "--json").output)["moves"]
    choices = [m for m in full if m.startswith("contracts ")]
    assert len(choices) == sum(comb(10, k) for k in (1, 2, 3))  # 9 market cards + the top
    text = _run(tmp_path, "ann", "moves", path, "place B").output.splitlines()
    grouped = [line for line in text if line.startswith("contracts")]
    assert grouped == ["contracts ... (any 1 to 3 of m1 m2 m3 m4 m5 m6 m7 m8 m9 top: 175 "
                       "choices, e.g. contracts m1 m2; `moves --json` lists each)"]
    others = [m for m in full if not m.startswith("contracts ")]
    assert [line for line in text if not line.startswith(("contracts", "("))] == others


def test_rules_give_the_action_tokens_and_super_bonus_scoring(tmp_path: Path) -> None:
    """`pbem rules road-master` gives the tokens' faces (RM-A1/A2) and how a Super Bonus
    card scores (RM-A11/A12, RM-G4)."""
    text = " ".join(_run(tmp_path, "ann", "rules", "road-master").output.split())
    assert ("7 tokens, two faces each: forward/backward, forward/load, forward/unload, "
            "backward/load, backward/unload, load/unload, contracts/superbonus.") in text
    assert "(forward 3, backward 3, load 3, unload 3, contracts 1, superbonus 1)" in text
    assert ("A card met scores its points, a card missed loses its penalty; each cube counts "
            "for one card only") in text
    assert "cubes lying on your contracts, complete or part-filled" in text


def test_RM_H4_RM_A10_a_short_draw_behind_a_boom_card_is_made_through_the_cli(tmp_path: Path) -> None:
    """RM-H4/RM-H5/RM-A10, the moves the audit found: ann, bob and cy empty the Super Bonus
    pile; dee loads yellow, then takes Super Bonus (a short draw) and drives on. When ann
    opens the save the boom cards are drawn and dee's queued draw and forward happen."""
    handles = ("ann", "bob", "cy", "dee")
    for handle in handles:
        assert _run(tmp_path, handle, "keygen", "--name", handle).exit_code == 0
    seats = [arg for h in handles for arg in ("--seat", h)]
    path = _wrote(tmp_path, "ann", "new", "road-master", *seats, "--option", "first=ann",
                  "--option", "hazardous=true", "-o", str(tmp_path / "new.toml"))
    for handle in handles[1:]:
        path = _wrote(tmp_path, handle, "join", path)
    path = _wrote(tmp_path, "ann", "play", path)
    for handle in handles[:3]:
        path = _wrote(tmp_path, handle, "play", path, "place A", "superbonus")
    path = _wrote(tmp_path, "dee", "play", path, "place F", "policy push", "load yellow",
                  "superbonus", "forward 1 exit east")
    log = " ".join(json.loads(_run(tmp_path, "ann", "show", path, "--json").output)["state"]["log"])
    assert "could not be" not in log
    assert "dee draws 0 Super Bonus card(s) in secret; the other 6 come from the next" in log
