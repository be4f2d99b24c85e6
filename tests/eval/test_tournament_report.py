"""A tournament's report cannot be misread: it opens with the verdict, ranks by points with the
wins rating beside it, names its clock and the machine's load, times decisions in CPU and wall
seconds; its pictures show the intervals they were given and grey what is level; and
``--until-resolved`` stops a clear pair early."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zwick_ai.cli import main
from zwick_ai.eval import pictures
from zwick_ai.eval import tournament as T
from zwick_ai.eval.tournament import report as tournament_report
from zwick_ai.eval.tournament.folder import read_games
from zwick_ai.eval.tournament.games import task_key
from zwick_ai.eval.tournament.summary import pair_summary
from zwick_ai.eval.verdict import pair_verdict

PARAMS = {"variant": "classic", "players": 2}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "t"
    t = T.Tournament(["greedy", "random"], game="zwicker", params=PARAMS, deals=4, seed=3, clock="cpu")
    return out, T.run_tournament(t, out, progress=False)


def test_the_report_opens_with_the_verdict_and_ranks_by_points(finished):
    out, summary = finished
    text = (out / "report.md").read_text()
    assert text.index("## Verdict") < text.index("## Ratings, ranked by points a deal") < text.index("## Pairs")
    (pair,) = summary["pairs"]
    assert f"- {pair['verdict']['text']}" in text
    assert "count the CPU time of the searching thread (`--clock cpu`)" in text
    assert "Machine at the start of the run that played the games:" in text and "load average" in text
    assert "| rank | agent | points rating | 95% CI | deals won: Bradley–Terry | 95% CI | rank by wins |" in text
    assert "| CPU s/decision | CPU s/decision, median game | wall s/decision |" in text
    # the points rating of two agents is half their margin each way
    top, bottom = summary["points_ratings"]
    assert top["rating"] == pytest.approx(abs(pair["mean_diff"]) / 2)
    assert bottom["rating"] == pytest.approx(-top["rating"])
    assert summary["ranking"] == "points"


def test_thinking_time_is_cpu_and_wall_from_the_games(finished):
    out, summary = finished
    games = [json.loads(x) for x in (out / "games.jsonl").read_text().splitlines()]
    for agent in ("greedy", "random"):
        cpu = sum(g["cpu_seconds"][p] for g in games for p, s in enumerate(g["seats"]) if s == agent)
        wall = sum(g["seconds"][p] for g in games for p, s in enumerate(g["seats"]) if s == agent)
        n = sum(1 for g in games for seat, _, _ in g["moves"] if g["seats"][seat] == agent)
        timing = summary["timing"][agent]
        assert timing["decisions"] == n
        assert timing["cpu_seconds_per_decision"] == pytest.approx(cpu / n)
        assert timing["seconds_per_decision"] == pytest.approx(wall / n)
        per_game = []  # each game's CPU seconds a decision of the agent's seats, the slow way
        for g in games:
            mine = [p for p, s in enumerate(g["seats"]) if s == agent]
            moves = sum(1 for seat, _, _ in g["moves"] if seat in mine)
            if moves:
                per_game.append(sum(g["cpu_seconds"][p] for p in mine) / moves)
        assert timing["cpu_median_game"] == pytest.approx(float(np.median(per_game)))
        assert timing["cpu_slowest_game"] == pytest.approx(max(per_game))


def test_a_few_slow_games_are_called_out_beside_the_mean():
    timing = {"cpu_seconds_per_decision": 0.1075, "cpu_median_game": 0.036, "cpu_slowest_game": 6.84}
    even = {"cpu_seconds_per_decision": 0.047, "cpu_median_game": 0.036, "cpu_slowest_game": 0.94}
    text = tournament_report.slow_games_text({"timing": {"expert:time=0.05": timing, "ismcts:time=0.05": even}})
    assert text == (
        " `expert:time=0.05`'s mean is 3.0 times its median game's: its slowest game took 6.84 s a decision "
        "(one-off work such as numba compiling in a fresh worker process counts in the game it happens in)."
    )
    assert (
        tournament_report.slow_games_text({"timing": {"a": even | {"cpu_median_game": None}}}) == ""
    )  # games before CPU time
    quick = {"cpu_seconds_per_decision": 0.0017, "cpu_median_game": 0.0002, "cpu_slowest_game": 0.03}
    assert (
        tournament_report.slow_games_text({"timing": {"greedy": quick}}) == ""
    )  # a millisecond's mean misleads no one


def test_games_recorded_before_cpu_time_report_wall_time_only(finished):
    out, _ = finished
    t = T.Tournament(["greedy", "random"], game="zwicker", params=PARAMS, deals=4, seed=3, clock="cpu")
    expected = {task_key(x): x for x in T.tasks(t)}
    done = read_games(out / "games.jsonl", expected, str(t.load()), print, repair=False)
    old = {k: v | {"cpu_seconds": None} for k, v in done.items()}
    summary = T.summarize(t, old)
    assert summary["timing"]["greedy"]["cpu_seconds_per_decision"] is None
    assert "| – |" in tournament_report.report_markdown(summary)


def rating(agent: str, value: float, half: float) -> dict:
    return {"agent": agent, "rating": value, "ci95": [value - half, value + half]}


def summary_of(pairs: list[tuple[str, str, float, float, float]]) -> dict:
    agents = sorted({p[0] for p in pairs} | {p[1] for p in pairs})
    return {
        "game": "zwicker",
        "params": {"variant": "grupp"},
        "deals": 60,
        "agents": agents,
        "pairs": [{"a": a, "b": b, "mean_diff": m, "ci95": [lo, hi]} for a, b, m, lo, hi in pairs],
        # best first, as a summary lists them: the last agent alphabetically
        "points_ratings": [rating(a, float(k), 1.0) for k, a in enumerate(agents)][::-1],
        "ratings": [rating(a, 10.0 * k, 30.0) for k, a in enumerate(agents)][::-1],
    }


def test_pairs_png_draws_each_interval_and_greys_the_level_pairs(tmp_path):
    s = summary_of([("a", "b", 0.53, -0.54, 1.60), ("a", "c", 4.0, 2.0, 6.0), ("b", "c", -3.0, -5.0, -1.0)])
    drawn = pictures.plot_pairs(s, tmp_path / "pairs.png")
    assert (tmp_path / "pairs.png").read_bytes()[:4] == b"\x89PNG"
    for p, bar in zip(s["pairs"], drawn["pairs"], strict=True):
        assert (bar["a"], bar["b"]) == (p["a"], p["b"])
        assert bar["mean"] == pytest.approx(p["mean_diff"]) and bar["ci95"] == pytest.approx(p["ci95"])
    assert [b["kind"] for b in drawn["pairs"]] == ["level", "ahead", "behind"]
    # the matrix: the level pair (a, b) and the diagonal masked to grey / white, the others coloured
    want = np.array([[False, False, True], [False, False, True], [True, True, False]])
    assert (drawn["resolved"] == want).all()
    assert drawn["matrix"][0, 2] == 4.0 and drawn["matrix"][2, 1] == 3.0


def test_ratings_png_draws_both_ratings_with_their_intervals(tmp_path):
    s = summary_of([("a", "b", 1.0, 0.5, 1.5)])
    drawn = pictures.plot_ratings(s, tmp_path / "ratings.png")
    assert set(drawn) == {"points", "wins"}
    for name, key in (("points", "points_ratings"), ("wins", "ratings")):
        want = {r["agent"]: r for r in s[key]}
        assert [b["agent"] for b in drawn[name]] == ["b", "a"]  # the points ranking's order, best first
        for bar in drawn[name]:
            assert bar["mean"] == pytest.approx(want[bar["agent"]]["rating"])
            assert bar["ci95"] == pytest.approx(want[bar["agent"]]["ci95"])


def test_until_resolved_stops_a_clear_pair_early(tmp_path, capsys):
    out = tmp_path / "seq"
    args = ["tournament", "--variant", "classic", "--players", "2", "--agents", "greedy;random"]
    assert main([*args, "--deals", "6", "--until-resolved", "--max-deals", "60", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    seq = summary["sequential"]
    assert seq["plan"] == [6, 9, 14, 21, 32, 48, 60] and seq["resolved"] and seq["deals"] < 60
    assert summary["deals"] == seq["deals"] and seq["intervals"][0][0] > 0
    report = (out / "report.md").read_text()
    assert "Sequential run (`--until-resolved`): stopped at look" in report
    assert "--until-resolved --max-deals 60" in summary["command"]
    assert main([*args, "--deals", "6", "--max-deals", "60", "--out", str(tmp_path / "x")]) == 2
    assert "--max-deals is the cap of --until-resolved" in capsys.readouterr().err


def test_the_report_says_how_many_deals_a_level_pair_needs():
    unit_pair = pair_summary("a", "b", np.array([3.0, -2.0, 1.0, -1.0, 2.5, -2.0]), "points")
    assert unit_pair["verdict"]["points"] is None and unit_pair["resolve"]["width"] > 6
    s = {"game": "zwicker", "pairs": [unit_pair]}
    (line,) = [x for x in tournament_report.verdict_lines(s) if x.startswith("- ")]
    assert "to resolve ±0.25 points a deal (the 95% CI that wide): about" in line


def test_the_committed_reports_keep_their_fields(finished):
    out, _ = finished
    head = (out / "ratings.csv").read_text().splitlines()[0].split(",")
    assert head[:5] == ["rank", "agent", "points_rating", "points_ci95_lo", "points_ci95_hi"]
    assert head[5:] == ["wins_rank", "wins_rating", "wins_ci95_lo", "wins_ci95_hi"]
    assert (out / "summary.csv").read_text().splitlines()[0].endswith(",sign_test_p,verdict")
    assert Path(out / "pairs.png").exists() and Path(out / "ratings.png").exists()


def test_zwick_runs_table_names_the_clock_the_machine_and_a_disagreement_above_the_table():
    from zwick_ai.eval.experiment_files import ExperimentFile
    from zwick_ai.eval.orchestrate import experiment_table

    e = ExperimentFile("d", "zwicker", ["grupp", "classic"], {}, {}, ["a", "b"], 60, 0, "o", None, "local", None, {})
    agree = pair_summary("a", "b", np.array([2.0, 3.0, 1.0, 2.5, 1.5, 2.0, 3.0, 1.0]), "points")
    split = summary_of([("a", "b", 0.53, -0.54, 1.60)])
    split["pairs"][0]["verdict"] = pair_verdict("a", "b", 0.53, [-0.54, 1.60], 37, 4, 19)
    summaries = {
        "grupp": split | {"clock": "wall", "machine": "2 CPUs, load average 5.8"},
        "classic": summary_of([("a", "b", 2.0, 1.0, 3.0)]) | {"pairs": [agree], "clock": "wall", "machine": "load 1.2"},
    }
    lines = experiment_table(e, "x.toml", summaries)
    table = next(k for k, line in enumerate(lines) if line.startswith("| agent |"))
    clock = next(k for k, line in enumerate(lines) if line.startswith("Clock:"))
    assert lines[clock] == (
        "Clock: the searches' time budgets (`time=`) count wall time. Machine at the start of each variant's run: "
        "grupp: 2 CPUs, load average 5.8; classic: load 1.2."
    )
    (above,) = [line for line in lines[:table] if "disagree" in line]
    assert above.startswith("grupp: **Points and deals won disagree** for this pair")
    assert clock < lines.index(above) < table
