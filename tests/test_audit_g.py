"""``plga audit-g`` (crosscheck/audit/gaudit*.py): statistics of synthetic G lists with known
answers (identity, uniform positive, RoPE commutant element, rank one, a zero head), every
malformed input as a one-line PlgaError naming file/layer, the staged atomic output, and the
three file formats (numpy.savez list, pyref constant-G checkpoint, torch pickle fixture)."""
import hashlib
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

import pyref
from crosscheck.audit.gaudit import GAuditOptions, audit_g_arrays, run_audit_g
from crosscheck.audit.gaudit_inputs import read_g_file, validate_list
from crosscheck.audit.gaudit_plots import PLOT_FILES
from crosscheck.audit.gaudit_stats import COMMUTANT_ROUNDING, F64_EPS
from crosscheck.errors import PlgaError
from pyref import analysis

L, H, DK = 2, 3, 8
EPS = F64_EPS
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None
TORCH_FIXTURES = Path(__file__).parent / "fixtures" / "torch"


def identity_list():
    """The authors' IDENTITY list in small: [1, H, d_k, d_k] float32 I per layer."""
    return [np.broadcast_to(np.eye(DK, dtype=np.float32), (1, H, DK, DK)).copy()
            for _ in range(L)]


def uniform_list(seed=0):
    """The authors' RANDOM_NORMAL list in small: U[0, 1) float32 (entrywise positive)."""
    rng = np.random.default_rng(seed)
    G = [rng.random((1, H, DK, DK)).astype(np.float32) for _ in range(L)]
    assert all(np.all(g > 0) for g in G)      # U[0, 1) could draw 0: this seed does not
    return G


def commutant_element(rng):
    """⊕_j (c_j·1 + s_j·J) [d_k, d_k]: commutes with every RoPE rotation R_p."""
    G = np.zeros((DK, DK))
    for j in range(DK // 2):
        c, s = rng.uniform(0.5, 2.0), rng.uniform(-1.0, 1.0)
        G[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, -s], [s, c]]
    return G


def _stats(G_list, **kw):
    kw.setdefault("jobs", 1)
    return audit_g_arrays(G_list, 1e4, log=lambda *_: None, **kw)


def _heads(res):
    return res["per_head"]


# ====================================================================== known answers
def test_identity_list():
    res = _stats(identity_list())
    assert len(_heads(res)) == L * H
    for r in _heads(res):
        # SVD of I is exact (LAPACK's Householder reflectors of e_1 are I: tau = 0)
        assert r["sigma2_over_sigma1"] == 1.0
        assert r["singular_values"] == [1.0] * DK
        assert r["numerical_rank"] == DK and r["effective_rank"] == pytest.approx(DK, rel=1e-14)
        # ρ(I) = 0 up to the FMA rounding of the complex basis change (bound derived at
        # COMMUTANT_ROUNDING); R·I − I·R is exactly 0, I − Iᵀ exactly 0
        assert 0.0 <= r["commutant_residual"] <= COMMUTANT_ROUNDING
        assert r["commutator_residual"] == 0.0 and r["symmetry"] == 0.0
        assert r["trace"] == DK and r["det_sign"] == 1 and r["log10_abs_det"] == 0.0
        assert r["is_identity"] and not r["all_positive"]
        assert r["min_entry"] == 0.0 and r["fraction_positive"] == 1 / DK
        assert r["perron"] is None
        reason = r["null_reasons"]["perron"]
        assert f"{DK * DK - DK} non-positive entries" in reason and "does not apply" in reason
    ic = res["identity_check"]
    assert ic["all_identity"] and ic["passed"] and ic["failures"] == []
    assert res["perron"]["applicable"] == 0 and res["perron"]["not_applicable"] == L * H


