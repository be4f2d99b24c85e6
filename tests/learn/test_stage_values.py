"""Learned stage values: the boundary samples are every stage start of real hands labelled with the
hand's return, the fit reports its held-out error, and the compiled batch evaluation the resolver
uses equals the one-state evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from zwick_ai import zwicker
from zwick_ai.agents.cfr import resolve, resolve_tree
from zwick_ai.learn.stage_values import boundary_samples, fit
from zwick_ai.zwicker import kernels
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY
from zwick_ai.zwicker.stage_features import F_STAGE, F_STOCK

MICRO = {"ranks": "A23", "suits": "CD", "jokers": "none", "hand_size": 1, "table_size": 2, "stages": 2}


def test_boundary_samples_are_every_stage_start_labelled_with_the_hands_return() -> None:
    R = zwicker.rules("dithmarschen", players=2, **MICRO).array()
    X, Y, H = boundary_samples(R, np.arange(20, dtype=np.int64), np.full(2, POLICY_GREEDY, np.int64))
    assert np.array_equal(np.bincount(H), np.full(20, 2))  # two stages a hand
    assert np.array_equal(X[:, F_STAGE], np.tile([0.0, 1.0], 20))
    assert np.array_equal(X[:, F_STOCK], np.tile([2.0, 0.0], 20))
    assert np.allclose(Y[:, 0], -Y[:, 1])
    assert np.all(Y[0::2] == Y[1::2])  # both boundaries of a hand carry its return


@pytest.mark.slow
def test_fit_reports_held_out_error_and_batch_evaluation_matches() -> None:
    R = zwicker.rules("dithmarschen", players=2, **MICRO).array()
    model, report = fit(R, 200, seed=0, hidden=(8, 4))
    assert report["boundaries"] == 400 and report["held_out_boundaries"] == 40
    assert np.isfinite(report["held_out_mae"]) and report["baseline_mae"] > 0
    W = kernels.new_workspace()
    states = np.stack([kernels.new_hand(R, s, W) for s in range(5)])
    batch = np.zeros((5, 2))
    resolve_tree.model_values(R, states, model, batch)
    one = np.stack([resolve.model_stage_value(R, S, model) for S in states])
    np.testing.assert_allclose(batch, one)
