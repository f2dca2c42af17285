"""pyref's full models against a decoder assembled from the independent evaluator
(:mod:`crosscheck.spec_eval.model`, :mod:`crosscheck.spec_eval.decode`):
``model_forward_matches_spec``, ``model_generate_matches_spec``,
``model_generate_eos_matches_spec``, ``variant_models_match_spec``.

Small random models with every parameter generic (nonzero biases, LayerNorm gains ≠ 1, O(1)
operator weights W, b, P, a, b_a without zero, identity or commuting structure), at 50 digits:
logits, decoder output, every layer's A / A_LM / A_P / G_LM / scores, the returned KV- and
G-caches, for the uncached call, KV-cached calls (batch 1 and 2), G-cached calls and both, the
v510Gi transplant, and greedy generation with the four cache combinations and with an EOS id.
Where the spec says two paths agree exactly (KV-only vs KV+G decoding, the cached ``A`` returned
unchanged, a G-cache holding the prefill operators), the two pyref results are compared bit for
bit (bound 0: the same mpf operations on bitwise-equal operands). mp only: a float64 bound would
need a network-wide round-off analysis. Every evaluator comparison uses the harness bound
1e-40·scale (:mod:`._shared`: the evaluator runs at 70 digits; pyref's < 10⁵ roundings of relative
size 10⁻⁴⁹, amplified by the LayerNorms' and Φ_res' 1/√(var + ε) on these generic weights, stay far
below it).

Tokens: the first token is never the pad id 0 (a query row whose keys are all pads is fully
masked; pyref and the spec then attend every key through the additive −1e9 mask, whose score
rounding at 50 digits, 10⁹·10⁻⁵⁰, is checked with its own allowance by ``softmax_matches_spec``).
Costs: ~0.15 s (forward), 0.35 s (generate), 0.1 s (EOS generate, variants) per example at
50 digits.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import decode as dc
from ...spec_eval import model as ev
from .._arith import U64, mp_bound
from .._util import generic_plga_state_dict, generic_state_dict
from ._shared import SEED, cmp, deviation, ev_ctx, exact_count, scale

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}

KEYS = ("A", "A_LM", "A_P", "G_LM", "E")


@st.composite
def model_case(draw):
    """(config, seed, tokens, next tokens): L ∈ {1, 2} layers, d ∈ {4, 8}, H ∈ {1, 2} heads,
    1–2 residual units of two SwiGLU blocks, vocabulary 11, tokens with pads after the first."""
    L, d, H = draw(st.integers(1, 2)), draw(st.sampled_from([4, 8])), draw(st.integers(1, 2))
    cfg = pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=H, dff=6, a_dff=4,
                           num_res_units=draw(st.integers(1, 2)), num_glu_blocks=2,
                           vocab_size=11, max_seq_len=16)
    toks = [draw(st.integers(1, 10))] + draw(st.lists(st.integers(0, 10), min_size=1,
                                                      max_size=4))
    nxt = draw(st.lists(st.integers(0, 10), min_size=2, max_size=2))
    return cfg, draw(SEED) % 2 ** 16, toks, nxt


def _py_kv(entry):
    """pyref's cache entry [K̂ [1,T,H,d_k], V, (A [1,H,d_k,d_k])] as the evaluator's per-head
    layout (K, V: [H][T][d_k])."""
    K = np.transpose(np.asarray(entry[0])[0], (1, 0, 2))
    V = np.transpose(np.asarray(entry[1])[0], (1, 0, 2))
    return K, V, (np.asarray(entry[2])[0] if len(entry) > 2 else None)


def compare_call(ch, label, out, ref, learned=True):
    """pyref ``ForwardOutput`` against an evaluator call (:func:`dc.forward`): logits, decoder
    output, every layer's A, A_LM, A_P, G_LM, E (None where not computed), KV- and G-caches."""
    cmp(ch, f"{label}: logits", out.logits[0], ref["logits"], "mp")
    cmp(ch, f"{label}: decoder output", out.hidden[0], ref["hidden"], "mp")
    for li, (ded, tr) in enumerate(zip(out.deductive, ref["layers"])):
        for k in KEYS:
            if tr[k][0] is None or ded[k] is None:
                ch.exact(f"{label}: layer {li} {k} computed on both sides or neither",
                         float((tr[k][0] is None) != (ded[k] is None)))
            else:
                cmp(ch, f"{label}: layer {li} {k}", ded[k][0], tr[k], "mp")
        K, V, A = _py_kv(out.kvcache[li])
        cmp(ch, f"{label}: layer {li} KV-cache K̂ (rotated keys)", K, ref["kv"][li]["K"], "mp")
        cmp(ch, f"{label}: layer {li} KV-cache V", V, ref["kv"][li]["V"], "mp")
        if learned:
            cmp(ch, f"{label}: layer {li} KV-cache A", A, ref["kv"][li]["A"], "mp")
            for j, nm in enumerate(("A_LM", "G_LM")):
                cmp(ch, f"{label}: layer {li} G-cache {nm}", out.gcache[li][j][0],
                    ref["gc"][li][j], "mp")


