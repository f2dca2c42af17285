"""``plga audit``: :class:`AuditOptions` and :func:`run_audit`, which validates the inputs,
runs one call per section, and writes the plots, ``audit.md`` and ``audit.json`` into a staging
directory that moves into place only when complete (``audit.json`` last)."""

from __future__ import annotations

import importlib.metadata
import platform
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import pyref
from pyref.backend import to_float64

from ..errors import PlgaError
from . import plots
from .blockseq import blockseq_section
from .gcache import gcache_runs, gcache_section
from .highprec import determinants_section, hp_scope, hp_tasks, perron_section, run_hp_tasks
from .inputs import check_options, check_output_dir, load_checkpoint, load_prompts, sha256_file
from .output import ReportKind, write_report_set
from .render import render_markdown
from .sections import (
    commutant_section,
    dag_section,
    forward_operators,
    order_parameter_section,
    rank_one_section,
)

SCHEMA = "plga-audit/1"
VERSIONED = ("plga-formal", "numpy", "mpmath", "safetensors", "tqdm", "matplotlib")

AGGREGATION = {
    "prompts": "Every prompt is run on its own (batch 1, no padding), because D = Q̂ᵀQ̂ couples "
               "all rows of a call: padding prompts to a common length would change every "
               "operator.",
    "rank_one": "Per (prompt, layer, head) in per_head; by_layer gives mean/min/max over prompts × "
                "heads. Cross-head RMS(X_h − X_0) per (prompt, layer) for h ≥ 1; by_layer "
                "summarizes over prompts × heads.",
    "commutant": "Per (prompt, layer, head); the heatmap and the markdown table show the mean "
                 "over prompts (max over prompts in max_over_prompts).",
    "perron_determinants": "Computed on the prompts and heads in 'scope' (default: the first "
                           "prompt, every layer and head), from the operators of the chosen "
                           "backend at hp_dps digits.",
    "dag": "Per (prompt, layer, head); by_layer: mean/min/max over prompts × heads.",
    "gcache": "Per prompt: --steps greedy steps. The criterion, max d and min margin are per "
              "prompt; the summary takes max d and min margin over prompts, and 'all_sufficient' "
              "requires the criterion for every prompt (on --backend arb it is certified: "
              "decided by rigorous bounds of the balls, null when they do not decide it). ε_G "
              "and max|ΔG| per layer are maxima over steps (and prompts in the summary).",
    "arb": "With --backend arb every statistic except the G-cache criterion is computed from "
           "the balls' midpoints (float64, rounded to nearest); the G-cache criterion and the "
           "Perron/determinant certificates use the enclosures themselves.",
    "block_vs_sequential": "Per prompt (a window): per-token gap = (−log p_seq) − (−log p_block) "
                           "over non-pad targets. The aggregate pools all non-pad targets of all "
                           "prompts (token-weighted), position buckets pool by row index t (row "
                           "t predicts token t+1).",
    "order_parameter": "Prompt i of --tokens is paired with prompt i of --tokens2; per (pair, "
                       "layer, operator) over all heads together ([H, d_k, d_k]); whole_model "
                       "stacks every layer (the SOC paper's model-wide RMSE/|μ₁| is m_first "
                       "there); mean_over_pairs averages over pairs.",
}


CONSTANT_REASON = ("a constant-operator model (v510G/v510Gi, --gcache): it has no A, A_LM, A_P; "
                   "G_LM is the constant operator")


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
    text: list | None = None           # --text prompts (tokenized with `tokenizer`)
    text_file: Path | None = None      # --text-file: one prompt per line
    tokenizer: Path | None = None      # SentencePiece model (default: the HF folder's own)
    gcache: Path | None = None         # a G list: run the constant-operator (v510Gi) model
    attn_implementation: str | None = None   # HF folders: "sdpa" (default) or "eager"
    backend: str = "float64"
    dps: int = 50                      # digits of the mp and arb backends
    accuracy: int | None = None        # arb: digits the logits must carry (dps chosen to match)
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


def versions() -> dict:
    out = {"python": platform.python_version(), "pyref": pyref.__version__}
    for name in VERSIONED:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    out["platform"] = platform.platform()
    return out


