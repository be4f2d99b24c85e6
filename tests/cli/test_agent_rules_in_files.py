"""``zwick run`` and ``zwick leaderboard`` take the outside agents' rules (their clocks and what
their failure does) as keys of their TOML files, overridden by the command-line options of the
same names, and record them like ``zwick tournament`` does."""

from __future__ import annotations

import json

import pytest

from zwick_ai.cli import main
from zwick_ai.eval.agent_failures import RULE_KEYS
from zwick_ai.eval.experiment_files import parse_experiment, parse_leaderboard

EXPERIMENT = {"agents": ["greedy", "random"], "deals": 1, "game": "zwicken"}
BOARD = {"agents": ["random"], "anchors": ["greedy"], "deals": 1, "top": 0, "board": [{"game": "zwicken"}]}


def test_the_files_take_the_guard_s_rules_and_the_tournament_s_deals():
    from zwick_ai.eval import experiment_files
    from zwick_ai.eval.tournament import definition

    assert set(RULE_KEYS) <= set(experiment_files.EXPERIMENT_KEYS) & set(experiment_files.LEADERBOARD_KEYS)
    assert experiment_files.MAX_DEALS == definition.MAX_DEALS


@pytest.mark.parametrize("parse, base", [(parse_experiment, EXPERIMENT), (parse_leaderboard, BOARD)])
def test_the_rules_are_read_and_checked(parse, base):
    rules = {"move_time_limit": 7, "start_time_limit": 9.5, "on_agent_error": "forfeit"}
    assert parse(base | rules, "x").rules == rules
    assert parse(base, "x").rules == {}  # the defaults are the tournament's
    for bad, words in [
        (
            {"move_time_limit": True},
            "x: move_time_limit must be a number of seconds above 0 and at most 86400, not True",
        ),
        ({"start_time_limit": 0}, "x: start_time_limit must be a number of seconds above 0"),
        ({"move_time_limit": 10**6}, "at most 86400"),
        ({"on_agent_error": "retry"}, "x: on_agent_error must be one of stop, forfeit, not 'retry'"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse(base | bad, "x")


def test_zwick_run_records_the_file_s_rules_and_the_options_override_them(tmp_path, capsys):
    out = tmp_path / "exp"
    toml = tmp_path / "exp.toml"
    toml.write_text(
        'game = "zwicken"\nagents = ["greedy", "random"]\ndeals = 1\n'
        f'out = "{out}"\nmove_time_limit = 7\non_agent_error = "forfeit"\n'
    )
    assert main(["run", str(toml), "--workers", "1", "--quiet", "--start-time-limit", "33"]) == 0
    summary = json.loads((out / "zwicken" / "summary.json").read_text())
    assert summary["outside_agent_rules"] == {"move_time_limit": 7, "start_time_limit": 33, "on_agent_error": "forfeit"}
    capsys.readouterr()


def test_zwick_leaderboard_records_the_rules_per_board_and_pair(tmp_path, capsys):
    out = tmp_path / "lb"
    toml = tmp_path / "lb.toml"
    toml.write_text(
        'agents = ["greedy", "random"]\nanchors = ["greedy"]\ndeals = 1\ntop = 0\n'
        f'out = "{out}"\nstart_time_limit = 11\n[[board]]\ngame = "zwicken"\n'
    )
    assert main(["leaderboard", str(toml), "--workers", "1", "--quiet", "--move-time-limit", "5"]) == 0
    board = json.loads((out / "leaderboard.json").read_text())[0]
    want = {"move_time_limit": 5, "start_time_limit": 11, "on_agent_error": "stop"}
    assert board["outside_agent_rules"] == want and board["failed"] == {}
    pair = json.loads(next(out.glob("*/*--*/summary.json")).read_text())
    assert pair["outside_agent_rules"] == want
    capsys.readouterr()
