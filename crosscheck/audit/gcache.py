"""G-cache fidelity (spec D, G; spec B): greedy decoding with KV+G cache vs uncached forward
passes on the same tokens -- per step the max logit deviation d_t, the top-1/top-2 margins,
the sufficient criterion 2·max d < min margin, ε_G(t, l), max|ΔG|, and the uncached greedy
tokens.

On the ``"arb"`` backend the criterion is *certified*: every logit is a ball enclosing the exact
value, so each d_t and each cached margin is enclosed by rigorous float64 bounds, and
``sufficient`` is true only when 2·(upper bound of max d) < (lower bound of min margin), false
only when 2·(lower bound of max d) ≥ (upper bound of min margin), and null ("undecided at this
precision") otherwise.  The other statistics (d, margins, ε_G, max|ΔG|) are the balls'
midpoints."""

from __future__ import annotations

import re

import numpy as np

from pyref.arb import abs_err_bound, decided_argmax
from pyref.arb_linalg import float_down, float_up
from pyref.backend import get_backend, to_float64

from .records import finite_or_none, progress, rms, set_null

_NEW_TOKEN = re.compile(r"new token (\d+)")


class ArgmaxUndecided(ValueError):
    """The greedy argmax of the arb backend is not decided by the balls (ties or overlaps at
    this precision): one line naming the prompt, the step and the digits to try."""


def _undecided(exc: ValueError, prompt, step, dps, phase) -> ArgmaxUndecided:
    """The one-line error for an ambiguous arb argmax at ``step`` of ``phase`` (the step is
    read from pyref's message, "new token k", when ``step`` is None)."""
    msg = str(exc).replace("\n", " ")
    if step is None:
        m = _NEW_TOKEN.search(msg)
        step = m.group(1) if m else "?"
    return ArgmaxUndecided(
        f"G-cache, prompt {prompt}, step {step} ({phase}): the greedy argmax is not decided by "
        f"the arb enclosures at {dps} digits; rerun with more digits (e.g. --dps {2 * dps}) "
        f"unless the top logits are genuinely equal ({msg})")


def _top2(row) -> tuple[int, object]:
    """(argmax, top1 − top2) of a 1-D float or mpf array (mpf objects compare exactly)."""
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


def _top2_arb(row, what) -> tuple[int, tuple | None]:
    """(decided argmax k, (midpoint, lower, upper) of top1 − top2 or None) of a 1-D row [V] of
    arb balls: the exact margin min_{j≠k} (ℓ_k − ℓ_j) lies in [lower, upper] (float64, rounded
    outward).  ValueError (pyref's "ambiguous argmax") when no ball is certainly the largest."""
    k = decided_argmax(row, what)
    gaps = [row[k] - row[j] for j in range(len(row)) if j != k]          # balls, each > 0
    if not gaps:
        return k, None
    mids = to_float64(np.array(gaps, dtype=object))
    return k, (float(mids.min()), min(float_down(x) for x in gaps),
               min(float_up(x) for x in gaps))


def _dev_arb(lc, lu) -> tuple[float, float, float]:
    """(midpoint, lower, upper) of d = max_j |ℓ_cached,j − ℓ_uncached,j| for rows [V] of balls
    (inside the backend's context): upper from :func:`pyref.arb.abs_err_bound` against 0."""
    diff = lc - lu                                                              # [V] balls
    upper = float(np.max(abs_err_bound(np.zeros(diff.shape), diff)))
    lower = max(max(float_down(abs(x)), 0.0) for x in diff)
    return float(np.max(np.abs(to_float64(diff)))), lower, upper


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


def _step_arb(m, lc, lu, b, prompt, t) -> int:
    """Record step t of an arb run into ``m`` (midpoints and rigorous bounds); returns the
    decided uncached argmax."""
    try:
        _, mc = _top2_arb(lc, "cached logits")
        ku, mu = _top2_arb(lu, "uncached logits")
    except ValueError as exc:
        raise _undecided(exc, prompt, t, b.dps, "uncached forward pass") from None
    d_mid, d_lo, d_hi = _dev_arb(lc, lu)
    m["d"].append(d_mid)
    m["d_lower"].append(d_lo)
    m["d_upper"].append(d_hi)
    m["margin_cached"].append(None if mc is None else mc[0])
    m["margin_cached_lower"].append(None if mc is None else mc[1])
    m["margin_cached_upper"].append(None if mc is None else mc[2])
    m["margin_uncached"].append(None if mu is None else mu[0])
    return ku


def _along_cached(model, g, S0, b, show_progress, desc, prompt=None) -> dict:
    """Every measurement along the cached trajectory ``g`` (one uncached pass per step)."""
    G_prompt = g.step_G[0]
    m = {"d": [], "margin_cached": [], "margin_uncached": [], "eps_G": [], "max_dG": [],
         "uncached_argmax": []}
    if b.is_arb:
        m.update({"d_lower": [], "d_upper": [], "margin_cached_lower": [],
                  "margin_cached_upper": []})
    for t in progress(range(len(g.step_logits)), desc=desc, enabled=show_progress):
        lc = g.step_logits[t][0]
        out = model.forward(g.tokens[:, :S0 + t], backend=b)
        lu = out.logits[0, -1]
        with b.context():
            if b.is_arb:
                ku = _step_arb(m, lc, lu, b, prompt, t)
            else:
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


