"""Nothing lost, nothing overwritten: tournaments rerun with fewer deals, damaged files, and
faults (a worker of the local pool or of Ray killed with ``kill -9``, the main process killed and
started again, a node of a two-node Ray cluster stopped) all end with every game played exactly
once and the summary of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zwick_ai.backends import LocalBackend, make_backend
from zwick_ai.eval import tournament as T
from zwick_ai.eval.tournament.folder import REJECTED
from zwick_ai.eval.tournament.games import task_key

ROOT = Path(__file__).resolve().parents[2]
PARAMS = {"variant": "classic", "players": 2}
FAST = ["greedy", "random"]
SLOWER = ["ismcts:iters=60", "greedy"]  # games long enough to kill something in the middle of a run


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def without_timing(summary: dict) -> dict:
    """A summary without what depends on the machine's speed (thinking time)."""
    return {k: v for k, v in summary.items() if k not in ("timing", "command", "machine")}


def keys(path: Path) -> list[tuple]:
    return sorted(task_key(x) for x in lines(path))


def reference(tmp_path: Path, agents: list[str], deals: int) -> dict:
    t = T.Tournament(agents, params=PARAMS, deals=deals, seed=3)
    summary = T.run_tournament(t, tmp_path / "reference", progress=False, plots=False)
    assert summary is not None
    return summary


def when_games_written(path: Path, count: int, action: Callable[[], None], timeout: float = 600) -> threading.Thread:
    """Run ``action`` in a thread once ``path`` holds ``count`` finished games."""

    def watch() -> None:
        end = time.time() + timeout
        while time.time() < end:
            if path.exists() and len(path.read_text().splitlines()) >= count:
                action()
                return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


# ------------------------------------------------------------------------------------------------
# Reruns and damaged files
# ------------------------------------------------------------------------------------------------
def test_a_rerun_with_fewer_deals_keeps_every_finished_game(tmp_path):
    out = tmp_path / "t"
    big = T.Tournament(FAST, params=PARAMS, deals=4, seed=3)
    first = T.run_tournament(big, out, progress=False, plots=False)
    before = (out / "games.jsonl").read_bytes()
    warnings: list[str] = []
    small = T.Tournament(FAST, params=PARAMS, deals=2, seed=3)
    summary = T.run_tournament(small, out, progress=False, plots=False, warn=warnings.append)
    assert summary is not None and summary["deals"] == 2 and not warnings
    assert (out / "games.jsonl").read_bytes() == before  # all 8 games still there, untouched
    assert without_timing(summary) == without_timing(reference(tmp_path, FAST, 2))
    again = T.run_tournament(big, out, progress=False, plots=False, stop_after=0)  # nothing left to play
    assert again is not None and without_timing(again) == without_timing(first)
    assert (out / "games.jsonl").read_bytes() == before