def _prefill_parts(ch, F, M, cfg, out, toks):
    """The uncached call against the Lean fold itself (``logits``, ``decoder``: no cache code) and
    layer 0's A against ``phiResMat`` / ``phiResRow`` of the density of the rotated queries."""
    acfg = ev.config(M, toks)
    X = ev.decoder(F, acfg, M["layers"], ev.embed(F, M, toks))
    cmp(ch, "decoder = Lean decoder (fold of layerRun)", out.hidden[0], X, "mp")
    cmp(ch, "logits = Lean logits", out.logits[0], ev.affine(X, M["Wout"], M["bout"]), "mp")
    X0 = ev.embed(F, M, toks)
    L0 = M["layers"][0]
    for h in range(cfg.num_heads):
        D = ev.density(ev.headQ(acfg, L0["attn"], X0, h))
        A = out.deductive[0]["A"][0, h]
        cmp(ch, f"head {h}: A = phiResMat (density Q̂)", A,
            ev.phiResMat(F["lnEps"], L0["learner"]["phi"], D), "mp")
        for i, r in enumerate(D):
            cmp(ch, f"head {h}: A row {i} = phiResRow (density row)", A[i],
                ev.phiResRow(F["lnEps"], L0["learner"]["phi"], r), "mp")


def _transplant_parts(ch, F, Mc, cm, c0, e0, toks):
    """The v510Gi transplant ``cm = to_constant_operator(tokens=…)`` (prefill tokens): its G is the
    evaluator's prefill G_LM rounded to float64 (pyref stores the operator as float64: bound
    u·|G| for the rounding, u = 2⁻⁵³, plus twice the mp bound for pyref's 50-digit G_LM), and its
    forward ``c0`` on ``toks`` equals the evaluator's decoder with those constant operators and
    the shared weights (``Mc``: the model without the metric learner)."""
    for li, g in enumerate(cm.G):
        ref = e0["layers"][li]["G_LM"]
        T = scale(ref)
        ch.le(f"transplant: layer {li} G = prefill G_LM (float64)", deviation(g, ref),
              U64 * T + 2 * mp_bound(T))
    compare_call(ch, "transplant: constant-G forward", c0,
                 dc.forward(F, Mc, toks, ops="constant", G=dc.constantOps(cm.G)), learned=False)


@prop(theorems=["PLGA.Spec.headG_eq", "PLGA.Spec.headA_eq_phiResMat",
                "PLGA.Spec.prefillA_eq_phiResMat", "PLGA.Spec.headA_row_eq_phiResRow",
                "PLGA.Spec.layer_gen_eq", "PLGA.Spec.layer_gen_eq_headALM",
                "PLGA.Spec.layer_run_eq", "PLGA.Spec.decoder_cons",
                "PLGA.Spec.opsAlong_layers_cons", "PLGA.Spec.decoder_gcache_prefill_exact",
                "PLGA.Attention.plgaDecoder_gcache_prefill_exact",
                "PLGA.Attention.decoderLayer_gcache_exact", "PLGA.Attention.mha_gcache_exact",
                "PLGA.Attention.run_eq_decoderLayer_of_gen_eq"],
      paper="spec A (the PLDR-LLM v510 decoder) and B (KV-cache with frozen A, G-cache)",
      strategy=model_case, backends=("mp",), cost=3)
