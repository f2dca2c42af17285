"""Properties of ``pyref.losses``' cross-entropies (spec C, and the S1 audit's sequential NLL):
``masked_cross_entropy``, ``block_cross_entropy`` and ``sequential_nll`` against the spec
evaluator (``spec_eval.losses``: log-softmax x_i − log Σ_j e^{x_j} and the masked mean written
out, the block / prefix calls and the target shift of spec C decided there). No Lean file defines
the loss; the Lean statement behind it is the softmax's (``Formal/Attention/Softmax.lean``):
pyref's log-softmax subtracts the row maximum (``softmax_shift``) and normalizes
(``softmax_sum_one``, ``softmax_pos``), the evaluator does neither, so the equality of the two
is the shift invariance on pyref's arithmetic. (The DAG regularizer's properties live with
``Formal/Structure/Dag.lean`` in ``structure/dag.py``.)

**Bounds.** The evaluator runs at 80 digits on the exact logits (for the model losses: the
logits of pyref's own forward calls, which the evaluator requests itself on the token rows it
chooses; the model is checked elsewhere, the loss formula here). float64, per entry
(:func:`_lp_bound`): with z = x − max x (one rounding, u|z|), e^ẑ within θ = (8 + max|z|)u
(numpy's exp ≤ 4 ulp = 8u, and the argument's error), the sum within θ + γ_V, the log adding
8u·log V, the difference u(|z_i| + log V): |l̂p_i − lp_i| ≤ (2|z_i| + 9 log V)u +
−log(1 − θ − γ_V); the mean of n masked terms adds γ_n Σ|lp| and u|loss|. mp: 1e-40 times the
same scales (``_arith.mp_bound``'s factor).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ..registry import Checks, prop
from ..spec_eval import losses as sev
from ..spec_eval._scalar import mat
from ..strategies import matrix
from ._arith import U64, gamma
from ._util import generic_plga_state_dict

#: working precision of the spec evaluator (30 digits above pyref's 50)
REF_DPS = 80

MP = 1e-40

SOFTMAX = ["PLGA.Attention.softmax_shift", "PLGA.Attention.softmax_sum_one",
           "PLGA.Attention.softmax_pos"]


def _lp_bound(backend, row, i):
    """Bound on |l̂p_i − lp_i| for the log-softmax of one logit row (module docstring)."""
    V = len(row)
    m = max(row)
    z = [abs(x - m) for x in row]
    logV = math.log(V)
    if backend in ("mp", "arb"):
        return MP * (float(z[i]) + logV + 1)
    theta = (8 + float(max(z))) * U64 * (1 + 1e-6)
    return ((2 * float(z[i]) + 9 * logV) * U64 - math.log1p(-(theta + gamma(V))))


def _compare(ch: Checks, backend, logits, targets, got, ref, what: str):
    """pyref's LossResult ``got`` against the evaluator's (loss, lp, mask) ``ref`` on the scored
    logit rows [B][S][V] and targets [B][S]: every token log-probability, the mask exactly, the
    loss (or pyref's ValueError when every target is the pad)."""
    loss, lp, mask = ref
    if got is None:
        ch.exact(f"{what}: raises iff every target is the pad", int(loss is not None))
        return
    ch.exact(f"{what}: raises iff every target is the pad", int(loss is None))
    gm = np.asarray(got.mask).tolist()
    ch.exact(f"{what}: mask = [y ≠ pad]", int(gm != mask))
    glp = np.asarray(got.token_logprobs)
    n, tot_err, tot_abs = 0, 0.0, mpmath.mpf(0)
    for b, (lrow, mrow) in enumerate(zip(lp, mask)):
        for t, (v, mk) in enumerate(zip(lrow, mrow)):
            bnd = _lp_bound(backend, logits[b][t], targets[b][t])
            ch.le(f"{what}: token log-prob = logSoftmax[y]", abs(mpmath.mpf(glp[b, t]) - v), bnd)
            if mk:
                n, tot_err, tot_abs = n + 1, tot_err + bnd, tot_abs + abs(v)
    if loss is not None:
        exact_arith = backend in ("mp", "arb")
        lb = (tot_err + (MP if exact_arith else gamma(n)) * tot_abs) / n
        lb += (MP if exact_arith else U64) * abs(loss)
        ch.le(f"{what}: loss = −Σ m·lp/Σ m", abs(mpmath.mpf(got.loss) - loss), lb)


def _run(fn, *args, **kw):
    """pyref's result, or None if it raised ValueError."""
    try:
        return fn(*args, **kw)
    except ValueError:
        return None


# ==================================================================== masked_cross_entropy
@st.composite
def ce_case(draw):
    B, S, V = draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(2, 7))
    logits = np.stack([draw(matrix(S, V, magnitude=st.sampled_from([1.0, 10.0, 1e3])))
                       for _ in range(B)])
    pad = draw(st.sampled_from([0, 0, V - 1]))
    ids = st.one_of(st.just(pad), st.integers(0, V - 1))
    targets = np.array(draw(st.lists(st.lists(ids, min_size=S, max_size=S), min_size=B,
                                     max_size=B)), dtype=np.int64)
    return logits, targets, pad


