"""The move notation as `pbem rules red-dog-junction` prints it."""

NOTATION = """\
Red Dog Junction: move notation
================================
One `pbem play` is one whole turn: its moves, in order. A turn is 2 actions (3 for the
human in the solo game), any order, repeats allowed; `pass` uses an action doing nothing.
Goods: gold whiskey scrap gas ice ruby oxygen. A list of goods is written like
`gold x2 ruby` (x1 is left out); `2 gold ruby` and unique prefixes (`ox`, `wh`) work too.
Ships are named by their owner's handle (`me` is your own; Justin in the solo game).
Canonical forms are shown; case, extra spaces and commas do not matter.

Set-up choices, before the first turn (the Trail Boss and Posse variants)
  pick miner-2               Trail Boss: each player in turn order from the first picks
  pick miner                 one extra crew card (any crew but a rascal) from the deck, in
                             a `play` of its own holding only the pick (`pick miner` takes
                             a miner); the display is dealt after the last pick
  pick s12                   Posse: the crew draft. Each player is dealt 9 cards only they
  pick 3                     can read; a draft entry picks one card of your hand by its
                             slot as `pbem show` lists it (or its place in the hand, `pick
                             3`; a card's name is never written: the save would show it)
                             and passes the rest to the left; from 3 players everyone
                             picks at once, in parallel. An entry with no pick owed (deck
                             work only, done by itself) is `play` with no moves. The last
                             card of a hand goes to the left player without a choice; then
                             everyone shows what they kept and the first turn begins

Free moves at the head of a turn (they use no action, and are owed in this order)
  justin dock junction 3     solo: name the Junction dock Justin's agent docks at
  justin dock gas            solo: name the free planet Justin's miner mines at
  rascal miner               you have rascals: name the crew type they count as this
                             turn (cowboy agent miner scavenger rustler outlaw), one type
  rascal miner outlaw        for all of them, or one for each rascal

Moving (one action each)
  undock                     from any dock (your home base too) into space
  dock junction 3            from space to a free dock: junction 1-6, gas, ice, ruby,
  dock gas                   oxygen, shop (Honest Jose's trinket shop) or home (yours;
  dock shop / dock home      never another player's; the bank is not a place)
  taxi 5                     from one Junction dock to another free one

At your home base (one action, goods both ways at once)
  unload all                 everything on the ship into storage
  unload gold x2             some goods into storage
  load ruby x2 gas           storage goods onto the ship
  unload scrap load ruby x2  both in one action

Market, shop
  buy outlaw-1 pay ruby      one display card, paid from storage; name the alternative
  buy mayor                  (pay GOODS, e.g. pay gold) when the card offers several
  deal 8                     at the shop: pay the top tile of the 8-gold (or 6-gold)
  deal 6                     stack from your ship, take its gold onto your ship

Crew actions (one action uses up to as many crew of one type as you have)
  mine 2                     docked at a planet: 1 of its good per miner used, up to
  mine                       your miners; plain `mine` uses them all (written `mine N`)
  rustle bob cy              undock 1 ship per rustler into space (yours too)
  swap bob give scrap x2 take gold x2
                             in space, with another ship in space: up to 2 goods per
                             outlaw each way, the same number each way
  salvage gold scrap         in space: 1 good lying in space per scavenger
  trade scrap:gold x2        docked at the Junction, GIVE:GET at the two dice beside your
                             dock and the gold die: each agent gives the give-die's face
                             of its good for the get-die's face of the other (xN uses N
                             agents); a trade that would get nothing is refused
  adjust scrap -1            an agent moves a six-sided die beside your dock by 1 (+1/-1)
  Agent moves in a row share one action while you have agents left: with 2 agents,
  `adjust scrap -1` then `trade scrap:whiskey` is one action.

Cards (one action each)
  command mayor              a commander's action (each commander once a turn)
  command croupier gold 4    ... with its arguments (see below)
  play nudge-1 gold +1       play a boost (then discarded at the end of the turn)
  Arguments by effect:  set a die: DIE FACE (`gold 4`)  nudge: DIE +1|-1  flip: DIE
  remote trade: DOCK GIVE:GET (`3 scrap:gold`)  haggle: GIVE:GET  jump: PLACE
  (`junction 2`, `ruby`, `shop`, `home`)  haul: like load/unload (`unload all`)
  posse / tow: SHIP names  tractor: GOODS  (tax, extra mining, cargo net, windfall:
  nothing)

End of the turn
  pass                       an action that does nothing
  jettison scrap x2          after your actions: goods over your capacity (one per
                             cowboy) go into space; a turn ending over capacity is
                             refused with how many must go

Rulings (where pbem settles what the rulebook leaves open; rules version 2)
- Set-up rolls the six dice and places them at random around the Junction (RDJ-S7):
  dock N sits between the dice at ring spots N and N+1 and touches the gold die. The
  earlier ruling that the ring order is fixed component data is withdrawn.
- Trail Boss: the start entry deals each player a random commander; then each player in
  turn order picks a crew card from the whole deck (nobody has played a turn and the
  display is not dealt yet); the display is dealt after the last pick, by the chance of
  the first turn. The deck is drawn face up at random, so reshuffling it changes nothing.
- A crew action uses up to as many crew of its type as you have, never more: `mine N`,
  `trade ... xN`, up to N ships rustled, N goods salvaged, 2N goods swapped each way.
- Goods gained come from their supply; an empty supply limits a mine or a trade to what
  is there, but a trade that would pay and get nothing at all is refused.
- Posse (2-5 players): the rulebook's draft, by mail on the secret deck. The deck is the
  starting sets of the seats in play less one cowboy each (that cowboy stays with its
  player) and the whole market; each player is dealt 9 cards in secret as the last
  player joins (that player unlocks the others' hands in its join, the host in the start
  entry; a game begun under rules version 3 or 4 deals at the start entry). A hand is
  picked from only once its player can read it whole, so every pick sees the
  whole hand; passing locks the rest to the player on the left (the next seat) so only
  they can read it. After the last choice every player shows what they kept (each card proved
  against its kept slot; from rules version 5 all in one round of entries, one of which
  draws the rest of set-up; from version 6 it is drawn from two of them, the last
  picker's and the first other seat's in seat order, once both are in, so nobody can
  work it out before keeping their last card; from version 7 each player first re-locks
  their picks in a secret order, so a card shown is not tied to the step it was picked
  at); the first player, dice and gold are drawn, the rest of the
  deck is the market deck, and the display is dealt. A passed hand is put under keys of its
  receiver's own in a secret order, in the entry where the receiver picks from it, so no
  earlier holder can follow a card: when the hand comes back they see which cards are
  gone, and with three or more players not who took which. (A game begun under rules
  version 3 gives a passed hand fresh slot ids instead.)
- Rascals: each rascal names its own crew type at the start of the turn (`rascal miner
  outlaw`; `rascal miner` names one type for all) and counts as that type only, so the
  crew shown counts it once, under the type it names.
- An empty supply limits an action to what is there; an action that would gain nothing
  at all is refused, and the refusal says the supply is empty.
- Solo: Justin values gold, then whiskey, then mined goods (one class: he never swaps one
  mined good for another), then scrap.
"""