def test_uniform_list_gets_certified_perron_reports():
    G = uniform_list()
    res = _stats(G, hp_dps=20)
    assert res["perron"]["applicable"] == L * H and res["perron"]["certified"] == L * H
    for r in _heads(res):
        g = G[r["layer"]][0, r["head"]].astype(np.float64)
        p = r["perron"]
        assert r["all_positive"] and p["certified"] is True
        lo, hi = p["root_enclosure"]
        assert lo <= p["root_float"] <= hi and hi - lo <= 1e-12 * hi
        # the Perron root of a positive matrix is a simple, well-conditioned eigenvalue
        # (condition 1/(yᵀx) with positive unit y, x: ≤ √d_k for this margin); LAPACK's
        # backward error is O(d_k·eps·‖G‖₂)
        lam = float(np.max(np.linalg.eigvals(g).real))
        assert abs(lam - p["root_float"]) <= 8 * DK * EPS * r["sigma1"] * math.sqrt(DK)
        assert p["certified_gap_lb"] > 0 and 0 < p["tau"] < 1
        assert r["commutant_residual"] > 0.5      # a generic G is far from the commutant
    assert res["identity_check"]["identity_heads"] == 0
    b = res["by_layer"][0]
    assert b["heads_all_positive"] == H and b["heads_perron_certified"] == H
    assert b["perron_root"]["n"] == H


def test_commutant_element_and_control():
    rng = np.random.default_rng(3)
    G = [np.stack([commutant_element(rng) for _ in range(H)])[None] for _ in range(L)]
    generic = rng.standard_normal((1, H, DK, DK))
    res = _stats(G + [generic], perron=False)
    for r in _heads(res):
        if r["layer"] < L:
            assert r["commutant_residual"] <= COMMUTANT_ROUNDING
            # G R₁ − R₁ G: each entry a difference of sums of ≤ 2 products of the same 2×2
            # blocks (commuting in exact arithmetic), error ≤ 2γ₂(|G||R| + |R||G|), ‖|R|‖₂ ≤
            # √2, so ≤ 4√2·γ₂·‖G‖_F ≈ 12u < 8·eps; 16·eps for the norms' rounding
            assert r["commutator_residual"] <= 16 * EPS
        else:   # the control: a Gaussian G is not in the commutant (ρ ≈ 1 − 1/d_k)
            assert r["commutant_residual"] > 0.5 and r["commutator_residual"] > 1e-3
    assert res["perron"]["computed"] is False
    assert all(r["null_reasons"]["perron"] == "--no-perron" for r in _heads(res))


def test_rank_one_positive_list():
    rng = np.random.default_rng(5)
    G = []
    for _ in range(L):
        u, v = rng.uniform(0.5, 1.5, (H, DK, 1)), rng.uniform(0.5, 1.5, (H, 1, DK))
        G.append((u @ v)[None])
    res = _stats(G, hp_dps=20)
    for r in _heads(res):
        g = G[r["layer"]][0, r["head"]]
        # rounding u vᵀ perturbs G by ‖E‖₂ ≤ u·‖G‖_F = u·σ₁, and the SVD adds O(d_k·u·σ₁):
        # σ₂/σ₁ ≤ d_k·eps
        assert r["sigma2_over_sigma1"] <= DK * EPS
        assert r["numerical_rank"] == 1
        # σ_min is 0 or a rounding-size number: the sign of det is undecidable in float64
        assert r["det_sign"] is None and r["null_reasons"]["det_sign"].startswith("σ_")
        # positive rank one: Perron root vᵀu (= tr G), Hopf's τ = 0: certified
        assert r["perron"]["certified"] is True
        assert r["perron"]["root_float"] == pytest.approx(np.trace(g), rel=1e-13)


