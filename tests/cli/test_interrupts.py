"""Interrupts. Every command stopped by Ctrl-C at three moments (during the one-time compile with an
empty ``NUMBA_CACHE_DIR``, after a second, after its first results) and by SIGTERM to its main
process: one line, no traceback, exit within 10 s with 128 + signal, no process left; the same
command then finishes with the results of an uninterrupted run.

Many interrupts of one tournament with worker processes (20 with local workers, 5 with Ray):
each run is stopped by Ctrl-C (SIGINT to its process group) or ``kill PID`` (SIGTERM to the main
process) after it has written at least one new game, must exit within 10 s with one line and no
traceback, leave no process behind, and never write a game twice; the same command then finishes
the tournament with every (deal, seating) exactly once. Slow: about 15 minutes on two cores.

Each test prints its counts (``pytest -s`` shows them)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from zwick_ai.cli import main
from zwick_ai.eval.tournament.games import task_key

pytestmark = pytest.mark.slow

AGENTS = "ismcts:iters=200;greedy"


def _group_alive(group: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def _ray_processes() -> set[int]:
    """Live processes of Ray (its raylet, GCS server and workers)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            state = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and ("ray::" in cmd or "raylet" in cmd or "gcs_server" in cmd or "ray/_private" in cmd):
            found.add(int(entry))
    return found


def _with_default_sigint() -> None:
    """A child started from a background shell inherits an ignored SIGINT; Ctrl-C must reach it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _interrupt_many(tmp_path: Path, backend: str, runs: int, deals: int) -> dict[str, int]:
    out = tmp_path / backend
    games = out / "games.jsonl"
    argv = ["tournament", "--agents", AGENTS, "--deals", str(deals), "--workers", "2", "--backend", backend,
            "--quiet", "--out", str(out)]  # fmt: skip
    counts = {"interrupts": 0, "sigint": 0, "sigterm": 0, "finished_first": 0, "slowest_exit_ms": 0}
    ray_before = _ray_processes()
    for k in range(runs):
        before = len(_lines(games))
        signum = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
        run = subprocess.Popen([sys.executable, "-m", "zwick_ai.cli", *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=_with_default_sigint)  # fmt: skip
        deadline = time.monotonic() + 900
        while len(_lines(games)) <= before and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        if run.poll() is not None:  # it finished before a new game was written: not an interrupt
            run.communicate()
            assert run.returncode == 0
            counts["finished_first"] += 1
            break
        if signum == signal.SIGINT:
            os.killpg(run.pid, signum)  # Ctrl-C: the whole foreground group
        else:
            os.kill(run.pid, signum)  # kill PID: the main process only
        started = time.monotonic()
        _, err = run.communicate(timeout=60)
        spent = time.monotonic() - started
        assert spent < 10, f"run {k}: exit took {spent:.1f} s"
        counts["slowest_exit_ms"] = max(counts["slowest_exit_ms"], int(spent * 1000))
        if run.returncode == 0:  # the last game finished as the signal came
            counts["finished_first"] += 1
            break
        assert run.returncode == (130 if signum == signal.SIGINT else 143), (k, run.returncode, err)
        assert "Traceback" not in err and "the same command resumes" in err, err
        time.sleep(1)
        assert not _group_alive(run.pid), f"run {k}: processes outlived it: {_group_alive(run.pid)}"
        if backend == "ray":
            deadline = time.monotonic() + 20  # Ray's own processes are stopped by ray.shutdown()
            while _ray_processes() - ray_before and time.monotonic() < deadline:
                time.sleep(0.5)
            assert not _ray_processes() - ray_before, f"run {k}: Ray processes outlived it"
        keys = [task_key(json.loads(line)) for line in _lines(games)]
        assert len(keys) == len(set(keys)), f"run {k}: a game written twice"
        counts["interrupts"] += 1
        counts["sigint" if signum == signal.SIGINT else "sigterm"] += 1
    assert main(argv) == 0  # the same command finishes the tournament
    keys = [task_key(json.loads(line)) for line in _lines(games)]
    counts["games"] = len(keys)
    assert len(keys) == len(set(keys)) == 2 * deals  # every (deal, seating) exactly once
    print(f"\n{backend}: {counts}")
    return counts


def test_twenty_interrupts_with_two_local_workers(tmp_path):
    counts = _interrupt_many(tmp_path, "local", runs=20, deals=40)
    assert counts["interrupts"] == 20


def test_five_interrupts_with_ray(tmp_path):
    pytest.importorskip("ray")
    counts = _interrupt_many(tmp_path, "ray", runs=5, deals=20)
    assert counts["interrupts"] == 5


# ------------------------------------------------------------------------------------------------
# Every command: SIGINT at three moments and SIGTERM to the main process, then the same command
# finishes with the results of an uninterrupted run
# ------------------------------------------------------------------------------------------------
EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _helpers_left(pid: int) -> list[int]:
    """Live processes started for ``pid`` outside its process group (the compile helper)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = open(f"/proc/{entry}/environ", "rb").read()
            state = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z" and f"ZWICK_PRECOMPILE_PARENT={pid}".encode() in env.split(b"\0"):
            found.append(int(entry))
    return found


