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
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .attention import ConstantOperator, IdentityOperator, PLGAOperator, multi_head_attention
from .backend import Backend, get_backend, to_float64
from .checkpoint import CONSTANT_G_PREFIX, load_arrays, save_arrays
from .config import PLDRConfig
from .inputs import check_constant_operators, check_tokens, prepare_gcache, prepare_kvcache
from .ops import layer_norm, linear, swiglu
from .params import learner_params, model_params
from .plga import causal_pad_mask
from .state_dict import mha_prefix, state_dict_shapes, validate_state_dict


@dataclass
class ForwardOutput:
    """Result of :meth:`PLDRModel.forward`.

    ``logits`` [B, S, V]; ``deductive``: list over layers of dicts with ``"A"``,
    ``"A_LM"``, ``"A_P"``, ``"G_LM"`` ([B, H, d_k, d_k], or None where not computed: A*
    in SDPA/constant models, ``A_P`` when a G-cache supplied the operator) and ``"E"``
    ([B, H, S, T], the scaled scores before the mask); ``kvcache``: list over layers of
    [K̂ [B,T,H,d_k] (rotated), V [B,T,H,d_k], A [B,H,d_k,d_k]] (no A for SDPA/constant);
    ``gcache``: list over layers of [A_LM, G_LM] (None for SDPA/constant models);
    ``hidden``: last decoder output [B, S, d].  Arrays are backend arrays (object arrays
    of mpf for ``"mp"``).
    """

    logits: np.ndarray
    deductive: list
    kvcache: list
    gcache: list | None
    hidden: np.ndarray
    backend: Backend = field(default_factory=Backend)


@dataclass
class GenerateOutput:
    """Result of :meth:`PLDRModel.generate`: ``tokens`` [B, S0 + n] (prompt + generated),
    ``new_tokens`` [B, n], ``step_logits`` (list of n arrays [B, V]: the logits each new
    token was chosen from), ``step_G`` (list over steps of per-layer G_LM, only if
    ``return_operators``)."""

    tokens: np.ndarray
    new_tokens: np.ndarray
    step_logits: list
    step_G: list | None = None


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


def decoder_layer(b: Backend, cfg: PLDRConfig, p, x, mask, kv=None, gc=None):
    """One post-LN decoder layer (``p``: :class:`~pyref.params.LayerParams`):
    Y = MHA(X); X' = LN₁(X + Y); X = LN₂(X' + FFN(X')).  Returns (X, deductive, kv, gc)."""
    y, ded, new_kv, new_gc = multi_head_attention(b, cfg, p.attention, x, mask, kv=kv, gc=gc)
    f = p.ffn
    x1 = layer_norm(b, x + y, p.ln1.gamma, p.ln1.beta, cfg.ln_eps)                   # [B,S,d]
    x = layer_norm(b, x1 + swiglu(b, x1, f.W1, f.b1, f.W2, f.b2, f.W3, f.b3),
                   p.ln2.gamma, p.ln2.beta, cfg.ln_eps)
    return x, ded, new_kv, new_gc


def _check_layer(b, li, ded, x):
    """Raise instead of returning NaN/inf (e.g. A_LM^P overflowing in float32, or a
    metric_eps = 0 model with a zero A_LM entry raised to a negative power)."""
    for key in ("A", "A_LM", "A_P", "G_LM"):
        if ded[key] is not None and not np.all(b.isfinite(ded[key])):
            raise ValueError(f"forward ({b.name}): layer {li} {key} has non-finite entries")
    if not np.all(b.isfinite(x)):
        raise ValueError(f"forward ({b.name}): layer {li} output has non-finite entries")


