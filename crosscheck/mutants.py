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

from tqdm import tqdm

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
    Mutant("rope_half_split", "ops.py",
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
    Mutant("missing_inv_sqrt_dk", "ops.py",
           "return b.matmul(lhs, np.swapaxes(kh, -1, -2)) / b.sqrt(b.const(d_k))",
           "return b.matmul(lhs, np.swapaxes(kh, -1, -2))",
           "scores lose the 1/√d_k scale", ["sdpa_inclusion_at_identity"]),
    Mutant("elementwise_operator", "ops.py",
           "return b.matmul(a, A_P) + b_a", "return a * A_P + b_a",
           "G_LM = a ⊙ A_P + b_a (elementwise) instead of the matrix product a·A_P",
           ["energy_curvature_is_matrix_product"]),
    Mutant("metric_eps_dropped", "ops.py",
           "return iswiglu(b, b.matmul(W, A) + bias) + b.const(eps)",
           "return iswiglu(b, b.matmul(W, A) + bias)",
           "A_LM without the + ε floor", ["metric_tensor_at_least_eps"]),
    Mutant("layernorm_eps_outside_sqrt", "ops.py",
           "y = xc / b.sqrt(var + e)", "y = xc / (b.sqrt(var) + e)",
           "LayerNorm divides by √var + ε instead of √(var + ε)", ["layernorm_norm_identity"]),
    Mutant("causal_mask_off_by_one", "plga.py",
           "causal = 1.0 - np.tril(np.ones((S, S)))",
           "causal = 1.0 - np.tril(np.ones((S, S)), k=1)",
           "the causal mask lets each position see the next one", ["causal_mask_weights"]),
    Mutant("cache_offset_off_by_one", "attention.py",
           "n_cached = 0 if kv is None else kv[0].shape[1]",
           "n_cached = 0 if kv is None else kv[0].shape[1] + 1",
           "a KV-cached call rotates the new token one position too far",
           ["causal_block_equals_online"]),
    Mutant("gram_normalized_by_S", "ops.py",
           "return b.matmul(np.swapaxes(qh, -1, -2), qh)",
           "return b.matmul(np.swapaxes(qh, -1, -2), qh) / qh.shape[-2]",
           "the density operator divides by the sequence length", ["density_quadratic_form"]),
    Mutant("density_heads_reversed", "attention.py",
           "A = layer_norm(b, density(b, qh), ln.gamma, ln.beta, cfg.ln_eps)",
           "A = layer_norm(b, density(b, qh[:, ::-1]), ln.gamma, ln.beta, cfg.ln_eps)",
           "head h's operator is learned from the queries of head H−1−h (a wiring bug: every "
           "formula is right, only the assembly is wrong)", ["spec_operator_assembly"]),
    # found surviving every property while spec_operator_assembly compared pyref with pyref's
    # own components; killed since it compares with the independent evaluation (spec/_eval.py)
    Mutant("phi_res_without_residual", "ops.py",
           "A = layer_norm(b, A + Ain, u.gamma, u.beta, eps)",
           "A = layer_norm(b, A, u.gamma, u.beta, eps)",
           "Φ_res drops the residual connection of each unit", ["spec_operator_assembly"]),
    Mutant("swiglu_gate_value_swapped", "ops.py",
           "gate = b.silu(linear(b, x, W1, b1))   # [..., hidden]\n    val = linear(b, x, W2, b2)",
           "gate = b.silu(linear(b, x, W2, b2))   # [..., hidden]\n    val = linear(b, x, W1, b1)",
           "SwiGLU gates with gluw2 and takes the value from gluw1", ["spec_operator_assembly"]),
]


