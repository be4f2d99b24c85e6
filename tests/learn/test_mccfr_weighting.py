"""MCCFR's weighting by iteration (Linear and Discounted CFR in lazy form) and probe sampling's
reach correction: the weights against a hand-computed example and the papers' multiplicative form;
iteration numbers that carry across chunks, resumes and workers; the corrected probe's updates."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai.agents.cfr.core import Table
from zwick_ai.learn.cfr import MCCFRSolver, load_checkpoint, save_checkpoint
from zwick_ai.learn.cfr.mccfr import Share, ShareIterations, run_share
from zwick_ai.learn.cfr.merge import Snapshot, add_changes
from zwick_ai.learn.cfr.updates import AVERAGINGS, DISCOUNTED, LINEAR, UNIFORM, iteration_weights

CLASSIC2 = "zwicker(variant=classic,players=2)"


def test_discounted_weights_equal_a_hand_computed_example():
    # iteration t's (regret weight, average weight): uniform (1, 1), linear (t, t), discounted (t, t^2)
    assert [iteration_weights(t, UNIFORM) for t in (1, 2, 3)] == [(1.0, 1.0)] * 3
    assert [iteration_weights(t, LINEAR) for t in (1, 2, 3)] == [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]
    assert [iteration_weights(t, DISCOUNTED) for t in (1, 2, 3)] == [(1.0, 1.0), (2.0, 4.0), (3.0, 9.0)]
    # three iterations playing action 0, then 1, then 0: the discounted average is (1 + 9, 4) / 14
    plays = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    lazy = sum(iteration_weights(t + 1, DISCOUNTED)[1] * p for t, p in enumerate(plays))
    assert np.allclose(lazy / lazy.sum(), [10 / 14, 4 / 14])
    # DCFR's own form: after each iteration t everything accumulated is multiplied by (t / (t + 1))^2
    acc = np.zeros(2)
    for t, p in enumerate(plays, start=1):
        acc = acc + p
        acc = acc * (t / (t + 1)) ** 2
    assert np.allclose(acc / acc.sum(), lazy / lazy.sum())


@pytest.mark.parametrize(
    "game, sampling, abstraction",
    [(CLASSIC2, "probe", "coarse"), (CLASSIC2, "probe-unbiased", "coarse"), ("kuhn_poker", "external", "none")],
)
def test_iteration_numbers_carry_across_chunks(game, sampling, abstraction):
    g = pyspiel.load_game(game)
    whole = MCCFRSolver(g, sampling, seed=4, abstraction=abstraction, averaging="discounted")
    whole.run(7)
    parts = MCCFRSolver(g, sampling, seed=4, abstraction=abstraction, averaging="discounted")
    parts.run(3)
    parts.run(4)
    a, b = whole.table.arrays(), parts.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    plain = MCCFRSolver(g, sampling, seed=4, abstraction=abstraction)  # uniform: other averages
    plain.run(7)
    assert not np.allclose(plain.table.arrays()["avg"], a["avg"])


def test_a_checkpoint_keeps_the_averaging(tmp_path):
    g = pyspiel.load_game(CLASSIC2)
    s = MCCFRSolver(g, "probe", seed=2, abstraction="coarse", averaging="linear")
    s.run(3)
    save_checkpoint(s, tmp_path / "c", seed=2)
    back, meta = load_checkpoint(tmp_path / "c")
    assert isinstance(back, MCCFRSolver)
    assert back.averaging == "linear" and meta["averaging"] == "linear"
    s.run(2)
    back.run(2)
    assert np.array_equal(s.table.arrays()["avg"], back.table.arrays()["avg"])


def test_workers_number_their_iterations_in_turn_like_a_clusters_shares():
    """Two threads of one round equal the two shares a cluster would run (each numbered
    iteration + 1 + w, then every second number), merged the same way."""
    g = pyspiel.load_game(CLASSIC2)
    threads = MCCFRSolver(g, "probe", seed=6, abstraction="coarse", workers=2, sync=4, averaging="discounted")
    threads.run(8)
    shares = MCCFRSolver(g, "probe", seed=6, abstraction="coarse", workers=2, sync=4, averaging="discounted")
    start = Snapshot.of(shares.table)
    done = [
        run_share(
            Share(w, CLASSIC2, ("probe", "discounted"), "coarse", "self", shares.table.arrays(), int(shares.rngs[w, 0]),
                  ShareIterations(4, 0 + w, 2))
        )
        for w in range(2)
    ]  # fmt: skip
    tables = [Table.from_arrays(**arrays) for arrays, _ in done]
    add_changes(tables[0], tables[1], start)
    a, b = threads.table.arrays(), tables[0].arrays()
    assert all(np.allclose(a[k], b[k]) for k in a)


def test_the_reach_correction_scales_the_updates_by_the_sampled_reach():
    """One iteration from an empty table: every strategy is uniform, so each regret of the
    corrected probe is the plain one divided by the player's own reach (a product of 1/m's), and
    the averages are divided by the others' reach; the first decision of a hand has reach 1 both ways."""
    g = pyspiel.load_game(CLASSIC2)
    plain = MCCFRSolver(g, "probe", seed=8, abstraction="coarse")
    fixed = MCCFRSolver(g, "probe-unbiased", seed=8, abstraction="coarse")
    plain.run(1)
    fixed.run(1)
    a, b = plain.table.arrays(), fixed.table.arrays()
    assert np.array_equal(a["rows"], b["rows"])  # the same hands and probes
    nz = a["regret"] != 0
    ratio = b["regret"][nz] / a["regret"][nz]
    assert np.all(ratio >= 1.0 - 1e-12) and ratio.max() > 1.0
    assert np.allclose(ratio.min(), 1.0)  # the first decision: own reach 1
    assert np.all(b["avg"] >= a["avg"] - 1e-12) and b["avg"].sum() > a["avg"].sum()


def test_unknown_averaging_is_refused():
    with pytest.raises(ValueError, match="unknown MCCFR averaging 'lcfr'; valid: uniform, linear, discounted"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"), "external", averaging="lcfr")
    assert AVERAGINGS == ("uniform", "linear", "discounted")
