"""Training objective (spec C): masked block cross-entropy, sequential NLL (one forward
call per prefix), the matrix exponential and the DAG regularizer.

    ℒ_CE = Σ_{b,t} m_{bt} CE(logits_{bt}, y_{bt}) / Σ m_{bt},  m = [y ≠ 0]
    DL(M) = mean_{l,b,h} | log( tr expm(M ⊙ M) / d_k ) |

The authors compute DL in float32 (``torch.linalg.matrix_exp``); here it is computed in
the chosen backend (``backend="float32"`` reproduces single precision).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from .arb import as_arb_mat, entries_array
from .backend import Backend, get_backend
from .inputs import check_tokens


@dataclass
class LossResult:
    """``loss``: mean NLL over non-pad targets (a backend scalar); ``token_logprobs``
    [B, S-1]: log p(target) per position (backend array); ``mask`` [B, S-1] bool (non-pad
    targets)."""

    loss: object
    token_logprobs: np.ndarray
    mask: np.ndarray


def _log_softmax(b: Backend, x):
    m = np.max(x, axis=-1, keepdims=True)
    z = x - b.point(m)   # arb: an exact shift (adds no radius); the identity elsewhere
    return z - b.log(np.sum(b.exp(z), axis=-1, keepdims=True))


def _masked_mean_nll(b, lp, mask):
    n = int(mask.sum())
    if n == 0:
        raise ValueError("loss: every target is the pad id 0; the masked mean is undefined")
    tot = b.const(0)
    for v in lp[mask]:
        tot = tot + v
    return -tot / n


def masked_cross_entropy(logits, targets, pad_id=0, backend="float64", dps=50) -> LossResult:
    """The authors' ``masked_loss_function`` from logits [B, S, V] and targets [B, S]:
    mean over targets ≠ pad_id of -log softmax(logits)[target]."""
    b = get_backend(backend, dps)
    t = np.asarray(targets)
    if t.dtype == object or t.dtype.kind not in "iu":
        raise ValueError(f"masked_cross_entropy: targets must be integers, got dtype {t.dtype}")
    with b.context():
        x = b.asarray(logits)
        if x.ndim != 3 or x.shape[:2] != t.shape:
            raise ValueError(f"masked_cross_entropy: logits {x.shape} must be [B, S, V] with "
                             f"targets [B, S] = {t.shape}")
        if t.size and (t.min() < 0 or t.max() >= x.shape[-1]):
            raise ValueError(f"masked_cross_entropy: target ids must lie in [0, {x.shape[-1]})")
        lsm = _log_softmax(b, x)
        lp = np.take_along_axis(lsm, t[..., None].astype(np.int64), axis=-1)[..., 0]
        mask = t != pad_id
        return LossResult(_masked_mean_nll(b, lp, mask), lp, mask)


def _check_seq(model, tokens):
    t = check_tokens(tokens, model.config.vocab_size)
    if t.shape[1] < 2:
        raise ValueError(f"loss: need at least 2 tokens per sequence, got shape {t.shape}")
    return t


def block_cross_entropy(model, tokens, backend="float64", dps=50) -> LossResult:
    """Block (training) loss: one forward call on ``tokens[:, :-1]`` (causal+pad mask, no
    caches); row t scores ``tokens[:, t+1]``.  Because D = Q̂ᵀQ̂ couples all supplied rows,
    this is not equal to :func:`sequential_nll` in general."""
    t = _check_seq(model, tokens)
    out = model.forward(t[:, :-1], backend=backend, dps=dps)
    return masked_cross_entropy(out.logits, t[:, 1:], backend=backend, dps=dps)


def sequential_nll(model, tokens, backend="float64", dps=50) -> LossResult:
    """Sequential (online) NLL: for each t, one uncached forward call on the prefix
    ``tokens[:, :t+1]``, reading the final row's log-probability of ``tokens[:, t+1]``."""
    b = get_backend(backend, dps)
    t = _check_seq(model, tokens)
    B, S = t.shape
    rows = []
    for i in range(S - 1):
        out = model.forward(t[:, :i + 1], backend=b)
        with b.context():
            lsm = _log_softmax(b, out.logits[:, -1, :])                       # [B,V]
            rows.append(lsm[np.arange(B), t[:, i + 1]])
    with b.context():
        lp = np.stack(rows, axis=1)                                            # [B,S-1]
        mask = t[:, 1:] != 0
        return LossResult(_masked_mean_nll(b, lp, mask), lp, mask)