class _Sections:
    """Runs one section at a time: its seconds go to ``timing`` and the log; a ValueError
    (pyref refuses to return NaN/inf) or an ArithmeticError (an mp overflow) becomes an
    :class:`AuditFailure`."""

    def __init__(self, timing: dict, log):
        self.timing, self.log = timing, log

    def __call__(self, name, fn, *args, **kw):
        t0 = time.monotonic()
        try:
            with np.errstate(all="ignore"):  # pyref raises on non-finite results; no warning noise
                r = fn(*args, **kw)
        except ValueError as exc:  # pyref refuses to return NaN/inf: a numerical failure
            raise AuditFailure(f"audit failed in section {name!r}: {exc}") from None
        except ArithmeticError as exc:  # e.g. mpmath's OverflowError for a power P of 1e20
            raise AuditFailure(f"audit failed in section {name!r}: {type(exc).__name__}: "
                               f"{exc}") from None
        self.timing[name] = time.monotonic() - t0
        self.log(f"  {name:<22} {self.timing[name]:9.2f} s")
        return r


def _to_f64(ops):
    """Operators as float64 for the statistics (arb: the balls' midpoints, rounded to nearest)."""
    return [[{k: to_float64(v) for k, v in layer.items()} for layer in p] for p in ops]


def _prompt_record(source, prompts):
    return {"source": source, "tokens": prompts, "lengths": [len(p) for p in prompts]}


def _size(path: Path) -> int:
    return (sum(f.stat().st_size for f in path.iterdir() if f.is_file()) if path.is_dir()
            else path.stat().st_size)


def _head(opts, model, ckpt, sha, cfg_source, warnings, prompts, source, prompts2) -> dict:
    """The record's leading fields: what was audited, how, with which versions."""
    cfg, info = model.config, dict(model.load_info or {})
    return {
        "schema": SCHEMA,
        "checkpoint": {"path": str(ckpt), "sha256": sha, "bytes": _size(ckpt),
                       "format": info.pop("format", ckpt.suffix.lstrip(".")),
                       "model": type(model).__name__, "variant": model.variant,
                       "semantics": model.semantics.describe(),
                       "gcache": str(opts.gcache) if opts.gcache else None,
                       **{k: v for k, v in info.items()
                          if k not in ("path", "config_source", "semantics")}},
        "config": {**cfg.to_dict(), "d_k": cfg.d_k, "num_parameters": pyref.num_parameters(cfg)},
        "config_source": cfg_source,
        "backend": opts.backend,
        "dps": opts.dps if opts.backend in ("mp", "arb") else None,
        "accuracy": opts.accuracy,
        "hp_dps": opts.hp_dps,
        "versions": versions(),
        "options": {"steps": opts.steps, "perron": opts.perron,
                    "determinants": opts.determinants, "blockseq": opts.blockseq,
                    "hp_prompts": opts.hp_prompts, "hp_heads": opts.hp_heads,
                    "jobs": opts.jobs, "plots": opts.plots, "blas_threads": opts.threads,
                    "blas_threads_applied": opts.threads_applied},
        "warnings": warnings,
        "prompts": _prompt_record(source, prompts),
        "prompts2": (None if prompts2 is None else
                     _prompt_record(f"--tokens2 {opts.tokens2}", prompts2)),
    }


def _text_record(text, gc) -> dict | None:
    """The texts, their ids and the decoded greedy continuations (cached and uncached) of a
    ``--text`` run; None for token-id prompts."""
    if text is None:
        return None
    tok = text["_tokenizer"]
    rows = []
    for t, r in zip(text["texts"], gc):
        row = {"text": t}
        for k in ("cached_tokens", "uncached_tokens"):
            if r.get(k) is not None:
                row[k.replace("tokens", "text")] = tok.decode(r[k])
        rows.append(row)
    return {"tokenizer": text["tokenizer"], "prompts": rows}


def _high_precision(run, result, opts, ops, L, H, learned=True) -> None:
    """Perron + determinants at high precision (the expensive part; parallel over heads)."""
    if not learned:
        result["perron"] = {"computed": False, "reason": CONSTANT_REASON}
        result["determinants"] = {"computed": False, "reason": CONSTANT_REASON}
        return
    scope = hp_scope(len(ops), L, H, opts.hp_prompts, opts.hp_heads)
    hp = []
    if opts.perron or opts.determinants:
        tasks = hp_tasks(ops, scope, opts.hp_dps, opts.perron, opts.determinants)
        hp = run("perron_determinants", run_hp_tasks, tasks, opts.jobs, opts.progress)
    result["perron"] = (perron_section(hp, scope) if opts.perron
                        else {"computed": False, "reason": "--no-perron"})
    result["determinants"] = (determinants_section(hp, scope) if opts.determinants
                              else {"computed": False, "reason": "--no-det"})


