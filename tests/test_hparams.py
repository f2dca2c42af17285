"""pyref.hparams: the authors' hyperparameter file read without executing it, every size
inferred from key names and headers, and a config resolved from shapes + spec with an error
naming both values on every disagreement."""
import time
from collections.abc import Mapping

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyref
from pyref.checkpoint import load_arrays
from pyref.hparams import (
    HParamsError,
    Symbol,
    infer_config_fields,
    load_hparams_py,
    read_hparams_py,
    resolve_config,
)
from pyref.state_dict import state_dict_shapes

PAPER = pyref.PLDRConfig.paper()
SMALL = pyref.PLDRConfig(num_layers=2, d_model=8, num_heads=2, dff=12, a_dff=6,
                         num_res_units=2, num_glu_blocks=2, vocab_size=13, max_seq_len=16)

# The hpdict example of the authors' README (PLDR-LLM-with-KVG-cache, "PLDR-LLM Model
# Evaluation"), verbatim, including its trailing space after 2000 and its use of np without
# importing numpy.
README_HPDICT = '''import torch.nn.functional as F

num_layers=5
num_heads=14
dk=64
adff=170

hpdict={"num_layers": num_layers,
        "d_model": int(num_heads*dk),
        "num_heads": num_heads,
        "dff": int(np.floor(num_heads*dk*4*2/3)),
        "num_reslayerA":8,
        "num_denseA":2,
        "A_dff":adff,
        "input_vocab_size": inp_obj.tokenizer.vocab_size,
        "max_seq_len":1024,
        "epochs":1,
        "save_model_path": "default_pldr_model",
        "warmup_steps": 2000, 
        "lr_total_steps": 250000,
        "learning_rate": 1e-3,
        "lr_alpha":0.1,
        "adamw_decay":0.1,
        "activation":F.silu,
        "device":'cuda',
        "auto_size_minimum": None,
        "disable_amp":False,
        "disable_fsdp_mixed_precision":False,
        "fsdp_cpu_offload":False,
        "fsdp_sharding_strategy":"FULL_SHARD",
        "backward_prefetch":"PRE",
        "save_type": "torch"
      }
'''


class Headers(Mapping):
    """A checkpoint known only by its headers: reading any tensor fails the test."""

    def __init__(self, shapes):
        self.shapes = dict(shapes)

    def __iter__(self):
        return iter(self.shapes)

    def __len__(self):
        return len(self.shapes)

    def __getitem__(self, key):
        raise AssertionError(f"tensor data of {key!r} was read")

    def header(self, key):
        return tuple(self.shapes[key]), np.dtype(np.float32)


def headers(cfg, variant="plga", **changes):
    s = dict(state_dict_shapes(cfg, variant))
    s.update(changes)
    return Headers(s)


