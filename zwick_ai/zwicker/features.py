"""Features of a Zwicker position as one player sees it, computed in compiled code: the inputs of
the learned models (:mod:`zwick_ai.agents.value_model`), which the agents and the batched games'
compiled opponents (:mod:`zwick_ai.vector`) share.

A model scores the position right after a whole move from the view of the player who made it. :func:`after_move_features` reads the engine
state before the move (``Spre``) and after it (``Spost``) and uses only what that player knows:

* their own hand, the table units (values, owners, points), the cards each side has won, the
  Zwicks, who captured last, how many cards each seat holds, the stage and the stock size;
* every other card is *unseen* (another hand or the stock) and enters only as counts. Cards that
  the move made the engine deal (a new stage, Dietze's table fill) were in the stock before the
  move; they count as unseen and their table units are left out, because the player does not see
  them when choosing the move.

Values are binned ``1..14`` (index ``v - 1``) with one bin for the joker values 15..30; a card
with two values (aces in the joker variants) counts in both bins; a wild joker has its own counts.

The vector (:data:`NFEAT` floats, names in :data:`FEATURE_NAMES`) is points-scaled where it is
about points; the side's lead so far in card points plus Zwicks is feature ``F_LEAD`` + ``F_ZWICK``
(the value model predicts what is added to that by the end of the hand).
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout

NBINS = 15  # values 1..14, then one bin for the joker values
MAX_SUM = 30  # the largest value a capture can prove (the X30 joker)
REL_SEATS = 3  # hand sizes of the next three seats in turn order

# Scalar features.
F_LEAD = 0  # card points won: own side minus the mean of the other sides
F_CARDS = 1  # cards won, the same difference
F_ZWICK = 2  # Zwick points, the same difference
F_HAND_N = 3
F_HAND_PTS = 4
F_UNSEEN_N = 5
F_UNSEEN_PTS = 6
F_STOCK = 7
F_STAGE = 8
F_UNITS = 9
F_TABLE_N = 10
F_TABLE_PTS = 11
F_LAST_CAPT = 12  # +1 own side captured last, -1 another side, 0 nobody yet
F_REL_HAND = 13  # REL_SEATS hand sizes
F_MY_VJOKERS = F_REL_HAND + REL_SEATS
F_MY_WILD = F_MY_VJOKERS + 1
F_UNSEEN_VJOKERS = F_MY_WILD + 1
F_UNSEEN_WILD = F_UNSEEN_VJOKERS + 1
F_TABLE_WILD = F_UNSEEN_WILD + 1
F_MY_BEST = F_TABLE_WILD + 1  # best points one of my cards could take from this table now
F_OPP_THREAT = F_MY_BEST + 1  # the same summed over unseen cards, weighted by their share
# Per value bin.
F_MY_VAL = F_OPP_THREAT + 1
F_UNSEEN_VAL = F_MY_VAL + NBINS
F_LOOSE_VAL = F_UNSEEN_VAL + NBINS
F_OWN_BUILD_VAL = F_LOOSE_VAL + NBINS  # builds owned by my side
F_OPP_BUILD_VAL = F_OWN_BUILD_VAL + NBINS  # builds owned by another side
F_MATCH_PTS = F_OPP_BUILD_VAL + NBINS  # points of the units of exactly this value
F_SUM_PTS = F_MATCH_PTS + NBINS  # best points of one group of units adding up to this value
NFEAT = F_SUM_PTS + NBINS

FEATURE_NAMES: tuple[str, ...] = (
    "lead",
    "cards_won",
    "zwicks",
    "hand_n",
    "hand_points",
    "unseen_n",
    "unseen_points",
    "stock",
    "stage",
    "table_units",
    "table_cards",
    "table_points",
    "last_capture",
    *(f"hand_n_seat+{k + 1}" for k in range(REL_SEATS)),
    "my_valued_jokers",
    "my_wild_jokers",
    "unseen_valued_jokers",
    "unseen_wild_jokers",
    "table_wild_jokers",
    "my_best_capture",
    "unseen_threat",
    *(
        f"{what}_{v + 1 if v < NBINS - 1 else 'joker'}"
        for what in ("my", "unseen", "loose", "own_build", "opp_build", "match_points", "sum_points")
        for v in range(NBINS)
    ),
)


@kernel
def value_bin(v):
    return v - 1 if v < NBINS else NBINS - 1


@kernel
def side_diff(x, side, ns):
    """``x[side]`` minus the mean of the other sides' ``x``."""
    if ns < 2:
        return 0.0
    total = 0.0
    for s in range(ns):
        total += x[s]
    return (ns * x[side] - total) / (ns - 1)


