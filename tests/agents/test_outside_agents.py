"""Agents from outside the package: by import path (``module:Class``) from the current directory,
by an installed package's entry point, with one-line errors before any game; and identities that
cannot go stale (a changed weights file or source never reuses a folder's games)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai.agents import Agent, agent_info, make_agent, parse_spec
from zwick_ai.agents.outside import ENTRY_POINT_GROUP, source_digest
from zwick_ai.cli import main
from zwick_ai.eval import tournament as T

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "my_agent.py"
DITH = "zwicker(variant=dithmarschen,players=4)"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A fresh working folder outside the repository holding my_agent.py (the example agent)."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(EXAMPLE, work / "my_agent.py")
    monkeypatch.chdir(work)
    monkeypatch.setattr(sys, "path", list(sys.path))  # importing from the folder puts it on the path
    yield work
    _forget("my_agent", "broken", "weighted")


def _forget(*modules: str) -> None:
    """Drop modules imported from a test's folder (the next test has its own)."""
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        del sys.modules[name]


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2, argv
    err = "\n".join(line for line in capsys.readouterr().err.strip().splitlines() if "compiling the numba" not in line)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_an_import_path_names_a_class_and_its_parameters(folder):
    assert parse_spec("my_agent:MyAgent,min_points=2") == ("my_agent:MyAgent", {"min_points": "2"})
    assert parse_spec("ismcts:iters=20") == ("ismcts", {"iters": "20"})
    game = pyspiel.load_game(DITH)
    agent = make_agent("my_agent:MyAgent,min_points=2", game, seed=1)
    assert isinstance(agent, Agent) and type(agent).__name__ == "MyAgent"
    assert agent.spec == "my_agent:MyAgent,min_points=2"
    assert make_agent("my_agent:MyAgent", game).spec == "my_agent:MyAgent"
    ident = agent.identity()
    assert ident["params"] == {"min_points": 2}
    assert ident["source"] == {"module": "my_agent", "sha256": source_digest("my_agent")}
    with pytest.raises(ValueError, match="plays zwicker, not zwikken"):
        make_agent("my_agent:MyAgent", pyspiel.load_game("zwikken"))
    with pytest.raises(ValueError, match="has no parameter 'depth'; valid: min_points"):
        make_agent("my_agent:MyAgent,depth=2", game)


@pytest.mark.parametrize(
    "spec, source, message",
    [
        ("nosuch:Agent", None, "no module named 'nosuch' in the current directory"),
        ("my_agent:MyAgnt", None, "my_agent.py has no 'MyAgnt'"),
        ("broken:X", "def f(:\n", "importing broken failed: SyntaxError"),
        ("broken:X", "import nosuchdependency\n", "importing broken failed: No module named 'nosuchdependency'"),
        ("broken:X", "raise RuntimeError('no GPU')\n", "importing broken failed: RuntimeError: no GPU"),
        ("broken:f", "def f(state):\n    return []\n", "is a function, not an agent"),
        ("broken:X", "class X:\n    pass\n", "the class X, not an agent"),
        ("broken:X", "from zwick_ai.agents import Agent\nclass X(Agent):\n    pass\n", "X does not define act"),
        (
            "broken:X",
            "from zwick_ai.agents import Agent\nclass X(Agent):\n    def __init__(self, game, seed=0):\n"
            "        raise OSError('weights.pt missing')\n    def act(self, state):\n        return []\n",
            "failed to start: OSError: weights.pt missing",
        ),
    ],
)
def test_a_bad_agent_is_one_line_before_any_game(folder, capsys, spec, source, message):
    if source is not None:
        (folder / "broken.py").write_text(source)
    out = folder / "out"
    argv = ["tournament", "--agents", f"{spec};greedy", "--deals", "1", "--workers", "1", "--quiet", "--out", str(out)]
    assert message in one_line_error(capsys, argv)
    assert not (out / "games.jsonl").exists()


