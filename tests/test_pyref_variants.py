"""pyref.variants (KLA, Gated DeltaNet/KDA, mHC, AttnRes) against the worked examples of
VARIANTS.md and hand-computed values, mp vs float64, the chunked forms against the token
loops, and bad-input errors.

Tolerances: mp results at 50 digits are compared with exact values (fractions, or closed
forms evaluated with mpmath at 60 digits): < 10^3 roundings of size ≤ 10^2 · 10^-50, so 1e-40
is safe.  float64 is compared with the a-priori bound γ_D · (majorant) of
``crosscheck.properties.variants`` (derived there), or with 1e-14 for O(1) results of fewer than
~30 operations (a few ulps).
"""
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from crosscheck.properties._arith import gamma
from crosscheck.properties.variants._shared import SLACK
from crosscheck.properties.variants.delta_net import _abs_deltanet_chunked
from crosscheck.properties.variants.kla_chunk import (
    _abs_kla_chunkwise,
    kla_chunkwise_equals_recurrence,
)
from pyref.backend import to_float64, to_mp
from pyref.variants import attnres, deltanet, kla, mhc

MP = dict(backend="mp", dps=50)
TOL_MP = 1e-40
TOL_F = 1e-14


def dev(a, b):
    """max |a − b| as a float64; the difference is taken in the arrays' own arithmetic (float64
    for float arrays; mpf arrays at 60 digits, exact for a 50-digit mpf minus a binary float)."""
    with mpmath.workdps(60):
        if not np.size(a):
            return 0.0
        return float(np.max(np.abs(to_float64(np.asarray(a) - np.asarray(b)))))


def all_mpf(x):
    return all(isinstance(v, mpmath.mpf) for v in np.asarray(x).ravel())


def rand_seq(seed, T=9, dk=3, dv=2):
    r = np.random.default_rng(seed)
    return dict(S0=r.normal(size=(dk, dv)), K=r.normal(size=(T, dk)), V=r.normal(size=(T, dv)),
                Q=r.normal(size=(T, dk)), alpha=r.uniform(0.3, 1.0, T), eta=r.uniform(0.05, 1.0, T))


# ================================================================================= KLA
@pytest.mark.parametrize("backend", ["float64", "mp"])
def test_kla_worked_example_overshoot_vs_kaczmarz(backend):
    # d_k = d_v = 1, S̃ = 0, k = 2, v = 1
    S, e = kla.delta_write([[0.0]], [2.0], [1.0], 1.0, backend=backend)          # β = 1
    assert float(S[0, 0]) == 2 and float(e[0]) == 1
    # overshoot, residual −3
    assert float((S.T @ np.array([2.0]))[0]) == 4 and 1 - 4 == -3
    beta = kla.kaczmarz_beta([2.0], 1.0, eps=0.0, backend=backend)
    assert float(beta) == 0.25
    S = kla.kla_step([[0.0]], [2.0], [1.0], 1.0, 1.0, eps=0.0, backend=backend)
    assert float(S[0, 0]) == 0.5 and float(S[0, 0] * 2) == 1.0  # read-out exactly 1
    if backend == "mp":
        assert all_mpf(S)


def test_kla_step_hand_values_and_residual_factor():
    # S = [[1, 2], [0, 1]], α = 0.5 → S̃ = [[.5, 1], [0, .5]]; k = [1, 1], v = [1, 1]
    # e = v − S̃ᵀk = [1 − .5, 1 − 1.5] = [.5, −.5]; ‖k‖² = 2, η = .5, ε = 0 → β = 1/4
    S = kla.kla_step([[1.0, 2.0], [0.0, 1.0]], [1.0, 1.0], [1.0, 1.0], 0.5, 0.5, eps=0.0, **MP)
    want = np.array([[0.5 + 0.125, 1 - 0.125], [0.125, 0.5 - 0.125]])
    assert dev(S, want) < TOL_MP
    # e⁺ = (1 − η) e for ε = 0
    e_plus = np.array([1.0, 1.0]) - to_float64(S).T @ np.array([1.0, 1.0])
    assert np.allclose(e_plus, 0.5 * np.array([0.5, -0.5]), atol=TOL_F)
    # with ε = 1e-6 the decimal constant is used in mp: β = η/(2 + 10^-6)
    b = kla.kaczmarz_beta([1.0, 1.0], 0.5, **MP)
    with mpmath.workdps(60):
        assert abs(b - mpmath.mpf("0.5") / (2 + mpmath.mpf("1e-6"))) < 1e-49


