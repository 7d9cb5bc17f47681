"""The Posse variant (RDJ-V2): the crew draft, in secret, before the first turn.

The rulebook (ポッセモード): remove the unused starting cards; give each player one cowboy;
shuffle the remaining crew, commander and boost cards into one deck; deal 9 cards to each
player; each player picks one card and passes the rest of the hand to the left, until the
last card is taken; then set-up goes on as usual, and the 10 cards (9 drafted and the
cowboy) are the player's starting crew, commanders and boosts.

How it is played by mail (the rulings in notation_doc.py say the same to players):

- The deck ``posse`` is a secret deck (pbem.protocol.crypto.secretdeck; the mental deck of
  PROTOCOL.md section 6 in signed games): the starting sets of the seats in play less one
  cowboy each (``p1-cowboy-1`` ... stay with their players), and the whole market. Every
  seat shuffles it at create and join; the start entry deals each player 9 cards
  privately and does nothing else: first player, dice and gold come after the draft,
  as the rulebook's set-up goes on after it. Rules version 5 (``QUICK_RULES``,
  ``deal_early``) has the deck dealt the same 9 slots a seat the moment its last
  shuffle pass lands (``secretdeck.deal_when_shuffled``): the last joiner peels its layer
  off the others' hands in its join entry, the host in the start entry, and the start
  entry takes that deal (docs/protocol-deck.md, "A deal at the last pass", says why no
  seat learns a card from the last joiner's early peels).
- Seats sit in seat order, clockwise: the player on your left is the next seat.
- A draft entry picks one card of the oldest hand waiting for its player (``pick s12``:
  the slot, never the card) and passes the rest to the left. Rules version 4
  (``ONE_STEP_RULES``) passes it in one step (``secretdeck.pass_in_one_step``): the
  slots keep their ids, the giver hands them over (its layer off, each card encrypted to
  the receiver), and the receiver takes them under keys of its own in a secret order in
  the entry where it picks from them (it reads the hand as that entry leaves it). Version
  3 passes it under fresh slot ids: the receiver re-locks the hand with a fresh key in a
  secret order, with a shuffle proof, then the giver peels its own layer. Either way
  only the receiver can read the cards and the giver cannot tell which card is in which
  slot. The kept slot, locked under its picker's key alone, is the commitment to the
  pick. A hand is picked from only once its player can read it whole (version 4: once
  nothing but its own taking of the hand is pending), so every pick sees the whole hand.
  The rest is passed only once the left player has picked from the hand it holds (until
  then it stays with its giver, ``held``): passed at once, its deck work (version 4: the
  handoff; version 3: the re-lock and peel) could be done early, in an away note or a
  proposal (which do the deck work their seat owes), and the receiver would read two
  hands at once.
- The last card of a hand (left after its 8th pick) is the left player's without a
  choice: its holder keeps it for them (no pass, no waiting) and shows it with its picks.
- After the last choice every player shows what they kept (``open_slots``: each card
  named with a proof everyone checks at once). The next entry after the last choice
  draws the rest of set-up: the first player, the dice placed around the Junction, the
  starting gold, and the chance of the display deal (a seed kept in the state, used once
  the picks are known: all choices are made, so nobody can steer it). Version 5
  (``QUICK_RULES``, ``opens_resolve``): the opens are one round, and the entry of its
  first seat that did not queue the chance draws it, the seat that signed the lone first
  open in version 4; the other seats open beside it, drawing nothing. Version 6
  (``PAIR_RULES``, ``opens_draw_late``) draws it from two links of that round, the last
  picker's and that first seat's, once both are in: the first seat could otherwise read
  the outcome from the last picker's pick and its own next link before keeping its own
  last card (the picks of a step are signed in any order). Version 7
  (``UNLINKED_RULES``, ``unlinked``): each pick named its slot at its step, so the card
  that slot shows at the end would tell the step it was picked at, which a table never
  shows; after its last pick each seat re-locks its picks in a secret order
  (``secretdeck.reshuffle``), done in the opens round before its opens. Once every pick is
  shown (``finish``) the cards become their players', the rest of the deck (known by
  elimination) is the market deck, the display is dealt and the first turn begins.
- Who signs next. From three players the table picks together, as the rulebook has it:
  a pick step is every seat picking from the hand it can read (``simultaneous``: one
  round of entries in signed play), and no seat picks again before every seat can read
  its next hand. Between steps nobody decides, and the game says so
  (``waits_on_deck``): the engine asks for the deck work itself (version 4: the deal's
  peels after the start entry, on the same slots, go one after another; version 5: each
  slot has one peeler a stage, so they are players - 2 rounds). From version 4: the
  givers' handoffs in one round, and each pick's entry takes the hand it picks from, so a
  pick step is two rounds. Version 5 also opens in one round (``opens_resolve``): the
  draft takes 20 hops at five players from the start entry to the entry that shows the
  last pick (version 4: 22; 18 and 20 at three). Version 3: the receivers' re-locks of
  the passed hands in one round, then the givers' peels in another, three rounds a step
  (29 hops at five players, 27 at three; 10 * players + 5 entries one after another).
  Two players pick in turn, each as soon as it can read its hand, its pick's entry doing
  the deck work it owes (18 hops in versions 4 and 5, 25 in version 3).
What a seat learns is what a table shows: which slot each player keeps is public (the
card is not), but a passed hand is put in a secret order by its receiver, so
a player who held a hand before cannot tell which card a later holder took from it; when
the hand comes back they see which cards are gone, and with three or more players not
who took which.

In plain mode (pbem.play.local) nothing is owed, so every seat picks in turn.
"""

