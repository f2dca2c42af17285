"""Properties for ``Formal/Perron`` (namespace ``PLGA.Perron``): Perron–Frobenius for
entrywise-positive matrices, the paper's Thm 3.8, and ``metricTensor_perron_frobenius``
for ``A_LM = iSwiGLU(W A + b) + ε``.

**Matrices.** Every property draws a :class:`Case` of one of three kinds:

* ``pipeline`` — pyref's own chain: ``D = pyref.plga.density(Q̂)``, the row LayerNorm
  ``pyref.layers.layer_norm`` (learned γ, β), zero or one unit of the residual metric learner
  ``pyref.plga.residual_metric_learner`` (a SwiGLU block + LN), then
  ``A_LM = pyref.plga.metric_tensor(A, W, b, ε)`` (sigmoid gate, ``iSwiGLU(u) = u²σ(u)``);
* ``random`` — ``pyref.plga.metric_tensor`` on random ``A``, ``W``, ``b`` (rank-deficient and
  large-magnitude inputs included, so many entries sit at exactly ``ε``);
* ``positive`` — the harness' ``positive_square`` strategy (entries in ``[ε, 1 + ε]``).

The metric ``ε`` is drawn from ``{1e-9, 1e-6, 1e-3, 0.1}``. With ``ε = 1e-9`` and entries up to
~1e13, ``A_LM`` is *nearly reducible* (``min A / max A`` down to ~1e-22); that regime is kept on
purpose.

**Instantiation.** The Lean statements quantify over any ``ε`` with ``ε ≤ A_ij`` (and any
``K ≥ A_ij``). The properties instantiate them at the sharpest admissible constants
``ε := min_ij A_ij`` (``≥`` the metric ε) and ``K := max_ij A_ij``: every conclusion is
monotone in ``ε`` and ``K`` (the discs ``|λ − ε| ≤ r − ε`` are nested, ``θ = ε²/(K²n)`` grows
with ``ε``), so this implies the instance at the drawn metric ``ε``.

**References at 50 digits** (the ``mp`` backend, ``u = 10^-49``): the Perron pairs of ``A`` and
``Aᵀ`` from ``pyref.analysis.perron(·, dps=50)``; the spectrum with left and right eigenvectors from
``mpmath.eig``; singular values from ``mpmath.svd_r``. ``perron_result_matches_spec`` instead
compares every field of ``pyref.analysis.perron`` with the spec evaluator
(``crosscheck.spec_eval.analysis``: ``mpmath.eig`` at 80 digits, Collatz–Wielandt brackets,
Birkhoff's contraction), which shares no code with pyref.

**Tolerances** (derived, never tuned; ``MP = 1e-40`` is ``_arith.mp_bound``'s factor, more
than ``10^4`` times any chain of roundings used here, see ``_arith``). mp tolerances are purely
relative, ``MP·T`` without ``mp_bound``'s absolute floor ``max(1, T)``: mpmath has no underflow,
so a tiny probe vector keeps 49 significant digits, and an absolute floor would swamp the
margins of the strict checks below (Hypothesis found exactly that with a 1e-45-sized probe).

* *root error* ``err_r``: by the Collatz–Wielandt theorem the true root lies in
  ``[min_i (Av̂)_i/v̂_i, max_i (Av̂)_i/v̂_i]`` for pyref's positive ``v̂``, so
  ``|r̂ − r| ≤ err_r :=`` the distance from ``r̂`` to the ends of that interval ``+ MP·r``
  (``~1e-49·r`` in practice). The Collatz–Wielandt property itself does not lean on this.
* *eigenvalues of* ``mpmath.eig``: backward stable, ``‖E‖ ≤ p(n)·u·‖A‖_F ≤ MP·‖A‖_F``
  (``p(n) ≤ 10^9`` for ``n ≤ 8``); first-order perturbation ``|δλ_j| ≤ κ_j ‖E‖`` with
  ``κ_j = ‖l_j‖‖r_j‖/|l_jᴴ r_j|`` from the computed left/right vectors, doubled for the
  second-order term: ``tol_j = 2 κ_j · MP · ‖A‖_F``.
* *singular values*: Weyl (``|σ_i(B + F) − σ_i(B)| ≤ ‖F‖₂``) with ``F`` the root error times
  ``I`` plus the 50-digit backward error ``MP·‖B‖_F``.
* *float64*: Higham's ``γ_k`` bounds (``_arith.fp_bound``) plus the gradual-underflow term
  ``k·(1 + n·max A)·2^-1074`` (Hypothesis draws subnormal vector entries; an absolute underflow
  error in ``fl(c·x)`` is then multiplied by ``A``); for the float64 Perron root the
  a-priori perturbation bound ``2 κ · 10n² · u · ‖A‖_F`` with ``κ = ‖y‖‖v‖/(yᵀv)`` the condition
  number of the Perron root (left/right Perron vectors, computed at 50 digits) and ``10n²·u·‖A‖_F``
  a generous form of the LAPACK backward error ``p(n)·u·‖A‖`` of the Hessenberg-QR algorithm
  (Golub–Van Loan §7.5.6, ``‖E‖₂ ≈ u‖A‖₂``).

*Strict* claims (``σ_{n−1} > 0``, ``|λ| < r``, mixed signs) are checked as "the resolution
stays below the margin": the property fails if a margin the theorem says is positive is not
above the numerical resolution. The proved margins are far above it: Hopf gives
``r − |λ| ≥ r(1 − τ) ≳ r·min A/max A ≥ 1e-22·r``, and an eigenvector of an eigenvalue ``≠ r``
has an entry of the opposite sign of relative size ``≥ min_i y_i/Σy ≥ ε/r`` (``yᵀw = 0`` with the
left Perron vector ``y``), against a resolution of ``~1e-40``.

**Certificates.** ``crosscheck.certificates.perron_certificate`` works in Arb ball arithmetic
and converts float and mpf entries exactly, whatever mpmath's ambient precision (the property
still calls it inside a 50-digit context); its claims are checked against the 50-digit
spectrum whether or not the certificate is conclusive.

**Composite outcomes.** A property that checks several sub-statements collects them in a
:class:`crosscheck.registry.Checks` and reports :func:`crosscheck.registry.combine`:
``dev = max_k dev_k / bound_k`` and ``bound = 1`` (a sub-check with bound 0 contributes 0 if
exact, ∞ otherwise); every sub-check must hold; the note names the worst (or failing) one.
"""
