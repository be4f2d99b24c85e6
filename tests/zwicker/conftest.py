"""Fixtures for the Zwicker rule tests.

``IMPLS`` names the implementations every rule test runs against. Each entry is an object with
the functions ``deal``, ``from_snapshot``, ``snapshot``, ``legal_moves``, ``apply``,
``score`` and ``is_zwick`` with the signatures of :mod:`zwick_ai.zwicker.reference`.
"""

from __future__ import annotations

import pytest

from tests.zwicker import engine_impl
from zwick_ai.zwicker import reference

IMPLS = {"reference": reference, "engine": engine_impl}


@pytest.fixture(params=list(IMPLS))
def impl(request):
    return IMPLS[request.param]