def test_kla_readout_normalizes_the_query():
    assert float(kla.kla_readout([[2.0]], [3.0])[0]) == 2.0
    o = kla.kla_readout([[1.0, 0.0], [0.0, 1.0]], [3.0, 4.0], **MP)
    with mpmath.workdps(50):
        assert abs(o[0] - mpmath.mpf("0.6")) < TOL_MP and abs(o[1] - mpmath.mpf("0.8")) < TOL_MP


def test_kla_chunk_hand_example():
    # S₀ = 0, k = (1, 1), v = (1, 2), q = (1, 1), α = (1, .5), η = 1, ε = 0 → β = (1, 1)
    # loop: S₁ = 1 (e = 1), S̃ = .5, e = 1.5, S₂ = 2; outputs (1, 2)
    # chunk: γ = (1, .5), U = (1, 2 − .5·1) = (1, 1.5) = β e, O = (1, .5 + 1.5), S_out = .5·1 + 1.5
    args = ([[0.0]], [[1.0], [1.0]], [[1.0], [2.0]], [[1.0], [1.0]], [1.0, 0.5], 1.0)
    for backend in ("float64", "mp"):
        out, S_out, U = kla.kla_chunk(*args, eps=0.0, backend=backend)
        assert dev(U, [[1.0], [1.5]]) == 0 and dev(out, [[1.0], [2.0]]) == 0
        assert dev(S_out, [[2.0]]) == 0
        O2, S2 = kla.kla_recurrent(*args, eps=0.0, backend=backend)
        assert dev(O2, [[1.0], [2.0]]) == 0 and dev(S2, [[2.0]]) == 0


def test_kla_chunk_rows_of_U_are_beta_times_residual():
    e = rand_seq(1, T=6)
    out, S_out, U = kla.kla_chunk(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], **MP)
    _, _, states = kla.kla_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"],
                                     return_states=True, **MP)
    beta = kla.kaczmarz_beta(e["K"], e["eta"], **MP)
    with mpmath.workdps(50):
        prev = [to_mp(e["S0"])] + list(states[:-1])
        for i in range(6):
            St = prev[i] * mpmath.mpf(e["alpha"][i])                 # S̃_i = α_i S_{i−1}
            res = to_mp(e["V"][i]) - St.T @ to_mp(e["K"][i])         # e_i = v_i − S̃_iᵀk_i
            assert dev(U[i], beta[i] * res) < TOL_MP


@pytest.mark.parametrize("C", [1, 2, 3, 4, 9, 20])
def test_kla_chunkwise_equals_recurrence_mp_and_float64(C):
    e = rand_seq(2)
    Or, Sr = kla.kla_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], **MP)
    Oc, Sc = kla.kla_chunkwise(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"],
                               chunk_size=C, **MP)
    assert all_mpf(Oc) and all_mpf(Sc)
    assert dev(Or, Oc) < TOL_MP and dev(Sr, Sc) < TOL_MP
    # float64 chunkwise against the mp reference: within γ_D × its majorant (D and the majorant
    # as derived in crosscheck.properties.variants.kla_chunkwise_equals_recurrence)
    Of, Sf = kla.kla_chunkwise(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], chunk_size=C)
    T, dk = e["K"].shape
    beta = e["eta"] / (np.sum(e["K"] ** 2, axis=1) + 1e-6)
    Qn = e["Q"] / np.linalg.norm(e["Q"], axis=1, keepdims=True)
    Oa, Sa, _ = _abs_kla_chunkwise(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta, min(C, T))
    D = T * (2 * dk + 3 * min(C, T) + 12) + 2 * dk + 3 * min(C, T) + 10
    g = SLACK * gamma(D)
    assert np.all(np.abs(Of - to_float64(Or)) <= g * Oa + TOL_MP)
    assert np.all(np.abs(Sf - to_float64(Sr)) <= g * Sa + TOL_MP)
    assert dev(Of, to_float64(Or)) < 1e-12  # and, in practice, a few ulps


