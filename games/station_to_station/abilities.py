"""The crew abilities (the rulebook's pages 14-15 are missing; these are representative).

Each ability is a once-per-turn rule change with no random outcome, used by the move
``crew <id> [argument]`` from the turn after hiring. This module is the catalogue only
(what each does, in which phases it may be used, what argument it takes); the effects
live in ``powers.py`` and the rules they bend read the turn's modifiers.

STS-C12 lets a crew act at any moment of its owner's turn, once, and readies it again
after the cleanup; so an ability's effect lasts until the end of the turn it is used in
(the Cartographer's bonus, say, counts for routes completed later that turn only).
Each ability lists the phases where its text can still act, and no others are refused:
a crew that speaks of this turn's order, supply, work or token may be used before it
(its bonus waits for it) or after it (the bonus comes at once), and a text that can only
act at one moment says so ("use it before ..."). Elsewhere it is refused with that
reason. No ability can be used while a new route card or a payment of tickets is owed.
"""

from __future__ import annotations

from typing import NamedTuple

BEFORE_MOVING = ("market", "again")  # before a movement (the first or a repeated one)
MARKET = ("market",)
STATION = ("station",)
AFTER_STATION = ("crew", "done")  # the station action taken (and any hire after it)
BEFORE_HIRING = (*BEFORE_MOVING, "station", "crew")
THIS_TURN = (*BEFORE_MOVING, "station", *AFTER_STATION)  # before the thing or after it
ANYTIME = ("market", "again", "station", "crew", "done")


class Ability(NamedTuple):
    deck: str  # "basic" or "skilled"
    text: str
    phases: tuple[str, ...]
    arg: str = ""  # "", "good", "region", "survey", "work", "swap"


ABILITIES: dict[str, Ability] = {
    # ---- basic ----------------------------------------------------------------------
    "fireman": Ability("basic", "Your next movement this turn has one more free space.", BEFORE_MOVING),
    "coal-broker": Ability("basic", "Buy 1 coal for $1.", ANYTIME),
    "importer": Ability("basic", "Your next imported pair this turn costs no coal.", MARKET),
    "haggler": Ability("basic", "Your next pair of goods this turn costs $1 less.", MARKET),
    "porter": Ability(
        "basic", "Before travelling, buy a single good of the local market for half its pair "
        "price, rounded up.", MARKET, "good"),
    "teamster": Ability("basic", "Throw 1 good off your train and gain $2.", ANYTIME, "good"),
    "loader": Ability(
        "basic", "The order you fulfil this turn needs 1 fewer good of the type you name (use "
        "it before you pay).", BEFORE_MOVING + STATION, "good"),
    "shunter": Ability("basic", "If you work at the station this turn, gain $2 more.", THIS_TURN),
    "dockhand": Ability(
        "basic", "After taking a token in a coastal city, gain 1 more bonus coal.",
        STATION + AFTER_STATION),
    "quartermaster": Ability("basic", "The supply token you take this turn gives $2 more.",
                             THIS_TURN),
    "conductor": Ability(
        "basic", "Swap one of your standard route cards without a marker for a card of the "
        "route display.", ANYTIME, "swap"),
    "clerk": Ability("basic", "Your basic crew hire this turn costs any 1 ticket (use it before "
                     "hiring).", BEFORE_HIRING),
    # ---- skilled --------------------------------------------------------------------
    "engineer": Ability("skilled", "Your next movement this turn has two more free spaces.",
                        BEFORE_MOVING),
    "coal-baron": Ability("skilled", "Buy 2 coal for $3 together.", ANYTIME),
    "master-importer": Ability("skilled", "Imported goods cost no coal for the rest of this turn.",
                               MARKET),
    "trader": Ability("skilled", "Every pair of goods you buy after this costs $1 less this turn.",
                      MARKET),
    "foreman": Ability("skilled", "After your station action, also work (2 coal, $5, or 1 coal "
                       "and $2).", AFTER_STATION, "work"),
    "steward": Ability("skilled", "The order you fulfil this turn scores 2 more points.",
                       THIS_TURN),
    "stationmaster": Ability(
        "skilled", "The order you fulfil this turn gives all of its reward options.", THIS_TURN),
    "cartographer": Ability(
        "skilled", "Each route you complete later this turn scores 2 more points (use it before "
        "a movement).", BEFORE_MOVING),
    "surveyor": Ability(
        "skilled", "Put a route marker on a city next to your train on one of your route cards "
        "that has no marker (you choose the card).", ANYTIME, "survey"),
    "ticket-agent": Ability(
        "skilled", "Turn one of your order tickets from the region you name into a wild ticket.",
        ANYTIME, "region"),
    "recruiter": Ability("skilled", "Your skilled crew hire this turn costs as a basic hire (use "
                         "it before hiring).", BEFORE_HIRING),
    "yardmaster": Ability(
        "skilled", "Turn the supply or railcar token you took this turn to its upgraded face.",
        STATION + AFTER_STATION),
    "paymaster": Ability(
        "skilled", "Your caboose this turn costs one ticket from each of 3 different regions (use "
        "it before taking the caboose).", BEFORE_HIRING),
}
