"""PNG plots for ``plga audit`` (matplotlib, the optional extra ``plot``).

Uses the object-oriented API with the Agg canvas only (no pyplot, no global backend
switch), and writes each PNG atomically (:func:`crosscheck.fsutil.write_atomic`).  Input is
the JSON-ready audit result of :func:`crosscheck.audit.run.run_audit`.

* ``singular_spectra.png`` -- σ_i/σ₁ of A and A_LM per layer (first prompt, one line per head);
* ``commutant_residual.png`` -- ρ(G_LM) heatmap, layer × head (mean over prompts);
* ``cache_deviation.png`` -- per greedy step: d_t, 2·d_t and the top-2 margin (per prompt);
* ``block_seq_gap.png`` -- per-token gap seq NLL − block CE by row position (per prompt).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from ..fsutil import write_atomic


def require() -> None:
    """Raise ImportError if matplotlib is missing."""
    # imported only to test that they are available
    import matplotlib  # noqa: F401 (availability check)
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401 (availability check)
    from matplotlib.figure import Figure  # noqa: F401 (availability check)


def _fig(w, h):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(w, h), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    write_atomic(path, buf.getvalue())


def _int_locator():
    from matplotlib.ticker import MaxNLocator
    return MaxNLocator(integer=True)


def _positive(values, floor=None):
    """Replace zeros/None for a log axis; returns (array, floor used or None)."""
    v = np.array([np.nan if x is None else float(x) for x in values], dtype=float)
    pos = v[np.isfinite(v) & (v > 0)]
    if floor is None:
        floor = float(pos.min()) / 10 if pos.size else 1e-17
    hit = np.isfinite(v) & (v <= 0)
    v[hit] = floor
    return v, (floor if hit.any() else None)


def plot_singular_spectra(r, path):
    c = r["config"]
    L, H = c["num_layers"], c["num_heads"]
    fig = _fig(max(4.0, 2.8 * L), 5.2)
    axes = fig.subplots(2, L, squeeze=False, sharey="row")
    from matplotlib import colormaps
    cmap = colormaps["viridis"]
    for row, key in enumerate(("A", "A_LM")):
        recs = [x for x in r["rank_one"][key]["per_head"] if x["prompt"] == 0]
        for li in range(L):
            ax = axes[row][li]
            for x in recs:
                if x["layer"] != li:
                    continue
                s = np.asarray(x["singular_values"], dtype=float)
                if s.size == 0 or s[0] <= 0:
                    continue
                rel = np.maximum(s / s[0], 1e-300)
                ax.semilogy(np.arange(1, s.size + 1), rel, lw=0.9,
                            color=cmap(x["head"] / max(H - 1, 1)))
            ax.axhline(64 * np.finfo(np.float32).eps, color="red", lw=0.7, ls="--")
            ax.set_title(f"{key}, layer {li}", fontsize=9)
            ax.set_xlabel("i", fontsize=8)
            if li == 0:
                ax.set_ylabel("σ_i / σ_1", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.xaxis.set_major_locator(_int_locator())
    fig.suptitle("Singular spectra σ_i/σ_1, prompt 0, one line per head\n(dashed: numerical-rank "
                 "threshold 64·eps_f32)", fontsize=9)
    _save(fig, path)


def layer_head_heatmap(rows, path, label: str, title: str, vmax=None, fmt=".3g",
                       annotate_max: int = 120) -> None:
    """A layer × head heatmap of ``rows`` (list over layers of lists over heads; None = no
    value), colour scale [0, vmax] (default: the largest value), values written into the cells
    when there are at most ``annotate_max`` of them."""
    M = np.array([[np.nan if x is None else x for x in row] for row in rows], dtype=float)
    L, H = M.shape
    if vmax is None:
        vmax = max(1e-12, float(np.nanmax(M)) if np.isfinite(M).any() else 1.0)
    fig = _fig(max(5.0, 0.5 * H + 2.2), max(3.0, 0.5 * L + 1.8))
    ax = fig.subplots()
    im = ax.imshow(M, aspect="auto", cmap="magma", vmin=0.0, vmax=vmax)
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_xticks(range(H))
    ax.set_yticks(range(L))
    ax.tick_params(labelsize=7)
    if L * H <= annotate_max:
        for li in range(L):
            for h in range(H):
                if np.isfinite(M[li, h]):
                    ax.text(h, li, format(M[li, h], fmt), ha="center", va="center", fontsize=6,
                            color="white" if M[li, h] < 0.6 * vmax else "black")
    fig.colorbar(im, ax=ax, label=label)
    ax.set_title(title, fontsize=9)
    _save(fig, path)


def plot_commutant(r, path):
    layer_head_heatmap(r["commutant"]["mean_over_prompts"], path, "ρ(G_LM)",
                       "RoPE commutant residual ρ(G_LM), layer × head\n(mean over prompts)")


def plot_cache(r, path):
    recs = [x for x in r["gcache"]["per_prompt"] if x.get("d")]
    fig = _fig(7.0, 4.2)
    ax = fig.subplots()
    if not recs:
        ax.text(0.5, 0.5, "no greedy steps (--steps 0)", ha="center", va="center",
                transform=ax.transAxes)
        _save(fig, path)
        return
    allv = [v for x in recs for v in x["d"] + x["margin_cached"] if v is not None and v > 0]
    floor = min(allv) / 100 if allv else 1e-17
    notes = []
    for x in recs:
        t = np.arange(len(x["d"]))
        d2, f1 = _positive([2 * v for v in x["d"]], floor)
        m, _ = _positive(x["margin_cached"], floor)
        ln = ax.semilogy(t, m, "-o", ms=3, label=f"margin, prompt {x['prompt']}")[0]
        ax.semilogy(t, d2, "--x", ms=3, color=ln.get_color(), label=f"2·d_t, prompt {x['prompt']}")
        if f1 is not None:
            notes.append(f"d_t = 0 drawn at {floor:.1e}")
    ax.xaxis.set_major_locator(_int_locator())
    ax.set_xlabel("greedy step t")
    ax.set_ylabel("logit units")
    ax.set_title("G-cache fidelity: 2·max-logit deviation vs top-2 margin (cached)"
                 + (f"\n({notes[0]})" if notes else ""), fontsize=10)
    if len(recs) <= 6:
        ax.legend(fontsize=7)
    _save(fig, path)


def plot_blockseq(r, path):
    bs = r["block_vs_sequential"]
    fig = _fig(7.0, 4.2)
    ax = fig.subplots()
    recs = [x for x in bs.get("per_prompt", []) if x.get("gaps")]
    if not bs.get("computed") or not recs:
        ax.text(0.5, 0.5, "block vs sequential not computed", ha="center", va="center",
                transform=ax.transAxes)
        _save(fig, path)
        return
    for x in recs:
        g = np.array([np.nan if v is None else v for v in x["gaps"]], dtype=float)
        ax.plot(np.arange(g.size), g, "-o", ms=2.5, lw=0.9, label=f"prompt {x['prompt']}")
    ax.axhline(0.0, color="black", lw=0.6)
    ax.xaxis.set_major_locator(_int_locator())
    ax.set_xlabel("row t (predicts token t+1)")
    ax.set_ylabel("(−log p_seq) − (−log p_block)  [nats]")
    ax.set_title("Sequential NLL − block CE per token", fontsize=10)
    if len(recs) <= 8:
        ax.legend(fontsize=7)
    _save(fig, path)


PLOTS = (("singular_spectra.png", plot_singular_spectra),
         ("commutant_residual.png", plot_commutant),
         ("cache_deviation.png", plot_cache),
         ("block_seq_gap.png", plot_blockseq))
PLOT_FILES = tuple(name for name, _ in PLOTS)


def write_plots(r: dict, out_dir: Path) -> list[str]:
    """Write every plot into ``out_dir``; returns the file names written."""
    out_dir = Path(out_dir)
    written = []
    for name, fn in PLOTS:
        if fn is plot_singular_spectra and not r["rank_one"].get("computed", True):
            continue   # a constant-operator model: no A, A_LM
        fn(r, out_dir / name)
        written.append(name)
    return written
