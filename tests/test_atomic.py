"""pbem.atomic: a home's small bookkeeping files, written whole and read back bounded."""

from __future__ import annotations

from pathlib import Path

from pbem import atomic


def test_read_json_reads_what_replace_wrote(tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    atomic.replace(path, b'{"version": 1, "games": {}}', sync=False)
    assert atomic.read_json(path, 1000) == {"version": 1, "games": {}}


def test_a_missing_damaged_or_oversized_file_reads_as_none(tmp_path: Path) -> None:
    """What a crash, a full disk or a hostile file leaves: never an exception."""
    assert atomic.read_json(tmp_path / "absent.json", 1000) is None
    assert atomic.read_json(tmp_path, 1000) is None  # a folder where a file should be
    cases = {"cut.json": b'{"games": {"a', "latin1.json": b'{"x": "\xff"}',
             "deep.json": b"[" * 100_000 + b"]" * 100_000,
             "big.json": b'{"pad": "' + b"x" * 2000 + b'"}'}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        limit = 1000 if name == "big.json" else 300_000
        assert atomic.read_json(tmp_path / name, limit) is None, name
