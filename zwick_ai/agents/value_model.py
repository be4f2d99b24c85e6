"""The learned Zwicker models: weights files, compiled evaluation and compiled self-play.

A model is a small multi-layer perceptron (two ReLU hidden layers, evaluated by
:func:`zwick_ai.mlp.mlp_forward`) over the features of :mod:`zwick_ai.zwicker.features`, standardized by the training set's mean and spread, its
output in points. There are three kinds (:data:`ALL_KINDS`):

* a **move** model scores the candidates of one decision: its input is a candidate's features
  (the position right after the move, from the mover's view) minus the mean over the decision's
  candidates, followed by that mean; its output is the candidate's expected final point
  difference (own side minus the mean of the other sides, the tournaments' measure) over the
  decision's mean. The ``net`` agent plays its best move
  (:func:`~zwick_ai.zwicker.model_scores.net_values`);
* a **value** model reads one position's features and predicts the points the mover's side still
  adds to its lead by the end of the hand; :func:`leaf_side_values` adds the lead so far (and is
  exact when the hand is over), the leaf evaluation for searches;
* an **after** model is a value model of the position right after a move (the afterstate) whose
  input adds a card-level view to the features (:func:`~zwick_ai.zwicker.features.after_input`,
  ``meta["deck"]`` cards of :data:`~zwick_ai.zwicker.features.CARD_BLOCK` inputs each). A move's value is the exact
  lead after it (card points and Zwicks won so far, own side minus the others) plus the model's
  points still to come (:func:`~zwick_ai.zwicker.model_scores.after_values`; exact when the move ends the hand): the model never
  has to learn what the move takes. ``zwick train net`` trains it (:mod:`zwick_ai.agents.net_train`).

Playing needs only numpy and numba: a model is the :class:`ValueModel` arrays, stored as one
``.npz`` file (:func:`load_model`, :func:`save_model`); the shipped files are in
``zwick_ai/agents/weights`` (:func:`shipped_model_path`). The kernels that score a decision's
candidates live below the agents, in :mod:`zwick_ai.zwicker.features` and
:mod:`zwick_ai.zwicker.model_scores` (this module passes their names on), so that the compiled
opponents of :mod:`zwick_ai.vector` play them too. Training is :mod:`zwick_ai.agents.value_train`
(scikit-learn, optional).

:func:`selfplay_positions` plays whole hands in compiled code and, at sampled decisions, plays
every candidate move out with greedy from the true position under common random numbers: the
training data of both kinds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from zwick_ai.mlp import (
    ARRAY_NAMES,
    FORMAT_VERSION,
    compiled_arrays,
    fit_problem,
    mlp_forward,
    no_model,
    read_model,
    shipped_path,
)
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.features import (
    CARD_BLOCK,
    F_LEAD,
    F_ZWICK,
    NFEAT,
    after_input,
    after_move_features,
    candidate_features,
    side_diff,
)
from zwick_ai.zwicker.model_scores import TIE, after_values, net_values
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET
from zwick_ai.zwicker.rules import rules as zwicker_rules

#: the kinds ``zwick train value`` trains and their input sizes: a value model reads one
#: position's features; a move model reads a candidate move's features relative to the decision's
#: mean and that mean
KINDS = {"value": NFEAT, "move": 2 * NFEAT}
#: the kind ``zwick train net`` trains: the features and the card-level view (:func:`input_size`)
AFTER = "after"
ALL_KINDS = (*KINDS, AFTER)


def input_size(kind: str, deck: int = 0) -> int:
    """How many inputs a ``kind`` model has (an after model: for a deck of ``deck`` cards; without
    the card-level view, ``deck`` = 0)."""
    return NFEAT + CARD_BLOCK * deck if kind == AFTER else KINDS[kind]


@dataclass
class ValueModel:
    """Standardization (``mean``, ``scale``) and the layers ``(weights, bias)`` of the perceptron,
    its output in points. ``meta`` records how it was made (variant, players, command, losses)."""

    mean: np.ndarray
    scale: np.ndarray
    layers: list[tuple[np.ndarray, np.ndarray]]
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.layers) != 3:
            raise ValueError(f"a value model has two hidden layers and an output layer, not {len(self.layers)} layers")
        kind = self.meta.get("kind", "value")
        if kind not in ALL_KINDS:
            raise ValueError(f"unknown model kind {kind!r}; valid: {', '.join(ALL_KINDS)}")
        want = input_size(kind, int(self.meta.get("deck", 0)))
        if self.mean.shape != (want,) or self.layers[0][0].shape[0] != want:
            raise ValueError(
                f"this {kind} model has {self.layers[0][0].shape[0]} inputs; the features make {want} "
                "(retrain it with `zwick train value`)"
            )

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays the compiled code takes, in order: mean, scale, W1, b1, W2, b2, W3, b3."""
        return compiled_arrays(self.mean, self.scale, self.layers)

    def digest(self) -> str:
        """A short hash of the weights (12 hex digits): two models play alike iff it agrees."""
        h = hashlib.sha256()
        for a in self.arrays():
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        return h.hexdigest()[:12]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The compiled evaluation of each row of ``X`` (raw features): points still to come."""
        m = self.arrays()
        X = np.ascontiguousarray(X, np.float64)
        return np.array([mlp_forward(x, m) for x in X])


def empty_model() -> tuple[np.ndarray, ...]:
    """The arrays of "no model" (:func:`zwick_ai.mlp.no_model`) for compiled code that takes a model but plays without one."""
    return no_model(NFEAT)


def average_models(models: list[ValueModel], meta: dict[str, Any]) -> ValueModel:
    """The model whose every weight is the mean of ``models``' (Polyak or stochastic weight
    averaging of a run's generations, Izmailov et al. 2018): they must share the standardization
    and the layer sizes, as the generations of one run do.

    >>> n = input_size("value", 0)
    >>> def model(k):
    ...     shapes = [(n, 2), (2, 1), (1, 1)]
    ...     return ValueModel(np.zeros(n), np.ones(n), [(np.full(s, k), np.full(s[1], k)) for s in shapes])
    >>> mean = average_models([model(1.0), model(3.0)], {})
    >>> mean.layers[0][0][0].tolist(), mean.layers[2][1].tolist()
    ([2.0, 2.0], [2.0])
    """
    if not models:
        raise ValueError("no models to average")
    first = models[0]
    for m in models[1:]:
        if not (np.array_equal(m.mean, first.mean) and np.array_equal(m.scale, first.scale)):
            raise ValueError(
                "the models standardize their inputs differently: only one run's generations can be averaged"
            )
        if [w.shape for w, _ in m.layers] != [w.shape for w, _ in first.layers]:
            raise ValueError("the models have different layer sizes")
    layers = [
        (np.mean([m.layers[k][0] for m in models], axis=0), np.mean([m.layers[k][1] for m in models], axis=0))
        for k in range(len(first.layers))
    ]
    return ValueModel(first.mean.copy(), first.scale.copy(), layers, meta)


def save_model(model: ValueModel, path: Path) -> None:
    """Write ``model`` to ``path`` (an ``.npz``); refuses to replace an existing file."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists; finished weights are never overwritten (remove it or choose another)")
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = dict(zip(ARRAY_NAMES, model.arrays(), strict=True))
    meta = dict(model.meta, format=FORMAT_VERSION, nfeat=NFEAT)
    tmp = path.with_name(path.name + ".tmp.npz")
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(tmp, allow_pickle=False, **arrays)  # named: no array may stand for numpy's flag
    tmp.replace(path)


