"""Cross-check properties of ``Formal/Spec/Rope.lean`` (the spec model with the real RoPE family
``ropeFamily``): ``spec_rope_family``, ``spec_rope_commutant_criterion``,
``spec_rope_score_absorption``, ``spec_rope_decoder_absorption`` and ``JUSTIFY``.

The RoPE family of the Lean model is the evaluator's ``ropeRows`` (row t multiplied by
``ropeMat(t)ᵀ``, :mod:`crosscheck.spec_eval.model`); commutant operators are built from
``commEmbed``-style block parameters (:func:`..rope._shared._comm_embed`, no pyref code); the
absorbed parameters of the Lean side are built in Lean's layout (:func:`_absorb_params_lean`,
``absorbWeight``/``absorbBias``) and those of pyref's SDPA model in torch's layout
(:func:`_absorb`), so a wrong transpose on either side cannot cancel.

mp only: every property compares pyref's 50-digit run with the evaluator at 70 digits (bound
``1e-40·scale``, :func:`.._arith.mp_bound`) or pyref's two model paths with each other (same
bound); all weights and operators are dyadic, so absorbed weights are exact in float64 (verified).
Conventions: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...arbcheck import upper_float
from ...registry import Checks, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import eye, mat, matmul, transpose
from .._arith import bound, maxabs
from .._util import state_dict_with_biases
from ..attention._shared import (
    _a_zero_sd,
    _absorb,
    _cfg,
    _fwd_dev,
    _model_queries_matter,
    _tokens,
)
from ..rope._shared import _comm_embed
from ._shared import cmp, deviation, ev_ctx

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Spec.mha_eq_headScores":
        "rfl: `headScores` is by definition the score matrix inside `mha` (a naming of a "
        "sub-term); the scores themselves are compared with pyref's reported `E` by "
        "spec_rope_score_absorption",
    "PLGA.Spec.mhaSDPA_eq_sdpaHeadScores":
        "rfl: `sdpaHeadScores` is by definition the score matrix inside `mhaSDPA`; compared "
        "with pyref's SDPA `E` by spec_rope_score_absorption",
    "PLGA.Spec.headScores_apply":
        "rfl: unfolds `headScores` entrywise (row-vector products); the entries are compared "
        "with pyref by spec_rope_score_absorption",
    "PLGA.Spec.sdpaHeadScores_apply":
        "rfl: unfolds `sdpaHeadScores` entrywise; the entries are compared with pyref's SDPA "
        "scores by spec_rope_score_absorption",
}

BASE_DPS = 50


def _rope_rows(S: int, dk: int, base):
    """Lean ``ropeFamily`` at positions 0…S−1 (the evaluator's ``ropeRows``: ``ropeMat(t)ᵀ``)."""
    return ev.ropeRows(list(range(S)), dk, base)


def _comm(A, B):
    """A B − B A on nested mpf lists."""
    AB, BA = matmul(A, B), matmul(B, A)
    return [[x - y for x, y in zip(r, s)] for r, s in zip(AB, BA)]


def _absorb_params_lean(P, G, dk):
    """Lean ``absorbParams P G`` on the evaluator's ``MHAParams`` (W of shape [in][out]): head h's
    column block ``splitHead W h`` becomes ``W_h G_h`` (``absorbWeight``), its bias block
    ``b_hᵀ G_h`` (``absorbBias``); everything else unchanged."""
    H = len(G)
    W, b = P["WQ"], P["bQ"]
    blocks = [matmul(ev.splitHead(W, h, dk), G[h]) for h in range(H)]
    bias = [matmul([b[h * dk:(h + 1) * dk]], G[h])[0] for h in range(H)]
    out = dict(P)
    out["WQ"] = ev.concatHeads(blocks)
    out["bQ"] = [x for bh in bias for x in bh]
    return out


def _dyadic(rng, shape, k):
    """Entries j/k with |j| ≤ k: products and short sums stay exact in float64."""
    return rng.integers(-k, k + 1, shape) / float(k)


def _operators(rng, H, dk, kind):
    """Per-head operators: ``commEmbed`` blocks (kind "commuting") or a dense dyadic matrix."""
    if kind == "commuting":
        return np.stack([_comm_embed(_dyadic(rng, (dk // 2, 2), 8) * 2) for _ in range(H)])
    return np.stack([_dyadic(rng, (dk, dk), 8) * 2 for _ in range(H)])


# ============================================================ 1. the model's RoPE family
@st.composite
def family_case(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S = draw(st.integers(1, 16))
    seed = draw(st.integers(0, 2 ** 16))
    return dk, S, seed


@prop(theorems=["PLGA.Spec.vecMul_ropeFamily", "PLGA.Spec.rotRows_ropeFamily",
                "PLGA.Spec.rotRows_ropeFamily_even", "PLGA.Spec.rotRows_ropeFamily_odd",
                "PLGA.Spec.ropeFamily_eq_flatRope_neg",
                "PLGA.Spec.vecMul_ropeFamily_of_val_eq_zero", "PLGA.Rope.flatRope_mul",
                "PLGA.Rope.flatRope_mulVec_zero", "PLGA.Spec.exists_vecMul_ropeFamily_eq",
                "PLGA.Spec.ropeFamily_two"],
      paper="spec A.4 step 2: the RoPE of the Lean model (ropeFamily) is the model's rotation",
      strategy=family_case, backends=("mp",))
def spec_rope_family(ex, backend, dps):
    """pyref's ``apply_rope`` at positions 0…S−1 (the model's forward without cache) on a random
    Q [S, d_k] equals the Lean layer's rotation ``rotRows (ropeFamily ρ) Q`` (evaluator
    ``ropeRows``: row t times ``ropeMat(t)ᵀ``), and entrywise the spec formulas
    ``q̂_{2j} = cos(tθ_j) q_{2j} − sin(tθ_j) q_{2j+1}``, ``q̂_{2j+1} = sin(tθ_j) q_{2j} +
    cos(tθ_j) q_{2j+1}`` with θ_j = 10⁴^{−2j/d_k} computed here by ``mpmath.power``
    (``rotRows_ropeFamily_even``/``_odd``); ``ropeMat(t)ᵀ = ropeMat(−t)``
    (``ropeFamily_eq_flatRope_neg``); position 0 is exactly the identity in pyref
    (``vecMul_ropeFamily_of_val_eq_zero``, ``flatRope_mulVec_zero``, bound 0). Rotation algebra on
    pyref's ``rope_matrix``: R_a R_b = R_{a+b} (``flatRope_mul``), ropeFamily(2) =
    ropeFamily(1)² (``ropeFamily_two``), and the preimage k = R_{−t} w of the proof satisfies
    k·ropeFamily(t) = w (``exists_vecMul_ropeFamily_eq``). Bound: 1e-40·scale (mp)."""
    dk, S, seed = ex
    rng = np.random.default_rng(seed)
    Q = rng.uniform(-2, 2, (S, dk))
    ch = Checks()
    out = pyref.rope.apply_rope(Q, positions=list(range(S)), backend=backend, dps=dps)
    ch.exact("position 0 unrotated (pyref, exact)", float(np.sum(out[0] != pyref.to_mp(Q[0], dps))))
    with ev_ctx(dps):
        base = mpmath.mpf(10) ** 4
        R = _rope_rows(S, dk, base)
        Qm = mat(Q)
        cmp(ch, "apply_rope = rotRows ropeFamily", out, ev.rotRows(R, Qm), "mp")
        spec = []
        for t in range(S):
            row = []
            for j in range(dk // 2):
                th = mpmath.power(base, mpmath.mpf(-2 * j) / dk)
                c, s = mpmath.cos(t * th), mpmath.sin(t * th)
                row += [c * Qm[t][2 * j] - s * Qm[t][2 * j + 1],
                        s * Qm[t][2 * j] + c * Qm[t][2 * j + 1]]
            spec.append(row)
        cmp(ch, "apply_rope = spec A.4 step 2 formulas", out, spec, "mp")
        for t in range(S):
            cmp(ch, f"ropeFamily {t} = flatRope (−{t})", R[t], ev.ropeMat(-t, dk, base), "mp",
                T=1.0)
            k = matmul([Qm[t]], transpose(ev.ropeMat(-t, dk, base)))   # (R_{−t} w)ᵀ, w = Q_t
            cmp(ch, f"(R_{{−{t}}} w)·ropeFamily({t}) = w", matmul(k, R[t]), [Qm[t]], "mp")
        if S > 2:
            cmp(ch, "ropeFamily(2) = ropeFamily(1)²", R[2], matmul(R[1], R[1]), "mp", T=1.0)
        a, b = int(rng.integers(-64, 65)), int(rng.integers(-64, 65))
        Ra, Rb, Rab = (mat(pyref.rope.rope_matrix(n, dk, backend=backend, dps=dps))
                       for n in (a, b, a + b))
        cmp(ch, f"R_{a} R_{b} = R_{a + b} (pyref rope_matrix)", matmul(Ra, Rb), Rab, "mp", T=1.0)
        R0 = pyref.rope.rope_matrix(0, dk, backend=backend, dps=dps)
        ch.exact("R_0 = I (pyref, exact)", float(np.sum(R0 != np.eye(dk))))
    return ch.outcome()


# ======================================================= 2. the commutant criterion at model level
@st.composite
def criterion_case(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S = draw(st.integers(2, 16))
    seed = draw(st.integers(0, 2 ** 16))
    kind = draw(st.sampled_from(["commEmbed", "poly_R1", "generic"]))
    positions = draw(st.lists(st.integers(-4096, 4096), min_size=1, max_size=4))
    return dk, S, seed, kind, positions


def _operator_for(kind, dk, rng, base):
    """commEmbed(a, b) from drawn blocks; Σ_k c_k R_1^k (commutes with R_1 by construction, no
    commutant structure used); or a dense generic matrix (all as nested mpf lists)."""
    if kind == "commEmbed":
        return mat(_comm_embed(rng.uniform(-2, 2, (dk // 2, 2))))
    if kind == "generic":
        return mat(rng.uniform(-2, 2, (dk, dk)))
    R1 = ev.ropeMat(1, dk, base)
    G, P = [[mpmath.mpf(0)] * dk for _ in range(dk)], eye(dk)
    for c in rng.uniform(-2, 2, 4):
        G = [[g + mpmath.mpf(c) * p for g, p in zip(r, s)] for r, s in zip(G, P)]
        P = matmul(P, R1)
    return G


def _comm_coords_embed(G):
    """Lean ``commEmbed (commCoords G)``: a_j = G_{2j,2j}, b_j = G_{2j+1,2j}."""
    dk = len(G)
    out = [[mpmath.mpf(0)] * dk for _ in range(dk)]
    for j in range(dk // 2):
        a, b = G[2 * j][2 * j], G[2 * j + 1][2 * j]
        out[2 * j][2 * j], out[2 * j][2 * j + 1] = a, -b
        out[2 * j + 1][2 * j], out[2 * j + 1][2 * j + 1] = b, a
    return out


@prop(theorems=["PLGA.Rope.commute_ropeMat_neg", "PLGA.Rope.commutes_of_commute_ropeMat_one",
                "PLGA.Spec.commutes_of_ropeFamily_one",
                "PLGA.Spec.ropeFamily_mul_comm_of_commutes",
                "PLGA.Spec.commutesWithRope_ropeFamily",
                "PLGA.Spec.commutesWithRope_ropeFamily_iff",
                "PLGA.Spec.commutesWithRope_of_commEmbed",
                "PLGA.Spec.commutesWithRope_ropeFamily_iff_commEmbed"],
      paper="Prop 4.1 at model level: CommutesWithRope for the real RoPE = the RoPE commutant",
      strategy=criterion_case, backends=("mp",))
def spec_rope_commutant_criterion(ex, backend, dps):
    """``CommutesWithRope`` for ``config … (ropeFamily ρ) tok`` (``ropeRows`` at 0…S−1, S ≥ 2)
    against the RoPE commutant (pyref's ``rope_matrix(n)`` at drawn integer positions up to
    ±4096, negative ones included). "commEmbed": G = commEmbed(a, b) commutes with every model
    rotation and every R_n (``commutesWithRope_of_commEmbed``, ``ropeFamily_mul_comm_of_commutes``).
    "poly_R1": G = Σ c_k R_1^k commutes with R_1 by construction only; the theorems say it then
    commutes with every R_n, n < 0 included (``commutes_of_commute_ropeMat_one``,
    ``commute_ropeMat_neg``), hence with every model rotation (``commutesWithRope_ropeFamily``), and
    (non-resonant real frequencies) equals commEmbed(commCoords G)
    (``commutesWithRope_ropeFamily_iff_commEmbed``). "generic": a dense G fails both sides of the
    iffs by a margin: ‖ropeFamily(1) G − G ropeFamily(1)‖ and ‖G − commEmbed(commCoords G)‖ exceed
    the bound (``commutesWithRope_ropeFamily_iff``, ``commutes_of_ropeFamily_one``). Bounds
    1e-40·scale (mp), scale = max(1, |G|)·(d_k-term sums ≤ 2^4·d_k)."""
    dk, S, seed, kind, positions = ex
    rng = np.random.default_rng(seed)
    ch = Checks()
    Rn = {n: pyref.rope.rope_matrix(n, dk, backend=backend, dps=dps) for n in [1, *positions]}
    with ev_ctx(dps):
        base = mpmath.mpf(10) ** 4
        G = _operator_for(kind, dk, rng, base)
        T = 16.0 * dk * max(1.0, float(max(abs(x) for r in G for x in r)))
        R = _rope_rows(S, dk, base)
        c1 = deviation(_comm(R[1], G), [[0] * dk for _ in range(dk)])
        recon = deviation(G, _comm_coords_embed(G))
        if kind == "generic":
            ch.margin("ropeFamily(1) G ≠ G ropeFamily(1)", 1e-40 * T, c1)
            ch.margin("G ≠ commEmbed(commCoords G)", 1e-40 * T, recon)
        else:
            for t in range(S):
                cmp(ch, f"ropeFamily({t}) G = G ropeFamily({t})", matmul(R[t], G),
                    matmul(G, R[t]), "mp", T=T)
            for n, M in Rn.items():
                Mm = mat(M)
                cmp(ch, f"G R_{n} = R_{n} G (pyref rope_matrix)", matmul(G, Mm), matmul(Mm, G),
                    "mp", T=T)
            cmp(ch, "G = commEmbed(commCoords G)", G, _comm_coords_embed(G), "mp", T=T)
    return ch.outcome()


# ====================================================== 3. absorption iff commutant, score level
@st.composite
def score_case(draw):
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(_tokens(2, 6, True))
    kind = draw(st.sampled_from(["commuting", "generic", "perturbed"]))
    return d, seed, toks, kind


def _dyadic_setup(cfg, rng, kind):
    """W_Q, b_Q with entries j/64 and G_h with entries j/4 (commEmbed blocks or dense): the
    torch-layout absorption is exact in float64 (checked against a 60-digit evaluation)."""
    H, dk, d = cfg.num_heads, cfg.d_k, cfg.d_model
    wq, bq = _dyadic(rng, (d, d), 64), _dyadic(rng, d, 64)
    G = _operators(rng, H, dk, "generic" if kind == "generic" else "commuting")
    wq2, bq2 = _absorb(wq, bq, G)
    with mpmath.workdps(60):
        e1, e2 = _absorb(pyref.to_mp(wq, 60), pyref.to_mp(bq, 60), pyref.to_mp(G, 60))
        assert np.all(e1 == pyref.to_mp(wq2, 60)) and np.all(e2 == pyref.to_mp(bq2, 60))
    return wq, bq, G, wq2, bq2


def _score_runs(cfg, seed, toks, kind, rng, dps):
    """pyref's ConstantGModel (W_Q, b_Q, G) and SDPAModel (absorbed W_Q, b_Q; for "perturbed"
    head 0's query block shifted by a dyadic Δ [d_k, d] in torch layout): state dict, G, Δ and
    the layer-0 score tensors [H, S, S]."""
    dk, d = cfg.d_k, cfg.d_model
    wq, bq, G, wq2, bq2 = _dyadic_setup(cfg, rng, kind)
    delta = _dyadic(rng, (dk, d), 64) if kind == "perturbed" else np.zeros((dk, d))
    wq2 = wq2.copy()
    wq2[:dk] += delta
    sd = state_dict_with_biases(pyref.ConstantGModel.random(cfg, seed=seed), rng)
    sd["decoder.dec_layers.0.mha1.wq.weight"], sd["decoder.dec_layers.0.mha1.wq.bias"] = wq, bq
    sd_abs = dict(sd)
    sd_abs["decoder.dec_layers.0.mha1.wq.weight"] = wq2
    sd_abs["decoder.dec_layers.0.mha1.wq.bias"] = bq2
    o1 = pyref.ConstantGModel.from_state_dict(sd, cfg, G=[G]).forward([toks], backend="mp",
                                                                       dps=dps)
    sdpa = pyref.SDPAModel.from_state_dict(sd_abs, cfg, strict=False)
    o2 = sdpa.forward([toks], backend="mp", dps=dps)
    return sd, G, delta, o1.deductive[0]["E"][0], o2.deductive[0]["E"][0]


def _witness(ch, h, E1, E2, pred, label):
    """ΔE(1, 0) of head h on pyref equals the prediction and exceeds the bound (a witness)."""
    T = max(1.0, maxabs(E1[h]))
    diff = mpmath.mpf(E1[h][1][0]) - mpmath.mpf(E2[h][1][0])
    cmp(ch, f"head {h}: ΔE(1, 0) = {label}", [diff], [pred], "mp", T=T)
    ch.margin(f"head {h}: ΔE(1, 0) ≠ 0 (witness)", 1e-40 * T, abs(diff))


@prop(theorems=["PLGA.Spec.headScores_eq_sdpaHeadScores_absorb",
                "PLGA.Spec.sdpaHeadScores_absorb_apply",
                "PLGA.Spec.commutes_of_headScores_absorb", "PLGA.Spec.headScores_absorb_iff",
                "PLGA.Spec.dot_rows_eq_of_headScores_eq",
                "PLGA.Spec.rows_one_eq_of_headScores_eq",
                "PLGA.Spec.commutes_of_headScores_eq_sdpaHeadScores",
                "PLGA.Spec.query_map_of_headScores_eq_sdpaHeadScores",
                "PLGA.Spec.exists_sdpa_query_iff_commutes"],
      paper="Thm 5.4(ii) with RoPE, model level: G* absorbs into W_Q (equal pre-softmax "
            "scores) iff G* is in the RoPE commutant",
      strategy=score_case, backends=("mp",))
def spec_rope_score_absorption(ex, backend, dps):
    """pyref's ConstantGModel (operator G_h per head, real RoPE, layer 0) and pyref's SDPAModel
    with W_Q, b_Q absorbed (torch layout, :func:`_absorb`) report their pre-softmax scores
    ``E``; they equal the evaluator's Lean ``headScores`` (``scores`` of ``queries``/``keys`` with
    ``ropeRows``) and ``sdpaHeadScores`` of ``absorbParams`` (Lean layout,
    :func:`_absorb_params_lean`) at the same embedded input (``sdpaHeadScores_absorb_apply``).
    "commuting" (commEmbed blocks): the score matrices agree at every position pair
    (``headScores_eq_sdpaHeadScores_absorb``; ⇐ of both iffs with W' = absorbWeight). "generic"
    (dense G, certified not to commute with ropeFamily(1)): at the proof's causal witness pair
    (query 1, key 0) pyref's score difference exceeds the bound and equals
    ``u (R'_1 G − G R'_1) · v / √d_k`` (u, v the evaluator's unrotated query/key rows;
    ``commutes_of_headScores_absorb``, ``dot_rows_eq_of_headScores_eq``); for S ≥ 3 the obstruction
    of the any-projection converse, D = R'_2 G − R'_1 G R'_1 (which every SDPA query map would
    have to annihilate), equals R'_1 [R'_1, G] and is nonzero
    (``commutes_of_headScores_eq_sdpaHeadScores``). "perturbed" (commuting G, head 0's SDPA
    query block moved off the absorbed one by Δ): head 0's scores differ at (1, 0) by
    −((x_1 Δᵀ) R'_1) · k_0 / √d_k — a query map other than the absorbed one fails
    (``query_map_of_headScores_eq_sdpaHeadScores``, ``rows_one_eq_of_headScores_eq``); head 1
    still agrees. Bound 1e-40·scale (mp)."""
    d, seed, toks, kind = ex
    cfg = _cfg(1, d)
    H, dk = cfg.num_heads, cfg.d_k
    sd, G, delta, E1, E2 = _score_runs(cfg, seed, toks, kind, np.random.default_rng(seed + 29),
                                         dps)
    ch = Checks()
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg, learned=False)
        acfg = ev.config(M, toks)
        X = ev.embed(F, M, toks)
        P = M["layers"][0]["attn"]
        Gm, R, s = [mat(g) for g in G], acfg["rope"], acfg["scale"]
        Pa = _absorb_params_lean(P, Gm, dk)
        Pa["WQ"] = [[x + mpmath.mpf(delta[j][i]) if j < dk else x for j, x in enumerate(r)]
                    for i, r in enumerate(Pa["WQ"])]      # head 0's block of W' = W G + Δᵀ
        for h in range(H):
            cmp(ch, f"head {h}: pyref E = Lean headScores", E1[h],
                ev.scores(s, ev.queries(acfg, P, X, h), Gm[h], ev.keys(acfg, P, X, h)), "mp")
            cmp(ch, f"head {h}: pyref SDPA E = Lean sdpaHeadScores", E2[h],
                ev.sdpaScores(s, ev.queries(acfg, Pa, X, h), ev.keys(acfg, P, X, h)), "mp")
            C = _comm(R[1], Gm[h])
            v = ev.splitHead(ev.affine(X, P["WK"], P["bK"]), h, dk)[0]
            if kind == "perturbed" and h == 0:
                dq = matmul(matmul([X[1]], transpose(mat(delta))), R[1])[0]
                pred = -sum(x * y for x, y in zip(dq, v)) / s
                _witness(ch, h, E1, E2, pred, "−(x₁Δᵀ R'_1)·k₀/√d_k")
            elif kind != "generic" or deviation(C, [[0] * dk for _ in range(dk)]) == 0:
                cmp(ch, f"head {h}: headScores = absorbed sdpaHeadScores", E1[h], E2[h], "mp")
            else:
                u = ev.splitHead(ev.affine(X, P["WQ"], P["bQ"]), h, dk)[1]
                pred = sum(x * y for x, y in zip(matmul([u], C)[0], v)) / s
                _witness(ch, h, E1, E2, pred, "u [R'_1, G] v / √d_k")
                _obstruction(ch, h, R, Gm[h], C)
    return ch.outcome()


def _obstruction(ch, h, R, G, C):
    """S ≥ 3: D = R'_2 G − R'_1 G R'_1 = R'_1 [R'_1, G] ≠ 0 for a non-commuting G."""
    if len(R) < 3:
        return
    A, B = matmul(R[2], G), matmul(matmul(R[1], G), R[1])
    D = [[x - y for x, y in zip(r, t)] for r, t in zip(A, B)]
    T = max(1.0, float(max(abs(x) for r in G for x in r)))
    cmp(ch, f"head {h}: R'_2 G − R'_1 G R'_1 = R'_1 [R'_1, G]", D, matmul(R[1], C), "mp", T=T)
    ch.margin(f"head {h}: obstruction ≠ 0", 1e-40 * T,
              deviation(D, [[0] * len(D) for _ in D]))


# ======================================================= 4. the decoder and the logits with RoPE
@st.composite
def decoder_case(draw):
    L = draw(st.sampled_from([1, 2]))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(_tokens(2, 6, False))
    return L, d, seed, toks


@prop(theorems=["PLGA.Spec.decoder_eq_sdpaDecoder_rope",
                "PLGA.Spec.logits_eq_sdpaLogits_absorb_rope"],
      paper="Thm 5.4(ii) absorption for the real-RoPE spec model (commutant hypothesis)",
      strategy=decoder_case, backends=("mp",), cost=0.5)
def spec_rope_decoder_absorption(ex, backend, dps):
    """pyref's full PLDR model with a = 0 and b_a = G*_l (commEmbed blocks per head, so G_LM = G*_l
    on every input: the invariance hypothesis, verified on the reported G_LM) and real RoPE gives
    the same decoder output and logits as (i) pyref's SDPAModel with W_Q, b_Q absorbed (torch
    layout) and (ii) the evaluator's Lean ``sdpaDecoder`` over ``absorbLayers`` (Lean layout,
    ``ropeRows``) followed by the output head. Tokens avoid the pad id. Bound 1e-40·scale (mp)."""
    L, d, seed, toks = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 31)
    setup = [_dyadic_setup(cfg, rng, "commuting") for _ in range(L)]
    sd = _a_zero_sd(cfg, seed, [s[2] for s in setup])
    sd_abs = dict(sd)
    for li, (wq, bq, _, wq2, bq2) in enumerate(setup):
        m = f"decoder.dec_layers.{li}.mha1.wq."
        sd[m + "weight"], sd[m + "bias"] = wq, bq
        sd_abs[m + "weight"], sd_abs[m + "bias"] = wq2, bq2
    o1 = pyref.PLDRModel.from_state_dict(sd, cfg).forward([toks], backend=backend, dps=dps)
    sdpa = pyref.SDPAModel.from_state_dict(sd_abs, cfg, strict=False)
    o2 = sdpa.forward([toks], backend=backend, dps=dps)
    ch = Checks()
    scale = max(1.0, upper_float(maxabs(o1.hidden)), upper_float(maxabs(o1.logits)))
    ch.le("PLDR(G_LM = G*) = SDPAModel(absorbed)", _fwd_dev(o1, o2), bound(backend, 0, scale))
    with ev_ctx(dps):
        for li, (dd, s) in enumerate(zip(o1.deductive, setup)):
            cmp(ch, f"layer {li}: G_LM = G* (invariance)", dd["G_LM"][0], mat(s[2]), backend)
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg, learned=False)
        acfg = ev.config(M, toks)
        layers = []
        for Ls, s in zip(M["layers"], setup):
            Lab = dict(Ls)
            Lab["attn"] = _absorb_params_lean(Ls["attn"], [mat(g) for g in s[2]], cfg.d_k)
            layers.append(Lab)
        Xo = ev.sdpaDecoder(F, acfg, layers, ev.embed(F, M, toks))
        cmp(ch, "hidden = Lean sdpaDecoder (absorbLayers)", o1.hidden[0], Xo, backend, T=scale)
        cmp(ch, "logits = Lean sdpaDecoder (absorbLayers) + head", o1.logits[0],
            ev.affine(Xo, M["Wout"], M["bout"]), backend, T=scale)
    return ch.outcome(met=_model_queries_matter(toks))

