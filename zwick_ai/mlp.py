"""The learned models' perceptrons: their weights files and their compiled forward pass (numpy
and numba only).

A model plays as a :class:`Perceptron`, eight float64 arrays read by name: the inputs
standardized by ``mean`` and ``scale``, two ReLU hidden layers and one linear output
(:func:`compiled_arrays`). A weights file is one ``.npz`` of those arrays and a JSON ``meta``
(:func:`read_model`; :mod:`zwick_ai.agents.value_model` writes them and checks them against the
features); the package ships its trained ones in ``zwick_ai/agents/weights``
(:func:`shipped_path`). This module imports nothing of the package, so every layer that plays a
model (the agents, the batched games of :mod:`zwick_ai.vector`) reads and evaluates it the same
way.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zwick_ai.jit import kernel


class Perceptron(NamedTuple):
    """A model's arrays as the compiled code takes them (contiguous float64; :func:`compiled_arrays`),
    read by name. A weights file stores them under the same names (:data:`ARRAY_NAMES`)."""

    mean: np.ndarray  # per input: subtracted first
    scale: np.ndarray  # per input: divides next (positive)
    W1: np.ndarray  # (inputs, hidden 1): the first hidden layer's weights (ReLU)
    b1: np.ndarray  # (hidden 1,): its biases
    W2: np.ndarray  # (hidden 1, hidden 2): the second hidden layer's weights (ReLU)
    b2: np.ndarray  # (hidden 2,)
    W3: np.ndarray  # (hidden 2, 1): the linear output's weights
    b3: np.ndarray  # (1,)


#: the arrays of a weights file, named as the :class:`Perceptron`'s fields
ARRAY_NAMES = Perceptron._fields
#: the weights file format this version reads and writes
FORMAT_VERSION = 1
#: where the package's trained weights live
WEIGHTS_DIR = Path(__file__).resolve().parent / "agents" / "weights"


class Layer(NamedTuple):
    """One layer of a perceptron as a weights file stores it (``W{i}`` and ``b{i}``)."""

    weights: np.ndarray  # (inputs, outputs)
    bias: np.ndarray  # (outputs,)


#: a perceptron's layers, first hidden layer first and the output last
Layers = list[Layer]


def shipped_path(variant: str, players: int, kind: str) -> Path:
    """The package's weights file of ``kind`` for ``variant`` with ``players`` players."""
    return WEIGHTS_DIR / f"{variant}-{players}p-{kind}.npz"


