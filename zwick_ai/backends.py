"""Where a run's tasks run (tournament games, self-play generations, training chunks, study parts):
in this process, in K local worker processes, or on Ray.

A backend maps a picklable top-level function over tasks and yields ``(task, result)`` pairs in
the order they **finish** (not the order given), so the caller can write each result as soon as it
exists. Results must not depend on where a task ran: every task carries its own seeds.

* ``local`` with ``workers=1`` runs in this process (no start-up cost, easiest to debug);
  ``workers=K > 1`` uses a ``multiprocessing`` pool started with ``spawn`` (safe with numba,
  OpenSpiel and threads; the same on every platform; :func:`zwick_ai.processes.worker_pool`: its
  workers ignore Ctrl-C and die with this process), fed small batches of tasks. A worker that
  dies (``kill -9``, out of memory) breaks the pool: a new pool then runs every batch that had
  not finished (a batch's results are yielded together, so none runs twice). With
  ``isolate=True`` even one worker is a process of its own (code of someone else's never runs
  in this one). Given :class:`Deaths`, the task a dead worker was running is known (each worker
  notes it, :func:`zwick_ai.processes.note`) and ``Deaths.died`` says whether it runs again or
  what stands for its result.
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
import itertools
import logging
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from zwick_ai.processes import kill_pool, note, read_note, stop_signals_deferred, worker_pool

BACKENDS = ("local", "ray")

#: how often a local pool whose worker died is started again before the run gives up
MAX_POOL_RESTARTS = 10
#: how often Ray runs a task again whose worker process or node died
RAY_TASK_RETRIES = 5

RAY_INSTALL = "the ray backend needs Ray, which is not installed: pip install 'zwick_ai[ray]' (or pip install ray)"


class Deaths(abc.ABC):
    """What a map does about the task whose worker process died under it (an agent that ended
    its own process, a crash in compiled code, ``kill -9``, a worker ended for overrunning)."""

    @abc.abstractmethod
    def alone(self, task: Any) -> bool:
        """Whether ``task`` runs in a batch of its own (on Ray: never run again after a death)."""

    @abc.abstractmethod
    def died(self, task: Any, how: str, note: dict[str, Any] | None, deaths: int) -> Any | None:
        """What stands for the result of ``task``, whose worker died (``how``: its exit status;
        ``note``: what the worker last noted, None if unknown) for the ``deaths``-th time; None
        runs it again."""


def _run_batch(fn: Callable[[Any], Any], batch: Sequence[Any], number: int = -1) -> list[tuple[Any, Any]]:
    """Run ``fn`` on each task of a batch (in a worker), noting which one runs (batch ``number``)."""
    out = []
    for i, task in enumerate(batch):
        note(batch=number, task=i)
        out.append((task, fn(task)))
    return out


def exit_status(code: int | None) -> str:
    """A worker's exit status in words.

    >>> exit_status(7), exit_status(-11), exit_status(None)
    ('exit code 7', 'signal SIGSEGV', 'no exit status')
    """
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def batch_size(count: int, workers: int) -> int:
    """The tasks of a batch when ``count`` tasks are split for ``workers``: about 32 batches a
    worker, at most 16 tasks each (:func:`batches`)."""
    return max(1, min(16, count // (32 * max(1, workers))))


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
    size = chunksize if chunksize > 0 else batch_size(len(tasks), workers)
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


#: batches a map keeps submitted per worker: tasks are taken from the caller's iterable only as
#: workers need them, so a lazily generated list of a million games costs no memory up front
WINDOW = 4


def _split(tasks: Iterable[Any], workers: int, chunksize: int, deaths: Deaths | None) -> Iterator[list[Any]]:
    """The batches of :func:`batches`, generated as they are taken (a sequence without
    ``chunksize`` is sized as :func:`batches` does; any other iterable in batches of ``chunksize``,
    or of one), with the tasks ``deaths`` wants alone each in a batch of its own."""
    if chunksize <= 0:
        chunksize = batch_size(len(tasks), workers) if isinstance(tasks, Sequence) else 1
    batch: list[Any] = []
    for task in tasks:
        if deaths is not None and deaths.alone(task):
            yield [task]
            continue
        batch.append(task)
        if len(batch) == chunksize:
            yield batch
            batch = []
    if batch:
        yield batch


class Backend(abc.ABC):
    """Runs tasks somewhere; use as a context manager so workers are always released."""

    name: str = ""

    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    @abc.abstractmethod
    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Iterable[Any], chunksize: int = 0, deaths: Deaths | None = None
    ) -> Iterator[tuple[Any, Any]]:
        """Yield ``(task, fn(task))`` for every task, in the order they finish; a task whose
        worker died runs again, or with ``deaths``, yields what :meth:`Deaths.died` gives."""

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

    def __init__(self, workers: int = 1, initializer: Callable[[], Any] | None = None, isolate: bool = False):
        super().__init__(workers)
        self.initializer = initializer  # run once in each worker process (e.g. a benchmark's os.setsid)
        self.isolate = isolate  # one worker is a process of its own too
        self._pool: ProcessPoolExecutor | None = None
        self._notes: str | None = None

    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Iterable[Any], chunksize: int = 0, deaths: Deaths | None = None
    ) -> Iterator[tuple[Any, Any]]:
        if self.workers == 1 and not self.isolate:
            for task in tasks:
                yield task, fn(task)
            return
        fresh = _split(tasks, self.workers, chunksize, deaths)
        todo: dict[int, list[Any]] = {}  # the batches submitted and not finished, by number
        again: list[list[Any]] = []  # batches to run again on a new pool
        numbers = itertools.count()
        restarts = 0
        died: dict[int, int] = {}  # deaths per task (by id)
        finished = False
        try:
            while True:
                futures: dict[Any, int] = {}
                lost: list[list[Any]] = []
                with stop_signals_deferred():  # the workers start here, at the first submits
                    if self._pool is None:
                        if deaths is not None and self._notes is None:
                            self._notes = tempfile.mkdtemp(prefix="zwick-workers-")
                        self._pool = worker_pool(self.workers, self.initializer, self._notes)
                    broken = not self._submit(fn, again, fresh, todo, futures, numbers)
                while futures:
                    future = next(as_completed(futures))
                    n = futures.pop(future)
                    try:
                        results = future.result()
                    except BrokenProcessPool:  # a worker died (killed, out of memory): its pool is gone
                        lost.append(todo[n])
                        continue
                    del todo[n]
                    yield from results
                    if not lost and not broken:
                        with stop_signals_deferred():
                            broken = not self._submit(fn, again, fresh, todo, futures, numbers)
                if lost or broken:
                    restarts += 1
                    if restarts > MAX_POOL_RESTARTS:
                        raise RuntimeError(
                            f"worker processes died {restarts} times; {sum(map(len, lost))} tasks were not run"
                        )
                    if deaths is not None:
                        for task, result in self._casualties(todo, deaths, died):
                            lost = [[x for x in b if x is not task] for b in lost]
                            yield task, result
                    self.terminate()  # a new pool runs the batches that had not finished, once each
                    todo.clear()
                    again = [b for b in lost if b] + again
                    continue
                if not again and not todo:
                    break
            finished = True
        finally:
            if not finished:  # abandoned or failed: drop the queued batches
                self.terminate()

    def _submit(
        self,
        fn: Callable[[Any], Any],
        again: list[list[Any]],
        fresh: Iterator[list[Any]],
        todo: dict[int, list[Any]],
        futures: dict[Any, int],
        numbers: Iterator[int],
    ) -> bool:
        """Submit batches (those to run again first, then new ones) until :data:`WINDOW` a worker
        are in flight; False when the pool turned out broken (the batch goes back to ``again``)."""
        assert self._pool is not None
        while len(futures) < WINDOW * self.workers:
            batch = again.pop(0) if again else next(fresh, None)
            if batch is None:
                return True
            try:
                future = self._pool.submit(_run_batch, fn, batch, n := next(numbers))
            except BrokenProcessPool:  # a worker died since the last result: its futures say which
                again.insert(0, batch)
                return False
            todo[n] = batch
            futures[future] = n
        return True

    def _casualties(self, todo: dict[int, list[Any]], deaths: Deaths, died: dict[int, int]) -> list[tuple[Any, Any]]:
        """The tasks whose workers died (their own deaths, not the pool's ending of the others)
        that ``deaths`` gives a result for."""
        processes = dict(getattr(self._pool, "_processes", None) or {})
        for process in processes.values():
            process.join(timeout=2)  # the pool ends the other workers (SIGTERM) as it breaks
        dead = [(pid, p.exitcode) for pid, p in processes.items() if p.exitcode not in (None, -signal.SIGTERM)]
        if not dead:  # a worker that ended itself with SIGTERM looks like the others
            dead = [(pid, p.exitcode) for pid, p in processes.items() if p.exitcode is not None]
        out = []
        for pid, code in dead:
            last = read_note(self._notes, pid) if self._notes else None
            if last is None or last.get("batch", -1) not in todo:
                continue
            batch = todo[last["batch"]]
            if not 0 <= last.get("task", -1) < len(batch):
                continue
            task = batch[last["task"]]
            died[id(task)] = died.get(id(task), 0) + 1
            result = deaths.died(task, exit_status(code), last, died[id(task)])
            if result is not None:
                out.append((task, result))
        return out

    def other_processes_here(self) -> bool:
        return self.workers > 1 or self.isolate

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._drop_notes()

    def terminate(self) -> None:
        """Stop the workers now: queued batches are dropped and running ones killed (otherwise a
        long game would keep its worker, and the exit waiting for it, busy)."""
        if self._pool is not None:
            kill_pool(self._pool)
            self._pool = None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        super().__exit__(exc_type, exc, tb)
        self._drop_notes()

    def _drop_notes(self) -> None:
        if self._notes is not None:
            shutil.rmtree(self._notes, ignore_errors=True)
            self._notes = None


def _ray_report_logged(data: dict[str, Any], ignore_prefix: bool = False) -> None:
    """What Ray's driver would print of its raylets' reports, sent to the ``ray`` logger at INFO."""
    for line in data.get("lines") or ():
        logging.getLogger("ray").info("(%s) %s", data.get("pid", "ray"), line)


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
        self._printer: Callable[..., None] | None = None  # Ray's own, while _quiet_reports replaces it
        # the modules of agents from outside the package go with the job (local paths are uploaded
        # at the job level only); a Ray session started elsewhere must reach them itself
        job: dict[str, Any] = {"runtime_env": {"py_modules": self.ship}} if self.ship else {}
        # Ray's own notices (token authentication, "Started a local Ray instance", the module
        # uploads) would surround the run's one line; its errors still show, its workers' output not
        job |= {"logging_level": logging.ERROR, "log_to_driver": False}
        if not ray.is_initialized():
            if address:
                try:
                    ray.init(address=address, **job)
                except (ConnectionError, RuntimeError) as error:
                    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                    raise ValueError(f"cannot connect to the Ray cluster at {address!r}: {first}") from None
            else:
                ray.init(
                    address="local",  # always a new instance, never one that `ray start` left running
                    num_cpus=workers,
                    include_dashboard=False,
                    object_store_memory=200 * 2**20,
                    **job,
                )
            self._started = True
            self._quiet_reports(ray)  # before any task runs
        # a task whose worker or node dies is run again (its result is returned once either way)
        self._remote = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES)(_run_batch)

    def _quiet_reports(self, ray: Any) -> None:
        """Ray's driver prints what its raylets report on stdout whatever ``log_to_driver`` says
        (``(raylet) A worker died or was killed ...`` after an agent ended its worker, which the run
        names itself): until :meth:`close` they go to the ``ray`` logger instead. A Ray without
        this internal printer prints them as before."""
        module = getattr(getattr(ray, "_private", None), "worker", None)
        if module is not None and hasattr(module, "print_to_stdstream"):
            self._printer = module.print_to_stdstream
            module.print_to_stdstream = _ray_report_logged

    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Iterable[Any], chunksize: int = 0, deaths: Deaths | None = None
    ) -> Iterator[tuple[Any, Any]]:
        ray = import_ray()
        workers = max(self.workers, int(ray.cluster_resources().get("CPU", 1)))
        fn_ref = ray.put(fn)
        pending: dict[Any, list[Any]] = {}
        fresh = _split(tasks, workers, chunksize, deaths)

        def submit() -> None:  # batches are taken as the cluster needs them (WINDOW a CPU in flight)
            while len(pending) < WINDOW * workers and (b := next(fresh, None)) is not None:
                # a task of its own (an outside agent's game) is not run again after its worker died
                once = deaths is not None and len(b) == 1 and deaths.alone(b[0])
                remote = self._remote.options(max_retries=0) if once else self._remote
                pending[remote.remote(fn_ref, b)] = b

        try:
            submit()
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    batch = pending.pop(ref)
                    try:
                        results = ray.get(ref)
                    except ray.exceptions.RayError as error:  # its worker or node died
                        if deaths is None or len(batch) != 1 or isinstance(error, ray.exceptions.RayTaskError):
                            raise
                        result = deaths.died(batch[0], f"{type(error).__name__} on Ray", None, 1)
                        if result is None:
                            raise
                        results = [(batch[0], result)]
                    yield from results
                submit()
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._started:
            ray = import_ray()
            ray.shutdown()
            self._started = False
            if self._printer is not None:
                ray._private.worker.print_to_stdstream = self._printer
                self._printer = None

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


@dataclass(frozen=True)
class BackendRequest:
    """Where a run's pool is asked to work: :func:`make_backend`'s ``name`` (``local`` or ``ray``),
    ``workers`` and Ray's ``address``, kept together from the command line to the pool."""

    name: str = "local"
    workers: int = 1
    address: str | None = None

    def make(self, ship: Sequence[str] = ()) -> Backend:
        """The backend asked for (:func:`make_backend`)."""
        return make_backend(self.name, self.workers, self.address, ship)


#: one local worker process, the default of a run not told where to work
ONE_LOCAL_WORKER = BackendRequest()


__all__ = [
    "BACKENDS",
    "Backend",
    "BackendRequest",
    "ONE_LOCAL_WORKER",
    "Deaths",
    "LocalBackend",
    "RayBackend",
    "batch_size",
    "batches",
    "exit_status",
    "import_ray",
    "make_backend",
]
