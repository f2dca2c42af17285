module

public import Formal.Perron.Collatz

/-!
# Perron–Frobenius VII: the normalized power iteration (for Thm 3.8, step 8)

The existence proof (`Formal/Perron/Existence.lean`) follows the Collatz–Wielandt ratio
sequences of the power iteration. For `A ≥ ε > 0` with entries `≤ K`, the iterates are positive
and increasing, the lower ratios `m_k` increase, the upper ratios `M_k` decrease, and
`M_{k+1} ≤ M_k − θ (M_k − m_k)` with `θ = ε² / (K² n) > 0`.

## Main definitions

* `minRatio y x`, `maxRatio y x`: `min_i y_i / x_i`, `max_i y_i / x_i`, attained;
* `piter A k`: the iteration `p₀ = 𝟙`, `p_{k+1} = A p_k / m_k`;
* `lo A k`, `hi A k`: `m_k = min_i (A p_k)_i / (p_k)_i` and `M_k = max_i (A p_k)_i / (p_k)_i`;
* `contractRate`: the contraction rate `θ = ε² / (K² n)`.

## Main statements

* `minRatio_spec`, `maxRatio_spec`, `le_minRatio`, `maxRatio_le`: the ratio extrema;
* `piter_pos`, `lo_pos`, `mulVec_piter`: positivity and `A p_k = m_k p_{k+1}`;
* `piter_le_succ`: `p_k ≤ p_{k+1}` entrywise;
* `lo_le_lo_succ`, `hi_succ_le_hi`, `lo_le_hi`: `m_k ≤ m_{k+1}`, `M_{k+1} ≤ M_k`, `m_k ≤ M_k`
  (Collatz–Wielandt monotonicity);
* `piter_balanced`: the balance `ε (p_k)_l ≤ K (p_k)_j` of every iterate;
* `mulVec_mulVec_le_contract`: the weighted-average estimate;
* `hi_succ_le_contract`: the contraction `M_{k+1} ≤ M_k − θ (M_k − m_k)`, `θ > 0`.

## Implementation notes

No completeness is used in this file. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered: convergence (in
`Formal/Perron/Existence.lean`), a convergence rate for the power iteration.

## References

* Thm 3.8 (step 8) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Cancelling a positive left factor in `≤`. -/
theorem cancel_left {a b c : α} (hc : 0 < c) (h : c * a ≤ c * b) : a ≤ b :=
  (Lean.Grind.Field.IsOrdered.mul_le_mul_iff_of_pos_left hc).mp h

/-! ## Attained min and max ratios -/

/-- `min_i y_i / x_i` (`0` for `n = 0`). -/
noncomputable def minRatio {n : Nat} (y x : Vec n α) : α :=
  if h : 0 < n then
    y (Classical.choose (exists_min_index h (fun i => y i / x i))) /
      x (Classical.choose (exists_min_index h (fun i => y i / x i)))
  else 0

/-- `max_i y_i / x_i` (`0` for `n = 0`). -/
noncomputable def maxRatio {n : Nat} (y x : Vec n α) : α :=
  if h : 0 < n then
    y (Classical.choose (exists_max_index h (fun i => y i / x i))) /
      x (Classical.choose (exists_max_index h (fun i => y i / x i)))
  else 0

