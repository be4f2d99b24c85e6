"""docs/agents.md ("Write your own agent") runs as written: its Python blocks in the default run,
its command lines for real (two worker processes, a local Ray instance, the torch example) in the
slow run; and ``examples/`` does what the page says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "agents.md"
EXAMPLES = ROOT / "examples"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), re.S)


def env() -> dict[str, str]:
    """The environment of a user's shell, with this checkout's zwick_ai first on the path."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_the_page_s_agent_is_the_example_file():
    assert blocks("python")[0] == (EXAMPLES / "my_agent.py").read_text()
    assert len([line for line in blocks("python")[0].splitlines() if line.strip()]) <= 30


def test_the_page_s_python_blocks_run(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    shutil.copy(EXAMPLES / "my_agent.py", tmp_path / "my_agent.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace: dict = {}
    try:
        for block in blocks("python"):
            exec(compile(block, str(PAGE), "exec"), namespace)
    finally:
        sys.modules.pop("my_agent", None)
    assert (tmp_path / "results" / "my-agent" / "report.md").is_file()


def test_the_page_s_entry_point_table_names_the_group():
    from zwick_ai.agents.outside import ENTRY_POINT_GROUP

    (toml,) = blocks("toml")
    group = tomllib.loads(toml)["project"]["entry-points"]
    assert list(group) == [ENTRY_POINT_GROUP]


@pytest.mark.slow
def test_the_page_s_command_lines_run_from_a_fresh_folder(tmp_path):
    """The commands of the page, as a user types them, in a folder outside the repository: two
    worker processes, a local Ray instance, and the torch example (trained 3 s instead of 20)."""
    pytest.importorskip("ray")
    pytest.importorskip("torch")
    shutil.copy(EXAMPLES / "my_agent.py", tmp_path / "my_agent.py")
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    for block in blocks("sh"):
        script = block.replace("--seconds 20", "--seconds 3")
        done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env(), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "Traceback" not in done.stderr
    report = (tmp_path / "results" / "mine" / "report.md").read_text()
    assert "`my_agent:MyAgent`" in report
    ray_folder = next((tmp_path / "results").glob("tournament-dithmarschen-*"))
    assert "`my_agent:MyAgent,min_points=3`" in (ray_folder / "report.md").read_text()
    assert "`torch_policy:TorchPolicy`" in (tmp_path / "examples" / "results" / "torch" / "report.md").read_text()


@pytest.mark.slow
def test_the_report_s_command_reruns_in_a_shell_and_a_leaderboard_takes_the_agent(tmp_path):
    shutil.copy(EXAMPLES / "my_agent.py", tmp_path / "my_agent.py")
    run = ["zwick", "tournament", "--agents", "my_agent:MyAgent;greedy", "--deals", "2", "--workers", "2"]
    first = subprocess.run([*run, "--out", "out dir"], cwd=tmp_path, env=env(), capture_output=True, text=True)
    assert first.returncode == 0, first.stderr[-2000:]
    summary = json.loads((tmp_path / "out dir" / "summary.json").read_text())
    command = summary["command"]
    assert "'out dir'" in command  # shell-quoted
    again = subprocess.run(command, shell=True, cwd=tmp_path, env=env(), capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((tmp_path / "out dir" / "summary.json").read_text())["pairs"] == summary["pairs"]
    (tmp_path / "board.toml").write_text(
        'agents = ["my_agent:MyAgent", "greedy", "random"]\nanchors = ["greedy"]\ndeals = 2\nworkers = 2\n'
        '[[board]]\ngame = "zwicker"\nvariant = "dithmarschen"\n'
    )
    board = subprocess.run(["zwick", "leaderboard", "board.toml", "--quiet"], cwd=tmp_path, env=env(),
                           capture_output=True, text=True)  # fmt: skip
    assert board.returncode == 0, board.stderr[-2000:]
    assert "my_agent:MyAgent" in (tmp_path / "results" / "board" / "leaderboard.md").read_text()


@pytest.mark.slow
def test_a_replaced_weights_file_never_prints_the_old_result(tmp_path):
    """The same command into the same folder after new weights behind net:model=PATH: refused in
    one line, the old summary not printed."""
    model = tmp_path / "model.npz"
    weights = ROOT / "zwick_ai" / "agents" / "weights"
    shutil.copy(weights / "dithmarschen-4p-after.npz", model)
    run = [
        "zwick",
        "tournament",
        "--agents",
        f"net:model={model};greedy",
        "--deals",
        "2",
        "--workers",
        "2",
        "--out",
        "o",
    ]
    assert subprocess.run(run, cwd=tmp_path, env=env(), capture_output=True).returncode == 0
    shutil.copy(weights / "dithmarschen-4p-move.npz", model)
    again = subprocess.run(run, cwd=tmp_path, env=env(), capture_output=True, text=True)
    assert again.returncode == 2 and "holds a different tournament" in again.stderr
    assert "Ratings" not in again.stdout and "Traceback" not in again.stderr


@pytest.mark.slow  # about two minutes of training
def test_the_torch_example_trains_a_policy_that_enters_a_tournament(tmp_path, monkeypatch):
    """A tiny torch policy trained for a few seconds on VectorGame plays a tournament through
    PolicyAgent: the example's TorchPolicy is all the code it needs."""
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import torch_policy

    from zwick_ai.eval.tournament import Tournament, run_tournament

    try:
        torch_policy.save(torch_policy.train(seconds=2, games=16), "torch_policy.npz")
        t = Tournament(
            ["torch_policy:TorchPolicy", "random"], game="zwicker", params={"variant": "dithmarschen"}, deals=1
        )
        summary = run_tournament(t, tmp_path / "out", progress=False)
    finally:
        sys.modules.pop("torch_policy", None)
    assert summary is not None and summary["agents"] == ["torch_policy:TorchPolicy", "random"]
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert "torch_policy.npz" in config["identity"]["agents_resolved"][0]["files"]
