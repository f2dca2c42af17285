"""``plga audit-g``: the constant operators G of a predefined-G list as data.

Reads a list of per-layer operators G (the authors' ``predefined_G_LM_cache_list_*.pkl`` and
negative-test ``*NAB*.pkl`` lists, or a pyref constant-G checkpoint; see
:mod:`~crosscheck.audit.gaudit_inputs`), computes per layer and head what the paper measures
of G_LM (:mod:`~crosscheck.audit.gaudit_stats`: singular spectrum, σ₂/σ₁, ranks, RoPE
commutant and commutator residuals, symmetry, positivity, trace/determinant, and a certified
Perron report where G is entrywise positive), and writes ``audit-g.json`` (every number; no
NaN: undefined values are null with a reason), ``audit-g.md``
(:mod:`~crosscheck.audit.gaudit_render`) and PNG plots
(:mod:`~crosscheck.audit.gaudit_plots`, matplotlib optional) into a staging directory that
moves into place only when complete (``audit-g.json`` last).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import PlgaError
from . import gaudit_plots
from .gaudit_inputs import GList, read_g_file, validate_list
from .gaudit_render import render_markdown
from .gaudit_stats import (
    DEFINITIONS,
    a_lm_section,
    add_perron,
    by_layer,
    grid,
    identity_check,
    overall,
    per_head_stats,
)
from .inputs import check_output_dir, sha256_file
from .output import ReportKind, write_report_set
from .run import AuditFailure, versions

SCHEMA = "plga-audit-g/1"
DEFAULT_ROPE_BASE = 1e4      # v510's RoPE base (and the HF port's rope_theta default)


@dataclass
class GAuditOptions:
    gcache: Path                       # the G list file
    out: Path | None = None            # default: ./audit-g-<file stem>
    rope_base: float | None = None     # None: the file's embedded config, else 1e4
    perron: bool = True
    hp_dps: int = 30                   # digits of the Perron report
    jobs: int = 2                      # processes for the Perron reports
    plots: bool = True
    progress: bool = True


def check_g_options(opts: GAuditOptions) -> None:
    """The numeric options (before anything is read)."""
    for name, v, lo in (("--hp-dps", opts.hp_dps, 15), ("--jobs", opts.jobs, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise PlgaError(f"{name} {v}: expected an integer ≥ {lo}")
    rb = opts.rope_base
    if rb is not None and (isinstance(rb, bool) or not isinstance(rb, (int, float))
                           or not math.isfinite(rb) or rb <= 0):
        raise PlgaError(f"--rope-base {rb}: expected a finite number > 0 (v510: 10000)")


def _rope_base(opts: GAuditOptions, gl: GList) -> tuple[float, str, list]:
    """(Θ, where it comes from, warnings): --rope-base, else an embedded config, else 1e4."""
    embedded = getattr(gl.config, "rope_base", None)
    if opts.rope_base is None:
        if embedded is not None:
            return float(embedded), "the config embedded in the file", []
        return DEFAULT_ROPE_BASE, "default: v510's RoPE base", []
    warn = []
    if embedded is not None and float(embedded) != float(opts.rope_base):
        warn.append(f"--rope-base {opts.rope_base:g} differs from the rope_base {embedded:g} of "
                    "the config embedded in the file; using --rope-base")
    return float(opts.rope_base), "--rope-base", warn


def audit_g_arrays(gl: GList | list, rope_base: float = DEFAULT_ROPE_BASE, perron: bool = True,
                   hp_dps: int = 30, jobs: int = 2, show_progress: bool = False,
                   log=print) -> dict:
    """The statistics of a :class:`GList` or of an in-memory list as
    :func:`pyref.torchfile.read_tensor_list` returns it (validated first; no file I/O): a
    dict with ``per_head``, ``by_layer``, ``overall``, ``grids``, ``perron``,
    ``identity_check``, ``a_lm`` and ``timing_s`` (numbers may still be numpy scalars; see
    :func:`~crosscheck.audit.records.sanitize`)."""
    if not isinstance(gl, GList):
        gl = validate_list(Path("<in-memory list>"), gl)
    L, H, _ = gl.shape
    timing: dict = {}
    t0 = time.monotonic()
    try:
        with np.errstate(all="ignore"):  # statistics raise on undefined values; no warnings
            per_head = per_head_stats(gl.G, rope_base)
    except ValueError as exc:            # e.g. LinAlgError: an SVD that does not converge
        raise AuditFailure(f"audit-g failed in the float64 statistics: {exc}") from None
    timing["statistics"] = time.monotonic() - t0
    log(f"  statistics             {timing['statistics']:9.2f} s")
    t0 = time.monotonic()
    psec = add_perron(per_head, gl.G, hp_dps, perron, jobs, show_progress)
    timing["perron"] = time.monotonic() - t0
    log(f"  perron ({psec['applicable']:3d} heads)     {timing['perron']:9.2f} s")
    return {
        "per_head": per_head, "by_layer": by_layer(per_head, L), "overall": overall(per_head),
        "grids": {k: grid(per_head, k, L, H) for k in ("commutant_residual",
                                                       "sigma2_over_sigma1")},
        "perron": psec, "identity_check": identity_check(per_head),
        "a_lm": a_lm_section(gl.A_LM), "timing_s": timing,
    }


G_REPORT = ReportKind("audit-g", "audit-g", render_markdown,
                      lambda r, d: gaudit_plots.write_plots(r, d), gaudit_plots.PLOT_FILES)


def run_audit_g(opts: GAuditOptions, log=print) -> dict:
    """Audit the G list ``opts.gcache`` and write ``audit-g.json``, ``audit-g.md`` and the plots
    to ``opts.out``; returns the JSON-ready result.  Bad input raises :class:`PlgaError`
    (exit 2) before any computation, a numerical failure :class:`AuditFailure` (exit 1);
    nothing is written then."""
    t_start = time.monotonic()
    check_g_options(opts)
    path = Path(opts.gcache)
    out_dir = Path(opts.out) if opts.out is not None else Path(f"audit-g-{path.stem}")
    t0 = time.monotonic()
    gl = read_g_file(path)
    rope_base, rb_source, warnings = _rope_base(opts, gl)
    check_output_dir(out_dir)
    sha = sha256_file(path)
    load_s = time.monotonic() - t0
    for w in gl.warnings + warnings:
        log(f"warning: {w}")
    st = gl.structure
    log(f"plga audit-g: {path} (sha256 {sha[:16]}…): {st['kind']}, L={st['layers']}, "
        f"H={st['heads']}, d_k={st['d_k']}, {'/'.join(st['stored_dtypes'])}; Θ = {rope_base:g}")
    stats = audit_g_arrays(gl, rope_base, opts.perron, opts.hp_dps, opts.jobs, opts.progress,
                           log)
    result = {
        "schema": SCHEMA,
        "file": {"path": str(path), "sha256": sha, "bytes": path.stat().st_size,
                 "format": path.suffix.lstrip(".")},
        "structure": st,
        "config": gl.config.to_dict() if gl.config is not None else None,
        "rope_base": rope_base, "rope_base_source": rb_source, "hp_dps": opts.hp_dps,
        "options": {"perron": opts.perron, "jobs": opts.jobs, "plots": opts.plots},
        "versions": versions(), "warnings": gl.warnings + warnings,
        "definitions": DEFINITIONS,
        **stats,
    }
    result["timing_s"] = {"load": load_s, **stats["timing_s"]}
    return write_report_set(result, G_REPORT, out_dir, opts.plots, log, t_start)
