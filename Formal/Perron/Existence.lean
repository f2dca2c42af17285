module

public import Formal.Perron.Iteration
public import Formal.Perron.Completeness
public import Formal.Perron.Uniqueness

/-!
# Perron–Frobenius VIII: existence of the Perron pair (Thm 3.8, step 8)

Under the completeness hypothesis `SupComplete α` (least upper bounds; `ℝ` satisfies it), for
`A ≥ ε > 0` entrywise (`n > 0`): the Collatz–Wielandt ratio sequences of the normalized power
iteration meet, the iterates converge to a positive eigenvector, and right and left Perron
vectors exist with one common Perron root `r > 0`.

## Main definitions

* `entrySum A`: the sum of all entries (an entry bound for nonnegative matrices).

## Main statements

* `collatz_sequences_meet`: the ratio sequences `m_k ↑` and `M_k ↓` have a common limit `r`
  (the contraction `M_{k+1} ≤ M_k − θ (M_k − m_k)` squeezes them together);
* `piter_telescope`, `piter_bounded`: the increasing iterates `p_k` (`p_{k+1} = A p_k / m_k`)
  stay bounded, by a telescoping product estimate;
* `power_iteration_converges`: `p_k ↑ v` entrywise, and `(r, v)` is a positive eigenpair;
* `exists_perron_pair`, `exists_left_perron_pair`, `exists_perron_pairs`: existence of the right
  and left Perron vectors, with one common Perron root `r > 0` (steps 5 and 8).

## Implementation notes

No compactness argument is used: only suprema of bounded real sequences. The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered: rates of
convergence of the power iteration; an explicit bound on the iterates in terms of `A`; fields
without least upper bounds; the normalization `yᵀ v = 1`.

## References

* Thm 3.8 (steps 5, 8) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- The sum of all entries of a matrix (an entry bound for nonnegative matrices). -/
noncomputable def entrySum {n : Nat} (A : Mat n n α) : α :=
  fsum n (fun i => fsum n (fun j => A i j))

/-- Every entry of a nonnegative matrix is at most the sum of all entries. -/
theorem le_entrySum {n : Nat} {A : Mat n n α} (hA0 : ∀ i j, 0 ≤ A i j) (i j : Fin n) :
    A i j ≤ entrySum A :=
  Std.le_trans (le_fsum_of_nonneg n (fun j => A i j) (hA0 i) j)
    (le_fsum_of_nonneg n (fun i => fsum n (fun j => A i j))
      (fun i => fsum_nonneg n _ (hA0 i)) i)

section Existence
variable {n : Nat} {A : Mat n n α} {ε : α}

/-- Thm 3.8, step 8 (Collatz–Wielandt squeeze): under `SupComplete α`, the ratio sequences
`m_k = lo A k` (increasing) and `M_k = hi A k` (decreasing) of the normalized power iteration
have a common limit `r`: `m_k ≤ r ≤ M_k` for all `k`, and both approach `r`.
Does not cover: a convergence rate. -/
theorem collatz_sequences_meet (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) :
    ∃ r : α, (∀ k, lo A k ≤ r) ∧ (∀ k, r ≤ hi A k) ∧
      (∀ δ : α, 0 < δ → ∃ k, r - δ < lo A k) ∧ (∀ δ : α, 0 < δ → ∃ k, hi A k < r + δ) := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have hlo := lo_le_lo_succ hn hε hA
  have hhi := hi_succ_le_hi hn hε hA
  have hlohi := lo_le_hi hn hε hA
  have hbound : ∀ j k, lo A j ≤ hi A k := fun j k =>
    Std.le_trans (mono_of_succ hlo j k)
      (Std.le_trans (hlohi (j + k)) (anti_of_succ_le hhi (Nat.le_add_left k j)))
  obtain ⟨r, hr1, hr2, hr3⟩ := exists_seq_sup hC (fun k => lo A k) (B := hi A 0)
    (fun k => hbound k 0)
  have hrhi : ∀ k, r ≤ hi A k := fun k => hr2 _ (fun j => hbound j k)
  obtain ⟨R, hR1, hR2, hR3⟩ := exists_seq_inf hC (fun k => hi A k) (B := r) hrhi
  have hrR : r ≤ R := hR2 r hrhi
  have hRr : R ≤ r := by
    apply Classical.byContradiction; intro hne
    have hθ := contractRate_pos hn hε (Std.le_trans (hA ⟨0, hn⟩ ⟨0, hn⟩)
      (le_entrySum hA0 ⟨0, hn⟩ ⟨0, hn⟩))
    have hη := Lean.Grind.OrderedRing.mul_pos hθ (show 0 < R - r by grind)
    obtain ⟨k, hk⟩ := hR3 _ hη
    have hc := hi_succ_le_contract hn hε hA (le_entrySum hA0) k
    have h1 : R - r ≤ hi A k - lo A k := by have := hR1 k; have := hr1 k; grind
    have h2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h1 (Std.le_of_lt hθ)
    have := hR1 (k + 1)
    grind
  refine ⟨r, hr1, hrhi, hr3, fun δ hδ => ?_⟩
  obtain ⟨k, hk⟩ := hR3 δ hδ
  exact ⟨k, by grind⟩

