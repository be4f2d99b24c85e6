"""``zwick precompile``: its groups and what it says (fast), and that after it the first runs of
the main paths compile nothing, counted by numba's own compile events in a fresh process with a
cache of the test's own (slow: it fills an empty cache)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zwick_ai import _jit_cache
from zwick_ai.cli import main
from zwick_ai.cli.precompile import groups
from zwick_ai.precompile import Done, Group, chosen, notice_silenced, run_group, summary

ROOT = Path(__file__).resolve().parents[2]

#: the first runs of the main paths, in one fresh process: the numba compiles of each
FIRST_RUNS = r"""
import json, sys, tempfile
import numpy as np
from zwick_ai import _jit_cache
from zwick_ai.cli import main

def tournament(d):  # the README's first command, one deal
    assert main(["tournament", "--deals", "1", "--workers", "1", "--quiet", "--out", d]) == 0

def env(d):
    import gymnasium
    import zwick_ai.envs  # noqa: F401
    for env_id in ("zwick_ai/Zwicker-v0", "zwick_ai/Zwikken-v0"):
        e = gymnasium.make(env_id)
        _, info = e.reset(seed=1)
        for _ in range(10):
            _, _, done, cut, info = e.step(int(np.flatnonzero(info["action_mask"])[-1]))
            if done or cut:
                break

def vector(d):
    from zwick_ai.vector.game import VectorGame
    vec = VectorGame("zwicker(variant=classic,players=2)", 64, seed=5, opponents={1: "greedy"})
    ts = vec.reset()
    for _ in range(10):
        ts = vec.step(np.argmax(ts.legal_mask, axis=1))

def openspiel_bot(d):
    import pyspiel
    from zwick_ai.agents.base import make_agent
    from zwick_ai.eval.match import play_game
    game = pyspiel.load_game("zwicken")
    play_game(game, [make_agent("openspiel-ismcts:sims=30", game, seed=i) for i in range(game.num_players())], 3)

def mccfr(d):
    assert main(["train", "mccfr", "--game", "zwikken(players=3,variant=parlett)", "--iterations", "100",
                 "--eval-deals", "5", "--out", d]) == 0

out = {}
for f in (tournament, env, vector, openspiel_bot, mccfr):
    before = _jit_cache.compile_count()
    with tempfile.TemporaryDirectory() as d:
        f(d + "/out")
    out[f.__name__] = _jit_cache.compile_count() - before
print(json.dumps(out))
"""


def test_the_groups_and_their_order():
    """Named once each; the default runs the common groups in order, ``--all`` adds the rare ones."""
    every = groups()
    names = [g.name for g in every]
    assert len(set(names)) == len(names) and all(g.what for g in every)
    common = chosen(every, rare=False)
    assert [g.name for g in common] == [g.name for g in every if not g.rare]
    assert {"Zwicker", "environments", "VectorGame", "OpenSpiel bots", "MCCFR"} <= {g.name for g in common}
    assert chosen(every, rare=True) == list(every) and len(common) < len(every)


def test_a_group_counts_its_compiles_and_the_summary_says_so():
    """A workload that compiles nothing is reported as loaded from the cache; compiles are counted."""
    done = run_group(Group("nothing", "compiles nothing", lambda: None))
    assert done.compiles == 0 and done.seconds >= 0 and not done.helper
    assert summary([done]).splitlines()[-1].startswith("everything was already compiled")
    text = summary([Done("a", 3, 2.0), Done("bb", 0, 0.5)])
    assert "a   3 compiled, 2.0 s" in text and "bb  loaded from the cache, 0.5 s" in text
    assert text.splitlines()[-1].startswith("compiled 3 functions in")
    assert "more in a helper process" in summary([Done("z", 1, 9.0, helper=True)])


def test_the_notice_is_silenced_only_inside(monkeypatch):
    monkeypatch.delenv(_jit_cache.NOTICE_ENV, raising=False)
    with notice_silenced():
        assert os.environ[_jit_cache.NOTICE_ENV] == "0"
    assert _jit_cache.NOTICE_ENV not in os.environ


def test_help_names_the_command(capsys):
    with pytest.raises(SystemExit):
        main(["precompile", "--help"])
    assert "--all" in capsys.readouterr().out


def _run(argv: list[str], cache: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        timeout=7200,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.mark.slow
def test_after_precompile_the_first_runs_compile_nothing(tmp_path):
    """An empty cache: ``zwick precompile`` compiles; then a tournament, two environments, a
    ``VectorGame``, an OpenSpiel bot's game and an MCCFR run compile nothing (other deals and
    seeds than the precompile's own workloads); a second ``zwick precompile`` only loads."""
    cache = tmp_path / "numba"
    first = _run(["-m", "zwick_ai.cli", "precompile", "--no-progress"], cache)
    assert str(cache) in first.stderr and "compiled" in first.stderr
    counts = json.loads(_run(["-c", FIRST_RUNS], cache).stdout.strip().splitlines()[-1])
    assert counts == dict.fromkeys(("tournament", "env", "vector", "openspiel_bot", "mccfr"), 0)
    again = _run(["-m", "zwick_ai.cli", "precompile", "--no-progress"], cache)
    assert "everything was already compiled" in again.stderr and "compiling the numba engine" not in again.stderr
