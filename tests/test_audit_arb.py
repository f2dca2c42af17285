"""``plga audit --backend arb``: the certified G-cache criterion (crosscheck/audit/gcache.py).

End to end on the tiny configuration of tests/test_ckpt_audit.py: the criterion is decided by
the balls and agrees with the float64 audit on the same model and prompts (a pinned model whose
criterion holds, a random one whose criterion fails); the bounds enclose the values computed by
mpmath at 100 digits; an overlap of the bounds gives null with its reason; an ambiguous greedy
argmax (two identical rows of the head: equal real logits, which no precision separates) is a
one-line error naming the prompt and the step, exit code 1, nothing written.

Tolerances (derived): the arb bounds are floats rounded outward from balls that contain the
exact values; mp at 100 digits (~332 bits) differs from the exact values by far less than one
float64 ulp of them, and float() rounds monotonically, so float(mp value) can never cross an
outward-rounded float bound: the enclosure assertions are exact comparisons.  Tightness: at 30
digits (128 bits) the logits' radii are ~1e-21 on this model (measured: d_upper at step 0, where
cached and uncached logits are the same real number, is 5.6e-21), so the bounds lie within
1e-12 of the mp values with a margin of 10^9.
"""
import json
import subprocess
import sys

import numpy as np
import pytest
from flint import arb, ctx
from test_ckpt_audit import CFG, PROMPTS, pinned_state_dict

import pyref
from crosscheck.audit.gcache import _criterion, gcache_fidelity
from crosscheck.audit.run import AuditFailure, AuditOptions, _to_f64, run_audit

DPS = 30
STEPS = 3
TIGHT = 1e-12      # see the module docstring


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("audit_arb")
    pyref.PLDRModel.random(CFG, seed=3).save(d / "random.safetensors")
    pyref.PLDRModel.from_state_dict(pinned_state_dict(), CFG).save(d / "pinned.npz")
    (d / "t1.json").write_text(json.dumps(PROMPTS))
    return d


def _audit(files, ckpt, out, backend, **kw):
    kw.setdefault("jobs", 1)
    return run_audit(AuditOptions(checkpoint=files / ckpt, tokens=files / "t1.json", out=out,
                                  steps=STEPS, plots=False, progress=False,
                                  backend=backend, dps=DPS, **kw), log=lambda *a: None)


@pytest.mark.parametrize("ckpt, expected", [("pinned.npz", True), ("random.safetensors", False)])
def test_arb_audit_decides_and_agrees_with_float64(files, tmp_path, ckpt, expected):
    f64 = _audit(files, ckpt, tmp_path / "f64", "float64")["gcache"]
    res = _audit(files, ckpt, tmp_path / "arb", "arb")
    g = res["gcache"]
    assert res["backend"] == "arb" and res["dps"] == DPS
    assert g["summary"]["certified"] is True and g["summary"]["undecided"] == []
    for x, y in zip(g["per_prompt"], f64["per_prompt"]):
        assert x["certified"] is True and "certified" not in y
        assert x["sufficient"] is expected and y["sufficient"] is expected
        assert x["cached_tokens"] == y["cached_tokens"]
        # the decision follows from the recorded bounds
        if expected:
            assert 2 * x["max_d_upper"] < x["min_margin_lower"]
        else:
            assert 2 * x["max_d_lower"] >= x["min_margin_upper"]
        assert x["max_d_lower"] <= x["max_d_upper"]
        assert x["min_margin_lower"] <= x["min_margin_upper"]
    assert g["summary"]["all_sufficient"] is f64["summary"]["all_sufficient"] is expected
    md = (tmp_path / "arb" / "audit.md").read_text()
    assert "certified (Arb enclosures)" in md
    assert "floating-point estimate" in (tmp_path / "f64" / "audit.md").read_text()
    # the other sections ran on the midpoints (close to float64 on this well-conditioned model)
    a = [r["sigma2_over_sigma1"] for r in res["rank_one"]["A_LM"]["per_head"]]
    assert len(a) == len(PROMPTS) * CFG.num_layers * CFG.num_heads


@pytest.mark.parametrize("ckpt", ["pinned.npz", "random.safetensors"])
def test_bounds_enclose_mp100(files, ckpt):
    model = pyref.PLDRModel.load(files / ckpt)
    for p in PROMPTS:
        x = gcache_fidelity(model, p, STEPS, "arb", DPS, show_progress=False)
        r = gcache_fidelity(model, p, STEPS, "mp", 100, show_progress=False)
        assert x["cached_tokens"] == r["cached_tokens"]
        assert x["max_d_upper"] >= r["max_d"] >= x["max_d_lower"]
        assert x["min_margin_lower"] <= r["min_margin"] <= x["min_margin_upper"]
        for t in range(STEPS):
            assert x["d_upper"][t] >= r["d"][t]
            assert x["margin_cached_lower"][t] <= r["margin_cached"][t]
        assert x["max_d_upper"] - r["max_d"] <= TIGHT
        assert r["min_margin"] - x["min_margin_lower"] <= TIGHT


def test_overlapping_bounds_are_undecided():
    m = {"margin_cached": [0.5, 0.4], "d_lower": [0.1, 0.19], "d_upper": [0.1, 0.21],
         "margin_cached_lower": [0.5, 0.39], "margin_cached_upper": [0.5, 0.41]}
    rec: dict = {}
    _criterion(rec, m, arb=True)       # 2·max d ∈ [0.38, 0.42], min margin ∈ [0.39, 0.41]
    assert rec["sufficient"] is None and rec["certified"] is True
    assert rec["null_reasons"]["sufficient"].startswith("undecided at this precision (")
    assert rec["max_d_upper"] == 0.21 and rec["min_margin_lower"] == 0.39
    m["d_upper"][1] = m["d_lower"][1] = 0.15                      # 0.30 < 0.39: decided
    rec = {}
    _criterion(rec, m, arb=True)
    assert rec["sufficient"] is True


