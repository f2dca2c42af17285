"""pyref.torchfile: the safe PyTorch reader, without torch.

Part 1 reads the committed fixtures of ``tests/fixtures/make_torch_fixtures.py`` (written by
torch itself) and checks them against the manifest and the safetensors copy, exactly.
Part 2 builds torch-format files and malicious pickles by hand (pickle opcodes and
``__reduce__`` classes) and checks that each is refused, naming the global, without running
anything.
"""
from __future__ import annotations

import copyreg
import hashlib
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import tarfile
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import pyref
from pyref import torchfile as tf
from pyref.checkpoint import CheckpointError, load_arrays

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "torch")
with open(os.path.join(FIX, "manifest.json"), encoding="utf-8") as _f:
    MANIFEST = json.load(_f)
CFG = pyref.PLDRConfig(**{k: v for k, v in MANIFEST["config"].items()
                          if k in ("num_layers", "d_model", "num_heads", "dff", "a_dff",
                                   "num_res_units", "num_glu_blocks", "vocab_size",
                                   "max_seq_len")})
MODELS = sorted(MANIFEST["models"])


def _fix(name):
    return os.path.join(FIX, name)


def _sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def _bf16_round(f32):
    """float32 -> bfloat16 round-to-nearest-even, widened back (finite values)."""
    u = f32.view(np.uint32).astype(np.uint64)
    return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)


@pytest.fixture(scope="module")
def reference():
    arrays, cfg = load_arrays(_fix("v510_small.safetensors"))
    assert cfg == CFG
    return {k: arrays[k] for k in arrays}


# ---------------------------------------------------------------- part 1: real torch files
@pytest.mark.parametrize("name", MODELS)
def test_state_dict_files(name, reference):
    exp = MANIFEST["models"][name]
    arrays, info = tf.read_state_dict(_fix(name))
    assert info == {k: exp[k] for k in ("format", "wrapper", "wrapper_keys",
                                        "stripped_prefixes", "extra")}
    assert list(arrays) == pyref.state_dict_keys(CFG)           # the file's key order
    assert set(arrays.stored_dtypes.values()) == {exp["stored_dtype"]}
    shas = MANIFEST["sha256"][exp["stored_dtype"]]
    for k, ref in reference.items():
        shape, dtype = arrays.header(k)
        a = arrays[k]
        assert shape == ref.shape == a.shape and dtype == a.dtype and not a.flags.writeable
        assert _sha(a) == shas[k], k                            # torch's own values
        if exp["stored_dtype"] == "F32":
            assert a.dtype == np.float32 and np.array_equal(a.view(np.uint32),
                                                            ref.view(np.uint32)), k
        elif exp["stored_dtype"] == "BF16":                     # exact widening of RNE(f32)
            assert a.dtype == np.float32 and np.array_equal(a.view(np.uint32),
                                                            _bf16_round(ref).view(np.uint32))
        else:
            assert a.dtype == np.float16 and np.array_equal(a.view(np.uint16),
                                                            ref.astype(np.float16).view(
                                                                np.uint16))


def test_state_dict_builds_the_model(reference):
    arrays, _ = tf.read_state_dict(_fix("v510_small_orig_mod.pth"))
    m = pyref.PLDRModel.from_state_dict(arrays, CFG)
    for k, v in m.state_dict().items():
        assert np.array_equal(v, reference[k].astype(np.float64)), k


def test_headers_before_data_and_optimizer_never_read(monkeypatch):
    reads = []
    real = tf._Span.read

    def spy(self, off, dtype, count):
        reads.append((self.zinfo.filename, off, count))
        return real(self, off, dtype, count)

    monkeypatch.setattr(tf._Span, "read", spy)
    arrays, info = tf.read_state_dict(_fix("v510_small.pth"))
    assert "optimizer_state_dict" in info["wrapper_keys"] and reads == []
    shapes = {k: arrays.header(k)[0] for k in arrays}
    assert reads == [] and len(shapes) == len(arrays)
    for k in arrays:
        arrays[k]
    assert len(reads) == len(arrays) == len({r[0] for r in reads})
    n_members = sum(1 for n in zipfile.ZipFile(_fix("v510_small.pth")).namelist()
                    if "/data/" in n)
    assert n_members > 3 * len(arrays)      # the optimizer's storages are there, unread


