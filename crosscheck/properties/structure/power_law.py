"""Cross-check properties of ``Formal/Structure/PowerLaw.lean``: ``power_law_potential_tensor`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, combine, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import const, mat
from ...strategies import matrix
from .._arith import bound, conv, maxabs
from ..spec._shared import anchor
from ._shared import MODEST

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.PowerLaw.hadPow_add_any":
        "the group law off the positive cone is a fact about the exp∘log definition, not about "
        "rpow; pyref's power is rpow and its only base A_LM ≥ ε > 0, where the statement is "
        "hadPow_add (checked)",
    "PLGA.PowerLaw.log_mul_of_pos":
        "scalar helper log(ab) = log a + log b inside hadPow_hadamard_base, which is checked on "
        "pyref's potential tensor",
}


SCAL = st.sampled_from([0.5, 1.0, 2.0, -1.0, 1.5, -0.25, 0.3])


@st.composite
def power_case(draw):
    dk = draw(st.integers(1, 6))
    H = draw(st.integers(1, 2))

    def mats(s):
        return np.stack([draw(matrix(dk, dk, magnitude=MODEST, structure=s)) for _ in range(H)])

    A, A2, W, bb = mats(True), mats(True), mats(False), mats(False)
    eps = draw(st.sampled_from([1e-9, 1e-6, 1e-3]))

    def expo():
        mag = st.sampled_from([1.0, 3.0, 0.1])
        return np.stack([draw(matrix(dk, dk, magnitude=mag, structure=False)) for _ in range(H)])

    P, Q = expo(), expo()
    return A, A2, W, bb, eps, P, Q, draw(SCAL), draw(SCAL)


def _exponent_rule_parts(b, backend, pt, tensors, exponents, scalars):
    """hadPow_add, hadPow_add_exponent, hadPow_hadPow and hadLog_hadPow of
    ``power_law_potential_tensor`` (its docstring derives the bounds); pt(X, E) = X^{⊙E} by pyref,
    tensors = (A, A^{⊙P}, log A), exponents = (P, Q) as drawn and in the backend, scalars =
    (s, t) likewise."""
    ALM, AP, logA = tensors
    P, Q, Pb, Qb = exponents
    s, t, sb, tb = scalars
    parts = []
    with b.context():
        lA = np.abs(to_float64(logA))
        aP, aQ = np.abs(P), np.abs(Q)
        Ly = float(np.max(aP * lA))
        sP, tP, stP = Pb * sb, Pb * tb, Pb * (sb + tb)
    lhs, r1, r2 = pt(ALM, stP), pt(ALM, sP), pt(ALM, tP)
    with b.context():
        rhs = r1 * r2
        Ls = (abs(s) + abs(t)) * Ly
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append(("hadPow_add", maxabs(lhs - rhs), bound(backend, 3, (Ls + 4) * Mx)))
        PQ = Pb + Qb
    lhs, r2 = pt(ALM, PQ), pt(ALM, Qb)
    with b.context():
        rhs = AP * r2
        Lpq = float(np.max((aP + aQ) * lA))
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append(("hadPow_add_exponent", maxabs(lhs - rhs), bound(backend, 3, (Lpq + 4) * Mx)))
        QP = Qb * Pb
    lhs, rhs = pt(AP, Qb), pt(ALM, QP)
    with b.context():
        Lqp = float(np.max(aQ * aP * lA))
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append(("hadPow_hadPow", maxabs(lhs - rhs),
                      bound(backend, 2, (float(np.max(aQ)) + Lqp + 3) * Mx)))
        parts.append(("hadLog_hadPow", maxabs(b.log(AP) - Pb * logA), bound(backend, 3, Ly + 2)))
    return parts


@prop(theorems=["PLGA.PowerLaw.hadPow_apply", "PLGA.PowerLaw.hadPow_pos",
                "PLGA.PowerLaw.hadPow_zero", "PLGA.PowerLaw.hadPow_add",
                "PLGA.PowerLaw.hadPow_add_exponent", "PLGA.PowerLaw.hadPow_one",
                "PLGA.PowerLaw.hadPow_hadPow", "PLGA.PowerLaw.hadLog_hadPow",
                "PLGA.PowerLaw.hadPow_hadamard_base", "PLGA.PowerLaw.hadPow_neg_hadamard"],
      paper="Prop 3.7 (the power law A_P = A_LM^{⊙P}: positive, P = 0 gives 𝟙𝟙ᵀ, group law, "
            "log-linear form)",
      strategy=power_case)
def power_law_potential_tensor(ex, backend, dps):
    """On ``pyref.plga.potential_tensor`` with A = ``pyref.plga.metric_tensor(A, W, b, ε)`` (the
    real pipeline, A_LM ≥ ε > 0; a second metric tensor B for the base rule), exponents P, Q with
    entries up to 3, scalars s, t:

    * ``hadPow_apply``: A^{⊙P} = exp(P ⊙ log A); ``hadPow_pos``: every entry > 0 (exact);
    * ``hadPow_zero``: P = 0 gives exactly 𝟙𝟙ᵀ (pow(x, 0) = 1 exactly); ``hadPow_one``: A^{⊙𝟙} = A;
    * ``hadPow_add``: A^{⊙(s+t)P} = A^{⊙sP} ⊙ A^{⊙tP}; ``hadPow_add_exponent``: A^{⊙(P+Q)} = A^{⊙P}
      ⊙ A^{⊙Q};
    * ``hadPow_hadPow``: (A^{⊙P})^{⊙Q} = A^{⊙(Q⊙P)}; ``hadLog_hadPow``: log A^{⊙P} = P ⊙ log A;
    * ``hadPow_hadamard_base``: (A ⊙ B)^{⊙P} = A^{⊙P} ⊙ B^{⊙P};
    * ``hadPow_neg_hadamard``: A^{⊙(−t)P} ⊙ A^{⊙tP} = 𝟙𝟙ᵀ (inverses of the one-parameter group).

    float64 bounds, relative per entry (u = 2⁻⁵³; each numpy pow/exp/log call within 1 ulp ≤ 2u of
    the exact value for its float arguments: measured ≤ 1.1u on this build, glibc ≥ 2.28 < 0.52
    ulp): an exponent e computed with relative error δ changes x^e by the factor e^{δ·e·log x},
    i.e. relative |e log x|·δ. With L = max|exponent ⊙ log A| (over the exponents involved) and Mx
    the largest entry compared: apply: log 2u, product u (so 3u|y|), exp 2u, pow 2u → 3uL + 4u ≤
    ``fp_bound(2, (L + 2)·Mx)``; hadPow_add: exponents (s+t)P rounded twice, sP, tP once, three
    pows and a product → 3u(|s|+|t|)L + 7u ≤ ``fp_bound(3, ((|s|+|t|)L + 4)·Mx)``;
    hadPow_add_exponent: uL + 7u ≤ ``fp_bound(3, (L + 4)·Mx)``; iterated powers: the inner pow's 2u
    is raised to Q, the exponent Q⊙P rounds → 2u|Q| + uL + 4u ≤ ``fp_bound(2, (|Q| + L + 3)·Mx)``;
    log form (absolute): log of a 2u-perturbed value, the log's 2u|y| and the right side's 3u|y| →
    5uL + 2u ≤ ``fp_bound(3, L + 2)``; base rule: A·B rounds (u, raised to P) → u|P| + 7u ≤
    ``fp_bound(1, (|P| + 4)·Mx)``; A^{⊙𝟙}: one pow → ``fp_bound(2, Mx)``; inverses: the exponents
