"""``plga audit`` (the package crosscheck/audit/): a synthetic end-to-end run from
the command line with assertions on the numbers, agreement of every section with pyref's
own functions, and every bad input (one-line error, exit 2, no audit.json written)."""
import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

import pyref
from crosscheck.audit.highprec import det_report, perron_report
from crosscheck.audit.inputs import read_tokens
from crosscheck.audit.plots import PLOT_FILES
from crosscheck.audit.records import sanitize
from crosscheck.audit.run import SCHEMA, AuditOptions, run_audit
from crosscheck.cli import main
from crosscheck.errors import PlgaError
from pyref import analysis
from pyref.checkpoint import save_arrays

CFG = pyref.PLDRConfig(num_layers=2, d_model=8, num_heads=2, dff=12, a_dff=6, num_res_units=2,
                       num_glu_blocks=2, vocab_size=13, max_seq_len=24)
H, DK, L = CFG.num_heads, CFG.d_k, CFG.num_layers
PROMPTS = [[3, 5, 7, 2, 9, 1], [4, 4, 8, 11, 12]]
PROMPTS2 = [[5, 6, 7, 8, 9, 10], [1, 2, 3]]
SECTIONS = ("rank_one", "commutant", "perron", "dag", "gcache", "block_vs_sequential",
            "order_parameter",
            "determinants")


def _commutant_element(rng):
    """[H, d_k, d_k] block-diagonal ⊕_j (c_j·1 + s_j·J): commutes with every RoPE rotation."""
    G = np.zeros((H, DK, DK))
    for h in range(H):
        for j in range(DK // 2):
            c, s = rng.uniform(0.5, 2.0), rng.uniform(-1.0, 1.0)
            G[h, 2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, -s], [s, c]]
    return G


def pinned_state_dict(seed=0):
    """W = 0, b = 1 (A_LM constant), a = 0, b_a in the RoPE commutant: G_LM = b_a for every
    input."""
    sd = pyref.PLDRModel.random(CFG, seed=seed).state_dict()
    rng = np.random.default_rng(seed + 100)
    for li in range(L):
        pre = f"decoder.dec_layers.{li}.mha1.plgatt_layer."
        sd[pre + "Wlst"] = np.zeros((H, DK, DK))
        sd[pre + "blst"] = np.ones((H, DK, DK))
        sd[pre + "alst"] = np.zeros((H, DK, DK))
        sd[pre + "balst"] = _commutant_element(rng)
    # keep greedy decoding off the PAD id 0: a generated PAD is masked in later uncached passes
    # but not in the cached decode (spec B), which would add a deviation G does not cause
    sd["final_layer.bias"] = sd["final_layer.bias"].copy()
    sd["final_layer.bias"][0] = -1e3
    return sd


def _strict_json(path):
    def bad(c):
        raise AssertionError(f"non-JSON constant {c} in {path}")
    return json.loads(path.read_text(), parse_constant=bad)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("audit")
    pyref.PLDRModel.random(CFG, seed=3).save(d / "random.safetensors")
    pyref.PLDRModel.from_state_dict(pinned_state_dict(), CFG).save(d / "pinned.npz")
    (d / "t1.json").write_text(json.dumps(PROMPTS))
    (d / "t2.txt").write_text("# second run\n5 6 7 8 9 10\n1, 2, 3   # trailing comment\n\n")
    return d


def _opts(files, ckpt, out, **kw):
    base = dict(checkpoint=files / ckpt, tokens=files / "t1.json", out=out, steps=3, jobs=1,
                plots=False,
                progress=False)
    base.update(kw)
    return AuditOptions(**base)


