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
from zwick_ai.eval.tournament.games import task_key


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
    assert time.monotonic() - started < 10 and run.returncode == 128 + signum, err
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


# ------------------------------------------------------------------------------------------------
# Nothing a user wrote is overwritten; every output path is checked before any work
# ------------------------------------------------------------------------------------------------
def _record_file(tmp_path, games: int = 1) -> str:
    """A JSONL file of ``games`` greedy classic two-player game records (compiled self-play)."""
    path = tmp_path / "games.jsonl"
    argv = ["selfplay", "--variant", "classic", "--players", "2", "--games", str(games), "--policies", "greedy"]
    assert main([*argv, "--records", str(path), "--quiet"]) == 0
    return str(path)


def _snapshot(folder) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir())}


@pytest.mark.parametrize("command, mine", [
    ("tournament", "report.md"),
    ("selfplay", "summary.csv"),
    ("analyze", "analysis.md"),
    ("run", "table.md"),
])  # fmt: skip
def test_a_folder_with_files_zwick_did_not_write_is_refused(tmp_path, capsys, command, mine):
    out = tmp_path / "mine"
    out.mkdir()
    (out / mine).write_text("my own notes\n")
    argv = {
        "tournament": [*TINY, "--out", str(out)],
        "selfplay": ["selfplay", "--variant", "classic", "--players", "2", "--games", "10", "--out", str(out)],
        "analyze": [
            "analyze",
            _record_file(tmp_path),
            "--seat",
            "0",
            "--agent",
            "rollouts:worlds=2",
            "--out",
            str(out),
        ],
    }.get(command)
    if command == "run":
        toml = tmp_path / "e.toml"
        toml.write_text(f'agents = ["greedy", "random"]\ndeals = 1\nvariant = "classic"\nout = "{out}"\n')
        argv = ["run", str(toml), "--workers", "1", "--quiet"]
    capsys.readouterr()
    err = one_line_error(capsys, argv)
    assert f"holds files that zwick did not write ({mine})" in err
    assert _snapshot(out) == {mine: b"my own notes\n"}  # untouched, nothing added


def test_a_results_folder_is_reused_by_its_own_command_only(tmp_path, capsys):
    out = tmp_path / "sp"
    argv = ["selfplay", "--variant", "classic", "--players", "2", "--games", "10", "--quiet", "--out", str(out)]
    assert main(argv) == 0 and main(argv) == 0  # its own folder: written again
    assert "zwick selfplay" in (out / ".zwick-folder").read_text()
    capsys.readouterr()
    err = one_line_error(capsys, [*TINY, "--out", str(out)])
    assert "holds the results of `zwick selfplay`, not `zwick tournament`" in err
    with hold_folder(out):  # one writer at a time, selfplay too
        assert "in use by another run" in one_line_error(capsys, argv)


def test_a_tournament_folder_of_an_earlier_version_is_refused_in_one_line(tmp_path, capsys):
    """Unmarked (before folders were marked), or without the agents' resolved identities: one line
    naming the version that reads it and the command that remakes it, and nothing changes."""
    out = tmp_path / "t"
    assert main([*TINY, "--out", str(out)]) == 0
    (out / ".zwick-folder").unlink()  # as folders were before the mark existed
    config = json.loads((out / "config.json").read_text())
    del config["made_by"]
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    err = one_line_error(capsys, [*TINY, "--deals", "2", "--out", str(out)])
    assert "an earlier zwick_ai's (read them with zwick_ai 0.3.0, or remake them with `zwick tournament`)" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert main([*TINY, "--out", str(tmp_path / "u")]) == 0
    config = json.loads((tmp_path / "u" / "config.json").read_text())
    del config["identity"]["agents_resolved"]  # as configs were before they recorded it
    (tmp_path / "u" / "config.json").write_text(json.dumps(config))
    err = one_line_error(capsys, [*TINY, "--out", str(tmp_path / "u")])
    assert "does not record what the agents resolve to" in err and "read it with zwick_ai 0.3.0" in err
    assert err.rstrip().endswith(f"remake it in a new folder: {config['command']}")


