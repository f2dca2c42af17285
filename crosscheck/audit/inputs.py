"""Inputs of ``plga audit``: options, config, checkpoint, token files and the output
directory, each validated before any computation (a bad input is a one-line
:class:`~crosscheck.errors.PlgaError`, exit code 2)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

import pyref
from pyref.arb_precision import MAX_DPS
from pyref.checkpoint import CheckpointError
from pyref.tokenizer import Tokenizer

from ..errors import PlgaError
from .gaudit_inputs import read_g_file

DEFAULT_PROMPT_LEN = 16
DEFAULT_PROMPT_SEED = 0
BACKENDS = ("float64", "float32", "mp", "arb")

TOKENS_HELP = """\
Token files hold integer token ids (no tokenizer): either JSON -- a list of ints (one
prompt) or a list of lists of ints (one prompt each) -- or text with one prompt per line,
ids separated by whitespace and/or commas ('#' starts a comment, blank lines are skipped).
Every id must lie in [0, vocab_size); id 0 is [PAD] (masked as a key and as a target)."""


def check_options(opts) -> None:
    """The numeric and choice options of an :class:`~crosscheck.audit.run.AuditOptions`."""
    if opts.backend not in BACKENDS:
        raise PlgaError(f"--backend {opts.backend}: expected float64, float32, mp or arb")
    for name, v, lo in (("--dps", opts.dps, 1), ("--hp-dps", opts.hp_dps, 15),
                        ("--jobs", opts.jobs, 1)):
        if not isinstance(v, int) or v < lo:
            raise PlgaError(f"{name} {v}: expected an integer ≥ {lo}")
    if opts.accuracy is not None:
        if opts.backend != "arb":
            raise PlgaError(f"--accuracy: only with --backend arb (got --backend {opts.backend})")
        if not isinstance(opts.accuracy, int) or not 1 <= opts.accuracy <= MAX_DPS:
            raise PlgaError(f"--accuracy {opts.accuracy}: expected an integer in [1, {MAX_DPS}]")
    if not isinstance(opts.steps, int) or opts.steps < 0:
        raise PlgaError(f"--steps {opts.steps}: expected a non-negative integer")
    if opts.hp_prompts not in ("first", "all"):
        raise PlgaError(f"--hp-prompts {opts.hp_prompts}: expected 'first' or 'all'")
    if opts.hp_heads is not None and (not isinstance(opts.hp_heads, int) or opts.hp_heads < 1):
        raise PlgaError(f"--hp-heads {opts.hp_heads}: expected a positive integer")


def sha256_file(path: Path) -> str:
    """SHA-256 of a file; of a folder (a Hugging Face model), the SHA-256 of the sorted lines
    ``<sha256 of file>  <name>`` of its regular files (as ``sha256sum * | sha256sum``)."""
    path = Path(path)
    if path.is_dir():
        lines = "".join(f"{sha256_file(f)}  {f.name}\n" for f in sorted(path.iterdir())
                        if f.is_file() and not f.name.startswith("."))
        return hashlib.sha256(lines.encode()).hexdigest()
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ============================================================================== checkpoint
def load_checkpoint(path: Path, config_spec: str | None, gcache: Path | None = None,
                    attn_implementation: str | None = None):
    """Load any supported checkpoint with :meth:`pyref.PLDRModel.load` (pyref files, the
    authors' ``.pth``, a Hugging Face folder); with ``gcache`` (a G-list file) the v510Gi
    transplant; ``attn_implementation`` (``"sdpa"``/``"eager"``) picks the HF port's attention
    path for a folder. Returns (model, config, config_source, warnings)."""
    path = Path(path)
    if not path.exists():
        raise PlgaError(f"checkpoint {path}: no such file or folder")
    G = None
    if gcache is not None:
        gl = read_g_file(gcache)
        if gl.A_LM is not None:
            raise PlgaError(f"--gcache {gcache}: a list of [A_LM, G] pairs (the authors' NAB "
                            "G-cache initial values for v510, Gcachelst_init), not a list of "
                            "constant operators G; plga audit-g reports on it")
        G = gl.G
    try:
        model = pyref.PLDRModel.load(path, config=config_spec, G=G)
    except CheckpointError as exc:   # names the file (and the key) itself
        raise PlgaError(str(exc).replace("\n", " ")) from None
    except (KeyError, ValueError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise PlgaError(f"checkpoint {path}: {msg}".replace("\n", " ")) from None
    if attn_implementation is not None:
        if model.semantics.is_v510:
            raise PlgaError(f"--attn-implementation {attn_implementation}: only for a Hugging "
                            f"Face folder (the port's attention paths); {path} runs the v510 "
                            "code's semantics")
        model.semantics = model.semantics.with_attn_implementation(attn_implementation)
    info = model.load_info
    warnings = [n for n in info.get("notes", []) if "differs" in n or "disagree" in n]
    return model, model.config, info["config_source"], warnings


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


def check_prompt_lengths(prompts, cfg, steps, what, steps_option="--steps"):
    for i, p in enumerate(prompts):
        if len(p) + steps > cfg.max_seq_len:
            raise PlgaError(f"{what}: prompt {i} has {len(p)} tokens; with {steps_option} {steps} "
                            f"the sequence reaches {len(p) + steps} > "
                            f"max_seq_len={cfg.max_seq_len} (the RoPE table)")


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
