module

public import Formal.Data.Order
public import Formal.Variants.DeltaNet

/-!
# Kaczmarz Linear Attention (KLA): one write — contraction, projection, line search, proximal form

KLA is the GDN recurrence (`Formal/Variants/DeltaNet.lean`) with a scalar decay and the Kaczmarz
write strength `β = η/(‖k‖² + ε)`: from the decayed state `S̃ = α S`, residual `e = v − S̃ᵀk`, the
write is `S = S̃ + β k eᵀ`. One write contracts the residual by a factor in `[0, 1)`, is (for
`η = 1`, `ε = 0`) the minimum-change projection and the exact line search, and (for `η < 1`) the
minimizer of a proximal objective.

## Main definitions

* `sqNorm`, `frob`: `‖x‖²` and the Frobenius inner product `⟨M, N⟩_F`;
* `residual`, `write`: `e = v − Xᵀk` and the delta write `X + β k eᵀ`;
* `klaBeta`, `klaStep`: `β = η/(‖k‖² + ε)` and the KLA step (decay by `a`, then the write);
* `sqLoss`, `proxObj`: the write loss `‖Sᵀk − v‖²` and the proximal objective
  `‖S − S̃‖_F² + μ‖Sᵀk − v‖²`.

## Main statements

* `kla_step_is_gdn_step`: the KLA step is `DeltaNet.step` with a scalar gate;
* `readout_write`, `kla_interference`: `Δ(Sᵀk') = β e (kᵀk')`;
* `residual_write`, `kla_residual_contraction`: `e⁺ = (1 − β‖k‖²) e = (1 − η‖k‖²/(‖k‖²+ε)) e`;
  `kla_factor_nonneg`, `kla_factor_lt_one` (factor in `[0,1)` for `k ≠ 0`, `0 < η ≤ 1`,
  `ε ≥ 0`), `kla_residual_eps_zero` (`e⁺ = (1 − η) e` for `ε = 0`);
* projection (`η = 1`, `ε = 0`): `proj_write_solves` (`Sᵀk = v`), `increment_orthogonal`
  (`⟨k eᵀ, H⟩_F = 0` whenever `Hᵀk = 0`), `kla_projection_min_change` (minimum Frobenius change);
* line search: `sqLoss_expand` (the loss along `S̃ + tH` is `‖e‖² − 2t⟨k eᵀ, H⟩ + t²‖Hᵀk‖²`, i.e.
  its negative gradient at `S̃` is `2 k eᵀ`), `sqLoss_line` (`(1 − τ‖k‖²)² ‖e‖²` along
  `S̃ + τ k eᵀ`), `line_search_exact` (zero at `τ = 1/‖k‖²`, positive elsewhere when `e ≠ 0`);
* proximal form: `prox_minimizer` (`S̃ + μ/(1+μ‖k‖²) k eᵀ` minimizes `proxObj`),
  `kla_beta_eq_prox_coeff` and `kla_write_solves_prox` (with `μ = η/((1 − η)‖k‖² + ε)`, `η < 1`,
  this is the KLA write);
* `kla_worked_example` (over `Rat`): `S̃ = 0`, `k = 2`, `v = 1`: `β = 1` overshoots (read-out 4),
  `β = 1/4` reads out exactly `1`.

## Implementation notes

Over any (ordered) field. The objectives are stated without the factor `½` (minimizers are the
same); minimality is proved, not uniqueness. Not a result of the PLGA paper: the mechanism is from
arXiv 2605.08587. The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no
counterpart (no public formalization). Not covered: the chunkwise form
(`Formal/Variants/KlaChunk.lean`), the sigmoid parametrization of `η`, the normalized read-out
`q/‖q‖` (a change of query), floating point, `η > 1` (over-relaxation).

## References

* Kaczmarz Linear Attention, arXiv 2605.08587;
* `../shared/spec/VARIANTS.md` §2.
-/

@[expose] public section

namespace PLGA.Variants.Kla

open PLGA PLGA.Variants.DeltaNet

variable {α : Type u} [Lean.Grind.Field α] {dk dv : Nat}

/-- Squared Euclidean norm `‖x‖²`. -/
noncomputable def sqNorm {n : Nat} (x : Vec n α) : α := fsum n (fun i => x i * x i)

