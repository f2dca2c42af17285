"""PNG plots of ``plga audit-g`` (matplotlib, the optional extra ``plot``; Agg canvas, atomic
writes through :mod:`crosscheck.audit.plots`).  Input: the JSON-ready audit-g result.

* ``singular_spectra.png`` -- σ_i/σ₁ per layer (one panel per layer, one line per head);
* ``commutant_residual.png`` -- heatmap layer × head of ρ(G) (color scale [0, 1]);
* ``sigma2_over_sigma1.png`` -- heatmap layer × head of σ₂/σ₁ (color scale [0, 1]).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .plots import _fig, _int_locator, _save, layer_head_heatmap


def plot_spectra(r: dict, path: Path) -> None:
    """σ_i/σ₁ on a log axis, one panel per layer, one line per head."""
    st = r["structure"]
    L, H = st["layers"], st["heads"]
    cols = min(L, 5)
    rows = -(-L // cols)
    fig = _fig(max(4.0, 3.0 * cols), 2.8 * rows + 0.8)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    from matplotlib import colormaps
    cmap = colormaps["viridis"]
    for li in range(rows * cols):
        ax = axes[li // cols][li % cols]
        if li >= L:
            ax.set_visible(False)
            continue
        for x in r["per_head"]:
            s = np.asarray(x["singular_values"], dtype=float)
            if x["layer"] != li or s[0] <= 0:
                continue
            ax.semilogy(np.arange(1, s.size + 1), np.maximum(s / s[0], 1e-300), lw=0.9,
                        color=cmap(x["head"] / max(H - 1, 1)))
        ax.set_title(f"layer {li}", fontsize=9)
        ax.set_xlabel("i", fontsize=8)
        ax.set_ylabel("σ_i / σ_1", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(_int_locator())
    fig.suptitle("Singular spectra σ_i/σ_1 of G, one line per head (color: head index)",
                 fontsize=9)
    _save(fig, path)


def _heatmap(r: dict, path: Path, key: str, label: str, title: str) -> None:
    # both statistics lie in [0, 1]: one colour scale for every file
    layer_head_heatmap(r["grids"][key], path, label, title, vmax=1.0, fmt=".2g",
                       annotate_max=160)


def plot_commutant(r: dict, path: Path) -> None:
    _heatmap(r, path, "commutant_residual", "ρ(G)",
             f"RoPE commutant residual ρ(G), layer × head (Θ = {r['rope_base']:g})")


def plot_ratio(r: dict, path: Path) -> None:
    _heatmap(r, path, "sigma2_over_sigma1", "σ₂/σ₁", "σ₂/σ₁ of G, layer × head")


PLOTS = (("singular_spectra.png", plot_spectra),
         ("commutant_residual.png", plot_commutant),
         ("sigma2_over_sigma1.png", plot_ratio))
PLOT_FILES = tuple(name for name, _ in PLOTS)


def write_plots(r: dict, out_dir: Path) -> list[str]:
    """Write every plot into ``out_dir``; returns the file names written."""
    for name, fn in PLOTS:
        fn(r, Path(out_dir) / name)
    return list(PLOT_FILES)
