"""``plga audit``: the paper's numerical audit (spec D) of a PLDR-LLM v510 checkpoint,
computed with the reference model :mod:`pyref` at any precision.

Modules: :mod:`~crosscheck.audit.inputs` (options, config, checkpoint, token files, output
directory), :mod:`~crosscheck.audit.records` (null-aware statistics, JSON sanitizing),
:mod:`~crosscheck.audit.sections`, :mod:`~crosscheck.audit.highprec`,
:mod:`~crosscheck.audit.gcache`, :mod:`~crosscheck.audit.blockseq` (the sections),
:mod:`~crosscheck.audit.run` (:class:`~crosscheck.audit.run.AuditOptions`,
:func:`~crosscheck.audit.run.run_audit`), :mod:`~crosscheck.audit.render` (``audit.md``) and
:mod:`~crosscheck.audit.plots` (PNG plots, matplotlib optional).

Sections (each is a top-level key of ``audit.json`` and a section of ``audit.md``):

* ``rank_one`` -- σ₂/σ₁, numerical rank #{σ > 64·eps_f32·σ₁}, row-variance ratio and the
  cross-head RMS(X_h − X_0) (with its ratio to RMS(X_0)) of ``A`` and ``A_LM`` per layer and
  head (spec D, "Rank-one / singularity statistics"), plus the full singular spectra;
* ``commutant`` -- ρ(G_LM) = ‖G_c − ΠG_c‖_F/‖G_c‖_F in the complex RoPE eigenbasis (spec
  D2) and the commutator residual ‖G R₁ − R₁ G‖_F/‖G‖_F;
* ``perron`` -- Perron root and positive eigenvector of each audited ``A_LM`` at ``hp_dps``
  digits (``pyref.analysis.perron``) with a rigorous certificate in Arb ball arithmetic
  (``crosscheck.certificates.perron_certificate``: Collatz–Wielandt enclosure of the root,
  Hopf's bound on every other eigenvalue, a lower bound on min v/max v);
* ``dag`` -- the DAG value |m + log Σ e^{λ_i − m} − log d_k|, λ = eig(M⊙M), of A_LM, A_P,
  G_LM (spec D, H);
* ``gcache`` -- G-cache fidelity (spec D, G): greedy decoding with KV+G cache vs uncached
  forward passes on the same tokens: per step the max logit deviation d_t, the top-1/top-2
  margins, the sufficient criterion 2·max d < min margin, ε_G(t, l), max|ΔG|, and the
  uncached greedy tokens; on ``--backend arb`` the criterion is certified from the balls
  (every other statistic of an arb run uses the balls' midpoints);
* ``block_vs_sequential`` -- block cross-entropy (one call on win[:−1]) vs sequential NLL
  (one call per prefix) per token, per prompt and pooled, with position buckets (spec D, S1);
* ``order_parameter`` -- RMS(X₁ − X₂), m_rms, m_signed (and the one-sided m_first) between
  the operators of two runs (``--tokens2``), per layer and over the whole model (spec D);
* ``determinants`` -- det A_LM at ``hp_dps`` digits next to its float64 and float32 LAPACK
  values: the "floating-point zero determinant is underflow" point, measured.

Every number goes to ``audit.json`` (atomic write, last); a statistic that is undefined is
``null`` with its reason in the record's ``null_reasons``; NaN/inf never appear.
"""