@kernel
def table_capture_points(R, Spre, Spost, match, best):
    """Per value ``v`` (1..MAX_SUM): ``match[v]`` the points of the units of exactly value ``v``;
    ``best[v]`` the most points of one set of units whose values (one choice per unit) add up to
    ``v``, -1 if none does (a subset-sum table; wild jokers and unseen dealt units left out)."""
    match[:] = 0
    best[:] = -1
    best[0] = 0
    tmp = np.empty(MAX_SUM + 1, np.int64)
    for i in range(Spost[layout.S_NUNITS]):
        a = Spost[layout.S_UNITS + i]
        if Spre[layout.S_LOC + a] == layout.LOC_STOCK or R[layout.R_IS_WILD + a]:
            continue
        pts = arrays.unit_points(R, Spost, a)
        v1 = np.int64(R[layout.R_VAL1 + a])
        v2 = np.int64(R[layout.R_VAL2 + a])
        if Spost[layout.S_UBUILD + a]:
            v1 = np.int64(Spost[layout.S_UVALUE + a])
            v2 = np.int64(0)
        if 0 < v1 <= MAX_SUM:
            match[v1] += pts
        if 0 < v2 <= MAX_SUM:
            match[v2] += pts
        tmp[:] = best
        for s in range(MAX_SUM + 1):
            if best[s] < 0:
                continue
            for j in range(2):
                v = v1 if j == 0 else v2
                if v > 0 and s + v <= MAX_SUM and best[s] + pts > tmp[s + v]:
                    tmp[s + v] = best[s] + pts
        best[:] = tmp


