"""The package as released: its licence, its metadata, and a source release (sdist) whose
test suite collects and runs from the unpacked archive (conftest, helpers and the data
the tests read go with the tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem import tomltext

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"


def project() -> dict:  # type: ignore[type-arg]
    with open(PYPROJECT, "rb") as fh:
        return dict(tomltext.load(fh)["project"])


def test_the_licence_file_is_mit_and_the_metadata_names_it() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Copyright (c) the pbem authors" in text
    meta = project()
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]


def test_classifiers_and_keywords_without_urls_nobody_vouched_for() -> None:
    meta = project()
    classifiers = meta["classifiers"]
    assert "Topic :: Games/Entertainment :: Board Games" in classifiers
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    # A licence expression and a licence classifier together are refused by setuptools.
    assert not [c for c in classifiers if c.startswith("License ::")]
    assert "play-by-email" in meta["keywords"]
    assert "urls" not in meta  # none would be a placeholder


def sdist_files(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The files MANIFEST.in adds to the sdist, as setuptools reads the template (from
    the project's folder, as a build does)."""
    filelist = pytest.importorskip("setuptools._distutils.filelist")
    monkeypatch.chdir(ROOT)
    files = filelist.FileList()
    files.findall()
    for line in (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    return {str(Path(f)).replace("\\", "/") for f in files.files}


def test_the_sdist_carries_what_the_tests_need(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test file, conftest.py and tests/support (without them 35 test files failed
    to collect from the unpacked sdist), and what tests read from outside tests/."""
    shipped = sdist_files(monkeypatch)
    wanted = {"LICENSE", "tests/conftest.py", "tests/enginekit.py"}
    wanted |= {str(p.relative_to(ROOT)) for folder in ("tests", "saves", "fuzz")
               for p in (ROOT / folder).rglob("*")
               if p.is_file() and p.suffix in (".py", ".toml", ".json", ".md")
               and not {"__pycache__", ".hypothesis", "cache", "findings"} & set(p.parts)}
    wanted |= {f"games/{g}/RULINGS.md" for g in
               ("red_dog_junction", "road_master", "station_to_station")}
    assert any(name.startswith("tests/support/") for name in wanted)
    assert sorted(wanted - shipped) == []
    assert not [n for n in shipped if "__pycache__" in n or n.endswith(".pyc")]
