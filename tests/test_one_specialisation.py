"""The kernels of the README's first command (a Zwicker tournament of the expert, ISMCTS, greedy and random)
compile one specialisation each (``zwick_ai.jit.kernel``), and the two-process precompile of an
empty cache (``agents.zwicker_precompile``) compiles exactly the specialisations the game uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import types

from zwick_ai.jit import widened

ROOT = Path(__file__).resolve().parents[1]

GAME_AFTER_PRECOMPILE = r"""
import json, sys
import pyspiel
import zwick_ai.games
from numba.core.registry import CPUDispatcher
from zwick_ai import chance_runs
from zwick_ai.agents import expert_search, zwicker_precompile as P, zwicker_search
from zwick_ai.agents.base import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.games import zwicker_bridge, zwicker_observer
from zwick_ai.zwicker import steps as zwicker_steps
from zwick_ai.zwicker import codec, history, kernels, worlds as zwicker_worlds

P.compile_all(search=True, expert=True)
game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
seats = ["ismcts:iters=30", "greedy", "expert:time=0,iters=30", "random"]
play_game(game, [make_agent(s, game, seed=i) for i, s in enumerate(seats)], 3)
sigs = {}
for m in (chance_runs, zwicker_search, expert_search, zwicker_bridge, zwicker_observer, zwicker_steps, codec, history, kernels, zwicker_worlds):
    for name, f in vars(m).items():
        if isinstance(f, CPUDispatcher) and f.signatures:
            sigs[f"{m.__name__}.{name}"] = [str(s) for s in f.signatures]
print(json.dumps(sigs))
"""


def test_widened_types():
    assert widened(types.literal(0)) == types.int64
    assert widened(types.int32) == types.int64
    assert widened(types.uint8) == types.int64
    assert widened(types.literal(True)) == types.boolean
    assert widened(types.uint64) == types.uint64  # not representable as int64
    assert widened(types.float64) == types.float64
    array = types.Array(types.int32, 1, "C")
    assert widened(array) == array


def signatures(**env: str) -> dict[str, list[str]]:
    """Every compiled specialisation of the first command's modules after the precompile and one
    game of the expert, ISMCTS, greedy and random, by function."""
    proc = subprocess.run(
        [sys.executable, "-c", GAME_AFTER_PRECOMPILE],
        cwd=ROOT,
        env={**os.environ, "ZWICK_COMPILE_NOTICE": "0", **env},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


ENTRY_POINTS = (
    "zwicker.kernels.gen_moves_ws",
    "zwicker.steps.chance_step_k",
    "zwicker.steps.turn_start_k",
    "zwicker.steps.step_k",
    "agents.zwicker_search.search",
    "zwicker.worlds.resample_setup",
    "agents.expert_search.ismcts",
    "agents.expert_search.endgame_worlds",
    "agents.expert_search.in_endgame",
    "agents.expert_search.draw_pool",
)


def test_the_precompiled_kernels_are_the_ones_the_game_calls():
    """From the package's cache (loading a kernel from it does not load its callees): the game
    adds no second specialisation to anything the precompile compiled."""
    sigs = signatures()
    assert all(f"zwick_ai.{name}" in sigs for name in ENTRY_POINTS)
    assert {name: s for name, s in sigs.items() if len(s) > 1} == {}


@pytest.mark.slow
def test_first_command_kernels_compile_once_each(tmp_path):
    """From an empty cache, so that every kernel on the way compiles (minutes of CPU)."""
    sigs = signatures(NUMBA_CACHE_DIR=str(tmp_path))
    assert len(sigs) > 50 and all(
        f"zwick_ai.{name}" in sigs for name in ENTRY_POINTS
    )  # the callees too (warm: about 20)
    assert {name: s for name, s in sigs.items() if len(s) > 1} == {}


TWO_PROCESSES = r"""
from zwick_ai import _jit_cache
from zwick_ai.agents import zwicker_precompile as P

started = P.compile_in_two_processes(search=True, expert=True)
before = _jit_cache.compile_count()
P.compile_all(search=True, expert=True)
print(started, _jit_cache.compile_count() - before)
"""


@pytest.mark.slow
def test_two_processes_fill_an_empty_cache(tmp_path):
    """An empty cache: the helper is started and afterwards nothing of the list compiles again;
    a second run finds the cache warm and starts nothing."""

    def run() -> str:
        proc = subprocess.run(
            [sys.executable, "-c", TWO_PROCESSES],
            cwd=ROOT,
            env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "ZWICK_COMPILE_NOTICE": "0"},
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout.strip().splitlines()[-1]

    assert run() == "True 0"
    assert run() == "False 0"
