module

public import Formal.Analytic
public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# ε-LayerNorm on a row (Lem 5.11)

torch's LayerNorm over the last axis with biased variance and `ε` inside the square root:
`lnEps ε γ β r = γ ⊙ (r − μ(r)) / √(var(r) + ε) + β`, with `μ` the row mean and `var` the
biased row variance. It is exactly shift invariant for every `ε`, scale invariant at `ε = 0`,
and for `ε > 0` the normalized row has squared norm `d·var/(var + ε) < d` and is **not** scale
invariant.

## Main definitions

* `rowMean`, `rowVar`: the row mean `μ(r)` and the biased row variance `var(r)`;
* `normalize`: the normalized row `û_i = (r_i − μ)/√(var + ε)`;
* `lnEps`: ε-LayerNorm with affine parameters, `γ_i û_i + β_i`.

## Main statements

* `rowVar_nonneg`, `rowMean_shift`, `rowVar_shift`, `rowMean_smul`, `rowVar_smul`;
* `lnEps_shift`: Lem 5.11(i), `lnEps(r + c𝟙) = lnEps r` for every `ε` (exact shift invariance);
* `lnEps_scale_eps_zero`: Lem 5.11, `lnEps₀(c r) = lnEps₀ r` for `c > 0`, `var r > 0`; so at
  `ε = 0` normalizing `D` or `D/S` (spec §A.4 step 3) gives the same `A⁰`;
* `sum_sq_normalize`: the norm identity `Σ û² = d·var/(var + ε)`, with `sum_sq_normalize_lt`
  (`< d` for `ε > 0`), `sum_sq_normalize_eps_zero` (`= d` at `ε = 0`, `var > 0`) and
  `sum_normalize_eq_zero` (`Σ û = 0`);
* `normalize_not_scale_invariant`: for `ε > 0` and `var r > 0`, scaling by `c > 0`, `c ≠ 1`
  changes the normalized row (ε breaks scale invariance).

## Implementation notes

The square root is a hypothesis structure (`SqrtFn`, met by `Real.sqrt`); the scalars form an
ordered field (`Lean.Grind.Field`), so mathlib's `ℝ` instantiates everything. Counterparts in the
authors' repository `burcgokden/PLDR-LLM-Math-Foundations`: `rowVar_nonneg`, `rowMean_shift`,
`rowVar_shift`, `rowMean_smul`, `rowVar_smul`, `lnEps_shift`, `lnEps_scale_eps_zero`,
`sum_sq_normalized`; `normalize_not_scale_invariant` goes beyond it (listed there as not
formalized). Not covered: the quantitative scale-error bound of Lem 5.11(ii); float rounding;
the affine part `γ, β` in the norm identity.

## References

* Lem 5.11 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.2, §A.4 step 4, §G.6 (LayerNorm conventions).
-/

@[expose] public section

namespace PLGA.LayerNorm

open PLGA

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

section Defs
variable [Lean.Grind.Field α]

/-- Row mean `μ(r) = (Σ_i r_i)/d`. -/
noncomputable def rowMean {n : Nat} (r : Vec n α) : α := fsum n r / (Nat.cast n : α)

/-- Biased row variance `var(r) = (Σ_i (r_i − μ)²)/d`. -/
noncomputable def rowVar {n : Nat} (r : Vec n α) : α :=
  fsum n (fun i => (r i - rowMean r) * (r i - rowMean r)) / (Nat.cast n : α)

/-- The normalized row `û_i = (r_i − μ)/√(var + ε)`. -/
noncomputable def normalize [LE α] (S : SqrtFn α) (ε : α) {n : Nat} (r : Vec n α) : Vec n α :=
  fun i => (r i - rowMean r) / S.sqrt (rowVar r + ε)

/-- ε-LayerNorm with affine parameters: `γ_i û_i + β_i`. -/
noncomputable def lnEps [LE α] (S : SqrtFn α) (ε : α) {n : Nat} (γ β : Vec n α) (r : Vec n α) :
    Vec n α :=
  fun i => γ i * normalize S ε r i + β i

end Defs

section Ordered
variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- `(n : α) ≠ 0` for `n > 0` in an ordered field. -/
theorem natCast_ne_zero_of_pos {n : Nat} (hn : 0 < n) : (Nat.cast n : α) ≠ 0 := by
  have : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  grind

