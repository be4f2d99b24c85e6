"""Learned stage values: what a Zwicker stage boundary is worth to side 0, in raw points, from its
public state alone (:mod:`zwick_ai.zwicker.stage_features`), the value the re-solving search
``resolve`` (:mod:`zwick_ai.agents.cfr.resolve`, ``leaf=model``) gives a stage's end.

At a stage boundary every hand has just been dealt and everything but the hands and the stock is
public, so (under the play after it) the boundary's worth is one number per side, a function of
public features. The data: every stage start of ``hands`` self-play hands in compiled code
(:func:`boundary_samples`, the stated policy ``greedy``: the greedy baseline at every seat, ties
broken at random), each labelled with the hand's final return of side 0 (``NS * s_0 - sum(s)``:
the point difference with two sides). The model: a perceptron with two ReLU hidden layers
(scikit-learn), fitted on 90% of the hands and measured on the other 10% (held-out mean absolute
error and that of the training mean, for scale), written in the package's weights format
(:mod:`zwick_ai.mlp`, ``kind`` ``stage``) and played with numpy/numba only
(:func:`zwick_ai.agents.cfr.resolve.model_stage_value`). With two sides it values side 0 (side 1's
value is the opposite); with more (classic and Grupp with four players, Christiansen) every
boundary is a row per side, its features seen from that side's seat and labelled with that side's
return, so one model values every side (centred to sum to zero when played).

Reproduce a shipped model::

    python -m zwick_ai.learn.stage_values --variant classic --players 2 --hands 6000 --out zwick_ai/agents/weights/stage/classic-2p-stage.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from zwick_ai.agents.cfr.resolve import STAGE_KIND as KIND
from zwick_ai.jit import kernel
from zwick_ai.mlp import ARRAY_NAMES, FORMAT_VERSION, Layer, Perceptron, compiled_arrays, mlp_forward
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY
from zwick_ai.zwicker.stage_features import feature_count, model_views, stage_features_seen_by, views_rotate
from zwick_ai.zwicker.steps import side_returns

HELD_OUT = 0.1  # share of the hands kept out of the fit
CHUNK = 500  # hands played in one compiled call
#: the fit's report in ``meta`` (:func:`fit`)
REPORT_KEYS = ("boundaries", "held_out_boundaries", "rows_per_boundary", "held_out_mae", "held_out_rmse",
               "baseline_mae", "return_sd")  # fmt: skip


class Boundaries(NamedTuple):
    """Stage starts (:func:`boundary_samples`), one row per start and side seen from."""

    features: np.ndarray  # [N, F] float64: the public features (:func:`stage_features_seen_by`)
    returns: np.ndarray  # [N, sides] float64: the hand's final side returns
    hand: np.ndarray  # [N] int64: the index of the hand (into the seeds)
    view: np.ndarray  # [N] int64: the side the features are seen from (its return is the label)


@kernel
def boundary_samples(R, seeds, policies, views):
    """The :class:`Boundaries` of every stage start of the hands dealt by ``seeds`` and played by
    ``policies`` (a policy code per seat) to the end, each seen from the sides ``0 .. views-1``."""
    nf = feature_count(R)
    ns = arrays.sides(R)
    cap = views * seeds.shape[0] * min(arrays.max_stages(R) + 1, R[layout.R_DECK_SIZE] // arrays.players(R) + 1)
    X = np.zeros((cap, nf), np.float64)
    Y = np.zeros((cap, ns), np.float64)
    H = np.zeros(cap, np.int64)
    V = np.zeros(cap, np.int64)
    W = kernels.new_workspace()
    buf, XX = kernels.new_buffers()
    k = 0
    for h in range(seeds.shape[0]):
        S = kernels.new_hand(R, seeds[h], W)
        np.random.seed((seeds[h] * 69069 + 12345) % 4294967296)
        first = k
        while not arrays.is_over(S) and k + views <= cap:
            for v in range(views):
                stage_features_seen_by(R, S, v, X[k])
                H[k] = h
                V[k] = v
                k += 1
            plies, buf, XX = kernels.play_out_to(R, S, policies, W, arrays.stage(S), buf, XX)
        r = side_returns(R, S, False, np.zeros(ns, np.float64))
        for j in range(first, k):
            for s in range(ns):
                Y[j, s] = r[s]
    return Boundaries(X[:k], Y[:k], H[:k], V[:k])


def fit(R: np.ndarray, hands: int, seed: int, hidden: tuple[int, int] = (64, 32)) -> tuple[Perceptron, dict[str, Any]]:
    """A stage-value perceptron for the rules ``R`` from ``hands`` greedy self-play hands (seeds
    ``seed ..``) and its held-out errors (module docstring)."""
    from sklearn.neural_network import MLPRegressor

    views = int(model_views(R))
    if views > 1 and not views_rotate(R):
        raise ValueError("the sides' seats do not turn alike, so one model cannot value every side")
    policies = np.full(int(arrays.players(R)), POLICY_GREEDY, np.int64)
    chunks = [
        boundary_samples(R, np.arange(start, min(start + CHUNK, seed + hands), dtype=np.int64), policies, views)
        for start in range(seed, seed + hands, CHUNK)
    ]
    X = np.concatenate([c.features for c in chunks])
    Y = np.concatenate([c.returns for c in chunks])
    V = np.concatenate([c.view for c in chunks])
    H = np.concatenate(
        [c.hand + start - seed for c, start in zip(chunks, range(seed, seed + hands, CHUNK), strict=True)]
    )
    y = Y[np.arange(len(V)), V]
    test = H >= int(round(hands * (1 - HELD_OUT)))
    mean = X[~test].mean(axis=0)
    scale = X[~test].std(axis=0)
    scale[scale == 0] = 1.0
    net = MLPRegressor(hidden_layer_sizes=hidden, alpha=1e-3, max_iter=200, early_stopping=True, random_state=seed)
    net.fit((X[~test] - mean) / scale, y[~test])
    layers = [Layer(w, b) for w, b in zip(net.coefs_, net.intercepts_, strict=True)]
    model = compiled_arrays(mean, scale, layers)
    pred = np.array([mlp_forward(x, model) for x in X[test]])
    if views > 1:  # as played: a boundary's rows (consecutive, one per side) centred to sum to zero
        rows = pred.reshape(-1, views)
        pred = (rows - rows.mean(axis=1, keepdims=True)).ravel()
    report = {
        "boundaries": int(len(y)) // views,
        "held_out_boundaries": int(test.sum()) // views,
        **({"rows_per_boundary": views} if views > 1 else {}),
        "held_out_mae": float(np.abs(pred - y[test]).mean()),
        "held_out_rmse": float(np.sqrt(((pred - y[test]) ** 2).mean())),
        "baseline_mae": float(np.abs(y[~test].mean() - y[test]).mean()),
        "return_sd": float(y.std()),
    }
    return model, report


def save(model: Perceptron, meta: dict[str, Any], path: Path) -> None:
    """Write ``model`` with ``meta`` in the package's weights format (never over an existing file)."""
    if path.exists():
        raise FileExistsError(f"{path} exists; finished weights are never overwritten (remove it or choose another)")
    path.parent.mkdir(parents=True, exist_ok=True)
    out = {name: np.asarray(a) for name, a in zip(ARRAY_NAMES, model, strict=True)}
    out["meta"] = np.array(json.dumps(dict(meta, format=FORMAT_VERSION), sort_keys=True))
    np.savez_compressed(path, allow_pickle=False, **out)


