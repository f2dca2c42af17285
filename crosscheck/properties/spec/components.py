"""Every model-side array function of ``pyref.layers``, ``pyref.rope`` and the operator chain of
``pyref.plga`` against the independent evaluator (:mod:`crosscheck.spec_eval.model`), at the
formula level, on generic inputs: ``dense_layers_match_spec``, ``row_maps_match_spec``,
``rope_matches_spec``, ``operator_chain_matches_spec``.

Each property names the locked theorems whose statement is about the Lean definition it
evaluates; where a theorem equates two Lean terms, pyref computes one side and the evaluator the
other (e.g. ``swigluMat_apply``: row i of pyref's SwiGLU of a matrix against ``swigluRow`` of row
i). Conventions and tolerances: :mod:`crosscheck.properties.spec`, :mod:`._shared`; numpy's
float64 exp, log, pow, cos and sin are taken to be within 4 ulp (relative 8u, u = 2⁻⁵³) of the
exact value (glibc and numpy's SIMD loops document < 4 ulp; measured ≤ 1.1u on this build)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import const, fsum, mat
from .._arith import bound
from ._shared import MAG, SEED, cmp, deviation, ev_ctx, gen, ln_scale, scale

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}


# ================================================================ dense layers (pyref.layers)
@st.composite
def dense_case(draw):
    m = draw(st.integers(1, 5))
    n = draw(st.integers(2, 6))
    H, dk = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    return (m, n, H, dk, draw(MAG), draw(SEED), draw(st.sampled_from([1e-6, 1e-3, 1e-9])),
            draw(st.sampled_from([0.0, 3.0, -0.75, 100.0])))


def _linear_parts(ch, backend, dps, X, W, b, H, dk):
    """pyref.layers.linear = affine X Wᵀ b, and every head's column block = ``affine X (splitHead
    Wᵀ h) (splitVec b h)`` (``splitHead_affine``)."""
    y = pyref.layers.linear(X, W, b, backend=backend, dps=dps)
    k, T = X.shape[1] + 1, np.abs(X) @ np.abs(W).T + np.abs(b)
    with ev_ctx(dps):
        Wl, bl = ev.transpose(mat(W)), mat(b)
        cmp(ch, "linear = affine X Wᵀ b", y, ev.affine(mat(X), Wl, bl), backend, k, np.max(T))
        for h in range(H):
            ref = ev.affine(mat(X), ev.splitHead(Wl, h, dk), bl[h * dk:(h + 1) * dk])
            cmp(ch, f"linear head {h} = affine X (splitHead W h) (splitVec b h)",
                np.asarray(y)[:, h * dk:(h + 1) * dk], ref, backend, k, np.max(T))


def _activation_parts(ch, backend, dps, u):
    """sigmoid, silu, iswiglu elementwise against σ(u) = 1/(1 + e^{−u}), u σ(u), u·u·σ(u)."""
    fns = (("sigmoid", pyref.layers.sigmoid, ev.sigmoid, 6),
           ("silu", pyref.layers.silu, ev.silu, 7),
           ("iswiglu", pyref.layers.iswiglu, ev.iswiglu, 8))
    for name, f, g, k in fns:
        y = f(u, backend=backend, dps=dps)
        with ev_ctx(dps):
            ref = [g(x) for x in mat(u)]
            cmp(ch, f"{name} = Lean {name}", y, ref, backend, k)
            if name == "iswiglu":   # iswiglu_nonneg / iswiglu_pos on pyref's values
                bad = sum(1 for v, x in zip(np.ravel(y), u) if v < 0 or (x != 0 and not v > 0))
                ch.exact("iswiglu ≥ 0, > 0 off zero", float(bad))


@prop(theorems=["PLGA.Attention.splitHead_affine", "PLGA.LayerNorm.lnEps_shift",
                "PLGA.iswiglu_nonneg", "PLGA.iswiglu_pos"],
      paper="spec A.2/A.4 dense layers: torch Linear, LayerNorm (biased variance, ε inside the "
            "root), σ, silu, iSwiGLU (Def 3.1)",
      strategy=dense_case, cost=2)
def dense_layers_match_spec(ex, backend, dps):
    """pyref.layers against the Lean definitions, on generic X, W, b, γ, β:

    * ``linear(X, W, b)`` = ``affine X Wᵀ b`` and, per head, ``splitHead_affine``;
    * ``layer_norm(X + c, γ, β, ε)`` = ``lnMat ε γ β X`` (``lnEps_shift``: the common shift c ∈
      {0, 3, −0.75, 100} of every row is invisible), with ``rowMean``, biased ``rowVar``, ε inside
      the root; the shifted input is formed in the backend;
    * ``layer_norm(s·X)`` for s ∈ {2⁵¹¹, 2⁵²⁰, 1e200, 1e300}, rows whose squares overflow float64, =
      ``lnMat ε γ β (s·X)`` (the float path rescales such rows by an exact power of two);
    * ``sigmoid``, ``silu``, ``iswiglu`` on u ∈ [−20, 20]·mag = σ, ``silu``, ``iswiglu``; pyref's
      iSwiGLU values are ≥ 0 and > 0 off 0 (exact).

    Bounds. mp: 1e-40 times the float64 scale T of each comparison (harness bound). float64
    (u = 2⁻⁵³, Higham §3.1): linear ``fp_bound(n+1, |X||W|ᵀ + |b|)``. LayerNorm of a row with
    X∞ = max|x|, s = √(var + ε): the shift rounds once (u X∞), the mean is within γ_{n+1}X∞, the
    centred entries within δ = γ_{n+4}X∞, Σĉ²/n within 5γ_{2n+4}X∞², so ŝ within relative
    2.5γ_{2n+4}X∞²/s² + 2u (ε's binary rounding included), and γ·ĉ/ŝ + β within
    |γ|(δ/s + (2X∞/s)(2.5γ_{2n+4}X∞²/s² + 3u)) + 2u(|γ||y| + |β|) ≤
    ``fp_bound(2n+8, |γ|(X∞/s)(4 + 5X∞²/s²) + |β|)``. σ: exp within 4 ulp (8u), then + and ÷:
    relative 11u ≤ ``fp_bound(6, σ)``; silu one more product, iSwiGLU two
    (``fp_bound(7, ·)``, ``fp_bound(8, ·)`` on the largest value)."""
    m, n, H, dk, mag, seed, eps, c = ex
    rng = np.random.default_rng(seed)
    X, W, b = gen(rng, (m, n)) * mag, gen(rng, (H * dk, n)), gen(rng, H * dk) * 0.5
    gamma, beta = gen(rng, n, 0.5, 1.5), gen(rng, n, -0.5, 0.5)
    ch = Checks()
    _linear_parts(ch, backend, dps, X, W, b, H, dk)
    bk = pyref.get_backend(backend, dps)
    with bk.context():
        Xs = bk.asarray(X) + bk.const(c)
    y = pyref.layers.layer_norm(Xs, gamma, beta, eps=eps, backend=backend, dps=dps)
    with ev_ctx(dps):
        ref = ev.lnMat(const(eps), mat(gamma), mat(beta), mat(X))
        T = ln_scale(X + c, gamma, beta, eps)
        ch.le("layer_norm(X + c) = lnMat X (lnEps_shift)", deviation(y, ref),
              bound(backend, 2 * n + 8, T))
    # rows far beyond √(float max): pyref rescales them by a power of two (exact) instead of
    # letting Σ(x − μ)² overflow; same bound with ε/s² (the rescaled row's ε)
    s = float(rng.choice([2.0 ** 511, 2.0 ** 520, 1e200, 1e300]))   # near and far past 2^512
    y = pyref.layers.layer_norm(X * s, gamma, beta, eps=eps, backend=backend, dps=dps)
    with ev_ctx(dps):
        ref = ev.lnMat(const(eps), mat(gamma), mat(beta), mat(X * s))
        ch.le(f"layer_norm(s·X) = lnMat (s·X), s = {s:.3g}", deviation(y, ref),
              bound(backend, 2 * n + 8, ln_scale(X, gamma, beta, eps / s / s)))
    _activation_parts(ch, backend, dps, gen(rng, 12, -20, 20) * mag)
    return ch.outcome()


# ======================================================== row maps (SwiGLU, units, Φ_res)
@st.composite
def rowmap_case(draw):
    return (draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(2, 6)),
            draw(st.integers(1, 5)), draw(st.integers(1, 2)), draw(st.sampled_from([2, 2, 1, 3])),
            draw(st.sampled_from([1e-6, 1e-3])), draw(MAG), draw(SEED))


def _units(rng, n, h, n_units, n_blocks):
    """Generic residual units: pyref's dict format and the evaluator's (blocks, γ, β) tuples."""
    py, lean = [], []
    for _ in range(n_units):
        blocks = [(gen(rng, (h, n)), gen(rng, h) * 0.5, gen(rng, (h, n)), gen(rng, h) * 0.5,
                   gen(rng, (n, h)), gen(rng, n) * 0.5) for _ in range(n_blocks)]
        g, b = gen(rng, n, 0.5, 1.5), gen(rng, n, -0.5, 0.5)
        py.append({"blocks": blocks, "gamma": g, "beta": b})
        lean.append(([tuple(mat(x) for x in blk) for blk in blocks], mat(g), mat(b)))
    return py, lean


def _matrix_and_rows(ch, label, out, A, backend, f_mat, f_row):
    """out[h] = f_mat(A[h]) and out[h][i] = f_row(A[h][i]) for every head h and row i."""
    for hh in range(A.shape[0]):
        Ah = mat(A[hh])
        cmp(ch, f"{label}: matrix form, head {hh}", out[hh], f_mat(Ah), backend)
        for i, r in enumerate(Ah):
            cmp(ch, f"{label}: row {i} of head {hh} = row form", out[hh][i], f_row(r), backend)


def _clone_parts(ch, backend, dps, rng, phi_py, lphi, A, e):
    """``phiResMat_rowClone``: pyref's Φ_res of 𝟙αᵀ (n identical rows α) has every row
    ``phiResRow α``; ``phiResMat_row_eq``: row (0, 0) of pyref's Φ_res(A) equals row 1 of the Lean
    ``phiResMat`` of a different 3-row matrix holding that row."""
    n = A.shape[-1]
    alpha = A[0, 0] + gen(rng, n)
    C = phi_py(np.tile(alpha, (n, 1)))
    other = np.stack([gen(rng, n), A[0, 0], gen(rng, n)])
    out = phi_py(A)
    with ev_ctx(dps):
        ref = ev.phiResRow(e, lphi, mat(alpha))
        for i in range(n):
            cmp(ch, f"Φ_res(𝟙αᵀ) row {i} = phiResRow α", C[i], ref, backend)
        cmp(ch, "Φ_res(A) row = phiResMat(A') row holding the same input row", out[0][0],
            ev.phiResMat(e, lphi, mat(other))[1], backend)


@prop(theorems=["PLGA.RowMap.swigluMat_apply", "PLGA.RowMap.unitMat_apply",
                "PLGA.RowMap.phiResMat_apply", "PLGA.RowMap.phiResMat_rowLocal",
                "PLGA.RowMap.phiResMat_rowClone", "PLGA.RowMap.phiResMat_row_eq"],
      paper="Prop 3.11 / spec A.4 step 5 (Φ_res: LN_A, then units A ← LN_u(A + g₂(g₁(A))))",
      strategy=rowmap_case, backends=("mp",), cost=2)
def row_maps_match_spec(ex, backend, dps):
    """On generic A [H, m, n] and generic residual units (W, b, γ, β uniform, γ ≠ 1):

    * ``pyref.layers.swiglu`` = ``swigluMat`` per head, and its row i = ``swigluRow`` of row i
      (``swigluMat_apply``);
    * ``pyref.plga.residual_metric_learner`` with one unit = ``unitMat``, row i = ``unitRow``
      (``unitMat_apply``);
    * pyref's LN_A (``layer_norm`` with γ_A, β_A) then ``residual_metric_learner`` = ``phiResMat``
      and row i = ``phiResRow`` of row i (``phiResMat_apply``, ``phiResMat_rowLocal``);
    * on 𝟙αᵀ every output row is ``phiResRow α`` (``phiResMat_rowClone``), and an output row equals
      the Lean ``phiResMat`` row of another matrix holding the same input row
      (``phiResMat_row_eq``).

    Units have 2 SwiGLU blocks (Lean's ``UnitParams``), sometimes 1 or 3 (pyref's
    ``num_glu_blocks``; the evaluator folds the blocks in order). mp only, bound 1e-40·scale: the
    two sides run < 10⁴ roundings of relative size 10⁻⁴⁹ (and 10⁻⁶⁹), amplified by the
    LayerNorms' 1/√(var + ε) ≤ 10³; no float64 bound is derived for the chained LayerNorms."""
    H, m, n, h, n_units, n_blocks, eps, mag, seed = ex
    rng = np.random.default_rng(seed)
    A = gen(rng, (H, m, n)) * mag
    units, lunits = _units(rng, n, h, n_units, n_blocks)
    gA, bA = gen(rng, n, 0.5, 1.5), gen(rng, n, -0.5, 0.5)
    ch = Checks()
    blk = units[0]["blocks"][0]
    sw = pyref.layers.swiglu(A, *blk, backend=backend, dps=dps)
    one = pyref.plga.residual_metric_learner(A, units[:1], eps=eps, backend=backend, dps=dps)
    A0 = pyref.layers.layer_norm(A, gA, bA, eps=eps, backend=backend, dps=dps)
    phi = pyref.plga.residual_metric_learner(A0, units, eps=eps, backend=backend, dps=dps)
    with ev_ctx(dps):
        e, p = const(eps), lunits[0][0][0]
        lphi = (mat(gA), mat(bA), lunits)
        _matrix_and_rows(ch, "swiglu", sw, A, backend, lambda X: ev.swigluMat(p, X),
                         lambda r: ev.swigluRow(p, r))
        u0 = lunits[0]
        _matrix_and_rows(ch, "one residual unit", one, A, backend,
                         lambda X: ev.unitMat(e, u0, X), lambda r: ev.unitRow(e, u0, r))
        _matrix_and_rows(ch, "Φ_res", phi, A, backend, lambda X: ev.phiResMat(e, lphi, X),
                         lambda r: ev.phiResRow(e, lphi, r))

    def phi_py(X):
        X0 = pyref.layers.layer_norm(X, gA, bA, eps=eps, backend=backend, dps=dps)
        return pyref.plga.residual_metric_learner(X0, units, eps=eps, backend=backend, dps=dps)

    _clone_parts(ch, backend, dps, rng, phi_py, lphi, A, e)
    return ch.outcome()


# ============================================================================ RoPE (pyref.rope)
@st.composite
def rope_case(draw):
    return (draw(st.sampled_from([2, 4, 6, 8])), draw(st.integers(1, 6)), draw(st.integers(1, 2)),
            draw(st.sampled_from([1e4, 500.0, 10.0])), draw(st.integers(0, 20)),
            draw(st.sampled_from([2.5, -3.0, 7.0, 1e3, 1.0])), draw(MAG), draw(SEED))


def _rope_T(X, P, base):
    """The float64 scale of a rotation: max(|x_2j| + |x_2j+1|)·(P·(ln Θ + 10) + 12), P the
    largest |position| (see ``rope_matches_spec``)."""
    pair = np.abs(X[..., 0::2]) + np.abs(X[..., 1::2])
    return float(np.max(pair)) * (abs(P) * (np.log(base) + 10) + 12)


def _rotation_parts(ch, backend, dps, X, base, positions):
    """apply_rope with default positions (0…S−1) and with the given ones, against ``rotRows``
    with ``ropeRows``; positions all 0 must give X exactly (``ropeMat_zero``,
    ``rotRows_noRope``)."""
    S, dk = X.shape[-2], X.shape[-1]
    for label, pos in (("default positions", None), ("explicit positions", positions)):
        y = pyref.rope.apply_rope(X, positions=pos, base=base, backend=backend, dps=dps)
        pp = list(range(S)) if pos is None else pos
        with ev_ctx(dps):
            R = ev.ropeRows(pp, dk, const(base))
            for lead in range(X.shape[0]):
                cmp(ch, f"apply_rope ({label}) = rotRows ropeRows", y[lead],
                    ev.rotRows(R, mat(X[lead])), backend, 1, _rope_T(X, max(pp), base))
    y0 = pyref.rope.apply_rope(X, positions=[0] * S, base=base, backend=backend, dps=dps)
    ch.exact("position 0 is the identity", float(np.sum(np.asarray(y0) != np.asarray(
        pyref.get_backend(backend, dps).asarray(X)))))


@prop(theorems=["PLGA.Rope.flatRope_mulVec", "PLGA.Rope.flatRope_mulVec_even",
                "PLGA.Rope.flatRope_mulVec_odd", "PLGA.Rope.ropeMat_zero",
                "PLGA.Attention.rotRows_noRope"],
      paper="spec A.4 step 2 (torchtune interleaved RoPE: θ_j = Θ^{−2j/d_k}, pair (2j, 2j+1) "
            "rotated by pθ_j)",
      strategy=rope_case, cost=2)
def rope_matches_spec(ex, backend, dps):
    """pyref.rope against the evaluator's RoPE (θ_j = exp(−(2j/d_k) log Θ), R_p = blockdiag_j
    [[cos pθ_j, −sin pθ_j], [sin pθ_j, cos pθ_j]] on the interleaved pairs, row t of a matrix
    times R_{p_t}ᵀ): ``apply_rope`` on X [B, S, d_k] at the default positions 0…S−1 and at
    explicit positions (a KV-cache offset T₀ + t, and random positions); ``rope_thetas``;
    ``rope_matrix(n)`` for real n; position 0 (``ropeMat_zero``, ``rotRows_noRope``) and
    ``rope_matrix(0)`` = I exactly (cos 0 = 1, sin 0 = 0 are exact, so x·1 − y·0 = x).

    float64 bound: θ_j = Θ^{−2j/d_k} has relative error ≤ (ln Θ + 8)u (exponent rounding times
    |ln θ_j| ≤ ln Θ, pow within 4 ulp); the angle pθ_j adds u, so |Δφ| ≤ |p|(ln Θ + 10)u (θ ≤ 1);
    cos/sin within 4 ulp (8u); the rotated pair x_e c − x_o s within (|x_e| + |x_o|)(|Δφ| + 12u):
    ``fp_bound(1, max(|x_e| + |x_o|)(|p|(ln Θ + 10) + 12))`` (``rope_matrix``: the same with
    |x| = 1; ``rope_thetas``: ``fp_bound(1, ln Θ + 8)``). mp: 1e-40 times the same scale."""
    dk, S, B, base, off, nreal, mag, seed = ex
    rng = np.random.default_rng(seed)
    X = gen(rng, (B, S, dk)) * mag
    ch = Checks()
    positions = [off + t for t in range(S)] if off % 2 else [int(p) for p in
                                                              rng.integers(0, 40, S)]
    _rotation_parts(ch, backend, dps, X, base, positions)
    th = pyref.rope.rope_thetas(dk, base=base, backend=backend, dps=dps)
    R = pyref.rope.rope_matrix(nreal, dk, base=base, backend=backend, dps=dps)
    R0 = pyref.rope.rope_matrix(0, dk, base=base, backend=backend, dps=dps)
    with ev_ctx(dps):
        Th = const(base)
        cmp(ch, "rope_thetas = Θ^{−2j/d_k}", th, [ev.ropeTheta(j, dk, Th) for j in range(dk // 2)],
            backend, 1, np.log(base) + 8)
        cmp(ch, "rope_matrix(n) = ropeMat n", R, ev.ropeMat(mat(nreal), dk, Th), backend, 1,
            abs(nreal) * (np.log(base) + 10) + 12)
        ch.exact("rope_matrix(0) = I", float(sum(1 for x, y in zip(np.ravel(R0),
                                                                  np.ravel(np.eye(dk))) if x != y)))
    return ch.outcome()


# ================================================ density, A_LM, A_P, G_LM (pyref.plga)
@st.composite
def chain_case(draw):
    return (draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 5)),
            draw(st.sampled_from([1e-9, 1e-6, 1e-3])), draw(MAG), draw(SEED))


def _metric_T(A, W, b, ALM):
    """The float64 scale of A_LM: T_u·U(2 + U/4) + max A_LM, T_u = max(|W||A| + |b|), U the
    largest |W A + b| (see ``operator_chain_matches_spec``)."""
    Tu = np.abs(W) @ np.abs(A) + np.abs(b)
    U = float(np.max(Tu))
    return float(np.max(Tu)) * U * (2 + U / 4) + scale(ALM)


def _operator_parts(ch, backend, dps, A, W, b, P, a, ba, eps):
    """metric_tensor, potential_tensor (fed pyref's own A_LM), energy_curvature_tensor (fed
    pyref's own A_P), each against its Lean definition, and deductive_operator against the chain
    opALM → opAP → opG (mp; float64 its A_LM)."""
    dk = A.shape[-1]
    ALM = pyref.plga.metric_tensor(A, W, b, eps=eps, backend=backend, dps=dps)
    AP = pyref.plga.potential_tensor(ALM, P, backend=backend, dps=dps)
    G = pyref.plga.energy_curvature_tensor(AP, a, ba, backend=backend, dps=dps)
    ded = pyref.plga.deductive_operator(A, W, b, P, a, ba, eps=eps, backend=backend, dps=dps)
    e = pyref.get_backend(backend, dps).const(eps)
    ch.exact("A_LM ≥ ε and > 0 (metricTensor_entry_ge/_pos)",
             float(sum(1 for v in np.ravel(ALM) if not (v >= e and v > 0))))
    ch.exact("A_P > 0 (hadPow_pos)", float(sum(1 for v in np.ravel(AP) if not v > 0)))
    with ev_ctx(dps):
        F = {"lnEps": None, "metricEps": const(eps)}
        for h in range(A.shape[0]):
            p = {k: mat(v[h]) for k, v in (("W", W), ("b", b), ("P", P), ("a", a), ("ba", ba))}
            rALM = ev.metricTensor(p["W"], mat(A[h]), p["b"], F["metricEps"])
            Tm = _metric_T(A[h], W[h], b[h], rALM)
            cmp(ch, "metric_tensor = metricTensor", ALM[h], rALM, backend, dk + 15, Tm)
            rAP = ev.hadPow(mat(ALM[h]), p["P"])
            cmp(ch, "potential_tensor = hadPow (exp(P log A))", AP[h], rAP, backend, 4)
            rG = ev.energyCurvature(p["a"], mat(AP[h]), p["ba"])
            cmp(ch, "energy_curvature_tensor = a·A_P + b_a", G[h], rG, backend, dk + 1,
                np.max(np.abs(a[h]) @ np.abs(np.asarray(pyref.to_float64(AP[h]))) + np.abs(ba[h])))
            cALM = ev.opALM(F, p, mat(A[h]))
            cmp(ch, "deductive_operator A_LM = opALM", ded["A_LM"][h], cALM, backend, dk + 15, Tm)
            if backend in ("mp", "arb"):   # the composed chain: no float64 bound derived
                cAP = ev.opAP(p, cALM)
                cmp(ch, "deductive_operator A_P = opAP", ded["A_P"][h], cAP, backend)
                cmp(ch, "deductive_operator G_LM = opG", ded["G_LM"][h], ev.opG(p, cAP), backend)


@prop(theorems=["PLGA.Density.density_apply", "PLGA.metricTensor_entry_ge",
                "PLGA.metricTensor_entry_pos", "PLGA.PowerLaw.hadPow_apply",
                "PLGA.PowerLaw.hadPow_pos"],
      paper="spec A.4 steps 3, 6–8 (D = Q̂ᵀQ̂, A_LM = iSwiGLU(W A + b) + ε, A_P = A_LM^{⊙P}, "
            "G_LM = a·A_P + b_a), Prop 3.6, 3.7",
      strategy=chain_case, cost=2)
def operator_chain_matches_spec(ex, backend, dps):
    """On generic per-head Q̂ [H, S, d_k], A, W, b, P, a, b_a [H, d_k, d_k] (a full matrix, not
    I, 0 or a commuting one, so a·A_P ≠ A_P·a is visible):

    * ``density(Q̂)`` = Σ_p Q̂_pi Q̂_pj (``density_apply``);
    * ``metric_tensor`` = ``metricTensor`` (W on the left), entries ≥ ε and > 0;
    * ``potential_tensor`` = ``hadPow`` with ``ExpLog.rpow`` (exp(P log A_LM), ``hadPow_apply``),
      entries > 0; ``energy_curvature_tensor`` = ``energyCurvature`` (a·A_P + b_a);
    * ``deductive_operator`` = ``opALM``, ``opAP``, ``opG`` (``Formal/Spec/Operator.lean``).

    float64 bounds: density ``fp_bound(S, |Q̂|ᵀ|Q̂|)``; A_LM: W A + b within γ_{d_k+1}T_u,
    T_u = |W||A| + |b|, and |iSwiGLU'(u)| ≤ |u|(2 + |u|/4), evaluation (σ within 11u, two
    products, + ε) 14u: ``fp_bound(d_k+15, T_u·U(2 + U/4) + A_LM)``; A_P: one pow within 4 ulp
    (8u relative) ``fp_bound(4, A_P)``; G_LM ``fp_bound(d_k+1, |a||A_P| + |b_a|)``. mp: 1e-40
    times the same scales. Positivity and A_LM ≥ ε are exact (monotone rounding)."""
    H, dk, S, eps, mag, seed = ex
    rng = np.random.default_rng(seed)
    Q = gen(rng, (H, S, dk)) * mag
    A, W, b = gen(rng, (H, dk, dk), -2, 2), gen(rng, (H, dk, dk)), gen(rng, (H, dk, dk)) * 0.5
    P, a, ba = gen(rng, (H, dk, dk), -0.5, 1.0), gen(rng, (H, dk, dk)), gen(rng, (H, dk, dk))
    ch = Checks()
    D = pyref.plga.density(Q, backend=backend, dps=dps)
    with ev_ctx(dps):
        for h in range(H):
            Qh = mat(Q[h])
            ref = [[fsum(Qh[t][i] * Qh[t][j] for t in range(S)) for j in range(dk)]
                   for i in range(dk)]
            cmp(ch, "density = Σ_p q_p q_pᵀ", D[h], ref, backend, S,
                np.max(np.abs(Q[h]).T @ np.abs(Q[h])))
            cmp(ch, "density = Lean density (Q̂ᵀQ̂)", D[h], ev.density(Qh), backend, S,
                np.max(np.abs(Q[h]).T @ np.abs(Q[h])))
    _operator_parts(ch, backend, dps, A, W, b, P, a, ba, eps)
    return ch.outcome()
