"""State-dict names/shapes, save/load round trips (safetensors, npz without pickle), and
every bad-input error (ValueError / KeyError naming the offending thing, never NaN)."""
import os
import zipfile

import numpy as np
import pytest

import pyref
from pyref import analysis

CFG = pyref.PLDRConfig(num_layers=2, d_model=8, num_heads=2, dff=12, a_dff=6, num_res_units=2,
                       num_glu_blocks=2, vocab_size=13, max_seq_len=8)


@pytest.fixture(scope="module")
def model():
    return pyref.PLDRModel.random(CFG, seed=11)


# ----------------------------------------------------------------------- state dict keys
def test_state_dict_key_names_and_shapes():
    shapes = pyref.state_dict_shapes(CFG)
    L, N, g = CFG.num_layers, CFG.num_res_units, CFG.num_glu_blocks
    # 5 top-level + per layer 25 (mha 8 + operator 5 + A-LN 2 + ffn 6 + 2 LNs × 2) + per unit 6g+2
    assert len(shapes) == 5 + L * (25 + N * (6 * g + 2))
    d, dk = 8, 4
    exp = {
        "decoder.embedding.weight": (13, d),
        "decoder.dec_layers.1.mha1.wq.weight": (d, d), "decoder.dec_layers.1.mha1.wv.bias": (d,),
        "decoder.dec_layers.0.mha1.dense.weight": (d, d),
        "decoder.dec_layers.0.mha1.plgatt_layer.Wlst": (2, dk, dk),
        "decoder.dec_layers.0.mha1.plgatt_layer.pwlst": (2, dk, dk),
        "decoder.dec_layers.0.mha1.plgatt_layer.balst": (2, dk, dk),
        "decoder.dec_layers.0.mha1.reslayerAs.1.denseAs.1.gluw1.weight": (6, dk),
        "decoder.dec_layers.0.mha1.reslayerAs.1.denseAs.0.gluw2.bias": (6,),
        "decoder.dec_layers.0.mha1.reslayerAs.0.denseAs.1.gluw3.weight": (dk, 6),
        "decoder.dec_layers.0.mha1.reslayerAs.1.layernormA.bias": (dk,),
        "decoder.dec_layers.1.mha1.layernorm1.weight": (dk,),
        "decoder.dec_layers.1.ffn.gluw1.weight": (12, d),
        "decoder.dec_layers.1.ffn.gluw3.weight": (d, 12),
        "decoder.dec_layers.1.layernorm2.bias": (d,),
        "decoder.layernorm1.weight": (d,),
        "final_layer.weight": (13, d), "final_layer.bias": (13,),
    }
    for k, s in exp.items():
        assert shapes[k] == s, k
    assert list(shapes)[0] == "decoder.embedding.weight" and list(shapes)[-1] == "final_layer.bias"
    assert not any("rotary" in k for k in shapes)
    # the paper configuration's parameter count (spec A.0)
    assert pyref.num_parameters(pyref.PLDRConfig.paper()) == 109_689_362
    assert pyref.PLDRConfig.paper().num_parameters() == 109_689_362
    const = pyref.state_dict_keys(CFG, "constant")
    assert len(const) == len(shapes) - L * (5 + 2 + N * (6 * g + 2))
    assert not any(("reslayerAs" in k or "plgatt" in k or "mha1.layernorm1" in k) for k in const)


@pytest.mark.parametrize("variant", ["plga", "constant", "sdpa"])
@pytest.mark.parametrize("sizes", [(1, 8, 2, 12, 6, 2, 2, 11), (3, 12, 3, 7, 5, 1, 3, 29),
                                   (2, 16, 8, 40, 9, 3, 1, 5)])
def test_closed_form_parameter_count_equals_shape_sum(sizes, variant):
    """PLDRConfig.num_parameters (closed form) and pyref.num_parameters (a sum over the
    state-dict shapes) are computed independently and must agree."""
    L, d, H, dff, a_dff, N, g, V = sizes
    cfg = pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=H, dff=dff, a_dff=a_dff,
                           num_res_units=N, num_glu_blocks=g, vocab_size=V, max_seq_len=8)
    assert cfg.num_parameters(variant) == pyref.num_parameters(cfg, variant)


def test_random_init_follows_spec(model):
    sd = model.state_dict()
    assert np.all(sd["decoder.dec_layers.0.mha1.plgatt_layer.blst"] == 0)
    assert np.all(sd["decoder.dec_layers.0.layernorm1.weight"] == 1)
    assert np.all(sd["decoder.dec_layers.0.mha1.wq.bias"] == 0)
    a = np.sqrt(6 / 16)  # xavier bound for 8x8
    assert np.max(np.abs(sd["decoder.dec_layers.0.mha1.wq.weight"])) <= a
    # KVG: W_V/b_V keep the torch default U(±1/√d), the bias is not zero
    assert np.any(sd["decoder.dec_layers.0.mha1.wv.bias"] != 0)
    soc = pyref.PLDRModel.random(CFG, seed=11, init="soc").state_dict()
    assert np.all(soc["decoder.dec_layers.0.mha1.wv.bias"] == 0)
    # deterministic seeds
    sd2 = pyref.PLDRModel.random(CFG, seed=11).state_dict()
    assert all(np.array_equal(sd[k], sd2[k]) for k in sd)


