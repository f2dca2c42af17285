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
* `lnEps`: ε-LayerNorm with affine parameters, `γ_i û_i + β_i`;
* `scaleErr ε c v`: the relative scale-error factor `κ = ε (c² − 1)/(c² v + ε)` of Lem 5.11(ii).

## Main statements

* `rowVar_nonneg`, `rowMean_shift`, `rowVar_shift`, `rowMean_smul`, `rowVar_smul`;
* `lnEps_shift`: Lem 5.11(i), `lnEps(r + c𝟙) = lnEps r` for every `ε` (exact shift invariance);
* `lnEps_scale_eps_zero`: Lem 5.11, `lnEps₀(c r) = lnEps₀ r` for `c > 0`, `var r > 0`; so at
  `ε = 0` normalizing `D` or `D/S` (spec §A.4 step 3) gives the same `A⁰`;
* `sum_sq_normalize`: the norm identity `Σ û² = d·var/(var + ε)`, with `sum_sq_normalize_lt`
  (`< d` for `ε > 0`), `sum_sq_normalize_eps_zero` (`= d` at `ε = 0`, `var > 0`) and
  `sum_normalize_eq_zero` (`Σ û = 0`);
* `normalize_not_scale_invariant`: for `ε > 0` and `var r > 0`, scaling by `c > 0`, `c ≠ 1`
  changes the normalized row (ε breaks scale invariance);
* `normalize_smul_sub_eq`: Lem 5.11(ii) exactly, `û(c r)_i − û(r)_i = û(r)_i · κ · ρ` with a
  damping factor `ρ ∈ [0, 1]` (`scaleDamp_mem`);
* `absv_normalize_smul_sub_le`, `sum_sq_normalize_smul_sub_le`, `absv_lnEps_smul_sub_le`: the
  quantitative scale error `|Δ_i| ≤ |û_i| |κ|`, `‖Δ‖² ≤ κ² d var/(var + ε)`, and with `γ, β`;
  `absv_scaleErr_le`: `|κ| ≤ ε/(var(c r) + ε)` for `0 < c ≤ 1` (`D/S` with `S ≥ 1`);
* `absv_scaleErr_mul_damp_le`, `absv_normalize_smul_sub_le_proxy`,
  `sum_sq_normalize_smul_sub_le_proxy`: for `0 < c ≤ 1` and `var > 0` the relative error is at
  most the spec's audit proxy `ε/(2 var(c r))` (entrywise and in L2).

## Implementation notes

