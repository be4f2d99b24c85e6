"""The folder lock (zwick_ai.eval.folder_lock): whose lock is stale and may be taken over, and what a
refused run leaves behind."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from zwick_ai.eval.folder_lock import (
    LOCK_NAME,
    MARK_NAME,
    OLDER_FORMATS_VERSION,
    acquire,
    check_results_folder,
    hold_results_folder,
    made_by,
    release,
)


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


def test_a_results_file_with_made_by_marks_its_folder(tmp_path):
    """A committed folder keeps its mark as the ``made_by`` field of its config.json or
    results.json: its own command resumes it (writing no mark file), another is refused, and an
    unmarked folder is refused in one line naming the version that reads it and the command."""
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"identity": {}, "made_by": "zwick tournament"}))
    assert made_by(folder) == "zwick tournament"
    with hold_results_folder(folder, "zwick tournament"):
        pass
    assert not (folder / MARK_NAME).exists()
    with pytest.raises(ValueError, match=r"holds the results of `zwick tournament`, not `zwick selfplay`"):
        check_results_folder(folder, "zwick selfplay")
    (folder / "config.json").write_text(json.dumps({"identity": {}}))  # as folders were before the mark
    with pytest.raises(ValueError) as error:
        check_results_folder(folder, "zwick tournament")
    assert "\n" not in str(error.value)
    assert f"read them with zwick_ai {OLDER_FORMATS_VERSION}, or remake them with `zwick tournament`" in str(
        error.value
    )


def test_every_committed_tournament_and_joker_study_carries_its_mark():
    """The committed results that a documented command resumes are marked (``made_by``) in the
    file that is committed (their ``.zwick-folder`` is not): tournaments and joker studies."""
    results = Path(__file__).parents[2] / "experiments" / "results"
    unmarked = []
    for path in [*results.rglob("config.json"), *results.glob("joker-study/*/results.json")]:
        data = json.loads(path.read_text())
        tournament = isinstance(data, dict) and "game_string" in (data.get("identity") or {})
        if (tournament or path.name == "results.json") and made_by(path.parent) is None:
            unmarked.append(str(path.relative_to(results)))
    assert not unmarked, unmarked
