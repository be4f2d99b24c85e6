"""The learned models' scores of a decision's candidate moves, in compiled code.

The ``net`` agent (:mod:`zwick_ai.agents.net`), the searches that use its move model and the
compiled ``net`` opponents of :class:`zwick_ai.vector.VectorGame` all score a decision with these
kernels and choose among the best by :func:`count_best` and :func:`nth_best`, so they decide
alike on the same position. A model is a :class:`~zwick_ai.mlp.Perceptron`; its inputs are
the features of :mod:`zwick_ai.zwicker.features`:

* the *move* model's advantage of each candidate (:func:`net_values`): expected final points over
  the mean of the decision's candidates;
* the *after* model's value of each candidate (:func:`after_values`): the exact lead after the
  move plus the model's points still to come, exact when the move ends the hand.

Questions (Großenwiehe) score ``-inf``: like greedy, the net never asks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.mlp import mlp_first_layer_update, mlp_forward, mlp_head
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.features import F_LEAD, F_ZWICK, NFEAT, after_input, candidate_features, move_input, side_diff

#: scores within this of the best are tied (as the engine's move values)
TIE = kernels.TIE


@kernel
def net_values(R, S, rows, n, m, W):
    """The move model's advantage of each of the first ``n`` move ``rows`` for the player to move
    in ``S``: expected final points over the mean of the decision's moves (questions: -inf)."""
    F = np.zeros((n, NFEAT), np.float64)
    ok = candidate_features(R, S, rows, n, W, F)
    x = np.zeros(2 * NFEAT, np.float64)
    out = np.full(n, -np.inf)
    for k in range(n):
        if ok[k]:
            move_input(F, ok, k, x)
            out[k] = mlp_forward(x, m)
    return out


@kernel
def after_values(R, S, rows, n, m, W):
    """The *after* model's value of each of the first ``n`` move ``rows`` for the player to move
    in ``S``: the exact lead after the move (card points and Zwicks, own side minus the mean of
    the others) plus the model's points still to come, or the exact final difference when the move
    ends the hand (questions: -inf)."""
    return after_values_memo(R, S, rows, n, m, W, layer_memo(m))


class LayerMemo(NamedTuple):
    """Buffers that let :func:`after_values_memo` carry a model's first layer from one candidate
    and one call to the next (compiled code takes the record whole)."""

    x: np.ndarray  # an input, written per candidate
    x_old: np.ndarray  # the last input evaluated
    h1: np.ndarray  # its first layer's sums


@kernel
def layer_memo(m) -> LayerMemo:
    """The memo of the model ``m``, starting from the input ``mean``, whose first layer is the bias."""
    return LayerMemo(np.zeros(m.mean.shape[0], np.float64), m.mean.copy(), m.b1.copy())


@kernel
def after_values_memo(R, S, rows, n, m, W, memo):
    """:func:`after_values`, each candidate's first layer updated from the last input evaluated
    (:func:`~zwick_ai.mlp.mlp_first_layer_update`: only the inputs that differ), the previous
    call's last one included when ``memo`` (:func:`layer_memo`) is shared by the calls of one
    decision: its positions differ in a few cards."""
    x, x_old, h1 = memo.x, memo.x_old, memo.h1
    p = S[layout.S_TO_MOVE]
    side = R[layout.R_SIDE_OF + p]
    out = np.full(n, -np.inf)
    for k in range(n):
        if rows[k, layout.M_KIND] == layout.KIND_ASK:
            continue
        Sc = S.copy()
        kernels.apply_move(R, Sc, rows[k], W)
        if Sc[layout.S_PHASE] == layout.PHASE_OVER:
            out[k] = side_diff(kernels.score(R, Sc).astype(np.float64), side, R[layout.R_NSIDES])
            continue
        after_input(R, S, Sc, p, x)
        mlp_first_layer_update(x, x_old, m, h1)
        out[k] = x[F_LEAD] + x[F_ZWICK] + mlp_head(h1, m)
    return out


@kernel
def count_best(v):
    """How many entries of ``v`` are within :data:`TIE` of its largest."""
    top = -np.inf
    for k in range(v.shape[0]):
        top = max(top, v[k])
    count = 0
    for k in range(v.shape[0]):
        if v[k] >= top - TIE:
            count += 1
    return count


@kernel
def nth_best(v, r):
    """Index of the ``r``-th (from 0, in order) entry of ``v`` within :data:`TIE` of its largest:
    a choice among the tied best moves with a random ``r`` below :func:`count_best`."""
    top = -np.inf
    for k in range(v.shape[0]):
        top = max(top, v[k])
    for k in range(v.shape[0]):
        if v[k] >= top - TIE:
            if r == 0:
                return k
            r -= 1
    return -1


__all__ = [
    "TIE",
    "after_values",
    "after_values_memo",
    "count_best",
    "LayerMemo",
    "layer_memo",
    "net_values",
    "nth_best",
]