def test_optimizer_state_reads_when_asked():
    obj = tf.read_torch(_fix("v510_small.pth"))
    exp, opt = MANIFEST["optimizer"], obj["optimizer_state_dict"]
    assert len(opt["state"]) == exp["n_state"] and sorted(opt["state"][0]) == exp["state_keys"]
    assert float(opt["state"][0]["step"]) == exp["step"]
    assert _sha(opt["state"][0]["exp_avg"]) == exp["exp_avg_0_sha256"]
    assert json.loads(json.dumps(opt["param_groups"])) == exp["param_groups"]
    assert obj["loss"] == MANIFEST["models"]["v510_small.pth"]["extra"]["loss"]


def _check_expected(got, exp, path="obj"):
    """Compare read_torch output with the manifest's tagged structure, exactly."""
    if isinstance(exp, dict) and exp.get("__tensor__"):
        assert isinstance(got, tf.TorchArray) and got.stored_dtype == exp["stored_dtype"], path
        dtype = {"bfloat16": np.float32}.get(exp["stored_dtype"], exp["stored_dtype"])
        want = np.array(exp["values"], dtype=dtype).reshape(exp["shape"])
        assert got.dtype == want.dtype and got.shape == want.shape, path
        assert np.array_equal(got, want) and not got.flags.writeable, path
    elif isinstance(exp, dict) and "__dict__" in exp:
        assert isinstance(got, dict) and len(got) == len(exp["__dict__"]), path
        for (k, v), (ek, ev) in zip(got.items(), exp["__dict__"]):
            assert k == ek, path
            _check_expected(v, ev, f"{path}[{k!r}]")
    elif isinstance(exp, dict):
        (tag, items), = exp.items()
        assert type(got).__name__ == tag.strip("_") and len(got) == len(items), path
        for i, (g, e) in enumerate(zip(got, items)):
            _check_expected(g, e, f"{path}[{i}]")
    else:
        assert got == exp and type(got) is type(exp), path


@pytest.mark.parametrize("name", ["views.pth", "views_legacy.pth"])
def test_views_offsets_strides_shared_storage(name):
    obj = tf.read_torch(_fix(name))
    assert isinstance(obj, OrderedDict)
    _check_expected(obj, MANIFEST["views"])
    # a transposed view is the transpose of its base; an offset view the right slice
    assert np.array_equal(obj["T"], obj["base"].T)
    assert np.array_equal(obj["tail"], obj["base"].reshape(-1)[7:19].reshape(3, 4))
    lazy = tf.read_torch(_fix(name), lazy=True)
    assert isinstance(lazy["T"], tf.TensorRef) and lazy["T"].shape == (6, 4)
    assert lazy["T"].stride == (1, 6) and lazy["bf16"].dtype == np.float32


@pytest.mark.parametrize("name", ["glist.pkl", "nab_list.pkl"])
def test_tensor_lists(name):
    got = tf.read_tensor_list(_fix(name))
    exp = MANIFEST[name.split(".")[0]]
    assert type(got) is list and len(got) == len(exp) == CFG.num_layers
    for g, e in zip(got, exp):
        if name == "nab_list.pkl":
            assert type(g) is list and len(g) == 2
            assert all(np.array_equal(x, np.array(y, np.float32)) for x, y in zip(g, e))
        else:
            assert g.shape == (1, CFG.num_heads, CFG.d_k, CFG.d_k) and g.dtype == np.float32
            assert np.array_equal(g, np.array(e, np.float32))


def test_wrong_contents_are_named():
    with pytest.raises(CheckpointError, match="holds a dict with 4 keys.*expected a list"):
        tf.read_tensor_list(_fix("v510_small.pth"))
    with pytest.raises(CheckpointError, match="holds a list of 2 items, expected a state dict"):
        tf.read_state_dict(_fix("glist.pkl"))
    with pytest.raises(CheckpointError, match="entry 'nested' is a dict with 3 keys"):
        tf.read_state_dict(_fix("views.pth"))


