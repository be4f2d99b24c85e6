"""Batched rollouts of a PyTorch policy on :class:`~zwick_ai.vector.VectorGame` (``pip install
zwick_ai[train]``): the fast path for policy-gradient learners.

A step of :class:`VectorRollout` is one forward pass of the policy over every game and one call
of each ``VectorGame``: the observations and legal masks are copied once, into the rollout's
preallocated buffers (``[steps, games, ...]``, whose torch tensors are views of the same memory,
so the network reads them where they lie), an action is sampled for every game at once
(:func:`sample_masked`: one compiled pass over the logits, each row drawn from the softmax over
its legal actions, so an illegal action is never drawn), and the environment steps in compiled code. Nothing else runs in Python per step.

The games may be split over several ``VectorGame`` objects, each with its own compiled
opponents (``{1: "greedy"}`` for one, ``{0: "greedy"}`` for the other: the learner sits at both
seats against greedy), or one without opponents (self-play: the seat to move differs between the
games and within a game). :func:`advantages` computes GAE per seat of every game in compiled code:
a transition's successor is the same seat's next decision, the rewards of a finished game go to
every seat's last transition in it, and a seat still waiting at the end of the rollout is
bootstrapped with its own last value.

:func:`set_threads` sets torch's thread count (one or two on a 2-core machine: the benchmark
``benchmarks/bench_learner.py`` measures both), and :func:`policy_input` is what the network sees
of an observation tensor: ``log(1 + x)``, as the ``ppo`` agent's ``policy_features``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.vector import TimeStep, VectorGame


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ImportError("the PyTorch learners need torch: pip install zwick_ai[train]") from None
    return torch


def set_threads(threads: int) -> None:
    """Let torch use ``threads`` threads for its operations (and one for its inter-op pool, once)."""
    torch = _torch()
    if threads < 1:
        raise ValueError(f"torch threads must be at least 1, not {threads}")
    torch.set_num_threads(int(threads))


def policy_network(inputs: int, actions: int, hidden: Sequence[int] = (128, 128)) -> Any:
    """An actor-critic perceptron: ``log(1 + x)`` of the observation, ReLU hidden layers of
    ``hidden`` units, and two heads, the logits over the ``actions`` and a value (float32)."""
    torch = _torch()

    class PolicyNet(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            layers: list[Any] = []
            width = inputs
            for h in hidden:
                layers += [torch.nn.Linear(width, int(h)), torch.nn.ReLU()]
                width = int(h)
            self.trunk = torch.nn.Sequential(*layers)
            self.policy = torch.nn.Linear(width, actions)
            self.value = torch.nn.Linear(width, 1)
            with torch.no_grad():  # a near-uniform first policy (as PPO implementations start)
                self.policy.weight.mul_(0.01)
                self.policy.bias.zero_()

        def forward(self, x: Any) -> tuple[Any, Any]:
            z = self.trunk(torch.log1p(x))
            return self.policy(z), self.value(z).squeeze(-1)

    return PolicyNet()


def masked_logits(logits: Any, mask: Any) -> Any:
    """``logits`` with the illegal actions (``mask`` False) at minus infinity."""
    torch = _torch()
    return logits.masked_fill(~mask, -torch.inf)


@kernel(nrt=False, nogil=True)
def sample_masked(logits, mask, rng, actions, logp):
    """One action per row of ``logits`` [N, A] drawn from their softmax over the legal actions of
    ``mask`` (an illegal action is never drawn; every row needs a legal one), into ``actions``
    [N], with its log-probability into ``logp`` [N]; row ``i``'s uniform draw comes from its own
    splitmix64 stream ``rng[i]`` (advanced). One compiled pass over the rows."""
    n, width = logits.shape
    for i in range(n):
        top = -np.inf
        for a in range(width):
            if mask[i, a] and logits[i, a] > top:
                top = logits[i, a]
        total = 0.0
        for a in range(width):
            if mask[i, a]:
                total += np.exp(logits[i, a] - top)
        rng[i] += np.uint64(0x9E3779B97F4A7C15)
        z = rng[i]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        target = float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
        pick = -1
        run = 0.0
        for a in range(width):
            if mask[i, a]:
                pick = a  # the last legal action if rounding leaves the sum short of the target
                run += np.exp(logits[i, a] - top)
                if run > target:
                    break
        actions[i] = pick
        logp[i] = logits[i, pick] - top - np.log(total)


def seed_streams(rng: np.ndarray, seed: int) -> None:
    """Seed the per-row streams of :func:`sample_masked` from ``seed`` (each row its own)."""
    base = np.uint64(int(seed) * 0x2545F4914F6CDD1D % (1 << 64))
    rng[:] = np.arange(len(rng), dtype=np.uint64) + base


class VectorRollout:
    """``steps`` steps of every game of ``games`` (``VectorGame`` objects of one game string)
    played by ``model`` (:func:`policy_network`), kept in preallocated buffers. ``overlap`` (two or
    more ``VectorGame`` blocks) steps one block's games on a second thread while the network reads
    the next block's, so the env and the network use two cores at once.

    After :meth:`collect` (which resets the games with ``seed`` first): ``obs`` [steps, N, D]
    float32, ``mask`` [steps, N, A] bool, ``seat`` [steps, N] int64 (the seat that acted),
    ``actions`` [steps, N] int64, ``logp`` and ``value`` [steps, N] float32 (of the acting policy),
    ``rewards`` [steps, N, players] float32 and ``done`` [steps, N] bool (the game ended after the
    step: its returns), and ``last_value``/``last_seat`` [N] of the positions after the last step;
    each as numpy (``*_np``) and as a torch view of the same memory (no suffix).
    """

    def __init__(self, games: Sequence[VectorGame], steps: int, model: Any, overlap: bool = False):
        torch = _torch()
        if not games:
            raise ValueError("a rollout needs at least one VectorGame")
        first = games[0]
        for g in games[1:]:
            if str(g.game) != str(first.game) or g.information_state != first.information_state:
                raise ValueError("the VectorGames of one rollout must play the same game with the same tensor")
        if steps < 1:
            raise ValueError(f"steps must be at least 1, not {steps}")
        if overlap and len(games) < 2:
            raise ValueError("overlap needs at least two VectorGames (blocks that take turns)")
        self.games = list(games)
        self.overlap = bool(overlap)
        self._pool: Any = None
        self.steps = int(steps)
        self.model = model
        self.num_games = sum(g.num_games for g in games)
        bounds = np.cumsum([0] + [g.num_games for g in games])
        self.parts = [slice(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
        n, t, d, a, p = self.num_games, self.steps, first.observation_size, first.num_actions, first.num_players
        self.obs_np = np.zeros((t, n, d), np.float32)
        self.mask_np = np.zeros((t, n, a), np.bool_)
        self.seat_np = np.zeros((t, n), np.int64)
        self.actions_np = np.zeros((t, n), np.int64)
        self.logp_np = np.zeros((t, n), np.float32)
        self.value_np = np.zeros((t, n), np.float32)
        self.rewards_np = np.zeros((t, n, p), np.float32)
        self.done_np = np.zeros((t, n), np.bool_)
        self.last_obs_np = np.zeros((n, d), np.float32)
        self.last_mask_np = np.zeros((n, a), np.bool_)
        self.last_seat_np = np.zeros(n, np.int64)
        self.last_value_np = np.zeros(n, np.float32)
        view = torch.from_numpy  # the torch tensors share the numpy buffers' memory
        self.obs: Any = view(self.obs_np)
        self.mask: Any = view(self.mask_np)
        self.seat: Any = view(self.seat_np)
        self.actions: Any = view(self.actions_np)
        self.logp: Any = view(self.logp_np)
        self.value: Any = view(self.value_np)
        self.rewards: Any = view(self.rewards_np)
        self.done: Any = view(self.done_np)
        self.last_obs: Any = view(self.last_obs_np)
        self.last_mask: Any = view(self.last_mask_np)
        self.last_value: Any = view(self.last_value_np)
        self._timesteps: list[TimeStep] = []
        self._rng = np.zeros(n, np.uint64)

    def _read(self, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray) -> None:
        """Copy the games' current decisions into the given rows of the buffers."""
        for part, ts in zip(self.parts, self._timesteps, strict=True):
            np.copyto(obs[part], ts.observation)
            np.copyto(mask[part], ts.legal_mask)
            np.copyto(seat[part], ts.current_player)

    def collect(self, seed: int) -> None:
        """Reset the games from deal seeds ``seed``, ``seed + N_0``, ... (one block per
        ``VectorGame``) and play ``steps`` steps, the actions sampled from streams seeded by ``seed``.
        With ``overlap`` the blocks take turns: one block's env steps on a second thread while the
        network reads the next block (the same draws: each game's stream is its own)."""
        torch = _torch()
        start = int(seed)
        seed_streams(self._rng, start)
        self._timesteps = []
        for g in self.games:
            self._timesteps.append(g.reset(seed=start))
            start += g.num_games
        with torch.inference_mode():
            if self.overlap:
                self._collect_overlapped()
            else:
                for t in range(self.steps):
                    self._read(self.obs_np[t], self.mask_np[t], self.seat_np[t])
                    self._act(t, slice(0, self.num_games))
                    for k in range(len(self.games)):
                        self._step(t, k)
            self._read(self.last_obs_np, self.last_mask_np, self.last_seat_np)
            self.last_value[:] = self.model(self.last_obs)[1]

    def _act(self, t: int, rows: slice) -> None:
        """One forward pass over the ``rows`` of step ``t`` and a drawn action for each."""
        logits, value = self.model(self.obs[t, rows])
        sample_masked(
            logits.numpy(), self.mask_np[t, rows], self._rng[rows], self.actions_np[t, rows], self.logp_np[t, rows]
        )
        self.value[t, rows] = value

    def _step(self, t: int, k: int) -> None:
        """Step block ``k`` with its actions of step ``t`` and keep its rewards and ends."""
        part = self.parts[k]
        ts = self.games[k].step(self.actions_np[t, part])
        np.copyto(self.rewards_np[t, part], ts.rewards)
        np.copyto(self.done_np[t, part], ts.terminated)
        self._timesteps[k] = ts

    def _collect_overlapped(self) -> None:
        """The blocks in turn, each block's env step on the worker thread while the network reads
        the next block (the env's kernels release Python's lock)."""
        from concurrent.futures import ThreadPoolExecutor, wait

        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="vector-env")
        pending = None
        try:
            for t in range(self.steps):
                for k, part in enumerate(self.parts):
                    ts = self._timesteps[k]  # block k's step t - 1 ended two turns ago
                    np.copyto(self.obs_np[t, part], ts.observation)
                    np.copyto(self.mask_np[t, part], ts.legal_mask)
                    np.copyto(self.seat_np[t, part], ts.current_player)
                    self._act(t, part)
                    if pending is not None:
                        pending.result()
                    pending = self._pool.submit(self._step, t, k)
        finally:
            # also when a signal interrupts this thread: the env step in flight ends before the
            # exception goes on, so no compiled step is left running while Python shuts down
            if pending is not None:
                wait([pending])
        if pending is not None:
            pending.result()


