"""The ``plga`` commands that run a model on a checkpoint: ``plga audit`` (the paper's
numerical audit), ``plga audit-g`` (a list of constant operators G) and ``plga generate``
(greedy text/token continuation). Their parsers and the shared argument types live here;
:mod:`crosscheck.cli` dispatches. Modules that load numpy are imported inside the commands,
after the arguments are parsed (``--threads`` must set the BLAS variables first)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v



def apply_blas_threads(threads: int | None) -> bool:
    """Fix the BLAS thread count through the environment; possible only while numpy is not
    loaded yet.  Returns whether it was applied."""
    if threads is None or "numpy" in sys.modules:
        return False
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    return True


def cmd_audit(args) -> int:
    threads_applied = apply_blas_threads(args.threads)
    from .audit.run import AuditOptions, run_audit  # loads numpy: after the BLAS variables
    opts = AuditOptions(
        checkpoint=Path(args.checkpoint), config=args.config,
        tokens=Path(args.tokens) if args.tokens else None,
        tokens2=Path(args.tokens2) if args.tokens2 else None,
        text=args.text, text_file=Path(args.text_file) if args.text_file else None,
        tokenizer=Path(args.tokenizer) if args.tokenizer else None,
        gcache=Path(args.gcache) if args.gcache else None,
        attn_implementation=args.attn_implementation,
        backend=args.backend, dps=args.dps, accuracy=args.accuracy, hp_dps=args.hp_dps,
        out=Path(args.out) if args.out else None, steps=args.steps,
        perron=not args.no_perron, determinants=not args.no_det, blockseq=not args.no_blockseq,
        hp_prompts=args.hp_prompts, hp_heads=args.hp_heads, jobs=args.jobs,
        plots=not args.no_plots, progress=not args.quiet,
        threads=args.threads, threads_applied=threads_applied)
    run_audit(opts)
    return 0


CHECKPOINT_HELP = ("the model: a .safetensors/.npz file (pyref or any v510 state dict), the "
                   "authors' .pth/.pt (torch.save; read without torch, no pickle code runs) or "
                   "a Hugging Face port folder (config.json + model.safetensors)")
CONFIG_HELP = ("what the tensor shapes do not tell (max_seq_len, RoPE base, epsilons) when the "
               "checkpoint carries no config: 'paper' / 'paper:A_DFF', a JSON file (all or some "
               "PLDRConfig fields), or the authors' hyperparameter .py file (hpdict, read "
               "without running it); every size must agree with the shapes")

AUDIT_DESCRIPTION = """\
The paper's numerical audit (PLGA_SPEC.md section D) of a v510 checkpoint, computed
with pyref: rank-one statistics of A and A_LM, RoPE commutant/commutator residuals of
G_LM, a certified Perron-Frobenius report and high-precision determinants of A_LM, DAG
values, G-cache fidelity of greedy decoding, block CE vs sequential NLL, and the order
parameter between two runs. Writes OUT/audit.json (every number), OUT/audit.md and PNG
plots (matplotlib, the optional extra 'plot'; skipped with a note if it is missing)."""

AUDIT_EPILOG = """\
token files:
  JSON: a list of ints (one prompt) or a list of lists of ints, e.g. [[5, 17, 3], [8, 2]];
  or text: one prompt per line, ids separated by whitespace and/or commas, '#' comments.
  Ids must lie in [0, vocab_size); 0 is [PAD]. Each prompt is run on its own (batch 1).

examples:
  plga audit model.safetensors --tokens prompts.json --out audit/
  plga audit model.npz --config paper --tokens a.txt --tokens2 b.txt --steps 16
  plga audit small.safetensors --backend mp --dps 40 --hp-prompts all
  plga audit small.safetensors --backend arb --dps 50   (certified G-cache criterion)
  plga audit paper.safetensors --backend arb --accuracy 30   (digits chosen automatically)

