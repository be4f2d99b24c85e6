"""Writing and averaging the learned Zwicker models' weights files (the training side of
:mod:`zwick_ai.agents.value_model`, which reads and plays them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.agents.value_model import ValueModel
from zwick_ai.files import replacing
from zwick_ai.mlp import ARRAY_NAMES, FORMAT_VERSION, Layer
from zwick_ai.zwicker.features import NFEAT


def average_models(models: list[ValueModel], meta: dict[str, Any]) -> ValueModel:
    """The model whose every weight is the mean of ``models``' (Polyak or stochastic weight
    averaging of a run's generations, Izmailov et al. 2018): they must share the standardization
    and the layer sizes, as the generations of one run do.

    >>> from zwick_ai.agents.value_model import input_size
    >>> n = input_size("value", 0)
    >>> def model(k):
    ...     shapes = [(n, 2), (2, 1), (1, 1)]
    ...     return ValueModel(np.zeros(n), np.ones(n), [(np.full(s, k), np.full(s[1], k)) for s in shapes])
    >>> mean = average_models([model(1.0), model(3.0)], {})
    >>> mean.layers[0].weights[0].tolist(), mean.layers[2].bias.tolist()
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
        if [layer.weights.shape for layer in m.layers] != [layer.weights.shape for layer in first.layers]:
            raise ValueError("the models have different layer sizes")
    layers = [
        Layer(np.mean([m.layers[k].weights for m in models], 0), np.mean([m.layers[k].bias for m in models], 0))
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
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    with replacing(path, ".tmp.npz") as tmp:  # a failed write (a full disk) leaves no temporary file
        np.savez_compressed(tmp, allow_pickle=False, **arrays)  # named: no array may stand for numpy's flag


__all__ = ["average_models", "save_model"]
