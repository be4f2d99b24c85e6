"""Agents from outside the package: by import path (``module:Class``) from the current directory,
by an installed package's entry point, with one-line errors before any game; and identities that
cannot go stale (a changed weights file or source never reuses a folder's games)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import textwrap
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