def _tied_model(files, d, step):
    """The random model with the head row (weight and bias) of the cached greedy token at
    ``step`` copied into another token's row that is not greedy before: at ``step`` the two
    logits are the same real number."""
    m = pyref.PLDRModel.load(files / "random.safetensors")
    cached = m.generate([PROMPTS[0]], STEPS).tokens[0, len(PROMPTS[0]):].tolist()
    top = cached[step]
    other = next(v for v in range(1, CFG.vocab_size) if v not in cached[:step + 1])
    sd = m.state_dict()
    for k in ("final_layer.weight", "final_layer.bias"):
        sd[k] = sd[k].copy()
        sd[k][other] = sd[k][top]
    pyref.PLDRModel.from_state_dict(sd, CFG).save(d / "tied.npz")
    return cached


@pytest.mark.parametrize("step", [0, 1])
def test_ambiguous_argmax_is_one_line(files, tmp_path, step):
    cached = _tied_model(files, tmp_path, step)
    assert len(set(cached[:step + 1])) == step + 1
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "crosscheck", "audit", str(tmp_path / "tied.npz"),
                        "--tokens", str(files / "t1.json"), "--steps", str(STEPS), "--backend",
                        "arb", "--dps", str(DPS), "--jobs", "1", "--out", str(out), "--quiet",
                        "--no-plots"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert f"prompt 0, step {step} (cached greedy decoding)" in lines[0]
    assert "more digits" in lines[0] and f"at {DPS} digits" in lines[0]
    assert not (out / "audit.json").exists()


def test_ambiguous_argmax_in_process(files, tmp_path):
    _tied_model(files, tmp_path, 0)
    with pytest.raises(AuditFailure, match=r"G-cache, prompt 0, step 0 .*--dps 60"):
        run_audit(AuditOptions(checkpoint=tmp_path / "tied.npz", tokens=files / "t1.json",
                               out=tmp_path / "o", steps=STEPS, plots=False, progress=False,
                               backend="arb", dps=DPS, jobs=1), log=lambda *a: None)


def test_cli_accepts_arb():
    r = subprocess.run([sys.executable, "-m", "crosscheck", "audit", "--help"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "{float64,float32,mp,arb}" in r.stdout


def test_statistics_use_midpoints():
    """The float64 statistics of an arb run read the balls' midpoints (not an endpoint)."""
    with ctx.workprec(128):
        balls = np.array([[arb(1.5, 0.25), arb(-2.0, 1.0)]], dtype=object)
    f = _to_f64([[{"A_LM": balls}]])[0][0]["A_LM"]
    assert f.dtype == np.float64 and f.tolist() == [[1.5, -2.0]]


def test_accuracy_chooses_the_digits(files, tmp_path):
    """``--accuracy``: the audit raises the working precision from --dps 1 (64 bits, where this
    model's balls are too wide: test_pyref_arb) to what the longest prompt needs, records it
    and certifies the criterion as at DPS digits."""
    res = run_audit(AuditOptions(checkpoint=files / "random.safetensors",
                                 tokens=files / "t1.json", out=tmp_path / "a", steps=STEPS,
                                 jobs=1, plots=False, progress=False, backend="arb", dps=1,
                                 accuracy=20), log=lambda *a: None)
    assert res["accuracy"] == 20 and res["dps"] > 1
    assert res["gcache"]["summary"]["certified"] is True
    assert "chosen for --accuracy 20" in (tmp_path / "a" / "audit.md").read_text()


@pytest.mark.parametrize("args, msg", [
    (["--backend", "mp", "--accuracy", "20"], "--accuracy: only with --backend arb"),
    (["--backend", "arb", "--accuracy", "0"], "--accuracy"),
])
def test_accuracy_bad_input_is_refused(files, tmp_path, args, msg):
    """Exit 2, the error on the last line (argparse prints its usage above its own errors),
    no traceback, nothing written."""
    r = subprocess.run([sys.executable, "-m", "crosscheck", "audit",
                        str(files / "random.safetensors"), "--tokens", str(files / "t1.json"),
                        "--out", str(tmp_path / "o"), *args],
                       capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and msg in lines[-1] and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_perron_in_worker_processes(files, tmp_path):
    """``--jobs 2`` (the CLI default) sends the arb balls to worker processes (as exact
    integers: arb does not pickle) and gets the same certificates as in one process."""
    one, two = (_audit(files, "random.safetensors", tmp_path / f"j{j}", "arb", jobs=j)
                for j in (1, 2))
    assert one["perron"]["per_head"] and one["perron"]["per_head"] == two["perron"]["per_head"]
    assert one["perron"]["certified"] == len(one["perron"]["per_head"])
    # Arb's radius comes back as a 30-bit ``mag`` rounded up (relative 2^-29 ≈ 2e-9 per ball,
    # linear through the determinant): only det_rel_radius may grow, by ≤ 1e-6 relative
    for x, y in zip(one["determinants"]["per_head"], two["determinants"]["per_head"]):
        rx, ry = x.pop("det_rel_radius"), y.pop("det_rel_radius")
        assert x == y and rx <= ry <= rx * (1 + 1e-6)
