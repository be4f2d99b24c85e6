"""The command under careless input, concurrent runs and interrupts: a one-line refusal (exit 2,
no traceback) before any work starts, one writer per results folder, nothing lost or doubled."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

import zwick_ai
from zwick_ai.cli import main
from zwick_ai.eval.folder_lock import LOCK_NAME, hold_folder
from zwick_ai.eval.tournament import task_key


def one_line_error(capsys, argv: list[str]) -> str:
    """Run ``zwick ARGV``, which must fail with exit code 2 and one line on stderr; that line."""
    assert main(argv) == 2, argv
    # the one-time compile notice of a fresh tree is not part of the error
    err = "\n".join(line for line in capsys.readouterr().err.strip().splitlines() if "compiling the numba" not in line)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("argv", [
    ["--variant", "dithmarschen", "-o", "jokers=none", "--quick"],
    ["--variant", "grupp", "-o", "wild_jokers=0", "--quick"],
    ["--variant", "grupp", "-o", "wild_jokers=0", "--strong-play", "greedy"],
])  # fmt: skip
def test_joker_study_refuses_a_game_without_jokers(tmp_path, capsys, argv):
    out = tmp_path / "study"
    err = one_line_error(capsys, ["joker-study", *argv, "--out", str(out)])
    assert "no joker to study" in err
    assert not out.exists()  # refused before anything ran


@pytest.mark.parametrize("spec", ["ismcts:time=nan", "ismcts:time=inf", "expert:time=nan"])
def test_non_finite_spec_numbers_are_refused_before_play(tmp_path, capsys, spec):
    out = tmp_path / "t"
    argv = ["tournament", "--agents", f"{spec};greedy", "--deals", "1", "--workers", "1", "--quiet"]
    assert "is not a finite number" in one_line_error(capsys, [*argv, "--out", str(out)])
    assert not (out / "games.jsonl").exists()


# ------------------------------------------------------------------------------------------------
# One writer per results folder
# ------------------------------------------------------------------------------------------------
TINY = ["tournament", "--agents", "greedy;random", "--deals", "1", "--workers", "1", "--quiet"]


def _dead_pid() -> int:
    """The id of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_second_run_into_a_held_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "t"
    with hold_folder(out):
        err = one_line_error(capsys, [*TINY, "--out", str(out)])
        assert f"pid {os.getpid()} on {socket.gethostname()}" in err and "in use by another run" in err
        assert not (out / "games.jsonl").exists()
    assert not (out / LOCK_NAME).exists()
    assert main([*TINY, "--out", str(out)]) == 0  # free again
    assert not (out / LOCK_NAME).exists()


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path, capsys):
    out = tmp_path / "t"
    out.mkdir()
    stale = {"pid": _dead_pid(), "host": socket.gethostname(), "since": "then"}
    (out / LOCK_NAME).write_text(json.dumps(stale))
    assert main([*TINY, "--out", str(out)]) == 0
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2 and not (out / LOCK_NAME).exists()
    # a live owner on another host cannot be checked: refused
    (out / LOCK_NAME).write_text(json.dumps({"pid": 1, "host": "elsewhere", "since": "now"}))
    assert "pid 1 on elsewhere" in one_line_error(capsys, [*TINY, "--deals", "2", "--out", str(out)])


@pytest.mark.slow
def test_two_concurrent_tournaments_into_one_folder_one_refused_no_duplicate(tmp_path):
    out = tmp_path / "t"
    argv = [sys.executable, "-m", "zwick_ai.cli", *TINY, "--deals", "3", "--out", str(out)]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(run.wait(timeout=600), run.stderr.read()) for run in runs]  # type: ignore[union-attr]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    assert any("in use by another run" in err and "Traceback" not in err for _, err in results)
    keys = [task_key(r) for r in map(json.loads, (out / "games.jsonl").read_text().splitlines())]
    assert len(keys) == len(set(keys)) == 6


# ------------------------------------------------------------------------------------------------
# Interrupts
# ------------------------------------------------------------------------------------------------
def _group_alive(group: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except (OSError, ValueError):
            continue
        fields = stat.rsplit(")", 1)[-1].split()  # state, ppid, pgrp, ...
        if entry.isdigit() and int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def _with_default_sigint() -> None:
    """A child started from a background shell inherits an ignored SIGINT; Ctrl-C must reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("signum, to_group", [(signal.SIGINT, True), (signal.SIGTERM, False)])
def test_an_interrupted_tournament_with_workers_stops_cleanly_and_resumes(tmp_path, signum, to_group):
    out = tmp_path / "t"
    argv = [sys.executable, "-m", "zwick_ai.cli", "tournament", "--agents", "ismcts:iters=300;greedy",
            "--deals", "4", "--workers", "2", "--quiet", "--out", str(out)]  # fmt: skip
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True, preexec_fn=_with_default_sigint)  # fmt: skip
    games = out / "games.jsonl"
    deadline = time.monotonic() + 600
    while not (games.exists() and games.read_text().count("\n") >= 1) and time.monotonic() < deadline:
        assert run.poll() is None, run.communicate()
        time.sleep(0.2)
    if to_group:  # Ctrl-C: the whole foreground group
        os.killpg(run.pid, signum)
    else:  # kill PID: the main process only
        os.kill(run.pid, signum)
    started = time.monotonic()
    _, err = run.communicate(timeout=30)
    assert time.monotonic() - started < 10 and run.returncode == 130, err
    assert "Traceback" not in err and "the same command resumes" in err, err
    time.sleep(1)
    assert not _group_alive(run.pid), f"processes outlived the run: {_group_alive(run.pid)}"
    assert main(argv[3:]) == 0  # the same command finishes it
    keys = [task_key(r) for r in map(json.loads, games.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == 8


# ------------------------------------------------------------------------------------------------
# One way to list agents; the version
# ------------------------------------------------------------------------------------------------
def test_play_takes_agents_separated_by_semicolons_like_tournament(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    argv = ["play", "--variant", "dithmarschen", "--seat", "0", "--seed", "1", "--agents", "greedy;random;greedy"]
    assert main(argv) == 1  # the person quit at the first turn: the three agents were accepted
    out, err = capsys.readouterr()
    assert "game abandoned" in out and "unknown agent" not in err


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"zwick_ai {zwick_ai.__version__}"
