"""Policy files of the CFR family, read for play, and the file pair format they share with the
solvers' checkpoints (:mod:`zwick_ai.learn.cfr.checkpoint` writes both).

Each file is a pair ``STEM.npz`` (arrays) + ``STEM.json`` (metadata), the JSON holding the SHA-256
of the npz so a truncated, corrupt or mismatched pair is detected; every problem raises
``ValueError`` saying what is wrong. A **policy file** holds only the average strategy per
information-set key (sorted keys, per key its player, legal actions with probabilities and, for
MCCFR on the trick games, how often training visited it) and how keys are computed
(``key_scheme``: ``tricks_suits`` and ``tricks_buckets`` are the trick-game abstractions of
:mod:`~zwick_ai.agents.cfr.abstraction`, where the actions of a set are positions in the order
:func:`~zwick_ai.agents.cfr.abstraction.decision` gives; ``zwicker_buckets``/``zwicker_coarse``
are the Zwicker abstractions of :mod:`~zwick_ai.agents.cfr.zwicker_abstraction`, whose actions
are abstract action indices); :class:`Policy` reads it for play (:mod:`zwick_ai.agents.cfr.agent`).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.abstraction import abstraction_id, decision
from zwick_ai.agents.cfr.keys import infoset_key
from zwick_ai.agents.cfr.zwicker_abstraction import (
    MAX_GROUPS,
    ZWICKER_ABSTRACTIONS,
    zwicker_abstraction_id,
    zwicker_decision,
)
from zwick_ai.files import replacing

FORMAT = 1
KINDS = ("checkpoint", "policy")
KEY_SCHEMES = (
    "tricks_history",
    "tricks_suits",
    "tricks_buckets",
    "information_state_string",
    "observation_string",
    *(f"zwicker_{name}" for name in ZWICKER_ABSTRACTIONS),
)
TRICK_SCHEMES = {"tricks_suits": "suits", "tricks_buckets": "buckets"}
ZWICKER_SCHEMES = {f"zwicker_{name}": name for name in ZWICKER_ABSTRACTIONS}


class MoveChances(NamedTuple):
    """A Zwicker policy's choice at the start of a turn (:meth:`Policy.zwicker_lookup`)."""

    rows: np.ndarray  # the decision's candidate move rows
    row_of: np.ndarray  # per abstract action, the index of its move among ``rows``
    chances: np.ndarray  # per abstract action, the average strategy's probability (sums to 1)


def file_stem(path: str | Path) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".npz", ".json") else p


def write_files(stem: Path, kind: str, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    # policies are shipped, so deflated; checkpoints are rewritten often, so stored as they are
    save = np.savez_compressed if kind == "policy" else np.savez
    save(buf, allow_pickle=True, **arrays)  # numpy's default, named so that no array can stand for it
    data = buf.getvalue()
    meta = {"format": FORMAT, "kind": kind, **meta, "sha256": hashlib.sha256(data).hexdigest()}
    meta["meta_sha256"] = _meta_hash(meta)
    # write the arrays first and the metadata last: a pair is complete once its JSON exists
    with replacing(stem.with_suffix(".npz")) as tmp:
        tmp.write_bytes(data)
    with replacing(stem.with_suffix(".json")) as tmp:
        tmp.write_text(json.dumps(meta, indent=1, sort_keys=True))


def _meta_hash(meta: dict) -> str:
    """The SHA-256 of the metadata itself (all but this hash), so an edited JSON is detected too."""
    rest = {k: v for k, v in meta.items() if k != "meta_sha256"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()


def read_files(path: str | Path, kind: str) -> tuple[dict, dict[str, np.ndarray]]:
    stem = file_stem(path)
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
    if "meta_sha256" not in meta:  # written by zwick_ai 0.3.0 or earlier, whose metadata had no hash
        raise ValueError(
            f"{js} was written by an earlier zwick_ai (no meta_sha256); this version does not read it: "
            f"read it with zwick_ai 0.3.0, or make it again with the same zwick train command"
        )
    if meta["meta_sha256"] != _meta_hash(meta):
        raise ValueError(f"{kind} {js}: its metadata was changed after it was written (or is damaged)")
    data = npz.read_bytes()
    if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        raise ValueError(f"{kind} {npz}: contents do not match {js.name} (truncated, corrupt or from another run)")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise ValueError(f"{kind} {npz}: unreadable ({e})") from None
    return meta, arrays


def need_fields(meta: dict, arrays: dict, keys: tuple[str, ...], names: tuple[str, ...], where: str) -> None:
    missing = [k for k in keys if k not in meta] + [n for n in names if n not in arrays]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")


class Policy:
    """A policy file loaded for play: ``lookup(state, player, min_visits)`` gives the legal actions
    and average-strategy probabilities of the player's information set, or ``None`` if it was never
    seen in training (or, when the file counts visits, seen fewer than ``min_visits`` times)."""

    def __init__(self, path: str | Path):
        meta, arrays = read_files(path, "policy")
        where = f"policy {file_stem(path)}"
        need_fields(
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
        self.trick_abstraction = TRICK_SCHEMES.get(meta["key_scheme"])
        self.zwicker_abstraction = ZWICKER_SCHEMES.get(meta["key_scheme"])
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

    def zwicker_lookup(self, state: pyspiel.State, min_visits: int = 0) -> MoveChances | None:
        """Zwicker abstractions, at the start of a turn: the candidate moves and the average
        strategy's chance of each abstract action's move, or ``None`` (unseen)."""
        if self.zwicker_abstraction is None or not hasattr(state, "move_prefix"):
            raise ValueError("zwicker_lookup plays a Zwicker policy file on a zwicker state")
        decision = state.decision()
        rows = decision.candidates
        out = np.zeros(max(len(rows), MAX_GROUPS), np.int64)
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
        index, probs = out[:m].copy(), self.probs[o : o + m].astype(np.float64)
        present = index >= 0  # stakes: a fixed alphabet, the actions absent here masked
        index, probs = index[present], probs[present]
        total = probs.sum()
        return MoveChances(rows, index, probs / total if total > 0 else np.full(len(index), 1.0 / len(index)))

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


__all__ = [
    "FORMAT",
    "KEY_SCHEMES",
    "KINDS",
    "MoveChances",
    "TRICK_SCHEMES",
    "ZWICKER_SCHEMES",
    "Policy",
    "need_fields",
    "read_files",
    "file_stem",
    "write_files",
]