def model_forward_matches_spec(ex, backend, dps):
    """pyref's ``PLDRModel.forward`` against the evaluator on a generic small model:

    * prefill (no cache, pad-causal mask): logits and decoder output = the Lean ``logits`` /
      ``decoder`` (embedding ``LN_emb(√d·E[tok])``, post-LN layers ``layerRun``, untied head);
      every layer's A, A_LM, A_P, G_LM (= ``headG``: ``layer_gen_eq``, ``opsAlong_layers_cons``),
      E, the KV-cache [K̂, V, A] and the G-cache [A_LM, G_LM]; layer 0's A = ``phiResMat`` of the
      density of the rotated queries and row-wise ``phiResRow`` (``headA_row_eq_phiResRow``);
    * two KV-cached steps (one new token each, at positions S, S+1, no mask, A frozen): all of
      the above against spec B's cached call; the returned cached A is the prefill A bit for bit
      and the recomputed G_LM equals the prefill G_LM bit for bit;
    * a G-cached call on the same tokens (cache = the prefill's [A_LM, G_LM]) equals the uncached
      call bit for bit (``plgaDecoder_gcache_prefill_exact``, ``decoderLayer_gcache_exact``) and
      the evaluator; a G-cached call on other tokens (the last one changed) against the evaluator
      (the operator taken from the cache, A recomputed, A_P not computed);
    * KV + G steps equal the KV-only steps bit for bit, and the evaluator;
    * a batch of two sequences (the tokens and the other tokens): each row's logits and G_LM equal
      the evaluator's single-sequence call (no mixing across the batch, per-sequence pad mask),
      and so does a KV-cached step of the batch (one new token per row, each row's own cache);
    * the v510Gi transplant ``to_constant_operator(tokens=…)`` (:func:`_transplant_parts`)."""
    cfg, seed, toks, nxt = ex
    sd = generic_plga_state_dict(cfg, seed)
    model = pyref.PLDRModel.from_state_dict(sd, cfg)

    def fwd(t, **kw):
        return model.forward([t], backend=backend, dps=dps, **kw)

    o0 = fwd(toks)
    cm = model.to_constant_operator(tokens=[toks], backend=backend, dps=dps)
    c0 = cm.forward([toks[:-1] + [nxt[0]]], backend=backend, dps=dps)
    k1 = fwd([nxt[0]], kvcache=o0.kvcache)
    k2 = fwd([nxt[1]], kvcache=k1.kvcache)
    g0 = fwd(toks, gcache=o0.gcache)
    other = toks[:-1] + [(toks[-1] % 10) + 1]
    g1 = fwd(other, gcache=o0.gcache)
    batch = model.forward([toks, other], backend=backend, dps=dps)
    bk = model.forward([[nxt[0]], [nxt[1]]], kvcache=batch.kvcache, backend=backend, dps=dps)
    b1 = fwd([nxt[0]], kvcache=o0.kvcache, gcache=o0.gcache)
    b2 = fwd([nxt[1]], kvcache=b1.kvcache, gcache=b1.gcache)
    ch = Checks()
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
        e0 = dc.forward(F, M, toks)
        e1 = dc.forward(F, M, [nxt[0]], kv=e0["kv"])
        _prefill_parts(ch, F, M, cfg, o0, toks)
        compare_call(ch, "prefill", o0, e0)
        compare_call(ch, "KV step 1", k1, e1)
        compare_call(ch, "KV step 2", k2, dc.forward(F, M, [nxt[1]], kv=e1["kv"]))
        compare_call(ch, "G-cache, same tokens", g0, dc.forward(F, M, toks, gc=e0["gc"]))
        compare_call(ch, "G-cache, other tokens", g1, dc.forward(F, M, other, gc=e0["gc"]))
        cmp(ch, "batch row 0 logits", batch.logits[0], e0["logits"], "mp")
        eo = dc.forward(F, M, other)
        cmp(ch, "batch row 1 logits", batch.logits[1], eo["logits"], "mp")
        cmp(ch, "batch row 1 G_LM", [d["G_LM"][1] for d in batch.deductive],
            [tr["G_LM"] for tr in eo["layers"]], "mp")
        cmp(ch, "batch KV step row 0 logits", bk.logits[0], e1["logits"], "mp")
        e4 = dc.forward(F, M, [nxt[1]], kv=eo["kv"])
        cmp(ch, "batch KV step row 1 logits", bk.logits[1], e4["logits"], "mp")
        cmp(ch, "batch KV step row 1 G_LM", [d["G_LM"][1] for d in bk.deductive],
            [tr["G_LM"] for tr in e4["layers"]], "mp")
        _transplant_parts(ch, F, ev.modelSpec(sd, cfg, learned=False), cm, c0, e0,
                          toks[:-1] + [nxt[0]])
        e3 = dc.forward(F, M, [nxt[0]], kv=e0["kv"], gc=e0["gc"])
        compare_call(ch, "KV+G step 1", b1, e3)
        compare_call(ch, "KV+G step 2", b2, dc.forward(F, M, [nxt[1]], kv=e3["kv"], gc=e3["gc"]))
    for li in range(cfg.num_layers):
        ch.exact(f"layer {li}: cached A returned unchanged (= prefill A)",
                 exact_count(k2.kvcache[li][2], o0.kvcache[li][2]))
        ch.exact(f"layer {li}: KV step G_LM = prefill G_LM (A frozen)",
                 exact_count(k2.deductive[li]["G_LM"], o0.deductive[li]["G_LM"]))
    ch.exact("G-cache with the prefill operators = uncached call (logits, output)",
             exact_count(g0.logits, o0.logits) + exact_count(g0.hidden, o0.hidden))
    ch.exact("KV+G = KV-only (logits of both steps)",
             exact_count(b1.logits, k1.logits) + exact_count(b2.logits, k2.logits))
    return ch.outcome()


