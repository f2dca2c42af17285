"""Run the registered properties with Hypothesis, outside or inside pytest.

Profiles (examples per property and backend, before a property's ``cost`` factor):

==========  =======  =====  ===  ================================================
profile     float64  mp     arb  what it is for
==========  =======  =====  ===  ================================================
ci          200      60     20   the test suite and the mutation score (~3 min, 1 core)
dev         1000     300    100  before a commit touching pyref or a property (5x ci)
thorough    4000     1200   400  a release or a new theorem family (20x ci, ~1 h)
==========  =======  =====  ===  ================================================

``arb`` runs the properties on Arb balls at ``MP_DPS`` digits with rigorous verdicts
(:mod:`crosscheck.arbcheck`): each example is certified, non-refuted, undecided (a failure:
more digits needed) or refuted; the result counts them.

Runs are deterministic given ``seed`` (Hypothesis' ``seed``, no example database).
For every property and backend the result records the examples run, how many met the
theorem's hypotheses (non-vacuity), the maximum deviation and its bound, and the first
counterexample if any.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as hyp_seed
from tqdm import tqdm

from .arbcheck import ARB_DPS
from .properties import load_properties
from .registry import Outcome, Property

PROFILES = {"ci": {"float64": 200, "float32": 200, "mp": 60, "arb": 20},
            "dev": {"float64": 1000, "float32": 1000, "mp": 300, "arb": 100},
            "thorough": {"float64": 4000, "float32": 4000, "mp": 1200, "arb": 400}}
#: digits of the mp and arb runs: one number, the one the arb tightness threshold is formed with
MP_DPS = ARB_DPS


@dataclass
class RunResult:
    prop: str
    backend: str
    theorems: list[str]
    paper: str
    examples: int = 0
    met: int = 0
    max_dev: float = 0.0
    bound_at_max: float = 0.0
    ok: bool = True
    counterexample: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: arb runs: examples (meeting the hypotheses) per rigorous verdict (:mod:`..arbcheck`;
    #: an example with no ball sub-check counts as non-refuted); empty for mp/float64
    verdicts: dict[str, int] = field(default_factory=dict)

    @property
    def met_fraction(self) -> float:
        return self.met / self.examples if self.examples else 0.0


def run_property(p: Property, backend: str, profile: str = "ci", seed: int = 0,
                 examples: int | None = None, shrink: bool = True) -> RunResult:
    """Run property ``p`` on ``backend`` ("mp" or "arb" at 50 digits, or "float64").

    ``shrink=False`` reports the first failing input unshrunk (the mutation runner needs only
    the verdict; shrinking costs up to 100x the run)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
    n = examples if examples is not None else max(2,
                                                  int(round(PROFILES[profile][backend] * p.cost)))
    res = RunResult(p.name, backend, p.theorems, p.paper)
    start = time.monotonic()

    @hyp_seed(seed)
    @settings(max_examples=n, database=None, deadline=None, derandomize=False,
              phases=[Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else []),
              suppress_health_check=list(HealthCheck))
    @given(p.strategy())
    def inner(example):
        out: Outcome = p.check(example, backend, MP_DPS)
        res.examples += 1
        if out.met:
            res.met += 1
            if backend == "arb":
                v = out.verdict or ("nonrefuted" if out.ok else "refuted")
                res.verdicts[v] = res.verdicts.get(v, 0) + 1
            if out.dev >= res.max_dev:
                res.max_dev, res.bound_at_max = float(out.dev), float(out.bound)
        if out.note and out.note not in res.notes:
            res.notes.append(out.note)
        assert out.ok, f"deviation {out.dev:.3e} > bound {out.bound:.3e} ({out.note})"

    for e in getattr(p, "examples", ()):   # explicit edge cases first (Phase.explicit)
        inner = example(e)(inner)
    try:
        inner()
    except AssertionError as exc:
        res.ok = False
        # a bare ``assert`` inside a library (mpmath) has no message: name the class then
        res.counterexample = (str(exc).splitlines() or [type(exc).__name__])[0][:500]
    except Exception as exc:  # a property crashing is a failure, reported, not raised
        res.ok = False
        res.counterexample = f"{type(exc).__name__}: {exc}"[:500]
    res.seconds = time.monotonic() - start
    return res


def run_all(profile: str = "ci", seed: int = 0, only: str | None = None,
            examples: int | None = None,
            progress: bool = True) -> list[RunResult]:
    props = load_properties()
    jobs = [(p, b) for p in props.values() for b in p.backends
            if only is None or only == p.name or only in p.theorems]
    if only is not None and not jobs:
        raise ValueError(f"no property checks {only!r} (give a property name or a Lean theorem "
                         "name)")
    results = []
    it = jobs
    if progress:
        it = tqdm(jobs, desc="fuzz", unit="prop", leave=False, disable=None)  # off when not a TTY
    for p, b in it:
        results.append(run_property(p, b, profile, seed, examples))
    return results
