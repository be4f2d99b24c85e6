"""Where tournament games run: in this process, in K local worker processes, or on Ray.

A backend maps a picklable top-level function over tasks and yields ``(task, result)`` pairs in
the order they **finish** (not the order given), so the caller can write each result as soon as it
exists. Results must not depend on where a task ran: every task carries its own seeds.

* ``local`` with ``workers=1`` runs in this process (no start-up cost, easiest to debug);
  ``workers=K > 1`` uses a ``multiprocessing`` pool started with ``spawn`` (safe with numba,
  OpenSpiel and threads; the same on every platform; :func:`zwick_ai.processes.worker_pool`: its
  workers ignore Ctrl-C and die with this process), fed small batches of tasks. A worker that
  dies (``kill -9``, out of memory) breaks the pool: a new pool then runs every batch that had
  not finished (a batch's results are yielded together, so none runs twice).
* ``ray`` connects to ``address`` (an existing cluster, e.g. ``auto`` or ``ray://host:10001``)
  or starts a local Ray instance with ``workers`` CPUs, and shuts that one down when done. Ray
  is optional: ``pip install 'zwick_ai[ray]'``. The modules of agents from outside the package
  travel with the job (``runtime_env={"py_modules": ...}`` of ``ray.init``), so the cluster needs
  only zwick_ai.

>>> with make_backend("local", workers=1) as backend:
...     sorted(backend.map_unordered(abs, [-2, 1, -3]))
[(-3, 3), (-2, 2), (1, 1)]
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from zwick_ai.processes import kill_pool, stop_signals_deferred, worker_pool

BACKENDS = ("local", "ray")

#: how often a local pool whose worker died is started again before the run gives up
MAX_POOL_RESTARTS = 10
#: how often Ray runs a task again whose worker process or node died
RAY_TASK_RETRIES = 5

RAY_INSTALL = "the ray backend needs Ray, which is not installed: pip install 'zwick_ai[ray]' (or pip install ray)"


def _run_batch(fn: Callable[[Any], Any], batch: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Run ``fn`` on each task of a batch (in a worker)."""
    return [(task, fn(task)) for task in batch]


