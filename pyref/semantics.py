"""Forward-pass semantics: the authors' v510 code (the default) or the Hugging Face port.

The same weights give different logits under the authors' v510 code (what :mod:`pyref`
implements by default, spec A/B) and under the ``transformers`` port ``modeling_pldrllm.py``
(``huggingface/transformers`` commit a28acc8, spec H), which the published
``PLDR-LLM-v51-SOC-110M-*`` checkpoints and the paper's numerical audit use.  A
:class:`Semantics` records every behaviour in which the two differ, one field each, so a
user chooses and states what is reproduced instead of assuming it away::

    model = pyref.PLDRModel.random(cfg, semantics=pyref.semantics.hf_port())
    model.forward(tokens, attention_mask=mask)          # as PldrllmForCausalLM(input_ids, mask)

Fields (v510 value first):

* ``rope``: ``"interleaved"`` rotates the pairs (2j, 2j+1) (torchtune; the port with
  ``reference_rope=True``); ``"half"`` rotates (j, j + d_k/2) (the port's ``rotate_half``
  with ``reference_rope=False``).
* ``rope_float32``: False computes the RoPE tables and rotation in the working backend.
  True reproduces the port: θ_j = 1/base^(fl32(2j)/d_k), angles p·θ_j and their cos/sin in
  float32; ``"interleaved"`` also rounds q and k to float32, rotates in float32 and casts the
  result back (torchtune ``x.float()`` … ``type_as(x)``); ``"half"`` casts the float32 cos/sin
  tables to the working dtype and rotates there.
* ``pad_mask``: ``"tokens"`` masks the keys whose token id is 0 in uncached calls and nothing
  in cached calls (v510 ``create_masks``); ``"attention_mask"`` masks exactly the keys the
  ``attention_mask`` argument marks 0 (in cached calls too) and nothing when it is None.
* ``mask_fill``: ``"minus_1e9"`` adds -1e9 to masked scores; ``"finfo_min"`` adds the most
  negative finite float32, -3.4028235e38, in every backend (the port's eager path adds
  ``finfo(model dtype).min``; for a float32 or bf16 model masked weights underflow to exactly 0
  and a query row whose every key is masked gets uniform weights over all keys; a float64 port
  model would give NaN there, pyref raises instead); ``"exclude"`` gives masked keys weight
  exactly 0 and a fully masked row all-zero weights (torch's SDPA, the port's default path).
* ``softmax_float32``: the port's eager path rounds the masked scores to float32, takes the
  softmax in float32 and casts back.
* ``score_scale``: ``"divide"`` computes E = (Q̂G)K̂ᵀ/√d_k; ``"reciprocal"`` multiplies by the
  rounded 1/√d_k (the port; identical when √d_k is a power of two, e.g. d_k = 64).
* ``E``: ``"scores"`` reports the scaled scores before the mask; ``"post_softmax"`` the
  attention weights (the port's ``pldr_attentions[l][6]``; the port's SDPA path returns None
  there, pyref returns the weights it computed).
* ``gcache_batch``: ``"per_sample"`` keeps every sample's [A_LM, G_LM]; ``"sample0"`` keeps
  sample 0's for the whole batch ([1, H, d_k, d_k]; the port with ``cache_first_G=True``).
* ``joint_cache``: the port has one ``use_cache`` switch for both the KV- and the G-cache;
  :meth:`pyref.PLDRModel.generate` then refuses ``kvcache != gcache``.
* ``pad_token_id``, ``eos_token_id``: the ids HF ``generate`` uses to infer an attention
  mask from the prompt (``pad_token_id`` present and different from ``eos_token_id``).

Imports nothing from :mod:`pyref`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

_CHOICES = {
    "rope": ("interleaved", "half"),
    "pad_mask": ("tokens", "attention_mask"),
    "mask_fill": ("minus_1e9", "finfo_min", "exclude"),
    "score_scale": ("divide", "reciprocal"),
    "E": ("scores", "post_softmax"),
    "gcache_batch": ("per_sample", "sample0"),
}
_BOOLS = ("rope_float32", "softmax_float32", "joint_cache")
ATTN_IMPLEMENTATIONS = ("sdpa", "eager")


@dataclass(frozen=True)
class Semantics:
    """Forward-pass behaviours in which the v510 code and the HF port differ (module doc)."""

    name: str = "v510"
    rope: str = "interleaved"
    rope_float32: bool = False
    pad_mask: str = "tokens"
    mask_fill: str = "minus_1e9"
    softmax_float32: bool = False
    score_scale: str = "divide"
    E: str = "scores"
    gcache_batch: str = "per_sample"
    joint_cache: bool = False
    pad_token_id: int | None = 0
    eos_token_id: int | None = None

    def __post_init__(self):
        for f, allowed in _CHOICES.items():
            if getattr(self, f) not in allowed:
                raise ValueError(f"Semantics.{f}: expected one of {allowed}, got "
                                 f"{getattr(self, f)!r}")
        for f in _BOOLS:
            if not isinstance(getattr(self, f), bool):
                raise ValueError(f"Semantics.{f}: expected a bool, got {getattr(self, f)!r}")
        for f in ("pad_token_id", "eos_token_id"):
            v = getattr(self, f)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise ValueError(f"Semantics.{f}: expected None or an int >= 0, got {v!r}")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Semantics.name: expected a non-empty str, got {self.name!r}")
        if self.softmax_float32 and self.mask_fill == "exclude":
            raise ValueError("Semantics: softmax_float32 is the port's eager path (mask_fill="
                             "'finfo_min'); the SDPA path (mask_fill='exclude') takes none")
        if self.pad_mask == "tokens" and self.mask_fill == "exclude":
            raise ValueError("Semantics: pad_mask='tokens' is the v510 mask and takes "
                             "mask_fill='minus_1e9' or 'finfo_min', not 'exclude'")

    @property
    def is_v510(self) -> bool:
        """True when every behaviour is the v510 code's (the name is not compared)."""
        return replace(self, name="v510") == V510

    def describe(self) -> list:
        """Human-readable list of the behaviours, one sentence each (for reports)."""
        s = self
        out = [f"semantics {s.name!r}"]
        out.append("RoPE on interleaved pairs (2j, 2j+1)" if s.rope == "interleaved" else
                   "RoPE on half-split pairs (j, j+d_k/2) (rotate_half, reference_rope=False)")
        if s.rope_float32:
            out.append("RoPE tables in float32" + (
                "; q and k rounded to float32, rotated in float32, cast back"
                if s.rope == "interleaved" else ", cast to the working dtype"))
        out.append("pad keys masked by token id 0 in uncached calls only" if s.pad_mask == "tokens"
                   else "pad keys masked only where attention_mask is 0 (none without one)")
        out.append({"minus_1e9": "masked scores + (-1e9)",
                    "finfo_min": "masked scores + finfo(float32).min (eager attention)",
                    "exclude": "masked keys excluded exactly, fully masked rows give zero "
                               "weights (SDPA attention)"}[s.mask_fill])
        if s.softmax_float32:
            out.append("softmax computed in float32")
        if s.score_scale == "reciprocal":
            out.append("scores multiplied by the rounded 1/sqrt(d_k)")
        out.append("E reported as the scaled pre-mask scores" if s.E == "scores" else
                   "E reported as the post-softmax attention weights")
        if s.gcache_batch == "sample0":
            out.append("a batched G-cache keeps sample 0's [A_LM, G_LM] (cache_first_G)")
        if s.joint_cache:
            out.append("one use_cache switch drives the KV-cache and the G-cache")
        return out

    def with_attn_implementation(self, attn_implementation: str) -> "Semantics":
        """These semantics with the port's ``"sdpa"`` or ``"eager"`` attention path (mask fill,
        float32 softmax and name; every other behaviour kept)."""
        if attn_implementation not in ATTN_IMPLEMENTATIONS:
            raise ValueError(f"attn_implementation must be one of {ATTN_IMPLEMENTATIONS}, got "
                             f"{attn_implementation!r}")
        eager = attn_implementation == "eager"
        return replace(self, name=f"hf-port-{attn_implementation}",
                       mask_fill="finfo_min" if eager else "exclude", softmax_float32=eager)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: the authors' v510 code (pyref's default; every existing result is computed with it)
