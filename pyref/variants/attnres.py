"""Attention Residuals (AttnRes) and Delta AttnRes, VARIANTS.md §4.

Depth attention of layer ℓ over N candidates ``V`` [N, d] (the embedding and earlier
sub-layer outputs) with a learned query ``w`` [d] (a parameter):

    k_i = RMSNorm(v_i) = v_i / √(ε + ‖v_i‖²/d)      (default ε = 1e-6)
    s_i = wᵀ k_i,   α = softmax(s),   h = Σ_i α_i v_i        (values are the raw v_i)

Two-phase evaluation: a group G of candidates gives its partial result ``h_G`` (the
softmax read-out over G alone) and log-partition ``L_G = log Σ_{i∈G} e^{s_i}``
(:func:`depth_attention_partial`, computed with max subtraction); two groups merge exactly
(:func:`merge_partials`):

    L = log(e^{L_A} + e^{L_B}),   h = e^{L_A − L} h_A + e^{L_B − L} h_B.

Delta AttnRes (additive): the sub-layer input is ``ĥ = h̃ + Σ α_i v_i``
(:func:`delta_attnres_input`); the zero-initialized scalar-gate variant is
``ĥ = h̃ + g r`` with ``r = Σ α_i v_i`` (:func:`gated_attnres_input`; g = 0 is the identity).
Delta Block candidates are boundary-state differences ``Δ_b = h̃_{τ_{b+1}} − h̃_{τ_b}``
(:func:`block_differences`).

Public functions take plain arrays and ``backend=``/``dps=`` keywords.
"""
from __future__ import annotations

import numpy as np

from ..backend import Backend, get_backend
from ..inputs import conv, need_finite, need_range, need_shape

EPS = 1e-6  # RMSNorm ε


# ============================================================================ internal
def _scalar(x):
    """A 0-d result as a scalar (np.float64 or mpf)."""
    return np.asarray(x)[()]


def _rms_norm(b: Backend, V, eps):
    """Row RMSNorm without gain: V [..., d] -> V / √(ε + ‖v‖²/d)."""
    d = V.shape[-1]
    return V / b.sqrt(eps + np.sum(V * V, axis=-1, keepdims=True) / d)


def _scores(b: Backend, w, V, eps):
    """s_i = wᵀ RMSNorm(v_i): w [d], V [N, d] -> [N]."""
    return _rms_norm(b, V, eps) @ w


def _partial(b: Backend, w, V, eps):
    """(h_G [d], L_G, α_G [N]) for one group: softmax read-out and log-partition."""
    s = _scores(b, w, V, eps)                    # [N]
    m = np.max(s)
    e = b.exp(s - m)                             # [N], max entry exactly 1
    Z = np.sum(e)
    alpha = e / Z
    return alpha @ V, _scalar(m + b.log(Z)), alpha


def _merge(b: Backend, hA, LA, hB, LB):
    """Exact merge of two groups' (h, L)."""
    M = max(LA, LB)
    L = _scalar(M + b.log(b.exp(LA - M) + b.exp(LB - M)))
    return b.exp(LA - L) * hA + b.exp(LB - L) * hB, L


# ============================================================================ validation
def _eps(b: Backend, fn, eps):
    e = b.const(eps)
    need_finite(b, fn, "eps", np.asarray(e))
    need_range(fn, "eps", np.asarray(e), 0, None)
    return e


def _inputs(b: Backend, fn, w, V, eps):
    w, V = conv(b, w, V)
    need_shape(fn, "V", V, (None, None))
    N, d = V.shape
    if N == 0 or d == 0:
        raise ValueError(f"{fn}: V must hold at least one candidate of positive width, got shape "
                         f"{tuple(V.shape)}")
    need_shape(fn, "w", w, (d,))
    need_finite(b, fn, "w", w)
    need_finite(b, fn, "V", V)
    e = _eps(b, fn, eps)
    if e == 0:
        zero = np.asarray(np.sum(V * V, axis=1) == 0, dtype=bool)
        if zero.any():
            raise ValueError(f"{fn}: candidate {int(np.argmax(zero))} is the zero vector and "
                             "eps = 0: RMSNorm(0) = 0/0 is undefined")
    return w, V, e


def _vec(b: Backend, fn, name, x, d):
    (x,) = conv(b, x)
    need_shape(fn, name, x, (d,))
    need_finite(b, fn, name, x)
    return x


# ============================================================================ public
def rms_norm(V, eps=EPS, backend="float64", dps=50):
    """RMSNorm of each row (no gain): v / √(ε + ‖v‖²/d), V [..., d]."""
    fn = "rms_norm"
    b = get_backend(backend, dps)
    with b.context():
        (V,) = conv(b, V)
        if V.ndim < 1 or V.shape[-1] == 0:
            raise ValueError(f"{fn}: V must be [..., d] with d ≥ 1, got shape {tuple(V.shape)}")
        need_finite(b, fn, "V", V)
        e = _eps(b, fn, eps)
        if e == 0 and np.asarray(np.sum(V * V, axis=-1) == 0, dtype=bool).any():
            raise ValueError(f"{fn}: a row of V is the zero vector and eps = 0: RMSNorm(0) is "
                             "undefined")
        return _rms_norm(b, V, e)