def test_damaged_and_foreign_lines_are_moved_aside_never_deleted(tmp_path):
    out = tmp_path / "t"
    t = T.Tournament(FAST, params=PARAMS, deals=2, seed=3)
    full = T.run_tournament(t, out, progress=False, plots=False)
    path = out / "games.jsonl"
    good = path.read_text().splitlines()
    damaged = good[0][: len(good[0]) // 2]
    foreign = json.dumps({**json.loads(good[1]), "deal_seed": 12345})
    path.write_text("\n".join([damaged, foreign, *good[2:]]) + "\n")
    warnings: list[str] = []
    summary = T.run_tournament(t, out, progress=False, plots=False, warn=warnings.append)
    assert len(warnings) == 2 and all(REJECTED in w for w in warnings)
    assert (out / REJECTED).read_text().splitlines() == [damaged, foreign]
    assert without_timing(summary) == without_timing(full)
    assert keys(path) == sorted(task_key(x) for x in T.tasks(t))  # every game exactly once


# ------------------------------------------------------------------------------------------------
# kill -9
# ------------------------------------------------------------------------------------------------
def _processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found.append((int(entry.name), ppid, cmd))
    return found


def _descendants(root: int) -> list[tuple[int, str]]:
    procs = _processes()
    out: list[tuple[int, str]] = []
    parents = {root}
    while True:
        more = [(pid, cmd) for pid, ppid, cmd in procs if ppid in parents and pid not in {p for p, _ in out}]
        if not more:
            return out
        out += more
        parents |= {pid for pid, _ in more}


def _pool_workers() -> list[int]:
    return [pid for pid, cmd in _descendants(os.getpid()) if "spawn_main" in cmd and "resource_tracker" not in cmd]


def _kill_one(find: Callable[[], list[int]], killed: list[int]) -> Callable[[], None]:
    def kill() -> None:
        for _ in range(400):
            pids = find()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            time.sleep(0.05)

    return kill


@pytest.mark.slow
def test_a_local_pool_worker_killed_mid_run_changes_nothing(tmp_path):
    deals = 8
    want = reference(tmp_path, SLOWER, deals)
    out = tmp_path / "pool"
    t = T.Tournament(SLOWER, params=PARAMS, deals=deals, seed=3)
    killed: list[int] = []
    watcher = when_games_written(out / "games.jsonl", 1, _kill_one(_pool_workers, killed))
    with LocalBackend(2) as backend:
        summary = T.run_tournament(t, out, backend, progress=False, plots=False)
    watcher.join(5)
    assert killed, "no worker was killed: the run ended first"
    assert keys(out / "games.jsonl") == sorted(task_key(x) for x in T.tasks(t))
    assert without_timing(summary) == without_timing(want)


def _kill_session(sid: int) -> None:
    for pid, _, _ in _processes():
        try:
            if os.getsid(pid) == sid:
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue


def _ray_workers() -> list[int]:
    return [pid for pid, _, cmd in _processes() if cmd.startswith("ray::_run_batch")]


@pytest.mark.slow
def test_a_ray_worker_killed_mid_run_changes_nothing(tmp_path):
    pytest.importorskip("ray")
    deals = 8
    want = reference(tmp_path, SLOWER, deals)
    out = tmp_path / "ray"
    t = T.Tournament(SLOWER, params=PARAMS, deals=deals, seed=3)
    killed: list[int] = []
    watcher = when_games_written(out / "games.jsonl", 1, _kill_one(_ray_workers, killed))
    with make_backend("ray", 2) as backend:
        summary = T.run_tournament(t, out, backend, progress=False, plots=False)
    watcher.join(5)
    assert killed, "no Ray worker was killed: the run ended first"
    assert keys(out / "games.jsonl") == sorted(task_key(x) for x in T.tasks(t))
    assert without_timing(summary) == without_timing(want)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "ray"])
def test_the_main_process_killed_and_started_again_finishes_the_same(tmp_path, backend):
    if backend == "ray":
        pytest.importorskip("ray")
    deals = 8
    want = reference(tmp_path, SLOWER, deals)
    out = tmp_path / "main"
    argv = [sys.executable, "-m", "zwick_ai.cli", "tournament", "--variant", "classic", "--players", "2"]
    argv += ["--agents", ";".join(SLOWER), "--deals", str(deals), "--seed", "3", "--workers", "2"]
    argv += ["--backend", backend, "--quiet", "--out", str(out)]
    proc = subprocess.Popen(argv, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = out / "games.jsonl"
    end = time.time() + 600
    while time.time() < end and proc.poll() is None and not (path.exists() and len(path.read_text().splitlines()) >= 2):
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
    os.killpg(proc.pid, signal.SIGKILL)  # the main process and its workers, at once
    proc.wait()
    _kill_session(proc.pid)  # what left the group (Ray's own processes) must not outlive the test
    partial = len(path.read_text().splitlines())
    assert 2 <= partial < 2 * 2 * deals
    again = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    t = T.Tournament(SLOWER, params=PARAMS, deals=deals, seed=3)
    assert keys(path) == sorted(task_key(x) for x in T.tasks(t))  # every game exactly once
    assert without_timing(summary) == without_timing(json.loads(json.dumps(want)))


@pytest.mark.slow
def test_ray_cluster_of_two_nodes_with_one_stopped_mid_run(tmp_path):
    pytest.importorskip("ray")
    import ray
    from ray.cluster_utils import Cluster

    deals = 8
    want = reference(tmp_path, SLOWER, deals)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker_node = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        out = tmp_path / "cluster"
        t = T.Tournament(SLOWER, params=PARAMS, deals=deals, seed=3)
        stopped: list[bool] = []

        def stop() -> None:
            cluster.remove_node(worker_node, allow_graceful=False)
            stopped.append(True)

        watcher = when_games_written(out / "games.jsonl", 1, stop)
        with make_backend("ray", 2, address=cluster.address) as backend:
            summary = T.run_tournament(t, out, backend, progress=False, plots=False)
        watcher.join(30)
        assert stopped, "the node was not stopped: the run ended first"
        assert keys(out / "games.jsonl") == sorted(task_key(x) for x in T.tasks(t))
        assert without_timing(summary) == without_timing(want)
    finally:
        ray.shutdown()
        cluster.shutdown()
