"""Writing the CFR family's checkpoints and policy files (the file pair format of
:mod:`zwick_ai.agents.cfr.policy_file`, which reads policies for play). Every problem raises
``ValueError`` saying what is wrong.

* A **checkpoint** holds a solver's whole state (regrets, average weights, current policy or the
  MCCFR table, the random stream, the iteration count) and the game string, method, seed and
  options; :func:`load_checkpoint` rebuilds the solver, and continuing it gives exactly the run an
  uninterrupted solver with the same seed would have given.
* A **policy file** holds only the average strategy per information-set key (sorted keys, per key
  its player, legal actions with probabilities and, for MCCFR on the trick games, how often training
  visited it) and how keys are computed (``key_scheme``: ``tricks_suits`` and ``tricks_buckets``
  are the trick-game abstractions of :mod:`~zwick_ai.agents.cfr.abstraction`, where the actions of
  a set are positions in the order :func:`~zwick_ai.agents.cfr.abstraction.decision` gives);
  ``zwicker_buckets``/``zwicker_coarse`` are the Zwicker abstractions of
  :mod:`~zwick_ai.agents.cfr.zwicker_abstraction`, whose actions are abstract action indices;
  :class:`~zwick_ai.agents.cfr.policy_file.Policy` reads it for play (:mod:`zwick_ai.agents.cfr.agent`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.core import Table
from zwick_ai.agents.cfr.policy_file import (
    file_stem,
    need_fields,
    read_files,
    write_files,
)
from zwick_ai.learn.cfr.exact import METHODS, ExactSolver, average_policy, normalise_all
from zwick_ai.learn.cfr.mccfr import SAMPLINGS, MCCFRSolver
from zwick_ai.learn.cfr.tree import extract


# ---- checkpoints ------------------------------------------------------------------------------------
def save_checkpoint(solver: ExactSolver | MCCFRSolver, path: str | Path, seed: int = 0) -> None:
    """Write ``solver``'s whole state to ``path`` (``.npz`` + ``.json``)."""
    if isinstance(solver, ExactSolver):
        meta = {
            "game": solver.tree.game,
            "method": "cfr",
            "variant": solver.method,
            "iterations": solver.iteration,
            "seed": int(seed),
            "abstraction": solver.tree.abstraction,
            "edges": solver.tree.num_edges,
            "dcfr": [solver.alpha, solver.beta, solver.gamma],
        }
        arrays = {"regret": solver.regret, "cum": solver.cum, "cur": solver.cur}
    else:
        meta = {
            "game": str(solver.game),
            "method": "mccfr",
            "variant": solver.sampling,
            "iterations": solver.iteration,
            "seed": solver.seed,
            "abstraction": solver.abstraction,
            "rng_state": str(int(solver.rng[0])),
            "key_scheme": solver.key_scheme,
            "backend": solver.backend,
            "field": solver.field,
            "averaging": solver.averaging,
        }
        if solver.greedy_prior:  # written only when used: runs without it keep their files
            meta["greedy_prior"] = solver.greedy_prior
        if solver.workers > 1:
            meta["workers"] = solver.workers
            meta["sync"] = solver.sync
            meta["worker_rng_states"] = [str(int(r[0])) for r in solver.rngs]
        arrays = solver.table.arrays()
    write_files(file_stem(path), "checkpoint", meta, arrays)