from __future__ import annotations

from typing import Any

from pbem.game import (
    IllegalMoveError,
    OptionError,
    Sampler,
    State,
    copy_state,
    queue_chance,
    secretdeck,
)

from . import journal
from .components import market_ids, start_card_ids
from .constants import POSSE_HAND
from .move import Move
from .setup import deal_display, resolve_setup
from .state import card, decode_all, encode, join_and

DECK = "posse"
ONE_STEP_RULES = 4  # the rules version from which a hand is passed in one step
# The rules version from which the deal's peels begin in the last join and the start entry,
# and the opens after the last choice, which draw the rest of set-up, are one round.
QUICK_RULES = 5
# The rules version from which the rest of set-up is drawn from two links of the opens
# round (the last picker's and the first opener's), both published after every pick.
PAIR_RULES = 6
# The rules version from which each player re-locks the cards it picked in a secret order
# after its last pick, so the cards shown at the end are not tied to the steps they were
# picked at (a table shows only the final hands).
UNLINKED_RULES = 7
VERB = "pick"
HANDED_OUT = "The drafted cards are the players' starting cards: "
BOT_KNOWN = "bot_known"  # a bot's copy of the state: its seat's own cards (Game.bot_state)


# ---- the deck and the set-up ----------------------------------------------------------------
def kept_cowboy(rules: dict[str, Any], number: int) -> str:
    """The cowboy of player ``number``'s starting set that stays with the player."""
    return next(c for c in start_card_ids(number, rules["start_crew"]) if "-cowboy" in c)


def deck_cards(rules: dict[str, Any], players: int) -> list[str]:
    """The Posse deck: the starting sets of the seats in play less one cowboy each, and
    the whole market (public component ids, in a fixed order; the deck is shuffled)."""
    cards: list[str] = []
    for number in range(1, players + 1):
        keep = kept_cowboy(rules, number)
        cards += [c for c in start_card_ids(number, rules["start_crew"]) if c != keep]
    return cards + list(rules["market"])


def check_deck(components: dict[str, Any], players: int) -> None:
    """The Posse draft deals POSSE_HAND cards to each player from a deck the component data
    makes (valid data may make too few for 4 or 5 players: a smaller starting set)."""
    ids = {"start_crew": components["setup"]["start_crew"], "market": market_ids(components)}
    deck = len(deck_cards(ids, players))
    if deck < POSSE_HAND * players:
        raise OptionError(
            f"The Posse draft deals {POSSE_HAND} cards to each of {players} players, "
            f"{POSSE_HAND * players} in all, but this game's component data makes a deck of "
            f"{deck}. Play with fewer players or another variant.")


