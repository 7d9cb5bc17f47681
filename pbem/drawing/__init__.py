"""Pictures of the board for people.

page    the SVG a game draws, an HTML page around it, its PNG, atomic picture writes
kit     what games draw with (re-exported as pbem.game.kit): canvas, colours, goods
        (each with a shape of its own), panels, the final result
png     SVG to PNG in this process (resvg, with the fonts in fonts/)
"""

from pbem._imports import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "svg_of": "page", "html_page": "page", "png_page": "page", "write_picture": "page",
    "png_of": "png",
})
