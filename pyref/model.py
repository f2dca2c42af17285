"""PLDRModel: the PLDR-LLM v510 decoder (spec A), its KV-cache and G-cache (spec B),
and the SDPA / constant-operator variants.

    X⁰ = LN_emb(√d · E[tok])                                   embedding   [B,S,d]
    for each layer:  Y = MHA(X);  X' = LN₁(X + Y);  X = LN₂(X' + FFN(X'))   (post-LN)
    logits = X Wᵀ_out + b_out                                   untied head [B,S,V]

Parameters live in an ordered dict of read-only float64 arrays keyed exactly like the
PyTorch v510 ``state_dict()``; each backend gets its own converted copy as typed records
(:mod:`pyref.params`, cached).  The model class chooses the per-layer operator source
(:mod:`pyref.attention`): learned (``PLDRModel``), constant (``ConstantGModel``) or the
identity on the SDPA path (``SDPAModel``).

Differences to the authors' code (documented, deliberate): the float64 backend computes
RoPE, the 1/√d_k score scale and the √d embedding scale in float64 (the authors' code
evaluates RoPE in float32, and √d and √d_k as float32 scalars, even in a float64 model;
for d_k = 64 the √d_k difference vanishes since √64 = 8 exactly).

A model carries ``model.semantics`` (:mod:`pyref.semantics`): the v510 code's behaviour
(``V510``, the default, computed exactly as before) or another, e.g. the Hugging Face port's
(``hf_port()``: its RoPE, masks, softmax, caches), selected at construction.
"""
from __future__ import annotations

import os

import numpy as np

from .arb import check_width, check_widths, decided_argmaxes
from .arb_centered import residual_units
from .arb_precision import run_to_accuracy
from .attention import (
    ConstantOperator,
    IdentityOperator,
    PLGAOperator,
    multi_head_attention,
    multi_head_attention_port,
)
from .backend import Backend, get_backend, to_float64
from .checkpoint import CONSTANT_G_PREFIX, save_arrays
from .config import PLDRConfig
from .inputs import (
    check_attention_mask,
    check_constant_operators,
    check_position_ids,
    check_tokens,
    prepare_gcache,
    prepare_kvcache,
)
from .loading import open_checkpoint
from .ops import layer_norm, linear, swiglu
from .outputs import ForwardOutput, GenerateOutput
from .params import ResUnitParams, backend_state_dict, learner_params, model_params
from .plga import causal_pad_mask, port_causal_mask
from .semantics import V510, check_semantics, hf_generate_attention_mask, hf_generate_positions
from .state_dict import mha_prefix, state_dict_shapes, validate_state_dict


def _xavier_uniform(rng, shape):
    fan_out, fan_in = shape
    a = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-a, a, size=shape)