# ---------------------------------------------------------- part 2: hand-made pickles
class G:
    """A global reference ``module.name`` in a hand-written pickle."""
    def __init__(self, dotted):
        self.mod, self.name = dotted.rsplit(".", 1)


class Call:
    def __init__(self, f, *args):
        self.f, self.args = f, args


class Pid:
    def __init__(self, *t):
        self.t = t


def _emit(x) -> bytes:
    if isinstance(x, G):
        return b"c" + f"{x.mod}\n{x.name}\n".encode()
    if isinstance(x, Call):
        return _emit(x.f) + _emit(tuple(x.args)) + b"R"
    if isinstance(x, Pid):
        return _emit(x.t) + b"Q"
    if isinstance(x, tuple):
        return b"(" + b"".join(map(_emit, x)) + b"t"
    if isinstance(x, list):
        return b"](" + b"".join(map(_emit, x)) + b"e"
    if isinstance(x, dict):
        return b"}(" + b"".join(_emit(k) + _emit(v) for k, v in x.items()) + b"u"
    if isinstance(x, bytes):
        return b"B" + struct.pack("<I", len(x)) + x
    return pickle.dumps(x, 2)[2:-1]


def dumps(x) -> bytes:
    return b"\x80\x02" + _emit(x) + b"."


def tensor(kind, key, numel, offset, size, stride, legacy=False):
    pid = ("storage", G(f"torch.{kind}"), key, "cpu", numel) + ((None,) if legacy else ())
    return Call(G("torch._utils._rebuild_tensor_v2"), Pid(*pid), offset, size, stride, False,
                Call(G("collections.OrderedDict")))


def write_zip(path, obj, storages, byteorder=b"little", prefix="archive"):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{prefix}/data.pkl", dumps(obj))
        z.writestr(f"{prefix}/byteorder", byteorder)
        for k, b in storages.items():
            z.writestr(f"{prefix}/data/{k}", b)
    return str(path)


def legacy_bytes(obj, storages):
    out = dumps(tf.LEGACY_MAGIC) + dumps(1001) + dumps(
        {"protocol_version": 1001, "little_endian": True,
         "type_sizes": {"short": 2, "int": 4, "long": 8}}) + dumps(obj) + dumps(list(storages))
    for numel, b in storages.values():
        out += struct.pack("<q", numel) + b
    return out


def test_hand_made_zip_big_endian_and_bf16(tmp_path):
    x = np.arange(6, dtype=np.float32) * 1.5 - 2
    h = (x.view(np.uint32) >> 16).astype(np.uint16)          # exact bf16 values
    obj = {"f": tensor("FloatStorage", "0", 6, 0, (2, 3), (3, 1)),
           "h": tensor("BFloat16Storage", "1", 6, 1, (2, 2), (1, 2))}
    for order in (b"little", b"big"):
        src = (x.astype(">f4") if order == b"big" else x).tobytes(), (
            h.astype(">u2") if order == b"big" else h).tobytes()
        p = write_zip(tmp_path / f"{order.decode()}.pth", obj, {"0": src[0], "1": src[1]},
                      order)
        got = tf.read_torch(p)
        assert np.array_equal(got["f"], x.reshape(2, 3))
        want = (h.astype(np.uint32) << 16).view(np.float32)[1:].reshape(-1)
        assert np.array_equal(got["h"], np.lib.stride_tricks.as_strided(
            want, (2, 2), (4, 8)))
        assert got["h"].stored_dtype == "bfloat16" and got["h"].dtype == np.float32


class _Reduce:
    def __init__(self, *red):
        self.red = red

    def __reduce__(self):
        return self.red


def _payloads(target):
    """(pickle bytes, the global the error must name) for each malicious pickle."""
    t = str(target)
    out = []
    for proto in (2, 5):
        out += [
            (pickle.dumps(_Reduce(open, (t, "w")), proto), "io.open"),
            (pickle.dumps(_Reduce(os.system, (f"touch {t}",)), proto), f"{os.name}.system"),
            (pickle.dumps(_Reduce(eval, (f"open({t!r}, 'w')",)), proto), "builtins.eval"),
            (pickle.dumps(_Reduce(exec, (f"open({t!r}, 'w')",)), proto), "builtins.exec"),
            (pickle.dumps(_Reduce(subprocess.Popen, (["touch", t],)), proto),
             "subprocess.Popen"),
            (pickle.dumps(OrderedDict(a=[1, _Reduce(open, (t, "w"))]), proto), "io.open"),
        ]
    return out


