"""Mutation testing: plausible bugs applied to a temporary copy of ``pyref``; the
harness must kill every one (some property must fail on the mutated reference).

Each mutant is a textual patch (``old`` must occur exactly once in the file, so a
mutant that no longer applies is an error, never a silent pass). A mutant is run in a
subprocess whose ``sys.path`` puts the mutated copy first; the subprocess runs the
registered properties (``ci`` profile, float64 backend first since it is fastest) and
stops at the first failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyref

PYREF_DIR = Path(pyref.__file__).resolve().parent


@dataclass
class Mutant:
    name: str
    file: str   # relative to pyref/
    old: str
    new: str
    doc: str
    #: the properties expected to kill it (documentation; the runner tries all properties)
    killers: list[str] = field(default_factory=list)


MUTANTS = [
    Mutant("rope_half_split", "rope.py",
           "xe, xo = x[..., 0::2], x[..., 1::2]             # [..., S, d_k/2]\n"
           "    out = np.empty_like(x)\n"
           "    out[..., 0::2] = xe * c - xo * s\n"
           "    out[..., 1::2] = xo * c + xe * s",
           "xe, xo = x[..., :d_k // 2], x[..., d_k // 2:]\n"
           "    out = np.empty_like(x)\n"
           "    out[..., :d_k // 2] = xe * c - xo * s\n"
           "    out[..., d_k // 2:] = xo * c + xe * s",
           "RoPE rotates half-split pairs (j, j + d_k/2) instead of interleaved (2j, 2j+1)",
           ["rope_is_interleaved_block_rotation"]),
    Mutant("missing_inv_sqrt_dk", "plga.py",
           "return np.matmul(lhs, np.swapaxes(kh, -1, -2)) / b.sqrt(b.const(d_k))",
           "return np.matmul(lhs, np.swapaxes(kh, -1, -2))",
           "scores lose the 1/√d_k scale", ["sdpa_inclusion_at_identity"]),
    Mutant("elementwise_operator", "plga.py",
           "return np.matmul(a, A_P) + b_a", "return a * A_P + b_a",
           "G_LM = a ⊙ A_P + b_a (elementwise) instead of the matrix product a·A_P",
           ["energy_curvature_is_matrix_product"]),
    Mutant("metric_eps_dropped", "plga.py",
           "return _iswiglu(b, np.matmul(W, A) + bias) + b.const(eps)",
           "return _iswiglu(b, np.matmul(W, A) + bias)",
           "A_LM without the + ε floor", ["metric_tensor_at_least_eps"]),
    Mutant("layernorm_eps_outside_sqrt", "layers.py",
           "y = xc / b.sqrt(var + b.const(eps))", "y = xc / (b.sqrt(var) + b.const(eps))",
           "LayerNorm divides by √var + ε instead of √(var + ε)", ["layernorm_norm_identity"]),
    Mutant("causal_mask_off_by_one", "plga.py",
           "causal = 1.0 - np.tril(np.ones((S, S)))", "causal = 1.0 - np.tril(np.ones((S, S)), k=1)",
           "the causal mask lets each position see the next one", ["causal_mask_weights"]),
    Mutant("cache_offset_off_by_one", "plga.py",
           "n_cached = 0 if kv is None else kv[0].shape[1]",
           "n_cached = 0 if kv is None else kv[0].shape[1] + 1",
           "a KV-cached call rotates the new token one position too far", ["causal_block_equals_online"]),
    Mutant("gram_normalized_by_S", "plga.py",
           "return np.matmul(np.swapaxes(qh, -1, -2), qh)",
           "return np.matmul(np.swapaxes(qh, -1, -2), qh) / qh.shape[-2]",
           "the density operator divides by the sequence length", ["density_quadratic_form"]),
]


def apply(mutant: Mutant, dst_pkg: Path) -> None:
    path = dst_pkg / mutant.file
    text = path.read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise ValueError(f"mutant {mutant.name}: expected the target text exactly once in pyref/{mutant.file}, "
                         f"found {count} (pyref changed: update crosscheck/mutants.py)")
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import pyref
assert pyref.__file__.startswith(sys.argv[1]), pyref.__file__
from crosscheck.fuzz import run_property
from crosscheck.registry import load_properties
props = load_properties()
order = json.loads(sys.argv[2])
names = [n for n in order if n in props] + [n for n in props if n not in order]
for name in names:
    p = props[name]
    for b in sorted(p.backends, key=lambda x: x != "float64"):
        r = run_property(p, b, profile="ci", seed=0)
        if not r.ok:
            print(json.dumps({"killed_by": name, "backend": b, "why": r.counterexample}))
            sys.exit(0)
print(json.dumps({"killed_by": None}))
"""


def run_mutant(m: Mutant, timeout: float = 900.0) -> dict:
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"plga-mutant-{m.name}-") as tmp:
        dst = Path(tmp) / "pyref"
        shutil.copytree(PYREF_DIR, dst, ignore=shutil.ignore_patterns("__pycache__"))
        apply(m, dst)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        try:
            out = subprocess.run([sys.executable, "-c", _CHILD, tmp, json.dumps(m.killers)],
                                 capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"mutant": m.name, "killed": False, "killed_by": None, "why": f"timeout after {timeout:.0f} s",
                    "doc": m.doc, "seconds": round(time.monotonic() - start, 1)}
    last = (out.stdout.strip().splitlines() or ["{}"])[-1]
    try:
        info = json.loads(last)
    except json.JSONDecodeError:
        info = {"killed_by": None, "why": f"runner crashed: {out.stderr.strip().splitlines()[-1:]}"}
    if out.returncode != 0 and "killed_by" not in info:
        info = {"killed_by": None, "why": f"runner crashed: {out.stderr.strip().splitlines()[-1:]}"}
    return {"mutant": m.name, "doc": m.doc, "killed": info.get("killed_by") is not None,
            "killed_by": info.get("killed_by"), "backend": info.get("backend"), "why": info.get("why", ""),
            "seconds": round(time.monotonic() - start, 1)}


def run_all(progress: bool = True) -> dict:
    results = []
    mutants = all_mutants()
    it = mutants
    if progress:
        from tqdm import tqdm
        it = tqdm(mutants, desc="mutants", unit="mutant", leave=False, disable=None)  # off when not a TTY
    for m in it:
        results.append(run_mutant(m))
    killed = sum(r["killed"] for r in results)
    return {"total": len(results), "killed": killed, "score": killed / len(results) if results else 1.0,
            "mutants": results}


def all_mutants() -> list[Mutant]:
    """Every shipped mutant: :data:`MUTANTS` plus ``VARIANT_MUTANTS`` of
    :mod:`crosscheck.properties.variants` (imported here, lazily: that module imports
    :class:`Mutant` from this one)."""
    from .properties.variants import VARIANT_MUTANTS
    return MUTANTS + VARIANT_MUTANTS