def prepare(state: State) -> None:
    """``new_state`` for Posse: each player holds only their cowboy, the market is formed
    after the draft, and a starting card left in the deck is priced like the market's crew
    card of its type (the starting cards print no price in this data; they keep 0 points)."""
    rules = state["rules"]
    entries = decode_all(rules["cards"])  # the table is not Fixed yet: decoded once here
    prices: dict[str, list[dict[str, int]]] = {}
    for ident in rules["market"]:
        entry = entries[ident]
        if entry["kind"] == "crew":
            prices.setdefault(entry["type"], entry["cost"])
    for number, player in enumerate(state["players"], 1):
        player["crew"] = [kept_cowboy(rules, number)]
    priced: dict[str, str] = {}  # a starting card's text -> priced (copies share a text)
    for ident in deck_cards(rules, len(state["players"])):
        entry = entries[ident]
        if entry.get("start"):
            text = rules["cards"][ident]
            if text not in priced:
                priced[text] = encode({**entry, "cost": prices.get(entry["type"], [])})
            rules["cards"][ident] = priced[text]
    state["deck"] = []
    n = len(state["players"])
    state["draft"] = {
        "queue": [[] for _ in range(n)],  # hands waiting for each seat, oldest first
        # per seat, the rest of a hand its right neighbour picked from, kept by that
        # neighbour until this seat has picked from the hand it holds ([] when none)
        "held": [[] for _ in range(n)],
        "choices": [0] * n,  # cards each player chose
        "for_left": {},  # slot -> seat: a hand's last card, kept by its holder for them
        "last": 0,  # the seat of the last draft entry (the start entry is seat 0's)
        "picked": False,  # the entry in progress has picked
        "seed": "",  # the display's chance, drawn after the last choice
        "shown": False,  # every pick is called to be shown
    }


def deal_early(state: State) -> None:
    """Rules version 5 (``QUICK_RULES``), at set-up: the deck is dealt as ``deal`` deals it
    when its last shuffle pass lands, so its peels begin in the last join and the start
    entry (signed play; ``deal`` then takes the hands so dealt)."""
    n = len(state["players"])
    secretdeck.deal_when_shuffled(state, DECK, {seat: POSSE_HAND for seat in range(n)}, n)


def deal(state: State) -> None:
    """The start entry: 9 cards to each player, privately; the draft begins."""
    n = len(state["players"])
    if state["draft"].get("one_step"):
        secretdeck.pass_in_one_step(state, DECK)
    hands = secretdeck.deal(state, DECK, {seat: POSSE_HAND for seat in range(n)})
    state["draft"]["queue"] = [[hands[seat]] for seat in range(n)]
    state["phase"] = "draft"
    journal.chance(state, f"The Posse deck ({len(deck_cards(state['rules'], n))} cards) is "
                          f"dealt: {POSSE_HAND} cards to each player, in secret.")


# ---- whose entry, what it may do ----------------------------------------------------------------
def left_of(state: State, seat: int) -> int:
    return (seat + 1) % len(state["players"])


def hand(state: State, seat: int) -> list[str]:
    """The oldest hand waiting for ``seat``, once it can read it: nothing is pending on
    it but (version 4) its own taking of the hand, done in the entry that picks from it;
    [] while it waits."""
    queue = state["draft"]["queue"][seat]
    if not queue or not secretdeck.own_work_only(state, DECK, seat, queue[0]):
        return []
    return list(queue[0])


def can_pick(state: State, seat: int) -> bool:
    """Whether ``seat`` picks now. From three players the table picks together, as the
    rulebook has it: a seat makes its next pick once every seat has made as many as it
    has and can read the hand it picks from, so the picks are one simultaneous step (a
    round in signed play). Two players pick one after the other, each as soon as it can
    read its hand: their picks never form a round, and each pick's entry does the deck
    work owed with it."""
    return seat in pickers(state)


def pickers(state: State) -> list[int]:
    """The seats that pick now, in seat order (``can_pick``), each seat's hand read once."""
    draft = state["draft"]
    if draft["picked"]:
        return []
    n = len(state["players"])
    ready = [bool(hand(state, s)) for s in range(n)]
    if n < 3:
        return [s for s in range(n) if ready[s]]
    low = min(draft["choices"])
    step = [s for s in range(n) if draft["choices"][s] == low]
    return step if all(ready[s] for s in step) else []


def simultaneous(state: State) -> list[int]:
    """From three players, the seats still to pick in the pick step under way, in seat
    order (each picks from its own hand and passes to its left, behind the hand the left
    seat picks from: the picks are independent); [] with two, who pick in turn."""
    return pickers(state) if len(state["players"]) > 2 else []


