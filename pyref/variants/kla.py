"""Kaczmarz Linear Attention (KLA), VARIANTS.md §2.

One head, column-vector convention: state ``S`` [d_k, d_v], key/query ``k, q`` [d_k],
value ``v`` [d_v].  One token (base point the *decayed* state):

    S̃ = α S                      (scalar decay gate α ∈ [0, 1])
    e = v − S̃ᵀ k                 (residual of re-reading the key)          [d_v]
    β = η / (‖k‖² + ε)           (Kaczmarz step, η ∈ (0, 1], ε ≥ 0; default ε = 1e-6)
    S = S̃ + β k eᵀ
    o = Sᵀ q / ‖q‖               (read-out with the normalized query)        [d_v]

A sequence (rows ``K, Q`` [T, d_k], ``V`` [T, d_v], gates ``alpha, eta`` [T] or scalars)
runs the token loop (:func:`kla_recurrent`) or the chunkwise form (:func:`kla_chunkwise`,
:func:`kla_chunk`): for a chunk of length C with start state S₀, ``γ_i = Π_{r≤i} α_r``,
``D_γ = Diag(γ)``, ``B = Diag(β)``, ``A_ij = γ_i/γ_j`` (j ≤ i, else 0), ``A⁻`` its strictly
lower part, and normalized query rows Q̂:

    [I + B(A⁻ ⊙ K Kᵀ)] U = B(V − D_γ K S₀)        (unit lower triangular: forward substitution)
    O     = D_γ Q̂ S₀ + (A ⊙ Q̂ Kᵀ) U
    S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_1, …, γ_C/γ_C) U

(row i of U is β_i e_i).  Equal to the token loop in exact arithmetic when every γ_i ≠ 0,
so the chunkwise form requires α > 0 (and raises if a γ_i underflows to 0).

Public functions take plain arrays and ``backend=``/``dps=`` keywords and return backend
arrays; internal ``_`` functions take a Backend and converted arrays.
"""
from __future__ import annotations

import numpy as np

from ..backend import Backend, get_backend
from ..inputs import conv, need_finite, need_int, need_range, need_shape

EPS = 1e-6  # the paper's ε in β = η/(‖k‖² + ε)


# ============================================================================ internal
def _sqnorm(x):
    """‖x‖² over the last axis: [..., d] -> [...]."""
    return np.sum(x * x, axis=-1)


def _beta(k, eta, eps):
    """β = η/(‖k‖² + ε): k [..., d_k], eta [...] -> [...]."""
    return eta / (_sqnorm(k) + eps)


def _write(S_base, k, v, beta):
    """Delta-rule write at the base point: e = v − S_baseᵀk, S = S_base + β k eᵀ.
    S_base [d_k, d_v], k [d_k], v [d_v], beta scalar -> (S [d_k, d_v], e [d_v])."""
    e = v - S_base.T @ k                           # [d_v]
    return S_base + (beta * k)[:, None] * e[None, :], e


def _step(S, k, v, alpha, beta):
    """One KLA token: S̃ = αS, then the write with step β."""
    return _write(alpha * S, k, v, beta)[0]


def _readout(b: Backend, S, q):
    """o = Sᵀq/‖q‖: S [d_k, d_v], q [d_k] -> [d_v]."""
    return (S.T @ q) / b.sqrt(_sqnorm(q))


def _recurrent(b: Backend, S0, K, V, Q, alpha, beta):
    """Token loop: returns (O [T, d_v], S_T [d_k, d_v], states [T, d_k, d_v])."""
    T = K.shape[0]
    S = S0
    out, states = [], []
    for t in range(T):
        S = _step(S, K[t], V[t], alpha[t], beta[t])
        out.append(_readout(b, S, Q[t]))
        states.append(S)
    out = np.stack(out) if T else b.zeros((0, S0.shape[1]))
    states = np.stack(states) if T else b.zeros((0,) + S0.shape)
    return out, S, states


