"""Cross-check properties of ``Formal/Variants/AttnRes.lean``: ``attnres_two_phase_merge``,
``attnres_average_halves_differs``, ``attnres_zero_query_uniform``,
``attnres_zero_gate_identity``, ``attnres_zero_candidate_changes_weights`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from pyref.backend import to_float64
from pyref.variants import attnres

from ...registry import combine, prop
from .._arith import bound, conv, maxabs
from ._shared import _bk, _f, arr

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Variants.AttnRes.ar_exp_sub":
        "e^{x−y}e^{y} = e^{x} from the exp hypothesis structure; algebra helper",
    "PLGA.Variants.AttnRes.gZ_eq":
        "a shifted group partition is the unshifted one times e^{−c}; algebra helper of the merge "
        "proof",
    "PLGA.Variants.AttnRes.gNum_eq":
        "a shifted group numerator is the unshifted one times e^{−c}; algebra helper of the merge "
        "proof",
    "PLGA.Variants.AttnRes.group_partition_pos":
        "a nonempty group has positive partition function; order helper",
    "PLGA.Variants.AttnRes.exp_gLse":
        "e^{L_G} = Σ_{i∈G} e^{s_i} for any shift c; lemma of two_phase_merge_eq_one_pass (whose "
        "merged h and L are checked by attnres_two_phase_merge)",
    "PLGA.Variants.AttnRes.ar_fsum_split":
        "a sum splits into the parts over a group and its complement; index bookkeeping",
    "PLGA.Variants.AttnRes.merge_algebra":
        "the field identity behind the merge; structural step of two_phase_merge_eq_one_pass",
}


# ============================================================================ AttnRes (§4)
@st.composite
def attnres_inputs(draw, n_lo=2):
    N, d = draw(st.integers(n_lo, 8)), draw(st.integers(1, 6))
    V = draw(arr((N, d)))
    w = draw(arr((d,), st.sampled_from([0.1, 1.0, 10.0])))
    mask = np.array(draw(st.lists(st.booleans(), min_size=N, max_size=N)))
    if mask.all() or not mask.any():
        mask[0] = not mask[0]
    return dict(V=V, w=w, mask=mask, h=draw(arr((d,))), g=draw(st.floats(-2.0, 2.0, width=64)))


def _abs_scores(V, w, eps=attnres.EPS):
    """|w|ᵀ|RMSNorm(v_i)| in float64 (the score majorant) and log N."""
    d = V.shape[1]
    Kf = np.abs(V) / np.sqrt(eps + np.sum(V * V, axis=1, keepdims=True) / d)
    return Kf @ np.abs(w)


def _attn_T(ex):
    """Majorant scale of depth-attention read-outs: 8 max|v| (1 + max |w|ᵀ|k_i| + log N) (see
    attnres_two_phase_merge)."""
    N = ex["V"].shape[0]
    return 8 * max(float(np.max(np.abs(ex["V"]))),
                   1e-300) * (1 + float(np.max(_abs_scores(ex["V"], ex["w"]))) + math.log(N))


def _attn_D(ex):
    N, d = ex["V"].shape
    return 2 * N + 2 * d + 16


@prop(theorems=["PLGA.Variants.AttnRes.two_phase_merge_eq_one_pass",
                "PLGA.Variants.AttnRes.depthRead_shift"],
      paper="AttnRes §4: two-phase (block/partial) evaluation with log-sum-exp statistics equals "
            "one pass",
      strategy=attnres_inputs)
def attnres_two_phase_merge(ex, backend, dps):
    """pyref's ``two_phase_depth_attention`` (partials h_G, L_G of two random non-empty groups,
    merged by L = log(e^{L_A} + e^{L_B}), h = e^{L_A−L}h_A + e^{L_B−L}h_B) and pyref's one-pass
    ``depth_attention`` both equal the read-out computed here from the spec formulas
    (k_i = v_i/√(ε + ‖v_i‖²/d), s_i = wᵀk_i, α = softmax(s) with max subtraction, h = Σα_i v_i),
    and L = log Σ_i e^{s_i}; pyref's one-pass h (max-shifted) also equals the unshifted
    e^{s_i}/Σ_j e^{s_j} read-out (shift invariance; |s_i| ≤ 10·6·√6 < 150 here, no overflow).
    Bound: score errors δ ≤ γ(2d+6)·|w|ᵀ|k_i|, exp arguments
    additionally u·|s|; the weights' relative error is ≤ 2 × (argument error) + γ_{N+3}, the merge
    adds 2 × (error of L_A − L) + 4u; with h ≤ max|v| this is ≤ γ_D·8 max|v|(1 + max|w|ᵀ|k_i| +
    log N) per evaluation, D = 2N + 2d + 16 (same scale for L without the max|v|; the unshifted
    reference has no shift rounding, so the same bound)."""
    V, w, mask = ex["V"], ex["w"], ex["mask"]
    h2, L2 = attnres.two_phase_depth_attention(w, V, mask, backend=backend, dps=dps)
    h1, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        Vb, wb = conv(backend, dps, V, w)
        d = V.shape[1]
        Kb = Vb / b.sqrt(b.const(attnres.EPS) + np.sum(Vb * Vb, axis=1, keepdims=True) / d)
        s = Kb @ wb
        m = np.max(s)
        ez = b.exp(s - m)
        Z = np.sum(ez)
        href = (ez / Z) @ Vb
        Lref = m + b.log(Z)
        e0 = b.exp(s)
        href0 = (e0 / np.sum(e0)) @ Vb                  # no max subtraction
        dev1, dev2, dev0 = maxabs(h1 - href), maxabs(h2 - href), maxabs(h1 - href0)
        devL = maxabs(L2 - Lref)
    T = _attn_T(ex)
    TL = 8 * (1 + float(np.max(_abs_scores(V, w))) + math.log(V.shape[0]))
    bT = bound(backend, _attn_D(ex), T)
    return combine([("one-pass h = spec read-out", dev1, bT),
                    ("two_phase_merge_eq_one_pass: merged h = spec read-out", dev2, bT),
                    ("depthRead_shift: max-shifted h = unshifted read-out", dev0, bT),
                    ("merged L = log Σ e^{s_i}", devL, bound(backend, _attn_D(ex), TL))])


@prop(theorems=["PLGA.Variants.AttnRes.average_of_halves_differs"],
      paper="AttnRes §4: averaging the two groups' read-outs is not the one-pass result",
      strategy=attnres_inputs)
def attnres_average_halves_differs(ex, backend, dps):
    """With pyref's partials (h_A, L_A), (h_B, L_B) and one-pass h: h − ½(h_A + h_B) =
    (σ(L_A − L_B) − ½)(h_A − h_B) (σ the logistic function: e^{L_A−L} = σ(L_A − L_B)). Witness:
    met when the exact right side is far above round-off (groups with different partition
    functions and read-outs); then pyref's average must differ from the one-pass h by more than
    the bound. Bound: three read-outs and σ (argument error ≤ 2 × L error), each within the
    attnres_two_phase_merge majorant: 4 × that bound."""
    V, w, mask = ex["V"], ex["w"], ex["mask"]
    hA, LA = attnres.depth_attention_partial(w, V[mask], backend=backend, dps=dps)
    hB, LB = attnres.depth_attention_partial(w, V[~mask], backend=backend, dps=dps)
    h, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        avg = (hA + hB) / 2
        sig = 1 / (1 + b.exp(LB - LA))
        rhs = (sig - b.const(0.5)) * (hA - hB)
        dev = maxabs((h - avg) - rhs)
        effect = maxabs(rhs)
        seen = maxabs(h - avg)
    bnd = 4 * bound(backend, _attn_D(ex), _attn_T(ex))
    met = effect > 1e3 * bnd
    return combine([("h − ½(h_A + h_B) = (σ(L_A − L_B) − ½)(h_A − h_B)", dev, bnd),
                    ("average_of_halves_differs: the average is not h",
                     float(met and not seen > bnd), 0.0)],
                   met=met)


@prop(theorems=["PLGA.Variants.AttnRes.scores_zero_query",
                "PLGA.Variants.AttnRes.zero_query_uniform",
                "PLGA.Variants.AttnRes.zero_query_readout",
                "PLGA.Variants.AttnRes.zero_query_not_identity"],
      paper="AttnRes §4: w = 0 gives uniform weights; the additive Delta read-out is then not the "
            "identity",
      strategy=attnres_inputs)
def attnres_zero_query_uniform(ex, backend, dps):
    """With query w = 0 pyref's scores (``depth_scores``) are exact zeros and its weights exactly
    1/N (exp(0) = 1, the sum N is exact: bound 0), and pyref's additive Delta AttnRes input is
    h̃ + (1/N)Σv_i, i.e. the read-out is the candidate mean (majorant
    |h̃| + (1/N)Σ|v_i|, index N + 3) -- not the identity: met when the mean candidate is far above
    round-off, then ĥ must differ from h̃ by more than the bound."""
    V, h = ex["V"], ex["h"]
    N, d = V.shape
    zero = np.zeros(d)
    _, a = attnres.depth_attention(zero, V, backend=backend, dps=dps)
    s0 = attnres.depth_scores(zero, V, backend=backend, dps=dps)
    hh = attnres.delta_attnres_input(h, zero, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        Vb, hb = conv(backend, dps, V, h)
        uni = b.const(1) / N
        dev_w = maxabs(a - uni) + maxabs(s0)
        dev_h = maxabs(hh - (hb + np.sum(Vb, axis=0) / N))
        moved = maxabs(hh - hb)
    T = np.abs(h) + np.sum(np.abs(V), axis=0) / N
    bnd = bound(backend, N + 3, T)
    mean = float(np.max(np.abs(V.mean(axis=0))))
    met = mean > 1e3 * bnd
    # a failure of the exact weights counts whether or not the witness hypothesis is met
    return combine([("scores_zero_query / zero_query_uniform: scores 0, weights 1/N (exact)",
                     dev_w, 0.0),
                    ("zero_query_readout: ĥ = h̃ + mean v", dev_h, bnd),
                    ("zero_query_not_identity: ĥ ≠ h̃", float(met and not moved > bnd), 0.0)],
                   met=met or dev_w != 0.0)


@prop(theorems=["PLGA.Variants.AttnRes.zero_gate_identity"],
      paper="AttnRes §4: the zero-initialized scalar gate ĥ = h̃ + g·r is the identity at g = 0",
      strategy=attnres_inputs)
def attnres_zero_gate_identity(ex, backend, dps):
    """pyref's ``gated_attnres_input`` with g = 0 returns h̃ exactly (h̃ + 0·r = h̃: bound 0), and
    for the drawn g it returns h̃ + g·r with r pyref's one-pass read-out (majorant |h̃| + |g||r|,
    index 2 plus the read-out's own bound)."""
    V, w, h, g = ex["V"], ex["w"], ex["h"], ex["g"]
    h0 = attnres.gated_attnres_input(h, w, V, 0.0, backend=backend, dps=dps)
    hg = attnres.gated_attnres_input(h, w, V, g, backend=backend, dps=dps)
    r, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        hb, gb = conv(backend, dps, h, np.float64(g))
        dev0 = maxabs(h0 - hb)
        devg = maxabs(hg - (hb + gb[()] * r))
    T = np.abs(h) + abs(g) * np.max(np.abs(V))
    return combine([("zero_gate_identity: g = 0 gives h̃ (exact)", dev0, 0.0),
                    ("ĥ = h̃ + g·r", devg,
                     bound(backend, 2, T) + abs(g) * bound(backend, _attn_D(ex), _attn_T(ex)))])