def waits_on_deck(state: State) -> bool:
    """In signed games: nobody picks until the secret-deck work on the hands is done
    (the deal's peels; a pass's handoff, or in version 3 its re-lock, then its giver's
    peel), or the picks are shown.
    The engine asks for that work (Game.waits_on_deck), so no seat is handed an entry
    that only does deck work; the work of a step's seats is done in one round."""
    return (state["phase"] == "draft" and not due(state)
            and bool(secretdeck.owing(state, DECK))
            and not pickers(state))


def opens_resolve(state: State) -> bool:
    """Version 5: the round of the opens after the last choice draws the rest of set-up in
    the entry of its first seat that did not queue it (Game.deck_round_resolves). The
    opens carry no choice and nobody decides until every pick is shown, so one seat's
    entry drawing the chance while the others open in parallel changes nothing anyone
    chooses: the draw is exactly the one a lone first entry would make."""
    draft = state["draft"]
    return bool(draft.get("open_round")) and bool(draft.get("shown"))


def opens_draw_late(state: State) -> bool:
    """Version 6: the rest of set-up is drawn from two links of the opens round, the
    entries of the seat whose last pick queued it and of the first seat that did not
    (Game.deck_round_pair), once both are in. In version 5 the first opener's entry drew
    it from its own link, which it knows in advance, and the last picker's pick: that
    pick may reach it before it keeps its own last card, so it could know the first
    player, the dice, the gold and the display before choosing. Both links of version 6
    are published only after every pick."""
    return bool(state["draft"].get("pair_draw")) and opens_resolve(state)


def to_act(state: State) -> int:
    """The first seat of the pick step under way; else the first seat to the left of the
    last signer with something to do: a pick, or deck work it owes. In signed games this
    never lets a hand become readable while its receiver still holds another to pick
    from: a giver's handoff (version 3: peel) comes after the receiver's pick
    (bench/bench_hops.py measures the draft)."""
    picking = pickers(state)
    if picking and len(state["players"]) > 2:
        return picking[0]
    n = len(state["players"])
    last = state["draft"]["last"]
    owing = secretdeck.owing(state, DECK)
    for step in range(1, n + 1):
        seat = (last + step) % n
        if seat in owing or seat in picking:
            return seat
    return (last + 1) % n  # plain mode, the rest of set-up pending: anyone resolves it


def legal(state: State, seat: int) -> list[Move]:
    if not can_pick(state, seat):
        return []
    return [Move(VERB, card=slot) for slot in hand(state, seat)]


def slot_word(state: State, seat: int, word: str) -> str:
    """``s12`` or a position in the hand (``3``, as `show` lists it) -> the slot."""
    if state["draft"]["picked"]:
        raise IllegalMoveError("One pick an entry: your pick is made. End here.")
    cards = hand(state, seat)
    if word.isdigit() and 1 <= int(word) <= len(cards):
        return cards[int(word) - 1]
    if word.startswith("s") and word[1:].isdigit():
        return word
    where = f"its position in your hand (1-{len(cards)})" if cards else "no position yet"
    raise IllegalMoveError(f"'{word}' is not a card of your hand: write its slot as `pbem show` "
                           f"lists it (`pick s12`) or {where}. A card's name is never written: "
                           "the save would show it to everyone.")


def apply(state: State, seat: int, move: Move) -> None:
    if move.verb != VERB:
        raise IllegalMoveError("The game has not begun: the Posse draft is on. " + ask(state, seat))
    if state["draft"]["picked"]:
        raise IllegalMoveError("One pick an entry: your pick is made. End here.")
    if seat != to_act(state) and seat not in simultaneous(state):
        raise IllegalMoveError(f"It is {state['seats'][to_act(state)]}'s draft entry, not "
                               f"{state['seats'][seat]}'s.")
    cards = hand(state, seat)
    if not cards:
        raise IllegalMoveError("No hand of yours can be read yet: the other players' deck work "
                               "comes first. Play with no moves (your own deck work is done "
                               "for you).")
    if move.card not in cards:
        raise IllegalMoveError(f"Slot {move.card} is not in your hand; pick one of "
                               f"{', '.join(cards)}.")
    _pick(state, seat, move.card)