def _forward_substitution(b: Backend, M, R):
    """Solve (I + M) U = R for strictly lower triangular M [C, C], R [C, d_v] (unit lower
    triangular system): U_i = R_i − Σ_{j<i} M_ij U_j."""
    C = R.shape[0]
    U = b.zeros(R.shape) if b.is_object else np.empty_like(R)
    for i in range(C):
        U[i] = R[i] - M[i, :i] @ U[:i] if i else R[i]
    return U


def _chunk(b: Backend, S0, K, V, Qn, alpha, beta):
    """The chunkwise form on one chunk (Qn: rows already normalized).

    S0 [d_k, d_v], K/Qn [C, d_k], V [C, d_v], alpha/beta [C] -> (O [C, d_v], S_out, U [C, d_v])."""
    C = K.shape[0]
    gam = np.cumprod(alpha)                                      # γ_i = Π_{r≤i} α_r      [C]
    if not np.all(np.asarray(gam != 0, dtype=bool)):
        i = int(np.argmax(np.asarray(gam == 0, dtype=bool)))
        raise ValueError(f"kla_chunkwise: gamma (cumulative decay) is 0 at chunk position {i}; "
                         "the chunkwise form needs every gamma_i != 0 (alpha > 0, no underflow)")
    zero = b.const(0)
    low = np.tril(np.ones((C, C), dtype=bool))                   # j ≤ i
    A = np.where(low, gam[:, None] / gam[None, :], zero)         # A_ij = γ_i/γ_j          [C, C]
    A_strict = np.where(np.tril(low, -1), A, zero)               # A⁻
    M = beta[:, None] * (A_strict * (K @ K.T))                   # B(A⁻ ⊙ KKᵀ), strictly lower
    R = beta[:, None] * (V - gam[:, None] * (K @ S0))            # B(V − D_γ K S₀)        [C, d_v]
    U = _forward_substitution(b, M, R)                           # [C, d_v]
    out = gam[:, None] * (Qn @ S0) + (A * (Qn @ K.T)) @ U          # [C, d_v]
    S_out = gam[-1] * S0 + K.T @ ((gam[-1] / gam)[:, None] * U)  # [d_k, d_v]
    return out, S_out, U


def _normalize_rows(b: Backend, Q):
    return Q / b.sqrt(_sqnorm(Q))[:, None]


# ============================================================================ validation
def _eps(b: Backend, fn, eps):
    e = b.asarray(eps)[()] if isinstance(eps, np.ndarray) else b.const(eps)
    need_finite(b, fn, "eps", np.asarray(e))
    need_range(fn, "eps", np.asarray(e), 0, None)
    return e


def _seq_param(b: Backend, fn, name, x, T):
    """A per-token gate: scalar (broadcast) or [T]."""
    (x,) = conv(b, x)
    if x.ndim == 0:
        x = np.broadcast_to(x, (T,)).copy()
    need_shape(fn, name, x, (T,))
    need_finite(b, fn, name, x)
    return x


def _check_gates(fn, alpha, eta, alpha_open=False):
    need_range(fn, "alpha", alpha, 0, 1, lo_open=alpha_open)
    need_range(fn, "eta", eta, 0, 1, lo_open=True)


def _check_keys(fn, K, eps):
    """β = η/(‖k‖²+ε) needs ‖k‖² + ε > 0: a zero key with ε = 0 is an error."""
    if eps == 0:
        zero = np.asarray(_sqnorm(K) == 0, dtype=bool).reshape(-1)
        if zero.any():
            raise ValueError(f"{fn}: key at index {int(np.argmax(zero))} is zero and eps = 0: "
                             "beta = eta/(|k|^2 + eps) is undefined")


def _check_queries(fn, Q):
    zero = np.asarray(_sqnorm(Q) == 0, dtype=bool).reshape(-1)
    if zero.any():
        raise ValueError(f"{fn}: query at index {int(np.argmax(zero))} is zero; the read-out "
                         "S^T q/|q| is undefined")