/-- The telescoping estimate behind `piter_bounded`. -/
theorem piter_telescope (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {r h : α}
    (hrhi : ∀ k, r ≤ hi A k) (J : Nat)
    (hJ : hi A J < r + h)
    (hh : h + h = contractRate ε (entrySum A) n * lo A 0) (i : Fin n) :
    ∀ d, piter A (J + d) i * (contractRate ε (entrySum A) n * lo A 0 - (hi A J - hi A (J + d)))
      ≤ contractRate ε (entrySum A) n * lo A 0 * piter A J i := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have hθ := contractRate_pos hn hε (Std.le_trans (hA ⟨0, hn⟩ ⟨0, hn⟩)
      (le_entrySum hA0 ⟨0, hn⟩ ⟨0, hn⟩))
  have hc := hi_succ_le_contract hn hε hA (le_entrySum hA0)
  generalize contractRate ε (entrySum A) n = θ at hθ hh hc ⊢
  have hlo0 := lo_pos hn hε hA 0
  intro d
  induction d with
  | zero => show piter A J i * (θ * lo A 0 - (hi A J - hi A J)) ≤ θ * lo A 0 * piter A J i; grind
  | succ d ih =>
    show piter A (J + d + 1) i * (θ * lo A 0 - (hi A J - hi A (J + d + 1)))
      ≤ θ * lo A 0 * piter A J i
    have hp : 0 ≤ piter A (J + d) i := Std.le_of_lt (piter_pos hn hε hA _ i)
    have hp' := piter_le_succ hn hε hA (J + d) i
    have hck := hc (J + d)
    have hr := hrhi (J + d + 1)
    have F3 : lo A 0 ≤ lo A (J + d) := mono_of_succ_le (lo_le_lo_succ hn hε hA) (Nat.zero_le _)
    have F3' : lo A (J + d) * piter A (J + d + 1) i ≤ hi A (J + d) * piter A (J + d) i := by
      rw [← mulVec_piter hn hε hA]; exact le_hi_mul hn hε hA _ i
    have F4 : hi A (J + d) ≤ hi A J := anti_of_succ (hi_succ_le_hi hn hε hA) J d
    have hg : 0 ≤ hi A (J + d) - lo A (J + d) := by have := lo_le_hi hn hε hA (J + d); grind
    have hE : 0 ≤ θ * lo A 0 - (hi A J - hi A (J + d)) - θ * (hi A (J + d) - lo A (J + d)) := by
      have := Lean.Grind.OrderedRing.mul_pos hθ hlo0
      grind
    have n1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right F3
      (show 0 ≤ piter A (J + d + 1) i - piter A (J + d) i by grind)
    have s1 : lo A 0 * (piter A (J + d + 1) i - piter A (J + d) i)
        ≤ (hi A (J + d) - lo A (J + d)) * piter A (J + d) i := by grind
    have s2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right s1 hE
    have s3 := Lean.Grind.OrderedRing.mul_nonpos_of_nonneg_of_nonpos
      (Lean.Grind.OrderedRing.mul_nonneg hg hp) (show hi A (J + d) - hi A J ≤ 0 by grind)
    have s4 := Lean.Grind.OrderedRing.mul_nonneg (Std.le_of_lt hθ)
      (Lean.Grind.OrderedRing.mul_nonneg (Lean.Grind.OrderedRing.mul_nonneg hg hg) hp)
    have s5 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left
      (show θ * lo A 0 - (hi A J - hi A (J + d + 1))
        ≤ θ * lo A 0 - (hi A J - hi A (J + d)) - θ * (hi A (J + d) - lo A (J + d)) by grind)
      (Std.le_trans hp hp')
    have key : lo A 0 * (piter A (J + d + 1) i *
          (θ * lo A 0 - (hi A J - hi A (J + d)) - θ * (hi A (J + d) - lo A (J + d))))
        ≤ lo A 0 * (piter A (J + d) i * (θ * lo A 0 - (hi A J - hi A (J + d)))) := by
      grind
    have key' := cancel_left hlo0 key
    exact Std.le_trans s5 (Std.le_trans key' ih)

/-- Thm 3.8, step 8 (bounded iterates): under `SupComplete α`, the increasing normalized
iterates `p_k` are bounded entrywise. Does not cover: an explicit bound in terms of `A`. -/
theorem piter_bounded (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) :
    ∃ B : Vec n α, ∀ k i, piter A k i ≤ B i := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  obtain ⟨r, _, hrhi, _, hr4⟩ := collatz_sequences_meet hC hn hε hA
  have hθ := contractRate_pos hn hε (Std.le_trans (hA ⟨0, hn⟩ ⟨0, hn⟩)
      (le_entrySum hA0 ⟨0, hn⟩ ⟨0, hn⟩))
  have hlo0 := lo_pos hn hε hA 0
  have hc0 := Lean.Grind.OrderedRing.mul_pos hθ hlo0
  obtain ⟨h, hh⟩ := exists_half (contractRate ε (entrySum A) n * lo A 0)
  have hpos : 0 < h := by grind
  obtain ⟨J, hJ⟩ := hr4 h hpos
  refine ⟨fun i => piter A J i + piter A J i, fun k i => ?_⟩
  have T := piter_telescope hn hε hA hrhi J hJ hh i k
  have hrk := hrhi (J + k)
  have hp : 0 ≤ piter A (J + k) i := Std.le_of_lt (piter_pos hn hε hA _ i)
  have s1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left
    (show h ≤ contractRate ε (entrySum A) n * lo A 0 - (hi A J - hi A (J + k)) by grind) hp
  have e : contractRate ε (entrySum A) n * lo A 0 * piter A J i = (h + h) * piter A J i := by
    rw [← hh]
  have s2 : h * piter A (J + k) i ≤ h * (piter A J i + piter A J i) := by grind
  have s3 := cancel_left hpos s2
  exact Std.le_trans (mono_of_succ_le (a := fun k => piter A k i)
    (fun k => piter_le_succ hn hε hA k i) (Nat.le_add_left k J)) s3

/-- Thm 3.8, step 8 (existence by power iteration): under `SupComplete α`, for `A ≥ ε > 0`
(`n > 0`) the normalized iterates `p_k` increase to a strictly positive vector `v`, the
Collatz–Wielandt sequences `m_k ↑`, `M_k ↓` converge to `r`, and `A v = r v`.
Does not cover: a convergence rate. -/
theorem power_iteration_converges (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) :
    ∃ (r : α) (v : Vec n α), (∀ i, 0 < v i) ∧ (∀ i, Mat.mulVec A v i = r * v i) ∧
      (∀ k, lo A k ≤ r ∧ r ≤ hi A k) ∧
      (∀ δ : α, 0 < δ → ∃ N, ∀ k, N ≤ k → r - δ < lo A k ∧ hi A k < r + δ) ∧
      (∀ k i, piter A k i ≤ v i) ∧
      (∀ i (δ : α), 0 < δ → ∃ N, ∀ k, N ≤ k → v i - δ < piter A k i) := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  obtain ⟨r, hr1, hr2, hr3, hr4⟩ := collatz_sequences_meet hC hn hε hA
  obtain ⟨B, hB⟩ := piter_bounded hC hn hε hA
  have hsup := fun i => exists_seq_sup hC (fun k => piter A k i) (fun k => hB k i)
  let v : Vec n α := fun i => Classical.choose (hsup i)
  have hv : ∀ i, (∀ k, piter A k i ≤ v i) ∧ (∀ b, (∀ k, piter A k i ≤ b) → v i ≤ b) ∧
      ∀ δ : α, 0 < δ → ∃ k, v i - δ < piter A k i := fun i => Classical.choose_spec (hsup i)
  have hvpos : ∀ i, 0 < v i := fun i =>
    Std.lt_of_lt_of_le (piter_pos hn hε hA 0 i) ((hv i).1 0)
  have hrpos : 0 < r := Std.lt_of_lt_of_le (lo_pos hn hε hA 0) (hr1 0)
  have hlo_mono := fun {j k : Nat} (h : j ≤ k) => mono_of_succ_le (lo_le_lo_succ hn hε hA) h
  have hp_mono := fun (i : Fin n) {j k : Nat} (h : j ≤ k) =>
    mono_of_succ_le (a := fun k => piter A k i) (fun k => piter_le_succ hn hε hA k i) h
  -- `r v ≤ A v`
  have hge : ∀ i, r * v i ≤ Mat.mulVec A v i := by
    intro i
    apply le_of_forall_pos_mul (C := v i + r) (by have := hvpos i; grind)
    intro δ hδ
    obtain ⟨k1, hk1⟩ := hr3 δ hδ
    obtain ⟨k2, hk2⟩ := (hv i).2.2 δ hδ
    have m1 : lo A k1 ≤ lo A (k1 + k2) := hlo_mono (Nat.le_add_right k1 k2)
    have m2 : piter A k2 i ≤ piter A (k1 + k2 + 1) i := hp_mono i (by omega)
    have h1 := mulVec_le_mulVec hA0 (fun j => (hv j).1 (k1 + k2)) i
    rw [mulVec_piter hn hε hA] at h1
    have hlok := lo_pos hn hε hA (k1 + k2)
    have a1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right
      (show r - lo A (k1 + k2) ≤ δ by grind) (Std.le_of_lt (hvpos i))
    have a2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left
      (show v i - piter A (k1 + k2 + 1) i ≤ δ by grind) (Std.le_of_lt hlok)
    have a3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hr1 (k1 + k2))
      (Std.le_of_lt hδ)
    grind
  -- `A v = r v`
  have heq : ∀ i, Mat.mulVec A v i = r * v i := by
    intro i
    apply Classical.byContradiction; intro hne
    have hd : ∀ j, 0 ≤ Mat.mulVec A v j - r * v j := fun j => by have := hge j; grind
    have hdi : Mat.mulVec A v i - r * v i ≠ 0 := by grind
    have hw : ∀ j, 0 < Mat.mulVec A v j := fun j =>
      mulVec_pos hε hA (fun l => Std.le_of_lt (hvpos l)) (k := i)
        (fun h => by have := hvpos i; grind) j
    have hAd : ∀ j, r * Mat.mulVec A v j < Mat.mulVec A (Mat.mulVec A v) j := by
      intro j
      have := mulVec_pos hε hA hd (k := i) hdi j
      rw [mulVec_sub, mulVec_smul] at this
      grind
    have hs1 := minRatio_mul_le hn (Mat.mulVec A (Mat.mulVec A v)) hw
    obtain ⟨j0, hj0⟩ := exists_minRatio_eq hn (Mat.mulVec A (Mat.mulVec A v)) hw
    have hs2 : r < minRatio (Mat.mulVec A (Mat.mulVec A v)) (Mat.mulVec A v) := by
      apply Classical.byContradiction; intro h
      have := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (show
        minRatio (Mat.mulVec A (Mat.mulVec A v)) (Mat.mulVec A v) ≤ r by grind)
        (Std.le_of_lt (hw j0))
      have := hAd j0
      grind
    have hs3 : ∀ k, minRatio (Mat.mulVec A (Mat.mulVec A v)) (Mat.mulVec A v) ≤ hi A k :=
      fun k => collatz_le hA0 (piter_pos hn hε hA k) (le_hi_mul hn hε hA k)
        (fun j => Std.le_of_lt (hw j)) (k := i) (fun h => by have := hw i; grind) hs1
    obtain ⟨k, hk⟩ := hr4 _ (show 0 < minRatio (Mat.mulVec A (Mat.mulVec A v))
      (Mat.mulVec A v) - r by grind)
    have := hs3 k
    grind
  refine ⟨r, v, hvpos, heq, fun k => ⟨hr1 k, hr2 k⟩, fun δ hδ => ?_, fun k i => (hv i).1 k,
    fun i δ hδ => ?_⟩
  · obtain ⟨k1, hk1⟩ := hr3 δ hδ
    obtain ⟨k2, hk2⟩ := hr4 δ hδ
    refine ⟨k1 + k2, fun k hk => ⟨?_, ?_⟩⟩
    · have := hlo_mono (show k1 ≤ k by omega); grind
    · have := anti_of_succ_le (hi_succ_le_hi hn hε hA) (show k2 ≤ k by omega); grind
  · obtain ⟨k0, hk0⟩ := (hv i).2.2 δ hδ
    exact ⟨k0, fun k hk => by have := hp_mono i hk; grind⟩

/-- Thm 3.8, step 8 (existence of the Perron pair): under `SupComplete α` (true for `ℝ`),
every `A ≥ ε > 0` (`n > 0`) has a positive eigenpair: `r > 0`, `v > 0`, `A v = r v`.
Does not cover: fields without least upper bounds (e.g. `ℚ`, where it can fail). -/
theorem exists_perron_pair (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) :
    ∃ (r : α) (v : Vec n α), 0 < r ∧ (∀ i, 0 < v i) ∧ ∀ i, Mat.mulVec A v i = r * v i := by
  obtain ⟨r, v, hv, hAv, _⟩ := power_iteration_converges hC hn hε hA
  exact ⟨r, v, (eigvec_pos_of_nonneg hε hA (fun i => Std.le_of_lt (hv i)) (k := ⟨0, hn⟩)
    (fun h => by have := hv ⟨0, hn⟩; grind) hAv).2, hv, hAv⟩

/-- Thm 3.8, steps 5 and 8 (left Perron vector): under `SupComplete α`, every `A ≥ ε > 0`
(`n > 0`) has a positive left eigenpair: `r > 0`, `y > 0`, `Aᵀ y = r y`.
Does not cover: fields without least upper bounds. -/
theorem exists_left_perron_pair (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) :
    ∃ (r : α) (y : Vec n α), 0 < r ∧ (∀ i, 0 < y i) ∧
      ∀ i, Mat.mulVec (Mat.transpose A) y i = r * y i :=
  exists_perron_pair hC hn hε (transpose_entry_ge hA)

/-- Thm 3.8, steps 5 and 8: under `SupComplete α`, every `A ≥ ε > 0` (`n > 0`) has strictly
positive right and left Perron vectors `v`, `y` for one common Perron root `r > 0`.
Does not cover: the normalization `yᵀ v = 1`. -/
theorem exists_perron_pairs (hC : SupComplete α) (hn : 0 < n) (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) :
    ∃ (r : α) (v y : Vec n α), 0 < r ∧ (∀ i, 0 < v i) ∧ (∀ i, 0 < y i) ∧
      (∀ i, Mat.mulVec A v i = r * v i) ∧
      (∀ i, Mat.mulVec (Mat.transpose A) y i = r * y i) := by
  obtain ⟨r, v, hr, hv, hAv⟩ := exists_perron_pair hC hn hε hA
  obtain ⟨s, y, _, hy, hAy⟩ := exists_left_perron_pair hC hn hε hA
  have hrs := left_right_root_eq hv hAv (fun i => Std.le_of_lt (hy i)) (k := ⟨0, hn⟩)
    (fun h => by have := hy ⟨0, hn⟩; grind) hAy
  subst hrs
  exact ⟨r, v, y, hr, hv, hy, hAv, hAy⟩

end Existence

end PLGA.Perron
