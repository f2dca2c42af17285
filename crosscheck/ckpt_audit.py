"""``plga audit``: the paper's numerical audit (spec D) of a PLDR-LLM v510 checkpoint,
computed with the reference model :mod:`pyref` at any precision.

Sections (each is a top-level key of ``audit.json`` and a section of ``audit.md``):

* ``rank_one`` -- σ₂/σ₁, numerical rank #{σ > 64·eps_f32·σ₁}, row-variance ratio and the
  cross-head RMS(X_h − X_0) (with its ratio to RMS(X_0)) of ``A`` and ``A_LM`` per layer and
  head (spec D, "Rank-one / singularity statistics"), plus the full singular spectra;
* ``commutant`` -- ρ(G_LM) = ‖G_c − ΠG_c‖_F/‖G_c‖_F in the complex RoPE eigenbasis (spec
  D2) and the commutator residual ‖G R₁ − R₁ G‖_F/‖G‖_F;
* ``perron`` -- Perron root and positive eigenvector of each audited ``A_LM`` at ``hp_dps``
  digits (``pyref.analysis.perron``) with a rigorous interval certificate
  (``crosscheck.certificates.perron_certificate``: Collatz–Wielandt enclosure of the root,
  Hopf's bound on every other eigenvalue, a lower bound on min v/max v);
* ``dag`` -- the DAG value |m + log Σ e^{λ_i − m} − log d_k|, λ = eig(M⊙M), of A_LM, A_P,
  G_LM (spec D, H);
* ``gcache`` -- G-cache fidelity (spec D, G): greedy decoding with KV+G cache vs uncached
  forward passes on the same tokens: per step the max logit deviation d_t, the top-1/top-2
  margins, the sufficient criterion 2·max d < min margin, ε_G(t, l), max|ΔG|, and the
  uncached greedy tokens;
* ``block_vs_sequential`` -- block cross-entropy (one call on win[:−1]) vs sequential NLL
  (one call per prefix) per token, per prompt and pooled, with position buckets (spec D, S1);
* ``order_parameter`` -- RMS(X₁ − X₂), m_rms, m_signed (and the one-sided m_first) between
  the operators of two runs (``--tokens2``), per layer and over the whole model (spec D);
* ``determinants`` -- det A_LM at ``hp_dps`` digits next to its float64 and float32 LAPACK
  values: the "floating-point zero determinant is underflow" point, measured.

Every number goes to ``audit.json`` (atomic write, last); a statistic that is undefined is
``null`` with its reason in the record's ``null_reasons``; NaN/inf never appear.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import mpmath
import numpy as np

import pyref
from pyref import analysis
from pyref.backend import get_backend, to_float64

from .errors import PlgaError
from .fsutil import write_atomic

SCHEMA = "plga-audit/1"
OPERATORS = ("A", "A_LM", "A_P", "G_LM")
PLOT_FILES = ("singular_spectra.png", "commutant_residual.png", "cache_deviation.png",
              "block_seq_gap.png")
DEFAULT_PROMPT_LEN = 16
DEFAULT_PROMPT_SEED = 0
F32_MIN_SUBNORMAL_LOG2 = -149
F64_MIN_SUBNORMAL_LOG2 = -1074
MEAN_CANCEL_RTOL = 1e-12   # order parameter: |mean| below this × RMS counts as 0 (rounding)


class AuditFailure(PlgaError):
    """The audit could not be completed (e.g. the model produced non-finite values):
    exit code 1."""

    exit_code = 1


@dataclass
class AuditOptions:
    checkpoint: Path
    config: str | None = None          # JSON file, "paper", or None (config embedded in the file)
    tokens: Path | None = None
    tokens2: Path | None = None
    backend: str = "float64"
    dps: int = 50                      # digits of the mp backend
    hp_dps: int = 30                   # digits of Perron report and determinants
    out: Path | None = None
    steps: int = 8
    perron: bool = True
    determinants: bool = True
    blockseq: bool = True
    hp_prompts: str = "first"          # "first" or "all"
    hp_heads: int | None = None        # first N heads of each layer (None: all)
    jobs: int = 1
    plots: bool = True
    progress: bool = True
    threads: int | None = None         # BLAS threads requested (recorded only)
    threads_applied: bool = False


# =============================================================================== inputs
def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_config(spec: str) -> tuple[pyref.PLDRConfig, str]:
    """``spec``: ``paper`` / ``paper:ADFF`` (the paper's 110M configuration, spec A.0) or a
    JSON file with the :class:`pyref.PLDRConfig` fields (as written by ``to_json``)."""
    if spec == "paper" or spec.startswith("paper:"):
        try:
            a_dff = int(spec.split(":", 1)[1]) if ":" in spec else 170
            return pyref.PLDRConfig.paper(a_dff=a_dff), f"--config {spec} (spec A.0)"
        except ValueError as exc:
            raise PlgaError(f"--config {spec}: expected 'paper' or 'paper:A_DFF' with an integer A_DFF ({exc})") from None
    p = Path(spec)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlgaError(f"--config {p}: cannot read ({exc.strerror or exc})") from None
    try:
        cfg = pyref.PLDRConfig.from_json(text)
    except (ValueError, TypeError) as exc:
        raise PlgaError(f"--config {p}: not a valid PLDRConfig JSON object "
                        f"(expected keys num_layers, d_model, num_heads, dff, a_dff, num_res_units, "
                        f"num_glu_blocks, vocab_size, max_seq_len[, rope_base, ln_eps, metric_eps]): {exc}") from None
    return cfg, f"--config {p}"


def load_checkpoint(path: Path, config_spec: str | None):
    """Load a v510 checkpoint; returns (model, config, config_source, warnings)."""
    path = Path(path)
    if not path.exists():
        raise PlgaError(f"checkpoint {path}: no such file")
    if not path.is_file():
        raise PlgaError(f"checkpoint {path}: not a regular file")
    if path.suffix not in (".safetensors", ".npz"):
        raise PlgaError(f"checkpoint {path}: expected a '.safetensors' or '.npz' file (v510 state-dict "
                        f"key names as pyref.state_dict_keys), got suffix {path.suffix!r}")
    from pyref.checkpoint import load_arrays
    try:
        arrays, embedded = load_arrays(path)
    except ValueError as exc:
        raise PlgaError(f"checkpoint {path}: {exc}") from None
    except Exception as exc:  # safetensors/zip/OS errors: a corrupt or unreadable file
        raise PlgaError(f"checkpoint {path}: cannot read ({type(exc).__name__}: {exc})".replace("\n", " ")) from None
    warnings = []
    if config_spec is not None:
        cfg, source = load_config(config_spec)
        if embedded is not None and embedded != cfg:
            diff = [k for k in cfg.to_dict() if cfg.to_dict()[k] != embedded.to_dict()[k]]
            warnings.append(f"the checkpoint embeds a different config (fields {diff}); using {source}")
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
    import re
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


TOKENS_HELP = """\
Token files hold integer token ids (no tokenizer): either JSON -- a list of ints (one
prompt) or a list of lists of ints (one prompt each) -- or text with one prompt per line,
ids separated by whitespace and/or commas ('#' starts a comment, blank lines are skipped).
Every id must lie in [0, vocab_size); id 0 is [PAD] (masked as a key and as a target)."""


def _check_id(x, where, V):
    if isinstance(x, bool) or not isinstance(x, int):
        raise PlgaError(f"{where}: expected an integer token id, got {x!r}")
    if not 0 <= x < V:
        raise PlgaError(f"{where}: token id {x} out of range [0, {V}) (vocab_size={V})")
    return x


def read_tokens(path: Path, vocab_size: int, option: str = "--tokens") -> list[list[int]]:
    """Parse a token file (see :data:`TOKENS_HELP`); errors name file, prompt and position."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlgaError(f"{option} {path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PlgaError(f"{option} {path}: not a UTF-8 text/JSON file") from None
    prompts: list[list[int]] = []
    s = text.strip()
    if not s:
        raise PlgaError(f"{option} {path}: the file is empty (expected at least one prompt of token ids)")
    if s[0] in "[{":
        try:
            data = json.loads(s)
        except json.JSONDecodeError as exc:
            raise PlgaError(f"{option} {path}: invalid JSON ({exc})") from None
        if not isinstance(data, list) or not data:
            raise PlgaError(f"{option} {path}: expected a JSON list of ints or a non-empty list of lists of ints")
        if all(isinstance(x, list) for x in data):
            rows = data
        elif not any(isinstance(x, list) for x in data):
            rows = [data]
        else:
            raise PlgaError(f"{option} {path}: mixes ints and lists at the top level; expected a list "
                            "of ints (one prompt) or a list of lists of ints")
        for i, row in enumerate(rows):
            if not row:
                raise PlgaError(f"{option} {path}: prompt {i} is empty")
            prompts.append([_check_id(x, f"{option} {path}: prompt {i}, position {j}", vocab_size)
                            for j, x in enumerate(row)])
    else:
        for ln, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].replace(",", " ").strip()
            if not line:
                continue
            row = []
            for j, w in enumerate(line.split()):
                where = f"{option} {path}: line {ln} (prompt {len(prompts)}), position {j}"
                try:
                    x = int(w, 10)
                except ValueError:
                    raise PlgaError(f"{where}: expected an integer token id, got {w!r}") from None
                row.append(_check_id(x, where, vocab_size))
            prompts.append(row)
        if not prompts:
            raise PlgaError(f"{option} {path}: no prompts (only comments or blank lines)")
    return prompts


def default_prompt(cfg: pyref.PLDRConfig, steps: int) -> list[int]:
    """One reproducible prompt: ids drawn uniformly from [1, V) with numpy seed 0."""
    n = max(2, min(DEFAULT_PROMPT_LEN, cfg.max_seq_len - steps))
    rng = np.random.default_rng(DEFAULT_PROMPT_SEED)
    lo = 1 if cfg.vocab_size > 1 else 0
    return [int(x) for x in rng.integers(lo, cfg.vocab_size, size=n)]


def check_prompt_lengths(prompts, cfg, steps, what):
    for i, p in enumerate(prompts):
        if len(p) + steps > cfg.max_seq_len:
            raise PlgaError(f"{what}: prompt {i} has {len(p)} tokens; with --steps {steps} the sequence "
                            f"reaches {len(p) + steps} > max_seq_len={cfg.max_seq_len} (the RoPE table)")


def check_output_dir(out: Path) -> None:
    """Create ``out`` and make sure a file can be created in it (before any computation)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlgaError(f"--out {out}: cannot create the output directory ({exc.strerror or exc})") from None
    if not out.is_dir():
        raise PlgaError(f"--out {out}: exists and is not a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plga-audit-probe-", dir=out)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise PlgaError(f"--out {out}: the output directory is not writable ({exc.strerror or exc})") from None


# ============================================================================== helpers
def write_output(path: Path, data) -> None:
    """Atomic write (:func:`crosscheck.fsutil.write_atomic`), then the permissions of an
    ordinary new file (0666 & ~umask) instead of mkstemp's 0600: reports are meant to be read."""
    write_atomic(path, data)
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.chmod(path, 0o666 & ~mask)
    except OSError:
        pass


def _rms(x) -> float:
    x = np.asarray(x, dtype=np.float64)
    return float(np.sqrt(np.mean(x * x)))


def _fin(x):
    """float(x) if finite, else None."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def _stat(rec, name, fn, *args):
    """rec[name] = fn(*args) as a float, or None with the reason in rec['null_reasons']."""
    try:
        v = fn(*args)
    except ValueError as exc:
        _null(rec, name, str(exc))
        return
    f = float(v)
    if not math.isfinite(f):
        _null(rec, name, f"non-finite value ({f})")
        return
    rec[name] = f


def _null(rec, name, reason):
    rec[name] = None
    rec.setdefault("null_reasons", {})[name] = reason


def _summ(values):
    """mean/max/min over the non-null values (None when there are none)."""
    v = [x for x in values if x is not None]
    if not v:
        return {"mean": None, "min": None, "max": None, "n": 0}
    return {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v)), "n": len(v)}


def _progress(iterable=None, total=None, desc="", enabled=True):
    from tqdm import tqdm
    # disable=None: off when stderr is not a TTY (the project's convention)
    return tqdm(iterable, total=total, desc=desc, disable=None if enabled else True, leave=False,
                file=sys.stderr, dynamic_ncols=True)


def _mp_str(x, digits):
    return mpmath.nstr(x, digits, min_fixed=-3, max_fixed=5)


def versions() -> dict:
    import importlib.metadata as md
    out = {"python": platform.python_version(), "pyref": pyref.__version__}
    for name in ("plga-formal", "numpy", "mpmath", "safetensors", "tqdm", "matplotlib"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    out["platform"] = platform.platform()
    return out


# ============================================================================ sections
def forward_operators(model, prompts, backend, dps, progress=True, desc="forward"):
    """One uncached forward pass per prompt; per prompt a list over layers of
    {key: backend array [H, d_k, d_k]} for A, A_LM, A_P, G_LM."""
    ops = []
    for p in _progress(prompts, desc=desc, enabled=progress):
        out = model.forward(np.array([p], dtype=np.int64), backend=backend, dps=dps)
        ops.append([{k: d[k][0] for k in OPERATORS} for d in out.deductive])
    return ops


def rank_one_section(ops_f64, L, H):
    res = {}
    for key in ("A", "A_LM"):
        per_head, cross = [], []
        for i, layers in enumerate(ops_f64):
            for l in range(L):
                X = layers[l][key]
                for h in range(H):
                    rec = {"prompt": i, "layer": l, "head": h}
                    sv = np.linalg.svd(X[h], compute_uv=False)
                    rec["singular_values"] = [float(s) for s in sv]
                    _stat(rec, "sigma2_over_sigma1", analysis.singular_ratio, X[h])
                    rec["numerical_rank"] = int(analysis.numerical_rank(X[h]))
                    _stat(rec, "row_variance_ratio", analysis.row_variance_ratio, X[h])
                    per_head.append(rec)
                r0 = _rms(X[0])
                c = {"prompt": i, "layer": l, "rms_head0": r0,
                     "rms_vs_head0": [_rms(X[h] - X[0]) for h in range(1, H)]}
                if r0 > 0:
                    c["ratio_vs_head0"] = [x / r0 for x in c["rms_vs_head0"]]
                else:
                    _null(c, "ratio_vs_head0", "RMS(X_0) = 0")
                cross.append(c)
        by_layer = []
        for l in range(L):
            recs = [r for r in per_head if r["layer"] == l]
            cr = [c for c in cross if c["layer"] == l]
            ratios = [x for c in cr for x in (c.get("ratio_vs_head0") or [])]
            by_layer.append({
                "layer": l,
                "sigma2_over_sigma1": _summ([r["sigma2_over_sigma1"] for r in recs]),
                "numerical_rank": _summ([r["numerical_rank"] for r in recs]),
                "row_variance_ratio": _summ([r["row_variance_ratio"] for r in recs]),
                "cross_head_rms": _summ([x for c in cr for x in c["rms_vs_head0"]]),
                "cross_head_ratio": _summ(ratios),
            })
        res[key] = {"per_head": per_head, "cross_head": cross, "by_layer": by_layer,
                    "heads_rank_one": sum(r["numerical_rank"] == 1 for r in per_head),
                    "heads_total": len(per_head)}
    return res


def commutant_section(ops_f64, L, H, rope_base):
    per_head = []
    for i, layers in enumerate(ops_f64):
        for l in range(L):
            G = layers[l]["G_LM"]
            for h in range(H):
                rec = {"prompt": i, "layer": l, "head": h}
                _stat(rec, "commutant_residual", analysis.commutant_residual, G[h], rope_base)
                _stat(rec, "commutator_residual", analysis.commutator_residual, G[h], rope_base)
                per_head.append(rec)
    mean_m, max_m = [], []
    for l in range(L):
        mr, xr = [], []
        for h in range(H):
            s = _summ([r["commutant_residual"] for r in per_head if r["layer"] == l and r["head"] == h])
            mr.append(s["mean"])
            xr.append(s["max"])
        mean_m.append(mr)
        max_m.append(xr)
    return {"per_head": per_head, "mean_over_prompts": mean_m, "max_over_prompts": max_m,
            "commutator_by_layer": [_summ([r["commutator_residual"] for r in per_head if r["layer"] == l])
                                    for l in range(L)],
            "overall": _summ([r["commutant_residual"] for r in per_head])}


def dag_section(ops_f64, L, H):
    per_head = []
    for i, layers in enumerate(ops_f64):
        for l in range(L):
            for h in range(H):
                rec = {"prompt": i, "layer": l, "head": h}
                for key in ("A_LM", "A_P", "G_LM"):
                    _stat(rec, key, analysis.dag_value, layers[l][key][h])
                per_head.append(rec)
    by_layer = [{"layer": l, **{k: _summ([r[k] for r in per_head if r["layer"] == l])
                                for k in ("A_LM", "A_P", "G_LM")}} for l in range(L)]
    return {"per_head": per_head, "by_layer": by_layer}


# ------------------------------------------------------------ high precision (Perron, det)
def perron_report(A, dps: int) -> dict:
    """Perron root/vector at ``dps`` digits + rigorous certificate for one A_LM head."""
    from .certificates import perron_certificate
    rec: dict = {}
    try:
        p = analysis.perron(A, dps=dps)
    except ValueError as exc:
        for k in ("root", "root_float", "root_enclosure", "gap", "certified"):
            _null(rec, k, str(exc))
        return rec
    with mpmath.workdps(dps):
        vmin, vmax = min(p.vector), max(p.vector)
        rec["root"] = _mp_str(p.root, dps)
        rec["root_float"] = float(p.root)
        rec["residual"] = float(p.residual)
        rec["vector_min"] = float(vmin)          # Σ v = 1
        rec["vector_max"] = float(vmax)
        rec["vector_margin"] = float(vmin / vmax)
    rec["second_modulus"] = _fin(p.second_modulus)
    rec["gap"] = _fin(p.gap)
    rec["ratio"] = _fin(p.ratio)
    try:
        c = perron_certificate(A, v=p.vector, dps=dps)
    except ValueError as exc:
        for k in ("root_enclosure", "certified"):
            _null(rec, k, f"certificate: {exc}")
        return rec
    rec["root_enclosure"] = [c.root_lo, c.root_hi]
    rec["tau"] = _fin(c.tau)
    rec["other_radius"] = _fin(c.other_radius)
    rec["vector_margin_lb"] = _fin(c.vector_ratio_lb)
    rec["certified"] = bool(c.certified)
    if c.certified:
        # the certificate's rigorous relative separation 1 − other_radius/ρ_lo (interval
        # arithmetic; it resolves separations below float64 precision), times ρ_lo, rounded down
        sep = getattr(c, "separation", None)
        if sep is not None and sep > 0:
            rec["certified_separation_lb"] = float(sep)
            rec["certified_gap_lb"] = float(np.nextafter(sep * c.root_lo, -np.inf))
        else:
            rec["certified_gap_lb"] = float(np.nextafter(c.root_lo - c.other_radius, -np.inf))
    else:
        _null(rec, "certified_gap_lb", "inconclusive: " + c.reason)
        rec["certificate_note"] = c.reason
    return rec


def det_report(A, dps: int) -> dict:
    """det A at ``dps`` digits (exact conversion of the entries) vs float64/float32 LAPACK."""
    rec: dict = {}
    dm = analysis.det(A, dps=dps)
    with mpmath.workdps(dps):
        rec["det_mp"] = _mp_str(dm, 20)
        rec["sign"] = 0 if dm == 0 else (1 if dm > 0 else -1)
        if dm != 0:
            l2 = mpmath.log(abs(dm), 2)
            rec["log10_abs_det"] = float(mpmath.log10(abs(dm)))
            rec["below_float32_min_subnormal"] = bool(l2 < F32_MIN_SUBNORMAL_LOG2)
            rec["below_float64_min_subnormal"] = bool(l2 < F64_MIN_SUBNORMAL_LOG2)
        else:
            _null(rec, "log10_abs_det", "the determinant is exactly 0 at this precision")
    for name in ("float64", "float32"):
        with np.errstate(all="ignore"):
            v = float(analysis.det(A, backend=name))
        if math.isfinite(v):
            rec[f"det_{name}"] = v
        else:
            _null(rec, f"det_{name}", f"{name} LAPACK determinant overflowed ({v})")
        rec[f"{name}_zero"] = v == 0.0
        if dm != 0 and math.isfinite(v):
            with mpmath.workdps(dps):
                rec[f"{name}_rel_error"] = float(abs((mpmath.mpf(v) - dm) / dm))
    rec["float32_underflow"] = bool(rec["float32_zero"] and dm != 0)
    return rec


def _hp_task(args):
    i, l, h, A, dps, do_perron, do_det = args
    t0 = time.perf_counter()
    out = {"prompt": i, "layer": l, "head": h}
    if do_perron:
        out["perron"] = perron_report(A, dps)
    if do_det:
        out["det"] = det_report(A, dps)
    out["seconds"] = time.perf_counter() - t0
    return out


def run_hp_tasks(tasks, jobs, progress):
    results = []
    import multiprocessing as mp
    if jobs > 1 and len(tasks) > 1 and "fork" in mp.get_all_start_methods():
        ctx = mp.get_context("fork")   # no re-import of __main__ (python -m crosscheck has no guard)
        with ctx.Pool(min(jobs, len(tasks))) as pool:
            for r in _progress(pool.imap_unordered(_hp_task, tasks, chunksize=1), total=len(tasks),
                               desc="perron/det", enabled=progress):
                results.append(r)
    else:
        for t in _progress(tasks, desc="perron/det", enabled=progress):
            results.append(_hp_task(t))
    results.sort(key=lambda r: (r["prompt"], r["layer"], r["head"]))
    return results


# ---------------------------------------------------------------------------- G-cache
def _top2(row) -> tuple[int, object]:
    """(argmax, top1 − top2) of a 1-D backend array (float or mpf objects)."""
    if row.dtype == object:
        vals = list(row)
        k = max(range(len(vals)), key=lambda j: vals[j])
        rest = vals[:k] + vals[k + 1:]
        return k, (vals[k] - max(rest)) if rest else None
    k = int(np.argmax(row))
    if row.size < 2:
        return k, None
    two = np.partition(row, -2)[-2:]
    return k, two[1] - two[0]


def gcache_fidelity(model, prompt, steps, backend, dps, progress=True, desc="g-cache"):
    """Greedy KV+G-cached decoding vs uncached forward passes on the same tokens (spec D,
    G).  Differences are formed in the backend (so mp deviations below 1e-16 survive) and
    then converted to float."""
    b = get_backend(backend, dps)
    p = np.array([prompt], dtype=np.int64)
    S0 = p.shape[1]
    rec = {"prompt_len": S0, "steps": steps}
    if steps == 0:
        _null(rec, "sufficient", "--steps 0: no decoding steps")
        return rec
    g = model.generate(p, steps, kvcache=True, gcache=True, backend=b, return_operators=True)
    G_prompt = g.step_G[0]
    L = len(G_prompt)
    cached = [int(x) for x in g.tokens[0, S0:]]
    d, m_c, m_u, eps_G, max_dG, unc_arg = [], [], [], [], [], []
    for t in _progress(range(len(g.step_logits)), desc=desc, enabled=progress):
        lc = g.step_logits[t][0]
        out = model.forward(g.tokens[:, :S0 + t], backend=b)
        lu = out.logits[0, -1]
        with b.context():
            d.append(float(np.max(np.abs(to_float64(lc - lu)))))
            _, mc = _top2(lc)
            ku, mu = _top2(lu)
        m_c.append(_fin(mc))
        m_u.append(_fin(mu))
        unc_arg.append(int(ku))
        row_e, row_m = [], []
        for l in range(L):
            Gu = out.deductive[l]["G_LM"][0]
            with b.context():
                diff = to_float64(Gu - G_prompt[l][0])
            ru = _rms(to_float64(Gu))
            row_e.append(_rms(diff) / ru if ru > 0 else 0.0)
            row_m.append(float(np.max(np.abs(diff))))
        eps_G.append(row_e)
        max_dG.append(row_m)
    # uncached greedy tokens: equal to the cached ones up to the first disagreement of the
    # uncached argmax along the cached trajectory; after it, continue uncached greedy decoding
    first_div = next((t for t in range(steps) if unc_arg[t] != cached[t]), None)
    if first_div is None:
        uncached = list(cached)
    else:
        seq = np.concatenate([g.tokens[:, :S0 + first_div], [[unc_arg[first_div]]]], axis=1)
        rest = steps - first_div - 1
        if rest > 0:
            gu = model.generate(seq, rest, kvcache=False, gcache=False, backend=b)
            seq = gu.tokens
        uncached = [int(x) for x in seq[0, S0:]]
    Gf = [to_float64(G[0]) for G in G_prompt]
    margins = [m for m in m_c if m is not None]
    rec.update({
        "cached_tokens": cached, "uncached_tokens": uncached,
        "tokens_identical": cached == uncached, "first_divergence_step": first_div,
        # a generated PAD (id 0) is masked as a key by every later uncached pass but not by the
        # cached decode (mask None, spec B): a deviation that G does not cause
        "pad_generated_at_steps": [t for t, x in enumerate(cached) if x == 0],
        "prompt_pad_positions": [j for j, x in enumerate(prompt) if x == 0],
        "d": d, "margin_cached": m_c, "margin_uncached": m_u,
        "eps_G": eps_G, "max_dG": max_dG,
        "max_d": max(d), "min_margin": min(margins) if margins else None,
        "eps_G_max_by_layer": [max(row[l] for row in eps_G) for l in range(L)],
        "max_dG_by_layer": [max(row[l] for row in max_dG) for l in range(L)],
        "eps_spec": 2.0 ** -24 * max(float(np.sqrt(np.sum(G * G, axis=(-2, -1))).max()) for G in Gf),
    })
    if margins:
        rec["sufficient"] = bool(2 * rec["max_d"] < rec["min_margin"])
    else:
        _null(rec, "sufficient", "no top-2 margin (vocab_size < 2)")
    return rec


# ------------------------------------------------------------------- block vs sequential
BUCKETS = ((0, 1), (1, 4), (4, 16), (16, 64), (64, 256), (256, None))


def block_vs_sequential(model, prompt, backend, dps):
    b = get_backend(backend, dps)
    t = np.array([prompt], dtype=np.int64)
    rec: dict = {"n_tokens": len(prompt)}
    if len(prompt) < 2:
        for k in ("seq_nll_per_token", "block_ce_per_token", "gap_per_token"):
            _null(rec, k, "the prompt has fewer than 2 tokens: no target to score")
        rec["gaps"] = []
        return rec, None
    try:
        blk = pyref.block_cross_entropy(model, t, backend=b)
        seq = pyref.sequential_nll(model, t, backend=b)
    except ValueError as exc:
        if "pad id 0" in str(exc):
            for k in ("seq_nll_per_token", "block_ce_per_token", "gap_per_token"):
                _null(rec, k, str(exc))
            rec["gaps"] = []
            return rec, None
        raise
    with b.context():
        gap = to_float64(blk.token_logprobs - seq.token_logprobs)[0]     # (−seq lp) − (−blk lp)
        total_gap = float(seq.loss - blk.loss)
    mask = np.asarray(blk.mask[0])
    slp, blp = to_float64(seq.token_logprobs)[0], to_float64(blk.token_logprobs)[0]
    g = [float(gap[i]) if mask[i] else None for i in range(len(gap))]
    ag = [abs(x) for x in g if x is not None]
    rec.update({"n_targets": int(mask.sum()), "seq_nll_per_token": float(seq.loss),
                "block_ce_per_token": float(blk.loss), "gap_per_token": total_gap,
                "mean_abs_gap": float(np.mean(ag)), "max_abs_gap": float(np.max(ag)),
                "gaps": g})
    pooled = {"seq_lp": slp[mask], "blk_lp": blp[mask], "gap": gap[mask],
              "pos": np.nonzero(mask)[0]}
    return rec, pooled


def blockseq_aggregate(pooled):
    pooled = [p for p in pooled if p is not None]
    if not pooled:
        return {"n_targets": 0}, []
    slp = np.concatenate([p["seq_lp"] for p in pooled])
    blp = np.concatenate([p["blk_lp"] for p in pooled])
    gap = np.concatenate([p["gap"] for p in pooled])
    pos = np.concatenate([p["pos"] for p in pooled])
    ag = np.abs(gap)
    agg = {"n_targets": int(gap.size), "seq_nll_per_token": float(-slp.mean()),
           "block_ce_per_token": float(-blp.mean()), "gap_per_token": float(gap.mean()),
           "mean_abs_gap": float(ag.mean()), "max_abs_gap": float(ag.max()),
           "abs_gap_quantiles": {q: float(np.quantile(ag, float(q))) for q in ("0.5", "0.9", "0.99")}}
    buckets = []
    for lo, hi in BUCKETS:
        sel = (pos >= lo) & ((pos < hi) if hi is not None else True)
        if not sel.any():
            continue
        buckets.append({"rows": f"{lo}-{hi - 1}" if hi is not None else f"{lo}+", "n": int(sel.sum()),
                        "mean_gap": float(gap[sel].mean()), "mean_abs_gap": float(ag[sel].mean()),
                        "max_abs_gap": float(ag[sel].max())})
    return agg, buckets


# ---------------------------------------------------------------------- order parameter
def order_parameter_section(ops1, ops2, L):
    per, whole = [], []
    for i, (a, b) in enumerate(zip(ops1, ops2)):
        for key in OPERATORS:
            for l in range(L):
                rec = {"pair": i, "layer": l, "operator": key}
                _order_fill(rec, a[l][key], b[l][key])
                per.append(rec)
            rec = {"pair": i, "operator": key}
            _order_fill(rec, np.stack([a[l][key] for l in range(L)]), np.stack([b[l][key] for l in range(L)]))
            whole.append(rec)
    mean = []
    for key in OPERATORS:
        for l in range(L):
            rs = [r for r in per if r["operator"] == key and r["layer"] == l]
            mean.append({"operator": key, "layer": l,
                         **{s: _summ([r[s] for r in rs])["mean"] for s in ("rmse", "m_rms", "m_signed", "m_first")}})
    return {"computed": True, "per_pair": per, "whole_model": whole, "mean_over_pairs": mean}


def _order_fill(rec, X1, X2):
    try:
        op = analysis.order_parameter(X1, X2)
    except ValueError as exc:
        for k in ("rmse", "m_rms", "m_signed", "m_first"):
            _null(rec, k, str(exc))
        return
    a, b = np.asarray(X1, dtype=np.float64), np.asarray(X2, dtype=np.float64)
    mu1, mu2, r1, r2 = float(np.mean(a)), float(np.mean(b)), _rms(a), _rms(b)
    rec.update({"rmse": op.rmse, "mean_1": mu1, "mean_2": mu2, "rms_1": r1, "rms_2": r2})
    if math.isfinite(op.m_rms):
        rec["m_rms"] = op.m_rms
    else:
        _null(rec, "m_rms", "RMS X₁ + RMS X₂ = 0")
    # a mean that is zero up to rounding (e.g. LayerNorm output with β = 0: every row sums to
    # 0) makes the signed normalizations meaningless numbers of size 1/eps: report null
    tol = MEAN_CANCEL_RTOL
    d_sig, d_rms = 0.5 * (abs(mu1) + abs(mu2)), 0.5 * (r1 + r2)
    if op.rmse == 0:
        rec["m_signed"] = rec["m_first"] = 0.0
        return
    if not math.isfinite(op.m_signed) or d_sig <= tol * d_rms:
        _null(rec, "m_signed", f"the means cancel (up to rounding): ½(|mean X₁| + |mean X₂|) = {d_sig:.3g} "
                               f"≤ {tol:g}·½(RMS X₁ + RMS X₂)")
    else:
        rec["m_signed"] = op.m_signed
    if not math.isfinite(op.m_first) or abs(mu1) <= tol * r1:
        _null(rec, "m_first", f"mean X₁ = {mu1:.3g} is zero up to rounding (≤ {tol:g}·RMS X₁)")
    else:
        rec["m_first"] = op.m_first


# ============================================================================ the audit
def _sanitize(obj, path="$", bad=None):
    """JSON-ready copy: numpy → Python, non-finite floats → None (recorded in ``bad``)."""
    if isinstance(obj, dict):
        return {str(k): _sanitize(v, f"{path}.{k}", bad) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_sanitize(v, f"{path}[{i}]", bad) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return _sanitize(obj.tolist(), path, bad)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        if not math.isfinite(f):
            if bad is not None:
                bad.append(path)
            return None
        return f
    if isinstance(obj, mpmath.mpf):
        return _sanitize(float(obj), path, bad)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def run_audit(opts: AuditOptions, log=print) -> dict:
    """Run every section and write ``audit.json``, ``audit.md`` and the plots to
    ``opts.out``.  Bad input raises :class:`PlgaError` (exit 2) before any computation;
    a numerical failure raises :class:`AuditFailure` (exit 1); nothing is written then."""
    t_start = time.monotonic()
    timing: dict = {}
    ckpt = Path(opts.checkpoint)
    if opts.backend not in ("float64", "float32", "mp"):
        raise PlgaError(f"--backend {opts.backend}: expected float64, float32 or mp")
    for name, v, lo in (("--dps", opts.dps, 1), ("--hp-dps", opts.hp_dps, 15), ("--jobs", opts.jobs, 1)):
        if not isinstance(v, int) or v < lo:
            raise PlgaError(f"{name} {v}: expected an integer ≥ {lo}")
    if not isinstance(opts.steps, int) or opts.steps < 0:
        raise PlgaError(f"--steps {opts.steps}: expected a non-negative integer")
    if opts.hp_prompts not in ("first", "all"):
        raise PlgaError(f"--hp-prompts {opts.hp_prompts}: expected 'first' or 'all'")
    if opts.hp_heads is not None and (not isinstance(opts.hp_heads, int) or opts.hp_heads < 1):
        raise PlgaError(f"--hp-heads {opts.hp_heads}: expected a positive integer")
    out_dir = Path(opts.out) if opts.out is not None else Path(f"audit-{ckpt.stem}")

    t = time.monotonic()
    model, cfg, cfg_source, warnings = load_checkpoint(ckpt, opts.config)
    for w in warnings:
        log(f"warning: {w}")
    if opts.tokens is not None:
        prompts = read_tokens(Path(opts.tokens), cfg.vocab_size, "--tokens")
        prompts_source = f"--tokens {opts.tokens}"
    else:
        prompts = [default_prompt(cfg, opts.steps)]
        prompts_source = (f"default: one prompt of {len(prompts[0])} ids drawn uniformly from [1, V) "
                          f"with numpy seed {DEFAULT_PROMPT_SEED}")
    check_prompt_lengths(prompts, cfg, opts.steps, prompts_source.split(":")[0])
    prompts2 = None
    if opts.tokens2 is not None:
        prompts2 = read_tokens(Path(opts.tokens2), cfg.vocab_size, "--tokens2")
        check_prompt_lengths(prompts2, cfg, 0, f"--tokens2 {opts.tokens2}")
        if len(prompts2) != len(prompts):
            raise PlgaError(f"--tokens2 {opts.tokens2}: {len(prompts2)} prompt(s), but the first run has "
                            f"{len(prompts)} ({prompts_source}); the order parameter pairs prompt i with prompt i")
    check_output_dir(out_dir)
    sha = sha256_file(ckpt)
    timing["load"] = time.monotonic() - t
    L, H = cfg.num_layers, cfg.num_heads
    log(f"plga audit: {ckpt} (sha256 {sha[:16]}…), L={L}, H={H}, d_k={cfg.d_k}, d={cfg.d_model}, "
        f"V={cfg.vocab_size}; backend {opts.backend}"
        + (f" at {opts.dps} digits" if opts.backend == "mp" else "")
        + f"; {len(prompts)} prompt(s) of length {', '.join(str(len(p)) for p in prompts)}")

    def section(name, fn):
        t0 = time.monotonic()
        try:
            with np.errstate(all="ignore"):  # pyref raises on non-finite results; no warning noise
                r = fn()
        except ValueError as exc:  # pyref refuses to return NaN/inf: a numerical failure
            raise AuditFailure(f"audit failed in section {name!r}: {exc}") from None
        timing[name] = time.monotonic() - t0
        log(f"  {name:<22} {timing[name]:9.2f} s")
        return r

    prog = opts.progress
    ops = section("forward", lambda: forward_operators(model, prompts, opts.backend, opts.dps, prog))
    ops_f = [[{k: to_float64(v) for k, v in layer.items()} for layer in p] for p in ops]
    result: dict = {
        "schema": SCHEMA,
        "checkpoint": {"path": str(ckpt), "sha256": sha, "bytes": ckpt.stat().st_size,
                       "format": ckpt.suffix.lstrip(".")},
        "config": {**cfg.to_dict(), "d_k": cfg.d_k, "num_parameters": cfg.num_parameters()},
        "config_source": cfg_source,
        "backend": opts.backend,
        "dps": opts.dps if opts.backend == "mp" else None,
        "hp_dps": opts.hp_dps,
        "versions": versions(),
        "options": {"steps": opts.steps, "perron": opts.perron, "determinants": opts.determinants,
                    "blockseq": opts.blockseq, "hp_prompts": opts.hp_prompts, "hp_heads": opts.hp_heads,
                    "jobs": opts.jobs, "plots": opts.plots, "blas_threads": opts.threads,
                    "blas_threads_applied": opts.threads_applied},
        "warnings": warnings,
        "prompts": {"source": prompts_source, "tokens": prompts, "lengths": [len(p) for p in prompts]},
        "prompts2": (None if prompts2 is None else
                     {"source": f"--tokens2 {opts.tokens2}", "tokens": prompts2,
                      "lengths": [len(p) for p in prompts2]}),
    }
    result["rank_one"] = section("rank_one", lambda: rank_one_section(ops_f, L, H))
    result["commutant"] = section("commutant", lambda: commutant_section(ops_f, L, H, cfg.rope_base))
    result["dag"] = section("dag", lambda: dag_section(ops_f, L, H))

    # Perron + determinants at high precision (the expensive part; parallel over heads)
    hp_idx = range(len(prompts)) if opts.hp_prompts == "all" else range(1)
    hp_heads = range(min(H, opts.hp_heads or H))
    if opts.perron or opts.determinants:
        tasks = [(i, l, h, ops[i][l]["A_LM"][h], opts.hp_dps, opts.perron, opts.determinants)
                 for i in hp_idx for l in range(L) for h in hp_heads]
        hp = section("perron_determinants", lambda: run_hp_tasks(tasks, opts.jobs, prog))
    else:
        hp = []
    scope = {"prompts": list(hp_idx), "heads": list(hp_heads), "layers": list(range(L))}
    if opts.perron:
        per = [{"prompt": r["prompt"], "layer": r["layer"], "head": r["head"], **r["perron"]} for r in hp]
        cert = [r for r in per if r.get("certified") is True]
        result["perron"] = {"computed": True, "scope": scope, "per_head": per,
                            "certified": len(cert), "inconclusive": len(per) - len(cert),
                            "seconds_per_head": _summ([r["seconds"] for r in hp])}
    else:
        result["perron"] = {"computed": False, "reason": "--no-perron"}
    if opts.determinants:
        det = [{"prompt": r["prompt"], "layer": r["layer"], "head": r["head"], **r["det"]} for r in hp]
        result["determinants"] = {
            "computed": True, "scope": scope, "per_head": det,
            "float32_zero": sum(r["float32_zero"] for r in det),
            "float32_underflow": sum(r["float32_underflow"] for r in det),
            "float64_zero": sum(r["float64_zero"] for r in det),
            "mp_zero": sum(r["sign"] == 0 for r in det), "total": len(det),
            "log10_abs_det": _summ([r.get("log10_abs_det") for r in det])}
    else:
        result["determinants"] = {"computed": False, "reason": "--no-det"}

    def _gc():
        recs = []
        for i, p in enumerate(prompts):
            r = gcache_fidelity(model, p, opts.steps, opts.backend, opts.dps, prog,
                                desc=f"g-cache prompt {i}")
            recs.append({"prompt": i, **r})
        return recs
    gc = section("gcache", _gc)
    done = [r for r in gc if r.get("d")]
    result["gcache"] = {"per_prompt": gc, "summary": {
        "max_d": max((r["max_d"] for r in done), default=None),
        "min_margin": min((r["min_margin"] for r in done if r["min_margin"] is not None), default=None),
        "all_sufficient": all(r.get("sufficient") is True for r in done) if done else None,
        "all_tokens_identical": all(r["tokens_identical"] for r in done) if done else None,
        "eps_G_max_by_layer": ([max(r["eps_G_max_by_layer"][l] for r in done) for l in range(L)]
                               if done else None),
        "max_dG_by_layer": ([max(r["max_dG_by_layer"][l] for r in done) for l in range(L)]
                            if done else None)}}

    if opts.blockseq:
        def _bs():
            recs, pooled = [], []
            for i, p in enumerate(_progress(prompts, desc="block/sequential", enabled=prog)):
                r, pl = block_vs_sequential(model, p, opts.backend, opts.dps)
                recs.append({"prompt": i, **r})
                pooled.append(pl)
            agg, buckets = blockseq_aggregate(pooled)
            return {"computed": True, "per_prompt": recs, "aggregate": agg, "position_buckets": buckets}
        result["block_vs_sequential"] = section("block_vs_sequential", _bs)
    else:
        result["block_vs_sequential"] = {"computed": False, "reason": "--no-blockseq"}

    if prompts2 is not None:
        ops2 = section("forward2", lambda: forward_operators(model, prompts2, opts.backend, opts.dps, prog,
                                                              desc="forward (--tokens2)"))
        ops2_f = [[{k: to_float64(v) for k, v in layer.items()} for layer in p] for p in ops2]
        result["order_parameter"] = section("order_parameter", lambda: order_parameter_section(ops_f, ops2_f, L))
    else:
        result["order_parameter"] = {"computed": False, "reason": "no --tokens2 given (needs a second run)"}

    # plots (optional extra), then audit.md, then audit.json last (its presence = complete)
    t0 = time.monotonic()
    plots = {"written": [], "skipped_reason": None}
    if not opts.plots:
        plots["skipped_reason"] = "--no-plots"
    else:
        try:
            from . import ckpt_plots
            ckpt_plots.require()
        except ImportError as exc:
            plots["skipped_reason"] = (f"matplotlib is not installed ({exc}); "
                                       "install the optional extra: pip install 'plga-formal[plot]'")
        if plots["skipped_reason"] is None:
            plots["written"] = ckpt_plots.write_plots(_sanitize(result), out_dir)
    if plots["skipped_reason"] is not None:
        for f in PLOT_FILES:  # no stale plots from an earlier run next to this audit.json
            try:
                (out_dir / f).unlink()
            except FileNotFoundError:
                pass
            except OSError:
                pass
        log(f"plots skipped: {plots['skipped_reason']}")
    result["plots"] = plots
    timing["plots"] = time.monotonic() - t0
    timing["total"] = time.monotonic() - t_start
    result["timing_s"] = timing
    result["aggregation"] = AGGREGATION
    bad: list = []
    clean = _sanitize(result, bad=bad)
    clean["nonfinite_replaced"] = bad
    text = json.dumps(clean, indent=1, allow_nan=False) + "\n"
    write_output(out_dir / "audit.md", render_markdown(clean))
    write_output(out_dir / "audit.json", text)
    log(f"plga audit: wrote {out_dir / 'audit.json'}, {out_dir / 'audit.md'}"
        + (f" and {len(plots['written'])} plot(s)" if plots["written"] else "")
        + f" in {timing['total']:.1f} s")
    return clean


AGGREGATION = {
    "prompts": "Every prompt is run on its own (batch 1, no padding), because D = Q̂ᵀQ̂ couples all rows "
               "of a call: padding prompts to a common length would change every operator.",
    "rank_one": "Per (prompt, layer, head) in per_head; by_layer gives mean/min/max over prompts × heads. "
                "Cross-head RMS(X_h − X_0) per (prompt, layer) for h ≥ 1; by_layer summarizes over prompts × heads.",
    "commutant": "Per (prompt, layer, head); the heatmap and the markdown table show the mean over prompts "
                 "(max over prompts in max_over_prompts).",
    "perron_determinants": "Computed on the prompts and heads in 'scope' (default: the first prompt, every "
                           "layer and head), from the operators of the chosen backend at hp_dps digits.",
    "dag": "Per (prompt, layer, head); by_layer: mean/min/max over prompts × heads.",
    "gcache": "Per prompt: --steps greedy steps. The criterion, max d and min margin are per prompt; the "
              "summary takes max d and min margin over prompts, and 'all_sufficient' requires the criterion "
              "for every prompt. ε_G and max|ΔG| per layer are maxima over steps (and prompts in the summary).",
    "block_vs_sequential": "Per prompt (a window): per-token gap = (−log p_seq) − (−log p_block) over non-pad "
                           "targets. The aggregate pools all non-pad targets of all prompts (token-weighted), "
                           "position buckets pool by row index t (row t predicts token t+1).",
    "order_parameter": "Prompt i of --tokens is paired with prompt i of --tokens2; per (pair, layer, operator) "
                       "over all heads together ([H, d_k, d_k]); whole_model stacks every layer (the SOC "
                       "paper's model-wide RMSE/|μ₁| is m_first there); mean_over_pairs averages over pairs.",
}


# ============================================================================== markdown
def _f(x, fmt=".3g"):
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    return format(x, fmt)


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(header, rows):
    out = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def render_markdown(r: dict) -> str:
    c = r["config"]
    L, H = c["num_layers"], c["num_heads"]
    md = ["# PLGA checkpoint audit", ""]
    t = r["timing_s"]
    v = r["versions"]
    md.append(_table(["field", "value"], [
        ["checkpoint", f"`{r['checkpoint']['path']}` ({r['checkpoint']['bytes']} bytes)"],
        ["SHA-256", f"`{r['checkpoint']['sha256']}`"],
        ["config", f"L={L}, d={c['d_model']}, H={H}, d_k={c['d_k']}, dff={c['dff']}, A_dff={c['a_dff']}, "
                   f"N_res={c['num_res_units']}×{c['num_glu_blocks']}, V={c['vocab_size']}, "
                   f"max_seq_len={c['max_seq_len']}, Θ={c['rope_base']:g} ({c['num_parameters']:,} parameters; "
                   f"{r['config_source']})"],
        ["backend", r["backend"] + (f" at {r['dps']} digits" if r["dps"] else "")
         + f"; Perron/determinants at {r['hp_dps']} digits"],
        ["prompts", f"{len(r['prompts']['tokens'])} ({r['prompts']['source']}), lengths "
                    f"{', '.join(map(str, r['prompts']['lengths']))}"],
        ["second run", r["prompts2"]["source"] if r["prompts2"] else "—"],
        ["greedy steps", r["options"]["steps"]],
        ["versions", ", ".join(f"{k} {val}" for k, val in v.items() if k != "platform" and val)],
        ["time", f"{t['total']:.1f} s total; " + ", ".join(f"{k} {val:.1f} s" for k, val in t.items()
                                                            if k not in ("total",))],
    ]))
    if r["warnings"]:
        md += ["", "**Warnings:** " + "; ".join(r["warnings"])]
    md += ["", "## What was aggregated and how", ""]
    md += [f"- **{k}**: {val}" for k, val in r["aggregation"].items()]
    md += ["- A `—` marks a statistic that is undefined (null in audit.json, with its reason in the "
           "record's `null_reasons`)."]

    # 1 rank one
    md += ["", "## 1. Rank-one statistics of A and A_LM (spec D, rank-one / singularity statistics)", "",
           "σ₂/σ₁ from float64 singular values; numerical rank = #{σ > 64·eps_f32·σ₁}; row-variance "
           "ratio = mean((X − 𝟙x̄ᵀ)²)/mean((X − mean X)²) (0 for identical rows); cross-head ratio = "
           "RMS(X_h − X_0)/RMS(X_0), h ≥ 1. Mean (max) over prompts × heads.", ""]
    rows = []
    for key in ("A", "A_LM"):
        for bl in r["rank_one"][key]["by_layer"]:
            s, nr, rv, ch = (bl["sigma2_over_sigma1"], bl["numerical_rank"], bl["row_variance_ratio"],
                             bl["cross_head_ratio"])
            rows.append([bl["layer"], key, f"{_f(s['mean'])} ({_f(s['max'])})",
                         f"{_f(nr['min'], '.0f')}–{_f(nr['max'], '.0f')}",
                         f"{_f(rv['mean'])} ({_f(rv['max'])})" + (f" [{H * len(r['prompts']['tokens']) - rv['n']} undefined]"
                                                                 if rv["n"] < H * len(r["prompts"]["tokens"]) else ""),
                         f"{_f(ch['mean'])} ({_f(ch['max'])})"])
    md.append(_table(["layer", "op", "σ₂/σ₁ mean (max)", "num. rank min–max", "row-var ratio mean (max)",
                      "cross-head RMS ratio mean (max)"], rows))
    md += ["", "Heads with numerical rank 1: " + ", ".join(
        f"{k} {r['rank_one'][k]['heads_rank_one']}/{r['rank_one'][k]['heads_total']}" for k in ("A", "A_LM")) + "."]

    # 2 commutant
    cm = r["commutant"]
    md += ["", "## 2. RoPE commutant residual of G_LM (spec D2) and commutator residual", "",
           "ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F in the complex RoPE eigenbasis (0 iff G commutes with every "
           "rotation R_p; 1 for no commutant component). Mean over prompts, layer × head:", ""]
    rows = [[l] + [_f(x) for x in cm["mean_over_prompts"][l]] for l in range(L)]
    md.append(_table(["layer"] + [f"h{h}" for h in range(H)], rows))
    md += ["", "Commutator residual max_p ‖G R_p − R_p G‖_F/‖G‖_F (p = 1), per layer mean (max): "
           + "; ".join(f"L{l} {_f(s['mean'])} ({_f(s['max'])})" for l, s in enumerate(cm["commutator_by_layer"]))
           + f". Overall ρ: mean {_f(cm['overall']['mean'])}, min {_f(cm['overall']['min'])}, "
             f"max {_f(cm['overall']['max'])}."]

    # 3 perron
    pe = r["perron"]
    md += ["", "## 3. Perron–Frobenius report for A_LM (Thm 3.8; interval certificate)", ""]
    if not pe["computed"]:
        md.append(f"Not computed: {pe['reason']}.")
    else:
        sc = pe["scope"]
        md += [f"Scope: prompt(s) {sc['prompts']}, every layer, heads {sc['heads'][0]}–{sc['heads'][-1]}; "
               f"{r['hp_dps']} digits. **{pe['certified']} of {pe['certified'] + pe['inconclusive']} certified**, "
               f"{pe['inconclusive']} inconclusive. Root: shifted inverse iteration at {r['hp_dps']} digits; "
               "enclosure: rigorous Collatz–Wielandt bounds (interval arithmetic); every other eigenvalue "
               "lies in |λ| ≤ τ·ρ_hi (Hopf); certified means τ·ρ_hi < ρ_lo, i.e. ρ is simple and strictly "
               "dominant. Eigenvector margin = min v/max v (rigorous lower bound min a/max a). gap = ρ − |λ₂| "
               "(|λ₂| from a float64 eigen-decomposition); certified gap ≥ ρ_lo − τ·ρ_hi (from the certificate's "
               "rigorous relative separation). An inconclusive "
               "certificate is not a counterexample: A_LM entries near ε = 1e-9 make τ ≈ 1.", ""]
        rows = []
        for x in pe["per_head"]:
            enc = x.get("root_enclosure")
            rows.append([x["prompt"], x["layer"], x["head"],
                         (x.get("root") or "—")[:22],
                         f"[{enc[0]:.15g}, {enc[1]:.15g}]" if enc else "—",
                         _f(x.get("gap")), _f(x.get("ratio")), _f(x.get("vector_margin")),
                         _f(x.get("vector_margin_lb")), _f(x.get("tau"), ".9g"),
                         _f(x.get("certified")), _f(x.get("certified_gap_lb"))])
        md.append(_table(["prompt", "layer", "head", "Perron root", "rigorous enclosure", "gap", "|λ₂|/ρ",
                          "v margin", "margin lb", "τ", "certified", "certified gap ≥"], rows))

    # 4 DAG
    md += ["", "## 4. DAG value (spec D, H)", "",
           "|m + log Σ_i e^{λ_i − m} − log d_k| with λ = eig(M⊙M), m = max Re λ (= |log(tr expm(M⊙M)/d_k)|); "
           "mean (max) over prompts × heads.", ""]
    rows = [[bl["layer"]] + [f"{_f(bl[k]['mean'])} ({_f(bl[k]['max'])})" for k in ("A_LM", "A_P", "G_LM")]
            for bl in r["dag"]["by_layer"]]
    md.append(_table(["layer", "A_LM", "A_P", "G_LM"], rows))

    # 5 g-cache
    g = r["gcache"]
    md += ["", "## 5. G-cache fidelity: KV+G-cached vs uncached greedy decoding (spec D, G; spec B)", "",
           "d_t = max|ℓ_cached − ℓ_uncached| of the step's last-row logits (the uncached pass re-runs the "
           "whole sequence); margin = top1 − top2 of the cached logits; the sufficient criterion "
           "2·max d < min margin guarantees identical greedy tokens. ε_G(t, l) = RMS(G_uncached(t) − "
           "G_prompt)/RMS(G_uncached(t)). d_t, margins and ε_G are measured along the cached trajectory; "
           "the uncached tokens are the uncached greedy decoding, which follows its own trajectory after the "
           "first divergence.", ""]
    rows = []
    for x in g["per_prompt"]:
        if not x.get("d"):
            rows.append([x["prompt"], x["steps"]] + ["—"] * 6)
            continue
        rows.append([x["prompt"], x["steps"], _f(x["max_d"]), _f(x["min_margin"]), _f(x.get("sufficient")),
                     _f(x["tokens_identical"]), _f(x["first_divergence_step"]),
                     _f(max(x["eps_G_max_by_layer"]))])
    md.append(_table(["prompt", "steps", "max d", "min margin", "2·max d < min margin", "tokens identical",
                      "first divergence", "max ε_G"], rows))
    pads = [(x["prompt"], x.get("prompt_pad_positions"), x.get("pad_generated_at_steps"))
            for x in g["per_prompt"] if x.get("pad_generated_at_steps") or x.get("prompt_pad_positions")]
    if pads:
        md += ["", "Note: PAD ids (0) occur (prompt: positions in the prompt / generated at steps) "
               + "; ".join(f"{i}: {a} / {b}" for i, a, b in pads) + ". Every uncached pass masks such a "
               "position as a key while a cached decode step applies no mask (spec B), so d_t there includes "
               "a deviation that the operator G does not cause."]
    s = g["summary"]
    if s["eps_G_max_by_layer"] is not None:
        md += ["", _table(["layer", "ε_G max", "max|ΔG|"],
                          [[l, _f(s["eps_G_max_by_layer"][l]), _f(s["max_dG_by_layer"][l])] for l in range(L)])]
        md += ["", f"All prompts satisfy the criterion: {_f(s['all_sufficient'])}; cached and uncached tokens "
                   f"identical for all prompts: {_f(s['all_tokens_identical'])}."]
        per_step = [[x["prompt"], t, _f(x["d"][t]), _f(x["margin_cached"][t]), _f(x["margin_uncached"][t]),
                     x["cached_tokens"][t], x["uncached_tokens"][t], _f(max(x["eps_G"][t]))]
                    for x in g["per_prompt"] if x.get("d") for t in range(len(x["d"]))]
        if len(per_step) <= 200:
            md += ["", "Per step:", "", _table(["prompt", "step", "d_t", "margin (cached)", "margin (uncached)",
                                                 "cached token", "uncached token", "max_l ε_G"], per_step)]

    # 6 block vs sequential
    bs = r["block_vs_sequential"]
    md += ["", "## 6. Block cross-entropy vs sequential NLL (spec D, S1; spec C and G.7)", ""]
    if not bs["computed"]:
        md.append(f"Not computed: {bs['reason']}.")
    else:
        md += ["Block: one call on win[:−1], row t scores win[t+1]; sequential: one call per prefix win[:t+1], "
               "final row. gap = seq NLL − block CE (per token, nats). D = Q̂ᵀQ̂ is non-causal, so block rows "
               "see later tokens through G: the gap measures that.", ""]
        rows = [[x["prompt"], x.get("n_targets", 0), _f(x["seq_nll_per_token"], ".6g"),
                 _f(x["block_ce_per_token"], ".6g"), _f(x["gap_per_token"]), _f(x.get("mean_abs_gap")),
                 _f(x.get("max_abs_gap"))] for x in bs["per_prompt"]]
        a = bs["aggregate"]
        if a.get("n_targets"):
            rows.append(["**pooled**", a["n_targets"], _f(a["seq_nll_per_token"], ".6g"),
                         _f(a["block_ce_per_token"], ".6g"), _f(a["gap_per_token"]), _f(a["mean_abs_gap"]),
                         _f(a["max_abs_gap"])])
        md.append(_table(["prompt", "targets", "seq NLL/token", "block CE/token", "gap/token", "mean |gap|",
                          "max |gap|"], rows))
        if bs["position_buckets"]:
            md += ["", "By position (row t, pooled):", "",
                   _table(["rows", "n", "mean gap", "mean |gap|", "max |gap|"],
                          [[b["rows"], b["n"], _f(b["mean_gap"]), _f(b["mean_abs_gap"]), _f(b["max_abs_gap"])]
                           for b in bs["position_buckets"]])]

    # 7 order parameter
    op = r["order_parameter"]
    md += ["", "## 7. Order parameter between two runs (spec D)", ""]
    if not op["computed"]:
        md.append(f"Not computed: {op['reason']}.")
    else:
        md += ["num = RMS(X₁ − X₂) over all heads of a layer; m_rms = num/(½(RMS X₁ + RMS X₂)); m_signed = "
               "num/(½(|mean X₁| + |mean X₂|)) (the MF audit's symmetrized statistics; not the SOC paper's "
               "one-sided RMSE/|μ₁|, reported as m_first). Mean over prompt pairs:", ""]
        rows = [[x["layer"], x["operator"], _f(x["rmse"]), _f(x["m_rms"]), _f(x["m_signed"]), _f(x["m_first"])]
                for x in op["mean_over_pairs"]]
        md.append(_table(["layer", "X", "RMS(X₁−X₂)", "m_rms", "m_signed", "m_first"], rows))
        md += ["", "Whole model (all layers stacked), per pair:", "",
               _table(["pair", "X", "RMS(X₁−X₂)", "m_rms", "m_signed", "m_first (SOC)"],
                      [[x["pair"], x["operator"], _f(x["rmse"]), _f(x["m_rms"]), _f(x["m_signed"]),
                        _f(x["m_first"])] for x in op["whole_model"]])]

    # 8 determinants
    de = r["determinants"]
    md += ["", "## 8. Determinants of A_LM: high precision vs float32/float64", ""]
    if not de["computed"]:
        md.append(f"Not computed: {de['reason']}.")
    else:
        md += [f"det at {r['hp_dps']} digits (exact conversion of the operator's entries) next to LAPACK in "
               "float64 and float32 (entries rounded to float32 first). "
               f"**float32 gives 0 for {de['float32_zero']} of {de['total']}** "
               f"({de['float32_underflow']} of them are underflow: the high-precision determinant is not 0); "
               f"float64 gives 0 for {de['float64_zero']}; high precision gives exactly 0 for {de['mp_zero']}. "
               f"log₁₀|det|: min {_f(de['log10_abs_det']['min'], '.1f')}, max {_f(de['log10_abs_det']['max'], '.1f')} "
               "(float32's smallest subnormal is 1.4e-45, float64's 4.9e-324).", ""]
        rows = [[x["prompt"], x["layer"], x["head"], x["det_mp"], _f(x.get("log10_abs_det"), ".2f"),
                 _f(x.get("det_float64")), _f(x.get("det_float32")), _f(x["float32_underflow"])]
                for x in de["per_head"]]
        md.append(_table(["prompt", "layer", "head", f"det ({r['hp_dps']} digits)", "log₁₀|det|", "float64",
                          "float32", "float32 underflow"], rows))

    md += ["", "## Plots", ""]
    pl = r["plots"]
    if pl["skipped_reason"]:
        md.append(f"Skipped: {pl['skipped_reason']}.")
    else:
        md += [f"![{p}]({p})" for p in pl["written"]]
    if r.get("nonfinite_replaced"):
        md += ["", f"Non-finite values replaced by null: {', '.join(r['nonfinite_replaced'][:20])}"]
    return "\n".join(md) + "\n"
