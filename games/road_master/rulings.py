"""How pbem plays what the rulebook leaves open, for `pbem rules road-master`.

RULINGS.md beside this file gives every ruling with its reasons; this is what a player
needs at the table. Keep both in step with the code (tests check key sentences).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from .tokens import faces_text, limits_text
from .turn import STALLED_ROUNDS, STALLED_ROUNDS_EMPTY_DECK


def token_rules(tokens: Sequence[Sequence[str]], per_turn: int) -> str:
    """The action tokens as the component data has them (RM-A1/A2)."""
    text = (f"Action tokens (the installed component data; a game's own data may pair them "
            f"otherwise, and `pbem show` gives that game's): {len(tokens)} tokens, two faces "
            f"each: {faces_text(tokens)}. A turn plays up to {per_turn} actions, each on a "
            "different token, one face of it: so at most as many of one action as tokens "
            f"show it ({limits_text(tokens)}). Consecutive unloads and dumps make one unload "
            "action; a refusal names the tokens.")
    return textwrap.fill(text, 88) + "\n"


RULINGS = f"""\
How pbem plays Road Master by email (rules that the rulebook leaves open):

Turns and chance
  One `pbem play` is your whole turn. Cards turned up in your turn (market refills, the
  card you take from the deck's top) appear before the next player's turn.
  The first player is drawn at random at the start, unless the host names one
  (--option first=HANDLE); `show` says who played first.
  The contract deck's top card shows its back: the colour of its cubes (a shortage card
  shows the colour of the warehouse it names). `contracts top` takes that very card,
  unseen; which card of that back it is, and the next top, show with the next beacon.

Super Bonus
  `superbonus` draws the top 6 cards in secret. The keep/return choice waits until the
  start of your next turn: keep up to 3, put the rest under the deck. If the game ends
  first, you choose in a last turn of your own once it ends, with the other such
  choosers at once, before anyone reveals (nobody sees another's cards before choosing);
  the cards you do not keep then are set aside, not returned (no one draws again).
  The others then shuffle the returned cards and they get new slot ids, so nobody can
  tell which of them a later drawer keeps. Others see how many you hold. A draw that
  finds fewer than 6 cards (earlier drawers have not chosen yet) takes what is there and
  is completed, up to 6, from the next cards returned, in the order they are returned
  and before any later draw; you choose once it is complete, or once no card can come
  back before your choice, or once the game ends: the draw then stays as it is.
  Scoring, at the end: every card you hold is revealed (your reveal opens it, with a
  proof; from rules version 5 nothing else is: the deck, the cards returned under it and
  those set aside stay face down, as at the table) and checked against the cubes lying on
  your contracts, complete or part-filled (cubes on your truck count for nothing). A
  card met scores its points, a card missed loses its penalty; each cube counts for one
  card only, and the cubes are shared out among your cards in the way best for you. A
  card its holder never opened (their reveal never came) costs the highest penalty any
  Super Bonus card carries.

Road
  Overtaking is allowed; only two trucks side by side block the road (RM-M4). A lone
  truck never seals a warehouse: while a truck stands in the lane beside a warehouse,
  the far lane of that road space serves it (driving in, leaving, backing in).

Unloading
  Cubes go onto your contracts for this warehouse. `dump` puts cubes into the warehouse
  for anyone to load later, but only colours none of your open contracts needs.

Hazardous goods (--option hazardous=true)
  While yellow cubes are aboard, a boom card is drawn after each load, forward or
  backward action and before each unload. The next player's beacon draws them, so your
  actions apply up to the first draw and the rest wait in a queue, each checked now as
  if no boom came. Your policy for a first half boom: `policy stop` (the default: the
  turn ends there) or `policy push` (carry on; a second half boom explodes the truck and
  ends the turn). A policy holds from where it stands among your moves until the next
  one: the draw after a load, forward or backward goes by the policy in force for that
  action, the draw before an unload by the unload's. So `policy stop; load brown; policy
  push; unload h3 yellow x3` stops on a first half boom at the load but goes on into the
  unload. `play` and `show` list each draw with the policy that governs it.
  Contracts and Super Bonus are safe: they draw no boom card and may wait in the queue.

Perishables (--option perishable=true)
  Blue cubes loaded this turn must be delivered this turn: any still aboard at its end,
  or dumped into a warehouse, leave the game.

End
  When a score reaches 50/45/40/35/30 (2/3/4/5/6 players), the round is played out so
  everyone has had as many turns; then unfinished contracts cost their penalty and the
  Super Bonus cards are revealed. Ties: most completed contracts, then the best single
  completed contract, else a shared place.
  Stall rule (RM-X1): the game also ends after {STALLED_ROUNDS} complete rounds in which no
  score changed, or {STALLED_ROUNDS_EMPTY_DECK} such rounds once the contract deck is spent. A
  round is counted once, after its boom cards are drawn. `show` shows the count.
"""
