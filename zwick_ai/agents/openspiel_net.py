"""Networks trained by OpenSpiel's own learning algorithms, played with numpy only.

``openspiel-net:model=PATH`` plays a model file written by ``zwick train deep-cfr``, ``zwick train
nfsp`` or ``zwick train dqn`` (:mod:`zwick_ai.learn.openspiel_nets`, which runs OpenSpiel's PyTorch
``DeepCFRSolver``, ``NFSP`` and ``DQN``): Deep CFR's average-policy network, NFSP's average-policy
network of each seat, or DQN's Q-network of each seat. At each OpenSpiel action the network reads
the player's ``information_state_tensor``. A ``softmax`` model (Deep CFR, NFSP) draws the action
from the softmax of its outputs over the legal actions (Deep CFR's network ends in a softmax over
every action, so this is its output renormalised over the legal ones; NFSP's ``_act`` masks illegal
logits the same way); a ``greedy`` model (DQN, its JSON's ``policy``) plays the legal action of the
highest output, the first on a tie, as ``DQN`` does when evaluated. A Zwicker move is several actions, chosen one after
another; :meth:`~OpenSpielNetAgent.decision_distribution` gives the exact probabilities of the
whole moves, so ``zwick exploitability`` measures the network's policy exactly.

A model file is a pair ``STEM.npz`` + ``STEM.json`` (the policy files' format,
:func:`~zwick_ai.agents.cfr.policy_file.read_files`, kind ``openspiel-net``: checked by
SHA-256, never unpickled). Its arrays are, for each network ``k`` (one, or one per seat),
``net{k}.W{i}``/``net{k}.b{i}`` (PyTorch ``Linear`` weights, ReLU after every layer but the last)
and, where the network has one before its last layer (Deep CFR), ``net{k}.ln_w``/``net{k}.ln_b``
(``LayerNorm``, epsilon 1e-5). Its JSON names the game, the algorithm, the iterations trained and
the command that made it, and ``policy`` (``softmax``, the default, or ``greedy``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents.base import Agent, Param, compose_decision, decision_over, register
from zwick_ai.agents.cfr.agent import same_game
from zwick_ai.agents.cfr.policy_file import file_stem, read_files

KIND = "openspiel-net"
LAYER_NORM_EPS = 1e-5
#: how a model's outputs become probabilities over the legal actions (its JSON's ``policy``)
POLICIES = ("softmax", "greedy")


class Network:
    """One network of a model file: ``logits(x)`` for an information-state tensor ``x``."""

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], norm: tuple[np.ndarray, np.ndarray] | None):
        self.weights = weights
        self.norm = norm

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, np.float64)
        for W, b in self.weights[:-1]:
            h = np.maximum(W @ h + b, 0.0)
        if self.norm is not None:
            h = (h - h.mean()) / np.sqrt(h.var() + LAYER_NORM_EPS) * self.norm[0] + self.norm[1]
        W, b = self.weights[-1]
        return W @ h + b


def legal_softmax(logits: np.ndarray, legal: list[int]) -> np.ndarray:
    """The softmax of ``logits`` over the ``legal`` actions (in their order)."""
    z = logits[legal]
    e = np.exp(z - z.max())
    return e / e.sum()


def legal_greedy(values: np.ndarray, legal: list[int]) -> np.ndarray:
    """Probability 1 on the ``legal`` action of the highest value (the first on a tie, as ``torch.argmax``)."""
    out = np.zeros(len(legal))
    out[int(np.argmax(values[legal]))] = 1.0
    return out


class Model:
    """A model file loaded for play: its networks (one, or one per seat) and its metadata."""

    def __init__(self, path: str | Path):
        meta, arrays = read_files(path, KIND)
        where = f"model {file_stem(path)}"
        for key in ("game", "algorithm", "iterations", "nets", "input_size", "num_actions"):
            if key not in meta:
                raise ValueError(f"{where}: missing {key}")
        self.meta = meta
        self.game = str(meta["game"])
        self.policy = str(meta.get("policy", "softmax"))
        if self.policy not in POLICIES:
            raise ValueError(f"{where}: unknown policy {self.policy!r}; valid: {', '.join(POLICIES)}")
        self.nets = [self._network(arrays, k, where) for k in range(int(meta["nets"]))]
        if not self.nets:
            raise ValueError(f"{where}: holds no network")

    def _network(self, arrays: dict[str, np.ndarray], k: int, where: str) -> Network:
        weights = []
        size = int(self.meta["input_size"])
        i = 0
        while f"net{k}.W{i}" in arrays:
            W, b = arrays[f"net{k}.W{i}"].astype(np.float64), arrays.get(f"net{k}.b{i}")
            if W.ndim != 2 or W.shape[1] != size or b is None or b.shape != (W.shape[0],):
                raise ValueError(f"{where}: layer {i} of network {k} has inconsistent shapes")
            weights.append((W, b.astype(np.float64)))
            size = W.shape[0]
            i += 1
        if not weights or size != int(self.meta["num_actions"]):
            raise ValueError(f"{where}: network {k} does not end in one output per action")
        norm = None
        if f"net{k}.ln_w" in arrays:
            ln_w, ln_b = arrays[f"net{k}.ln_w"], arrays.get(f"net{k}.ln_b")
            if ln_b is None or ln_w.shape != (weights[-1][0].shape[1],) or ln_b.shape != ln_w.shape:
                raise ValueError(f"{where}: network {k}'s layer norm has inconsistent shapes")
            norm = (ln_w.astype(np.float64), ln_b.astype(np.float64))
        return Network(weights, norm)

    def probabilities(self, state: pyspiel.State, player: int) -> tuple[list[int], np.ndarray]:
        """The legal actions of ``player`` at ``state`` and the network's probabilities of them."""
        net = self.nets[player if len(self.nets) > 1 else 0]
        legal = state.legal_actions(player)
        outputs = net.logits(np.asarray(state.information_state_tensor(player)))
        return legal, legal_greedy(outputs, legal) if self.policy == "greedy" else legal_softmax(outputs, legal)


