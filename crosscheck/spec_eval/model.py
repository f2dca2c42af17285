"""The PLDR-LLM model of ``Formal/`` evaluated from its Lean definitions (no pyref code).

One small function per Lean definition, named like it, on mpmath scalars in nested lists with
explicit loops (:mod:`._scalar`). Conventions are Lean's: matrices are lists of rows; a
projection is ``affine X W b = X W + 𝟙 bᵀ`` with ``W`` of shape [in][out] (torch's ``Linear``
weight transposed); the SwiGLU blocks keep torch's [out][in] layout (``SwiGLUParams``); RoPE
multiplies row ``t`` on the right by the row-convention matrix ``R_tᵀ`` (``rotRows``). The model
weights are read from a v510 state dict (:func:`modelSpec`) and converted exactly; ε and Θ come
from the configuration's decimal repr (:func:`._scalar.const`). Where the Lean files leave a
primitive abstract, the choice is stated: ``sqrt`` = ``mpmath.sqrt``, gate σ = logistic, the power
of ``hadPow`` = ``ExpLog.rpow`` (``exp(p·log x)``), the RoPE family = torchtune's (spec A.4
step 2). The model's attention mask is the authors' additive ``-1e9`` (spec A.4 step 9, G.10);
the Lean ideal mask is :func:`maskedSoftmax`. Call inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

import mpmath

from ._scalar import add, const, eye, fsum, mat, matmul, sigmoid, transpose

#: the authors' finite additive mask constant (spec A.4 step 9)
MASK_VALUE = -1000000000


# ==================================================================== Formal/Data/Matrix.lean
def hadamard(A, B):
    """``Mat.hadamard``: (A ⊙ B)_ij = A_ij B_ij."""
    return [[x * y for x, y in zip(ar, br)] for ar, br in zip(A, B)]


def rowBroadcast(b, m):
    """``Mat.rowBroadcast``: the m × n matrix 𝟙 bᵀ (every row is b)."""
    return [list(b) for _ in range(m)]


def smul(c, A):
    """``Mat.smul``: (c·A)_ij = c A_ij."""
    return [[c * x for x in r] for r in A]


def hadPow(A, P):
    """``Mat.hadPow`` with ``pw = ExpLog.rpow`` (``Formal/Structure/PowerLaw.lean``,
    ``hadPow_apply``): (A^{⊙P})_ij = exp(P_ij · log A_ij)."""
    return [[mpmath.exp(p * mpmath.log(x)) for x, p in zip(ar, pr)] for ar, pr in zip(A, P)]


# ================================================================== Formal/Attention/Basic.lean
def affine(X, W, b):
    """``affine X W b = X W + 𝟙 bᵀ`` (W of shape [in][out])."""
    return add(matmul(X, W), rowBroadcast(b, len(X)))


def rotRows(R, Q):
    """``rotRows R Q``: row t of the result is (row t of Q) · R t."""
    return [matmul([q], R[t])[0] for t, q in enumerate(Q)]


def noRope(S, dk):
    """``noRope``: every R t is the identity."""
    return [eye(dk) for _ in range(S)]


def causalMask(S):
    """``causalMask``: row t may attend key p iff p ≤ t."""
    return [[p <= t for p in range(S)] for t in range(S)]


def padCausalMask(pad):
    """``padCausalMask``: row t may attend key p iff p ≤ t and p is not a pad key."""
    S = len(pad)
    return [[p <= t and not pad[p] for p in range(S)] for t in range(S)]


def scores(s, Q, G, K):
    """``scores s Q G K = (Q G Kᵀ) / s``."""
    return [[e / s for e in r] for r in matmul(matmul(Q, G), transpose(K))]


def sdpaScores(s, Q, K):
    """``sdpaScores s Q K = (Q Kᵀ) / s``."""
    return [[e / s for e in r] for r in matmul(Q, transpose(K))]


def attnWeights(M, E, additive=False):
    """``attnWeights``: the masked softmax of every row t of E with mask row M t (the Lean ideal
    :func:`maskedSoftmax`, or with ``additive`` the model's :func:`additiveSoftmax`)."""
    f = additiveSoftmax if additive else maskedSoftmax
    return [f(m, e) for m, e in zip(M, E)]


def plgaAttention(M, s, Q, G, K, V, additive=False):
    """``plgaAttention = softmax_M((Q G Kᵀ)/s) V``."""
    return matmul(attnWeights(M, scores(s, Q, G, K), additive), V)


def sdpaAttention(M, s, Q, K, V, additive=False):
    """``sdpaAttention = softmax_M((Q Kᵀ)/s) V``."""
    return matmul(attnWeights(M, sdpaScores(s, Q, K), additive), V)


# ================================================================ Formal/Attention/Softmax.lean
def maskedDenom(allowed, x):
    """``maskedDenom``: Z = Σ_{allowed j} exp(x_j)."""
    return fsum(mpmath.exp(v) if a else mpmath.mpf(0) for a, v in zip(allowed, x))


def maskedSoftmax(allowed, x):
    """``maskedSoftmax``: exp(x_i)/Z on allowed keys, exactly 0 on masked keys (no max shift)."""
    Z = maskedDenom(allowed, x)
    return [mpmath.exp(v) / Z if a else mpmath.mpf(0) for a, v in zip(allowed, x)]


def softmax(x):
    """``softmax``: every key allowed."""
    return maskedSoftmax([True] * len(x), x)


def additiveSoftmax(allowed, x):
    """The authors' mask (spec A.4 step 9, G.10; not a Lean definition): the plain softmax of
    x + M·(−1e9), M = 1 on masked keys. Masked weights are e^{−10⁹+O(1)}, not 0."""
    return softmax([v if a else v + MASK_VALUE for a, v in zip(allowed, x)])


# ======================================================= RoPE (spec A.4 step 2, Formal/Rope)
def ropeTheta(j, dk, base):
    """θ_j = Θ^{−2j/d_k} (as exp(−(2j/d_k)·log Θ))."""
    return mpmath.exp(-(mpmath.mpf(2 * j) / dk) * mpmath.log(base))


def ropeMat(n, dk, base):
    """``Rope.ropeMat`` / ``flatRope`` at position n (column convention, interleaved pairs):
    blockdiag_j rot(n θ_j), rot(φ) = [[cos φ, −sin φ], [sin φ, cos φ]] on coordinates 2j, 2j+1."""
    R = [[mpmath.mpf(0)] * dk for _ in range(dk)]
    for j in range(dk // 2):
        phi = n * ropeTheta(j, dk, base)
        c, s = mpmath.cos(phi), mpmath.sin(phi)
        R[2 * j][2 * j], R[2 * j][2 * j + 1] = c, -s
        R[2 * j + 1][2 * j], R[2 * j + 1][2 * j + 1] = s, c
    return R


def ropeRows(positions, dk, base):
    """The row-convention family of ``AttnConfig.rope``: R t = ropeMat(p_t)ᵀ, so that row t of
    ``rotRows`` is (R_{p_t} q_t)ᵀ."""
    return [transpose(ropeMat(p, dk, base)) for p in positions]


# =============================================================== Formal/Structure/LayerNorm.lean
def rowMean(r):
    """``rowMean``: (Σ_i r_i)/n."""
    return fsum(r) / len(r)


def rowVar(r):
    """``rowVar``: (Σ_i (r_i − μ)²)/n (biased)."""
    mu = rowMean(r)
    return fsum((x - mu) * (x - mu) for x in r) / len(r)


def normalize(eps, r):
    """``normalize``: (r_i − μ)/√(var + ε)."""
    mu, s = rowMean(r), mpmath.sqrt(rowVar(r) + eps)
    return [(x - mu) / s for x in r]


def lnEps(eps, gamma, beta, r):
    """``lnEps``: γ_i û_i + β_i."""
    return [g * u + b for g, u, b in zip(gamma, normalize(eps, r), beta)]


# ================================================================= Formal/Structure/RowMap.lean
def silu(u):
    """``silu``: u σ(u)."""
    return u * sigmoid(u)


def swigluMat(p, A):
    """``swigluMat``: (silu(A W₁ᵀ + 𝟙b₁ᵀ) ⊙ (A W₂ᵀ + 𝟙b₂ᵀ)) W₃ᵀ + 𝟙b₃ᵀ, with
    p = (W₁, b₁, W₂, b₂, W₃, b₃) in torch's [out][in] layout."""
    W1, b1, W2, b2, W3, b3 = p
    m = len(A)
    gate = add(matmul(A, transpose(W1)), rowBroadcast(b1, m))
    val = add(matmul(A, transpose(W2)), rowBroadcast(b2, m))
    hid = hadamard([[silu(x) for x in r] for r in gate], val)
    return add(matmul(hid, transpose(W3)), rowBroadcast(b3, m))


def swigluRow(p, r):
    """``swigluRow``: k ↦ Σ_j silu(Σ_l r_l W₁[j][l] + b₁_j)(Σ_l r_l W₂[j][l] + b₂_j) W₃[k][j]
    + b₃_k."""
    W1, b1, W2, b2, W3, b3 = p
    n, h = len(r), len(b1)
    hid = [silu(fsum(r[m] * W1[j][m] for m in range(n)) + b1[j])
           * (fsum(r[m] * W2[j][m] for m in range(n)) + b2[j]) for j in range(h)]
    return [fsum(hid[j] * W3[k][j] for j in range(h)) + b3[k] for k in range(len(b3))]


def lnMat(eps, gamma, beta, A):
    """``lnMat``: ``lnEps`` on every row."""
    return [lnEps(eps, gamma, beta, r) for r in A]


def unitMat(eps, u, A):
    """``unitMat``: A ↦ LN_u(A + g_n(…g₁(A))), u = (blocks, γ, β) (Lean's ``UnitParams`` has
    n = 2 blocks; the v510 checkpoints too)."""
    blocks, gamma, beta = u
    h = A
    for p in blocks:
        h = swigluMat(p, h)
    return lnMat(eps, gamma, beta, add(A, h))


def unitRow(eps, u, r):
    """``unitRow``: the residual unit on one row."""
    blocks, gamma, beta = u
    h = r
    for p in blocks:
        h = swigluRow(p, h)
    return lnEps(eps, gamma, beta, [x + y for x, y in zip(r, h)])


def phiResMat(eps, phi, A):
    """``phiResMat``: LN_A, then the residual units in order; phi = (γ_A, β_A, units)."""
    gA, bA, units = phi
    B = lnMat(eps, gA, bA, A)
    for u in units:
        B = unitMat(eps, u, B)
    return B


def phiResRow(eps, phi, r):
    """``phiResRow``: the shared row map φ of Φ_res."""
    gA, bA, units = phi
    x = lnEps(eps, gA, bA, r)
    for u in units:
        x = unitRow(eps, u, x)
    return x


# ======================================= Formal/Metric.lean, Structure/Density.lean, Cache.lean
def iswiglu(u):
    """``iswiglu``: u·u·σ(u)."""
    return u * u * sigmoid(u)


def metricTensor(W, A, b, eps):
    """``metricTensor``: iSwiGLU((W A)_ij + b_ij) + ε (W multiplies on the left)."""
    return [[iswiglu(x + y) + eps for x, y in zip(wr, br)] for wr, br in zip(matmul(W, A), b)]


def density(Q):
    """``density``: D = Qᵀ Q (``density_apply``: D_ij = Σ_p Q_pi Q_pj)."""
    return matmul(transpose(Q), Q)


def energyCurvature(a, AP, ba):
    """``energyCurvature`` (``Formal/Attention/Cache.lean``): a · A_P + b_a."""
    return add(matmul(a, AP), ba)


# ====================================================================== Formal/Spec/Operator.lean
def lnA(F, phi, D):
    """``lnA``: LN_A of the density (``F``: ``Prims``, a dict with lnEps, metricEps)."""
    return lnMat(F["lnEps"], phi[0], phi[1], D)


def residualLearner(F, phi, A):
    """``residualLearner``: the residual units of Φ_res in order (without LN_A)."""
    for u in phi[2]:
        A = unitMat(F["lnEps"], u, A)
    return A


def prefillA(F, phi, Q):
    """``prefillA``: Φ_res(LN_A(Q̂ᵀQ̂)) of a rotated query Q̂."""
    return residualLearner(F, phi, lnA(F, phi, density(Q)))


def opALM(F, p, A):
    """``opALM``: metricTensor σ W A b ε (p: ``OperatorParams`` dict W, b, P, a, ba)."""
    return metricTensor(p["W"], A, p["b"], F["metricEps"])


def opAP(p, ALM):
    """``opAP``: A_LM^{⊙P}."""
    return hadPow(ALM, p["P"])


def opG(p, AP):
    """``opG``: energyCurvature a A_P b_a."""
    return energyCurvature(p["a"], AP, p["ba"])


def deductive(F, phi, p, Q):
    """``deductive``: opG (opAP (opALM (prefillA Q̂)))."""
    return opG(p, opAP(p, opALM(F, p, prefillA(F, phi, Q))))


# ================================================================ Formal/Attention/MultiHead.lean
def splitHead(X, h, dk):
    """``splitHead``: columns h·d_k … h·d_k + d_k − 1."""
    return [r[h * dk:(h + 1) * dk] for r in X]


def concatHeads(heads):
    """``concatHeads``: the per-head matrices side by side, in head order."""
    return [[x for h in range(len(heads)) for x in heads[h][t]] for t in range(len(heads[0]))]


def queries(cfg, P, X, h):
    """``queries``: rotRows cfg.rope (splitHead (affine X W_Q b_Q) h)."""
    return rotRows(cfg["rope"], splitHead(affine(X, P["WQ"], P["bQ"]), h, cfg["dk"]))


def keys(cfg, P, X, h):
    """``keys``: rotRows cfg.rope (splitHead (affine X W_K b_K) h)."""
    return rotRows(cfg["rope"], splitHead(affine(X, P["WK"], P["bK"]), h, cfg["dk"]))


def values(cfg, P, X, h):
    """``values``: splitHead (affine X W_V b_V) h (never rotated)."""
    return splitHead(affine(X, P["WV"], P["bV"]), h, cfg["dk"])


def mha(cfg, P, G, X):
    """``mha`` (G a list of per-head operators) or, for G = None, ``mhaSDPA``."""
    heads = []
    for h in range(cfg["H"]):
        Q, K, V = queries(cfg, P, X, h), keys(cfg, P, X, h), values(cfg, P, X, h)
        if G is None:
            heads.append(sdpaAttention(cfg["mask"], cfg["scale"], Q, K, V, cfg["additive"]))
        else:
            heads.append(plgaAttention(cfg["mask"], cfg["scale"], Q, G[h], K, V,
                                       cfg["additive"]))
    return affine(concatHeads(heads), P["WO"], P["bO"])


def postLN(F, L, X, Y):
    """``postLN`` with the spec's maps (``layerParams``): X' = LN₁(X + Y),
    LN₂(X' + swigluMat(X'))."""
    X1 = lnMat(F["lnEps"], L["gamma1"], L["beta1"], add(X, Y))
    return lnMat(F["lnEps"], L["gamma2"], L["beta2"], add(X1, swigluMat(L["ffn"], X1)))


def decoderLayer(F, cfg, L, G, X):
    """``decoderLayer`` (G = None: ``sdpaDecoderLayer``): postLN of the multi-head output."""
    return postLN(F, L, X, mha(cfg, L["attn"], G, X))


# ====================================================================== Formal/Spec/Decoder.lean
def headQ(cfg, P, X, h):
    """``headQ``: the rotated query of head h."""
    return queries(cfg, P, X, h)


def headA(F, cfg, P, M, X, h):
    """``headA``: prefillA of the head's rotated query."""
    return prefillA(F, M["phi"], headQ(cfg, P, X, h))


def headG(F, cfg, P, M, X):
    """``headG``: the per-head operators G_LM at the layer input X."""
    return [deductive(F, M["phi"], M["weights"][h], headQ(cfg, P, X, h))
            for h in range(cfg["H"])]


def layerRun(F, cfg, L, X):
    """``(layer F cfg L).run cfg X`` (``layer_run_eq``): decoderLayer with G = headG X."""
    return decoderLayer(F, cfg, L, headG(F, cfg, L["attn"], L["learner"], X), X)


def decoder(F, cfg, Ls, X):
    """``decoder``: the layers first to last (``decoder_cons``)."""
    for L in Ls:
        X = layerRun(F, cfg, L, X)
    return X


def sdpaDecoder(F, cfg, Ls, X):
    """``sdpaDecoder cfg (sdpaLayers F Ls)``: the same layers with SDPA attention."""
    for L in Ls:
        X = decoderLayer(F, cfg, L, None, X)
    return X


def config(Mdl, tok, positions=None, additive=True):
    """``config``: pad-causal mask (pad id 0), scale √d_k, RoPE at positions 0…S−1 (or the
    given ones); the mask semantics is the model's additive one unless ``additive=False``."""
    S = len(tok)
    dk = Mdl["dk"]
    pos = list(range(S)) if positions is None else list(positions)
    return {"mask": padCausalMask([t == 0 for t in tok]), "scale": mpmath.sqrt(dk),
            "rope": ropeRows(pos, dk, Mdl["ropeBase"]), "dk": dk, "H": Mdl["H"],
            "additive": additive}


def embed(F, Mdl, tok):
    """``embed``: LN_emb(emb[tok] · √d)."""
    s = mpmath.sqrt(len(Mdl["gammaE"]))
    return lnMat(F["lnEps"], Mdl["gammaE"], Mdl["betaE"], [[x * s for x in Mdl["emb"][t]]
                                                           for t in tok])


def logits(F, Mdl, tok, additive=True):
    """``logits``: embedding, spec decoder, untied output head (no final LayerNorm)."""
    cfg = config(Mdl, tok, additive=additive)
    return affine(decoder(F, cfg, Mdl["layers"], embed(F, Mdl, tok)), Mdl["Wout"], Mdl["bout"])


def sdpaLogits(F, Mdl, tok, additive=True):
    """``sdpaLogits``: the same with the SDPA decoder (pyref's ``to_sdpa``)."""
    cfg = config(Mdl, tok, additive=additive)
    return affine(sdpaDecoder(F, cfg, Mdl["layers"], embed(F, Mdl, tok)), Mdl["Wout"],
                  Mdl["bout"])


# ====================================================== parameters from a v510 state dict
def prims(conf):
    """``Prims``: the LayerNorm ε and the metric ε of a configuration (decimal constants)."""
    return {"lnEps": const(conf.ln_eps), "metricEps": const(conf.metric_eps)}


def _glu(sd, pre):
    return tuple(mat(sd[pre + f"gluw{i}.{leaf}"]) for i in (1, 2, 3) for leaf in ("weight",
                                                                                 "bias"))


def layerSpec(sd, conf, li, learned=True):
    """``LayerSpec`` of layer ``li`` from the v510 key names (``decoder.dec_layers.{li}.…``):
    projections transposed to Lean's [in][out], SwiGLU blocks kept [out][in]."""
    pre = f"decoder.dec_layers.{li}."
    m = pre + "mha1."
    attn = {}
    for lean, key in (("Q", "wq"), ("K", "wk"), ("V", "wv"), ("O", "dense")):
        attn["W" + lean] = transpose(mat(sd[m + key + ".weight"]))
        attn["b" + lean] = mat(sd[m + key + ".bias"])
    L = {"attn": attn, "ffn": _glu(sd, pre + "ffn."),
         "gamma1": mat(sd[pre + "layernorm1.weight"]), "beta1": mat(sd[pre + "layernorm1.bias"]),
         "gamma2": mat(sd[pre + "layernorm2.weight"]), "beta2": mat(sd[pre + "layernorm2.bias"])}
    if learned:
        units = []
        for u in range(conf.num_res_units):
            r = f"{m}reslayerAs.{u}."
            blocks = [_glu(sd, f"{r}denseAs.{g}.") for g in range(conf.num_glu_blocks)]
            units.append((blocks, mat(sd[r + "layernormA.weight"]),
                          mat(sd[r + "layernormA.bias"])))
        phi = (mat(sd[m + "layernorm1.weight"]), mat(sd[m + "layernorm1.bias"]), units)
        op = {lean: mat(sd[m + "plgatt_layer." + key]) for lean, key in
              (("W", "Wlst"), ("b", "blst"), ("P", "pwlst"), ("a", "alst"), ("ba", "balst"))}
        weights = [{k: v[h] for k, v in op.items()} for h in range(conf.num_heads)]
        L["learner"] = {"phi": phi, "weights": weights}
    return L


def modelSpec(sd, conf, learned=True):
    """``ModelSpec`` from a v510 state dict and a configuration (``learned=False``: the
    constant-operator / SDPA key set, without the metric learner)."""
    return {"emb": mat(sd["decoder.embedding.weight"]),
            "gammaE": mat(sd["decoder.layernorm1.weight"]),
            "betaE": mat(sd["decoder.layernorm1.bias"]),
            "layers": [layerSpec(sd, conf, li, learned) for li in range(conf.num_layers)],
            "Wout": transpose(mat(sd["final_layer.weight"])), "bout": mat(sd["final_layer.bias"]),
            "dk": conf.d_model // conf.num_heads, "H": conf.num_heads,
            "ropeBase": const(conf.rope_base)}