#: mutants of :mod:`pyref.variants` (killed by the ``properties/variants`` modules)
VARIANT_MUTANTS = [
    # KLA
    Mutant("kla_beta_without_eps", "variants/kla.py",
           "return eta / (_sqnorm(k) + eps)", "return eta / _sqnorm(k)",
           "KLA β = η/‖k‖² (ε dropped)", ["kla_residual_contraction", "kla_proximal_equivalence"]),
    Mutant("kla_decay_after_write", "variants/kla.py",
           "return _write(alpha * S, k, v, beta)[0]", "return alpha * _write(S, k, v, beta)[0]",
           "KLA writes at the undecayed state and decays afterwards (base point S instead of S̃ = "
           "αS)",
           ["kla_residual_contraction"]),
    Mutant("kla_readout_unnormalized", "variants/kla.py",
           "return (S.T @ q) / b.sqrt(_sqnorm(q))", "return S.T @ q",
           "KLA read-out Sᵀq without the 1/‖q‖", ["kla_chunkwise_equals_recurrence"]),
    Mutant("kla_chunk_state_without_decay_ratios", "variants/kla.py",
           "S_out = gam[-1] * S0 + K.T @ ((gam[-1] / gam)[:, None] * U)",
           "S_out = gam[-1] * S0 + K.T @ U",
           "chunkwise S_out forgets the decay factors γ_C/γ_j",
           ["kla_chunkwise_equals_recurrence"]),
    Mutant("kla_chunk_readout_strict_mask", "variants/kla.py",
           "out = gam[:, None] * (Qn @ S0) + (A * (Qn @ K.T)) @ U",
           "out = gam[:, None] * (Qn @ S0) + (A_strict * (Qn @ K.T)) @ U",
           "chunkwise read-out uses A⁻ (misses the current token's write)",
           ["kla_chunkwise_equals_recurrence"]),
    # Gated DeltaNet / KDA
    Mutant("deltanet_residual_before_decay", "variants/deltanet.py",
           "r = v - X.T @ k                            # [d_v]",
           "r = v - S.T @ k                            # [d_v]",
           "the delta-rule residual is read from the undecayed state S instead of X = D S",
           ["deltanet_chunking_equals_sequential", "deltanet_order_matters"]),
    Mutant("deltanet_compose_reversed", "variants/deltanet.py",
           "return P2 @ P1, P2 @ R1 + R2", "return P1 @ P2, P1 @ R2 + R1",
           "affine maps composed in the wrong order", ["deltanet_chunking_equals_sequential"]),
    Mutant("deltanet_map_decay_on_left", "variants/deltanet.py",
           "P = E * alpha if np.ndim(alpha) == 0 else E * alpha[None, :]",
           "P = E * alpha if np.ndim(alpha) == 0 else alpha[:, None] * E",
           "KDA step map D(I − βkkᵀ) instead of (I − βkkᵀ)D", ["deltanet_order_matters"]),
    Mutant("deltanet_chunk_state_reset", "variants/deltanet.py",
           "            S = P @ S + R\n", "            S = R\n",
           "the state is reset at every chunk boundary (a new document, not a chunking)",
           ["deltanet_chunking_equals_sequential"]),
    # mHC
    Mutant("sinkhorn_col_step_uses_row_sums", "variants/mhc.py",
           "return M / np.sum(M, axis=0, keepdims=True)",
           "return M / np.sum(M, axis=1, keepdims=True)",
           "the Sinkhorn column step divides by the row sums", ["mhc_sinkhorn_column_step"]),
    Mutant("sinkhorn_orders_swapped", "variants/mhc.py",
           'first, second = (_row_step, _col_step) if order == "row-first" '
           'else (_col_step, _row_step)',
           'first, second = (_col_step, _row_step) if order == "row-first" '
           'else (_row_step, _col_step)',
           "row-first and column-first rounds swapped",
           ["mhc_sinkhorn_iterates", "mhc_sinkhorn_column_step"]),
    Mutant("sinkhorn_one_round_short", "variants/mhc.py",
           "for _ in range(n_iters):", "for _ in range(n_iters - 1):",
           "Sinkhorn runs one round fewer than asked", ["mhc_sinkhorn_iterates"]),
    Mutant("mhc_transfer_without_mixing", "variants/mhc.py",
           "return B @ X + C @ y", "return X + C @ y",
           "the layer adds the plain residual X instead of the mixed streams B X",
           ["mhc_transfer_can_amplify"]),
    # AttnRes
    Mutant("attnres_merge_by_averaging", "variants/attnres.py",
           "return b.exp(LA - L) * hA + b.exp(LB - L) * hB, L", "return (hA + hB) / 2, L",
           "two-phase merge averages the groups' read-outs", ["attnres_two_phase_merge"]),
    Mutant("attnres_lse_without_max", "variants/attnres.py",
           "return alpha @ V, _scalar(m + b.log(Z)), alpha",
           "return alpha @ V, _scalar(b.log(Z)), alpha",
           "a group's log-partition forgets the subtracted maximum", ["attnres_two_phase_merge"]),
    Mutant("attnres_values_are_normalized_keys", "variants/attnres.py",
           "return alpha @ V, _scalar(m + b.log(Z)), alpha",
           "return alpha @ _rms_norm(b, V, eps), _scalar(m + b.log(Z)), alpha",
           "the read-out averages the RMS-normalized keys instead of the raw candidates",
           ["attnres_two_phase_merge"]),
    Mutant("attnres_rmsnorm_without_mean", "variants/attnres.py",
           "return V / b.sqrt(eps + np.sum(V * V, axis=-1, keepdims=True) / d)",
           "return V / b.sqrt(eps + np.sum(V * V, axis=-1, keepdims=True))",
           "RMSNorm divides by ‖v‖ instead of ‖v‖/√d", ["attnres_two_phase_merge"]),
    Mutant("attnres_gate_ignored", "variants/attnres.py",
           "return h_tilde + g[()] * _partial(b, w, V, e)[0]",
           "return h_tilde + _partial(b, w, V, e)[0]",
           "the scalar gate is ignored (ĥ = h̃ + r)", ["attnres_zero_gate_identity"]),
]