def test_the_payloads_are_live(tmp_path):
    """The reduce payloads do create the file under plain pickle (so the test below could
    fail); only the harmless open() one is run."""
    live = tmp_path / "created_by_plain_pickle"
    pickle.loads(pickle.dumps(_Reduce(open, (str(live), "w"))))
    assert live.exists()


def test_malicious_pickles_are_refused(tmp_path):
    target = tmp_path / "pwned"
    for i, (data, name) in enumerate(_payloads(target)):
        p = tmp_path / f"evil{i}.pkl"
        p.write_bytes(data)
        for reader in (tf.read_torch, tf.read_tensor_list, tf.read_state_dict):
            with pytest.raises(tf.UnsafePickleError, match=rf"'{name}'") as e:
                reader(p)
            assert str(p) in str(e.value)
        assert not target.exists()


def _evil_call(target):
    return Call(G("posix.system"), f"touch {target}")


def test_forbidden_global_inside_torch_formats(tmp_path):
    target = tmp_path / "pwned"
    evil = _evil_call(target)
    good = tensor("FloatStorage", "0", 2, 0, (2,), (1,))
    zp = write_zip(tmp_path / "z.pth", {"a": good, "b": [evil]}, {"0": b"\0" * 8})
    lp = tmp_path / "l.pth"
    lp.write_bytes(legacy_bytes({"b": OrderedDict(), "c": evil}, {}))
    inner = legacy_bytes(evil, {})                          # inside _load_from_bytes
    gp = tmp_path / "g.pkl"
    gp.write_bytes(dumps([Call(G("torch._utils._rebuild_tensor_v2"),
                               Call(G("torch.storage._load_from_bytes"), inner), 0, (1,),
                               (1,), False, Call(G("collections.OrderedDict")))]))
    # _load_from_bytes is allowed only in plain pickles, never inside a torch.save zip
    zb = write_zip(tmp_path / "zb.pth", Call(G("torch.storage._load_from_bytes"), inner), {})
    cases = [(zp, "posix.system"), (lp, "posix.system"), (gp, "posix.system"),
             (zb, "torch.storage._load_from_bytes")]
    for p, name in cases:
        with pytest.raises(tf.UnsafePickleError, match=rf"'{name}'.*refused before"):
            tf.read_torch(p)
    assert not target.exists()


