module

public import Formal.Perron.Dominance
public import Formal.Analytic

/-!
# Perron–Frobenius V: dominance over complex eigenvalues (Thm 3.8, step 6, complex part)

For `A ≥ ε > 0` with a positive eigenpair `(r, v)`, every complex eigenvalue `λ` satisfies
`|λ| ≤ r`, lies in the disc of centre `ε` and radius `r − ε`, and `|λ|² = r²` only for `λ = r`.

## Main definitions

* `cmod p q`: the complex modulus `|p + i q| = sqrt(p² + q²)`.

## Main statements

* `cmod_nonneg`, `cmod_mul`, `cmod_add_le`, `cmod_fsum_le`: the laws of `cmod` (general
  helpers; multiplicativity, triangle inequality);
* `cmod_eigenvalue_le_of_nonneg`: `|λ| ≤ r` (any nonnegative `A`);
* `complex_eigenvalue_shifted_bound`: `|λ − ε|² ≤ (r − ε)²`, i.e. the spectrum lies in the
  disc of centre `ε` and radius `r − ε`;
* `complex_eigenvalue_dominated`: `|λ|² ≤ r²`, with equality only for `λ = r`
  (`a = r`, `b = 0`).

## Implementation notes

A complex eigenpair of a real matrix `A` is handled as real data: `λ = a + i b` and an
eigenvector `x + i y` (`x y : Vec n α`, not both zero), i.e. `A x = a x − b y` and
`A y = b x + a y`. The modulus uses a square root supplied as a `SqrtFn` hypothesis
(`Formal/Analytic.lean`; `Real.sqrt` satisfies it), never an axiom. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered: eigenvalues over field
extensions other than `α × α`; multiplicities of the dominated eigenvalues.

## References

* Thm 3.8 (step 6) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-! ## Squares and square roots (general helpers) -/

/-- `a² ≤ b²` with `b ≥ 0` gives `a ≤ b`. -/
theorem le_of_mul_self_le {a b : α} (hb : 0 ≤ b) (h : a * a ≤ b * b) : a ≤ b := by
  apply Classical.byContradiction; intro hne
  have hlt : b < a := by grind
  have ha : 0 < a := Std.lt_of_le_of_lt hb hlt
  have h1 := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_left hlt ha
  have h2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (Std.le_of_lt hlt) hb
  grind

/-- `0 ≤ a ≤ b` gives `a² ≤ b²`. -/
theorem mul_self_le_mul_self {a b : α} (ha : 0 ≤ a) (h : a ≤ b) : a * a ≤ b * b := by
  have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h ha
  have h2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right h (Std.le_trans ha h)
  exact Std.le_trans h1 h2

/-- The square root is the unique nonnegative root: `s ≥ 0`, `s² = X` give `sqrt X = s`. -/
theorem sqrt_eq_of (S : SqrtFn α) {X s : α} (hs : 0 ≤ s) (h : s * s = X) : S.sqrt X = s := by
  have hX : 0 ≤ X := by rw [← h]; exact mul_self_nonneg s
  have h1 := S.mul_self_sqrt X hX
  have h2 := S.sqrt_nonneg X
  apply Std.le_antisymm
  · exact le_of_mul_self_le hs (by rw [h1, h]; exact Std.le_refl _)
  · exact le_of_mul_self_le h2 (by rw [h1, h]; exact Std.le_refl _)

/-- `X ≤ b²` with `b ≥ 0` gives `sqrt X ≤ b`. -/
theorem sqrt_le_of (S : SqrtFn α) {X b : α} (hX : 0 ≤ X) (hb : 0 ≤ b) (h : X ≤ b * b) :
    S.sqrt X ≤ b :=
  le_of_mul_self_le hb (by rw [S.mul_self_sqrt X hX]; exact h)

/-! ## The complex modulus on `α × α` (general helpers) -/

/-- `|p + i q| = sqrt (p² + q²)`. -/
def cmod (S : SqrtFn α) (p q : α) : α := S.sqrt (p * p + q * q)

