"""Shared fixtures. Tests marked ``lean`` run the real Lean toolchain (installed on
first use by ``crosscheck.lean.toolchain``); each Lean process costs 10-60 s here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crosscheck.lean.toolchain import resolve

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def toolchain():
    return resolve()


@pytest.fixture
def mini_project(tmp_path) -> Path:
    """A fresh copy of the two-module fixture library (with its statement lock)."""
    dst = tmp_path / "mini"
    shutil.copytree(FIXTURES / "lean_mini", dst)
    return dst
