module

public import Formal.Attention.Collapse
public import Formal.Metric

/-!
# G-cache exactness is one-way (Thm 5.4 discussion, spec §B)

At inference the code can freeze each layer's operators `G_LM` (the G-cache, filled at the
prefill) instead of recomputing them. One way: if the recomputed operator equals the cached
one, the cached step's output equals the uncached step's output — for the multi-head layer, the
decoder layer and the whole stack; a cache filled from the prefill input is exact on that input.
The converse fails, formally, twice: (i) output equality does not force operator equality (zero
values make the output independent of `G`); (ii) exact caching does not force invariance of the
upstream tensors: with the energy-curvature parameters `a = 0`, `b_a = G*` the operator
`G_LM = a A_P + b_a` is `G*` for every input while `A` and `A_LM = iSwiGLU(W A + b) + ε` vary
with the input.

## Main definitions

* `opsAlong`: the operators recomputed along the trajectory of `X` (what a prefill stores);
* `energyCurvature a AP ba`: `G_LM = a · A_P + b_a` (matrix product);
* `MetricLearner`, `MetricLearner.ALM`, `MetricLearner.gen`: the metric learner of one layer
  (per-head parameters), its `A_LM` and its generator `X ↦ G_LM`.

## Main statements

* `mha_gcache_exact`, `decoderLayer_gcache_exact`, `plgaDecoder_gcache_exact`: exactness at
  layer, decoder-layer and stack level;
* `plgaDecoder_gcache_prefill_exact`: a cache filled from the prefill input is exact on it;
* `mha_zero_values`: converse failure (i);
* `gcache_exact_converse_fails`: converse failure (ii), a formal counterexample;
* `energyCurvature_zero_left`, `energyCurvature_one_left`: `a` acts on `A_P` by matrix product,
  not entrywise;
* `metricTensor_zero_ne_ones`: two inputs with different metric tensors (Prop 3.7 specialised).

## Implementation notes