def test_zero_head_gives_nulls_not_nan(tmp_path):
    G = uniform_list()
    G[1] = G[1].copy()
    G[1][0, 2] = 0.0
    f = tmp_path / "zero.npz"
    np.savez(f, *G)
    out = tmp_path / "out"
    run_audit_g(GAuditOptions(gcache=f, out=out, plots=False, progress=False, jobs=1,
                              hp_dps=20), log=lambda *_: None)
    text = (out / "audit-g.json").read_text()
    r = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in audit-g.json"))
    z = next(x for x in r["per_head"] if (x["layer"], x["head"]) == (1, 2))
    for k in ("sigma2_over_sigma1", "commutant_residual", "commutator_residual", "symmetry",
              "effective_rank", "condition_number", "log10_abs_det", "det_sign", "perron"):
        assert z[k] is None and z["null_reasons"][k], k
    assert "undefined" in z["null_reasons"]["sigma2_over_sigma1"]
    assert r["nonfinite_replaced"] == []
    assert r["by_layer"][1]["sigma2_over_sigma1"]["n"] == H - 1
    assert r["perron"]["applicable"] == L * H - 1


# ========================================================================== bad input
def _bad(obj, *needles):
    with pytest.raises(PlgaError) as ei:
        validate_list(Path("g.pkl"), obj)
    msg = str(ei.value)
    assert "\n" not in msg and "g.pkl" in msg
    for n in needles:
        assert n in msg, msg
    return msg


def test_malformed_lists():
    I3 = np.eye(DK, dtype=np.float32)[None, None].repeat(H, 1)      # [1, H, d_k, d_k]
    _bad([], "empty", "[1, H, d_k, d_k]")
    _bad(I3, "expected a list", "got tensor[1, 3, 8, 8]")
    _bad([I3, np.eye(DK)], "layer 1", "shape [8, 8]", "[1, H, d_k, d_k]")
    _bad([I3, I3[:, :2]], "layer 1", "[1, 2, 8, 8]", "layer 0's [1, 3, 8, 8]")
    _bad([np.eye(7, dtype=np.float32)[None, None]], "d_k = 7", "even")
    _bad([np.zeros((1, H, DK, DK + 2))], "square")
    _bad([np.zeros((2, H, DK, DK))], "shape [2, 3, 8, 8]")
    _bad([I3.astype(np.int64)], "floating-point", "int64")
    nan = I3.copy()
    nan[0, 1, 2, 3] = np.nan
    _bad([I3, nan], "layer 1, head 1: entry (2, 3) is nan", "1 non-finite")
    _bad([I3, "x"], "layer 1", "str")
    _bad([[I3, I3], I3], "layer 1", "pair [A_LM, G]")
    _bad([[I3, I3, I3]], "layer 0", "pair [A_LM, G]")
    _bad([[I3[:, :1], I3]], "layer 0 (A_LM)", "layer 0's")


def test_bad_files_and_options(tmp_path):
    def fails(opts, *needles):
        with pytest.raises(PlgaError) as ei:
            run_audit_g(opts, log=lambda *_: None)
        for n in needles:
            assert n in str(ei.value), str(ei.value)

    out = tmp_path / "out"
    fails(GAuditOptions(gcache=tmp_path / "none.pkl", out=out), "none.pkl", "no such file")
    fails(GAuditOptions(gcache=tmp_path, out=out), "not a regular file")
    f = tmp_path / "w.npz"
    np.savez(f, **{"decoder.embedding.weight": np.zeros((3, 4))})
    fails(GAuditOptions(gcache=f, out=out), "w.npz", "no G list", "__pyref_constant_G__.",
          "arr_0", "decoder.embedding.weight", "plga audit")
    g = tmp_path / "gap.npz"
    np.savez(g, arr_0=identity_list()[0], arr_2=identity_list()[0])
    fails(GAuditOptions(gcache=g, out=out), "gap.npz", "layer(s) [1]")
    h = tmp_path / "h.npz"
    np.savez(h, *identity_list())
    fails(GAuditOptions(gcache=h, out=out, hp_dps=10), "--hp-dps 10", "≥ 15")
    fails(GAuditOptions(gcache=h, out=out, jobs=0), "--jobs 0")
    fails(GAuditOptions(gcache=h, out=out, rope_base=-1.0), "--rope-base -1", "> 0")
    fails(GAuditOptions(gcache=h, out=out, rope_base=float("nan")), "--rope-base nan")
    (tmp_path / "file").write_text("x")
    fails(GAuditOptions(gcache=h, out=tmp_path / "file"), "--out", "file")
    assert not out.exists() or not (out / "audit-g.json").exists()