def depth_scores(w, V, eps=EPS, backend="float64", dps=50):
    """s_i = wᵀ RMSNorm(v_i): w [d], V [N, d] -> [N]."""
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, "depth_scores", w, V, eps)
        return _scores(b, w, V, e)


def depth_attention(w, V, eps=EPS, backend="float64", dps=50):
    """One-pass depth attention: returns (h = Σ α_i v_i [d], α = softmax(s) [N])."""
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, "depth_attention", w, V, eps)
        h, _, alpha = _partial(b, w, V, e)
        return h, alpha


def depth_attention_partial(w, V, eps=EPS, backend="float64", dps=50):
    """One group's partial result: (h_G [d], L_G = log Σ_{i∈G} e^{s_i}) for the candidates
    V [N, d] of the group (N ≥ 1)."""
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, "depth_attention_partial", w, V, eps)
        h, L, _ = _partial(b, w, V, e)
        return h, L


def merge_partials(hA, LA, hB, LB, backend="float64", dps=50):
    """Exact merge of two groups: L = log(e^{L_A} + e^{L_B}), h = e^{L_A−L} h_A + e^{L_B−L} h_B.
    hA, hB [d]; LA, LB finite reals.  Returns (h [d], L)."""
    fn = "merge_partials"
    b = get_backend(backend, dps)
    with b.context():
        hA, hB, LA, LB = conv(b, hA, hB, LA, LB)
        need_shape(fn, "hA", hA, (None,))
        need_shape(fn, "hB", hB, hA.shape)
        need_shape(fn, "LA", LA, ())
        need_shape(fn, "LB", LB, ())
        for nm, a in (("hA", hA), ("hB", hB), ("LA", LA), ("LB", LB)):
            need_finite(b, fn, nm, a)
        return _merge(b, hA, LA[()], hB, LB[()])


def _groups(fn, groups, N):
    if isinstance(groups, (int, np.integer)) and not isinstance(groups, bool):
        if not 1 <= groups < N:
            raise ValueError(f"{fn}: split point must lie in [1, {N - 1}] (two non-empty groups), "
                             f"got {groups}")
        inA = np.arange(N) < groups
    else:
        inA = np.asarray(groups)
        if inA.dtype != bool or inA.shape != (N,):
            raise ValueError(f"{fn}: groups must be a split point or a boolean mask of shape "
                             f"({N},), got {inA.dtype} of shape {inA.shape}")
        if inA.all() or not inA.any():
            raise ValueError(f"{fn}: both groups must be non-empty, got mask "
                             f"{inA.astype(int).tolist()}")
    return inA


def two_phase_depth_attention(w, V, groups, eps=EPS, backend="float64", dps=50):
    """Depth attention evaluated in two phases: partial results of group A and group B, then the
    exact merge.  ``groups``: a split point n (A = first n candidates) or a boolean mask [N]
    (True = group A); both groups non-empty.  Returns (h [d], L)."""
    fn = "two_phase_depth_attention"
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, fn, w, V, eps)
        inA = _groups(fn, groups, V.shape[0])
        hA, LA, _ = _partial(b, w, V[inA], e)
        hB, LB, _ = _partial(b, w, V[~inA], e)
        return _merge(b, hA, LA, hB, LB)


def delta_attnres_input(h_tilde, w, V, eps=EPS, backend="float64", dps=50):
    """Delta AttnRes (additive) sub-layer input ĥ = h̃ + Σ α_i v_i: h_tilde [d], w [d], V [N, d]."""
    fn = "delta_attnres_input"
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, fn, w, V, eps)
        h_tilde = _vec(b, fn, "h_tilde", h_tilde, V.shape[1])
        return h_tilde + _partial(b, w, V, e)[0]


def gated_attnres_input(h_tilde, w, V, g, eps=EPS, backend="float64", dps=50):
    """Scalar-gated variant ĥ = h̃ + g·r, r = Σ α_i v_i (g = 0 at initialization: the identity)."""
    fn = "gated_attnres_input"
    b = get_backend(backend, dps)
    with b.context():
        w, V, e = _inputs(b, fn, w, V, eps)
        h_tilde = _vec(b, fn, "h_tilde", h_tilde, V.shape[1])
        (g,) = conv(b, g)
        need_shape(fn, "g", g, ())
        need_finite(b, fn, "g", g)
        return h_tilde + g[()] * _partial(b, w, V, e)[0]


def block_differences(H, backend="float64", dps=50):
    """Delta Block candidates Δ_b = h̃_{τ_{b+1}} − h̃_{τ_b} from boundary states H [B+1, d]
    (or [B+1] scalars): returns [B, d] (or [B])."""
    fn = "block_differences"
    b = get_backend(backend, dps)
    with b.context():
        (H,) = conv(b, H)
        if H.ndim not in (1, 2) or H.shape[0] < 1:
            raise ValueError(f"{fn}: H must be [B+1] or [B+1, d] boundary states, got shape "
                             f"{tuple(H.shape)}")
        need_finite(b, fn, "H", H)
        return H[1:] - H[:-1]
