"""The high-precision sections of ``plga audit``: the Perron–Frobenius report of A_LM with a
rigorous Arb certificate (:mod:`crosscheck.certificates`), and det A_LM at ``hp_dps`` digits as
an Arb enclosure of the exact determinant (``pyref.analysis.det(backend="arb")``) next to LAPACK
float64 and float32 (the "floating-point zero determinant is underflow" point, measured).  One
task per (prompt, layer, head), optionally in forked worker processes; on Arb one 64×64 head
takes tens of milliseconds (``benchmarks/bench_certificates.py``)."""

from __future__ import annotations

import math
import multiprocessing as mp
import signal
import time

import mpmath
import numpy as np
from flint import arb, arf

from pyref import analysis
from pyref.arb_linalg import float_up, mid_mpf

from ..certificates import perron_certificate
from .records import finite_or_none, mp_str, progress, set_null, summarize

F32_MIN_SUBNORMAL_LOG2 = -149
F64_MIN_SUBNORMAL_LOG2 = -1074


# ================================================================================ Perron
def _certify(rec: dict, A, p, dps: int) -> None:
    """Add the rigorous certificate of the Perron pair ``p`` of ``A`` to ``rec``."""
    try:
        c = perron_certificate(A, v=p.vector, dps=dps)
    except ValueError as exc:
        for k in ("root_enclosure", "certified"):
            set_null(rec, k, f"certificate: {exc}")
        return
    rec["root_enclosure"] = [c.root_lo, c.root_hi]
    rec["tau"] = finite_or_none(c.tau)
    rec["other_radius"] = finite_or_none(c.other_radius)
    rec["vector_margin_lb"] = finite_or_none(c.vector_ratio_lb)
    rec["certified"] = bool(c.certified)
    if c.certified:
        # the certificate's rigorous relative separation 1 − other_radius/ρ_lo (interval
        # arithmetic; it resolves separations below float64 precision), times ρ_lo, rounded down
        sep = getattr(c, "separation", None)
        if sep is not None and sep > 0:
            rec["certified_separation_lb"] = float(sep)
            rec["certified_gap_lb"] = float(np.nextafter(sep * c.root_lo, -np.inf))
        else:
            rec["certified_gap_lb"] = float(np.nextafter(c.root_lo - c.other_radius, -np.inf))
    else:
        set_null(rec, "certified_gap_lb", "inconclusive: " + c.reason)
        rec["certificate_note"] = c.reason


def perron_report(A, dps: int) -> dict:
    """Perron root/vector at ``dps`` digits + rigorous certificate for one A_LM head."""
    rec: dict = {}
    try:
        p = analysis.perron(A, dps=dps)
    except ValueError as exc:
        for k in ("root", "root_float", "root_enclosure", "gap", "certified"):
            set_null(rec, k, str(exc))
        return rec
    with mpmath.workdps(dps):
        vmin, vmax = min(p.vector), max(p.vector)
        rec["root"] = mp_str(p.root, dps)
        rec["root_float"] = float(p.root)
        rec["residual"] = float(p.residual)
        rec["vector_min"] = float(vmin)          # Σ v = 1
        rec["vector_max"] = float(vmax)
        rec["vector_margin"] = float(vmin / vmax)
    rec["second_modulus"] = finite_or_none(p.second_modulus)
    rec["gap"] = finite_or_none(p.gap)
    rec["ratio"] = finite_or_none(p.ratio)
    _certify(rec, A, p, dps)
    return rec


# ========================================================================== determinants
def _det_lapack(rec: dict, A, dm, dps: int) -> None:
    """float64 and float32 LAPACK determinants of ``A`` next to the exact-ish ``dm``."""
    for name in ("float64", "float32"):
        with np.errstate(all="ignore"):
            v = float(analysis.det(A, backend=name))
        if math.isfinite(v):
            rec[f"det_{name}"] = v
        else:
            set_null(rec, f"det_{name}", f"{name} LAPACK determinant overflowed ({v})")
        rec[f"{name}_zero"] = v == 0.0
        if dm != 0 and math.isfinite(v):
            with mpmath.workdps(dps):
                rec[f"{name}_rel_error"] = float(abs((mpmath.mpf(v) - dm) / dm))


def det_report(A, dps: int) -> dict:
    """det A at ``dps`` digits (exact conversion of the entries) vs float64/float32 LAPACK.
    ``det_mp`` is the midpoint of the Arb enclosure rounded to ``dps`` digits, ``det_rel_radius``
    an upper bound of the enclosure's radius relative to |midpoint| (0: exact), and
    ``det_certified`` whether the enclosure decides the sign (it excludes 0, or is exactly 0)."""
    rec: dict = {}
    ball = analysis.det(A, dps=dps, backend="arb")
    with mpmath.workdps(dps):
        dm = +mid_mpf(ball)
        rec["det_mp"] = mp_str(dm, 20)
        rec["det_certified"] = bool(ball.is_exact() or not ball.contains(0))
        if ball.is_exact():
            rec["det_rel_radius"] = 0.0
        elif dm == 0:
            set_null(rec, "det_rel_radius", "the enclosure's midpoint is 0")
        else:
            rec["det_rel_radius"] = float_up(ball.rad() / abs(ball.mid()))
        rec["sign"] = 0 if dm == 0 else (1 if dm > 0 else -1)
        if dm != 0:
            l2 = mpmath.log(abs(dm), 2)
            rec["log10_abs_det"] = float(mpmath.log10(abs(dm)))
            rec["below_float32_min_subnormal"] = bool(l2 < F32_MIN_SUBNORMAL_LOG2)
            rec["below_float64_min_subnormal"] = bool(l2 < F64_MIN_SUBNORMAL_LOG2)
        else:
            set_null(rec, "log10_abs_det", "the determinant is exactly 0 at this precision")
    _det_lapack(rec, A, dm, dps)
    rec["float32_underflow"] = bool(rec["float32_zero"] and dm != 0)
    return rec