def test_an_installed_package_registers_agents_by_entry_point(tmp_path, monkeypatch, capsys):
    site = tmp_path / "site"
    (site / "mypkg").mkdir(parents=True)
    (site / "mypkg" / "__init__.py").write_text("")
    shutil.copy(EXAMPLE, site / "mypkg" / "agents.py")
    info = site / "mypkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nmygreedy = mypkg.agents:MyAgent\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert agent_info("mygreedy").cls.__module__ == "mypkg.agents"
        agent = make_agent("mygreedy:min_points=1", pyspiel.load_game(DITH))
        assert agent.spec == "mygreedy:min_points=1"
        assert agent.identity()["source"]["module"] == "mypkg.agents"
        assert main(["agents"]) == 0
        assert "mygreedy  (zwicker)" in capsys.readouterr().out
    finally:
        _forget("mypkg")


def _tournament(argv_out: Path, *specs: str) -> list[str]:
    return [
        "tournament",
        "--agents",
        ";".join(specs),
        "--deals",
        "1",
        "--workers",
        "1",
        "--quiet",
        "--out",
        str(argv_out),
    ]


@pytest.mark.slow
def test_the_report_s_command_reruns_as_printed(folder, capsys):
    out = folder / "results" / "mine"
    assert main(_tournament(out, "my_agent:MyAgent,min_points=1", "greedy")) == 0
    summary = json.loads((out / "summary.json").read_text())
    report = (out / "report.md").read_text()
    command = summary["command"]
    assert command in report and "--out" in command
    assert "my_agent:MyAgent,min_points=1" in report and str(folder / "my_agent.py") in report
    argv = shlex.split(command)
    assert argv[0] == "zwick"
    capsys.readouterr()
    assert main(argv[1:]) == 0  # reruns: the folder's games are all there, its result printed again
    assert json.loads((out / "summary.json").read_text())["pairs"] == summary["pairs"]
    # the same agent values the moves of one of those games (zwick analyze --agent)
    games = str(out / "games.jsonl")
    assert (
        main(["analyze", games, "--seat", "0", "--agent", "my_agent:MyAgent;worlds=2", "--out", "an", "--quiet"]) == 0
    )
    assert json.loads((folder / "an" / "analysis.json").read_text())["decisions"]


@pytest.mark.slow
def test_a_changed_outside_agent_never_reuses_a_folder(folder, capsys):
    out = folder / "out"
    argv = _tournament(out, "my_agent:MyAgent", "greedy")
    assert main(argv) == 0
    capsys.readouterr()
    with open(folder / "my_agent.py", "a") as f:
        f.write("\n# tuned\n")
    err = one_line_error(capsys, argv)
    assert "holds a different tournament" in err and "the source of my_agent changed" in err


def test_a_changed_weights_file_never_reuses_a_folder(tmp_path, capsys):
    weights = ROOT / "zwick_ai" / "agents" / "weights"
    model = tmp_path / "model.npz"
    shutil.copy(weights / "dithmarschen-4p-after.npz", model)
    out = tmp_path / "out"
    argv = _tournament(out, f"net:model={model}", "greedy")
    assert main(argv) == 0
    capsys.readouterr()
    shutil.copy(weights / "dithmarschen-4p-move.npz", model)  # other weights behind the same path
    err = one_line_error(capsys, argv)
    assert "holds a different tournament" in err and "models" in err


@pytest.mark.slow
def test_an_outside_agent_s_files_enter_its_identity(folder, capsys):
    (folder / "weighted.py").write_text(
        textwrap.dedent(
            """
            from zwick_ai.agents import Param
            from my_agent import MyAgent

            class Weighted(MyAgent):
                PARAMS = (Param("table", str, "table.txt", "a file it reads"), *MyAgent.PARAMS)

                def files(self):
                    return [self.params["table"]]
            """
        )
    )
    (folder / "table.txt").write_text("1 2 3\n")
    out = folder / "out"
    argv = _tournament(out, "weighted:Weighted", "greedy")
    assert main(argv) == 0
    config = json.loads((out / "config.json").read_text())
    assert "table.txt" in config["identity"]["agents_resolved"][0]["files"]
    capsys.readouterr()
    (folder / "table.txt").write_text("3 2 1\n")
    assert "table.txt changed" in one_line_error(capsys, argv)


