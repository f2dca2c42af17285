"""arb backend benchmark (issue 17): arb vs mp vs float64 side by side in one run, 1 thread.

Process CPU time per forward pass (batch 1, S tokens, median of the repeats after one warm-up
call for float64/arb; mp runs without a warm-up). Weight conversion (``backend_params``:
each backend's copy of the weights, for arb the cached ``arb_mat`` matrices) is timed
separately on a fresh model.

1. The small configuration of ``bench_pyref.py`` part 2 (L=2, d=32, H=4, d_k=8, dff=64,
   A_dff=16, N_res=2, V=64): float64, arb and mp at ``--dps`` digits; largest logit radius.
2. One decoder layer of the paper's shapes (a 1-layer model with d=896, H=14, d_k=64,
   dff=2389, A_dff=170, N_res=8 and V=64, so that the head is negligible): float64, arb and
   mp at ``--dps`` digits measured side by side; plus the paper head's product on a 1/100
   column slice (16×896 times 896×320). The paper configuration's mp time is then
   EXTRAPOLATED as 5 × layer + 100 × head slice (mp on the whole paper model takes about an
   hour here); the extrapolation is printed as such, next to the same extrapolation for arb.
3. The paper configuration (PLDRConfig.paper(), S tokens): float64; arb at ``--dps`` with its
   conversion time, largest logit radius and accuracy (or the error, if the balls grow too
   wide); ``forward(..., accuracy=--accuracy)``: the working digits it chose, its time (both
   runs and the second conversion) and radius.
5. A floor under the arb forward of the paper configuration: per layer the sigmoids (one Arb
   exp each, through python-flint's per-element API), the ball products of Φ_res (``arb_mat``)
   and the 16-row weight products (pyref's exact-weight path), then the head; counted from
   the shapes, timed here per call.  Everything else (element-wise ball arithmetic, the
   centred form's float Jacobians, conversions between balls and floats, the attention's
   small products) is left out, so the arb forward cannot be faster than this sum with these
   library calls.
4. Where the digits go: the relative radius (largest radius / largest |value|) after each stage
   of one paper layer at ``--trace-dps`` digits, plain balls vs the centred form of Φ_res and
   the FFN sublayer (:mod:`pyref.arb_centered`).

Usage:
    python benchmarks/bench_arb.py                 # everything (about half an hour here)
    python benchmarks/bench_arb.py --parts 1 3     # without the mp paper-layer run
    python benchmarks/bench_arb.py --parts 5       # the floor (a minute)
    python benchmarks/bench_arb.py --quick         # fewer repeats, part 2 without mp's layer
"""
from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"   # before numpy loads BLAS

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import flint  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pyref  # noqa: E402 (after the BLAS variables and the sys.path insertion)
from pyref import arb_centered, ops  # noqa: E402
from pyref.arb_precision import accuracy_digits  # noqa: E402
from pyref.ops import linear  # noqa: E402
from pyref.params import ResUnitParams  # noqa: E402

flint.ctx.threads = 1
SMALL = pyref.PLDRConfig(num_layers=2, d_model=32, num_heads=4, dff=64, a_dff=16,
                         num_res_units=2, num_glu_blocks=2, vocab_size=64, max_seq_len=64)


def cpu(fn):
    """(process CPU seconds, result) of one call."""
    t = time.process_time()
    r = fn()
    return time.process_time() - t, r


def median_cpu(fn, repeats, warm=True):
    if warm:
        fn()
    return statistics.median(cpu(fn)[0] for _ in range(repeats))


def conversion(m, backend, dps):
    """CPU seconds of converting the model's weights to ``backend`` at ``dps`` (cached in the
    model: the forward passes timed afterwards do not convert again)."""
    return cpu(lambda: m.backend_params(pyref.Backend(backend, dps)))[0]


def row(name, conv, t, t64, extra=""):
    c = "" if conv is None else f"{conv:.2f}"
    print(f"{name:>22} {c:>10} {t:>12.4f} {t / t64:>10.1f} {extra}", flush=True)


def header():
    print(f"{'':>22} {'convert s':>10} {'cpu s/fwd':>12} {'x float64':>10}")


def tokens(cfg, S):
    return np.random.default_rng(0).integers(1, cfg.vocab_size, size=(1, S))


