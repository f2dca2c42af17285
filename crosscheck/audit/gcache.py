"""G-cache fidelity (spec D, G; spec B): greedy decoding with KV+G cache vs uncached forward
passes on the same tokens -- per step the max logit deviation d_t, the top-1/top-2 margins,
the sufficient criterion 2·max d < min margin, ε_G(t, l), max|ΔG|, and the uncached greedy
tokens."""

from __future__ import annotations

import numpy as np

from pyref.backend import get_backend, to_float64

from .records import finite_or_none, progress, rms, set_null


def _top2(row) -> tuple[int, object]:
    """(argmax, top1 − top2) of a 1-D backend array (float or mpf objects)."""
    if row.dtype == object:
        vals = list(row)
        k = max(range(len(vals)), key=lambda j: vals[j])
        rest = vals[:k] + vals[k + 1:]
        return k, (vals[k] - max(rest)) if rest else None
    k = int(np.argmax(row))
    if row.size < 2:
        return k, None
    two = np.partition(row, -2)[-2:]
    return k, two[1] - two[0]


def _operator_drift(out, G_prompt, b):
    """Per layer ε_G = RMS(G_uncached − G_prompt)/RMS(G_uncached) and max|ΔG|."""
    row_e, row_m = [], []
    for li in range(len(G_prompt)):
        Gu = out.deductive[li]["G_LM"][0]
        with b.context():
            diff = to_float64(Gu - G_prompt[li][0])
        ru = rms(to_float64(Gu))
        row_e.append(rms(diff) / ru if ru > 0 else 0.0)
        row_m.append(float(np.max(np.abs(diff))))
    return row_e, row_m


def _along_cached(model, g, S0, b, show_progress, desc) -> dict:
    """Every measurement along the cached trajectory ``g`` (one uncached pass per step)."""
    G_prompt = g.step_G[0]
    m = {"d": [], "margin_cached": [], "margin_uncached": [], "eps_G": [], "max_dG": [],
         "uncached_argmax": []}
    for t in progress(range(len(g.step_logits)), desc=desc, enabled=show_progress):
        lc = g.step_logits[t][0]
        out = model.forward(g.tokens[:, :S0 + t], backend=b)
        lu = out.logits[0, -1]
        with b.context():
            m["d"].append(float(np.max(np.abs(to_float64(lc - lu)))))
            _, mc = _top2(lc)
            ku, mu = _top2(lu)
        m["margin_cached"].append(finite_or_none(mc))
        m["margin_uncached"].append(finite_or_none(mu))
        m["uncached_argmax"].append(int(ku))
        row_e, row_m = _operator_drift(out, G_prompt, b)
        m["eps_G"].append(row_e)
        m["max_dG"].append(row_m)
    return m


def _uncached_greedy(model, g, S0, steps, cached, unc_arg, b):
    """(uncached greedy tokens, first divergence step or None): equal to the cached tokens up
    to the first disagreement of the uncached argmax along the cached trajectory; after it,
    uncached greedy decoding continues on its own trajectory."""
    first_div = next((t for t in range(steps) if unc_arg[t] != cached[t]), None)
    if first_div is None:
        return list(cached), None
    seq = np.concatenate([g.tokens[:, :S0 + first_div], [[unc_arg[first_div]]]], axis=1)
    rest = steps - first_div - 1
    if rest > 0:
        gu = model.generate(seq, rest, kvcache=False, gcache=False, backend=b)
        seq = gu.tokens
    return [int(x) for x in seq[0, S0:]], first_div


def gcache_fidelity(model, prompt, steps, backend, dps, show_progress=True, desc="g-cache"):
    """Greedy KV+G-cached decoding vs uncached forward passes on the same tokens (spec D,
    G).  Differences are formed in the backend (so mp deviations below 1e-16 survive) and
    then converted to float."""
    b = get_backend(backend, dps)
    p = np.array([prompt], dtype=np.int64)
    S0 = p.shape[1]
    rec = {"prompt_len": S0, "steps": steps}
    if steps == 0:
        set_null(rec, "sufficient", "--steps 0: no decoding steps")
        return rec
    g = model.generate(p, steps, kvcache=True, gcache=True, backend=b, return_operators=True)
    L = len(g.step_G[0])
    cached = [int(x) for x in g.tokens[0, S0:]]
    m = _along_cached(model, g, S0, b, show_progress, desc)
    uncached, first_div = _uncached_greedy(model, g, S0, steps, cached, m["uncached_argmax"], b)
    Gf = [to_float64(G[0]) for G in g.step_G[0]]
    margins = [x for x in m["margin_cached"] if x is not None]
    rec.update({
        "cached_tokens": cached, "uncached_tokens": uncached,
        "tokens_identical": cached == uncached, "first_divergence_step": first_div,
        # a generated PAD (id 0) is masked as a key by every later uncached pass but not by the
        # cached decode (mask None, spec B): a deviation that G does not cause
        "pad_generated_at_steps": [t for t, x in enumerate(cached) if x == 0],
        "prompt_pad_positions": [j for j, x in enumerate(prompt) if x == 0],
        "d": m["d"], "margin_cached": m["margin_cached"], "margin_uncached": m["margin_uncached"],
        "eps_G": m["eps_G"], "max_dG": m["max_dG"],
        "max_d": max(m["d"]), "min_margin": min(margins) if margins else None,
        "eps_G_max_by_layer": [max(row[li] for row in m["eps_G"]) for li in range(L)],
        "max_dG_by_layer": [max(row[li] for row in m["max_dG"]) for li in range(L)],
        "eps_spec": 2.0 ** -24 * max(float(np.sqrt(np.sum(G * G, axis=(-2, -1))).max())
                                     for G in Gf),
    })
    if margins:
        rec["sufficient"] = bool(2 * rec["max_d"] < rec["min_margin"])
    else:
        set_null(rec, "sufficient", "no top-2 margin (vocab_size < 2)")
    return rec


def gcache_runs(model, prompts, steps, backend, dps, show_progress=True) -> list:
    """:func:`gcache_fidelity` for every prompt."""
    return [{"prompt": i, **gcache_fidelity(model, p, steps, backend, dps, show_progress,
                                            desc=f"g-cache prompt {i}")}
            for i, p in enumerate(prompts)]


def gcache_section(per_prompt: list, L: int) -> dict:
    """The section: the per-prompt records and their summary over prompts."""
    done = [r for r in per_prompt if r.get("d")]
    return {"per_prompt": per_prompt, "summary": {
        "max_d": max((r["max_d"] for r in done), default=None),
        "min_margin": min((r["min_margin"] for r in done if r["min_margin"] is not None),
                          default=None),
        "all_sufficient": all(r.get("sufficient") is True for r in done) if done else None,
        "all_tokens_identical": all(r["tokens_identical"] for r in done) if done else None,
        "eps_G_max_by_layer": ([max(r["eps_G_max_by_layer"][li] for r in done) for li in range(L)]
                               if done else None),
        "max_dG_by_layer": ([max(r["max_dG_by_layer"][li] for r in done) for li in range(L)]
                            if done else None)}}
