"""pyref -- the arbitrary-precision reference implementation of PLDR-LLM v510
(Power Law Graph Attention), restated from ``PLGA_SPEC.md``.

Backends (one code path): ``"float64"`` (numpy), ``"float32"`` (numpy float32 throughout),
``"mp"`` (mpmath at ``dps`` decimal digits, default 50; arrays are object arrays of
``mpf``) and ``"arb"`` (Arb ball arithmetic via python-flint at ``dps`` digits: object arrays
of ``arb`` balls that enclose the exact values; :mod:`pyref.arb`).

Main API::

    cfg = pyref.PLDRConfig(num_layers=1, d_model=8, num_heads=2, dff=12, a_dff=6,
                num_res_units=2, num_glu_blocks=2, vocab_size=11, max_seq_len=16)
    model = pyref.PLDRModel.random(cfg, seed=0)
    out = model.forward([[3, 5, 7]], backend="mp", dps=50)
    out.logits                     # [batch, S, vocab]
    out.deductive[l]["G_LM"]       # [batch, heads, d_k, d_k]
    model.generate([3, 5], 4, kvcache=True, gcache=True)
    model.save("m.safetensors"); pyref.PLDRModel.load("m.safetensors")

Modules (each imports only the ones above it):

* :mod:`pyref.arb` -- ball arithmetic helpers (``arb_mat`` products, radii, decisions), with
  :mod:`pyref.arb_matmul` (thin ball × float-weight products through exact integer products);
* :mod:`pyref.backend` -- the four number systems; :mod:`pyref.config` -- ``PLDRConfig``;
* :mod:`pyref.state_dict` -- key names, shapes, validation, parameter counts (the
  checkpoint format); :mod:`pyref.checkpoint` -- safetensors / npz files;
* :mod:`pyref.params` -- the parameters as typed records;
* :mod:`pyref.ops` -- every formula of the spec once, on backend arrays;
* :mod:`pyref.inputs` -- input conversion and validation (tokens, caches, shapes);
* :mod:`pyref.layers`, :mod:`pyref.rope`, :mod:`pyref.plga` -- the public array API of the
  components (convert, validate, call :mod:`pyref.ops`);
* :mod:`pyref.attention` -- the multi-head sublayer and the operator sources (learned,
  constant, identity) that make the model variants;
* :mod:`pyref.model` -- ``PLDRModel``, ``ConstantGModel``, ``SDPAModel``;
* :mod:`pyref.losses`, :mod:`pyref.analysis` (with :mod:`pyref.arb_linalg`: Arb enclosures of
  determinants and the Perron pair); :mod:`pyref.variants` holds the neighbouring mechanisms
  (KLA, Gated DeltaNet/KDA, mHC, Attention Residuals);
* :mod:`pyref.semantics` -- the v510 code's forward behaviours vs the Hugging Face port's;
* reading what the authors distribute: :mod:`pyref.loading` (``open_checkpoint``, the one door
  that ``PLDRModel.load`` uses), :mod:`pyref.torchfile` (``.pth`` and pickled tensor lists
  without torch, no pickle code run), :mod:`pyref.hf` (Hugging Face port folders),
  :mod:`pyref.hparams` / :mod:`pyref.hparams_ast` (the config from tensor shapes and the
  authors' hyperparameter files), :mod:`pyref.tokenizer` (SentencePiece prompts).
"""
from . import (
    analysis,
    arb,
    attention,
    backend,
    checkpoint,
    inputs,
    layers,
    losses,
    ops,
    params,
    plga,
    rope,
    state_dict,
    variants,
)
from .backend import Backend, get_backend, to_float64, to_mp
from .checkpoint import CheckpointError
from .config import PLDRConfig
from .losses import (
    block_cross_entropy,
    dag_loss,
    dag_regularizer,
    expm,
    masked_cross_entropy,
    sequential_nll,
)
from .model import ConstantGModel, PLDRModel, SDPAModel
from .outputs import ForwardOutput, GenerateOutput
from .state_dict import num_parameters, state_dict_keys, state_dict_shapes

__all__ = [
    "PLDRConfig", "PLDRModel", "SDPAModel", "ConstantGModel", "ForwardOutput", "GenerateOutput",
    "Backend", "get_backend", "to_float64", "to_mp", "state_dict_keys", "state_dict_shapes",
    "num_parameters", "CheckpointError",
    "block_cross_entropy", "sequential_nll", "masked_cross_entropy", "dag_loss", "dag_regularizer",
    "expm", "analysis", "arb", "attention", "backend", "checkpoint", "inputs", "layers", "losses",
    "ops", "params", "plga", "rope", "state_dict", "variants",
]
__version__ = "0.1.0"