# ------------------------------------------------------------------ end to end (CLI)
def test_cli_end_to_end_pinned_operator(files, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "crosscheck", "audit", str(files / "pinned.npz"),
                        "--tokens", str(files / "t1.json"), "--tokens2", str(files / "t2.txt"),
                        "--steps", "4", "--jobs", "2", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "wrote" in r.stdout and " s" in r.stdout
    res = _strict_json(out / "audit.json")
    for s in SECTIONS:
        assert s in res, s
    assert res["checkpoint"]["sha256"] == hashlib.sha256((files
                                                          / "pinned.npz").read_bytes()).hexdigest()
    assert res["config"]["num_heads"] == H and res["backend"] == "float64"
    assert res["versions"]["numpy"] and res["nonfinite_replaced"] == []
    # G_LM = b_a, a commutant element: both residuals vanish (up to float64 round-off)
    com = res["commutant"]["per_head"]
    assert len(com) == len(PROMPTS) * L * H
    assert max(x["commutant_residual"] for x in com) < 1e-12
    assert max(x["commutator_residual"] for x in com) < 1e-12
    # the operator does not depend on the input: ε_G = 0 exactly, same tokens, criterion holds
    for g in res["gcache"]["per_prompt"]:
        assert g["tokens_identical"] and g["first_divergence_step"] is None
        assert g["pad_generated_at_steps"] == []
        assert g["cached_tokens"] == g["uncached_tokens"] and len(g["cached_tokens"]) == 4
        assert all(e == 0.0 for row in g["eps_G"] for e in row)
        assert all(e == 0.0 for row in g["max_dG"] for e in row)
        assert g["d"][0] == 0.0 and g["max_d"] < 1e-12
        assert g["sufficient"] is True
    # A_LM is the constant matrix iSwiGLU(1) + ε: rank one, rows identical (ratio undefined -> null)
    c = 1.0 / (1.0 + np.exp(-1.0)) + CFG.metric_eps
    for x in res["rank_one"]["A_LM"]["per_head"]:
        assert x["numerical_rank"] == 1 and x["sigma2_over_sigma1"] < 1e-12
        assert x["row_variance_ratio"] is None
        assert "constant" in x["null_reasons"]["row_variance_ratio"]
    # Perron: root d_k·c, uniform eigenvector, certified (τ = 0)
    pe = res["perron"]
    assert pe["computed"] and pe["certified"] == L * H and pe["inconclusive"] == 0
    for x in pe["per_head"]:
        assert abs(x["root_float"] - DK * c) < 1e-12
        lo, hi = x["root_enclosure"]
        assert lo <= DK * c * (1 + 1e-15) and hi >= DK * c * (1 - 1e-15)
        assert abs(x["vector_margin"] - 1.0) < 1e-12 and x["tau"] < 1e-12
    # a constant G gives no dependence on later tokens: block CE = sequential NLL per token
    bs = res["block_vs_sequential"]
    assert bs["computed"] and bs["aggregate"]["n_targets"] == sum(len(p) - 1 for p in PROMPTS)
    assert bs["aggregate"]["max_abs_gap"] < 1e-12
    # order parameter between the two runs: G_LM (and A_LM) identical, A differs
    op = res["order_parameter"]
    assert op["computed"] and len(op["per_pair"]) == len(PROMPTS) * 4 * L
    for x in op["per_pair"]:
        if x["operator"] in ("G_LM", "A_LM", "A_P"):
            assert x["rmse"] == 0.0 and x["m_rms"] == 0.0
        else:
            assert x["rmse"] > 0 and x["m_rms"] > 0
    # determinants: a rank-one A_LM has det 0 up to rounding at 30 digits
    de = res["determinants"]
    assert de["computed"] and de["total"] == L * H
    md = (out / "audit.md").read_text()
    for head in ("## 1.", "## 2.", "## 3.", "## 4.", "## 5.", "## 6.", "## 7.", "## 8.",
                 "What was aggregated"):
        assert head in md
    plots = res["plots"]
    if plots["skipped_reason"] is None:
        assert sorted(plots["written"]) == sorted(PLOT_FILES)
        for p in plots["written"]:
            assert (out / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "matplotlib" in plots["skipped_reason"]


# ------------------------------------------------------------- numbers vs pyref itself
def test_random_model_sections_agree_with_pyref(files, tmp_path):
    res = run_audit(_opts(files, "random.safetensors", tmp_path / "o", tokens2=files / "t1.json"),
                    log=lambda *_: None)
    model = pyref.PLDRModel.load(files / "random.safetensors")
    out = model.forward([PROMPTS[0]])
    ded = out.deductive
    # rank one / commutant / DAG equal the analysis functions on the forward pass's operators
    for x in res["rank_one"]["A_LM"]["per_head"]:
        if x["prompt"] == 0:
            M = ded[x["layer"]]["A_LM"][0, x["head"]]
            assert x["sigma2_over_sigma1"] == pytest.approx(analysis.singular_ratio(M), rel=1e-12)
            assert x["numerical_rank"] == analysis.numerical_rank(M)
    for x in res["commutant"]["per_head"]:
        assert 1e-3 < x["commutant_residual"] <= 1.0
        if x["prompt"] == 0:
            G = ded[x["layer"]]["G_LM"][0, x["head"]]
            assert x["commutant_residual"] == pytest.approx(analysis.commutant_residual(G),
                                                            rel=1e-12)
    for x in res["dag"]["per_head"]:
        if x["prompt"] == 0:
            G = ded[x["layer"]]["G_LM"][0, x["head"]]
            assert x["G_LM"] == pytest.approx(analysis.dag_value(G), rel=1e-12)
    # Perron root = largest eigenvalue, inside the rigorous enclosure; det vs LAPACK float64
    for x in res["perron"]["per_head"]:
        M = ded[x["layer"]]["A_LM"][0, x["head"]]
        lam = float(np.max(np.linalg.eigvals(M).real))
        assert x["root_float"] == pytest.approx(lam, rel=1e-10)
        lo, hi = x["root_enclosure"]
        assert lo <= x["root_float"] <= hi
        assert 0 < x["vector_margin_lb"] <= x["vector_margin"] <= 1
        assert x["certified"] and 0 < x["certified_gap_lb"] <= x["gap"] * (1 + 1e-9)
    for x in res["determinants"]["per_head"]:
        M = ded[x["layer"]]["A_LM"][0, x["head"]]
        assert float(x["det_mp"]) == pytest.approx(np.linalg.det(M), rel=1e-10)
        assert x["float32_underflow"] is False
    # G-cache fidelity equals pyref.analysis.cache_deviation
    cd = analysis.cache_deviation(model, PROMPTS[0], 3)
    g = res["gcache"]["per_prompt"][0]
    np.testing.assert_allclose(g["d"], cd.d, rtol=0, atol=1e-14)
    np.testing.assert_allclose(g["margin_cached"], cd.margin, rtol=1e-14)
    np.testing.assert_allclose(g["eps_G"], cd.eps_G, rtol=1e-12, atol=1e-15)
    assert g["sufficient"] == cd.sufficient
    assert g["cached_tokens"] == [int(t) for t in cd.tokens[0, 6:]]
    unc = model.generate(PROMPTS[0], 3, kvcache=False, gcache=False).new_tokens[0].tolist()
    assert g["uncached_tokens"] == unc
    assert max(g["eps_G_max_by_layer"]) > 1e-6          # a learned operator moves with the sequence
    # block vs sequential equals pyref.losses; the last row is the same call in both
    t = np.array([PROMPTS[0]])
    blk, seq = pyref.block_cross_entropy(model, t), pyref.sequential_nll(model, t)
    b0 = res["block_vs_sequential"]["per_prompt"][0]
    assert b0["block_ce_per_token"] == pytest.approx(float(blk.loss), rel=1e-14)
    assert b0["seq_nll_per_token"] == pytest.approx(float(seq.loss), rel=1e-14)
    assert b0["gaps"][-1] == 0.0 and abs(b0["gaps"][0]) < 1e-12
    assert b0["max_abs_gap"] > 1e-6                      # D couples all rows of a block call
    # the same prompts twice: order parameter 0
    assert all(x["rmse"] == 0.0 for x in res["order_parameter"]["per_pair"])
    assert json.loads((tmp_path / "o" / "audit.json").read_text())["schema"] == SCHEMA


def test_mp_backend_matches_float64(files, tmp_path):
    kw = dict(tokens=None, steps=2, perron=False, determinants=False)
    r64 = run_audit(_opts(files, "random.safetensors", tmp_path / "a", **kw), log=lambda *_: None)
    rmp = run_audit(_opts(files, "random.safetensors", tmp_path / "b", backend="mp", dps=30, **kw),
                    log=lambda *_: None)
    assert rmp["dps"] == 30 and rmp["prompts"]["tokens"] == r64["prompts"]["tokens"]
    for a, b in zip(r64["commutant"]["per_head"], rmp["commutant"]["per_head"]):
        assert a["commutant_residual"] == pytest.approx(b["commutant_residual"], rel=1e-9)
    ga, gb = r64["gcache"]["per_prompt"][0], rmp["gcache"]["per_prompt"][0]
    assert ga["cached_tokens"] == gb["cached_tokens"] and gb["d"][0] == 0.0
    np.testing.assert_allclose(ga["d"], gb["d"], atol=1e-9)
    ba, bb = r64["block_vs_sequential"]["aggregate"], rmp["block_vs_sequential"]["aggregate"]
    assert ba["gap_per_token"] == pytest.approx(bb["gap_per_token"], rel=1e-8, abs=1e-12)


# ------------------------------------------------------------------ pieces
def test_determinant_underflow_is_measured():
    rng = np.random.default_rng(0)
    A = 0.05 * np.eye(64) + 1e-4 * rng.uniform(size=(64, 64))   # det ≈ 0.05^64 ≈ 5e-84
    r = det_report(A, 30)
    assert r["float32_zero"] and r["float32_underflow"] and r["below_float32_min_subnormal"]
    assert not r["float64_zero"] and r["float64_rel_error"] < 1e-10
    assert -86 < r["log10_abs_det"] < -80 and r["sign"] == 1
    assert float(r["det_mp"]) == pytest.approx(np.linalg.det(A), rel=1e-10)


def test_perron_inconclusive_is_reported_not_hidden():
    # λ = 2, 1 (gap 1), but φ = 1e-80 puts Hopf's τ within 1e-40 of 1: at 30 digits τ = 1
    A = np.array([[2.0, 1e-40], [1e-40, 1.0]])
    r = perron_report(A, 30)
    assert r["certified"] is False and r["certified_gap_lb"] is None
    assert "inconclusive" in r["null_reasons"]["certified_gap_lb"]
    assert r["root_float"] == 2.0 and r["gap"] == pytest.approx(1.0)
    lo, hi = r["root_enclosure"]
    assert lo <= 2.0 <= hi
    json.dumps(sanitize(r), allow_nan=False)


def test_token_file_formats(tmp_path):
    p = tmp_path / "a.json"
    p.write_text("[1, 2, 3]")
    assert read_tokens(p, 13) == [[1, 2, 3]]
    p.write_text("[[1, 2], [3]]")
    assert read_tokens(p, 13) == [[1, 2], [3]]
    p = tmp_path / "a.txt"
    p.write_text("# c\n1 2,3\n\n 4\t5 # x\n")
    assert read_tokens(p, 13) == [[1, 2, 3], [4, 5]]
    for text, msg in (("[1, [2]]", "mixes"), ("[true, 2]", "integer token id"),
                      ("[1.0]", "integer token id"),
                      ("1 2 x", "'x'"), ("", "empty"), ("# only\n", "no prompts"),
                      ("[[1], []]", "prompt 1 is empty"),
                      ("[1, 13]", "position 1: token id 13 out of range [0, 13)"),
                      ("-1", "out of range")):
        p.write_text(text)
        with pytest.raises(PlgaError,
                           match=msg.replace("[", r"\[").replace(")", r"\)").replace("(", r"\(")):
            read_tokens(p, 13)


def test_missing_matplotlib_skips_plots(files, tmp_path, monkeypatch):
    out = tmp_path / "o"
    out.mkdir()
    (out / "commutant_residual.png").write_bytes(b"stale")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    res = run_audit(_opts(files, "random.safetensors", out, plots=True, perron=False, steps=1),
                    log=lambda *_: None)
    assert res["plots"]["written"] == [] and "matplotlib" in res["plots"]["skipped_reason"]
    assert not (out / "commutant_residual.png").exists()
    assert "Skipped: matplotlib" in (out / "audit.md").read_text()


# ------------------------------------------------------------------ bad input
def _cli_error(capsys, argv, code=2):
    rc = main(["audit", *map(str, argv), "--quiet", "--jobs", "1", "--no-plots"])
    err = capsys.readouterr().err
    assert rc == code, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("plga: error:"), err
    return lines[0]


def test_bad_inputs_are_one_line_errors_and_write_nothing(files, tmp_path, capsys):
    out = tmp_path / "out"
    ck = files / "random.safetensors"
    # checkpoint does not match the config
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({**CFG.to_dict(), "d_model": 12}))
    msg = _cli_error(capsys, [ck, "--config", cfg, "--out", out])
    assert f"{cfg} says d_model=12, the checkpoint's shapes say d_model=8" in msg
    # malformed config file
    cfg.write_text("{not json")
    assert "not a JSON file" in _cli_error(capsys, [ck, "--config", cfg, "--out", out])
    # a missing key
    sd = pyref.PLDRModel.random(CFG, seed=1).state_dict()
    sd.pop("decoder.dec_layers.1.mha1.plgatt_layer.pwlst")
    save_arrays(tmp_path / "missing.safetensors", sd, CFG)
    msg = _cli_error(capsys, [tmp_path / "missing.safetensors", "--out", out])
    assert "missing key" in msg and "pwlst" in msg
    # no embedded config and no --config
    save_arrays(tmp_path / "nocfg.npz", pyref.PLDRModel.random(CFG, seed=1).state_dict(), None)
    assert "--config" in _cli_error(capsys, [tmp_path / "nocfg.npz", "--out", out])
    # unreadable / absent / wrongly named checkpoints
    (tmp_path / "junk.safetensors").write_bytes(b"\x00" * 20)
    assert "cannot read" in _cli_error(capsys, [tmp_path / "junk.safetensors", "--out", out])
    assert "no such file" in _cli_error(capsys, [tmp_path / "absent.safetensors", "--out", out])
    (tmp_path / "m.pt").write_bytes(b"x")
    assert "cannot read it as a PyTorch file" in _cli_error(capsys, [tmp_path / "m.pt", "--out",
                                                                     out])
    (tmp_path / "m.ckpt").write_bytes(b"x")
    assert "unknown format" in _cli_error(capsys, [tmp_path / "m.ckpt", "--out", out])
    # token id out of range, with file, prompt and position
    tok = tmp_path / "bad.txt"
    tok.write_text("1 2 3\n4 99 5\n")
    msg = _cli_error(capsys, [ck, "--tokens", tok, "--out", out])
    assert "line 2 (prompt 1), position 1: token id 99 out of range [0, 13)" in msg
    # prompt + steps beyond the RoPE table
    assert "max_seq_len=24" in _cli_error(capsys,
                                          [ck, "--tokens", files / "t1.json", "--steps", "20",
                                           "--out", out])
    # --tokens2 with a different number of prompts
    t2 = tmp_path / "t2.json"
    t2.write_text("[[1, 2]]")
    assert "pairs prompt i" in _cli_error(capsys, [ck, "--tokens", files / "t1.json", "--tokens2",
                                                   t2, "--out", out])
    # unwritable output directory (a regular file in the way; root ignores permission bits)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "--out" in _cli_error(capsys, [ck, "--out", blocker / "sub"])
    assert not out.exists() or not (out / "audit.json").exists()


def test_numerical_failure_exits_1_without_partial_output(tmp_path, capsys):
    sd = pinned_state_dict()
    for li in range(L):
        pre = f"decoder.dec_layers.{li}.mha1.plgatt_layer."
        sd[pre + "blst"] = np.zeros((H, DK, DK))            # A_LM = ε = 1e-9
        sd[pre + "pwlst"] = np.full((H, DK, DK), -40.0)     # A_P = 1e360: overflow
    pyref.PLDRModel.from_state_dict(sd, CFG).save(tmp_path / "overflow.safetensors")
    out = tmp_path / "out"
    msg = _cli_error(capsys, [tmp_path / "overflow.safetensors", "--out", out], code=1)
    assert "audit failed" in msg and "A_P" in msg
    assert not (out / "audit.json").exists() and not (out / "audit.md").exists()