def _stop(argv: list[str], cwd: Path, signum: int, to_group: bool, when: Callable[[str, float], bool],
          env: dict[str, str] | None = None) -> str:  # fmt: skip
    """Start ``zwick ARGV``, send ``signum`` once ``when(stderr so far, seconds)`` holds, and check
    how it stops; returns its stderr ("" when it finished before the signal)."""
    run = subprocess.Popen([sys.executable, "-m", "zwick_ai.cli", *argv], cwd=cwd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True, start_new_session=True,
                           preexec_fn=_with_default_sigint, env={**os.environ, **(env or {})})  # fmt: skip
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(run.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    start = time.monotonic()
    while run.poll() is None and not when("".join(err), time.monotonic() - start):
        assert time.monotonic() - start < 900, "the moment never came"
        time.sleep(0.05)
    if run.poll() is not None:
        reader.join(5)
        assert run.returncode == 0, "".join(err)
        return ""
    (os.killpg if to_group else os.kill)(run.pid, signum)
    sent = time.monotonic()
    run.wait(timeout=60)
    spent = time.monotonic() - sent
    reader.join(5)
    text = "".join(err)
    assert spent < 10, f"{argv[0]}: the exit took {spent:.1f} s"
    assert run.returncode in (0, EXIT[signum]), (run.returncode, text)
    assert "Traceback" not in text and "Exception ignored" not in text, text
    if run.returncode:
        said = [line for line in text.splitlines() if "interrupted" in line]
        assert len(said) == 1, text
    time.sleep(1)
    assert not _group_alive(run.pid), f"processes outlived {argv[0]}: {_group_alive(run.pid)}"
    assert not _helpers_left(run.pid), f"the compile helper outlived {argv[0]}"
    return text


def _has_results(folder: Path) -> bool:
    """Whether a run has written records or results into ``folder`` (not only its mark or config)."""
    return folder.exists() and any(p.suffix in (".jsonl", ".csv", ".npz") for p in folder.rglob("*"))


def _games(folder: Path) -> list[tuple]:
    """Every game of every games.jsonl under ``folder``: its identity, moves and returns."""
    out = []
    for path in sorted(folder.rglob("games.jsonl")):
        for line in path.read_text().splitlines():
            r = json.loads(line)
            out.append((str(path.relative_to(folder).parent), r.get("deal"), r.get("seating"), json.dumps(r["moves"]),
                        tuple(r["returns"])))  # fmt: skip
    return sorted(out)


def _arrays(*names: str) -> Callable[[Path], list]:
    def read(folder: Path) -> list:
        out = []
        for name in names:
            for path in sorted(folder.glob(name)):
                with np.load(path, allow_pickle=False) as z:
                    out += [(path.name, k, z[k].tobytes()) for k in sorted(z.files)]
        assert out, f"no {names} in {folder}"
        return out

    return read


def _analysis(folder: Path) -> list:
    return [{k: v for k, v in d.items() if "second" not in k} for d in json.loads((folder / "analysis.json").read_text())["decisions"]]  # fmt: skip


def _convergence(folder: Path) -> list:
    rows = (folder / "convergence.csv").read_text().splitlines()
    return [row.split(",")[0::2] + row.split(",")[3:] for row in rows]  # iteration, metric, value (no seconds)


def _selfplay(folder: Path) -> tuple:
    return (Path(str(folder) + ".jsonl").read_text(), (folder / "scores.csv").read_text())


#: the micro Zwicker of OpenSpiel's Deep CFR and NFSP
MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"
#: command -> (argv with OUT for its results, what must equal an uninterrupted run's, None: no results)
SWEEP: dict[str, tuple[list[str], Callable[[Path], object] | None]] = {
    "tournament": (["tournament", "--variant", "classic", "--players", "2", "--agents", "ismcts:iters=150;greedy",
                    "--deals", "6", "--workers", "2", "--quiet", "--out", "OUT"], _games),
    "run": (["run", "OUT.toml", "--quiet"], _games),
    "leaderboard": (["leaderboard", "OUT.toml", "--quiet"], _games),
    "analyze": (["analyze", "GAMES", "--game-index", "0", "--seat", "0", "--agent", "ismcts:iters=100", "--out", "OUT",
                 "--quiet"], _analysis),
    "joker-study": (["joker-study", "--variant", "dithmarschen", "--quick", "--no-progress", "--out", "OUT"], None),
    "selfplay": (["selfplay", "--variant", "classic", "--players", "2", "--games", "400", "--records", "OUT.jsonl",
                  "--out", "OUT", "--quiet"], _selfplay),
    "train net": (["train", "net", "--variant", "classic", "--players", "2", "--hours", "1", "--generations", "1",
                   "--hands", "200", "--strength-deals", "2", "--workers", "2", "--out", "OUT"], _arrays("gen-*.npz")),
    "train net teacher": (["train", "net", "--variant", "classic", "--players", "2", "--hours", "1", "--generations",
                           "2", "--hands", "40", "--teacher", "ismcts", "--teacher-iters", "20", "--teacher-visits", "2",
                           "--strength-deals", "2", "--workers", "2", "--out", "OUT"], _arrays("gen-*.npz")),
    "train value": (["train", "value", "--variant", "classic", "--players", "2", "--hands", "400", "--epochs", "2",
                     "--workers", "2", "--out", "OUT"], _arrays("*.npz")),
    "train mccfr": (["train", "mccfr", "--game", "zwikken(players=3,variant=parlett)", "--iterations", "20000",
                     "--seed", "1", "--eval-every", "5000", "--eval-deals", "50", "--out", "OUT"], _convergence),
    "train ppo": (["train", "ppo", "--variant", "dithmarschen", "--players", "2", "-o", "ranks=9TJQKA", "--iterations",
                   "40", "--games", "64", "--steps", "16", "--hidden", "16,16", "--eval-every", "4", "--strength-deals",
                   "10", "--seed", "2", "--out", "OUT"], _arrays("policy.npz")),
    "train nfsp": (["train", "nfsp", "--game", MICRO, "--iterations", "400", "--eval-every", "200", "--hidden", "16",
                    "--batch", "32", "--memory", "1000", "--out", "OUT"], _arrays("model-*.npz")),
    "train deep-cfr": (["train", "deep-cfr", "--game", MICRO, "--iterations", "30", "--eval-every", "10", "--hidden",
                        "16", "--batch", "32", "--traversals", "20", "--train-steps", "20", "--memory", "1000", "--out",
                        "OUT"], _arrays("model-*.npz")),
    "play": (["play", "--variant", "classic", "--players", "2", "--agents", "greedy", "--seed", "1"], None),
    "replay": (["replay", "GAMES", "--game-index", "0"], None),
}  # fmt: skip


def _argv(template: list[str], out: Path, games: Path) -> list[str]:
    return [x.replace("OUT", str(out)).replace("GAMES", str(games)) for x in template]


def _files(tmp_path: Path, name: str, out: Path) -> None:
    """The experiment and leaderboard files of ``run`` and ``leaderboard`` (their out is ``out``)."""
    if name == "run":
        Path(f"{out}.toml").write_text(
            textwrap.dedent(f"""\
            game = "zwicker"
            variants = ["classic"]
            players = {{ classic = 2 }}
            agents = ["ismcts:iters=150", "greedy"]
            deals = 6
            seed = 0
            out = "{out}"
            workers = 2
        """)
        )
    if name == "leaderboard":
        Path(f"{out}.toml").write_text(
            textwrap.dedent(f"""\
            agents = ["random", "greedy", "ismcts:iters=50"]
            anchors = ["greedy"]
            deals = 4
            top = 2
            seed = 1
            out = "{out}"
            workers = 2
            [[board]]
            game = "zwicker"
            variant = "classic"
            players = 2
        """)
        )


def _resume(name: str, out: Path) -> list[str]:
    """train mccfr and ppo continue a stopped run only with --resume (once it has a checkpoint), deep-cfr
    and nfsp once the folder has their configuration."""
    if name in ("train nfsp", "train deep-cfr"):
        return ["--resume"] if (out / "config.json").exists() else []
    return ["--resume"] if name in ("train mccfr", "train ppo") and (out / "checkpoint.json").exists() else []


@pytest.mark.parametrize("name", list(SWEEP))
def test_every_command_stops_cleanly_at_any_moment_and_resumes(tmp_path, name):
    template, result = SWEEP[name]
    games = tmp_path / "games.jsonl"
    assert main(["tournament", "--variant", "classic", "--players", "2", "--agents", "greedy;random", "--deals", "1",
                 "--workers", "1", "--quiet", "--out", str(tmp_path / "fixture")]) == 0  # fmt: skip
    games.write_text((tmp_path / "fixture" / "games.jsonl").read_text())
    # 1. Ctrl-C while the kernels compile for the first time (an empty cache of its own)
    cold = tmp_path / "cold"
    _files(tmp_path, name, cold)
    text = _stop(_argv(template, cold, games), tmp_path, signal.SIGINT, True,
                 lambda err, t: "compiling the numba engine" in err and t > 2.0 or t > 120,
                 env={"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")})  # fmt: skip
    assert text == "" or "compiling the numba engine" in text
    # 2-4. the warm cache: Ctrl-C after a second and after the first results, SIGTERM to the main process
    out = tmp_path / "out"
    _files(tmp_path, name, out)
    argv = _argv(template, out, games)
    finished = False
    for signum, to_group, when in [
        (signal.SIGINT, True, lambda err, t: t > 1.0),
        (signal.SIGINT, True, lambda err, t: _has_results(out) and t > 2.0 or t > 20),
        (signal.SIGTERM, False, lambda err, t: t > 4.0),
    ]:  # fmt: skip
        if _stop(argv + _resume(name, out), tmp_path, signum, to_group, when) == "":
            finished = True
            break
    if result is None:
        return
    if not finished:  # the same command finishes the interrupted run (train cfr/mccfr: with --resume)
        assert main(argv + _resume(name, out)) == 0
    whole = tmp_path / "whole"
    _files(tmp_path, name, whole)
    assert main(_argv(template, whole, games)) == 0
    assert result(out) == result(whole), f"{name}: the resumed run differs from an uninterrupted one"