def read_model(path: Path | str) -> tuple[np.ndarray, np.ndarray, Layers, dict[str, Any]]:
    """(mean, scale, layers as (weights, bias) pairs, meta) of a weights file (a clear error for a
    missing or foreign file or another format)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no value model file {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            layers = [Layer(z[f"W{i}"], z[f"b{i}"]) for i in (1, 2, 3)]
            mean, scale = z["mean"], z["scale"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise ValueError(f"{path} is not a zwick_ai value model ({e})") from None
    if isinstance(meta, dict) and any(
        not isinstance(meta.get(k, 0), int) or meta.get(k, 0) < 0 for k in ("deck", "deck_size", "players")
    ):
        raise ValueError(f"{path} is not a zwick_ai value model (its deck or players is not a count)")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        have = meta.get("format") if isinstance(meta, dict) else None
        raise ValueError(f"{path}: value model format {have}, this zwick_ai reads {FORMAT_VERSION}")
    problem = shape_problem(mean, scale, layers)
    if problem:
        raise ValueError(f"{path} is not a usable value model: {problem}")
    return mean, scale, layers, meta


def shape_problem(mean: np.ndarray, scale: np.ndarray, layers: Layers) -> str:
    """Why the arrays cannot be one perceptron that :func:`mlp_forward` may read without going past an
    array ("" if they can): real floats, ``mean`` and ``scale`` one entry per input, each layer's
    weights ``(inputs, outputs)`` chained to the next, one output, finite values, positive scales."""
    arrays = [mean, scale, *(a for layer in layers for a in (layer.weights, layer.bias))]
    if len(layers) != 3:
        return f"{len(layers)} layers, not two hidden layers and an output"
    if any(a.dtype.kind != "f" for a in arrays):
        return "arrays that are not floating point"
    if mean.ndim != 1 or scale.shape != mean.shape:
        return f"standardization of shapes {mean.shape} and {scale.shape}"
    inputs = mean.shape[0]
    for i, layer in enumerate(layers, start=1):
        w, b = layer.weights, layer.bias
        if w.ndim != 2 or w.shape[0] != inputs or w.shape[1] < 1 or b.shape != (w.shape[1],):
            return f"layer {i} of shape {w.shape} with bias {b.shape} after {inputs} inputs"
        inputs = w.shape[1]
    if inputs != 1:
        return f"{inputs} outputs, not one"
    if not all(np.isfinite(a).all() for a in arrays) or not (scale > 0).all():
        return "weights that are not finite, or a scale that is not positive"
    return ""


def fit_problem(meta: dict[str, Any], variant: str, players: int, deck: int) -> str:
    """Why a model whose ``meta`` says what it was trained for cannot play
    ``variant`` with ``players`` players and a deck of ``deck`` cards ("" if it can). A model with a
    card-level view (``meta["deck"]`` > 0) reads one block of inputs per card of its deck, so it
    plays only a deck of that size; one that names its variant, player count and deck size
    (``meta["deck_size"]``) plays only those (a file that names none of them plays wherever its
    inputs fit)."""
    model_deck = int(meta.get("deck") or 0)
    size = meta.get("deck_size") or model_deck or "?"
    named = meta.get("variant") not in (None, "") and meta.get("players") not in (None, "")
    trained = f"{meta['variant']} with {meta['players']} players and {size} cards" if named else f"{size} cards"
    why = f"trained for {trained}, not for {variant} with {players} players and {deck} cards"
    if model_deck and model_deck != deck:
        return f"{why} (it reads one block of inputs per card of its deck)"
    if meta.get("deck_size") not in (None, deck):
        return why
    if meta.get("variant") not in (None, "", variant) or meta.get("players") not in (None, "", players):
        return why
    return ""


def compiled_arrays(mean: np.ndarray, scale: np.ndarray, layers: Layers) -> Perceptron:
    """The eight contiguous float64 arrays the compiled code takes (layer ``i`` from 1 as the
    fields ``W{i}`` and ``b{i}``, the names of a weights file)."""

    def f64(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, np.float64)

    named = {}
    for i, layer in enumerate(layers, start=1):
        named[f"W{i}"], named[f"b{i}"] = f64(layer.weights), f64(layer.bias)
    return Perceptron(mean=f64(mean), scale=f64(scale), **named)


@kernel
def mlp_first_layer(x, m, h1):
    """Sets ``h1`` to the first hidden layer's input sums (before the ReLU) of the model ``m`` on
    the raw input ``x``."""
    mean, scale, W1 = m.mean, m.scale, m.W1
    h1[:] = m.b1
    for i in range(x.shape[0]):
        z = (x[i] - mean[i]) / scale[i]
        if z != 0.0:
            for j in range(h1.shape[0]):
                h1[j] += z * W1[i, j]


@kernel
def mlp_first_layer_update(x, x_old, m, h1):
    """Turns ``h1``, the first layer's sums on ``x_old``, into those on ``x``, and ``x_old`` into
    ``x``, touching only the inputs that differ: the moves of one decision change a few of a
    position's inputs, so a decision's candidates cost a few rows of the first layer each instead
    of all of them. From ``x_old = mean`` and ``h1 = b1`` (the first layer of the standardized
    zero input) it is :func:`mlp_first_layer`."""
    scale, W1 = m.scale, m.W1
    for i in range(x.shape[0]):
        if x[i] != x_old[i]:
            dz = (x[i] - x_old[i]) / scale[i]  # the standardized input's change: the mean cancels
            for j in range(h1.shape[0]):
                h1[j] += dz * W1[i, j]
            x_old[i] = x[i]


@kernel
def mlp_head(h1, m):
    """The model's output from its first layer's sums ``h1`` (:func:`mlp_first_layer`)."""
    W2, W3 = m.W2, m.W3
    h2 = m.b2.copy()
    for i in range(h1.shape[0]):
        if h1[i] > 0.0:
            for j in range(h2.shape[0]):
                h2[j] += h1[i] * W2[i, j]
    out = m.b3[0]
    for i in range(h2.shape[0]):
        if h2[i] > 0.0:
            out += h2[i] * W3[i, 0]
    return out


@kernel
def mlp_forward(x, m):
    """The model ``m`` (a :class:`Perceptron`) on one raw input vector ``x``."""
    h1 = np.empty(m.b1.shape[0], np.float64)
    mlp_first_layer(x, m, h1)
    return mlp_head(h1, m)


def no_model(inputs: int) -> Perceptron:
    """The arrays of "no model" with ``inputs`` inputs (one hidden unit, output 0): the compiled
    kernels take a model's arrays with fixed types, and a game whose seats play no network passes
    these (they are never evaluated)."""
    z = np.zeros
    return Perceptron(z(inputs), np.ones(inputs), z((inputs, 1)), z(1), z((1, 1)), z(1), z((1, 1)), z(1))


class PolicyNet:
    """An actor's policy perceptron read from a ``policy.npz`` of ``zwick train ppo`` (numpy only):
    ``logits(obs [B, D], mask [B, A])`` is ReLU layers over ``log(1 + obs)`` and a linear head, the
    illegal actions at minus infinity: a ``policy_fn`` of :class:`zwick_ai.agents.PolicyAgent`.
    ``meta`` holds the game string it was trained on."""

    def __init__(self, path: Path | str):
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                depth = int(meta["hidden_layers"])
                self.layers = [Layer(z[f"W{i}"], z[f"b{i}"]) for i in range(depth)]
                self.head = Layer(z["Wpolicy"], z["bpolicy"])
        except FileNotFoundError:
            raise ValueError(f"no policy file {path}") from None
        except (OSError, KeyError, ValueError, TypeError, EOFError, zipfile.BadZipFile) as e:
            raise ValueError(f"{path} is not a zwick_ai policy file ({e})") from None
        width = (self.layers[0] if self.layers else self.head).weights.shape[0]
        for w, b in [*self.layers, self.head]:
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise ValueError(f"{path} is not a usable policy file: its layer sizes do not chain")
            width = w.shape[1]
        self.meta: dict[str, Any] = meta

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.log1p(np.asarray(obs, np.float32))
        for w, b in self.layers:
            z = np.maximum(z @ w + b, 0.0)
        out = z @ self.head.weights + self.head.bias
        return np.where(mask, out, -np.inf)


__all__ = [
    "ARRAY_NAMES",
    "PolicyNet",
    "FORMAT_VERSION",
    "Layer",
    "Layers",
    "Perceptron",
    "WEIGHTS_DIR",
    "compiled_arrays",
    "fit_problem",
    "mlp_first_layer",
    "mlp_first_layer_update",
    "mlp_forward",
    "mlp_head",
    "no_model",
    "read_model",
    "shape_problem",
    "shipped_path",
]