def part1(dps, S, repeats, mp_repeats):
    m, toks = pyref.PLDRModel.random(SMALL, seed=0), tokens(SMALL, S)
    print(f"\n[1] small configuration (L=2 d=32 H=4 d_k=8 dff=64 A_dff=16 N_res=2 V=64), S={S}")
    t64 = median_cpu(lambda: m.forward(toks), 5 * repeats)
    ca, cm = conversion(m, "arb", dps), conversion(m, "mp", dps)
    ta = median_cpu(lambda: m.forward(toks, backend="arb", dps=dps), repeats)
    tm = median_cpu(lambda: m.forward(toks, backend="mp", dps=dps), mp_repeats, warm=False)
    rad = float(np.max(m.forward(toks, backend="arb", dps=dps).logits_radius))
    header()
    row("float64", None, t64, t64)
    row(f"arb {dps} digits", ca, ta, t64, f"largest logit radius {rad:.1e}")
    row(f"mp {dps} digits", cm, tm, t64)
    print(f"mp / arb = {tm / ta:.1f}   (target >= 20)")


def _product_time(backend, dps, k, n, full_mids=False):
    """CPU seconds of 16 input rows [16, k] times a float64 weight [k, n] (random; the values do
    not matter for the time) on ``backend``; for arb the weight is converted beforehand, as
    ``backend_params`` does, so the product takes the path :func:`pyref.arb.matmul` picks.
    ``full_mids``: inputs with full-precision midpoints (x/3) rather than exact floats."""
    rng = np.random.default_rng(0)
    W, x = rng.uniform(-0.0135, 0.0135, (n, k)), rng.standard_normal((16, k))
    b = pyref.Backend(backend, dps)
    with b.context():
        if backend == "arb":
            Wb = pyref.arb.ExactWeight(W)
            Wb.slice_mats()   # converted once, as backend_params does (both forms: the
            Wb.T.digits()     # product takes the path pyref.arb_matmul.worthwhile picks)
        else:
            Wb = b.asarray(W)
        xb = b.asarray(x) / 3 if full_mids else b.asarray(x)
        return cpu(lambda: linear(b, xb, Wb, None))[0]


def _head_slice(backend, dps, cols=320):
    """CPU seconds of the paper head's product on ``cols`` of its 32000 columns (16×896)."""
    return _product_time(backend, dps, 896, cols)


def part2(dps, S, repeats, with_mp):
    cfg = pyref.PLDRConfig(num_layers=1, d_model=896, num_heads=14, dff=2389, a_dff=170,
                           num_res_units=8, num_glu_blocks=2, vocab_size=64, max_seq_len=64)
    m, toks = pyref.PLDRModel.random(cfg, seed=0), tokens(cfg, S)
    print(f"\n[2] one decoder layer of the paper's shapes (V=64), S={S}; head slice 16x896x320")
    t64 = median_cpu(lambda: m.forward(toks), 3 * repeats)
    ca = conversion(m, "arb", dps)
    ta = median_cpu(lambda: m.forward(toks, backend="arb", dps=dps), repeats, warm=False)
    h64, ha = _head_slice("float64", dps), _head_slice("arb", dps)
    header()
    row("float64 layer", None, t64, t64)
    row(f"arb {dps} layer", ca, ta, t64)
    res = {"f64": (t64, h64), "arb": (ta, ha)}
    if with_mp:
        cm = conversion(m, "mp", dps)
        tm = median_cpu(lambda: m.forward(toks, backend="mp", dps=dps), 1, warm=False)
        hm = _head_slice("mp", dps)
        row(f"mp {dps} layer", cm, tm, t64, f"mp / arb = {tm / ta:.1f} (measured)")
        res["mp"] = (tm, hm)
    print(f"head slice cpu s: float64 {h64:.4f}, arb {ha:.3f}"
          + (f", mp {res['mp'][1]:.2f}" if with_mp else ""))
    print("EXTRAPOLATED paper forward (5 x layer + 100 x head slice; not measured):")
    for k, (lay, head) in res.items():
        print(f"  {k:>4}: {5 * lay + 100 * head:9.1f} s")
    if with_mp:
        ext = {k: 5 * v[0] + 100 * v[1] for k, v in res.items()}
        print(f"  mp / arb (extrapolated) = {ext['mp'] / ext['arb']:.1f}")
    return res


