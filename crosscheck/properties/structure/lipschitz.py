"""Cross-check properties of ``Formal/Structure/Lipschitz.lean``: ``lipschitz_diameter_contraction``
and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from ...registry import Checks, prop
from .._arith import U64, gamma

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Lipschitz.prodN_nonneg":
        "scalar helper (a product of nonnegative constants is ≥ 0) inside diamLe_image_compN, "
        "which is checked",
    "PLGA.Lipschitz.prodN_le_pow":
        "scalar helper Π K_i ≤ c^N for 0 ≤ K_i ≤ c inside diamLe_image_compN_of_le, which is "
        "checked",
}


@st.composite
def lipschitz_case(draw):
    """k-dimensional rows, N ≤ 5 maps x ↦ act(W_i x + b_i) with W_i = U_{i+1} Σ_i U_iᵀ (U_i
    orthogonal, Σ_i diagonal with its largest entry first), a point set with a pair along U_0's
    first column (where, for act = identity, every bound is attained), act ∈ {identity, relu,
    tanh} (1-Lipschitz)."""
    k = draw(st.integers(2, 6))
    N = draw(st.integers(1, 5))
    m = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2 ** 16))
    act = draw(st.sampled_from(["id", "id", "relu", "tanh"]))
    t = draw(st.sampled_from([1e-3, 0.1, 1.0, 10.0]))
    return k, N, m, seed, act, t


ACT = {"id": lambda x: x, "relu": lambda x: np.maximum(x, 0.0), "tanh": np.tanh}


def _maps(k, N, seed):
    rng = np.random.default_rng(seed)
    U = [np.linalg.qr(rng.standard_normal((k, k)))[0] for _ in range(N + 1)]
    Ws, bs = [], []
    for i in range(N):
        sig = np.sort(rng.uniform(0.2, 1.5, k))[::-1]
        Ws.append(U[i + 1] @ np.diag(sig) @ U[i].T)
        bs.append(rng.uniform(-1, 1, k))
    sig = np.sort(rng.uniform(0.2, 1.5, k))[::-1]
    W_it = U[0] @ np.diag(sig) @ U[0].T    # symmetric: its powers attain ‖W‖^N along U_0[:, 0]
    return Ws, bs, U[0][:, 0], W_it


def _diam(P) -> float:
    return max((float(np.linalg.norm(x - y)) for x, y in itertools.combinations(P, 2)),
               default=0.0)


def _apply(W, b, act, P, e, k):
    """Images of the points P under x ↦ act(Wx + b) and the propagated float64 error bound
    (2-norm): ‖W‖e + γ_{k+1}‖|W||x| + |b|‖ (Higham §3.1; the activation is 1-Lipschitz and
    np.tanh is within 1 ulp, ≤ 2u|y|)."""
    out = [ACT[act](W @ x + b) for x in P]
    loc = max(float(np.linalg.norm(np.abs(W) @ np.abs(x) + np.abs(b))) for x in P)
    ext = 2 * U64 * max(float(np.linalg.norm(y)) for y in out) if act == "tanh" else 0.0
    return out, np.linalg.norm(W, 2) * e + gamma(k + 1) * loc + ext


@prop(theorems=["PLGA.Lipschitz.diamLe_image", "PLGA.Lipschitz.lipschitzWith_comp",
                "PLGA.Lipschitz.diamLe_image_comp", "PLGA.Lipschitz.lipschitzWith_compN",
                "PLGA.Lipschitz.diamLe_image_compN", "PLGA.Lipschitz.diamLe_image_compN_of_le",
                "PLGA.Lipschitz.diamLe_image_iterate"],
      paper="Prop 5.12(i) (diameters contract multiplicatively under compositions of Lipschitz "
            "units; exponential decay in depth for constants < 1)",
      strategy=lipschitz_case, backends=("float64",))
def lipschitz_diameter_contraction(ex, backend, dps):
    """Euclidean rows, maps f_i(x) = act(W_i x + b_i) with measured constants K_i = ‖W_i‖₂
    (numpy's SVD), a random point set s with D = its measured diameter (a pair along the top
    singular direction included): after each prefix f_{i} ∘ ⋯ ∘ f_0 the image diameter is
    ≤ (K_i ⋯ K_0)·D (``diamLe_image_compN``; i = 0 ``diamLe_image``, i = 1
    ``diamLe_image_comp``) and ≤ c^{i+1} D with c = max K_j (``diamLe_image_compN_of_le``);
    every pair satisfies d(F x, F y) ≤ (Π K)·d(x, y) (``lipschitzWith_comp``, ``_compN``); the
    iterate f^[N] of one map f(x) = act(Wx + b_0), W = U_0ΣU_0ᵀ symmetric, has diameter ≤ ‖W‖^N D
(``diamLe_image_iterate``). With act = identity and the
    aligned frames W_i = U_{i+1}Σ_iU_iᵀ the products of norms are attained on the chosen pair:
    the bounds are tight, so a wrong constant fails.

    float64 bound (violation max(0, lhs − rhs)): the image points carry the 2-norm error e
    propagated by :func:`_apply`; a computed distance errs by 2e + γ_{k+3}·d (difference, sum of
    squares, root); the right side Π K·D by γ_{N(k²+1)+k+3} relative (LAPACK's ‖W‖₂ within
    k²u relative — p = m·n of ``rank_one``'s SVD bound — a rounded product per factor, D's own
    distance error). float64 only: no pyref code path (the statement is about abstract maps; the
    reference is the exact algebra of the aligned frames, not a second evaluation)."""
    k, N, m, seed, act, t = ex
    Ws, bs, v, W_it = _maps(k, N, seed)
    rng = np.random.default_rng(seed + 1)
    P = [rng.uniform(-1, 1, k) for _ in range(m)]
    P.append(P[0] + t * v)
    D = _diam(P)
    Ks = [float(np.linalg.norm(W, 2)) for W in Ws]
    c = max(Ks)
    ch = Checks()
    img, e, prodK = P, 0.0, 1.0
    for i in range(N):
        img2, e = _apply(Ws[i], bs[i], act, img, e, k)
        prodK *= Ks[i]
        rel = gamma((i + 1) * (k * k + 1) + k + 3)
        dimg = _diam(img2)
        slack = 2 * e + gamma(k + 3) * dimg
        ch.le(f"diam after {i + 1} maps ≤ ΠK·D", max(0.0, dimg - prodK * D),
              slack + rel * prodK * D)
        ch.le(f"diam after {i + 1} maps ≤ c^{i + 1}·D", max(0.0, dimg - c ** (i + 1) * D),
              slack + rel * c ** (i + 1) * D)
        worst = max((np.linalg.norm(img2[a] - img2[b]) - prodK * np.linalg.norm(P[a] - P[b])
                     - 2 * e - gamma(k + 3) * np.linalg.norm(img2[a] - img2[b])
                     - rel * prodK * np.linalg.norm(P[a] - P[b])
                     for a, b in itertools.combinations(range(len(P)), 2)), default=0.0)
        ch.le(f"pairwise Lipschitz, {i + 1} maps", max(0.0, float(worst)), 0.0)
        img = img2
    it, e, K_it = P, 0.0, float(np.linalg.norm(W_it, 2))
    for i in range(N):
        it, e = _apply(W_it, bs[0], act, it, e, k)
    dit = _diam(it)
    ch.le("iterate f^[N]: diam ≤ K^N·D", max(0.0, dit - K_it ** N * D),
          2 * e + gamma(k + 3) * dit + gamma(N * (k * k + 1) + k + 3) * K_it ** N * D)
    return ch.outcome()