/-- `p² + q² ≥ 0`. -/
theorem sumsq_nonneg (p q : α) : 0 ≤ p * p + q * q := by
  have := mul_self_nonneg p; have := mul_self_nonneg q; grind

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|z| ≥ 0`. -/
theorem cmod_nonneg (S : SqrtFn α) (p q : α) : 0 ≤ cmod S p q := S.sqrt_nonneg _

/-- `|p + i q|² = p² + q²`. -/
theorem cmod_mul_self (S : SqrtFn α) (p q : α) : cmod S p q * cmod S p q = p * p + q * q :=
  S.mul_self_sqrt _ (sumsq_nonneg p q)

/-- A nonzero complex number has nonzero modulus. -/
theorem cmod_ne_zero (S : SqrtFn α) {p q : α} (h : p ≠ 0 ∨ q ≠ 0) : cmod S p q ≠ 0 := by
  intro h0
  have e := cmod_mul_self S p q
  rw [h0] at e
  rcases h with h | h
  · have := mul_self_pos h; have := mul_self_nonneg q; grind
  · have := mul_self_pos h; have := mul_self_nonneg p; grind

/-- `|c z| = c |z|` for `c ≥ 0`. -/
theorem cmod_smul (S : SqrtFn α) {c : α} (hc : 0 ≤ c) (p q : α) :
    cmod S (c * p) (c * q) = c * cmod S p q := by
  apply sqrt_eq_of S (Lean.Grind.OrderedRing.mul_nonneg hc (cmod_nonneg S p q))
  have := cmod_mul_self S p q
  have e : c * cmod S p q * (c * cmod S p q) = c * c * (cmod S p q * cmod S p q) := by grind
  rw [e, this]; grind

/-- Multiplicativity: `|λ z| = |λ| |z|` for `λ = a + i b`, `z = p + i q`. -/
theorem cmod_mul (S : SqrtFn α) (a b p q : α) :
    cmod S (a * p - b * q) (b * p + a * q) = cmod S a b * cmod S p q := by
  apply sqrt_eq_of S (Lean.Grind.OrderedRing.mul_nonneg (cmod_nonneg S a b) (cmod_nonneg S p q))
  have h1 := cmod_mul_self S a b
  have h2 := cmod_mul_self S p q
  have e : cmod S a b * cmod S p q * (cmod S a b * cmod S p q)
      = (cmod S a b * cmod S a b) * (cmod S p q * cmod S p q) := by grind
  rw [e, h1, h2]; grind

/-- Triangle inequality for the complex modulus. -/
theorem cmod_add_le (S : SqrtFn α) (p q p' q' : α) :
    cmod S (p + p') (q + q') ≤ cmod S p q + cmod S p' q' := by
  have hs := cmod_nonneg S p q
  have ht := cmod_nonneg S p' q'
  have hss := cmod_mul_self S p q
  have htt := cmod_mul_self S p' q'
  -- Cauchy–Schwarz: `p p' + q q' ≤ |z| |z'|`
  have hcs : p * p' + q * q' ≤ cmod S p q * cmod S p' q' := by
    apply le_of_mul_self_le (Lean.Grind.OrderedRing.mul_nonneg hs ht)
    have e : cmod S p q * cmod S p' q' * (cmod S p q * cmod S p' q')
        = (cmod S p q * cmod S p q) * (cmod S p' q' * cmod S p' q') := by grind
    rw [e, hss, htt]
    have := mul_self_nonneg (p * q' - q * p')
    grind
  apply sqrt_le_of S (sumsq_nonneg _ _) (by grind)
  grind

/-- `|0| = 0`. -/
theorem cmod_zero (S : SqrtFn α) : cmod S 0 0 = 0 :=
  sqrt_eq_of S (Std.le_refl _) (by grind)

/-- Triangle inequality for nonnegative combinations:
`|∑ c_j z_j| ≤ ∑ c_j |z_j|` for `c ≥ 0`. -/
theorem cmod_fsum_le (S : SqrtFn α) : ∀ (n : Nat) (c p q : Fin n → α), (∀ j, 0 ≤ c j) →
    cmod S (fsum n (fun j => c j * p j)) (fsum n (fun j => c j * q j))
      ≤ fsum n (fun j => c j * cmod S (p j) (q j)) := by
  intro n
  induction n with
  | zero => intro c p q _; simp only [fsum_zero]; rw [cmod_zero]; exact Std.le_refl _
  | succ n ih =>
    intro c p q hc
    rw [fsum_succ, fsum_succ, fsum_succ]
    have h1 := cmod_add_le S (fsum n (fun j => c j.castSucc * p j.castSucc))
      (fsum n (fun j => c j.castSucc * q j.castSucc))
      (c (Fin.last n) * p (Fin.last n)) (c (Fin.last n) * q (Fin.last n))
    rw [cmod_smul S (hc _)] at h1
    have h2 := ih (fun j => c j.castSucc) (fun j => p j.castSucc) (fun j => q j.castSucc)
      (fun j => hc _)
    exact Std.le_trans h1 (Lean.Grind.OrderedAdd.add_le_add h2 (Std.le_refl _))

/-! ## Dominance over complex eigenvalues -/

