"""Reading the trick engine's arrays: a position, its rules and its history (the API of searches,
solvers, observers and renderers).

The engine keeps a position in one int32 array ``s`` and a rule set in one int32 array ``cfg``
(:mod:`zwick_ai.tricks.layout`, private to the engine). Code outside the engine reads them through
the small functions here instead of the raw offsets, so that the layout can change in one place.
Each function is a compiled kernel that numba inlines into its compiled callers (as fast as the raw
read); Python code calls the same functions.

The few layout names code outside the engine uses are the public vocabulary of a decision, and
this module re-exports them: the action ids ``A_*`` and ``NUM_ACTIONS``, the card and seat counts
``NC`` and ``NP``, the sizes ``S_SIZE`` (a position), ``MAXH`` (history entries) and ``TOKEN`` (an
observed-event token), and ``PHASE_NAMES``.

Seats and cards are the engine's: a seat ``p`` is ``0..players-1``, a card a standard card id
``0..51`` of :mod:`zwick_ai.cards` (suit ``c // 13``, rank ``c % 13`` from the two). A history
entry ``i`` (``0 <= i < history_length(s)``) is one event: a card dealt, turned up, cut or drawn, or
an action, face up or hidden.

>>> from zwick_ai import cards, tricks
>>> r = tricks.rules("zwikken", variant="modern", players=3)
>>> st = tricks.scripted(r, [["AH", "KH", "TS"], ["QS", "JS", "AC"], ["KC", "QC", "JC"]], upcard="KS")
>>> s, cfg = st.arr, r.cfg
>>> int(to_move(s)), bool(in_auction(s)), int(players(cfg)), int(pot(s)), int(dealer(s))
(0, True, 3, 3, 2)
>>> cards.SUITS[trump(s)], cards.format_card(int(upcard(s, 0))), [cards.format_card(int(c)) for c in hand(s, 0)]
('S', 'KS', ['KH', 'AH', 'TS'])
>>> st = tricks.apply(st, "ik vraag")
>>> int(bid(st.arr, 0)), int(high_bid(st.arr)), int(high_bidder(st.arr)), int(event_seat(st.arr, history_length(st.arr) - 1))
(1, 1, 0, 0)
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel, reader
from zwick_ai.tricks import layout
from zwick_ai.tricks.layout import (  # the public vocabulary (module docstring)
    A_BID,
    A_BID_KEN,
    A_DISCARD,
    A_EXCH,
    A_KEEP,
    A_PASS,
    A_PASS_KEN,
    A_PLAY,
    A_PLAYDECL,
    A_SEARCH,
    A_STOP,
    A_SWAP,
    MAXH,
    NC,
    NP,
    NUM_ACTIONS,
    PHASE_NAMES,
    S_SIZE,
    TOKEN,
)


# ------------------------------------------------------------------------------------------------
# The rules array cfg
# ------------------------------------------------------------------------------------------------
@reader
def players(cfg):
    """Seats at the table."""
    return cfg[layout.C_N]


@reader
def tricks_per_deal(cfg):
    """Cards in a hand (= tricks in a deal)."""
    return cfg[layout.C_H]


@reader
def in_pack(cfg, c):
    """Card ``c`` belongs to the pack of this rule set."""
    return cfg[layout.C_INPACK + c] != 0


@reader
def permanent_trump(cfg):
    """The permanent trump card (the 7 of diamonds in Zwicken with that option), or -1."""
    return cfg[layout.C_PERM]


@reader
def face_down_duty(cfg):
    """1853's duty: in every trick but the last, whoever holds a trump must play one, and a player
    without trump plays face down."""
    return cfg[layout.C_DUTY] == layout.DUTY_HISTORIC


@reader
def declares_play_or_pass(cfg):
    """Each player declares play or pass (1853), instead of an auction or an exchange."""
    return cfg[layout.C_DECLARE] == layout.DECL_PLAYPASS


# ------------------------------------------------------------------------------------------------
# The position s: who acts, phase, pot, trump and upcards
# ------------------------------------------------------------------------------------------------
@reader
def to_move(s):
    """The seat to act; negative at a chance node or at the end (:func:`is_chance`, :func:`is_over`)."""
    return s[layout.S_CUR]


@reader
def is_chance(s):
    """A chance event (a card dealt, turned, cut or drawn) comes next."""
    return s[layout.S_CUR] == layout.CUR_CHANCE


@reader
def is_over(s):
    """The deal is over."""
    return s[layout.S_CUR] == layout.CUR_OVER


@reader
def phase(s):
    """The phase, an index into ``PHASE_NAMES`` (cut, deal, upcard, declare, discard, draw, auction,
    search, swap, play, end)."""
    return s[layout.S_PHASE]


@reader
def in_declare(s):
    """Players declare play or pass, or stay and exchange."""
    return s[layout.S_PHASE] == layout.PH_DECLARE


@reader
def in_discard(s):
    """A player who exchanges discards."""
    return s[layout.S_PHASE] == layout.PH_DISCARD


@reader
def in_draw(s):
    """A player who exchanges draws."""
    return s[layout.S_PHASE] == layout.PH_DRAW


@reader
def in_auction(s):
    """Players bid (ask) or pass."""
    return s[layout.S_PHASE] == layout.PH_AUCTION


@reader
def in_search(s):
    """The dealer turns a new trump or ends the deal (everybody passed)."""
    return s[layout.S_PHASE] == layout.PH_SEARCH


@reader
def in_swap(s):
    """A player may swap the trump ten for an upcard."""
    return s[layout.S_PHASE] == layout.PH_SWAP


@reader
def in_play(s):
    """Cards are played to tricks."""
    return s[layout.S_PHASE] == layout.PH_PLAY


@reader
def seat_count(s):
    """Seats at the table (as :func:`players` of the rules)."""
    return s[layout.S_N]


@reader
def dealer(s):
    """The dealer's seat."""
    return s[layout.S_DEALER]


