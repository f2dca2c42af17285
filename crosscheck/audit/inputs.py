"""Inputs of ``plga audit``: options, config, checkpoint, token files and the output
directory, each validated before any computation (a bad input is a one-line
:class:`~crosscheck.errors.PlgaError`, exit code 2)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

import numpy as np

import pyref
from pyref.checkpoint import CheckpointError, load_arrays
from pyref.tokenizer import Tokenizer

from ..errors import PlgaError

DEFAULT_PROMPT_LEN = 16
DEFAULT_PROMPT_SEED = 0
BACKENDS = ("float64", "float32", "mp")

TOKENS_HELP = """\
Token files hold integer token ids (no tokenizer): either JSON -- a list of ints (one
prompt) or a list of lists of ints (one prompt each) -- or text with one prompt per line,
ids separated by whitespace and/or commas ('#' starts a comment, blank lines are skipped).
Every id must lie in [0, vocab_size); id 0 is [PAD] (masked as a key and as a target)."""


def check_options(opts) -> None:
    """The numeric and choice options of an :class:`~crosscheck.audit.run.AuditOptions`."""
    if opts.backend not in BACKENDS:
        raise PlgaError(f"--backend {opts.backend}: expected float64, float32 or mp")
    for name, v, lo in (("--dps", opts.dps, 1), ("--hp-dps", opts.hp_dps, 15),
                        ("--jobs", opts.jobs, 1)):
        if not isinstance(v, int) or v < lo:
            raise PlgaError(f"{name} {v}: expected an integer ≥ {lo}")
    if not isinstance(opts.steps, int) or opts.steps < 0:
        raise PlgaError(f"--steps {opts.steps}: expected a non-negative integer")
    if opts.hp_prompts not in ("first", "all"):
        raise PlgaError(f"--hp-prompts {opts.hp_prompts}: expected 'first' or 'all'")
    if opts.hp_heads is not None and (not isinstance(opts.hp_heads, int) or opts.hp_heads < 1):
        raise PlgaError(f"--hp-heads {opts.hp_heads}: expected a positive integer")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ======================================================================= config, checkpoint
def load_config(spec: str) -> tuple[pyref.PLDRConfig, str]:
    """``spec``: ``paper`` / ``paper:ADFF`` (the paper's 110M configuration, spec A.0) or a
    JSON file with the :class:`pyref.PLDRConfig` fields (as written by ``to_json``)."""
    if spec == "paper" or spec.startswith("paper:"):
        try:
            a_dff = int(spec.split(":", 1)[1]) if ":" in spec else 170
            return pyref.PLDRConfig.paper(a_dff=a_dff), f"--config {spec} (spec A.0)"
        except ValueError as exc:
            raise PlgaError(f"--config {spec}: expected 'paper' or 'paper:A_DFF' with an integer "
                            f"A_DFF ({exc})") from None
    p = Path(spec)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlgaError(f"--config {p}: cannot read ({exc.strerror or exc})") from None
    try:
        cfg = pyref.PLDRConfig.from_json(text)
    except (ValueError, TypeError) as exc:
        raise PlgaError(f"--config {p}: not a valid PLDRConfig JSON object "
                        f"(expected keys num_layers, d_model, num_heads, dff, a_dff, "
                        f"num_res_units, num_glu_blocks, vocab_size, max_seq_len[, rope_base, "
                        f"ln_eps, metric_eps]): {exc}") from None
    return cfg, f"--config {p}"


def _read_checkpoint_arrays(path: Path):
    """(arrays, embedded config or None) of a checkpoint file, after checking the path."""
    if not path.exists():
        raise PlgaError(f"checkpoint {path}: no such file")
    if not path.is_file():
        raise PlgaError(f"checkpoint {path}: not a regular file")
    if path.suffix not in (".safetensors", ".npz"):
        raise PlgaError(f"checkpoint {path}: expected a '.safetensors' or '.npz' file (v510 "
                        f"state-dict key names as pyref.state_dict_keys), got suffix "
                        f"{path.suffix!r}")
    try:
        return load_arrays(path)
    except CheckpointError as exc:   # names the file itself
        raise PlgaError(str(exc)) from None
    except ValueError as exc:
        raise PlgaError(f"checkpoint {path}: {exc}") from None
    except Exception as exc:  # safetensors/zip/OS errors: a corrupt or unreadable file
        msg = f"checkpoint {path}: cannot read ({type(exc).__name__}: {exc})"
        raise PlgaError(msg.replace("\n", " ")) from None


def load_checkpoint(path: Path, config_spec: str | None):
    """Load a v510 checkpoint; returns (model, config, config_source, warnings)."""
    path = Path(path)
    arrays, embedded = _read_checkpoint_arrays(path)
    warnings = []
    if config_spec is not None:
        cfg, source = load_config(config_spec)
        if embedded is not None and embedded != cfg:
            diff = [k for k in cfg.to_dict() if cfg.to_dict()[k] != embedded.to_dict()[k]]
            warnings.append(f"the checkpoint embeds a different config (fields {diff}); "
                            f"using {source}")
    elif embedded is not None:
        cfg, source = embedded, "embedded in the checkpoint"
    else:
        raise PlgaError(f"checkpoint {path}: carries no pyref config; pass --config CONFIG.json "
                        "(PLDRConfig fields) or --config paper")
    try:
        model = pyref.PLDRModel.from_state_dict(arrays, cfg)
    except (KeyError, ValueError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise PlgaError(f"checkpoint {path} does not match the config ({source}): {msg}"
                        + _shape_hint(arrays, cfg)) from None
    return model, cfg, source, warnings


def infer_config_fields(arrays) -> dict:
    """The config fields that the key names and shapes of a v510 state dict reveal."""
    out: dict = {}
    keys = list(arrays.keys())

    def shape(k):
        return tuple(np.shape(arrays[k])) if k in arrays else None

    def count(pattern):
        idx = {int(m.group(1)) for k in keys for m in [re.search(pattern, k)] if m}
        return max(idx) + 1 if idx else None

    out["num_layers"] = count(r"^decoder\.dec_layers\.(\d+)\.")
    out["num_res_units"] = count(r"\.reslayerAs\.(\d+)\.")
    out["num_glu_blocks"] = count(r"\.denseAs\.(\d+)\.")
    s = shape("decoder.embedding.weight")
    if s and len(s) == 2:
        out["vocab_size"], out["d_model"] = s
    s = shape("decoder.dec_layers.0.mha1.plgatt_layer.Wlst")
    if s and len(s) == 3:
        out["num_heads"] = s[0]
    s = shape("decoder.dec_layers.0.ffn.gluw1.weight")
    if s and len(s) == 2:
        out["dff"] = s[0]
    s = shape("decoder.dec_layers.0.mha1.reslayerAs.0.denseAs.0.gluw1.weight")
    if s and len(s) == 2:
        out["a_dff"] = s[0]
    return {k: int(v) for k, v in out.items() if v is not None}


def _shape_hint(arrays, cfg) -> str:
    try:
        got = infer_config_fields(arrays)
    except Exception:  # pragma: no cover - a hint must never mask the real error
        return ""
    want = cfg.to_dict()
    diff = [f"{k}={v} (config: {want[k]})" for k, v in got.items() if want.get(k) != v]
    return f" -- the checkpoint looks like {', '.join(diff)}" if diff else ""


# ================================================================================ tokens
def _check_id(x, where, V):
    if isinstance(x, bool) or not isinstance(x, int):
        raise PlgaError(f"{where}: expected an integer token id, got {x!r}")
    if not 0 <= x < V:
        raise PlgaError(f"{where}: token id {x} out of range [0, {V}) (vocab_size={V})")
    return x


def _json_prompts(s: str, what: str, vocab_size: int) -> list[list[int]]:
    try:
        data = json.loads(s)
    except json.JSONDecodeError as exc:
        raise PlgaError(f"{what}: invalid JSON ({exc})") from None
    if not isinstance(data, list) or not data:
        raise PlgaError(f"{what}: expected a JSON list of ints or a non-empty list of lists "
                        "of ints")
    if all(isinstance(x, list) for x in data):
        rows = data
    elif not any(isinstance(x, list) for x in data):
        rows = [data]
    else:
        raise PlgaError(f"{what}: mixes ints and lists at the top level; expected a list "
                        "of ints (one prompt) or a list of lists of ints")
    prompts = []
    for i, row in enumerate(rows):
        if not row:
            raise PlgaError(f"{what}: prompt {i} is empty")
        prompts.append([_check_id(x, f"{what}: prompt {i}, position {j}", vocab_size)
                        for j, x in enumerate(row)])
    return prompts


def _text_prompts(text: str, what: str, vocab_size: int) -> list[list[int]]:
    prompts: list[list[int]] = []
    for ln, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].replace(",", " ").strip()
        if not line:
            continue
        row = []
        for j, w in enumerate(line.split()):
            where = f"{what}: line {ln} (prompt {len(prompts)}), position {j}"
            try:
                x = int(w, 10)
            except ValueError:
                raise PlgaError(f"{where}: expected an integer token id, got {w!r}") from None
            row.append(_check_id(x, where, vocab_size))
        prompts.append(row)
    if not prompts:
        raise PlgaError(f"{what}: no prompts (only comments or blank lines)")
    return prompts


def read_tokens(path: Path, vocab_size: int, option: str = "--tokens") -> list[list[int]]:
    """Parse a token file (see :data:`TOKENS_HELP`); errors name file, prompt and position."""
    path = Path(path)
    what = f"{option} {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlgaError(f"{what}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PlgaError(f"{what}: not a UTF-8 text/JSON file") from None
    s = text.strip()
    if not s:
        raise PlgaError(f"{what}: the file is empty (expected at least one prompt of token ids)")
    if s[0] in "[{":
        return _json_prompts(s, what, vocab_size)
    return _text_prompts(text, what, vocab_size)


def default_prompt(cfg: pyref.PLDRConfig, steps: int) -> list[int]:
    """One reproducible prompt: ids drawn uniformly from [1, V) with numpy seed 0."""
    n = max(2, min(DEFAULT_PROMPT_LEN, cfg.max_seq_len - steps))
    rng = np.random.default_rng(DEFAULT_PROMPT_SEED)
    lo = 1 if cfg.vocab_size > 1 else 0
    return [int(x) for x in rng.integers(lo, cfg.vocab_size, size=n)]


def check_prompt_lengths(prompts, cfg, steps, what):
    for i, p in enumerate(prompts):
        if len(p) + steps > cfg.max_seq_len:
            raise PlgaError(f"{what}: prompt {i} has {len(p)} tokens; with --steps {steps} the "
                            f"sequence reaches {len(p) + steps} > max_seq_len={cfg.max_seq_len} "
                            "(the RoPE table)")


def _tokenizer(opts) -> Tokenizer:
    """The tokenizer of ``--text``: ``--tokenizer`` (the authors' convention) or the
    ``tokenizer.model`` of a Hugging Face folder (the port's convention)."""
    try:
        if opts.tokenizer is not None:
            return Tokenizer(opts.tokenizer, "authors")
        if Path(opts.checkpoint).is_dir():
            return Tokenizer.from_hf_folder(opts.checkpoint)
    except ValueError as exc:
        raise PlgaError(f"--tokenizer: {exc}") from None
    raise PlgaError("--text/--text-file need --tokenizer MODEL (a SentencePiece .model file; "
                    "a Hugging Face folder's own tokenizer.model is used when present)")


def _read_texts(opts) -> list[str]:
    texts = list(opts.text or [])
    if opts.text_file is not None:
        try:
            lines = Path(opts.text_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise PlgaError(f"--text-file {opts.text_file}: cannot read it as UTF-8 text "
                            f"({getattr(exc, 'strerror', None) or exc})") from None
        texts += [ln for ln in lines if ln.strip()]
        if not texts:
            raise PlgaError(f"--text-file {opts.text_file}: no non-empty line (one prompt per "
                            "line)")
    return texts


def text_prompts(opts, cfg) -> tuple[list, dict]:
    """Token ids of the ``--text``/``--text-file`` prompts and the record of how they were
    made (tokenizer, convention, the texts)."""
    if opts.tokens is not None:
        raise PlgaError("--tokens and --text/--text-file: give the prompts one way")
    tok = _tokenizer(opts)
    texts = _read_texts(opts)
    prompts = []
    for i, t in enumerate(texts):
        ids = tok.encode_prompt(t)
        bad = [x for x in ids if x >= cfg.vocab_size]
        if bad:
            raise PlgaError(f"--text prompt {i}: the tokenizer ({tok.vocab_size} pieces) gives id "
                            f"{bad[0]}, outside the model's vocabulary [0, {cfg.vocab_size})")
        prompts.append(ids)
    return prompts, {"tokenizer": tok.describe(), "texts": texts, "_tokenizer": tok}


def load_prompts(opts, cfg):
    """(prompts, their source, prompts of the second run or None, text record or None),
    checked against ``cfg``."""
    text = None
    if opts.text or opts.text_file is not None:
        prompts, text = text_prompts(opts, cfg)
        source = f"--text ({len(prompts)} prompt(s), tokenized)"
    elif opts.tokens is not None:
        prompts = read_tokens(Path(opts.tokens), cfg.vocab_size, "--tokens")
        source = f"--tokens {opts.tokens}"
    else:
        prompts = [default_prompt(cfg, opts.steps)]
        source = (f"default: one prompt of {len(prompts[0])} ids drawn uniformly from [1, V) "
                  f"with numpy seed {DEFAULT_PROMPT_SEED}")
    check_prompt_lengths(prompts, cfg, opts.steps, source.split(":")[0])
    prompts2 = None
    if opts.tokens2 is not None:
        prompts2 = read_tokens(Path(opts.tokens2), cfg.vocab_size, "--tokens2")
        check_prompt_lengths(prompts2, cfg, 0, f"--tokens2 {opts.tokens2}")
        if len(prompts2) != len(prompts):
            raise PlgaError(f"--tokens2 {opts.tokens2}: {len(prompts2)} prompt(s), but the first "
                            f"run has {len(prompts)} ({source}); the order parameter pairs "
                            "prompt i with prompt i")
    return prompts, source, prompts2, text


# ====================================================================== output directory
def check_output_dir(out: Path) -> None:
    """Create ``out`` and make sure a file can be created in it (before any computation)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlgaError(f"--out {out}: cannot create the output directory "
                        f"({exc.strerror or exc})") from None
    if not out.is_dir():
        raise PlgaError(f"--out {out}: exists and is not a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plga-audit-probe-", dir=out)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise PlgaError(f"--out {out}: the output directory is not writable "
                        f"({exc.strerror or exc})") from None
