"""Features of a Zwicker stage boundary, the public state at a stage's start: the inputs of the
learned stage values (:mod:`zwick_ai.learn.stage_values`) that the re-solving search
(:mod:`zwick_ai.agents.cfr.resolve`) reads at the end of a stage.

At a stage's start every hand has just been dealt from the stock and everything else is public.
The features read the public part only, so a hand or the stock's order can never change them:
per side the card points, cards and Zwick points won so far; who captured last; the dealer; the
stage and the stock left; per deck card whether it lies on the table, which side won it, or
whether it is unseen (a hand or the stock: one flag, whoever holds it); the table's points and
its loose cards' and builds' values. Seats and sides are absolute, as side 0 sees them (a
two-sided game's model gives side 0's value, side 1 gets its opposite); with more sides each
side's value is the model read from that side's seat (:func:`stage_features_seen_by`).

>>> import numpy as np
>>> from zwick_ai import zwicker
>>> from zwick_ai.zwicker import kernels
>>> r = zwicker.rules("classic", players=2)
>>> S = kernels.new_hand(r.array(), 4, kernels.new_workspace())
>>> x = np.zeros(feature_count(r.array())); stage_features(r.array(), S, x)
>>> int(x[F_STOCK]), int(x[F_UNITS])  # 52 cards: 4 on the table, 2 x 4 in the hands
(40, 4)
"""

from __future__ import annotations

from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, layout

MAX_VALUE = 30  # the largest card or build value
F_STAGE = 0
F_STOCK = 1
F_TABLE_PTS = 2
F_UNITS = 3
F_SCALARS = 4
# then: per side (points, cards, Zwick points): 3 x sides; last capturer one-hot: sides + 1;
# dealer one-hot: players; per deck card: table, unseen, won by side (sides); table value counts.


@kernel
def feature_count(R):
    """How many features :func:`stage_features` writes for the rules ``R``."""
    ns = R[layout.R_NSIDES]
    return F_SCALARS + 3 * ns + ns + 1 + R[layout.R_PLAYERS] + R[layout.R_DECK_SIZE] * (2 + ns) + MAX_VALUE + 1


@kernel
def view_shift(R, side):
    """The seat rotation that makes ``side`` side 0: its lowest seat (:func:`views_rotate`)."""
    for p in range(R[layout.R_PLAYERS]):
        if R[layout.R_SIDE_OF + p] == side:
            return p
    return 0


@kernel
def model_views(R):
    """The sides a stage-value model is read from: side 0 alone with two sides (side 1's value is
    its opposite), every side with more (each from its own seat, :func:`stage_features_seen_by`)."""
    ns = R[layout.R_NSIDES]
    return 1 if ns == 2 else ns


@kernel
def views_rotate(R):
    """Whether turning the seats by :func:`view_shift` turns the sides alike for every side, so
    that :func:`stage_features_seen_by` is the same table seen from another side (true of every
    Zwicker board: a side's seats are those of one remainder modulo the sides)."""
    ns = R[layout.R_NSIDES]
    players = R[layout.R_PLAYERS]
    for side in range(ns):
        d = view_shift(R, side)
        for p in range(players):
            if R[layout.R_SIDE_OF + (p + d) % players] != (R[layout.R_SIDE_OF + p] + side) % ns:
                return False
    return True


@kernel
def stage_features(R, S, out):
    """Write the public features of the stage start ``S`` into ``out`` (module docstring)."""
    stage_features_seen_by(R, S, 0, out)


@kernel
def stage_features_seen_by(R, S, side, out):
    """:func:`stage_features` with ``side`` in the place of side 0 (the sides and seats turned
    alike, :func:`views_rotate`): one model of side 0's value then values every side of a game of
    more than two sides."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    ns = R[layout.R_NSIDES]
    players = R[layout.R_PLAYERS]
    shift = view_shift(R, side)
    out[F_STAGE] = S[layout.S_STAGE]
    out[F_STOCK] = arrays.stock_left(S)
    out[F_UNITS] = S[layout.S_NUNITS]
    k = F_SCALARS
    for v in range(ns):
        s = (v + side) % ns
        out[k] = arrays.points_won(R, S, s)
        out[k + 1] = S[layout.S_WON_N + s]
        out[k + 2] = S[layout.S_ZWICKS + s] * R[layout.R_ZWICK_POINTS]
        k += 3
    last = S[layout.S_LAST_CAPT]
    out[k + ((last - side) % ns if last >= 0 else -1) + 1] = 1.0
    k += ns + 1
    out[k + (S[layout.S_DEALER] - shift) % players] = 1.0
    k += players
    for j in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + j]
        loc = S[layout.S_LOC + c]
        if loc == layout.LOC_TABLE:
            out[k] = 1.0
            out[F_TABLE_PTS] += R[layout.R_POINTS + c]
        elif layout.LOC_WON <= loc < layout.LOC_WON + ns:
            out[k + 2 + (loc - layout.LOC_WON - side) % ns] = 1.0
        else:
            out[k + 1] = 1.0
        k += 2 + ns
    for u in range(S[layout.S_NUNITS]):
        an = S[layout.S_UNITS + u]
        v = S[layout.S_UVALUE + an] if S[layout.S_UBUILD + an] else max(R[layout.R_VAL1 + an], 0)
        out[k + min(max(v, 0), MAX_VALUE)] += 1.0


__all__ = [
    "F_STAGE",
    "F_STOCK",
    "F_TABLE_PTS",
    "F_UNITS",
    "feature_count",
    "model_views",
    "stage_features",
    "stage_features_seen_by",
    "view_shift",
    "views_rotate",
]
