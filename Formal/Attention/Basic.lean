module

public import Formal.Attention.Softmax

/-!
# Scores, single-head PLGA attention and SDPA (Thm "SDPA inclusion", Prop 5.2(iii))

PLGA scores `(Q G Kᵀ) / s` with an operator `G`, single-head PLGA attention
`softmax_M(scores) V`, and SDPA defined independently of any operator. SDPA inclusion holds at
the **output** for every mask (`G = I`), in temperature form (`G = c·I` is SDPA with scale
`s / c`), PLGA with `G` is SDPA with queries `Q G`, and at matrix level (Prop 5.2(iii)) two
score matrices give the same attention weights iff each row differs by a row constant on its
allowed keys.

## Main definitions

* `affine X W b = X W + 𝟙 bᵀ`: a projection in row convention (torch `Linear` with weight `Wᵀ`);
* `rotRows R Q`: row `t` multiplied on the right by `R t` (RoPE, abstract); `noRope`: identities;
* `Mask`, `causalMask`, `padCausalMask`: attention masks (`padCausalMask` as in `create_masks`);
* `scores s Q G K = (Q G Kᵀ) / s`: PLGA scores for an operator `G` and any scale `s`
  (`√d_k` in the model);
* `sdpaScores s Q K = (Q Kᵀ) / s`: defined independently, without any operator;
* `attnWeights E M A`: the ideal masked softmax of every row `t` with mask row `M t`;
* `plgaAttention = softmax(scores) V`, `sdpaAttention = softmax(sdpaScores) V`.

## Main statements

* `scores_one_eq_sdpaScores`, `plgaAttention_one_eq_sdpaAttention`: SDPA inclusion (`G = I`),
  at the score level and at the output for every mask;
* `scores_smul_one_eq_sdpaScores`, `plgaAttention_smul_one_eq_sdpaAttention`: `G = c·I`,
  `c ≠ 0`, is SDPA with scale `s / c`;
* `plgaAttention_eq_sdpaAttention_mul`: PLGA with `G` is SDPA with queries `Q G`;
* `plgaAttention_congr_op`, `plgaAttention_zero_values`: equal operators give equal outputs; the
  converse fails (zero values);
* `attnWeights_masked`, `attnWeights_row_sum_one`: masked weights are `0`; rows sum to `1`;
* `attnWeights_eq_iff_rowShift`: Prop 5.2(iii), matrix level.

## Implementation notes