@prop(theorems=["PLGA.Variants.AttnRes.rmsNorm_zero",
                "PLGA.Variants.AttnRes.zero_candidate_partition",
                "PLGA.Variants.AttnRes.zero_candidate_lowers_weights"],
      paper="AttnRes §4: a zero-vector candidate still changes the other weights (adds e⁰ to the "
            "denominator)",
      strategy=lambda: st.tuples(attnres_inputs(n_lo=1), st.integers(0, 8)))
def attnres_zero_candidate_changes_weights(ex, backend, dps):
    """Appending a zero vector as a candidate (at a random position): pyref's new weights are
    α'_i = α_i Z/(Z + 1) for the old candidates and 1/(Z + 1) for the zero one (its key is 0, its
    score 0: pyref's ``rms_norm`` of the zero vector is exactly 0), Z = Σ e^{s_i} from pyref's
    ``depth_scores``; no old weight may rise (α'_i ≤ α_i up to the bound); witness: met when
    1/(Z + 1) is far above round-off, then α' must differ from α by more than the bound. Weights
    ≤ 1 with relative error ≤ 2 × argument error + γ: majorant 4(1 + max|w|ᵀ|k_i|), index
    D = 2N + 2d + 16."""
    e, pos = ex
    V, w = e["V"], e["w"]
    N, d = V.shape
    pos = pos % (N + 1)
    V2 = np.insert(V, pos, np.zeros(d), axis=0)
    _, a = attnres.depth_attention(w, V, backend=backend, dps=dps)
    _, a2 = attnres.depth_attention(w, V2, backend=backend, dps=dps)
    s = attnres.depth_scores(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        m = max(np.max(s), b.const(0))
        ez = b.exp(s - m)
        Zm = np.sum(ez)                       # Z e^{-m}
        z0 = b.exp(-m)                        # e^0 e^{-m}
        others = np.delete(a2, pos)
        dev = maxabs(others - a * Zm / (Zm + z0)) + maxabs(a2[pos] - z0 / (Zm + z0))
        dev_rms = maxabs(attnres.rms_norm(np.zeros((1, d)), backend=backend, dps=dps))
        rise = float(np.max(to_float64(others - a))) if N else 0.0  # exact value −α_i/(Z + 1) < 0
        change = maxabs(others - a)
        effect = float(_f(z0 / (Zm + z0))) * float(np.max(to_float64(a)))
    T = 4 * (1 + float(np.max(_abs_scores(V, w))))
    bnd = bound(backend, 2 * (N + 1) + 2 * d + 16, T)
    met = effect > 1e3 * bnd
    return combine([("zero_candidate_partition: α' = α Z/(Z + 1), 1/(Z + 1)", dev, bnd),
                    ("rmsNorm_zero (exact)", dev_rms, 0.0),
                    ("zero_candidate_lowers_weights: no old weight rises", rise, bnd),
                    ("the weights change (witness)", float(met and not change > bnd),
                     0.0)], met=met)