@prop(theorems=SOFTMAX,
      paper="Spec C (ℒ_CE = Σ m·CE/Σ m, m = [y ≠ pad]; the authors' masked_loss_function)",
      strategy=ce_case)
def masked_cross_entropy_matches_spec(ex, backend, dps):
    """``pyref.losses.masked_cross_entropy``(logits [B, S, V], targets, pad_id) against spec C
    (``spec_eval.losses.maskedCrossEntropy``): every ``token_logprobs`` entry (pads included) =
    x_y − log Σ_j e^{x_j}, ``mask`` = [y ≠ pad_id] exactly, ``loss`` = −Σ m·lp/Σ m; logits up to
    1e3 (so the unshifted exponentials overflow float64: pyref's shift is exercised), pad id 0
    or V − 1, targets drawn to be the pad half of the time (all-pad rows and batches included:
    pyref must raise exactly then). Bounds: module docstring."""
    logits, targets, pad = ex
    got = _run(pyref.losses.masked_cross_entropy, logits, targets, pad_id=pad, backend=backend,
               dps=dps)
    ch = Checks()
    with mpmath.workdps(REF_DPS):
        lg = mat(logits)
        tg = targets.tolist()
        ref = sev.maskedCrossEntropy(lg, tg, pad)
        _compare(ch, backend, lg, tg, got, ref, "masked CE")
    return ch.outcome()


# =========================================================== block CE and sequential NLL
@st.composite
def model_loss_case(draw):
    H = draw(st.integers(1, 2))
    V = draw(st.integers(3, 8))
    cfg = pyref.PLDRConfig(num_layers=draw(st.integers(1, 2)), d_model=2 * H * draw(
        st.integers(1, 2)), num_heads=H, dff=4, a_dff=2, num_res_units=1, num_glu_blocks=2,
        vocab_size=V, max_seq_len=16)
    seed = draw(st.integers(0, 2 ** 16))
    B, S = draw(st.integers(1, 2)), draw(st.integers(2, 6))
    ids = st.one_of(st.just(0), st.integers(1, V - 1), st.integers(1, V - 1))
    tokens = np.array(draw(st.lists(st.lists(ids, min_size=S, max_size=S), min_size=B,
                                    max_size=B)), dtype=np.int64)
    return cfg, seed, tokens


def _forward(model, backend, dps):
    """The callable the evaluator uses: token rows -> pyref's logits (exact mpf nested lists)."""
    def f(rows):
        out = model.forward(np.array(rows, dtype=np.int64), backend=backend, dps=dps)
        return mat(out.logits)
    return f


@prop(theorems=SOFTMAX,
      paper="Spec C (block loss: one call on tok[:, :−1], row t scores tok[:, t+1]) and the S1 "
            "audit (sequential NLL: one call per prefix, final row)",
      strategy=model_loss_case)
def model_losses_match_spec(ex, backend, dps):
    """``block_cross_entropy`` and ``sequential_nll`` of a small random PLDR model (generic
    parameters, 1–2 layers and heads, vocab 3–8, pads inside the sequence) against spec C's
    definitions evaluated by ``spec_eval.losses.blockCrossEntropy`` / ``sequentialNll``: the
    evaluator chooses the calls (tok[:, :−1] once; tok[:, :t+1] for each t) and the shift (row t
    scores tok[:, t+1]; the final row of each prefix) itself and receives only pyref's logits of
    those calls, so an off-by-one shift, a wrong prefix or a mean over pad targets in pyref's loss
    code shows; every token log-probability, the mask and the loss are compared (pyref raises
    exactly when every target is the pad). Bounds: module docstring (the logits are the same
    deterministic calls on both sides)."""
    cfg, seed, tokens = ex
    model = pyref.PLDRModel.from_state_dict(generic_plga_state_dict(cfg, seed), cfg)
    fwd = _forward(model, backend, dps)
    ch = Checks()
    for name, fn, ev in (("block CE", pyref.losses.block_cross_entropy, sev.blockCrossEntropy),
                         ("sequential NLL", pyref.losses.sequential_nll, sev.sequentialNll)):
        got = _run(fn, model, tokens, backend=backend, dps=dps)
        with mpmath.workdps(REF_DPS):
            rows = tokens.tolist()
            seen = []

            def rec(r, _seen=seen):
                lg = fwd(r)
                _seen.append(lg)
                return lg
            ref = ev(rec, rows)
            logits = _scored_rows(name, seen, len(rows[0]))
            _compare(ch, backend, logits, [r[1:] for r in rows], got, ref, name)
    return ch.outcome()


def _scored_rows(name, seen, S):
    """The logit rows [B][S−1][V] the evaluator scored (for the per-entry bounds): the block
    call's rows, or the final row of each prefix call."""
    if name == "block CE":
        return seen[0]
    return [[seen[t][b][-1] for t in range(S - 1)] for b in range(len(seen[0]))]
