"""The clock of the searches' time budgets: wall time, or the searching thread's CPU time, chosen
per tournament and carried to every game."""

import time

import pytest

from zwick_ai.agents import clock
from zwick_ai.eval import tournament as T


@pytest.fixture(autouse=True)
def wall_again():
    yield
    clock.use("wall")


def test_the_cpu_clock_does_not_run_while_the_thread_waits():
    clock.use("cpu")
    t0 = clock.now()
    time.sleep(0.2)
    assert clock.now() - t0 < 0.05
    clock.use("wall")
    t0 = clock.now()
    time.sleep(0.2)
    assert clock.now() - t0 >= 0.19


def test_the_cpu_clock_counts_work():
    clock.use("cpu")
    t0 = clock.now()
    x = 0
    while clock.now() - t0 < 0.05:
        x += 1
    assert x > 0 and clock.now() - t0 >= 0.05


def test_an_unknown_clock_is_refused():
    with pytest.raises(ValueError, match="clock must be one of wall, cpu"):
        clock.use("sundial")


def test_a_tournament_carries_its_clock_to_every_game(tmp_path):
    kw = dict(game="zwicker", params={"variant": "classic", "players": 2}, deals=1, seed=2)
    wall = T.Tournament(["ismcts:iters=0,time=0.002", "greedy"], **kw)
    cpu = T.Tournament(["ismcts:iters=0,time=0.002", "greedy"], clock="cpu", **kw)
    assert "clock" not in wall.identity() and cpu.identity()["clock"] == "cpu"
    tasks = T.tasks(cpu)
    assert {t["clock"] for t in tasks} == {"cpu"}
    T.play_task(tasks[0])
    assert clock.current() == "cpu"
    summary = T.run_tournament(cpu, tmp_path / "cpu", progress=False, plots=False)
    assert summary["clock"] == "cpu" and summary["games"] == 2
    with pytest.raises(ValueError, match="clock must be one of wall, cpu"):
        T.Tournament(["greedy", "random"], clock="sundial", **kw)