@st.composite
def generate_case(draw):
    cfg, seed, toks, _ = draw(model_case())
    return cfg, seed, toks[:3], draw(st.integers(3, 4)), draw(st.integers(1, 10))


def _generate_parts(ch, label, g, e, n_layers):
    """pyref's ``GenerateOutput`` (with ``return_operators``) against the evaluator's."""
    ch.exact(f"{label}: tokens", float(list(map(int, g.tokens[0])) != e["tokens"]))
    ch.exact(f"{label}: number of steps", float(len(g.step_logits) != len(e["step_logits"])))
    for i, (pl, el) in enumerate(zip(g.step_logits, e["step_logits"])):
        cmp(ch, f"{label}: step {i} logits", pl[0], el, "mp")
    for i, (pg, eg) in enumerate(zip(g.step_G, e["step_G"])):
        for li in range(n_layers):
            cmp(ch, f"{label}: step {i} layer {li} G_LM", pg[li][0], eg[li], "mp")


@prop(theorems=["PLGA.Attention.plgaDecoder_gcache_exact",
                "PLGA.Attention.decoderLayer_gcache_exact", "PLGA.Attention.pinned_run"],
      paper="spec B (greedy decoding: none / KV / G / KV+G caches; KV-only = KV+G exactly)",
      strategy=generate_case, backends=("mp",), cost=2)