def test_kla_long_sequence_property_holds():
    r = np.random.default_rng(5)
    T, dk, dv = 32, 4, 3
    ex = dict(S0=r.normal(size=(dk, dv)), K=r.normal(size=(T, dk)), V=r.normal(size=(T, dv)),
              Q=r.normal(size=(T, dk)), alpha=r.uniform(0.8, 1.0, T), eta=r.uniform(0.1, 0.9, T),
              eps=1e-6, C=8)
    for backend in ("float64", "mp"):
        out = kla_chunkwise_equals_recurrence(ex, backend, 50)
        assert out.ok and out.met, (backend, out)


# ============================================================================ DeltaNet / KDA
def test_deltanet_step_hand_values_kda():
    # S = [[1], [2]], k = e₁, v = 5, β = 1, α = (.5, 1): X = [[.5], [2]], r = 4.5, S' = [[5], [2]]
    for backend in ("float64", "mp"):
        S = deltanet.deltanet_step([[1.0], [2.0]], [1.0, 0.0], [5.0], 1.0, [0.5, 1.0],
                                   backend=backend)
        assert dev(S, [[5.0], [2.0]]) == 0


def test_deltanet_order_matters_hand_values():
    # k = (1, 1), β = .5, D = diag(.5, 1): (I − βkkᵀ)D = [[.25, −.5], [−.25, .5]],
    # D(I − βkkᵀ) = [[.25, −.25], [−.5, .5]]
    Pm, R = deltanet.step_map([1.0, 1.0], [2.0], 0.5, [0.5, 1.0], **MP)
    assert dev(Pm, [[0.25, -0.5], [-0.25, 0.5]]) == 0 and dev(R, [[1.0], [1.0]]) == 0
    assert dev(Pm, [[0.25, -0.25], [-0.5, 0.5]]) == 0.25
    # a scalar gate commutes: (I − βkkᵀ)(αI) = α(I − βkkᵀ)
    Pg, _ = deltanet.step_map([1.0, 1.0], [2.0], 0.5, 0.5)
    assert dev(Pg, 0.5 * np.array([[0.5, -0.5], [-0.5, 0.5]])) == 0


def test_compose_maps_hand_values():
    Pc, Rc = deltanet.compose_maps([[2.0]], [[1.0]], [[3.0]], [[4.0]])
    assert dev(Pc, [[6.0]]) == 0 and dev(Rc, [[7.0]]) == 0       # 3(2S + 1) + 4 = 6S + 7
    S = np.array([[0.3]])
    assert dev(deltanet.apply_map(Pc, Rc, S), [[6 * 0.3 + 7]]) < TOL_F


def test_deltanet_beta_one_rollback_example():
    # β = 1, k = e₁, D = I: states differing only in row 1 map to the same new state
    a = deltanet.deltanet_step([[1.0], [7.0]], [1.0, 0.0], [3.0], 1.0, 1.0)
    b = deltanet.deltanet_step([[9.0], [7.0]], [1.0, 0.0], [3.0], 1.0, 1.0)
    assert dev(a, b) == 0 and dev(a, [[3.0], [7.0]]) == 0


