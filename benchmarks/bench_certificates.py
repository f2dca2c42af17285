"""Perron certificates and determinants of A_LM heads: Arb (python-flint) vs mpmath, side by side
in one run (a script, not a test).

Heads: the A_LM operators of ``PLDRModel.random(PLDRConfig.paper(max_seq_len=64))`` after a
float64 forward pass on 16 tokens (L=5, H=14, d_k=64: 70 heads), or with ``--quick`` random
iSwiGLU-style 64×64 matrices u²σ(u) + 1e-9.

1. Per head, at ``--dps`` digits (default 30), process CPU time of
   * Arb: ``pyref.analysis.perron`` + ``crosscheck.certificates.perron_certificate`` (the
     "Perron certificate"), and ``pyref.analysis.det(backend="arb")``;
   * mpmath (the peer, in this file, as pyref computed them before Arb): shifted inverse
     iteration with ``mpmath.lu_solve`` at dps + 10 digits, the ``mpmath.iv`` interval
     certificate (Collatz–Wielandt bounds, Hopf's τ from the n³ ratios), ``mpmath.det``;
   and the agreement: the mpmath root inside Arb's enclosure (up to 10^-dps relative, the mp
   root's own rounding), the same verdict, the mpmath determinant inside Arb's ball (up to
   10^-(dps-5) relative: mpmath's LU error at dps digits).
2. ``--section``: the high-precision section of ``plga audit`` (``run_hp_tasks``, Perron
   report + certificate + determinants) on all 70 heads with ``--jobs`` workers (default 2):
   wall time and the per-head seconds.

Usage:
    python benchmarks/bench_certificates.py                # 3 heads side by side + section
    python benchmarks/bench_certificates.py --heads 5 --no-section
    python benchmarks/bench_certificates.py --quick        # synthetic heads, no model
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

# BLAS: one thread (the float64 eigen-estimate is the only BLAS call of the timed code)
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import mpmath  # noqa: E402 (after the BLAS thread variables above)
import numpy as np  # noqa: E402
from mpmath import iv  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pyref  # noqa: E402 (after the sys.path insertion)
from crosscheck.audit.highprec import run_hp_tasks  # noqa: E402
from crosscheck.certificates import perron_certificate  # noqa: E402
from pyref import analysis  # noqa: E402
from pyref.arb_linalg import mid_mpf  # noqa: E402


# ================================================================================ heads
def model_heads(seq: int = 16) -> np.ndarray:
    """A_LM [L·H, 64, 64] of the random paper-configuration model on ``seq`` tokens (float64)."""
    cfg = pyref.PLDRConfig.paper(max_seq_len=64)
    m = pyref.PLDRModel.random(cfg)
    tok = (np.arange(seq)[None] * 7919) % cfg.vocab_size
    out = m.forward(tok)
    return np.concatenate([np.asarray(d["A_LM"][0]) for d in out.deductive])


def synthetic_heads(k: int, n: int = 64) -> np.ndarray:
    """k iSwiGLU-style positive matrices u²σ(u) + 1e-9, u = W A / √n + b."""
    rng = np.random.default_rng(0)
    u = rng.normal(0, 1, (k, n, n)) @ rng.normal(0, 1, (k, n, n)) / np.sqrt(n) \
        + rng.normal(0, 1, (k, 1, n))
    return u * u / (1 + np.exp(-u)) + 1e-9


# ========================================================================= mpmath peer
def mp_perron(A, dps):
    """Perron pair by shifted inverse iteration in mpmath at dps + 10 digits (pyref's algorithm
    before Arb): returns (root, vector) as mpf."""
    n = len(A)
    ev, evec = np.linalg.eig(A)
    k = int(np.argmax(ev.real))
    with mpmath.workdps(dps + 10):
        Am = mpmath.matrix(A.tolist())
        v = mpmath.matrix([mpmath.mpf(float(x)) + mpmath.mpf(1e-300)
                           for x in np.abs(evec[:, k].real)])
        shift = mpmath.mpf(float(ev[k].real)) * (1 + mpmath.mpf(2) ** -40)
        M = Am - shift * mpmath.eye(n)
        for _ in range(60):
            w = mpmath.lu_solve(M, v)
            w = w / sum(w)
            lam = sum(Am * w) / sum(w)
            delta = max(abs(w[i] - v[i]) for i in range(n))
            v = w
            if delta < mpmath.mpf(10) ** -(dps + 2):
                break
            cw = max(x / y for x, y in zip(Am * v, v)) * (1 + mpmath.eps ** mpmath.mpf(0.5))
            if cw < shift:
                shift, M = cw, Am - cw * mpmath.eye(n)
    with mpmath.workdps(dps):
        return +lam, [+x for x in v]


def mp_certificate(A, v, dps):
    """The mpmath.iv certificate: (root_lo, root_hi, τ upper, certified)."""
    n = len(A)
    iv.dps = dps
    Ai = [[iv.mpf(float(x)) for x in row] for row in A]
    vi = [iv.mpf(x) for x in v]
    ratios = [sum((Ai[i][k] * vi[k] for k in range(n)), iv.mpf(0)) / vi[i] for i in range(n)]
    lo = min(r.a for r in ratios)
    hi = max(r.b for r in ratios)
    phi = None
    for i in range(n):
        for j in range(n):
            if i != j:
                q = [Ai[i][k] / Ai[j][k] for k in range(n)]
                c = (min(x.a for x in q) / max(x.b for x in q)).a
                phi = c if phi is None or c < phi else phi
    sq = iv.sqrt(phi)
    tau = ((1 - sq) / (1 + sq)).b
    return lo, hi, tau, bool((tau * hi).b < lo)


def mp_det(A, dps):
    with mpmath.workdps(dps):
        return mpmath.det(mpmath.matrix(A.tolist()))


# =============================================================================== part 1
def cpu(fn):
    """(result, process CPU seconds) of one call."""
    t = time.process_time()
    r = fn()
    return r, time.process_time() - t


def compare_head(A, dps):
    """One head: Arb and mpmath timings (seconds) and the agreement checks."""
    p, t_ap = cpu(lambda: analysis.perron(A, dps=dps))
    c, t_ac = cpu(lambda: perron_certificate(A, v=p.vector, dps=dps))
    d, t_ad = cpu(lambda: analysis.det(A, dps=dps, backend="arb"))
    (root, vec), t_mp = cpu(lambda: mp_perron(A, dps))
    (lo, hi, tau, cert), t_mc = cpu(lambda: mp_certificate(A, vec, dps))
    dm, t_md = cpu(lambda: mp_det(A, dps))
    with mpmath.workdps(dps + 10):
        tol = abs(root) * mpmath.mpf(10) ** -dps
        blo, bhi = mid_mpf(c.root_ball.lower()), mid_mpf(c.root_ball.upper())
        root_ok = blo - tol <= root <= bhi + tol
        dtol = abs(dm) * mpmath.mpf(10) ** -(dps - 5) + mid_mpf(d.rad())
        det_ok = abs(dm - mid_mpf(d)) <= dtol
    return {"arb": (t_ap, t_ac, t_ad), "mp": (t_mp, t_mc, t_md), "root_ok": root_ok,
            "verdict_ok": cert == c.certified, "det_ok": det_ok, "certified": c.certified,
            "tau_diff": abs(float(tau) - c.tau)}


def part1(heads, dps):
    print(f"\n## 1. Per head, {heads.shape[1]}×{heads.shape[2]} A_LM at {dps} digits "
          "(process CPU, 1 thread)\n")
    print("| head | Arb perron ms | Arb cert ms | Arb det ms | mp perron s | mp cert s | "
          "mp det s | cert: mp/Arb | all: mp/Arb | agree |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for h, A in enumerate(heads):
        r = compare_head(A, dps)
        rows.append(r)
        a, m = r["arb"], r["mp"]
        agree = "yes" if r["root_ok"] and r["verdict_ok"] and r["det_ok"] else "NO"
        print(f"| {h} | {a[0] * 1e3:.1f} | {a[1] * 1e3:.1f} | {a[2] * 1e3:.1f} | {m[0]:.2f} | "
              f"{m[1]:.2f} | {m[2]:.2f} | {(m[0] + m[1]) / (a[0] + a[1]):.0f}× | "
              f"{sum(m) / sum(a):.0f}× | {agree} (τ diff {r['tau_diff']:.1e}) |", flush=True)
    cert = [x["arb"][0] + x["arb"][1] for x in rows]
    print(f"\nArb Perron certificate (perron + certificate) per head: median "
          f"{statistics.median(cert) * 1e3:.1f} ms, max {max(cert) * 1e3:.1f} ms "
          f"(target ≤ 100 ms); certified {sum(x['certified'] for x in rows)}/{len(rows)}")


# =============================================================================== part 2
def part2(heads, dps, jobs):
    tasks = [(0, i // 14, i % 14, A, dps, True, True) for i, A in enumerate(heads)]
    t = time.perf_counter()
    c0 = os.times()
    res = run_hp_tasks(tasks, jobs, False)
    c1 = os.times()
    wall = time.perf_counter() - t
    cpu_s = (c1.user - c0.user) + (c1.children_user - c0.children_user) \
        + (c1.system - c0.system) + (c1.children_system - c0.children_system)
    sec = [r["seconds"] for r in res]
    cert = sum(r["perron"].get("certified") is True for r in res)
    det_cert = sum(r["det"].get("det_certified") is True for r in res)
    print(f"\n## 2. plga audit high-precision section (run_hp_tasks): {len(res)} heads, "
          f"{dps} digits, jobs={jobs}\n")
    print(f"wall {wall:.2f} s, CPU {cpu_s:.2f} s (parent + workers); per head (wall inside the "
          f"worker): median {statistics.median(sec) * 1e3:.1f} ms, max {max(sec) * 1e3:.1f} ms; "
          f"Perron certified {cert}/{len(res)}, determinant sign certified "
          f"{det_cert}/{len(res)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dps", type=int, default=30)
    ap.add_argument("--heads", type=int, default=3, help="heads compared with mpmath (part 1)")
    ap.add_argument("--jobs", type=int, default=2, help="workers of part 2")
    ap.add_argument("--no-section", action="store_true", help="skip part 2")
    ap.add_argument("--quick", action="store_true", help="synthetic heads, no model")
    a = ap.parse_args()
    print(f"# Perron certificates and determinants: Arb vs mpmath ({mpmath.libmp.BACKEND} "
          f"backend); load average {os.getloadavg()[0]:.1f}")
    t = time.perf_counter()
    heads = synthetic_heads(70) if a.quick else model_heads()
    print(f"heads: {'synthetic' if a.quick else 'paper-configuration model'} "
          f"{heads.shape} in {time.perf_counter() - t:.1f} s")
    part1(heads[np.linspace(0, len(heads) - 1, a.heads).astype(int)], a.dps)
    if not a.no_section:
        part2(heads, a.dps, a.jobs)


if __name__ == "__main__":
    main()