def model_generate_matches_spec(ex, backend, dps):
    """pyref's ``PLDRModel.generate`` (greedy, ``return_operators``) with the four cache
    combinations — none (every step re-runs the full sequence), KV (one new token per call,
    A frozen), G (the full sequence with the prefill [A_LM, G_LM]), KV+G — and with a G-cache
    initializer (``gcache_init``: the operators of another sequence, used by the prefill and, with
    the G-cache off, by every call), each against the evaluator's spec-B decoding: generated
    tokens, each step's logits and per-layer G_LM (prefill then 2–3 cached steps).

    Exact (bound 0) between pyref's own paths: KV-only and KV+G decoding give the same tokens,
    logits and G_LM bit for bit (with KV on, G is recomputed from the frozen A by the same
    operations, ``plgaDecoder_gcache_exact`` with operators equal along the run), and with the
    G-cache every step's G_LM is the prefill's bit for bit (``pinned_run``)."""
    cfg, seed, prompt, n, other = ex
    sd = generic_plga_state_dict(cfg, seed)
    model = pyref.PLDRModel.from_state_dict(sd, cfg)
    init = model.forward([[other, (other % 10) + 1]], backend=backend, dps=dps).gcache
    runs = {}
    ch = Checks()
    for kv in (False, True):
        for gc in (False, True):
            runs[kv, gc] = model.generate(prompt, n, kvcache=kv, gcache=gc, backend=backend,
                                          dps=dps, return_operators=True)
    gi = model.generate(prompt, n, kvcache=False, gcache=False, gcache_init=init,
                        backend=backend, dps=dps, return_operators=True)
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
        for (kv, gc), g in runs.items():
            e = dc.generate(F, M, prompt, n, kvcache=kv, gcache=gc)
            _generate_parts(ch, f"kv={kv} g={gc}", g, e, cfg.num_layers)
        einit = dc.forward(F, M, [other, (other % 10) + 1])["gc"]
        e = dc.generate(F, M, prompt, n, kvcache=False, gcache=False, gcache_init=einit)
        _generate_parts(ch, "gcache_init", gi, e, cfg.num_layers)
    a, b = runs[True, False], runs[True, True]
    ch.exact("KV-only = KV+G: tokens", exact_count(a.tokens, b.tokens))
    ch.exact("KV-only = KV+G: step logits", exact_count(a.step_logits, b.step_logits))
    ch.exact("KV-only = KV+G: step G_LM", exact_count(a.step_G, b.step_G))
    g = runs[False, True]
    ch.exact("G-cache: every step's G_LM = the prefill's",
             sum(exact_count(s, g.step_G[0]) for s in g.step_G))
    with ev_ctx(dps):   # non-vacuity: the cached operators differ from the recomputed ones
        spread = deviation(runs[False, False].step_logits[-1], runs[True, True].step_logits[-1])
    return ch.outcome(met=bool(spread > 1e-30))


@st.composite
def eos_case(draw):
    """(config, seed, prompt, n ∈ {3, 4}, the step j ∈ {0, 1} whose token serves as EOS id, a
    second prompt of the same length, first token not a pad)."""
    cfg, seed, prompt, n, _ = draw(generate_case())
    second = [draw(st.integers(1, 10))] + draw(st.lists(st.integers(0, 10),
                                                        min_size=len(prompt) - 1,
                                                        max_size=len(prompt) - 1))
    return cfg, seed, prompt, n, draw(st.integers(0, 1)), second


@prop(theorems=["PLGA.Attention.pinned_run"],
      paper="spec B (greedy decoding with an EOS id: batch 1 stops at EOS, a batch does not)",
      strategy=eos_case, backends=("mp",), cost=1)
