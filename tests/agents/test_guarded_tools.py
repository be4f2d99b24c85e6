"""``zwick analyze --agent`` and ``zwick joker-study --strong-play`` run an agent from outside the
package as tournaments do: in a worker process, on a clock, its failure one named line with exit
status 3 and the traceback in ``agent-errors.log`` of the output folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = Path(__file__).with_name("hostile_agent.py")
PARLETT = ["--game", "zwikken", "--variant", "parlett", "--players", "3"]


def _zwick(folder: Path, *argv: str) -> tuple[int, list[str]]:
    """``zwick ARGV`` in a process of its own: its status and stderr lines (compile notices left out)."""
    with open(folder / "err.txt", "w+") as err, open(folder / "out.txt", "w+") as out:
        run = subprocess.run([sys.executable, "-m", "zwick_ai.cli", *argv], cwd=folder, stdout=out, stderr=err,
                             timeout=900, env=os.environ)  # fmt: skip
        err.seek(0)
        lines = [x for x in err.read().splitlines() if x.strip() and "compiling the numba" not in x]
    return run.returncode, lines


@pytest.fixture
def work(tmp_path):
    shutil.copy(HOSTILE, tmp_path / "hostile.py")
    (tmp_path / "joker_hostile.py").write_text(
        "from zwick_ai.agents import Param\nfrom hostile import Hostile\n\n\n"
        "class JokerHostile(Hostile):\n"
        '    PARAMS = (*Hostile.PARAMS, Param("joker", str, "", "the joker rule it follows"))\n'
    )
    code, _ = _zwick(tmp_path, "tournament", *PARLETT, "--agents", "greedy;random", "--deals", "1", "--workers", "1",
                     "--quiet", "--out", "t")  # fmt: skip
    assert code == 0
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    "way, error",
    [("raise", "failed in its move (decision 1 of zwikken parlett 3p): RuntimeError: boom"),
     ("exit", "its worker process died (exit code 7)")],
)  # fmt: skip
def test_analyze_names_an_outside_agent_that_fails(work, way, error):
    """In the main process ``act=exit`` would end ``zwick`` itself with status 7 and no word."""
    spec = f"hostile:Hostile,act={way},after=2"
    code, err = _zwick(work, "analyze", "t/games.jsonl", "--seat", "0", "--agent", f"{spec};worlds=2",
                       "--out", "a", "--quiet")  # fmt: skip
    assert code == 3 and len(err) == 1 and "Traceback" not in err[0], err
    assert err[0].startswith(f"zwick: error: agent {spec!r}") and error in err[0], err
    assert "traceback in a/agent-errors.log" in err[0] and (work / "a" / "agent-errors.log").is_file()
    assert not (work / "a" / "analysis.json").exists()


@pytest.mark.slow
def test_analyze_with_a_working_outside_agent_writes_its_analysis(work):
    code, err = _zwick(work, "analyze", "t/games.jsonl", "--seat", "0", "--agent", "hostile:Hostile;worlds=2",
                       "--out", "a", "--quiet")  # fmt: skip
    assert code == 0, err
    assert json.loads((work / "a" / "analysis.json").read_text())["agent"] == "hostile:Hostile;worlds=2,seed=0"


@pytest.mark.slow
def test_the_strong_joker_study_names_an_outside_agent_that_fails(work):
    spec = "joker_hostile:JokerHostile,act=exit,after=5"
    code, err = _zwick(work, "joker-study", "--variant", "dithmarschen", "--deals", "2", "--cv-samples", "0",
                       "--no-progress", "--strong-play", spec, "--out", "s")  # fmt: skip
    assert code == 3 and len(err) == 1, err
    assert f"agent {spec!r}" in err[0] and "of zwicker dithmarschen 4p)" in err[0], err  # a worker death: no deal yet
    assert "its worker process died (exit code 7)" in err[0] and (work / "s" / "agent-errors.log").is_file()
