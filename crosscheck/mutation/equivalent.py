"""Reviewed equivalent generated mutants: id -> why the mutant cannot change any output.

A mutant goes here only with an argument that it computes the same function as pyref on every
input pyref accepts (e.g. a swap of the arguments of a commutative function, or an index into a
shape whose two axes are equal by construction) -- never because it survives. An id that the
generator no longer produces is an error (``runner.check_equivalent``, tested), so the list is
re-reviewed whenever pyref changes under it.
"""

from __future__ import annotations

_SOFTMAX_SHIFT = (
    "softmax is invariant under adding one constant per row: exp(x ∓ m)/Σexp(x ∓ m) = "
    "exp(x)/Σexp(x) exactly in real arithmetic, and this line is the mp branch, where mpf "
    "exponents cannot overflow, so the max shift (a float-overflow guard) changes only rounding "
    "at the working precision (relative ~T·10^-dps, the size of the unmutated line's own error)")

EQUIVALENT: dict[str, str] = {
    "pyref.ops:softmax:drop-rhs:0": _SOFTMAX_SHIFT,   # e = b.exp(x - m) -> b.exp(x)
    "pyref.ops:softmax:arith:0": _SOFTMAX_SHIFT,      # e = b.exp(x - m) -> b.exp(x + m)
    # limit = 2.0 ** (np.finfo(x.dtype).maxexp // 2 - 16) -> ... - 17
    "pyref.ops:_ln_row_scale:offset:0": (
        "the limit only decides which float rows LayerNorm rescales by 2^-k before squaring; "
        "rows with max|x| in (2^(e/2-17), 2^(e/2-16)] (e the dtype's max exponent) are rescaled "
        "by the mutant and not by pyref, and neither path overflows there (n squares ≤ "
        "n·2^(e-32)). Both compute the same LayerNorm: scaling by a power of two is exact "
        "except for entries below 2^(k-1074), which are < 2^-990 of the row's maximum "
        "(k ≥ 495 in float64, ≥ 47 in float32: below 2^-100 of it), and ε·2^-2k is the same ε "
        "relative to the row; so the outputs differ only in the rounding the unmutated line "
        "already has"),
    # n_cached = 0 if kv is None else kv[0].shape[1] -> kv[1].shape[1]
    "pyref.attention:multi_head_attention:index:1": (
        "the cached K̂ (kv[0]) and V (kv[1]) have the same shape [B, T0, H, d_k] on every path: "
        "pyref.inputs.prepare_kvcache rejects V.shape != K.shape, and the caches this function "
        "returns are both extended along axis 1 by the same S rows"),
    # M = max(LA, LB) -> max(LB, LA)
    "pyref.variants.attnres:_merge:arg-swap:0": (
        "Python's max returns the first of its arguments unless the second compares greater, "
        "so the swap can change M only when neither LA > LB nor LB > LA. Both reach _merge as"
        " scalars of the same backend type (merge_partials converts both with conv and checks"
        " them finite; two_phase_depth_attention gets both from _partial's _scalar), on which"
        " these comparisons are a total order except for NaN and the sign of zero. Equal "
        "values (LA == LB, not ±0) give the same M bit for bit. LA = +0.0, LB = −0.0 (float "
        "only; mpf has no signed zero) gives M = ±0, but then LA − M, LB − M are zeros, exp "
        "gives exactly 1 either way, and L = M + log 2 = log 2 and the output e^{LA−L}hA + "
        "e^{LB−L}hB are identical. If LA or LB is NaN (only reachable through a score "
        "overflow in two_phase_depth_attention, inf − inf), M may be the NaN or the other "
        "operand, but LA − M or LB − M is NaN in both cases, so L is NaN and every entry of h"
        " is NaN (exp(NaN)·h = NaN) for pyref and the mutant alike. Hence (h, L) is the same "
        "on every input"),
    "pyref.analysis:det:index:0": (
        "flat = a.reshape(-1, a.shape[-2], a.shape[-1]): det raises ValueError at its first "
        "statement unless a.ndim >= 2 and a.shape[-1] == a.shape[-2] (analysis.py:226, before"
        " any other use of a), so shape[-2] and shape[-1] are the same number on every "
        "accepted input"),
    "pyref.analysis:det:index:1": (
        "flat = a.reshape(-1, a.shape[-1], a.shape[-2]): same guard as det:index:0 "
        "(analysis.py:226 raises unless shape[-1] == shape[-2]); the reshape target is "
        "identical"),
    "pyref.analysis:_commutant_basis:index:0": (
        "d_k = a.shape[-2]: _commutant_basis is private and called only with square matrices:"
        " from _commutant_parts after _as_float_matrix(..., square=True) (analysis.py:274) "
        "and from commutant_residual after _as_float_matrix(..., square=True) "
        "(analysis.py:303; _pow2_normalize keeps the shape); _as_float_matrix raises unless "
        "shape[-1] == shape[-2] (analysis.py:32)"),
    "pyref.analysis:commutator_residual:index:1": (
        "rope_matrix(p, a.shape[-2], ...): a comes from _as_float_matrix(..., square=True) "
        "(analysis.py:319, raising unless shape[-1] == shape[-2]; _pow2_normalize keeps the "
        "shape), so d_k is the same number"),
    "pyref.analysis:order_parameter:arg-swap:0": (
        "np.array_equal(b, a) vs np.array_equal(a, b): array equality is symmetric (same "
        "shape and elementwise ==, which is symmetric; NaN cannot occur: both inputs were "
        "checked finite just before)"),
    "pyref.analysis:dag_value:index:1": (
        "np.log(a.shape[-2]) vs np.log(a.shape[-1]): a comes from _as_float_matrix(..., "
        "square=True) (analysis.py:422), which raises unless shape[-1] == shape[-2]"),
    "pyref.losses:_expm_float:index:0": (
        "n = M.shape[-2]: _expm_float is private, called only by _expm, which is called only "
        "by expm on the matrices of flat = M.reshape(-1, d, d) after expm's guard "
        "(losses.py:140 raises unless M.shape[-1] == M.shape[-2]); every call gets a square "
        "matrix, so the identity's size is the same"),
    "pyref.losses:_expm:index:0": (
        "n = M.shape[1] vs M.shape[0]: _expm only receives the square slices of expm's flat "
        "(losses.py:140 raises unless square), so both are d"),
    "pyref.losses:expm:index:0": (
        "flat = M.reshape(-1, M.shape[-2], M.shape[-1]): expm raises two lines earlier unless"
        " M.shape[-1] == M.shape[-2] (losses.py:140)"),
    "pyref.losses:expm:index:1": (
        "flat = M.reshape(-1, M.shape[-1], M.shape[-2]): same guard (losses.py:140), "
        "identical reshape"),
    "pyref.losses:dag_terms:index:0": (
        "n = M.shape[-2] vs M.shape[-1]: the line before, expm(M * M) raises ValueError "
        "unless M is [..., d, d] (losses.py:140), so n is only read for square M"),
    "pyref.losses:_expm_float:range-start:0": (
        "Taylor degree 19 instead of 18 in the Horner loop: after scaling ||X||_inf <= 1/2, "
        "the added term X^19/19! has ||.||_inf <= 0.5^19/19! = 1.6e-23, 7e6 times below "
        "float64's u = 1.1e-16 (and 4e15 below float32's) relative to ||P(X)|| >= 1 - 0.5 - "
        "... >= e^-1/2 ~ 0.6; the s squarings amplify it exactly like the unmutated code's "
        "own rounding errors (a relative perturbation d of P(X) becomes ~2^s d), so the "
        "output changes by < 1e-6 of the unmutated code's rounding"),
    "pyref.losses:_expm_float:matmul-swap:0": (
        "E = I + (E @ X)/k vs I + (X @ E)/k: every Horner iterate E is a polynomial in X, so "
        "X and E commute in exact arithmetic and both orders evaluate the same polynomial "
        "P18(X); the computed iterates differ from a polynomial in X only by rounding "
        "(|fl(XE) - XE| <= gamma_n |X||E|, likewise |E||X|), i.e. the two results differ by "
        "rounding of the same order gamma_n, and the squarings act on both alike"),
    "pyref.losses:_expm_float:axis:0": (
        "scaling choice from the 1-norm (max column sum) instead of the inf-norm (max row "
        "sum): s' is chosen so that ||X||_1 <= 1/2, and the Taylor remainder obeys "
        "||sum_{k>=19} X^k/k!|| <= 0.5^19/19! * 1.03 = 1.6e-23 in any submultiplicative norm,"
        " so (every entry being <= that norm) the truncation stays 7e6 times below u64 "
        "whichever norm picks s; since ||M||_1 <= d ||M||_inf and vice versa, |s' - s| <= "
        "ceil(log2 d), i.e. at most log2(d) extra or fewer squarings: only the rounding chain"
        " length changes (the standard scaling-and-squaring choice; the output stays within "
        "the rounding class of the unmutated code)"),
}
