"""The Hugging Face port: folders (pyref.hf) and its forward semantics (pyref.semantics).

The folders under tests/fixtures/hf are written by tests/fixtures/make_hf_fixtures.py in the
port's exact layout (its config.json text was checked byte for byte against transformers 4.57.6
``save_pretrained``, and the port's own ``from_pretrained`` loads every folder with no missing or
unexpected key).  The tests below read the files with an independent safetensors parser, check
the config mapping and every refusal, and compare the port semantics with a hand-written float64
evaluation of the port's forward (the float32 roundings the port makes included).
"""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

import pyref
from pyref import ops
from pyref.attention import port_rope
from pyref.checkpoint import CheckpointError
from pyref.hf import read_hf_config, read_hf_folder
from pyref.semantics import V510, Semantics, hf_generate_positions, hf_port

HF = os.path.join(os.path.dirname(__file__), "fixtures", "hf")
U32, U64 = 2.0 ** -24, 2.0 ** -53


def folder(name):
    return os.path.join(HF, name)


def load_hf_folder(path, attn_implementation=None, with_info=False):
    """The model of a port folder built from :func:`read_hf_folder` (what PLDRModel.load does)."""
    arrays, cfg, sem, G, info = read_hf_folder(path, attn_implementation)
    if G is None:
        model = pyref.PLDRModel.from_state_dict(arrays, cfg, semantics=sem)
    else:
        model = pyref.ConstantGModel.from_state_dict(arrays, cfg, G=G, semantics=sem)
    return (model, info) if with_info else model