def part3(dps, accuracy, S, repeats):
    cfg = pyref.PLDRConfig.paper(max_seq_len=64)
    m, toks = pyref.PLDRModel.random(cfg, seed=0), tokens(cfg, S)
    print(f"\n[3] paper configuration ({pyref.num_parameters(cfg):,} parameters), S={S}")
    t64 = median_cpu(lambda: m.forward(toks), 3 * repeats)
    header()
    row("float64", None, t64, t64)
    ca = conversion(m, "arb", dps)
    try:
        ta, out = cpu(lambda: m.forward(toks, backend="arb", dps=dps))
        row(f"arb {dps} digits", ca, ta, t64, f"largest logit radius "
            f"{float(np.max(out.logits_radius)):.1e}, accuracy "
            f"{accuracy_digits(out.logits):.1f} digits")
        print(f"arb / float64 = {ta / t64:.0f}   (target <= 100, at {dps} digits)")
    except ValueError as e:
        print(f"arb {dps} digits: conversion {ca:.2f} s; forward raised: {e}")
    # accuracy=: the 50-digit run, then the digits its loss predicts (conversion included)
    tp, out = cpu(lambda: m.forward(toks, backend="arb", dps=dps, accuracy=accuracy))
    m._conv_cache.clear()   # free the arb copies (the arb_mat weights take ~2 GB each)
    row(f"arb accuracy {accuracy}", None, tp, t64,
        f"working digits {out.backend.dps}, largest logit radius "
        f"{float(np.max(out.logits_radius)):.1e}, accuracy {accuracy_digits(out.logits):.1f}")


PAPER_LAYER = pyref.PLDRConfig(num_layers=1, d_model=896, num_heads=14, dff=2389, a_dff=170,
                               num_res_units=8, num_glu_blocks=2, vocab_size=64, max_seq_len=64)


def _stages(b, P, toks, phi, ffn):
    """[(stage, relative radius)] of one decoder layer's stages, Φ_res by ``phi`` and the FFN
    sublayer by ``ffn`` (plain balls or the centred form)."""
    c, (B, S) = PAPER_LAYER, toks.shape
    H, dk, d = c.num_heads, c.d_k, c.d_model
    out = []

    def rel(name, x):
        out.append((name, 10.0 ** -accuracy_digits(x)))
        return x

    p, lp = P.layers[0].attention, P.layers[0]
    L = p.operator.learner
    x = rel("embedding, LN (x⁰)", ops.layer_norm(
        b, P.embedding[toks] * b.sqrt(b.const(d)), P.ln_emb.gamma, P.ln_emb.beta, c.ln_eps))
    heads = [ops.linear(b, x, w, bias).reshape(B, S, H, dk).transpose(0, 2, 1, 3)
             for w, bias in ((p.wq, p.bq), (p.wk, p.bk), (p.wv, p.bv))]
    qh, kh = (rel("rotated queries Q̂", ops.rotate(b, heads[0], list(range(S)), c.rope_base)),
              ops.rotate(b, heads[1], list(range(S)), c.rope_base))
    D = rel("D = Q̂ᵀQ̂", ops.density(b, qh))
    A = rel("LN_A(D)", ops.layer_norm(b, D, L.ln_A.gamma, L.ln_A.beta, c.ln_eps))
    A = rel("Φ_res", phi(b, A, L.units, c.ln_eps))
    w = L.weights
    A_LM = rel("A_LM", ops.metric_tensor(b, A, w.W, w.b, c.metric_eps))
    A_P = rel("A_P = A_LM^P", ops.potential_tensor(b, A_LM, w.P))
    G = rel("G_LM", ops.energy_curvature(b, A_P, w.a, w.b_a))
    E = rel("scores E", ops.scores(b, qh, kh, G))
    att = rel("softmax", ops.softmax(b, ops.masked(b, E, pyref.plga.causal_pad_mask(toks))))
    o = ops.linear(b, np.transpose(b.matmul(att, heads[2]), (0, 2, 1, 3)).reshape(B, S, d),
                   p.wo, p.bo)
    rel("attention output (W_O)", o)
    x1 = rel("x₁ = LN₁(x + attention)",
             ops.layer_norm(b, x + o, lp.ln1.gamma, lp.ln1.beta, c.ln_eps))
    unit = ResUnitParams((lp.ffn,), lp.ln2.gamma, lp.ln2.beta)
    rel("layer output LN₂(x₁ + FFN(x₁))", ffn(b, x1, (unit,), c.ln_eps))
    return out


def part4(dps, S):
    m, toks = pyref.PLDRModel.random(PAPER_LAYER, seed=0), tokens(PAPER_LAYER, S)
    b = pyref.Backend("arb", dps)
    print(f"\n[4] relative radius after each stage of one paper layer at {dps} digits, S={S}")
    with b.context():
        P = m.backend_params(b)
        plain = _stages(b, P, toks, ops.residual_metric_learner, ops.residual_metric_learner)
        cent = _stages(b, P, toks, arb_centered.residual_units, arb_centered.residual_units)
    print(f"{'stage':>34} {'plain balls':>12} {'centred':>12}")
    for (name, rp), (_, rc) in zip(plain, cent):
        print(f"{name:>34} {rp:12.1e} {rc:12.1e}")
    lost = [np.log10(r[-1][1] / r[0][1]) for r in (plain, cent)]
    print(f"{'digits lost in the layer':>34} {lost[0]:12.1f} {lost[1]:12.1f}")