# ----------------------------------------------------------------------------- IO
@pytest.mark.parametrize("ext", [".safetensors", ".npz"])
def test_save_load_round_trip(model, tmp_path, ext):
    p = tmp_path / ("m" + ext)
    model.save(p)
    assert sorted(os.listdir(tmp_path)) == ["m" + ext]  # no temp files left behind
    m2 = pyref.PLDRModel.load(p)
    assert m2.config == CFG
    sd, sd2 = model.state_dict(), m2.state_dict()
    assert list(sd) == list(sd2) and all(np.array_equal(sd[k], sd2[k]) for k in sd)
    toks = [[1, 2, 3]]
    assert np.array_equal(model.forward(toks).logits, m2.forward(toks).logits)
    if ext == ".npz":  # readable without pickle: no object arrays inside
        with np.load(p, allow_pickle=False) as z:
            assert all(z[k].dtype != object for k in z.files)
        with zipfile.ZipFile(p) as zf:
            assert len(zf.namelist()) == len(sd) + 1


def test_save_overwrites_atomically_and_constant_model(tmp_path):
    cm = pyref.ConstantGModel.random(CFG, seed=2, G=[np.full((2, 4, 4), 0.5)] * 2)
    p = tmp_path / "c.safetensors"
    cm.save(p)
    cm.save(p)  # overwrite through os.replace
    c2 = pyref.ConstantGModel.load(p)
    assert all(np.array_equal(a, b) for a, b in zip(cm.G, c2.G))
    assert np.array_equal(cm.forward([[1, 2]]).logits, c2.forward([[1, 2]]).logits)


def test_load_errors(tmp_path, model):
    with pytest.raises(ValueError, match="suffix"):
        model.save(tmp_path / "m.pt")
    with pytest.raises(ValueError, match="does not exist"):
        pyref.PLDRModel.load(tmp_path / "nope.npz")
    # a bare state dict without config needs config=
    pyref.checkpoint.save_arrays(tmp_path / "bare.npz", model.state_dict())
    with pytest.raises(ValueError, match="config"):
        pyref.PLDRModel.load(tmp_path / "bare.npz")
    assert pyref.PLDRModel.load(tmp_path / "bare.npz", config=CFG).config == CFG
    # float32 checkpoints load (exact widening)
    pyref.checkpoint.save_arrays(tmp_path / "f32.safetensors", model.state_dict(), CFG,
                                 dtype=np.float32)
    m32 = pyref.PLDRModel.load(tmp_path / "f32.safetensors")
    k = "final_layer.weight"
    want = model.state_dict()[k].astype(np.float32).astype(np.float64)
    assert np.array_equal(m32.state_dict()[k], want)


# --------------------------------------------------------------------------- bad input
def test_state_dict_errors(model):
    sd = model.state_dict()
    bad = dict(sd)
    del bad["decoder.dec_layers.1.mha1.plgatt_layer.alst"]
    with pytest.raises(KeyError, match="missing.*plgatt_layer.alst"):
        pyref.PLDRModel.from_state_dict(bad, CFG)
    bad = dict(sd, **{"decoder.extra.weight": np.zeros(3)})
    with pytest.raises(KeyError, match="unexpected.*decoder.extra.weight"):
        pyref.PLDRModel.from_state_dict(bad, CFG)
    bad = dict(sd, **{"final_layer.bias": np.zeros(14)})
    with pytest.raises(ValueError, match=r"final_layer.bias.*expected shape \(13,\), got \(14,\)"):
        pyref.PLDRModel.from_state_dict(bad, CFG)
    w = sd["decoder.layernorm1.weight"].copy()
    w[3] = np.nan
    with pytest.raises(ValueError, match=r"decoder.layernorm1.weight.*non-finite.*\(3,\)"):
        pyref.PLDRModel.from_state_dict(dict(sd, **{"decoder.layernorm1.weight": w}), CFG)
    w = sd["decoder.layernorm1.weight"].copy()
    w[0] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        pyref.PLDRModel.from_state_dict(dict(sd, **{"decoder.layernorm1.weight": w}), CFG)
    with pytest.raises(ValueError, match=r"decoder.layernorm1.bias.*floating dtype.*int64"):
        int_bias = {"decoder.layernorm1.bias": np.zeros(8, dtype=np.int64)}
        pyref.PLDRModel.from_state_dict(dict(sd, **int_bias), CFG)
    with pytest.raises(ValueError, match="mapping"):
        pyref.PLDRModel.from_state_dict([1, 2], CFG)
    with pytest.raises(ValueError, match="PLDRConfig"):
        pyref.PLDRModel.from_state_dict(sd, {"num_layers": 2})


