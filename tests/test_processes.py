"""The worker pool's stop: :func:`zwick_ai.processes.kill_pool` kills running tasks and returns
only once the pool's manager thread has ended, so the interpreter's exit hook never writes to a
wake-up pipe the thread is closing ("Exception ignored ... Bad file descriptor" on stderr)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from zwick_ai.processes import kill_pool, worker_pool


def test_kill_pool_returns_after_the_manager_thread_has_ended() -> None:
    pool = worker_pool(2)
    futures = [pool.submit(time.sleep, 60) for _ in range(3)]
    time.sleep(1.0)  # the workers have started and run the sleeps
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    assert manager is not None and manager.is_alive()
    started = time.monotonic()
    kill_pool(pool)
    assert time.monotonic() - started < 10
    assert not manager.is_alive()
    assert all(f.done() for f in futures)


def test_a_killed_pool_leaves_nothing_on_stderr_at_exit() -> None:
    script = textwrap.dedent(
        """
        import time
        from zwick_ai.processes import kill_pool, worker_pool
        for _ in range(3):
            pool = worker_pool(2)
            for _ in range(4):
                pool.submit(time.sleep, 60)
            time.sleep(0.5)
            kill_pool(pool)
        print("done")
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "done", run.stderr
    assert run.stderr == "", run.stderr
