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
        backend=args.backend, dps=args.dps, hp_dps=args.hp_dps,
        out=Path(args.out) if args.out else None, steps=args.steps,
        perron=not args.no_perron, determinants=not args.no_det, blockseq=not args.no_blockseq,
        hp_prompts=args.hp_prompts, hp_heads=args.hp_heads, jobs=args.jobs,
        plots=not args.no_plots, progress=not args.quiet,
        threads=args.threads, threads_applied=threads_applied)
    run_audit(opts)
    return 0


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

exit codes: 0 audit written; 1 the audit failed (e.g. the model produced non-finite values);
2 bad input (checkpoint/config mismatch, missing key, token id out of range, unwritable --out).
Nothing is written unless the audit completes (audit.json is written atomically, last)."""


def _add_audit_parser(sub) -> None:
    au = sub.add_parser(
        "audit", help="audit a PLDR-LLM v510 checkpoint with the reference model (spec D)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=AUDIT_DESCRIPTION, epilog=AUDIT_EPILOG)
    au.add_argument("checkpoint", help="v510 checkpoint, .safetensors or .npz (pyref/PyTorch "
                                       "state-dict key names)")
    au.add_argument("--config", default=None,
                    help="PLDRConfig JSON file (pyref.PLDRConfig.to_json fields), or 'paper' / "
                         "'paper:A_DFF' for the paper's 110M configuration (default: the config "
                         "embedded in the checkpoint)")
    au.add_argument("--tokens", default=None, help="token-id prompts (format below; default: one "
                                                   "seeded random prompt of 16 ids)")
    au.add_argument("--text", action="append", default=None, metavar="TEXT",
                    help="a text prompt (repeat for several), tokenized with --tokenizer the "
                         "way the authors' generate_text does; the report shows the decoded "
                         "greedy continuations")
    au.add_argument("--text-file", default=None,
                    help="text prompts, one per line (UTF-8; blank lines skipped)")
    au.add_argument("--tokenizer", default=None,
                    help="SentencePiece .model for --text (default for a Hugging Face folder: "
                         "its tokenizer.model, with the port's BOS/EOS convention)")
    au.add_argument("--tokens2", default=None, help="prompts of a second run, paired with --tokens "
                                                    "prompt by prompt, for the order parameter")
    au.add_argument("--backend", choices=["float64", "float32", "mp"], default="float64",
                    help="pyref backend (default float64; mp is for small models: object arrays "
                         "are ~1000x slower)")
    au.add_argument("--dps", type=positive_int, default=50,
                    help="decimal digits of the mp backend (default 50)")
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




def add_model_parsers(sub) -> None:
    """Add ``audit``, ``audit-g`` and ``generate`` to the ``plga`` subparsers."""
    _add_audit_parser(sub)