def test_config_errors():
    base = dict(num_layers=1, d_model=8, num_heads=2, dff=4, a_dff=3, num_res_units=1,
                num_glu_blocks=2, vocab_size=5, max_seq_len=4)
    with pytest.raises(ValueError, match="d_k .* 3 must be even"):
        pyref.PLDRConfig(**dict(base, d_model=6))
    with pytest.raises(ValueError, match="not divisible"):
        pyref.PLDRConfig(**dict(base, d_model=9))
    with pytest.raises(ValueError, match="num_layers"):
        pyref.PLDRConfig(**dict(base, num_layers=0))
    with pytest.raises(ValueError, match="ln_eps"):
        pyref.PLDRConfig(**dict(base, ln_eps=float("nan")))
    with pytest.raises(ValueError, match="vocab_size"):
        pyref.PLDRConfig(**dict(base, vocab_size=2.5))


def test_forward_errors(model):
    msg = r"token id 13 at index \(0, 1\) is out of range \[0, 13\)"
    with pytest.raises(ValueError, match=msg):
        model.forward([[1, 13]])
    with pytest.raises(ValueError, match="token id -1"):
        model.forward([[-1, 2]])
    with pytest.raises(ValueError, match=r"shape \[batch, S\]"):
        model.forward([1, 2, 3])
    with pytest.raises(ValueError, match="integer token ids.*float64"):
        model.forward(np.array([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="empty"):
        model.forward(np.zeros((1, 0), dtype=int))
    with pytest.raises(ValueError, match="sequence length 9.*max_seq_len=8"):
        model.forward([[1] * 9])
    with pytest.raises(ValueError, match="backend"):
        model.forward([[1]], backend="float16")
    pre = model.forward([[1, 2, 3]])
    with pytest.raises(ValueError, match="exactly one new token"):
        model.forward([[4, 5]], kvcache=pre.kvcache)
    with pytest.raises(ValueError, match="list of 2 per-layer caches"):
        model.forward([[4]], kvcache=pre.kvcache[:1])
    kv = [list(e) for e in pre.kvcache]
    kv[1][2] = kv[1][2][:, :1]
    with pytest.raises(ValueError, match=r"kvcache\[1\]: A must be"):
        model.forward([[4]], kvcache=kv)
    kv = [list(e) for e in pre.kvcache]
    kv[0][0] = kv[0][0].copy()
    kv[0][0][0, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match=r"kvcache\[0\].K: contains non-finite"):
        model.forward([[4]], kvcache=kv)
    full = model.forward([[1] * 8])
    with pytest.raises(ValueError, match="sequence length 9"):
        model.forward([[1]], kvcache=full.kvcache)
    gc = [list(e) for e in pre.gcache]
    gc[0][1] = np.zeros((3, 2, 4, 4))
    with pytest.raises(ValueError, match=r"gcache\[0\].G_LM: expected shape"):
        model.forward([[1, 2]], gcache=gc)
    gc = [list(e) for e in pre.gcache]
    gc[1][0] = np.full((1, 2, 4, 4), np.inf)
    with pytest.raises(ValueError, match=r"gcache\[1\].A_LM: contains non-finite"):
        model.forward([[1, 2]], gcache=gc)
    with pytest.raises(ValueError, match="max_seq_len"):
        model.generate([1, 2, 3], 6)
    with pytest.raises(ValueError, match="max_new_tokens"):
        model.generate([1, 2, 3], -1)
    sdpa = model.to_sdpa()
    with pytest.raises(ValueError, match="takes no G-cache"):
        sdpa.forward([[1, 2]], gcache=pre.gcache)


def test_component_and_analysis_errors():
    with pytest.raises(ValueError, match="Qhat"):
        pyref.plga.density(np.ones(3))
    with pytest.raises(ValueError, match="metric_tensor"):
        pyref.plga.metric_tensor(np.ones((2, 3)), np.eye(2), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="linear"):
        pyref.layers.linear(np.ones((1, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="gamma"):
        pyref.layers.layer_norm(np.ones(3), gamma=np.ones(2))
    with pytest.raises(ValueError, match="entrywise positive"):
        analysis.perron(np.array([[1.0, -1.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="dtype"):
        analysis.singular_ratio(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="square"):
        pyref.expm(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        pyref.expm(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="mask entries"):
        pyref.plga.masked_softmax(np.ones(2), np.array([0.5, 0.0]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy warns on 0^-1 before we raise
def test_overflow_raises_instead_of_nan():
    """A model with metric_eps = 0, a zero pre-activation and a negative exponent gives
    A_LM = 0 and 0^P = inf: forward raises a ValueError naming the layer and tensor."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=4, num_heads=1, dff=4, a_dff=2, num_res_units=1,
                           num_glu_blocks=2, vocab_size=5, max_seq_len=4, metric_eps=0.0)
    sd = pyref.PLDRModel.random(cfg, seed=0).state_dict()
    sd["decoder.dec_layers.0.mha1.plgatt_layer.Wlst"] = np.zeros((1, 4, 4))   # W A + b = 0
    sd["decoder.dec_layers.0.mha1.plgatt_layer.pwlst"] = -np.ones((1, 4, 4))  # 0^-1 = inf
    m = pyref.PLDRModel.from_state_dict(sd, cfg)
    with pytest.raises(ValueError, match="layer 0 A_P has non-finite"):
        m.forward([[1, 2]])
