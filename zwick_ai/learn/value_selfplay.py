"""Compiled greedy self-play positions for ``zwick train value`` (numpy + numba only).

:func:`selfplay_positions` plays whole hands in compiled code and, at sampled decisions, plays
every candidate move out with greedy from the true position under common random numbers: the
training data of the move and value models of :mod:`zwick_ai.agents.value_model`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents.value_model import net_pick
from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.features import F_LEAD, F_ZWICK, NFEAT, after_move_features, side_diff
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET


class Candidates(NamedTuple):
    """The recorded decisions' candidate moves, one row each (:func:`selfplay_positions`)."""

    features: np.ndarray  # [N, NFEAT] float32: the features after the move
    final: np.ndarray  # [N] float32: the final point difference of the mover's side
    lead: np.ndarray  # [N] float32: the lead so far (card points and Zwicks)
    dec: np.ndarray  # [N] int32: the decision's index
    hand: np.ndarray  # [N] int32: the hand's index among the seeds


@kernel
def selfplay_positions(R, seeds, policy, eps, record, m):
    """Play one hand per seed (module docstring). At a decision recorded with probability
    ``record`` that has two or more card moves, every card move is applied to a copy and played
    to the end by the greedy policy from the true position, every copy with the same random
    numbers (common random numbers: the candidates differ only by the move). Returns their
    :class:`Candidates`."""
    nh = seeds.shape[0]
    ns = R[layout.R_NSIDES]
    players = R[layout.R_PLAYERS]
    greedy = np.full(players, POLICY_GREEDY, np.int64)
    cap = 4096
    X = np.zeros((cap, NFEAT), np.float32)
    final = np.zeros(cap, np.float32)
    lead = np.zeros(cap, np.float32)
    dec = np.zeros(cap, np.int32)
    hand = np.zeros(cap, np.int32)
    f = np.zeros(NFEAT, np.float64)
    W = kernels.new_workspace()
    buf, Xb = kernels.new_buffers()
    nrow = 0
    ndec = 0
    for h in range(nh):
        S = kernels.new_hand(R, seeds[h], W)
        behaviour = (seeds[h] * 69069 + 777) % 4294967296
        ply = 0
        while S[layout.S_PHASE] != layout.PHASE_OVER:
            np.random.seed((behaviour + 7919 * ply) % 4294967296)
            ply += 1
            n = kernels.gen_moves_ws(R, S, buf, W, Xb)
            if n < 0:
                buf, Xb, n = kernels.gen_moves(R, S, buf, W, Xb)
            p = S[layout.S_TO_MOVE]
            if np.random.random() < eps:
                k = np.random.randint(n)
            elif policy == POLICY_NET:
                k = net_pick(R, S, buf, n, m, W)
            else:
                k = kernels.choose(R, S, buf, n, POLICY_GREEDY)
            cards = 0
            for j in range(n):
                cards += buf[j, layout.M_KIND] != layout.KIND_ASK
            if cards >= 2 and np.random.random() < record:
                crn = np.random.randint(1 << 30)
                if nrow + n > cap:
                    cap = 2 * (nrow + n)
                    X2 = np.zeros((cap, NFEAT), np.float32)
                    X2[:nrow] = X[:nrow]
                    X = X2
                    final = np.concatenate((final[:nrow], np.zeros(cap - nrow, np.float32)))
                    lead = np.concatenate((lead[:nrow], np.zeros(cap - nrow, np.float32)))
                    dec = np.concatenate((dec[:nrow], np.zeros(cap - nrow, np.int32)))
                    hand = np.concatenate((hand[:nrow], np.zeros(cap - nrow, np.int32)))
                for j in range(n):
                    if buf[j, layout.M_KIND] == layout.KIND_ASK:
                        continue
                    Sc = S.copy()
                    kernels.apply_move(R, Sc, buf[j], W)
                    after_move_features(R, S, Sc, p, f)
                    np.random.seed(crn)
                    if Sc[layout.S_PHASE] != layout.PHASE_OVER:
                        kernels.play_out(R, Sc, greedy, W)
                    sc = kernels.score(R, Sc).astype(np.float64)
                    for i in range(NFEAT):
                        X[nrow, i] = f[i]
                    final[nrow] = side_diff(sc, R[layout.R_SIDE_OF + p], ns)
                    lead[nrow] = f[F_LEAD] + f[F_ZWICK]
                    dec[nrow] = ndec
                    hand[nrow] = h
                    nrow += 1
                ndec += 1
            kernels.apply_move(R, S, buf[k], W)
    return Candidates(X[:nrow].copy(), final[:nrow].copy(), lead[:nrow].copy(), dec[:nrow].copy(), hand[:nrow].copy())


__all__ = ["Candidates", "selfplay_positions"]