def model_generate_eos_matches_spec(ex, backend, dps):
    """pyref's ``PLDRModel.generate`` (KV + G caches, every cached step runs the layers with the
    prefill operators pinned: ``pinned_run``) with ``eos_id`` = the token the evaluator's decoding
    of the prompt produces at step j ∈ {0, 1} (of n ≥ 3):

    * batch 1 stops right after the first EOS: its tokens, step logits and per-layer G_LM are the
      evaluator's decoding up to and including the first step producing the EOS id (at most
      2 < n steps, so the stop is observed);
    * a batch of two prompts (the prompt and a generic second one) never stops early (spec B: the
      EOS stop is for batch 1): every row's tokens and step logits are the evaluator's n-step
      decoding of that prompt — KV-cached calls with batch 2, each row with its own cache.

    Bound: the harness' 1e-40·scale (:mod:`._shared`). Cost ~0.1 s per example."""
    cfg, seed, prompt, n, j, second = ex
    sd = generic_plga_state_dict(cfg, seed)
    model = pyref.PLDRModel.from_state_dict(sd, cfg)
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
        e1, e2 = dc.generate(F, M, prompt, n), dc.generate(F, M, second, n)
    eos = e1["new_tokens"][j]
    g1 = model.generate(prompt, n, eos_id=eos, return_operators=True, backend=backend, dps=dps)
    g2 = model.generate([prompt, second], n, eos_id=eos, backend=backend, dps=dps)
    k = e1["new_tokens"].index(eos) + 1                  # steps up to the first EOS (k ≤ j + 1)
    stop = {"tokens": e1["tokens"][:len(prompt) + k], "step_logits": e1["step_logits"][:k],
            "step_G": e1["step_G"][:k]}
    ch = Checks()
    with ev_ctx(dps):
        _generate_parts(ch, "EOS, batch 1", g1, stop, cfg.num_layers)
        for r, e in enumerate((e1, e2)):
            ch.exact(f"EOS, batch 2: row {r} tokens (n new, no early stop)",
                     float(list(map(int, g2.tokens[r])) != e["tokens"]))
            ch.exact(f"EOS, batch 2: row {r} number of steps",
                     float(len(g2.step_logits) != len(e["step_logits"])))
            for i, (pl, el) in enumerate(zip(g2.step_logits, e["step_logits"])):
                cmp(ch, f"EOS, batch 2: row {r} step {i} logits", pl[r], el, "mp")
    return ch.outcome()


@st.composite
def variant_case(draw):
    cfg, seed, toks, nxt = draw(model_case())
    return cfg, seed, toks, nxt, draw(st.sampled_from([0.5, -2.0, 3.0]))


def _variant_state(cfg, seed):
    """A generic constant/SDPA state dict and generic per-layer operators G [H, d_k, d_k]."""
    sd = generic_state_dict(pyref.ConstantGModel.random(cfg, seed=seed), seed)
    rng = np.random.default_rng(seed + 3)
    return sd, [rng.uniform(-1, 1, (cfg.num_heads, cfg.d_k, cfg.d_k))
                for _ in range(cfg.num_layers)]


def _scaled_sdpa_logits(F, M, toks, c):
    """The Lean ``sdpaDecoder`` with score scale √d_k / c, then the head (the right side of
    ``plgaDecoder_scalarLayers_eq_sdpaDecoder``)."""
    acfg = ev.config(M, toks)
    acfg["scale"] = acfg["scale"] / c
    X = ev.sdpaDecoder(F, acfg, M["layers"], ev.embed(F, M, toks))
    return X, ev.affine(X, M["Wout"], M["bout"])


@prop(theorems=["PLGA.Attention.pinned_run",
                "PLGA.Attention.plgaDecoder_identityLayers_eq_sdpaDecoder",
                "PLGA.Attention.plgaDecoder_scalarLayers_eq_sdpaDecoder",
                "PLGA.Attention.decoderLayer_one_eq_sdpaDecoderLayer",
                "PLGA.Spec.decoder_pinned_one_eq_sdpaDecoder"],
      paper="the v510G constant-operator ablation and the SDPA model (spec B ablations), "
            "SDPA inclusion with temperature",
      strategy=variant_case, backends=("mp",), cost=3)