def read_st(path):
    """Independent safetensors reader: name -> float64 array (BF16 widened by a 16-bit shift)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        buf = raw[8 + n + a:8 + n + b]
        if v["dtype"] == "BF16":
            bits = np.frombuffer(buf, "<u2").astype(np.uint32) << 16
            arr = bits.view(np.float32).astype(np.float64)
        else:
            arr = np.frombuffer(buf, {"F32": "<f4", "BOOL": "?"}[v["dtype"]])
        out[k] = arr.reshape(v["shape"])
    return out, header["__metadata__"]


# ------------------------------------------------------------------------------ config
def test_config_mapping():
    cfg, sem, info = read_hf_config(folder("pldr_f32"))
    assert cfg == pyref.PLDRConfig(num_layers=2, d_model=16, num_heads=2, dff=42, a_dff=12,
                                   num_res_units=1, num_glu_blocks=2, vocab_size=24,
                                   max_seq_len=32, rope_base=1e4, ln_eps=1e-6, metric_eps=1e-9)
    assert sem == hf_port(reference_rope=True, attn_implementation="sdpa")
    assert info["format"] == "hf-folder" and info["defaults_used"] == []
    assert info["token_ids"] == {"pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 3}
    assert info["torch_dtype"] == "float32" and info["attn_implementation"] == "sdpa"
    _, sem2, info2 = read_hf_config(folder("pldr_nobias_half"), attn_implementation="eager")
    assert sem2 == hf_port(reference_rope=False, attn_implementation="eager", cache_first_G=True)
    assert info2["biases"] == {"attention_bias": False, "glu_bias": False, "final_bias": False}
    assert any("half-split" in s for s in info2["semantics"])


def _with_config(tmp_path, **changes):
    d = tmp_path / "m"
    shutil.copytree(folder("pldr_f32"), d)
    c = json.loads((d / "config.json").read_text())
    for k, v in changes.items():
        if v is _DROP:
            c.pop(k)
        else:
            c[k] = v
    (d / "config.json").write_text(json.dumps(c))
    return d


_DROP = object()


@pytest.mark.parametrize("changes, needle", [
    ({"hidden_act": "gelu"}, "hidden_act='gelu'"),
    ({"tie_word_embeddings": True}, "tie_word_embeddings=True"),
    ({"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, "rope_scaling="),
    ({"head_dim": 4}, "head_dim=4"),
    ({"custom_G_type": "learned"}, "custom_G_type='learned'"),
    ({"_attn_implementation": "flash_attention_2"}, "attn_implementation='flash_attention_2'"),
    ({"architectures": ["PldrllmForSequenceClassification"]}, "architectures="),
    ({"model_type": "llama"}, "model_type='llama'"),
    ({"dtype": "int8"}, "torch_dtype='int8'"),
    ({"reference_rope": "yes"}, "reference_rope='yes'"),
    ({"num_reslayerA": 0}, "num_reslayerA=0"),
    ({"rope_theta": -1.0}, "rope_theta=-1.0"),
])
def test_config_refusals(tmp_path, changes, needle):
    d = _with_config(tmp_path, **changes)
    with pytest.raises(CheckpointError) as e:
        read_hf_config(d)
    assert needle in str(e.value) and str(d) in str(e.value) and "config.json" in str(e.value)


def test_config_defaults_and_null_sizes(tmp_path):
    # hidden_size/intermediate_size null: PldrllmConfig computes H·head_dim and floor(8/3·it)
    d = _with_config(tmp_path, hidden_size=None, intermediate_size=None, rope_scaling=_DROP,
                     cache_first_G=_DROP)
    cfg, sem, info = read_hf_config(d)
    assert cfg.d_model == 16 and cfg.dff == 42 and sem.gcache_batch == "per_sample"
    assert info["defaults_used"] == ["cache_first_G", "rope_scaling"]


def test_folder_errors(tmp_path):
    with pytest.raises(CheckpointError, match="config.json: missing"):
        read_hf_config(tmp_path)
    d = _with_config(tmp_path)
    os.remove(d / "model.safetensors")
    (d / "pytorch_model.bin").write_bytes(b"x")
    with pytest.raises(CheckpointError, match=r"model.safetensors: missing.*pytorch_model.bin"):
        load_hf_folder(d)
    (d / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="cannot read it as JSON"):
        read_hf_config(d)


# ------------------------------------------------------------------------------ weights
def test_load_f32_keys_and_values():
    model, info = load_hf_folder(folder("pldr_f32"), with_info=True)
    raw, meta = read_st(os.path.join(folder("pldr_f32"), "model.safetensors"))
    assert meta == {"format": "pt"}
    assert type(model) is pyref.PLDRModel and model.semantics == hf_port()
    assert set(raw) == set(pyref.state_dict_keys(model.config))   # the v510 names, no prefix
    sd = model.state_dict()
    assert all(np.array_equal(sd[k], raw[k]) for k in raw)
    assert info["stored_dtypes"] == {"F32": 83} and info["zero_filled"] == []
    assert info["weights"] == ["model.safetensors"] and info["variant"] == "plga"


def test_bf16_is_the_nearest_bf16_of_f32():
    f32 = load_hf_folder(folder("pldr_f32")).state_dict()
    bf, info = load_hf_folder(folder("pldr_bf16"), with_info=True)
    assert info["stored_dtypes"] == {"BF16": 83} and info["torch_dtype"] == "bfloat16"
    for k, w in bf.state_dict().items():
        bits = w.astype(np.float32).view(np.uint32)
        assert np.all(bits & 0xFFFF == 0), k                     # representable in bf16
        x = f32[k]
        lo = (x.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)  # truncation
        ulp = np.abs(lo.astype(np.float64)) * 2.0 ** -7          # bf16 spacing at |lo|
        err = np.abs(w - x)
        assert np.all(err <= ulp / 2 * (1 + 2.0 ** -7) + 1e-45), k   # nearest (half a spacing)


def test_sharded_equals_single():
    a = load_hf_folder(folder("pldr_f32")).state_dict()
    b, info = load_hf_folder(folder("pldr_sharded"), with_info=True)
    assert info["weights"][0] == "model.safetensors.index.json" and len(info["weights"]) == 3
    assert all(np.array_equal(a[k], v) for k, v in b.state_dict().items())


def test_absent_biases_are_exact_zeros():
    model, info = load_hf_folder(folder("pldr_nobias_half"), with_info=True)
    raw, _ = read_st(os.path.join(folder("pldr_nobias_half"), "model.safetensors"))
    # 2 layers x (4 projections + 3 FFN + 2x3 Φ_res GLU) + final_layer = 27 biases
    assert len(info["zero_filled"]) == 27 and not set(info["zero_filled"]) & set(raw)
    sd = model.state_dict()
    assert all(not sd[k].any() for k in info["zero_filled"])
    assert all(np.array_equal(sd[k], raw[k]) for k in raw)
    assert model.semantics.rope == "half" and model.semantics.gcache_batch == "sample0"


def test_custom_G_folder():
    model, info = load_hf_folder(folder("customG_f32"), with_info=True)
    raw, _ = read_st(os.path.join(folder("customG_f32"), "model.safetensors"))
    assert type(model) is pyref.ConstantGModel and info["variant"] == "constant"
    assert raw["decoder.past_G_values"].shape == (2, 3, 1, 2, 8, 8)
    assert raw["decoder.past_G_values_status"].dtype == bool
    for li, g in enumerate(model.G):
        assert np.array_equal(g, raw["decoder.past_G_values"][li, 2, 0])
    assert not any(".reslayerAs." in k or "plgatt_layer" in k for k in raw)


def test_inconsistent_folders(tmp_path):
    d = _with_config(tmp_path, attention_bias=False)
    with pytest.raises(CheckpointError, match="disables these biases but the file holds"):
        load_hf_folder(d)
    d2 = tmp_path / "g"
    shutil.copytree(folder("customG_f32"), d2)
    c = json.loads((d2 / "config.json").read_text())
    c["custom_G_type"] = None
    (d2 / "config.json").write_text(json.dumps(c))
    with pytest.raises(CheckpointError, match="custom_G_type null"):
        load_hf_folder(d2)


# ------------------------------------------------------------------------------ RoPE
def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("backend, f32", [("float64", False), ("float32", True)])
def test_half_rope_is_permuted_interleaved_rope(backend, f32):
    """rotate_half on pairs (j, j+d/2) = interleaved RoPE on (2j, 2j+1) after moving coordinate
    2j to j and 2j+1 to j+d/2: the same products and sums, so bit for bit."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=16, num_heads=2, dff=8, a_dff=4,
                           num_res_units=1, num_glu_blocks=1, vocab_size=5, max_seq_len=64)
    b = pyref.get_backend(backend)
    x = b.asarray(_x((2, 2, 5, 8)))
    pos = np.array([[0, 3, 7, 20, 63]])
    perm = np.r_[0:8:2, 1:8:2]      # half-split coordinate i sits at interleaved perm[i]
    inv = np.argsort(perm)          # interleaved coordinate 2j <- j, 2j+1 <- j + d/2
    half = port_rope(b, cfg, Semantics(rope="half", rope_float32=f32), x, pos)
    inter = port_rope(b, cfg, Semantics(rope="interleaved", rope_float32=f32), x[..., inv], pos)
    assert half.dtype == x.dtype and np.array_equal(half, inter[..., perm])
    assert not np.array_equal(half, port_rope(b, cfg, Semantics(rope_float32=f32), x, pos))


