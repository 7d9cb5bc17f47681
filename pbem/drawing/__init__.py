"""Pictures of the board for people.

page    the SVG a game draws, an HTML page around it, its PNG, atomic picture writes
kit     what games draw with (re-exported as pbem.game.kit): canvas, colours, goods
        (each with a shape of its own), panels, the final result
png     SVG to PNG in this process (resvg, with the fonts in fonts/)
"""