def test_a_worker_refuses_an_agent_that_changed_after_the_start(folder):
    t = T.Tournament(["my_agent:MyAgent", "greedy"], game="zwicker", params={"variant": "dithmarschen"}, deals=1)
    task = T.tasks(t)[0]
    with open(folder / "my_agent.py", "a") as f:
        f.write("\n# changed while running\n")
    with pytest.raises(ValueError, match="changed while the tournament ran"):
        T.play_task(task)


@pytest.mark.slow
def test_an_agent_of_your_own_with_a_joker_rule_plays_the_strong_joker_study(folder, capsys):
    (folder / "my_net.py").write_text(
        "from zwick_ai.agents.net import NetAgent\n\n\nclass MyNet(NetAgent):\n    pass\n"
    )
    argv = ["joker-study", "--variant", "dithmarschen", "--deals", "2", "--cv-samples", "0", "--no-progress"]
    assert main([*argv, "--strong-play", "my_net:MyNet", "--out", "study"]) == 0
    results = json.loads((folder / "study" / "results.json").read_text())
    assert "strong_play_my_net_MyNet" in results
    _forget("my_net")
    err = one_line_error(capsys, [*argv, "--strong-play", "my_agent:MyAgent", "--out", "other"])
    assert "an agent of your own with a joker= parameter" in err


# ------------------------------------------------------------------------------------------------
# Digests see every byte
# ------------------------------------------------------------------------------------------------
def test_a_file_s_digest_changes_with_a_byte_after_its_first_blocks(tmp_path):
    from zwick_ai.agents.outside import file_digest

    path = tmp_path / "weights.bin"
    data = bytearray(range(256)) * 40_000  # 10 MB: past the first 4 KB and the first 1 MB block
    path.write_bytes(bytes(data))
    before = file_digest(path)
    for place in (4096, len(data) // 2, len(data) - 1):
        data[place] ^= 1
        path.write_bytes(bytes(data))
        os.utime(path, ns=(place, place))  # and a new modification time, as an editor gives
        assert file_digest(path) != before, place
        data[place] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(1, 1))
    assert file_digest(path) == before


@pytest.mark.slow
def test_a_weights_file_changed_only_in_its_tail_never_reuses_a_folder(folder, capsys):
    (folder / "weighted.py").write_text(
        textwrap.dedent(
            """
            from zwick_ai.agents import Param
            from my_agent import MyAgent

            class Weighted(MyAgent):
                PARAMS = (Param("table", str, "table.bin", "a file it reads"), *MyAgent.PARAMS)

                def files(self):
                    return [self.params["table"]]
            """
        )
    )
    table = bytearray(b"w" * 20_000)
    (folder / "table.bin").write_bytes(bytes(table))
    out = folder / "out"
    argv = _tournament(out, "weighted:Weighted", "greedy")
    assert main(argv) == 0
    capsys.readouterr()
    table[-1:] = b"x"  # the same size, the same first 16 KB
    (folder / "table.bin").write_bytes(bytes(table))
    assert "table.bin changed" in one_line_error(capsys, argv)


# ------------------------------------------------------------------------------------------------
# Agents that fail: named in one line, contained, bounded
# ------------------------------------------------------------------------------------------------
HOSTILE = Path(__file__).with_name("hostile_agent.py")
PARLETT = ["--game", "zwikken", "--variant", "parlett", "--players", "3"]


@pytest.fixture
def hostile(folder):
    """The working folder with ``hostile.py`` (tests/agents/hostile_agent.py) beside my_agent.py."""
    shutil.copy(HOSTILE, folder / "hostile.py")
    yield folder
    _forget("hostile")