The metric learner is modelled as in the spec (§A.4 steps 6–8): per head,
`A_LM = metricTensor σ W A b ε`, `A_P = A_LM^{⊙P}` (`Mat.hadPow pw` with an abstract real power
`pw`, `Real.rpow`), `G_LM = a · A_P + b_a` (matrix product); `A = up X` (the `LN_A`, density and
`Φ_res` part) stays abstract. Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations`: `cache_sufficiency_scores`, `cache_sufficiency_rows`
(equal operators ⇒ equal scores/rows; "only this direction is claimed"), no counterexample. Not
covered: the KV-cache (frozen `A`), numerical deviations.

## References

* Thm 5.4 of the paper (discussion of the G-cache), Prop 3.7;
* `../shared/spec/PLGA_SPEC.md` §B (G-cache), §A.4 steps 6–8 (metric learner).
-/

@[expose] public section

namespace PLGA.Attention

variable {α : Type u} [Lean.Grind.Field α] [LT α] {S d H dk : Nat}

/-! ## One way: equal operators give equal outputs -/

/-- G-cache exactness, multi-head layer: if the operators recomputed at `X` equal the cached
ones, the cached output equals the uncached output. Does not cover: the converse (see
`mha_zero_values`). -/
theorem mha_gcache_exact (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (gen : Mat S d α → HeadOps α H dk) {Gc : HeadOps α H dk} {X : Mat S d α} (hG : gen X = Gc) :
    mha cfg P Gc X = mha cfg P (gen X) X := by
  rw [hG]

/-- G-cache exactness, decoder layer. Does not cover: the converse. -/
theorem decoderLayer_gcache_exact (cfg : AttnConfig α S dk) (ℓ : PLGALayer α S d H dk)
    {Gc : HeadOps α H dk} {X : Mat S d α} (hG : ℓ.gen X = Gc) :
    decoderLayer cfg ℓ.params Gc X = ℓ.run cfg X :=
  (run_eq_decoderLayer_of_gen_eq cfg ℓ hG).symm

/-- G-cache exactness, whole stack: if at every layer the recomputed operators (along the
actual trajectory of `X`) equal the cached ones `Gc_l`, the G-cached decoder's output equals
the uncached decoder's output. Does not cover: the converse (see
`gcache_exact_converse_fails`). -/
theorem plgaDecoder_gcache_exact (cfg : AttnConfig α S dk) (ls : List (PLGALayer α S d H dk))
    (Gc : List (HeadOps α H dk)) (X : Mat S d α) (h : InvariantAlong cfg ls Gc X) :
    plgaDecoder cfg (pinLayers ls Gc) X = plgaDecoder cfg ls X :=
  plgaDecoder_pinLayers_of_invariantAlong cfg ls Gc X h

/-- The operators recomputed along the trajectory of `X`: what a G-cache stores after a
forward pass on `X` (the prefill). -/
noncomputable def opsAlong (cfg : AttnConfig α S dk) :
    List (PLGALayer α S d H dk) → Mat S d α → List (HeadOps α H dk)
  | [], _ => []
  | ℓ :: ls, X => ℓ.gen X :: opsAlong cfg ls (ℓ.run cfg X)

/-- The operators recorded along the trajectory of `X` are invariant along that trajectory
(structural). -/
theorem invariantAlong_opsAlong (cfg : AttnConfig α S dk) :
    ∀ (ls : List (PLGALayer α S d H dk)) (X : Mat S d α),
      InvariantAlong cfg ls (opsAlong cfg ls X) X
  | [], _ => trivial
  | ℓ :: ls, X => ⟨rfl, invariantAlong_opsAlong cfg ls (ℓ.run cfg X)⟩

/-- A G-cache filled from the prefill input `X` is exact on `X`. Does not cover: later
inputs (exact there iff the recomputed operators agree, see `plgaDecoder_gcache_exact`). -/
theorem plgaDecoder_gcache_prefill_exact (cfg : AttnConfig α S dk)
    (ls : List (PLGALayer α S d H dk)) (X : Mat S d α) :
    plgaDecoder cfg (pinLayers ls (opsAlong cfg ls X)) X = plgaDecoder cfg ls X :=
  plgaDecoder_gcache_exact cfg ls _ X (invariantAlong_opsAlong cfg ls X)

/-! ## The converse fails -/

omit [LT α] in
/-- With zero value weight and bias every head's values are `0` (structural). -/
theorem values_zero (P : MHAParams α d H dk) (hW : P.WV = Mat.zero d (H * dk))
    (hb : P.bV = fun _ => 0) (X : Mat S d α) (h : Fin H) : values P X h = Mat.zero S dk := by
  funext t j
  simp only [values, splitHead, affine, Mat.add, Mat.mul, Mat.rowBroadcast, hW, hb, Mat.zero]
  rw [fsum_congr d (g := fun _ => (0 : α)) (fun _ => by grind), fsum_const_zero]
  grind

/-- Converse failure (i): with zero value projections the multi-head output is the same for
**all** operators, so equal cached/uncached outputs do not imply equal operators. Does not
cover: nondegenerate value projections. -/
theorem mha_zero_values (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (hW : P.WV = Mat.zero d (H * dk)) (hb : P.bV = fun _ => 0) (G G' : HeadOps α H dk)
    (X : Mat S d α) : mha cfg P G X = mha cfg P G' X := by
  simp only [mha, values_zero P hW hb X, plgaAttention_zero_values]

/-- Energy-curvature tensor `G_LM = a · A_P + b_a` (matrix product, spec A.4 step 8). -/
noncomputable def energyCurvature {n : Nat} (a AP ba : Mat n n α) : Mat n n α :=
  Mat.add (Mat.mul a AP) ba

/-- The metric learner of one layer: per-head parameters, `A = up X` abstract. -/
structure MetricLearner (α : Type u) (S d H dk : Nat) where
  /-- `X ↦ A` (density operator, `LN_A`, `Φ_res`), per head -/
  up : Mat S d α → Fin H → Mat dk dk α
  /-- metric weight `W_h` -/
  W : Fin H → Mat dk dk α
  /-- metric bias `b_h` -/
  b : Fin H → Mat dk dk α
  /-- exponent matrix `P_h` -/
  P : Fin H → Mat dk dk α
  /-- energy-curvature weight `a_h` -/
  a : Fin H → Mat dk dk α
  /-- energy-curvature bias `b_{a,h}` -/
  ba : Fin H → Mat dk dk α
  /-- floor `ε` (`1e-9`) -/
  ε : α

/-- `A_LM = iSwiGLU(W A + b) + ε` of head `h` at input `X`. -/
noncomputable def MetricLearner.ALM (σ : α → α) (m : MetricLearner α S d H dk) (X : Mat S d α)
    (h : Fin H) : Mat dk dk α :=
  metricTensor σ (m.W h) (m.up X h) (m.b h) m.ε

/-- The generator `X ↦ G_LM` of the metric learner. -/
noncomputable def MetricLearner.gen (σ : α → α) (pw : α → α → α) (m : MetricLearner α S d H dk)
    (X : Mat S d α) : HeadOps α H dk :=
  fun h => energyCurvature (m.a h) (Mat.hadPow pw (m.ALM σ X h) (m.P h)) (m.ba h)

omit [LT α] in
/-- With `a = 0` the energy-curvature tensor is `b_a`, whatever `A_P`. -/
theorem energyCurvature_zero_left {n : Nat} (AP ba : Mat n n α) :
    energyCurvature (Mat.zero n n) AP ba = ba := by
  funext i j
  simp only [energyCurvature, Mat.add, Mat.mul, Mat.zero]
  rw [fsum_congr n (g := fun _ => (0 : α)) (fun _ => by grind), fsum_const_zero]
  grind

omit [LT α] in
/-- With `a = I` the energy-curvature tensor is `A_P + b_a`: `a` acts on `A_P` by matrix
product (spec A.4 step 8, `G_LM = a·A_P + b_a`), not entrywise. Does not cover: other `a`. -/
theorem energyCurvature_one_left {n : Nat} (AP ba : Mat n n α) :
    energyCurvature (Mat.one n) AP ba = Mat.add AP ba := by
  simp only [energyCurvature, Mat.one_mul]

section Ordered
variable [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Prop 3.7 specialised: with `W = I`, `b = 0`, the metric tensors of `A = 0` and `A = 𝟙𝟙ᵀ`
differ (entry `(0,0)`: `ε` vs `σ(1) + ε`). -/
theorem metricTensor_zero_ne_ones (σ : PosFn α) (n : Nat) (ε : α) :
    metricTensor σ.f (Mat.one (n + 1)) (Mat.zero (n + 1) (n + 1)) (Mat.zero (n + 1) (n + 1)) ε
      ≠ metricTensor σ.f (Mat.one (n + 1)) (fun _ _ => 1) (Mat.zero (n + 1) (n + 1)) ε := by
  intro h
  have h0 := congrFun (congrFun h 0) 0
  simp only [metricTensor, Mat.one_mul, Mat.zero] at h0
  have hpos := iswiglu_pos σ (1 : α) (by
    intro h1; have := Lean.Grind.OrderedRing.zero_lt_one (R := α); rw [h1] at this; grind)
  simp only [iswiglu] at h0 hpos
  grind

/-- Converse failure (ii), formal counterexample (the `a = 0, b_a = G*` degeneracy): for any
decoder layer parameters, any cached operators `G*`, any positive gate `σ` and any two distinct
inputs, there is a metric learner whose G-cached decoder equals the uncached one on **every**
input and whose recomputed operator is `G*` everywhere, while its upstream tensors `A` and
`A_LM` differ between the two inputs. So exact caching does not imply input invariance of
`A` or `A_LM`. Does not cover: trained parameters (whether `a ≈ 0` occurs). -/
theorem gcache_exact_converse_fails (σ : PosFn α) (pw : α → α → α) {n : Nat}
    (cfg : AttnConfig α S (n + 1)) (P : LayerParams α S d H (n + 1)) (Gstar : HeadOps α H (n + 1))
    (X₁ X₂ : Mat S d α) (hX : X₁ ≠ X₂) (h₀ : Fin H) :
    ∃ m : MetricLearner α S d H (n + 1),
      (∀ X, m.gen σ.f pw X = Gstar) ∧
      (∀ X, plgaDecoder cfg (pinLayers [⟨P, m.gen σ.f pw⟩] [Gstar]) X
        = plgaDecoder cfg [⟨P, m.gen σ.f pw⟩] X) ∧
      m.up X₁ h₀ ≠ m.up X₂ h₀ ∧ m.ALM σ.f X₁ h₀ ≠ m.ALM σ.f X₂ h₀ := by
  classical
  let m : MetricLearner α S d H (n + 1) :=
    { up := fun X _ => if X = X₁ then Mat.zero (n + 1) (n + 1) else fun _ _ => 1
      W := fun _ => Mat.one (n + 1)
      b := fun _ => Mat.zero (n + 1) (n + 1)
      P := fun _ => Mat.zero (n + 1) (n + 1)
      a := fun _ => Mat.zero (n + 1) (n + 1)
      ba := Gstar
      ε := 0 }
  have hgen : ∀ X, m.gen σ.f pw X = Gstar := by
    intro X; funext h
    exact energyCurvature_zero_left _ _
  have hup1 : m.up X₁ h₀ = Mat.zero (n + 1) (n + 1) := if_pos rfl
  have hup2 : m.up X₂ h₀ = fun _ _ => 1 := if_neg (fun e => hX e.symm)
  have hne := metricTensor_zero_ne_ones σ n 0
  refine ⟨m, hgen, ?_, ?_, ?_⟩
  · intro X
    exact plgaDecoder_gcache_exact cfg _ _ X ⟨hgen X, trivial⟩
  · rw [hup1, hup2]
    intro e
    apply hne
    rw [e]
  · simp only [MetricLearner.ALM]
    rw [hup1, hup2]
    exact hne

end Ordered

end PLGA.Attention
