"""The leaderboard says which measure ranks it and shows where the other measure ranks otherwise:
a board with points ratings ranks by them and marks the wins ranks that differ; a board saved
before them ranks by Bradley–Terry and marks the ranks by its pairs' points (least squares)."""

from __future__ import annotations

import numpy as np
import pytest

from zwick_ai.eval import leaderboard, pictures
from zwick_ai.eval.ratings import points_ratings_with_ci


def pair(a: str, b: str, mean: float) -> dict:
    return {"a": a, "b": b, "deals": 50, "mean_diff": mean, "ci95": [mean - 1, mean + 1], "wins_a": 20,
            "draws": 0, "losses_a": 30}  # fmt: skip


def rated(order: list[str], values: list[float]) -> list[dict]:
    return [{"agent": a, "rating": v, "ci95": [v - 1.0, v + 1.0]} for a, v in zip(order, values, strict=True)]


def test_a_points_board_ranks_by_points_and_marks_the_wins_ranks_that_differ():
    board = {
        "board": "zwikken modern 3p",
        "game": "zwikken",
        "agents": ["greedy", "ismcts", "random"],
        "points_ratings": rated(["greedy", "ismcts", "random"], [0.8, 0.5, -1.3]),
        "ratings": rated(["ismcts", "greedy", "random"], [62.0, 48.0, -111.0]),
        "pairs": [],
    }
    assert leaderboard.ranking(board)[0] == "points"
    assert leaderboard.other_ranks(board) == {"greedy": " (#2 by wins)", "ismcts": " (#1 by wins)"}
    lines = leaderboard.headline([board])
    assert "| `greedy` | **+0.80 [-0.20, +1.80]** (#2 by wins) |" in lines
    assert "| `random` | -1.30 [-2.30, -0.30] |" in lines


def test_a_board_saved_before_points_ratings_is_marked_by_its_pairs_points():
    # greedy wins more deals than ismcts (rated higher) but by smaller margins than ismcts's wins
    pairs = [pair("ismcts", "greedy", 1.0), pair("ismcts", "random", 3.0), pair("greedy", "random", 1.0)]
    board = {"board": "b", "game": "zwicker", "agents": ["greedy", "ismcts", "random"], "pairs": pairs,
             "ratings": rated(["greedy", "ismcts", "random"], [30.0, 10.0, -40.0])}  # fmt: skip
    # the least-squares fit of the three means (a round robin: the mean margin): ismcts +4/3, greedy 0, random -4/3
    assert leaderboard.points_order(board) == ["ismcts", "greedy", "random"]
    assert leaderboard.other_ranks(board) == {"greedy": " (#2 by points)", "ismcts": " (#1 by points)"}
    diffs = np.array([[1.0, 3.0, 1.0], [1.0, 3.0, 1.0]])  # the same fit from per-deal differences
    r, _, _ = points_ratings_with_ci(3, [(1, 0), (1, 2), (0, 2)], diffs, resamples=10)
    assert r.tolist() == pytest.approx([0.0, 4 / 3, -4 / 3], abs=1e-12)


def test_the_board_section_states_each_pairs_verdict():
    d = np.array([1.0, 2.0, -0.5, 3.0, 1.5, 2.0, 0.5, 1.0])
    p = leaderboard._pair_summary("a", "b", d)
    assert p["verdict"]["case"] in ("both", "points only")
    board = {"board": "b", "game": "zwicker", "agents": ["a", "b"], "pairs": [p], "deals": 8, "skipped": {},
             "ratings": rated(["a", "b"], [50.0, -50.0]), "points_ratings": rated(["a", "b"], [0.9, -0.9])}  # fmt: skip
    text = leaderboard.markdown([board | {"machine": "2 CPUs, load average 3.1"}], "t", "d", "c")
    assert "Machine at the start of its first pair: 2 CPUs, load average 3.1." in text
    assert "| a | b | deals | mean diff a − b | 95% CI | W-D-L | sign test | verdict |" in text
    assert f"| {p['verdict']['case']} |" in text and "Ranked by points (chips) a deal" in text


def test_leaderboard_png_draws_each_boards_ranking_with_its_intervals(tmp_path):
    points = {"board": "zwikken modern 3p", "game": "zwikken", "agents": ["greedy", "ismcts", "random"],
              "points_ratings": rated(["greedy", "ismcts", "random"], [0.8, 0.5, -1.3]),
              "ratings": rated(["ismcts", "greedy", "random"], [62.0, 48.0, -111.0]), "pairs": []}  # fmt: skip
    wins = {"board": "zwicker classic 4p", "game": "zwicker", "agents": ["greedy", "mccfr:policy=a.npz", "random"],
            "ratings": [{"agent": "mccfr:policy=a.npz", "rating": 30.0, "ci95": [-10.0, 70.0]},
                        {"agent": "greedy", "rating": 20.0, "ci95": [5.0, 35.0]},
                        {"agent": "random", "rating": -50.0, "ci95": [float("-inf"), -20.0]}]}  # fmt: skip
    groups = leaderboard.figure_groups([points, wins])
    assert [g["rows"] for g in groups] == [["greedy", "mccfr:policy=…", "random"], ["greedy", "ismcts", "random"]]
    assert [p["xlabel"] for g in groups for p in g["boards"]] == [
        "Bradley–Terry on deals won (Elo)",
        "chips a deal (mean 0)",
    ]
    drawn = pictures.plot_boards(groups, tmp_path / "leaderboard.png", "t")
    assert (tmp_path / "leaderboard.png").read_bytes()[:4] == b"\x89PNG"
    got = {(d["board"], d["agent"]): d for d in drawn}
    assert len(got) == 6
    for board, key in ((points, "points_ratings"), (wins, "ratings")):
        for r in board[key]:
            bar = got[board["board"], leaderboard._family(r["agent"])]
            assert bar["mean"] == pytest.approx(r["rating"])
            if all(np.isfinite(r["ci95"])):
                assert bar["ci95"] == pytest.approx(r["ci95"])
            else:
                assert bar["ci95"] == [None, None]  # an unbounded interval: the point alone
    kinds = {k: d["kind"] for k, d in got.items()}
    assert kinds["zwicker classic 4p", "mccfr:policy=…"] == "level"  # its CI reaches 0: grey
    assert kinds["zwicker classic 4p", "greedy"] == "ahead" and kinds["zwikken modern 3p", "random"] == "behind"
    assert kinds["zwicker classic 4p", "random"] == "behind"  # hi < 0 tells, whatever the lower bound
    text = leaderboard.markdown([points | {"deals": 50, "skipped": {}}], "t", "d", "c")
    assert "![every board's ratings with their 95% CIs](leaderboard.png)" in text