@reader
def pot(s):
    """Chips in the pot now."""
    return s[layout.S_POT]


@reader
def deal_pot(s):
    """Chips in the pot when the deal started (its opening ante in it)."""
    return s[layout.S_POT_START]


@reader
def trump(s):
    """The trump suit (``0..3``, :data:`zwick_ai.cards.SUITS`), or -1 before an upcard is turned."""
    return s[layout.S_TRUMP]


@reader
def upcard_count(s):
    """Upcards turned so far (the first trump and the re-turns)."""
    return s[layout.S_NUP]


@reader
def upcard(s, k):
    """The ``k``-th upcard in the order turned (a swapped one is the ten that replaced it)."""
    return s[layout.S_UP + k]


@reader
def offered_upcard(s):
    """In the swap phase: the upcard whose ten is offered in exchange."""
    return s[layout.S_UP + s[layout.S_SWAPK]]


@reader
def bottom_card(s):
    """The card the cut showed, kept at the bottom of the talon (Zwicken), or -1."""
    return s[layout.S_BOTTOM]


@reader
def cut_card(s):
    """The card the last cut showed, or -1."""
    return s[layout.S_CUTCARD]


@reader
def searches(s):
    """New trumps the dealer has turned after everybody passed."""
    return s[layout.S_NSEARCH]


@reader
def high_bid(s):
    """The highest bid level so far (0: none)."""
    return s[layout.S_HIGH]


@reader
def high_bidder(s):
    """The seat of the highest bid (-1: none)."""
    return s[layout.S_HIGHP]


@reader
def auction_round(s):
    """The round of a two-round auction (from 0)."""
    return s[layout.S_ROUND]


@reader
def turn(s):
    """In declaring and auction rounds: the acting player's place from forehand (0 = forehand)."""
    return s[layout.S_TURN]


@reader
def speler(s):
    """The player who plays against the others (the gambler, speler), or -1."""
    return s[layout.S_SPELER]


@reader
def exchange_declared(s):
    """Cards the exchanging player declared to exchange."""
    return s[layout.S_EXK]


@reader
def exchange_discarded(s):
    """Of those, the cards discarded so far."""
    return s[layout.S_EXD]


@reader
def run_last(s):
    """The last card of the sorted run being dealt, discarded or drawn (-1 at its start): cards of
    a run come in increasing ids."""
    return s[layout.S_LAST]


# ------------------------------------------------------------------------------------------------
# Tricks
# ------------------------------------------------------------------------------------------------
@reader
def trick_number(s):
    """The trick being played, from 0 (= tricks finished)."""
    return s[layout.S_TRICK]


@reader
def leader(s):
    """The seat that led the current trick."""
    return s[layout.S_LEADER]


@reader
def played_to_trick(s):
    """Cards played to the current trick so far."""
    return s[layout.S_NPLAYED]


