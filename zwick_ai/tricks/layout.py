"""Array layouts shared by the trick kernels, the Python API and the OpenSpiel wrappers.

A rule set is an int32 ``cfg`` array (``C_*`` indices); a position is one flat int32 state array
(``S_*`` indices, per-player blocks at ``S_PLAYERS + P_* * NP + seat``, card locations at
``S_LOC``, the event history at ``S_HIST``). Action ids (``A_*``) are shared by both games;
chance outcomes are card ids 0..51.
"""

NP = 6  # most players of any rule set
NC = 52  # standard card ids (zwick_ai.cards)
MAXUP = 4  # upcards: the first trump plus at most three re-turns
TEN = 8  # rank index of T
ACE = 12
SEVEN = 5

# ---- rule array --------------------------------------------------------------------------------
C_GAME = 0  # 0 zwikken, 1 zwicken
C_N = 1
C_H = 2  # cards per hand = tricks
C_DECLARE = 3
C_AUCTION = 4
C_FORCED = 5
C_ZWIK = 6
C_ZWIK_WHO = 7
C_ZWIK_BETE = 8  # other players who play pay the pot's amount when a zwik wins (1853)
C_UPPAIR = 9
C_THREE_TRUMPS = 10
C_PARTPOT = 11
C_MAXLEVEL = 12
C_JUMP = 13  # 1: any higher bid (parlett); 0: only the next call (modern)
C_MAXSEARCH = 14
C_SEARCH_ANTE = 15
C_REPEAT_VOID = 16
C_TENSWAP = 17
C_DUTY = 18
C_WIN = 19
C_LUBBERS = 20
C_PERM = 21  # id of the permanent trump (7D) or -1
C_ACELEAD = 22
C_GEZWICKT = 23
C_HUPF = 24
C_JUMPMODE = 25
C_DEALER_ANTE = 26
C_ANBIETEN = 27
C_BETE = 28
C_LONE = 29
C_DEALER = 30
C_POT = 31
C_PACKSIZE = 32
C_INPACK = 40  # 52 flags
C_SIZE = 96

DECL_NONE, DECL_PLAYPASS, DECL_EXCHANGE = 0, 1, 2
AUCTION_NONE, AUCTION_CYCLIC, AUCTION_TWO_ROUNDS = 0, 1, 2
ZWIK_NONE, ZWIK_HIST_RANK, ZWIK_HIST_SUIT, ZWIK_RANK, ZWIK_MODERN = 0, 1, 2, 3, 4
WHO_PLAYERS, WHO_ALL, WHO_ASKERS = 0, 1, 2
SEARCH_ANTE_NONE, SEARCH_ANTE_EVERY, SEARCH_ANTE_FIRST = 0, 1, 2
SWAP_NONE, SWAP_CURRENT, SWAP_ANNOUNCED = 0, 1, 2
DUTY_HISTORIC, DUTY_PARLETT, DUTY_ZWICKEN = 0, 1, 2
WIN_SHARES, WIN_GAMBLER, WIN_POINTS = 0, 1, 2
BETE_NONE, BETE_POT, BETE_STAKE = 0, 1, 2

# ---- state array -------------------------------------------------------------------------------
S_PHASE = 0
S_CUR = 1  # player to move; CUR_CHANCE or CUR_OVER
S_N = 2
S_DEALER = 3
S_POT = 4
S_POT_START = 5
S_POT0 = 6  # the pot when play starts (trick shares and stakes are of this amount)
S_TRUMP = 7
S_NUP = 8
S_UP = 9  # MAXUP upcards in the order turned
S_DEAL_Q = 13  # deal: seat offset from forehand being dealt to
S_DEAL_J = 14  # cards dealt to that seat so far
S_LAST = 15  # last card of the current sorted run (deal, discards, draws), -1 at its start
S_HIGH = 16  # highest bid level so far
S_HIGHP = 17  # its bidder (-1 none)
S_ROUND = 18  # auction round (two-round auction)
S_TURN = 19  # seat offset of the player acting in declare/auction rounds, or the drawer
S_NSEARCH = 20
S_SWAPK = 21  # upcard index whose ten is being offered
S_EXK = 22  # exchange: cards declared
S_EXD = 23  # discards made
S_DRAWN = 24  # cards drawn
S_CUTS = 25
S_PASSES = 26  # deals passed by Hupf/Sprung
S_BOTTOM = 27  # card shown by the cut and kept at the bottom of the talon (-1 none)
S_TRICK = 28
S_LEADER = 29
S_NPLAYED = 30
S_SPELER = 31  # gambler / speler
S_RESULT = 32
S_ZWIKP = 33  # player whose zwik won (-1)
S_LEDSUIT = 34
S_CUTCARD = 35  # last card shown by a cut (-1)
S_HLEN = 36  # history entries
S_NPART = 37  # players taking part in the tricks
S_SEVENLOST = 38  # player gezwickt for losing 7D to the trump Ace (-1)