exit codes: 0 audit written; 1 the audit failed (e.g. the model produced non-finite values);
2 bad input (checkpoint/config mismatch, missing key, token id out of range, unwritable --out).
Nothing is written unless the audit completes (audit.json is written atomically, last)."""


def _add_audit_parser(sub) -> None:
    au = sub.add_parser(
        "audit", help="audit a PLDR-LLM v510 checkpoint with the reference model (spec D)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=AUDIT_DESCRIPTION, epilog=AUDIT_EPILOG)
    _checkpoint_args(au)
    au.add_argument("--tokens", default=None, help="token-id prompts (format below; default: one "
                                                   "seeded random prompt of 16 ids)")
    _prompt_args(au)
    au.add_argument("--tokens2", default=None, help="prompts of a second run, paired with --tokens "
                                                    "prompt by prompt, for the order parameter")
    au.add_argument("--backend", choices=["float64", "float32", "mp", "arb"], default="float64",
                    help="pyref backend (default float64; mp is for small models: object arrays "
                         "are ~1000x slower; arb: Arb ball arithmetic (python-flint), every "
                         "value an enclosure of the exact one, which certifies the G-cache "
                         "criterion; the other statistics use the balls' midpoints)")
    au.add_argument("--dps", type=positive_int, default=50,
                    help="decimal digits of the mp and arb backends (default 50; arb raises "
                         "naming the digits needed when its balls grow too wide or an argmax "
                         "is undecided)")
    au.add_argument("--accuracy", type=positive_int, default=None,
                    help="arb: decimal digits of relative accuracy the logits must carry; the "
                         "working precision starts at --dps and is raised to what one forward "
                         "pass on the longest prompt shows is needed (e.g. --accuracy 30 on the "
                         "paper configuration: about 210 digits)")
    au.add_argument("--hp-dps", type=positive_int, default=30,
                    help="decimal digits of the Perron report and the determinants (default 30, "
                         "at least 15)")
    au.add_argument("--out", default=None,
                    help="output directory (default: ./audit-<checkpoint name>)")
    au.add_argument("--steps", type=int, default=8,
                    help="greedy decoding steps for G-cache fidelity (default 8)")
    au.add_argument("--hp-prompts", choices=["first", "all"], default="first",
                    help="prompts that get the Perron report and determinants (default: the first)")
    au.add_argument("--hp-heads", type=positive_int, default=None,
                    help="Perron/determinants only for the first N heads of each layer "
                         "(default: all)")
    au.add_argument("--no-perron", action="store_true",
                    help="skip the Perron report (the most expensive part)")
    au.add_argument("--no-det", action="store_true", help="skip the determinants")
    au.add_argument("--no-blockseq", action="store_true",
                    help="skip block CE vs sequential NLL (costs one forward pass per token)")
    au.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    au.add_argument("--jobs", type=positive_int, default=2,
                    help="processes for the Perron report and determinants (default 2)")
    au.add_argument("--threads", type=positive_int, default=1,
                    help="BLAS threads (default 1: the audit's matrices are small, and extra "
                         "threads slow them down on a busy machine)")
    au.add_argument("--quiet", action="store_true", help="no progress bars")
    au.set_defaults(func=cmd_audit)




def cmd_generate(args) -> int:
    apply_blas_threads(args.threads)
    from .generate import GenerateOptions, run_generate  # loads numpy: after the BLAS variables
    run_generate(GenerateOptions(
        checkpoint=Path(args.checkpoint), config=args.config, text=args.text,
        text_file=Path(args.text_file) if args.text_file else None,
        tokens=Path(args.tokens) if args.tokens else None,
        tokenizer=Path(args.tokenizer) if args.tokenizer else None,
        gcache=Path(args.gcache) if args.gcache else None,
        attn_implementation=args.attn_implementation,
        max_new_tokens=args.max_new_tokens, kvcache=not args.no_kvcache,
        use_gcache=not args.no_gcache, backend=args.backend, dps=args.dps,
        accuracy=args.accuracy, stop_at_eos=not args.no_eos, as_json=args.json))
    return 0


def _checkpoint_args(p) -> None:
    """The options that say which model runs: checkpoint, config, G list."""
    p.add_argument("checkpoint", help=CHECKPOINT_HELP)
    p.add_argument("--config", default=None, help=CONFIG_HELP)
    p.add_argument("--gcache", default=None, metavar="G_LIST",
                   help="a list of constant operators G (the authors' predefined-G .pkl, a NAB "
                        "list, or a pyref constant-G checkpoint): run the v510Gi model that "
                        "uses them instead of the learned operator")
    p.add_argument("--attn-implementation", choices=["sdpa", "eager"], default=None,
                   help="for a Hugging Face folder: the port's attention path (default sdpa, "
                        "what from_pretrained picks; the paper's audit used eager)")


def _prompt_args(p) -> None:
    p.add_argument("--text", action="append", default=None, metavar="TEXT",
                   help="a text prompt (repeat for several), tokenized with --tokenizer the way "
                        "the authors' generate_text does")
    p.add_argument("--text-file", default=None,
                   help="text prompts, one per line (UTF-8; blank lines skipped)")
    p.add_argument("--tokenizer", default=None,
                   help="SentencePiece .model for --text (default for a Hugging Face folder: "
                        "its tokenizer.model, with the port's BOS/EOS convention)")


def cmd_audit_g(args) -> int:
    apply_blas_threads(1)
    from .audit.gaudit import GAuditOptions, run_audit_g  # loads numpy: after the BLAS variables
    run_audit_g(GAuditOptions(
        gcache=Path(args.file), out=Path(args.out) if args.out else None,
        rope_base=args.rope_base, perron=not args.no_perron, hp_dps=args.hp_dps,
        jobs=args.jobs, plots=not args.no_plots, progress=not args.quiet))
    return 0


def _add_audit_g_parser(sub) -> None:
    ag = sub.add_parser("audit-g", help="audit a list of constant operators G (the authors' "
                        "predefined-G / NAB lists): spectra, RoPE commutant, symmetry, "
                        "positivity, Perron")
    ag.add_argument("file", help="G list: the authors' predefined_G_LM_cache_list_*.pkl or "
                    "*NAB*.pkl (read without torch; no pickle code runs), a pyref constant-G "
                    "checkpoint (.safetensors/.npz), or an .npz written by numpy.savez(*G_list)")
    ag.add_argument("--out", default=None,
                    help="output directory (default: ./audit-g-<file name>)")
    ag.add_argument("--rope-base", type=float, default=None,
                    help="RoPE base Θ for the commutant/commutator residuals (default: the "
                         "config embedded in a pyref checkpoint, else 10000 as in v510)")
    ag.add_argument("--no-perron", action="store_true",
                    help="skip the Perron reports of entrywise-positive heads (the expensive "
                         "part: ~2 s per 64x64 head at 30 digits)")
    ag.add_argument("--hp-dps", type=positive_int, default=30,
                    help="decimal digits of the Perron report (default 30, at least 15)")
    ag.add_argument("--jobs", type=positive_int, default=2,
                    help="processes for the Perron reports (default 2)")
    ag.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    ag.add_argument("--quiet", action="store_true", help="no progress bars")
    ag.set_defaults(func=cmd_audit_g)


def _add_generate_parser(sub) -> None:
    ge = sub.add_parser("generate", help="greedy continuation of text or token-id prompts",
                        description=__doc__.split("\n\n")[0])
    _checkpoint_args(ge)
    _prompt_args(ge)
    ge.add_argument("--tokens", default=None, help="token-id prompts (as for plga audit)")
    ge.add_argument("--max-new-tokens", type=int, default=32,
                    help="tokens to generate per prompt (default 32; stops earlier at EOS)")
    ge.add_argument("--no-kvcache", action="store_true", help="re-run the whole sequence each "
                                                               "step instead of the KV-cache")
    ge.add_argument("--no-gcache", action="store_true",
                    help="recompute G_LM each step instead of reusing the prefill's")
    ge.add_argument("--no-eos", action="store_true", help="do not stop at the EOS id")
    ge.add_argument("--backend", choices=["float64", "float32", "mp", "arb"], default="float64",
                    help="pyref backend (arb: ball arithmetic; each greedy argmax is decided by "
                         "the balls or the run stops with an error suggesting more digits)")
    ge.add_argument("--dps", type=positive_int, default=50,
                    help="digits of the mp and arb backends (default 50)")
    ge.add_argument("--accuracy", type=positive_int, default=None,
                    help="arb: decimal digits of relative accuracy each step's logits must "
                         "carry; the working digits start at --dps and rise as needed")
    ge.add_argument("--threads", type=positive_int, default=1, help="BLAS threads (default 1)")
    ge.add_argument("--json", action="store_true", help="one JSON object per prompt")
    ge.set_defaults(func=cmd_generate)


def add_model_parsers(sub) -> None:
    """Add ``audit``, ``audit-g`` and ``generate`` to the ``plga`` subparsers."""
    _add_audit_parser(sub)
    _add_audit_g_parser(sub)
    _add_generate_parser(sub)
