"""Compiled batch kernels of the trick games (``zwikken``, ``zwicken``): many games held in one
int32 array (one row per game, each the OpenSpiel state's array) stepped in parallel over the
games by the trick engine's own kernels (:mod:`zwick_ai.tricks.kernels`).

Chance never shows. Chance event number ``h`` of a game (``h`` = the length of its OpenSpiel
history) with deal seed ``s`` takes the outcome ``numpy.random.default_rng([s, h]).choice(...)``
that :func:`zwick_ai.eval.match.play_game` takes, reproduced in compiled code by
:func:`zwick_ai.seeded_choice.seeded_choice`: the deals (and every later draw and turn-up) are the
tournaments' deals. A game that ends restarts at once with the next deal seed.

Opponent codes (``opponent[seat]``, :mod:`zwick_ai.zwicker.policy_codes`): ``POLICY_CALLER`` the
caller, ``POLICY_RANDOM_ACTION`` a uniformly random legal action from each game's own splitmix64
stream.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from zwick_ai.games.tricks_observer import fill_information_state_k, fill_observation_k
from zwick_ai.jit import kernel
from zwick_ai.seeded_choice import seeded_choice
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as trick_kernels
from zwick_ai.zwicker.policy_codes import POLICY_CALLER

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


class Shard(NamedTuple):
    """One thread's games (consecutive rows of the batch arrays, as views) with its own copies of
    the read-only tables and its own scratch (:func:`scratch`): what the batch kernels take, one
    per thread, in a typed list. Row ``i`` of each per-game array belongs to the shard's game ``i``."""

    cfg: np.ndarray  # the trick engine's rules array, a copy
    init: np.ndarray  # the state array of a game before its deal, a copy
    opponent: np.ndarray  # per seat: ``POLICY_CALLER`` or ``POLICY_RANDOM_ACTION``
    recall: bool  # observe the information state (perfect recall) instead of the observation
    states: np.ndarray  # (games, state size) int32: each game's state array
    hlen: np.ndarray  # int64 per game: the length of its OpenSpiel history
    cur: np.ndarray  # int64 per game: the player to move (the caller's seat)
    mask: np.ndarray  # (games, actions) bool: the legal mask
    obs: np.ndarray  # (games, observation size) float32: the observation of the player to move
    rewards: np.ndarray  # (games, players) float32: the returns of the games that ended this step
    done: np.ndarray  # bool per game: ended this step
    seeds: np.ndarray  # int64 per game: its deal seed
    rng: np.ndarray  # uint64 per game: its splitmix64 stream
    actions: np.ndarray  # int64 per game: the caller's action of this step
    ids: np.ndarray  # scratch: a chance node's outcome ids
    probs: np.ndarray  # scratch: their probabilities
    cdf: np.ndarray  # scratch: their cumulative probabilities
    opponent_mask: np.ndarray  # scratch: an opponent's legal mask


@kernel
def _splitmix(rng, i):
    """The next 64-bit number of game ``i``'s stream ``rng[i]`` (splitmix64)."""
    rng[i] += _GOLDEN
    z = rng[i]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def _chance(cfg, a, seed, hlen, i, ids, probs, cdf):
    """Resolve the chance nodes of game ``i`` by its deal seed (module docstring)."""
    while trick_arrays.is_chance(a):
        k = trick_kernels.chance_outcomes(a, cfg, ids, probs)
        trick_kernels.apply_chance(a, cfg, seeded_choice(ids, probs, k, seed, hlen[i], cdf))
        hlen[i] += 1