def train_stage(
    variant: str, players: int, hands: int, seed: int, out: Path, options: list[str], command: str
) -> dict[str, Any]:
    """Fit the stage values of a Zwicker board (``options``: ``NAME=VALUE`` rules options) on
    ``hands`` greedy self-play hands from seed ``seed`` and write them to ``out`` (never over an
    existing file) with their ``command`` and held-out error in ``meta``; the meta written.
    Raises ValueError for rules that do not exist or a file that does."""
    from zwick_ai import zwicker

    if hands < 10:
        raise ValueError(f"hands must be at least 10 (a tenth is held out), not {hands}")
    if out.exists():
        raise ValueError(f"{out} exists; finished weights are never overwritten (remove it or choose another)")
    pairs = [o.split("=", 1) for o in options]
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"a rules option is NAME=VALUE, not {next(o for o in options if '=' not in o)!r}")
    rules = zwicker.rules(variant, players=players, **dict(pairs))
    t0 = time.time()
    model, report = fit(rules.array(), hands, seed)
    meta = {
        "kind": KIND, "variant": variant, "players": players, "deck_size": int(rules.deck_size),
        "options": options, "policy": "greedy", "hands": hands, "seed": seed, "command": command,
        "seconds": round(time.time() - t0, 1), **report,
    }  # fmt: skip
    save(model, meta, out)
    return meta


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m zwick_ai.learn.stage_values",
        description="Fit a Zwicker board's stage values (each side's final return from a stage start's public "
        "state) on greedy self-play; writes a weights file with its held-out error in meta (as zwick train stage).",
        epilog="example: python -m zwick_ai.learn.stage_values --variant classic --players 2 --hands 6000 "
        "--out zwick_ai/agents/weights/stage/classic-2p-stage.npz",
    )
    p.add_argument("--variant", default="classic", help="Zwicker variant (default classic)")
    p.add_argument("--players", type=int, default=2, help="players (default 2)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE", help="a rules option")
    p.add_argument("--hands", type=int, default=20000, help="self-play hands (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    p.add_argument("--out", type=Path, required=True, help="the weights file to write (.npz; never overwritten)")
    args = p.parse_args(argv)
    command = "python -m zwick_ai.learn.stage_values " + " ".join(sys.argv[1:] if argv is None else argv)
    print(f"playing {args.hands} greedy hands and fitting (compiles the engine the first time) ...", file=sys.stderr)
    try:
        meta = train_stage(args.variant, args.players, args.hands, args.seed, args.out, args.option, command)
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({k: meta[k] for k in meta if k in REPORT_KEYS}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
