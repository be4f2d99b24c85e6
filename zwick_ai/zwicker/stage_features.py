"""Features of a Zwicker stage boundary, the public state at a stage's start: the inputs of the
learned stage values (:mod:`zwick_ai.learn.stage_values`) that the re-solving search
(:mod:`zwick_ai.agents.cfr.resolve`) reads at the end of a stage.

At a stage's start every hand has just been dealt from the stock and everything else is public.
The features read the public part only, so a hand or the stock's order can never change them:
per side the card points, cards and Zwick points won so far; who captured last; the dealer; the
stage and the stock left; per deck card whether it lies on the table, which side won it, or
whether it is unseen (a hand or the stock: one flag, whoever holds it); the table's points and
its loose cards' and builds' values. Seats and sides are absolute (the model gives side 0's
value; a two-sided game's side 1 gets its opposite).

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
def stage_features(R, S, out):
    """Write the public features of the stage start ``S`` into ``out`` (module docstring)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    ns = R[layout.R_NSIDES]
    players = R[layout.R_PLAYERS]
    out[F_STAGE] = S[layout.S_STAGE]
    out[F_STOCK] = arrays.stock_left(S)
    out[F_UNITS] = S[layout.S_NUNITS]
    k = F_SCALARS
    for s in range(ns):
        out[k] = arrays.points_won(R, S, s)
        out[k + 1] = S[layout.S_WON_N + s]
        out[k + 2] = S[layout.S_ZWICKS + s] * R[layout.R_ZWICK_POINTS]
        k += 3
    out[k + S[layout.S_LAST_CAPT] + 1] = 1.0
    k += ns + 1
    out[k + S[layout.S_DEALER]] = 1.0
    k += players
    for j in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + j]
        loc = S[layout.S_LOC + c]
        if loc == layout.LOC_TABLE:
            out[k] = 1.0
            out[F_TABLE_PTS] += R[layout.R_POINTS + c]
        elif layout.LOC_WON <= loc < layout.LOC_WON + ns:
            out[k + 2 + loc - layout.LOC_WON] = 1.0
        else:
            out[k + 1] = 1.0
        k += 2 + ns
    for u in range(S[layout.S_NUNITS]):
        an = S[layout.S_UNITS + u]
        v = S[layout.S_UVALUE + an] if S[layout.S_UBUILD + an] else max(R[layout.R_VAL1 + an], 0)
        out[k + min(max(v, 0), MAX_VALUE)] += 1.0


__all__ = ["F_STAGE", "F_STOCK", "F_TABLE_PTS", "F_UNITS", "feature_count", "stage_features"]