Row-vector convention (`../shared/spec/PLGA_SPEC.md` §A.4): a projection is
`affine X W b = X W + 𝟙 bᵀ`; RoPE multiplies row `t` on the right by a matrix `R t`
(`rotRows`), left abstract (any family of matrices; `noRope` = identities). `exp` and `log` are
the hypothesis structures `ExpFn`, `ExpLog` (`Formal.Analytic`), not axioms.
Counterpart in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`:
`score_sdpa_special_case` (`Q·1·Kᵀ = Q·Kᵀ`, scores only). Not covered here: multi-head layers and
decoders (see `Formal.Attention.MultiHead`); different masks in Prop 5.2(iii).

## References

* the paper's first theorem (SDPA inclusion), Prop 5.2(iii), Thm 5.4 ("generalized SDPA");
* `../shared/spec/PLGA_SPEC.md` §A.4.
-/

@[expose] public section

namespace PLGA.Attention

variable {α : Type u} [Lean.Grind.Field α]

/-- An affine projection in row convention: `X W + 𝟙 bᵀ` (torch `Linear` with weight `Wᵀ`). -/
noncomputable def affine {S n m : Nat} (X : Mat S n α) (W : Mat n m α) (b : Vec m α) : Mat S m α :=
  Mat.add (Mat.mul X W) (Mat.rowBroadcast b)

/-- Rotate every row: row `t` of the result is `(row t of Q) · R t`. With `R t` the
(row-convention) RoPE matrix of the position of row `t` this is the rotary embedding. -/
noncomputable def rotRows {S dk : Nat} (R : Fin S → Mat dk dk α) (Q : Mat S dk α) : Mat S dk α :=
  fun t j => Mat.mul Q (R t) t j

/-- No positional rotation: every `R t` is the identity. -/
noncomputable def noRope (S dk : Nat) : Fin S → Mat dk dk α := fun _ => Mat.one dk

/-- Without RoPE the row rotation is the identity (structural). -/
theorem rotRows_noRope {S dk : Nat} (Q : Mat S dk α) : rotRows (noRope S dk) Q = Q := by
  funext t j
  simp only [rotRows, noRope, Mat.mul_one]

/-- An attention mask: query row `t` may attend key `p` iff `M t p = true`. -/
abbrev Mask (S T : Nat) := Fin S → Fin T → Bool

/-- The causal mask: row `t` attends keys `p ≤ t`. -/
def causalMask (S : Nat) : Mask S S := fun t p => decide (p.val ≤ t.val)

/-- Causal mask combined with key padding (`pad p = true` = padded key), as in `create_masks`. -/
def padCausalMask {S : Nat} (pad : Fin S → Bool) : Mask S S :=
  fun t p => decide (p.val ≤ t.val) && !pad p

/-- PLGA scores `E = (Q G Kᵀ) / s` for an operator `G` and a scale `s`. -/
noncomputable def scores {S T dk : Nat} (s : α) (Q : Mat S dk α) (G : Mat dk dk α)
    (K : Mat T dk α) : Mat S T α :=
  fun t p => Mat.mul (Mat.mul Q G) (Mat.transpose K) t p / s

/-- SDPA scores `(Q Kᵀ) / s`. -/
noncomputable def sdpaScores {S T dk : Nat} (s : α) (Q : Mat S dk α) (K : Mat T dk α) :
    Mat S T α :=
  fun t p => Mat.mul Q (Mat.transpose K) t p / s

/-! ## SDPA inclusion -/

/-- SDPA inclusion, score level (paper's first theorem; authors:
`score_sdpa_special_case`): with `G = I` the PLGA scores are the SDPA scores. Does not cover:
outputs (see `plgaAttention_one_eq_sdpaAttention`). -/
theorem scores_one_eq_sdpaScores {S T dk : Nat} (s : α) (Q : Mat S dk α) (K : Mat T dk α) :
    scores s Q (Mat.one dk) K = sdpaScores s Q K := by
  funext t p
  simp only [scores, sdpaScores, Mat.mul_one]

/-- A scalar operator `G = c·I` (`c ≠ 0`) rescales the temperature: PLGA scores with scale `s`
are SDPA scores with scale `s / c`. Does not cover: `c = 0` (uniform attention). -/
theorem scores_smul_one_eq_sdpaScores {S T dk : Nat} (s c : α) (hc : c ≠ 0) (Q : Mat S dk α)
    (K : Mat T dk α) :
    scores s Q (Mat.smul c (Mat.one dk)) K = sdpaScores (s / c) Q K := by
  funext t p
  simp only [scores, sdpaScores]
  rw [Mat.mul_smul Q c (Mat.one dk) (fun x => Lean.Grind.CommSemiring.mul_comm x c),
    Mat.mul_one, Mat.smul_mul]
  simp only [Mat.smul]
  grind

variable [LT α]

/-- Attention weights: the ideal masked softmax of each score row. -/
noncomputable def attnWeights (E : ExpFn α) {S T : Nat} (M : Mask S T) (A : Mat S T α) :
    Mat S T α :=
  fun t => maskedSoftmax E (M t) (A t)

/-- PLGA attention output `softmax_M((Q G Kᵀ)/s) V`. -/
noncomputable def plgaAttention (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T) (s : α)
    (Q : Mat S dk α) (G : Mat dk dk α) (K : Mat T dk α) (V : Mat T dv α) : Mat S dv α :=
  Mat.mul (attnWeights E M (scores s Q G K)) V

/-- Scaled dot-product attention output `softmax_M((Q Kᵀ)/s) V`. -/
noncomputable def sdpaAttention (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T) (s : α)
    (Q : Mat S dk α) (K : Mat T dk α) (V : Mat T dv α) : Mat S dv α :=
  Mat.mul (attnWeights E M (sdpaScores s Q K)) V

/-- SDPA inclusion at the output (paper's first theorem, `G_LM = I`): for **every** mask, scale,
query, key and value, PLGA attention with the identity operator is SDPA attention. Does not
cover: multi-head layers (see `mha_one_eq_mhaSDPA`). -/
theorem plgaAttention_one_eq_sdpaAttention (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T)
    (s : α) (Q : Mat S dk α) (K : Mat T dk α) (V : Mat T dv α) :
    plgaAttention E M s Q (Mat.one dk) K V = sdpaAttention E M s Q K V := by
  simp only [plgaAttention, sdpaAttention, scores_one_eq_sdpaScores]

/-- SDPA inclusion with temperature (paper's first theorem, scalar case): PLGA attention with
`G = c·I`, `c ≠ 0`, equals SDPA attention with the scale divided by `c`, at the output and
for every mask. Does not cover: non-scalar operators. -/
theorem plgaAttention_smul_one_eq_sdpaAttention (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T)
    (s c : α) (hc : c ≠ 0) (Q : Mat S dk α) (K : Mat T dk α) (V : Mat T dv α) :
    plgaAttention E M s Q (Mat.smul c (Mat.one dk)) K V = sdpaAttention E M (s / c) Q K V := by
  simp only [plgaAttention, sdpaAttention, scores_smul_one_eq_sdpaScores s c hc]

/-- PLGA attention with operator `G` is SDPA attention with queries `Q G` (the "generalized
SDPA" reading of Thm 5.4). Does not cover: how `G` is produced. -/
theorem plgaAttention_eq_sdpaAttention_mul (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T)
    (s : α) (Q : Mat S dk α) (G : Mat dk dk α) (K : Mat T dk α) (V : Mat T dv α) :
    plgaAttention E M s Q G K V = sdpaAttention E M s (Mat.mul Q G) K V := rfl

/-- Equal operators give equal outputs (authors: `cache_sufficiency_scores`/`_rows`, there at
the score and softmax-row level). Does not cover: the converse (false in general, see
`plgaAttention_zero_values`). -/
theorem plgaAttention_congr_op (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T) (s : α)
    (Q : Mat S dk α) {G G' : Mat dk dk α} (hG : G = G') (K : Mat T dk α) (V : Mat T dv α) :
    plgaAttention E M s Q G K V = plgaAttention E M s Q G' K V := by
  rw [hG]

/-- With zero values the PLGA output is `0` for every operator: equality of outputs does not
force equality of operators. Does not cover: nonzero values. -/
theorem plgaAttention_zero_values (E : ExpFn α) {S T dk dv : Nat} (M : Mask S T) (s : α)
    (Q : Mat S dk α) (G : Mat dk dk α) (K : Mat T dk α) :
    plgaAttention E M s Q G K (Mat.zero T dv) = Mat.zero S dv := by
  funext t j
  simp only [plgaAttention, Mat.mul, Mat.zero]
  rw [fsum_congr T (g := fun _ => (0 : α)) (fun _ => by grind)]
  exact fsum_const_zero T

/-- Masked keys get attention weight exactly `0`. Does not cover: the finite `-1e9` mask. -/
theorem attnWeights_masked (E : ExpFn α) {S T : Nat} (M : Mask S T) (A : Mat S T α)
    {t : Fin S} {p : Fin T} (hp : M t p = false) : attnWeights E M A t p = 0 :=
  maskedSoftmax_eq_zero E (M t) (A t) hp

/-! ## Prop 5.2(iii) at the level of attention matrices -/

section Ordered
variable [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Prop 5.2(iii), matrix level: two score matrices give the same attention weights (same
mask) iff every row differs by one constant on its allowed keys. Does not cover: different
masks. -/
theorem attnWeights_eq_iff_rowShift (L : ExpLog α) {S T : Nat} (M : Mask S T) (A B : Mat S T α) :
    attnWeights L.toExpFn M A = attnWeights L.toExpFn M B
      ↔ ∀ t, ∃ c, ∀ p, M t p = true → B t p = A t p + c := by
  constructor
  · intro h t
    exact (maskedSoftmax_eq_iff_shift L (M t) (A t) (B t)).1 (congrFun h t)
  · intro h
    funext t
    exact (maskedSoftmax_eq_iff_shift L (M t) (A t) (B t)).2 (h t)

/-- Every row of attention weights with an allowed key sums to `1`. Does not cover: fully
masked rows. -/
theorem attnWeights_row_sum_one (E : ExpFn α) {S T : Nat} (M : Mask S T) (A : Mat S T α)
    (t : Fin S) (hne : ∃ p, M t p = true) : fsum T (attnWeights E M A t) = 1 :=
  maskedSoftmax_sum_one E (M t) (A t) hne

end Ordered

end PLGA.Attention
