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
    # n_cached = 0 if kv is None else kv[0].shape[1] -> kv[1].shape[1]
    "pyref.attention:multi_head_attention:index:1": (
        "the cached K̂ (kv[0]) and V (kv[1]) have the same shape [B, T0, H, d_k] on every path: "
        "pyref.inputs.prepare_kvcache rejects V.shape != K.shape, and the caches this function "
        "returns are both extended along axis 1 by the same S rows"),
}