The square root is a hypothesis structure (`SqrtFn`, met by `Real.sqrt`); the scalars form an
ordered field (`Lean.Grind.Field`), so mathlib's `ℝ` instantiates everything. Counterparts in the
authors' repository `burcgokden/PLDR-LLM-Math-Foundations`: `rowVar_nonneg`, `rowMean_shift`,
`rowVar_shift`, `rowMean_smul`, `rowVar_smul`, `lnEps_shift`, `lnEps_scale_eps_zero`,
`sum_sq_normalized`; `normalize_not_scale_invariant` goes beyond it (listed there as not
formalized), as do the scale-error results of Lem 5.11(ii) (`normalize_smul_sub_eq` and its
bounds; the paper's statement is not in the authors' repository, which says "the paper quantifies
the error"). The scale error is stated for `r ↦ c r` with `c > 0`; `D/S` is `c = 1/S`. Not
covered: float rounding; the affine part `γ, β` in the norm identity.

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

/-- The relative scale-error factor of Lem 5.11(ii), `κ = ε (c² − 1)/(c² v + ε)` for a row of
variance `v` scaled by `c` (so `c² v` is the variance of the scaled row). -/
noncomputable def scaleErr (ε c v : α) : α := ε * (c * c - 1) / (c * c * v + ε)

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
the normalized row (its squared norm `d c² var/(c² var + ε)` moves). The size of the change
(Lem 5.11(ii)) is `normalize_smul_sub_eq`, `sum_sq_normalize_smul_sub_le`. -/
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

section ScaleError
variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- Lem 5.11(ii), exact form: for `ε > 0` and `c > 0` the ε-normalized rows of `c r` and `r`
differ by `û_i · κ · ρ`, with `û = normalize r`, `κ = scaleErr ε c (var r)` and the damping factor
`ρ = √(c² var + ε)/(c √(var + ε) + √(c² var + ε)) ∈ [0, 1]` (`scaleDamp_mem`); at first order in
`ε`, `ρ ≈ 1/2`. Does not cover: `c ≤ 0`. -/
theorem normalize_smul_sub_eq (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (r : Vec n α)
    {c : α} (hc : 0 < c) (i : Fin n) :
    normalize S ε (fun i => c * r i) i - normalize S ε r i
      = normalize S ε r i * scaleErr ε c (rowVar r)
        * (S.sqrt (c * c * rowVar r + ε)
          / (c * S.sqrt (rowVar r + ε) + S.sqrt (c * c * rowVar r + ε))) := by
  have hv := rowVar_nonneg r
  have hcv : 0 ≤ c * c * rowVar r :=
    Lean.Grind.OrderedRing.mul_nonneg (mul_self_nonneg c) hv
  have hp : 0 < c * c * rowVar r + ε := by grind
  have hq : 0 < rowVar r + ε := by grind
  have hA := S.mul_self_sqrt _ (Std.le_of_lt hp)
  have hB := S.mul_self_sqrt _ (Std.le_of_lt hq)
  have hA0 := sqrt_ne_zero_of_pos S hp
  have hB0 := sqrt_ne_zero_of_pos S hq
  have hApos : 0 < S.sqrt (c * c * rowVar r + ε) := by
    have := S.sqrt_nonneg (c * c * rowVar r + ε); grind
  have hBpos : 0 < S.sqrt (rowVar r + ε) := by
    have := S.sqrt_nonneg (rowVar r + ε); grind
  have hsum : c * S.sqrt (rowVar r + ε) + S.sqrt (c * c * rowVar r + ε) ≠ 0 := by
    have := Lean.Grind.OrderedRing.mul_pos hc hBpos; grind
  simp only [normalize, scaleErr]
  rw [rowMean_smul, rowVar_smul]
  have e1 : c * r i - c * rowMean r = c * (r i - rowMean r) := by grind
  rw [e1]
  generalize S.sqrt (c * c * rowVar r + ε) = A at *
  generalize S.sqrt (rowVar r + ε) = B at *
  rw [← hA]
  generalize r i - rowMean r = x
  have hδ : (c * B - A) * (c * B + A) = ε * (c * c - 1) := by grind
  rw [← hδ]
  simp only [Lean.Grind.Field.div_eq_mul_inv]
  have i1 := Lean.Grind.Field.mul_inv_cancel hA0
  have i2 := Lean.Grind.Field.mul_inv_cancel hB0
  have i3 := Lean.Grind.Field.mul_inv_cancel hsum
  have i4 : (A * A)⁻¹ = A⁻¹ * A⁻¹ := by
    have := Lean.Grind.Field.mul_inv_cancel (a := A * A) (by grind)
    grind
  rw [i4]
  grind

/-- The damping factor `ρ = √(c²v+ε)/(c √(v+ε) + √(c²v+ε))` lies in `[0, 1]`. -/
theorem scaleDamp_mem (S : SqrtFn α) {ε : α} (hε : 0 < ε) {v c : α} (hv : 0 ≤ v) (hc : 0 < c) :
    0 ≤ S.sqrt (c * c * v + ε) / (c * S.sqrt (v + ε) + S.sqrt (c * c * v + ε)) ∧
      S.sqrt (c * c * v + ε) / (c * S.sqrt (v + ε) + S.sqrt (c * c * v + ε)) ≤ 1 := by
  have hcv : 0 ≤ c * c * v := Lean.Grind.OrderedRing.mul_nonneg (mul_self_nonneg c) hv
  have hp : 0 < c * c * v + ε := by grind
  have hA0 := sqrt_ne_zero_of_pos S hp
  have hApos : 0 < S.sqrt (c * c * v + ε) := by
    have := S.sqrt_nonneg (c * c * v + ε); grind
  have hcB : 0 ≤ c * S.sqrt (v + ε) :=
    Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hc) (S.sqrt_nonneg _)
  generalize S.sqrt (c * c * v + ε) = A at *
  generalize c * S.sqrt (v + ε) = C at *
  have hpos : 0 < C + A := by grind
  have hinv : 0 < (C + A)⁻¹ := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hpos
  have i1 := Lean.Grind.Field.mul_inv_cancel (show C + A ≠ 0 by grind)
  have h1 : 0 ≤ A * (C + A)⁻¹ := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hApos)
    (Std.le_of_lt hinv)
  have h2 : 0 ≤ C * (C + A)⁻¹ := Lean.Grind.OrderedRing.mul_nonneg hcB (Std.le_of_lt hinv)
  rw [Lean.Grind.Field.div_eq_mul_inv]
  constructor
  · exact h1
  · grind

