"""Parallel MCCFR (``workers > 1``): rounds of worker threads whose table changes are added up.

The merge is checked against a slow dictionary version; a run is reproducible from its seed,
resumes to exactly the uninterrupted run, and a table full mid-round does not change the result.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai.agents.cfr.core import R_KEY, R_N, R_OFF, R_VIS, Table
from zwick_ai.cli import main
from zwick_ai.learn.cfr import MCCFRSolver, TrainOptions, load_checkpoint, save_checkpoint, train
from zwick_ai.learn.cfr.mccfr import worker_streams
from zwick_ai.learn.cfr.merge import Snapshot, add_changes

CLASSIC2 = "zwicker(variant=classic,players=2)"
PARLETT = "zwikken(variant=parlett,players=3)"


def _by_key(table: Table) -> dict[int, tuple[np.ndarray, np.ndarray, int]]:
    """Every set of ``table``: key -> (regrets, weights, visits)."""
    out = {}
    for r in range(table.num_rows):
        off, n = table.rows[r, R_OFF], table.rows[r, R_N]
        out[int(table.rows[r, R_KEY])] = (
            table.regret[off : off + n].copy(),
            table.avg[off : off + n].copy(),
            int(table.rows[r, R_VIS]),
        )
    return out


@pytest.mark.parametrize("game, sampling", [(CLASSIC2, "probe"), (PARLETT, "outcome"), (PARLETT, "external")])
def test_merged_tables_equal_the_start_plus_every_workers_change(game, sampling):
    g = pyspiel.load_game(game)
    solver = MCCFRSolver(g, sampling, seed=5, abstraction="coarse" if "zwicker" in game else "none")
    solver.run(20)
    start = solver.table.copy()
    workers = []
    for seed in (6, 7, 8):  # three tables trained on from the same start with other streams
        w = MCCFRSolver(g, sampling, seed=seed, abstraction=solver.abstraction)
        w.table = start.copy()
        w.run(15)
        workers.append(w.table)
    # the slow version: per key, start + the sum over workers of (worker - start), new sets from zero
    base = _by_key(start)
    want: dict[int, list] = {k: [v[0].copy(), v[1].copy(), v[2]] for k, v in base.items()}
    for t in workers:  # the first worker's table becomes the result, the others' changes added to it
        for k, (reg, avg, vis) in _by_key(t).items():
            b = base.get(k, (0.0, 0.0, 0))
            if k not in want:
                want[k] = [np.zeros_like(reg), np.zeros_like(avg), 0]
            want[k][0] = want[k][0] + reg - b[0]
            want[k][1] = want[k][1] + avg - b[1]
            want[k][2] += vis - b[2]
    snap = Snapshot.of(start)
    merged = workers[0]
    for t in workers[1:]:
        add_changes(merged, t, snap)
    got = _by_key(merged)
    assert set(got) == set(want) and len(got) > len(base)
    for k, (reg, avg, vis) in got.items():
        assert np.allclose(reg, want[k][0]) and np.allclose(avg, want[k][1]) and vis == want[k][2]


def test_parallel_runs_are_seeded_use_every_worker_and_differ_from_one_worker():
    g = pyspiel.load_game(CLASSIC2)
    runs = []
    for _ in range(2):
        s = MCCFRSolver(g, "probe", seed=3, abstraction="coarse", workers=2, sync=5)
        s.run(20)
        runs.append(s)
    a, b = runs[0].table.arrays(), runs[1].table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    one = MCCFRSolver(g, "probe", seed=3, abstraction="coarse")
    one.run(20)
    assert not np.array_equal(one.table.arrays()["regret"], a["regret"][: one.table.num_edges])
    # both streams moved on, from different starts
    assert not np.array_equal(runs[0].rngs, worker_streams(3, 2)) and runs[0].rngs[0, 0] != runs[0].rngs[1, 0]
    assert runs[0].iteration == 20


def test_a_table_that_fills_mid_round_gives_the_same_result():
    g = pyspiel.load_game(PARLETT)
    small = MCCFRSolver(g, "outcome", seed=9, workers=2, sync=200)
    small.table = Table.empty(16)  # grows many times inside the round
    big = MCCFRSolver(g, "outcome", seed=9, workers=2, sync=200)
    big.table = Table.empty(1 << 16)
    small.run(400)
    big.run(400)
    a, b = small.table.arrays(), big.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_parallel_training_resumes_to_the_uninterrupted_run(tmp_path):
    kw = dict(seed=2, algorithm="probe", abstraction="coarse", eval_deals=2, workers=2, sync=3)
    straight = train(CLASSIC2, "mccfr", 12, TrainOptions(eval_every=6, out=tmp_path / "a", **kw))
    train(CLASSIC2, "mccfr", 6, TrainOptions(eval_every=6, out=tmp_path / "b", **kw))
    resumed = train(CLASSIC2, "mccfr", 12, TrainOptions(eval_every=6, out=tmp_path / "b", resume=True, **kw))
    a, b = straight.solver.table.arrays(), resumed.solver.table.arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert np.array_equal(straight.solver.rngs, resumed.solver.rngs)
    header = (tmp_path / "b" / "strength.csv").read_text().splitlines()[0]
    assert header.endswith("random_diff,random_ci95")
    with pytest.raises(ValueError, match="workers=2, sync=3; resume with the same options"):
        train(
            CLASSIC2, "mccfr", 18, TrainOptions(eval_every=6, out=tmp_path / "b", resume=True, **{**kw, "workers": 1})
        )


def test_checkpoints_keep_every_workers_stream(tmp_path):
    g = pyspiel.load_game(PARLETT)
    s = MCCFRSolver(g, "outcome", seed=4, workers=3, sync=2)
    s.run(6)
    save_checkpoint(s, tmp_path / "ck", 4)
    back, meta = load_checkpoint(tmp_path / "ck")
    assert (back.workers, back.sync, meta["workers"]) == (3, 2, 3)
    assert np.array_equal(back.rngs, s.rngs)
    back.run(6)
    s.run(6)
    assert np.array_equal(back.table.arrays()["regret"], s.table.arrays()["regret"])


def test_bad_worker_settings_are_refused_in_one_line(tmp_path, capsys):
    g = pyspiel.load_game(PARLETT)
    with pytest.raises(ValueError, match="rounds of 10"):
        MCCFRSolver(g, "outcome", workers=2, sync=5).run(15)
    with pytest.raises(ValueError, match="workers must be a whole number"):
        MCCFRSolver(g, "outcome", workers=0)
    with pytest.raises(ValueError, match="compiled engine traversal"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"), "outcome", workers=2)
    base = ["train", "mccfr", "--game", PARLETT, "--out", str(tmp_path / "x")]
    cases = [
        (["--iterations", "15", "--workers", "2", "--sync", "5"], "multiples of 10"),
        (["--iterations", "10", "--sync", "5"], "--sync: used with --workers 2 or more"),
        (["--iterations", "10", "--workers", "0"], "--workers and --sync must be at least 1"),
    ]
    for extra, message in cases:
        assert main([*base, *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x" / "checkpoint.json").exists()


@pytest.mark.slow
def test_ray_tasks_give_the_tables_of_local_threads_even_when_a_node_is_lost(tmp_path):
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    kw = dict(seed=3, algorithm="probe", abstraction="coarse", eval_deals=2, workers=2, sync=300, eval_every=600)
    local = train(CLASSIC2, "mccfr", 1200, TrainOptions(out=tmp_path / "local", **kw))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    node = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        lost: list[float] = []

        def lose_the_node() -> None:
            cluster.remove_node(node, allow_graceful=False)  # the head's CPU runs the rest
            lost.append(time.monotonic())

        def progress(done: int, total: int, metric: object, value: object) -> None:
            if done == 600 and not lost:  # the second round's tasks start now; the node goes during them
                threading.Timer(0.3, lose_the_node).start()

        out = tmp_path / "ray"
        options = TrainOptions(out=out, backend="ray", address=cluster.address, **kw)
        remote = train(CLASSIC2, "mccfr", 1200, options, progress)
        assert lost and remote.solver.iteration == 1200
        a, b = local.solver.table.arrays(), remote.solver.table.arrays()
        assert all(np.array_equal(a[k], b[k]) for k in a)
        assert np.array_equal(local.solver.rngs, remote.solver.rngs)
        # a run on Ray resumes on this machine's threads (the backend does not change the tables)
        more = train(CLASSIC2, "mccfr", 1800, TrainOptions(out=out, resume=True, **kw))
        again = train(CLASSIC2, "mccfr", 1800, TrainOptions(out=tmp_path / "local", resume=True, **kw))
        assert np.array_equal(more.solver.table.arrays()["avg"], again.solver.table.arrays()["avg"])
    finally:
        ray.shutdown()
        cluster.shutdown()
