"""What a timing was measured on, in one line of facts: the cores, the load, the versions that set
the speed of compiled and Python code, and on request the processor and further packages.

>>> "cores" in describe() and "numba" in describe()
True
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from importlib.metadata import version

import numpy as np


def processor() -> str:
    """The processor's model name (``/proc/cpuinfo``), or "unknown processor"."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown processor"


def describe(with_processor: bool = False, packages: Sequence[str] = ()) -> str:
    """Cores, load average, Python, numba, numpy and OpenSpiel versions (the processor first when
    ``with_processor``; each of ``packages``' installed version last)."""
    import numba
    import pyspiel

    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    head = f"{processor()}, " if with_processor else ""
    extra = "".join(f", {name} {version(name)}" for name in packages)
    return (
        f"{head}{os.cpu_count()} cores{load}, Python {platform.python_version()}, numba {numba.__version__}, "
        f"numpy {np.__version__}, OpenSpiel {getattr(pyspiel, '__version__', 'unknown')}{extra}"
    )
