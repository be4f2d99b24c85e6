"""Compiled search for the trick games (Zwikken, Zwicken): single-observer ISMCTS and PIMC. The
``ismcts`` and ``pimc`` agents (:mod:`zwick_ai.agents.search`) call :func:`ismcts_decision` and
:func:`pimc_decision` for trick games.

**Resampling**: the worlds come from the compiled resampler of the engine
(:func:`zwick_ai.tricks.worlds.resample_into`), the same procedure as the Python
:func:`zwick_ai.tricks.resample`.

**ISMCTS** (single observer, Cowling, Powley & Whitehouse 2012): each iteration draws a world by
the resampler, then walks one tree of the observer's view: an edge is a player action the observer
sees (UCB1 over the actions legal in this world, with availability counts), a chance card the
observer sees (upcards, his own draws, open draws), or one shared "hidden" edge per seat for what
he does not see (another seat's draw, discard or face-down play; those actions come from the
rollout policy). The first new node ends the walk; a rollout (uniform random or
:func:`~zwick_ai.agents.tricks_greedy.greedy_action`) plays to the end of the deal, and each edge
is credited with the reward of the seat that took it. The decision is the root's most visited
action.

**PIMC** (perfect-information Monte Carlo): ``worlds`` worlds are drawn by the resampler; on each, a
perfect-information UCT search of ``iters`` iterations (the same code, every event visible, no
resampling); the decision is the action with most visits summed over worlds (ties: higher mean
reward).

**Rewards** are chips: the seat's net chip change in the deal divided by the deal's starting pot
(``pot`` parameter; at least 1). Taking a 3-chip pot is +1, paying it is -1; ``c`` is in these
units (0.7 is a good default).

>>> import numpy as np, pyspiel, zwick_ai.games
>>> from zwick_ai.eval.match import deal
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> state = deal(game, 4)
>>> params = {"iters": 50, "time": 0.0, "c": 0.7, "rollout": "random"}
>>> acts = ismcts_decision(state, params, np.random.default_rng(1))
>>> acts == ismcts_decision(state, params, np.random.default_rng(1)) and acts[0] in state.legal_actions()
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents import clock
from zwick_ai.agents.tricks_greedy import greedy_action
from zwick_ai.jit import kernel
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks.worlds import TRIES, resample_into, seed

ROLLOUTS = ("random", "greedy")
CHANCE_KEY = trick_arrays.NUM_ACTIONS  # tree key of a visible chance card: CHANCE_KEY + card
HIDDEN_KEY = trick_arrays.NUM_ACTIONS + trick_arrays.NC  # tree key of a hidden event of seat q: HIDDEN_KEY + q

# tree node fields (int32 table)
T_KEY, T_ACTOR, T_FIRST, T_NEXT, T_N, T_AVAIL = 0, 1, 2, 3, 4, 5
T_FIELDS = 6


# ------------------------------------------------------------------------------------------------
# Search tree and iterations
# ------------------------------------------------------------------------------------------------
class Tree(NamedTuple):
    """One search's tree (:func:`new_tree`): node ``i`` is row ``i`` of each array, node 0 the
    root. Compiled code takes it like any tuple of arrays."""

    fields: np.ndarray  # (capacity, T_FIELDS) int32: key, actor, first child, next sibling, visits, availability
    reward: np.ndarray  # float64: the rewards summed into the node, its actor's
    used: np.ndarray  # (1,) int64: the nodes in use


class Settings(NamedTuple):
    """How :func:`search` scores, plays out and draws its worlds."""

    c: float  # UCB1's exploration constant (reward units, module docstring)
    greedy: bool  # the rollout policy: greedy (else uniform random)
    scale: float  # the reward unit: the deal's starting pot (:func:`_scale`)
    tries: int  # the resampler's tries for one world


def new_tree(capacity: int) -> Tree:
    """An empty search tree of ``capacity`` nodes; node 0 is the root."""
    ti = np.full((capacity, T_FIELDS), -1, dtype=np.int32)
    ti[:, T_N] = 0
    ti[:, T_AVAIL] = 0
    return Tree(ti, np.zeros(capacity, dtype=np.float64), np.ones(1, dtype=np.int64))


@kernel
def _child(ti, node, key):
    c = ti[node, T_FIRST]
    while c >= 0:
        if ti[c, T_KEY] == key:
            return c
        c = ti[c, T_NEXT]
    return -1


@kernel
def _add(ti, meta, node, key, actor):
    m = meta[0]
    if m >= ti.shape[0]:
        return -1  # tree full: the iteration goes on as a rollout
    ti[m, T_KEY] = key
    ti[m, T_ACTOR] = actor
    ti[m, T_FIRST] = -1
    ti[m, T_NEXT] = ti[node, T_FIRST]
    ti[m, T_N] = 0
    ti[m, T_AVAIL] = 1
    ti[node, T_FIRST] = m
    meta[0] = m + 1
    return m


@kernel
def _policy_action(s, cfg, greedy, mask):
    """The rollout policy's action (mask already filled with the legal actions)."""
    if greedy:
        return greedy_action(s, cfg)
    return tricks_kernels.random_action(mask)


