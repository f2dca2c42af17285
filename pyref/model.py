"""PLDRModel: the PLDR-LLM v510 decoder (spec A), its KV-cache and G-cache (spec B),
and the SDPA / constant-operator variants.

    X⁰ = LN_emb(√d · E[tok])                                   embedding   [B,S,d]
    for each layer:  Y = MHA(X);  X' = LN₁(X + Y);  X = LN₂(X' + FFN(X'))   (post-LN)
    logits = X Wᵀ_out + b_out                                   untied head [B,S,V]

Parameters live in an ordered dict of read-only float64 arrays keyed exactly like the
PyTorch v510 ``state_dict()``; each backend gets its own converted copy (cached).

Differences to the authors' code (documented, deliberate): the float64 backend computes
RoPE, the 1/√d_k score scale and the √d embedding scale in float64 (the authors' code
evaluates RoPE in float32, and √d and √d_k as float32 scalars, even in a float64 model;
for d_k = 64 the √d_k difference vanishes since √64 = 8 exactly).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .backend import Backend, get_backend
from .checkpoint import (CONSTANT_G_PREFIX, load_arrays, save_arrays, state_dict_shapes,
                         validate_state_dict)
from .config import PLDRConfig
from .layers import _layer_norm, _linear, _swiglu
from .plga import _mha, causal_pad_mask


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
    """The spec's initializers (A.5) with a numpy Generator seeded by ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"random: seed must be a non-negative int, got {seed!r}")
    if init not in ("kvg", "soc"):
        raise ValueError(f"random: init must be 'kvg' (W_V torch default) or 'soc' (W_V Xavier), got {init!r}")
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
            raise ValueError(f"from_state_dict: config must be a PLDRConfig, got {type(config).__name__}")
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
                raise ValueError(f"load: {path!r} carries no pyref config; pass config=PLDRConfig(...)")
            config = cfg
        return cls._from_loaded(arrays, config, **kw)

    @classmethod
    def _from_loaded(cls, arrays, config, **kw):
        return cls.from_state_dict(arrays, config, **kw)

    def __repr__(self):
        return f"{type(self).__name__}({self.config})"

    # ------------------------------------------------------------------- params
    def _backend_params(self, b: Backend):
        """Nested parameter structure converted to backend ``b`` (cached per backend)."""
        key = (b.name, b.dps if b.is_mp else None)
        if key in self._conv_cache:
            return self._conv_cache[key]
        c, P = self.config, self._params
        with b.context():
            cv = {k: b.asarray(v) for k, v in P.items()}
            layers = []
            for l in range(c.num_layers):
                pre = f"decoder.dec_layers.{l}."
                m = {k[len(pre) + 5:]: v for k, v in cv.items() if k.startswith(pre + "mha1.")}
                if self.variant == "plga":
                    units = []
                    for u in range(c.num_res_units):
                        r = f"reslayerAs.{u}."
                        blocks = []
                        for g in range(c.num_glu_blocks):
                            q = r + f"denseAs.{g}."
                            blocks.append(tuple(m[q + n] for n in (
                                "gluw1.weight", "gluw1.bias", "gluw2.weight", "gluw2.bias",
                                "gluw3.weight", "gluw3.bias")))
                        units.append({"blocks": blocks, "gamma": m[r + "layernormA.weight"],
                                      "beta": m[r + "layernormA.bias"]})
                    m["_units"] = units
                ffn = tuple(cv[pre + "ffn." + n] for n in (
                    "gluw1.weight", "gluw1.bias", "gluw2.weight", "gluw2.bias", "gluw3.weight", "gluw3.bias"))
                layers.append({"mha": m, "ffn": ffn,
                               "ln1": (cv[pre + "layernorm1.weight"], cv[pre + "layernorm1.bias"]),
                               "ln2": (cv[pre + "layernorm2.weight"], cv[pre + "layernorm2.bias"])})
            out = {"emb": cv["decoder.embedding.weight"],
                   "ln_emb": (cv["decoder.layernorm1.weight"], cv["decoder.layernorm1.bias"]),
                   "layers": layers,
                   "head": (cv["final_layer.weight"], cv["final_layer.bias"]),
                   "G": self._backend_G(b)}
        self._conv_cache[key] = out
        return out

    def _backend_G(self, b):
        return None

    # ------------------------------------------------------------------ validation
    def _check_tokens(self, tokens, what="tokens"):
        t = np.asarray(tokens)
        if t.dtype == object or t.dtype.kind not in "iu":
            raise ValueError(f"{what}: expected integer token ids, got dtype {t.dtype}")
        if t.ndim != 2:
            raise ValueError(f"{what}: expected shape [batch, S], got {t.shape}")
        if t.shape[0] < 1 or t.shape[1] < 1:
            raise ValueError(f"{what}: empty batch or sequence, shape {t.shape}")
        V = self.config.vocab_size
        bad = (t < 0) | (t >= V)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{what}: token id {int(t[idx])} at index {idx} is out of range [0, {V})")
        return t.astype(np.int64)

    def _check_op(self, name, M, B):
        c = self.config
        shp = np.shape(M)
        ok = shp == (c.num_heads, c.d_k, c.d_k) or (
            len(shp) == 4 and shp[1:] == (c.num_heads, c.d_k, c.d_k) and shp[0] in (1, B))
        if not ok:
            raise ValueError(f"{name}: expected shape [{B} or 1, {c.num_heads}, {c.d_k}, {c.d_k}] "
                             f"or [{c.num_heads}, {c.d_k}, {c.d_k}], got {shp}")

    def _check_finite(self, b, name, M):
        if not np.all(b.isfinite(M)):
            raise ValueError(f"{name}: contains non-finite values")

    def _prep_kvcache(self, b, kvcache, B, S):
        c = self.config
        L, H, dk = c.num_layers, c.num_heads, c.d_k
        n_items = 3 if self.variant == "plga" else 2
        if not isinstance(kvcache, (list, tuple)) or len(kvcache) != L:
            raise ValueError(f"kvcache: expected a list of {L} per-layer caches, got "
                             f"{type(kvcache).__name__} of length {len(kvcache) if hasattr(kvcache, '__len__') else '?'}")
        if S != 1:
            raise ValueError(f"kvcache: a cached call takes exactly one new token per sequence "
                             f"(authors' v510 semantics), got S={S}")
        out, T0 = [], None
        for l, e in enumerate(kvcache):
            if not isinstance(e, (list, tuple)) or len(e) != n_items:
                raise ValueError(f"kvcache[{l}]: expected [K, V{', A' if n_items == 3 else ''}] ({n_items} arrays)")
            K, Vv = np.asarray(e[0]), np.asarray(e[1])
            if K.ndim != 4 or K.shape[0] != B or K.shape[2:] != (H, dk) or Vv.shape != K.shape:
                raise ValueError(f"kvcache[{l}]: K and V must be [{B}, T, {H}, {dk}], got {K.shape} and {Vv.shape}")
            if T0 is None:
                T0 = K.shape[1]
            if K.shape[1] != T0 or T0 < 1:
                raise ValueError(f"kvcache[{l}]: cached length {K.shape[1]} differs from layer 0's {T0} (or is 0)")
            item = [b.asarray(K), b.asarray(Vv)]
            if n_items == 3:
                A = np.asarray(e[2])
                if A.shape != (B, H, dk, dk):
                    raise ValueError(f"kvcache[{l}]: A must be [{B}, {H}, {dk}, {dk}], got {A.shape}")
                item.append(b.asarray(A))
            for nm, arr in zip("KVA", item):
                self._check_finite(b, f"kvcache[{l}].{nm}", arr)
            out.append(item)
        return out, T0

    def _prep_gcache(self, b, gcache, B):
        L = self.config.num_layers
        if self.variant != "plga":
            raise ValueError(f"gcache: the {self.variant} model has a fixed operator and takes no G-cache")
        if not isinstance(gcache, (list, tuple)) or len(gcache) != L:
            raise ValueError(f"gcache: expected a list of {L} per-layer [A_LM, G_LM] pairs")
        out = []
        for l, e in enumerate(gcache):
            if not isinstance(e, (list, tuple)) or len(e) != 2:
                raise ValueError(f"gcache[{l}]: expected [A_LM, G_LM]")
            item = []
            for nm, M in zip(("A_LM", "G_LM"), e):
                self._check_op(f"gcache[{l}].{nm}", M, B)
                M = b.asarray(M)
                self._check_finite(b, f"gcache[{l}].{nm}", M)
                item.append(M)
            out.append(item)
        return out

    @staticmethod
    def _check_layer(b, l, ded, x):
        """Raise instead of returning NaN/inf (e.g. A_LM^P overflowing in float32, or a
        metric_eps = 0 model with a zero A_LM entry raised to a negative power)."""
        for key in ("A", "A_LM", "A_P", "G_LM"):
            if ded[key] is not None and not np.all(b.isfinite(ded[key])):
                raise ValueError(f"forward ({b.name}): layer {l} {key} has non-finite entries")
        if not np.all(b.isfinite(x)):
            raise ValueError(f"forward ({b.name}): layer {l} output has non-finite entries")

    # ------------------------------------------------------------------- forward
    def forward(self, tokens, backend="float64", dps=50, kvcache=None, gcache=None) -> ForwardOutput:
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
        tok = self._check_tokens(tokens)
        B, S = tok.shape
        with b.context():
            kv, T0 = (None, 0) if kvcache is None else self._prep_kvcache(b, kvcache, B, S)
            if T0 + S > c.max_seq_len:
                raise ValueError(f"tokens: sequence length {T0 + S} (cached {T0} + new {S}) exceeds "
                                 f"max_seq_len={c.max_seq_len}")
            gc = None if gcache is None else self._prep_gcache(b, gcache, B)
            P = self._backend_params(b)
            mask = causal_pad_mask(tok) if kv is None else None                  # [B,1,S,S]
            x = P["emb"][tok] * b.sqrt(b.const(c.d_model))                         # [B,S,d]
            x = _layer_norm(b, x, *P["ln_emb"], c.ln_eps)
            deductive, new_kv, new_gc = [], [], []
            mode = self.variant
            H, dk = c.num_heads, c.d_k
            for l, lp in enumerate(P["layers"]):
                y, ded, kv_l, gc_l = _mha(b, c, lp["mha"], x, mask,
                                          kv=None if kv is None else kv[l],
                                          gc=None if gc is None else gc[l],
                                          mode=mode, G_const=None if P["G"] is None else P["G"][l])
                x1 = _layer_norm(b, x + y, *lp["ln1"], c.ln_eps)                   # [B,S,d]
                x = _layer_norm(b, x1 + _swiglu(b, x1, *lp["ffn"]), *lp["ln2"], c.ln_eps)
                self._check_layer(b, l, ded, x)
                for key in ("A_LM", "G_LM"):  # report operators as [B, H, dk, dk]
                    if ded[key] is not None:
                        ded[key] = np.broadcast_to(ded[key], (B, H, dk, dk)).copy()
                if mode == "sdpa":
                    ded["G_LM"] = np.broadcast_to(b.eye(dk), (B, H, dk, dk)).copy()
                deductive.append(ded)
                new_kv.append(kv_l)
                new_gc.append(gc_l)
            logits = _linear(x, *P["head"])                                        # [B,S,V]
            if not np.all(b.isfinite(logits)):
                raise ValueError(f"forward ({b.name}): the logits overflowed to non-finite values")
        return ForwardOutput(logits=logits, deductive=deductive, kvcache=new_kv,
                             gcache=new_gc if mode == "plga" else None, hidden=x, backend=b)

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
        p = self._check_tokens(p, "prompt_tokens")
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, (int, np.integer)) or max_new_tokens < 0:
            raise ValueError(f"generate: max_new_tokens must be a non-negative int, got {max_new_tokens!r}")
        if p.shape[1] + max_new_tokens > c.max_seq_len:
            raise ValueError(f"generate: prompt length {p.shape[1]} + max_new_tokens {max_new_tokens} "
                             f"exceeds max_seq_len={c.max_seq_len}")
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
                raise ValueError(f"to_constant_operator: tokens must be [1, S], got shape {t.shape}")
            from .backend import to_float64
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
        L, H, dk = config.num_layers, config.num_heads, config.d_k
        if G is None:
            G = [np.broadcast_to(np.eye(dk), (H, dk, dk)) for _ in range(L)]
        if not isinstance(G, (list, tuple)) or len(G) != L:
            raise ValueError(f"ConstantGModel: G must be a list of {L} per-layer operators")
        self._G = []
        for l, g in enumerate(G):
            a = np.asarray(g)
            if a.ndim == 4 and a.shape[0] == 1:
                a = a[0]
            if a.shape != (H, dk, dk):
                raise ValueError(f"ConstantGModel: G[{l}] must be [{H}, {dk}, {dk}] (or [1, ...]), got {a.shape}")
            if a.dtype != object:
                if a.dtype.kind != "f" and a.dtype.kind not in "iu":
                    raise ValueError(f"ConstantGModel: G[{l}] has dtype {a.dtype}, expected floats")
                a = a.astype(np.float64)
                if not np.all(np.isfinite(a)):
                    raise ValueError(f"ConstantGModel: G[{l}] contains non-finite values")
            self._G.append(a.copy())

    @classmethod
    def random(cls, config: PLDRConfig, seed: int = 0, init: str = "kvg", G=None):
        return cls(config, _random_params(config, seed, cls.variant, init), G=G)

    @property
    def G(self):
        """The per-layer constant operators (copies)."""
        return [g.copy() for g in self._G]

    def _backend_G(self, b):
        return [b.asarray(g) for g in self._G]

    def _extra_arrays(self):
        if any(g.dtype == object for g in self._G):
            from .backend import to_float64
            return {CONSTANT_G_PREFIX + str(l): to_float64(g) for l, g in enumerate(self._G)}
        return {CONSTANT_G_PREFIX + str(l): g for l, g in enumerate(self._G)}

    @classmethod
    def _from_loaded(cls, arrays, config, **kw):
        G = [arrays.pop(CONSTANT_G_PREFIX + str(l)) for l in range(config.num_layers)
             if CONSTANT_G_PREFIX + str(l) in arrays] or None
        if "G" not in kw:
            kw["G"] = G
        return cls.from_state_dict(arrays, config, **kw)


class SDPAModel(PLDRModel):
    """The SDPA model: PLDR-LLM with the operator pinned to I, computed on a separate
    code path (softmax(Q̂K̂ᵀ/√d_k + mask) V, no operator product).  Same keys as the
    constant-operator model."""

    variant = "sdpa"