/-- `0 ≤ ρ ≤ 1` gives `|x ρ| ≤ |x|`. -/
theorem absv_mul_le_of_mem {x ρ : α} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) : absv (x * ρ) ≤ absv x := by
  rw [absv_mul, absv_of_nonneg h0]
  have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h1 (absv_nonneg x)
  grind

/-- `0 ≤ ρ ≤ 1` gives `(x ρ)² ≤ x²`. -/
theorem mul_self_mul_le_of_mem {x ρ : α} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) :
    (x * ρ) * (x * ρ) ≤ x * x := by
  have hρ : ρ * ρ ≤ 1 := by
    have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h1 h0
    grind
  have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left hρ (mul_self_nonneg x)
  grind

/-- Lem 5.11(ii), entrywise bound: `|LN_ε(c r)_i − LN_ε(r)_i| ≤ |û_i| · |κ|` for the
normalized rows (`γ = 1`, `β = 0`), `κ = ε (c² − 1)/(c² var + ε)`, every `ε > 0`, `c > 0`.
Uses only `ρ ≤ 1`; for `c ≤ 1` the sharper `absv_normalize_smul_sub_le_proxy` keeps `ρ`. -/
theorem absv_normalize_smul_sub_le (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (r : Vec n α)
    {c : α} (hc : 0 < c) (i : Fin n) :
    absv (normalize S ε (fun i => c * r i) i - normalize S ε r i)
      ≤ absv (normalize S ε r i) * absv (scaleErr ε c (rowVar r)) := by
  rw [normalize_smul_sub_eq S hε r hc i, ← absv_mul]
  obtain ⟨h0, h1⟩ := scaleDamp_mem S hε (rowVar_nonneg r) hc
  exact absv_mul_le_of_mem h0 h1

/-- Lem 5.11(ii), whole row: `Σ_i (û(c r)_i − û(r)_i)² ≤ κ² · d var/(var + ε)` (the right side
is `κ² Σ û_i²`, so `κ` is a bound on the relative L2 error). Does not cover: float rounding. -/
theorem sum_sq_normalize_smul_sub_le (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat}
    (r : Vec n α) {c : α} (hc : 0 < c) :
    fsum n (fun i => (normalize S ε (fun i => c * r i) i - normalize S ε r i)
        * (normalize S ε (fun i => c * r i) i - normalize S ε r i))
      ≤ scaleErr ε c (rowVar r) * scaleErr ε c (rowVar r)
        * ((Nat.cast n : α) * rowVar r / (rowVar r + ε)) := by
  rw [← sum_sq_normalize S hε r, ← fsum_mul_left]
  apply fsum_le_fsum
  intro i
  rw [normalize_smul_sub_eq S hε r hc i]
  obtain ⟨h0, h1⟩ := scaleDamp_mem S hε (rowVar_nonneg r) hc
  have := mul_self_mul_le_of_mem (x := normalize S ε r i * scaleErr ε c (rowVar r)) h0 h1
  grind

/-- Lem 5.11(ii) with the affine parameters: `|lnEps(c r)_i − lnEps(r)_i| ≤ |γ_i| |û_i| |κ|`
(the shift `β` cancels). Consequence with `c = 1/S`: `A⁰ = LN_A(D)` and `LN_A(D/S)` differ
entrywise by at most `|γ_i| |û_i| |κ|`. Does not cover: float rounding. -/
theorem absv_lnEps_smul_sub_le (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat} (γ β r : Vec n α)
    {c : α} (hc : 0 < c) (i : Fin n) :
    absv (lnEps S ε γ β (fun i => c * r i) i - lnEps S ε γ β r i)
      ≤ absv (γ i) * absv (normalize S ε r i) * absv (scaleErr ε c (rowVar r)) := by
  have e : lnEps S ε γ β (fun i => c * r i) i - lnEps S ε γ β r i
      = γ i * (normalize S ε (fun i => c * r i) i - normalize S ε r i) := by
    simp only [lnEps]; grind
  rw [e, absv_mul]
  have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left
    (absv_normalize_smul_sub_le S hε r hc i) (absv_nonneg (γ i))
  grind

/-- Lem 5.11(ii), size of the factor: for `0 < c ≤ 1` (normalizing `D/S` with `S ≥ 1`),
`|κ| ≤ ε/(var(c r) + ε)`, twice the spec's first-order proxy `ε/(2 var(D/S))` at most (up to the
`+ε`). Does not cover: `c > 1` (there `|κ| < c² ε/(c² var + ε)`, not formalized). -/
theorem absv_scaleErr_le {ε : α} (hε : 0 < ε) {v c : α} (hv : 0 ≤ v) (hc : 0 < c) (hc1 : c ≤ 1) :
    absv (scaleErr ε c v) ≤ ε / (c * c * v + ε) := by
  have hcv : 0 ≤ c * c * v := Lean.Grind.OrderedRing.mul_nonneg (mul_self_nonneg c) hv
  have hp : 0 < c * c * v + ε := by grind
  have hinv : 0 < (c * c * v + ε)⁻¹ := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hp
  have hcc : c * c ≤ 1 := by
    have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left hc1 (Std.le_of_lt hc)
    grind
  have hcc0 : 0 ≤ c * c := mul_self_nonneg c
  unfold scaleErr
  rw [Lean.Grind.Field.div_eq_mul_inv, Lean.Grind.Field.div_eq_mul_inv, absv_mul, absv_mul,
    absv_of_nonneg (Std.le_of_lt hε), absv_of_nonneg (Std.le_of_lt hinv)]
  have h1 : absv (c * c - 1) ≤ 1 := absv_le (by grind) (by grind)
  have h2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h1 (Std.le_of_lt hε)
  have h3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right h2 (Std.le_of_lt hinv)
  grind