(−t)P and tP are computed as exact negatives (rounding is sign-symmetric), so the exact product
of the two computed powers is 1; two pows (2u each) and the product (u) → 5u + O(u²) ≤
``fp_bound(3, Mx)``. mp: 1e-40 times the same
    scales (mpmath's power/exp/log are accurate to a few units of 10⁻⁵⁰). mp formula anchors: A_LM
    and A^{⊙P} equal the Lean ``metricTensor`` and ``hadPow`` (exp(P log A)) evaluated independently
    (:mod:`crosscheck.spec_eval.model`)."""
    A, A2, W, bb, eps, P, Q, s, t = ex
    H, dk, _ = A.shape
    b = pyref.get_backend(backend, dps)

    def pt(X, E):
        return pyref.plga.potential_tensor(X, E, backend=backend, dps=dps)

    ALM = pyref.plga.metric_tensor(A, W, bb, eps=eps, backend=backend, dps=dps)
    BLM = pyref.plga.metric_tensor(A2, W, bb, eps=eps, backend=backend, dps=dps)
    parts = []
    with b.context():
        Pb, Qb, sb, tb = conv(backend, dps, P, Q, np.array(s), np.array(t))
        logA = b.log(ALM)
        lA = np.abs(to_float64(logA))
        aP = np.abs(P)
    AP = pt(ALM, Pb)
    with b.context():
        APf = to_float64(AP)
        # positivity (exact): the smallest entry is ≥ exp(−max|P log A|) ≥ e^{−70}, far
        # from underflow
        parts.append(("hadPow_pos", float(np.sum(~np.asarray(AP > 0, dtype=bool))), 0.0))
        ref = b.exp(Pb * logA)
        Ly = float(np.max(aP * lA))
        parts.append(("hadPow_apply", maxabs(AP - ref),
                      bound(backend, 2, (Ly + 2) * max(np.max(APf), maxabs(ref)))))
    ch = Checks()
    anchor(ch, "potential tensor", backend, dps, AP, lambda: [ev.hadPow(mat(a), mat(p)) for a, p in
                                                              zip(ALM, P)])
    anchor(ch, "metric tensor", backend, dps, ALM, lambda: [
        ev.metricTensor(mat(w), mat(a), mat(c), const(eps)) for w, a, c in zip(W, A, bb)])
    parts += ch.items
    Z = pt(ALM, np.zeros_like(P))
    with b.context():
        parts.append(("hadPow_zero", maxabs(Z - b.asarray(np.ones_like(P))), 0.0))
    A1 = pt(ALM, np.ones_like(P))
    with b.context():
        parts.append(("hadPow_one", maxabs(A1 - ALM), bound(backend, 2, maxabs(ALM))))
    parts += _exponent_rule_parts(b, backend, pt, (ALM, AP, logA), (P, Q, Pb, Qb), (s, t, sb, tb))
    with b.context():
        AB = ALM * BLM
    lhs, rB = pt(AB, Pb), pt(BLM, Pb)
    with b.context():
        rhs = AP * rB
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append(("hadPow_hadamard_base", maxabs(lhs - rhs),
                      bound(backend, 1, (float(np.max(aP)) + 4) * Mx)))
        ntP, tP = (-tb) * Pb, tb * Pb
    lhs, rhs = pt(ALM, ntP), pt(ALM, tP)
    with b.context():
        prod = lhs * rhs
        parts.append(("hadPow_neg_hadamard", maxabs(prod - b.asarray(np.ones_like(P))),
                      bound(backend, 3, maxabs(prod))))
    return combine(parts)
