"""End to end on the formats the published models come in (issue 16): the authors' ``.pth``
written by ``torch.save`` (fixtures made by ``tests/fixtures/make_torch_fixtures.py`` with
torch; no torch here), their hyperparameter ``.py`` file, SentencePiece text prompts, the
predefined-G lists, through :meth:`pyref.PLDRModel.load`, ``plga audit`` and ``plga generate``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import sentencepiece

import pyref
from crosscheck.cli import main
from pyref.tokenizer import Tokenizer

FIX = Path(__file__).parent / "fixtures" / "torch"
MANIFEST = json.loads((FIX / "manifest.json").read_text())

# the authors' hpdict format (their README), for the fixtures' small configuration
HPARAMS = '''\
import torch.nn.functional as F
num_layers=2
num_heads=2
dk=4
adff=6
hpdict={"num_layers": num_layers,
        "d_model": int(num_heads*dk),
        "num_heads": num_heads,
        "dff": int(np.floor(num_heads*dk*3/2)),
        "num_reslayerA": 2,
        "num_denseA": 2,
        "A_dff": adff,
        "input_vocab_size": inp_obj.tokenizer.vocab_size,
        "max_seq_len": 16,
        "activation": F.silu,
        "device": 'cpu',
        "save_type": "torch"}
'''
TOKENS = [[1, 5, 7, 2, 9, 4]]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("formats")
    (d / "hparams.py").write_text(HPARAMS)
    # a SentencePiece model small enough for the fixtures' vocabulary of 11 ids: characters
    # of a short text plus [PAD]=0, <unk>=1, <s>=2, </s>=3 (the authors' special ids)
    (d / "corpus.txt").write_text("\n".join(["the cat ate the hat", "a hat at the cat"] * 30))
    sentencepiece.SentencePieceTrainer.train(
        input=str(d / "corpus.txt"), model_prefix=str(d / "tok"), vocab_size=11,
        hard_vocab_limit=False, model_type="char", pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        pad_piece="[PAD]", minloglevel=2)
    return d


def _load(name, work, **kw):
    return pyref.PLDRModel.load(FIX / name, config=str(work / "hparams.py"), **kw)


def test_hparams_py_resolves_to_the_fixture_config(work):
    m = _load("v510_small.pth", work)
    assert m.config.to_dict() == MANIFEST["config"]
    info = m.load_info
    assert info["format"] == "torch-zip" and info["wrapper"] is True
    assert info["wrapper_keys"][:2] == ["model_state_dict", "optimizer_state_dict"]
    assert info["stored_dtypes"] == {"F32": len(m.state_dict())}
    assert "max_seq_len from" in info["config_source"] and "hparams.py" in info["config_source"]


def test_pth_logits_equal_safetensors_bit_for_bit(work):
    """The same float32 weights through torch.save and through safetensors give identical
    logits (every backend widens float32 exactly; the readers must agree bit for bit)."""
    a = _load("v510_small.pth", work)
    b = _load("v510_small.safetensors", work)
    for backend in ("float64", "float32"):
        assert np.array_equal(a.forward(TOKENS, backend=backend).logits,
                              b.forward(TOKENS, backend=backend).logits)


@pytest.mark.parametrize("name, fmt, prefixes", [
    ("v510_small_legacy.pth", "torch-legacy", []),
    ("v510_small_module.pth", "torch-zip", ["module."]),
    ("v510_small_orig_mod.pth", "torch-zip", ["_orig_mod."]),
])
def test_other_torch_layouts_give_the_same_model(work, name, fmt, prefixes):
    ref = _load("v510_small.safetensors", work).state_dict()
    m = _load(name, work)
    assert m.load_info["format"] == fmt and m.load_info["stripped_prefixes"] == prefixes
    assert all(np.array_equal(ref[k], v) for k, v in m.state_dict().items())


def test_half_precision_pth_widens_exactly(work):
    """bf16/fp16 files hold the float32 weights rounded; the loaded float64 values are exactly
    those rounded values (bf16: the high 16 bits of the float32 pattern, round to nearest even)."""
    ref = _load("v510_small.safetensors", work).state_dict()
    bf = _load("v510_small_bf16.pth", work)
    fp = _load("v510_small_fp16.pth", work)
    assert bf.load_info["stored_dtypes"] == {"BF16": len(ref)}
    assert fp.load_info["stored_dtypes"] == {"F16": len(ref)}
    for k, v in ref.items():
        bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16   # RNE to bf16
        want = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
        assert np.array_equal(bf.state_dict()[k], want), k
        assert np.array_equal(fp.state_dict()[k], v.astype(np.float16).astype(np.float64)), k


def test_tokenizer_follows_the_authors_generate_text(work):
    tok = Tokenizer(work / "tok.model")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(work / "tok.model"))
    body = sp.encode("the cat", out_type=int)
    # encode(add_bos=False, add_eos=True), then the trailing EOS dropped (length > 1)
    assert tok.encode_prompt("the cat") == body
    assert tok.encode_prompt("") == [3]          # tokenize('')[0] is EOS: kept when alone
    assert tok.eos_id == 3 and tok.decode(body) == "the cat"
    hf = Tokenizer(work / "tok.model", "hf", add_bos=True, add_eos=True)
    assert hf.encode_prompt("the cat") == [2, *body, 3]
    with pytest.raises(ValueError, match="not a SentencePiece model"):
        Tokenizer(work / "hparams.py")


def test_plga_audit_pth_with_hparams_and_text(work, capsys):
    out = work / "audit"
    rc = main(["audit", str(FIX / "v510_small.pth"), "--config", str(work / "hparams.py"),
               "--tokenizer", str(work / "tok.model"), "--text", "the cat", "--text", "a hat",
               "--steps", "4", "--out", str(out), "--no-plots", "--quiet", "--hp-heads", "1"])
    assert rc == 0
    r = json.loads((out / "audit.json").read_text())
    ck = r["checkpoint"]
    assert ck["format"] == "torch-zip" and ck["stored_dtypes"] == {"F32": 111}
    assert ck["wrapper_keys"][0] == "model_state_dict" and ck["semantics"][0] == "semantics 'v510'"
    tok = Tokenizer(work / "tok.model")
    assert r["prompts"]["tokens"] == [tok.encode_prompt("the cat"), tok.encode_prompt("a hat")]
    for row, g in zip(r["text"]["prompts"], r["gcache"]["per_prompt"]):
        assert row["cached_text"] == tok.decode(g["cached_tokens"])
    md = (out / "audit.md").read_text()
    assert "## Text prompts and greedy continuations" in md and "| wrapper |" in md


def test_gcache_list_runs_the_transplanted_constant_model(work, capsys):
    """--gcache with the authors' G-list format: the v510Gi model whose operator is the list's
    G (checked against the manifest's values) — its forward equals ConstantGModel built by hand."""
    base = _load("v510_small.pth", work)
    G = [np.asarray(g, dtype=np.float64)[0] for g in MANIFEST["glist"]]
    m = _load("v510_small.pth", work, G=G)
    assert isinstance(m, pyref.ConstantGModel) and m.load_info["transplanted_G"]
    hand = pyref.ConstantGModel.from_state_dict(base.state_dict(), base.config, strict=False, G=G)
    assert np.array_equal(m.forward(TOKENS).logits, hand.forward(TOKENS).logits)
    out = work / "audit-g-transplant"
    assert main(["audit", str(FIX / "v510_small.pth"), "--config", str(work / "hparams.py"),
                 "--gcache", str(FIX / "glist.pkl"), "--steps", "3", "--out", str(out),
                 "--no-plots", "--quiet"]) == 0
    r = json.loads((out / "audit.json").read_text())
    assert r["checkpoint"]["model"] == "ConstantGModel" and r["rank_one"]["computed"] is False
    assert np.allclose(r["commutant"]["per_head"][0]["commutant_residual"],
                       pyref.analysis.commutant_residual(G[0][0]), rtol=0, atol=0)


def test_plga_generate_text_and_json(work, capsys):
    args = ["generate", str(FIX / "v510_small.pth"), "--config", str(work / "hparams.py"),
            "--tokenizer", str(work / "tok.model"), "--text", "the hat", "--max-new-tokens",
            "5", "--json"]
    assert main(args) == 0
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    m = _load("v510_small.pth", work)
    tok = Tokenizer(work / "tok.model")
    g = m.generate(tok.encode_prompt("the hat"), 5, eos_id=tok.eos_id)
    assert rec["new_tokens"] == [int(x) for x in g.new_tokens[0]]
    assert rec["continuation"] == tok.decode(rec["new_tokens"])


@pytest.mark.parametrize("args, expect", [
    (["--text", "x"], "--text/--text-file need --tokenizer"),
    (["--tokens", "t.json", "--text", "x", "--tokenizer", "tok.model"], "give the prompts one way"),
    (["--text", "the", "--tokenizer", "hparams.py"], "not a SentencePiece model"),
    (["--gcache", "hparams.py"], "hparams.py"),
    (["--attn-implementation", "eager"], "only for a Hugging Face folder"),
])
def test_bad_text_and_gcache_inputs_are_one_line_errors(work, capsys, args, expect):
    (work / "t.json").write_text("[1, 2]")
    args = [str(work / a) if a in ("t.json", "tok.model", "hparams.py") else a for a in args]
    rc = main(["audit", str(FIX / "v510_small.pth"), "--config", str(work / "hparams.py"),
               "--out", str(work / "bad"), "--quiet", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and expect in err[0], err
    assert not (work / "bad" / "audit.json").exists()


def test_plga_audit_and_generate_hf_folder_with_its_own_tokenizer(work, tmp_path, capsys):
    """A Hugging Face folder (fixture in the port's exact layout) with a tokenizer.model: the
    folder's config and the port's semantics and BOS convention are used, and said so."""
    folder = tmp_path / "hf"
    shutil.copytree(FIX.parent / "hf" / "pldr_f32", folder)
    shutil.copy(work / "tok.model", folder / "tokenizer.model")
    (folder / "tokenizer_config.json").write_text('{"add_bos_token": true, '
                                                  '"add_eos_token": false}')
    out = tmp_path / "audit"
    assert main(["audit", str(folder), "--text", "the cat", "--steps", "3", "--out", str(out),
                 "--no-plots", "--quiet", "--hp-heads", "1"]) == 0
    r = json.loads((out / "audit.json").read_text())
    assert r["checkpoint"]["format"] == "hf-folder"
    assert r["checkpoint"]["semantics"][0] == "semantics 'hf-port-sdpa'"
    tok = Tokenizer.from_hf_folder(folder)
    assert r["prompts"]["tokens"] == [[2, *tok._sp.encode("the cat", out_type=int)]]
    assert r["config"]["max_seq_len"] == 32 and r["config"]["vocab_size"] == 24
    out_e = tmp_path / "audit-eager"
    assert main(["audit", str(folder), "--text", "the cat", "--steps", "1", "--out", str(out_e),
                 "--no-plots", "--quiet", "--no-perron", "--no-det",
                 "--attn-implementation", "eager"]) == 0
    sem = json.loads((out_e / "audit.json").read_text())["checkpoint"]["semantics"]
    assert sem[0] == "semantics 'hf-port-eager'" and any("float32" in x for x in sem)
    assert main(["generate", str(folder), "--text", "the cat", "--max-new-tokens", "4",
                 "--json"]) == 0
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    m = pyref.PLDRModel.load(folder)
    g = m.generate([r["prompts"]["tokens"][0]], 4, eos_id=tok.eos_id)
    assert rec["new_tokens"] == [int(x) for x in g.new_tokens[0]]


def test_plga_audit_g_on_the_authors_list_format(tmp_path):
    out = tmp_path / "g"
    assert main(["audit-g", str(FIX / "glist.pkl"), "--out", str(out), "--no-plots",
                 "--quiet"]) == 0
    r = json.loads((out / "audit-g.json").read_text())
    G = [np.asarray(g, dtype=np.float64)[0] for g in MANIFEST["glist"]]   # [L][H, dk, dk]
    assert r["structure"]["layers"] == len(G) and r["structure"]["heads"] == G[0].shape[0]
    for rec in r["per_head"]:   # the spectrum of the very matrix the manifest records
        sv = np.linalg.svd(G[rec["layer"]][rec["head"]], compute_uv=False)
        assert np.allclose(rec["singular_values"], sv, rtol=1e-12, atol=0)
    assert (out / "audit-g.md").exists()


def test_decode_marks_ids_outside_the_tokenizer(work):
    tok = Tokenizer(work / "tok.model")
    ids = tok.encode_prompt("the cat")
    assert tok.decode([*ids, 17, *ids]) == "the cat⟨17⟩the cat"
