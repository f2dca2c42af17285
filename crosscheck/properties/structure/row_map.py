"""Cross-check properties of ``Formal/Structure/RowMap.lean``: ``phi_res_row_local`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import combine, prop
from ...strategies import matrix
from .._arith import maxabs
from ._shared import MODEST, _phi_res_mat, _phi_units

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.RowMap.foldl_rowwise":
        "list-fold lemma (folding row-wise steps stays row-wise), a proof helper of "
        "phiResMat_apply, which is checked",
}


# ======================================================= 8. Φ_res is a row map (Prop 3.11)
@st.composite
def rowmap_case(draw):
    d = draw(st.sampled_from([2, 3, 4, 6]))
    H = draw(st.integers(1, 3))
    m = draw(st.integers(1, d + 2))
    A = np.stack([draw(matrix(m, d, magnitude=MODEST)) for _ in range(H)])
    seed = draw(st.integers(0, 2 ** 16))
    hdim = draw(st.integers(1, 5))
    n_units = draw(st.integers(1, 2))
    n_blocks = draw(st.integers(1, 2))
    eps = draw(st.sampled_from([1e-6, 1e-3]))
    src = (draw(st.integers(0, H - 1)), draw(st.integers(0, m - 1)))
    dst = (draw(st.integers(0, H - 1)), draw(st.integers(0, m - 1)))
    alpha = draw(matrix(1, d, magnitude=MODEST, structure=False))[0]
    return A, seed, hdim, n_units, n_blocks, eps, src, dst, alpha


def _left_mul_parts(b, backend, dps, rng, d):
    """The metric's left multiplication W·A is not row-local: Lean's witness, and (d ≥ 2) a
    random W without zero entries, where changing row j of A changes row i ≠ j of the metric."""
    Wsw = np.array([[0.0, 1.0], [1.0, 0.0]])
    Z2 = np.zeros((2, 2))
    m0 = pyref.plga.metric_tensor(Z2, Wsw, Z2, eps=1e-9, backend=backend, dps=dps)
    m1 = pyref.plga.metric_tensor(np.array([[0.0, 0.0], [1.0, 1.0]]), Wsw, Z2, eps=1e-9,
                                  backend=backend, dps=dps)
    with b.context():
        wit = maxabs(m0[0] - m1[0])
    parts = [("leftMul_not_rowLocal (Lean witness)", 0.0 if wit > 1e-30 else 1.0, 0.0)]
    if d >= 2:
        W = rng.uniform(0.5, 1.5, (d, d)) * rng.choice([-1.0, 1.0], (d, d))   # no zero entries
        bias = rng.uniform(-1, 1, (d, d))
        Ad = rng.uniform(-1, 1, (d, d))
        Ad2 = Ad.copy()
        i, j = 0, 1
        Ad2[j] = Ad[j] + rng.uniform(0.5, 1.0, d)
        n0 = pyref.plga.metric_tensor(Ad, W, bias, eps=1e-9, backend=backend, dps=dps)
        n1 = pyref.plga.metric_tensor(Ad2, W, bias, eps=1e-9, backend=backend, dps=dps)
        with b.context():
            wit2 = maxabs(n0[i] - n1[i])
        parts.append(("leftMul_not_rowLocal (random W)", 0.0 if wit2 > 1e-30 else 1.0, 0.0))
    return parts


@prop(theorems=["PLGA.RowMap.phiResMat_apply", "PLGA.RowMap.phiResMat_rowLocal",
                "PLGA.RowMap.phiResMat_row_eq", "PLGA.RowMap.phiResMat_rowClone",
                "PLGA.RowMap.swigluMat_apply", "PLGA.RowMap.unitMat_apply",
                "PLGA.RowMap.leftMul_not_rowLocal", "PLGA.Spec.headA_row_eq_phiResRow"],
      paper="Prop 3.11 (Φ_res acts on every row by one shared map; the metric's W·A is not "
            "row-local)",
      strategy=rowmap_case, backends=("mp",))
def phi_res_row_local(ex, backend, dps):
    """Lean ``phiResMat`` = pyref's LN_A (``layer_norm`` with γ_A, β_A) followed by
    ``pyref.plga.residual_metric_learner`` (random units: 1–2 residual units of 1–2 SwiGLU blocks,
    random LayerNorm γ, β) on inputs [H, m, d]:

    * ``phiResMat_apply`` / ``phiResMat_rowLocal``: output row (h, i) equals Φ_res applied to row
      (h, i) alone (a 1 × d input); the same for one unit (``unitMat_apply``) and for one SwiGLU
      block (``pyref.layers.swiglu``, ``swigluMat_apply``);
    * ``phiResMat_row_eq``: after copying row (h, i) into row (h', i') — across heads — the two
      output rows are equal, and equal to the output row of a different-size input holding that row;
    * ``phiResMat_rowClone``: Φ_res(𝟙αᵀ) has every row equal to φ(α) (rank-one stays rank-one);
    * ``leftMul_not_rowLocal``, on ``pyref.plga.metric_tensor`` (A_LM = iSwiGLU(W A + b) + ε, the
      metric step's left multiplication): the Lean witness W = [[0, 1], [1, 0]], A = 0, A' = [[0,
      0], [1, 1]] gives output rows 0 of ε·𝟙 versus (σ(1) + ε)·𝟙 although the input rows 0 agree;
      and with random W, changing one other row of A changes row i. Differences must exceed 1e-30
      (certified: 10¹⁰ times the 50-digit bound). (Had pyref multiplied A·W — row-local — this
      would fail.)

    mp only, bound 0 for the row-map identities: numpy evaluates object-array matmuls entry by entry
    as the same left-to-right sum of the same mpf products whatever the number of rows, and the
    LayerNorm reductions run over the last axis only, so a row computed alone or inside a batch
    undergoes identical mpf operations (measured: exactly equal). In float64, BLAS blocking depends
    on the row count (rows differ by ulps, measured ~2e-15) and Φ_res's LayerNorms amplify such
    differences by up to 1/√(var + ε); no a-priori bound is derived for that."""
    A, seed, hdim, n_units, n_blocks, eps, src, dst, alpha = ex
    H, m, d = A.shape
    rng = np.random.default_rng(seed)
    units = _phi_units(rng, d, hdim, n_units, n_blocks)
    gA, bA = rng.uniform(0.5, 1.5, d), rng.uniform(-1, 1, d)

    def phi(X, us=units):
        return _phi_res_mat(X, gA, bA, us, eps, backend, dps)

    b = pyref.get_backend(backend, dps)
    parts = []
    out = phi(A)
    one_unit = pyref.plga.residual_metric_learner(A, units[:1], eps=eps, backend=backend, dps=dps)
    blk = units[0]["blocks"][0]
    sw = pyref.layers.swiglu(A, *blk, backend=backend, dps=dps)
    dev = 0.0
    for h in range(H):
        for i in range(m):
            row = A[h, i:i + 1]
            with b.context():
                dev = max(dev, maxabs(out[h, i] - phi(row)[0]))
                first = pyref.plga.residual_metric_learner(row, units[:1], eps=eps,
                                                           backend=backend, dps=dps)[0]
                dev = max(dev, maxabs(one_unit[h, i] - first))
                dev = max(dev,
                          maxabs(sw[h, i]
                                 - pyref.layers.swiglu(row, *blk, backend=backend, dps=dps)[0]))
    parts.append(("phiResMat_apply / unitMat_apply / swigluMat_apply", dev, 0.0))
    A2 = A.copy()
    A2[dst] = A[src]
    out2 = phi(A2)
    # a 3-row input holding the row
    other = np.concatenate([rng.uniform(-1, 1, (2, d)), A[src][None]], axis=0)
    out3 = phi(other)
    with b.context():
        parts.append(("phiResMat_row_eq",
                      maxabs(out2[dst] - out2[src]) + maxabs(out2[src] - out3[2]), 0.0))
    C = phi(np.tile(alpha, (d, 1)))
    ref = phi(alpha[None])[0]
    with b.context():
        parts.append(("phiResMat_rowClone", max(maxabs(C[i] - ref) for i in range(d)), 0.0))
    parts += _left_mul_parts(b, backend, dps, rng, d)
    return combine(parts)
