"""The bad-input guarantees of the README, one table (issue 15): adding a case is one line.

Each row of ``API_CASES`` is ``(id, action, exception class, message regex)``: calling
``action(ctx)`` must raise exactly that class (a ``ValueError`` subclass: every load and input
error is one) with a message naming what is wrong. Each row of ``CLI_CASES`` is ``(id, argv
builder, exit code, message regex)``: ``plga`` must print one line ``plga: error: …`` (or
``plga: check failed: …`` for exit 1), no traceback, and leave ``--out`` without a report.
Silent-wrong-answer cases (an intermediate that overflows while the output stays finite) are
``test_*`` functions below the tables; the analysis statistics across 1e-300…1e300 are
``tests/test_pyref_analysis_scale.py``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import pyref
from crosscheck.audit import plots as audit_plots
from crosscheck.cli import main
from pyref.checkpoint import CheckpointError
from pyref.state_dict import StateDictError

CFG = pyref.PLDRConfig(num_layers=1, d_model=4, num_heads=1, dff=8, a_dff=4, num_res_units=1,
                       num_glu_blocks=1, vocab_size=10, max_seq_len=8)
HUGE = {**CFG.to_dict(), "num_layers": 10**9}   # a 200-byte config: 3·10¹⁰ keys


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    d = tmp_path_factory.mktemp("guarantees")
    model = pyref.PLDRModel.random(CFG, seed=1)
    model.save(d / "model.npz")
    model.save(d / "model.safetensors")
    (d / "junk.safetensors").write_bytes(b"\x00" * 64)
    (d / "dir.npz").mkdir()
    data = (d / "model.npz").read_bytes()
    (d / "truncated.npz").write_bytes(data[: len(data) // 2])
    _npz_with_member(d / "bomb-extra.npz", d / "model.npz", "junk", (1 << 29,))
    _npz_with_member(d / "bomb-key.npz", d / "model.npz", "final_layer.bias", (1 << 29,))
    (d / "huge.json").write_text(json.dumps(HUGE))
    (d / "tokens.json").write_text("[[1, 2, 3]]")
    for name, files in REPORT_DIRS.items():
        (d / name).mkdir()
        for f, text in files.items():
            (d / name / f).write_text(text)
    return SimpleNamespace(dir=d, model=model)


#: report directories with one malformed input each (``plga report`` reads all four)
_FUZZ_OK = json.dumps({"results": [], "seed": 0, "profile": "ci"})
REPORT_DIRS = {
    "rep-fuzz-not-json": {"fuzz-results.json": "{not json"},
    "rep-fuzz-list": {"fuzz-results.json": "[1, 2]"},
    "rep-fuzz-fields": {"fuzz-results.json": json.dumps({"results": [{"bogus": 1}]})},
    "rep-axioms": {"fuzz-results.json": _FUZZ_OK, "axioms.json": '{"ok": true, "theorems": 5}'},
    "rep-mutation": {"fuzz-results.json": _FUZZ_OK, "mutation.json": "[]"},
    "rep-generated": {"fuzz-results.json": _FUZZ_OK, "mutation-generated.json": "{\"x\": "},
}


def _npz_with_member(dst: Path, src: Path, name: str, shape) -> None:
    """A copy of ``src`` with one more/replaced member whose .npy header declares ``shape``
    float64 (4 GiB for 2^29) but holds 8 bytes: reading it would try to allocate the whole."""
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = tuple(shape)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.namelist():
            if item != name + ".npy":
                zout.writestr(item, zin.read(item))
        with zout.open(name + ".npy", "w") as fh:
            np.lib.format.write_array_header_1_0(fh, header)
            fh.write(b"\0" * 8)


def _random_config(ctx, **kw):
    return pyref.PLDRConfig(**{**CFG.to_dict(), **kw})


API_CASES = [
    ("config-string-number", lambda c: _random_config(c, rope_base="1e4"), ValueError,
     r"rope_base: expected a real number, got str '1e4'"),
    ("config-bool-number", lambda c: _random_config(c, ln_eps=True), ValueError,
     r"ln_eps: expected a real number"),
    ("config-empty", lambda c: pyref.PLDRConfig.from_dict({}), ValueError,
     r"missing fields \['num_layers'"),
    ("config-not-object", lambda c: pyref.PLDRConfig.from_json("[1]"), ValueError,
     r"expected a JSON object"),
    ("random-too-large", lambda c: pyref.PLDRModel.random(pyref.PLDRConfig(**HUGE)), ValueError,
     r"needs ~\d+(\.\d)? GiB as float64"),
    ("state-dict-wrong-config", lambda c: pyref.PLDRModel.from_state_dict(
        c.model.state_dict(), pyref.PLDRConfig(**HUGE)), StateDictError, r"has \d+ keys"),
    ("state-dict-missing-key", lambda c: pyref.PLDRModel.from_state_dict(
        {k: v for k, v in c.model.state_dict().items() if k != "final_layer.bias"}, CFG),
     StateDictError, r"missing key.*final_layer.bias"),
    ("load-missing-file", lambda c: pyref.PLDRModel.load(c.dir / "nope.npz"), CheckpointError,
     r"does not exist"),
    ("load-directory", lambda c: pyref.PLDRModel.load(c.dir / "dir.npz"), CheckpointError,
     r"dir.npz.*is a directory without config.json"),
    ("load-junk-safetensors", lambda c: pyref.PLDRModel.load(c.dir / "junk.safetensors"),
     CheckpointError, r"junk.safetensors.*cannot read it as a safetensors file"),
    ("load-truncated-npz", lambda c: pyref.PLDRModel.load(c.dir / "truncated.npz"),
     CheckpointError, r"truncated.npz.*cannot read it as a npz file"),
    ("load-npz-unexpected-huge-member", lambda c: pyref.PLDRModel.load(c.dir / "bomb-extra.npz"),
     StateDictError, r"unexpected key.*junk"),
    ("load-npz-expected-key-huge-header", lambda c: pyref.PLDRModel.load(c.dir / "bomb-key.npz"),
     ValueError, r"final_layer.bias.*shape \(536870912,\).*decoder.embedding.weight \[10, 4\] "
                 r"gives vocab_size=10"),
    ("empty-prompt", lambda c: c.model.generate([], 2), ValueError, r"empty prompt"),
    ("empty-token-batch", lambda c: c.model.forward(np.zeros((1, 0), int)), ValueError,
     r"empty prompt"),
    ("float32-conversion-overflow", lambda c: pyref.PLDRModel.from_state_dict(
        {**c.model.state_dict(), "final_layer.weight":
         c.model.state_dict()["final_layer.weight"] * 1e300}, CFG).forward([[1]], "float32"),
     ValueError, r"weight 'final_layer.weight' overflows when converted to float32"),
    ("mp-power-overflow", lambda c: pyref.PLDRModel.from_state_dict(
        {**c.model.state_dict(), "decoder.dec_layers.0.mha1.plgatt_layer.pwlst":
         np.full((1, 4, 4), 1e20), "decoder.dec_layers.0.mha1.plgatt_layer.blst":
         np.full((1, 4, 4), 8.0)}, CFG).forward([[1, 2]], "mp"),   # A_LM > 1: A_LM^1e20
     ValueError, r"forward \(mp\): layer 0 overflowed"),
]


@pytest.mark.parametrize("case", API_CASES, ids=[c[0] for c in API_CASES])
def test_api_bad_input_raises_a_specific_error(ctx, case):
    _, action, exc, pattern = case
    with np.errstate(all="ignore"):
        with pytest.raises(exc, match=pattern) as info:
            action(ctx)
    assert isinstance(info.value, ValueError)   # the one documented base class


def _audit(*extra):
    return lambda c, out: ["audit", *map(str, extra), "--out", str(out), "--quiet", "--jobs",
                           "1", "--no-plots"]


CLI_CASES = [
    ("audit-huge-config", lambda c, out: _audit(c.dir / "model.npz", "--config",
                                                c.dir / "huge.json")(c, out),
     2, r"huge.json says num_layers=1000000000, the checkpoint's shapes say num_layers=1"),
    ("audit-directory", lambda c, out: _audit(c.dir / "dir.npz")(c, out), 2,
     r"is a directory without config.json"),
    ("audit-junk", lambda c, out: _audit(c.dir / "junk.safetensors")(c, out), 2,
     r"cannot read it as a safetensors file"),
    ("audit-bomb-member", lambda c, out: _audit(c.dir / "bomb-extra.npz")(c, out), 2,
     r"unexpected key"),
]


def _report(name):
    return lambda c, out: ["report", "--reports", str(c.dir / name)]


CLI_CASES += [
    ("report-fuzz-not-json", _report("rep-fuzz-not-json"), 2, r"not readable JSON.*plga fuzz"),
    ("report-fuzz-list", _report("rep-fuzz-list"), 2, r"expected a JSON object, got list"),
    ("report-fuzz-fields", _report("rep-fuzz-fields"), 2, r"fuzz-results.json is malformed"),
    ("report-axioms", _report("rep-axioms"), 2, r"report input .* is malformed"),
    ("report-mutation", _report("rep-mutation"), 2, r"mutation.json: expected a JSON object"),
    ("report-generated", _report("rep-generated"), 2,
     r"mutation-generated.json is not readable JSON.*plga mutate --generated"),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_bad_input_is_one_line(ctx, case, tmp_path, capsys):
    _, argv, code, pattern = case
    out = tmp_path / "out"
    rc = main(argv(ctx, out))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == code and len(lines) == 1, err
    assert lines[0].startswith("plga: ") and "Traceback" not in err
    assert re.search(pattern, lines[0]), lines[0]
    assert not (out / "audit.json").exists()
    if argv(ctx, out)[0] == "report":   # a failed report writes neither output
        rd = Path(argv(ctx, out)[2])
        assert not (rd / "crosscheck.json").exists() and not (rd / "VERIFICATION.md").exists()


# ------------------------------------------------------------------ silent wrong answers
def test_layer_norm_of_a_huge_row_is_not_collapsed():
    """A checkpoint whose embedding is scaled by 1e300 is legal (LN_emb ignores the scale): in
    float64 Σ(x − μ)² overflowed and every row collapsed to β. Now float64 matches mp.
    Tolerance 1e-9: float64 round-off through two tiny layers (~1e-15) times a generous 10⁶."""
    sd = pyref.PLDRModel.random(CFG, seed=2).state_dict()
    sd["decoder.embedding.weight"] = sd["decoder.embedding.weight"] * 1e300
    big = pyref.PLDRModel.from_state_dict(sd, CFG)
    toks = [[1, 2, 3, 4]]
    f64 = big.forward(toks).logits
    mp = pyref.to_float64(big.forward(toks, backend="mp", dps=30).logits)
    assert np.max(np.abs(f64 - mp)) < 1e-9
    assert np.ptp(f64[0], axis=0).max() > 1e-3   # rows differ: not all collapsed to β


def test_failed_audit_leaves_the_previous_report_untouched(ctx, tmp_path, monkeypatch, capsys):
    """The output set is staged and moved into place complete (audit.json last): a run that
    fails while writing leaves the previous run's files as they were and no staging dir."""
    out = tmp_path / "out"
    argv = ["audit", str(ctx.dir / "model.npz"), "--tokens", str(ctx.dir / "tokens.json"),
            "--out", str(out), "--quiet", "--jobs", "1", "--no-plots", "--steps", "1"]
    assert main(argv) == 0
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(audit_plots, "write_plots", broken)
    monkeypatch.setattr(audit_plots, "require", lambda: None)
    assert main([a for a in argv if a != "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0] and "unchanged" in err[0]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def _default_sigint():
    """SIGINT as a terminal's foreground job has it: a test run started in the background by a
    non-interactive shell inherits SIGINT ignored, and Python then installs no handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _python_children(children: Path) -> list:
    """The child processes (from /proc) running our code; processes may exit while we look."""
    out = []
    try:
        kids = children.read_text().split()
    except OSError:
        return out
    for k in kids:
        try:
            if b"crosscheck" in Path(f"/proc/{k}/cmdline").read_bytes():
                out.append(k)
        except OSError:
            pass
    return out


def test_ctrl_c_during_the_worker_pool_is_one_line(tmp_path):
    """Ctrl-C (SIGINT to the whole foreground process group, as a terminal sends it) while the
    Perron/determinant pool runs: the workers ignore it, the parent prints ``plga: interrupted``
    and exits 130, and no ``ForkPoolWorker`` traceback appears (it did before)."""
    # 32 heads of 64x64 at 300 digits: the pool runs ~4 s on an idle machine (the Arb
    # certificates take ~0.1 s a head at 300 digits), long enough to be interrupted in
    cfg = pyref.PLDRConfig(num_layers=4, d_model=512, num_heads=8, dff=16, a_dff=8,
                           num_res_units=1, num_glu_blocks=1, vocab_size=12, max_seq_len=16)
    pyref.PLDRModel.random(cfg, seed=0).save(tmp_path / "m.npz")
    p = subprocess.Popen([sys.executable, "-m", "crosscheck", "audit", str(tmp_path / "m.npz"),
                          "--out", str(tmp_path / "o"), "--quiet", "--jobs", "2", "--no-plots",
                          "--steps", "1", "--hp-dps", "300", "--no-blockseq"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=_default_sigint)
    children = Path(f"/proc/{p.pid}/task/{p.pid}/children")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:   # wait for both pool workers
        if len(_python_children(children)) >= 2:   # (a child such as `uname -p` does not count)
            break
        time.sleep(0.02)
    assert p.poll() is None, "the audit ended before its worker pool was seen"
    time.sleep(0.3)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert err.strip() == "plga: interrupted", err
    assert not (tmp_path / "o" / "audit.json").exists()


def test_bfloat16_safetensors_load_exactly(tmp_path):
    """A bf16 safetensors file (how Hugging Face checkpoints are often stored) loads, each value
    widened exactly (bf16 = the high 16 bits of a float32), instead of numpy's TypeError."""
    sd = pyref.PLDRModel.random(CFG, seed=3).state_dict()
    header, blobs, off = {}, [], 0
    for k, v in sd.items():
        bits = (v.astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
        header[k] = {"dtype": "BF16", "shape": list(v.shape),
                     "data_offsets": [off, off + len(bits)]}
        off += len(bits)
        blobs.append(bits)
    header["__metadata__"] = {"__pyref_config__": CFG.to_json()}
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    path = tmp_path / "bf16.safetensors"
    path.write_bytes(len(h).to_bytes(8, "little") + h + b"".join(blobs))
    got = pyref.PLDRModel.load(path).state_dict()
    for k, v in sd.items():
        want = ((v.astype(np.float32).view(np.uint32) >> 16) << 16).view(np.float32)
        assert np.array_equal(got[k], want.astype(np.float64)), k


def test_memory_cases_under_an_address_space_limit(ctx):
    """Under RLIMIT_AS = 2 GiB: the 10⁹-layer config, the npz members declaring 4 GiB and the
    oversized random model are refused with a ValueError before anything of that size is
    allocated (a MemoryError or a kill would fail this test)."""
    code = (
        "import resource, sys, json\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "import pyref\n"
        "d = sys.argv[1]\n"
        "huge = pyref.PLDRConfig(**json.load(open(d + '/huge.json')))\n"
        "cases = [lambda: pyref.PLDRModel.load(d + '/bomb-extra.npz'),\n"
        "         lambda: pyref.PLDRModel.load(d + '/bomb-key.npz'),\n"
        "         lambda: pyref.PLDRModel.load(d + '/model.npz', config=huge),\n"
        "         lambda: pyref.PLDRModel.random(huge)]\n"
        "for f in cases:\n"
        "    try:\n"
        "        f()\n"
        "    except ValueError as e:\n"
        "        print(type(e).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code, str(ctx.dir)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # the 10⁹-layer config is refused by the config resolution (it disagrees with the shapes)
    assert out.stdout.split() == ["StateDictError", "ValueError", "ValueError", "ValueError"]
