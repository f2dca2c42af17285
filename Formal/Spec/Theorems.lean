module

public import Formal.Spec.Decoder
public import Formal.Attention.Absorb
public import Formal.Perron.Theorem38
public import Formal.Structure.PowerLaw

/-!
# The paper's theorems for the assembled spec model

`Formal.Spec.Decoder` builds the spec decoder as `Attention.plgaDecoder` over
`Attention.PLGALayer`s whose generators are the assembled operators. Here the library's
theorems are restated for that one object: SDPA inclusion, G-cache exactness, collapse and
absorption under invariance, and, for the very `A_LM` that feeds the attention scores,
`A_LM ≥ ε` (Prop 3.7) and the Perron–Frobenius theorem (Thm 3.8).

## Main definitions

* `CurvatureConst G Ls`: every head of every layer has `a = 0` and `b_a = G`, so that
  `G_LM = a·A_P + b_a = G` for every input (with `G = I`: the parameter-level form of
  "`G_LM` pinned to `I`").

## Main statements

* `decoder_pinned_one_eq_sdpaDecoder`, `decoder_eq_sdpaDecoder_of_curvatureConst_one`,
  `logits_eq_sdpaLogits_of_curvatureConst_one`: SDPA inclusion for the spec decoder and model;
  `decoder_eq_sdpaDecoder_of_curvatureConst_smul`: its temperature form (`b_a = c·I`);
* `pinLayers_layers_one`, `headG_eq_ba_of_a_eq_zero`, `layers_eq_of_curvatureConst`: the
  spec layers pinned to `I` are the SDPA parameters' identity layers; with `a = 0` the
  operator is `b_a` on every input;
* `decoder_gcache_exact`, `decoder_gcache_prefill_exact`, `opsAlong_layers_cons`: G-cache
  exactness, and what the G-cache stores (the spec's `G_LM`);
* `decoder_collapse`, `decoder_eq_sdpaDecoder_of_invariantAlong`,
  `logits_eq_sdpaLogits_absorb_of_invariantAlong`: Thm 5.4(ii) for the spec decoder and model;
* `headA_row_eq_phiResRow`: Prop 3.11 for the spec's `A`;
* `headALM_entry_ge`, `headALM_entry_pos`: Prop 3.7 for the spec's `A_LM`;
* `headAP_eq_hadPow_rpow`, `headAP_pos`: with `pw = ExpLog.rpow`, the spec's `A_P` is the
  power tensor of `Formal.Structure.PowerLaw` and entrywise positive (Prop 3.7);
* `headALM_perron_frobenius`, `headALM_isPerronFrobenius_of_pairs`: Thm 3.8 for the spec's
  `A_LM` of head `h` at input `X`.

## Implementation notes

Every proof instantiates a library theorem at the spec layers (plus a list induction for
`pinLayers_layers_one`, `layers_eq_of_curvatureConst`); nothing is re-proved. The
invariance hypotheses (`InvariantAlong`, `ExactlyInvariant`) are stated on `layers F cfg Ls`,
i.e. on the spec's `headG`; whether a trained model satisfies them is an empirical question.

## References

* the paper's SDPA-inclusion theorem; Thm 5.4(ii) (collapse, absorption); spec §B (G-cache);
* Prop 3.7, Prop 3.11, Thm 3.8.
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Density PLGA.RowMap

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] {S d H dk hA hF : Nat}

/-! ## SDPA inclusion -/

/-- Pinning every spec layer's operators to `I` gives the identity layers of the SDPA
parameters (structural). -/
theorem pinLayers_layers_one (F : Prims α) (cfg : AttnConfig α S dk) :
    ∀ Ls : List (LayerSpec α d H dk hA hF),
      pinLayers (layers F cfg Ls) (Ls.map fun _ _ => Mat.one dk)
        = identityLayers (sdpaLayers F Ls)
  | [] => rfl
  | L :: Ls => by
    show (⟨layerParams F L, fun _ _ => Mat.one dk⟩ : PLGALayer α S d H dk)
        :: pinLayers (layers F cfg Ls) (Ls.map fun _ _ => Mat.one dk)
      = ⟨layerParams F L, fun _ _ => Mat.one dk⟩ :: identityLayers (sdpaLayers F Ls)
    rw [pinLayers_layers_one F cfg Ls]