/-- `0 < a ≤ b` gives `b⁻¹ ≤ a⁻¹`. -/
theorem inv_le_inv_of_le {a b : α} (ha : 0 < a) (hab : a ≤ b) : b⁻¹ ≤ a⁻¹ := by
  have hb : 0 < b := Std.lt_of_lt_of_le ha hab
  have hia := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr ha
  have hib := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hb
  have i1 := Lean.Grind.Field.mul_inv_cancel (show a ≠ 0 by grind)
  have i2 := Lean.Grind.Field.mul_inv_cancel (show b ≠ 0 by grind)
  have h0 : 0 ≤ (b - a) * (a⁻¹ * b⁻¹) := Lean.Grind.OrderedRing.mul_nonneg (by grind)
    (Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hia) (Std.le_of_lt hib))
  have e : (b - a) * (a⁻¹ * b⁻¹) = a⁻¹ - b⁻¹ := by grind
  grind

/-- Lem 5.11(ii), first-order-sharp factor: for `0 < c ≤ 1` and `v > 0`, the product `κ ρ` of
`normalize_smul_sub_eq` satisfies `|κ ρ| ≤ ε/(2 c² v)`, the spec's proxy `ε/(2 var(c r))`. -/
theorem absv_scaleErr_mul_damp_le (S : SqrtFn α) {ε : α} (hε : 0 < ε) {v c : α} (hv : 0 < v)
    (hc : 0 < c) (hc1 : c ≤ 1) :
    absv (scaleErr ε c v
        * (S.sqrt (c * c * v + ε) / (c * S.sqrt (v + ε) + S.sqrt (c * c * v + ε))))
      ≤ ε / (2 * (c * c * v)) := by
  have hcc : 0 < c * c := Lean.Grind.OrderedRing.mul_pos hc hc
  have hcv : 0 < c * c * v := Lean.Grind.OrderedRing.mul_pos hcc hv
  have hcc1 : c * c ≤ 1 := by
    have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left hc1 (Std.le_of_lt hc)
    grind
  have hp : 0 < c * c * v + ε := by grind
  have hq : 0 < v + ε := by grind
  have hA := S.mul_self_sqrt _ (Std.le_of_lt hp)
  have hB := S.mul_self_sqrt _ (Std.le_of_lt hq)
  have hA0 := sqrt_ne_zero_of_pos S hp
  have hB0 := sqrt_ne_zero_of_pos S hq
  have hApos : 0 < S.sqrt (c * c * v + ε) := by
    have := S.sqrt_nonneg (c * c * v + ε); grind
  have hBpos : 0 < S.sqrt (v + ε) := by
    have := S.sqrt_nonneg (v + ε); grind
  unfold scaleErr
  generalize S.sqrt (c * c * v + ε) = A at *
  generalize S.sqrt (v + ε) = B at *
  have hcB : 0 < c * B := Lean.Grind.OrderedRing.mul_pos hc hBpos
  -- `A · cB ≥ c² v` from `(A cB)² = (c²v + ε) c² (v + ε) ≥ (c² v)²`
  have hsq : (c * c * v) * (c * c * v) ≤ (A * (c * B)) * (A * (c * B)) := by
    have h1 : 0 ≤ c * c * (c * c * v * ε + ε * v + ε * ε) :=
      Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hcc) (by
        have := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hcv) (Std.le_of_lt hε)
        have := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hε) (Std.le_of_lt hv)
        have := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hε) (Std.le_of_lt hε)
        grind)
    have e : (A * (c * B)) * (A * (c * B)) = (A * A) * (c * c) * (B * B) := by grind
    rw [e, hA, hB]
    grind
  have hAcB : c * c * v ≤ A * (c * B) := le_of_mul_self_le_mul_self
    (Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hApos) (Std.le_of_lt hcB)) hsq
  have hD : 2 * (c * c * v) ≤ A * (c * B + A) := by grind
  have hDpos : 0 < 2 * (c * c * v) := by grind
  have hsum : c * B + A ≠ 0 := by grind
  have e1 : ε * (c * c - 1) / (c * c * v + ε) * (A / (c * B + A))
      = -(ε * (1 - c * c)) * (A * (c * B + A))⁻¹ := by
    rw [← hA]
    simp only [Lean.Grind.Field.div_eq_mul_inv]
    have i1 := Lean.Grind.Field.mul_inv_cancel hA0
    have i3 := Lean.Grind.Field.mul_inv_cancel hsum
    have i4 : (A * A)⁻¹ = A⁻¹ * A⁻¹ := by
      have := Lean.Grind.Field.mul_inv_cancel (a := A * A) (by grind)
      grind
    have i5 : (A * (c * B + A))⁻¹ = A⁻¹ * (c * B + A)⁻¹ := by
      have := Lean.Grind.Field.mul_inv_cancel (a := A * (c * B + A)) (by grind)
      grind
    rw [i4, i5]
    grind
  have hneg : 0 ≤ ε * (1 - c * c) := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hε) (by grind)
  have hDinv : 0 < (A * (c * B + A))⁻¹ := Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr (by grind)
  rw [e1, absv_mul, Lean.Grind.Field.div_eq_mul_inv]
  have ha1 : absv (-(ε * (1 - c * c))) = ε * (1 - c * c) := by
    by_cases h0 : ε * (1 - c * c) = 0
    · rw [h0]; have : -(0 : α) = 0 := by grind
      rw [this, absv_of_nonneg (Std.le_refl _)]
    · rw [absv_of_neg (by grind)]; grind
  rw [ha1, absv_of_nonneg (Std.le_of_lt hDinv)]
  have s1 : ε * (1 - c * c) * (A * (c * B + A))⁻¹ ≤ ε * (A * (c * B + A))⁻¹ :=
    Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (by
      have := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hε) (Std.le_of_lt hcc)
      grind) (Std.le_of_lt hDinv)
  have s2 : ε * (A * (c * B + A))⁻¹ ≤ ε * (2 * (c * c * v))⁻¹ :=
    Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (inv_le_inv_of_le hDpos hD)
      (Std.le_of_lt hε)
  exact Std.le_trans s1 s2