def _hostile_task(way: str, where: str = "act") -> dict:
    """A game of hostile:Hostile (misbehaving ``where`` in the way ``way``) against greedy, as a
    tournament's task (the tournament's, with hostile:Hostile where it has random)."""
    t = T.Tournament(["random", "greedy"], game="zwikken", params={"variant": "parlett", "players": 3}, deals=1)
    task = T.tasks(t)[0]
    spec = f"hostile:Hostile,{where}={way}"
    swap = {"random": spec}
    return task | {
        "seats": [swap.get(s, s) for s in task["seats"]],
        "agents": [swap.get(s, s) for s in task["agents"]],
        "outside": [spec],
        "identities": None,
    }


@pytest.mark.parametrize(
    "way, where, error",
    [
        ("raise", "act", "RuntimeError: boom"),
        ("keyerror", "act", "KeyError: 'missing'"),
        ("recursion", "act", "RecursionError: maximum recursion depth exceeded"),
        ("systemexit", "act", "SystemExit: 0"),
        ("illegal", "act", "action id 1000000 is out of range"),
        ("value", "act", "ValueError: bad value"),
        ("systemexit", "init", "SystemExit: 0"),
        ("escape", "act", "RuntimeError: \\x1b[2J\\x1b[31mred second line"),
    ],
)
def test_a_failing_agent_s_game_is_a_named_failure_not_a_record(hostile, way, where, error):
    task = _hostile_task(way, where)
    result = T.play_task(task)
    assert set(result) == {"agent_failure"}, result  # no moves, no returns: nothing to record
    info = result["agent_failure"]
    seat = task["seats"].index(f"hostile:Hostile,{where}={way}")
    assert info["agent"] == f"hostile:Hostile,{where}={way}" and info["seat"] == seat
    assert info["deal"] == 0 and info["seating"] == task["seating"] and info["game"] == "zwikken parlett 3p"
    assert error in info["error"] and "\n" not in info["error"] and "\x1b" not in info["error"]


def test_an_agent_over_its_time_limit_is_interrupted_and_named():
    from zwick_ai.agents.guard import AgentFault, phase

    for body in ("time.sleep(60)", "while True: pass"):
        start = time.monotonic()
        with pytest.raises(AgentFault, match="at seat 2 failed in its move .*no answer within the time limit of 0.3 s"):
            with phase("x:Slow", 2, "move", 0.3, deal=1):
                exec(body)
        assert time.monotonic() - start < 3
    with pytest.raises(AgentFault, match="took .* over the time limit of 0.1 s"):  # an answer too late counts too
        with phase("x:Slow", 0, "move", 0.1):
            try:
                time.sleep(1)
            except BaseException:  # an agent that swallows the interrupt and answers late
                time.sleep(0.2)


def _hostile_run(folder: Path, spec: str, workers: int | str, env: dict | None = None, limit: float = 3):
    """``zwick tournament`` of ``spec`` against greedy in a process of its own: (exit status,
    stderr lines without compile notices, stdout, seconds, the results folder)."""
    out = folder / f"out-{abs(hash((spec, workers)))}"
    where = ["--backend", "ray", "--workers", "2"] if workers == "ray" else ["--workers", str(workers)]
    argv = [sys.executable, "-m", "zwick_ai.cli", "tournament", *PARLETT, "--agents", f"{spec};greedy",
            "--deals", "2", "--quiet", "--out", str(out), "--move-time-limit", str(limit), *where]  # fmt: skip
    # files, not pipes: a process an agent left behind holds the pipes it inherited open, so a run
    # read through pipes seems to last until that process ends, and afterwards none is left to find
    with open(f"{out}.stdout", "w+") as stdout, open(f"{out}.stderr", "w+") as stderr:
        start = time.monotonic()
        run = subprocess.run(argv, cwd=folder, env=os.environ | (env or {}), stdout=stdout, stderr=stderr, timeout=900)
        took = time.monotonic() - start
        stdout.seek(0)
        stderr.seek(0)
        return run.returncode, _without_compile_notices(stderr.read()), stdout.read(), took, out