def _float64_forward(cfg, S):
    m, toks = pyref.PLDRModel.random(cfg, seed=0), tokens(cfg, S)
    return median_cpu(lambda: m.forward(toks), 5)


def part5(dps, S):
    c = pyref.PLDRConfig.paper(max_seq_len=64)
    t64 = _float64_forward(c, S)
    rows, blocks = c.num_heads * c.d_k, c.num_res_units * c.num_glu_blocks
    n_exp = (rows * c.a_dff * blocks + S * c.dff                  # Φ_res and FFN sigmoids
             + c.num_heads * c.d_k ** 2 + c.num_heads * S * S)    # iSwiGLU of A_LM, softmax
    rng = np.random.default_rng(0)
    with pyref.Backend("arb", dps).context():
        third = flint.arb(1) / 3                                   # full-precision midpoints
        xs = np.empty(rows * c.a_dff, dtype=object)
        xs[:] = [flint.arb(v) * third for v in rng.standard_normal(xs.size)]
        t_exp = cpu(lambda: np.frompyfunc(flint.arb.exp, 1, 1)(xs))[0] / xs.size
        H = flint.arb_mat(rows, c.d_k, xs[:rows * c.d_k].tolist())
        W = flint.arb_mat(c.d_k, c.a_dff, rng.standard_normal(c.d_k * c.a_dff).tolist())
        t_phi = statistics.median(cpu(lambda: H * W)[0] for _ in range(3))
    d, f = c.d_model, c.dff
    t_lin = sum(m * _product_time("arb", dps, k, n, full_mids=True)
                for m, k, n in ((4, d, d), (2, d, f), (1, f, d)))
    t_head = _product_time("arb", dps, d, 320, full_mids=True) * c.vocab_size / 320
    layer = n_exp * t_exp + 3 * blocks * t_phi + t_lin
    floor = c.num_layers * layer + t_head
    print(f"\n[5] a floor under the arb paper forward at {dps} digits, S={S} "
          f"(float64 forward {t64:.3f} s)")
    print(f"  per layer: Arb exp {t_exp * 1e6:.2f} us x {n_exp:,} = {n_exp * t_exp:.2f} s; "
          f"Φ_res products ({rows}x{c.d_k}.{c.d_k}x{c.a_dff}, arb_mat) {t_phi * 1e3:.0f} ms "
          f"x {3 * blocks} = {3 * blocks * t_phi:.2f} s; Q, K, V, W_O and FFN products "
          f"(16 rows, exact-weight path) {t_lin:.2f} s")
    print(f"  head 16x{d}.{d}x{c.vocab_size}: {t_head:.2f} s (EXTRAPOLATED from 320 columns)")
    print(f"  floor {c.num_layers} x {layer:.2f} + {t_head:.2f} = {floor:.1f} s = "
          f"{floor / t64:.0f} x float64 (target <= 100)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--trace-dps", type=int, default=120,
                    help="part 4: digits (enough that plain balls stay finite through a layer)")
    ap.add_argument("--dps", type=int, default=50)
    ap.add_argument("--accuracy", type=int, default=30,
                    help="part 3: digits of logit accuracy for the forward(accuracy=) run")
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mp-repeats", type=int, default=3)
    ap.add_argument("--no-mp-layer", action="store_true", help="part 2 without mp (~10 min)")
    ap.add_argument("--quick", action="store_true", help="1 repeat, part 2 without mp")
    a = ap.parse_args(argv)
    if a.quick:
        a.repeats, a.mp_repeats, a.no_mp_layer = 1, 1, True
    print(f"pyref {pyref.__version__}, python-flint {flint.__version__}, numpy {np.__version__}, "
          f"mpmath {mpmath.__version__} (backend {mpmath.libmp.BACKEND}), 1 thread, cpus "
          f"{os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    if 1 in a.parts:
        part1(a.dps, a.seq, a.repeats, a.mp_repeats)
    if 2 in a.parts:
        part2(a.dps, a.seq, a.repeats, not a.no_mp_layer)
    if 3 in a.parts:
        part3(a.dps, a.accuracy, a.seq, a.repeats)
    if 4 in a.parts:
        part4(a.trace_dps, a.seq)
    if 5 in a.parts:
        part5(a.dps, a.seq)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