@pytest.mark.parametrize("gate", ["gdn", "kda"])
@pytest.mark.parametrize("chunks", [1, 3, 20, [2, 5, 1, 1], [9]])
def test_deltanet_chunked_equals_recurrent(gate, chunks):
    r = np.random.default_rng(7)
    T, dk, dv = 9, 3, 2
    K = r.normal(size=(T, dk))
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    alpha = r.uniform(0, 1, T) if gate == "gdn" else r.uniform(0, 1, (T, dk))
    args = (r.normal(size=(dk, dv)), K, r.normal(size=(T, dv)), r.normal(size=(T, dk)),
            r.uniform(0, 1, T), alpha)
    Or, Sr = deltanet.deltanet_recurrent(*args, **MP)
    Oc, Sc = deltanet.deltanet_chunked(*args, chunks, **MP)
    assert all_mpf(Oc) and dev(Or, Oc) < TOL_MP and dev(Sr, Sc) < TOL_MP
    # float64 against the mp reference within the derived bound (see the property)
    lengths = deltanet.chunk_lengths(T, chunks)
    Of, Sf = deltanet.deltanet_chunked(*args, chunks)
    Oa, Sa = _abs_deltanet_chunked(*args, lengths)
    g = SLACK * gamma(T * (3 * dk + 10) + 3 * dk + 10)
    assert np.all(np.abs(Of - to_float64(Or)) <= g * Oa)
    assert np.all(np.abs(Sf - to_float64(Sr)) <= g * Sa)
    # chunk_map composes the whole sequence
    Pm, Rm = deltanet.chunk_map(args[1], args[2], args[4], args[5], **MP)
    assert dev(deltanet.apply_map(Pm, Rm, args[0], **MP), Sr) < TOL_MP


def test_deltanet_reset_is_not_a_chunking():
    r = np.random.default_rng(8)
    T, dk, dv = 6, 2, 1
    K = r.normal(size=(T, dk))
    K /= np.linalg.norm(K, axis=1, keepdims=True)
    args = (r.normal(size=(dk, dv)), K, r.normal(size=(T, dv)), r.normal(size=(T, dk)),
            np.full(T, 0.5), np.full(T, 0.9))
    Or, _ = deltanet.deltanet_recurrent(*args)
    O1, S1 = deltanet.deltanet_recurrent(args[0], *[a[:3] for a in args[1:]])
    # new document
    O2, _ = deltanet.deltanet_recurrent(np.zeros((dk, dv)), *[a[3:] for a in args[1:]])
    assert dev(np.concatenate([O1, O2]), Or) > 1e-3


# ================================================================================= mHC
def test_sinkhorn_paper_example_row_error():
    # M⁽⁰⁾ = [[4, 1], [1, 1]]: one row-then-column round gives [[8/13, 2/7], [5/13, 5/7]],
    # row sums 82/91 and 100/91: max error 9/91 ≈ 9.9e-2; column sums exactly 1
    B = mhc.sinkhorn_iterate([[4.0, 1.0], [1.0, 1.0]], 1, **MP)
    exact = [[Fraction(8, 13), Fraction(2, 7)], [Fraction(5, 13), Fraction(5, 7)]]
    with mpmath.workdps(60):
        for i in range(2):
            for j in range(2):
                e_ij = mpmath.mpf(exact[i][j].numerator) / exact[i][j].denominator
                assert abs(B[i, j] - e_ij) < TOL_MP
    r, c = mhc.doubly_stochastic_defect(B, **MP)
    with mpmath.workdps(60):
        assert abs(r - mpmath.mpf(9) / 91) < TOL_MP and c < TOL_MP
    rf, cf = mhc.doubly_stochastic_defect(mhc.sinkhorn_iterate([[4.0, 1.0], [1.0, 1.0]], 1))
    assert abs(rf - 9 / 91) < TOL_F and cf < TOL_F and round(float(rf), 3) == 0.099
    # the other order: column first, then row (here the transpose, M⁽⁰⁾ being symmetric)
    # -- different
    Bc = mhc.sinkhorn_iterate([[4.0, 1.0], [1.0, 1.0]], 1, order="col-first", **MP)
    assert dev(Bc, B.T) < TOL_MP and abs(dev(Bc, B) - 9 / 91) < 1e-15     # 5/13 − 2/7 = 9/91


