"""Many interrupts of one tournament with worker processes (20 with local workers, 5 with Ray):
each run is stopped by Ctrl-C (SIGINT to its process group) or ``kill PID`` (SIGTERM to the main
process) after it has written at least one new game, must exit within 10 s with one line and no
traceback, leave no process behind, and never write a game twice; the same command then finishes
the tournament with every (deal, seating) exactly once. Slow: about 15 minutes on two cores.

Each test prints its counts (``pytest -s`` shows them)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zwick_ai.cli import main
from zwick_ai.eval.tournament import task_key

pytestmark = pytest.mark.slow

AGENTS = "ismcts:iters=200;greedy"


def _group_alive(group: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def _ray_processes() -> set[int]:
    """Live processes of Ray (its raylet, GCS server and workers)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            state = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and ("ray::" in cmd or "raylet" in cmd or "gcs_server" in cmd or "ray/_private" in cmd):
            found.add(int(entry))
    return found


def _with_default_sigint() -> None:
    """A child started from a background shell inherits an ignored SIGINT; Ctrl-C must reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _interrupt_many(tmp_path: Path, backend: str, runs: int, deals: int) -> dict[str, int]:
    out = tmp_path / backend
    games = out / "games.jsonl"
    argv = ["tournament", "--agents", AGENTS, "--deals", str(deals), "--workers", "2", "--backend", backend,
            "--quiet", "--out", str(out)]  # fmt: skip
    counts = {"interrupts": 0, "sigint": 0, "sigterm": 0, "finished_first": 0, "slowest_exit_ms": 0}
    ray_before = _ray_processes()
    for k in range(runs):
        before = len(_lines(games))
        signum = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
        run = subprocess.Popen([sys.executable, "-m", "zwick_ai.cli", *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=_with_default_sigint)  # fmt: skip
        deadline = time.monotonic() + 900
        while len(_lines(games)) <= before and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if run.poll() is not None:  # it finished before a new game was written: not an interrupt
            run.communicate()
            assert run.returncode == 0
            counts["finished_first"] += 1
            break
        if signum == signal.SIGINT:
            os.killpg(run.pid, signum)  # Ctrl-C: the whole foreground group
        else:
            os.kill(run.pid, signum)  # kill PID: the main process only
        started = time.monotonic()
        _, err = run.communicate(timeout=60)
        spent = time.monotonic() - started
        assert spent < 10, f"run {k}: exit took {spent:.1f} s"
        counts["slowest_exit_ms"] = max(counts["slowest_exit_ms"], int(spent * 1000))
        if run.returncode == 0:  # the last game finished as the signal came
            counts["finished_first"] += 1
            break
        assert run.returncode == 130, (k, run.returncode, err)
        assert "Traceback" not in err and "the same command resumes" in err, err
        time.sleep(1)
        assert not _group_alive(run.pid), f"run {k}: processes outlived it: {_group_alive(run.pid)}"
        if backend == "ray":
            deadline = time.monotonic() + 20  # Ray's own processes are stopped by ray.shutdown()
            while _ray_processes() - ray_before and time.monotonic() < deadline:
                time.sleep(0.5)
            assert not _ray_processes() - ray_before, f"run {k}: Ray processes outlived it"
        keys = [task_key(json.loads(line)) for line in _lines(games)]
        assert len(keys) == len(set(keys)), f"run {k}: a game written twice"
        counts["interrupts"] += 1
        counts["sigint" if signum == signal.SIGINT else "sigterm"] += 1
    assert main(argv) == 0  # the same command finishes the tournament
    keys = [task_key(json.loads(line)) for line in _lines(games)]
    counts["games"] = len(keys)
    assert len(keys) == len(set(keys)) == 2 * deals  # every (deal, seating) exactly once
    print(f"\n{backend}: {counts}")
    return counts


def test_twenty_interrupts_with_two_local_workers(tmp_path):
    counts = _interrupt_many(tmp_path, "local", runs=20, deals=40)
    assert counts["interrupts"] == 20


def test_five_interrupts_with_ray(tmp_path):
    pytest.importorskip("ray")
    counts = _interrupt_many(tmp_path, "ray", runs=5, deals=20)
    assert counts["interrupts"] == 5
