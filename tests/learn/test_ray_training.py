"""``zwick train net`` and ``zwick train value`` on a local Ray instance: the same records, shards
and models as the local run for the same seed (the chunks of hands are Ray tasks; the driver
writes every file)."""

from __future__ import annotations

import numpy as np
import pytest

from zwick_ai.backends import BackendRequest
from zwick_ai.learn import net_selfplay
from zwick_ai.learn.value_train import ValueConfig, train_value

pytestmark = pytest.mark.slow

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from zwick_ai.learn import net_train as NT  # noqa: E402

# three chunks of hands a generation (CHUNK_HANDS 500), a tiny model
NET = dict(variant="classic", players=2, hands=1100, hidden=(8, 4), epochs=1, eval_deals=0, seed=5)


def test_train_net_on_ray_writes_the_shards_and_models_of_the_local_run(tmp_path):
    cfg = NT.NetConfig(**NET)  # type: ignore[arg-type]
    assert NT.train_net(cfg, tmp_path / "local", hours=1, max_generations=2) == 2
    try:
        assert NT.train_net(cfg, tmp_path / "ray", hours=1, max_generations=2, pool=BackendRequest("ray", 2)) == 2
    finally:
        ray.shutdown()
    for g in (0, 1):
        a = net_selfplay.load_shard(NT.NetRun(cfg, tmp_path / "local").shard(g))
        b = net_selfplay.load_shard(NT.NetRun(cfg, tmp_path / "ray").shard(g))
        assert len(a[0]) > 1000 and all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b, strict=True))
    wa = np.load(tmp_path / "local" / "gen-001.npz")
    wb = np.load(tmp_path / "ray" / "gen-001.npz")
    assert sorted(wa.files) == sorted(wb.files) and all(np.array_equal(wa[k], wb[k]) for k in wa.files)


def test_train_value_on_ray_makes_the_positions_and_models_of_the_local_run(tmp_path):
    cfg = ValueConfig("classic", 2, hands=600, epochs=1, hidden=(6, 3), batch=256)  # three chunks of 250 hands
    local = train_value(cfg, tmp_path / "local")
    try:
        remote = train_value(cfg, tmp_path / "ray", workers=2, backend="ray")
    finally:
        ray.shutdown()
    chunks = sorted(p.name for p in (tmp_path / "ray" / "positions").glob("chunk-*.npz"))
    assert chunks == ["chunk-0000.npz", "chunk-0001.npz", "chunk-0002.npz"]
    for name in chunks:
        a, b = np.load(tmp_path / "local" / "positions" / name), np.load(tmp_path / "ray" / "positions" / name)
        assert all(np.array_equal(a[k], b[k]) for k in a.files)
    for kind in local:
        for (w1, b1), (w2, b2) in zip(local[kind].layers, remote[kind].layers, strict=True):
            assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_train_net_on_ray_loses_a_node_mid_generation_and_replays_only_its_chunks(tmp_path):
    """A search teacher's generation on a two-node Ray cluster whose worker node is killed while
    the hands are played (and the next generation's hands run while the last is fitted): the
    lost chunks run again and the shards and models equal the local run's."""
    import threading
    import time

    from ray.cluster_utils import Cluster

    cfg = NT.NetConfig(
        variant="classic", players=2, hands=60, hidden=(8, 4), epochs=1, eval_deals=0, seed=2,
        teacher="ismcts", teacher_iters=30, teacher_visits=2,
    )  # fmt: skip
    assert NT.train_net(cfg, tmp_path / "local", hours=1, max_generations=2) == 2
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    node = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    lost: list[float] = []

    def lose_the_node() -> None:
        cluster.remove_node(
            node, allow_graceful=False
        )  # the head's CPU runs the rest (a node cannot be added off the main thread)
        lost.append(time.monotonic())

    def progress(generation: int, stage: str) -> None:
        if generation == 0 and stage.startswith("self-play 10/") and not lost:  # chunks are in flight
            threading.Timer(0.2, lose_the_node).start()

    try:
        done = NT.train_net(
            cfg, tmp_path / "ray", hours=1, max_generations=2,
            pool=BackendRequest("ray", 2, cluster.address), progress=progress,
        )  # fmt: skip
        assert done == 2 and lost
    finally:
        ray.shutdown()
        cluster.shutdown()
    for g in (0, 1):
        a = net_selfplay.load_shard(NT.NetRun(cfg, tmp_path / "local").shard(g))
        b = net_selfplay.load_shard(NT.NetRun(cfg, tmp_path / "ray").shard(g))
        assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b, strict=True))
    wa, wb = np.load(tmp_path / "local" / "gen-001.npz"), np.load(tmp_path / "ray" / "gen-001.npz")
    assert all(np.array_equal(wa[k], wb[k]) for k in wa.files)
