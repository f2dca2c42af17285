"""Block cross-entropy vs sequential NLL (spec D, S1; spec C and G.7): block = one call on
win[:−1], sequential = one call per prefix; per token, per prompt and pooled, with position
buckets."""

from __future__ import annotations

import numpy as np

import pyref
from pyref.backend import get_backend, to_float64

from .records import progress, set_null

BUCKETS = ((0, 1), (1, 4), (4, 16), (16, 64), (64, 256), (256, None))
_PER_TOKEN = ("seq_nll_per_token", "block_ce_per_token", "gap_per_token")


def _unscored(rec: dict, reason: str):
    for k in _PER_TOKEN:
        set_null(rec, k, reason)
    rec["gaps"] = []
    return rec, None


def block_vs_sequential(model, prompt, backend, dps):
    """(record of one prompt, its pooled per-target arrays or None)."""
    b = get_backend(backend, dps)
    t = np.array([prompt], dtype=np.int64)
    rec: dict = {"n_tokens": len(prompt)}
    if len(prompt) < 2:
        return _unscored(rec, "the prompt has fewer than 2 tokens: no target to score")
    try:
        blk = pyref.block_cross_entropy(model, t, backend=b)
        seq = pyref.sequential_nll(model, t, backend=b)
    except ValueError as exc:
        if "pad id 0" in str(exc):
            return _unscored(rec, str(exc))
        raise
    with b.context():
        gap = to_float64(blk.token_logprobs - seq.token_logprobs)[0]     # (−seq lp) − (−blk lp)
        total_gap = float(seq.loss - blk.loss)
    mask = np.asarray(blk.mask[0])
    slp, blp = to_float64(seq.token_logprobs)[0], to_float64(blk.token_logprobs)[0]
    g = [float(gap[i]) if mask[i] else None for i in range(len(gap))]
    ag = [abs(x) for x in g if x is not None]
    rec.update({"n_targets": int(mask.sum()), "seq_nll_per_token": float(seq.loss),
                "block_ce_per_token": float(blk.loss), "gap_per_token": total_gap,
                "mean_abs_gap": float(np.mean(ag)), "max_abs_gap": float(np.max(ag)),
                "gaps": g})
    pooled = {"seq_lp": slp[mask], "blk_lp": blp[mask], "gap": gap[mask],
              "pos": np.nonzero(mask)[0]}
    return rec, pooled


def blockseq_aggregate(pooled):
    """(pooled aggregate over every non-pad target of every prompt, position buckets)."""
    pooled = [p for p in pooled if p is not None]
    if not pooled:
        return {"n_targets": 0}, []
    slp = np.concatenate([p["seq_lp"] for p in pooled])
    blp = np.concatenate([p["blk_lp"] for p in pooled])
    gap = np.concatenate([p["gap"] for p in pooled])
    pos = np.concatenate([p["pos"] for p in pooled])
    ag = np.abs(gap)
    agg = {"n_targets": int(gap.size), "seq_nll_per_token": float(-slp.mean()),
           "block_ce_per_token": float(-blp.mean()), "gap_per_token": float(gap.mean()),
           "mean_abs_gap": float(ag.mean()), "max_abs_gap": float(ag.max()),
           "abs_gap_quantiles": {q: float(np.quantile(ag, float(q)))
                                 for q in ("0.5", "0.9", "0.99")}}
    buckets = []
    for lo, hi in BUCKETS:
        sel = (pos >= lo) & ((pos < hi) if hi is not None else True)
        if not sel.any():
            continue
        buckets.append({"rows": f"{lo}-{hi - 1}" if hi is not None else f"{lo}+",
                        "n": int(sel.sum()), "mean_gap": float(gap[sel].mean()),
                        "mean_abs_gap": float(ag[sel].mean()),
                        "max_abs_gap": float(ag[sel].max())})
    return agg, buckets


def blockseq_section(model, prompts, backend, dps, show_progress=True) -> dict:
    recs, pooled = [], []
    for i, p in enumerate(progress(prompts, desc="block/sequential", enabled=show_progress)):
        r, pl = block_vs_sequential(model, p, backend, dps)
        recs.append({"prompt": i, **r})
        pooled.append(pl)
    agg, buckets = blockseq_aggregate(pooled)
    return {"computed": True, "per_prompt": recs, "aggregate": agg, "position_buckets": buckets}
