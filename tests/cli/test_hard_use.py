"""The command under careless input, concurrent runs and interrupts: a one-line refusal (exit 2,
no traceback) before any work starts, one writer per results folder, nothing lost or doubled."""

from __future__ import annotations

import pytest

from zwick_ai.cli import main


def one_line_error(capsys, argv: list[str]) -> str:
    """Run ``zwick ARGV``, which must fail with exit code 2 and one line on stderr; that line."""
    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("argv", [
    ["--variant", "dithmarschen", "-o", "jokers=none", "--quick"],
    ["--variant", "grupp", "-o", "wild_jokers=0", "--quick"],
    ["--variant", "grupp", "-o", "wild_jokers=0", "--strong-play", "greedy"],
])  # fmt: skip
def test_joker_study_refuses_a_game_without_jokers(tmp_path, capsys, argv):
    out = tmp_path / "study"
    err = one_line_error(capsys, ["joker-study", *argv, "--out", str(out)])
    assert "no joker to study" in err
    assert not out.exists()  # refused before anything ran


@pytest.mark.parametrize("spec", ["ismcts:time=nan", "ismcts:time=inf", "expert:time=nan"])
def test_non_finite_spec_numbers_are_refused_before_play(tmp_path, capsys, spec):
    out = tmp_path / "t"
    argv = ["tournament", "--agents", f"{spec};greedy", "--deals", "1", "--workers", "1", "--quiet"]
    assert "is not a finite number" in one_line_error(capsys, [*argv, "--out", str(out)])
    assert not (out / "games.jsonl").exists()