def test_float32_rope_is_torchtune_arithmetic():
    """q rounded to float32, torchtune's float32 table θ = 1/base^(arange(0,d,2)/d), angles p·θ
    in float32, the two products and a difference/sum in float32, cast back: bit for bit."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=16, num_heads=2, dff=8, a_dff=4,
                           num_res_units=1, num_glu_blocks=1, vocab_size=5, max_seq_len=64)
    x = _x((1, 2, 4, 8), 1)
    pos = np.array([[1, 5, 9, 40]])
    got = port_rope(pyref.get_backend("float64"), cfg, Semantics(rope_float32=True), x, pos)
    th = np.float32(1) / (np.float32(1e4) ** (np.arange(0, 8, 2).astype(np.float32)
                                              / np.float32(8)))
    ang = np.einsum("i,j->ij", pos[0].astype(np.float32), th)              # [S, d/2] float32
    c, s = np.cos(ang), np.sin(ang)
    xs = x.astype(np.float32).reshape(1, 2, 4, 4, 2)
    want = np.stack([xs[..., 0] * c - xs[..., 1] * s, xs[..., 1] * c + xs[..., 0] * s], -1)
    assert np.array_equal(got, want.reshape(x.shape).astype(np.float64))
    v510 = ops.rotate(pyref.get_backend("float64"), x, [1, 5, 9, 40], 1e4)
    assert 0 < np.abs(got - v510).max() < 1e-6          # float32 rounding, not a convention


# ------------------------------------------------------------------------------ masks
def _tiny(sem, cls=pyref.PLDRModel):
    cfg = pyref.PLDRConfig(num_layers=2, d_model=16, num_heads=2, dff=24, a_dff=12,
                           num_res_units=1, num_glu_blocks=2, vocab_size=24, max_seq_len=16)
    return cls.random(cfg, seed=4, semantics=sem)


@pytest.mark.parametrize("impl", ["eager", "sdpa"])
def test_pad_keys_masked_only_with_attention_mask(impl):
    m = _tiny(hf_port(attn_implementation=impl))
    tok = np.array([[3, 0, 7, 9, 0, 4]])
    am = (tok != 0).astype(int)
    free = m.forward(tok, backend="float32")
    ones = m.forward(tok, backend="float32", attention_mask=np.ones_like(tok))
    masked = m.forward(tok, backend="float32", attention_mask=am)
    assert np.array_equal(free.logits, ones.logits)        # a mask of ones changes nothing
    for li in range(2):
        W, Wm = free.deductive[li]["E"], masked.deductive[li]["E"]   # post-softmax weights
        assert np.all(W[..., 2:, [1]] > 0)                 # pads attended without a mask
        assert np.all(Wm[..., [1, 4]] == 0)                # and exactly 0 with one
        assert np.allclose(Wm.sum(-1), 1, atol=8 * U32)    # rows still sum to 1 (6 terms)
    assert not np.allclose(free.logits, masked.logits)
    v510 = pyref.PLDRModel.from_state_dict(m.state_dict(), m.config)
    with pytest.raises(ValueError, match="attention_mask/position_ids are arguments"):
        v510.forward(tok, attention_mask=am)
    with pytest.raises(ValueError, match="attention_mask is an argument"):
        v510.generate(tok, 2, attention_mask=am)


def test_fully_masked_row_eager_uniform_sdpa_zero():
    """A left pad query sees only masked keys: eager adds finfo(float32).min to every score
    (all entries round to it) and the softmax is uniform over all T keys; SDPA gives 0."""
    tok = np.array([[0, 0, 5, 6]])
    am = np.array([[0, 0, 1, 1]])
    pos = hf_generate_positions(am)
    assert pos.tolist() == [[1, 1, 0, 1]]
    e = _tiny(hf_port(attn_implementation="eager")).forward(tok, backend="float32",
                                                            attention_mask=am, position_ids=pos)
    s = _tiny(hf_port(attn_implementation="sdpa")).forward(tok, backend="float32",
                                                           attention_mask=am, position_ids=pos)
    for li in range(2):
        assert np.all(e.deductive[li]["E"][:, :, :2, :] == np.float32(1) / np.float32(4))
        assert np.all(s.deductive[li]["E"][:, :, :2, :] == 0)
    e64 = _tiny(hf_port(attn_implementation="eager")).forward(tok, attention_mask=am,
                                                              position_ids=pos)
    assert np.all(e64.deductive[0]["E"][:, :, :2, :] == 0.25)   # float32 fill in float64 too
    with pytest.raises(ValueError, match="not consecutive"):
        _tiny(hf_port()).forward(tok, position_ids=pos)


# ------------------------------------------------------------------------------ caches
def test_sample0_gcache():
    """cache_first_G: the G-cache of a batched prefill is sample 0's [A_LM, G_LM], and a cached
    step of sample 1 then uses sample 0's G (bitwise the same as passing [G_0, G_0])."""
    m = _tiny(hf_port(cache_first_G=True, attn_implementation="eager"))
    tok = np.array([[3, 5, 7, 9], [4, 6, 8, 2]])
    pre = m.forward(tok)
    for li, (A_LM, G) in enumerate(pre.gcache):
        assert A_LM.shape == G.shape == (1, 2, 8, 8)
        assert np.array_equal(A_LM[0], pre.deductive[li]["A_LM"][0])
        assert np.array_equal(G[0], pre.deductive[li]["G_LM"][0])
        assert not np.allclose(G[0], pre.deductive[li]["G_LM"][1])
    nxt = np.array([[1], [2]])
    am = np.ones((2, 5), dtype=int)
    step = m.forward(nxt, kvcache=pre.kvcache, gcache=pre.gcache, attention_mask=am)
    g00 = [[np.concatenate([a, a]), np.concatenate([g, g])] for a, g in pre.gcache]
    same = m.forward(nxt, kvcache=pre.kvcache, gcache=g00, attention_mask=am)
    assert np.array_equal(step.logits, same.logits)
    m.semantics = hf_port(cache_first_G=False, attn_implementation="eager")
    own = m.forward(nxt, kvcache=pre.kvcache, gcache=m.forward(tok).gcache, attention_mask=am)
    assert np.array_equal(own.logits[0], step.logits[0])
    assert not np.allclose(own.logits[1], step.logits[1])


