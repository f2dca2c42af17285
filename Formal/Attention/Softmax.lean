module

public import Formal.Analytic
public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# The ideal masked softmax (Prop 5.2, Prop 5.2(iii), row level)

A softmax row over `n` keys with a mask `allowed : Fin n → Bool` (true = the key may be
attended): `maskedSoftmax E allowed x i = if allowed i then exp (x i) / Z else 0`, with
`Z = Σ_{allowed j} exp (x j)`. Over any ordered field the weights are positive on the allowed
set, zero off it, sum to `1`, are shift invariant, and **two rows are equal iff the allowed
scores differ by one common constant**. The unmasked softmax is the case
`allowed = fun _ => true`.

## Main definitions

* `maskedDenom E allowed x`: the partition function `Z = Σ_{allowed j} exp (x j)`;
* `maskedSoftmax E allowed x`: the ideal masked softmax row (`exp (x i) / Z` or exactly `0`);
* `softmax E x`: the plain softmax (every key allowed).

## Main statements

* `maskedSoftmax_eq_zero`, `maskedSoftmax_of_none`: masked keys get weight exactly `0`; a row
  with no allowed key is identically `0`;
* `maskedDenom_pos`, `maskedSoftmax_pos`, `maskedSoftmax_nonneg`: the denominator is positive
  when some key is allowed; weights are positive on the allowed set and nonnegative (Prop 5.2);
* `maskedSoftmax_sum_one`: the weights of a row with an allowed key sum to `1` (Prop 5.2);
* `maskedSoftmax_congr`: the weights depend only on the allowed scores;
* `maskedSoftmax_shift`: invariance under a common shift (Prop 5.2(iii));
* `maskedSoftmax_eq_iff_shift`: two rows with the same mask are equal iff the allowed scores
  differ by one common constant, both directions (Prop 5.2(iii));
* `maskedSoftmax_avg_le`, `maskedSoftmax_avg_ge`: a weighted average stays between a lower and an
  upper bound of the allowed values (the convex-hull bound, Prop 3.12(ii));
* `softmax_pos`, `softmax_sum_one`, `softmax_shift`, `softmax_eq_iff_shift`, `softmax_avg_le`,
  `softmax_avg_ge`: the unmasked forms.

## Implementation notes