def write(tmp_path, text, name="hparams.py"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------------ the authors' file format
def test_readme_hpdict_is_read_without_executing_it(tmp_path):
    hf = load_hparams_py(write(tmp_path, README_HPDICT))
    hp = hf.hpdict
    assert (hp["num_layers"], hp["d_model"], hp["num_heads"], hp["dff"]) == (5, 896, 14, 2389)
    assert type(hp["dff"]) is int and hp["A_dff"] == 170 and hp["max_seq_len"] == 1024
    assert hp["activation"] == Symbol("F.silu")
    assert hp["activation"].target == "torch.nn.functional.silu"
    assert hp["input_vocab_size"] == Symbol("inp_obj.tokenizer.vocab_size")
    assert hp["auto_size_minimum"] is None and hp["disable_amp"] is False
    assert hp["learning_rate"] == 1e-3 and hp["save_type"] == "torch"
    assert hf.imports == ["import torch.nn.functional as F"]
    assert hf.names["dk"] == 64


def test_readme_hpdict_resolves_to_the_paper_config_from_headers_only(tmp_path):
    p = write(tmp_path, README_HPDICT)
    cfg, source, notes = resolve_config(headers(PAPER), str(p))
    assert cfg == PAPER
    assert str(p) in source and "shapes" in source
    text = "\n".join(notes)
    assert "inp_obj.tokenizer.vocab_size" in text and "vocab_size=32000" in text
    assert "import torch.nn.functional as F" in text
    assert "pldr_model_v510.py:57" in text     # rope_base / eps defaults say where they are from


def test_authors_run_script_style_hpdict(tmp_path):
    # the run scripts' default dicts call get_vocab_size() on inp_obj_src; v510_dag adds a list
    src = ('import numpy as np\nfrom torch.nn import functional as F\n'
           'hpdict = {"num_layers": 5, "d_model": int(14*64), "num_heads": 14,\n'
           '          "dff": int(np.floor(14*64*4*2/3)), "num_reslayerA": 8, "num_denseA": 2,\n'
           '          "A_dff": 170, "input_vocab_size": inp_obj_src.tokenizer.get_vocab_size(),\n'
           '          "max_seq_len": 4096, "activation": F.silu, "DAG_reg_coeffs": [0, 0, 0]}\n')
    cfg, _, _ = resolve_config(headers(PAPER), str(write(tmp_path, src)))
    assert cfg == pyref.PLDRConfig.paper(max_seq_len=4096)


def test_v510g_hpdict_needs_num_heads_and_names_its_g_list(tmp_path):
    src = ('hpdict = {"num_layers": 5, "d_model": 896, "num_heads": 14, "dff": 2389,\n'
           '          "Gcachelst": "g.pkl", "input_vocab_size": inp_obj.tokenizer.vocab_size,\n'
           '          "max_seq_len": 1024}\n')
    cfg, _, notes = resolve_config(headers(PAPER, "constant"), str(write(tmp_path, src)))
    assert cfg == PAPER    # learner sizes: the run script's defaults 170/8/2, unused
    assert any("'g.pkl'" in n and "--gcache" in n for n in notes)
    assert any("num_heads cannot be inferred" in n for n in notes)


@pytest.mark.parametrize("line,value,field,file_value,shape_value", [
    ('"num_heads": num_heads,', '"num_heads": 16,', "num_heads", 16, 14),
    ('"dff": int(np.floor(num_heads*dk*4*2/3)),', '"dff": 2390,', "dff", 2390, 2389),
    ('"num_reslayerA":8,', '"num_reslayerA":7,', "num_res_units", 7, 8),
    ('"A_dff":adff,', '"A_dff":180,', "a_dff", 180, 170),
])
def test_disagreement_names_the_file_and_both_values(tmp_path, line, value, field, file_value,
                                                     shape_value):
    p = write(tmp_path, README_HPDICT.replace(line, value))
    with pytest.raises(ValueError) as ei:
        resolve_config(headers(PAPER), str(p))
    msg = str(ei.value)
    assert f"{p} says {field}={file_value}" in msg
    assert f"shapes say {field}={shape_value}" in msg


def test_d_model_disagreement(tmp_path):
    p = write(tmp_path, README_HPDICT.replace("dk=64", "dk=36"))   # d_model 504, dff 1344
    with pytest.raises(ValueError, match=r"says d_model=504, the checkpoint's shapes say "
                                         r"d_model=896 \(decoder\.embedding\.weight"):
        resolve_config(headers(PAPER), str(p))


def test_activation_must_be_silu(tmp_path):
    p = write(tmp_path, README_HPDICT.replace("F.silu", "F.gelu"))
    with pytest.raises(ValueError, match=r"activation'\] = F\.gelu: pyref implements"):
        resolve_config(headers(PAPER), str(p))


def test_a_float_size_is_refused_with_its_key(tmp_path):
    p = write(tmp_path, README_HPDICT.replace("int(np.floor(num_heads*dk*4*2/3))",
                                              "np.floor(num_heads*dk*4*2/3)"))
    with pytest.raises(ValueError, match=r"hpdict\['dff'\] = 2389\.0 is not an integer"):
        resolve_config(headers(PAPER), str(p))


def test_a_symbol_where_the_shapes_cannot_help(tmp_path):
    p = write(tmp_path, README_HPDICT.replace('"max_seq_len":1024', '"max_seq_len":inp_obj.n'))
    with pytest.raises(ValueError, match=r"max_seq_len = inp_obj\.n, known only when"):
        resolve_config(headers(PAPER), str(p))


# ------------------------------------------------------------------------ refused constructs
REFUSED = [
    ("x = __import__('os').system('touch {marker}')", 1, "a call of a computed function"),
    ("__import__('os').system('touch {marker}')", 1, "an expression statement"),
    ("import os\nx = os.system('touch {marker}')", 2, "a call to os.system"),
    ("from os import system\nx = system('touch {marker}')", 2, "a call to system (os.system)"),
    ("x = open('{marker}', 'w')", 1, "a call to open"),
    ("f = lambda: 1", 1, "a lambda"),
    ("x = [i for i in (1, 2)]", 1, "a list comprehension"),
    ("x = {{i: 1 for i in (1, 2)}}", 1, "a dict comprehension"),
    ("x = 9**9**9", 1, "exponent 387420489"),
    ("x = 2**64 * 2**64", 1, "exceeds the reader's bound |x| <= 10**18"),
    ("x = 'a' * 10**9", 1, "'*' on a str"),
    ("import os\nx = os.path", 2, "the attribute access os.path"),
    ("x = (1).real", 1, "attribute access on a computed value"),
    ("x = ().__class__.__bases__", 1, "attribute access on a computed value"),
    ("a = [1, 2]\nx = a[0]", 2, "a subscript"),
    ("def f():\n    return 1", 1, "a function definition"),
    ("class A:\n    pass", 1, "a class definition"),
    ("x = F.silu(1.0)", 1, "a call to F.silu"),
    ("x = inp_obj.tokenizer.vocab_size + 1", 1, "'+' on the symbol inp_obj"),
    ("x = int(F.silu)", 1, "int() of the symbol F.silu"),
    ("v = 'a'\nx = f'{{v.upper()}}'", 2, "an f-string with a call inside"),
    ("x = (y := 3)", 1, "an assignment expression"),
    ("for i in (1, 2):\n    pass", 1, "a for loop"),
    ("x = 1 if True else 2", 1, "a conditional expression"),
    ("x = undefined_name + 1", 1, "name 'undefined_name' is not assigned"),
    ("int = 3\nx = int(2.5)", 2, "a call of int, a value assigned in the file"),
    ("x = np", 1, "the module np (numpy) used as a value"),
    ("x = 1 / 0", 1, "division by zero"),
    ("x = round(5, -10**18)", 1, "round(): ndigits"),
    ("x = int(1e300)", 1, "exceeds the reader's bound"),
    ("x = (-8) ** 0.5", 1, "is not a real number"),
    ("x = " + "-" * 300 + "1", 1, "nested more than 100 levels"),
    ("x = 1j", 1, "the literal 1j"),
    ("x = {{**{{}}}}", 1, "dict unpacking"),
    ("x = max(*[1, 2])", 1, "a starred argument"),
    ("s = 'ab'\nl = [s, s]\nx = f'{{l}}'", 3, "an f-string of a list"),
    ("s = '" + "x" * 60000 + "'\nx = s + s", 2, "string longer than 100000 characters"),
    ("l = [1] * 10**9", 1, "'*' on a list"),
]


@pytest.mark.parametrize("src,line,what", REFUSED, ids=[r[2][:30] for r in REFUSED])
def test_unsupported_constructs_are_refused_with_file_and_line(tmp_path, src, line, what):
    marker = tmp_path / "PWNED"
    p = write(tmp_path, src.format(marker=marker) + "\nhpdict = {}\n")
    t0 = time.perf_counter()
    with pytest.raises(HParamsError) as ei:
        read_hparams_py(p)
    assert time.perf_counter() - t0 < 1.0
    msg = str(ei.value)
    assert f"hyperparameter file {p}, line {line}:" in msg
    assert what in msg
    assert not marker.exists()


def test_file_level_errors(tmp_path):
    with pytest.raises(HParamsError, match="does not assign hpdict; the authors' format"):
        read_hparams_py(write(tmp_path, "hp = {'num_layers': 5}\n"))
    with pytest.raises(HParamsError, match="assigns hpdict a int"):
        read_hparams_py(write(tmp_path, "hpdict = 5\n"))
    with pytest.raises(HParamsError, match=r"line 1: not valid Python"):
        read_hparams_py(write(tmp_path, "hpdict = {\n"))
    with pytest.raises(HParamsError, match="cannot read"):
        read_hparams_py(tmp_path / "absent.py")
    with pytest.raises(HParamsError, match="expressions nested too deeply"):
        read_hparams_py(write(tmp_path, "hpdict = {'a': " + "+".join(["1"] * 50000) + "}\n"))


def test_allowed_constructs(tmp_path):
    src = ('"""docstring"""\nimport math\nfrom numpy import floor\nbase = 2\nbase += 1\n'
           'name = "run"\nhpdict = dict(a=1)\nhpdict["b"] = floor(7 / 2)\n'
           'hpdict["c"] = [math.floor(2.5), math.ceil(2.5), round(2.567, 2), abs(-3), '
           'min(4, base), max((1, 5)), float(2), -base ** 2, 7 // 2, 7 % 3, math.sqrt(16)]\n'
           'hpdict["d"] = f"{name}_{base}"\nhpdict["e"] = torch.float32\nhpdict["f"] = '
           'name + "_x"\nhpdict["g"] = (1, None, True, np.pi)\npass\n')
    hp = read_hparams_py(write(tmp_path, src))
    assert hp["a"] == 1 and hp["b"] == 3.0 and type(hp["b"]) is float   # numpy.floor -> float
    assert hp["c"] == [2, 3, 2.57, 3, 3, 5, 2.0, -9, 3, 1, 4.0]
    assert type(hp["c"][0]) is int                                     # math.floor -> int
    assert hp["d"] == "run_3" and hp["f"] == "run_x"
    assert hp["e"] == Symbol("torch.float32")
    assert hp["g"] == (1, None, True, np.pi)


# -------------------------------------------------------------------------- other specs
def test_partial_json_config(tmp_path):
    p = write(tmp_path, '{"max_seq_len": 1024}', "c.json")
    cfg, source, notes = resolve_config(headers(PAPER), str(p))
    assert cfg == PAPER and f"max_seq_len from {p}" in source
    p2 = write(tmp_path, '{"max_seq_len": 64, "ln_eps": 1e-5}', "c2.json")
    cfg, _, notes = resolve_config(headers(PAPER), str(p2))
    assert cfg.ln_eps == 1e-5
    assert any("ln_eps=1e-05" in n and "hard-codes (1e-06)" in n for n in notes)
    hp_json = write(tmp_path, '{"num_heads": 14, "A_dff": 170, "max_seq_len": 8, '
                    '"activation": "silu"}', "hp.json")
    assert resolve_config(headers(PAPER), str(hp_json))[0].max_seq_len == 8
    pkl = write(tmp_path, "", "m_hparams.pkl")
    with pytest.raises(ValueError, match="a pickle is not read as a config"):
        resolve_config(headers(PAPER), str(pkl))
    bad = write(tmp_path, '{"max_seq_len": 64, "dmodel": 896}', "c3.json")
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['dmodel'\]"):
        resolve_config(headers(PAPER), str(bad))
    short = write(tmp_path, '{"rope_base": 10000}', "c4.json")
    with pytest.raises(ValueError, match=rf"max_seq_len is neither in the checkpoint's shapes "
                                         rf"nor in {short}"):
        resolve_config(headers(PAPER), str(short))
    notjson = write(tmp_path, "max_seq_len = 3", "c5.json")
    with pytest.raises(ValueError, match="not a JSON file"):
        resolve_config(headers(PAPER), str(notjson))
    wrongtype = write(tmp_path, '{"max_seq_len": "1024"}', "c6.json")
    with pytest.raises(ValueError, match=r"max_seq_len='1024' is not an integer"):
        resolve_config(headers(PAPER), str(wrongtype))


def test_no_spec_says_what_is_missing_and_how_to_pass_it():
    with pytest.raises(ValueError) as ei:
        resolve_config(headers(PAPER))
    msg = str(ei.value)
    assert msg.startswith("config: max_seq_len is neither in the checkpoint's shapes")
    assert "'paper'" in msg and '{"max_seq_len": 1024}' in msg and ".py" in msg
    assert "d_model=896" in msg


def test_paper_and_config_object_specs():
    assert resolve_config(headers(PAPER), "paper")[0] == PAPER
    with pytest.raises(ValueError, match=r"--config paper:180 says a_dff=180, the checkpoint's "
                                         r"shapes say a_dff=170"):
        resolve_config(headers(PAPER), "paper:180")
    with pytest.raises(ValueError, match="says num_layers=5, the checkpoint's shapes say "
                                         "num_layers=2"):
        resolve_config(headers(SMALL), PAPER)
    with pytest.raises(ValueError, match="no such file"):
        resolve_config(headers(SMALL), "/nonexistent/config.json")
    with pytest.raises(ValueError, match="expected None, a PLDRConfig"):
        resolve_config(headers(SMALL), 3)


def test_embedded_config():
    cfg, source, _ = resolve_config(headers(SMALL), embedded=SMALL)
    assert cfg == SMALL and "embedded" in source
    other = pyref.PLDRConfig.from_dict({**SMALL.to_dict(), "max_seq_len": 99})
    cfg, _, notes = resolve_config(headers(SMALL), {"max_seq_len": 32}, embedded=other)
    assert cfg.max_seq_len == 32
    assert any("embedded in the checkpoint says max_seq_len=99" in n for n in notes)
    wrong = pyref.PLDRConfig.from_dict({**SMALL.to_dict(), "dff": 14})
    with pytest.raises(ValueError, match="embedded in the checkpoint says dff=14, the "
                                         "checkpoint's shapes say dff=12"):
        resolve_config(headers(SMALL), embedded=wrong)


# ---------------------------------------------------------------- constant-operator files
def test_constant_variant_mapping():
    h = headers(PAPER, "constant")
    got = infer_config_fields(h)
    assert got == {"num_layers": 5, "d_model": 896, "dff": 2389, "vocab_size": 32000,
                   "variant": "constant"}
    with pytest.raises(ValueError, match=r"num_heads is neither .* \(num_heads cannot be "
                                         r"inferred from the shapes"):
        resolve_config(h, {"max_seq_len": 1024})
    cfg, _, notes = resolve_config(h, {"max_seq_len": 1024, "num_heads": 14})
    assert cfg == PAPER
    assert any("a_dff=170, num_res_units=8, num_glu_blocks=2" in n for n in notes)
    with pytest.raises(ValueError, match="not divisible by num_heads=3"):
        resolve_config(h, {"max_seq_len": 1024, "num_heads": 3})
    with pytest.raises(ValueError, match="d_k = d_model/num_heads = 7 must be even"):
        resolve_config(h, {"max_seq_len": 1024, "num_heads": 128})


def test_constant_g_entries_reveal_num_heads(tmp_path):
    model = pyref.ConstantGModel.random(SMALL, seed=1)
    path = tmp_path / "g.safetensors"
    model.save(path)
    arrays, emb = load_arrays(path)
    got = infer_config_fields(arrays)
    assert got["num_heads"] == 2 and got["d_k"] == 4 and got["variant"] == "constant"
    hf_like = headers(SMALL, "constant", **{"decoder.past_G_values": (2, 3, 1, 2, 4, 4)})
    assert infer_config_fields(hf_like)["num_heads"] == 2
    bad = headers(SMALL, "constant", **{"decoder.past_G_values": (3, 3, 1, 2, 4, 4)})
    with pytest.raises(ValueError, match=r"make 2 layers, but decoder\.past_G_values "
                                         r"\[3, 3, 1, 2, 4, 4\] gives num_layers=3"):
        infer_config_fields(bad)


# ------------------------------------------------------------------- consistency of shapes
def test_layers_must_agree():
    k = "decoder.dec_layers.1.ffn.gluw1.weight"
    with pytest.raises(ValueError, match=rf"{k}' has shape \(13, 8\), which gives dff=13, but "
                                         r"decoder\.dec_layers\.0\.ffn\.gluw1\.weight"):
        infer_config_fields(headers(SMALL, **{k: (13, 8)}))
    k = "decoder.dec_layers.1.mha1.plgatt_layer.Wlst"
    with pytest.raises(ValueError, match=rf"{k}' has shape \(2, 4\); a v510 checkpoint has 3"):
        infer_config_fields(headers(SMALL, **{k: (2, 4)}))
    with pytest.raises(ValueError, match=rf"{k}' has shape \(1, 4, 4\), which gives "
                                         "num_heads=1"):
        infer_config_fields(headers(SMALL, **{k: (1, 4, 4)}))
    s = dict(state_dict_shapes(SMALL))
    for key in [x for x in s if ".reslayerAs.1." in x and x.startswith("decoder.dec_layers.1")]:
        del s[key]
    with pytest.raises(ValueError, match="layer 1 has 1 residual units, but layer 0 has 2"):
        infer_config_fields(Headers(s))
    three = pyref.PLDRConfig.from_dict({**SMALL.to_dict(), "num_layers": 3})
    s = {k: v for k, v in state_dict_shapes(three).items()
         if not k.startswith("decoder.dec_layers.1.")}
    with pytest.raises(ValueError, match=r"decoder layers \[0, 2\] -- index\(es\) \[1\] missing"):
        infer_config_fields(Headers(s))


def test_heads_times_dk_must_be_d_model():
    shapes = {k: (3,) + v[1:] if ".plgatt_layer." in k else v
              for k, v in state_dict_shapes(SMALL).items()}
    with pytest.raises(ValueError, match=r"num_heads=3 and d_k=4, but .* gives d_model=8"):
        infer_config_fields(Headers(shapes))


# ------------------------------------------------------------ real pyref checkpoint files
@pytest.mark.parametrize("suffix", [".npz", ".safetensors"])
def test_a_saved_checkpoint_needs_only_max_seq_len(tmp_path, suffix):
    model = pyref.PLDRModel.random(SMALL, seed=3)
    path = tmp_path / f"m{suffix}"
    model.save(path, dtype=np.float32)
    arrays, emb = load_arrays(path)
    assert emb == SMALL
    arrays._reader = lambda k: pytest.fail(f"tensor data of {k!r} was read")
    cfg, source, notes = resolve_config(arrays, {"max_seq_len": 16})
    assert cfg == SMALL and "sizes from the checkpoint's shapes" in source
    assert resolve_config(arrays, embedded=emb)[0] == SMALL


def test_plain_mapping_without_headers():
    arrays = {k: np.zeros(s) for k, s in state_dict_shapes(SMALL).items()}
    assert resolve_config(arrays, {"max_seq_len": 16})[0] == SMALL
    prefixed = Headers({"_orig_mod." + k: v for k, v in state_dict_shapes(SMALL).items()})
    with pytest.raises(ValueError, match=r"none is a v510 state-dict name .* the first are "
                                         r"\['_orig_mod\.decoder\.embedding\.weight'"):
        resolve_config(prefixed, "paper")


# ------------------------------------------------------------------------------ properties
@st.composite
def configs(draw):
    H = draw(st.integers(1, 4))
    return pyref.PLDRConfig(num_layers=draw(st.integers(1, 4)), d_model=H * 2 * draw(
        st.integers(1, 4)), num_heads=H, dff=draw(st.integers(1, 40)),
        a_dff=draw(st.integers(1, 12)), num_res_units=draw(st.integers(1, 3)),
        num_glu_blocks=draw(st.integers(1, 3)), vocab_size=draw(st.integers(1, 50)),
        max_seq_len=draw(st.integers(1, 64)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_shapes_recover_every_size(cfg):
    got = infer_config_fields(headers(cfg))
    sizes = {k: v for k, v in cfg.to_dict().items()
             if k not in ("max_seq_len", "rope_base", "ln_eps", "metric_eps")}
    assert got == {**sizes, "d_k": cfg.d_k, "variant": "plga"}
    assert resolve_config(headers(cfg), {"max_seq_len": cfg.max_seq_len})[0] == cfg
    const = infer_config_fields(headers(cfg, "constant"))
    assert const == {k: sizes[k] for k in ("num_layers", "d_model", "dff", "vocab_size")} | {
        "variant": "constant"}