def _uncached_greedy(model, g, S0, steps, cached, unc_arg, b, prompt=None):
    """(uncached greedy tokens, first divergence step or None): equal to the cached tokens up
    to the first disagreement of the uncached argmax along the cached trajectory; after it,
    uncached greedy decoding continues on its own trajectory."""
    first_div = next((t for t in range(steps) if unc_arg[t] != cached[t]), None)
    if first_div is None:
        return list(cached), None
    seq = np.concatenate([g.tokens[:, :S0 + first_div], [[unc_arg[first_div]]]], axis=1)
    rest = steps - first_div - 1
    if rest > 0:
        try:
            gu = model.generate(seq, rest, kvcache=False, gcache=False, backend=b)
        except ValueError as exc:
            if "ambiguous argmax" not in str(exc):
                raise
            k = _NEW_TOKEN.search(str(exc))
            step = first_div + 1 + int(k.group(1)) if k else None
            raise _undecided(exc, prompt, step, b.dps, "uncached greedy decoding") from None
        seq = gu.tokens
    return [int(x) for x in seq[0, S0:]], first_div


def _criterion(rec: dict, m: dict, arb: bool) -> None:
    """``sufficient`` (2·max d < min margin) into ``rec``: from the floats, or on arb decided by
    the rigorous bounds (null with the reason when they do not decide it)."""
    margins = [x for x in m["margin_cached"] if x is not None]
    if not margins:
        set_null(rec, "sufficient", "no top-2 margin (vocab_size < 2)")
        return
    if not arb:
        rec["sufficient"] = bool(2 * rec["max_d"] < rec["min_margin"])
        return
    # max over t of d_t lies in [max d_lower, max d_upper]; min margin in [min lower, min upper]
    d_hi, d_lo = max(m["d_upper"]), max(m["d_lower"])
    mg_lo = min(x for x in m["margin_cached_lower"] if x is not None)
    mg_hi = min(x for x in m["margin_cached_upper"] if x is not None)
    rec.update({"certified": True, "max_d_upper": d_hi, "max_d_lower": d_lo,
                "min_margin_lower": mg_lo, "min_margin_upper": mg_hi,
                "d_upper": m["d_upper"], "margin_cached_lower": m["margin_cached_lower"]})
    # 2·x is exact in float64 (no overflow for finite logits of a checked forward pass)
    if 2 * d_hi < mg_lo:
        rec["sufficient"] = True
    elif 2 * d_lo >= mg_hi:
        rec["sufficient"] = False
    else:
        set_null(rec, "sufficient", f"undecided at this precision (2·max d ∈ [{2 * d_lo:.6g}, "
                                    f"{2 * d_hi:.6g}], min margin ∈ [{mg_lo:.6g}, {mg_hi:.6g}]: "
                                    "the enclosures overlap; use more digits)")


def _cached_generate(model, p, steps, b, prompt):
    """The KV+G-cached greedy decoding; an undecided arb argmax becomes one line."""
    try:
        return model.generate(p, steps, kvcache=True, gcache=True, backend=b,
                              return_operators=True)
    except ValueError as exc:
        if "ambiguous argmax" not in str(exc):
            raise
        raise _undecided(exc, prompt, None, b.dps, "cached greedy decoding") from None


def gcache_fidelity(model, prompt, steps, backend, dps, show_progress=True, desc="g-cache",
                    index=None):
    """Greedy KV+G-cached decoding vs uncached forward passes on the same tokens (spec D,
    G).  Differences are formed in the backend (so mp deviations below 1e-16 survive) and
    then converted to float (arb: midpoints, with the criterion certified by the balls;
    ``index`` names the prompt in errors).  An undecided arb argmax raises
    :class:`ArgmaxUndecided` (a ValueError)."""
    b = get_backend(backend, dps)
    p = np.array([prompt], dtype=np.int64)
    S0 = p.shape[1]
    rec = {"prompt_len": S0, "steps": steps}
    if b.is_arb:
        rec["certified"] = True
    if steps == 0:
        set_null(rec, "sufficient", "--steps 0: no decoding steps")
        return rec
    g = _cached_generate(model, p, steps, b, index)
    L = len(g.step_G[0])
    cached = [int(x) for x in g.tokens[0, S0:]]
    m = _along_cached(model, g, S0, b, show_progress, desc, index)
    uncached, first_div = _uncached_greedy(model, g, S0, steps, cached, m["uncached_argmax"], b,
                                           index)
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
    _criterion(rec, m, b.is_arb)
    return rec


def gcache_runs(model, prompts, steps, backend, dps, show_progress=True) -> list:
    """:func:`gcache_fidelity` for every prompt."""
    return [{"prompt": i, **gcache_fidelity(model, p, steps, backend, dps, show_progress,
                                            desc=f"g-cache prompt {i}", index=i)}
            for i, p in enumerate(prompts)]


def gcache_section(per_prompt: list, L: int) -> dict:
    """The section: the per-prompt records and their summary over prompts."""
    done = [r for r in per_prompt if r.get("d")]
    return {"per_prompt": per_prompt, "summary": {
        "max_d": max((r["max_d"] for r in done), default=None),
        "min_margin": min((r["min_margin"] for r in done if r["min_margin"] is not None),
                          default=None),
        "all_sufficient": all(r.get("sufficient") is True for r in done) if done else None,
        "certified": bool(done) and all(r.get("certified") is True for r in done),
        "undecided": [r["prompt"] for r in done if r.get("certified") and
                      r.get("sufficient") is None],
        "all_tokens_identical": all(r["tokens_identical"] for r in done) if done else None,
        "eps_G_max_by_layer": ([max(r["eps_G_max_by_layer"][li] for r in done) for li in range(L)]
                               if done else None),
        "max_dG_by_layer": ([max(r["max_dG_by_layer"][li] for r in done) for li in range(L)]
                            if done else None)}}