@kernel
def play_out(s, cfg, greedy, ids, probs, mask):
    """Play the position ``s`` to the end of the deal in place: chance drawn from numba's generator
    (:func:`seed`), every seat by the rollout policy (``greedy``: the greedy baseline, else
    uniform). ``ids``, ``probs`` and ``mask`` are work arrays (``NC`` int32, ``NC`` float64,
    ``NUM_ACTIONS`` bool)."""
    while not trick_arrays.is_over(s):
        if trick_arrays.is_chance(s):
            tricks_kernels.apply_chance(s, cfg, tricks_kernels.sample_chance(s, cfg, ids, probs))
        else:
            tricks_kernels.legal_mask(s, cfg, mask)
            tricks_kernels.apply_action(s, cfg, _policy_action(s, cfg, greedy, mask))


@kernel
def search(root, cfg, obs, player, resample, world, tree, iters, how):
    """Run ``iters`` iterations on ``tree`` (a :class:`Tree`) with the :class:`Settings` ``how``.
    ISMCTS: ``resample`` True, each iteration draws a world for ``player`` from ``root`` and ``obs``
    = ``player``. PIMC: ``resample`` False, every iteration starts from ``world`` and ``obs`` = -1
    (all visible). Returns the iterations done (fewer when the resampler fails)."""
    ti, tw, meta = tree.fields, tree.reward, tree.used
    c, greedy, scale = how.c, how.greedy, how.scale
    s = np.empty(trick_arrays.S_SIZE, dtype=np.int32)
    ids = np.empty(trick_arrays.NC, dtype=np.int32)
    probs = np.empty(trick_arrays.NC, dtype=np.float64)
    mask = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.bool_)
    untried = np.empty(trick_arrays.NUM_ACTIONS, dtype=np.int32)
    path = np.empty(512, dtype=np.int32)
    reward = np.zeros(trick_arrays.NP, dtype=np.float64)
    n = trick_arrays.seat_count(root)
    for it in range(iters):
        if resample:
            if not resample_into(root, cfg, player, s, how.tries):
                return it
        else:
            s[:] = world
        node = 0
        depth = 0
        grown = False
        while not trick_arrays.is_over(s) and not grown and depth < 511:
            p = trick_arrays.to_move(s)
            if trick_arrays.is_chance(s):
                card = tricks_kernels.sample_chance(s, cfg, ids, probs)
                tricks_kernels.apply_chance(s, cfg, card)
                who = trick_arrays.received_by(s, trick_arrays.history_length(s) - 1)
                if obs >= 0 and who >= 0 and who != obs:
                    key = HIDDEN_KEY + who
                else:
                    key = CHANCE_KEY + card
                actor = -1
            else:
                tricks_kernels.legal_mask(s, cfg, mask)
                if trick_arrays.hidden_move(s, cfg, obs, mask):
                    a = _policy_action(s, cfg, greedy, mask)
                    key = HIDDEN_KEY + p
                else:
                    # expand an untried action if any, else UCB1 with availability counts
                    nun = 0
                    for x in range(trick_arrays.NUM_ACTIONS):
                        if mask[x] and _child(ti, node, x) < 0:
                            untried[nun] = x
                            nun += 1
                    if nun > 0:
                        a = untried[np.random.randint(nun)]  # noqa: NPY002
                    else:
                        a = -1
                        best = -1e300
                        ties = 0
                        for x in range(trick_arrays.NUM_ACTIONS):
                            if mask[x]:
                                ch = _child(ti, node, x)
                                ti[ch, T_AVAIL] += 1
                                v = tw[ch] / ti[ch, T_N] + c * np.sqrt(np.log(ti[ch, T_AVAIL]) / ti[ch, T_N])
                                if v > best + 1e-12:
                                    best = v
                                    a = x
                                    ties = 1
                                elif v > best - 1e-12:
                                    ties += 1  # equal values: each tied action with equal chance
                                    if np.random.randint(ties) == 0:  # noqa: NPY002
                                        a = x
                    key = a
                tricks_kernels.apply_action(s, cfg, a)
                actor = p
            ch = _child(ti, node, key)
            if ch < 0:
                ch = _add(ti, meta, node, key, actor)
                grown = True
                if ch < 0:
                    break
            node = ch
            path[depth] = node
            depth += 1
        play_out(s, cfg, greedy, ids, probs, mask)
        for q in range(n):
            reward[q] = trick_arrays.net(s, q) / scale
        ti[0, T_N] += 1
        for d in range(depth):
            nd = path[d]
            ti[nd, T_N] += 1
            if ti[nd, T_ACTOR] >= 0:
                tw[nd] += reward[ti[nd, T_ACTOR]]
    return iters