@kernel
def advantages(seat, value, rewards, done, last_seat, last_value, gamma, lam):
    """GAE(``gamma``, ``lam``) advantages and returns [steps, N] of a rollout (module docstring:
    per seat of every game; the returns are the advantages plus the values)."""
    t_len, n = seat.shape
    players = rewards.shape[2]
    adv = np.zeros((t_len, n), np.float32)
    ret = np.zeros((t_len, n), np.float32)
    next_value = np.zeros(players, np.float64)
    next_adv = np.zeros(players, np.float64)
    pending = np.zeros(players, np.float64)
    known = np.zeros(players, np.bool_)
    for i in range(n):
        next_value[:] = 0.0
        next_adv[:] = 0.0
        pending[:] = 0.0
        known[:] = False
        known[last_seat[i]] = True
        next_value[last_seat[i]] = last_value[i]
        for t in range(t_len - 1, -1, -1):
            if done[t, i]:
                for s in range(players):
                    next_value[s] = 0.0
                    next_adv[s] = 0.0
                    pending[s] = rewards[t, i, s]
                    known[s] = True
            p = seat[t, i]
            v = value[t, i]
            if known[p]:
                delta = pending[p] + gamma * next_value[p] - v
                a = delta + gamma * lam * next_adv[p]
            else:  # the seat's next decision lies after the rollout: its own value stands for it
                a = pending[p] + gamma * v - v
            adv[t, i] = a
            ret[t, i] = a + v
            next_value[p] = v
            next_adv[p] = a
            pending[p] = 0.0
            known[p] = True
    return adv, ret


__all__ = [
    "VectorRollout",
    "advantages",
    "masked_logits",
    "policy_network",
    "sample_masked",
    "seed_streams",
    "set_threads",
]