def _pick(state: State, seat: int, slot: str) -> None:
    draft = state["draft"]
    rest = [s for s in draft["queue"][seat].pop(0) if s != slot]
    draft["picked"] = True
    draft["choices"][seat] += 1
    left = left_of(state, seat)
    name, to = state["seats"][seat], state["seats"][left]
    size = len(rest) + 1
    if len(rest) == 1:
        secretdeck.keep(state, DECK, seat, [slot, rest[0]])
        draft["for_left"][rest[0]] = left
        journal.note(state, f"{name} picked a card (slot {slot}) from a hand of 2 and keeps the "
                            f"last one (slot {rest[0]}) for {to}: it is {to}'s without a choice.")
    else:
        secretdeck.keep(state, DECK, seat, [slot])
        if draft["queue"][left]:
            # The receiver still holds a hand to pick from: the rest goes once it has
            # picked. Passed now, its deck work (a handoff; version 3 a re-lock and this
            # seat's peel) could be done early (in an away note or a proposal, which do
            # the deck work their seat owes), and the receiver would read two hands at once.
            draft["held"][left] = rest
            journal.note(state, f"{name} picked a card (slot {slot}) from a hand of {size}; the "
                                f"other {len(rest)} go to {to} once {to} has picked.")
        else:
            _pass(state, seat, left, rest)
            journal.note(state, f"{name} picked a card (slot {slot}) from a hand of {size} and "
                                f"passed the other {len(rest)} to {to}.")
    if draft["held"][seat]:  # the hand kept for this seat until it picked goes to it now
        giver = (seat - 1) % len(state["players"])
        count = len(draft["held"][seat])
        _pass(state, giver, seat, draft["held"][seat])
        draft["held"][seat] = []
        journal.note(state, f"{state['seats'][giver]} passed the other {count} cards of their "
                            f"hand to {name}.")
    if draft.get("unlinked") and draft["choices"][seat] == POSSE_HAND - 1:
        # Its picks named their slots step by step: re-locked in a secret order, the
        # slots no longer say which card was picked at which step once they are shown.
        secretdeck.reshuffle(state, DECK, seat, picks_of(state, seat))
    if sum(draft["choices"]) == (POSSE_HAND - 1) * len(state["players"]):
        _show_all(state)


def _pass(state: State, giver: int, to: int, slots: list[str]) -> None:
    """``slots`` of ``giver`` go to ``to``, under fresh ids shuffled by the receiver: no
    slot the giver saw goes on."""
    state["draft"]["queue"][to].append(secretdeck.pass_slots(state, DECK, giver, to, slots))


def _show_all(state: State) -> None:
    """Every choice is made: every player shows what they kept; the next entry draws the
    rest of set-up."""
    draft = state["draft"]
    draft["shown"] = True
    for seat in range(len(state["players"])):
        secretdeck.open_slots(state, DECK, seat, secretdeck.held(state, DECK, seat))
    queue_chance(state, {"kind": "posse"})
    when = ("is drawn from two of the entries that show them, once both are in"
            if draft.get("pair_draw") else "is drawn by one of the entries that show them"
            if draft.get("open_round") else "comes with the next entry")
    journal.note(state, "Every choice of the draft is made: each player shows the cards they "
                        f"kept; the rest of set-up {when}.")


def check_end(state: State, seat: int) -> None:
    if state["draft"]["picked"]:
        # This entry picked, and the pick was this seat's to make (``apply`` checked it):
        # it ends here, even if its pick left another seat owing deck work first in line
        # (owed work done early, in an absence entry or a vote, can leave it so).
        return
    if seat != to_act(state) and seat not in simultaneous(state):
        raise IllegalMoveError(f"It is {state['seats'][to_act(state)]}'s draft entry.")
    if can_pick(state, seat):
        raise IllegalMoveError(ask(state, seat))


def end(state: State, seat: int) -> None:
    check_end(state, seat)
    if len(state["players"]) < 3:  # from three, picks are a step: no seat is its last
        state["draft"]["last"] = seat
    state["draft"]["picked"] = False
    state["last"] = []  # "since your last look" starts again, as after a turn


def ask(state: State, seat: int) -> str:
    """What the draft asks of ``seat`` now."""
    if can_pick(state, seat):
        return (f"Pick a card of your hand, `pick SLOT` with a slot `pbem show` lists (the rest "
                f"go to {state['seats'][left_of(state, seat)]}).")
    return ""


# ---- after the last choice ----------------------------------------------------------------
def resolve(state: State, rng: Sampler) -> None:
    """The entry after the last choice: the rest of set-up's chance. The display waits for
    the picks to be shown (they decide what the market deck holds): its seed is kept."""
    resolve_setup(state, rng)
    state["draft"]["seed"] = rng.read(32).hex()
    finish(state)


