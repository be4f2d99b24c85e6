"""Same-run A/B timing shared by ``ab_kernels.py`` and ``ab_steps.py``: load two versions of a
compiled module side by side, time them in alternating batches (this host changes speed for
minutes at a time, so both versions see the same load) and print the minimum and median of each
with their ratios."""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from zwick_ai.zwicker.rules import VARIANTS


def ab_parser(doc: str | None, kind: str, batch: str, batch_size: int, rounds: int) -> argparse.ArgumentParser:
    """The command line of an A/B script: the two files of ``kind``, ``--variant``, ``--<batch>``
    (the batch size) and ``--rounds``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help=f"first {kind}")
    parser.add_argument("b", help=f"second {kind}")
    parser.add_argument("--variant", choices=VARIANTS, default="dithmarschen")
    parser.add_argument(f"--{batch}", type=int, default=batch_size, help=f"{batch} per batch")
    parser.add_argument("--rounds", type=int, default=rounds, help="batches per version")
    return parser


def load_copy(path: str, name: str) -> ModuleType:
    """Import a copy of the module file ``path`` under ``name``, compiled without numba's on-disk cache."""
    source = Path(path).read_text().replace("cache=True", "cache=False")
    copy = Path(tempfile.mkdtemp()) / f"{name}.py"
    copy.write_text(source)
    spec = importlib.util.spec_from_file_location(name, copy)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def alternate(versions: list[ModuleType], batch: Callable[[ModuleType], object], rounds: int) -> list[np.ndarray]:
    """Seconds of ``batch(version)`` per round for each version, the versions taking turns."""
    times: list[list[float]] = [[] for _ in versions]
    for _ in range(rounds):
        for i, version in enumerate(versions):
            start = time.perf_counter()
            batch(version)
            times[i].append(time.perf_counter() - start)
    return [np.array(t) for t in times]


def print_ab(title: str, names: tuple[str, str], a: np.ndarray, b: np.ndarray, digits: int) -> None:
    """The minimum and median of each version's times (already in the unit of ``title``) and A/B."""
    print(title)
    print(f"  A {names[0]}: min {a.min():.{digits}f}, median {np.median(a):.{digits}f}")
    print(f"  B {names[1]}: min {b.min():.{digits}f}, median {np.median(b):.{digits}f}")
    print(f"  A/B: {a.min() / b.min():.2f} (minima), {np.median(a / b):.2f} (median of paired ratios)")