def _without_compile_notices(text: str) -> list[str]:
    """The lines of ``text`` without the one-time compile notices (which the run's processes print
    each on its own, and which may share a line with another process's output)."""
    return [
        x for x in re.sub(r"zwick_ai: compiling the numba engine.*?then cached in [^)]*\)", "", text).splitlines() if x
    ]


def _marked(mark: str) -> list[str]:
    """The processes whose environment holds ``mark`` (everything a run and its agents started)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if mark.encode() in Path(f"/proc/{pid}/environ").read_bytes():
                found.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


def check_contained(folder: Path, spec: str, workers: int | str, error: str, limit: float = 3) -> float:
    """Run ``spec`` against greedy: one line naming it and ``error``, status 3, no traceback, no
    process left, no game of it recorded, the traceback in agent-errors.log. Returns the seconds."""
    mark = f"ZWICK_TEST_{os.getpid()}_{abs(hash((spec, workers)))}"
    code_, err, stdout, took, out = _hostile_run(folder, spec, workers, {mark: "1", "HOSTILE_SLEEP": "301"}, limit)
    time.sleep(0.5)
    left = _marked(mark)
    assert code_ == 3, (code_, err)
    assert len(err) == 1 and err[0].startswith("zwick: error: ") and "Traceback" not in stdout + "".join(err), err
    assert f"agent {spec!r}" in err[0] and error in err[0], err
    assert not left, left
    assert "(raylet)" not in stdout
    assert "agent-errors.log" in err[0] and (out / "agent-errors.log").is_file()
    # the agent fails in every game it plays: not one game of it is recorded
    recorded = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert all(spec not in line["seats"] for line in recorded)
    return took


#: the sweep's agents: what they do in act(), what their one line says
SWEEP = [
    ("act=raise", "RuntimeError: boom"),
    ("act=exit", "its worker process died (exit code 7)"),
    ("act=segfault", "its worker process died (signal SIGSEGV)"),
    ("act=kill9", "its worker process died (signal SIGKILL)"),
    ("act=hang", "no answer within the time limit of 3 s"),
    ("act=stubborn", "no answer within the time limit of 3 s; its worker process was ended"),
    ("act=forkhang", "no answer within the time limit of 3 s"),
    ("act=systemexit", "SystemExit: 0"),
]


def test_a_crashing_agent_is_named_within_seconds(hostile):
    """os._exit in an agent's move, with one worker (the games of outside agents always run in a
    worker process): named from the worker's note, well within 10 s of the crash."""
    stamp = hostile / "stamp"
    code, err, _, _, _ = _hostile_run(hostile, "hostile:Hostile,act=exit", 1, {"HOSTILE_STAMP": str(stamp)})
    reported = time.time()
    assert code == 3 and len(err) == 1 and "its worker process died (exit code 7)" in err[0], err
    assert reported - float(stamp.read_text()) < 10


@pytest.mark.slow
def test_an_agent_s_child_processes_end_with_its_game(hostile):
    """An agent that starts a ``sleep`` and a daemon (``sh -c 'sleep &'``) at every decision and
    otherwise plays: the tournament finishes, and nothing it started is left."""
    mark = f"ZWICK_TEST_{os.getpid()}_fork"
    code, err, _, _, out = _hostile_run(hostile, "hostile:Hostile,act=fork", 1, {mark: "1", "HOSTILE_SLEEP": "301"})
    assert code == 0 and not err, err
    assert len((out / "games.jsonl").read_text().splitlines()) == 12
    time.sleep(0.5)
    assert not _marked(mark)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("way, error", SWEEP)
def test_the_sweep_s_agents_are_contained(hostile, way, error, workers):
    spec = f"hostile:Hostile,{way}"
    assert check_contained(hostile, spec, workers, error) < 300


