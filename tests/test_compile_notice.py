"""A first run says on stderr that it is compiling; a run from the cache says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL_KERNEL = (
    "from zwick_ai import zwicker; from zwick_ai.zwicker import kernels as K; K.empty_state(zwicker.rules().array())"
)


def run(cache: Path, **env: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", SMALL_KERNEL],
        cwd=ROOT,
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr


def test_compiling_is_announced_once_and_loading_from_the_cache_is_silent(tmp_path):
    first = run(tmp_path)
    assert first.count("zwick_ai: compiling the numba engine") == 1 and str(tmp_path) in first
    assert "compiling" not in run(tmp_path)  # cached now


def test_the_notice_can_be_silenced(tmp_path):
    assert "compiling" not in run(tmp_path, ZWICK_COMPILE_NOTICE="0")