def test_generate_port_rules():
    m = _tiny(hf_port())
    tok = np.array([[3, 5, 7], [0, 4, 6]])
    inferred = m.generate(tok, 3)                       # mask inferred from pad id 0
    given = m.generate(tok, 3, attention_mask=(tok != 0).astype(int))
    assert given.new_tokens.shape == (2, 3) and len(given.step_logits) == 3
    assert np.array_equal(given.tokens[:, :3], tok)
    assert np.array_equal(inferred.tokens, given.tokens)
    ones = m.generate(tok, 3, attention_mask=np.ones_like(tok))
    assert not all(np.array_equal(a, b) for a, b in zip(ones.step_logits, given.step_logits))
    with pytest.raises(ValueError, match="one use_cache switch"):
        m.generate(tok, 2, kvcache=True, gcache=False)
    eos = int(given.new_tokens[0, 0])                   # row 0 stops at once, then pads
    assert eos != 0                                     # (0 is the pad id)
    row1 = []                                           # row 1 as before, up to its own EOS
    for t in given.new_tokens[1].tolist():
        row1.append(t)
        if t == eos:
            break
    out = m.generate(tok, 3, eos_id=eos)
    assert out.new_tokens.tolist() == [[eos] + [0] * (len(row1) - 1), row1]


def test_port_kv_cached_step_equals_uncached():
    """A constant-operator model (its operator does not depend on the sequence): a KV-cached
    step on the last token gives the uncached forward's last position (causal attention, the
    same position T0 = 4), here with one layer (the cached length is layer 0's) and the port's
    float64 paths (half-split RoPE, masked keys excluded, reciprocal scale). The two differ by
    float64 rounding only; bound as in test_port_semantics_match_independent_evaluation."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=16, num_heads=2, dff=24, a_dff=12,
                           num_res_units=1, num_glu_blocks=2, vocab_size=24, max_seq_len=16)
    G = [np.eye(8) + 0.3 * _x((2, 8, 8), 7)]
    sem = Semantics(name="port-f64", rope="half", pad_mask="attention_mask", mask_fill="exclude",
                    score_scale="reciprocal", E="post_softmax")
    m = pyref.ConstantGModel.random(cfg, seed=3, G=G, semantics=sem)
    tok = np.array([[3, 5, 7, 9, 11], [0, 4, 6, 8, 10]])
    am = (tok != 0).astype(np.int64)
    full = m.forward(tok, attention_mask=am).logits
    pre = m.forward(tok[:, :-1], attention_mask=am[:, :-1])
    step = m.forward(tok[:, -1:], kvcache=pre.kvcache, attention_mask=am).logits
    gap = np.abs(m.forward(tok, backend="float32", attention_mask=am).logits - full).max()
    assert 0 < gap < 1e-3
    assert np.abs(step[:, 0] - full[:, -1]).max() <= gap * 2.0 ** -21


def test_divide_equals_reciprocal_scale_when_root_is_a_power_of_two():
    """score_scale "divide" (raw/√d_k) and "reciprocal" (raw·fl(1/√d_k)) scale every score by
    the same power of two when √d_k is one (d_k = 16: 2^-2, exact), so the logits and
    attention weights are the same floats."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=32, num_heads=2, dff=24, a_dff=12,
                           num_res_units=1, num_glu_blocks=1, vocab_size=24, max_seq_len=16)
    m = pyref.PLDRModel.random(cfg, seed=1, semantics=hf_port())
    tok = np.array([[3, 5, 7, 9]])
    r = m.forward(tok)
    m.semantics = Semantics(**{**hf_port().to_dict(), "score_scale": "divide"})
    d = m.forward(tok)
    assert np.array_equal(r.logits, d.logits)
    assert np.array_equal(r.deductive[0]["E"], d.deductive[0]["E"])