# =================================================================== output, formats
def test_outputs_staged_and_replaced(tmp_path):
    f = tmp_path / "G_ident.npz"
    np.savez(f, *identity_list())
    logs = []
    out = tmp_path / "rep"
    r1 = run_audit_g(GAuditOptions(gcache=f, out=out, progress=False, jobs=1), log=logs.append)
    plots = [] if r1["plots"]["skipped_reason"] else list(PLOT_FILES)
    if not HAVE_MPL:   # the optional extra is missing: the report says so
        assert "matplotlib is not installed" in r1["plots"]["skipped_reason"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*plots, "audit-g.json",
                                                            "audit-g.md"])
    for p in plots:
        assert (out / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert r1["file"]["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    assert r1["structure"]["kind"] == "numpy.savez list"
    assert r1["structure"]["stored_shape"] == [1, H, DK, DK]
    assert r1["structure"]["stored_dtypes"] == ["float32"]
    assert r1["versions"]["numpy"] == np.__version__
    assert r1["rope_base"] == 1e4 and "default" in r1["rope_base_source"]
    md = (out / "audit-g.md").read_text()
    assert "check passed" in md and "### Layer 1" in md
    assert ("![singular_spectra.png](singular_spectra.png)" in md) == HAVE_MPL
    # a second run (no plots, another list) replaces the first; stale plots are removed
    np.savez(f, *uniform_list())
    r2 = run_audit_g(GAuditOptions(gcache=f, out=out, plots=False, progress=False, jobs=1,
                                   perron=False), log=logs.append)
    assert sorted(p.name for p in out.iterdir()) == ["audit-g.json", "audit-g.md"]
    on_disk = json.loads((out / "audit-g.json").read_text())
    assert on_disk == r2 and on_disk["file"]["sha256"] != r1["file"]["sha256"]
    assert on_disk["plots"]["skipped_reason"] == "--no-plots"
    # a failing run leaves the last report as it was
    np.savez(f, np.full((1, H, DK, DK), np.inf))
    with pytest.raises(PlgaError, match="non-finite"):
        run_audit_g(GAuditOptions(gcache=f, out=out, progress=False), log=logs.append)
    assert json.loads((out / "audit-g.json").read_text()) == r2


def test_default_out_dir_and_jobs2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "lst.npz"
    np.savez(f, *uniform_list(1))
    r = run_audit_g(GAuditOptions(gcache=f, plots=False, progress=False, jobs=2, hp_dps=20),
                    log=lambda *_: None)
    assert (tmp_path / "audit-g-lst" / "audit-g.json").exists()
    assert r["perron"]["certified"] == L * H
    assert [(x["layer"], x["head"]) for x in r["per_head"]] == [
        (li, h) for li in range(L) for h in range(H)]


@pytest.mark.parametrize("suffix", [".npz", ".safetensors"])
def test_pyref_constant_g_checkpoint(tmp_path, suffix):
    cfg = pyref.PLDRConfig(num_layers=L, d_model=H * DK, num_heads=H, dff=12, a_dff=6,
                           num_res_units=1, num_glu_blocks=1, vocab_size=11, max_seq_len=8,
                           rope_base=500.0)
    G = [g[0].astype(np.float64) for g in uniform_list(2)]
    f = tmp_path / f"cg{suffix}"
    pyref.ConstantGModel.random(cfg, seed=0, G=G).save(f)
    gl = read_g_file(f)
    assert gl.structure["kind"] == "pyref constant-G checkpoint"
    assert [np.array_equal(a, b) for a, b in zip(gl.G, G)] == [True] * L
    r = run_audit_g(GAuditOptions(gcache=f, out=tmp_path / "o", plots=False, perron=False,
                                  progress=False), log=lambda *_: None)
    assert r["rope_base"] == 500.0 and r["rope_base_source"].startswith("the config")
    x = r["per_head"][H + 1]
    assert x["commutant_residual"] == analysis.commutant_residual(G[1][1], 500.0)
    assert x["commutator_residual"] == analysis.commutator_residual(G[1][1], 500.0)
    r = run_audit_g(GAuditOptions(gcache=f, out=tmp_path / "o", plots=False, perron=False,
                                  progress=False, rope_base=1e4), log=lambda *_: None)
    assert r["rope_base"] == 1e4 and "differs" in r["warnings"][0]


def test_nab_list_reports_g_and_zero_a_lm():
    I3 = identity_list()
    gl = validate_list(Path("nab.pkl"), [[np.zeros_like(g), g] for g in I3])
    assert gl.structure["kind"].startswith("NAB")
    res = audit_g_arrays(gl, 1e4, perron=False, log=lambda *_: None)
    assert res["a_lm"]["present"] and res["a_lm"]["all_zero"]
    assert res["identity_check"]["all_identity"]
    A = [np.ones_like(g) for g in I3]
    res = audit_g_arrays(validate_list(Path("nab.pkl"), [[a, g] for a, g in zip(A, I3)]), 1e4,
                         perron=False, log=lambda *_: None)
    assert res["a_lm"]["all_zero"] is False and res["a_lm"]["max"] == [1.0] * L


def _manifest():
    return json.loads((TORCH_FIXTURES / "manifest.json").read_text())


def test_torch_pickle_g_list_fixture(tmp_path):
    """tests/fixtures/torch/glist.pkl: pickle.dump of a list of torch tensors [1, H, d_k, d_k]
    (the authors' format), read without torch; values equal the manifest's."""
    f = TORCH_FIXTURES / "glist.pkl"
    want = [np.asarray(g, dtype=np.float32) for g in _manifest()["glist"]]
    r = run_audit_g(GAuditOptions(gcache=f, out=tmp_path / "o", plots=False, progress=False,
                                  jobs=1), log=lambda *_: None)
    st = r["structure"]
    assert st["kind"] == "predefined-G list" and st["stored_dtypes"] == ["float32"]
    assert st["stored_shape"] == list(want[0].shape) and st["layers"] == len(want)
    assert "no pickle code runs" in st["reader"]
    for x in r["per_head"]:
        g = want[x["layer"]][0, x["head"]].astype(np.float64)
        assert x["commutant_residual"] == analysis.commutant_residual(g)
        assert x["sigma2_over_sigma1"] == analysis.singular_ratio(g)
        assert x["min_entry"] == g.min() and x["trace"] == np.trace(g)
        assert x["perron"] is None and "non-positive" in x["null_reasons"]["perron"]
    assert r["a_lm"] == {"present": False}


def test_torch_pickle_nab_fixture():
    f = TORCH_FIXTURES / "nab_list.pkl"
    gl = read_g_file(f)
    want = _manifest()["nab_list"]
    assert gl.structure["kind"].startswith("NAB list")
    assert [np.array_equal(g, np.asarray(w[1], dtype=np.float32)[0]) for g, w in
            zip(gl.G, want)] == [True] * len(want)
    res = audit_g_arrays(gl, 1e4, perron=False, log=lambda *_: None)
    assert res["a_lm"]["all_zero"] is True


def test_torch_checkpoint_is_not_a_g_list():
    with pytest.raises(PlgaError, match="v510_small.pth.*expected a list of tensors"):
        read_g_file(TORCH_FIXTURES / "v510_small.pth")
