"""Φ_res and the FFN sublayer on the ``"arb"`` backend by a centred (mean-value) form: an
enclosure like plain ball arithmetic's, about 25 fewer digits lost per decoder layer on the
paper's shapes (Φ_res ~27 → ~1, the FFN sublayer ~3 → ~1).

Why: plain ball arithmetic bounds each SwiGLU block for the worst case over its input box, a
radius times ~60 per block on the paper's shapes (|W₃|·|W₁| row sums), 16 blocks per Φ_res:
about 27 of the ~35 digits a decoder layer loses (``benchmarks/README.md`` §6).  The map itself
is tame: the Jacobian of the whole Φ_res on a row has ∞-norm ≈ 4 there (measured).  Here the
blocks' cancellations are kept by multiplying float64 Jacobians, and every error of that float
computation is bounded rigorously.

Φ_res acts on each row of A separately; all rows are processed at once.  For the input balls
X = m ± r (exact midpoints m, radii r) and the units f_1 … f_U:

1. Point trajectory.  Unit u is evaluated in ball arithmetic at the exact point c_u (c_1 = m,
   then the midpoint of the previous unit's ball).  The exact trajectory z_u(m) of m lies in
   c_u ± ρ_u, ρ_1 = 0 and ρ_{u+1} = rad f_u(c_u) + |M_u| ρ_u + e_u‖ρ_u‖_∞ (mean value theorem
   on the box c_u ± ρ_u).
2. Spread of the input.  For z ∈ X, z_{u+1}(z) − z_{u+1}(m) = J̄_u ⋯ J̄_1 (z − m), each J̄_u an
   average of Jacobians of f_u over the box S_u = c_u ± (ρ_u + δ_u) with δ_u = |C_{u−1}| r +
   d_{u−1}‖r‖_∞ the spread bound so far.  M_u (float64, [rows, n, n]) approximates every
   Jacobian of f_u on S_u to e_u in the ∞-norm; C_u = fl(M_u C_{u−1}) and d_u bound the
   product: ‖J̄_u ⋯ J̄_1 − C_u‖_∞ ≤ d_u (:func:`_compose`).
3. Output: the last unit's ball widened by ρ_{U+1} + |C_U| r + d_U‖r‖_∞.

Float rounding is bounded by γ_k = k·u/(1 − k·u) (u = 2⁻⁵³): |fl(AB) − AB| ≤ γ_k |A||B| for
any summation order, so for BLAS too; every computed bound is multiplied by ``SAFE`` (it is
itself a float sum of a few dozen nonnegative terms) and increased by ``TINY`` (underflow).
The only transcendental, exp, is Arb's: σ comes as a ball.  Jacobians over S_u use σ' ≤ 1/4
and enclosures of u = W₁z + b₁ and v = W₂z + b₂ over S_u, so e_u covers both the float
rounding and the width of S_u (tiny: the radii are ~10^-dps).

* :func:`residual_units` -- post-LN residual SwiGLU units on balls: Φ_res
  (``PLGAOperator.prefill_A`` on arb) and the FFN sublayer (``decoder_layer`` on arb).
The decoder's FFN sublayer LN₂(x₁ + FFN(x₁)) is such a unit with one block; its Jacobians
are d×d per token (float64 products of the paper's 896×2389 weights: ~2 s per layer).
"""
from __future__ import annotations

import numpy as np
from flint import arb

from .arb import mid_rad
from .backend import Backend, to_float64
from .ops import layer_norm, linear
from .ops import residual_metric_learner as plain_residual_metric_learner

U = 2.0 ** -53
SAFE = 1.0 + 2.0 ** -40    # ≫ (1 + u)^k for the few dozen float operations of one bound
TINY = 2.0 ** -1000        # ≫ the absolute underflow error of those operations (2^-1074 each)
CHUNK = 1 << 24            # float64 entries of one Jacobian temporary (128 MB)
MAX_DIM = 4096             # inner dimensions k ≤ this keep γ_k (≤ 2^-41) below SAFE − 1