@reader
def taking_part(s):
    """Players taking part in the tricks."""
    return s[layout.S_NPART]


@reader
def led_suit(s):
    """The suit led in the current trick, or -1."""
    return s[layout.S_LEDSUIT]


@reader
def trick_log(s, k, p):
    """Seat ``p``'s card in trick ``k < 3`` (+64 if face down; -1: none)."""
    return s[layout.S_TL + k * layout.NP + p]


# ------------------------------------------------------------------------------------------------
# Per seat
# ------------------------------------------------------------------------------------------------
@reader
def status(s, p):
    """Seat ``p`` in the current round: 0 undecided, 1 in (plays, stays or has bid), 2 passed."""
    return s[layout.S_PLAYERS + layout.P_STATUS * layout.NP + p]


@reader
def bid(s, p):
    """Seat ``p``'s bid level (0: none)."""
    return s[layout.S_PLAYERS + layout.P_BID * layout.NP + p]


@reader
def announced(s, p):
    """Bit ``k``: seat ``p`` announced the trump ten for upcard ``k`` ("... en ik ken hem")."""
    return s[layout.S_PLAYERS + layout.P_ANN * layout.NP + p]


@reader
def in_tricks(s, p):
    """Seat ``p`` takes part in the tricks."""
    return s[layout.S_PLAYERS + layout.P_IN * layout.NP + p] != 0


@reader
def tricks_won(s, p):
    """Tricks seat ``p`` has won."""
    return s[layout.S_PLAYERS + layout.P_TRICKS * layout.NP + p]


@reader
def card_points(s, p):
    """Card points seat ``p`` has won."""
    return s[layout.S_PLAYERS + layout.P_POINTS * layout.NP + p]


@reader
def net(s, p):
    """Seat ``p``'s net chip change in this deal so far (antes inside the deal included)."""
    return s[layout.S_PLAYERS + layout.P_NET * layout.NP + p]


@reader
def trick_card(s, p):
    """Seat ``p``'s card in the current trick (-1: none yet)."""
    return s[layout.S_PLAYERS + layout.P_TCARD * layout.NP + p]


@reader
def face_down(s, p):
    """Seat ``p``'s card in the current trick was played face down."""
    return s[layout.S_PLAYERS + layout.P_TFD * layout.NP + p] != 0


# ------------------------------------------------------------------------------------------------
# Where each card is
# ------------------------------------------------------------------------------------------------
@reader
def in_hand(s, c, p):
    """Card ``c`` is in seat ``p``'s hand."""
    return s[layout.S_LOC + c] == layout.L_HAND + p


@reader
def holder(s, c):
    """The seat holding card ``c``, or -1."""
    loc = s[layout.S_LOC + c]
    return loc - layout.L_HAND if layout.L_HAND <= loc < layout.L_HAND + layout.NP else -1


@reader
def in_stock(s, c):
    """Card ``c`` is in the stock (talon), not yet dealt."""
    return s[layout.S_LOC + c] == layout.L_STOCK


@reader
def is_upcard(s, c):
    """Card ``c`` lies face up as an upcard."""
    return s[layout.S_LOC + c] == layout.L_UP


@reader
def is_bottom(s, c):
    """Card ``c`` lies shown at the bottom of the talon."""
    return s[layout.S_LOC + c] == layout.L_BOTTOM


@reader
def is_discarded(s, c):
    """Card ``c`` was discarded in an exchange (out of play, face down)."""
    return s[layout.S_LOC + c] == layout.L_DISC


@reader
def is_played(s, c):
    """Card ``c`` was played face up to a trick."""
    return s[layout.S_LOC + c] == layout.L_PLAYED


@kernel(inline="always")
def hand(s, p):
    """Seat ``p``'s cards, in card id order (a new array)."""
    out = np.empty(layout.NC, np.int32)
    k = 0
    for c in range(layout.NC):
        if s[layout.S_LOC + c] == layout.L_HAND + p:
            out[k] = c
            k += 1
    return out[:k]


@reader
def swap_places(s, a, b):
    """Exchange where cards ``a`` and ``b`` lie (a second call undoes it): to try a ten swap."""
    s[layout.S_LOC + a], s[layout.S_LOC + b] = s[layout.S_LOC + b], s[layout.S_LOC + a]