# ================================================================================= tasks
def _ball_ints(x):
    """An arb ball as exact integers (mantissa, exponent of midpoint and radius): picklable."""
    return x.mid().man_exp() + x.rad().mid().man_exp()


def _int_ball(t):
    return arb(arf(t[:2]), arf(t[2:]))   # exact at any context precision


_v_ball_ints = np.frompyfunc(_ball_ints, 1, 1)
_v_int_ball = np.frompyfunc(_int_ball, 1, 1)


def _portable(A):
    """A task's matrix as something a worker process can receive: arb balls (which do not
    pickle) as exact integer tuples, tagged; other arrays as they are."""
    if isinstance(A, np.ndarray) and A.dtype == object and A.size and isinstance(A.flat[0], arb):
        return ("arb", _v_ball_ints(A))
    return ("plain", A)


def _restore(packed):
    kind, A = packed
    return np.asarray(_v_int_ball(A), dtype=object) if kind == "arb" else A


def _hp_task(args):
    i, li, h, A, dps, do_perron, do_det = args
    A = _restore(A) if isinstance(A, tuple) else A
    t0 = time.perf_counter()
    out = {"prompt": i, "layer": li, "head": h}
    if do_perron:
        out["perron"] = perron_report(A, dps)
    if do_det:
        out["det"] = det_report(A, dps)
    out["seconds"] = time.perf_counter() - t0
    return out


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_hp_tasks(tasks, jobs, show_progress):
    results = []
    if jobs > 1 and len(tasks) > 1 and "fork" in mp.get_all_start_methods():
        # fork: no re-import of __main__ (python -m crosscheck has no guard)
        ctx = mp.get_context("fork")
        # workers ignore SIGINT: Ctrl-C reaches the parent, which prints one line and exits 130.
        # The parent ignores it while forking, so a worker never runs a moment without SIG_IGN
        # (the initializer alone leaves a window between fork and initializer).
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            pool = ctx.Pool(min(jobs, len(tasks)), initializer=_ignore_sigint)
        finally:
            signal.signal(signal.SIGINT, previous)
        tasks = [(*t[:3], _portable(t[3]), *t[4:]) for t in tasks]   # arb balls do not pickle
        with pool:
            for r in progress(pool.imap_unordered(_hp_task, tasks, chunksize=1),
                              total=len(tasks), desc="perron/det", enabled=show_progress):
                results.append(r)
    else:
        for t in progress(tasks, desc="perron/det", enabled=show_progress):
            results.append(_hp_task(t))
    results.sort(key=lambda r: (r["prompt"], r["layer"], r["head"]))
    return results


def hp_scope(n_prompts: int, L: int, H: int, hp_prompts: str, hp_heads: int | None) -> dict:
    """The prompts, layers and heads that get the Perron report and the determinants."""
    prompts = range(n_prompts) if hp_prompts == "all" else range(1)
    return {"prompts": list(prompts), "heads": list(range(min(H, hp_heads or H))),
            "layers": list(range(L))}


def hp_tasks(ops, scope: dict, dps: int, do_perron: bool, do_det: bool) -> list:
    return [(i, li, h, ops[i][li]["A_LM"][h], dps, do_perron, do_det)
            for i in scope["prompts"] for li in scope["layers"] for h in scope["heads"]]


# ============================================================================= sections
def perron_section(hp: list, scope: dict) -> dict:
    per = [{"prompt": r["prompt"], "layer": r["layer"], "head": r["head"], **r["perron"]}
           for r in hp]
    cert = [r for r in per if r.get("certified") is True]
    return {"computed": True, "scope": scope, "per_head": per,
            "certified": len(cert), "inconclusive": len(per) - len(cert),
            "seconds_per_head": summarize([r["seconds"] for r in hp])}


def determinants_section(hp: list, scope: dict) -> dict:
    det = [{"prompt": r["prompt"], "layer": r["layer"], "head": r["head"], **r["det"]}
           for r in hp]
    return {
        "computed": True, "scope": scope, "per_head": det,
        "float32_zero": sum(r["float32_zero"] for r in det),
        "float32_underflow": sum(r["float32_underflow"] for r in det),
        "float64_zero": sum(r["float64_zero"] for r in det),
        "mp_zero": sum(r["sign"] == 0 for r in det), "total": len(det),
        "sign_certified": sum(r.get("det_certified") is True for r in det),
        "log10_abs_det": summarize([r.get("log10_abs_det") for r in det])}
