"""Two stage-value models of one board on the same fresh greedy hands (seeds from 1,000,000, which
no shipped model was fitted on): each one's error against the hands' returns, and the paired
difference of their squared errors (per stage start; a hand's starts are correlated, so the
interval is a little narrow).

    python experiments/resolve/compare_stage_values.py classic 2 20000 OLD.npz NEW.npz
"""

from __future__ import annotations

import sys

import numpy as np

from zwick_ai import zwicker
from zwick_ai.learn.stage_values import boundary_samples
from zwick_ai.mlp import compiled_arrays, mlp_forward, read_model
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY

FRESH = 1_000_000  # the first seed of the hands compared


def main() -> None:
    variant, players, hands, first, second = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    R = zwicker.rules(variant, players=players).array()
    seeds = np.arange(FRESH, FRESH + hands, dtype=np.int64)
    b = boundary_samples(R, seeds, np.full(players, POLICY_GREEDY, np.int64), 1)  # side 0's view
    y = b.returns[:, 0]
    errors = []
    for path in (first, second):
        mean, scale, layers, _ = read_model(path)
        model = compiled_arrays(mean, scale, layers)
        pred = np.array([mlp_forward(x, model) for x in b.features])
        print(
            f"{path}: {len(y):,} stage starts, MAE {np.abs(pred - y).mean():.3f}, RMSE {np.sqrt(((pred - y) ** 2).mean()):.3f}"
        )
        errors.append((pred - y) ** 2)
    d = errors[0] - errors[1]
    print(f"squared error, first - second: {d.mean():.3f} ± {1.96 * d.std() / np.sqrt(len(d)):.3f} points²")


if __name__ == "__main__":
    main()