/-- Lem 5.11 (authors' `rowVar_nonneg`): the biased variance is nonnegative. -/
theorem rowVar_nonneg {n : Nat} (r : Vec n α) : 0 ≤ rowVar r := by
  unfold rowVar
  rw [Lean.Grind.Field.div_eq_mul_inv]
  apply Lean.Grind.OrderedRing.mul_nonneg (fsum_nonneg n _ (fun i => mul_self_nonneg _))
  rcases Nat.eq_zero_or_pos n with h | h
  · subst h; simp only [Lean.Grind.Semiring.natCast_zero, Lean.Grind.Field.inv_zero]
    exact Std.le_refl _
  · exact Std.le_of_lt (Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr
      (Lean.Grind.OrderedRing.pos_natCast_of_pos _ h))

/-- Lem 5.11 (authors' `rowMean_shift`): `μ(r + c𝟙) = μ(r) + c` (for `d ≥ 1`). -/
theorem rowMean_shift {n : Nat} (hn : 0 < n) (r : Vec n α) (c : α) :
    rowMean (fun i => r i + c) = rowMean r + c := by
  unfold rowMean
  rw [fsum_add, fsum_const]
  have := natCast_ne_zero_of_pos (α := α) hn
  grind

/-- The centred row is shift invariant: `(r + c𝟙) − μ(r + c𝟙) = r − μ(r)`. -/
theorem centred_shift {n : Nat} (r : Vec n α) (c : α) (i : Fin n) :
    (r i + c) - rowMean (fun i => r i + c) = r i - rowMean r := by
  rcases Nat.eq_zero_or_pos n with h | h
  · subst h; exact i.elim0
  · rw [rowMean_shift h]; grind

/-- Lem 5.11 (authors' `rowVar_shift`): `var(r + c𝟙) = var(r)`. -/
theorem rowVar_shift {n : Nat} (r : Vec n α) (c : α) : rowVar (fun i => r i + c) = rowVar r := by
  unfold rowVar
  congr 1
  apply fsum_congr; intro i
  rw [centred_shift r c i]

/-- Lem 5.11(i) (authors' `lnEps_shift`): ε-LayerNorm is exactly invariant under adding a
constant to the row, for every `ε`. Does not cover: shifts that differ between entries. -/
theorem lnEps_shift (S : SqrtFn α) (ε : α) {n : Nat} (γ β r : Vec n α) (c : α) :
    lnEps S ε γ β (fun i => r i + c) = lnEps S ε γ β r := by
  funext i
  simp only [lnEps, normalize]
  rw [centred_shift r c i, rowVar_shift r c]

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- Lem 5.11 (authors' `rowMean_smul`): `μ(c r) = c μ(r)`. -/
theorem rowMean_smul {n : Nat} (r : Vec n α) (c : α) :
    rowMean (fun i => c * r i) = c * rowMean r := by
  unfold rowMean
  rw [fsum_mul_left, Lean.Grind.Field.div_eq_mul_inv, Lean.Grind.Field.div_eq_mul_inv]
  grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- Lem 5.11 (authors' `rowVar_smul`): `var(c r) = c² var(r)`. -/
theorem rowVar_smul {n : Nat} (r : Vec n α) (c : α) :
    rowVar (fun i => c * r i) = c * c * rowVar r := by
  unfold rowVar
  rw [rowMean_smul]
  have : (fun i => (c * r i - c * rowMean r) * (c * r i - c * rowMean r))
      = fun i => c * c * ((r i - rowMean r) * (r i - rowMean r)) := by
    funext i; grind
  rw [this, fsum_mul_left, Lean.Grind.Field.div_eq_mul_inv, Lean.Grind.Field.div_eq_mul_inv]
  grind

/-- Uniqueness of nonnegative square roots: `0 ≤ a`, `0 ≤ b`, `a² = b²` give `a = b`. -/
theorem eq_of_mul_self_eq {a b : α} (ha : 0 ≤ a) (hb : 0 ≤ b) (h : a * a = b * b) : a = b := by
  have h1 : (a - b) * (a + b) = 0 := by grind
  rcases Lean.Grind.Field.of_mul_eq_zero h1 with h2 | h2
  · grind
  · grind

/-- `√(c² v) = c √v` for `c ≥ 0`, `v ≥ 0`. -/
theorem sqrt_mul_self_mul (S : SqrtFn α) {c v : α} (hc : 0 ≤ c) (hv : 0 ≤ v) :
    S.sqrt (c * c * v) = c * S.sqrt v := by
  apply eq_of_mul_self_eq (S.sqrt_nonneg _)
    (Lean.Grind.OrderedRing.mul_nonneg hc (S.sqrt_nonneg v))
  rw [S.mul_self_sqrt _ (Lean.Grind.OrderedRing.mul_nonneg (mul_self_nonneg c) hv)]
  have := S.mul_self_sqrt v hv
  grind

/-- `√v ≠ 0` for `v > 0`. -/
theorem sqrt_ne_zero_of_pos (S : SqrtFn α) {v : α} (hv : 0 < v) : S.sqrt v ≠ 0 := by
  intro h
  have := S.mul_self_sqrt v (Std.le_of_lt hv)
  rw [h] at this
  grind

/-- Lem 5.11 (authors' `lnEps_scale_eps_zero`): at `ε = 0`, LayerNorm is invariant under
positive scaling of a row with positive variance. Consequence: `LN₀(D) = LN₀(D/S)` row by row.
Does not cover: `ε > 0` (see `normalize_not_scale_invariant`). -/
theorem lnEps_scale_eps_zero (S : SqrtFn α) {n : Nat} (γ β r : Vec n α) {c : α} (hc : 0 < c)
    (hv : 0 < rowVar r) : lnEps S 0 γ β (fun i => c * r i) = lnEps S 0 γ β r := by
  funext i
  simp only [lnEps, normalize]
  rw [rowMean_smul, rowVar_smul]
  have e1 : c * c * rowVar r + 0 = c * c * (rowVar r + 0) := by grind
  rw [e1, sqrt_mul_self_mul S (Std.le_of_lt hc) (by grind)]
  have hs := sqrt_ne_zero_of_pos S (v := rowVar r + 0) (by grind)
  have hc0 : c ≠ 0 := by grind
  congr 1
  rw [Lean.Grind.Field.div_eq_mul_inv, Lean.Grind.Field.div_eq_mul_inv]
  grind

/-- `Σ_i (r_i − μ)² = d · var(r)`. -/
theorem fsum_centred_sq {n : Nat} (r : Vec n α) :
    fsum n (fun i => (r i - rowMean r) * (r i - rowMean r)) = (Nat.cast n : α) * rowVar r := by
  rcases Nat.eq_zero_or_pos n with h | h
  · subst h; simp only [fsum_zero, Lean.Grind.Semiring.natCast_zero]; grind
  · unfold rowVar
    have := natCast_ne_zero_of_pos (α := α) h
    rw [Lean.Grind.Field.div_eq_mul_inv]
    grind

/-- The normalized row is centred: `Σ_i û_i = 0`. -/
theorem sum_normalize_eq_zero (S : SqrtFn α) (ε : α) {n : Nat} (r : Vec n α) :
    fsum n (normalize S ε r) = 0 := by
  unfold normalize
  have : (fun i => (r i - rowMean r) / S.sqrt (rowVar r + ε))
      = fun i => (r i - rowMean r) * (S.sqrt (rowVar r + ε))⁻¹ := by
    funext i; rw [Lean.Grind.Field.div_eq_mul_inv]
  rw [this, fsum_mul_right, fsum_sub, fsum_const]
  rcases Nat.eq_zero_or_pos n with h | h
  · subst h; simp only [fsum_zero, Lean.Grind.Semiring.natCast_zero]; grind
  · have := natCast_ne_zero_of_pos (α := α) h
    unfold rowMean
    rw [Lean.Grind.Field.div_eq_mul_inv]
    grind

/-- Lem 5.11 (authors' `sum_sq_normalized`): `Σ_i û_i² = d · var / (var + ε)` for `ε > 0`.
Does not cover: the affine part `γ, β`. -/
theorem sum_sq_normalize (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (r : Vec n α) :
    fsum n (fun i => normalize S ε r i * normalize S ε r i)
      = (Nat.cast n : α) * rowVar r / (rowVar r + ε) := by
  have hpos : 0 < rowVar r + ε := by have := rowVar_nonneg r; grind
  have hsq := S.mul_self_sqrt _ (Std.le_of_lt hpos)
  have hne : rowVar r + ε ≠ 0 := by grind
  have hsne := sqrt_ne_zero_of_pos S hpos
  have : (fun i => normalize S ε r i * normalize S ε r i)
      = fun i => (r i - rowMean r) * (r i - rowMean r) * (rowVar r + ε)⁻¹ := by
    funext i
    simp only [normalize]
    rw [Lean.Grind.Field.div_eq_mul_inv, ← hsq]
    grind
  rw [this, fsum_mul_right, fsum_centred_sq, Lean.Grind.Field.div_eq_mul_inv]

/-- Lem 5.11: for `ε > 0` and `d ≥ 1` the normalized row has squared norm strictly below `d`.
Does not cover: how far below (that is `d ε/(var + ε)`). -/
theorem sum_sq_normalize_lt (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (hn : 0 < n)
    (r : Vec n α) : fsum n (fun i => normalize S ε r i * normalize S ε r i) < (Nat.cast n : α) := by
  rw [sum_sq_normalize S hε]
  have hv := rowVar_nonneg r
  have hpos : 0 < rowVar r + ε := by grind
  have hN : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  have hinv : 0 < (rowVar r + ε)⁻¹ := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hpos
  -- d var/(var+ε) = d - d ε/(var+ε) and d ε /(var+ε) > 0
  have h1 : 0 < (Nat.cast n : α) * ε * (rowVar r + ε)⁻¹ :=
    Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hN hε) hinv
  have hne : rowVar r + ε ≠ 0 := by grind
  have h2 : (Nat.cast n : α) * rowVar r / (rowVar r + ε)
      = (Nat.cast n : α) - (Nat.cast n : α) * ε * (rowVar r + ε)⁻¹ := by
    rw [Lean.Grind.Field.div_eq_mul_inv]; grind
  rw [h2]; grind

/-- At `ε = 0` a positive-variance row normalizes to squared norm exactly `d`. -/
theorem sum_sq_normalize_eps_zero (S : SqrtFn α) {n : Nat} (r : Vec n α) (hv : 0 < rowVar r) :
    fsum n (fun i => normalize S 0 r i * normalize S 0 r i) = (Nat.cast n : α) := by
  have hpos : 0 < rowVar r + 0 := by grind
  have hsq := S.mul_self_sqrt _ (Std.le_of_lt hpos)
  have hne : rowVar r + 0 ≠ 0 := by grind
  have hsne := sqrt_ne_zero_of_pos S hpos
  have : (fun i => normalize S 0 r i * normalize S 0 r i)
      = fun i => (r i - rowMean r) * (r i - rowMean r) * (rowVar r + 0)⁻¹ := by
    funext i
    simp only [normalize]
    rw [Lean.Grind.Field.div_eq_mul_inv, ← hsq]
    grind
  rw [this, fsum_mul_right, fsum_centred_sq]
  grind

/-- Lem 5.11, beyond the authors' repository (listed there as not formalized): for `ε > 0`,
ε-LayerNorm is NOT scale invariant: scaling a positive-variance row by `c > 0`, `c ≠ 1` changes
the normalized row (its squared norm `d c² var/(c² var + ε)` moves). Does not cover: the size of
the change (Lem 5.11(ii)). -/
theorem normalize_not_scale_invariant (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (hn : 0 < n)
    (r : Vec n α) (hv : 0 < rowVar r) {c : α} (hc : 0 < c) (hc1 : c ≠ 1) :
    normalize S ε (fun i => c * r i) ≠ normalize S ε r := by
  intro h
  have e := congrArg (fun u => fsum n (fun i => u i * u i)) h
  simp only at e
  rw [sum_sq_normalize S hε, sum_sq_normalize S hε, rowVar_smul] at e
  have hN : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  have hcv : 0 ≤ c * c * rowVar r :=
    Lean.Grind.OrderedRing.mul_nonneg (mul_self_nonneg c) (Std.le_of_lt hv)
  have ha : c * c * rowVar r + ε ≠ 0 := by grind
  have hb : rowVar r + ε ≠ 0 := by grind
  rw [Lean.Grind.Field.div_eq_mul_inv, Lean.Grind.Field.div_eq_mul_inv] at e
  have e2 : (Nat.cast n : α) * (c * c * rowVar r) * (rowVar r + ε)
      = (Nat.cast n : α) * rowVar r * (c * c * rowVar r + ε) := by grind
  have e3 : ((c - 1) * (c + 1)) * ((Nat.cast n : α) * rowVar r * ε) = 0 := by grind
  have hpos : 0 < (Nat.cast n : α) * rowVar r * ε :=
    Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hN hv) hε
  rcases Lean.Grind.Field.of_mul_eq_zero e3 with h1 | h1
  · rcases Lean.Grind.Field.of_mul_eq_zero h1 with h2 | h2
    · exact hc1 (by grind)
    · grind
  · grind

end Ordered

end PLGA.LayerNorm