/-- Residual `e = v − Xᵀk` of reading the state `X` with key `k`. -/
noncomputable def residual (X : Mat dk dv α) (k : Vec dk α) (v : Vec dv α) : Vec dv α :=
  fun j => v j - readout X k j

/-- The delta write `X + β k eᵀ` with `e = v − Xᵀk`. -/
noncomputable def write (X : Mat dk dv α) (β : α) (k : Vec dk α) (v : Vec dv α) : Mat dk dv α :=
  Mat.add X (Mat.smul β (outer k (residual X k v)))

/-- The Kaczmarz write strength `β = η/(‖k‖² + ε)`. -/
noncomputable def klaBeta (η ε : α) (k : Vec dk α) : α := η / (sqNorm k + ε)

/-- The KLA step from state `S`: decay by `a`, then the Kaczmarz write. -/
noncomputable def klaStep (a η ε : α) (k : Vec dk α) (v : Vec dv α) (S : Mat dk dv α) :
    Mat dk dv α :=
  write (Mat.smul a S) (klaBeta η ε k) k v

/-- Frobenius inner product `⟨M, N⟩_F = Σ_ij M_ij N_ij`. -/
noncomputable def frob {m n : Nat} (M N : Mat m n α) : α :=
  fsum m (fun i => fsum n (fun j => M i j * N i j))

