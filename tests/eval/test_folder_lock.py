"""The folder lock (zwick_ai.eval.folder_lock): whose lock is stale and may be taken over, and what a
refused run leaves behind."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from zwick_ai.eval.folder_lock import LOCK_NAME, MARK_NAME, acquire, hold_results_folder, release


def _dead_pid() -> int:
    """The id of a process that has exited (so not alive on this host)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_dead_owner_on_this_host_is_taken_over(tmp_path):
    (tmp_path / LOCK_NAME).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname(), "since": "x"}))
    mine = acquire(tmp_path)
    assert json.loads((tmp_path / LOCK_NAME).read_text()) == mine
    release(tmp_path, mine)


def test_a_lock_of_another_host_is_never_taken_over_even_if_its_pid_is_free_here(tmp_path):
    """On shared storage the owner's pid means nothing here: that no local process has it does
    not make the lock stale, so two runs never write one folder."""
    theirs = {"pid": _dead_pid(), "host": socket.gethostname() + "-elsewhere", "since": "x"}
    (tmp_path / LOCK_NAME).write_text(json.dumps(theirs))
    with pytest.raises(ValueError, match="in use by another run"):
        acquire(tmp_path)
    assert json.loads((tmp_path / LOCK_NAME).read_text()) == theirs


def test_a_refused_run_leaves_no_mark_and_no_folder(tmp_path):
    new, old = tmp_path / "new", tmp_path / "old"
    old.mkdir()
    for folder in (new, old):
        with pytest.raises(ValueError, match="refused"):
            with hold_results_folder(folder, "zwick selfplay"):
                raise ValueError("refused")
    assert not new.exists() and old.exists() and not (old / MARK_NAME).exists() and not (old / LOCK_NAME).exists()
    with hold_results_folder(old, "zwick selfplay") as path:
        (path / "summary.json").write_text("{}")
    assert (old / MARK_NAME).exists()
    with pytest.raises(ValueError, match="refused"), hold_results_folder(old, "zwick selfplay"):
        raise ValueError("refused")
    assert (old / MARK_NAME).exists()  # a folder with results keeps its mark
