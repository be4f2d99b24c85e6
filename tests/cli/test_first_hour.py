"""What a new user meets in the first hour: one way to name a game in every command, a one-line
error (no traceback) for bad input, nothing lost or overwritten, and help that reads well."""

from __future__ import annotations

import argparse
import code
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from zwick_ai import zwicker
from zwick_ai.cli import joker_study as joker_study_cmd
from zwick_ai.cli import main
from zwick_ai.zwicker.engine import MAX_EXACT_UNITS

ROOT = Path(__file__).resolve().parents[2]
MICRO = ["-o", "ranks=A2345", "-o", "suits=CD", "-o", "hand_size=2", "-o", "table_size=2", "-o", "stages=1"]


def one_line_error(capsys, argv: list[str]) -> str:
    """Run ``zwick ARGV``, which must fail with exit code 2 and one line on stderr; that line."""
    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


# ------------------------------------------------------------------------------------------------
# One way to name a game
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("jokers", ["15", "x15", "X15"])
def test_tournament_takes_one_joker_as_an_option(tmp_path, capsys, jokers):
    out = tmp_path / "t"
    argv = ["tournament", "-o", f"jokers={jokers}", "--agents", "greedy;random", "--deals", "1"]
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(out)]) == 0
    config = json.loads((out / "config.json").read_text())
    assert "jokers=x15" in config["identity"]["game_string"]
    assert capsys.readouterr().out.count("| `greedy` | `random` | 1 |") == 1


def test_selfplay_takes_options_and_game_strings(capsys):
    assert main(["selfplay", "-o", "jokers=15+25", "--games", "5", "--quiet"]) == 0
    assert "dithmarschen" in capsys.readouterr().out
    game = "zwicker(variant=classic,players=2,forced_capture=off)"
    assert main(["selfplay", "--game", game, "--games", "5", "--quiet"]) == 0
    assert "classic" in capsys.readouterr().out
    assert "selfplay plays zwicker only" in one_line_error(capsys, ["selfplay", "--game", "zwikken", "--games", "2"])


def test_tournament_takes_a_game_string(tmp_path, capsys):
    out = tmp_path / "g"
    argv = ["tournament", "--game", "zwicker(variant=classic,players=2)", "--agents", "greedy;random"]
    assert main([*argv, "--deals", "1", "--workers", "1", "--quiet", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["params"]["variant"] == "classic"
    # the same game named the other way resumes the same folder (nothing replayed)
    before = (out / "games.jsonl").read_bytes()
    argv = ["tournament", "--variant", "classic", "--players", "2", "--agents", "greedy;random"]
    assert main([*argv, "--deals", "1", "--workers", "1", "--quiet", "--out", str(out)]) == 0
    assert (out / "games.jsonl").read_bytes() == before
    capsys.readouterr()


def test_train_takes_our_games_both_ways_and_other_openspiel_games(tmp_path, capsys):
    game = "zwicker(variant=dithmarschen,players=2,ranks=A4,suits=CD,jokers=15,hand_size=2,table_size=1,stages=1)"
    assert main(["train", "cfr", "--game", game, "--iterations", "3", "--out", str(tmp_path / "a")]) == 0
    argv = ["train", "cfr", "--game", "zwicker", "--variant", "dithmarschen", "--players", "2", "-o", "ranks=A4"]
    argv += ["-o", "suits=CD", "-o", "jokers=x15", "-o", "hand_size=2", "-o", "table_size=1", "-o", "stages=1"]
    assert main([*argv, "--iterations", "3", "--out", str(tmp_path / "b")]) == 0
    a, b = (json.loads((tmp_path / x / "checkpoint.json").read_text()) for x in "ab")
    assert a["game"] == b["game"] and "jokers=x15" in a["game"]
    capsys.readouterr()
    err = one_line_error(capsys, ["train", "cfr", "--game", game, "--iterations", "5", "--out", str(tmp_path / "a")])
    assert "already holds a training run" in err and "--resume" in err


# ------------------------------------------------------------------------------------------------
# One-line errors naming what is valid
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["train", "cfr", "--game", "nosuch(players=3)", "--iterations", "2", "--out", "x"], "unknown game 'nosuch'"),
        (
            ["train", "cfr", "--game", "zwikken(colour=red)", "--iterations", "2", "--out", "x"],
            "unknown option 'colour'",
        ),
        (["train", "cfr", "--game", "zwicker(jokers=16)", "--iterations", "2", "--out", "x"], "valid: 15, 17, 20"),
        (["train", "cfr", "--game", "kuhn_poker", "--variant", "x", "--iterations", "2", "--out", "x"], "write kuhn"),
        (["train", "cfr", "--game", "kuhn_poker", "--iterations", "0", "--out", "x"], "--iterations must be from 1"),
        (["train", "cfr", "--iterations", "2", "--out", "x"], "give the game with --game"),
        (["tournament", "-o", "colour=red", "--deals", "1"], "unknown option 'colour'"),
        (["tournament", "-o", "jokers=15+26", "--deals", "1"], "invalid joker value 26"),
        (["tournament", "-o", "magger=maybe", "--deals", "1"], "valid values: true, false"),
        (["tournament", "--game", "nosuch", "--deals", "1"], "valid games: zwicker, zwikken, zwicken"),
        (["tournament", "--variant", "foo", "--deals", "1"], "valid variants: classic, grupp"),
        (["tournament", "--game", "zwicker(variant=classic", "--deals", "1"], "cannot read the game string"),
        (["tournament", "--deals", "0"], "deals must be a whole number from 1 to 1000000, not 0"),
        (["play", "--game", "zwikken(colour=red)"], "unknown option 'colour'"),
        (["play", "-o", "jokers=none", "--variant", "grupp"], "applies only to the valued-joker variants"),
        (["selfplay", "--games", "-5"], "--games must be at least 1, not -5"),
        (["selfplay", "-o", "team_size=4", "--variant", "grossenwiehe"], "valid values: 2, 3"),
        (["joker-study", "--variant", "dithmarschen", "-o", "colour=red"], "unknown option 'colour'"),
        (["train", "value", "--variant", "classic", "--workers", "0", "--out", "x"], "--workers must be at least 1"),
        (["train", "value", "--variant", "classic", "--teacher-iters", "0", "--out", "x"], "teacher_iters must be"),
        (["run", "no-such-file.toml"], "no-such-file.toml"),
        (["replay", "no-such-file.jsonl"], "no-such-file.jsonl"),
    ],
)
def test_bad_input_gives_one_line_naming_what_is_valid(tmp_path, monkeypatch, capsys, argv, expected):
    monkeypatch.chdir(tmp_path)
    err = one_line_error(capsys, argv)
    assert expected in err, err
    assert not (tmp_path / "x").exists()  # nothing was written before the refusal