/-- SDPA inclusion for the spec decoder (paper's first theorem, `G_LM = I`): the spec decoder
with every operator pinned to `I` is the SDPA decoder with the same parameters (pyref's
`to_sdpa`), on every input, for every mask, scale and RoPE family. Does not cover: operators
other than `I` (see `decoder_eq_sdpaDecoder_of_invariantAlong`). -/
theorem decoder_pinned_one_eq_sdpaDecoder (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α) :
    plgaDecoder cfg (pinLayers (layers F cfg Ls) (Ls.map fun _ _ => Mat.one dk)) X
      = sdpaDecoder cfg (sdpaLayers F Ls) X := by
  rw [pinLayers_layers_one]
  exact plgaDecoder_identityLayers_eq_sdpaDecoder cfg _ X

/-- Every head of every layer has energy-curvature parameters `a = 0` and `b_a = G`. -/
def CurvatureConst (G : Mat dk dk α) (Ls : List (LayerSpec α d H dk hA hF)) : Prop :=
  ∀ L ∈ Ls, ∀ h, (L.learner.weights h).a = Mat.zero dk dk ∧ (L.learner.weights h).ba = G

/-- With `a = 0` the spec operator `G_LM = a·A_P + b_a` is `b_a` for every input, whatever
`A`, `A_LM`, `A_P` are. Does not cover: `a ≠ 0`. -/
theorem headG_eq_ba_of_a_eq_zero (F : Prims α) (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H)
    (ha : (M.weights h).a = Mat.zero dk dk) : headG F cfg P M X h = (M.weights h).ba := by
  show energyCurvature (M.weights h).a (headAP F cfg P M X h) (M.weights h).ba = (M.weights h).ba
  rw [ha]
  exact energyCurvature_zero_left _ _

/-- Under `CurvatureConst G` the spec layers are the SDPA parameters with every operator pinned
to `G` (structural, via `headG_eq_ba_of_a_eq_zero`). -/
theorem layers_eq_of_curvatureConst (F : Prims α) (cfg : AttnConfig α S dk) (G : Mat dk dk α) :
    ∀ Ls : List (LayerSpec α d H dk hA hF), CurvatureConst G Ls →
      layers F cfg Ls = (sdpaLayers F Ls).map fun P => ⟨P, fun _ _ => G⟩
  | [], _ => rfl
  | L :: Ls, hL => by
    show layer F cfg L :: layers F cfg Ls
      = ⟨layerParams F L, fun _ _ => G⟩ :: (sdpaLayers F Ls).map fun P => ⟨P, fun _ _ => G⟩
    rw [layers_eq_of_curvatureConst F cfg G Ls
      (fun L' hL' => hL L' (List.mem_cons_of_mem _ hL'))]
    have hg : headG F cfg L.attn L.learner = fun _ _ => G := by
      funext X h
      rw [headG_eq_ba_of_a_eq_zero F cfg L.attn L.learner X h (hL L List.mem_cons_self h).1]
      exact (hL L List.mem_cons_self h).2
    show (⟨layerParams F L, headG F cfg L.attn L.learner⟩ : PLGALayer α S d H dk) :: _ = _
    rw [hg]

