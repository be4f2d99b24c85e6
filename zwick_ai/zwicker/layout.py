"""Flat array layouts shared by the Zwicker kernels and their Python wrapper.

A position is one int32 array (``STATE_SIZE`` long) so that copying a state is one ``memcpy``
(OpenSpiel clones by deep-copying attributes; see docs/openspiel.md). A rule set is another int32
array (``RULES_SIZE`` long) built once per :class:`~zwick_ai.zwicker.rules.Rules` (by
:func:`~zwick_ai.zwicker.rules.rules_array`).
Per-card tables are indexed by the global card id (:mod:`zwick_ai.cards`).
"""

from __future__ import annotations

from zwick_ai import cards as zwick_cards

NC = zwick_cards.NUM_CARDS
MAX_PLAYERS = 12
MAX_HAND = 32
MAX_UNITS = 64  # capture sets are 64-bit masks over table units

# ----- location codes (S_LOC) -----
LOC_NONE = -1  # not in this game's deck
LOC_HAND = 0  # + seat
LOC_WON = 16  # + side
LOC_STOCK = 32
LOC_TABLE = 48

# ----- rules array -----
R_PLAYERS = 0
R_NSIDES = 1
R_DUAL = 2
R_WILD = 3
R_OWNER_BUILDS = 4
R_PARTNER_BUILDS = 5
R_MAGGER = 6
R_FORCED = 7
R_JOKER_CAPTURE = 8  # index into rules.JOKER_CAPTURE
R_JOKER_SWEEP_ZWICK = 9
R_JOKER_SUM = 10
R_AFTER_ZWICK = 11  # index into rules.AFTER_ZWICK
R_DIETZE_LOOSE = 12
R_DIETZE_MIN = 13
R_FIRST_DEALER = 14  # index into rules.FIRST_DEALER
R_SUBTRACT_EITHER = 15
R_CAPTURE_SEVERAL = 16
R_MAX_BUILD = 17
R_ZWICK_POINTS = 18
R_MOST_CARDS = 19
R_DECK_SIZE = 20
R_STAGE_HAND = 21
R_STAGE_PACKET = 22
R_FINAL_HAND = 23
R_MAX_STAGES = 24
R_FIRST_NSTEPS = 25
R_FIRST_STEPS = 26  # 8 steps x (kind 0=hands/1=table, count, packet)
R_SIDE_OF = 50  # per seat
R_DECK = 64  # deck card ids (R_DECK_SIZE of them)
R_VAL1 = R_DECK + NC  # first matching value (0 for a wild joker)
R_VAL2 = R_VAL1 + NC  # second value of a dual card, else 0
R_POINTS = R_VAL2 + NC
R_IS_WILD = R_POINTS + NC
R_IS_VJOKER = R_IS_WILD + NC
R_CANON = R_IS_VJOKER + NC  # lowest id of the card's identical copies
R_CUT_RANK = R_CANON + NC  # order for cutting for the deal
RULES_SIZE = R_CUT_RANK + NC

# ----- state array -----
S_TO_MOVE = 0
S_PHASE = 1  # PHASE_*
S_AZ_LEFT = 2
S_DEALER = 3
S_STAGE = 4
S_LAST_CAPT = 5
S_NUNITS = 6
S_STOCK_TOP = 7  # index in S_STOCK of the next card to deal
S_STOCK_LEN = 8
S_ASK_Q = 9
S_ASK_N = 10
S_ASK_ANS = 11
S_PLIES = 12
S_ZWICKS = 16  # per side
S_WON_N = S_ZWICKS + MAX_PLAYERS  # cards won, per side
S_HAND_N = S_WON_N + MAX_PLAYERS  # cards in hand, per seat
S_UNITS = S_HAND_N + MAX_PLAYERS  # anchor card of each table unit, oldest first
S_HANDS = S_UNITS + MAX_UNITS  # MAX_PLAYERS x MAX_HAND, each hand sorted by id
S_LOC = S_HANDS + MAX_PLAYERS * MAX_HAND  # per card: location code
S_ANCHOR = S_LOC + NC  # per table card: anchor card of its unit
S_NEXT = S_ANCHOR + NC  # per table card: next card of the same unit (-1 = last)
S_UVALUE = S_NEXT + NC  # per anchor: announced build value (0 for a loose card)
S_UOWNER = S_UVALUE + NC  # per anchor: owner seat (-1 none)
S_UBUILD = S_UOWNER + NC  # per anchor: 1 if the unit is a build
S_DEALT_TO = S_UBUILD + NC  # per card: seat it was dealt to (-1 table / stock)
S_STOCK = S_DEALT_TO + NC  # deck order; cards S_STOCK_TOP.. are undealt
STATE_SIZE = S_STOCK + NC

# S_PHASE values: the turn phases (RULE_CHOICES.md, "Turn sequencing")
PHASE_NORMAL = 0
PHASE_AFTER_ZWICK_TRAIL = 1
PHASE_DIETZE_TRAIL = 2
PHASE_OVER = 3

# ----- move records (int64 rows) -----
M_KIND = 0  # KIND_*
M_CARD = 1
M_VALUE = 2  # capture: smallest proving value; build: announced; ask: asked value
M_MASK = 3  # capture: bit i = table unit i taken
M_TARGET = 4  # build: table index built on, -1 new
M_OWNER = 5  # build: owner afterwards; ask: partner asked
M_ZWICK = 6  # capture: 1 if it counts as a Zwick
M_FIELDS = 7  # the engine's fields are columns [0, M_FIELDS)
M_SPARE = 7  # zero in the engine's rows; the codec keeps a move's token count there
MOVE_WIDTH = 8

KIND_TRAIL = 0
KIND_CAPTURE = 1
KIND_BUILD = 2
KIND_ASK = 3
