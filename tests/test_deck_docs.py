"""The protocol pages say what the code does, where a test can hold them to it: the HKDF
labels table of PROTOCOL.md section 3 against pbem/protocol/crypto/derive.py and its callers, and
the keys docs/JSON.md gives for ``verify --json`` against what verify prints."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.protocol.crypto import derive

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _hkdf_table() -> list[str]:
    """The first column of PROTOCOL.md's labels table: each label's first backticked word."""
    text = (DOCS / "PROTOCOL.md").read_text(encoding="utf-8")
    table = text[text.index("| label (`info` starts with)"):]
    rows: list[str] = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return [row.split("`")[1] for row in rows]


def _seed_labels_in_code() -> set[str]:
    """Every label pbem derives a secret from the seed with: ``derive(seed, NAME ...)``."""
    names: set[str] = set()
    for path in sorted((ROOT / "pbem").rglob("*.py")):
        if path.name == "derive.py":
            continue
        names |= set(re.findall(r"derive\(seed, ([A-Z_]+)", path.read_text(encoding="utf-8")))
    return {getattr(derive, name).decode() for name in names}


def test_the_labels_table_lists_every_label_derived_from_a_seed_and_no_other() -> None:
    table = _hkdf_table()
    assert len(table) == len(set(table))
    assert set(table) == _seed_labels_in_code()
    assert {"batch-shuffle", "pbem/1/shuffle-proof", "pbem/1/beacon-renewed"} <= set(table)


def test_every_label_of_derive_is_named_in_the_protocol_pages() -> None:
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))
    labels = [v.decode() for k, v in vars(derive).items() if k.isupper() and isinstance(v, bytes)]
    missing = [label for label in labels if f"`{label}`" not in text and f'"{label}"' not in text
               and f'b"{label}"' not in text]
    assert missing == []


def _documented_verify_keys() -> set[str]:
    text = (DOCS / "JSON.md").read_text(encoding="utf-8")
    start = text.index("- `verify --json`: `") + len("- `verify --json`: `")
    shape = text[start:text.index("`", start)]
    shape = re.sub(r"\[\{[^]]*\}\]", "", shape)  # the errors' own keys
    return set(re.findall(r'"(\w+)"', shape))


def test_verify_json_keys_are_the_documented_ones(tmp_path: Path) -> None:
    final = json.loads((ROOT / "saves" / "road-master" / "expected.json").read_text())["final"]
    save = ROOT / "saves" / "road-master" / final
    result = CliRunner().invoke(main, ["--home", str(tmp_path / "home"), "verify", "--json",
                                       str(save)])
    assert result.exit_code == 0, result.output
    keys = set(json.loads(result.output))
    assert keys == _documented_verify_keys()
    assert {"players", "absence", "unaudited"} <= keys
