module

public import Formal.Spec.Decode

/-!
# KV-cached decoding with the recomputed global Gram is not exact (spec §B, item (b))

`Formal.Spec.Decode` models one KV-cached call: the operator of the new step is computed from the
prefill's cached `A` (frozen), while full recomputation uses `Φ_res(LN_A(Q̂ᵀQ̂))` of all rotated
queries. Here two explicit one-head layers show that the two differ:

* the operators differ (`kvStep_ops_ne_recomputed`), so the exactness hypothesis of
  `Spec.decodeKV_eq_lastRow_decoder` fails (`not_invariantAlong_prefillOps`);
* the cached step's attention output differs from the last row of the full recomputation's
  attention sublayer `mha` (`kvStep_attention_ne_recomputed`).

Both hold for every square root and gate, every exponential with a logarithm (`ExpLog`,
`pw = rpow`), `ln_eps > 0` and `metric_eps > 0`.

## Main definitions

* `gramWitnessQ`, `gramWitnessPhi`, `gramWitnessOp`: the operator witness (rotated queries
  `(1, 0), (-1, 1)`; `LN_A` with `γ = 1`, `β = 0`, no residual unit; `W = I`, `b = 0`, `P = 𝟙𝟙ᵀ`,
  `a = I`, `b_a = 0`);
* `gramWitnessAttn`: the attention witness' projections (`W_Q = I`, `W_K = e₁e₁ᵀ`, `W_V = I`,
  `W_O = I`, no biases).

## Main statements

* `deductive_gramWitness_entry`, `prefillA_gramWitness_prefix`, `prefillA_gramWitness_ne_zero`,
  `deductive_gramWitness_ne`, `kvStep_ops_ne_recomputed`, `not_invariantAlong_prefillOps`: the
  operators differ;
* `prefillA_gramWitnessAttn_prefix`, `prefillA_gramWitnessAttn_ne_zero`,
  `mhaStep_gramWitnessAttn`, `kvStep_attention_ne_recomputed`: the attention outputs differ.

## Implementation notes

Identity RoPE, `d = d_k = 2`, one head. The attention witness has input rows `(1, 0), (0, 1)`:
the prefix density row `1` is `0` (so `LN_A` gives `0` there, the full sequence's
`(-½, ½)/√(¼ + ε)`), and the new query reads the differing entry `G(1, 1)` into the score of the
new key; the softmax weights then differ because `exp` is injective (`ExpLog.log_exp`). Not
covered: the layer output and the logits (checked numerically,
`crosscheck/properties/spec/decode.py`), RoPE other than the identity, more than one step.

## References

* spec `PLGA_SPEC.md` §B (KV-cache); pyref `pyref/model.py` (`forward` with a KV-cache);
* Rem 4.7 (the global Gram is not prefix-consistent: `Online.globalGramLayer_not_prefixConsistent`).
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Density PLGA.RowMap PLGA.LayerNorm

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] {T d H dk hA hF : Nat}

/-! ## (b) The recomputed global Gram: the cached operator is not the recomputed one -/

