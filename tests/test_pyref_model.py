"""PLDRModel: forward against an independent scalar-loop restatement of the spec, backend
agreement, SDPA inclusion at G = I, cache semantics, generation.

Tolerances:
* mp (50 digits) vs the scalar-loop reference at 50 digits: both round every operation
  at 50 digits; the model has < 1e5 operations per output and every quantity is O(1-100),
  so differences stay below 1e-40 (checked: ~1e-48).
* float64 vs mp: float64 round-off is 1.1e-16 per operation; the logits of these tiny
  models go through ~10 LayerNorms/softmaxes with condition numbers O(10-100), giving
  errors ~1e-14; 1e-12 leaves a 100x margin (the acceptance criterion is ~1e-12).
* float32 vs mp: 6e-8 per operation, same amplification -> 1e-4.
"""
import mpmath
import numpy as np
import pytest

import pyref
from pyref.backend import to_float64

CFG = pyref.PLDRConfig(num_layers=2, d_model=8, num_heads=2, dff=12, a_dff=6, num_res_units=2,
                       num_glu_blocks=2, vocab_size=13, max_seq_len=12)
TINY = pyref.PLDRConfig(num_layers=1, d_model=4, num_heads=2, dff=5, a_dff=3, num_res_units=2,
                        num_glu_blocks=2, vocab_size=7, max_seq_len=8, rope_base=100.0)


def mpmax(a, b):
    with mpmath.workdps(60):
        a = np.asarray(a, dtype=object).reshape(-1)
        b = np.asarray(b, dtype=object).reshape(-1)
        assert a.shape == b.shape
        return max(abs(mpmath.mpf(x) - mpmath.mpf(y)) for x, y in zip(a, b))


def perturbed(cfg, seed, scale=0.3, **kw):
    """A random model whose zero-initialised tensors (biases, b, b_a, LN β) and unit LN γ
    are perturbed, so that every parameter influences the output."""
    m = pyref.PLDRModel.random(cfg, seed=seed, **kw)
    rng = np.random.default_rng(seed + 1000)
    sd = m.state_dict()
    for k, v in sd.items():
        sd[k] = v + scale * rng.standard_normal(v.shape)
        if k.endswith("pwlst"):
            sd[k] = v + 0.5 * rng.standard_normal(v.shape)
    return type(m).from_state_dict(sd, cfg)


# ------------------------------------------------------- independent scalar-loop reference
def _naive_head_operator(nv, m, h, q):
    """G_LM of head h from the rotated queries q (rows t): D, LN_A, Φ_res, A_LM, A_P, G."""
    P, cfg, S, dk, sig = nv.P, nv.cfg, len(q), nv.cfg.d_k, nv.sig
    D = [[sum(q[t][i] * q[t][j] for t in range(S)) for j in range(dk)] for i in range(dk)]
    A = [nv.ln(r, P[m + "layernorm1.weight"], P[m + "layernorm1.bias"]) for r in D]
    for u in range(cfg.num_res_units):
        r0 = m + f"reslayerAs.{u}."
        newA = []
        for row in A:
            y = row
            for g in range(cfg.num_glu_blocks):
                y = nv.glu(r0 + f"denseAs.{g}.", y)
            newA.append(nv.ln([a + b for a, b in zip(row, y)], P[r0 + "layernormA.weight"],
                              P[r0 + "layernormA.bias"]))
        A = newA
    W, b = P[m + "plgatt_layer.Wlst"][h], P[m + "plgatt_layer.blst"][h]
    Pw, a_, ba = (P[m + "plgatt_layer.pwlst"][h], P[m + "plgatt_layer.alst"][h],
                  P[m + "plgatt_layer.balst"][h])
    ALM = [[0] * dk for _ in range(dk)]
    for i in range(dk):
        for j in range(dk):
            z = sum(W[i][kk] * A[kk][j] for kk in range(dk)) + b[i][j]
            ALM[i][j] = z * z * sig(z) + nv.eps_m
    AP = [[mpmath.power(ALM[i][j], Pw[i][j]) for j in range(dk)] for i in range(dk)]
    return [[sum(a_[i][kk] * AP[kk][j] for kk in range(dk)) + ba[i][j] for j in range(dk)]
            for i in range(dk)]


