"""Mutation testing: every shipped pyref mutant must be killed by some property."""

from __future__ import annotations

import pytest

from crosscheck.mutants import Mutant, all_mutants, apply, run_mutant
from crosscheck.properties import load_properties


def test_mutants_name_existing_killers():
    props = load_properties()
    for m in all_mutants():
        assert m.killers and all(k in props for k in m.killers), (m.name, m.killers)


def test_mutant_that_does_not_apply_is_an_error(tmp_path):
    (tmp_path / "x.py").write_text("a = 1\n")
    with pytest.raises(ValueError, match="expected the target text exactly once"):
        apply(Mutant("m", "x.py", "b = 2", "b = 3", "doc"), tmp_path)


ALL_MUTANTS = all_mutants()


@pytest.mark.parametrize("mutant", ALL_MUTANTS, ids=[m.name for m in ALL_MUTANTS])
def test_mutant_is_killed(mutant):
    r = run_mutant(mutant)
    assert r["killed"], f"{mutant.name} survived: {r['why']}"
