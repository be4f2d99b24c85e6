"""Compile the kernels of a Zwicker game and of its search in two processes at once.

With an empty numba cache the first game of a Zwicker tournament compiles one to three minutes of CPU
in one process while the other core waits. The kernels fall into two halves of similar cost that
meet only in the move generator (``kernels.gen_moves_ws``, which every turn and every search
links in):

- a helper process (:func:`start_helper`, running :func:`helper_main`) compiles the move
  generator and then the ISMCTS/PIMC ``search`` (and, for ``expert``, its ISMCTS);
- meanwhile this process (:func:`compile_in_two_processes`) compiles the chance steps, the
  determinizer's setup and the small entry points, waits until the helper reports the move
  generator, compiles the turn kernels (``turn_start_k``, ``step_k``) and, for ``expert``, its
  endgame search, and waits for the helper.

Each kernel is compiled for the argument types of its real calls, without running it, and lands in numba's on-disk cache, which both processes share; the games
afterwards load it. A kernel that the other process has not finished when it is needed is
compiled here as well: never wrong, only slower.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numba import typeof

from zwick_ai import _jit_cache
from zwick_ai.agents import expert_search, value_model, zwicker_search
from zwick_ai.processes import die_with_parent
from zwick_ai.zwicker import kernels
from zwick_ai.zwicker import steps as zwicker_steps
from zwick_ai.zwicker import worlds as zwicker_worlds

MOVES_DONE = "moves"  # the helper's line once the move generator is in the cache
PARENT_ENV = "ZWICK_PRECOMPILE_PARENT"  # the pid of the process that started the helper
SEARCH_AGENTS = ("ismcts", "pimc")  # the agents that run ``zwicker_search.search``
EXPERT_AGENTS = ("expert",)  # the agents that run ``expert_search``

I32 = np.zeros(1, np.int32)  # example arguments: only their types matter
I64 = np.zeros(1, np.int64)
I64_2D = np.zeros((1, 1), np.int64)
I32_2D = np.zeros((1, 1), np.int32)
F64 = np.zeros(1, np.float64)
F64_2D = np.zeros((1, 1), np.float64)


def _world_setup() -> zwicker_worlds.WorldSetup:
    """An example of the determinizer's setup (the types of ``resample_setup``'s result)."""
    return zwicker_worlds.WorldSetup(I64, I64, I64, 0, 0, 0, I32, I64_2D, I64, I64)


def _worlds() -> zwicker_search.Worlds:
    """An example of the determinizer's bundle (the types of ``DecisionSetup.worlds``)."""
    return zwicker_search.Worlds(I32, I32, 0, _world_setup(), I64, I64, I64)


def _settings() -> zwicker_search.Settings:
    """An example of the search's settings (the types of ``DecisionSetup.settings``)."""
    return zwicker_search.Settings(0.0, 0, False, 0.0)


def _compile(dispatcher: Any, *examples: object) -> None:
    """Compile ``dispatcher`` for the types of ``examples`` (or load it from the cache)."""
    dispatcher.compile(tuple(typeof(x) for x in examples))


def _moves() -> None:
    """The move generator, as the turn kernels and the search call it (rules, state, move
    buffer, workspace, scratch)."""
    _compile(kernels.gen_moves_ws, I32, I32, I64_2D, I64, I64)


def _search() -> None:
    """ISMCTS/PIMC's search, as ``DecisionSetup.run`` calls it."""
    _compile(zwicker_search.search, _worlds(), I32, 0, _settings(), zwicker_search.new_tree(2))


def _expert_ismcts() -> None:
    """``expert``'s ISMCTS and its world pool, as ``expert._ismcts`` and ``expert._pool`` call them
    (a value model has the empty model's types)."""
    worlds, tree = _worlds(), zwicker_search.new_tree(2)
    inference = expert_search.Inference(0.0, value_model.empty_model())
    _compile(expert_search.draw_pool, worlds, I64, 0, inference)
    _compile(expert_search.pool_cumulative, F64)
    leaf = expert_search.Leaf(0, value_model.empty_model(), 0.0)
    _compile(expert_search.ismcts, worlds, 0, 0, _settings(), tree, leaf, expert_search.Pool(I32_2D, F64))