def test_nothing_is_imported(tmp_path, monkeypatch):
    """A global naming an importable module with a side effect at import: refused before
    the import (the module would create a file)."""
    target = tmp_path / "imported"
    (tmp_path / "h1_evil_mod.py").write_text(f"open({str(target)!r}, 'w').close()\nf = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    p = tmp_path / "e.pkl"
    p.write_bytes(dumps(Call(G("h1_evil_mod.f"))))
    with pytest.raises(tf.UnsafePickleError, match="'h1_evil_mod.f'"):
        tf.read_torch(p)
    assert "h1_evil_mod" not in sys.modules and not target.exists()


def _raises(p, pattern, reader=tf.read_torch):
    with pytest.raises(CheckpointError, match=pattern) as e:
        reader(p)
    assert str(p) in str(e.value) and not isinstance(e.value, tf.UnsafePickleError)


def test_storage_problems(tmp_path):
    t = tensor("FloatStorage", "0", 4, 0, (4,), (1,))
    _raises(write_zip(tmp_path / "missing.pth", [t], {}),
            r"storage '0': the archive has no member 'archive/data/0'")
    _raises(write_zip(tmp_path / "short.pth", [t], {"0": b"\0" * 12}),
            r"holds 12 bytes, its persistent id declares 4 x float32 = 16")
    _raises(write_zip(tmp_path / "oob.pth", [tensor("FloatStorage", "0", 4, 2, (2, 2),
                                                    (1, 2))], {"0": b"\0" * 16}),
            r"reaches element 6 of storage '0', which has 4")
    _raises(write_zip(tmp_path / "twotypes.pth", [t, tensor("IntStorage", "0", 4, 0, (4,),
                                                            (1,))], {"0": b"\0" * 16}),
            "referenced as float32.4. and as int32.4.")
    bad_pid = Call(G("torch._utils._rebuild_tensor_v2"), Pid("storage", "x"), 0, (1,), (1,),
                   False, None)
    _raises(write_zip(tmp_path / "pid.pth", bad_pid, {}), "is not .'storage', type, key")
    lt = tensor("FloatStorage", "k", 4, 0, (4,), (1,), legacy=True)
    lp = tmp_path / "lie.pth"
    lp.write_bytes(legacy_bytes([lt], {"k": (5, b"\0" * 20)}))
    _raises(lp, "storage 'k': the file stores 5 elements .*declares 4")
    lp.write_bytes(legacy_bytes([lt], {"k": (4, b"\0" * 10)}))
    _raises(lp, r"the storages need \d+ bytes, the data has \d+ \(truncated")
    lp.write_bytes(legacy_bytes([lt], {}))
    _raises(lp, "storages referenced .'k'. and stored .. differ")
    gp = tmp_path / "pid.pkl"
    gp.write_bytes(dumps(Pid("storage")))
    _raises(gp, "unexpected persistent id .* outside a torch.save pickle")


def test_malformed_files(tmp_path):
    data = open(_fix("v510_small.pth"), "rb").read()
    p = tmp_path / "trunc.pth"
    p.write_bytes(data[: len(data) // 2])
    _raises(p, "not a readable zip archive", tf.read_state_dict)
    p.write_bytes(open(_fix("v510_small_legacy.pth"), "rb").read()[:-100])
    _raises(p, "truncated", tf.read_state_dict)
    p.write_bytes(b"")
    _raises(p, "EOFError")
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as t:
        t.addfile(tarfile.TarInfo("storages"), io.BytesIO(b""))
    p.write_bytes(tar.getvalue())
    _raises(p, r"tar format of torch < 0.4.*torch.save it again")
    p.write_bytes(dumps({"model_state_dict": [1, 2]}))
    _raises(p, "its 'model_state_dict' holds a list of 2 items", tf.read_state_dict)
    p.write_bytes(dumps({"w": 1.5}))
    _raises(p, "state dict entry 'w' is a float, not a tensor", tf.read_state_dict)
    t = tensor("FloatStorage", "0", 1, 0, (1,), (1,))
    build = _emit(t) + _emit({"x": 1}) + b"b"                 # BUILD on a tensor
    zp = tmp_path / "build.pth"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("a/data.pkl", b"\x80\x02" + build + b".")
        z.writestr("a/data/0", b"\0" * 4)
    _raises(zp, r"set the state of a TensorRef \(BUILD\)")
    deep = b"\x80\x02" + b"]" * 100000 + b"a" * 99999 + b"."     # nested lists, 1e5 deep
    p.write_bytes(deep)
    _raises(p, "RecursionError")


def test_prefixes_stripped_only_when_every_key_has_them(tmp_path):
    t = tensor("FloatStorage", "0", 1, 0, (), ())
    p = write_zip(tmp_path / "p.pth", {"module._orig_mod.a": t, "module._orig_mod.b": t},
                  {"0": struct.pack("<f", 0.5)})
    arrays, info = tf.read_state_dict(p)
    assert list(arrays) == ["a", "b"] and info["stripped_prefixes"] == ["module.", "_orig_mod."]
    assert arrays["a"] == np.float32(0.5) and arrays.stored_dtypes["b"] == "F32"
    p = write_zip(tmp_path / "q.pth", {"module.a": t, "b": t}, {"0": b"\0" * 4})
    arrays, info = tf.read_state_dict(p)
    assert list(arrays) == ["module.a", "b"] and info["stripped_prefixes"] == []


def test_hand_made_rebuild_paths_and_legacy_views(tmp_path):
    x = np.arange(8, dtype=np.float32) / 4
    t = tensor("FloatStorage", "0", 8, 2, (2, 3), (1, 2))      # offset 2, transposed-like
    sub = Call(G("torch._tensor._rebuild_from_type_v2"), G("torch._utils._rebuild_tensor_v2"),
               G("torch.Tensor"), (Pid("storage", G("torch.FloatStorage"), "0", "cpu", 8), 1,
                                   (3,), (2,), False, Call(G("collections.OrderedDict"))), {})
    par = Call(G("torch._utils._rebuild_parameter_with_state"), t, True,
               Call(G("collections.OrderedDict")), {"a": 1})
    got = tf.read_torch(write_zip(tmp_path / "r.pth", [t, sub, par], {"0": x.tobytes()}))
    want = np.lib.stride_tricks.as_strided(x[2:], (2, 3), (4, 8))
    assert np.array_equal(got[0], want) and np.array_equal(got[2], want)
    assert np.array_equal(got[1], x[1:7:2])
    # a legacy storage view: (view key, element offset, element count) into root 'r'
    v = Call(G("torch._utils._rebuild_tensor_v2"),
             Pid("storage", G("torch.FloatStorage"), "r", "cpu", 8, ("v", 3, 4)), 1, (2,),
             (2,), False, Call(G("collections.OrderedDict")))
    lp = tmp_path / "lv.pth"
    lp.write_bytes(legacy_bytes([v], {"r": (8, x.tobytes())}))
    assert np.array_equal(tf.read_torch(lp)[0], x[[4, 6]])
    # calling a type stand-in, BUILD on an allowed function, a rebuild of a non-tensor
    for obj, msg in ((Call(G("torch.Tensor"), 1), "calls torch.Tensor"),
                     (Call(G("torch._utils._rebuild_parameter"), 5, False, None),
                      "Parameter's data is a int")):
        _raises(write_zip(tmp_path / "bad.pth", obj, {}), msg)
    bp = tmp_path / "build.pkl"
    bp.write_bytes(b"\x80\x02" + _emit(G("torch._utils._rebuild_tensor_v2"))
                   + _emit((None, {"__defaults__": (1,)})) + b"b.")
    _raises(bp, r"set the state of a _Func \(BUILD\)")
    mixed = write_zip(tmp_path / "mixed.pth", [t, [t, t], t], {"0": x.tobytes()})
    _raises(mixed, r"item 1 is a list of 2 items; expected every item a floating-point tensor",
            tf.read_tensor_list)
    ints = write_zip(tmp_path / "ints.pth", [[tensor("LongStorage", "0", 1, 0, (), ())]],
                     {"0": b"\0" * 8})
    _raises(ints, r"item 0 is a list of 1 items; expected", tf.read_tensor_list)
    assert len(tf.read_tensor_list(write_zip(tmp_path / "ok.pth", [[t, t]],
                                             {"0": x.tobytes()}))[0]) == 2


def test_extension_registry_goes_through_the_allow_list(tmp_path):
    """pickle's EXT opcodes look globals up in copyreg's registry; they too must be refused."""
    copyreg.add_extension("posix", "system", 240)
    try:
        p = tmp_path / "ext.pkl"
        p.write_bytes(b"\x80\x02\x82\xf0" + _emit((f"touch {tmp_path / 'pwned'}",)) + b"R.")
        with pytest.raises(tf.UnsafePickleError, match="'posix.system'"):
            tf.read_torch(p)
    finally:
        copyreg.remove_extension("posix", "system", 240)
    assert not (tmp_path / "pwned").exists()


def test_large_storage_read_path(tmp_path):
    """Storages of >= 1 MiB are read into an anonymous mapping: same values, read-only."""
    x = np.arange(300_000, dtype=np.float32) * np.float32(0.5) - 7     # 1.2 MB
    obj = {"w": tensor("FloatStorage", "0", x.size, 0, (600, 500), (500, 1)),
           "wT": tensor("FloatStorage", "0", x.size, 0, (500, 600), (1, 500))}
    arrays, _ = tf.read_state_dict(write_zip(tmp_path / "big.pth", obj, {"0": x.tobytes()}))
    w, wT = arrays["w"], arrays["wT"]
    assert np.array_equal(w, x.reshape(600, 500)) and np.array_equal(wT, w.T)
    assert not w.flags.writeable and not wT.flags.writeable
    with pytest.raises(ValueError):
        w[0, 0] = 1