def test_sinkhorn_steps_and_logits():
    M = np.array([[1.0, 3.0], [2.0, 2.0]])
    assert dev(mhc.sinkhorn_row_step(M), [[0.25, 0.75], [0.5, 0.5]]) == 0
    assert dev(mhc.sinkhorn_col_step(M), [[1 / 3, 0.6], [2 / 3, 0.4]]) < TOL_F
    Z = np.log(M)
    assert dev(mhc.sinkhorn(Z, 3), mhc.sinkhorn_iterate(M, 3)) < TOL_F
    assert dev(mhc.sinkhorn(np.zeros((3, 3)), 0), np.ones((3, 3))) == 0
    # many rounds converge (positive matrix): both sums → 1
    Bs = mhc.sinkhorn(np.random.default_rng(0).normal(size=(4, 4)), 200, **MP)
    r, c = mhc.doubly_stochastic_defect(Bs, **MP)
    assert r < 1e-30 and c < TOL_MP


def test_mhc_difference_direction_contracts_and_transfer_amplifies():
    B = np.array([[2 / 3, 1 / 3], [1 / 3, 2 / 3]])
    same = mhc.mhc_transfer([[1.0], [1.0]], B, [[0.0, 0.0]], [[0.0], [0.0]], lambda u: u)
    diff = mhc.mhc_transfer([[1.0], [-1.0]], B, [[0.0, 0.0]], [[0.0], [0.0]], lambda u: u)
    assert dev(same, [[1.0], [1.0]]) < TOL_F and dev(diff, [[1 / 3], [-1 / 3]]) < TOL_F
    # one stream, B = 1, A = .5, C = 1, F(u) = 4u: x ↦ 3x
    for backend in ("float64", "mp"):
        out = mhc.mhc_transfer([[0.7, -2.0]], [[1.0]], [[0.5]], [[1.0]], lambda u: 4 * u, ds_tol=0,
                               backend=backend)
        assert dev(out, [[2.1, -6.0]]) < 1e-15


def test_mhc_product_of_doubly_stochastic():
    B1 = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [0.25, 0.25, 0.5]])
    B2 = np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.5, 0.0, 0.5]])
    Pm = B1 @ B2
    assert mhc.doubly_stochastic_defect(Pm) == (0.0, 0.0)
    v = np.array([3.0, -1.0, 2.0])
    assert np.linalg.norm(Pm @ v) <= np.linalg.norm(v)


# ================================================================================= AttnRes
def test_attnres_hand_values():
    # V = [[1, 0], [0, 1]], w = (a, 0): k₁ = (1, 0)/√(ε + 1/2), k₂ ⟂ w → s = (a/√(.5 + ε), 0)
    a = 1.5
    h, alpha = attnres.depth_attention([a, 0.0], [[1.0, 0.0], [0.0, 1.0]], **MP)
    with mpmath.workdps(60):
        s1 = mpmath.mpf(a) / mpmath.sqrt(mpmath.mpf("0.5") + mpmath.mpf("1e-6"))
        p = 1 / (1 + mpmath.exp(-s1))
        assert abs(alpha[0] - p) < TOL_MP and abs(alpha[1] - (1 - p)) < TOL_MP
        assert abs(h[0] - p) < TOL_MP and abs(h[1] - (1 - p)) < TOL_MP   # raw values, not keys
        _, L = attnres.depth_attention_partial([a, 0.0], [[1.0, 0.0], [0.0, 1.0]], **MP)
        assert abs(L - mpmath.log(mpmath.exp(s1) + 1)) < TOL_MP
    want = [[3 / np.sqrt(12.5), 4 / np.sqrt(12.5)]]
    assert dev(attnres.rms_norm([[3.0, 4.0]], eps=0.0), want) < TOL_F