@kernel
def after_move_features(R, Spre, Spost, p, out):
    """Fill ``out`` (NFEAT floats) with the features of ``Spost`` as seat ``p`` sees it right after
    its move from ``Spre`` (module docstring)."""
    out[:] = 0.0
    ns = R[layout.R_NSIDES]
    players = R[layout.R_PLAYERS]
    side = R[layout.R_SIDE_OF + p]
    won_pts = np.zeros(ns, np.float64)
    won_n = np.zeros(ns, np.float64)
    zw = np.zeros(ns, np.float64)
    for s in range(ns):
        won_n[s] = Spost[layout.S_WON_N + s]
        zw[s] = Spost[layout.S_ZWICKS + s] * R[layout.R_ZWICK_POINTS]
    # Card locations as p knows them.
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = Spost[layout.S_LOC + c]
        pts = R[layout.R_POINTS + c]
        v1 = R[layout.R_VAL1 + c]
        v2 = R[layout.R_VAL2 + c]
        if layout.LOC_WON <= loc < layout.LOC_WON + ns:
            won_pts[loc - layout.LOC_WON] += pts
            continue
        if loc == layout.LOC_TABLE and Spre[layout.S_LOC + c] != layout.LOC_STOCK:
            out[F_TABLE_N] += 1.0
            out[F_TABLE_PTS] += pts
            continue
        mine = loc == layout.LOC_HAND + p and Spre[layout.S_LOC + c] != layout.LOC_STOCK
        if mine:
            out[F_HAND_N] += 1.0
            out[F_HAND_PTS] += pts
            base = F_MY_VAL
            if R[layout.R_IS_VJOKER + c]:
                out[F_MY_VJOKERS] += 1.0
            if R[layout.R_IS_WILD + c]:
                out[F_MY_WILD] += 1.0
        else:  # another hand or the stock, or dealt by this move
            out[F_UNSEEN_N] += 1.0
            out[F_UNSEEN_PTS] += pts
            base = F_UNSEEN_VAL
            if R[layout.R_IS_VJOKER + c]:
                out[F_UNSEEN_VJOKERS] += 1.0
            if R[layout.R_IS_WILD + c]:
                out[F_UNSEEN_WILD] += 1.0
        if v1 > 0:
            out[base + value_bin(v1)] += 1.0
        if v2 > 0:
            out[base + value_bin(v2)] += 1.0
    out[F_LEAD] = side_diff(won_pts, side, ns)
    out[F_CARDS] = side_diff(won_n, side, ns)
    out[F_ZWICK] = side_diff(zw, side, ns)
    out[F_STOCK] = Spre[layout.S_STOCK_LEN] - Spre[layout.S_STOCK_TOP]
    out[F_STAGE] = Spre[layout.S_STAGE]
    last = Spost[layout.S_LAST_CAPT]
    out[F_LAST_CAPT] = 0.0 if last < 0 else (1.0 if last == side else -1.0)
    for k in range(1, players):
        q = (p + k) % players
        out[F_REL_HAND + min(k - 1, REL_SEATS - 1)] += Spre[layout.S_HAND_N + q]
    # Table units.
    for i in range(Spost[layout.S_NUNITS]):
        a = Spost[layout.S_UNITS + i]
        if Spre[layout.S_LOC + a] == layout.LOC_STOCK:
            continue
        out[F_UNITS] += 1.0
        if R[layout.R_IS_WILD + a] and not Spost[layout.S_UBUILD + a]:
            out[F_TABLE_WILD] += 1.0
            continue
        if Spost[layout.S_UBUILD + a]:
            v = Spost[layout.S_UVALUE + a]
            owner = Spost[layout.S_UOWNER + a]
            if owner >= 0 and R[layout.R_SIDE_OF + owner] == side:
                out[F_OWN_BUILD_VAL + value_bin(v)] += 1.0
            else:
                out[F_OPP_BUILD_VAL + value_bin(v)] += 1.0
        else:
            out[F_LOOSE_VAL + value_bin(R[layout.R_VAL1 + a])] += 1.0
            if R[layout.R_VAL2 + a] > 0:
                out[F_LOOSE_VAL + value_bin(R[layout.R_VAL2 + a])] += 1.0
    # What single cards could take from this table.
    match = np.zeros(MAX_SUM + 1, np.int64)
    best = np.zeros(MAX_SUM + 1, np.int64)
    table_capture_points(R, Spre, Spost, match, best)
    for v in range(1, MAX_SUM + 1):
        b = value_bin(v)
        out[F_MATCH_PTS + b] = max(out[F_MATCH_PTS + b], match[v])
        out[F_SUM_PTS + b] = max(out[F_SUM_PTS + b], max(best[v], 0))
    unseen = max(out[F_UNSEEN_N], 1.0)
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = Spost[layout.S_LOC + c]
        if layout.LOC_WON <= loc < layout.LOC_WON + ns or (
            loc == layout.LOC_TABLE and Spre[layout.S_LOC + c] != layout.LOC_STOCK
        ):
            continue
        take = 0
        for j in range(2):
            v = R[layout.R_VAL1 + c] if j == 0 else R[layout.R_VAL2 + c]
            if 0 < v <= MAX_SUM:
                take = max(take, match[v], best[v])
        if take <= 0:
            continue
        gain = take + R[layout.R_POINTS + c]
        if loc == layout.LOC_HAND + p and Spre[layout.S_LOC + c] != layout.LOC_STOCK:
            out[F_MY_BEST] = max(out[F_MY_BEST], gain)
        else:
            out[F_OPP_THREAT] += gain / unseen
    return out


