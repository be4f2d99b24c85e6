"""Checkpoints and policy files of the CFR family: each is a pair ``STEM.npz`` (arrays) +
``STEM.json`` (metadata), the JSON holding the SHA-256 of the npz so a truncated, corrupt or
mismatched pair is detected. Every problem raises ``ValueError`` saying what is wrong.

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
  :class:`Policy` reads it for play (:mod:`zwick_ai.agents.cfr.agent`).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.abstraction import abstraction_id, decision
from zwick_ai.agents.cfr.core import R_KEY, R_N, R_OFF, R_PLAYER, R_VIS, Table
from zwick_ai.agents.cfr.exact import METHODS, ExactSolver, average_policy, normalise_all
from zwick_ai.agents.cfr.keys import infoset_key
from zwick_ai.agents.cfr.mccfr import SAMPLINGS, MCCFRSolver
from zwick_ai.agents.cfr.tree import extract
from zwick_ai.agents.cfr.zwicker_abstraction import zwicker_abstraction_id, zwicker_decision

FORMAT = 1
KINDS = ("checkpoint", "policy")
KEY_SCHEMES = (
    "tricks_history",
    "tricks_suits",
    "tricks_buckets",
    "information_state_string",
    "observation_string",
    "zwicker_buckets",
    "zwicker_coarse",
)
_TRICK_SCHEMES = {"tricks_suits": "suits", "tricks_buckets": "buckets"}
_ZWICKER_SCHEMES = {"zwicker_buckets": "buckets", "zwicker_coarse": "coarse"}


def _stem(path: str | Path) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".npz", ".json") else p


def _write(stem: Path, kind: str, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    # policies are shipped, so deflated; checkpoints are rewritten often, so stored as they are
    save = np.savez_compressed if kind == "policy" else np.savez
    save(buf, allow_pickle=True, **arrays)  # numpy's default, named so that no array can stand for it
    data = buf.getvalue()
    meta = {"format": FORMAT, "kind": kind, **meta, "sha256": hashlib.sha256(data).hexdigest()}
    # write the arrays first and the metadata last: a pair is complete once its JSON exists
    tmp = stem.with_suffix(".npz.tmp")
    tmp.write_bytes(data)
    tmp.replace(stem.with_suffix(".npz"))
    stem.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True))


def _read(path: str | Path, kind: str) -> tuple[dict, dict[str, np.ndarray]]:
    stem = _stem(path)
    js, npz = stem.with_suffix(".json"), stem.with_suffix(".npz")
    if not js.exists() or not npz.exists():
        raise ValueError(f"{kind} {stem}: needs both {js.name} and {npz.name}")
    try:
        meta = json.loads(js.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{kind} {js}: not valid JSON ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("kind") != kind:
        raise ValueError(
            f"{js} is not a {kind} file of format {FORMAT} (kind={meta.get('kind') if isinstance(meta, dict) else None!r})"
        )
    data = npz.read_bytes()
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise ValueError(f"{kind} {npz}: contents do not match {js.name} (truncated, corrupt or from another run)")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise ValueError(f"{kind} {npz}: unreadable ({e})") from None
    return meta, arrays


def _need(meta: dict, arrays: dict, keys: tuple[str, ...], names: tuple[str, ...], where: str) -> None:
    missing = [k for k in keys if k not in meta] + [n for n in names if n not in arrays]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")


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
        }
        arrays = solver.table.arrays()
    _write(_stem(path), "checkpoint", meta, arrays)


def load_checkpoint(
    path: str | Path, game: str | None = None, method: str | None = None
) -> tuple[ExactSolver | MCCFRSolver, dict]:
    """The solver saved at ``path`` and its metadata. ``game``/``method``, when given, must match."""
    meta, arrays = _read(path, "checkpoint")
    where = f"checkpoint {_stem(path)}"
    _need(meta, arrays, ("game", "method", "variant", "iterations", "seed", "abstraction"), (), where)
    if game is not None and meta["game"] != str(game):
        raise ValueError(f"{where} is for {meta['game']}, not {game}")
    if method is not None and meta["method"] != method:
        raise ValueError(f"{where} was made by {meta['method']}, not {method}")
    g = pyspiel.load_game(meta["game"])
    if meta["method"] == "cfr":
        _need(meta, arrays, ("edges", "dcfr"), ("regret", "cum", "cur"), where)
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
    _need(meta, arrays, ("rng_state",), ("rows", "acts", "regret", "avg"), where)
    if meta["variant"] not in SAMPLINGS:
        raise ValueError(f"{where}: unknown sampling {meta['variant']!r}; valid: {', '.join(SAMPLINGS)}")
    solver = MCCFRSolver(
        g,
        meta["variant"],
        int(meta["seed"]),
        meta["abstraction"],
        backend=meta.get("backend", "auto"),
        field=meta.get("field", "self"),
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
    solver.iteration = int(meta["iterations"])
    return solver, meta


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
        rows = t.rows[: t.num_rows]
        keys, players, n, off = rows[:, R_KEY], rows[:, R_PLAYER], rows[:, R_N], rows[:, R_OFF]
        visits = rows[:, R_VIS] if solver.tree is None else None
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
        }
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
    _write(_stem(path), "policy", meta, arrays)


def prune_policy(path: str | Path, out: str | Path, min_visits: int) -> int:
    """Write the part of the policy file ``path`` whose information sets were visited at least
    ``min_visits`` times in training, as the policy file ``out``; returns how many sets it keeps.

    The pruned file plays exactly as ``mccfr:policy=path,min_visits=N`` does (a dropped set falls
    back as an unseen one), in a fraction of the space: tabular policies of the full games are
    mostly sets seen a few times."""
    meta, arrays = _read(path, "policy")
    if "visits" not in arrays:
        raise ValueError(f"policy {_stem(path)}: counts no visits, so it cannot be pruned by them")
    keep = arrays["visits"] >= min_visits
    counts = arrays["counts"].astype(np.int64)
    edges = np.repeat(keep, counts)
    pruned = {k: v[edges] if k in ("actions", "probs") else v[keep] for k, v in arrays.items()}
    kept = {k: v for k, v in meta.items() if k not in ("format", "kind", "sha256")}
    kept.update(infosets=int(keep.sum()), pruned_from=int(len(keep)), min_visits=int(min_visits))
    _write(_stem(out), "policy", kept, pruned)
    return int(keep.sum())


class Policy:
    """A policy file loaded for play: ``lookup(state, player, min_visits)`` gives the legal actions
    and average-strategy probabilities of the player's information set, or ``None`` if it was never
    seen in training (or, when the file counts visits, seen fewer than ``min_visits`` times)."""

    def __init__(self, path: str | Path):
        meta, arrays = _read(path, "policy")
        where = f"policy {_stem(path)}"
        _need(
            meta,
            arrays,
            ("game", "method", "key_scheme", "iterations"),
            ("keys", "players", "counts", "actions", "probs"),
            where,
        )
        if meta["key_scheme"] not in KEY_SCHEMES:
            raise ValueError(f"{where}: unknown key scheme {meta['key_scheme']!r}; valid: {', '.join(KEY_SCHEMES)}")
        keys, counts = arrays["keys"], arrays["counts"]
        if keys.ndim != 1 or counts.shape != keys.shape or arrays["actions"].shape != arrays["probs"].shape:
            raise ValueError(f"{where}: inconsistent array shapes")
        if (
            int(counts.sum(dtype=np.int64)) != arrays["actions"].shape[0]
            or np.any(counts < 1)
            or np.any(np.diff(keys) <= 0)
        ):
            raise ValueError(f"{where}: corrupt tables (counts, actions and sorted keys disagree)")
        self.meta = meta
        self.game = meta["game"]
        self.keys = keys
        self.counts = counts
        self.offsets = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)[:-1]]).astype(np.int64)
        self.actions = arrays["actions"]
        self.probs = arrays["probs"]
        self.abstraction = "observation" if meta["key_scheme"] == "observation_string" else "none"
        self.trick_abstraction = _TRICK_SCHEMES.get(meta["key_scheme"])
        self.zwicker_abstraction = _ZWICKER_SCHEMES.get(meta["key_scheme"])
        self.visits = arrays.get("visits")
        if self.visits is not None and self.visits.shape != keys.shape:
            raise ValueError(f"{where}: inconsistent array shapes (visits)")
        self._mask = np.zeros(123, np.bool_)
        self._out = np.zeros(123, np.int64)

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def _row(self, key: int, min_visits: int) -> int:
        """The index of ``key``'s row, or -1 (unseen, or visited fewer than ``min_visits`` times)."""
        i = int(np.searchsorted(self.keys, key))
        if i >= len(self.keys) or self.keys[i] != key:
            return -1
        if self.visits is not None and self.visits[i] < min_visits:
            return -1
        return i

    def zwicker_lookup(
        self, state: pyspiel.State, min_visits: int = 0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Zwicker abstractions, at the start of a turn: (the candidate move rows, per abstract action
        the index of its move among them, the average-strategy probabilities), or ``None``."""
        if self.zwicker_abstraction is None or not hasattr(state, "move_prefix"):
            raise ValueError("zwicker_lookup plays a Zwicker policy file on a zwicker state")
        decision = state.decision()
        rows = decision.candidates
        out = np.zeros(max(len(rows), 1), np.int64)
        key, m = zwicker_decision(
            decision.rules_array,
            decision.record,
            rows,
            len(rows),
            zwicker_abstraction_id(self.zwicker_abstraction),
            out,
        )
        i = self._row(int(key), min_visits)
        if i < 0 or self.counts[i] != m:  # unseen (or a 64-bit key collision)
            return None
        o = self.offsets[i]
        return rows, out[:m].copy(), self.probs[o : o + m].astype(np.float64)

    def lookup(self, state: pyspiel.State, player: int, min_visits: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
        legal = None
        if self.zwicker_abstraction is not None:
            raise ValueError("a Zwicker abstraction's policy is read with zwicker_lookup (whole moves)")
        if self.trick_abstraction is not None:
            if not hasattr(state, "trick_state") or state.current_player() != player:
                raise ValueError(f"the {self.trick_abstraction} abstraction keys the trick-game player to move")
            view = state.decision()
            key, m = decision(
                view.position, view.config, player, abstraction_id(self.trick_abstraction), self._mask, self._out
            )
            legal = self._out[:m].copy()
        else:
            key = infoset_key(state, player, self.abstraction)
        i = self._row(key, min_visits)
        if i < 0:
            return None
        o, n = self.offsets[i], self.counts[i]
        if legal is None:
            legal = self.actions[o : o + n].astype(np.int64)
        elif len(legal) != n:
            return None  # a 64-bit key collision
        return legal, self.probs[o : o + n].astype(np.float64)