def _working_dps(model, prompts, opts) -> tuple[int, dict]:
    """The digits at which the arb logits of the longest prompt carry ``opts.accuracy``
    digits (:func:`pyref.arb_precision.run_to_accuracy`, starting at ``opts.dps``), and that
    prompt's forward pass at those digits ({index: output}, reused by the forward section);
    the decoding steps' longer sequences lose a little more, covered by its margin or
    stopped by an error naming the digits needed."""
    i = max(range(len(prompts)), key=lambda k: len(prompts[k]))
    out = model.forward(np.array([prompts[i]], dtype=np.int64), backend="arb", dps=opts.dps,
                        accuracy=opts.accuracy)
    return out.backend.dps, {i: out}


def _order_parameter(run, model, prompts2, ops_f, opts, L) -> dict:
    """The order parameter between the run on --tokens and a second run on --tokens2."""
    if prompts2 is None:
        return {"computed": False, "reason": "no --tokens2 given (needs a second run)"}
    ops2 = run("forward2", forward_operators, model, prompts2, opts.backend, opts.dps,
               opts.progress, desc="forward (--tokens2)")
    ops2_f = _to_f64(ops2)
    return run("order_parameter", order_parameter_section, ops_f, ops2_f, L)


# the plot writer is looked up at call time (tests replace it to simulate a full disk)
AUDIT_REPORT = ReportKind("audit", "audit", render_markdown,
                          lambda r, d: plots.write_plots(r, d), plots.PLOT_FILES)


def run_audit(opts: AuditOptions, log=print) -> dict:
    """Run every section and write ``audit.json``, ``audit.md`` and the plots to
    ``opts.out``.  Bad input raises :class:`PlgaError` (exit 2) before any computation;
    a numerical failure raises :class:`AuditFailure` (exit 1); nothing is written then."""
    t_start = time.monotonic()
    timing: dict = {}
    ckpt = Path(opts.checkpoint)
    check_options(opts)
    out_dir = Path(opts.out) if opts.out is not None else Path(f"audit-{ckpt.stem}")

    t = time.monotonic()
    model, cfg, cfg_source, warnings = load_checkpoint(ckpt, opts.config, opts.gcache,
                                                          opts.attn_implementation)
    for w in warnings:
        log(f"warning: {w}")
    prompts, source, prompts2, text = load_prompts(opts, cfg)
    check_output_dir(out_dir)
    sha = sha256_file(ckpt)
    timing["load"] = time.monotonic() - t
    L, H = cfg.num_layers, cfg.num_heads
    log(f"plga audit: {ckpt} (sha256 {sha[:16]}…), L={L}, H={H}, d_k={cfg.d_k}, d={cfg.d_model}, "
        f"V={cfg.vocab_size}; backend {opts.backend}"
        + (f" at {opts.dps} digits" if opts.backend in ("mp", "arb") else "")
        + f"; {len(prompts)} prompt(s) of length {', '.join(str(len(p)) for p in prompts)}")

    run, prog = _Sections(timing, log), opts.progress
    done = None
    if opts.accuracy is not None:
        dps, done = run("precision", _working_dps, model, prompts, opts)
        opts = replace(opts, dps=dps)
        log(f"--accuracy {opts.accuracy}: working precision {opts.dps} digits")
    ops = run("forward", forward_operators, model, prompts, opts.backend, opts.dps, prog,
              done=done)
    ops_f = _to_f64(ops)
    result = _head(opts, model, ckpt, sha, cfg_source, warnings, prompts, source, prompts2)
    learned = model.variant == "plga"
    result["rank_one"] = (run("rank_one", rank_one_section, ops_f, L, H) if learned
                          else {"computed": False, "reason": CONSTANT_REASON})
    result["commutant"] = run("commutant", commutant_section, ops_f, L, H, cfg.rope_base)
    result["dag"] = run("dag", dag_section, ops_f, L, H)
    _high_precision(run, result, opts, ops, L, H, learned)
    gc = run("gcache", gcache_runs, model, prompts, opts.steps, opts.backend, opts.dps, prog)
    result["gcache"] = gcache_section(gc, L)
    result["text"] = _text_record(text, gc)
    result["block_vs_sequential"] = (
        run("block_vs_sequential", blockseq_section, model, prompts, opts.backend, opts.dps, prog)
        if opts.blockseq else {"computed": False, "reason": "--no-blockseq"})
    result["order_parameter"] = _order_parameter(run, model, prompts2, ops_f, opts, L)

    result["timing_s"] = timing
    result["aggregation"] = AGGREGATION
    return write_report_set(result, AUDIT_REPORT, out_dir, opts.plots, log, t_start)
