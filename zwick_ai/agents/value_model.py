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
  has to learn what the move takes. ``zwick train net`` trains it (:mod:`zwick_ai.learn.net_train`).

Playing needs only numpy and numba: a model is the :class:`ValueModel` arrays, stored as one
``.npz`` file (:func:`load_model`; :func:`zwick_ai.learn.model_files.save_model` writes it); the shipped files are in
``zwick_ai/agents/weights`` (:func:`shipped_model_path`). The kernels that score a decision's
candidates live below the agents, in :mod:`zwick_ai.zwicker.features` and
:mod:`zwick_ai.zwicker.model_scores` (this module passes their names on), so that the compiled
opponents of :mod:`zwick_ai.vector` play them too. Training is :mod:`zwick_ai.learn`
(scikit-learn and PyTorch, optional).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.mlp import (
    Layer,
    Layers,
    Perceptron,
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
    candidate_features,
    side_diff,
)
from zwick_ai.zwicker.model_scores import TIE, after_values, net_values
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
    """Standardization (``mean``, ``scale``) and the layers (:class:`~zwick_ai.mlp.Layer`) of the perceptron,
    its output in points. ``meta`` records how it was made (variant, players, command, losses)."""

    mean: np.ndarray
    scale: np.ndarray
    layers: Layers
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.layers = [Layer(*layer) for layer in self.layers]  # (weights, bias) pairs read by name
        if len(self.layers) != 3:
            raise ValueError(f"a value model has two hidden layers and an output layer, not {len(self.layers)} layers")
        kind = self.meta.get("kind", "value")
        if kind not in ALL_KINDS:
            raise ValueError(f"unknown model kind {kind!r}; valid: {', '.join(ALL_KINDS)}")
        want = input_size(kind, int(self.meta.get("deck", 0)))
        if self.mean.shape != (want,) or self.layers[0].weights.shape[0] != want:
            raise ValueError(
                f"this {kind} model has {self.layers[0].weights.shape[0]} inputs; the features make {want} "
                "(retrain it with `zwick train value`)"
            )

    def arrays(self) -> Perceptron:
        """The arrays the compiled code takes (:class:`~zwick_ai.mlp.Perceptron`)."""
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


def empty_model() -> Perceptron:
    """The arrays of "no model" (:func:`zwick_ai.mlp.no_model`) for compiled code that takes a model but plays without one."""
    return no_model(NFEAT)


def load_model(path: Path | str) -> ValueModel:
    """Read a model written by :func:`save_model` (a clear error for a missing or foreign file)."""
    return ValueModel(*read_model(path))


def game_meta(variant: str, players: int, rules: Any = None, game: str = "") -> dict[str, Any]:
    """What a model file records of the game it is trained for: ``game`` (the OpenSpiel game
    string), ``variant``, ``players`` and ``deck_size``; the variant's default options unless the
    game's engine ``rules`` and its ``game`` string are given (other options, such as a micro deck)."""
    return {
        "game": game or f"zwicker(variant={variant},players={players})",
        "variant": variant,
        "players": players,
        "deck_size": (rules if rules is not None else zwicker_rules(variant, players)).deck_size,
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
@kernel
def seat_value(R, S, q, m, x):
    """Model ``m``'s expected final point difference of seat ``q``'s side in the running position
    ``S``, read as ``q``'s afterstate (``S`` as the position before and after the move): the lead
    so far plus what the model says is still to come. ``m`` is a value model or an after model,
    told apart by its input size, which ``x`` (the input buffer) has."""
    after_input(R, S, S, q, x)
    return x[F_LEAD] + x[F_ZWICK] + mlp_forward(x, m)


@kernel
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


@kernel
def net_pick(R, S, rows, n, m, W):
    """Index of a best move by :func:`net_values` (ties uniformly at random)."""
    return best_index(net_values(R, S, rows, n, m, W))


@kernel
def after_pick(R, S, rows, n, m, W):
    """Index of a best move by :func:`after_values` (ties uniformly at random)."""
    return best_index(after_values(R, S, rows, n, m, W))


@kernel
def best_index(v):
    """Index of a largest entry of ``v`` (within :data:`TIE`; ties uniformly at random)."""
    best, ties, pick = -np.inf, 0, 0
    for k in range(v.shape[0]):
        best, ties, pick = kernels.best_so_far(v[k], k, best, ties, pick)
    return pick


__all__ = [
    "AFTER",
    "ALL_KINDS",
    "TIE",
    "ValueModel",
    "after_pick",
    "after_values",
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
    "seat_value",
    "shipped_fits",
    "shipped_model_path",
]