def batches(tasks: Sequence[Any], workers: int, chunksize: int = 0) -> list[list[Any]]:
    """Split tasks into batches: ``chunksize`` each, or (0) small enough that every worker gets
    about 32 batches (at most 16 tasks each), so the load stays balanced and progress stays smooth
    while the per-batch overhead is amortised.

    >>> [len(b) for b in batches(list(range(10)), workers=2)]
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    >>> len(batches(list(range(1000)), workers=2)[0])
    15
    >>> [len(b) for b in batches(list(range(100)), workers=2, chunksize=40)]
    [40, 40, 20]
    """
    size = chunksize if chunksize > 0 else max(1, min(16, len(tasks) // (32 * max(1, workers))))
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


class Backend(abc.ABC):
    """Runs tasks somewhere; use as a context manager so workers are always released."""

    name: str = ""

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    @abc.abstractmethod
    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Sequence[Any], chunksize: int = 0
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(task, fn(task))`` for every task, in the order they finish."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the workers (idempotent)."""

    def terminate(self) -> None:
        """Stop at once (after an error or an interrupt)."""
        self.close()

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()

    def describe(self) -> str:
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def other_processes_here(self) -> bool:
        """Whether tasks run in other processes of this machine (which share its compile cache)."""
        return False


class LocalBackend(Backend):
    """This process (``workers=1``) or a pool of ``workers`` processes started with ``spawn``
    (``concurrent.futures``: a worker that dies breaks the pool instead of hanging it; the batches
    it had not finished run again on a new pool).
    Scripts that use it need the usual ``if __name__ == "__main__":`` guard."""

    name = "local"

    def __init__(self, workers: int = 1, initializer: Callable[[], Any] | None = None):
        super().__init__(workers)
        self.initializer = initializer  # run once in each worker process (e.g. a benchmark's os.setsid)
        self._pool: ProcessPoolExecutor | None = None

    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Sequence[Any], chunksize: int = 0
    ) -> Iterator[tuple[Any, Any]]:
        if self.workers == 1:
            for task in tasks:
                yield task, fn(task)
            return
        todo = batches(tasks, self.workers, chunksize)
        restarts = 0
        finished = False
        try:
            while todo:
                with stop_signals_deferred():  # the workers start here, at the first submits
                    if self._pool is None:
                        self._pool = worker_pool(self.workers, self.initializer)
                    futures = {self._pool.submit(_run_batch, fn, b): b for b in todo}
                lost: list[list[Any]] = []
                for future in as_completed(futures):
                    try:
                        results = future.result()
                    except BrokenProcessPool:  # a worker died (killed, out of memory): its pool is gone
                        lost.append(futures[future])
                        continue
                    yield from results
                if lost:
                    restarts += 1
                    if restarts > MAX_POOL_RESTARTS:
                        raise RuntimeError(
                            f"worker processes died {restarts} times; {sum(map(len, lost))} tasks were not run"
                        )
                    self.terminate()  # a new pool runs the batches that had not finished, once each
                todo = lost
            finished = True
        finally:
            if not finished:  # abandoned or failed: drop the queued batches
                self.terminate()

    def other_processes_here(self) -> bool:
        return self.workers > 1

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def terminate(self) -> None:
        """Stop the workers now: queued batches are dropped and running ones killed (otherwise a
        long game would keep its worker, and the exit waiting for it, busy)."""
        if self._pool is not None:
            kill_pool(self._pool)
            self._pool = None


def import_ray() -> Any:
    """The ``ray`` module, or a ``ValueError`` that says how to install it."""
    try:
        import ray
    except ImportError:
        raise ValueError(RAY_INSTALL) from None
    return ray


class RayBackend(Backend):
    """Ray tasks: on the cluster at ``address``, or on a local instance with ``workers`` CPUs that
    this backend starts (without dashboard, small object store) and shuts down."""

    name = "ray"

    def __init__(self, workers: int = 1, address: str | None = None, ship: Sequence[str] = ()):
        super().__init__(workers)
        ray = import_ray()
        self.address = address
        self.ship = list(ship)
        self._started = False
        # the modules of agents from outside the package go with the job (local paths are uploaded
        # at the job level only); a Ray session started elsewhere must reach them itself
        job: dict[str, Any] = {"runtime_env": {"py_modules": self.ship}} if self.ship else {}
        if not ray.is_initialized():
            if address:
                try:
                    ray.init(address=address, log_to_driver=False, **job)
                except (ConnectionError, RuntimeError) as error:
                    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                    raise ValueError(f"cannot connect to the Ray cluster at {address!r}: {first}") from None
            else:
                ray.init(
                    address="local",  # always a new instance, never one that `ray start` left running
                    num_cpus=workers,
                    include_dashboard=False,
                    object_store_memory=200 * 2**20,
                    log_to_driver=False,
                    **job,
                )
            self._started = True
        # a task whose worker or node dies is run again (its result is returned once either way)
        self._remote = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES)(_run_batch)

    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Sequence[Any], chunksize: int = 0
    ) -> Iterator[tuple[Any, Any]]:
        ray = import_ray()
        workers = max(self.workers, int(ray.cluster_resources().get("CPU", 1)))
        fn_ref = ray.put(fn)
        pending = [self._remote.remote(fn_ref, b) for b in batches(tasks, workers, chunksize)]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield from ray.get(ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._started:
            import_ray().shutdown()
            self._started = False

    def other_processes_here(self) -> bool:
        return not self.address

    def describe(self) -> str:
        where = self.address or f"local instance, {self.workers} CPU{'s' if self.workers != 1 else ''}"
        return f"ray ({where})"


def make_backend(name: str, workers: int = 1, address: str | None = None, ship: Sequence[str] = ()) -> Backend:
    """The backend called ``name`` (``local`` or ``ray``); ``address`` is for Ray only. ``ship``:
    module files or package folders the workers must import (agents from outside the package,
    :func:`zwick_ai.agents.outside.ship_paths`); local workers find them where this process does,
    a Ray job this backend starts carries them in its ``runtime_env`` (``py_modules``)."""
    if name == "local":
        if address:
            raise ValueError("--address is for the ray backend; the local backend runs on this machine")
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(workers, address, ship)
    raise ValueError(f"unknown backend {name!r}; valid: {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "Backend", "LocalBackend", "RayBackend", "batches", "import_ray", "make_backend"]