def load_checkpoint(
    path: str | Path, game: str | None = None, method: str | None = None
) -> tuple[ExactSolver | MCCFRSolver, dict]:
    """The solver saved at ``path`` and its metadata. ``game``/``method``, when given, must match."""
    meta, arrays = read_files(path, "checkpoint")
    where = f"checkpoint {file_stem(path)}"
    need_fields(meta, arrays, ("game", "method", "variant", "iterations", "seed", "abstraction"), (), where)
    if game is not None and meta["game"] != str(game):
        raise ValueError(f"{where} is for {meta['game']}, not {game}")
    if method is not None and meta["method"] != method:
        raise ValueError(f"{where} was made by {meta['method']}, not {method}")
    for key in ("iterations", "seed"):
        value = meta[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{where}: {key} must be a whole number >= 0, not {value!r}")
    g = pyspiel.load_game(meta["game"])
    if meta["method"] == "cfr":
        need_fields(meta, arrays, ("edges", "dcfr"), ("regret", "cum", "cur"), where)
        if meta["variant"] not in METHODS:
            raise ValueError(f"{where}: unknown CFR variant {meta['variant']!r}; valid: {', '.join(METHODS)}")
        exact = ExactSolver(extract(g, meta["abstraction"]), meta["variant"], *meta["dcfr"])
        e = exact.tree.num_edges
        if meta["edges"] != e or any(arrays[k].shape != (e,) for k in ("regret", "cum", "cur")):
            raise ValueError(f"{where}: arrays of {meta['edges']} actions do not fit the game's tree ({e} actions)")
        exact.regret[:], exact.cum[:], exact.cur[:] = arrays["regret"], arrays["cum"], arrays["cur"]
        exact.iteration = int(meta["iterations"])
        return exact, meta
    if meta["method"] != "mccfr":
        raise ValueError(f"{where}: unknown method {meta['method']!r}; valid: cfr, mccfr")
    need_fields(meta, arrays, ("rng_state", "backend", "field", "averaging"), ("rows", "acts", "regret", "avg"), where)
    if meta["variant"] not in SAMPLINGS:
        raise ValueError(f"{where}: unknown sampling {meta['variant']!r}; valid: {', '.join(SAMPLINGS)}")
    solver = MCCFRSolver(
        g,
        meta["variant"],
        int(meta["seed"]),
        meta["abstraction"],
        backend=meta["backend"],
        field=meta["field"],
        averaging=meta["averaging"],
        greedy_prior=meta.get("greedy_prior", 0.0),  # written only when used
        **_workers(meta, where),
    )
    table = Table.from_arrays(arrays["rows"], arrays["acts"], arrays["regret"], arrays["avg"])
    if solver.tree is not None and table.num_rows != solver.table.num_rows:
        raise ValueError(
            f"{where}: {table.num_rows} information sets do not fit the game's tree ({solver.table.num_rows})"
        )
    if solver.tree is not None and not np.array_equal(
        table.rows[: table.num_rows], solver.table.rows[: table.num_rows]
    ):
        raise ValueError(f"{where}: information sets do not match the game's tree")
    solver.table = table
    solver.rng[0] = np.uint64(int(meta["rng_state"]))
    for w, state in enumerate(meta.get("worker_rng_states", [])):
        solver.rngs[w, 0] = np.uint64(int(state))
    solver.iteration = int(meta["iterations"])
    return solver, meta


def _workers(meta: dict, where: str) -> dict[str, int]:
    """The ``workers`` and ``sync`` of a parallel MCCFR checkpoint (none for one worker), checked."""
    if "workers" not in meta:
        return {}
    workers, sync, states = meta["workers"], meta.get("sync"), meta.get("worker_rng_states")
    for name, value in (("workers", workers), ("sync", sync)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{where}: {name} must be a whole number >= 1, not {value!r}")
    if (
        not isinstance(states, list)
        or len(states) != workers
        or not all(isinstance(x, str) and x.isdigit() and int(x) < 2**64 for x in states)
    ):
        raise ValueError(f"{where}: worker_rng_states must list one stream state per worker")
    return {"workers": workers, "sync": sync}


# ---- policy files -----------------------------------------------------------------------------------
def save_policy(solver: ExactSolver | MCCFRSolver, path: str | Path, seed: int = 0) -> None:
    """Write the average strategy of ``solver`` as a policy file for play."""
    if isinstance(solver, ExactSolver):
        tree = solver.tree
        keys, players, n, off = tree.iset_key, tree.iset_player, tree.iset_n, tree.iset_off
        visits = None
        acts, probs = tree.actions, average_policy(tree, solver.cum)
        scheme = "observation_string" if tree.abstraction == "observation" else "information_state_string"
        if tree.game.startswith(("zwikken(", "zwicken(")) and tree.abstraction == "none":
            scheme = "tricks_history"
        meta = {"game": tree.game, "method": "cfr", "variant": solver.method, "seed": int(seed)}
    else:
        t = solver.table
        cols = t.columns()
        keys, players, n, off = cols.key, cols.player, cols.n, cols.off
        visits = cols.visits if solver.tree is None else None
        acts = t.acts[: t.num_edges]
        probs = np.empty(t.num_edges)
        normalise_all(t.avg, off, n, probs)
        scheme = solver.key_scheme
        meta = {
            "game": str(solver.game),
            "method": "mccfr",
            "variant": solver.sampling,
            "seed": solver.seed,
            "field": solver.field,
            "averaging": solver.averaging,
        }
        if solver.greedy_prior:
            meta["greedy_prior"] = solver.greedy_prior
    order = np.argsort(keys, kind="stable")
    ns = np.asarray(n, np.int64)[order]
    edge = np.repeat(np.asarray(off, np.int64)[order] - (np.cumsum(ns) - ns), ns) + np.arange(
        int(ns.sum())
    )  # rows' edges in key order
    meta.update(iterations=solver.iteration, key_scheme=scheme, infosets=int(len(keys)))
    # compact types: a policy of a big game holds millions of information sets
    arrays: dict[str, np.ndarray] = {
        "keys": np.asarray(keys, np.int64)[order],
        "players": np.asarray(players, np.int8)[order],
        "counts": np.asarray(n, np.int16)[order],
        "actions": np.asarray(acts, np.int16)[edge],
        "probs": np.asarray(probs, np.float32)[edge],
    }
    if visits is not None:
        arrays["visits"] = np.minimum(np.asarray(visits, np.int64)[order], 2**31 - 1).astype(np.int32)
    write_files(file_stem(path), "policy", meta, arrays)


def prune_policy(path: str | Path, out: str | Path, min_visits: int) -> int:
    """Write the part of the policy file ``path`` whose information sets were visited at least
    ``min_visits`` times in training, as the policy file ``out``; returns how many sets it keeps.

    The pruned file plays exactly as ``mccfr:policy=path,min_visits=N`` does (a dropped set falls
    back as an unseen one), in a fraction of the space: tabular policies of the full games are
    mostly sets seen a few times."""
    meta, arrays = read_files(path, "policy")
    if "visits" not in arrays:
        raise ValueError(f"policy {file_stem(path)}: counts no visits, so it cannot be pruned by them")
    keep = arrays["visits"] >= min_visits
    counts = arrays["counts"].astype(np.int64)
    edges = np.repeat(keep, counts)
    pruned = {k: v[edges] if k in ("actions", "probs") else v[keep] for k, v in arrays.items()}
    kept = {k: v for k, v in meta.items() if k not in ("format", "kind", "sha256")}
    kept.update(infosets=int(keep.sum()), pruned_from=int(len(keep)), min_visits=int(min_visits))
    write_files(file_stem(out), "policy", kept, pruned)
    return int(keep.sum())


def argmax_policy(path: str | Path, out: str | Path) -> int:
    """Write the policy file ``path`` with each set's strategy put wholly on its most likely action
    (the first of equal ones) as the policy file ``out``; returns how many sets it holds.

    With ``play=argmax`` it plays exactly as ``path`` does (sampled, each set of the table gives
    the same action), in a fraction of the space (a one-hot row deflates to almost nothing; the
    keys remain): the form in which a large table is shipped to be played by its argmax. ``meta``
    records ``argmax_of``."""
    meta, arrays = read_files(path, "policy")
    counts = arrays["counts"].astype(np.int64)
    probs = arrays["probs"]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    one_hot = np.zeros_like(probs)
    if len(counts):
        ends = starts + counts
        best = np.array([s + int(np.argmax(probs[s:e])) for s, e in zip(starts, ends, strict=True)], np.int64)
        one_hot[best[counts > 0]] = 1.0
    kept = {k: v for k, v in meta.items() if k not in ("format", "kind", "sha256", "meta_sha256")}
    kept.update(argmax_of=str(file_stem(path).name))
    write_files(file_stem(out), "policy", kept, dict(arrays, probs=one_hot))
    return int(len(counts))