_CACHE: dict[tuple, Model] = {}


def load_model(path: str | Path) -> Model:
    """The model file at ``path`` (a stem, its ``.npz`` or ``.json``); cached until it changes."""
    stem = file_stem(path)
    js, npz = stem.with_suffix(".json"), stem.with_suffix(".npz")
    if not js.is_file() or not npz.is_file():
        raise ValueError(f"no model file at {path} (expected {js.name} and {npz.name})")
    key = tuple(str(p.resolve()) + f":{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in (js, npz))
    if key not in _CACHE:
        _CACHE[key] = Model(stem)
    return _CACHE[key]


def _check(params: dict[str, Any]) -> None:
    if not params["model"]:
        raise ValueError("give the model file: model=PATH (written by zwick train deep-cfr, nfsp or dqn)")


@register(
    "openspiel-net",
    params=[Param("model", str, "", "model file of zwick train deep-cfr / nfsp / dqn")],
    summary="plays a network trained by OpenSpiel's Deep CFR, NFSP or DQN (model=PATH), numpy only.",
    check=_check,
)
class OpenSpielNetAgent(Agent):
    """Plays the average-policy network of OpenSpiel's Deep CFR or NFSP, or DQN's Q-network (module docstring)."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        self.model = load_model(params["model"])
        if not same_game(self.model.game, game):
            raise ValueError(f"model {params['model']} is for {self.model.game}, not {game}")
        if len(self.model.nets) not in (1, game.num_players()):
            raise ValueError(
                f"model {params['model']} has {len(self.model.nets)} networks for {game.num_players()} seats"
            )

    def files(self) -> list[str | Path]:
        stem = file_stem(self.params["model"])
        return [stem.with_suffix(".json"), stem.with_suffix(".npz")]

    def act(self, state: pyspiel.State) -> list[int]:
        player = state.current_player()

        def step(work: pyspiel.State) -> int:
            legal, probs = self.model.probabilities(work, player)
            return int(legal[int(self.rng.choice(len(legal), p=probs))])

        return compose_decision(state, step)

    def decision_distribution(self, state: pyspiel.State) -> dict[tuple[int, ...], float]:
        """The exact probabilities of the whole decisions :meth:`act` plays."""
        player = state.current_player()
        out: dict[tuple[int, ...], float] = {}
        stack: list[tuple[pyspiel.State, tuple[int, ...], float]] = [(state.clone(), (), 1.0)]
        while stack:
            work, prefix, mass = stack.pop()
            legal, probs = self.model.probabilities(work, player)
            for a, q in zip(legal, probs, strict=True):
                child = work.clone()
                child.apply_action(int(a))
                if decision_over(child, player):
                    out[(*prefix, int(a))] = out.get((*prefix, int(a)), 0.0) + mass * float(q)
                else:
                    stack.append((child, (*prefix, int(a)), mass * float(q)))
        return out


__all__ = ["KIND", "POLICIES", "Model", "Network", "OpenSpielNetAgent", "legal_greedy", "legal_softmax", "load_model"]