def root_stats(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """(visits, summed reward) of each root action id of ``tree`` (0 for untried actions)."""
    ti, tw = tree.fields, tree.reward
    visits = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.int64)
    total = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.float64)
    c = int(ti[0, T_FIRST])
    while c >= 0:
        key = int(ti[c, T_KEY])
        if key < trick_arrays.NUM_ACTIONS:
            visits[key] += int(ti[c, T_N])
            total[key] += float(tw[c])
        c = int(ti[c, T_NEXT])
    return visits, total


# ------------------------------------------------------------------------------------------------
# Decisions
# ------------------------------------------------------------------------------------------------
def _check(params: dict, keys: tuple[str, ...]) -> None:
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(f"search parameters miss {', '.join(missing)} (need {', '.join(keys)})")
    if params["rollout"] not in ROLLOUTS:
        raise ValueError(f"rollout={params['rollout']!r} is not valid; valid: {', '.join(ROLLOUTS)}")
    if params.get("utility", "auto") != "auto":
        raise ValueError("utility= is an objective of the Zwicker searches; the trick games' search takes none")


def _choose(legal: list[int], visits: np.ndarray, total: np.ndarray) -> int:
    mean = np.where(visits > 0, total / np.maximum(visits, 1), -np.inf)
    return max(legal, key=lambda a: (visits[a], mean[a], -a))


def _scale(arr: np.ndarray) -> float:
    return float(max(1, int(trick_arrays.deal_pot(arr))))


def _root(state, rng: np.random.Generator) -> tuple[list[int], np.ndarray, np.ndarray, int]:
    """The legal actions, state array, rules config and player to move of a decision state. Seeds
    the compiled generator from ``rng`` only when there is a choice (one legal action: no search)."""
    legal = [int(a) for a in state.legal_actions()]
    decision = state.decision()
    if len(legal) > 1:
        seed(int(rng.integers(2**31)))
    return legal, decision.position, decision.config, decision.player


def ismcts_decision(state, params: dict, rng: np.random.Generator) -> list[int]:
    """Single-observer ISMCTS decision (one action) for a ``zwikken``/``zwicken`` OpenSpiel state.

    ``params``: ``iters`` (iterations, 0 = no limit), ``time`` (seconds, 0 = no limit; at least
    one of the two positive), ``c`` (UCB1 exploration, reward units of the module docstring),
    ``rollout`` (``random`` or ``greedy``). All randomness comes from ``rng``."""
    _check(params, ("iters", "time", "c", "rollout"))
    iters, seconds = int(params["iters"]), float(params["time"])
    if iters <= 0 and seconds <= 0:
        raise ValueError("give a positive iteration count (iters) or time budget (time)")
    legal, arr, cfg, player = _root(state, rng)
    if len(legal) == 1:
        return legal
    tree = new_tree(iters + 2 if iters > 0 else 1 << 18)
    how = Settings(float(params["c"]), params["rollout"] == "greedy", _scale(arr), TRIES)
    world = np.empty(0, dtype=np.int32)
    t0 = clock.now()
    done = 0
    while True:
        chunk = 64 if iters <= 0 else min(64 if seconds > 0 else iters, iters - done)
        got = search(arr, cfg, player, player, True, world, tree, chunk, how)
        if got < chunk:
            raise RuntimeError("ismcts: the resampler found no position consistent with the player's information")
        done += got
        if (iters > 0 and done >= iters) or (seconds > 0 and clock.now() - t0 >= seconds):
            break
    return [_choose(legal, *root_stats(tree))]


def pimc_decision(state, params: dict, rng: np.random.Generator) -> list[int]:
    """PIMC decision (one action) for a ``zwikken``/``zwicken`` OpenSpiel state.

    ``params``: ``worlds`` (worlds drawn by the resampler), ``iters`` (UCT iterations per world),
    ``c``, ``rollout`` (``random`` or ``greedy``), optional ``time`` (seconds: no new world after
    it, at least one world). All randomness comes from ``rng``."""
    _check(params, ("worlds", "iters", "c", "rollout"))
    worlds, iters, seconds = int(params["worlds"]), int(params["iters"]), float(params.get("time", 0.0))
    if worlds <= 0 or iters <= 0:
        raise ValueError("pimc needs worlds >= 1 and iters >= 1")
    legal, arr, cfg, player = _root(state, rng)
    if len(legal) == 1:
        return legal
    how = Settings(float(params["c"]), params["rollout"] == "greedy", _scale(arr), TRIES)
    visits = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.int64)
    total = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.float64)
    world = np.empty(trick_arrays.S_SIZE, dtype=np.int32)
    t0 = clock.now()
    for w in range(worlds):
        if w > 0 and seconds > 0 and clock.now() - t0 >= seconds:
            break
        if not resample_into(arr, cfg, player, world, TRIES):
            raise RuntimeError("pimc: the resampler found no position consistent with the player's information")
        tree = new_tree(iters + 2)
        search(arr, cfg, -1, player, False, world, tree, iters, how)
        v, t = root_stats(tree)
        visits += v
        total += t
    return [_choose(legal, visits, total)]


__all__ = [
    "ROLLOUTS",
    "Settings",
    "Tree",
    "ismcts_decision",
    "new_tree",
    "pimc_decision",
    "root_stats",
    "search",
]