class _Naive:
    """Spec A restated with Python lists of mpf and explicit loops (batch 1); call inside
    ``mpmath.workdps``."""

    def __init__(self, sd, cfg):
        def f(a):
            if np.ndim(a) == 2:
                return [[mpmath.mpf(float(x)) for x in r] for r in a]
            if np.ndim(a) == 1:
                return [mpmath.mpf(float(x)) for x in a]
            return [f(x) for x in a]

        self.P, self.cfg = {k: f(v) for k, v in sd.items()}, cfg
        self.eps_ln, self.eps_m = mpmath.mpf("1e-6"), mpmath.mpf(repr(cfg.metric_eps))

    @staticmethod
    def sig(u):
        return 1 / (1 + mpmath.exp(-u))

    @staticmethod
    def lin(W, b, x):
        return [sum(W[i][j] * x[j] for j in range(len(x))) + b[i] for i in range(len(W))]

    def ln(self, r, g, b):
        mu = sum(r) / len(r)
        var = sum((x - mu) ** 2 for x in r) / len(r)
        return [g[i] * (r[i] - mu) / mpmath.sqrt(var + self.eps_ln) + b[i] for i in range(len(r))]

    def glu(self, pre, x):
        P = self.P
        h1 = self.lin(P[pre + "gluw1.weight"], P[pre + "gluw1.bias"], x)
        h2 = self.lin(P[pre + "gluw2.weight"], P[pre + "gluw2.bias"], x)
        return self.lin(P[pre + "gluw3.weight"], P[pre + "gluw3.bias"],
                        [u * self.sig(u) * v for u, v in zip(h1, h2)])

    def rot(self, x, p):
        dk, out = self.cfg.d_k, list(x)
        base = mpmath.mpf(repr(self.cfg.rope_base))
        for j in range(dk // 2):
            th = p * base ** (mpmath.mpf(-2 * j) / dk)
            c, s = mpmath.cos(th), mpmath.sin(th)
            out[2 * j] = x[2 * j] * c - x[2 * j + 1] * s
            out[2 * j + 1] = x[2 * j + 1] * c + x[2 * j] * s
        return out

    def attention(self, li, X, toks):
        P, S, d, H, dk = self.P, len(toks), self.cfg.d_model, self.cfg.num_heads, self.cfg.d_k
        m = f"decoder.dec_layers.{li}.mha1."
        Q, K, V = ([self.lin(P[m + w + ".weight"], P[m + w + ".bias"], x) for x in X]
                   for w in ("wq", "wk", "wv"))
        out = [[None] * d for _ in range(S)]
        for h in range(H):
            sl = slice(h * dk, (h + 1) * dk)
            q = [self.rot(Q[t][sl], t) for t in range(S)]
            k = [self.rot(K[t][sl], t) for t in range(S)]
            v = [V[t][sl] for t in range(S)]
            G = _naive_head_operator(self, m, h, q)
            for t in range(S):
                e = []
                for p in range(S):
                    val = sum(q[t][i] * G[i][j] * k[p][j] for i in range(dk) for j in range(dk))
                    val = val / mpmath.sqrt(dk)
                    if p > t or toks[p] == 0:
                        val = val + mpmath.mpf(-10**9)
                    e.append(val)
                mx = max(e)
                w = [mpmath.exp(x - mx) for x in e]
                z = sum(w)
                for j in range(dk):
                    out[t][h * dk + j] = sum(w[p] / z * v[p][j] for p in range(S))
        return [self.lin(P[m + "dense.weight"], P[m + "dense.bias"], o) for o in out]

    def logits(self, toks):
        P, d = self.P, self.cfg.d_model
        X = [self.ln([mpmath.sqrt(d) * e for e in P["decoder.embedding.weight"][t]],
                     P["decoder.layernorm1.weight"], P["decoder.layernorm1.bias"]) for t in toks]
        for li in range(self.cfg.num_layers):
            Y = self.attention(li, X, toks)
            pre = f"decoder.dec_layers.{li}."
            X1 = [self.ln([a + b for a, b in zip(x, y)], P[pre + "layernorm1.weight"],
                          P[pre + "layernorm1.bias"]) for x, y in zip(X, Y)]
            X = [self.ln([a + b for a, b in zip(x1, self.glu(pre + "ffn.", x1))],
                         P[pre + "layernorm2.weight"], P[pre + "layernorm2.bias"]) for x1 in X1]
        return [self.lin(P["final_layer.weight"], P["final_layer.bias"], x) for x in X]


def naive_logits(sd, cfg, toks, dps=50):
    """Spec A restated with Python lists of mpf and explicit loops (batch 1)."""
    with mpmath.workdps(dps):
        return _Naive(sd, cfg).logits(toks)


def test_forward_matches_scalar_loop_reference_mp():
    m = perturbed(TINY, seed=5)
    toks = [3, 1, 6, 0, 2]  # includes a pad token (id 0) to exercise the pad mask
    out = m.forward([toks], backend="mp", dps=50)
    ref = naive_logits(m.state_dict(), TINY, toks, dps=50)
    assert out.logits.shape == (1, 5, TINY.vocab_size)
    assert mpmax(out.logits[0], ref) < mpmath.mpf("1e-40")
    # every output entry is an mpf (no Python/numpy float leaked into the object arrays)
    for arr in [out.logits, out.hidden] + [v for d in out.deductive for v in d.values()] + \
            [v for kv in out.kvcache for v in kv]:
        assert arr.dtype == object and all(type(v) is mpmath.mpf for v in arr.reshape(-1))


def test_backends_agree_and_mp_is_really_high_precision():
    m = perturbed(CFG, seed=1)
    toks = np.array([[3, 5, 7, 2, 9, 1], [4, 4, 0, 12, 1, 2]])
    o64 = m.forward(toks)
    omp = m.forward(toks, backend="mp", dps=50)
    omp2 = m.forward(toks, backend="mp", dps=70)
    assert all(isinstance(v, mpmath.mpf) for v in omp.logits.reshape(-1)[:20])
    # mp at 50 digits agrees with mp at 70 digits far beyond float64 (1e-40) ...
    assert mpmax(omp.logits, omp2.logits) < mpmath.mpf("1e-40")
    # ... agrees with float64 to float64 round-off ...
    d64 = np.max(np.abs(to_float64(omp.logits) - o64.logits))
    assert d64 < 1e-12
    # ... and differs from it by more than 1e-16 somewhere (no silent float64 fallback)
    assert mpmax(omp.logits, o64.logits) > mpmath.mpf("1e-16")
    for key in ("A", "A_LM", "A_P", "G_LM", "E"):
        a, b = omp.deductive[1][key], o64.deductive[1][key]
        assert a.shape == b.shape == ((2, 2, 4, 4) if key != "E" else (2, 2, 6, 6))
        rel = np.max(np.abs(to_float64(a) - b)) / max(1.0, np.max(np.abs(b)))
        assert rel < 1e-12, key
    o32 = m.forward(toks, backend="float32")
    assert o32.logits.dtype == np.float32 and o32.deductive[0]["G_LM"].dtype == np.float32
    assert np.max(np.abs(o32.logits - o64.logits)) < 1e-4


def test_deductive_invariants():
    m = perturbed(CFG, seed=2)
    out = m.forward([[3, 5, 7, 2]], backend="mp", dps=30)
    for d in out.deductive:
        with mpmath.workdps(30):
            assert all(v >= mpmath.mpf("1e-9") for v in d["A_LM"].reshape(-1))  # A_LM ≥ ε
    # A is row-normalised by the last LayerNorm of Φ_res: rows of (A - β)/γ have mean 0
    sd = m.state_dict()
    g = sd["decoder.dec_layers.0.mha1.reslayerAs.1.layernormA.weight"]
    bta = sd["decoder.dec_layers.0.mha1.reslayerAs.1.layernormA.bias"]
    A = to_float64(out.deductive[0]["A"])
    assert np.allclose(((A - bta) / g).mean(axis=-1), 0, atol=1e-13)


def test_sdpa_inclusion_at_identity_1e40():
    """PLGA with every operator pinned to I equals the SDPA model to 1e-40 at 50 digits."""
    m = perturbed(CFG, seed=3)
    sd = m.state_dict()
    for li in range(CFG.num_layers):  # a = 0, b_a = I  =>  G_LM = 0·A_P + I = I exactly
        op = f"decoder.dec_layers.{li}.mha1.plgatt_layer."
        sd[op + "alst"] = np.zeros_like(sd[op + "alst"])
        sd[op + "balst"] = np.broadcast_to(np.eye(4), (2, 4, 4)).copy()
    pinned = pyref.PLDRModel.from_state_dict(sd, CFG)
    sdpa = pinned.to_sdpa()
    toks = [[3, 5, 7, 2, 9]]
    o_p = pinned.forward(toks, backend="mp", dps=50)
    o_s = sdpa.forward(toks, backend="mp", dps=50)
    assert mpmax(o_p.logits, o_s.logits) < mpmath.mpf("1e-40")
    # the same through a G-cache pinned to I, and through the constant-operator model
    eye = np.broadcast_to(np.eye(4), (1, 2, 4, 4))
    o_g = m.forward(toks, backend="mp", dps=50, gcache=[[eye, eye]] * CFG.num_layers)
    assert mpmax(o_g.logits, o_s.logits) < mpmath.mpf("1e-40")
    m_c = m.to_constant_operator(G=[np.eye(4)[None].repeat(2, 0)] * 2)
    o_c = m_c.forward(toks, backend="mp", dps=50)
    assert mpmax(o_c.logits, o_s.logits) < mpmath.mpf("1e-40")
    assert o_s.gcache is None and len(o_s.kvcache[0]) == 2


def _frozen_operator_model(seed):
    """A model whose operator cannot change with the input: a = 0 so G = b_a (random)."""
    m = perturbed(CFG, seed=seed)
    sd = m.state_dict()
    for li in range(CFG.num_layers):
        sd[f"decoder.dec_layers.{li}.mha1.plgatt_layer.alst"] *= 0
    return pyref.PLDRModel.from_state_dict(sd, CFG)


@pytest.mark.parametrize("backend,tol", [("float64", 1e-12), ("mp", 1e-40)])
def test_cached_greedy_equals_uncached_when_operator_fixed(backend, tol):
    m = _frozen_operator_model(4)
    prompt = [[3, 5, 7], [2, 11, 4]]
    kw = dict(backend=backend, dps=40)
    g_c = m.generate(prompt, 5, kvcache=True, gcache=True, **kw)
    g_u = m.generate(prompt, 5, kvcache=False, gcache=False, **kw)
    g_k = m.generate(prompt, 5, kvcache=True, gcache=False, **kw)
    assert np.array_equal(g_c.tokens, g_u.tokens) and np.array_equal(g_k.tokens, g_u.tokens)
    assert g_c.tokens.shape == (2, 8) and g_c.new_tokens.shape == (2, 5)
    for a, b, c in zip(g_c.step_logits, g_u.step_logits, g_k.step_logits):
        if backend == "mp":
            assert mpmax(a, b) < mpmath.mpf(tol) and mpmax(c, b) < mpmath.mpf(tol)
        else:
            assert np.max(np.abs(a - b)) < tol and np.max(np.abs(c - b)) < tol


def test_constant_model_cached_equals_uncached():
    rng = np.random.default_rng(0)
    G = [rng.uniform(0, 1, (2, 4, 4)) for _ in range(2)]
    cm = pyref.ConstantGModel.random(CFG, seed=6, G=G)
    a = cm.generate([[3, 5, 7]], 4, kvcache=True)
    b = cm.generate([[3, 5, 7]], 4, kvcache=False)
    assert np.array_equal(a.tokens, b.tokens)
    assert max(np.max(np.abs(x - y)) for x, y in zip(a.step_logits, b.step_logits)) < 1e-12


def test_cache_semantics():
    m = perturbed(CFG, seed=7)
    toks = np.array([[3, 5, 7, 2]])
    pre = m.forward(toks[:, :3])
    step = m.forward(toks[:, 3:], kvcache=pre.kvcache)
    for li in range(CFG.num_layers):
        K, V, A = step.kvcache[li]
        assert K.shape == V.shape == (1, 4, 2, 4)
        assert np.array_equal(A, pre.kvcache[li][2])  # A is frozen at the prefill value
        assert np.array_equal(K[:, :3], pre.kvcache[li][0])  # rotated keys appended
        # without a G-cache the operator is recomputed from the frozen A: same G as prefill
        assert np.allclose(step.deductive[li]["G_LM"], pre.deductive[li]["G_LM"],
                           atol=1e-15, rtol=0)
        assert step.deductive[li]["E"].shape == (1, 2, 1, 4)
    # with a G-cache the returned cache is the given one, unchanged
    st2 = m.forward(toks[:, 3:], kvcache=pre.kvcache, gcache=pre.gcache)
    for li in range(CFG.num_layers):
        assert np.array_equal(st2.gcache[li][1], pre.gcache[li][1])
        assert st2.deductive[li]["A_P"] is None
    # an uncached call on the full sequence recomputes A from all 4 rows: G changes
    full = m.forward(toks)
    assert np.max(np.abs(full.deductive[0]["G_LM"] - pre.deductive[0]["G_LM"])) > 1e-6
    # the last key rotation in the cached call used position 3 (= cached length)
    assert np.allclose(step.kvcache[0][0], full.kvcache[0][0], atol=1e-14, rtol=0)


def test_to_constant_operator_transplant():
    m = perturbed(CFG, seed=8)
    cm = m.to_constant_operator(tokens=[[2]])
    G = m.forward([[2]]).deductive
    for li in range(2):
        assert np.array_equal(cm.G[li], G[li]["G_LM"][0])
    assert len(cm.state_dict()) == len(pyref.state_dict_keys(CFG, "constant"))
    # the transplanted model reproduces the PLGA model on the single token
    assert np.allclose(cm.forward([[2]]).logits, m.forward([[2]]).logits, atol=1e-13, rtol=0)


def test_random_init_follows_spec():
    """``PLDRModel.random`` draws the spec's initializers (A.5; the generated mutation run scores
    initialization here, not by the properties). Per tensor kind, with ≥ 1000 samples each:
    Xavier-uniform weights lie in ±a, a = √(6/(fan_in + fan_out)), and reach beyond 0.95·a
    (P(all n < 0.95a) = 0.975^n < 1e-11 for n ≥ 1000); the KVG W_V/b_V lie in ±1/√d and reach
    0.95/√d; the operator tensors W, P, a have standard deviation σ = √(2/(d_k² + H·d_k)) (sample
    std within 10%: its relative standard error is 1/√(2n) ≤ 2.3% for n ≥ 1000, so > 4 sigma);
    b, b_a, every bias and β are 0, γ is 1; the embedding is standard normal (std within 10%)."""
    cfg = pyref.PLDRConfig(num_layers=2, d_model=64, num_heads=4, dff=48, a_dff=24,
                           num_res_units=1, num_glu_blocks=1, vocab_size=40, max_seq_len=8)
    sd = pyref.PLDRModel.random(cfg, seed=5).state_dict()
    H, dk, d = cfg.num_heads, cfg.d_k, cfg.d_model
    op = np.concatenate([v.ravel() for k, v in sd.items()
                         if k.rsplit(".", 1)[-1] in ("Wlst", "pwlst", "alst")])
    assert op.size >= 1000 and abs(op.std() / np.sqrt(2.0 / (dk * dk + H * dk)) - 1) < 0.1
    for k, v in sd.items():
        leaf = k.rsplit(".", 1)[-1]
        if ".wv." in k:
            assert v.size < 1000 or 0.95 / np.sqrt(d) < np.max(np.abs(v)) <= 1 / np.sqrt(d), k
        elif "layernorm" in k:
            assert np.all(v == (1.0 if leaf == "weight" else 0.0)), k
        elif leaf in ("blst", "balst", "bias"):
            assert np.all(v == 0), k
        elif k == "decoder.embedding.weight":
            assert abs(v.std() - 1) < 0.1, k
        elif leaf == "weight":
            fan_out, fan_in = v.shape
            a = np.sqrt(6.0 / (fan_in + fan_out))
            assert np.max(np.abs(v)) <= a, k
            assert v.size < 1000 or np.max(np.abs(v)) > 0.95 * a, k
    wv = sd["decoder.dec_layers.0.mha1.wv.weight"]
    assert wv.size >= 1000 and np.max(np.abs(wv)) > 0.95 / np.sqrt(d)
