"""PLDRConfig: the hyperparameters of a PLDR-LLM v510 model (spec A.0).

Imports nothing from :mod:`pyref`. :meth:`PLDRConfig.num_parameters` is the closed-form
count; :func:`pyref.state_dict.num_parameters` sums the state-dict shapes, and a test keeps
the two equal."""
from __future__ import annotations

import json
import math
from dataclasses import MISSING, asdict, dataclass, fields

import numpy as np

try:
    import resource  # POSIX only: the address-space limit
except ImportError:  # pragma: no cover - Windows
    resource = None


def _check_pos_int(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"PLDRConfig.{name}: expected a positive int, got {v!r}")


def _check_pos_float(name, v, allow_zero=False):
    """A finite positive (or non-negative) real number; strings, bools and None are refused
    (``rope_base='1e4'`` would otherwise be stored as a string)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"PLDRConfig.{name}: expected a real number, got {type(v).__name__} "
                         f"{v!r}")
    f = float(v)
    if not math.isfinite(f) or f < 0 or (f == 0 and not allow_zero):
        raise ValueError(f"PLDRConfig.{name}: expected a finite "
                         f"{'non-negative' if allow_zero else 'positive'} number, got {v!r}")


def available_memory() -> int | None:
    """Bytes this process may still allocate: the smaller of the address-space limit
    (``RLIMIT_AS``, minus what is mapped now) and the kernel's ``MemAvailable``; None where
    neither is known."""
    limits = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    soft = resource.getrlimit(resource.RLIMIT_AS)[0] if resource is not None else None
    if soft is not None and soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm", encoding="ascii") as f:
                mapped = int(f.read().split()[0]) * resource.getpagesize()
        except (OSError, ValueError, IndexError):
            mapped = 0
        limits.append(max(0, soft - mapped))
    return min(limits) if limits else None


@dataclass(frozen=True)
class PLDRConfig:
    """Hyperparameters of a PLDR-LLM v510 model.

    ``num_layers`` L, ``d_model`` d, ``num_heads`` H (d_k = d/H must be even for
    RoPE), ``dff`` FFN hidden width, ``a_dff`` hidden width of the Φ_res SwiGLU
    blocks, ``num_res_units`` N_res (``num_reslayerA``), ``num_glu_blocks`` SwiGLU
    blocks per residual unit (``num_denseA``, 2 in the paper), ``vocab_size`` V
    (token 0 is ``[PAD]``), ``max_seq_len`` (RoPE table length), ``rope_base`` Θ,
    ``ln_eps`` (every LayerNorm), ``metric_eps`` (the ε added to A_LM).
    """

    num_layers: int
    d_model: int
    num_heads: int
    dff: int
    a_dff: int
    num_res_units: int
    num_glu_blocks: int
    vocab_size: int
    max_seq_len: int
    rope_base: float = 1e4
    ln_eps: float = 1e-6
    metric_eps: float = 1e-9

    def __post_init__(self):
        for n in ("num_layers", "d_model", "num_heads", "dff", "a_dff", "num_res_units",
                  "num_glu_blocks", "vocab_size", "max_seq_len"):
            _check_pos_int(n, getattr(self, n))
        if self.d_model % self.num_heads:
            raise ValueError(f"PLDRConfig: d_model={self.d_model} is not divisible by "
                             f"num_heads={self.num_heads}")
        if self.d_k % 2:
            raise ValueError(f"PLDRConfig: head dim d_k = d_model/num_heads = {self.d_k} must be "
                             "even (RoPE rotates pairs)")
        for n in ("rope_base", "ln_eps", "metric_eps"):
            _check_pos_float(n, getattr(self, n), allow_zero=n == "metric_eps")
            object.__setattr__(self, n, float(getattr(self, n)))   # stored as a Python float
        for n in ("num_layers", "d_model", "num_heads", "dff", "a_dff", "num_res_units",
                  "num_glu_blocks", "vocab_size", "max_seq_len"):
            object.__setattr__(self, n, int(getattr(self, n)))

    @property
    def d_k(self) -> int:
        """Head dimension d_k = d_model / num_heads."""
        return self.d_model // self.num_heads

    @classmethod
    def paper(cls, a_dff: int = 170, max_seq_len: int = 1024) -> "PLDRConfig":
        """The paper's "110M" configuration (spec A.0): L=5, H=14, d_k=64, d=896,
        dff=2389, A_dff=170 (the v510 sample script uses 180), N_res=8, 2 blocks, V=32000."""
        return cls(num_layers=5, d_model=896, num_heads=14, dff=2389, a_dff=a_dff,
                   num_res_units=8, num_glu_blocks=2, vocab_size=32000, max_seq_len=max_seq_len)

    def num_parameters(self, variant: str = "plga") -> int:
        """Parameter count in closed form (109,689,362 for :meth:`paper`).

        Per layer: q, k, v, output projections ``4·(d² + d)``; FFN SwiGLU
        ``2·(dff·d + dff) + d·dff + d``; two LayerNorms ``4d``; and for the learned
        operator (``variant="plga"``) five ``H·d_k²`` operator tensors, LN_A ``2·d_k`` and
        ``N_res`` residual units of ``n_blocks`` SwiGLU blocks (``d_k → a_dff → d_k``) plus
        a LayerNorm each.  Top level: embedding ``V·d``, LayerNorm ``2d``, head ``d·V + V``.
        """
        if variant not in ("plga", "constant", "sdpa"):
            raise ValueError(f"PLDRConfig.num_parameters: variant must be 'plga', 'constant' "
                             f"or 'sdpa', got {variant!r}")
        d, dk, H, f, a = self.d_model, self.d_k, self.num_heads, self.dff, self.a_dff
        glu = 2 * (f * d + f) + d * f + d
        layer = 4 * (d * d + d) + glu + 4 * d
        if variant == "plga":
            block = 2 * (a * dk + a) + dk * a + dk
            unit = self.num_glu_blocks * block + 2 * dk
            layer += 5 * H * dk * dk + 2 * dk + self.num_res_units * unit
        V = self.vocab_size
        return V * d + self.num_layers * layer + 2 * d + d * V + V

    def require_memory(self, variant: str = "plga", copies: int = 2, what: str = "model") -> None:
        """Raise ValueError (naming the size) if ``copies`` float64 copies of the parameters do
        not fit in :func:`available_memory` (``copies=2``: the file's arrays and their validated
        float64 copies). Checked before anything of that size is allocated."""
        need = self.num_parameters(variant) * 8 * copies
        have = available_memory()
        if have is not None and need > have:
            raise ValueError(f"{what}: this configuration has {self.num_parameters(variant):,} "
                             f"parameters and needs ~{need / 2**30:.1f} GiB as float64; "
                             f"{have / 2**30:.1f} GiB are available")

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict) -> "PLDRConfig":
        if not isinstance(d, dict):
            raise ValueError(f"PLDRConfig.from_dict: expected a dict, got {type(d).__name__}")
        names = {f.name for f in fields(cls)}
        extra = set(d) - names
        if extra:
            raise ValueError(f"PLDRConfig.from_dict: unknown fields {sorted(extra)}")
        required = [f.name for f in fields(cls) if f.default is MISSING]
        missing = [n for n in required if n not in d]
        if missing:
            raise ValueError(f"PLDRConfig.from_dict: missing fields {missing} (required: "
                             f"{required})")
        return cls(**d)

    @classmethod
    def from_json(cls, s: str) -> "PLDRConfig":
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise ValueError(f"PLDRConfig.from_json: invalid JSON ({e})") from None
        if not isinstance(d, dict):
            raise ValueError("PLDRConfig.from_json: expected a JSON object")
        return cls.from_dict(d)
