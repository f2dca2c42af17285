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
    "exp(x)/Σexp(x) exactly in real arithmetic, and this line is the object (mp/arb) branch, "
    "where mpf and arb exponents cannot overflow, so the max shift (a float-overflow guard) "
    "changes only rounding at the working precision (relative ~T·10^-dps, the size of the "
    "unmutated line's own error; for arb: the balls' radii, every ball still an enclosure)")

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
    # T0 = 0 if kv is None else kv[0][0].shape[1] -> kv[0][1].shape[1]
    "pyref.model:PLDRModel._forward_port:index:1": (
        "layer 0's cached K̂ (kv[0][0]) and V (kv[0][1]) have the same shape [B, T0, H, d_k]: kv "
        "is the output of pyref.inputs.prepare_kvcache, which raises unless V.shape == K.shape "
        "for every layer (inputs.py _kv_entry) and converts both with b.asarray (shape kept), so"
        " shape[1] is the same number"),
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
        "flat = a.reshape(-1, a.shape[-2], a.shape[-1]): det raises ValueError before any "
        "other use of a unless len(shape) >= 2 and shape[-1] == shape[-2] (analysis.py:243), "
        "with shape = a.shape for every input that reaches the reshape (an arb_mat input is "
        "2-D and returns from the 2-D branch), so a.shape[-2] and a.shape[-1] are the same "
        "number on every accepted input"),
    "pyref.analysis:det:index:1": (
        "flat = a.reshape(-1, a.shape[-1], a.shape[-2]): same guard as det:index:0 "
        "(analysis.py:243 raises unless shape[-1] == shape[-2]); the reshape target is "
        "identical"),
    "pyref.analysis:_commutant_basis:index:0": (
        "d_k = a.shape[-2]: _commutant_basis is private and called only with square matrices:"
        " from _commutant_parts after _as_float_matrix(..., square=True) (analysis.py:289) "
        "and from commutant_residual after _as_float_matrix(..., square=True) "
        "(analysis.py:320; _pow2_normalize keeps the shape); _as_float_matrix raises unless "
        "shape[-1] == shape[-2] (analysis.py:40)"),
    "pyref.analysis:commutator_residual:index:1": (
        "rope_matrix(p, a.shape[-2], ...): a comes from _as_float_matrix(..., square=True) "
        "(analysis.py:334, raising unless shape[-1] == shape[-2]; _pow2_normalize keeps the "
        "shape), so d_k is the same number"),
    "pyref.analysis:order_parameter:arg-swap:0": (
        "np.array_equal(b, a) vs np.array_equal(a, b): array equality is symmetric (same "
        "shape and elementwise ==, which is symmetric; NaN cannot occur: both inputs were "
        "checked finite just before)"),
    "pyref.analysis:dag_value:index:1": (
        "np.log(a.shape[-2]) vs np.log(a.shape[-1]): a comes from _as_float_matrix(..., "
        "square=True) (analysis.py:437), which raises unless shape[-1] == shape[-2]"),
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
    "pyref.analysis:perron:offset:0": (
        "working precision dps + 11 instead of dps + 10: the iteration runs 3.3 bits finer "
        "and stops at the same threshold 10^-(dps+2); root and vector are the same fixed "
        "point rounded to dps digits, so they can differ only where the dps+10-digit value "
        "lies within its own error (the guard term of the property's _root_claim, ~1e-60 "
        "relative) of a dps-digit rounding boundary; the residual, formed at the working "
        "precision, is rounding noise of that precision in both (known only to +-(n+2) u_w "
        "(|A||v| + r|v|)) and shrinks by at most the factor 2^-3.3 with it"),
    "pyref.analysis:perron:drop-rhs:1": (
        "start vector |v_lapack| without + 1e-300: at dps + 10 digits the 1e-300 is below "
        "one ulp of every entry above 1e-239, and Arb rounds the sum's midpoint toward zero, "
        "i.e. to the entry itself, so only entries below 1e-239 change, by <= 1e-300 "
        "absolute; LAPACK's unit-2-norm vector already carries absolute errors ~1e-17 "
        "(u times its condition), inverse iteration is linear in the start vector, and "
        "positivity of the iterates needs only v >= 0, v != 0 ((sigma - A)^-1 > 0 for sigma >"
        " lambda_1): the perturbation reaches every iterate at <= 1e-283 of the start error "
        "the unmutated iteration itself removes"),
    "pyref.analysis:perron:arith:1": (
        "start vector |v_lapack| - 1e-300 instead of + 1e-300: Arb rounds the difference "
        "toward zero, so every entry above 1e-239 moves down by one ulp at dps + 10 digits "
        "(relative 2^-202, against LAPACK's ~1e-17 start error that the iteration removes; "
        "inverse iteration is linear in the start vector) and entries below 1e-239 by <= "
        "2e-300 absolute; an exact 0 becomes -1e-300, and (sigma - A)^-1 v stays positive "
        "since its entries are >= min_ij[(sigma - A)^-1]_ij (sum of the positive part) >> "
        "1e-300 ||(sigma - A)^-1||)"),
    "pyref.analysis:perron:offset:2": (
        "stopping threshold 10^-(dps+3) instead of 10^-(dps+2): at most one more step towards"
        " the same fixed point; with the Collatz-Wielandt shift the step before stopping "
        "already leaves an error rho * delta with rho = (sigma - lambda_1)/|sigma - lambda_2|"
        " tiny, so the extra step changes the iterate below the working precision's rounding"),
    "pyref.analysis:perron:drop-rhs:3": (
        "stopping threshold 10^-dps instead of 10^-(dps+2): the iterate returned after the "
        "test delta < 10^-dps has error ~rho_k delta_k with rho_k = (sigma_k - "
        "lambda_1)/|sigma_k - lambda_2| and sigma_k the Collatz-Wielandt bound of the "
        "previous iterate (error ~delta_k), i.e. ~delta_k^2 C/sep (quadratic): far below u_d "
        "= 2^-169 unless lambda_1 - |lambda_2| is tiny, and there the vector's own forward-"
        "error bound at the working precision, (sum_j kappa_j/|lambda_1 - lambda_j|) * 10 n^2"
        " u_w ||A||, is larger than the change. Measured (Arb implementation) on 120 nearly "
        "degenerate inputs (block-coupled, coupling 1e-14..1e-8): roots <= 0.965 u_d and "
        "worst vector entry 0.983 u_d from the 80-digit reference, for pyref and this mutant "
        "alike (with the mpmath implementation earlier: 1.15 u_d instead of 0.99 u_d), where "
        "that bound is ~10 u_d: the change stays inside the unmutated algorithm's own "
        "rounding class (no derived tolerance can separate them)"),
    "pyref.analysis:perron:arith:4": (
        "stopping threshold 10^-(dps-2) instead of 10^-(dps+2): as perron:drop-rhs:3 (the "
        "quadratic convergence makes the returned iterate's error ~delta^2 C/sep; measured "
        "identical to pyref on the same 120 nearly degenerate inputs: roots <= 0.965 u_d, "
        "vector entries <= 0.983 u_d)"),
    "pyref.analysis:perron:arith:6": (
        "lam = sum(A w) * sum(w) instead of / sum(w): w was just normalized by s = sum(w), so"
        " sum(w) = 1 + t, |t| <= 2(n - 1) u_w (the entrywise divisions and the sum, at dps + "
        "10 digits; Arb rounds midpoints toward zero, <= 2 u_w relative per operation); the "
        "two quotients differ by the factor (1 + t)^2, i.e. 4(n-1) u_w relative - the size "
        "of the unmutated quotient's own rounding (6n u_w) and 1e-10 of the final rounding "
        "to dps digits; the residual |Av - lam v| moves by 4(n-1) u_w lam max v, inside its "
        "own rounding 2(n+2) u_w (|A||v| + lam|v|)"),
    "pyref.analysis:_cw_shift:arith:3": (
        "shift cw * (1 - 2^-101.5) instead of cw * (1 + 2^-101.5) (2^-101.5 = sqrt(2^-prec),"
        " prec = 203 bits at dps + 10 = 60 digits; cw = max_i (Av)_i/v_i >= lambda_1 by "
        "Collatz-Wielandt): the shift may now lie up to 3e-31 lambda_1 below "
        "lambda_1 instead of above; lambda_1 stays the eigenvalue nearest to it whenever "
        "lambda_1 - |lambda_j| > 8e-31 lambda_1, and inverse iteration then converges to the "
        "same Perron pair at the same rate (the distance sigma - lambda_1 is the same size); "
        "inputs with a separation below 8e-31 lambda_1 have a Perron vector with condition >="
        " 1e30, whose unmutated dps+10-digit computation is itself uncertain at u_w/sep ~ "
        "1e-31, far above any change the 8e-31-relative shift move can cause"),
    "pyref.analysis:_cw_shift:arith:0": (
        "shift cw / (1 + 2^-101.5) instead of cw * (1 + 2^-101.5): cw (1 - 2^-101.5 + "
        "2^-203), the same as _cw_shift:arith:3 up to 2^-203 relative"),
}