/-- Thm 3.8, step 6 (complex, weak form for any `A ≥ 0`): for a positive eigenpair `(r, v)`
and a complex eigenpair `A (x + i y) = (a + i b)(x + i y)`, `x + i y ≠ 0`, the modulus
satisfies `|a + i b| ≤ r`. Does not cover: strictness (needs `A > 0`). -/
theorem cmod_eigenvalue_le_of_nonneg (S : SqrtFn α) {n : Nat} {A : Mat n n α}
    (hA : ∀ i j, 0 ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {a b : α} {x y : Vec n α} {k : Fin n}
    (hk : x k ≠ 0 ∨ y k ≠ 0) (hAx : ∀ i, Mat.mulVec A x i = a * x i - b * y i)
    (hAy : ∀ i, Mat.mulVec A y i = b * x i + a * y i) : cmod S a b ≤ r := by
  apply collatz_lower hA hv hAv (w := fun j => cmod S (x j) (y j)) (fun j => cmod_nonneg S _ _)
    (k := k) (cmod_ne_zero S hk)
  intro i
  have h := cmod_fsum_le S n (fun j => A i j) x y (fun j => hA i j)
  have e1 : fsum n (fun j => A i j * x j) = Mat.mulVec A x i := rfl
  have e2 : fsum n (fun j => A i j * y j) = Mat.mulVec A y i := rfl
  rw [e1, e2, hAx i, hAy i, cmod_mul] at h
  exact h

/-- Thm 3.8, step 6 (complex, quantitative): for `A ≥ ε > 0` with positive eigenpair `(r, v)`,
every complex eigenvalue `a + i b` satisfies `(a − ε)² + b² ≤ (r − ε)²`: the spectrum lies in
the disc with centre `ε` and radius `r − ε`, which meets the circle `|λ| = r` only at `r`.
Does not cover: a bound for the second-largest modulus (spectral gap). -/
theorem complex_eigenvalue_shifted_bound (S : SqrtFn α) {n : Nat} {A : Mat n n α} {ε : α}
    (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {a b : α} {x y : Vec n α} {k : Fin n}
    (hk : x k ≠ 0 ∨ y k ≠ 0) (hAx : ∀ i, Mat.mulVec A x i = a * x i - b * y i)
    (hAy : ∀ i, Mat.mulVec A y i = b * x i + a * y i) :
    (a - ε) * (a - ε) + b * b ≤ (r - ε) * (r - ε) := by
  have h := cmod_eigenvalue_le_of_nonneg S (shiftMat_nonneg hε hA) hv (r := r - ε)
    (fun i => by rw [mulVec_shiftMat, hAv i]; grind) (a := a - ε) (b := b) hk
    (fun i => by rw [mulVec_shiftMat, hAx i]; grind)
    (fun i => by rw [mulVec_shiftMat, hAy i]; grind)
  have h2 := mul_self_le_mul_self (cmod_nonneg S _ _) h
  rw [cmod_mul_self] at h2
  exact h2

/-- Thm 3.8, step 6 (complex eigenvalues): for `A ≥ ε > 0` with positive eigenpair `(r, v)`,
every complex eigenvalue `λ = a + i b` has `|λ|² ≤ r²`, with equality only for `λ = r`.
Does not cover: multiplicities of eigenvalues other than `r`. -/
theorem complex_eigenvalue_dominated (S : SqrtFn α) {n : Nat} {A : Mat n n α} {ε : α}
    (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {a b : α} {x y : Vec n α} {k : Fin n}
    (hk : x k ≠ 0 ∨ y k ≠ 0) (hAx : ∀ i, Mat.mulVec A x i = a * x i - b * y i)
    (hAy : ∀ i, Mat.mulVec A y i = b * x i + a * y i) :
    a * a + b * b ≤ r * r ∧ (a * a + b * b = r * r → a = r ∧ b = 0) := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have h1 := cmod_eigenvalue_le_of_nonneg S hA0 hv hAv hk hAx hAy
  have h2 := mul_self_le_mul_self (cmod_nonneg S _ _) h1
  rw [cmod_mul_self] at h2
  refine ⟨h2, fun heq => ?_⟩
  have hr : 0 ≤ r := Std.le_trans (cmod_nonneg S a b) h1
  have h3 := complex_eigenvalue_shifted_bound S hε hA hv hAv hk hAx hAy
  have hbb := mul_self_nonneg b
  have har : a ≤ r := le_of_mul_self_le hr (by grind)
  have hra : r ≤ a := by
    apply Classical.byContradiction; intro hne
    have := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_left (show a < r by grind) hε
    grind
  have hareq : a = r := Std.le_antisymm har hra
  refine ⟨hareq, ?_⟩
  apply Classical.byContradiction; intro hb
  have := mul_self_pos hb
  subst hareq
  grind

end PLGA.Perron