@pytest.mark.parametrize("groups", [1, 3, [True, False, True, False, False]])
def test_attnres_two_phase_equals_one_pass_and_average_differs(groups):
    r = np.random.default_rng(11)
    V, w = r.normal(size=(5, 4)), 2 * r.normal(size=4)
    h1, _ = attnres.depth_attention(w, V, **MP)
    h2, L = attnres.two_phase_depth_attention(w, V, groups, **MP)
    assert all_mpf(h2) and dev(h1, h2) < TOL_MP
    hf, _ = attnres.two_phase_depth_attention(w, V, groups)
    assert dev(hf, to_float64(h1)) < 1e-13
    mask = np.arange(5) < groups if isinstance(groups, int) else np.array(groups)
    hA, _ = attnres.depth_attention_partial(w, V[mask], **MP)
    hB, _ = attnres.depth_attention_partial(w, V[~mask], **MP)
    assert dev((hA + hB) / 2, h1) > 1e-3


def test_merge_partials_handles_far_apart_log_partitions():
    h, L = attnres.merge_partials([1.0], 1000.0, [5.0], 0.0)      # e^{1000} would overflow
    assert abs(float(h[0]) - 1.0) < 1e-300 + 1e-15 and abs(L - 1000.0) < 1e-12


def test_attnres_zero_query_zero_gate_zero_candidate_block_differences():
    V = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    ht = np.array([0.1, 0.2])
    _, alpha = attnres.depth_attention([0.0, 0.0], V, **MP)
    with mpmath.workdps(50):
        assert all(a == mpmath.mpf(1) / 3 for a in alpha)
    hh = attnres.delta_attnres_input(ht, [0.0, 0.0], V, **MP)
    with mpmath.workdps(50):
        want = to_mp(ht) + to_mp(V).sum(axis=0) / 3
    assert dev(hh, want) < TOL_MP and dev(hh, ht) > 1                          # not the identity
    for g in (0.0, 0):
        assert dev(attnres.gated_attnres_input(ht, [1.0, -2.0], V, g), ht) == 0
    r_, _ = attnres.depth_attention([1.0, -2.0], V)
    assert dev(attnres.gated_attnres_input(ht, [1.0, -2.0], V, 0.5), ht + 0.5 * r_) < TOL_F
    # a zero candidate: others' weights scale by Z/(Z + 1), its own weight is 1/(Z + 1)
    w = np.array([0.3, 0.7])
    _, a = attnres.depth_attention(w, V, **MP)
    _, a2 = attnres.depth_attention(w, np.vstack([V, np.zeros(2)]), **MP)
    s = attnres.depth_scores(w, V, **MP)
    with mpmath.workdps(50):
        Z = sum(mpmath.exp(x) for x in s)
        assert dev(a2[:3], a * Z / (Z + 1)) < TOL_MP and abs(a2[3] - 1 / (Z + 1)) < TOL_MP
    assert dev(a2[:3], a) > 0.05
    # Delta Block: boundary states 1, 3, 6 → differences 2, 3 (not 2, 4)
    assert dev(attnres.block_differences([1.0, 3.0, 6.0]), [2.0, 3.0]) == 0


