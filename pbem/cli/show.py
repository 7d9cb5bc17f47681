"""show: the position, as text, JSON or a picture."""

from __future__ import annotations

import click

from pbem.cli.common import echo, emit_json, home_of, player_notices, resolve_save


@click.command()
@click.argument("save")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--at", "at", type=click.IntRange(min=0), metavar="SEQ",
              help="Show the position after entry SEQ (as your seat saw it then) and what "
                   "that entry did.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this SVG file.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Also write a web page with the board and the text view.")
@click.option("--png", "png_path", type=click.Path(dir_okay=False),
              help="Also draw the board, as your seat sees it, into this PNG image.")
@click.pass_context
def show(ctx: click.Context, save: str, as_json: bool, at: int | None, svg_path: str | None,
         html_path: str | None, png_path: str | None) -> None:
    """The game as this home's seat sees it, and what the others did since your last turn.

    SAVE is a save file, or a game's short id (or the start of its id) from 'pbem games'."""
    from pbem.session import reports

    home = home_of(ctx)
    seen = reports.shown(home, resolve_save(ctx, save), at)
    notices = player_notices(home, seen.verified.save, as_json)
    drawn = reports.draw(seen, svg_path, html_path, png_path)
    if as_json:
        emit_json(reports.show_json(seen, notices))
        return
    for line in reports.show_lines(seen, drawn):
        echo(line)