def _seq_inputs(b: Backend, fn, S0, K, V, Q, alpha, eta, eps, alpha_open=False):
    S0, K, V, Q = conv(b, S0, K, V, Q)
    need_shape(fn, "K", K, (None, None))
    T, dk = K.shape
    need_shape(fn, "S0", S0, (dk, None))
    dv = S0.shape[1]
    need_shape(fn, "V", V, (T, dv))
    need_shape(fn, "Q", Q, (T, dk))
    for nm, a in (("S0", S0), ("K", K), ("V", V), ("Q", Q)):
        need_finite(b, fn, nm, a)
    alpha = _seq_param(b, fn, "alpha", alpha, T)
    eta = _seq_param(b, fn, "eta", eta, T)
    _check_gates(fn, alpha, eta, alpha_open)
    e = _eps(b, fn, eps)
    _check_keys(fn, K, e)
    _check_queries(fn, Q)
    return S0, K, V, Q, alpha, _beta(K, eta, e)


# ============================================================================ public
def kaczmarz_beta(k, eta, eps=EPS, backend="float64", dps=50):
    """The Kaczmarz write strength β = η/(‖k‖² + ε), η ∈ (0, 1], ε ≥ 0.

    k [d_k] with scalar eta -> scalar; K [T, d_k] with eta [T] (or scalar) -> [T]."""
    fn = "kaczmarz_beta"
    b = get_backend(backend, dps)
    with b.context():
        k, eta = conv(b, k, eta)
        if k.ndim not in (1, 2):
            raise ValueError(f"{fn}: k must be [d_k] or [T, d_k], got shape {tuple(k.shape)}")
        need_finite(b, fn, "k", k)
        need_finite(b, fn, "eta", eta)
        if k.ndim == 2 and eta.ndim == 0:
            eta = np.broadcast_to(eta, k.shape[:1]).copy()
        need_shape(fn, "eta", eta, k.shape[:-1])
        need_range(fn, "eta", eta, 0, 1, lo_open=True)
        e = _eps(b, fn, eps)
        _check_keys(fn, k, e)
        return _beta(k, eta, e)


def delta_write(S_base, k, v, beta, backend="float64", dps=50):
    """The delta-rule write at a base point with an arbitrary finite step β (the line-search
    parameter τ): e = v − S_baseᵀk, S = S_base + β k eᵀ.

    S_base [d_k, d_v], k [d_k], v [d_v], beta a finite real -> (S [d_k, d_v], e [d_v])."""
    fn = "delta_write"
    b = get_backend(backend, dps)
    with b.context():
        S, k, v, beta = conv(b, S_base, k, v, beta)
        need_shape(fn, "S_base", S, (None, None))
        need_shape(fn, "k", k, (S.shape[0],))
        need_shape(fn, "v", v, (S.shape[1],))
        need_shape(fn, "beta", beta, ())
        for nm, a in (("S_base", S), ("k", k), ("v", v), ("beta", beta)):
            need_finite(b, fn, nm, a)
        return _write(S, k, v, beta[()])


def kla_step(S, k, v, alpha, eta, eps=EPS, backend="float64", dps=50):
    """One KLA token: S̃ = αS, e = v − S̃ᵀk, β = η/(‖k‖²+ε), returns S̃ + β k eᵀ [d_k, d_v].

    S [d_k, d_v], k [d_k], v [d_v], alpha ∈ [0, 1], eta ∈ (0, 1], eps ≥ 0 (a zero key needs
    eps > 0)."""
    fn = "kla_step"
    b = get_backend(backend, dps)
    with b.context():
        S, k, v, alpha, eta = conv(b, S, k, v, alpha, eta)
        need_shape(fn, "S", S, (None, None))
        need_shape(fn, "k", k, (S.shape[0],))
        need_shape(fn, "v", v, (S.shape[1],))
        need_shape(fn, "alpha", alpha, ())
        need_shape(fn, "eta", eta, ())
        for nm, a in (("S", S), ("k", k), ("v", v), ("alpha", alpha), ("eta", eta)):
            need_finite(b, fn, nm, a)
        _check_gates(fn, alpha, eta)
        e = _eps(b, fn, eps)
        _check_keys(fn, k, e)
        return _step(S, k, v, alpha[()], _beta(k, eta[()], e))


