"""pyref benchmarks (a script, not a test).  Prints one table per part and the ratios.

1. float64 forward of the paper configuration (L=5, H=14, d_k=64, A_dff=170, N_res=8,
   V=32000) at several sequence lengths, pyref (numpy) vs the independent PyTorch CPU
   float64 peer (benchmarks/torch_peer.py) on the same weights; also the max logit
   deviation between the two.
2. The mp backend's cost per token at 30/50/100 digits on a small configuration.
3. Greedy decoding: KV-cache + G-cache vs uncached (full re-run per step) in float64 on
   the paper configuration.

Usage:
    python benchmarks/bench_pyref.py                 # everything (needs torch for part 1)
    python benchmarks/bench_pyref.py --parts 2 3     # no torch needed
    python benchmarks/bench_pyref.py --quick         # shorter sequences / fewer steps
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _threads_from_argv(argv):
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--threads="):
            return a.split("=", 1)[1]
    return None


# BLAS thread counts must be fixed before numpy/torch load their libraries
_T = _threads_from_argv(sys.argv)
if _T is not None:
    for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_v] = _T

import numpy as np  # noqa: E402 (after the BLAS thread variables above)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pyref  # noqa: E402 (after the BLAS variables and the sys.path insertion)


def timeit(fn, repeats):
    """Median process CPU time of ``fn`` (after one warm-up call)."""
    fn()
    ts = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        ts.append(time.process_time() - t)
    return statistics.median(ts)


def part1(seqs, repeats):
    try:
        import torch
    except ImportError:
        print("part 1 skipped: torch is not installed (pip install torch==2.13.0)")
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from torch_peer import peer_from_state_dict

    if _T is not None:
        torch.set_num_threads(int(_T))

    cfg = pyref.PLDRConfig.paper(max_seq_len=max(seqs))
    model = pyref.PLDRModel.random(cfg, seed=0)
    peer = peer_from_state_dict(model.state_dict(), cfg)
    print(f"\n[1] float64 forward, paper configuration ({pyref.num_parameters(cfg):,} parameters), "
          f"batch 1, torch threads {torch.get_num_threads()}, median of {repeats}")
    print("wall = elapsed seconds; cpu = process CPU seconds (robust to other load on the machine)")
    print(f"{'S':>6} {'pyref wall':>10} {'torch wall':>10} {'ratio':>6} {'pyref cpu':>10} "
          f"{'torch cpu':>10} {'ratio':>6} {'max|Δlogit|':>12}")
    rng = np.random.default_rng(0)
    for S in seqs:
        toks = rng.integers(1, cfg.vocab_size, size=(1, S))
        dev = float(np.max(np.abs(model.forward(toks).logits - peer(toks)[0].numpy())))  # + warm-up
        res = {"p": ([], []), "t": ([], [])}
        for _ in range(repeats):  # interleaved, so that background load hits both alike
            for key, fn in (("p", lambda: model.forward(toks)), ("t", lambda: peer(toks))):
                w, c = time.perf_counter(), time.process_time()
                fn()
                res[key][0].append(time.perf_counter() - w)
                res[key][1].append(time.process_time() - c)
        pw, pc = (statistics.median(v) for v in res["p"])
        tw, tc = (statistics.median(v) for v in res["t"])
        print(f"{S:>6} {pw:>10.3f} {tw:>10.3f} {pw / tw:>6.2f} {pc:>10.3f} {tc:>10.3f} "
              f"{pc / tc:>6.2f} {dev:>12.2e}", flush=True)


def part2(digits, S):
    cfg = pyref.PLDRConfig(num_layers=2, d_model=32, num_heads=4, dff=64, a_dff=16, num_res_units=2,
                           num_glu_blocks=2, vocab_size=64, max_seq_len=64)
    model = pyref.PLDRModel.random(cfg, seed=0)
    toks = np.random.default_rng(0).integers(1, cfg.vocab_size, size=(1, S))
    print(f"\n[2] mp backend cost, config L=2 d=32 H=4 d_k=8 dff=64 A_dff=16 N_res=2 V=64, "
          f"one forward of S={S} tokens")
    t64 = timeit(lambda: model.forward(toks), 3)
    print(f"{'backend':>10} {'cpu s/fwd':>10} {'ms/token':>9} {'x float64':>10}")
    print(f"{'float64':>10} {t64:>10.4f} {1e3 * t64 / S:>9.3f} {1.0:>10.0f}")
    for d in digits:
        t = timeit(lambda: model.forward(toks, backend="mp", dps=d), 1)
        print(f"{'mp/' + str(d):>10} {t:>10.3f} {1e3 * t / S:>9.2f} {t / t64:>10.0f}", flush=True)


def part3(prompt_len, new_tokens):
    cfg = pyref.PLDRConfig.paper(max_seq_len=prompt_len + new_tokens)
    model = pyref.PLDRModel.random(cfg, seed=0)
    prompt = np.random.default_rng(1).integers(1, cfg.vocab_size, size=(1, prompt_len))
    print(f"\n[3] greedy decoding, paper configuration, float64, prompt {prompt_len}, "
          f"{new_tokens} new tokens")
    res = {}
    model.forward(prompt[:, :8])  # warm-up
    print(f"{'mode':>10} {'wall s':>8} {'cpu s':>8} {'ms/token':>9} {'speedup wall':>13} "
          f"{'speedup cpu':>12} {'same tokens':>12}")
    for name, kv, gc in (("uncached", False, False), ("KV only", True, False),
                         ("G only", False, True), ("KV+G", True, True)):
        w, c = time.perf_counter(), time.process_time()
        out = model.generate(prompt, new_tokens, kvcache=kv, gcache=gc)
        res[name] = (time.perf_counter() - w, time.process_time() - c, out.tokens)
        bw, bc = res["uncached"][:2]
        t, tc, tok = res[name]
        same = bool(np.array_equal(tok, res["uncached"][2]))
        print(f"{name:>10} {t:>8.2f} {tc:>8.2f} {1e3 * t / new_tokens:>9.1f} {bw / t:>13.2f} "
              f"{bc / tc:>12.2f} {str(same):>12}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--seqs", type=int, nargs="+", default=[128, 256, 512, 1024])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--digits", type=int, nargs="+", default=[30, 50, 100])
    ap.add_argument("--mp-seq", type=int, default=8)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--new", type=int, default=32)
    ap.add_argument("--quick", action="store_true", help="seqs 128 256, 1 repeat, 8 new tokens")
    ap.add_argument("--threads", type=int, default=None,
                    help="BLAS/torch threads for both implementations (default: library default)")
    a = ap.parse_args(argv)
    if a.quick:
        a.seqs, a.repeats, a.new = [128, 256], 1, 8
    print(f"pyref {pyref.__version__}, numpy {np.__version__}, cpus {os.cpu_count()}, "
          f"threads {a.threads if a.threads else 'default'}, load average {os.getloadavg()[0]:.1f}")
    import mpmath  # pyref has already loaded it; BACKEND is 'gmpy' when gmpy2 is installed
    print(f"mpmath {mpmath.__version__}, mpmath backend: {mpmath.libmp.BACKEND}")
    if 1 in a.parts:
        part1(a.seqs, a.repeats)
    if 2 in a.parts:
        part2(a.digits, a.mp_seq)
    if 3 in a.parts:
        part3(a.prompt, a.new)


if __name__ == "__main__":
    main()