@pytest.mark.slow
@pytest.mark.parametrize(
    "way, env, error",
    [
        ("init=raise", {}, "failed to start: RuntimeError: boom"),
        ("init=exit", {}, "its process died (exit code 7) before it was built"),
        ("init=segfault", {}, "its process died (signal SIGSEGV)"),
        ("init=hang", {}, "no answer within the time limit of 5 s"),
        ("init=systemexit", {}, "SystemExit: 0"),
        ("ident=keyerror", {}, "KeyError: 'missing'"),
        ("", {"HOSTILE_IMPORT": "hang"}, "no answer within the time limit of 5 s"),
        ("", {"HOSTILE_IMPORT": "exit"}, "before it was built"),
        ("", {"HOSTILE_IMPORT": "systemexit"}, "SystemExit: 0"),
    ],
)
def test_an_agent_that_fails_to_start_is_named_before_any_game(hostile, way, env, error):
    spec = f"hostile:Hostile,{way}".rstrip(",")
    mark = f"ZWICK_TEST_{os.getpid()}_{abs(hash(spec))}"
    argv = [sys.executable, "-m", "zwick_ai.cli", "tournament", *PARLETT, "--agents", f"{spec};greedy", "--deals",
            "1", "--quiet", "--out", "start", "--start-time-limit", "5"]  # fmt: skip
    run = subprocess.run(argv, cwd=hostile, env=os.environ | env | {mark: "1"}, capture_output=True, text=True)
    err = _without_compile_notices(run.stderr)
    assert run.returncode == 2 and len(err) == 1 and f"{spec!r}" in err[0] and error in err[0], err
    assert not (hostile / "start" / "games.jsonl").exists() or not (hostile / "start" / "games.jsonl").read_text()
    time.sleep(0.5)
    assert not _marked(mark)


@pytest.mark.slow
@pytest.mark.parametrize("way, error", [SWEEP[0], SWEEP[1], SWEEP[4], SWEEP[7]])
def test_the_sweep_s_agents_are_contained_on_ray(hostile, way, error):
    pytest.importorskip("ray")
    if "worker process died" in error:
        error = "its worker died (WorkerCrashedError on Ray)"
    elif "time limit" in error:
        error = "no answer within the time limit"
    assert check_contained(hostile, f"hostile:Hostile,{way}", "ray", error) < 300


def test_forfeits_go_on_and_count_as_lost_deals(hostile, capsys):
    out = hostile / "forfeit"
    spec = f"hostile:Hostile,act=raise,after=3,once={hostile / 'failed-once'}"  # one game fails; the other deals are played
    argv = ["tournament", *PARLETT, "--agents", f"{spec};greedy", "--deals", "3", "--workers", "1", "--quiet",
            "--out", str(out), "--on-agent-error", "forfeit"]  # fmt: skip
    assert main(argv) == 3
    summary = json.loads((out / "summary.json").read_text())
    forfeits = [json.loads(x) for x in (out / "forfeits.jsonl").read_text().splitlines()]
    assert forfeits and all(f["agent"] == spec and "RuntimeError: boom" in f["error"] for f in forfeits)
    assert len(summary["forfeits"]) == len(forfeits) and summary["outside_agent_rules"]["on_agent_error"] == "forfeit"
    games = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    assert {(g["deal"], g["seating"]) for g in games}.isdisjoint({(f["deal"], f["seating"]) for f in forfeits})
    pair = summary["pairs"][0]
    lost = len({f["deal"] for f in forfeits})
    assert pair["forfeits_a"] == lost and pair["deals"] == 3 - lost
    assert summary["outside_agent_rules"]["move_time_limit"] == 60


@pytest.mark.slow
def test_a_leaderboard_board_builds_an_outside_agent_in_a_process_of_its_own(hostile):
    """Checking who plays a board: an outside agent that segfaults when built is left out, named,
    and this process lives on (in this process it would have ended it)."""
    from zwick_ai.eval import leaderboard

    spec = "hostile:Hostile,init=segfault"
    board = leaderboard.make_board("zwikken", "parlett", 3, {}, ["greedy", spec], start_time_limit=5)
    assert board.agents == ["greedy"]
    assert f"{spec!r}" in board.skipped[spec] and "its process died (signal SIGSEGV)" in board.skipped[spec]