def kla_readout(S, q, backend="float64", dps=50):
    """o = Sᵀq/‖q‖: S [d_k, d_v], q [d_k] (nonzero) -> [d_v]."""
    fn = "kla_readout"
    b = get_backend(backend, dps)
    with b.context():
        S, q = conv(b, S, q)
        need_shape(fn, "S", S, (None, None))
        need_shape(fn, "q", q, (S.shape[0],))
        need_finite(b, fn, "S", S)
        need_finite(b, fn, "q", q)
        _check_queries(fn, q)
        return _readout(b, S, q)


def kla_recurrent(S0, K, V, Q, alpha, eta, eps=EPS, return_states=False, backend="float64", dps=50):
    """The KLA token loop from S0 [d_k, d_v] over K, Q [T, d_k], V [T, d_v] with gates
    alpha [T] (or scalar, in [0, 1]) and eta [T] (or scalar, in (0, 1]).

    Returns (O [T, d_v], S_T [d_k, d_v]), plus the states [T, d_k, d_v] with
    ``return_states=True``.  Row t of O is S_tᵀq_t/‖q_t‖."""
    fn = "kla_recurrent"
    b = get_backend(backend, dps)
    with b.context():
        S0, K, V, Q, alpha, beta = _seq_inputs(b, fn, S0, K, V, Q, alpha, eta, eps)
        out, S, states = _recurrent(b, S0, K, V, Q, alpha, beta)
        return (out, S, states) if return_states else (out, S)


def kla_chunk(S0, K, V, Q, alpha, eta, eps=EPS, backend="float64", dps=50):
    """The chunkwise form on a single chunk (VARIANTS.md §2; see the module docstring).

    S0 [d_k, d_v], K, Q [C, d_k] (query rows are normalized here), V [C, d_v], alpha [C]
    in (0, 1], eta [C] in (0, 1].  Returns (O [C, d_v], S_out [d_k, d_v], U [C, d_v])."""
    fn = "kla_chunk"
    b = get_backend(backend, dps)
    with b.context():
        S0, K, V, Q, alpha, beta = _seq_inputs(b, fn, S0, K, V, Q, alpha, eta, eps, alpha_open=True)
        if K.shape[0] == 0:
            raise ValueError(f"{fn}: a chunk needs at least one token, got K of shape "
                             f"{tuple(K.shape)}")
        return _chunk(b, S0, K, V, _normalize_rows(b, Q), alpha, beta)


def kla_chunkwise(S0, K, V, Q, alpha, eta, eps=EPS, chunk_size=64, backend="float64", dps=50):
    """KLA over a sequence in chunks of ``chunk_size`` tokens (the last may be shorter), each
    evaluated with the chunkwise form from the previous chunk's S_out.  Same inputs as
    :func:`kla_recurrent` except alpha ∈ (0, 1] (every γ_i ≠ 0).

    Returns (O [T, d_v], S_T [d_k, d_v]); equal to :func:`kla_recurrent` in exact arithmetic."""
    fn = "kla_chunkwise"
    b = get_backend(backend, dps)
    C = need_int(fn, "chunk_size", chunk_size, 1)
    with b.context():
        S0, K, V, Q, alpha, beta = _seq_inputs(b, fn, S0, K, V, Q, alpha, eta, eps, alpha_open=True)
        Qn = _normalize_rows(b, Q)
        T = K.shape[0]
        S, outs = S0, []
        for s in range(0, T, C):
            sl = slice(s, min(s + C, T))
            out, S, _ = _chunk(b, S, K[sl], V[sl], Qn[sl], alpha[sl], beta[sl])
            outs.append(out)
        out = np.concatenate(outs) if outs else b.zeros((0, S0.shape[1]))
        return out, S