def _random_params(config: PLDRConfig, seed: int, variant: str, init: str):
    """The spec's initializers (A.5) with a numpy Generator seeded by ``seed``; a configuration
    too large for the available memory is refused first (ValueError naming its size)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"random: seed must be a non-negative int, got {seed!r}")
    if init not in ("kvg", "soc"):
        raise ValueError("random: init must be 'kvg' (W_V torch default) or 'soc' (W_V Xavier), "
                         f"got {init!r}")
    if not isinstance(config, PLDRConfig):
        raise ValueError(f"random: config must be a PLDRConfig, got {type(config).__name__}")
    config.require_memory(variant, what="random")   # before anything of that size exists
    rng = np.random.default_rng(int(seed))
    H, dk, d = config.num_heads, config.d_k, config.d_model
    std_op = np.sqrt(2.0 / (dk * dk + H * dk))  # torch xavier_normal_ fans for [H, dk, dk]
    out = {}
    for k, shp in state_dict_shapes(config, variant).items():
        leaf = k.rsplit(".", 1)[-1]
        if k == "decoder.embedding.weight":
            a = rng.standard_normal(shp)
        elif ".wv." in k and init == "kvg":
            # KVG: wv never initialized -> torch default kaiming_uniform(a=√5): U(±1/√fan_in)
            a = rng.uniform(-1 / np.sqrt(d), 1 / np.sqrt(d), size=shp)
        elif "layernorm" in k:
            a = np.ones(shp) if leaf == "weight" else np.zeros(shp)
        elif leaf in ("Wlst", "pwlst", "alst"):
            a = rng.normal(0.0, std_op, size=shp)
        elif leaf in ("blst", "balst"):
            a = np.zeros(shp)
        elif leaf == "weight":
            a = _xavier_uniform(rng, shp)
        elif leaf == "bias":
            a = np.zeros(shp)
        else:  # pragma: no cover
            raise AssertionError(k)
        out[k] = a
    return out


def decoder_layer(b: Backend, cfg: PLDRConfig, p, x, mask, kv=None, gc=None, port=None):
    """One post-LN decoder layer (``p``: :class:`~pyref.params.LayerParams`):
    Y = MHA(X); X' = LN₁(X + Y); X = LN₂(X' + FFN(X')).  Returns (X, deductive, kv, gc).
    ``port``: None (v510) or (semantics, positions) for :func:`~pyref.attention.
    multi_head_attention_port` (then ``mask`` is its boolean mask)."""
    if port is None:
        y, ded, new_kv, new_gc = multi_head_attention(b, cfg, p.attention, x, mask, kv=kv, gc=gc)
    else:
        y, ded, new_kv, new_gc = multi_head_attention_port(b, cfg, p.attention, x, mask, port[1],
                                                           port[0], kv=kv, gc=gc)
    f = p.ffn
    x1 = layer_norm(b, x + y, p.ln1.gamma, p.ln1.beta, cfg.ln_eps)                   # [B,S,d]
    if b.is_arb:   # the same sublayer as one residual unit, by the centred form
        x = residual_units(b, x1, (ResUnitParams((f,), p.ln2.gamma, p.ln2.beta),), cfg.ln_eps)
    else:
        x = layer_norm(b, x1 + swiglu(b, x1, f.W1, f.b1, f.W2, f.b2, f.W3, f.b3),
                       p.ln2.gamma, p.ln2.beta, cfg.ln_eps)
    return x, ded, new_kv, new_gc


def _port_positions(position_ids, B, S, T0, max_seq_len, uncached_unmasked):
    """Positions [P, S] for a port-semantics call: ``position_ids`` (checked) or T0 … T0+S-1."""
    if position_ids is None:
        return np.arange(T0, T0 + S)[None, :]
    pos = check_position_ids(position_ids, B, S, max_seq_len)
    if uncached_unmasked and S > 1 and np.any(np.diff(pos, axis=1) != 1):
        raise ValueError("position_ids: not consecutive in an uncached call without an "
                         "attention_mask; the port then applies a packed-sequence mask "
                         "(transformers masking_utils), which pyref does not implement")
    return pos


def _check_layer(b, li, ded, x, n_layers):
    """Raise instead of returning NaN/inf (e.g. A_LM^P overflowing in float32, or a
    metric_eps = 0 model with a zero A_LM entry raised to a negative power); arb: also when a
    tensor's balls grew too wide (:func:`pyref.arb.check_width`: more digits needed)."""
    if b.is_arb:   # (non-finite balls included)
        return check_widths({**{k: ded[k] for k in ("A", "A_LM", "A_P", "G_LM", "E")},
                             "output": x}, f"forward: layer {li}", b.dps,
                             done=(li + 1) / (n_layers + 1))
    for key in ("A", "A_LM", "A_P", "G_LM"):
        if ded[key] is not None and not np.all(b.isfinite(ded[key])):
            raise ValueError(f"forward ({b.name}): layer {li} {key} has non-finite entries")
    if not np.all(b.isfinite(x)):
        raise ValueError(f"forward ({b.name}): layer {li} output has non-finite entries")


class PLDRModel:
    """The PLDR-LLM v510 model (learned operator, ``variant = "plga"``).

    Construct with :meth:`random`, :meth:`from_state_dict` or :meth:`load`; ``semantics``
    (keyword of each): :data:`pyref.semantics.V510` (default) or e.g.
    :func:`pyref.semantics.hf_port`.
    """

    variant = "plga"
    load_info = None   # set by :meth:`load`: what the file was and how it was read

    def __init__(self, config: PLDRConfig, params, semantics=V510):
        if not isinstance(config, PLDRConfig):
            raise ValueError(f"PLDRModel: config must be a PLDRConfig, got {type(config).__name__}")
        self.config = config
        self.semantics = semantics
        self._params = validate_state_dict(params, config, self.variant)
        self._conv_cache: dict = {}

    # ------------------------------------------------------------ construction / IO
    @classmethod
    def random(cls, config: PLDRConfig, seed: int = 0, init: str = "kvg", **kw):
        """A randomly initialized model with the spec's initializers (A.5).

        ``init="kvg"``: W_V/b_V with the torch default (the KVG code's behaviour);
        ``init="soc"``: W_V Xavier-uniform, b_V = 0 (the SOC fix)."""
        return cls(config, _random_params(config, seed, cls.variant, init), **kw)

    @classmethod
    def from_state_dict(cls, arrays, config: PLDRConfig, strict: bool = True, **kw):
        """Build from a mapping with exactly the v510 ``state_dict()`` keys and shapes
        (numpy arrays or torch tensors; float16/32/64).  ``strict=False`` ignores extra
        keys (e.g. a v510 state dict given to the constant-operator model)."""
        if not isinstance(config, PLDRConfig):
            raise ValueError("from_state_dict: config must be a PLDRConfig, got "
                             f"{type(config).__name__}")
        arrays = validate_state_dict(arrays, config, cls.variant, strict=strict)
        return cls(config, arrays, **kw)

    def state_dict(self) -> dict:
        """Ordered dict key -> float64 array (copies), v510 names and shapes."""
        return {k: v.copy() for k, v in self._params.items()}

    def _extra_arrays(self) -> dict:
        return {}

    def save(self, path, dtype=np.float64) -> None:
        """Save to ``.safetensors`` or ``.npz`` (atomic; config stored as JSON metadata)."""
        arrays = dict(self._params)
        arrays.update(self._extra_arrays())
        save_arrays(path, arrays, self.config, dtype=dtype)

    @classmethod
    def load(cls, path, config=None, *, G=None, semantics=None, **kw):
        """Load any supported checkpoint (:func:`pyref.loading.open_checkpoint`): pyref's
        ``.safetensors``/``.npz``, the authors' ``torch.save`` ``.pth`` files (read without
        torch, no pickle code runs) or a Hugging Face port folder.

        ``config``: needed only for what the shapes do not tell (``max_seq_len``, RoPE base,
        epsilons) when the file carries no config: a :class:`PLDRConfig`, a dict, ``"paper"``,
        a JSON file or the authors' hyperparameter ``.py`` file; it must agree with the shapes.
        ``G``: per-layer constant operators [H, d_k, d_k] (or [1, H, d_k, d_k]): returns the
        v510Gi transplant, a :class:`ConstantGModel` with every weight except the operator
        learner's. A file that stores constant operators loads as a :class:`ConstantGModel`.
        ``semantics``: overrides the format's (a folder loads with the HF port's).
        ``model.load_info`` records the format, stored dtypes, stripped prefixes, the config's
        source and notes."""
        ck = open_checkpoint(path, config)
        sem = ck.semantics if semantics is None else semantics
        if G is not None or ck.variant == "constant" or cls is ConstantGModel:
            if G is None and ck.G is None:
                raise ValueError(f"load: {os.fspath(path)!r} holds a learned-operator (v510) "
                                 "model; a ConstantGModel needs G=[...] (the v510Gi transplant)")
            G_list = [np.asarray(g)[0] if np.ndim(g) == 4 else g for g in (G or ck.G)]
            model = ConstantGModel.from_state_dict(ck.arrays, ck.config, strict=G is None,
                                                   G=G_list, semantics=sem, **kw)
        else:
            model = cls.from_state_dict(ck.arrays, ck.config, strict=cls is not SDPAModel,
                                        semantics=sem, **kw)
        model.load_info = {"path": ck.path, "variant": model.variant, **ck.info,
                           "transplanted_G": G is not None}
        return model

    def __repr__(self):
        sem = "" if self._v510 else f", semantics={self.semantics.name!r}"
        return f"{type(self).__name__}({self.config}{sem})"

    @property
    def semantics(self):
        """The forward-pass semantics (:class:`pyref.semantics.Semantics`); assignable."""
        return self._semantics

    @semantics.setter
    def semantics(self, sem):
        self._semantics = check_semantics(sem)
        self._v510 = self._semantics.is_v510

    # ------------------------------------------------------------------- params
    def _operator_source(self, b: Backend, li: int, sd):
        """The variant's choice of operator for layer ``l`` (``sd``: state dict in ``b``)."""
        return PLGAOperator(learner_params(sd, mha_prefix(li), self.config))

    def backend_params(self, b: Backend):
        """The parameters as :class:`~pyref.params.ModelParams` records in backend ``b``
        (converted once per backend and cached)."""
        key = (b.name, b.dps if b.is_object else None)
        if key not in self._conv_cache:
            with b.context():
                with np.errstate(over="ignore"):   # an overflow is reported just below
                    sd = backend_state_dict(b, self._params)
                for k, v in sd.items():   # blame a float32 overflow on the conversion
                    if not b.is_object and not np.all(np.isfinite(v)):
                        raise ValueError(f"{b.name}: weight {k!r} overflows when converted to "
                                         f"{b.name} (max |value| = "
                                         f"{float(np.max(np.abs(self._params[k]))):.3e})")
                sources = [self._operator_source(b, li, sd) for li in range(self.config.num_layers)]
                self._conv_cache[key] = model_params(sd, self.config, sources)
        return self._conv_cache[key]

    def _prepare_caches(self, b, kvcache, gcache, B, S):
        learned = self.variant == "plga"
        kv, T0 = (None, 0) if kvcache is None else prepare_kvcache(b, kvcache, self.config, B, S,
                                                                   with_A=learned)
        if T0 + S > self.config.max_seq_len:
            raise ValueError(f"tokens: sequence length {T0 + S} (cached {T0} + new {S}) exceeds "
                             f"max_seq_len={self.config.max_seq_len}")
        if gcache is not None and not learned:
            raise ValueError(f"gcache: the {self.variant} model has a fixed operator and takes no "
                             "G-cache")
        gc = None if gcache is None else prepare_gcache(b, gcache, self.config, B)
        return kv, gc

    # ------------------------------------------------------------------- forward
    def forward(self, tokens, backend="float64", dps=50, kvcache=None, gcache=None,
                attention_mask=None, position_ids=None, accuracy=None) -> ForwardOutput:
        """Run the model on ``tokens`` [batch, S] (int ids in [0, vocab)).

        ``backend``: "float64", "float32", "mp" or "arb" (at ``dps`` decimal digits; arb
        returns balls enclosing the exact values and raises when they grow too wide).
        ``kvcache``: None (full causal+pad-masked call at positions 0…S-1) or the
        ``.kvcache`` of a previous call; then ``tokens`` must be [batch, 1], RoPE uses
        position = cached length, no mask is applied, and A is the cached prefill A.
        ``gcache``: None or per-layer [A_LM, G_LM] (e.g. a previous ``.gcache``); then
        the operator is taken from it instead of being recomputed (plga models only).
        ``attention_mask`` [batch, cached + S] (1 = attend) and ``position_ids`` [batch | 1, S]:
        the HF port's arguments, only under a semantics with ``pad_mask="attention_mask"``
        (e.g. :func:`pyref.semantics.hf_port`; see :meth:`_forward_port`).
        ``accuracy`` (arb only): the decimal digits of relative accuracy the logits must have;
        the working precision starts at ``dps`` and is raised as the balls' measured loss
        predicts (:func:`pyref.arb_precision.run_to_accuracy`); ``out.backend.dps`` tells the
        digits used.
        """
        if accuracy is not None:
            b0 = get_backend(backend, dps)
            if b0.name != "arb":
                raise ValueError(f"forward: accuracy= is for backend 'arb', got {backend!r}")
            return run_to_accuracy(
                lambda d: self.forward(tokens, "arb", d, kvcache, gcache, attention_mask,
                                       position_ids), b0.dps, accuracy, lambda out: out.logits)
        if not self._v510:
            return self._forward_port(tokens, backend, dps, kvcache, gcache, attention_mask,
                                      position_ids)
        if attention_mask is not None or position_ids is not None:
            raise ValueError("forward: attention_mask/position_ids are arguments of the Hugging "
                             "Face port; the v510 semantics masks pad keys by token id 0 (set "
                             "model.semantics = pyref.semantics.hf_port(...) to use them)")
        b = get_backend(backend, dps)
        c = self.config
        tok = check_tokens(tokens, c.vocab_size)
        B, S = tok.shape
        with b.context():
            kv, gc = self._prepare_caches(b, kvcache, gcache, B, S)
            mask = causal_pad_mask(tok) if kv is None else None                  # [B,1,S,S]
            return self._run(b, tok, mask, kv, gc)

    def _run(self, b, tok, mask, kv, gc, port=None) -> ForwardOutput:
        """Embedding ``LN_emb(emb[tok]·√d)``, the decoder stack and the output head on checked
        tokens [B, S] (inside ``b.context()``); ``port`` = (semantics, positions) or None."""
        c = self.config
        P = self.backend_params(b)
        x = P.embedding[tok] * b.sqrt(b.const(c.d_model))                          # [B,S,d]
        x = layer_norm(b, x, P.ln_emb.gamma, P.ln_emb.beta, c.ln_eps)
        x, deductive, new_kv, new_gc = self._layers(b, P, x, tok.shape[0], mask, kv, gc, port)
        if port is not None and port[0].gcache_batch == "sample0" and self.variant == "plga":
            new_gc = [[g[0][:1], g[1][:1]] for g in new_gc]
        logits = linear(b, x, P.head_W, P.head_b)                                  # [B,S,V]
        if b.is_arb:
            check_width(logits, "forward: the logits", b.dps)
        elif not np.all(b.isfinite(logits)):
            raise ValueError(f"forward ({b.name}): the logits overflowed to non-finite values")
        return ForwardOutput(logits=logits, deductive=deductive, kvcache=new_kv,
                             gcache=new_gc if self.variant == "plga" else None, hidden=x, backend=b)

    def _layers(self, b, P, x, B, mask, kv, gc, port=None):
        """The decoder stack on x [B, S, d] -> (x, deductive, new kv, new gc)."""
        H, dk = self.config.num_heads, self.config.d_k
        deductive, new_kv, new_gc = [], [], []
        for li, lp in enumerate(P.layers):
            try:
                x, ded, kv_l, gc_l = decoder_layer(b, self.config, lp, x, mask,
                                                   None if kv is None else kv[li],
                                                   None if gc is None else gc[li], port)
            except OverflowError as exc:   # mpmath: an exponent beyond its range
                raise ValueError(f"forward ({b.name}): layer {li} overflowed ({exc}); e.g. "
                                 "a power P too large for A_LM^P") from None
            _check_layer(b, li, ded, x, len(P.layers))
            for key in ("A_LM", "G_LM"):  # report operators as [B, H, dk, dk]
                if ded[key] is not None:
                    ded[key] = np.broadcast_to(ded[key], (B, H, dk, dk)).copy()
            deductive.append(ded)
            new_kv.append(kv_l)
            new_gc.append(gc_l)
        return x, deductive, new_kv, new_gc

    def _forward_port(self, tokens, backend, dps, kvcache, gcache, attention_mask, position_ids):
        """:meth:`forward` under a non-v510 semantics ``sem`` (:mod:`pyref.semantics`).

        Mask: ``pad_mask="attention_mask"``: causal plus the keys ``attention_mask`` marks 0
        (in cached calls too), nothing else; ``"tokens"``: v510's. Positions: ``position_ids``
        or cached length + 0…S-1 (the port's default); HF ``generate`` passes
        cumsum(attention_mask) - 1 (see :func:`hf_generate_positions`).  ``gcache_batch=
        "sample0"`` returns sample 0's [A_LM, G_LM] as the G-cache."""
        sem = self.semantics
        b = get_backend(backend, dps)
        c = self.config
        tok = check_tokens(tokens, c.vocab_size)
        B, S = tok.shape
        if attention_mask is not None and sem.pad_mask != "attention_mask":
            raise ValueError(f"forward: semantics {sem.name!r} masks pad keys by token id "
                             "(pad_mask='tokens') and takes no attention_mask")
        with b.context():
            kv, gc = self._prepare_caches(b, kvcache, gcache, B, S)
            T0 = 0 if kv is None else kv[0][0].shape[1]
            am = None if attention_mask is None else check_attention_mask(attention_mask, B,
                                                                          T0 + S)
            pos = _port_positions(position_ids, B, S, T0, c.max_seq_len, am is None and kv is None)
            if sem.pad_mask == "attention_mask":
                mask = port_causal_mask(S, T0, am)                                 # bool or None
            else:
                mask = causal_pad_mask(tok) > 0 if kv is None else None
            return self._run(b, tok, mask, kv, gc, (sem, pos))

    __call__ = forward

    # ------------------------------------------------------------------ generate
    def generate(self, prompt_tokens, max_new_tokens, kvcache=True, gcache=True,
                 backend="float64", dps=50, gcache_init=None, eos_id=None,
                 return_operators=False, attention_mask=None, accuracy=None) -> GenerateOutput:
        """Greedy decoding with the authors' cache semantics (spec B).

        Step 0 is a full (prefill) call on the prompt (with ``gcache_init`` as G-cache
        if given).  After each call, if ``kvcache`` the returned KV-cache is kept and the
        next call feeds only the new token; if ``gcache`` the returned [A_LM, G_LM] are
        kept and reused (so G stays the prefill G).  With both off, every step re-runs
        the full sequence.  ``prompt_tokens``: [S0] or [batch, S0].  Stops after
        ``max_new_tokens`` or (batch 1) when ``eos_id`` is produced.

        Under a non-v510 semantics (e.g. the HF port) this is HF ``generate``'s greedy loop
        instead (:meth:`_generate_port`); ``attention_mask`` [batch, S0] is its argument.
        ``accuracy`` (arb): each call as :meth:`forward` with it, starting at the digits the
        previous call used.
        """
        c = self.config
        p = np.asarray(prompt_tokens)
        if p.ndim == 1:
            p = p[None, :]
        p = check_tokens(p, c.vocab_size, "prompt_tokens")
        n = max_new_tokens
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError("generate: max_new_tokens must be a non-negative int, got "
                             f"{max_new_tokens!r}")
        if p.shape[1] + max_new_tokens > c.max_seq_len:
            raise ValueError(f"generate: prompt length {p.shape[1]} + max_new_tokens "
                             f"{max_new_tokens} exceeds max_seq_len={c.max_seq_len}")
        if not self._v510:
            return self._generate_port(p, n, kvcache, gcache, backend, dps, gcache_init, eos_id,
                                       return_operators, attention_mask, accuracy)
        if attention_mask is not None:
            raise ValueError("generate: attention_mask is an argument of the Hugging Face port; "
                             "the v510 semantics masks pad keys by token id 0")
        if gcache and self.variant != "plga":
            gcache = False  # fixed-operator models have no G-cache
        seq = p
        step_logits, step_G = [], ([] if return_operators else None)
        out = self.forward(seq, backend=backend, dps=dps, gcache=gcache_init, accuracy=accuracy)
        for _ in range(max_new_tokens):
            last = out.logits[:, -1, :]                                            # [B,V]
            nxt = (decided_argmaxes(last, f"generate (arb), new token {len(step_logits)}")
                   if out.backend.is_arb else
                   np.array([int(np.argmax(row)) for row in last], dtype=np.int64))
            step_logits.append(last)
            if return_operators:
                step_G.append([d["G_LM"] for d in out.deductive])
            seq = np.concatenate([seq, nxt[:, None]], axis=1)
            if eos_id is not None and seq.shape[0] == 1 and int(nxt[0]) == eos_id:
                break
            if seq.shape[1] >= p.shape[1] + max_new_tokens:
                break
            kv = out.kvcache if kvcache else None
            gc = out.gcache if gcache else gcache_init  # authors: G-cache off keeps the init list
            inp = nxt[:, None] if kvcache else seq
            out = self.forward(inp, backend=backend, dps=out.backend.dps, kvcache=kv, gcache=gc,
                               accuracy=accuracy)
        return GenerateOutput(tokens=seq, new_tokens=seq[:, p.shape[1]:], step_logits=step_logits,
                              step_G=step_G)

    def _generate_port(self, p, n, kvcache, gcache, backend, dps, gcache_init, eos_id,
                       return_operators, attention_mask, accuracy) -> GenerateOutput:
        """HF ``GenerationMixin.generate`` greedy search (transformers 4.56/4.57) under
        ``self.semantics``: the prompt's attention mask is ``attention_mask`` or the one HF
        infers (:func:`~pyref.semantics.hf_generate_attention_mask`), extended by a 1 per new
        token; position ids cumsum(mask) - 1 (:func:`~pyref.semantics.hf_generate_positions`);
        ``use_cache = kvcache`` drives both caches (``joint_cache``: ``gcache`` must equal it);
        after ``eos_id`` a row continues with the pad id and the loop stops once every row has
        produced it."""
        sem = self.semantics
        B = p.shape[0]
        use_cache = bool(kvcache)
        if sem.joint_cache and self.variant == "plga" and use_cache != bool(gcache):
            raise ValueError(f"generate: semantics {sem.name!r} has one use_cache switch for the "
                             f"KV- and the G-cache; got kvcache={kvcache!r}, gcache={gcache!r}")
        if gcache_init is not None:
            raise ValueError(f"generate: semantics {sem.name!r} has no G-cache initializer "
                             "(the port's constant-G models carry G as weights: ConstantGModel)")
        am = (hf_generate_attention_mask(p, sem) if attention_mask is None else
              check_attention_mask(attention_mask, B, p.shape[1]).astype(np.int64))
        pad = sem.pad_token_id if sem.pad_token_id is not None else eos_id
        seq, unfinished = p, np.ones(B, dtype=bool)
        step_logits, step_G = [], ([] if return_operators else None)
        out = self.forward(seq, backend=backend, dps=dps, attention_mask=am,
                           position_ids=hf_generate_positions(am), accuracy=accuracy)
        for _ in range(n):
            last = out.logits[:, -1, :]                                            # [B,V]
            nxt = (decided_argmaxes(last, f"generate (arb), new token {len(step_logits)}")
                   if out.backend.is_arb else
                   np.array([int(np.argmax(row)) for row in last], dtype=np.int64))
            if eos_id is not None:
                nxt = np.where(unfinished, nxt, pad)
                unfinished &= nxt != eos_id
            step_logits.append(last)
            if return_operators:
                step_G.append([d["G_LM"] for d in out.deductive])
            seq = np.concatenate([seq, nxt[:, None]], axis=1)
            am = np.concatenate([am, np.ones((B, 1), dtype=np.int64)], axis=1)
            if not unfinished.any() or seq.shape[1] >= p.shape[1] + n:
                break
            pos = hf_generate_positions(am)
            if use_cache:
                out = self.forward(nxt[:, None], backend=backend, dps=out.backend.dps,
                                   kvcache=out.kvcache, gcache=out.gcache, attention_mask=am,
                                   position_ids=pos[:, -1:], accuracy=accuracy)
            else:
                out = self.forward(seq, backend=backend, dps=out.backend.dps, attention_mask=am,
                                   position_ids=pos, accuracy=accuracy)
        return GenerateOutput(tokens=seq, new_tokens=seq[:, p.shape[1]:], step_logits=step_logits,
                              step_G=step_G)

    # ----------------------------------------------------------------- variants
    def operators(self, tokens, backend="float64", dps=50):
        """Per-layer G_LM [B, H, d_k, d_k] from one uncached forward pass on ``tokens``."""
        return [d["G_LM"] for d in self.forward(tokens, backend=backend, dps=dps).deductive]

    def to_constant_operator(self, G=None, tokens=None, backend="float64", dps=50):
        """The v510Gi transplant: a :class:`ConstantGModel` sharing every weight except
        ``reslayerAs``, ``plgatt_layer`` and ``mha1.layernorm1``, with the constant
        operator ``G`` (list over layers of [H, d_k, d_k]) or, if ``tokens`` is given,
        the G_LM of one forward pass on ``tokens`` (the authors use the single EOS token)."""
        if (G is None) == (tokens is None):
            raise ValueError("to_constant_operator: give exactly one of G or tokens")
        if tokens is not None:
            t = np.asarray(tokens)
            if t.ndim != 2 or t.shape[0] != 1:
                raise ValueError("to_constant_operator: tokens must be [1, S], got shape "
                                 f"{t.shape}")
            G = [to_float64(g)[0] for g in self.operators(t, backend=backend, dps=dps)]
        return ConstantGModel.from_state_dict(self._params, self.config, G=G, strict=False,
                                              semantics=self.semantics)

    def to_sdpa(self):
        """An :class:`SDPAModel` sharing every weight except the operator learner."""
        return SDPAModel.from_state_dict(self._params, self.config, strict=False,
                                         semantics=self.semantics)


class ConstantGModel(PLDRModel):
    """The constant-operator ablation (v510G / v510Gi): scores Q̂ G K̂ᵀ/√d_k with a fixed
    per-layer G [H, d_k, d_k] (not a parameter, not in the state dict); no Φ_res and no
    W, b, P, a, b_a.  KV-cache entries are [K̂, V].  G = I gives SDPA.

    ``G`` may be given as arrays of numbers or (for mp) strings/mpf objects."""

    variant = "constant"

    def __init__(self, config: PLDRConfig, params, G=None, semantics=V510):
        super().__init__(config, params, semantics=semantics)
        self._G = check_constant_operators(G, config)

    @classmethod
    def random(cls, config: PLDRConfig, seed: int = 0, init: str = "kvg", G=None,
               semantics=V510):
        return cls(config, _random_params(config, seed, cls.variant, init), G=G,
                   semantics=semantics)

    @property
    def G(self):
        """The per-layer constant operators (copies)."""
        return [g.copy() for g in self._G]

    def _operator_source(self, b: Backend, li: int, sd):
        return ConstantOperator(b.asarray(self._G[li]))

    def _extra_arrays(self):
        if any(g.dtype == object for g in self._G):
            return {CONSTANT_G_PREFIX + str(li): to_float64(g) for li, g in enumerate(self._G)}
        return {CONSTANT_G_PREFIX + str(li): g for li, g in enumerate(self._G)}


class SDPAModel(PLDRModel):
    """The SDPA model: PLDR-LLM with the operator pinned to I, computed on a separate
    code path (softmax(Q̂K̂ᵀ/√d_k + mask) V, no operator product).  Same keys as the
    constant-operator model."""

    variant = "sdpa"

    def _operator_source(self, b: Backend, li: int, sd):
        return IdentityOperator()