This is the ideal (`-∞`) masked softmax: masked entries are exactly `0` (the model adds `-1e9`,
so there they vanish only through underflow — `../shared/spec/PLGA_SPEC.md` §G.10). `exp` is
any `ExpFn` (a positive homomorphism `(α,+) → (α,*)`), `log` an `ExpLog` where injectivity is
needed (the `⇒` direction of the iff); no axiom. With no allowed key both rows are `0` and the
iff holds vacuously, so no nonemptiness hypothesis is needed.

Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations` (`Softmax.lean`,
over `ℝ` with `Real.exp`): `softmax_pos`, `softmax_sum_one` (there with `[NeZero n]`),
`softmax_shift`, `softmax_avg_le`, `softmax_eq_iff_shift`, `maskedSoftmax_*` (including
`maskedSoftmax_denom_pos`). Not covered here: the finite `-1e9` mask, floating point,
temperature sampling.

## References

* Prop 5.2, Prop 5.2(iii) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (attention), §G.10 (the `-1e9` mask).
-/

@[expose] public section

namespace PLGA.Attention

variable {α : Type u} [Lean.Grind.Field α] [LT α]

/-- The partition function of a masked softmax row: `Z = Σ_{j allowed} exp (x j)`. -/
noncomputable def maskedDenom (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α) : α :=
  fsum n (fun j => if allowed j then E.exp (x j) else 0)

/-- The ideal masked softmax of a score row `x`: `exp (x i) / Z` on allowed keys, exactly `0`
on masked keys. -/
noncomputable def maskedSoftmax (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α) :
    Vec n α :=
  fun i => if allowed i then E.exp (x i) / maskedDenom E allowed x else 0

/-- The plain (unmasked) softmax: every key allowed. -/
noncomputable def softmax (E : ExpFn α) {n : Nat} (x : Vec n α) : Vec n α :=
  maskedSoftmax E (fun _ => true) x

/-! ## Field-level facts (no order needed) -/

/-- A masked key gets weight exactly `0` (Prop 5.2, softmax row; authors:
`maskedSoftmax_eq_zero`). Does not cover: the finite `-1e9` additive mask of the code. -/
theorem maskedSoftmax_eq_zero (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    {i : Fin n} (hi : allowed i = false) : maskedSoftmax E allowed x i = 0 := by
  simp [maskedSoftmax, hi]

/-- A masked softmax weight as (masked numerator) times `Z⁻¹` (structural). -/
theorem maskedSoftmax_eq_mul_inv (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    (i : Fin n) : maskedSoftmax E allowed x i
      = (if allowed i then E.exp (x i) else 0) * (maskedDenom E allowed x)⁻¹ := by
  simp only [maskedSoftmax]
  cases allowed i
  · simp only [Bool.false_eq_true, if_false]; grind
  · simp only [if_true]; rw [Lean.Grind.Field.div_eq_mul_inv]

/-- A row with no allowed key is identically `0`. -/
theorem maskedSoftmax_of_none (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    (hnone : ¬ ∃ j, allowed j = true) : maskedSoftmax E allowed x = fun _ => 0 := by
  funext i
  have : allowed i = false := by
    cases h : allowed i
    · rfl
    · exact absurd ⟨i, h⟩ hnone
  exact maskedSoftmax_eq_zero E allowed x this

/-- The masked softmax depends only on the allowed scores. Does not cover: anything about
masked scores (they are ignored). -/
theorem maskedSoftmax_congr (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) {x y : Vec n α}
    (h : ∀ i, allowed i = true → x i = y i) :
    maskedSoftmax E allowed x = maskedSoftmax E allowed y := by
  have hZ : maskedDenom E allowed x = maskedDenom E allowed y := by
    apply fsum_congr; intro j
    cases hj : allowed j
    · rfl
    · simp only [if_true]; rw [h j hj]
  funext i
  simp only [maskedSoftmax, hZ]
  cases hi : allowed i
  · rfl
  · simp only [if_true]; rw [h i hi]

section Ordered
variable [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-! ## The denominator -/

/-- The masked partition function is nonnegative. -/
theorem maskedDenom_nonneg (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α) :
    0 ≤ maskedDenom E allowed x := by
  apply fsum_nonneg
  intro j
  cases allowed j
  · exact Std.le_refl (0 : α)
  · exact Std.le_of_lt (E.exp_pos _)

/-- The masked partition function is positive as soon as one key is allowed
(authors: `maskedSoftmax_denom_pos`). Does not cover: the fully masked row, where `Z = 0`. -/
theorem maskedDenom_pos (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    (hne : ∃ j, allowed j = true) : 0 < maskedDenom E allowed x := by
  obtain ⟨j, hj⟩ := hne
  have h1 := le_fsum_of_nonneg n (fun j => if allowed j then E.exp (x j) else 0) (by
    intro k; dsimp only; cases allowed k
    · exact Std.le_refl (0 : α)
    · exact Std.le_of_lt (E.exp_pos _)) j
  simp only [hj, if_true] at h1
  exact Std.lt_of_lt_of_le (E.exp_pos (x j)) h1

/-! ## Positivity and normalization -/

/-- Prop 5.2 (softmax row): an allowed key gets a strictly positive weight (authors:
`maskedSoftmax_pos`). Does not cover: lower bounds on the weight. -/
theorem maskedSoftmax_pos (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    {i : Fin n} (hi : allowed i = true) : 0 < maskedSoftmax E allowed x i := by
  simp only [maskedSoftmax, hi, if_true]
  exact div_pos (E.exp_pos _) (maskedDenom_pos E allowed x ⟨i, hi⟩)

/-- Every masked softmax weight is nonnegative (authors: `maskedSoftmax_nonneg`). Does not
cover: strict positivity (see `maskedSoftmax_pos`). -/
theorem maskedSoftmax_nonneg (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    (i : Fin n) : 0 ≤ maskedSoftmax E allowed x i := by
  cases hi : allowed i
  · rw [maskedSoftmax_eq_zero E allowed x hi]; exact Std.le_refl (0 : α)
  · exact Std.le_of_lt (maskedSoftmax_pos E allowed x hi)

/-- Prop 5.2 (softmax row): the weights of a row with at least one allowed key sum to `1`
(authors: `maskedSoftmax_sum_one`). Does not cover: the fully masked row (all weights `0`). -/
theorem maskedSoftmax_sum_one (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α)
    (hne : ∃ j, allowed j = true) : fsum n (maskedSoftmax E allowed x) = 1 := by
  have hZ := ne_of_pos (maskedDenom_pos E allowed x hne)
  rw [fsum_congr n (maskedSoftmax_eq_mul_inv E allowed x), fsum_mul_right]
  exact Lean.Grind.Field.mul_inv_cancel hZ

/-! ## Shifts -/

/-- Prop 5.2(iii), shift invariance: adding one constant to every score of a row does not
change its masked softmax (authors: `maskedSoftmax_shift`). Does not cover: per-key shifts. -/
theorem maskedSoftmax_shift (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x : Vec n α) (c : α) :
    maskedSoftmax E allowed (fun i => x i + c) = maskedSoftmax E allowed x := by
  have hc := ne_of_pos (E.exp_pos c)
  have hZ : maskedDenom E allowed (fun i => x i + c) = maskedDenom E allowed x * E.exp c := by
    simp only [maskedDenom]
    rw [← fsum_mul_right]
    apply fsum_congr; intro j
    cases allowed j
    · simp only [Bool.false_eq_true, if_false]; grind
    · simp only [if_true]; rw [E.exp_add]
  funext i
  simp only [maskedSoftmax]
  rw [hZ]
  cases allowed i
  · rfl
  · simp only [if_true]; rw [E.exp_add]; grind

/-- Prop 5.2(iii), row level (authors: `maskedSoftmax_eq_iff_shift`): two masked softmax rows
with the same mask are equal **iff** the allowed scores differ by one common constant. Needs a
logarithm (`ExpLog`) for `⇒`. Holds also for a fully masked row (both sides true), so no
nonemptiness hypothesis. Does not cover: rows with different masks. -/
theorem maskedSoftmax_eq_iff_shift (L : ExpLog α) {n : Nat} (allowed : Fin n → Bool)
    (x y : Vec n α) :
    maskedSoftmax L.toExpFn allowed x = maskedSoftmax L.toExpFn allowed y
      ↔ ∃ c, ∀ i, allowed i = true → y i = x i + c := by
  constructor
  · intro h
    by_cases hne : ∃ j, allowed j = true
    · have hZx := maskedDenom_pos L.toExpFn allowed x hne
      have hZy := maskedDenom_pos L.toExpFn allowed y hne
      have hq := div_pos hZy hZx
      refine ⟨L.log (maskedDenom L.toExpFn allowed y / maskedDenom L.toExpFn allowed x), ?_⟩
      intro i hi
      have hi' := congrFun h i
      simp only [maskedSoftmax, hi, if_true] at hi'
      have hx0 := ne_of_pos hZx
      have hy0 := ne_of_pos hZy
      have hexp : L.exp (y i) = L.exp (x i + L.log (maskedDenom L.toExpFn allowed y
          / maskedDenom L.toExpFn allowed x)) := by
        rw [L.exp_add, L.exp_log _ hq]
        grind
      have := congrArg L.log hexp
      rw [L.log_exp, L.log_exp] at this
      exact this
    · exact ⟨0, fun i hi => absurd ⟨i, hi⟩ hne⟩
  · rintro ⟨c, hc⟩
    rw [← maskedSoftmax_shift L.toExpFn allowed x c]
    apply maskedSoftmax_congr
    intro i hi
    exact (hc i hi).symm

/-- A softmax-weighted average of values bounded by `M` on the allowed keys is at most `M`
(authors: `softmax_avg_le`), for a row with an allowed key. Does not cover: lower bounds. -/
theorem maskedSoftmax_avg_le (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x v : Vec n α)
    (M : α) (hne : ∃ j, allowed j = true) (hv : ∀ i, allowed i = true → v i ≤ M) :
    fsum n (fun i => maskedSoftmax E allowed x i * v i) ≤ M := by
  have h1 : fsum n (fun i => maskedSoftmax E allowed x i * v i)
      ≤ fsum n (fun i => maskedSoftmax E allowed x i * M) := by
    apply fsum_le_fsum; intro i
    cases hi : allowed i
    · rw [maskedSoftmax_eq_zero E allowed x hi]; grind
    · exact Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hv i hi)
        (maskedSoftmax_nonneg E allowed x i)
  rw [fsum_mul_right, maskedSoftmax_sum_one E allowed x hne] at h1
  grind

/-- Prop 5.2 / Prop 3.12(ii), lower half of the convex-hull bound: a softmax-weighted average of
values bounded below by `m` on the allowed keys is at least `m`, for a row with an allowed key.
With `maskedSoftmax_avg_le` the output lies in `[min v, max v]` over the allowed keys. Does not
cover: vector-valued hulls beyond coordinatewise bounds. -/
theorem maskedSoftmax_avg_ge (E : ExpFn α) {n : Nat} (allowed : Fin n → Bool) (x v : Vec n α)
    (m : α) (hne : ∃ j, allowed j = true) (hv : ∀ i, allowed i = true → m ≤ v i) :
    m ≤ fsum n (fun i => maskedSoftmax E allowed x i * v i) := by
  have h1 : fsum n (fun i => maskedSoftmax E allowed x i * m)
      ≤ fsum n (fun i => maskedSoftmax E allowed x i * v i) := by
    apply fsum_le_fsum; intro i
    cases hi : allowed i
    · rw [maskedSoftmax_eq_zero E allowed x hi]; grind
    · exact Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hv i hi)
        (maskedSoftmax_nonneg E allowed x i)
  rw [fsum_mul_right, maskedSoftmax_sum_one E allowed x hne] at h1
  grind

/-! ## The unmasked softmax -/

/-- Softmax positivity (authors: `softmax_pos`). Does not cover: masked rows (see
`maskedSoftmax_pos`). -/
theorem softmax_pos (E : ExpFn α) {n : Nat} (x : Vec n α) (i : Fin n) : 0 < softmax E x i :=
  maskedSoftmax_pos E _ x rfl

/-- Softmax normalization (authors: `softmax_sum_one`, there with `[NeZero n]`; here any key
`i` witnesses `n ≠ 0`). Does not cover: `n = 0`. -/
theorem softmax_sum_one (E : ExpFn α) {n : Nat} (x : Vec n α) (i : Fin n) :
    fsum n (softmax E x) = 1 :=
  maskedSoftmax_sum_one E _ x ⟨i, rfl⟩

/-- Softmax shift invariance (authors: `softmax_shift`). Does not cover: per-key shifts. -/
theorem softmax_shift (E : ExpFn α) {n : Nat} (x : Vec n α) (c : α) :
    softmax E (fun i => x i + c) = softmax E x :=
  maskedSoftmax_shift E _ x c

/-- Prop 5.2(iii) for the unmasked softmax (authors: `softmax_eq_iff_shift`): equal rows iff a
common shift. Does not cover: masked rows (see `maskedSoftmax_eq_iff_shift`). -/
theorem softmax_eq_iff_shift (L : ExpLog α) {n : Nat} (x y : Vec n α) :
    softmax L.toExpFn x = softmax L.toExpFn y ↔ ∃ c, ∀ i, y i = x i + c := by
  unfold softmax
  rw [maskedSoftmax_eq_iff_shift]
  constructor
  · rintro ⟨c, hc⟩; exact ⟨c, fun i => hc i rfl⟩
  · rintro ⟨c, hc⟩; exact ⟨c, fun i _ => hc i⟩

/-- Softmax average below the largest value (authors' `softmax_avg_le`, there with `[NeZero n]`;
here `0 < n`). Does not cover: masked rows (see `maskedSoftmax_avg_le`). -/
theorem softmax_avg_le (E : ExpFn α) {n : Nat} (x v : Vec n α) (M : α) (hn : 0 < n)
    (hv : ∀ i, v i ≤ M) : fsum n (fun i => softmax E x i * v i) ≤ M :=
  maskedSoftmax_avg_le E _ x v M ⟨⟨0, hn⟩, rfl⟩ (fun i _ => hv i)

/-- Softmax average above the smallest value (the lower half of the convex-hull bound). Does not
cover: masked rows (see `maskedSoftmax_avg_ge`). -/
theorem softmax_avg_ge (E : ExpFn α) {n : Nat} (x v : Vec n α) (m : α) (hn : 0 < n)
    (hv : ∀ i, m ≤ v i) : m ≤ fsum n (fun i => softmax E x i * v i) :=
  maskedSoftmax_avg_ge E _ x v m ⟨⟨0, hn⟩, rfl⟩ (fun i _ => hv i)

end Ordered

end PLGA.Attention
