"""Properties for ``Formal/Rope`` (namespace ``PLGA.Rope``): the interleaved RoPE convention,
the rotation group law, Prop 4.1 (relative ⇔ commute, the non-resonant commutant, the commutant
projection Π and its kernel, the dimension counts), the RoPE-aware collapse of Thm 5.4(ii) and the
twirl bound of Lem 5.9 (``twirl.py``: orbit sums read off ``rope_matrix``),
evaluated on ``pyref.rope`` (``apply_rope``, ``rope_matrix``), ``pyref.analysis``
(``rope_frequencies``, ``rope_eigenbasis``, ``commutant_projection``, ``commutant_residual``,
``commutator_residual``) and ``pyref.plga.attention_scores``; the audit tools are compared with
spec D2 and the Lean ``proj`` evaluated by ``crosscheck.spec_eval.analysis`` at 80 digits.

Correspondence with the Lean objects: ``flatRope ρ n`` is ``rope_matrix(n, d_k)`` (flat interleaved
coordinates ``2j + r``), ``c j n``/``s j n`` are ``cos(n θ_j)``/``sin(n θ_j)`` with ``θ_j =
10⁴^{-2j/d_k}``; ``commEmbed a b`` is :func:`_comm_embed`, ``kerEmbed`` is :func:`_ker_embed`,
``proj`` is ``spec_eval.analysis.proj`` (the Lean formula, 80 digits) and pyref's
``commutant_projection`` (the spec-D complex-eigenbasis definition); ``scoreForm ρ G n n'`` is
``R_nᵀ G R_{n'}``; ``plgaRopeScore`` / ``sdpaRopeScore`` are ``√d_k`` times pyref's
``attention_scores`` on ``apply_rope``-rotated rows (the common ``1/√d_k`` is kept on both sides).
Positions are drawn small, large (|n| ≤ 4096, the class default ``max_seq_len``) and negative;
pyref's ``rope_matrix``/``apply_rope`` accept any integer position, negative ones included.

**Error bounds (derived, not tuned).** Every computed array is carried with float64 entrywise
majorants (:class:`_V`): ``a ≥ |computed|`` and, on the float64 backend, ``e ≥ |computed − exact|``,
propagated by the standard rules (Higham, *Accuracy and Stability*, §3.5): for a product with at
most ``k`` nonzero terms per entry, ``|fl(X'Y') − XY| ≤ |X'||Y'−Y| + |X'−X|(|Y'|+|Y'−Y|) +
γ_k|X'||Y'|`` (a product by a RoPE matrix has ``k = 2``: the other terms are exact zeros, and
adding an exact zero is exact); a difference adds ``u(|X'|+|Y'|)``. A comparison of two computed
arrays whose exact values are equal (the theorem) passes when every entry deviates by at most the
sum of the two ``e``'s; the worst entry relative to its own bound is reported. The RoPE entries
carry the a-priori bound of
:func:`_eps_rot`: for ``|n| ≤ N``, ``|fl(cos(n θ_j)) − cos(n θ_j)| ≤ ((8 + ln Θ + 2)·N + 8)·u``
(θ_j: one rounding of the exponent ``-2j/d_k``, amplified by ``ln Θ``, plus ≤ 4 ulp for ``pow``;
the angle ``n·θ_j``: one more rounding, ``|fl(nθ) − nθ| ≤ u·|n|θ``; cos/sin: ≤ 4 ulp ≤ 8u of a
result in [−1, 1] — numpy's AVX-512 SVML kernels are documented at ≤ 4 ULP, glibc's at < 1 ULP). At
position 0 the angle is exactly 0 and cos 0 = 1, sin 0 = 0 exactly (bound 0, checked by
``rope_group_law_and_orthogonality``). Majorants are themselves evaluated in float64 (relative
error < 1e-12 for these sizes); every float64 bound carries a factor ``1 + 1e-6`` for that. On the
``mp`` backend (50 digits) the bound is :func:`~.._arith.mp_bound` of the largest majorant: every
chain here has far fewer than 10⁴ roundings, and the angle error ``|n|·u`` with ``|n| ≤ 8192`` is
within that allowance. References for the RoPE values (``cos(nθ_j)`` …) are computed at 80 digits.

``pyref.analysis.commutant_projection``/``commutant_residual`` are float64-only audit tools
(spec D: a complex float64 eigenbasis); the properties built on them run on ``float64`` only (an mp
run would evaluate the same float64 code). Their bounds: every entry of ``U``
(``±1/√2``, ``±i/√2``) has relative error ≤ 2.01u; each of the four complex products
``U*·G``, ``·U``, ``U·D``, ``·U*`` sums 2 nonzero terms (``√2 γ_4`` for complex inner products,
Higham §3.6), and ``|U||U*| = P`` (the 2×2-block ones pattern), so ``|Π'(G) − Π(G)| ≤ β_Π · P|G|P``
with ``β_Π = (1 + 2.01u)^4 (1 + √2 γ_4)^4 − 1`` (≈ 31u).
"""
