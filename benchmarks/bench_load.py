"""Benchmark: loading a paper-size .pth with ``pyref.torchfile`` vs ``torch.load``.

Writes (to a temporary directory) a v510 checkpoint of :meth:`PLDRConfig.paper` (109.7M
float32 parameters, ~440 MB) with ``torch.save`` in the authors' ``fsdp_save_model`` layout
``{'model_state_dict', 'loss', 'accuracy'}``, warms the page cache, then loads it in fresh
subprocesses, alternating:

* ``torch``: ``torch.load(path, weights_only=True)``;
* ``pyref``: ``pyref.torchfile.read_state_dict(path)`` and reading every entry (all kept
  alive, as torch keeps its tensors); torch is not imported.

Per run: the load's wall and CPU time (measured in the child after its imports) and the
child's peak RSS (``VmHWM``), also net of its RSS after the imports.  The checkpoint is
written by a separate child too.
Prints medians and the ratios pyref / torch.  Needs torch (run with the torch venv)::

    PYTHONPATH=. /tmp/tv/bin/python benchmarks/bench_load.py [--repeat 3] [--dir DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = {
    "torch": """
import torch
{pre}
sd = torch.load(PATH, weights_only=True)["model_state_dict"]
n = sum(v.numel() for v in sd.values())
{post}""",
    "pyref": """
from pyref.torchfile import read_state_dict
{pre}
arrays, info = read_state_dict(PATH)
kept = [arrays[k] for k in arrays]
n = sum(a.size for a in kept)
assert "torch" not in sys.modules
{post}""",
}
PRE = """import sys, time
PATH = sys.argv[1]
def status(field):  # kB; VmHWM = this process's peak RSS (ru_maxrss would include the
    with open("/proc/self/status") as f:  # parent's peak, inherited at fork)
        return int(next(l for l in f if l.startswith(field)).split()[1])
rss0 = status("VmRSS:")
t0, c0 = time.perf_counter(), time.process_time()"""
POST = """wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"wall": wall, "cpu": cpu, "rss_import_kb": rss0, "peak_kb": status("VmHWM:"),
                  "n": int(n)}))"""


WRITE = """import sys, torch, pyref
g = torch.Generator().manual_seed(0)
shapes = pyref.state_dict_shapes(pyref.PLDRConfig.paper())
sd = {k: torch.randn(*shp, generator=g) * 0.02 for k, shp in shapes.items()}
torch.save({"model_state_dict": sd, "loss": 3.25, "accuracy": 0.375}, sys.argv[1])
print(sum(v.numel() for v in sd.values()))"""


def _python(code, path):
    """Run ``code`` in a fresh interpreter (pyref importable) with argv[1] = path; its last
    stdout line."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code, path], stdout=subprocess.PIPE, env=env,
                         text=True, check=True).stdout
    return out.strip().splitlines()[-1]


def run_child(which, path):
    """One fresh interpreter loading ``path``: times (s) and RSS (kB)."""
    return json.loads(_python("import json\n" + CHILD[which].format(pre=PRE, post=POST), path))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where to write the checkpoint (default: a "
                    "temporary directory, removed afterwards)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        path = os.path.join(d, "pldr_v510_paper.pth")
        n = int(_python(WRITE, path))     # the paper-size state dict, saved the authors' way
        size = os.path.getsize(path)
        print(f"checkpoint: {n:,} float32 parameters, {size / 2**20:.1f} MiB")
        with open(path, "rb") as f:              # warm the page cache for both readers
            while f.read(1 << 24):
                pass
        runs = {"torch": [], "pyref": []}
        for _ in range(args.repeat):
            for which in runs:
                r = run_child(which, path)
                assert r["n"] == n, (which, r["n"], n)
                runs[which].append(r)
    med = {w: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for w, rs in runs.items()}
    mib = 1024.0
    print(f"{'':6} {'wall s':>8} {'cpu s':>8} {'peak RSS MiB':>13} {'after import':>13} "
          f"{'peak - import':>14} {'(peak-import)/file':>19}")
    for w, m in med.items():
        net = (m["peak_kb"] - m["rss_import_kb"]) * 1024
        print(f"{w:6} {m['wall']:8.3f} {m['cpu']:8.3f} {m['peak_kb'] / mib:13.1f} "
              f"{m['rss_import_kb'] / mib:13.1f} {net / 2**20:14.1f} {net / size:19.2f}")
    t, p = med["torch"], med["pyref"]
    print(f"pyref / torch: wall {p['wall'] / t['wall']:.2f}x, cpu {p['cpu'] / t['cpu']:.2f}x; "
          f"pyref peak RSS / file size {p['peak_kb'] * 1024 / size:.2f} "
          f"(torch {t['peak_kb'] * 1024 / size:.2f})")


if __name__ == "__main__":
    main()