def _expert_endgame() -> None:
    """``expert``'s endgame entry points, as ``expert._endgame`` calls them (greedy opponent model)."""
    _compile(expert_search.new_context, 0)
    _compile(expert_search.in_endgame, I32, I32, 0)
    ctx = expert_search.new_context(1)
    settings = expert_search.SolveSettings(0, False, False, 0.0)
    inference = expert_search.Inference(0.0, value_model.empty_model())
    _compile(expert_search.endgame_worlds, _worlds(), I64_2D, 0, ctx, I64, settings, inference, F64, F64_2D)


def _chance_and_setup(search: bool) -> None:  # search: the determinizer's setup too
    """What needs no move generator: the chance steps, the returns and, for the search, the
    determinizer's setup and the root statistics."""
    _compile(zwicker_steps.chance_step_k, I32, I32, I64, 0)
    _compile(zwicker_steps.returns_k, I32, I32, False)
    if search:
        _compile(zwicker_worlds.resample_setup, I32, I32, 0, I64)
        _compile(zwicker_search.root_stats, I32, I64_2D, zwicker_search.new_tree(2))


def _turns() -> None:
    """The turn kernels (they link in the move generator)."""
    _compile(zwicker_steps.turn_start_k, I32, I32, I64)
    _compile(zwicker_steps.step_k, I32, I32, I64_2D, I64, 0, I64)


def compile_all(search: bool, expert: bool = False) -> None:
    """Everything :func:`compile_in_two_processes` compiles, in this process alone."""
    _moves()
    _chance_and_setup(search or expert)
    _turns()
    if expert:
        _expert_endgame()
    if search:
        _search()
    if expert:
        _expert_ismcts()


def start_helper(search: bool, expert: bool = False) -> subprocess.Popen[str]:
    """The helper process (this interpreter and this copy of zwick_ai, silent on stderr: this
    process says that compiling has started)."""
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, _jit_cache.NOTICE_ENV: "0"}
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env[PARENT_ENV] = str(os.getpid())
    argv = [sys.executable, "-m", __name__, *(["--search"] if search else []), *(["--expert"] if expert else [])]
    # its own session: Ctrl-C in the terminal does not reach it (this process stops it, in
    # compile_in_two_processes), and it dies with this process however that ends (helper_main)
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True
    )


def _wait_for(helper: subprocess.Popen[str], line: str) -> None:
    """Until the helper prints ``line`` or ends."""
    assert helper.stdout is not None
    for got in helper.stdout:
        if got.strip() == line:
            return


def compile_in_two_processes(search: bool, expert: bool = False) -> bool:
    """With an empty cache, compile the kernels of a Zwicker game (with ``search`` those of
    ISMCTS/PIMC, with ``expert`` those of the expert) here and in a helper process at once. Returns whether anything compiled (False:
    the cache was warm, nothing was started)."""
    if not hasattr(zwicker_search.new_tree, "compile"):  # NUMBA_DISABLE_JIT: plain Python
        return False
    before = _jit_cache.compile_count()
    zwicker_search.new_tree(2)  # a small kernel: compiled now means the cache is empty
    if _jit_cache.compile_count() == before:
        return False
    helper = start_helper(search, expert)
    try:
        _chance_and_setup(search or expert)
        _wait_for(helper, MOVES_DONE)
        _turns()
        if expert:
            _expert_endgame()
        assert helper.stdout is not None
        helper.stdout.read()
        helper.wait()
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.wait()
    return True


def helper_main(argv: list[str]) -> None:
    """The helper's half: the move generator, then (``--search``) the search and (``--expert``)
    the expert's ISMCTS."""
    parent = os.environ.get(PARENT_ENV)
    die_with_parent(int(parent) if parent and parent.isdigit() else None)
    _moves()
    print(MOVES_DONE, flush=True)
    if "--search" in argv:
        _search()
    if "--expert" in argv:
        _expert_ismcts()


if __name__ == "__main__":
    helper_main(sys.argv[1:])