/-- SDPA inclusion for the spec decoder, parameter form (paper's first theorem): if every head
of every layer has `a = 0`, `b_a = I`, the spec decoder **equals** (as a function) the SDPA
decoder with the same projections, LayerNorms and FFNs. Does not cover: `a ≠ 0`. -/
theorem decoder_eq_sdpaDecoder_of_curvatureConst_one (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (h : CurvatureConst (Mat.one dk) Ls) :
    decoder F cfg Ls = sdpaDecoder cfg (sdpaLayers F Ls) := by
  funext X
  show plgaDecoder cfg (layers F cfg Ls) X = _
  rw [layers_eq_of_curvatureConst F cfg _ Ls h]
  exact plgaDecoder_identityLayers_eq_sdpaDecoder cfg _ X

/-- SDPA inclusion with temperature for the spec decoder (paper's first theorem, scalar case):
if every head of every layer has `a = 0`, `b_a = c·I` with `c ≠ 0`, the spec decoder equals
the SDPA decoder with the same parameters and the score scale divided by `c`. Does not cover:
layer- or head-dependent scalars. -/
theorem decoder_eq_sdpaDecoder_of_curvatureConst_smul (F : Prims α) (cfg : AttnConfig α S dk)
    (c : α) (hc : c ≠ 0) (Ls : List (LayerSpec α d H dk hA hF))
    (h : CurvatureConst (Mat.smul c (Mat.one dk)) Ls) :
    decoder F cfg Ls = sdpaDecoder { cfg with scale := cfg.scale / c } (sdpaLayers F Ls) := by
  funext X
  show plgaDecoder cfg (layers F cfg Ls) X = _
  rw [layers_eq_of_curvatureConst F cfg _ Ls h]
  exact plgaDecoder_scalarLayers_eq_sdpaDecoder cfg c hc _ X

/-- SDPA inclusion for the spec model (paper's first theorem, at the logits): with `a = 0`,
`b_a = I` everywhere, pyref's forward pass equals its `to_sdpa` forward pass on every token
sequence. Does not cover: cached decoding, sampling. -/
theorem logits_eq_sdpaLogits_of_curvatureConst_one {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin S → Mat dk dk α) (M : ModelSpec α V d H dk hA hF) (tok : Fin S → Fin V)
    (h : CurvatureConst (Mat.one dk) M.layers) :
    logits F E rope M tok = sdpaLogits F E rope M tok := by
  unfold logits sdpaLogits
  rw [decoder_eq_sdpaDecoder_of_curvatureConst_one F _ M.layers h]

/-! ## G-cache, collapse and absorption -/

/-- What the G-cache of the spec decoder stores after a prefill on `X`: the spec's `G_LM` of the
first layer at `X`, then those of the later layers along the trajectory (structural). -/
theorem opsAlong_layers_cons (F : Prims α) (cfg : AttnConfig α S dk)
    (L : LayerSpec α d H dk hA hF) (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α) :
    opsAlong cfg (layers F cfg (L :: Ls)) X
      = headG F cfg L.attn L.learner X
        :: opsAlong cfg (layers F cfg Ls) ((layer F cfg L).run cfg X) := rfl

/-- G-cache exactness for the spec decoder (spec §B, Thm 5.4 discussion): if at every layer the
recomputed spec operators along the trajectory of `X` equal the cached ones, the G-cached
decoder's output equals the spec decoder's. Does not cover: the converse
(`gcache_exact_converse_fails`), the KV-cache. -/
theorem decoder_gcache_exact (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (Gc : List (HeadOps α H dk)) (X : Mat S d α)
    (h : InvariantAlong cfg (layers F cfg Ls) Gc X) :
    plgaDecoder cfg (pinLayers (layers F cfg Ls) Gc) X = decoder F cfg Ls X :=
  plgaDecoder_gcache_exact cfg _ Gc X h

/-- A G-cache filled by a prefill of the spec decoder on `X` is exact on `X`. Does not cover:
later inputs (see `decoder_gcache_exact`). -/
theorem decoder_gcache_prefill_exact (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α) :
    plgaDecoder cfg (pinLayers (layers F cfg Ls) (opsAlong cfg (layers F cfg Ls) X)) X
      = decoder F cfg Ls X :=
  plgaDecoder_gcache_prefill_exact cfg _ X

/-- Thm 5.4(ii), collapse, for the spec decoder: if every spec operator is input invariant
(`G_LM = G*_l` on all inputs), the spec decoder equals the decoder with the constants pinned
(the metric-learning subnetwork deleted). Does not cover: approximate invariance. -/
theorem decoder_collapse (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (Gs : List (HeadOps α H dk))
    (h : ExactlyInvariant (layers F cfg Ls) Gs) :
    plgaDecoder cfg (pinLayers (layers F cfg Ls) Gs) = decoder F cfg Ls :=
  plgaDecoder_collapse cfg _ Gs h

/-- Thm 5.4(ii), absorption, for the spec decoder: if along the trajectory of `X` the spec
operators equal constants commuting with the RoPE rotations, the spec decoder's output on `X`
is that of an SDPA decoder with query projections reparametrized by the constants. Does not
cover: approximate invariance; non-commuting constants under RoPE. -/
theorem decoder_eq_sdpaDecoder_of_invariantAlong (F : Prims α) (cfg : AttnConfig α S dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (Gs : List (HeadOps α H dk)) (X : Mat S d α)
    (h : InvariantAlong cfg (layers F cfg Ls) Gs X) (hc : CommutesWithRope cfg Gs) :
    decoder F cfg Ls X = sdpaDecoder cfg (absorbLayers (layers F cfg Ls) Gs) X :=
  plgaDecoder_eq_sdpaDecoder_of_invariantAlong cfg _ Gs X h hc

/-- Thm 5.4(ii), absorption, for the spec model: under invariance along the trajectory of the
embedded tokens, pyref's forward logits equal those of an SDPA model with reparametrized query
projections (same embedding and head). Does not cover: approximate invariance, sampling. -/
theorem logits_eq_sdpaLogits_absorb_of_invariantAlong {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin S → Mat dk dk α) (M : ModelSpec α V d H dk hA hF) (tok : Fin S → Fin V)
    (Gs : List (HeadOps α H dk))
    (h : InvariantAlong (config F E rope tok) (layers F (config F E rope tok) M.layers) Gs
      (embed F M tok))
    (hc : CommutesWithRope (config F E rope tok) Gs) :
    logits F E rope M tok
      = affine (sdpaDecoder (config F E rope tok)
          (absorbLayers (layers F (config F E rope tok) M.layers) Gs) (embed F M tok))
          M.Wout M.bout := by
  unfold logits
  rw [decoder_eq_sdpaDecoder_of_invariantAlong F _ M.layers Gs _ h hc]

/-! ## The objects of the operator chain -/

/-- Prop 3.11 for the spec's `A`: row `i` of `A_h` is the one shared row map `φ = phiResRow`
applied to row `i` of the density `Q̂_hᵀQ̂_h` (for every head, input and row). Does not cover:
properties of `φ`. -/
theorem headA_row_eq_phiResRow (F : Prims α) (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H)
    (i : Fin dk) :
    headA F cfg P M X h i
      = phiResRow F.sqrt F.lnEps F.gate.f M.phi (density (queries cfg P X h) i) :=
  phiResMat_apply F.sqrt F.lnEps F.gate.f M.phi _ i

/-- With the real power `pw = ExpLog.rpow` (`x^p = exp(p · log x)`) the spec's `A_P` is the
`Mat.hadPow E.rpow` of its `A_LM`, the object of `Formal.Structure.PowerLaw` (structural).
Does not cover: other powers. -/
theorem headAP_eq_hadPow_rpow (E : ExpLog α) (F : Prims α) (hpw : F.pw = E.rpow)
    (cfg : AttnConfig α S dk) (P : MHAParams α d H dk) (M : LearnerParams α H dk hA)
    (X : Mat S d α) (h : Fin H) :
    headAP F cfg P M X h = Mat.hadPow E.rpow (headALM F cfg P M X h) (M.weights h).P := by
  show Mat.hadPow F.pw _ _ = _
  rw [hpw]

/-- Prop 3.7 for the spec's `A_P`: with `pw = ExpLog.rpow` every entry of `A_P` is positive,
for every input and parameters. Does not cover: bounds on the entries. -/
theorem headAP_pos (E : ExpLog α) (F : Prims α) (hpw : F.pw = E.rpow)
    (cfg : AttnConfig α S dk) (P : MHAParams α d H dk) (M : LearnerParams α H dk hA)
    (X : Mat S d α) (h : Fin H) (i j : Fin dk) : 0 < headAP F cfg P M X h i j := by
  rw [headAP_eq_hadPow_rpow E F hpw]
  exact PowerLaw.hadPow_pos E _ _ i j

section Ordered
variable [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Prop 3.7 for the spec's `A_LM`: every entry of `A_LM` of every head at every input is at
least `metric_eps`. Does not cover: upper bounds. -/
theorem headALM_entry_ge (F : Prims α) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) (i j : Fin dk) :
    F.metricEps ≤ headALM F cfg P M X h i j :=
  metricTensor_entry_ge F.gate _ _ _ _ i j

/-- Prop 3.7 for the spec's `A_LM`: for `metric_eps > 0` it is entrywise strictly positive.
Does not cover: `metric_eps = 0` (then `A_LM` can have zero entries). -/
theorem headALM_entry_pos (F : Prims α) (hε : 0 < F.metricEps) (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H)
    (i j : Fin dk) : 0 < headALM F cfg P M X h i j :=
  metricTensor_entry_pos F.gate _ _ _ hε i j

/-- Thm 3.8 for the spec model: under `SupComplete α` (true for `ℝ`), for `metric_eps > 0`
and `d_k > 0`, the `A_LM` of head `h` at input `X` — the matrix whose power, times `a`, plus
`b_a`, is the operator of that head's attention scores — has a Perron root `r > 0`, positive
right and left Perron vectors and the full Perron–Frobenius structure. Does not cover: the
characteristic-polynomial form of algebraic simplicity; `A_P` and `G_LM` themselves. -/
theorem headALM_perron_frobenius (hC : Perron.SupComplete α) (F : Prims α)
    (hε : 0 < F.metricEps) (hdk : 0 < dk) (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (M : LearnerParams α H dk hA) (X : Mat S d α) (h : Fin H) :
    ∃ (r : α) (v y : Vec dk α), Perron.IsPerronFrobenius F.sqrt (headALM F cfg P M X h) r v y :=
  Perron.metricTensor_perron_frobenius hC F.sqrt F.gate hdk _ _ _ hε

/-- Thm 3.8 for the spec model without completeness: whenever the spec's `A_LM` of head `h`
at input `X` has positive right and left eigenvectors for one eigenvalue `r`, it has the full
Perron–Frobenius structure over any ordered field. Does not cover: existence of the pairs
(`headALM_perron_frobenius`). -/
theorem headALM_isPerronFrobenius_of_pairs (F : Prims α) (hε : 0 < F.metricEps) (hdk : 0 < dk)
    (cfg : AttnConfig α S dk) (P : MHAParams α d H dk) (M : LearnerParams α H dk hA)
    (X : Mat S d α) (h : Fin H) {r : α} {v y : Vec dk α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec (headALM F cfg P M X h) v i = r * v i) (hy : ∀ i, 0 < y i)
    (hAy : ∀ i, Mat.mulVec (Mat.transpose (headALM F cfg P M X h)) y i = r * y i) :
    Perron.IsPerronFrobenius F.sqrt (headALM F cfg P M X h) r v y :=
  Perron.metricTensor_isPerronFrobenius_of_pairs F.sqrt F.gate hdk _ _ _ hε hv hAv hy hAy

end Ordered

end PLGA.Spec
