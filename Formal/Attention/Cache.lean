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
  (per-head parameters), its `A_LM` and its generator `X ↦ G_LM`;
* `initRows`, `lastRow`, `appendRow`, `prefixConfig`, `lastConfig`, `CausalLast`, `LastRowOpen`:
  the rows and configurations of a prefill and of one KV-cached call (`Formal.Spec.Decode`).

## Main statements

* `mha_gcache_exact`, `decoderLayer_gcache_exact`, `plgaDecoder_gcache_exact`: exactness at
  layer, decoder-layer and stack level;
* `plgaDecoder_gcache_prefill_exact`: a cache filled from the prefill input is exact on it;
* `mha_zero_values`: converse failure (i);
* `gcache_exact_converse_fails`: converse failure (ii), a formal counterexample;
* `energyCurvature_zero_left`, `energyCurvature_one_left`: `a` acts on `A_P` by matrix product,
  not entrywise;
* `metricTensor_zero_ne_ones`: two inputs with different metric tensors (Prop 3.7 specialised);
* `maskedSoftmax_castSucc`, `plgaAttention_castSucc`, `plgaAttention_row_congr`,
  `affine_concatHeads_row_congr`, `queries_eq_appendRow`, `keys_eq_appendRow`,
  `values_eq_appendRow`: the row facts behind KV-cached decoding (a query row that cannot see the
  last key ignores it; an output row depends only on its own input rows; the full sequence's
  queries, keys and values are the prefix's with the new row appended).

## Implementation notes

The metric learner is modelled as in the spec (§A.4 steps 6–8): per head,
`A_LM = metricTensor σ W A b ε`, `A_P = A_LM^{⊙P}` (`Mat.hadPow pw` with an abstract real power
`pw`, `Real.rpow`), `G_LM = a · A_P + b_a` (matrix product); `A = up X` (the `LN_A`, density and
`Φ_res` part) stays abstract. Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations`: `cache_sufficiency_scores`, `cache_sufficiency_rows`
(equal operators ⇒ equal scores/rows; "only this direction is claimed"), no counterexample. The
KV-cache (frozen `A`) is modelled in `Formal.Spec.Decode` on these row facts. Not covered:
numerical deviations.

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

/-! ## Rows of a KV-cached call (used by `Formal.Spec.Decode`) -/

section KVRows

variable {T : Nat}
/-! ## Prefix, last row, appended row -/

/-- Rows `0, …, T-1` of a `(T+1)`-row matrix: the prefix (prefill) part. -/
def initRows {T n : Nat} (X : Mat (T + 1) n α) : Mat T n α := fun t => X t.castSucc

/-- Row `T` of a `(T+1)`-row matrix as a one-row matrix: the new token's part. -/
def lastRow {T n : Nat} (X : Mat (T + 1) n α) : Mat 1 n α := fun _ => X (Fin.last T)

/-- Append one row below a `T`-row matrix (pyref's `cat` of the cache and the new key/value
along the sequence axis). -/
def appendRow {T n : Nat} (M : Mat T n α) (r : Mat 1 n α) : Mat (T + 1) n α :=
  fun t => if h : t.val < T then M ⟨t.val, h⟩ else r 0

/-- The first `T` rows of an appended matrix are the old rows (structural). -/
theorem appendRow_castSucc {T n : Nat} (M : Mat T n α) (r : Mat 1 n α) (t : Fin T) :
    appendRow M r t.castSucc = M t := by
  simp only [appendRow, Fin.val_castSucc, t.isLt, dite_true]

/-- The last row of an appended matrix is the new row (structural). -/
theorem appendRow_last {T n : Nat} (M : Mat T n α) (r : Mat 1 n α) :
    appendRow M r (Fin.last T) = r 0 := by
  simp only [appendRow, Fin.val_last, Nat.lt_irrefl, dite_false]

/-- A `(T+1)`-row matrix is its prefix with its last row appended (structural). -/
theorem appendRow_initRows_lastRow {T n : Nat} (X : Mat (T + 1) n α) :
    appendRow (initRows X) (lastRow X) = X := by
  funext t
  by_cases h : t.val < T
  · have ht : t = (⟨t.val, h⟩ : Fin T).castSucc := Fin.ext rfl
    rw [ht, appendRow_castSucc]; rfl
  · have ht : t = Fin.last T := Fin.ext (by have := t.isLt; simp only [Fin.val_last]; omega)
    rw [ht, appendRow_last]; rfl


/-! ## The prefill and cached-call configurations -/

/-- The configuration of the prefill on the first `T` positions: the full configuration
restricted (mask, RoPE rows `0, …, T-1`). -/
def prefixConfig (cfg : AttnConfig α (T + 1) dk) : AttnConfig α T dk where
  exp := cfg.exp
  mask := fun t p => cfg.mask t.castSucc p.castSucc
  scale := cfg.scale
  rope := fun t => cfg.rope t.castSucc

/-- The configuration of the cached call: one row rotated at the absolute position `T`
(pyref's `input_pos = n_cached`); its mask is unused (the cached call has none). -/
def lastConfig (cfg : AttnConfig α (T + 1) dk) : AttnConfig α 1 dk where
  exp := cfg.exp
  mask := fun _ _ => true
  scale := cfg.scale
  rope := fun _ => cfg.rope (Fin.last T)

/-- No prefix row attends the last key (causality). -/
def CausalLast (cfg : AttnConfig α (T + 1) dk) : Prop :=
  ∀ t : Fin T, cfg.mask t.castSucc (Fin.last T) = false

/-- The last row attends every key (as the cached call, which applies no mask). -/
def LastRowOpen (cfg : AttnConfig α (T + 1) dk) : Prop :=
  ∀ p, cfg.mask (Fin.last T) p = true

/-! ## Row lemmas for attention -/

/-- A masked softmax whose last entry is masked is the masked softmax of the first `T` entries
(the denominator loses a zero term). -/
theorem maskedSoftmax_castSucc (E : ExpFn α) (allowed : Fin (T + 1) → Bool) (x : Vec (T + 1) α)
    (h : allowed (Fin.last T) = false) (p : Fin T) :
    maskedSoftmax E allowed x p.castSucc
      = maskedSoftmax E (fun q => allowed q.castSucc) (fun q => x q.castSucc) p := by
  have hZ : maskedDenom E allowed x
      = maskedDenom E (fun q => allowed q.castSucc) (fun q => x q.castSucc) := by
    simp only [maskedDenom]
    rw [fsum_succ, h]
    simp only [Bool.false_eq_true, if_false]
    grind
  simp only [maskedSoftmax, hZ]

/-- A query row that cannot attend the last key gets the same attention output from the keys and
values without their last row (prefix consistency of causal attention, one row). -/
theorem plgaAttention_castSucc (E : ExpFn α) {S dv : Nat} (M : Mask S (T + 1)) (s : α)
    (Q : Mat S dk α) (G : Mat dk dk α) (K : Mat (T + 1) dk α) (V : Mat (T + 1) dv α) (t : Fin S)
    (hM : M t (Fin.last T) = false) :
    plgaAttention E M s Q G K V t
      = plgaAttention E (fun t p => M t p.castSucc) s Q G (initRows K) (initRows V) t := by
  funext j
  simp only [plgaAttention, Mat.mul, attnWeights]
  rw [fsum_succ, maskedSoftmax_eq_zero E _ _ hM]
  have : ∀ p : Fin T, maskedSoftmax E (M t) (scores s Q G K t) p.castSucc
      = maskedSoftmax E (fun q => M t q.castSucc) (scores s Q G (initRows K) t) p :=
    fun p => maskedSoftmax_castSucc E _ _ hM p
  simp only [this, initRows]
  grind

/-- Row `t` of a PLGA attention output depends only on the query row and the mask row: equal
query and mask rows (in matrices of any heights) give equal output rows. -/
theorem plgaAttention_row_congr (E : ExpFn α) {S S' T' dv : Nat} (M : Mask S T')
    (M' : Mask S' T') (s : α) (Q : Mat S dk α) (Q' : Mat S' dk α) (G : Mat dk dk α)
    (K : Mat T' dk α) (V : Mat T' dv α) (t : Fin S) (t' : Fin S') (hM : M t = M' t')
    (hQ : Q t = Q' t') : plgaAttention E M s Q G K V t = plgaAttention E M' s Q' G K V t' := by
  have hs : scores s Q G K t = scores s Q' G K t' := by
    funext p
    show Mat.mul (Mat.mul Q G) (Mat.transpose K) t p / s
      = Mat.mul (Mat.mul Q' G) (Mat.transpose K) t' p / s
    simp only [Mat.mul]
    rw [hQ]
  funext j
  simp only [plgaAttention, Mat.mul, attnWeights]
  rw [hM, hs]

omit [LT α] in
/-- Row `t` of the concatenated, projected heads depends only on row `t` of every head. -/
theorem affine_concatHeads_row_congr {S S' : Nat} (O : Fin H → Mat S dk α)
    (O' : Fin H → Mat S' dk α) (W : Mat (H * dk) d α) (b : Vec d α) (t : Fin S) (t' : Fin S')
    (hO : ∀ h, O h t = O' h t') :
    affine (concatHeads O) W b t = affine (concatHeads O') W b t' := by
  funext j
  show fsum _ (fun c => O (headOf c) t (coordOf c) * W c j) + b j
    = fsum _ (fun c => O' (headOf c) t' (coordOf c) * W c j) + b j
  congr 1
  apply fsum_congr; intro c
  rw [hO (headOf c)]

/-- The rotated queries of the full sequence are those of the prefill with the new token's query
(rotated at `T`) appended (structural). -/
theorem queries_eq_appendRow (cfg : AttnConfig α (T + 1) dk) (P : MHAParams α d H dk)
    (X : Mat (T + 1) d α) (h : Fin H) :
    queries cfg P X h = appendRow (queries (prefixConfig cfg) P (initRows X) h)
      (queries (lastConfig cfg) P (lastRow X) h) := by
  conv => lhs; rw [← appendRow_initRows_lastRow (queries cfg P X h)]
  rfl

/-- The rotated keys of the full sequence are the cached rotated keys with the new key (rotated at
`T`) appended: what pyref's cached call attends to (structural). -/
theorem keys_eq_appendRow (cfg : AttnConfig α (T + 1) dk) (P : MHAParams α d H dk)
    (X : Mat (T + 1) d α) (h : Fin H) :
    keys cfg P X h = appendRow (keys (prefixConfig cfg) P (initRows X) h)
      (keys (lastConfig cfg) P (lastRow X) h) := by
  conv => lhs; rw [← appendRow_initRows_lastRow (keys cfg P X h)]
  rfl

/-- The values of the full sequence are the cached values with the new value appended
(structural). -/
theorem values_eq_appendRow (P : MHAParams α d H dk) (X : Mat (T + 1) d α) (h : Fin H) :
    values P X h = appendRow (values P (initRows X) h) (values P (lastRow X) h) := by
  conv => lhs; rw [← appendRow_initRows_lastRow (values P X h)]
  rfl

end KVRows

end PLGA.Attention