def _gamma(k: int) -> float:
    return k * U / (1 - k * U)


def _up(x):
    """A float bound computed in round-to-nearest, made an upper bound of its exact value."""
    return x * SAFE + TINY


def _norm_inf(M):
    """Upper bounds of the ∞-norms (largest absolute row sum) of M [R, p, q] -> [R]."""
    return _up(np.max(np.sum(np.abs(M), axis=-1), axis=-1))


def _compose(Ma, ea, Mb, eb):
    """(fl(Ma Mb), bound): if ‖A − Ma‖_∞ ≤ ea and ‖B − Mb‖_∞ ≤ eb (per row R), then
    ‖AB − fl(Ma Mb)‖_∞ ≤ ea(‖Mb‖ + eb) + ‖Ma‖ eb + γ_k‖Ma‖‖Mb‖ (k the inner dimension)."""
    na, nb = _norm_inf(Ma), _norm_inf(Mb)
    return Ma @ Mb, _up(ea * (nb + eb) + na * eb + _gamma(Ma.shape[-1]) * na * nb)


def _image_bound(M, e, v):
    """Upper bounds [R, n] of |J v'| for every J with ‖J − M‖_∞ ≤ e (per row) and |v'| ≤ v
    [R, n]: (1 + γ_k)|M| v (the float product, k its inner dimension) + e‖v‖_∞."""
    mv = (np.abs(M) @ v[:, :, None])[..., 0]
    return _up((1 + _gamma(v.shape[-1])) * mv + e[:, None] * np.max(v, axis=-1)[:, None])


def _fmul(a, ra, c, rc):
    """Float interval product: (a ± ra)(c ± rc) ⊆ m ± r."""
    m = a * c
    return m, _up(np.abs(a) * rc + ra * np.abs(c) + ra * rc + U * np.abs(m))


def _fadd(a, ra, c, rc):
    m = a + c
    return m, _up(ra + rc + U * np.abs(m))


def _rad_float(x):
    return float(x.rad())


_v_rad = np.frompyfunc(_rad_float, 1, 1)
_v_bits = np.frompyfunc(arb.rel_accuracy_bits, 1, 1)


def _mid_rad(x, sharp=False):
    """(f, r): float64 midpoints (nearest) and upper bounds of the radii about the exact
    midpoints, like :func:`pyref.arb.mid_rad` but faster.  ``sharp``: float() of an Arb
    radius is within half an ulp, so the next float up bounds it (2x faster); otherwise Arb's
    relative accuracy k gives rad < 2^-k·|mid| (``arb_rel_error_bits``: top bit of the radius
    minus top bit of the midpoint, plus one) with |mid| ≤ |f|(1 + u), up to 2x the radius
    (3x faster: for balls whose radius only enters an error term).  Non-finite balls, and
    zero midpoints without ``sharp``, take mid_rad."""
    a = np.asarray(x, dtype=object)
    f = to_float64(a)                          # an arb's midpoint, rounded to nearest
    if sharp:
        r = np.nextafter(np.asarray(_v_rad(a), dtype=np.float64).reshape(a.shape), np.inf)
        slow = ~np.isfinite(f) | ~np.isfinite(r)
    else:
        k = np.asarray(_v_bits(a), dtype=np.int64).reshape(a.shape)
        r = np.ldexp(np.abs(f) * (1 + 2 * U), -np.clip(k, -1000, 1100))
        slow = (f == 0) | ~np.isfinite(f)
    if np.any(slow):
        f[slow], r[slow] = mid_rad(a[slow])
    return f, r


def _floats(x, sharp=False):
    """(f, r): float64 midpoints and r ≥ |exact − f| for every exact value of the balls x
    (``sharp``: see :func:`_mid_rad`; the radii of the values whose floats enter only the
    Jacobians' error bounds need not be sharp)."""
    f, r = _mid_rad(x, sharp)
    return f, _up(r + U * np.abs(f))