# ================================================================================= mp vs float64
def test_mp_and_float64_agree():
    e = rand_seq(3)
    for fn, args in [
        (kla.kla_recurrent, (e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"])),
        (deltanet.deltanet_recurrent, (e["S0"], e["K"] / 3, e["V"], e["Q"], e["eta"], e["alpha"])),
    ]:
        (Of, Sf), (Om, Sm) = fn(*args), fn(*args, **MP)
        assert all_mpf(Om) and dev(Of, to_float64(Om)) < 1e-12 and dev(Sf, to_float64(Sm)) < 1e-12
    Z = np.random.default_rng(4).normal(size=(4, 4))
    assert dev(mhc.sinkhorn(Z, 5), to_float64(mhc.sinkhorn(Z, 5, **MP))) < 1e-14
    V, w = np.random.default_rng(6).normal(size=(6, 3)), np.array([1.0, -0.5, 2.0])
    mp_out = to_float64(attnres.depth_attention(w, V, **MP)[0])
    assert dev(attnres.depth_attention(w, V)[0], mp_out) < 1e-14
    assert kla.kla_step([[1.0]], [1.0], [1.0], 0.5, 0.5, backend="float32").dtype == np.float32


# ================================================================================= bad input
_z, _o = np.zeros, np.ones


@pytest.mark.parametrize("call,match", [
    (lambda: kla.kla_step([[0.0]], [1.0], [1.0], 1.5, 0.5),
     r"kla_step: alpha must lie in \[0, 1\], got 1.5"),
    (lambda: kla.kla_step([[0.0]], [1.0], [1.0], 0.5, 0.0),
     r"kla_step: eta must lie in \(0, 1\], got 0.0"),
    (lambda: kla.kla_step([[0.0]], [1.0], [1.0], 0.5, 1.2), r"eta must lie in \(0, 1\]"),
    (lambda: kla.kla_step([[0.0]], [1.0], [1.0], 0.5, 0.5, eps=-1.0),
     r"eps must lie in \[0, inf\)"),
    (lambda: kla.kla_step([[0.0]], [0.0], [1.0], 0.5, 0.5, eps=0.0),
     r"key at index 0 is zero and eps = 0"),
    (lambda: kla.kla_step([[0.0]], [1.0, 2.0], [1.0], 0.5, 0.5),
     r"kla_step: k must have shape \[1\], got shape \(2,\)"),
    (lambda: kla.kla_step([[np.nan]], [1.0], [1.0], 0.5, 0.5), r"kla_step: S must be finite"),
    (lambda: kla.kla_readout([[1.0]], [0.0]), r"query at index 0 is zero"),
    (lambda: kla.kla_recurrent(_z((2, 1)), _o((3, 2)), _o((3, 2)), _o((3, 2)), 1.0, 0.5),
     r"kla_recurrent: V must have shape \[3, 1\], got shape \(3, 2\)"),
    (lambda: kla.kla_recurrent(_z((1, 1)), _o((3, 1)), _o((3, 1)), _o((3, 1)), [1.0, 1.0], 0.5),
     r"alpha must have shape \[3\], got shape \(2,\)"),
    (lambda: kla.kla_chunkwise(_z((1, 1)), _o((2, 1)), _o((2, 1)), _o((2, 1)), [1.0, 0.0], 0.5),
     r"kla_chunkwise: alpha must lie in \(0, 1\], got 0.0 at index \(1,\)"),
    (lambda: kla.kla_chunkwise(_z((1, 1)), _o((2, 1)), _o((2, 1)), _o((2, 1)), 1.0, 0.5,
                               chunk_size=0),
     r"chunk_size must be an int ≥ 1"),
    (lambda: kla.kla_chunkwise(_z((1, 1)), _o((3, 1)), _o((3, 1)), _o((3, 1)),
                               [1e-200, 1e-200, 1.0], 0.5, chunk_size=2),
     r"gamma .* is 0 at chunk position 1"),
    (lambda: kla.delta_write([[0.0]], [1.0], [1.0], np.inf), r"delta_write: beta must be finite"),
    (lambda: deltanet.deltanet_step([[0.0]], [1.0], [1.0], 1.5, 1.0),
     r"deltanet_step: beta must lie in \[0, 1\], got 1.5"),
    (lambda: deltanet.deltanet_step([[0.0]], [1.0], [1.0], 0.5, -0.1),
     r"deltanet_step: alpha must lie in \[0, 1\]"),
    (lambda: deltanet.deltanet_step(np.zeros((2, 1)), [1.0, 0.0], [1.0], 0.5, [1.0, 1.0, 1.0]),
     r"alpha must have shape \[\] \(GDN, scalar gate\) or \[2\] \(KDA, diagonal gate\)"),
    (lambda: deltanet.deltanet_chunked(_z((1, 1)), _o((3, 1)), _o((3, 1)), _o((3, 1)), 0.5, 1.0,
                                       [1, 1]),
     r"chunk lengths must sum to the sequence length 3, got \[1, 1\]"),
    (lambda: deltanet.deltanet_chunked(_z((1, 1)), _o((3, 1)), _o((3, 1)), _o((3, 1)), 0.5, 1.0,
                                       [3, 0]),
     r"chunk length must be an int ≥ 1, got 0"),
    (lambda: deltanet.compose_maps(np.eye(2), np.ones((2, 1)), np.eye(3), np.ones((2, 1))),
     r"P2 must have shape \[2, 2\]"),
    (lambda: mhc.sinkhorn_row_step([[1.0, -1.0]]),
     r"sinkhorn_row_step: M must lie in \[0, inf\), got -1.0 at index \(0, 1\)"),
    (lambda: mhc.sinkhorn_col_step([[0.0, 1.0]]), r"M has a zero column sum at index 0"),
    (lambda: mhc.sinkhorn(np.zeros((2, 2)), 1, order="diagonal"), r"order must be one of"),
    (lambda: mhc.sinkhorn(np.zeros((2, 3)), 1),
     r"sinkhorn: Z must have shape \[2, 2\], got shape \(2, 3\)"),
    (lambda: mhc.sinkhorn(np.full((2, 2), 800.0), 1), r"sinkhorn: exp\(Z\) must be finite"),
    (lambda: mhc.sinkhorn(np.zeros((2, 2)), -1), r"n_iters must be an int ≥ 0"),
    (lambda: mhc.mhc_transfer([[1.0]], [[1.0]], [[1.0]], [[1.0]], "F"), r"F must be a callable"),
    (lambda: mhc.mhc_transfer([[1.0], [1.0]], [[0.9, 0.0], [0.1, 1.0]], [[1.0, 0.0]],
                              [[1.0], [0.0]], lambda u: u, ds_tol=1e-12),
     r"B must be doubly stochastic to within 1e-12"),
    (lambda: mhc.mhc_transfer([[1.0]], [[1.0]], [[1.0]], [[1.0]], lambda u: np.ones((2, 1))),
     r"F\(A X\) must have shape \[1, 1\]"),
    (lambda: attnres.depth_attention([1.0], [[1.0, 2.0]]),
     r"depth_attention: w must have shape \[2\], got shape \(1,\)"),
    (lambda: attnres.depth_attention([1.0], [[0.0]], eps=0.0),
     r"candidate 0 is the zero vector and eps = 0"),
    (lambda: attnres.two_phase_depth_attention([1.0], [[1.0], [2.0]], 2),
     r"split point must lie in \[1, 1\]"),
    (lambda: attnres.two_phase_depth_attention([1.0], [[1.0], [2.0]], np.array([True, True])),
     r"both groups must be non-empty"),
    (lambda: attnres.merge_partials([1.0], np.inf, [1.0], 0.0),
     r"merge_partials: LA must be finite"),
    (lambda: attnres.gated_attnres_input([0.0], [1.0], [[1.0]], np.nan),
     r"gated_attnres_input: g must be finite"),
    (lambda: attnres.delta_attnres_input([0.0, 1.0], [1.0], [[1.0]]),
     r"h_tilde must have shape \[1\]"),
])
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_mp_bad_input_also_checked():
    with pytest.raises(ValueError, match="eta must lie"):
        kla.kla_step([[0.0]], [1.0], [1.0], 0.5, 0.0, **MP)
    with pytest.raises(ValueError, match="beta must be finite"):
        kla.delta_write([[0.0]], [1.0], [1.0], mpmath.inf, **MP)
    with pytest.raises(ValueError, match="alpha must lie"):
        deltanet.deltanet_recurrent(_z((1, 1)), _o((2, 1)), _o((2, 1)), _o((2, 1)), 0.5, [0.5, 2.0],
                                    **MP)
