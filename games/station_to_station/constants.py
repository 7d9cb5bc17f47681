"""Numbers fixed by the rulebook (not component data)."""

from __future__ import annotations

MIN_PLAYERS = 2
MAX_PLAYERS = 4

SEASONS = ("summer", "autumn", "winter", "countdown")
KINDS = ("order", "supply", "railcar")
REWARD_KEYS = ("cash", "coal", "points")

START_CASH = 8
START_COAL = 2
COAL_PRICE = 3  # dollars per coal in the market
COAL_LIMIT = 9  # coal beyond this is lost
FREIGHT_CARS = 8  # goods carried; railcars and the caboose do not count
IMPORT_COAL = 1  # extra coal per imported pair
COASTAL_BONUS = 1  # coal for taking a token in a coastal city
ROUTE_SLOTS = 2
DISPLAY_SIZE = 2
# Work: the three rewards a player may take instead of using the token (coal, cash).
WORK = {"coal": (2, 0), "cash": (0, 5), "both": (1, 2)}

# End of game: 1 point per this many coal / dollars.
COAL_PER_POINT = 2
CASH_PER_POINT = 4

# A turn's phases (state["turn"]["phase"]), in order: choose, market, again, route,
# station, crew, paying, done. "choose" is the first turn's pick of 1 of 2 standard routes;
# "market" lasts until the train first moves; "again" means the stop city was taken so the
# train must move on; "route" means a completed route still owes its replacement card;
# "paying" means a crew hire or the caboose is chosen and tickets are being paid.