def variant_models_match_spec(ex, backend, dps):
    """pyref's ``ConstantGModel`` and ``SDPAModel`` (generic weights, biases, LayerNorm gains)
    against the evaluator:

    * ``ConstantGModel`` with generic per-layer G: the prefill, two KV-cached steps (caches [K̂, V],
      no A) and greedy KV-cached generation = the evaluator's decoder with the pinned operators
      (``pinned_run``);
    * ``ConstantGModel`` with G = c·I (c ∈ {0.5, −2, 3}) = the Lean ``sdpaDecoder`` with score
      scale √d_k/c (``plgaDecoder_scalarLayers_eq_sdpaDecoder``, pyref the left side);
    * ``SDPAModel`` (its own code path, no operator product): the prefill and a KV step = the
      evaluator's decoder with every operator I (``plgaDecoder_identityLayers_eq_sdpaDecoder``,
      ``decoder_pinned_one_eq_sdpaDecoder``, ``decoderLayer_one_eq_sdpaDecoderLayer``: pyref the
      right side), and = the Lean ``sdpaLogits``."""
    cfg, seed, toks, nxt, c = ex
    sd, Gs = _variant_state(cfg, seed)
    cm = pyref.ConstantGModel.from_state_dict(sd, cfg, G=Gs)
    sm = pyref.SDPAModel.from_state_dict(sd, cfg)
    scm = pyref.ConstantGModel.from_state_dict(
        sd, cfg, G=[c * np.broadcast_to(np.eye(cfg.d_k), g.shape) for g in Gs])
    kw = {"backend": backend, "dps": dps}
    c0 = cm.forward([toks], **kw)
    c1 = cm.forward([[nxt[0]]], kvcache=c0.kvcache, **kw)
    c2 = cm.forward([[nxt[1]]], kvcache=c1.kvcache, **kw)
    cg = cm.generate(toks[:3], 3, kvcache=True, gcache=False, return_operators=True, **kw)
    s0 = sm.forward([toks], **kw)
    s1 = sm.forward([[nxt[0]]], kvcache=s0.kvcache, **kw)
    sc = scm.forward([toks], **kw)
    ch = Checks()
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg, learned=False)
        G = dc.constantOps(Gs)
        e0 = dc.forward(F, M, toks, ops="constant", G=G)
        e1 = dc.forward(F, M, [nxt[0]], kv=e0["kv"], ops="constant", G=G)
        compare_call(ch, "constant G: prefill", c0, e0, learned=False)
        compare_call(ch, "constant G: KV step 1", c1, e1, learned=False)
        compare_call(ch, "constant G: KV step 2", c2,
                     dc.forward(F, M, [nxt[1]], kv=e1["kv"], ops="constant", G=G), learned=False)
        _generate_parts(ch, "constant G: generate (KV)", cg,
                        dc.generate(F, M, toks[:3], 3, kvcache=True, gcache=False,
                                    ops="constant", G=G), 0)
        eye = [[ev.eye(cfg.d_k)] * cfg.num_heads for _ in range(cfg.num_layers)]
        f0 = dc.forward(F, M, toks, ops="constant", G=eye)
        cmp(ch, "SDPAModel = decoder pinned to I: logits", s0.logits[0], f0["logits"], "mp")
        cmp(ch, "SDPAModel = decoder pinned to I: output", s0.hidden[0], f0["hidden"], "mp")
        cmp(ch, "SDPAModel = Lean sdpaLogits", s0.logits[0], ev.sdpaLogits(F, M, toks), "mp")
        compare_call(ch, "SDPAModel: prefill", s0, dc.forward(F, M, toks, ops="sdpa"),
                     learned=False)
        f1 = dc.forward(F, M, [nxt[0]], kv=f0["kv"], ops="constant", G=eye)
        cmp(ch, "SDPAModel KV step = pinned-to-I KV step", s1.logits[0], f1["logits"], "mp")
        X, lg = _scaled_sdpa_logits(F, M, toks, ev.mat(c))
        cmp(ch, "ConstantGModel(c·I) = sdpaDecoder with scale √d_k/c", sc.hidden[0], X, "mp")
        cmp(ch, "ConstantGModel(c·I) logits = sdpa logits with scale √d_k/c", sc.logits[0], lg,
            "mp")
    return ch.outcome()
