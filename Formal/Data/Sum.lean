module

/-!
# Finite sums over `Fin n`

A small, self-contained replacement for mathlib's `Finset.sum` over `Fin n`, stated over Lean
core's algebra classes (`Lean.Grind.Semiring`, `Lean.Grind.CommRing`, ordered rings) so that any
type with those instances — mathlib's `ℝ` included — can use every lemma unchanged.

## Main definitions

* `fsum n f = f 0 + f 1 + ⋯ + f (n-1)`: defined by structural recursion on `n` (peeling off the
  last index), so that proofs go by `induction n`.

## Main statements

* `fsum_zero`, `fsum_succ`, `fsum_congr`: unfolding and congruence;
* `fsum_add`, `fsum_neg`, `fsum_sub`, `fsum_mul_left`, `fsum_mul_right`: linearity;
* `fsum_comm`: exchange of the order of a double sum;
* `fsum_single`, `fsum_const_zero`, `fsum_const`: one nonzero term; constant sums
  `∑_{i<n} c = n · c`;
* `fsum_nonneg`, `fsum_le_fsum`, `le_fsum_of_nonneg`: order.

## Implementation notes

No paper result is formalized here; this is infrastructure (the `Cedar/Data` of this project),
shared by every part of the library. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` uses mathlib's `Finset.sum` instead.

## References

* none in the paper; `../shared/spec/PLGA_SPEC.md` §A.4 is where the sums occur.
-/

@[expose] public section

namespace PLGA

/-- `fsum n f = ∑_{i < n} f i`, by recursion peeling off the last index. -/
noncomputable def fsum {α : Type u} [Add α] [OfNat α 0] : (n : Nat) → (Fin n → α) → α
  | 0, _ => 0
  | n + 1, f => fsum n (fun i => f i.castSucc) + f (Fin.last n)

section Semiring
variable {α : Type u} [Lean.Grind.Semiring α]

@[simp] theorem fsum_zero (f : Fin 0 → α) : fsum 0 f = 0 := rfl

theorem fsum_succ (n : Nat) (f : Fin (n + 1) → α) :
    fsum (n + 1) f = fsum n (fun i => f i.castSucc) + f (Fin.last n) := rfl

theorem fsum_const_zero (n : Nat) : fsum n (fun _ : Fin n => (0 : α)) = 0 := by
  induction n with
  | zero => rfl
  | succ n ih => rw [fsum_succ, ih]; grind

theorem fsum_add (n : Nat) (f g : Fin n → α) :
    fsum n (fun i => f i + g i) = fsum n f + fsum n g := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih =>
    rw [fsum_succ, fsum_succ, fsum_succ, ih (fun i => f i.castSucc) (fun i => g i.castSucc)]
    grind

theorem fsum_mul_left (n : Nat) (c : α) (f : Fin n → α) :
    fsum n (fun i => c * f i) = c * fsum n f := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih => rw [fsum_succ, fsum_succ, ih (fun i => f i.castSucc)]; grind

theorem fsum_mul_right (n : Nat) (c : α) (f : Fin n → α) :
    fsum n (fun i => f i * c) = fsum n f * c := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih => rw [fsum_succ, fsum_succ, ih (fun i => f i.castSucc)]; grind

theorem fsum_congr (n : Nat) {f g : Fin n → α} (h : ∀ i, f i = g i) : fsum n f = fsum n g := by
  have : f = g := funext h
  rw [this]

/-- Exchange of the order of a double finite sum. -/
theorem fsum_comm (m n : Nat) (f : Fin m → Fin n → α) :
    fsum m (fun i => fsum n (fun j => f i j)) = fsum n (fun j => fsum m (fun i => f i j)) := by
  induction m with
  | zero => simp only [fsum_zero]; exact (fsum_const_zero n).symm
  | succ m ih =>
    rw [fsum_succ, ih (fun i j => f i.castSucc j)]
    rw [← fsum_add]
    rfl

/-- A sum with exactly one (possibly) nonzero term. -/
theorem fsum_single (n : Nat) (k : Fin n) (f : Fin n → α) (h : ∀ i, i ≠ k → f i = 0) :
    fsum n f = f k := by
  induction n with
  | zero => exact k.elim0
  | succ n ih =>
    rw [fsum_succ]
    by_cases hk : k = Fin.last n
    · subst hk
      have : fsum n (fun i => f i.castSucc) = 0 := by
        rw [fsum_congr n (g := fun _ => (0 : α))]
        · exact fsum_const_zero n
        · intro i; apply h; exact Fin.ne_of_lt (Fin.castSucc_lt_last i)
      rw [this]; grind
    · have hlt : k.val < n := by
        have := k.isLt
        have : k.val ≠ n := fun e => hk (Fin.ext e)
        omega
      have := ih ⟨k.val, hlt⟩ (fun i => f i.castSucc) (by
        intro i hi; apply h; intro e; apply hi; apply Fin.ext
        have := congrArg Fin.val e; simpa using this)
      rw [this, h (Fin.last n) (fun e => hk e.symm)]
      have hk' : (⟨k.val, hlt⟩ : Fin n).castSucc = k := Fin.ext rfl
      show f (⟨k.val, hlt⟩ : Fin n).castSucc + 0 = f k
      rw [hk']; grind

section NatCast
/- Core's `Lean.Grind.Semiring` carries `NatCast` as a field that is not a global instance;
make it available here (for mathlib's `ℝ` it is the usual cast). -/
attribute [local instance] Lean.Grind.Semiring.natCast

/-- A constant sum: `∑_{i<n} c = n · c`. -/
theorem fsum_const (n : Nat) (c : α) : fsum n (fun _ : Fin n => c) = (Nat.cast n : α) * c := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih => rw [fsum_succ, ih, Lean.Grind.Semiring.natCast_succ]; grind

end NatCast

end Semiring

section Ring
variable {α : Type u} [Lean.Grind.Ring α]

theorem fsum_neg (n : Nat) (f : Fin n → α) : fsum n (fun i => -f i) = -fsum n f := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih => rw [fsum_succ, fsum_succ, ih (fun i => f i.castSucc)]; grind

theorem fsum_sub (n : Nat) (f g : Fin n → α) :
    fsum n (fun i => f i - g i) = fsum n f - fsum n g := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih =>
    rw [fsum_succ, fsum_succ, fsum_succ, ih (fun i => f i.castSucc) (fun i => g i.castSucc)]
    grind

end Ring

section Ordered
variable {α : Type u} [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- A sum of nonnegative terms is nonnegative. -/
theorem fsum_nonneg (n : Nat) (f : Fin n → α) (h : ∀ i, 0 ≤ f i) : 0 ≤ fsum n f := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih =>
    rw [fsum_succ]
    have h1 := ih (fun i => f i.castSucc) (fun i => h _)
    have h2 := h (Fin.last n)
    grind

/-- Termwise comparison of finite sums. -/
theorem fsum_le_fsum (n : Nat) (f g : Fin n → α) (h : ∀ i, f i ≤ g i) : fsum n f ≤ fsum n g := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih =>
    rw [fsum_succ, fsum_succ]
    have h1 := ih (fun i => f i.castSucc) (fun i => g i.castSucc) (fun i => h _)
    have h2 := h (Fin.last n)
    grind

/-- A single nonnegative term is bounded by the sum of nonnegative terms. -/
theorem le_fsum_of_nonneg (n : Nat) (f : Fin n → α) (h : ∀ i, 0 ≤ f i) (k : Fin n) :
    f k ≤ fsum n f := by
  induction n with
  | zero => exact k.elim0
  | succ n ih =>
    rw [fsum_succ]
    have hrest := fsum_nonneg n (fun i => f i.castSucc) (fun i => h _)
    by_cases hk : k = Fin.last n
    · subst hk; grind
    · have hlt : k.val < n := by
        have := k.isLt
        have : k.val ≠ n := fun e => hk (Fin.ext e)
        omega
      have h1 := ih (fun i => f i.castSucc) (fun i => h _) ⟨k.val, hlt⟩
      have : (⟨k.val, hlt⟩ : Fin n).castSucc = k := Fin.ext rfl
      rw [this] at h1
      have := h (Fin.last n)
      grind

end Ordered

end PLGA
