"""Seed a teacher run's kept chunks from a finished smaller run of the same configuration.

``zwick train net --teacher ...`` plays generation 0's hands ``seed * 1,000,003 + 0 .. hands - 1``
in chunks of 10 and keeps each chunk as it finishes (``shards/gen-000.chunks/``); a chunk's records
depend only on its hands' seeds, so the first hands of a 1,000-hand run are the 300-hand run's.
This script claims the larger run's folder with the smaller run's configuration at ``hands``
(as ``zwick train net`` would) and splits the smaller run's shard (``shards/gen-000.npz``) back
into those chunk files there; the larger run then plays only the hands it lacks.

    python experiments/scaling/seed_chunks.py SMALL_RUN LARGE_RUN HANDS
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

from zwick_ai.learn import net_selfplay
from zwick_ai.learn.net_train import TEACHER_CHUNK_HANDS, NetConfig, NetRun


def seed_chunks(small: Path, large: Path, hands: int) -> int:
    """Claim ``large`` for ``small``'s configuration at ``hands`` hands and write its missing chunk
    files from ``small``'s generation-0 shard; returns how many."""
    config = json.loads((small / "config.json").read_text())
    cfg = NetConfig(**{**config, "hidden": tuple(config["hidden"])})
    NetRun(dataclasses.replace(cfg, hands=hands), large).claim()  # refuses another configuration
    records = net_selfplay.load_shard(small / "shards" / "gen-000.npz")
    hand = records.hand
    keep = large / "shards" / "gen-000.chunks"
    keep.mkdir(parents=True, exist_ok=True)
    written = 0
    for i in range(int(hand.max()) // TEACHER_CHUNK_HANDS + 1):
        path = keep / f"chunk-{i:04d}.npz"
        if path.exists():
            continue
        rows = (hand >= i * TEACHER_CHUNK_HANDS) & (hand < (i + 1) * TEACHER_CHUNK_HANDS)
        chunk = net_selfplay.ShardRecords(*(field[rows] for field in records))
        net_selfplay.save_shard(path, chunk._replace(hand=(chunk.hand - i * TEACHER_CHUNK_HANDS).astype(np.int32)))
        written += 1
    return written


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python experiments/scaling/seed_chunks.py SMALL_RUN LARGE_RUN HANDS")
    print(f"seeded {seed_chunks(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))} chunks")
