"""``plga generate``: greedy continuations of text or token-id prompts with pyref, on any
checkpoint :meth:`pyref.PLDRModel.load` opens (the authors' ``.pth``, a Hugging Face folder,
pyref files), optionally with a transplanted G list (the v510G/v510Gi models).

Decoding is :meth:`pyref.PLDRModel.generate` (greedy, the authors' cache semantics, or the
HF port's for a folder); a text prompt is tokenized the way the authors' ``generate_text``
does (:mod:`pyref.tokenizer`), and decoding stops at the tokenizer's EOS like theirs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .audit.inputs import check_prompt_lengths, load_checkpoint, read_tokens, text_prompts
from .errors import PlgaError


@dataclass
class GenerateOptions:
    checkpoint: Path
    config: str | None = None
    text: list | None = None
    text_file: Path | None = None
    tokens: Path | None = None
    tokenizer: Path | None = None
    gcache: Path | None = None
    attn_implementation: str | None = None
    max_new_tokens: int = 32
    kvcache: bool = True
    use_gcache: bool = True
    backend: str = "float64"
    dps: int = 50
    accuracy: int | None = None        # arb: digits the logits must carry (dps chosen to match)
    stop_at_eos: bool = True
    as_json: bool = False


def _prompts(opts, cfg):
    """(prompts, tokenizer or None, texts or None)."""
    if opts.text or opts.text_file is not None:
        prompts, text = text_prompts(opts, cfg)
        return prompts, text["_tokenizer"], text["texts"]
    if opts.tokens is None:
        raise PlgaError("give the prompt(s): --text TEXT, --text-file FILE or --tokens FILE")
    return read_tokens(Path(opts.tokens), cfg.vocab_size, "--tokens"), None, None


def _eos(model, tok, opts):
    if not opts.stop_at_eos:
        return None
    if tok is not None:
        return tok.eos_id
    return getattr(model.semantics, "eos_token_id", None)


def run_generate(opts: GenerateOptions, out=print) -> list:
    """Decode every prompt; print one block (or one JSON line) per prompt; return records."""
    if opts.max_new_tokens < 0:
        raise PlgaError(f"--max-new-tokens {opts.max_new_tokens}: expected an integer ≥ 0")
    if opts.accuracy is not None and opts.backend != "arb":
        raise PlgaError(f"--accuracy: only with --backend arb (got --backend {opts.backend})")
    model, cfg, _, warnings = load_checkpoint(opts.checkpoint, opts.config, opts.gcache,
                                                opts.attn_implementation)
    for w in warnings:
        out(f"warning: {w}")
    prompts, tok, texts = _prompts(opts, cfg)
    check_prompt_lengths(prompts, cfg, opts.max_new_tokens, "prompt", "--max-new-tokens")
    eos = _eos(model, tok, opts)
    records = []
    for i, p in enumerate(prompts):
        try:
            g = model.generate(np.array(p, dtype=np.int64), opts.max_new_tokens,
                               kvcache=opts.kvcache, gcache=opts.use_gcache,
                               backend=opts.backend, dps=opts.dps, eos_id=eos,
                               accuracy=opts.accuracy)
        except ValueError as exc:
            raise PlgaError(f"prompt {i}: {exc}") from None
        new = [int(x) for x in g.new_tokens[0]]
        rec = {"prompt": i, "prompt_tokens": list(p), "new_tokens": new}
        if tok is not None:
            rec["prompt_text"] = texts[i]
            rec["continuation"] = tok.decode(new)
        records.append(rec)
        if opts.as_json:
            out(json.dumps(rec, ensure_ascii=False))
        else:
            out(f"prompt {i}: {' '.join(map(str, p))}")
            out(f"  new tokens: {' '.join(map(str, new))}")
            if tok is not None:
                out(f"  continuation: {rec['continuation']}")
    return records
