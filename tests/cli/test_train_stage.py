"""``zwick train stage``: writes the stage values into its folder with the command that made them,
``resolve`` plays them through ``model=``, and a second run never overwrites the first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from zwick_ai.agents.base import make_agent


def _zwick(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zwick_ai.cli", *argv], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.slow  # two commands that each fit a model, ~45 s
def test_train_stage_writes_a_model_resolve_plays_and_never_overwrites_it(tmp_path: Path) -> None:
    out = tmp_path / "stage-christiansen"
    done = _zwick("train", "stage", "--variant", "christiansen", "--hands", "40", "--out", str(out))
    assert done.returncode == 0, done.stderr
    model = out / "stage.npz"
    meta = json.loads(str(np.load(model)["meta"]))
    assert meta["command"].startswith("zwick train stage --variant christiansen")
    assert meta["players"] == 3 and meta["rows_per_boundary"] == 3 and meta["hands"] == 40
    assert "held-out MAE" in done.stdout
    game = pyspiel.load_game("zwicker(variant=christiansen,players=3)")
    agent = make_agent(f"resolve:time=0,iters=3,leaf=model,model={model}", game, seed=1)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    moves = agent.act(state)  # a move's actions, the first legal now
    assert moves and moves[0] in state.legal_actions()
    before = model.read_bytes()
    again = _zwick("train", "stage", "--variant", "christiansen", "--hands", "40", "--out", str(out))
    assert again.returncode != 0 and model.read_bytes() == before
    assert "Traceback" not in again.stderr and again.stderr.strip().count("\n") == 0
