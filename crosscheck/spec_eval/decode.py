"""Cached decoding of spec B (``PLGA_SPEC.md`` §B), assembled from :mod:`.model` (no pyref code).

The Lean files model the uncached decoder and the G-cache (``Formal/Attention/Cache.lean``,
``Formal/Spec/Theorems.lean``); the KV-cache (frozen ``A``) is spec B only, so it is written here
from the spec's text:

* **prefill** (no KV-cache): the full sequence at positions 0…S−1 with the pad-causal mask;
  per head ``A = prefillA(Q̂)`` (Φ_res(LN_A(Q̂ᵀQ̂))), then ``A_LM, A_P, G_LM`` — or, with a
  G-cache ``[A_LM, G_LM]``, those two taken from it (``A_P`` not computed);
* **cached call** (KV-cache ``[K̂, V, A]`` of length T₀): exactly one new token, its query and key
  rotated at the absolute position T₀, appended to the cached rotated keys and raw values, no
  mask; ``A`` is the cached prefill ``A`` (density and Φ_res skipped), the operator is recomputed
  from it (or taken from the G-cache);
* every call returns the new KV-cache ``[K̂_all, V_all, A]`` and the G-cache ``[A_LM, G_LM]``.

:func:`generate` is greedy decoding with the four cache combinations, as documented by spec B
and ``pyref.PLDRModel.generate``. Operator sources: ``"plga"`` (learned), ``"constant"`` (given
per-layer G, no A, no G-cache) and ``"sdpa"`` (``sdpaAttention``, reported G = I). Single
sequence (batch 1); call inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

from ._scalar import eye, mat
from .model import (
    affine,
    attnWeights,
    concatHeads,
    config,
    embed,
    keys,
    matmul,
    opALM,
    opAP,
    opG,
    postLN,
    prefillA,
    queries,
    scores,
    sdpaScores,
    values,
)


def _operator(L, ops, Gconst, Q, A, gc):
    """(A, A_LM, A_P, G) of one head: the learned chain (A from the cache or ``prefillA``; the
    operator from the G-cache entry ``gc`` or recomputed), or a fixed operator."""
    if ops == "sdpa":
        return None, None, None, eye(len(Q[0]))
    if ops == "constant":
        return None, None, None, Gconst
    if A is None:
        A = prefillA(L["F"], L["phi"], Q)
    if gc is not None:
        return A, gc[0], None, gc[1]
    ALM = opALM(L["F"], L["p"], A)
    AP = opAP(L["p"], ALM)
    return A, ALM, AP, opG(L["p"], AP)


def attentionCall(F, cfg, L, X, kv, gc, ops="plga", G=None):
    """One multi-head sublayer call of spec A.4 / B on the new rows X (``cfg`` at their positions,
    its mask over the keys cached + new): returns (output, trace, new kv entry, new gc entry).
    ``kv``: None or {"K", "V", "A"} per head; ``gc``: None or (A_LM, G_LM) per head."""
    P, H = L["attn"], cfg["H"]
    trace = {k: [] for k in ("A", "A_LM", "A_P", "G_LM", "E")}
    newkv = {"K": [], "V": [], "A": []}
    heads = []
    for h in range(H):
        Q, K, V = queries(cfg, P, X, h), keys(cfg, P, X, h), values(cfg, P, X, h)
        if kv is not None:
            K, V = kv["K"][h] + K, kv["V"][h] + V
        A0 = None if kv is None or ops != "plga" else kv["A"][h]
        learner = None if ops != "plga" else {"F": F, "phi": L["learner"]["phi"],
                                              "p": L["learner"]["weights"][h]}
        A, ALM, AP, Gh = _operator(learner, ops, None if G is None else G[h], Q, A0,
                                   None if gc is None else (gc[0][h], gc[1][h]))
        E = sdpaScores(cfg["scale"], Q, K) if ops == "sdpa" else scores(cfg["scale"], Q, Gh, K)
        heads.append(matmul(attnWeights(cfg["mask"], E, cfg["additive"]), V))
        for k, v in zip(("A", "A_LM", "A_P", "G_LM", "E"), (A, ALM, AP, Gh, E)):
            trace[k].append(v)
        newkv["K"].append(K)
        newkv["V"].append(V)
        newkv["A"].append(A)
    out = affine(concatHeads(heads), P["WO"], P["bO"])
    if ops != "plga":
        newkv["A"] = None
    newgc = (trace["A_LM"], trace["G_LM"]) if ops == "plga" else None
    return out, trace, newkv, newgc


def forward(F, Mdl, tok, kv=None, gc=None, ops="plga", G=None):
    """pyref's ``PLDRModel.forward`` on one sequence, from the spec: ``kv`` None (prefill on
    ``tok`` with the pad-causal mask) or the per-layer caches of a previous call (then ``tok`` is
    one new token at position T₀, no mask); ``gc`` None or per-layer (A_LM, G_LM); ``G`` the
    per-layer constant operators for ``ops="constant"``. Returns a dict with ``logits``,
    ``hidden``, ``layers`` (per layer A, A_LM, A_P, G_LM, E, each a list over heads), ``kv``,
    ``gc``."""
    if kv is None:
        cfg = config(Mdl, tok)
    else:
        if len(tok) != 1:
            raise ValueError("a KV-cached call takes exactly one new token (spec B)")
        T0 = len(kv[0]["K"][0])
        cfg = config(Mdl, tok, positions=[T0])
        cfg["mask"] = [[True] * (T0 + 1)]
    X = embed(F, Mdl, tok)
    layers, newkv, newgc = [], [], []
    for li, L in enumerate(Mdl["layers"]):
        Y, trace, kvl, gcl = attentionCall(F, cfg, L, X, None if kv is None else kv[li],
                                           None if gc is None else gc[li], ops,
                                           None if G is None else G[li])
        X = postLN(F, L, X, Y)
        layers.append(trace)
        newkv.append(kvl)
        newgc.append(gcl)
    return {"logits": affine(X, Mdl["Wout"], Mdl["bout"]), "hidden": X, "layers": layers,
            "kv": newkv, "gc": newgc if ops == "plga" else None}


def argmax(row):
    """The first index of the largest entry (greedy choice)."""
    best = 0
    for i, v in enumerate(row):
        if v > row[best]:
            best = i
    return best


def generate(F, Mdl, prompt, n, kvcache=True, gcache=True, ops="plga", G=None,
             gcache_init=None):
    """Greedy decoding (spec B): a prefill call on the prompt (G-cache ``gcache_init``), then per
    step the argmax of the last logits row is appended; the next call feeds only the new token with
    the returned KV-cache if ``kvcache`` (else the whole sequence, uncached), and the returned
    [A_LM, G_LM] if ``gcache`` (else ``gcache_init``). Fixed-operator models have no G-cache.
    Stops after ``n`` new tokens (the last one triggers no call). Returns tokens, new tokens,
    step_logits, step_G (per step, per layer, per head) and the list of call results."""
    if ops != "plga":
        gcache = False
    seq = list(prompt)
    out = forward(F, Mdl, seq, gc=gcache_init, ops=ops, G=G)
    calls, step_logits, step_G = [out], [], []
    for _ in range(n):
        last = out["logits"][-1]
        nxt = argmax(last)
        step_logits.append(last)
        step_G.append([lay["G_LM"] for lay in out["layers"]])
        seq.append(nxt)
        if len(seq) >= len(prompt) + n:
            break
        kv = out["kv"] if kvcache else None
        gc = out["gc"] if gcache else gcache_init
        out = forward(F, Mdl, [nxt] if kvcache else seq, kv=kv, gc=gc, ops=ops, G=G)
        calls.append(out)
    return {"tokens": seq, "new_tokens": seq[len(prompt):], "step_logits": step_logits,
            "step_G": step_G, "calls": calls}


def constantOps(Gs):
    """Per-layer constant operators [H][dk][dk] as exact mpf lists (``ConstantGModel``'s G)."""
    return [mat(g) for g in Gs]