# ------------------------------------------------------------------ matrix exponential
def _expm_float(M, dtype):
    """Scaling and squaring with a degree-18 Taylor polynomial (‖X‖_∞ ≤ 1/2 after
    scaling: truncation error ≤ 0.5^19/19! ≈ 2e-23, below float64 round-off)."""
    M = np.asarray(M, dtype=dtype)
    n = M.shape[-1]
    norm = float(np.max(np.sum(np.abs(M), axis=-1))) if M.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    X = M / dtype(2.0 ** s)
    eye = np.eye(n, dtype=dtype)
    E = eye.copy()
    for k in range(18, 0, -1):  # Horner: I + X/1 (I + X/2 (… (I + X/18)))
        E = eye + (X @ E) / dtype(k)
    for _ in range(s):
        E = E @ E
    return E


def _expm(b: Backend, M):
    """expm of one square backend matrix (arb: ``arb_mat.exp``, a rigorous enclosure)."""
    if b.is_arb:
        n = M.shape[0]
        return entries_array(as_arb_mat(M).exp()).reshape(n, n)
    if b.is_mp:
        R = mpmath.expm(mpmath.matrix(M.tolist()))
        n = M.shape[0]
        out = np.empty((n, n), dtype=object)
        for i in range(n):
            for j in range(n):
                out[i, j] = R[i, j]
        return out
    return _expm_float(M, b.dtype)


def expm(M, backend="float64", dps=50):
    """Matrix exponential of M [..., n, n] at the backend's precision (mpmath.expm for
    "mp", Arb's ``arb_mat.exp`` for "arb"; scaling-and-squaring Taylor for float64/float32)."""
    b = get_backend(backend, dps)
    with b.context():
        M = b.asarray(M)
        if M.ndim < 2 or M.shape[-1] != M.shape[-2]:
            raise ValueError(f"expm: expected square matrices [..., n, n], got shape {M.shape}")
        if not np.all(b.isfinite(M)):
            raise ValueError("expm: input contains non-finite values")
        flat = M.reshape(-1, M.shape[-1], M.shape[-1])
        out = np.stack([_expm(b, m) for m in flat]) if flat.shape[0] else b.zeros(flat.shape)
        return out.reshape(M.shape)


def dag_terms(M, backend="float64", dps=50):
    """Per-matrix values | log( tr expm(M⊙M) / d_k ) |, shape M.shape[:-2]."""
    b = get_backend(backend, dps)
    with b.context():
        M = b.asarray(M)
        E = expm(M * M, backend=b)
        n = M.shape[-1]
        tr = np.trace(E, axis1=-2, axis2=-1)
        return b.abs(b.log(tr / n))


def dag_loss(M, backend="float64", dps=50):
    """DL(M) = mean over all leading axes (layer, batch, head) of
    |log(tr expm(M⊙M)/d_k)| for M [..., d_k, d_k] (≥ 0; the argument of log is ≥ 1)."""
    b = get_backend(backend, dps)
    with b.context():
        t = np.asarray(dag_terms(M, backend=b)).reshape(-1)
        tot = b.const(0)
        for v in t:
            tot = tot + v
        return tot / len(t)


def dag_regularizer(deductive, coeffs=(0.0, 0.0, 0.0), backend="float64", dps=50):
    """c_A·DL(A_LM) + c_P·DL(A_P) + c_G·DL(G_LM) over the per-layer deductive outputs of a
    forward pass (stacked [L, B, H, d_k, d_k]).  Only terms with c > 0 are evaluated (all
    c = 0 gives 0 -- the authors' code raises NameError there)."""
    b = get_backend(backend, dps)
    if len(coeffs) != 3:
        raise ValueError(f"dag_regularizer: coeffs must be (c_A, c_P, c_G), got {coeffs!r}")
    with b.context():
        total = b.const(0)
        for c, key in zip(coeffs, ("A_LM", "A_P", "G_LM")):
            if float(c) < 0:
                raise ValueError(f"dag_regularizer: coefficient for {key} must be ≥ 0, got {c}")
            if float(c) == 0:
                continue
            mats = [d[key] for d in deductive]
            if any(m is None for m in mats):
                raise ValueError(f"dag_regularizer: {key} is not available in these deductive "
                                 "outputs")
            total = total + b.const(c) * dag_loss(np.stack([b.asarray(m) for m in mats]), backend=b)
        return total