class PLDRModel:
    """The PLDR-LLM v510 model (learned operator, ``variant = "plga"``).

    Construct with :meth:`random`, :meth:`from_state_dict` or :meth:`load`.
    """

    variant = "plga"

    def __init__(self, config: PLDRConfig, params):
        if not isinstance(config, PLDRConfig):
            raise ValueError(f"PLDRModel: config must be a PLDRConfig, got {type(config).__name__}")
        self.config = config
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
    def load(cls, path, config: PLDRConfig | None = None, **kw):
        """Load a checkpoint written by :meth:`save` (or any v510 state dict saved as
        safetensors/npz; then pass ``config``)."""
        arrays, cfg = load_arrays(path)
        if config is None:
            if cfg is None:
                raise ValueError(f"load: {path!r} carries no pyref config; pass "
                                 "config=PLDRConfig(...)")
            config = cfg
        return cls._from_loaded(arrays, config, **kw)

    @classmethod
    def _from_loaded(cls, arrays, config, **kw):
        return cls.from_state_dict(arrays, config, **kw)

    def __repr__(self):
        return f"{type(self).__name__}({self.config})"

    # ------------------------------------------------------------------- params
    def _operator_source(self, b: Backend, li: int, sd):
        """The variant's choice of operator for layer ``l`` (``sd``: state dict in ``b``)."""
        return PLGAOperator(learner_params(sd, mha_prefix(li), self.config))

    def backend_params(self, b: Backend):
        """The parameters as :class:`~pyref.params.ModelParams` records in backend ``b``
        (converted once per backend and cached)."""
        key = (b.name, b.dps if b.is_mp else None)
        if key not in self._conv_cache:
            with b.context():
                with np.errstate(over="ignore"):   # an overflow is reported just below
                    sd = {k: b.asarray(v) for k, v in self._params.items()}
                for k, v in sd.items():   # blame a float32 overflow on the conversion
                    if not b.is_mp and not np.all(np.isfinite(v)):
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
    def forward(self, tokens, backend="float64", dps=50, kvcache=None,
                gcache=None) -> ForwardOutput:
        """Run the model on ``tokens`` [batch, S] (int ids in [0, vocab)).

        ``backend``: "float64", "float32" or "mp" (at ``dps`` decimal digits).
        ``kvcache``: None (full causal+pad-masked call at positions 0…S-1) or the
        ``.kvcache`` of a previous call; then ``tokens`` must be [batch, 1], RoPE uses
        position = cached length, no mask is applied, and A is the cached prefill A.
        ``gcache``: None or per-layer [A_LM, G_LM] (e.g. a previous ``.gcache``); then
        the operator is taken from it instead of being recomputed (plga models only).
        """
        b = get_backend(backend, dps)
        c = self.config
        tok = check_tokens(tokens, c.vocab_size)
        B, S = tok.shape
        H, dk = c.num_heads, c.d_k
        with b.context():
            kv, gc = self._prepare_caches(b, kvcache, gcache, B, S)
            P = self.backend_params(b)
            mask = causal_pad_mask(tok) if kv is None else None                  # [B,1,S,S]
            x = P.embedding[tok] * b.sqrt(b.const(c.d_model))                      # [B,S,d]
            x = layer_norm(b, x, P.ln_emb.gamma, P.ln_emb.beta, c.ln_eps)
            deductive, new_kv, new_gc = [], [], []
            for li, lp in enumerate(P.layers):
                try:
                    x, ded, kv_l, gc_l = decoder_layer(b, c, lp, x, mask,
                                                       None if kv is None else kv[li],
                                                       None if gc is None else gc[li])
                except OverflowError as exc:   # mpmath: an exponent beyond its range
                    raise ValueError(f"forward ({b.name}): layer {li} overflowed ({exc}); e.g. "
                                     "a power P too large for A_LM^P") from None
                _check_layer(b, li, ded, x)
                for key in ("A_LM", "G_LM"):  # report operators as [B, H, dk, dk]
                    if ded[key] is not None:
                        ded[key] = np.broadcast_to(ded[key], (B, H, dk, dk)).copy()
                deductive.append(ded)
                new_kv.append(kv_l)
                new_gc.append(gc_l)
            logits = linear(x, P.head_W, P.head_b)                                 # [B,S,V]
            if not np.all(b.isfinite(logits)):
                raise ValueError(f"forward ({b.name}): the logits overflowed to non-finite values")
        return ForwardOutput(logits=logits, deductive=deductive, kvcache=new_kv,
                             gcache=new_gc if self.variant == "plga" else None, hidden=x, backend=b)

    __call__ = forward

    # ------------------------------------------------------------------ generate
    def generate(self, prompt_tokens, max_new_tokens, kvcache=True, gcache=True,
                 backend="float64", dps=50, gcache_init=None, eos_id=None,
                 return_operators=False) -> GenerateOutput:
        """Greedy decoding with the authors' cache semantics (spec B).

        Step 0 is a full (prefill) call on the prompt (with ``gcache_init`` as G-cache
        if given).  After each call, if ``kvcache`` the returned KV-cache is kept and the
        next call feeds only the new token; if ``gcache`` the returned [A_LM, G_LM] are
        kept and reused (so G stays the prefill G).  With both off, every step re-runs
        the full sequence.  ``prompt_tokens``: [S0] or [batch, S0].  Stops after
        ``max_new_tokens`` or (batch 1) when ``eos_id`` is produced.
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
        if gcache and self.variant != "plga":
            gcache = False  # fixed-operator models have no G-cache
        seq = p
        step_logits, step_G = [], ([] if return_operators else None)
        out = self.forward(seq, backend=backend, dps=dps, gcache=gcache_init)
        for _ in range(max_new_tokens):
            last = out.logits[:, -1, :]                                            # [B,V]
            nxt = np.array([int(np.argmax(row)) for row in last], dtype=np.int64)
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
            out = self.forward(inp, backend=backend, dps=dps, kvcache=kv, gcache=gc)
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
        return ConstantGModel.from_state_dict(self._params, self.config, G=G, strict=False)

    def to_sdpa(self):
        """An :class:`SDPAModel` sharing every weight except the operator learner."""
        return SDPAModel.from_state_dict(self._params, self.config, strict=False)


class ConstantGModel(PLDRModel):
    """The constant-operator ablation (v510G / v510Gi): scores Q̂ G K̂ᵀ/√d_k with a fixed
    per-layer G [H, d_k, d_k] (not a parameter, not in the state dict); no Φ_res and no
    W, b, P, a, b_a.  KV-cache entries are [K̂, V].  G = I gives SDPA.

    ``G`` may be given as arrays of numbers or (for mp) strings/mpf objects."""

    variant = "constant"

    def __init__(self, config: PLDRConfig, params, G=None):
        super().__init__(config, params)
        self._G = check_constant_operators(G, config)

    @classmethod
    def random(cls, config: PLDRConfig, seed: int = 0, init: str = "kvg", G=None):
        return cls(config, _random_params(config, seed, cls.variant, init), G=G)

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

    @classmethod
    def _from_loaded(cls, arrays, config, **kw):
        gkeys = sorted((k for k in arrays if k.startswith(CONSTANT_G_PREFIX)),
                       key=lambda k: k[len(CONSTANT_G_PREFIX):].zfill(20))
        if "G" not in kw:
            kw["G"] = [arrays[k] for k in gkeys] or None   # checked against the config later
        rest = arrays.select([k for k in arrays if not k.startswith(CONSTANT_G_PREFIX)])
        return cls.from_state_dict(rest, config, **kw)


class SDPAModel(PLDRModel):
    """The SDPA model: PLDR-LLM with the operator pinned to I, computed on a separate
    code path (softmax(Q̂K̂ᵀ/√d_k + mask) V, no operator product).  Same keys as the
    constant-operator model."""

    variant = "sdpa"

    def _operator_source(self, b: Backend, li: int, sd):
        return IdentityOperator()