V510 = Semantics()


def hf_port(reference_rope: bool = True, attn_implementation: str = "sdpa",
            cache_first_G: bool = False, pad_token_id: int | None = 0,
            eos_token_id: int | None = 3) -> Semantics:
    """The semantics of ``PldrllmForCausalLM`` (transformers commit a28acc8) for a config
    with the given ``reference_rope``, ``cache_first_G``, pad/eos ids, run with
    ``attn_implementation`` ``"sdpa"`` (the default ``from_pretrained`` picks) or ``"eager"``
    (what the paper's audit uses)."""
    if not isinstance(reference_rope, bool):
        raise ValueError(f"hf_port: reference_rope must be a bool, got {reference_rope!r}")
    if not isinstance(cache_first_G, bool):
        raise ValueError(f"hf_port: cache_first_G must be a bool, got {cache_first_G!r}")
    if attn_implementation not in ATTN_IMPLEMENTATIONS:
        raise ValueError(f"hf_port: attn_implementation must be one of {ATTN_IMPLEMENTATIONS} "
                         f"(pyref reproduces these two), got {attn_implementation!r}")
    eager = attn_implementation == "eager"
    return Semantics(name=f"hf-port-{attn_implementation}",
                     rope="interleaved" if reference_rope else "half", rope_float32=True,
                     pad_mask="attention_mask", mask_fill="finfo_min" if eager else "exclude",
                     softmax_float32=eager, score_scale="reciprocal", E="post_softmax",
                     gcache_batch="sample0" if cache_first_G else "per_sample", joint_cache=True,
                     pad_token_id=pad_token_id, eos_token_id=eos_token_id)


def check_semantics(sem) -> Semantics:
    """``sem`` if it is a :class:`Semantics`, else a ValueError."""
    if not isinstance(sem, Semantics):
        raise ValueError("semantics: expected a pyref.semantics.Semantics (e.g. "
                         f"pyref.semantics.V510 or hf_port()), got {type(sem).__name__}")
    return sem


def hf_generate_attention_mask(tokens, sem: Semantics):
    """The attention mask HF ``generate`` infers for a prompt [B, S0] when none is passed
    (``_prepare_attention_mask_for_generation``): ``tokens != pad_token_id`` if the pad id occurs
    in the prompt and differs from the EOS id, else all ones.  int64 [B, S0]."""
    t = np.asarray(tokens)
    pad, eos = sem.pad_token_id, sem.eos_token_id
    if pad is not None and pad != eos and np.any(t == pad):
        return (t != pad).astype(np.int64)
    return np.ones(t.shape, dtype=np.int64)


def hf_generate_positions(attention_mask):
    """The position ids HF ``generate`` passes (``prepare_inputs_for_generation``, transformers
    4.56/4.57): cumsum(mask) - 1, and 1 where the mask is 0.  int64, same shape."""
    am = np.asarray(attention_mask).astype(np.int64)
    pos = np.cumsum(am, axis=-1) - 1
    pos[am == 0] = 1
    return pos