def apply(mutant: Mutant, dst_pkg: Path) -> None:
    path = dst_pkg / mutant.file
    text = path.read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise ValueError(f"mutant {mutant.name}: expected the target text exactly once in "
                         f"pyref/{mutant.file}, found {count} (pyref changed: update "
                         "crosscheck/mutants.py)")
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import pyref
assert pyref.__file__.startswith(sys.argv[1]), pyref.__file__
from crosscheck.fuzz import run_property
from crosscheck.properties import load_properties
props = load_properties()
order = json.loads(sys.argv[2])
names = [n for n in order if n in props] + [n for n in props if n not in order]
for name in names:
    p = props[name]
    for b in sorted((b for b in p.backends if b != "arb"), key=lambda x: x != "float64"):
        r = run_property(p, b, profile="ci", seed=0, shrink=False)
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
            return {"mutant": m.name, "killed": False, "killed_by": None,
                    "why": f"timeout after {timeout:.0f} s",
                    "doc": m.doc, "seconds": round(time.monotonic() - start, 1)}
    last = (out.stdout.strip().splitlines() or ["{}"])[-1]
    try:
        info = json.loads(last)
    except json.JSONDecodeError:
        info = {"killed_by": None, "why": f"runner crashed: {out.stderr.strip().splitlines()[-1:]}"}
    if out.returncode != 0 and "killed_by" not in info:
        info = {"killed_by": None, "why": f"runner crashed: {out.stderr.strip().splitlines()[-1:]}"}
    return {"mutant": m.name, "doc": m.doc, "killed": info.get("killed_by") is not None,
            "killed_by": info.get("killed_by"), "backend": info.get("backend"),
            "why": info.get("why", ""),
            "seconds": round(time.monotonic() - start, 1)}


def run_all(progress: bool = True) -> dict:
    results = []
    mutants = all_mutants()
    it = mutants
    if progress:
        # off when not a TTY
        it = tqdm(mutants, desc="mutants", unit="mutant", leave=False, disable=None)
    for m in it:
        results.append(run_mutant(m))
    killed = sum(r["killed"] for r in results)
    return {"total": len(results), "killed": killed,
            "score": killed / len(results) if results else 1.0,
            "mutants": results}


def all_mutants() -> list[Mutant]:
    """Every shipped mutant: :data:`MUTANTS` plus :data:`VARIANT_MUTANTS`."""
    return MUTANTS + VARIANT_MUTANTS
