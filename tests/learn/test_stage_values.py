"""Learned stage values: the boundary samples are every stage start of real hands labelled with the
hand's return, the fit reports its held-out error, and the compiled batch evaluation the resolver
uses equals the one-state evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from zwick_ai import zwicker
from zwick_ai.agents.cfr import resolve, resolve_tree
from zwick_ai.learn.stage_values import boundary_samples, fit
from zwick_ai.mlp import Layer, compiled_arrays, mlp_forward
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY
from zwick_ai.zwicker.stage_features import F_SCALARS, F_STAGE, F_STOCK, feature_count, stage_features_seen_by

MICRO = {"ranks": "A23", "suits": "CD", "jokers": "none", "hand_size": 1, "table_size": 2, "stages": 2}
MICRO3 = {"ranks": "A234", "suits": "CD", "jokers": "none", "hand_size": 1, "table_size": 2, "stages": 2}


def test_boundary_samples_are_every_stage_start_labelled_with_the_hands_return() -> None:
    R = zwicker.rules("dithmarschen", players=2, **MICRO).array()
    X, Y, H, V = boundary_samples(R, np.arange(20, dtype=np.int64), np.full(2, POLICY_GREEDY, np.int64), 1)
    assert np.array_equal(np.bincount(H), np.full(20, 2))  # two stages a hand
    assert not V.any()
    assert np.array_equal(X[:, F_STAGE], np.tile([0.0, 1.0], 20))
    assert np.array_equal(X[:, F_STOCK], np.tile([2.0, 0.0], 20))
    assert np.allclose(Y[:, 0], -Y[:, 1])
    assert np.all(Y[0::2] == Y[1::2])  # both boundaries of a hand carry its return


def test_with_three_sides_every_boundary_is_a_row_per_side_labelled_with_its_return() -> None:
    R = zwicker.rules("christiansen", players=3, **MICRO3).array()
    X, Y, H, V = boundary_samples(R, np.arange(10, dtype=np.int64), np.full(3, POLICY_GREEDY, np.int64), 3)
    assert np.array_equal(V, np.tile([0, 1, 2], 20))  # two stages a hand, three sides each
    assert np.allclose(Y.sum(axis=1), 0.0)  # the returns of a hand sum to zero
    W = kernels.new_workspace()
    S = kernels.new_hand(R, 0, W)
    for side in range(3):  # the first row of each side is that hand's first boundary seen from it
        x = np.zeros(feature_count(R))
        stage_features_seen_by(R, S, side, x)
        assert np.array_equal(X[side], x)


def test_a_side_seen_from_its_own_seat_stands_where_side_0_stands() -> None:
    R = zwicker.rules("christiansen", players=3, **MICRO3).array()
    W = kernels.new_workspace()
    S = kernels.new_hand(R, 3, W)
    won = [0, 0, 0]
    while len(set(won)) < 2 and S[layout.S_PHASE] != layout.PHASE_OVER:  # until the sides differ
        kernels.apply_move(R, S, kernels.legal_moves(R, S, W)[0], W)
        won = [int(S[layout.S_WON_N + v]) for v in range(3)]
    assert len(set(won)) > 1
    seen = [np.zeros(feature_count(R)) for _ in range(3)]
    for side in range(3):
        stage_features_seen_by(R, S, side, seen[side])
    for side in range(3):  # a side's cards won come first from its own seat, then the next side's
        for v in range(3):
            assert seen[side][F_SCALARS + 3 * v + 1] == S[layout.S_WON_N + (v + side) % 3]


def test_three_sides_values_are_the_model_from_every_seat_centred_two_sides_opposite() -> None:
    R3 = zwicker.rules("christiansen", players=3, **MICRO3).array()
    rng = np.random.default_rng(0)
    n = feature_count(R3)
    model = compiled_arrays(np.zeros(n), np.ones(n), [Layer(rng.normal(size=(n, 4)), rng.normal(size=4)),
                            Layer(rng.normal(size=(4, 3)), rng.normal(size=3)), Layer(rng.normal(size=(3, 1)), np.zeros(1))])  # fmt: skip
    W = kernels.new_workspace()
    S = kernels.new_hand(R3, 5, W)
    kernels.apply_move(R3, S, kernels.legal_moves(R3, S, W)[0], W)
    values = resolve.model_stage_value(R3, S, model)
    raw = []
    for side in range(3):
        x = np.zeros(n)
        stage_features_seen_by(R3, S, side, x)
        raw.append(mlp_forward(x, model))
    np.testing.assert_allclose(values, np.array(raw) - np.mean(raw))
    assert abs(values.sum()) < 1e-9 and np.ptp(values) > 0
    R2 = zwicker.rules("dithmarschen", players=2, **MICRO).array()
    n2 = feature_count(R2)
    model2 = compiled_arrays(np.zeros(n2), np.ones(n2), [Layer(rng.normal(size=(n2, 4)), rng.normal(size=4)),
                             Layer(rng.normal(size=(4, 3)), rng.normal(size=3)), Layer(rng.normal(size=(3, 1)), np.zeros(1))])  # fmt: skip
    S2 = kernels.new_hand(R2, 5, W)
    v2 = resolve.model_stage_value(R2, S2, model2)
    x2 = np.zeros(n2)
    stage_features_seen_by(R2, S2, 0, x2)
    assert v2[0] == mlp_forward(x2, model2) and v2[1] == -v2[0]


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players", "micro"), [("dithmarschen", 2, MICRO), ("christiansen", 3, MICRO3)])
def test_fit_reports_held_out_error_and_batch_evaluation_matches(variant: str, players: int, micro: dict) -> None:
    """Two sides: a row per boundary; three: a row per side, and the values sum to zero."""
    R = zwicker.rules(variant, players=players, **micro).array()
    model, report = fit(R, 200, seed=0, hidden=(8, 4))
    assert report["boundaries"] == 400 and report["held_out_boundaries"] == 40
    assert report.get("rows_per_boundary", 1) == (1 if players == 2 else players)
    assert np.isfinite(report["held_out_mae"]) and report["baseline_mae"] > 0
    W = kernels.new_workspace()
    states = np.stack([kernels.new_hand(R, s, W) for s in range(5)])
    batch = np.zeros((5, players))
    resolve_tree.model_values(R, states, model, batch)
    one = np.stack([resolve.model_stage_value(R, S, model) for S in states])
    np.testing.assert_allclose(batch, one)
    np.testing.assert_allclose(batch.sum(axis=1), 0.0, atol=1e-9)