@kernel
def _decision(shard, i):
    """Play chance and the compiled opponents until the caller's turn (write its mask and
    observation) or the end. Returns the player to move, or -1 at the end."""
    cfg, hlen, rng, omask = shard.cfg, shard.hlen, shard.rng, shard.opponent_mask
    a = shard.states[i]
    while True:
        _chance(cfg, a, shard.seeds[i], hlen, i, shard.ids, shard.probs, shard.cdf)
        if trick_arrays.is_over(a):
            return -1
        p = trick_arrays.to_move(a)
        if shard.opponent[p] == POLICY_CALLER:
            trick_kernels.legal_mask(a, cfg, shard.mask[i])
            if shard.recall:
                fill_information_state_k(a, p, shard.obs[i])
            else:
                fill_observation_k(a, p, shard.obs[i])
            return p
        trick_kernels.legal_mask(a, cfg, omask)
        count = 0
        for t in range(omask.shape[0]):
            count += omask[t]
        r = _splitmix(rng, i) % np.uint64(count)
        for t in range(omask.shape[0]):
            if omask[t]:
                if r == 0:
                    trick_kernels.apply_action(a, cfg, t)
                    hlen[i] += 1
                    break
                r -= np.uint64(1)


@kernel
def _reset_one(shard, i):
    shard.states[i, :] = shard.init
    shard.hlen[i] = 0
    shard.cur[i] = _decision(shard, i)


@kernel
def _step_one(shard, i):
    """Step game ``i`` by its action; returns True when the game ended."""
    rewards, done = shard.rewards, shard.done
    if done[i]:
        rewards[i, :] = 0.0
        done[i] = False
    a = shard.states[i]
    trick_kernels.apply_action(a, shard.cfg, shard.actions[i])
    shard.hlen[i] += 1
    c = _decision(shard, i)
    shard.cur[i] = c
    if c >= 0:
        return False
    done[i] = True
    for p in range(rewards.shape[1]):
        rewards[i, p] = trick_arrays.net(a, p)
    return True


@kernel
def _reset_shard(shard):
    for i in range(shard.states.shape[0]):
        _reset_one(shard, i)


@kernel
def _step_shard(shard):
    ended = 0
    for i in range(shard.states.shape[0]):
        if _step_one(shard, i):
            ended += 1
    return ended


@kernel
def _restart_shard(shard):
    done = shard.done
    for i in range(done.shape[0]):
        if done[i]:
            _reset_one(shard, i)


@kernel
def _next_seeds(shards, next_seed):
    """Give the games that ended the next unused deal seeds, in game order."""
    for t in range(len(shards)):
        done = shards[t].done
        seeds = shards[t].seeds
        for i in range(done.shape[0]):
            if done[i]:
                seeds[i] = next_seed
                next_seed += 1
    return next_seed


@kernel(parallel=True)
def reset_parallel(shards):
    """Deal every game by its deal seed, play chance and the compiled opponents, observe it."""
    for t in numba.prange(len(shards)):
        _reset_shard(shards[t])


@kernel(nogil=True)  # a learner may run its network on another thread meanwhile
def reset_serial(shards):
    """:func:`reset_parallel` on the calling thread."""
    for t in range(len(shards)):
        _reset_shard(shards[t])


@kernel(parallel=True)
def step_parallel(shards, next_seed):
    """Apply every game's action (legal: checked by the caller), then chance and the compiled
    opponents; games that end write their returns and restart with the next unused deal seeds
    (in game order, from ``next_seed``). Returns the next unused seed."""
    ended = 0
    for t in numba.prange(len(shards)):
        ended += _step_shard(shards[t])
    if ended == 0:
        return next_seed
    next_seed = _next_seeds(shards, next_seed)
    for t in numba.prange(len(shards)):
        _restart_shard(shards[t])
    return next_seed


@kernel(nogil=True)  # a learner may run its network on another thread meanwhile
def step_serial(shards, next_seed):
    """:func:`step_parallel` on the calling thread."""
    ended = 0
    for t in range(len(shards)):
        ended += _step_shard(shards[t])
    if ended == 0:
        return next_seed
    next_seed = _next_seeds(shards, next_seed)
    for t in range(len(shards)):
        _restart_shard(shards[t])
    return next_seed


def scratch(num_actions: int) -> tuple[np.ndarray, ...]:
    """One shard's scratch: chance outcome ids, probabilities, the cdf, an opponent's mask."""
    return (
        np.zeros(trick_arrays.NC, np.int32),
        np.zeros(trick_arrays.NC, np.float64),
        np.zeros(trick_arrays.NC, np.float64),
        np.zeros(num_actions, np.bool_),
    )