@reader
def ten_of(c):
    """The ten of card ``c``'s suit."""
    return (c // 13) * 13 + layout.TEN


@reader
def is_ace(c):
    """Card ``c`` is an Ace."""
    return c % 13 == layout.ACE


# ------------------------------------------------------------------------------------------------
# Action ids
# ------------------------------------------------------------------------------------------------
@reader
def played_card(a):
    """The card action ``a`` plays, or -1 (not a play)."""
    return a - layout.A_PLAY if layout.A_PLAY <= a < layout.A_PLAY + layout.NC else -1


@reader
def discarded_card(a):
    """The card action ``a`` discards, or -1 (not a discard)."""
    return a - layout.A_DISCARD if layout.A_DISCARD <= a < layout.A_DISCARD + layout.NC else -1


# ------------------------------------------------------------------------------------------------
# The history: one entry per event
# ------------------------------------------------------------------------------------------------
@reader
def history_length(s):
    """Events so far."""
    return s[layout.S_HLEN]


@reader
def event_kind(s, i):
    """The kind code of event ``i`` (``tricks.history``'s first field)."""
    return s[layout.S_HIST + 3 * i]


@reader
def event_seat(s, i):
    """The seat of event ``i`` (dealt to, drawing or acting; -1 for an upcard or a cut)."""
    return s[layout.S_HIST + 3 * i + 1]


@reader
def event_value(s, i):
    """The value of event ``i``: a card (dealt, turned, cut or drawn) or an action id."""
    return s[layout.S_HIST + 3 * i + 2]


@reader
def is_action(s, i):
    """Event ``i`` is an action (face up or hidden), not a chance card."""
    k = s[layout.S_HIST + 3 * i]
    return k == layout.H_ACT or k == layout.H_HIDDEN


@reader
def is_hidden_action(s, i):
    """Event ``i`` is an action other seats do not see: a discard or a face-down play."""
    return s[layout.S_HIST + 3 * i] == layout.H_HIDDEN


@reader
def is_upcard_event(s, i):
    """Event ``i`` turned an upcard."""
    return s[layout.S_HIST + 3 * i] == layout.H_UP


@reader
def is_cut_event(s, i):
    """Event ``i`` is a cut (its card shown)."""
    return s[layout.S_HIST + 3 * i] == layout.H_CUT


@reader
def is_open_draw(s, i):
    """Event ``i`` is a card drawn openly (the shown bottom card)."""
    return s[layout.S_HIST + 3 * i] == layout.H_DRAWPUB


@reader
def is_deal_event(s, i):
    """Event ``i`` dealt a card into a hand (not a draw)."""
    return s[layout.S_HIST + 3 * i] == layout.H_DEAL


@reader
def is_draw_event(s, i):
    """Event ``i`` is a hidden draw of an exchanging player."""
    return s[layout.S_HIST + 3 * i] == layout.H_DRAW


@reader
def received_by(s, i):
    """The seat event ``i`` gave a card in secret (dealt or drawn), or -1."""
    k = s[layout.S_HIST + 3 * i]
    return s[layout.S_HIST + 3 * i + 1] if k == layout.H_DEAL or k == layout.H_DRAW else -1


@reader
def event_card(s, i):
    """The card event ``i`` moves: the card dealt, turned, cut or drawn, or the card of a play or a
    discard (-1: an action without a card)."""
    k = s[layout.S_HIST + 3 * i]
    v = s[layout.S_HIST + 3 * i + 2]
    if k == layout.H_ACT or k == layout.H_HIDDEN:
        if layout.A_PLAY <= v < layout.A_PLAY + layout.NC:
            return v - layout.A_PLAY
        if layout.A_DISCARD <= v < layout.A_DISCARD + layout.NC:
            return v - layout.A_DISCARD
        return -1
    return v


@reader
def seen_by(s, i, p):
    """Seat ``p`` sees the card or action of event ``i`` (another seat's deal, draw or hidden action
    it does not)."""
    k = s[layout.S_HIST + 3 * i]
    if k == layout.H_DEAL or k == layout.H_DRAW or k == layout.H_HIDDEN:
        return s[layout.S_HIST + 3 * i + 1] == p
    return True


#: the kind :func:`observed_event` gives an own hidden action (which its seat sees with its card)
OWN_HIDDEN = 8


@reader
def observed_event(s, i, p):
    """Event ``i`` as seat ``p`` observes it, ``(kind, seat, value)``, as in
    ``tricks.information_state_string``: kind -1 when ``p`` does not observe it (another seat's
    deal); the seat ``NP`` for an upcard or a cut; value -1 for another seat's draw, 1 for another
    seat's face-down play and 0 for its discard; kind :data:`OWN_HIDDEN` for ``p``'s own hidden
    action."""
    k = s[layout.S_HIST + 3 * i]
    who = s[layout.S_HIST + 3 * i + 1]
    v = s[layout.S_HIST + 3 * i + 2]
    mine = who == p
    if k == layout.H_DEAL:
        if not mine:
            k = -1
    elif k == layout.H_UP or k == layout.H_CUT:
        who = layout.NP
    elif k == layout.H_DRAW:
        if not mine:
            v = -1
    elif k == layout.H_HIDDEN:
        if mine:
            k = OWN_HIDDEN
        else:
            v = 1 if v < layout.A_DISCARD else 0
    return k, who, v


@reader
def private_run(s, i, p):
    """Which sorted run of seat ``p``'s own cards event ``i`` belongs to: 0 its deal, 1 its draw, 2
    its discards; -1 none (cards of a run come in increasing ids, so a run is a set)."""
    k = s[layout.S_HIST + 3 * i]
    if s[layout.S_HIST + 3 * i + 1] != p:
        return -1
    if k == layout.H_DEAL:
        return 0
    if k == layout.H_DRAW:
        return 1
    if k == layout.H_HIDDEN and s[layout.S_HIST + 3 * i + 2] >= layout.A_DISCARD:
        return 2
    return -1


@reader
def hidden_move(s, cfg, obs, mask):
    """The pending action of the seat to act is invisible to seat ``obs`` (another seat's discard
    or face-down play); ``mask`` holds the legal actions. Always False for ``obs`` -1."""
    p = s[layout.S_CUR]
    if obs < 0 or p == obs:
        return False
    if s[layout.S_PHASE] == layout.PH_DISCARD:
        return True
    if (
        s[layout.S_PHASE] == layout.PH_PLAY
        and cfg[layout.C_DUTY] == layout.DUTY_HISTORIC
        and s[layout.S_TRICK] < cfg[layout.C_H] - 1
    ):
        for a in range(layout.NC):
            if mask[a]:
                return a // 13 != s[layout.S_TRUMP]  # without trump every card goes face down
    return False


__all__ = [
    "A_BID",
    "A_BID_KEN",
    "A_DISCARD",
    "A_EXCH",
    "A_KEEP",
    "A_PASS",
    "A_PASS_KEN",
    "A_PLAY",
    "A_PLAYDECL",
    "A_SEARCH",
    "A_STOP",
    "A_SWAP",
    "MAXH",
    "NC",
    "NP",
    "NUM_ACTIONS",
    "OWN_HIDDEN",
    "PHASE_NAMES",
    "S_SIZE",
    "TOKEN",
    "announced",
    "auction_round",
    "bid",
    "bottom_card",
    "card_points",
    "cut_card",
    "deal_pot",
    "dealer",
    "declares_play_or_pass",
    "discarded_card",
    "event_card",
    "event_kind",
    "event_seat",
    "event_value",
    "exchange_declared",
    "exchange_discarded",
    "face_down",
    "face_down_duty",
    "hand",
    "hidden_move",
    "high_bid",
    "high_bidder",
    "history_length",
    "holder",
    "in_auction",
    "in_declare",
    "in_discard",
    "in_draw",
    "in_hand",
    "in_pack",
    "in_play",
    "in_search",
    "in_stock",
    "in_swap",
    "in_tricks",
    "is_ace",
    "is_action",
    "is_bottom",
    "is_chance",
    "is_cut_event",
    "is_deal_event",
    "is_discarded",
    "is_draw_event",
    "is_hidden_action",
    "is_open_draw",
    "is_over",
    "is_played",
    "is_upcard",
    "is_upcard_event",
    "leader",
    "led_suit",
    "net",
    "observed_event",
    "offered_upcard",
    "permanent_trump",
    "phase",
    "played_card",
    "played_to_trick",
    "players",
    "pot",
    "private_run",
    "received_by",
    "run_last",
    "searches",
    "seat_count",
    "seen_by",
    "speler",
    "status",
    "swap_places",
    "taking_part",
    "ten_of",
    "to_move",
    "trick_card",
    "trick_log",
    "trick_number",
    "tricks_per_deal",
    "tricks_won",
    "trump",
    "turn",
    "upcard",
    "upcard_count",
]