def test_a_bad_option_is_refused_through_the_real_command_line():
    proc = subprocess.run(
        [sys.executable, "-m", "zwick_ai.cli", "train", "cfr", "--game", "nosuch(players=3)", "--iterations", "1"]
        + ["--out", "unused"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "valid: zwicker, zwikken, zwicken or any OpenSpiel game" in proc.stderr
    assert "OpenSpiel exception" not in proc.stderr


def test_selfplay_refuses_before_showing_a_progress_bar(capsys):
    main(["selfplay", "--games", "-5"])
    assert "%|" not in capsys.readouterr().err


def test_a_position_too_large_for_exact_moves_says_how_many_units_and_the_limit():
    r = zwicker.rules("classic", players=2)
    table = [f"{rank}{suit}" for suit in "CDH" for rank in "23456789TJ"]  # 30 loose cards
    with pytest.raises(ValueError) as info:
        zwicker.position(r, hands=[["QS"], ["KS"]], table=table, to_move=0, seed=0)
    text = str(info.value)
    assert "30 units" in text and f"at most {MAX_EXACT_UNITS} table units" in text
    ok = zwicker.position(r, hands=[["QS"], ["KS"]], table=table[:14], to_move=0, seed=0)
    moves = zwicker.legal_moves(ok)  # 14 units: the large-table search, within the limit
    assert moves and {m.kind for m in moves} == {"capture"}  # classic: a capture is forced


# ------------------------------------------------------------------------------------------------
# Nothing overwritten
# ------------------------------------------------------------------------------------------------
def test_the_joker_study_writes_under_results_unless_told_otherwise(tmp_path, monkeypatch, capsys):
    assert joker_study_cmd.DEFAULT_OUT == Path("results/joker-study")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "experiments" / "results" / "joker-study" / "dithmarschen").mkdir(parents=True)
    argv = ["joker-study", "--game", "zwicker(variant=dithmarschen)", "--deals", "20", "--strong", "greedy"]
    assert main([*argv, "--no-progress"]) == 0
    assert (tmp_path / "results" / "joker-study" / "dithmarschen" / "report.md").exists()
    assert not any((tmp_path / "experiments").rglob("*.md"))  # the committed results untouched
    report = (tmp_path / "results" / "joker-study" / "dithmarschen" / "report.md").read_text()
    assert "shared" not in report and " cores" in report and "Python 3." in report
    assert "zwick joker-study --variant dithmarschen --deals 20 --strong greedy" in report
    err = one_line_error(capsys, ["joker-study", "--variant", "dithmarschen", "--players", "2"])
    assert "with its own 4 players, not 2" in err
    capsys.readouterr()


# ------------------------------------------------------------------------------------------------
# Words a person reads
# ------------------------------------------------------------------------------------------------
def _help(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    return capsys.readouterr().out


def _commands() -> list[str]:
    from zwick_ai.cli import build_parser

    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(subparsers.choices)


@pytest.mark.parametrize("command", _commands())
def test_help_reads_as_plain_text_with_a_description(command, capsys):
    text = _help([command], capsys)
    assert "%%" not in text and ":func:" not in text and ":mod:" not in text and "``" not in text
    assert "shared" not in text
    described = text.split("\n\n")[1]  # usage, then the description
    assert not described.lstrip().startswith(("positional", "options")), text[:400]


def test_train_help_lists_its_methods_and_each_method_states_its_defaults(capsys):
    text = " ".join(_help(["train"], capsys).split())
    assert all(method in text for method in ("cfr", "mccfr", "value", "net", "ppo", "deep-cfr", "nfsp"))
    mccfr = " ".join(_help(["train", "mccfr"], capsys).split())
    for default in ("(default: 0)", "(default: none)", "(default: 2000)", "outcome (default)", "(default: 1)"):
        assert default in mccfr
    assert "--hands" not in mccfr and "--hours" not in mccfr  # other methods' options stay out
    assert "(default: cfr+)" in " ".join(_help(["train", "cfr"], capsys).split())


def test_agents_prints_plain_text_and_markdown_on_request(capsys):
    assert main(["agents"]) == 0
    text = capsys.readouterr().out
    assert "<br>" not in text and "0 = 1000 without a time budget" in text and "ismcts" in text
    assert main(["agents", "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("| agent | games |")


def test_variants_says_what_every_option_does(capsys):
    assert main(["variants"]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 5]
    options = [r.split("|")[1].strip() for r in rows[1:]]
    assert "jokers" in options and "magger" in options and "forced_capture" in options
    assert all(r.split("|")[4].strip() for r in rows)  # a meaning in every row
    assert "15_25" in text and "x15" in text


class _Prompt(code.InteractiveConsole):
    """Python's interactive prompt, keeping the errors it would print."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[str] = []
        self.missing_extra: str | None = None

    def showsyntaxerror(self, filename=None, **kwargs) -> None:
        self.errors.append("SyntaxError")

    def showtraceback(self) -> None:
        error = sys.exc_info()[1]
        cause: BaseException | None = error
        while cause is not None:  # the package's own hint wraps the missing module's error
            if isinstance(cause, ModuleNotFoundError) and (cause.name or "").split(".")[0] in EXTRA_MODULES:
                self.missing_extra = cause.name
            cause = cause.__cause__
        self.errors.append(repr(error))


#: the top-level modules of the optional extras (pyproject.toml): a snippet that needs one of them
#: is checked only where that extra is installed
EXTRA_MODULES = {"gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "sklearn", "ray", "mkdocs"}


def test_readme_python_snippets_paste_into_the_interactive_prompt(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)  # what a snippet writes (a picture, say) goes to a temporary folder
    checked = 0
    for block in blocks:
        prompt = _Prompt()
        for line in block.splitlines():  # as pasted: line by line, each statement run when complete
            prompt.push(line)
        prompt.push("")
        if prompt.missing_extra:  # e.g. the environments without the "rl" extra
            continue
        assert not prompt.errors, (prompt.errors, block[:200])
        checked += 1
    assert checked >= 3  # the snippets that need no extra


def _play(monkeypatch, capsys, argv: list[str]) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    assert main(["play", *argv]) == 0
    return capsys.readouterr().out


def test_play_shows_the_dealt_table_first_and_says_chips_won_or_lost(monkeypatch, capsys):
    out = _play(monkeypatch, capsys, ["--game", "zwikken", "--players", "3", "--seat", "2", "--agents", "random"])
    first_move = out.index("seat 0 (random):")
    assert out.index("to move: seat 0") < first_move  # the table as dealt, before anybody moves
    assert "bidding:" in out and "bid 1 to bid 4" in out  # the calls explained
    last = out.strip().splitlines()[-1]
    assert re.fullmatch(r"you (won|lost) \d+ chips?|no chips won or lost", last), last
    assert "you lost (+0)" not in out


def test_play_a_zwicker_game_string(monkeypatch, capsys):
    out = _play(monkeypatch, capsys, ["--game", "zwicker(variant=classic,players=2)", "--agents", "greedy"])
    assert "zwicker(" in out and "points per side" in out
