"""Compiled batch kernels of the ``zwicker`` game: many games held in one int32 array (one row per
game, each the OpenSpiel state's array) stepped in parallel by the OpenSpiel game's own kernels
(:mod:`zwick_ai.games.zwicker_steps`, :func:`zwick_ai.games.zwicker_observer.fill_k`).

A game is dealt by :func:`~zwick_ai.games.zwicker_steps.seed_chance_k` (the deal of
``play_game(..., deal_seed=s)``) and chance never shows: after each step every game stands at a
decision. A game that ends restarts at once with the next deal seed.
"""

from __future__ import annotations

import numba
import numpy as np

from zwick_ai.games.zwicker_observer import fill_k
from zwick_ai.games.zwicker_steps import (
    TERMINAL,
    chance_step_k,
    returns_k,
    seed_chance_k,
    step_k,
    turn_k,
    turn_start_k,
)
from zwick_ai.zwicker.codec import TOK0
from zwick_ai.zwicker.history import MAXTOK

#: candidate moves kept per game between steps (a turn with more is generated again each step)
CACHED_ROWS = 32
#: columns of a kept candidate row: the move record and its sub-action tokens
CACHED_WIDTH = TOK0 + MAXTOK

# the splitmix64 constants of the per-game random stream of the "random" opponent
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@numba.njit(cache=True)
def _splitmix(rng, i):
    """The next 64-bit number of game ``i``'s stream ``rng[i]`` (splitmix64)."""
    rng[i] += _GOLDEN
    z = rng[i]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def _keep(cache, rows, i, M, sel, cur):
    """Keep the candidate rows ``sel`` of ``M`` as game ``i``'s turn (``rows[i]`` -1: not kept)."""
    rows[i] = -1
    if cur >= 0 and sel.shape[0] <= cache.shape[1]:
        width = M.shape[1]
        for r in range(sel.shape[0]):
            cache[i, r, :width] = M[sel[r]]
        rows[i] = sel.shape[0]


@numba.njit(cache=True)
def _deal(G, init, a, W, seed, cache, rows, i):
    """Start ``a`` as a fresh game dealt by deal ``seed``; returns (player to move, legal
    sub-actions)."""
    a[:] = init
    for outcome in seed_chance_k(G, seed):
        chance_step_k(G, a, W, outcome)
    M, sel, legal, cur = turn_start_k(G, a, W)
    _keep(cache, rows, i, M, sel, cur)
    return cur, legal


@numba.njit(cache=True)
def _step_one(G, a, W, action, cache, rows, i):
    """Apply one legal sub-action to game ``i``; returns (player to move, legal sub-actions)."""
    if rows[i] >= 0:
        M = cache[i, : rows[i]]
    else:
        M = turn_k(G, a, W)
    M2, sel, legal, cur = step_k(G, a, M, np.arange(M.shape[0]), action, W)
    _keep(cache, rows, i, M2, sel, cur)
    return cur, legal


@numba.njit(cache=True)
def _play_opponents(G, a, W, cur, legal, opponent, rng, cache, rows, i):
    """Play the compiled opponents' seats (``opponent[seat]`` 1: uniformly random) until the
    learner's turn or the end; returns (player to move, legal sub-actions)."""
    while cur >= 0 and opponent[cur] == 1:
        action = legal[_splitmix(rng, i) % np.uint64(legal.shape[0])]
        cur, legal = _step_one(G, a, W, action, cache, rows, i)
    return cur, legal


@numba.njit(cache=True)
def _observe(G, a, OFF, cur, legal, mask, obs, i):
    """Write game ``i``'s legal mask and the observation of the player to move."""
    mask[i, :] = False
    for tok in legal:
        mask[i, tok] = True
    fill_k(G, a, OFF, cur, obs[i])


@numba.njit(cache=True, parallel=True)
def reset_k(G, init, A, W, OFF, opponent, rng, cache, rows, seeds, cur, mask, obs):
    """Deal every game ``i`` by ``seeds[i]``, play the compiled opponents' seats and observe it."""
    for i in numba.prange(A.shape[0]):
        w = W[numba.get_thread_id()]
        c, legal = _deal(G, init, A[i], w, seeds[i], cache, rows, i)
        c, legal = _play_opponents(G, A[i], w, c, legal, opponent, rng, cache, rows, i)
        cur[i] = c
        _observe(G, A[i], OFF, c, legal, mask, obs, i)


@numba.njit(cache=True, parallel=True)
def step_k_batch(
    G, init, A, W, OFF, actions, win_loss, opponent, rng, cache, rows, next_seed, seeds, cur, mask, obs, rewards, done
):
    """Apply ``actions[i]`` (legal: checked by the caller) to every game, then the compiled
    opponents' moves; games that end write their returns to ``rewards[i]`` and restart with the
    next unused deal seeds (in game order, from ``next_seed``). Returns the next unused seed."""
    N = A.shape[0]
    for i in numba.prange(N):
        w = W[numba.get_thread_id()]
        c, legal = _step_one(G, A[i], w, actions[i], cache, rows, i)
        c, legal = _play_opponents(G, A[i], w, c, legal, opponent, rng, cache, rows, i)
        cur[i] = c
        done[i] = c == TERMINAL
        rewards[i, :] = 0.0
        if done[i]:
            rewards[i, :] = returns_k(G, A[i], win_loss).astype(np.float32)
        else:
            _observe(G, A[i], OFF, c, legal, mask, obs, i)
    for i in range(N):
        if done[i]:
            seeds[i] = next_seed
            next_seed += 1
    for i in numba.prange(N):
        if done[i]:
            w = W[numba.get_thread_id()]
            c, legal = _deal(G, init, A[i], w, seeds[i], cache, rows, i)
            c, legal = _play_opponents(G, A[i], w, c, legal, opponent, rng, cache, rows, i)
            cur[i] = c
            _observe(G, A[i], OFF, c, legal, mask, obs, i)
    return next_seed