def load_model(path: Path | str) -> ValueModel:
    """Read a model written by :func:`save_model` (a clear error for a missing or foreign file)."""
    return ValueModel(*read_model(path))


def game_meta(variant: str, players: int) -> dict[str, Any]:
    """What a model file records of the game it is trained for (the variant's default options):
    ``game`` (the OpenSpiel game string), ``variant``, ``players`` and ``deck_size``."""
    return {
        "game": f"zwicker(variant={variant},players={players})",
        "variant": variant,
        "players": players,
        "deck_size": zwicker_rules(variant, players).deck_size,
    }


def check_fits(model: ValueModel, rules: Any, source: str | Path) -> None:
    """Raise ``ValueError`` (one line naming ``source``) unless ``model`` was trained for the game of
    the engine ``rules`` (:func:`zwick_ai.mlp.fit_problem`): compiled code reads a model's inputs
    by the game's deck, so this check comes before any of it runs."""
    problem = fit_problem(model.meta, rules.variant, rules.players, rules.deck_size)
    if problem:
        raise ValueError(f"model {source} does not fit this game: {problem}")


def shipped_fits(rules: Any, kind: str) -> bool:
    """Whether the package ships a ``kind`` model that fits the game of the engine ``rules``."""
    path = shipped_model_path(rules.variant, rules.players, kind)
    if not path.is_file():
        return False
    meta = read_model(path)[3]
    return not fit_problem(meta, rules.variant, rules.players, rules.deck_size)


