"""Compiled self-play for the generations of ``zwick train net`` (numpy + numba only).

:func:`selfplay_decisions` plays whole hands with one *move* model
(:mod:`zwick_ai.agents.value_model`) at every seat, a uniformly random card move instead with
probability ``eps`` (exploration), and records every decision that has two or more card moves in
the style of Deep Monte-Carlo: the move model's input for the move chosen (its features after the
move relative to the decision's mean, and that mean: :func:`~zwick_ai.agents.value_model.move_input`)
and, once the hand is over, the final point difference of the mover's side (own side minus the mean
of the others, the tournaments' measure). A regression of that outcome on the input is the
move value Q(s, a) of the current policy; ``net`` plays its best move. Before a generation has a
model the hands are played by the compiled greedy baseline (``policy`` = ``POLICY_GREEDY``).

:func:`save_shard` and :func:`load_shard` keep the records on disk as ``.npz`` shards.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from zwick_ai.agents import value_model as VM
from zwick_ai.agents.value_features import NFEAT, side_diff
from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker.layout import KIND_ASK, M_KIND, R_NSIDES, R_SIDE_OF, S_PHASE, S_TO_MOVE

SHARD_FIELDS = ("x", "outcome", "hand")


@njit(cache=True)
def _random_card_move(buf, n):
    """A uniformly random index among the first ``n`` moves that are not questions."""
    cards = 0
    for j in range(n):
        cards += buf[j, M_KIND] != KIND_ASK
    r = np.random.randint(cards)
    for j in range(n):
        if buf[j, M_KIND] != KIND_ASK:
            if r == 0:
                return j
            r -= 1
    return 0


@njit(cache=True)
def selfplay_decisions(R, seeds, policy, eps, m):
    """Play one hand per seed (module docstring). Returns (inputs[N, 2 * NFEAT] float32, final
    point difference of the mover's side[N] float32, hand index[N] int32), one row per recorded
    decision, in the order played."""
    nh = seeds.shape[0]
    ns = R[R_NSIDES]
    cap = 4096
    X = np.zeros((cap, 2 * NFEAT), np.float32)
    side = np.zeros(cap, np.int32)
    hand = np.zeros(cap, np.int32)
    outcome = np.zeros(cap, np.float32)
    x = np.zeros(2 * NFEAT, np.float64)
    W = K.new_workspace()
    buf, Xb = K.new_buffers()
    nrow = 0
    for h in range(nh):
        S = K.new_hand(R, seeds[h], W)
        first = nrow
        np.random.seed((seeds[h] * 69069 + 12345) % 4294967296)
        while S[S_PHASE] != K.PHASE_OVER:
            n = K.gen_moves_ws(R, S, buf, W, Xb)
            if n < 0:
                buf, Xb, n = K.gen_moves(R, S, buf, W, Xb)
            p = S[S_TO_MOVE]
            cards = 0
            for j in range(n):
                cards += buf[j, M_KIND] != KIND_ASK
            if cards >= 2:
                if np.random.random() < eps:
                    k = _random_card_move(buf, n)
                elif policy == VM.POLICY_NET:
                    k = VM.net_pick(R, S, buf, n, m, W)
                else:
                    k = K.choose(R, S, buf, n, K.POLICY_GREEDY)
                F = np.zeros((n, NFEAT), np.float64)
                ok = VM.candidate_features(R, S, buf, n, W, F)
                VM.move_input(F, ok, k, x)
                if nrow == cap:
                    cap *= 2
                    X2 = np.zeros((cap, 2 * NFEAT), np.float32)
                    X2[:nrow] = X[:nrow]
                    X = X2
                    side = np.concatenate((side[:nrow], np.zeros(cap - nrow, np.int32)))
                    hand = np.concatenate((hand[:nrow], np.zeros(cap - nrow, np.int32)))
                    outcome = np.concatenate((outcome[:nrow], np.zeros(cap - nrow, np.float32)))
                for i in range(2 * NFEAT):
                    X[nrow, i] = x[i]
                side[nrow] = R[R_SIDE_OF + p]
                hand[nrow] = h
                nrow += 1
            else:
                k = K.choose(R, S, buf, n, K.POLICY_GREEDY)
            K.apply_move(R, S, buf[k], W)
        sc = K.score(R, S).astype(np.float64)
        for r in range(first, nrow):
            outcome[r] = side_diff(sc, side[r], ns)
    return X[:nrow].copy(), outcome[:nrow].copy(), hand[:nrow].copy()


def save_shard(path: Path, x: np.ndarray, outcome: np.ndarray, hand: np.ndarray) -> None:
    """Write one shard of records (atomically: a shard on disk is always whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, allow_pickle=False, x=x, outcome=outcome, hand=hand)
    tmp.replace(path)


def load_shard(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Read a shard written by :func:`save_shard`: (inputs, outcomes, hand indices)."""
    with np.load(Path(path), allow_pickle=False) as z:
        return z["x"], z["outcome"], z["hand"]


__all__ = ["SHARD_FIELDS", "load_shard", "save_shard", "selfplay_decisions"]