def test_softmax_exclude_large_scores():
    """softmax_exclude on scores far beyond exp's range (|x| up to 1000): the softmax of the
    kept entries, shifted by their maximum (an independent evaluation of the same formula;
    only the summation order can differ: (T - 1)·u relative for T = 4 terms, bound 8u),
    masked entries exactly 0, a fully masked row all zeros."""
    b = pyref.get_backend("float64")
    x = np.array([[800.0, 750.0, 3.0, -900.0], [1e3, -1e3, 0.0, 5.0], [2.0, 1.0, 0.0, -1.0]])
    masked = np.array([[False, False, True, False], [True, False, False, False], [True] * 4])
    got = ops.softmax_exclude(b, x, masked)
    want = np.zeros_like(x)
    for r in range(2):
        keep = ~masked[r]
        w = np.exp(x[r, keep] - x[r, keep].max())
        want[r, keep] = w / w.sum()
    assert np.all(got[masked] == 0) and np.all(got[2] == 0)
    assert np.all(np.abs(got - want) <= 8 * U64 * want)


# ------------------------------------------------------------------------------ whole model
def _ln(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _silu(u):
    return u / (1 + np.exp(-u))


def _glu(x, sd, p):
    h = _silu(x @ sd[p + "gluw1.weight"].T + sd[p + "gluw1.bias"])
    return (h * (x @ sd[p + "gluw2.weight"].T + sd[p + "gluw2.bias"])) @ sd[p + "gluw3.weight"].T \
        + sd[p + "gluw3.bias"]


def _rope_port(x, pos, half):
    """The port's RoPE on x [B, S, H, dk] (float64 model): torchtune or rotate_half."""
    dk = x.shape[-1]
    th = np.float32(1) / (np.float32(1e4) ** (np.arange(0, dk, 2).astype(np.float32) / dk))
    ang = pos.astype(np.float32)[..., None] * th                   # [P, S, dk/2] float32
    c, s = np.cos(ang)[:, :, None, :], np.sin(ang)[:, :, None, :]
    if half:
        c, s = np.concatenate([c, c], -1).astype(np.float64), np.concatenate([s, s], -1)
        rot = np.concatenate([-x[..., dk // 2:], x[..., :dk // 2]], -1)
        return x * c + rot * s.astype(np.float64)
    xs = x.astype(np.float32).reshape(*x.shape[:-1], dk // 2, 2)
    out = np.stack([xs[..., 0] * c - xs[..., 1] * s, xs[..., 1] * c + xs[..., 0] * s], -1)
    return out.reshape(x.shape).astype(np.float64)


def port_forward(sd, cfg, tok, am, half, eager):
    """A float64 evaluation of PldrllmForCausalLM.forward (use_cache=False) written from the
    port's code: √d scale, LN, per layer q/k/v, RoPE, A = LN(Q̂ᵀQ̂) → Φ_res → A_LM, A_P, G,
    scores × (1/√d_k), the causal+attention_mask mask (eager: + finfo(float32).min and a
    float32 softmax; SDPA: masked keys excluded), dense, post-LN, FFN, head."""
    B, S = tok.shape
    H, dk = cfg.num_heads, cfg.d_k
    x = _ln(sd["decoder.embedding.weight"][tok] * np.sqrt(cfg.d_model),
            sd["decoder.layernorm1.weight"], sd["decoder.layernorm1.bias"], cfg.ln_eps)
    masked = (np.arange(S)[None, :] > np.arange(S)[:, None])[None, None] | (am == 0)[:, None,
                                                                                 None, :]
    pos = np.cumsum(am, -1) - 1
    pos[am == 0] = 1
    for li in range(cfg.num_layers):
        p = f"decoder.dec_layers.{li}."
        m = p + "mha1."
        q, k, v = (x @ sd[m + n + ".weight"].T + sd[m + n + ".bias"] for n in ("wq", "wk", "wv"))
        q, k = (_rope_port(t.reshape(B, S, H, dk), pos, half).transpose(0, 2, 1, 3)
                for t in (q, k))
        v = v.reshape(B, S, H, dk).transpose(0, 2, 1, 3)
        A = _ln(np.swapaxes(q, -1, -2) @ q, sd[m + "layernorm1.weight"], sd[m + "layernorm1.bias"],
                cfg.ln_eps)
        r = m + "reslayerAs.0."
        A = _ln(_glu(_glu(A, sd, r + "denseAs.0."), sd, r + "denseAs.1.") + A,
                sd[r + "layernormA.weight"], sd[r + "layernormA.bias"], cfg.ln_eps)
        pl = m + "plgatt_layer."
        u = sd[pl + "Wlst"] @ A + sd[pl + "blst"]
        AW = u * _silu(u) + 1e-9
        G = sd[pl + "alst"] @ AW ** sd[pl + "pwlst"] + sd[pl + "balst"]
        E = (q @ G) @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(dk))
        if eager:
            z = (E + np.where(masked, float(np.finfo(np.float32).min), 0.0)).astype(np.float32)
            w = np.exp(z - z.max(-1, keepdims=True))
            att = (w / w.sum(-1, keepdims=True)).astype(np.float64)
        else:   # masked keys excluded; a row with every key masked gets zero weights
            z = np.where(masked, -np.inf, E)
            mx = z.max(-1, keepdims=True)
            w = np.exp(z - np.where(np.isfinite(mx), mx, 0.0))
            tot = w.sum(-1, keepdims=True)
            att = w / np.where(tot > 0, tot, 1.0)
        y = (att @ v).transpose(0, 2, 1, 3).reshape(B, S, -1) @ sd[m + "dense.weight"].T \
            + sd[m + "dense.bias"]
        x = _ln(x + y, sd[p + "layernorm1.weight"], sd[p + "layernorm1.bias"], cfg.ln_eps)
        x = _ln(x + _glu(x, sd, p + "ffn."), sd[p + "layernorm2.weight"],
                sd[p + "layernorm2.bias"], cfg.ln_eps)
    return x @ sd["final_layer.weight"].T + sd["final_layer.bias"]


@pytest.mark.parametrize("name, impl", [("pldr_f32", "eager"), ("pldr_f32", "sdpa"),
                                        ("pldr_nobias_half", "eager")])
def test_port_semantics_match_independent_evaluation(name, impl):
    """pyref (float64, port semantics) vs the hand-written float64 port forward: the same real
    function with float32 roundings at the same points, so they differ by float64 rounding only.
    Bound: pyref's own float32-vs-float64 gap measures the rounding amplification κ of this
    example (gap ≈ κ·2^-24); two float64 evaluations whose op orders differ by < 2^8 roundings
    per result then differ by at most gap·2^8·2^-53/2^-24 (= gap·2^-21)."""
    model = load_hf_folder(folder(name), attn_implementation=impl)
    tok = np.array([[3, 5, 7, 9, 11, 4], [0, 0, 6, 8, 10, 12]])
    am = (tok != 0).astype(np.int64)
    kw = {"attention_mask": am, "position_ids": hf_generate_positions(am)}
    got = model.forward(tok, **kw).logits
    want = port_forward(model.state_dict(), model.config, tok, am, name.endswith("half"),
                        impl == "eager")
    gap = np.abs(model.forward(tok, backend="float32", **kw).logits - got).max()
    assert 0 < gap < 1e-3
    assert np.abs(got - want).max() <= gap * 2.0 ** -21
    v510 = pyref.PLDRModel.from_state_dict(model.state_dict(), model.config).forward(tok).logits
    assert np.abs(v510 - got).max() > 1e-3          # the semantics matter on this example


def test_pldrmodel_load_folder():
    """PLDRModel.load (pyref.loading) on a folder: the same weights, G and port semantics."""
    for name in ("pldr_f32", "customG_f32", "pldr_nobias_half"):
        ref = load_hf_folder(folder(name))
        got = pyref.PLDRModel.load(folder(name))
        assert type(got) is type(ref) and got.semantics == ref.semantics
        assert got.config == ref.config and got.load_info["format"] == "hf-folder"
        a, b = got.state_dict(), ref.state_dict()
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        if name == "customG_f32":
            assert all(np.array_equal(g, h) for g, h in zip(got.G, ref.G))
    # the v510Gi transplant on a folder: G per layer [H, d_k, d_k] or [1, H, d_k, d_k]
    G = [_x((2, 8, 8), 10 + li) for li in range(2)]
    for given in (G, [g[None] for g in G]):
        t = pyref.PLDRModel.load(folder("pldr_f32"), G=given)
        assert type(t) is pyref.ConstantGModel and t.load_info["transplanted_G"]
        assert all(np.array_equal(g, h) for g, h in zip(t.G, G))
    eager = hf_port(reference_rope=False, cache_first_G=True).with_attn_implementation("eager")
    assert eager == hf_port(reference_rope=False, attn_implementation="eager", cache_first_G=True)


def test_v510_default_unchanged():
    m = _tiny(V510)
    assert m.semantics is V510 and m.semantics.is_v510 and "semantics" not in repr(m)
    renamed = _tiny(Semantics(name="mine"))               # same behaviour, other name
    tok = np.array([[3, 5, 0, 9]])
    assert np.array_equal(m.forward(tok).logits, renamed.forward(tok).logits)
    with pytest.raises(ValueError, match="Semantics.rope"):
        Semantics(rope="neox")
    with pytest.raises(ValueError, match="semantics: expected"):
        pyref.PLDRModel.random(m.config, semantics="hf")
