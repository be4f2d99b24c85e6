"""A tournament's games are made as workers take them: a million deals cost no memory before the
first game, and a backend takes tasks from an iterable only as its workers need them."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Sequence

from zwick_ai.backends import WINDOW, Backend, LocalBackend
from zwick_ai.eval import tournament as T
from zwick_ai.eval.tournament.games import ExpectedTasks, task_key


class _FirstGame(Backend):
    """A backend that notes what it was given and the memory traced when the first game reaches it."""

    name = "probe"

    def __init__(self) -> None:
        super().__init__(1)
        self.given: object = None
        self.first: dict | None = None
        self.traced = 0

    def map_unordered(self, fn, tasks, chunksize=0, deaths=None):
        self.given = tasks
        self.first = next(iter(tasks))
        self.traced = tracemalloc.get_traced_memory()[1]
        raise KeyboardInterrupt  # as if stopped there: nothing is played

    def close(self) -> None:
        pass


def test_a_million_deals_hold_no_task_before_the_first_game(tmp_path):
    t = T.Tournament(["greedy", "random"], game="zwicker", params={"variant": "dithmarschen"}, deals=1_000_000)
    assert t.games == 2_000_000
    backend = _FirstGame()
    tracemalloc.start()
    try:
        T.run_tournament(t, tmp_path / "out", backend, progress=False)
    except KeyboardInterrupt:
        pass
    finally:
        tracemalloc.stop()
    # the tasks come one at a time (a list of two million would be about 2.4 GB and minutes to make)
    assert not isinstance(backend.given, Sequence)
    assert backend.first is not None and backend.first["deal"] == 0
    assert backend.traced < 50e6, backend.traced


def test_the_lazy_tasks_are_the_listed_ones_and_their_lookup_agrees():
    t = T.Tournament(["greedy", "random", "pimc:worlds=2,iters=4"], game="zwikken",
                     params={"variant": "parlett", "players": 3}, deals=3, seating="rotate")  # fmt: skip
    listed = T.tasks(t)
    assert list(T.iter_tasks(t)) == listed and len(listed) == t.games
    expected = ExpectedTasks(t, extra=[5])
    assert [expected[task_key(x)] for x in listed] == listed
    assert len(expected) == t.games + len(t.pairs) * 2 and (t.agents[0], t.agents[1], 5, 2) in expected
    assert expected.get((t.agents[0], t.agents[1], 3, 0)) is None  # a deal beyond the run's and not stored
    assert expected.get((t.agents[1], t.agents[0], 0, 0)) is None  # the pair the other way round
    assert expected.get((t.agents[0], t.agents[1], 0, 1)) is None  # rotate: deal 0 has seatings 0 and 3


def test_a_pool_takes_tasks_only_as_its_workers_need_them():
    pulled = itertools.count()

    def tasks():
        for x in range(10_000):
            next(pulled)
            yield -x

    with LocalBackend(2) as backend:
        results = backend.map_unordered(abs, tasks(), chunksize=3)
        first = next(results)
        taken = next(pulled)  # how many the pool had taken when the first result came
        rest = list(results)
    assert taken <= WINDOW * 2 * 3 + 3, taken
    assert sorted(r for _, r in [first, *rest]) == list(range(10_000))  # every task once