/-- Lem 5.11(ii) against the spec's proxy: for `0 < c ≤ 1` (`D/S`, `S ≥ 1`) and `var r > 0`,
`|û(c r)_i − û(r)_i| ≤ |û(r)_i| · ε/(2 var(c r))`: the proxy `ε/(2 var(D/S))` of the audit is a
rigorous bound on the relative error. -/
theorem absv_normalize_smul_sub_le_proxy (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat}
    (r : Vec n α) (hv : 0 < rowVar r) {c : α} (hc : 0 < c) (hc1 : c ≤ 1) (i : Fin n) :
    absv (normalize S ε (fun i => c * r i) i - normalize S ε r i)
      ≤ absv (normalize S ε r i) * (ε / (2 * rowVar (fun i => c * r i))) := by
  rw [normalize_smul_sub_eq S hε r hc i, rowVar_smul, Lean.Grind.Semiring.mul_assoc, absv_mul]
  exact Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left
    (absv_scaleErr_mul_damp_le S hε hv hc hc1) (absv_nonneg _)

/-- Lem 5.11(ii), whole row against the proxy: `Σ_i (û(c r)_i − û(r)_i)² ≤ p² Σ_i û(r)_i²` with
`p = ε/(2 var(c r))`, i.e. the relative L2 error is at most the proxy (`0 < c ≤ 1`, `var r > 0`). -/
theorem sum_sq_normalize_smul_sub_le_proxy (S : SqrtFn α) {ε : α} (hε : 0 < ε) {n : Nat}
    (r : Vec n α) (hv : 0 < rowVar r) {c : α} (hc : 0 < c) (hc1 : c ≤ 1) :
    fsum n (fun i => (normalize S ε (fun i => c * r i) i - normalize S ε r i)
        * (normalize S ε (fun i => c * r i) i - normalize S ε r i))
      ≤ (ε / (2 * rowVar (fun i => c * r i))) * (ε / (2 * rowVar (fun i => c * r i)))
        * fsum n (fun i => normalize S ε r i * normalize S ε r i) := by
  rw [← fsum_mul_left]
  apply fsum_le_fsum
  intro i
  have h := absv_normalize_smul_sub_le_proxy S hε r hv hc hc1 i
  have hp : 0 ≤ ε / (2 * rowVar (fun i => c * r i)) := by
    rw [rowVar_smul]
    have := Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hc hc) hv
    exact Std.le_of_lt (div_pos hε (by grind))
  generalize normalize S ε (fun i => c * r i) i - normalize S ε r i = x at *
  generalize normalize S ε r i = u at *
  generalize ε / (2 * rowVar (fun i => c * r i)) = p at *
  have ex : x * x = absv x * absv x := by
    rw [← absv_mul, absv_of_nonneg (mul_self_nonneg x)]
  have eu : u * u = absv u * absv u := by
    rw [← absv_mul, absv_of_nonneg (mul_self_nonneg u)]
  have hup : 0 ≤ absv u * p := Lean.Grind.OrderedRing.mul_nonneg (absv_nonneg u) hp
  have h1 : absv x * absv x ≤ absv x * (absv u * p) :=
    Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h (absv_nonneg x)
  have h2 : absv x * (absv u * p) ≤ (absv u * p) * (absv u * p) :=
    Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right h hup
  rw [ex]
  have e : p * p * (u * u) = (absv u * p) * (absv u * p) := by rw [eu]; grind
  rw [e]
  exact Std.le_trans h1 h2

end ScaleError

end PLGA.LayerNorm
