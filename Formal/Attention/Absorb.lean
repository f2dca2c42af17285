module

public import Formal.Attention.Collapse

/-!
# Absorbing a constant operator: the collapsed model is an SDPA model (Thm 5.4(ii))

A constant operator `G*` can be moved into the query projection, bias included:
`(X W + 𝟙 bᵀ) G* = X (W G*) + 𝟙 (bᵀ G*)`. With RoPE the rotation of row `t` sits between the
projection and `G*`; it can be crossed when `G*` commutes with every rotation. Hence, at the
**output** level, single-head PLGA attention, the multi-head layer, the decoder layer and the
whole stack with constant operators are SDPA with reparametrized query projections; combined
with the collapse theorem, **a PLDR decoder whose operators are input invariant along a
trajectory is, on that trajectory, an SDPA decoder with reparametrized query projections**.

## Main definitions

* `vecMul b G`: the row vector `bᵀ G`;
* `absorbWeight`, `absorbBias`, `absorbParams`: head `h`'s query weight block `W_h` becomes
  `W_h G*_h`, its bias block `b_hᵀ G*_h`;
* `absorbLayerParams`, `absorbLayers`: the same for decoder layers and the stack;
* `CommutesWithRope cfg Gs`: every listed constant commutes, in every head, with every rotation.

## Main statements

* `absorb_operator_linear`, `affine_mul`: `(X W) G = X (W G)`, and the form with bias;
* `rotRows_mul_of_commute`: `(Q R_t) G* = (Q G*) R_t` when `G*` commutes with every `R_t`;
* `plgaAttention_absorb`, `plgaAttention_rope_absorb`: single head, without and with RoPE;
* `mha_eq_mhaSDPA_absorbParams`, `mha_eq_mhaSDPA_absorbParams_noRope`: the multi-head layer;
* `decoderLayer_eq_sdpaDecoderLayer_absorb`: the decoder layer;
* `plgaDecoder_pinLayers_eq_sdpaDecoder`: the collapsed stack is an SDPA stack;
* `plgaDecoder_eq_sdpaDecoder_of_invariantAlong`: Thm 5.4(ii), inference collapse to SDPA of the
  whole decoder on a trajectory along which the operators are invariant;
* `plgaDecoder_eq_sdpaDecoder_noRope`: exact invariance without RoPE, equality as functions.

## Implementation notes