def _affine_float(W, bias_f, hf, spread):
    """(ũ, Δu): ũ = fl(W hf + bias) per row and Δu ≥ |ũ − (W h' + bias)| for every h' with
    |h' − hf| ≤ spread (γ_{k+1} for the float product and bias; |W|·spread for the set)."""
    aW = np.abs(W)
    uf = hf @ W.T + bias_f
    return uf, _up(_gamma(W.shape[1] + 1) * (np.abs(hf) @ aW.T + np.abs(bias_f)) + spread @ aW.T)


def _jacobian(W1, W2, W3, af, cf):
    """fl(W₃(diag(α)W₁ + diag(c)W₂)) per row: [R, n_out, n].  Small blocks (Φ_res): one GEMM
    [α c] · T with T = [W₃ⱼW₁ⱼ; W₃ⱼW₂ⱼ] the outer products of W₃'s columns and W₁'s, W₂'s rows,
    [2·hid, n_out·n] (each entry a sum of 2·hid rounded products of rounded products: error
    ≤ γ_{2hid+1}(|α||W₃||W₁| + |c||W₃||W₂|)); large ones (the FFN): K = diag(α)W₁ + diag(c)W₂
    formed per row, then W₃K (error ≤ (γ_3 + γ_hid(1 + γ_2)) times the same), in chunks."""
    (hid, n), n_out, R = W1.shape, W3.shape[0], len(af)
    if 2 * hid * n_out * n <= CHUNK:
        T = np.concatenate([(W3.T[:, :, None] * W[:, None, :]).reshape(hid, n_out * n)
                            for W in (W1, W2)])
        return (np.concatenate([af, cf], axis=1) @ T).reshape(R, n_out, n)
    M = np.full((R, n_out, n), np.nan)          # a row left unwritten cannot pass for one
    step = max(1, CHUNK // (hid * n))
    K = np.empty((min(step, R), hid, n))
    tmp = np.empty_like(K)
    for i in range(0, R, step):                 # bounded memory, buffers reused (page faults)
        k = min(step, R - i)
        np.multiply(af[i:i + k, :, None], W1[None], out=K[:k])
        np.multiply(cf[i:i + k, :, None], W2[None], out=tmp[:k])
        np.add(K[:k], tmp[:k], out=K[:k])
        np.matmul(W3, K[:k], out=M[i:i + k])                     # [k, n_out, n]
    return M


def _block(b: Backend, g, h, hf, spread, fp):
    """One SwiGLU block at the point ``h`` (balls [R, n]; hf its float midpoints; every input of
    the set differs from hf by ≤ ``spread`` [R, n]) -> (output balls, M [R, n_out, n], e [R]).

    M = W₃(diag(α)W₁ + diag(c)W₂) with c = silu(u) = uσ(u), α = silu'(u)·v =
    σ(1 + u(1 − σ))·v, from float enclosures of u, v, σ over the set."""
    W1, W2, W3 = fp["W1"], fp["W2"], fp["W3"]
    u = linear(b, h, g.W1, g.b1)                                   # [R, hid] balls
    v = linear(b, h, g.W2, g.b2)
    sig = 1 / (1 + b.exp(-u))          # (faster than b.sigmoid's per-element Python call)
    out = linear(b, (u * sig) * v, g.W3, g.b3)                     # [R, n_out]
    uf, du = _affine_float(W1, fp["b1"], hf, spread)
    vf, dv = _affine_float(W2, fp["b2"], hf, spread)
    sf, ds = _floats(sig)                                          # σ at the point
    ds = _up(ds + (spread @ np.abs(W1).T) / 4)                     # σ' ≤ 1/4 on the set
    cf, dc = _fmul(uf, du, sf, ds)                                 # silu(u)
    one_m, d_one_m = _fadd(1.0, 0.0, -sf, ds)
    t, dt = _fmul(uf, du, one_m, d_one_m)
    t, dt = _fadd(1.0, 0.0, t, dt)
    sp, dsp = _fmul(sf, ds, t, dt)                                 # silu'(u)
    af, da = _fmul(sp, dsp, vf, dv)                                # α
    w1, w2, aW3 = np.abs(W1).sum(1), np.abs(W2).sum(1), np.abs(W3)
    hid = W1.shape[0]
    # one vector bounds the spread of α, c (Δ) and the rounding of either evaluation of
    # :func:`_jacobian` (per row, times |W₃||W₁| and |W₃||W₂|): in the K path |fl(K)| ≤
    # (1 + γ_2)(|α̃||W₁| + |c̃||W₂|), so γ_3 for K and γ_hid for W₃K; γ_{2hid+1} in the T path
    g = max(_gamma(3) + _gamma(hid) * (1 + _gamma(2)), _gamma(2 * hid + 1))
    rows = ((da + g * np.abs(af)) * w1 + (dc + g * np.abs(cf)) * w2) @ aW3.T
    M = _jacobian(W1, W2, W3, af, cf)
    return out, M, _up(np.max(rows, axis=-1))


def _ln_times(b: Backend, y, rho_y, gamma_f, eps, Q, eQ):
    """(fl(L̃Q), e): the Jacobian of LN(y) = γ ⊙ (y − μ)t + β, t = (var + ε)^-1/2, is
    L = t·diag(γ)(I − 11ᵀ/n − ŷŷᵀ/n) with ŷ = (y − μ)t, taken at enclosures of t and ŷ over
    the balls y widened by ``rho_y`` [R, n]; times Q [R, n, n] (‖true − Q‖_∞ ≤ eQ) it is
    formed in O(n²) per row as tγ ⊙ (Q − 1(1ᵀQ)/n − ŷ(ŷᵀQ)/n); e bounds ‖L·true − result‖_∞
    (the spread of t, ŷ; eQ; the rounding of the sums: γ_{n+4})."""
    n = y.shape[-1]
    yc = _widen(y, rho_y)
    yc = yc - np.sum(yc, axis=-1, keepdims=True) / n
    tt = 1 / b.sqrt(np.sum(yc * yc, axis=-1) / n + b.const(eps))   # [R]
    tf, dt = _floats(tt)
    yf, dy = _floats(yc * tt[:, None])
    colsum, proj = np.sum(Q, axis=1), np.einsum("ri,rij->rj", yf, Q)   # 1ᵀQ, ŷᵀQ [R, n]
    LQ = (tf[:, None] * gamma_f[None, :])[:, :, None] * (
        Q - colsum[:, None, :] / n - yf[:, :, None] * proj[:, None, :] / n)
    ga = float(np.max(np.abs(gamma_f)))
    ya, sa = np.abs(yf) + dy, np.sum(np.abs(yf) + dy, axis=-1)        # [R, n], [R]
    outer = np.max(np.abs(yf) * np.sum(dy, -1)[:, None] + dy * sa[:, None], axis=-1) / n
    shape = 2 + np.max(ya, axis=-1) * sa / n                          # ≥ ‖I − 11ᵀ/n − ŷŷᵀ/n‖
    eL = ga * (dt * shape + (np.abs(tf) + dt) * outer)                # ‖L − L̃‖ over the set
    nL, nQ = _up(np.abs(tf) * ga * shape), _norm_inf(Q)               # ‖L̃‖ ≤ nL
    rnd = 2 * _gamma(n + 4) * nL * nQ                                 # the float evaluation
    return LQ, _up(eL * (nQ + eQ) + nL * eQ + rnd)


def _unit(b: Backend, u, c, cf, spread, fp, eps):
    """One residual unit LN(c + g_k(…g_1(c))) at the exact point c (balls [R, n], float
    midpoints cf, set spread [R, n]; ``fp``: its float parameters, :func:`_float_params`)
    -> (output balls, M_u, e_u)."""
    n = c.shape[-1]
    h, hf, hs = c, cf, spread
    M = e = nM = None
    s_in = np.max(spread, axis=-1)                                 # ‖spread‖_∞ [R]
    for i, (g, fb) in enumerate(zip(u.blocks, fp["blocks"])):
        if i:                         # the point value of this block's input, and the set
            hf, dh = _floats(h)
            hs = _up(dh + (nM + e)[:, None] * s_in[:, None])
        h, Mg, eg = _block(b, g, h, hf, hs, fb)
        M, e = (Mg, eg) if M is None else _compose(Mg, eg, M, e)
        nM = _norm_inf(M)
    y = h + c
    out = layer_norm(b, y, u.gamma, u.beta, eps)
    # y over the set: the ball (the point value) widened by ‖I + J‖·‖spread‖
    rho_y = _up((1 + nM + e)[:, None] * np.broadcast_to(s_in[:, None], y.shape))
    Q = M + np.eye(n)
    eQ = _up(e + U * (1 + nM))
    Mu, eu = _ln_times(b, y, rho_y, fp["gamma"], eps, Q, eQ)
    return out, Mu, eu


def _is_exact1(v) -> bool:
    return not isinstance(v, arb) or (v.is_exact() and v == arb(float(v)))


_v_is_exact = np.frompyfunc(_is_exact1, 1, 1)


def _exact_floats(x):
    """x as float64 when every entry is an exact binary64 number (a float array, or exact
    balls at float values); None otherwise (then the float Jacobians would not be of the
    map the balls describe)."""
    a = np.asarray(x)
    if a.dtype != object:
        return a.astype(np.float64)
    return to_float64(a) if a.size == 0 or all(_v_is_exact(a).reshape(-1)) else None


def _float_params(units) -> list | None:
    """Per unit: the float64 gamma and per block W1, W2, W3, b1, b2 (what the Jacobians use;
    the other parameters enter only the ball evaluation); None if one is not exact."""
    out = []
    for u in units:
        blocks = [{k: _exact_floats(getattr(g, k)) for k in ("W1", "W2", "W3", "b1", "b2")}
                  for g in u.blocks]
        gamma = _exact_floats(u.gamma)
        if gamma is None or any(v is None for blk in blocks for v in blk.values()):
            return None
        out.append({"gamma": gamma, "blocks": blocks})
    return out


def _widen(x, r):
    """Balls x [R, n] with float radii r ≥ 0 [R, n] added."""
    return x + np.vectorize(lambda t: arb(0, t), otypes=[object])(r)


def residual_units(b: Backend, A, units, eps):
    """The post-LN residual units x <- LN_u(x + g_k(…g_1(x))) (``units``: sequence of
    :class:`~pyref.params.ResUnitParams`; Φ_res of :func:`pyref.ops.residual_metric_learner`,
    or one unit for the decoder's FFN sublayer) on the rows of the balls A [..., n], by the
    centred form of the module docstring: balls enclosing the result for every x in A's
    balls."""
    if not units:
        return A
    shape, n = A.shape, A.shape[-1]
    X = A.reshape(-1, n)
    _, r = _mid_rad(X, sharp=True)                                 # radii about the exact mids
    fps = _float_params(units)
    # plain balls where the centred form does not apply: non-finite inputs (reported by the
    # caller), parameters that are not exact binary64 numbers, dimensions beyond MAX_DIM
    if (fps is None or not np.all(np.isfinite(r))
            or max(n, *(g.W1.shape[0] for u in units for g in u.blocks)) > MAX_DIM):
        return plain_residual_metric_learner(b, A, units, eps)
    c, rho = b.point(X), np.zeros(X.shape)
    C, d = None, None
    for u, fp in zip(units, fps):
        dev = r if C is None else _image_bound(C, d, r)             # spread of the input
        cf = to_float64(c)
        spread = _up(rho + dev + U * np.abs(cf))                   # |cf − c| ≤ u|cf| (c exact)
        out, Mu, eu = _unit(b, u, c, cf, spread, fp, eps)
        rho = _up(_mid_rad(out, sharp=True)[1] + _image_bound(Mu, eu, rho))
        C, d = (Mu, eu) if C is None else _compose(Mu, eu, C, d)
        c = b.point(out)
    extra = _up(rho + _image_bound(C, d, r))
    return _widen(c, extra).reshape(shape)