#: card-level block: per card of the deck (in the rules' deck order) four 0/1 inputs, where the
#: mover sees it: in the own hand, on the table, won by the own side, won by another side (a card
#: in none of them is unseen: another hand or the stock)
CARD_BLOCK = 4
C_MINE = 0
C_TABLE = 1
C_WON_OWN = 2
C_WON_OTHER = 3


@kernel
def card_features(R, Spre, Spost, p, out, off):
    """Fill ``out[off : off + CARD_BLOCK * deck size]`` with the card-level view of ``Spost`` by seat
    ``p`` right after its move from ``Spre`` (:data:`CARD_BLOCK`); cards the move made the engine
    deal count as unseen, as in :func:`after_move_features`."""
    ns = R[layout.R_NSIDES]
    side = R[layout.R_SIDE_OF + p]
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = Spost[layout.S_LOC + c]
        base = off + CARD_BLOCK * k
        for j in range(CARD_BLOCK):
            out[base + j] = 0.0
        if layout.LOC_WON <= loc < layout.LOC_WON + ns:
            out[base + (C_WON_OWN if loc - layout.LOC_WON == side else C_WON_OTHER)] = 1.0
        elif Spre[layout.S_LOC + c] == layout.LOC_STOCK:
            continue
        elif loc == layout.LOC_TABLE:
            out[base + C_TABLE] = 1.0
        elif loc == layout.LOC_HAND + p:
            out[base + C_MINE] = 1.0
    return out


@kernel
def candidate_features(R, S, rows, n, W, F):
    """Row k of ``F`` (n x NFEAT): the features after move ``rows[k]`` from the mover's view.
    Returns the mask of the moves that are not questions (only those are scored)."""
    p = S[layout.S_TO_MOVE]
    ok = np.zeros(n, np.bool_)
    f = np.zeros(NFEAT, np.float64)
    for k in range(n):
        if rows[k, layout.M_KIND] == layout.KIND_ASK:
            continue
        Sc = S.copy()
        kernels.apply_move(R, Sc, rows[k], W)
        after_move_features(R, S, Sc, p, f)
        F[k, :] = f
        ok[k] = True
    return ok


@kernel
def move_input(F, ok, k, x):
    """The input of the *move* model for candidate ``k``: its features minus the mean over the
    decision's scored candidates, then that mean (the context)."""
    nf = F.shape[1]
    cnt = 0
    for j in range(F.shape[0]):
        if ok[j]:
            cnt += 1
    for i in range(nf):
        mean = 0.0
        for j in range(F.shape[0]):
            if ok[j]:
                mean += F[j, i]
        mean /= max(cnt, 1)
        x[i] = F[k, i] - mean
        x[nf + i] = mean


@kernel
def after_input(R, Spre, Spost, p, x):
    """The input of an *after* model (``x``: NFEAT + CARD_BLOCK * deck floats, or NFEAT without the
    card-level view): the features of ``Spost`` as seat ``p`` sees it right after its move from
    ``Spre``, then the card-level view."""
    after_move_features(R, Spre, Spost, p, x[:NFEAT])
    if x.shape[0] > NFEAT:  # a model without the card-level view has NFEAT inputs
        if x.shape[0] != NFEAT + CARD_BLOCK * R[layout.R_DECK_SIZE]:  # never write past x
            raise ValueError("an after model's inputs do not fit this game's deck")
        card_features(R, Spre, Spost, p, x, NFEAT)
    return x


__all__ = [
    "CARD_BLOCK",
    "FEATURE_NAMES",
    "NFEAT",
    "after_input",
    "after_move_features",
    "candidate_features",
    "card_features",
    "move_input",
    "side_diff",
]