def test_selfplay_records_are_added_to_an_existing_file_like_play_record(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    base = ["selfplay", "--variant", "classic", "--players", "2", "--games", "3", "--policies", "greedy", "--quiet"]
    assert main([*base, "--records", str(path)]) == 0
    first = path.read_text().splitlines()
    assert len(first) == 3
    assert main([*base, "--seed", "1", "--records", str(path), "--record-hands", "2"]) == 0
    lines = path.read_text().splitlines()
    assert lines[:3] == first and len(lines) == 5  # kept, then added
    assert "added 2 game records" in capsys.readouterr().out


def test_output_paths_are_checked_before_any_work(tmp_path, capsys, monkeypatch):
    records = _record_file(tmp_path)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    analyze = ["analyze", records, "--agent", "rollouts:worlds=2", "--out"]
    assert "is a file, not a folder" in one_line_error(capsys, [*analyze, str(a_file)])
    assert "is a file, not a folder" in one_line_error(capsys, [*analyze, str(a_file / "below")])
    # play: a record file that cannot be written is refused before the first move
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    play = ["play", "--variant", "classic", "--players", "2", "--seat", "0", "--record"]
    err = one_line_error(capsys, [*play, str(tmp_path / "no" / "such" / "g.jsonl")])
    assert "does not exist" in err
    assert "is a folder, not a file" in one_line_error(capsys, [*play, str(tmp_path)])
    selfplay = ["selfplay", "--variant", "classic", "--players", "2", "--games", "2", "--quiet"]
    assert "is a folder, not a file" in one_line_error(capsys, [*selfplay, "--records", str(tmp_path)])
    assert "is a file, not a folder" in one_line_error(capsys, [*selfplay, "--out", str(a_file)])
    assert "is a file, not a folder" in one_line_error(capsys, [*TINY, "--out", str(a_file)])
    html = tmp_path / "page.html"
    html.write_text("mine")
    assert "exists already" in one_line_error(capsys, ["replay", records, "--html", str(html)])
    assert html.read_text() == "mine"
    # joker-study: an unknown strong agent is refused before any study, nothing made
    out = tmp_path / "study"
    err = one_line_error(
        capsys, ["joker-study", "--variant", "dithmarschen", "--strong-play", "nosuch", "--out", str(out)]
    )
    assert "nosuch" in err and not out.exists()


# ------------------------------------------------------------------------------------------------
# An experiment file is checked whole before the first game
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, message", [
    ('variants = ["classic", "nosuch"]', "nosuch"),
    ('variants = ["classic", "dithmarschen"]\nplayers = {classic = 2, dithmarschen = 7}', "dithmarschen"),
    ('variants = ["classic", "classic"]', "listed twice"),
    ('variants = ["classic"]\nbackend = "cloud"', "backend must be local or ray"),
    ('variants = ["classic"]\nworkers = 0', "workers must be a whole number from 1 to 1024, not 0"),
])  # fmt: skip
def test_run_checks_every_variant_before_the_first_game(tmp_path, capsys, body, message):
    out = tmp_path / "exp"
    toml = tmp_path / "e.toml"
    toml.write_text(f'agents = ["greedy", "random"]\ndeals = 1\n{body}\nout = "{out}"\n')
    assert message in one_line_error(capsys, ["run", str(toml), "--workers", "1", "--quiet"])
    assert not out.exists()  # the first variant's tournament did not run


