"""Helpers shared by the property modules of :mod:`crosscheck.properties.attention` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np
from hypothesis import strategies as st

import pyref
import pyref.attention
import pyref.params

from ...strategies import UNIT, matrix, random_mask
from .._arith import maxabs
from .._util import generic_plga_state_dict


@st.composite
def score_rows(draw, scales=(20.0,)):
    """(scores [n], allowed-key mask [n] with one key kept, a shift c): n ≤ 12 scores uniform in
    ±a for a magnitude a drawn from ``scales``."""
    n = draw(st.integers(1, 12))
    a = draw(st.sampled_from(scales))
    x = np.array(draw(st.lists(UNIT.map(lambda v: a * v), min_size=n, max_size=n)))
    keep = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    keep[draw(st.integers(0, n - 1))] = True
    c = draw(st.sampled_from([0.0, 1.0, -7.5, 100.0]))
    return x, keep, c


MODEST = st.sampled_from([1.0, 0.5, 2.0, 1e-3, 10.0])   # keeps scores far below the 1e9 mask


# ------------------------------------------------------------------------------ helpers
def _cfg(L: int, d: int) -> pyref.PLDRConfig:
    return pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=2, dff=6, a_dff=4, num_res_units=1,
                            num_glu_blocks=2, vocab_size=11, max_seq_len=16)


@contextlib.contextmanager
def _rope_off(off: bool):
    """Lean ``cfg.rope = noRope``: pyref's attention always rotates, so for one call the rotation
    function its multi-head sublayer looks up (``pyref.attention.rotate``) is the identity."""
    if not off:
        yield
        return
    with mock.patch.object(pyref.attention, "rotate", lambda b, x, positions, base: x):
        yield


def _mha(backend, dps, cfg, p, X, mask, mode, G=None, no_rope=False):
    """pyref's multi-head sublayer on X [1, S, d]: returns (output [1, S, d], kv [K̂, V])."""
    b = pyref.get_backend(backend, dps)
    with b.context(), _rope_off(no_rope):
        pb = {k: b.asarray(v) for k, v in p.items()}
        op = {"constant": lambda: pyref.attention.ConstantOperator(b.asarray(G)),
              "sdpa": pyref.attention.IdentityOperator}[mode]()
        out, _ded, kv, _gc = pyref.attention.multi_head_attention(
            b, cfg, pyref.params.attention_params(pb, "", op), b.asarray(X), mask)
    return out, kv


def _queries_matter(mask) -> bool:
    """Non-vacuity: some query row attends ≥ 2 keys. A row with one allowed key has weight 1 on it
    whatever the queries and the operator; a fully masked row (additive mask) attends all T keys."""
    m = np.asarray(mask).reshape(-1, np.shape(mask)[-1])
    allowed = (m == 0).sum(axis=-1)
    return bool(np.any(allowed >= 2) or (m.shape[-1] >= 2 and np.any(allowed == 0)))


def _model_queries_matter(toks) -> bool:
    return _queries_matter(pyref.plga.causal_pad_mask(np.array([toks]))[0, 0])


def _tokens(lo=1, hi=6, pad=True):
    return st.lists(st.integers(0 if pad else 1, 10), min_size=lo, max_size=hi)


def _fwd_dev(o1, o2) -> float:
    """max deviation of decoder output (hidden) and logits between two forward passes."""
    return max(maxabs(o1.hidden - o2.hidden), maxabs(o1.logits - o2.logits))


# ================================================================ SDPA inclusion (multi-head)
@st.composite
def mha_inputs(draw, generic_G=False):
    d = draw(st.sampled_from([4, 8]))
    S = draw(st.integers(2, 6))        # S = 1: one key, weight 1 whatever the queries/operator
    X = draw(matrix(S, d, magnitude=MODEST))[None]
    seed = draw(st.integers(0, 2 ** 16))
    wscale = draw(MODEST)
    rng = np.random.default_rng(seed)
    p = {}
    for n in ("wq", "wk", "wv", "dense"):
        p[n + ".weight"] = rng.uniform(-1, 1, (d, d)) * wscale
        p[n + ".bias"] = rng.uniform(-1, 1, d) * wscale * draw(st.sampled_from([0.0, 1.0]))
    mask = random_mask(draw, S, S)[None, None]
    return d, X, p, mask, rng


@st.composite
def model_case(draw, pad=True, layers=(1, 2)):
    L = draw(st.sampled_from(list(layers)))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(_tokens(2, 6, pad))     # length 1: attention weight 1 whatever the operator
    return L, d, seed, toks


def _a_zero_sd(cfg, seed, Gstar):
    """A generic PLDR state dict with a = 0 and b_a = G*_l in every layer: G_LM ≡ G*_l."""
    sd = generic_plga_state_dict(cfg, seed)
    for li in range(cfg.num_layers):
        m = f"decoder.dec_layers.{li}.mha1.plgatt_layer."
        sd[m + "alst"] = np.zeros_like(sd[m + "alst"])
        sd[m + "balst"] = Gstar[li]
    return sd


def _absorb(wq, bq, G):
    """Lean ``absorbParams`` in pyref's layout: ``wq_h ↦ G_hᵀ wq_h``, ``bq_h ↦ bq_h G_h`` (row
    block h of the torch weight is W_hᵀ). Works on float64 or mpf arrays (call inside the mp
    context)."""
    H, dk, _ = G.shape
    wq2, bq2 = wq.copy(), bq.copy()
    for h in range(H):
        s = slice(h * dk, (h + 1) * dk)
        wq2[s] = G[h].T @ wq[s]
        bq2[s] = bq[s] @ G[h]
    return wq2, bq2
