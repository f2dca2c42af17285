"""Losses: masked cross-entropy (hand values), block vs sequential NLL, the matrix
exponential and the DAG regularizer (hand values, Lean lower bounds).

Tolerances: mp at 50 digits vs closed forms: 1e-45 (a few roundings of O(1-10) values);
float64 expm vs mp expm: 1e-13 relative (Taylor truncation 2e-23, squaring amplifies
round-off by at most ~2^s · cond ≲ 1e3 for the entries used).
"""
import mpmath
import numpy as np
import pytest

import pyref
from pyref.backend import to_float64
from pyref.losses import dag_loss, dag_regularizer, dag_terms, expm, masked_cross_entropy

CFG = pyref.PLDRConfig(num_layers=1, d_model=8, num_heads=2, dff=12, a_dff=6, num_res_units=1,
                       num_glu_blocks=2, vocab_size=11, max_seq_len=8)
TOL = mpmath.mpf("1e-45")


def test_masked_cross_entropy_hand():
    logits = np.zeros((1, 3, 5))
    logits[0, 1, 2] = 1.0
    tgt = np.array([[1, 2, 0]])  # the pad target (0) is excluded from the mean
    r = masked_cross_entropy(logits, tgt, backend="mp", dps=50)
    with mpmath.workdps(50):
        l0 = mpmath.log(5)
        l1 = -(1 - mpmath.log(4 + mpmath.e))
        assert abs(r.loss - (l0 + l1) / 2) < TOL
    assert r.mask.tolist() == [[True, True, False]]
    assert abs(float(masked_cross_entropy(logits, tgt).loss) - float((l0 + l1) / 2)) < 1e-15
    with pytest.raises(ValueError, match="pad id"):
        masked_cross_entropy(logits, np.zeros((1, 3), dtype=int))
    with pytest.raises(ValueError, match=r"target ids must lie in \[0, 5\)"):
        masked_cross_entropy(logits, np.array([[1, 7, 1]]))


def test_block_vs_sequential_nll():
    m = pyref.PLDRModel.random(CFG, seed=3)
    toks = np.array([[3, 5, 7, 2, 9]])
    blk = pyref.block_cross_entropy(m, toks)
    seq = pyref.sequential_nll(m, toks)
    assert blk.token_logprobs.shape == seq.token_logprobs.shape == (1, 4)
    # position 0 sees the same single-token input in both (D built from one row)
    assert abs(blk.token_logprobs[0, 0] - seq.token_logprobs[0, 0]) < 1e-13
    # the last position sees the same full input in both
    assert abs(blk.token_logprobs[0, 3] - seq.token_logprobs[0, 3]) < 1e-13
    # in between, D couples all supplied rows: block ≠ sequential (spec C / D S1)
    assert np.max(np.abs(blk.token_logprobs - seq.token_logprobs)) > 1e-6
    # the SDPA model is prefix consistent: block = sequential
    s = m.to_sdpa()
    assert np.max(np.abs(pyref.block_cross_entropy(s, toks).token_logprobs
                         - pyref.sequential_nll(s, toks).token_logprobs)) < 1e-13
    with pytest.raises(ValueError, match="at least 2 tokens"):
        pyref.block_cross_entropy(m, [[3]])


def test_expm_hand_and_precision():
    # expm of a nilpotent matrix and of a rotation generator
    N = np.array([[0.0, 1.0], [0.0, 0.0]])
    assert np.allclose(expm(N), [[1, 1], [0, 1]], atol=1e-15, rtol=0)
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    E = expm(J, backend="mp", dps=50)
    with mpmath.workdps(50):
        c, s = mpmath.cos(1), mpmath.sin(1)
        assert max(abs(E[0, 0] - c), abs(E[1, 0] - s), abs(E[0, 1] + s)) < TOL
    rng = np.random.default_rng(0)
    M = rng.standard_normal((3, 4, 4)) * 2  # needs scaling and squaring
    e64 = expm(M)
    emp = to_float64(expm(M, backend="mp", dps=40))
    assert np.max(np.abs(e64 - emp) / np.maximum(1, np.abs(emp))) < 1e-13
    assert expm(M, backend="float32").dtype == np.float32


def test_dag_hand_values_and_lean_bounds():
    # M = 0: expm(0) = I, tr = d_k, log 1 = 0
    assert float(dag_loss(np.zeros((2, 3, 3)))) == 0.0
    # diagonal M: tr expm(M⊙M) = Σ e^{m_i²}
    m = np.array([1.0, 0.5, 0.0])
    v = dag_loss(np.diag(m), backend="mp", dps=50)
    with mpmath.workdps(50):
        exp = abs(mpmath.log((mpmath.e + mpmath.exp(mpmath.mpf("0.25")) + 1) / 3))
        assert abs(v - exp) < TOL
    # Lean trace_exp_ge_card_add_trace: d + tr N ≤ tr exp N for entrywise N ≥ 0
    rng = np.random.default_rng(1)
    for _ in range(5):
        Mx = rng.standard_normal((4, 4))
        Nn = Mx * Mx
        tr = np.trace(to_float64(expm(Nn, backend="mp", dps=30)))
        assert 4 + np.trace(Nn) <= tr
        assert float(dag_terms(Mx)) >= 0
    # averaging over (layer, batch, head) and the coefficient-weighted regularizer
    mats = rng.standard_normal((2, 1, 3, 4, 4)) * 0.3
    assert abs(float(dag_loss(mats)) - np.mean(dag_terms(mats))) < 1e-15
    ded = [{"A_LM": mats[li], "A_P": mats[li], "G_LM": mats[li]} for li in range(2)]
    r = dag_regularizer(ded, (0.05, 0.0, 0.1))
    assert abs(float(r) - 0.15 * float(dag_loss(mats))) < 1e-15
    assert float(dag_regularizer(ded, (0, 0, 0))) == 0.0  # no NameError
    with pytest.raises(ValueError, match="A_P is not available"):
        dag_regularizer([{"A_LM": mats[0], "A_P": None, "G_LM": mats[0]}], (0, 1, 0))


def test_dag_regularizer_on_model_output():
    m = pyref.PLDRModel.random(CFG, seed=4)
    out = m.forward([[3, 5, 7]])
    r64 = float(dag_regularizer(out.deductive, (0.05, 0.05, 0.05)))
    ded_mp = m.forward([[3, 5, 7]], backend="mp", dps=30).deductive
    rmp = dag_regularizer(ded_mp, (0.05, 0.05, 0.05), backend="mp", dps=30)
    assert abs(r64 - float(rmp)) < 1e-12 * max(1, abs(r64))
