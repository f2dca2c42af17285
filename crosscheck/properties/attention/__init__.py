"""Properties for ``Formal/Attention`` (SDPA inclusion, softmax facts, masks, G-cache
exactness, absorption), evaluated on ``pyref.plga`` and ``pyref``'s models.

The Lean statements use the *ideal* masked softmax (masked weights exactly 0); pyref
implements both the authors' additive ``-1e9`` mask and the exact one
(``masked_softmax(mode="exact")``). Properties about the ideal softmax use the exact mode;
the causal-mask property also checks the additive mode in float64, where
``exp(-1e9)`` underflows to exactly 0 (spec G.10).

**Model-level properties** (multi-head and decoder modules, cache, collapse, absorb).
Model-level properties for ``Formal/Attention`` (namespace ``PLGA.Attention``): multi-head
and whole-decoder SDPA inclusion, inference collapse (Thm 5.4(ii)), absorption of a constant
operator into the query projection, the G-cache and its failing converse, and the softmax facts
not covered by :mod:`.attention`. Everything is evaluated on ``pyref``'s own code paths: its
multi-head sublayer ``pyref.attention.multi_head_attention`` (the function ``PLDRModel.forward``
calls per layer), its three model classes (``PLDRModel``, ``ConstantGModel``, ``SDPAModel``), its
G-cache, and its public per-head functions.

Correspondence with the Lean objects (row convention, spec A.4):

* ``affine X W b = X W + 𝟙 bᵀ`` is pyref's ``Linear`` with torch weight ``Wᵀ``: head ``h`` of
  ``wq.weight`` ([out, in]) is the row block ``h·d_k … h·d_k + d_k − 1`` (Lean ``headIdx``), so
  ``absorbWeight``/``absorbBias`` (``W_h ↦ W_h G_h``, ``b_h ↦ b_hᵀ G_h``) become
  ``wq_h ↦ G_hᵀ wq_h`` and ``bq_h ↦ bq_h G_h`` (:func:`_absorb`);
* ``rotRows R`` is pyref's interleaved RoPE (row ``t`` times ``R_tᵀ``); ``noRope`` is realized by
  substituting the identity for ``pyref.attention.rotate`` for the duration of one call
  (:func:`_rope_off`: pyref's model has no RoPE switch) or, for per-head checks, by
  ``apply_rope`` at position 0 (exactly the identity);
* an operator commuting with every rotation is block-diagonal with 2×2 blocks ``a·1 + b·J`` on the
  interleaved pairs (:func:`_commuting_op`);
* ``PLGALayer.gen`` is pyref's metric learner (``PLDRModel``), ``pinLayers`` is
  ``ConstantGModel`` (``PLDRModel.to_constant_operator(G=…)``), ``sdpaDecoder`` is ``SDPAModel``;
  the whole-model comparisons compare both the decoder output (``ForwardOutput.hidden``, the
  Lean ``plgaDecoder`` value on ``X = embed(tokens)``) and the logits.

Several Lean identities are *structural* and pyref realizes both sides with the same sequence of
floating-point operations on bitwise-equal operands (e.g. ``Q̂·I`` is exact, multiplying by a
power of two is exact, a cached operator is the recomputed one bit for bit); those properties use
bound 0 on both backends and say why. Where the two sides round differently (absorption) the
float64 bound is derived in :func:`_attn_bound`; whole-model comparisons that round differently
run at 50 digits only.
"""