def due(state: State) -> bool:
    """The draft is over and shown and set-up's chance is drawn, but the cards are not
    handed out yet (in signed games the last opens land after the game last ran)."""
    if state["phase"] != "draft":  # asked at every entry point: the cheap test first
        return False
    draft = state.get("draft")
    if not draft or not draft["seed"]:
        return False
    return not secretdeck.privately_held(state, DECK, range(len(state["players"])))


def _opened_by(state: State, seat: int) -> list[str]:
    return [s for s in secretdeck.opened(state, DECK) if secretdeck.holder(state, DECK, s) == seat]


def finish(state: State) -> None:
    """Hand out the shown cards, form the market deck, deal the display: play begins.
    Does nothing unless ``due``; every entry point of the game calls it first."""
    if not due(state):
        return
    shown = secretdeck.opened(state, DECK)
    draft = state["draft"]
    takes: dict[int, list[str]] = {seat: [] for seat in range(len(state["players"]))}
    for slot, uid in shown.items():
        owner = draft["for_left"].get(slot, secretdeck.holder(state, DECK, slot))
        takes[int(owner)].append(uid)
    words = []
    for seat, cards in takes.items():
        player = state["players"][seat]
        for uid in sorted(cards):
            kind = card(state, uid)["kind"]
            player["crew" if kind == "crew" else "commanders" if kind == "commander"
                   else "boosts"].append(uid)
        words.append(f"{state['seats'][seat]} {', '.join(sorted(cards))}")
    state["deck"] = sorted(set(deck_cards(state["rules"], len(state["players"]))) - set(shown.values()))
    journal.late(state, HANDED_OUT
                        + "; ".join(words) + f". The other {len(state['deck'])} cards are the "
                        "market deck.")
    state["phase"] = "play"
    state["current"] = state["first"]  # what first_to_act says without finishing
    deal_display(state, Sampler(bytes.fromhex(draft["seed"])), late=True)


def first_to_act(state: State) -> int:
    """Who acts once ``finish`` has run on a ``due`` state: the first player, as play
    begins (``to_act`` asks it so, with no copy of the state to finish)."""
    return int(state["first"])


def ready(state: State) -> State:
    """``state`` with the draft's end handed out: a copy when it is ``due`` (for reading:
    what the next entry starts from), else the state itself."""
    if not due(state):
        return state
    out = copy_state(state)  # an exact copy, a third of deepcopy's time
    finish(out)
    return out


# ---- what a seat knows ----------------------------------------------------------------
def known(state: State, seat: int, secrets: dict[str, dict[str, str]] | None = None
          ) -> dict[str, str]:
    """Slot -> card for the Posse cards ``seat`` may read: from ``secrets`` (as ``view``
    gets them), from what a bot's state holds (``BOT_KNOWN``), or in plain mode from the
    deck's own slots of the seat (never another seat's)."""
    if secrets is not None:
        return dict(secrets.get(DECK, {}))
    if BOT_KNOWN in state:
        return dict(state[BOT_KNOWN])
    deck = state.get("secret", {}).get(DECK)
    if deck is None or deck["mode"] != "plain":
        return {}
    return secretdeck.readable_plain(deck, seat)


def picks_of(state: State, seat: int) -> list[str]:
    """The slots ``seat`` kept for itself (its last card, kept for its left, excluded)."""
    left_slots = state["draft"]["for_left"]
    return [s for s in secretdeck.held(state, DECK, seat) + _opened_by(state, seat)
            if s not in left_slots]


def waiting_words(state: State) -> str:
    """What the draft waits for, in public words."""
    picking = pickers(state)
    # A picker whose only work is taking the hand it picks from does it in its pick's
    # entry (version 4): nothing waits on it but the pick.
    owing = [s for s in secretdeck.owing(state, DECK)
             if s not in picking or set(secretdeck.owed_ops(state, DECK, s)) != {"adopt"}]
    names = [state["seats"][s] for s in owing]
    if not names:
        return ""
    # (from three players a pick in a step's round does no other work: it comes after it)
    if len(state["players"]) > 2 and not waits_on_deck(state):
        return f"deck work owed by {join_and(names)}"
    return f"deck work owed by {join_and(names)} (done by their next entries)"