section Witness
variable [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- The witness' rotated queries: `q̂₀ = (1, 0)` (the prefix), `q̂₁ = (-1, 1)` (the new token). -/
def gramWitnessQ : Mat 2 2 α := fun t j =>
  if t.val = 0 then (if j.val = 0 then 1 else 0) else (if j.val = 0 then -1 else 1)

/-- The witness' `Φ_res`: `LN_A` with `γ = 1`, `β = 0`, no residual unit. -/
def gramWitnessPhi (hA : Nat) : PhiResParams α 2 hA := ⟨fun _ => 1, fun _ => 0, []⟩

/-- The witness' operator weights: `W = I`, `b = 0`, `P = 𝟙𝟙ᵀ`, `a = I`, `b_a = 0`. -/
noncomputable def gramWitnessOp : OperatorParams α 2 :=
  ⟨Mat.one 2, Mat.zero 2 2, fun _ _ => 1, Mat.one 2, Mat.zero 2 2⟩

/-- With the witness weights and `pw = rpow`, `G_LM = iSwiGLU(A) + ε` entrywise. -/
theorem deductive_gramWitness_entry (E : ExpLog α) (F : Prims α) (hpw : F.pw = E.rpow)
    (hm : 0 < F.metricEps) {S hA : Nat} (Q : Mat S 2 α) (i j : Fin 2) :
    deductive F (gramWitnessPhi hA) gramWitnessOp Q i j
      = iswiglu F.gate.f (prefillA F (gramWitnessPhi hA) Q i j) + F.metricEps := by
  have hALM : opALM F gramWitnessOp (prefillA F (gramWitnessPhi hA) Q) i j
      = iswiglu F.gate.f (prefillA F (gramWitnessPhi hA) Q i j) + F.metricEps := by
    simp only [opALM, metricTensor, gramWitnessOp, Mat.one_mul, Mat.zero]
    grind
  have hpos : 0 < opALM F gramWitnessOp (prefillA F (gramWitnessPhi hA) Q) i j := by
    rw [hALM]
    have := iswiglu_nonneg F.gate.f (fun u => Std.le_of_lt (F.gate.pos u))
      (prefillA F (gramWitnessPhi hA) Q i j)
    grind
  show energyCurvature (Mat.one 2) (opAP F gramWitnessOp _) (Mat.zero 2 2) i j = _
  simp only [energyCurvature, Mat.one_mul, Mat.add, Mat.zero, opAP, Mat.hadPow, hpw,
    ExpLog.rpow, gramWitnessOp]
  have key := E.exp_log _ hpos
  simp only [gramWitnessOp] at key hALM
  rw [Lean.Grind.Semiring.one_mul, key, hALM]
  grind

omit [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The cached (prefill) `A` of the witness vanishes at entry `(1, 0)`: the prefix has no
component along the second axis. -/
theorem prefillA_gramWitness_prefix {hA : Nat} (F : Prims α) :
    prefillA F (gramWitnessPhi hA) (initRows (T := 1) gramWitnessQ) 1 0 = 0 := by
  simp [prefillA, residualLearner, lnA, gramWitnessPhi, lnMat, lnEps, normalize, rowMean,
    density, Mat.mul, Mat.transpose, initRows, gramWitnessQ, fsum_succ] <;> grind

/-- The recomputed `A` of the witness (all rotated queries) is nonzero at `(1, 0)`, for every
square root and every `ln_eps > 0`. -/
theorem prefillA_gramWitness_ne_zero {hA : Nat} (F : Prims α) (hε : 0 < F.lnEps) :
    prefillA F (gramWitnessPhi hA) gramWitnessQ 1 0 ≠ 0 := by
  simp only [prefillA, residualLearner, lnA, gramWitnessPhi, lnMat, lnEps, normalize,
    List.foldl_nil]
  have hv := rowVar_nonneg (density (gramWitnessQ (α := α)) 1)
  have hs := F.sqrt.mul_self_sqrt (rowVar (density (gramWitnessQ (α := α)) 1) + F.lnEps)
    (by grind)
  have hD0 : density (gramWitnessQ (α := α)) 1 0 = -1 := by
    simp [density, Mat.mul, Mat.transpose, gramWitnessQ, fsum_succ] <;> grind
  have hM : rowMean (density (gramWitnessQ (α := α)) 1) = 0 := by
    simp [rowMean, density, Mat.mul, Mat.transpose, gramWitnessQ, fsum_succ] <;> grind
  rw [hD0, hM]
  intro h
  generalize F.sqrt.sqrt (rowVar (density gramWitnessQ 1) + F.lnEps) = s at h hs
  grind

/-- The operator chain of the witness differs on the prefix and on the full sequence (entry
`(1, 0)`: `ε` against `iSwiGLU(c) + ε` with `c ≠ 0`). -/
theorem deductive_gramWitness_ne {hA : Nat} (E : ExpLog α) (F : Prims α) (hpw : F.pw = E.rpow)
    (hε : 0 < F.lnEps) (hm : 0 < F.metricEps) :
    deductive F (gramWitnessPhi hA) gramWitnessOp (initRows (T := 1) gramWitnessQ)
      ≠ deductive F (gramWitnessPhi hA) gramWitnessOp gramWitnessQ := by
  intro h
  have h10 := congrFun (congrFun h 1) 0
  rw [deductive_gramWitness_entry E F hpw hm, deductive_gramWitness_entry E F hpw hm,
    prefillA_gramWitness_prefix] at h10
  have hpos := iswiglu_pos F.gate _ (prefillA_gramWitness_ne_zero (hA := hA) F hε)
  simp only [iswiglu] at h10 hpos
  grind

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- With identity query projection, no query bias and identity RoPE, the rotated queries of head
`0` are the layer input. -/
theorem queries_gramWitness (cfg : AttnConfig α 2 2) (hR : ∀ t, cfg.rope t = Mat.one 2)
    (P : MHAParams α 2 1 2) (hWQ : P.WQ = Mat.one 2) (hbQ : P.bQ = fun _ => 0) :
    queries cfg P gramWitnessQ 0 = gramWitnessQ := by
  funext t j
  simp only [queries, rotRows, hR, Mat.mul_one, splitHead, affine, hWQ, hbQ, Mat.add,
    Mat.rowBroadcast]
  have hj : (headIdx (0 : Fin 1) j : Fin 2) = j := Fin.ext (by simp [headIdx])
  rw [hj]
  grind

/-- (b), concrete counterexample to KV-cache exactness with the recomputed global Gram: for every
one-head spec layer with identity query projection (no bias) and the witness learner, every
configuration with identity RoPE, every square root and gate, `ln_eps > 0`, `metric_eps > 0` and
`pw = rpow`, on the two-token input `gramWitnessQ` the operators of the KV-cached step
(`frozenOpsList` of the cached `A`s, the prefill's) differ from those full recomputation uses
(`opsAlong` at the full input). Does not cover: the attention output (see
`kvStep_attention_ne_recomputed`, another witness), the logits (checked numerically), RoPE other
than the identity. -/
theorem kvStep_ops_ne_recomputed {hF : Nat} (E : ExpLog α) (F : Prims α) (hpw : F.pw = E.rpow)
    (hε : 0 < F.lnEps) (hm : 0 < F.metricEps) (cfg : AttnConfig α 2 2)
    (hR : ∀ t, cfg.rope t = Mat.one 2) (L : LayerSpec α 2 1 2 hA hF)
    (hWQ : L.attn.WQ = Mat.one 2) (hbQ : L.attn.bQ = fun _ => 0)
    (hL : L.learner = ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩) :
    frozenOpsList F [L] (aAlong F (prefixConfig cfg) [L] (initRows gramWitnessQ))
      ≠ opsAlong cfg (layers F cfg [L]) gramWitnessQ := by
  intro h
  have h0 := congrFun (List.head_eq_of_cons_eq h) 0
  change deductive F L.learner.phi (L.learner.weights 0)
      (initRows (queries cfg L.attn gramWitnessQ 0))
    = deductive F L.learner.phi (L.learner.weights 0) (queries cfg L.attn gramWitnessQ 0) at h0
  rw [queries_gramWitness cfg hR L.attn hWQ hbQ, hL] at h0
  exact deductive_gramWitness_ne E F hpw hε hm h0

/-- (b), as the failure of the exactness hypothesis of `decodeKV_eq_lastRow_decoder`: on the
witness the prefill operators are not invariant along the full trajectory. -/
theorem not_invariantAlong_prefillOps {hF : Nat} (E : ExpLog α) (F : Prims α)
    (hpw : F.pw = E.rpow) (hε : 0 < F.lnEps) (hm : 0 < F.metricEps) (cfg : AttnConfig α 2 2)
    (hR : ∀ t, cfg.rope t = Mat.one 2) (L : LayerSpec α 2 1 2 hA hF)
    (hWQ : L.attn.WQ = Mat.one 2) (hbQ : L.attn.bQ = fun _ => 0)
    (hL : L.learner = ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩) :
    ¬ InvariantAlong cfg (layers F cfg [L])
      (opsAlong (prefixConfig cfg) (layers F (prefixConfig cfg) [L]) (initRows gramWitnessQ))
      gramWitnessQ := by
  intro h
  apply kvStep_ops_ne_recomputed E F hpw hε hm cfg hR L hWQ hbQ hL
  rw [frozenOpsList_aAlong]
  exact congrArg (· :: []) h.1.symm

/-! ### (b) at the attention output -/

/-- The attention witness' projections (one head, `d = d_k = 2`): `W_Q = I`, `W_K = e₁e₁ᵀ`
(`[[0, 0], [0, 1]]`), `W_V = I`, `W_O = I`, all biases `0`. On the input `x₀ = (1, 0)`,
`x₁ = (0, 1)` (`Mat.one 2`) the keys are `(0, 0)`, `(0, 1)` and the values the rows of `I`, so the
new row's output is its attention weight vector and its score on key `1` is `G(1, 1) / s`. -/
noncomputable def gramWitnessAttn : MHAParams α 2 1 2 :=
  ⟨Mat.one 2, fun _ => 0, fun i j => if i.val = 1 ∧ j.val = 1 then 1 else 0, fun _ => 0,
    Mat.one 2, fun _ => 0, Mat.one 2, fun _ => 0⟩

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- With `gramWitnessAttn` and identity RoPE the rotated queries of the head are the layer
input. -/
theorem queries_gramWitnessAttn {S : Nat} (cfg : AttnConfig α S 2)
    (hR : ∀ t, cfg.rope t = Mat.one 2) (X : Mat S 2 α) : queries cfg gramWitnessAttn X 0 = X := by
  funext t j
  simp only [queries, rotRows, hR, Mat.mul_one, splitHead, affine, gramWitnessAttn, Mat.add,
    Mat.rowBroadcast]
  have hj : (headIdx (0 : Fin 1) j : Fin 2) = j := Fin.ext (by simp [headIdx])
  rw [hj]
  grind

omit [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The cached (prefill) `A` of the attention witness vanishes at `(1, 1)`: the prefix
`x₀ = (1, 0)` has density row `1` equal to `0`, which `LN_A` maps to `0`. -/
theorem prefillA_gramWitnessAttn_prefix {hA : Nat} (F : Prims α) :
    prefillA F (gramWitnessPhi hA) (initRows (T := 1) (Mat.one 2)) 1 1 = 0 := by
  simp [prefillA, residualLearner, lnA, gramWitnessPhi, lnMat, lnEps, normalize, rowMean,
    density, Mat.mul, Mat.transpose, initRows, Mat.one, fsum_succ] <;> grind

/-- The recomputed `A` of the attention witness (density `x₀ᵀx₀ + x₁ᵀx₁ = I`, row `1` equal to
`(0, 1)`) is nonzero at `(1, 1)`, for every square root and every `ln_eps > 0`. -/
theorem prefillA_gramWitnessAttn_ne_zero {hA : Nat} (F : Prims α) (hε : 0 < F.lnEps) :
    prefillA F (gramWitnessPhi hA) (Mat.one 2) 1 1 ≠ 0 := by
  simp only [prefillA, residualLearner, lnA, gramWitnessPhi, lnMat, lnEps, normalize,
    List.foldl_nil]
  have hv := rowVar_nonneg (density (Mat.one 2 : Mat 2 2 α) 1)
  have hs := F.sqrt.mul_self_sqrt (rowVar (density (Mat.one 2 : Mat 2 2 α) 1) + F.lnEps)
    (by grind)
  have hD : density (Mat.one 2 : Mat 2 2 α) 1 1 = 1 := by
    simp [density, Mat.mul, Mat.transpose, Mat.one, fsum_succ] <;> grind
  have hM : rowMean (density (Mat.one 2 : Mat 2 2 α) 1) = 1 / 2 := by
    simp [rowMean, density, Mat.mul, Mat.transpose, Mat.one, fsum_succ] <;> grind
  rw [hD, hM]
  intro h
  generalize F.sqrt.sqrt (rowVar (density (Mat.one 2 : Mat 2 2 α) 1) + F.lnEps) = s at h hs
  grind

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The cached step of the attention witness on the new row `x₁ = (0, 1)` with the prefix' KV
entry, for any operator `G` and identity RoPE at the new position: entry `0` of the output is the
weight of key `0`, `e^{0/s} / (e^{0/s} + e^{G(1,1)/s})` (the cached call masks nothing). -/
theorem mhaStep_gramWitnessAttn (cfg1 : AttnConfig α 1 2) (hR : ∀ t, cfg1.rope t = Mat.one 2)
    (cfg0 : AttnConfig α 1 2) (G : HeadOps α 1 2) :
    mhaStep cfg1 gramWitnessAttn G (kvEntry cfg0 gramWitnessAttn (initRows (Mat.one 2)))
        (lastRow (Mat.one 2)) 0 0
      = cfg1.exp.exp (0 / cfg1.scale)
        / (cfg1.exp.exp (0 / cfg1.scale) + cfg1.exp.exp (G 0 1 1 / cfg1.scale)) := by
  simp [mhaStep, affine, concatHeads, plgaAttention, attnWeights, maskedSoftmax, maskedDenom,
    scores, Mat.mul, Mat.add, Mat.rowBroadcast, Mat.transpose, queries, keys, values, kvEntry,
    rotRows, hR, splitHead, appendRow, gramWitnessAttn, Mat.one, initRows, lastRow, fsum_succ,
    headIdx, headOf, coordOf, Lean.Grind.Semiring.mul_zero, Lean.Grind.Semiring.zero_mul,
    Lean.Grind.Semiring.mul_one, Lean.Grind.Semiring.one_mul, Lean.Grind.AddCommMonoid.add_zero,
    Lean.Grind.AddCommMonoid.zero_add]

/-- (b) at the attention output: for the one-head spec layer with the witness projections
`gramWitnessAttn` and learner (`gramWitnessPhi`, `gramWitnessOp`), on the input `x₀ = (1, 0)`,
`x₁ = (0, 1)`, for every configuration with exponential `E`, identity RoPE, nonzero scale and an
open last row, every square root and gate, `ln_eps > 0`, `metric_eps > 0` and `pw = rpow`, the
KV-cached step's attention output (`mhaStep` with the prefill's KV entry and the operator
`frozenOps` recomputes from the prefill's cached `A`) differs from the last row of the full
recomputation's attention sublayer (`mha` with the operator `headG` of the whole input). The
operators differ at `(1, 1)` (`ε` against `iSwiGLU(c) + ε`, `c ≠ 0`), the query `(0, 1)` reads
that entry into the score of key `1`, and the softmax weights differ since `log ∘ exp = id`.
Does not cover: the layer output and the logits (checked numerically for generic models), RoPE
other than the identity, more than one step. -/
theorem kvStep_attention_ne_recomputed {hF : Nat} (E : ExpLog α) (F : Prims α)
    (hpw : F.pw = E.rpow) (hε : 0 < F.lnEps) (hm : 0 < F.metricEps) (cfg : AttnConfig α 2 2)
    (hE : cfg.exp = E.toExpFn) (hR : ∀ t, cfg.rope t = Mat.one 2) (hs : cfg.scale ≠ 0)
    (ho : LastRowOpen cfg) (L : LayerSpec α 2 1 2 hA hF) (hP : L.attn = gramWitnessAttn)
    (hL : L.learner = ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩) :
    mhaStep (lastConfig cfg) L.attn
        (frozenOps F L.learner (headA F (prefixConfig cfg) L.attn L.learner (initRows (Mat.one 2))))
        (kvEntry (prefixConfig cfg) L.attn (initRows (Mat.one 2))) (lastRow (Mat.one 2))
      ≠ lastRow (mha cfg L.attn (headG F cfg L.attn L.learner (Mat.one 2)) (Mat.one 2)) := by
  rw [hP, hL, lastRow_mha cfg ho]
  intro h
  have h00 := congrFun (congrFun h 0) 0
  rw [mhaStep_gramWitnessAttn (lastConfig cfg) (fun _ => hR _) (prefixConfig cfg),
    mhaStep_gramWitnessAttn (lastConfig cfg) (fun _ => hR _) (prefixConfig cfg)] at h00
  have hG1 : frozenOps F ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩
      (headA F (prefixConfig cfg) gramWitnessAttn ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩
        (initRows (Mat.one 2))) 0 1 1 = iswiglu F.gate.f 0 + F.metricEps := by
    change deductive F (gramWitnessPhi hA) gramWitnessOp
      (queries (prefixConfig cfg) gramWitnessAttn (initRows (Mat.one 2)) 0) 1 1 = _
    rw [queries_gramWitnessAttn (prefixConfig cfg) (fun _ => hR _),
      deductive_gramWitness_entry E F hpw hm, prefillA_gramWitnessAttn_prefix]
  have hG2 : headG F cfg gramWitnessAttn ⟨gramWitnessPhi hA, fun _ => gramWitnessOp⟩
      (Mat.one 2) 0 1 1
      = iswiglu F.gate.f (prefillA F (gramWitnessPhi hA) (Mat.one 2) 1 1) + F.metricEps := by
    change deductive F (gramWitnessPhi hA) gramWitnessOp
      (queries cfg gramWitnessAttn (Mat.one 2) 0) 1 1 = _
    rw [queries_gramWitnessAttn cfg hR, deductive_gramWitness_entry E F hpw hm]
  have hpos := iswiglu_pos F.gate _ (prefillA_gramWitnessAttn_ne_zero (hA := hA) F hε)
  rw [hG1, hG2] at h00
  generalize prefillA F (gramWitnessPhi hA) (Mat.one 2) 1 1 = c at h00 hpos
  have hsc : (lastConfig cfg).scale = cfg.scale := rfl
  have hex : (lastConfig cfg).exp = E.toExpFn := hE
  rw [hsc, hex] at h00
  have h0 : (0 : α) / cfg.scale = 0 := by grind
  rw [h0, E.exp_zero] at h00
  have ha := E.exp_pos ((iswiglu F.gate.f 0 + F.metricEps) / cfg.scale)
  have hb := E.exp_pos ((iswiglu F.gate.f c + F.metricEps) / cfg.scale)
  have heq : E.exp ((iswiglu F.gate.f 0 + F.metricEps) / cfg.scale)
      = E.exp ((iswiglu F.gate.f c + F.metricEps) / cfg.scale) := by
    generalize E.exp ((iswiglu F.gate.f 0 + F.metricEps) / cfg.scale) = a at h00 ha
    generalize E.exp ((iswiglu F.gate.f c + F.metricEps) / cfg.scale) = b at h00 hb
    grind
  have hl := congrArg E.log heq
  rw [E.log_exp, E.log_exp] at hl
  simp only [iswiglu] at hl hpos
  have key : ∀ z : α, 0 < z →
      (0 * 0 * F.gate.f 0 + F.metricEps) / cfg.scale ≠ (z + F.metricEps) / cfg.scale := by
    intro z hz hz'
    have h1 : (0 * 0 * F.gate.f 0 + F.metricEps) / cfg.scale * cfg.scale
        = (z + F.metricEps) / cfg.scale * cfg.scale := by rw [hz']
    rw [Lean.Grind.Field.div_mul_cancel hs, Lean.Grind.Field.div_mul_cancel hs] at h1
    grind
  exact key _ hpos hl

end Witness

end PLGA.Spec
