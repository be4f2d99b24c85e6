"""``zwick train cfr``/``mccfr``/``net`` as requests (:mod:`zwick_ai.learn.requests`): made from the
parsed options by name, checked in one place, the same refusals as the command's; and the one line of
an interrupted command (fast: nothing is trained)."""

from __future__ import annotations

from argparse import Namespace
from dataclasses import fields

import pytest

from zwick_ai.cli import _resume_hint, build_parser
from zwick_ai.cli.train import RUN_MARKS
from zwick_ai.learn.requests import CFRRequest, NetRequest


def _parsed(argv: list[str]) -> Namespace:
    return build_parser().parse_args(["train", *argv])


def test_a_request_takes_every_option_of_its_command_by_name():
    """Each option of ``zwick train mccfr`` and ``net`` lands in the request's field of its name (none
    is dropped), the command's own entries aside."""
    own = {"command", "func", "method"}  # the command's own; a CFR request names its method
    for argv, request in (
        (["mccfr", "--game", "kuhn_poker", "--iterations", "9", "--workers", "2", "--sync", "3", "--out", "x"],
         CFRRequest),
        (["net", "--variant", "classic", "--hours", "1", "--hidden", "8,4", "--no-cards", "--out", "x"], NetRequest),
    ):  # fmt: skip
        options = vars(_parsed(argv))
        names = {f.name for f in fields(request)}
        assert set(options) - own <= names, set(options) - own - names
        made = request.of(options)
        assert all(getattr(made, k) == v for k, v in options.items() if k in names)


def test_cfr_training_options_reach_the_trainer():
    """The request's fields of TrainOptions' names are its options; ``--sync`` left out keeps the default."""
    from zwick_ai.learn.cfr.mccfr import DEFAULT_SYNC
    from zwick_ai.learn.cfr.train import TrainOptions

    missing = {f.name for f in fields(TrainOptions)} - {f.name for f in fields(CFRRequest)}
    assert not missing, f"TrainOptions fields no request gives: {missing}"
    request = CFRRequest.of(vars(_parsed(["mccfr", "--game", "kuhn_poker", "--iterations", "5", "--out", "x"])))
    assert request.sync is None and TrainOptions().sync == DEFAULT_SYNC


@pytest.mark.parametrize(
    "argv, message",
    [
        (["cfr", "--game", "kuhn_poker", "--iterations", "0"], "--iterations must be from 1 to"),
        (["cfr", "--game", "kuhn_poker", "--iterations", "5", "--eval-deals", "0"], "--eval-deals must be from 1"),
        (
            ["mccfr", "--game", "kuhn_poker", "--iterations", "5", "--eval-every", "-1"],
            "--eval-every must be at least 0",
        ),
        (["mccfr", "--iterations", "5"], "give the game with --game"),
        (["mccfr", "--game", "kuhn_poker", "--iterations", "5", "--sync", "4"], "--sync: used with --workers 2"),
        (["mccfr", "--game", "kuhn_poker", "--iterations", "5", "--workers", "0"], "--workers and --sync must be"),
        (["net", "--variant", "nope", "--hours", "1"], "zwick train net needs --variant"),
        (["net", "--variant", "classic"], "zwick train net needs --hours"),
        (["net", "--variant", "classic", "--hours", "nan"], "--hours must be a positive number"),
        (["net", "--variant", "classic", "--hours", "1", "--eps", "2"], "--eps is a probability"),
        (["net", "--variant", "classic", "--hours", "1", "--workers", "0"], "--workers must be at least 1"),
        (["net", "--variant", "classic", "--hours", "1", "--average", "1"], "average must be 0 (off) or at least 2"),
        (["net", "--variant", "classic", "--hours", "1", "--generations", "0"], "--generations must be at least 1"),
    ],
)
def test_a_request_refuses_what_no_run_can_use(argv, message):
    args = _parsed([*argv, "--out", "x"])
    request = (NetRequest if argv[0] == "net" else CFRRequest).of(vars(args))
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        request.check()


def test_a_net_request_makes_the_config_of_its_options():
    """Options under other names than the config's (--strength-deals, --no-cards, --hidden, -o)
    reach their config fields; options not given keep the config's defaults."""
    from zwick_ai.learn.net_train import NetConfig

    argv = ["net", "--variant", "classic", "--hours", "1", "--strength-deals", "7", "--no-cards", "--hidden", "8,4",
            "--hands", "40", "-o", "stages=1", "--out", "x"]  # fmt: skip
    request = NetRequest.of(vars(_parsed(argv)))
    request.check()
    cfg = request.config()
    assert (cfg.players, cfg.eval_deals, cfg.cards, cfg.hidden, cfg.hands) == (2, 7, False, (8, 4), 40)
    assert cfg.options == "stages=1" and cfg.epochs == NetConfig().epochs and cfg.eps == NetConfig().eps
    with pytest.raises(ValueError, match="--hidden takes two positive layer sizes like 256,256, not '3'"):
        NetRequest.of(vars(_parsed([*argv[:-2], "--hidden", "3", "--out", "x"]))).config()


@pytest.mark.parametrize(
    "command, argv, marked, hint",
    [
        ("play", [], False, ""),
        ("tournament", [], False, "; the same command resumes"),
        ("train", ["mccfr"], False, "; the same command resumes"),  # a new run: nothing to refuse yet
        ("train", ["mccfr"], True, "; the same command with --resume continues it"),
        ("train", ["mccfr", "--resume"], True, "; the same command resumes"),
        ("train", ["nfsp"], True, "; the same command with --resume continues it"),
        ("train", ["net"], True, "; the same command resumes"),  # net resumes without --resume
    ],
)
def test_an_interrupted_command_says_how_to_continue(tmp_path, command, argv, marked, hint):
    """The one line of an interrupt: nothing for commands that keep nothing, ``--resume`` where a
    training method refuses a folder holding its run without it."""
    method = argv[0] if argv else None
    if marked:
        tmp_path.joinpath(RUN_MARKS.get(method or "", "checkpoint.json")).write_text("{}")
    args = Namespace(command=command, method=method, resume="--resume" in argv, out=str(tmp_path))
    assert _resume_hint(command, args) == hint
