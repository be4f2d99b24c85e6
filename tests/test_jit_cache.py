"""The numba cache of zwick_ai is keyed by the whole package's source (see zwick_ai/_jit_cache.py)."""

from __future__ import annotations

import os

from zwick_ai import _jit_cache
from zwick_ai.zwicker import kernels as K


def test_kernels_cache_under_the_package_source_hash():
    path = K.play_hands._cache._cache_path
    assert os.path.basename(path) == f"numba-{_jit_cache.source_hash()}"
    assert os.path.dirname(path) == os.path.join(os.path.dirname(K.__file__), "__pycache__")


def test_source_hash_follows_every_package_file(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    monkeypatch.setattr(_jit_cache, "PACKAGE_DIR", pkg)
    _jit_cache.source_hash.cache_clear()
    try:
        first = _jit_cache.source_hash()
        (pkg / "sub" / "b.py").write_text("y = 3\n")  # a change in a file the caller never names
        _jit_cache.source_hash.cache_clear()
        assert _jit_cache.source_hash() != first
    finally:
        _jit_cache.source_hash.cache_clear()
