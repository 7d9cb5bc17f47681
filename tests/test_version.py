"""One version number: ``pbem --version`` says what the installed package says."""

from __future__ import annotations

from importlib.metadata import version

from click.testing import CliRunner

from pbem import __version__
from pbem.cli import main


def test_the_command_and_the_package_give_one_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"pbem, version {__version__}"
    assert version("pbem") == __version__
