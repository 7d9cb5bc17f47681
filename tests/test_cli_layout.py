"""The command line's layout (issue 25): a package of small modules, one family of
commands each, loaded only when a command runs, completes or is listed by --help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from pbem.cli import COMMANDS, main

CLI = Path(__file__).resolve().parent.parent / "pbem" / "cli"


def test_no_cli_module_passes_800_lines() -> None:
    sizes = {p.name: len(p.read_text("utf-8").splitlines()) for p in CLI.glob("*.py")}
    assert len(sizes) > 5 and max(sizes.values()) <= 800, sizes


def test_no_module_of_the_engine_or_a_game_passes_800_lines() -> None:
    """Rooms by job: every module in pbem/ (cli, protocol, mail, session, ...) and in
    games/ stays under 800 lines; a longer one is split by what it does."""
    root = CLI.parent.parent
    files = sorted([*(root / "pbem").rglob("*.py"), *(root / "games").rglob("*.py")])
    sizes = {str(p.relative_to(root)): len(p.read_text("utf-8").splitlines()) for p in files}
    assert len(sizes) > 100 and "pbem/mail/inbox.py" in sizes
    assert {name: n for name, n in sizes.items() if n > 800} == {}


def test_every_listed_command_loads_under_its_own_name() -> None:
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name
    assert main.get_command(ctx, "no-such-command") is None


def test_version_loads_no_command_module() -> None:
    """Start-up stays light: 'pbem --version' imports no command's module and no session."""
    code = ("import sys\nfrom pbem.cli import main\ntry:\n    main(['--version'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('pbem.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = eval(out.strip().splitlines()[-1])  # noqa: S307 - our own printed list
    assert "pbem.session" not in loaded
    assert [m for m in loaded if m.startswith("pbem.cli.")] == ["pbem.cli.common"]


def test_help_lists_every_command_with_its_short_help() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    listed = result.output.split("Commands:", 1)[1]
    ctx = click.Context(main)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None
        short = command.get_short_help_str(limit=30).rstrip(".")[:20]
        assert f"  {name} " in listed and short in listed, name


def test_a_mistyped_command_is_told_the_near_one() -> None:
    """click suggests from the commands it knows: the lazy group knows them all."""
    result = CliRunner().invoke(main, ["sho"])
    assert result.exit_code == 2 and "Did you mean 'show'?" in result.output