# ------------------------------------------------------------------------------------------------
# analyze with a search agent: written as it goes, resumed by the same command
# ------------------------------------------------------------------------------------------------
def test_an_interrupted_analysis_resumes_where_it_stopped(tmp_path, capsys, monkeypatch):
    from zwick_ai.analysis import move_values

    records = _record_file(tmp_path)
    argv = ["analyze", records, "--seat", "0", "--agent", "ismcts:iters=40;searches=2", "--quiet", "--out"]
    whole = tmp_path / "whole"
    assert main([*argv, str(whole)]) == 0
    want = json.loads((whole / "analysis.json").read_text())
    n = len(want["decisions"])
    assert n >= 4 and want["agent"] == "ismcts:iters=40;searches=2,seed=0"

    real = move_values.decision_values
    calls: list[int] = []

    def stop_after_three(*args, **kwargs):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(1)
        return real(*args, **kwargs)

    out = tmp_path / "part"
    monkeypatch.setattr(move_values, "decision_values", stop_after_three)
    assert main([*argv, str(out)]) == 130
    assert "the same command resumes" in capsys.readouterr().err
    lines = (out / "decisions.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 3 and not (out / "analysis.json").exists()  # each decision kept at once

    calls.clear()
    monkeypatch.setattr(move_values, "decision_values", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    assert main([*argv, str(out)]) == 0
    assert len(calls) == n - 3  # only the rest was valued
    assert json.loads((out / "analysis.json").read_text()) == want  # the same as without the stop
    capsys.readouterr()
    err = one_line_error(capsys, ["analyze", records, "--seat", "1", "--agent", "ismcts:iters=40", "--out", str(out)])
    assert "holds an analysis of another game, seat or evaluator" in err


def test_analyze_help_states_the_cost_and_no_stale_words(capsys):
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    text = capsys.readouterr().out
    assert "per decision" in text and "resumes" in text and "searches=" in text
    assert "does not exist yet" not in text and "%%" not in text


# ------------------------------------------------------------------------------------------------
# Options that would be ignored are refused; workers capped; messages
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, unknown", [
    (["train", "value", "--variant", "dithmarschen", "--game", "zwikken", "--out", "x"], "--game zwikken"),
    (["train", "value", "--variant", "dithmarschen", "-o", "magger=false", "--out", "x"], "-o magger=false"),
    (["train", "mccfr", "--game", "kuhn_poker", "--iterations", "5", "--hands", "9", "--out", "x"], "--hands 9"),
    (["train", "net", "--variant", "dithmarschen", "--hours", "1", "--record", "0.5", "--out", "x"], "--record 0.5"),
])  # fmt: skip
def test_each_training_method_takes_only_its_own_options(tmp_path, capsys, monkeypatch, argv, unknown):
    """``zwick train METHOD`` is a subcommand of its own: another method's option is argparse's usage error."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"error: unrecognized arguments: {unknown}" in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("argv, message", [
    (["train", "value", "--variant", "dithmarschen", "--eps", "-1", "--out", "x"], "--eps is a probability"),
    (["train", "value", "--variant", "dithmarschen", "--hands", "3", "--out", "x"], "--hands must be at least 10"),
    (["train", "net", "--variant", "dithmarschen", "--hours", "nan", "--out", "x"], "--hours must be a positive"),
    (["selfplay", "--variant", "classic", "--players", "2", "--record-hands", "3"], "--record-hands N needs --records"),
    (["joker-study", "--summary", "--variant", "grupp"], "--variant: not used by --summary"),
    (["joker-study", "--variant", "dithmarschen", "--cv-samples", "4"], "--cv-samples: not used by the greedy study"),
    (["joker-study", "--variant", "dithmarschen", "--cv-model", "after"], "--cv-model: not used by the greedy study"),
    (["joker-study", "--variant", "dithmarschen", "--strong-play", "net", "--strong-deals", "4"],
     "--strong-deals: not used by --strong-play"),
    (["tournament", "--agents", "greedy;random", "--workers", "0"], "--workers must be from 1 to 1024, not 0"),
])  # fmt: skip
def test_options_that_would_be_ignored_or_are_impossible_are_refused(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert message in one_line_error(capsys, argv)
    assert not (tmp_path / "x").exists()


def test_workers_are_capped_at_the_work_and_the_cores(capsys):
    from zwick_ai.eval.orchestrate import capped_workers

    assert capped_workers(1000, 6, address=None) == min(6, os.cpu_count() or 1)
    assert "--workers 1000:" in capsys.readouterr().err
    assert capped_workers(1000, 6, address="auto") == 6  # a cluster: the games are the cap
    assert "6 workers (6 games)" in capsys.readouterr().err
    assert capped_workers(1, 6, address=None) == 1 and capsys.readouterr().err == ""


def test_record_file_messages_name_the_file(tmp_path, capsys):
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(256)) * 8)
    assert f"{binary} is a binary file" in one_line_error(capsys, ["replay", str(binary)])
    folder = tmp_path / "t"
    assert main([*TINY, "--out", str(folder)]) == 0
    capsys.readouterr()
    err = one_line_error(capsys, ["replay", str(folder)])
    assert "is a folder" in err and "games.jsonl" in err


def test_a_changed_agent_is_named_plainly():
    from zwick_ai.eval.tournament.definition import identity_difference

    there = [{"name": "ismcts", "params": {"iters": 100}}, {"name": "random", "params": {}}]
    now = [{"name": "greedy", "params": {}}, {"name": "random", "params": {}}]
    assert (
        identity_difference("agents_resolved", there, now)
        == "the agents resolve differently: 'ismcts' there, 'greedy' now"
    )


# ------------------------------------------------------------------------------------------------
# --help is quick: the command line imports no engine, agent or numerical library to build itself
# ------------------------------------------------------------------------------------------------
def test_the_command_line_is_built_without_heavy_imports():
    code = (
        "import sys, time; t = time.perf_counter(); from zwick_ai.cli import build_parser; build_parser(); "
        "print(time.perf_counter() - t); "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numpy', 'scipy', 'torch', "
        "'matplotlib', 'pyspiel') or (m.startswith('zwick_ai.') and not m.startswith('zwick_ai.cli')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    seconds, heavy = (out.stdout.splitlines() + [""])[:2]
    assert heavy == "", f"building the parser imported {heavy}"
    assert float(seconds) < 5  # (about 0.1 s on an idle machine; generous under load)


def test_the_help_s_agent_time_limits_are_the_guard_s():
    from zwick_ai.agents import guard
    from zwick_ai.cli import defaults

    assert (defaults.MOVE_TIME_LIMIT, defaults.START_TIME_LIMIT) == (guard.MOVE_TIME_LIMIT, guard.START_TIME_LIMIT)


def test_an_interrupt_inside_a_compiled_callback_is_an_interrupt():
    """numba turns a KeyboardInterrupt raised in its callback into a SystemError; the commands'
    interrupt guard turns it back, so the run stops with its one-line message, not a traceback."""
    from zwick_ai.interrupts import reclaim

    with pytest.raises(KeyboardInterrupt):
        with reclaim():
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as interrupt:
                raise SystemError("<function _numba_unpickle> returned a result with an exception set") from interrupt
    with pytest.raises(SystemError, match="something else"):
        with reclaim():
            raise SystemError("something else")


def test_the_default_tournament_is_described_once(capsys):
    """``zwick --help``, ``zwick tournament --help``, docs/index.md and the README describe the
    tournament that ``zwick tournament`` plays without arguments as the code defines it."""
    from pathlib import Path

    from zwick_ai.cli import defaults, tournament

    assert tournament.DEFAULT_AGENTS == defaults.DEFAULT_AGENTS and tournament.DEFAULT_DEALS == defaults.DEFAULT_DEALS
    for argv in (["--help"], ["tournament", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert defaults.DEFAULT_SUMMARY in text, argv
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ";".join(defaults.DEFAULT_AGENTS) in text and f"(default: {defaults.DEFAULT_DEALS})" in text
    root = Path(__file__).resolve().parents[2]
    assert defaults.DEFAULT_SUMMARY in (root / "docs" / "index.md").read_text()
    readme = " ".join((root / "README.md").read_text().split())
    assert f"{defaults.DEFAULT_ITERS:,} ISMCTS iterations" in readme
    assert f"greedy heuristic on {defaults.DEFAULT_DEALS} duplicate Dithmarschen deals" in readme
    for doc in (root / "README.md", root / "docs" / "index.md"):
        assert "24 duplicate" not in doc.read_text()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_after_the_command_ended_exits_with_its_status_not_by_the_signal(tmp_path, signum):
    """The window between the end of a command and the end of the process (pools joined, files
    flushed at exit; here an exit hook that sleeps) still exits with 128 + signal, no traceback."""
    script = (
        "import atexit, sys, time\n"
        "from zwick_ai.cli import run\n"
        "atexit.register(time.sleep, 30)\n"
        "sys.argv = ['zwick', '--version']\n"
        "run()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    line = process.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith("zwick"), line  # the command has ended and printed its output
    time.sleep(0.5)
    process.send_signal(signum)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 128 + signum, (process.returncode, err)
    assert err == ""


def test_a_stopped_command_whose_exit_is_held_ends_after_the_grace():
    """A thread left behind (a worker pool's, a library's) holds the interpreter's exit for ever;
    a command that was stopped still ends, with 128 + signal and nothing on stderr."""
    from zwick_ai.interrupts import GRACE

    script = (
        "import os, signal, threading, time\n"
        "import zwick_ai.cli as cli\n"
        "from zwick_ai import interrupts\n"
        "def stopped(argv=None):\n"
        "    threading.Thread(target=time.sleep, args=(300,)).start()\n"
        "    with interrupts.handled():\n"
        "        try:\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "            time.sleep(5)\n"
        "        except KeyboardInterrupt:\n"
        "            return interrupts.exit_code()\n"
        "cli.main = stopped\n"
        "cli.run()\n"
    )
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=GRACE + 30,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    assert run.returncode == 130, run.stderr
    assert run.stderr == ""
    assert GRACE - 1 < time.monotonic() - started < GRACE + 10


# ------------------------------------------------------------------------------------------------
# Every size a user can type is bounded, before any work
# ------------------------------------------------------------------------------------------------
def _leaderboard(tmp_path, body: str) -> list[str]:
    toml = tmp_path / "lb.toml"
    toml.write_text(body)
    return ["leaderboard", str(toml), "--quiet"]


BOARD = 'agents = ["greedy", "random"]\n[[board]]\ngame = "zwikken"\n'


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: ["analyze", "g.jsonl", "--seat", "0", "--agent", "rollouts:worlds=1000000000000", "--out", "a"], "worlds=1000000000000 is more than a decision can hold; give at most 100000"),
        (lambda d: ["analyze", "g.jsonl", "--seat", "0", "--agent", "rollouts:worlds=1000,playouts=10000", "--out", "a"], "at most 1000000"),
        (lambda d: ["analyze", "g.jsonl", "--seat", "0", "--agent", "ismcts:iters=5;searches=10000000", "--out", "a"], "give at most 100000"),
        (lambda d: ["train", "mccfr", "--game", "zwikken(players=3,variant=parlett)", "--iterations", "20",
                    "--eval-deals", "0", "--out", str(d / "m")], "--eval-deals must be from 1 to 1000000, not 0"),
        (lambda d: ["train", "mccfr", "--game", "zwikken(players=3,variant=parlett)", "--iterations", "20",
                    "--eval-deals", "-1", "--out", str(d / "m")], "--eval-deals must be from 1 to 1000000, not -1"),
        (lambda d: ["train", "cfr", "--game", "kuhn_poker", "--iterations", str(10**11), "--out", str(d / "c")],
         "--iterations must be from 1 to 10000000000"),
        (lambda d: ["tournament", "--agents", "greedy;random", "--deals", "1000000000"], "from 1 to 1000000"),
        (lambda d: ["tournament", "--agents", "greedy;random", "--workers", "1000000"], "from 1 to 1024"),
        (lambda d: ["tournament", "--agents", "greedy;ismcts:iters=5\nc=1"], "one line of printable characters"),
        (lambda d: ["tournament", "--agents", "greedy;ismcts:iters=`5`"], "without a backtick"),
        (lambda d: ["tournament", "--agents", "greedy;random", "--move-time-limit", "0"], "move_time_limit must be"),
        (lambda d: _leaderboard(d, "deals = 1000000000\n" + BOARD), "deals must be a whole number from 1 to 1000000"),
        (lambda d: _leaderboard(d, "deals = true\n" + BOARD), "deals must be a whole number from 1 to 1000000, not True"),
        (lambda d: _leaderboard(d, "deals = 1\nworkers = 1000000\n" + BOARD), "workers must be a whole number from 1 to 1024"),
        (lambda d: _leaderboard(d, "deals = 1\ntop = 1000000000000000000\n" + BOARD), "top must be a whole number from 0 to 1000"),
        (lambda d: _leaderboard(d, 'deals = 1\nout = ""\n' + BOARD), "out needs a folder name"),
        (lambda d: _leaderboard(d, "x = " + "[" * 5000 + "]" * 5000 + "\n"), "nested too deeply"),
        (lambda d: _leaderboard(d, 'agents = ["greedy"]\ndeals = 1\n[[board]]\ngame = "zwikken"\ndeals = true\n'), "board 1: deals"),
    ],
)  # fmt: skip
def test_every_size_is_bounded_before_any_work(tmp_path, capsys, monkeypatch, make, message):
    import resource

    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.jsonl").write_text("")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    err = one_line_error(capsys, make(tmp_path))
    assert message in err, err
    assert time.monotonic() - start < 60
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # kB: no work, no memory
    assert not (tmp_path / "m").exists() and not (tmp_path / "c").exists()


def test_a_records_line_too_long_or_too_deep_is_skipped_as_damaged(tmp_path, capsys):
    good = json.loads(
        '{"version": 1, "game": "zwicken()", "deal_seed": 1, "seats": ["a", "b", "c", "d"], "moves": [], "returns": []}'
    )
    lines = ["[" * 100_000 + "]" * 100_000, json.dumps(good | {"version": True}), "x" * 10_000_001]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n")
    from zwick_ai.eval.records import read_records

    records, errors = read_records(path)
    assert not records and [e.line for e in errors] == [1, 2, 3]
    reasons = [e.message for e in errors]
    assert "nested too deeply" in reasons[0] and "version True" in reasons[1] and "longer than" in reasons[2]
    capsys.readouterr()
    assert main(["replay", str(path), "--all"]) == 2  # each damaged line reported in one line, then the error
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and "holds no readable game records" in err[-1] and "Traceback" not in "".join(err)
