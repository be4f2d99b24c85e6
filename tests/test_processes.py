"""The worker pool's stop: :func:`zwick_ai.processes.kill_pool` kills running tasks and returns
only once the pool's manager thread has ended, so the interpreter's exit hook never writes to a
wake-up pipe the thread is closing ("Exception ignored ... Bad file descriptor" on stderr), even when a worker dies half-way through
sending a result."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

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


#: a task that sends the start of a result (its length) and never the rest, as a worker killed
#: while it sends a large result does; the manager thread waits for the rest
TORN_RESULT = textwrap.dedent(
    """
    import os, struct, sys, time
    from zwick_ai.processes import kill_pool, worker_pool

    def torn(flag):
        frame = sys._getframe()
        while frame.f_code.co_name != "_process_worker":
            frame = frame.f_back
        frame.f_locals["result_queue"]._writer._send(struct.pack("!i", 1 << 20))
        open(flag, "w").close()
        time.sleep(300)

    if __name__ == "__main__":
        flag = sys.argv[1]
        pool = worker_pool(1)
        pool.submit(torn, flag)
        while not os.path.exists(flag):
            time.sleep(0.05)
        time.sleep(0.5)  # the manager thread has read the length and waits for the rest
        manager = pool._executor_manager_thread
        kill_pool(pool)
        print("manager alive:", manager.is_alive())
    """
)


def test_a_worker_killed_half_way_through_a_result_does_not_hang_the_exit(tmp_path: Path) -> None:
    script = tmp_path / "torn.py"
    script.write_text(TORN_RESULT)
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "sent")], capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "manager alive: False", run.stdout + run.stderr
    assert run.stderr == "", run.stderr
