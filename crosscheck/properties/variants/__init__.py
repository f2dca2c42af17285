"""Properties for ``Formal/Variants`` (issue 10: KLA, Gated DeltaNet / KDA, mHC, Attention
Residuals), evaluated on :mod:`pyref.variants` (``kla``, ``deltanet``, ``mhc``, ``attnres``).
The formulas are those of ``VARIANTS.md``; every property restates one claim of it and checks
pyref against it on generated inputs, on the ``mp`` (50 digits) and ``float64`` backends.

One module per Lean file (``kla``, ``kla_chunk``, ``delta_net``, ``mhc``, ``attn_res``): each
property names the ``Formal/Variants`` theorems (namespaces
``PLGA.Variants.{DeltaNet,Mhc,Kla,KlaChunk,AttnRes}``) whose statements it checks; each module's
``JUSTIFY`` gives a one-line reason for every other theorem of its file (helpers, definitional
unfoldings, sum/index algebra used only inside proofs, fixed Rat illustrations). The pyref
mutants these properties must kill are ``crosscheck.mutants.VARIANT_MUTANTS``.

**Two layers of evidence.** Besides the properties restating a claim of a theorem on pyref's
values, every public function of :mod:`pyref.variants` is compared with the independent
evaluator of the Lean definitions (:mod:`crosscheck.spec_eval.variants_linear` for
``DeltaNet``/``Kla``/``KlaChunk``, :mod:`crosscheck.spec_eval.variants_depth` for
``Mhc``/``AttnRes``; mpmath at 50 digits, no code shared with pyref) by the ``*_matches_spec``
properties, every returned field included, so a formula wrong on both of pyref's paths (token
loop and chunked form, one-pass and two-phase) cannot cancel.

**Inputs.** Generic: entries uniform in ``(−1, 1)`` from a drawn seed (every ``|x| < 1e-4``
moved to ``±(0.5 + |x|)``), times a magnitude from a few decades; gates uniform inside their
open ranges. No Hypothesis edge values (0, ±1, repeated entries) in the draws: special values
(zero or unit gates, ε = 0, zero keys or queries, the paper's worked examples) are explicit
examples (``prop(examples=...)``), run before the generated ones. Nonzero entries are ≥ 1e-7
in size, so no product chain of these properties (≤ ~100 factors of size ≥ 1e-7, and decay
products ≥ 0.05^10) comes near the float64 underflow threshold, and the relative-error model
below holds without gradual-underflow terms.

**Error bounds (derived, not tuned).** Every float64 bound is an a-priori bound of the form
``|fl(f) − f| ≤ γ_D · f_abs`` (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1–3.5,
Lemma 3.3): for a straight-line program of +, −, × (and divisions by quantities computed from
positive terms only, which carry relative errors), each computed value obeys
``|x̂ − x| ≤ γ_p X`` where ``X`` is the same program evaluated on absolute values with every −
turned into + (``f_abs``), and the index ``p`` grows by one per operation, adds over the two
factors of a product, and by ``k`` for a k-term sum.  The properties compute ``f_abs`` in float64
(``_abs_*`` helpers; relative error < 1e-12 for these sizes, covered by the factor ``SLACK``) and
state the index ``D`` they use (an upper bound on ``p``, derived in each docstring).  Comparing two
evaluations of the same exact quantity uses :func:`~crosscheck.properties._arith.bound` (``2 γ_D
max T``, the larger of the two majorants; against the evaluator, whose 50-digit error is far
below γ_1, the factor 2 is slack).  ``mp`` runs at 50 digits with
:func:`~crosscheck.properties._arith.mp_bound` (``1e-40·T``: every chain here has < 10⁴ roundings).

Witness (non-vacuity) claims -- "the two orders differ", "averaging the halves is wrong", "the
transfer can amplify", "a zero candidate changes the weights" -- are checked quantitatively: the
property derives the exact size of the effect, counts the example as meeting the hypotheses
only when that size is far above the round-off bound, and then requires pyref's values to show
the effect (an exact sub-check, bound 0, fails otherwise).
"""