S_PLAYERS = 40
P_STATUS = 0  # 0 undecided, 1 in (plays / stays / has bid), 2 passed
P_BID = 1
P_ASKED = 2  # bid at least once in the current auction
P_ANN = 3  # bit k: announced the ten for upcard k (modern)
P_TRICKS = 4
P_POINTS = 5
P_NET = 6
P_LED = 7
P_TCARD = 8  # card in the current trick (-1)
P_TFD = 9  # that card was played face down
P_PASSR1 = 10  # passed in round 1 (two-round auction)
P_IN = 11  # takes part in the tricks
NPF = 12
S_LOC = S_PLAYERS + NPF * NP  # 112
S_TL = S_LOC + NC  # trick log: 3 tricks x NP seats, card id (+64 if face down), -1 none
S_HIST = S_TL + 3 * NP + 2  # 184
MAXH = 256  # history entries (3 ints each)
S_SIZE = S_HIST + 3 * MAXH

# card locations (S_LOC + card)
L_OUT = -1  # not in this pack
L_STOCK = 0
L_HAND = 1  # + seat
L_UP = 7
L_DISC = 8
L_PLAYED = 9
L_FD = 10
L_BOTTOM = 11

PH_CUT, PH_DEAL, PH_UPCARD, PH_DECLARE, PH_DISCARD, PH_DRAW = 0, 1, 2, 3, 4, 5
PH_AUCTION, PH_SEARCH, PH_SWAP, PH_PLAY, PH_END = 6, 7, 8, 9, 10
PHASE_NAMES = (
    "cut",
    "deal",
    "upcard",
    "declare",
    "discard",
    "draw",
    "auction",
    "search",
    "swap",
    "play",
    "end",
)
# S_CUR when no seat is to act (the engine's own codes; the OpenSpiel wrapper maps them to
# pyspiel.PlayerId.CHANCE and .TERMINAL)
CUR_CHANCE = -1
CUR_OVER = -2

# results (S_RESULT)
R_RUNNING, R_VOID, R_LONE, R_ZWIK, R_TRICKS, R_STOP, R_REPEAT = 0, 1, 2, 3, 4, 5, 6
RESULT_NAMES = (
    "running",
    "void: everybody passed",
    "a lone player takes the pot",
    "zwik",
    "tricks played",
    "void: the dealer ended the deal",
    "void: a suit was turned up again",
)

# history entries (kind, who, value)
H_DEAL, H_UP, H_CUT, H_DRAW, H_ACT, H_HIDDEN, H_DRAWPUB = 0, 1, 2, 3, 4, 5, 6

# ---- actions -----------------------------------------------------------------------------------
A_PLAY = 0  # + card
A_DISCARD = 52  # + card
A_PASS = 104
A_PLAYDECL = 105
A_BID = 106  # + level - 1
A_PASS_KEN = 110
A_BID_KEN = 111  # + level - 1
A_SEARCH = 115
A_STOP = 116
A_SWAP = 117
A_KEEP = 118
A_EXCH = 119  # + number of cards 0..3
NUM_ACTIONS = 123

# ---- information-state tokens (one per observed event) ----------------------------------------------
# kinds: 0 own deal, 1 upcard, 2 cut, 3 own draw, 4 hidden draw, 5 open draw, 6 action, 7 hidden action
TOKEN_KINDS = 8
TOKEN = TOKEN_KINDS + NP + 1 + NUM_ACTIONS  # kind, seat (NP = none), value (card or action id)