/-- The write loss `‖Sᵀk − v‖²` (twice the paper's `½‖Sᵀk − v‖²`). -/
noncomputable def sqLoss (S : Mat dk dv α) (k : Vec dk α) (v : Vec dv α) : α :=
  sqNorm (fun j => readout S k j - v j)

theorem write_apply (X : Mat dk dv α) (β : α) (k : Vec dk α) (v : Vec dv α) (i : Fin dk)
    (j : Fin dv) : write X β k v i j = X i j + β * (k i * residual X k v j) := rfl

/-- KLA (VARIANTS.md §2): the KLA step is the GDN step with the scalar gate `a 𝟙` and the
Kaczmarz `β`. Does not cover: per-channel (KDA) gates. -/
theorem kla_step_is_gdn_step (a η ε : α) (k : Vec dk α) (v : Vec dv α) (q : Vec dk α)
    (S : Mat dk dv α) : step ⟨fun _ => a, klaBeta η ε k, k, v, q⟩ S = klaStep a η ε k v S := by
  have h : Mat.mul (Mat.diag (fun _ => a)) S = Mat.smul a S := by
    funext i j; rw [gdn_diag_mul_apply]; rfl
  show write (Mat.mul (Mat.diag (fun _ => a)) S) _ k v = _
  rw [h]; rfl

/-! ## Read-outs after a write -/

/-- KLA (VARIANTS.md §2, interference), read-out form:
`(X + β k eᵀ)ᵀ k' = Xᵀk' + β e (kᵀk')`. Does not cover: bounds on `kᵀk'`. -/
theorem readout_write (X : Mat dk dv α) (β : α) (k k' : Vec dk α) (v : Vec dv α) (j : Fin dv) :
    readout (write X β k v) k' j = readout X k' j + β * residual X k v j * Mat.dot k k' := by
  rw [gdn_readout_apply, gdn_readout_apply]
  simp only [write_apply, Mat.dot]
  rw [fsum_congr dk (g := fun l => X l j * k' l + (β * residual X k v j) * (k l * k' l))
    (by intro l; grind), fsum_add, fsum_mul_left]

/-- KLA paper, interference: the write changes another key's read-out by
`Δ(Sᵀk') = β e (kᵀk')`. Does not cover: the effect through later decays. -/
theorem kla_interference (X : Mat dk dv α) (β : α) (k k' : Vec dk α) (v : Vec dv α)
    (j : Fin dv) :
    readout (write X β k v) k' j - readout X k' j = β * residual X k v j * Mat.dot k k' := by
  rw [readout_write]; grind

/-- KLA paper, residual after the write (re-reading with the same key):
`e⁺ = (1 − β‖k‖²) e`. Does not cover: other keys (see `kla_interference`). -/
theorem residual_write (X : Mat dk dv α) (β : α) (k : Vec dk α) (v : Vec dv α) (j : Fin dv) :
    residual (write X β k v) k v j = (1 - β * sqNorm k) * residual X k v j := by
  have h := readout_write X β k k v j
  have hd : Mat.dot k k = sqNorm k := rfl
  rw [hd] at h
  show v j - readout (write X β k v) k j = _
  rw [h]; simp only [residual]; grind

/-- KLA paper, residual contraction: with the Kaczmarz `β = η/(‖k‖²+ε)`,
`e⁺ = (1 − η‖k‖²/(‖k‖²+ε)) e`. Does not cover: the range of the factor (see
`kla_factor_nonneg`, `kla_factor_lt_one`). -/
theorem kla_residual_contraction (X : Mat dk dv α) (η ε : α) (k : Vec dk α) (v : Vec dv α)
    (j : Fin dv) : residual (write X (klaBeta η ε k) k v) k v j
      = (1 - η * sqNorm k / (sqNorm k + ε)) * residual X k v j := by
  rw [residual_write]; simp only [klaBeta]; grind

/-! ## Expansions of the two quadratic objectives -/

theorem sqNorm_expand {n : Nat} (d t : α) (e w : Vec n α) :
    sqNorm (fun j => d * e j + t * w j)
      = d * d * sqNorm e + 2 * d * t * Mat.dot e w + t * t * sqNorm w := by
  simp only [sqNorm, Mat.dot]
  rw [fsum_congr n (g := fun j => (d * d) * (e j * e j) + (2 * d * t) * (e j * w j)
    + (t * t) * (w j * w j)) (by intro j; grind), fsum_add, fsum_add, fsum_mul_left,
    fsum_mul_left, fsum_mul_left]

theorem frob_expand {m n : Nat} (c t : α) (k : Vec m α) (e : Vec n α) (H : Mat m n α) :
    frob (fun i j => c * (k i * e j) + t * H i j) (fun i j => c * (k i * e j) + t * H i j)
      = c * c * (sqNorm k * sqNorm e) + 2 * c * t * frob (outer k e) H + t * t * frob H H := by
  simp only [frob, outer, sqNorm]
  have h : ∀ i, fsum n (fun j => (c * (k i * e j) + t * H i j) * (c * (k i * e j) + t * H i j))
      = (c * c * (k i * k i)) * fsum n (fun j => e j * e j)
        + (2 * c * t) * fsum n (fun j => k i * e j * H i j)
        + (t * t) * fsum n (fun j => H i j * H i j) := by
    intro i
    rw [fsum_congr n (g := fun j => (c * c * (k i * k i)) * (e j * e j)
      + (2 * c * t) * (k i * e j * H i j) + (t * t) * (H i j * H i j)) (by intro j; grind),
      fsum_add, fsum_add, fsum_mul_left, fsum_mul_left, fsum_mul_left]
  rw [fsum_congr m h, fsum_add, fsum_add, fsum_mul_left, fsum_mul_left,
    fsum_mul_right (c := fsum n (fun j => e j * e j)) (f := fun i => c * c * (k i * k i)),
    fsum_mul_left]
  grind

/-- `⟨k eᵀ, H⟩_F = eᵀ (Hᵀk)` (structural). -/
theorem frob_outer_eq_dot {m n : Nat} (k : Vec m α) (e : Vec n α) (H : Mat m n α) :
    frob (outer k e) H = Mat.dot e (readout H k) := by
  simp only [frob, outer, Mat.dot, gdn_readout_apply]
  rw [fsum_comm]; apply fsum_congr; intro j
  rw [← fsum_mul_left]; apply fsum_congr; intro i; grind

/-- KLA paper, projection: the increment `k eᵀ` is Frobenius-orthogonal to every `H` with
`Hᵀk = 0`. Does not cover: the relaxed write (`η < 1`) as a projection. -/
theorem increment_orthogonal {m n : Nat} (k : Vec m α) (e : Vec n α) (H : Mat m n α)
    (hH : ∀ j, readout H k j = 0) : frob (outer k e) H = 0 := by
  rw [frob_outer_eq_dot]; simp only [Mat.dot, hH]
  rw [fsum_congr n (g := fun _ => (0 : α)) (by intro j; grind)]; exact fsum_const_zero n

theorem readout_add_smul (X H : Mat dk dv α) (t : α) (k : Vec dk α) (j : Fin dv) :
    readout (fun i j => X i j + t * H i j) k j = readout X k j + t * readout H k j := by
  simp only [gdn_readout_apply]
  rw [fsum_congr dk (g := fun l => X l j * k l + t * (H l j * k l)) (by intro l; grind),
    fsum_add, fsum_mul_left]

/-- KLA paper, line search / gradient: along `S̃ + tH` the loss is
`‖e‖² − 2t⟨k eᵀ, H⟩_F + t²‖Hᵀk‖²`; so the gradient of `‖Sᵀk − v‖²` at `S̃` is `−2 k eᵀ` and
the update direction `k eᵀ` is the negative gradient. Does not cover: second-order methods. -/
theorem sqLoss_expand (X H : Mat dk dv α) (t : α) (k : Vec dk α) (v : Vec dv α) :
    sqLoss (fun i j => X i j + t * H i j) k v
      = sqLoss X k v - 2 * t * frob (outer k (residual X k v)) H
        + t * t * sqNorm (readout H k) := by
  have h1 : sqLoss (fun i j => X i j + t * H i j) k v
      = sqNorm (fun j => (-1) * residual X k v j + t * readout H k j) := by
    simp only [sqLoss]; congr 1; funext j; rw [readout_add_smul]; simp only [residual]; grind
  have h2 : sqLoss X k v = sqNorm (fun j => (-1) * residual X k v j + 0 * readout H k j) := by
    simp only [sqLoss]; congr 1; funext j; simp only [residual]; grind
  rw [h1, h2, sqNorm_expand, sqNorm_expand, frob_outer_eq_dot]; grind

/-- KLA paper, line search: along `S̃ + τ k eᵀ` the loss is `(1 − τ‖k‖²)² ‖e‖²`. Does not cover:
other directions. -/
theorem sqLoss_line (X : Mat dk dv α) (τ : α) (k : Vec dk α) (v : Vec dv α) :
    sqLoss (write X τ k v) k v
      = (1 - τ * sqNorm k) * (1 - τ * sqNorm k) * sqNorm (residual X k v) := by
  have h : sqLoss (write X τ k v) k v
      = sqNorm (fun j => (-(1 - τ * sqNorm k)) * residual X k v j + 0 * residual X k v j) := by
    simp only [sqLoss]; congr 1; funext j
    have := residual_write X τ k v j; simp only [residual] at this ⊢; grind
  rw [h, sqNorm_expand]; grind

section Ordered
variable [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

theorem sqNorm_nonneg {n : Nat} (x : Vec n α) : 0 ≤ sqNorm x :=
  fsum_nonneg n _ (fun i => mul_self_nonneg (x i))

theorem frob_self_nonneg {m n : Nat} (H : Mat m n α) : 0 ≤ frob H H :=
  fsum_nonneg m _ (fun i => sqNorm_nonneg (H i))

/-- A key with a nonzero entry has `‖k‖² > 0` (the hypothesis `k ≠ 0` of the paper). -/
theorem sqNorm_pos_of_ne {n : Nat} (x : Vec n α) (hx : ∃ i, x i ≠ 0) : 0 < sqNorm x := by
  obtain ⟨i, hi⟩ := hx
  have h := le_fsum_of_nonneg n (fun i => x i * x i) (fun i => mul_self_nonneg (x i)) i
  exact Std.lt_of_lt_of_le (mul_self_pos hi) h

theorem kla_ratio_pos {η s ε : α} (hs : 0 < s) (hη : 0 < η) (hε : 0 ≤ ε) :
    0 < η * s / (s + ε) := by
  rw [Lean.Grind.Field.div_eq_mul_inv]
  exact Lean.Grind.OrderedRing.mul_pos (Lean.Grind.OrderedRing.mul_pos hη hs)
    ((Lean.Grind.Field.IsOrdered.inv_pos_iff).2 (by grind))

theorem kla_ratio_le_one {η s ε : α} (hs : 0 < s) (hη1 : η ≤ 1) (hε : 0 ≤ ε) :
    η * s / (s + ε) ≤ 1 := by
  have hne : s + ε ≠ 0 := by grind
  have hpos : 0 < s + ε := by grind
  have hmul : η * s / (s + ε) * (s + ε) = η * s := by grind
  have hηs : η * s ≤ 1 * s :=
    Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right hη1 (Std.le_of_lt hs)
  rcases (show η * s / (s + ε) ≤ 1 ∨ 1 < η * s / (s + ε) by grind) with h | h
  · exact h
  · have := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_right h hpos
    grind

/-- KLA paper, residual contraction (range): the factor `1 − η‖k‖²/(‖k‖²+ε)` is `≥ 0` for
`k ≠ 0`, `η ≤ 1`, `ε ≥ 0`. Does not cover: `η > 1` (over-relaxation). -/
theorem kla_factor_nonneg (k : Vec dk α) (hk : ∃ i, k i ≠ 0) {η ε : α} (hη1 : η ≤ 1)
    (hε : 0 ≤ ε) : 0 ≤ 1 - η * sqNorm k / (sqNorm k + ε) := by
  have := kla_ratio_le_one (sqNorm_pos_of_ne k hk) hη1 hε; grind

/-- KLA paper, residual contraction (range): the factor is `< 1` for `k ≠ 0`, `η > 0`,
`ε ≥ 0`, so the residual strictly shrinks. Does not cover: `η = 0` (no write). -/
theorem kla_factor_lt_one (k : Vec dk α) (hk : ∃ i, k i ≠ 0) {η ε : α} (hη : 0 < η)
    (hε : 0 ≤ ε) : 1 - η * sqNorm k / (sqNorm k + ε) < 1 := by
  have := kla_ratio_pos (sqNorm_pos_of_ne k hk) hη hε; grind

/-- KLA paper, residual contraction with `ε = 0`: `e⁺ = (1 − η) e` for `k ≠ 0`. Does not
cover: `ε > 0`. -/
theorem kla_residual_eps_zero (X : Mat dk dv α) (η : α) (k : Vec dk α) (hk : ∃ i, k i ≠ 0)
    (v : Vec dv α) (j : Fin dv) :
    residual (write X (klaBeta η 0 k) k v) k v j = (1 - η) * residual X k v j := by
  have hs := sqNorm_pos_of_ne k hk
  have hne : sqNorm k ≠ 0 := by grind
  rw [kla_residual_contraction]; congr 1; grind

/-! ## Projection (`η = 1`, `ε = 0`) -/

/-- KLA paper, projection: with `η = 1`, `ε = 0` the write solves `Sᵀk = v` exactly.
Does not cover: `k = 0`. -/
theorem proj_write_solves (X : Mat dk dv α) (k : Vec dk α) (hk : ∃ i, k i ≠ 0) (v : Vec dv α)
    (j : Fin dv) : readout (write X (klaBeta 1 0 k) k v) k j = v j := by
  have h := kla_residual_eps_zero X 1 k hk v j
  simp only [residual] at h; grind

/-- KLA paper, projection: for `k ≠ 0` the write `S = S̃ + k eᵀ/‖k‖²` is the minimum-Frobenius-
change solution of `Sᵀk = v`: every `S'` with `S'ᵀk = v` has `‖S' − S̃‖_F² ≥ ‖S − S̃‖_F²`.
Does not cover: uniqueness of the minimizer. -/
theorem kla_projection_min_change (X : Mat dk dv α) (k : Vec dk α) (hk : ∃ i, k i ≠ 0)
    (v : Vec dv α) (S' : Mat dk dv α) (hS' : ∀ j, readout S' k j = v j) :
    frob (fun i j => write X (klaBeta 1 0 k) k v i j - X i j)
        (fun i j => write X (klaBeta 1 0 k) k v i j - X i j)
      ≤ frob (fun i j => S' i j - X i j) (fun i j => S' i j - X i j) := by
  have hH : ∀ j, readout (fun i j => S' i j - write X (klaBeta 1 0 k) k v i j) k j = 0 := by
    intro j
    have h1 := readout_add_smul S' (write X (klaBeta 1 0 k) k v) (-1) k j
    have h2 : (fun i j => S' i j + (-1) * write X (klaBeta 1 0 k) k v i j)
        = (fun i j => S' i j - write X (klaBeta 1 0 k) k v i j) := by funext i j; grind
    rw [h2] at h1; rw [h1, hS', proj_write_solves X k hk]; grind
  have hP := increment_orthogonal k (residual X k v) _ hH
  have e1 : (fun i j => S' i j - X i j) = (fun i j => klaBeta 1 0 k * (k i * residual X k v j)
      + 1 * (S' i j - write X (klaBeta 1 0 k) k v i j)) := by
    funext i j; rw [write_apply]; grind
  have e0 : (fun i j => write X (klaBeta 1 0 k) k v i j - X i j)
      = (fun i j => klaBeta 1 0 k * (k i * residual X k v j)
      + 0 * (S' i j - write X (klaBeta 1 0 k) k v i j)) := by
    funext i j; rw [write_apply]; grind
  rw [e1, e0, frob_expand, frob_expand, hP]
  have := frob_self_nonneg (fun i j => S' i j - write X (klaBeta 1 0 k) k v i j)
  grind

/-! ## Line search and the proximal form -/

/-- KLA paper, exact line search: along `S̃ + τ k eᵀ` the loss vanishes at `τ = 1/‖k‖²` and is
positive at every other `τ` when `e ≠ 0`. Does not cover: `k = 0`. -/
theorem line_search_exact (X : Mat dk dv α) (k : Vec dk α) (hk : ∃ i, k i ≠ 0) (v : Vec dv α) :
    sqLoss (write X (1 / sqNorm k) k v) k v = 0 ∧
    ∀ τ, τ * sqNorm k ≠ 1 → (∃ j, residual X k v j ≠ 0) → 0 < sqLoss (write X τ k v) k v := by
  have hs := sqNorm_pos_of_ne k hk
  refine ⟨?_, ?_⟩
  · rw [sqLoss_line]; have : 1 - 1 / sqNorm k * sqNorm k = (0 : α) := by grind
    rw [this]; grind
  · intro τ hτ he
    rw [sqLoss_line]
    exact Lean.Grind.OrderedRing.mul_pos (mul_self_pos (by grind))
      (sqNorm_pos_of_ne _ he)

/-- The proximal objective `‖S − S̃‖_F² + μ‖Sᵀk − v‖²` (twice the paper's). -/
noncomputable def proxObj (μ : α) (X : Mat dk dv α) (k : Vec dk α) (v : Vec dv α)
    (S : Mat dk dv α) : α :=
  frob (fun i j => S i j - X i j) (fun i j => S i j - X i j) + μ * sqLoss S k v

/-- KLA paper, proximal form: for `μ ≥ 0` and `c (1 + μ‖k‖²) = μ` (i.e. `c = μ/(1+μ‖k‖²)`), the
write `S̃ + c k eᵀ` minimizes `‖S − S̃‖² + μ‖Sᵀk − v‖²`. Does not cover: uniqueness. -/
theorem prox_minimizer (μ c : α) (hμ : 0 ≤ μ) (X : Mat dk dv α) (k : Vec dk α) (v : Vec dv α)
    (hc : c * (1 + μ * sqNorm k) = μ) (S' : Mat dk dv α) :
    proxObj μ X k v (write X c k v) ≤ proxObj μ X k v S' := by
  let H : Mat dk dv α := fun i j => S' i j - write X c k v i j
  have e1 : (fun i j => S' i j - X i j)
      = (fun i j => c * (k i * residual X k v j) + 1 * H i j) := by
    funext i j; simp only [H]; rw [write_apply]; grind
  have e0 : (fun i j => write X c k v i j - X i j)
      = (fun i j => c * (k i * residual X k v j) + 0 * H i j) := by
    funext i j; rw [write_apply]; grind
  have eS : S' = (fun i j => write X c k v i j + 1 * H i j) := by
    funext i j; simp only [H]; grind
  have hL := sqLoss_expand (write X c k v) H 1 k v
  rw [← eS] at hL
  have hres : residual (write X c k v) k v = fun j => (1 - c * sqNorm k) * residual X k v j := by
    funext j; exact residual_write X c k v j
  have hP : frob (outer k (residual (write X c k v) k v)) H
      = (1 - c * sqNorm k) * frob (outer k (residual X k v)) H := by
    rw [hres, frob_outer_eq_dot, frob_outer_eq_dot]; simp only [Mat.dot]
    rw [← fsum_mul_left]; apply fsum_congr; intro j; grind
  simp only [proxObj]
  rw [e1, e0, frob_expand, frob_expand, hL, hP]
  have hW := Lean.Grind.OrderedRing.mul_nonneg hμ (sqNorm_nonneg (readout H k))
  have hF := frob_self_nonneg H
  have hcP := congrArg (· * frob (outer k (residual X k v)) H) hc
  simp only at hcP
  grind

/-- KLA paper, proximal form: with `μ = η/((1 − η)‖k‖² + ε)` (`k ≠ 0`, `η < 1`, `ε ≥ 0`)
the proximal coefficient `μ/(1 + μ‖k‖²)` equals the KLA `β = η/(‖k‖² + ε)`. Does not cover:
the limit `η → 1` (the projection, `proj_write_solves`). -/
theorem kla_beta_eq_prox_coeff (k : Vec dk α) (hk : ∃ i, k i ≠ 0) {η ε : α} (hη1 : η < 1)
    (hε : 0 ≤ ε) :
    η / ((1 - η) * sqNorm k + ε) / (1 + η / ((1 - η) * sqNorm k + ε) * sqNorm k)
      = klaBeta η ε k := by
  have hs := sqNorm_pos_of_ne k hk
  have h1 : 0 < (1 - η) * sqNorm k :=
    Lean.Grind.OrderedRing.mul_pos (by grind) hs
  have hD : (1 - η) * sqNorm k + ε ≠ 0 := by grind
  have hS : sqNorm k + ε ≠ 0 := by grind
  simp only [klaBeta]; grind

/-- KLA paper, proximal form: the relaxed KLA write (`0 ≤ η < 1`) minimizes the proximal
objective with `μ = η/((1 − η)‖k‖² + ε)`. Does not cover: time-varying `μ` across steps. -/
theorem kla_write_solves_prox (X : Mat dk dv α) (k : Vec dk α) (hk : ∃ i, k i ≠ 0) (v : Vec dv α)
    {η ε : α} (hη0 : 0 ≤ η) (hη1 : η < 1) (hε : 0 ≤ ε) (S' : Mat dk dv α) :
    proxObj (η / ((1 - η) * sqNorm k + ε)) X k v (write X (klaBeta η ε k) k v)
      ≤ proxObj (η / ((1 - η) * sqNorm k + ε)) X k v S' := by
  have hs := sqNorm_pos_of_ne k hk
  have h1 : 0 < (1 - η) * sqNorm k := Lean.Grind.OrderedRing.mul_pos (by grind) hs
  have hDpos : 0 < (1 - η) * sqNorm k + ε := by grind
  have hμ : 0 ≤ η / ((1 - η) * sqNorm k + ε) := by
    rw [Lean.Grind.Field.div_eq_mul_inv]
    exact Lean.Grind.OrderedRing.mul_nonneg hη0
      (Std.le_of_lt ((Lean.Grind.Field.IsOrdered.inv_pos_iff).2 hDpos))
  apply prox_minimizer _ _ hμ
  have hD : (1 - η) * sqNorm k + ε ≠ 0 := by grind
  have hS : sqNorm k + ε ≠ 0 := by grind
  simp only [klaBeta]; grind

end Ordered

/-- KLA paper, worked example (`d_k = d_v = 1`, `S̃ = 0`, `k = 2`, `v = 1`): `β = 1` writes
`S = 2` and reads out `4` (overshoot, residual `−3`); the Kaczmarz `β = 1/4` writes `S = 1/2`
and reads out exactly `1`. Does not cover: `ε > 0`. -/
theorem kla_worked_example :
    write (fun _ _ => (0 : Rat)) 1 (fun _ : Fin 1 => 2) (fun _ : Fin 1 => 1) 0 0 = 2 ∧
    readout (write (fun _ _ => (0 : Rat)) 1 (fun _ : Fin 1 => 2) (fun _ : Fin 1 => 1))
      (fun _ => 2) 0 = 4 ∧
    klaBeta (1 : Rat) 0 (fun _ : Fin 1 => 2) = 1 / 4 ∧
    write (fun _ _ => (0 : Rat)) (1 / 4) (fun _ : Fin 1 => 2) (fun _ : Fin 1 => 1) 0 0 = 1 / 2 ∧
    readout (write (fun _ _ => (0 : Rat)) (1 / 4) (fun _ : Fin 1 => 2) (fun _ : Fin 1 => 1))
      (fun _ => 2) 0 = 1 := by
  refine ⟨?_, ?_, ?_, ?_, ?_⟩ <;>
    simp [write_apply, residual, gdn_readout_apply, klaBeta, sqNorm, fsum] <;> grind

end PLGA.Variants.Kla