omit [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- `minRatio` is a lower bound of the ratios and is attained. -/
theorem minRatio_spec {n : Nat} (hn : 0 < n) (y x : Vec n α) :
    (∀ i, minRatio y x ≤ y i / x i) ∧ ∃ i, minRatio y x = y i / x i := by
  unfold minRatio; rw [dif_pos hn]
  exact ⟨Classical.choose_spec (exists_min_index hn (fun i => y i / x i)), _, rfl⟩

/-- `maxRatio` is an upper bound of the ratios and is attained. -/
theorem maxRatio_spec {n : Nat} (hn : 0 < n) (y x : Vec n α) :
    (∀ i, y i / x i ≤ maxRatio y x) ∧ ∃ i, maxRatio y x = y i / x i := by
  unfold maxRatio; rw [dif_pos hn]
  exact ⟨Classical.choose_spec (exists_max_index hn (fun i => y i / x i)), _, rfl⟩

/-- `(min_i y_i/x_i) x_j ≤ y_j` for `x > 0`. -/
theorem minRatio_mul_le {n : Nat} (hn : 0 < n) (y : Vec n α) {x : Vec n α}
    (hx : ∀ i, 0 < x i) (i : Fin n) : minRatio y x * x i ≤ y i := by
  have h := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right ((minRatio_spec hn y x).1 i)
    (Std.le_of_lt (hx i))
  have e : y i / x i * x i = y i := by have := hx i; grind
  rw [e] at h; exact h

/-- `y_j ≤ (max_i y_i/x_i) x_j` for `x > 0`. -/
theorem le_maxRatio_mul {n : Nat} (hn : 0 < n) (y : Vec n α) {x : Vec n α}
    (hx : ∀ i, 0 < x i) (i : Fin n) : y i ≤ maxRatio y x * x i := by
  have h := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right ((maxRatio_spec hn y x).1 i)
    (Std.le_of_lt (hx i))
  have e : y i / x i * x i = y i := by have := hx i; grind
  rw [e] at h; exact h

/-- The minimum ratio is attained: `y_i = (min ratio) x_i` for some `i`. -/
theorem exists_minRatio_eq {n : Nat} (hn : 0 < n) (y : Vec n α) {x : Vec n α}
    (hx : ∀ i, 0 < x i) : ∃ i, y i = minRatio y x * x i := by
  obtain ⟨i, hi⟩ := (minRatio_spec hn y x).2
  exact ⟨i, by rw [hi]; have := hx i; grind⟩

/-- `c x ≤ y` (`x > 0`) gives `c ≤ min_i y_i/x_i`. -/
theorem le_minRatio {n : Nat} (hn : 0 < n) {y x : Vec n α} (hx : ∀ i, 0 < x i) {c : α}
    (h : ∀ i, c * x i ≤ y i) : c ≤ minRatio y x := by
  obtain ⟨i, hi⟩ := (minRatio_spec hn y x).2
  rw [hi]; exact le_div_of_mul_le (hx i) (h i)

/-- `y ≤ c x` (`x > 0`) gives `max_i y_i/x_i ≤ c`. -/
theorem maxRatio_le {n : Nat} (hn : 0 < n) {y x : Vec n α} (hx : ∀ i, 0 < x i) {c : α}
    (h : ∀ i, y i ≤ c * x i) : maxRatio y x ≤ c := by
  obtain ⟨i, hi⟩ := (maxRatio_spec hn y x).2
  rw [hi]; exact div_le_of_le_mul (hx i) (h i)

/-! ## The iteration -/

/-- The normalized power iteration `p₀ = 𝟙`, `p_{k+1} = A p_k / m_k`. -/
noncomputable def piter {n : Nat} (A : Mat n n α) : Nat → Vec n α
  | 0 => fun _ => 1
  | k + 1 => fun i =>
      Mat.mulVec A (piter A k) i / minRatio (Mat.mulVec A (piter A k)) (piter A k)

/-- `m_k = min_i (A p_k)_i / (p_k)_i`. -/
noncomputable def lo {n : Nat} (A : Mat n n α) (k : Nat) : α :=
  minRatio (Mat.mulVec A (piter A k)) (piter A k)

/-- `M_k = max_i (A p_k)_i / (p_k)_i`. -/
noncomputable def hi {n : Nat} (A : Mat n n α) (k : Nat) : α :=
  maxRatio (Mat.mulVec A (piter A k)) (piter A k)

omit [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- Unfolding `p_{k+1} = A p_k / m_k`. -/
theorem piter_succ {n : Nat} (A : Mat n n α) (k : Nat) (i : Fin n) :
    piter A (k + 1) i = Mat.mulVec A (piter A k) i / lo A k := rfl

section Iter
variable {n : Nat} {A : Mat n n α} {ε : α}

/-- The iterates are strictly positive. -/
theorem piter_pos (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) :
    ∀ k i, 0 < piter A k i := by
  intro k
  induction k with
  | zero => intro i; exact Lean.Grind.OrderedRing.zero_lt_one
  | succ k ih =>
    have hy : ∀ i, 0 < Mat.mulVec A (piter A k) i := fun i =>
      mulVec_pos hε hA (fun j => Std.le_of_lt (ih j)) (k := ⟨0, hn⟩)
        (fun h => by have := ih ⟨0, hn⟩; grind) i
    obtain ⟨i0, hi0⟩ := (minRatio_spec hn (Mat.mulVec A (piter A k)) (piter A k)).2
    have hlo : 0 < lo A k := by unfold lo; rw [hi0]; exact div_pos (hy i0) (ih i0)
    intro i; rw [piter_succ]; exact div_pos (hy i) hlo

/-- `A p_k` is strictly positive. -/
theorem mulVec_piter_pos (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat)
    (i : Fin n) : 0 < Mat.mulVec A (piter A k) i :=
  mulVec_pos hε hA (fun j => Std.le_of_lt (piter_pos hn hε hA k j)) (k := ⟨0, hn⟩)
    (fun h => by have := piter_pos hn hε hA k ⟨0, hn⟩; grind) i

/-- `m_k > 0`. -/
theorem lo_pos (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) : 0 < lo A k := by
  obtain ⟨i0, hi0⟩ := (minRatio_spec hn (Mat.mulVec A (piter A k)) (piter A k)).2
  unfold lo; rw [hi0]
  exact div_pos (mulVec_piter_pos hn hε hA k i0) (piter_pos hn hε hA k i0)

/-- `m_k p_k ≤ A p_k` entrywise. -/
theorem lo_mul_le (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) (i : Fin n) :
    lo A k * piter A k i ≤ Mat.mulVec A (piter A k) i :=
  minRatio_mul_le hn _ (piter_pos hn hε hA k) i

/-- `A p_k ≤ M_k p_k` entrywise. -/
theorem le_hi_mul (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) (i : Fin n) :
    Mat.mulVec A (piter A k) i ≤ hi A k * piter A k i :=
  le_maxRatio_mul hn _ (piter_pos hn hε hA k) i

/-- `A p_k = m_k p_{k+1}`. -/
theorem mulVec_piter (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) (i : Fin n) :
    Mat.mulVec A (piter A k) i = lo A k * piter A (k + 1) i := by
  rw [piter_succ]; have := lo_pos hn hε hA k; grind

/-- `m_k ≤ M_k`. -/
theorem lo_le_hi (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) : lo A k ≤ hi A k :=
  (Lean.Grind.Field.IsOrdered.mul_le_mul_iff_of_pos_right (piter_pos hn hε hA k ⟨0, hn⟩)).mp
    (Std.le_trans (lo_mul_le hn hε hA k _) (le_hi_mul hn hε hA k _))

/-- The iterates increase entrywise: `p_k ≤ p_{k+1}`. -/
theorem piter_le_succ (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) (i : Fin n) :
    piter A k i ≤ piter A (k + 1) i := by
  apply cancel_left (lo_pos hn hε hA k)
  rw [← mulVec_piter hn hε hA k i]; exact lo_mul_le hn hε hA k i

/-- Collatz–Wielandt monotonicity: `m_k ≤ m_{k+1}`. -/
theorem lo_le_lo_succ (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) :
    lo A k ≤ lo A (k + 1) := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  apply le_minRatio hn (piter_pos hn hε hA (k + 1))
  intro i
  rw [← mulVec_piter hn hε hA k i]
  exact mulVec_le_mulVec hA0 (piter_le_succ hn hε hA k) i

/-- Collatz–Wielandt monotonicity: `M_{k+1} ≤ M_k`. -/
theorem hi_succ_le_hi (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) (k : Nat) :
    hi A (k + 1) ≤ hi A k := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  apply maxRatio_le hn (piter_pos hn hε hA (k + 1))
  intro i
  apply cancel_left (lo_pos hn hε hA k)
  have e : (fun j => lo A k * piter A (k + 1) j) = Mat.mulVec A (piter A k) :=
    funext (fun j => (mulVec_piter hn hε hA k j).symm)
  rw [← mulVec_smul, e]
  have h := mulVec_le_mulVec hA0 (le_hi_mul hn hε hA k) i
  rw [mulVec_smul, mulVec_piter hn hε hA k i] at h
  grind

/-! ## Balance and contraction -/

/-- `(A x)_i ≤ K ∑ x` for entries `≤ K` and `x ≥ 0`. -/
theorem mulVec_le_mul_fsum {m : Nat} {B : Mat m n α} {K : α} (hK : ∀ i j, B i j ≤ K)
    {x : Vec n α} (hx : ∀ j, 0 ≤ x j) (i : Fin m) : Mat.mulVec B x i ≤ K * fsum n x := by
  rw [← fsum_mul_left]
  exact fsum_le_fsum n _ _
    (fun j => Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hK i j) (hx j))

/-- Every iterate is balanced: `ε (p_k)_l ≤ K (p_k)_j`. -/
theorem piter_balanced (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {K : α}
    (hK : ∀ i j, A i j ≤ K) : ∀ k j l, ε * piter A k l ≤ K * piter A k j := by
  intro k
  induction k with
  | zero => intro j l; show ε * 1 ≤ K * 1; have := hA j l; have := hK j l; grind
  | succ k ih =>
    intro j l
    have hp : ∀ i, 0 ≤ piter A k i := fun i => Std.le_of_lt (piter_pos hn hε hA k i)
    apply cancel_left (lo_pos hn hε hA k)
    have e1 := mulVec_piter hn hε hA k l
    have e2 := mulVec_piter hn hε hA k j
    have h1 := mulVec_le_mul_fsum hK hp l
    have h2 := eps_mul_fsum_le_mulVec hA hp j
    have h3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h1 (Std.le_of_lt hε)
    have hK0 : 0 ≤ K := Std.le_trans (Std.le_trans (Std.le_of_lt hε) (hA j j)) (hK j j)
    have h4 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h2 hK0
    have g1 : lo A k * (ε * piter A (k + 1) l) = ε * Mat.mulVec A (piter A k) l := by
      rw [e1]; grind
    have g2 : lo A k * (K * piter A (k + 1) j) = K * Mat.mulVec A (piter A k) j := by
      rw [e2]; grind
    rw [g1, g2]; grind

/-- Weighted-average contraction: if `m x ≤ A x ≤ M x` (`x > 0`), with equality
`(A x)_{j₀} = m x_{j₀}`, and every weight satisfies `θ (A x)_i ≤ A_{ij} x_j`, then
`A (A x) ≤ (M − θ (M − m)) A x`. -/
theorem mulVec_mulVec_le_contract {B : Mat n n α} (hB : ∀ i j, 0 ≤ B i j) {x : Vec n α}
    (hx : ∀ j, 0 < x j) {m M θ : α}
    (hm : ∀ j, m * x j ≤ Mat.mulVec B x j) (hM : ∀ j, Mat.mulVec B x j ≤ M * x j)
    {j0 : Fin n} (hj0 : Mat.mulVec B x j0 = m * x j0)
    (hw : ∀ i j, θ * Mat.mulVec B x i ≤ B i j * x j) (i : Fin n) :
    Mat.mulVec B (Mat.mulVec B x) i ≤ (M - θ * (M - m)) * Mat.mulVec B x i := by
  have hmM : m ≤ M :=
    (Lean.Grind.Field.IsOrdered.mul_le_mul_iff_of_pos_right (hx j0)).mp
      (Std.le_trans (hm j0) (hM j0))
  have e1 : Mat.mulVec B (fun j => M * x j - Mat.mulVec B x j) i
      = M * Mat.mulVec B x i - Mat.mulVec B (Mat.mulVec B x) i := by
    rw [mulVec_sub, mulVec_smul]
  have s1 := single_le_mulVec hB (x := fun j => M * x j - Mat.mulVec B x j)
    (fun j => by have := hM j; grind) i j0
  rw [e1] at s1
  simp only at s1
  rw [hj0] at s1
  have s2 := hw i j0
  have s3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right s2 (show 0 ≤ M - m by grind)
  grind

/-- The contraction rate `θ = ε² / (K² n)`. -/
noncomputable def contractRate (ε K : α) (n : Nat) : α := ε * ε / (K * K * dimA n)

/-- `θ > 0`. -/
theorem contractRate_pos (hn : 0 < n) (hε : 0 < ε) {K : α} (hK : ε ≤ K) :
    0 < contractRate ε K n := by
  have hK0 : 0 < K := Std.lt_of_lt_of_le hε hK
  exact div_pos (Lean.Grind.OrderedRing.mul_pos hε hε)
    (Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hK0 hK0) (dimA_pos hn))

/-- The contraction `M_{k+1} ≤ M_k − θ (M_k − m_k)`, `θ = ε² / (K² n)`. -/
theorem hi_succ_le_contract (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {K : α}
    (hK : ∀ i j, A i j ≤ K) (k : Nat) :
    hi A (k + 1) ≤ hi A k - contractRate ε K n * (hi A k - lo A k) := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have hp := piter_pos hn hε hA k
  have hK0 : 0 < K := Std.lt_of_lt_of_le hε (Std.le_trans (hA ⟨0, hn⟩ ⟨0, hn⟩) (hK _ _))
  have hD : 0 < K * K * dimA n :=
    Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hK0 hK0) (dimA_pos hn)
  -- weights
  have hw : ∀ i j, contractRate ε K n * Mat.mulVec A (piter A k) i ≤ A i j * piter A k j := by
    intro i j
    have hbal := piter_balanced hn hε hA hK k j
    have hx0 : ∀ l, 0 ≤ piter A k l := fun l => Std.le_of_lt (hp l)
    have t1 := mulVec_le_mul_fsum hK hx0 i
    have t2 : ε * fsum n (piter A k) ≤ dimA n * (K * piter A k j) := by
      rw [← fsum_mul_left, dimA_eq_natCast, ← fsum_const]; exact fsum_le_fsum n _ _ hbal
    have s1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left t1
      (Std.le_of_lt (Lean.Grind.OrderedRing.mul_pos hε hε))
    have s3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left t2
      (Std.le_of_lt (Lean.Grind.OrderedRing.mul_pos hε hK0))
    have s4 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hA i j) (hx0 j)
    have s5 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left s4 (Std.le_of_lt hD)
    have key : ε * ε * Mat.mulVec A (piter A k) i ≤ K * K * dimA n * (A i j * piter A k j) := by
      grind
    apply cancel_left hD
    have e : K * K * dimA n * (contractRate ε K n * Mat.mulVec A (piter A k) i)
        = ε * ε * Mat.mulVec A (piter A k) i := by
      unfold contractRate; have := hD; grind
    rw [e]; exact key
  obtain ⟨j0, hj0⟩ := exists_minRatio_eq hn (Mat.mulVec A (piter A k)) hp
  have hc := mulVec_mulVec_le_contract hA0 hp (lo_mul_le hn hε hA k) (le_hi_mul hn hε hA k)
    hj0 hw
  apply maxRatio_le hn (piter_pos hn hε hA (k + 1))
  intro i
  apply cancel_left (lo_pos hn hε hA k)
  have e : (fun j => lo A k * piter A (k + 1) j) = Mat.mulVec A (piter A k) :=
    funext (fun j => (mulVec_piter hn hε hA k j).symm)
  rw [← mulVec_smul, e]
  have h := hc i
  rw [mulVec_piter hn hε hA k i] at h
  grind

end Iter

end PLGA.Perron