def shipped_model_path(variant: str, players: int, kind: str = "move") -> Path:
    """Where the package's trained ``kind`` model for ``variant`` with ``players`` players lives."""
    if kind not in ALL_KINDS:
        raise ValueError(f"unknown model kind {kind!r}; valid: {', '.join(ALL_KINDS)}")
    return shipped_path(variant, players, kind)


# ------------------------------------------------------------------------------------------------
# Compiled evaluation
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def seat_value(R, S, q, m, x):
    """Model ``m``'s expected final point difference of seat ``q``'s side in the running position
    ``S``, read as ``q``'s afterstate (``S`` as the position before and after the move): the lead
    so far plus what the model says is still to come. ``m`` is a value model or an after model,
    told apart by its input size, which ``x`` (the input buffer) has."""
    after_input(R, S, S, q, x)
    return x[F_LEAD] + x[F_ZWICK] + mlp_forward(x, m)


@njit(cache=True)
def leaf_side_values(R, S, m, x, out):
    """Per side, model ``m``'s expected final point difference (the side minus the mean of the
    others) of position ``S``, each by :func:`seat_value` of the side's first seat, exact if the
    hand is over: a search's leaf evaluation in a world where ``S`` is the whole truth."""
    ns = R[layout.R_NSIDES]
    if S[layout.S_PHASE] == layout.PHASE_OVER:
        sc = kernels.score(R, S).astype(np.float64)
        for s in range(ns):
            out[s] = side_diff(sc, s, ns)
        return out
    for s in range(ns):
        for q in range(R[layout.R_PLAYERS]):
            if R[layout.R_SIDE_OF + q] == s:
                out[s] = seat_value(R, S, q, m, x)
                break
    return out


@njit(cache=True)
def net_pick(R, S, rows, n, m, W):
    """Index of a best move by :func:`net_values` (ties uniformly at random)."""
    return best_index(net_values(R, S, rows, n, m, W))


@njit(cache=True)
def after_pick(R, S, rows, n, m, W):
    """Index of a best move by :func:`after_values` (ties uniformly at random)."""
    return best_index(after_values(R, S, rows, n, m, W))


@njit(cache=True)
def best_index(v):
    """Index of a largest entry of ``v`` (within :data:`TIE`; ties uniformly at random)."""
    best, ties, pick = -np.inf, 0, 0
    for k in range(v.shape[0]):
        best, ties, pick = kernels.best_so_far(v[k], k, best, ties, pick)
    return pick


# ------------------------------------------------------------------------------------------------
# Compiled self-play positions
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def selfplay_positions(R, seeds, policy, eps, record, m):
    """Play one hand per seed (module docstring). At a decision recorded with probability
    ``record`` that has two or more card moves, every card move is applied to a copy and played
    to the end by the greedy policy from the true position, every copy with the same random
    numbers (common random numbers: the candidates differ only by the move). Returns per
    candidate: (features after the move[N, NFEAT] float32, final point difference of the mover's
    side[N] float32, lead so far (card points and Zwicks)[N] float32, decision index[N] int32,
    hand index[N] int32)."""
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
    return X[:nrow].copy(), final[:nrow].copy(), lead[:nrow].copy(), dec[:nrow].copy(), hand[:nrow].copy()


__all__ = [
    "AFTER",
    "ALL_KINDS",
    "TIE",
    "ValueModel",
    "after_pick",
    "after_values",
    "average_models",
    "best_index",
    "candidate_features",
    "input_size",
    "leaf_side_values",
    "empty_model",
    "check_fits",
    "game_meta",
    "load_model",
    "net_pick",
    "net_values",
    "save_model",
    "seat_value",
    "selfplay_positions",
    "shipped_fits",
    "shipped_model_path",
]