The RoPE family is abstract (any per-row matrices); which `G*` commute with RoPE is a separate
question (the RoPE criterion, `Formal.Rope`), not treated here; without RoPE the commutation
hypothesis is automatic (`noRope_commutes`). Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations`: `absorb_operator` (`XWG = X(WG)`) and
`absorb_operator_affine` (matrix identities only). Not covered: the converse "absorbable with
RoPE ⇒ commutes" (RoPE-criterion issue); key-side absorption.

## References

* Thm 5.4(ii) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (query projection with bias, RoPE, `G_LM`).
-/

@[expose] public section

namespace PLGA.Attention

variable {α : Type u} [Lean.Grind.Field α]

/-- Row vector times matrix: `bᵀ G`. -/
noncomputable def vecMul {n m : Nat} (b : Vec n α) (G : Mat n m α) : Vec m α :=
  fun j => fsum n (fun k => b k * G k j)

/-- Row vector times a product: `(u A) B = u (A B)`. -/
theorem vecMul_vecMul {n p q : Nat} (u : Vec n α) (A : Mat n p α) (B : Mat p q α) :
    vecMul (vecMul u A) B = vecMul u (Mat.mul A B) :=
  congrFun (Mat.mul_assoc (fun _ : Fin 1 => u) A B) 0

/-- Two flat vectors with the same dot product against every vector are equal. -/
theorem vec_ext_dot {n : Nat} {a b : Vec n α} (h : ∀ v, Mat.dot a v = Mat.dot b v) : a = b := by
  funext j
  have e := h (fun i => if i = j then 1 else 0)
  simp only [Mat.dot] at e
  rw [fsum_single n j _ (fun i hi => by rw [if_neg hi]; grind),
    fsum_single n j _ (fun i hi => by rw [if_neg hi]; grind), if_pos rfl] at e
  grind

/-- Absorption, linear part (authors: `absorb_operator`): `(X W) G = X (W G)`. Does not
cover: biases (see `affine_mul`). -/
theorem absorb_operator_linear {S n m p : Nat} (X : Mat S n α) (W : Mat n m α) (G : Mat m p α) :
    Mat.mul (Mat.mul X W) G = Mat.mul X (Mat.mul W G) :=
  Mat.mul_assoc X W G

/-- Absorption with bias (authors: `absorb_operator_affine`):
`(X W + 𝟙 bᵀ) G = X (W G) + 𝟙 (bᵀ G)`. Does not cover: RoPE (see `rotRows_mul_of_commute`). -/
theorem affine_mul {S n m p : Nat} (X : Mat S n α) (W : Mat n m α) (b : Vec m α) (G : Mat m p α) :
    Mat.mul (affine X W b) G = affine X (Mat.mul W G) (vecMul b G) := by
  unfold affine
  rw [Mat.add_mul, Mat.mul_assoc]
  rfl

/-- Crossing RoPE: if `G` commutes with every row rotation `R t`, rotating then applying
`G` equals applying `G` then rotating. Does not cover: the converse. -/
theorem rotRows_mul_of_commute {S dk : Nat} (R : Fin S → Mat dk dk α) (Q : Mat S dk α)
    (G : Mat dk dk α) (hc : ∀ t, Mat.mul (R t) G = Mat.mul G (R t)) :
    Mat.mul (rotRows R Q) G = rotRows R (Mat.mul Q G) := by
  funext t j
  show Mat.mul (Mat.mul Q (R t)) G t j = Mat.mul (Mat.mul Q G) (R t) t j
  rw [Mat.mul_assoc, hc t, ← Mat.mul_assoc]

variable [LT α]

/-- Thm 5.4(ii) absorption, single head without RoPE, at the output: PLGA attention with a
constant `G*` on queries `X W + 𝟙 bᵀ` is SDPA attention with queries `X (W G*) + 𝟙 (bᵀ G*)`,
for every mask. Does not cover: RoPE (see `plgaAttention_rope_absorb`). -/
theorem plgaAttention_absorb (E : ExpFn α) {S T n dk dv : Nat} (M : Mask S T) (s : α)
    (X : Mat S n α) (W : Mat n dk α) (b : Vec dk α) (G : Mat dk dk α) (K : Mat T dk α)
    (V : Mat T dv α) :
    plgaAttention E M s (affine X W b) G K V
      = sdpaAttention E M s (affine X (Mat.mul W G) (vecMul b G)) K V := by
  rw [plgaAttention_eq_sdpaAttention_mul, affine_mul]

/-- Thm 5.4(ii) absorption, single head with RoPE, at the output: if `G*` commutes with every
rotation `R t`, PLGA attention on rotated queries is SDPA attention on the rotated
reparametrized queries. Does not cover: the converse (RoPE criterion). -/
theorem plgaAttention_rope_absorb (E : ExpFn α) {S T n dk dv : Nat} (M : Mask S T) (s : α)
    (R : Fin S → Mat dk dk α) (X : Mat S n α) (W : Mat n dk α) (b : Vec dk α) (G : Mat dk dk α)
    (hc : ∀ t, Mat.mul (R t) G = Mat.mul G (R t)) (K : Mat T dk α) (V : Mat T dv α) :
    plgaAttention E M s (rotRows R (affine X W b)) G K V
      = sdpaAttention E M s (rotRows R (affine X (Mat.mul W G) (vecMul b G))) K V := by
  rw [plgaAttention_eq_sdpaAttention_mul, rotRows_mul_of_commute R _ G hc, affine_mul]

/-! ## Multi-head absorption -/

/-- Reparametrized query weight: head `h`'s column block `W_h` becomes `W_h G*_h`. -/
noncomputable def absorbWeight {d H dk : Nat} (W : Mat d (H * dk) α) (G : HeadOps α H dk) :
    Mat d (H * dk) α :=
  concatHeads fun h => Mat.mul (splitHead W h) (G h)

/-- Reparametrized query bias: head `h`'s block `b_h` becomes `b_hᵀ G*_h`. -/
noncomputable def absorbBias {H dk : Nat} (b : Vec (H * dk) α) (G : HeadOps α H dk) :
    Vec (H * dk) α :=
  concatVec fun h => vecMul (splitVec b h) (G h)

/-- The multi-head parameters with the operators absorbed into the query projection. -/
noncomputable def absorbParams {d H dk : Nat} (P : MHAParams α d H dk) (G : HeadOps α H dk) :
    MHAParams α d H dk :=
  { P with WQ := absorbWeight P.WQ G, bQ := absorbBias P.bQ G }

omit [LT α] in
/-- Head split commutes with the projection: head `h` of `X W + 𝟙 bᵀ` is `X W_h + 𝟙 b_hᵀ`
(structural). -/
theorem splitHead_affine {S d H dk : Nat} (X : Mat S d α) (W : Mat d (H * dk) α)
    (b : Vec (H * dk) α) (h : Fin H) :
    splitHead (affine X W b) h = affine X (splitHead W h) (splitVec b h) := rfl

omit [LT α] in
/-- Head `h` of the absorbed projection is the original head-`h` projection times `G*_h`
(structural). -/
theorem splitHead_affine_absorb {S d H dk : Nat} (X : Mat S d α) (W : Mat d (H * dk) α)
    (b : Vec (H * dk) α) (G : HeadOps α H dk) (h : Fin H) :
    splitHead (affine X (absorbWeight W G) (absorbBias b G)) h
      = Mat.mul (splitHead (affine X W b) h) (G h) := by
  rw [splitHead_affine, splitHead_affine, affine_mul]
  unfold absorbWeight absorbBias
  rw [splitHead_concatHeads, splitVec_concatVec]

/-- Head `h`'s queries of the absorbed parameters are the original rotated queries times
`G*_h`, when `G*_h` commutes with the RoPE rotations. -/
theorem queries_absorbParams {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) (h : Fin H)
    (hc : ∀ t, Mat.mul (cfg.rope t) (G h) = Mat.mul (G h) (cfg.rope t)) :
    queries cfg (absorbParams P G) X h = Mat.mul (queries cfg P X h) (G h) := by
  unfold queries
  rw [rotRows_mul_of_commute _ _ _ hc]
  exact congrArg (rotRows cfg.rope) (splitHead_affine_absorb X P.WQ P.bQ G h)

/-- Thm 5.4(ii) absorption, multi-head layer, at the output: with constant per-head
operators `G*_h` commuting with the RoPE rotations, the PLGA multi-head layer **is** the SDPA
multi-head layer with reparametrized query weight and bias (`absorbParams`). Does not cover:
non-commuting operators under RoPE. -/
theorem mha_eq_mhaSDPA_absorbParams {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (G : HeadOps α H dk)
    (hc : ∀ h t, Mat.mul (cfg.rope t) (G h) = Mat.mul (G h) (cfg.rope t)) (X : Mat S d α) :
    mha cfg P G X = mhaSDPA cfg (absorbParams P G) X := by
  have hq : ∀ h, queries cfg (absorbParams P G) X h = Mat.mul (queries cfg P X h) (G h) :=
    fun h => queries_absorbParams cfg P G X h (hc h)
  simp only [mha, mhaSDPA, hq, plgaAttention_eq_sdpaAttention_mul]
  rfl

/-- Without RoPE every operator commutes with the (identity) rotations. -/
theorem noRope_commutes {S dk : Nat} (cfg : AttnConfig α S dk) (hr : cfg.rope = noRope S dk)
    (G : Mat dk dk α) (t : Fin S) : Mat.mul (cfg.rope t) G = Mat.mul G (cfg.rope t) := by
  rw [hr]; simp only [noRope, Mat.one_mul, Mat.mul_one]

/-- Thm 5.4(ii) absorption, multi-head layer without RoPE: no commutation hypothesis needed.
Does not cover: RoPE (see `mha_eq_mhaSDPA_absorbParams`). -/
theorem mha_eq_mhaSDPA_absorbParams_noRope {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (hr : cfg.rope = noRope S dk) (P : MHAParams α d H dk) (G : HeadOps α H dk) (X : Mat S d α) :
    mha cfg P G X = mhaSDPA cfg (absorbParams P G) X :=
  mha_eq_mhaSDPA_absorbParams cfg P G (fun h t => noRope_commutes cfg hr (G h) t) X

/-! ## Decoder layer and stack -/

/-- Layer parameters with the operators absorbed. -/
noncomputable def absorbLayerParams {S d H dk : Nat} (P : LayerParams α S d H dk)
    (G : HeadOps α H dk) : LayerParams α S d H dk :=
  { P with attn := absorbParams P.attn G }

/-- The SDPA stack parameters obtained by absorbing each layer's constants. -/
noncomputable def absorbLayers {S d H dk : Nat} :
    List (PLGALayer α S d H dk) → List (HeadOps α H dk) → List (LayerParams α S d H dk)
  | ℓ :: ls, G :: Gs => absorbLayerParams ℓ.params G :: absorbLayers ls Gs
  | _, _ => []

/-- Every listed constant commutes, in every head, with every RoPE rotation. -/
def CommutesWithRope {S dk H : Nat} (cfg : AttnConfig α S dk) (Gs : List (HeadOps α H dk)) : Prop :=
  ∀ G ∈ Gs, ∀ h t, Mat.mul (cfg.rope t) (G h) = Mat.mul (G h) (cfg.rope t)

/-- Thm 5.4(ii) absorption, decoder layer. Does not cover: non-commuting operators. -/
theorem decoderLayer_eq_sdpaDecoderLayer_absorb {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (P : LayerParams α S d H dk) (G : HeadOps α H dk)
    (hc : ∀ h t, Mat.mul (cfg.rope t) (G h) = Mat.mul (G h) (cfg.rope t)) (X : Mat S d α) :
    decoderLayer cfg P G X = sdpaDecoderLayer cfg (absorbLayerParams P G) X := by
  simp only [decoderLayer, sdpaDecoderLayer, mha_eq_mhaSDPA_absorbParams cfg P.attn G hc]
  rfl

/-- Thm 5.4(ii) absorption, whole stack: the collapsed decoder (constants pinned) **is** an
SDPA decoder with reparametrized query projections, on every input. Does not cover:
non-commuting operators under RoPE. -/
theorem plgaDecoder_pinLayers_eq_sdpaDecoder {S d H dk : Nat} (cfg : AttnConfig α S dk) :
    ∀ (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)), CommutesWithRope cfg Gs →
      ∀ X, plgaDecoder cfg (pinLayers ls Gs) X = sdpaDecoder cfg (absorbLayers ls Gs) X
  | [], _, _, _ => rfl
  | _ :: _, [], _, _ => rfl
  | ℓ :: ls, G :: Gs, hc, X => by
    show plgaDecoder cfg (pinLayers ls Gs) (decoderLayer cfg ℓ.params G X)
      = sdpaDecoder cfg (absorbLayers ls Gs) (sdpaDecoderLayer cfg (absorbLayerParams ℓ.params G) X)
    rw [decoderLayer_eq_sdpaDecoderLayer_absorb cfg ℓ.params G (hc G List.mem_cons_self)]
    exact plgaDecoder_pinLayers_eq_sdpaDecoder cfg ls Gs
      (fun G' hG' => hc G' (List.mem_cons_of_mem _ hG')) _

/-- **Thm 5.4(ii), inference collapse to SDPA, whole decoder.** If along the trajectory of
`X` every layer's recomputed operators equal constants `G*_l` that commute with the RoPE
rotations, then the full PLGA decoder's output on `X` equals that of an SDPA decoder whose
query projections are reparametrized by `G*_l` (the metric-learning subnetwork is deleted).
Does not cover: approximate invariance; the RoPE commutation criterion itself. -/
theorem plgaDecoder_eq_sdpaDecoder_of_invariantAlong {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk)) (X : Mat S d α)
    (h : InvariantAlong cfg ls Gs X) (hc : CommutesWithRope cfg Gs) :
    plgaDecoder cfg ls X = sdpaDecoder cfg (absorbLayers ls Gs) X := by
  rw [← plgaDecoder_pinLayers_of_invariantAlong cfg ls Gs X h,
    plgaDecoder_pinLayers_eq_sdpaDecoder cfg ls Gs hc X]

/-- Thm 5.4(ii), exact input invariance without RoPE: the full PLGA decoder **equals** (as a
function) an SDPA decoder with reparametrized query projections. Does not cover: RoPE (see
`plgaDecoder_eq_sdpaDecoder_of_invariantAlong`). -/
theorem plgaDecoder_eq_sdpaDecoder_noRope {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (hr : cfg.rope = noRope S dk) (ls : List (PLGALayer α S d H dk)) (Gs : List (HeadOps α H dk))
    (h : ExactlyInvariant ls Gs) :
    plgaDecoder cfg ls = sdpaDecoder cfg (absorbLayers ls Gs) := by
  funext X
  rw [← plgaDecoder_collapse cfg ls Gs h]
  exact plgaDecoder_pinLayers_eq_sdpaDecoder cfg ls Gs
    (fun G _ h t => noRope_commutes cfg hr (G h) t) X

end PLGA.Attention
