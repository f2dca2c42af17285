module

public import Formal.Analytic
public import Formal.Data.Sum
public import Formal.Data.Order
public import Formal.Rope.Rotation

/-!
# The quantitative RoPE twirl bound (Lem 5.9)

In the eigenbasis of the RoPE torus, averaging `(1/S) Σ_{n=1}^S R_n M R_nᵀ` over positions
multiplies every off-commutant entry by the ergodic average `(1/S) Σ_{n=1}^S e^{iωn}` at a nonzero
difference frequency `ω` (`2θ_a`, `θ_a ± θ_b`). Lem 5.9 rests on two analytic facts, proved here
with complex numbers written as pairs `(re, im)`:

* the chord length `|1 − e^{iω}| = 2 |sin (ω/2)|`;
* the geometric-sum bound `|Σ_{n=1}^S e^{iωn}| ≤ 1 / |sin (ω/2)|`, hence the `O(1/S)` decay
  `|(1/S) Σ_{n=1}^S e^{iωn}| ≤ 1 / (S |sin (ω/2)|)` of the twirl remainder.

The core is algebraic: for any orbit `z_n = w^n` of a unit `w`, `(1 − w) Σ_{n=1}^S z_n =
w − w^{S+1}`, so `|1 − w|² |Σ z_n|² ≤ 4`. It is instantiated twice: for a real angle with a
cosine/sine pair (`CosSin`, the form of the paper and of the authors' repository), and for the
RoPE rotation family of the model (`RotFamily`): the difference- and sum-frequency orbits
`e^{i(θ_a ∓ θ_b)n}` of planes `a`, `b` satisfy `|Σ_{n=1}^S| ≤ 2 / |1 − e^{i(θ_a ∓ θ_b)}|`.

## Main definitions

* `seqRe z S`, `seqIm z S`: real and imaginary parts of `Σ_{n=1}^S z n` for a pair sequence `z`;
* `IsOrbit z`: `z (n+2) = z 1 · z (n+1)` (complex product), i.e. `z n = (z 1)^n`;
* `CosSin α`: a cosine/sine pair on `α` with the angle-addition formulas and `cos² + sin² = 1`
  (`Real.cos`, `Real.sin`: `Real.cos_add`, `Real.sin_add`, `Real.cos_sq_add_sin_sq`);
* `expOrbit T ω n = (cos (nω), sin (nω))`, i.e. `e^{iωn}`; `orbitRe T ω S`, `orbitIm T ω S`: the
  parts of `Σ_{n=1}^S e^{iωn}`;
* `diffTerm ρ a b n`, `sumTerm ρ a b n`: `e^{i(θ_a − θ_b)n}` and `e^{i(θ_a + θ_b)n}` built from a
  RoPE rotation family `ρ` (`z_a(n) · conj z_b(n)` and `z_a(n) · z_b(n)`).

## Main statements

* `seq_geom`, `seq_normSq_mul_chord_le`, `seq_norm_le`: for a unit orbit, the geometric-sum
  identity, `|1 − w|² |Σ|² ≤ 4` and `|Σ| ≤ 2 / |1 − w|` for `w ≠ 1`;
* `chord_sq`: `(1 − cos ω)² + sin² ω = 4 sin² (ω/2)`, i.e. `|1 − e^{iω}|² = 4 sin²(ω/2)`;
* `chord_eq`: `√((1 − cos ω)² + sin² ω) = 2 |sin (ω/2)|` (with a `SqrtFn`);
* `orbit_geom`: `(1 − z) Σ_{n=1}^S z^n = z − z^{S+1}` for `z = e^{iω}`, real and imaginary parts;
* `orbit_normSq_mul_chord_le`: `|1 − z|² |Σ_{n=1}^S z^n|² ≤ 4`;
* `orbit_normSq_mul_sin_sq_le`: `sin² (ω/2) · |Σ_{n=1}^S e^{iωn}|² ≤ 1` (no hypothesis on `ω`);
* `orbit_norm_le`: `|Σ_{n=1}^S e^{iωn}| ≤ 1 / |sin (ω/2)|` when `sin (ω/2) ≠ 0`;
* `orbit_avg_norm_le`: `|Σ_{n=1}^S e^{iωn}| / S ≤ 1 / (S |sin (ω/2)|)`: the `O(1/S)` decay;
* `rope_twirl_diff_normSq_le`, `rope_twirl_diff_norm_le`, `rope_twirl_sum_norm_le`: the bound
  for the RoPE family's difference and sum frequencies (`2θ_a` is `sumTerm ρ a a`).

## Implementation notes

Core Lean has no `ℂ`, no `Real.sin`: `e^{iω}` is the pair `(cos ω, sin ω)`, products of pairs are
written out, and the modulus is `√(re² + im²)` for a `SqrtFn`. The only trigonometric facts used
are those of `CosSin` (the half-angle step writes `ω = ω/2 + ω/2`, which needs `2 ≠ 0`: true in
an ordered field) or of `RotFamily`. The bound multiplies the geometric-sum identity by its
conjugate (`|(1 − w) Σ|² = |1 − w|² |Σ|²`, Lagrange's identity) and bounds `|w − w^{S+1}|² ≤ 4`
by the parallelogram law; the division step reuses `le_div_of_mul_le`.
Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`
(`TwirlBound.lean`, over `ℂ` with `Complex.exp`): `norm_one_sub_exp` (↔ `chord_eq`) and
`geom_orbit_bound` (↔ `orbit_norm_le`); the `RotFamily` form is new. Not covered: the eigenbasis
reduction of the twirl operator itself and the maximum `C_Θ` over the RoPE difference frequencies.

## References

* Lem 5.9 (quantitative RoPE twirl) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (RoPE frequencies), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Rope

universe u

/-- A cosine/sine pair: the angle-addition formulas and `cos² + sin² = 1`. `Real.cos`,
`Real.sin` satisfy it (`Real.cos_add`, `Real.sin_add`, `Real.cos_sq_add_sin_sq`). -/
structure CosSin (α : Type u) [Add α] [Sub α] [Mul α] [OfNat α 1] where
  /-- the cosine -/
  cos : α → α
  /-- the sine -/
  sin : α → α
  /-- `cos (x + y) = cos x cos y − sin x sin y` -/
  cos_add : ∀ x y, cos (x + y) = cos x * cos y - sin x * sin y
  /-- `sin (x + y) = sin x cos y + cos x sin y` -/
  sin_add : ∀ x y, sin (x + y) = sin x * cos y + cos x * sin y
  /-- `cos² x + sin² x = 1` -/
  cos_sq_add_sin_sq : ∀ x, cos x * cos x + sin x * sin x = 1

variable {α : Type u}

/-- Real part of `Σ_{n=1}^S z n`. -/
noncomputable def seqRe [Add α] [OfNat α 0] (z : Nat → α × α) (S : Nat) : α :=
  fsum S (fun k => (z (k.val + 1)).1)

/-- Imaginary part of `Σ_{n=1}^S z n`. -/
noncomputable def seqIm [Add α] [OfNat α 0] (z : Nat → α × α) (S : Nat) : α :=
  fsum S (fun k => (z (k.val + 1)).2)

/-- `z` is the orbit of `z 1` under complex multiplication: `z (n+2) = z 1 · z (n+1)`. -/
def IsOrbit [Add α] [Sub α] [Mul α] (z : Nat → α × α) : Prop :=
  ∀ n, z (n + 2) = ((z 1).1 * (z (n + 1)).1 - (z 1).2 * (z (n + 1)).2,
    (z 1).1 * (z (n + 1)).2 + (z 1).2 * (z (n + 1)).1)

variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/- Core's `Lean.Grind.Semiring` carries `NatCast` as a field that is not a global instance. -/
attribute [local instance] Lean.Grind.Semiring.natCast

/-! ## Unit orbits -/

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- Lem 5.9, the geometric-sum identity `(1 − w) Σ_{n=1}^S z n = w − z (S+1)` for an orbit
`z n = w^n`, `w = z 1`, as real and imaginary parts. Does not cover: anything beyond the orbit
law. -/
theorem seq_geom (z : Nat → α × α) (hz : IsOrbit z) (S : Nat) :
    (1 - (z 1).1) * seqRe z S + (z 1).2 * seqIm z S = (z 1).1 - (z (S + 1)).1 ∧
      (1 - (z 1).1) * seqIm z S - (z 1).2 * seqRe z S = (z 1).2 - (z (S + 1)).2 := by
  induction S with
  | zero => simp only [seqRe, seqIm, fsum_zero]; constructor <;> grind
  | succ S ih =>
    simp only [seqRe, seqIm] at ih ⊢
    rw [fsum_succ, fsum_succ]
    simp only [Fin.val_castSucc, Fin.val_last]
    have h1 : (z (S + 1 + 1)).1 = (z 1).1 * (z (S + 1)).1 - (z 1).2 * (z (S + 1)).2 := by
      rw [hz S]
    have h2 : (z (S + 1 + 1)).2 = (z 1).1 * (z (S + 1)).2 + (z 1).2 * (z (S + 1)).1 := by
      rw [hz S]
    rw [h1, h2]
    obtain ⟨e1, e2⟩ := ih
    constructor <;> grind

/-- Lem 5.9 for a unit orbit: `|1 − w|² · |Σ_{n=1}^S z n|² ≤ 4`: the product is
`|w − w^{S+1}|² ≤ |w − w^{S+1}|² + |w + w^{S+1}|² = 2|w|² + 2|w^{S+1}|² = 4`. Does not cover:
the sharper `|w − w^{S+1}| = 2|sin (Sω/2)|`. -/
theorem seq_normSq_mul_chord_le (z : Nat → α × α) (hz : IsOrbit z)
    (hu : ∀ n, (z n).1 * (z n).1 + (z n).2 * (z n).2 = 1) (S : Nat) :
    ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2)
      * (seqRe z S * seqRe z S + seqIm z S * seqIm z S) ≤ 4 := by
  obtain ⟨h1, h2⟩ := seq_geom z hz S
  have hz1 := hu 1
  have hw := hu (S + 1)
  have hlag : ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2)
      * (seqRe z S * seqRe z S + seqIm z S * seqIm z S)
      = ((1 - (z 1).1) * seqRe z S + (z 1).2 * seqIm z S)
          * ((1 - (z 1).1) * seqRe z S + (z 1).2 * seqIm z S)
        + ((1 - (z 1).1) * seqIm z S - (z 1).2 * seqRe z S)
          * ((1 - (z 1).1) * seqIm z S - (z 1).2 * seqRe z S) := by grind
  rw [hlag, h1, h2]
  have p1 := mul_self_nonneg ((z 1).1 + (z (S + 1)).1)
  have p2 := mul_self_nonneg ((z 1).2 + (z (S + 1)).2)
  grind

/-- `|1 − w|² > 0` for `w ≠ 1`. -/
theorem chord_pos_of_ne (w : α × α) (hw : w ≠ (1, 0)) :
    0 < (1 - w.1) * (1 - w.1) + w.2 * w.2 := by
  by_cases h1 : w.1 = 1
  · have h2 : w.2 ≠ 0 := by
      intro h2; apply hw; cases w; simp only at h1 h2; rw [h1, h2]
    have := mul_self_pos h2
    have := mul_self_nonneg (1 - w.1)
    grind
  · have := mul_self_pos (show 1 - w.1 ≠ 0 by grind)
    have := mul_self_nonneg w.2
    grind

/-- Lem 5.9 for a unit orbit: `|Σ_{n=1}^S z n| ≤ 2 / |1 − w|` for `w = z 1 ≠ 1`, uniformly in
`S`, the moduli taken with a `SqrtFn`. Does not cover: `w = 1` (resonance). -/
theorem seq_norm_le (z : Nat → α × α) (hz : IsOrbit z)
    (hu : ∀ n, (z n).1 * (z n).1 + (z n).2 * (z n).2 = 1) (R : SqrtFn α) (hz1 : z 1 ≠ (1, 0))
    (S : Nat) :
    R.sqrt (seqRe z S * seqRe z S + seqIm z S * seqIm z S)
      ≤ 2 / R.sqrt ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2) := by
  have hc := chord_pos_of_ne (z 1) hz1
  have hX : 0 ≤ seqRe z S * seqRe z S + seqIm z S * seqIm z S := by
    have := mul_self_nonneg (seqRe z S); have := mul_self_nonneg (seqIm z S); grind
  have hrX := R.mul_self_sqrt _ hX
  have hrc := R.mul_self_sqrt _ (Std.le_of_lt hc)
  have hnX := R.sqrt_nonneg (seqRe z S * seqRe z S + seqIm z S * seqIm z S)
  have hnc := R.sqrt_nonneg ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2)
  have hpc : 0 < R.sqrt ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2) := by
    by_cases h0 : R.sqrt ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2) = 0
    · rw [h0] at hrc; grind
    · grind
  apply le_div_of_mul_le hpc
  apply le_of_mul_self_le_mul_self (by grind)
  have h := seq_normSq_mul_chord_le z hz hu S
  have e : R.sqrt (seqRe z S * seqRe z S + seqIm z S * seqIm z S)
      * R.sqrt ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2)
      * (R.sqrt (seqRe z S * seqRe z S + seqIm z S * seqIm z S)
      * R.sqrt ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2))
      = ((1 - (z 1).1) * (1 - (z 1).1) + (z 1).2 * (z 1).2)
        * (seqRe z S * seqRe z S + seqIm z S * seqIm z S) := by
    rw [← hrX, ← hrc]; grind
  rw [e]; grind

/-! ## A real angle: `e^{iωn} = (cos nω, sin nω)` -/

/-- `e^{iωn} = (cos (nω), sin (nω))`. -/
noncomputable def expOrbit (T : CosSin α) (ω : α) (n : Nat) : α × α :=
  (T.cos ((Nat.cast n : α) * ω), T.sin ((Nat.cast n : α) * ω))

/-- Real part of the orbit sum `Σ_{n=1}^S e^{iωn}`: `Σ_{n=1}^S cos (nω)`. -/
noncomputable def orbitRe (T : CosSin α) (ω : α) (S : Nat) : α := seqRe (expOrbit T ω) S

/-- Imaginary part of the orbit sum `Σ_{n=1}^S e^{iωn}`: `Σ_{n=1}^S sin (nω)`. -/
noncomputable def orbitIm (T : CosSin α) (ω : α) (S : Nat) : α := seqIm (expOrbit T ω) S

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `e^{iω·1} = (cos ω, sin ω)`. -/
theorem expOrbit_one (T : CosSin α) (ω : α) : expOrbit T ω 1 = (T.cos ω, T.sin ω) := by
  have h : (Nat.cast 1 : α) * ω = ω := by grind
  simp only [expOrbit, h]

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `n ↦ e^{iωn}` is the orbit of `e^{iω}` (the angle-addition formulas). -/
theorem expOrbit_isOrbit (T : CosSin α) (ω : α) : IsOrbit (expOrbit T ω) := by
  intro n
  rw [expOrbit_one]
  have h : (Nat.cast (n + 2) : α) * ω = ω + (Nat.cast (n + 1) : α) * ω := by grind
  simp only [expOrbit, h, T.cos_add, T.sin_add]
  congr 1; grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|e^{iωn}| = 1`. -/
theorem expOrbit_unit (T : CosSin α) (ω : α) (n : Nat) :
    (expOrbit T ω n).1 * (expOrbit T ω n).1 + (expOrbit T ω n).2 * (expOrbit T ω n).2 = 1 :=
  T.cos_sq_add_sin_sq _

/-- `ω/2 + ω/2 = ω` in an ordered field (`2 ≠ 0`). -/
theorem half_add_half (ω : α) : ω / 2 + ω / 2 = ω := by
  have h1 : (0 : α) < 1 := Lean.Grind.OrderedRing.zero_lt_one
  have h2 : (2 : α) ≠ 0 := by intro h; grind
  grind

/-- Lem 5.9, chord length, squared (authors' `norm_one_sub_exp`, squared):
`|1 − e^{iω}|² = (1 − cos ω)² + sin² ω = 4 sin² (ω/2)`. Does not cover: anything beyond the
`CosSin` laws. -/
theorem chord_sq (T : CosSin α) (ω : α) :
    (1 - T.cos ω) * (1 - T.cos ω) + T.sin ω * T.sin ω
      = 4 * (T.sin (ω / 2) * T.sin (ω / 2)) := by
  have hc := T.cos_add (ω / 2) (ω / 2)
  have hs := T.sin_add (ω / 2) (ω / 2)
  have hp := T.cos_sq_add_sin_sq (ω / 2)
  rw [half_add_half] at hc hs
  rw [hc, hs]
  grind

/-- Lem 5.9, chord length (authors' `norm_one_sub_exp`): `|1 − e^{iω}| = 2 |sin (ω/2)|`, the
modulus taken with a `SqrtFn`. Does not cover: `ℂ`'s norm itself (core Lean has no `ℂ`). -/
theorem chord_eq (T : CosSin α) (R : SqrtFn α) (ω : α) :
    R.sqrt ((1 - T.cos ω) * (1 - T.cos ω) + T.sin ω * T.sin ω) = 2 * absv (T.sin (ω / 2)) := by
  rw [chord_sq]
  have ha := absv_nonneg (T.sin (ω / 2))
  have haa : absv (T.sin (ω / 2)) * absv (T.sin (ω / 2)) = T.sin (ω / 2) * T.sin (ω / 2) := by
    rw [← absv_mul]; exact absv_of_nonneg (mul_self_nonneg _)
  have hx : 0 ≤ 4 * (T.sin (ω / 2) * T.sin (ω / 2)) := by
    have := mul_self_nonneg (T.sin (ω / 2)); grind
  have hr := R.mul_self_sqrt _ hx
  have hn := R.sqrt_nonneg (4 * (T.sin (ω / 2) * T.sin (ω / 2)))
  have h1 : (R.sqrt (4 * (T.sin (ω / 2) * T.sin (ω / 2))) - 2 * absv (T.sin (ω / 2)))
      * (R.sqrt (4 * (T.sin (ω / 2) * T.sin (ω / 2))) + 2 * absv (T.sin (ω / 2))) = 0 := by
    grind
  rcases Lean.Grind.Field.of_mul_eq_zero h1 with h2 | h2
  · grind
  · grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- Lem 5.9, the geometric-sum identity `(1 − z) Σ_{n=1}^S z^n = z − z^{S+1}` for
`z = e^{iω} = (cos ω, sin ω)`, as its real and imaginary parts (`1 − z = (1 − cos ω, −sin ω)`).
Does not cover: `z` off the unit circle. -/
theorem orbit_geom (T : CosSin α) (ω : α) (S : Nat) :
    (1 - T.cos ω) * orbitRe T ω S + T.sin ω * orbitIm T ω S
        = T.cos ω - T.cos ((Nat.cast (S + 1) : α) * ω) ∧
      (1 - T.cos ω) * orbitIm T ω S - T.sin ω * orbitRe T ω S
        = T.sin ω - T.sin ((Nat.cast (S + 1) : α) * ω) := by
  have h := seq_geom (expOrbit T ω) (expOrbit_isOrbit T ω) S
  rw [expOrbit_one] at h
  exact h

/-- Lem 5.9: `|1 − z|² · |Σ_{n=1}^S z^n|² ≤ 4` for `z = e^{iω}` (`seq_normSq_mul_chord_le`).
Does not cover: the sharper `|z − z^{S+1}| = 2|sin (Sω/2)|`. -/
theorem orbit_normSq_mul_chord_le (T : CosSin α) (ω : α) (S : Nat) :
    ((1 - T.cos ω) * (1 - T.cos ω) + T.sin ω * T.sin ω)
      * (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S) ≤ 4 := by
  have h := seq_normSq_mul_chord_le (expOrbit T ω) (expOrbit_isOrbit T ω) (expOrbit_unit T ω) S
  rw [expOrbit_one] at h
  exact h

/-- Lem 5.9, squared form of the orbit bound: `sin² (ω/2) · |Σ_{n=1}^S e^{iωn}|² ≤ 1`, for
every `ω` and `S`. Does not cover: the constant `C_Θ` of the RoPE spectrum. -/
theorem orbit_normSq_mul_sin_sq_le (T : CosSin α) (ω : α) (S : Nat) :
    (T.sin (ω / 2) * T.sin (ω / 2))
      * (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S) ≤ 1 := by
  have h := orbit_normSq_mul_chord_le T ω S
  rw [chord_sq] at h
  grind

/-- Lem 5.9, product form of the orbit bound: `|Σ_{n=1}^S e^{iωn}| · |sin (ω/2)| ≤ 1`, the
modulus taken with a `SqrtFn`. Does not cover: anything beyond `orbit_normSq_mul_sin_sq_le`. -/
theorem orbit_norm_mul_abs_sin_le (T : CosSin α) (R : SqrtFn α) (ω : α) (S : Nat) :
    R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S)
      * absv (T.sin (ω / 2)) ≤ 1 := by
  have hX : 0 ≤ orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S := by
    have := mul_self_nonneg (orbitRe T ω S); have := mul_self_nonneg (orbitIm T ω S); grind
  have hr := R.mul_self_sqrt _ hX
  have haa : absv (T.sin (ω / 2)) * absv (T.sin (ω / 2)) = T.sin (ω / 2) * T.sin (ω / 2) := by
    rw [← absv_mul]; exact absv_of_nonneg (mul_self_nonneg _)
  have h01 : (0 : α) ≤ 1 := Std.le_of_lt Lean.Grind.OrderedRing.zero_lt_one
  apply le_of_mul_self_le_mul_self h01
  have h := orbit_normSq_mul_sin_sq_le T ω S
  have e : R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S)
      * absv (T.sin (ω / 2)) * (R.sqrt (orbitRe T ω S * orbitRe T ω S
        + orbitIm T ω S * orbitIm T ω S) * absv (T.sin (ω / 2)))
      = (T.sin (ω / 2) * T.sin (ω / 2))
        * (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S) := by
    rw [← haa, ← hr]; grind
  rw [e]; grind

/-- Lem 5.9 (authors' `geom_orbit_bound`): `|Σ_{n=1}^S e^{iωn}| ≤ 1 / |sin (ω/2)|` whenever
`sin (ω/2) ≠ 0`, uniformly in `S`. Does not cover: `sin (ω/2) = 0` (resonant frequencies, where
the sum grows like `S`). -/
theorem orbit_norm_le (T : CosSin α) (R : SqrtFn α) {ω : α} (hω : T.sin (ω / 2) ≠ 0) (S : Nat) :
    R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S)
      ≤ 1 / absv (T.sin (ω / 2)) := by
  have hpos : 0 < absv (T.sin (ω / 2)) := by
    have := absv_nonneg (T.sin (ω / 2)); have := absv_ne_zero hω; grind
  exact le_div_of_mul_le hpos (orbit_norm_mul_abs_sin_le T R ω S)

/-- Lem 5.9, the `O(1/S)` twirl decay: the ergodic average satisfies
`|(1/S) Σ_{n=1}^S e^{iωn}| ≤ 1 / (S |sin (ω/2)|)` for `S > 0` and `sin (ω/2) ≠ 0`. Does not
cover: the twirl operator on matrices (its eigenbasis reduction). -/
theorem orbit_avg_norm_le (T : CosSin α) (R : SqrtFn α) {ω : α} (hω : T.sin (ω / 2) ≠ 0)
    {S : Nat} (hS : 0 < S) :
    R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S) / (Nat.cast S : α)
      ≤ 1 / ((Nat.cast S : α) * absv (T.sin (ω / 2))) := by
  have hpos : 0 < absv (T.sin (ω / 2)) := by
    have := absv_nonneg (T.sin (ω / 2)); have := absv_ne_zero hω; grind
  have hSp : (0 : α) < Nat.cast S := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hS
  apply le_div_of_mul_le (Lean.Grind.OrderedRing.mul_pos hSp hpos)
  have h := orbit_norm_mul_abs_sin_le T R ω S
  have hS0 : (Nat.cast S : α) ≠ 0 := ne_of_pos hSp
  have e : R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S)
      / (Nat.cast S : α) * ((Nat.cast S : α) * absv (T.sin (ω / 2)))
      = R.sqrt (orbitRe T ω S * orbitRe T ω S + orbitIm T ω S * orbitIm T ω S)
        * absv (T.sin (ω / 2)) := by grind
  rw [e]; exact h

/-! ## The RoPE family: difference and sum frequencies -/

section RotFamily
variable {m : Nat}

/-- `e^{i(θ_a − θ_b)n} = z_a(n) · conj z_b(n)` from the rotation family `ρ`
(`z_j(n) = (c j n, s j n)`). -/
noncomputable def diffTerm (ρ : RotFamily α m) (a b : Fin m) (n : Nat) : α × α :=
  (ρ.c a n * ρ.c b n + ρ.s a n * ρ.s b n, ρ.s a n * ρ.c b n - ρ.c a n * ρ.s b n)

/-- `e^{i(θ_a + θ_b)n} = z_a(n) · z_b(n)` (`a = b`: the frequency `2θ_a`). -/
noncomputable def sumTerm (ρ : RotFamily α m) (a b : Fin m) (n : Nat) : α × α :=
  (ρ.c a n * ρ.c b n - ρ.s a n * ρ.s b n, ρ.s a n * ρ.c b n + ρ.c a n * ρ.s b n)

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The difference-frequency terms form an orbit (the group law of `ρ`). -/
theorem diffTerm_isOrbit (ρ : RotFamily α m) (a b : Fin m) : IsOrbit (diffTerm ρ a b) := by
  intro n
  have e : ((n + 2 : Nat) : Int) = 1 + ((n + 1 : Nat) : Int) := by omega
  simp only [diffTerm]
  rw [e, ρ.c_add, ρ.c_add, ρ.s_add, ρ.s_add]
  have e1 : ((1 : Nat) : Int) = 1 := rfl
  rw [e1]
  have ha := ρ.sq_add_sq a 1
  have hb := ρ.sq_add_sq b 1
  congr 1 <;> grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The sum-frequency terms form an orbit (the group law of `ρ`). -/
theorem sumTerm_isOrbit (ρ : RotFamily α m) (a b : Fin m) : IsOrbit (sumTerm ρ a b) := by
  intro n
  have e : ((n + 2 : Nat) : Int) = 1 + ((n + 1 : Nat) : Int) := by omega
  simp only [sumTerm]
  rw [e, ρ.c_add, ρ.c_add, ρ.s_add, ρ.s_add]
  have e1 : ((1 : Nat) : Int) = 1 := rfl
  rw [e1]
  congr 1 <;> grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|e^{i(θ_a − θ_b)n}| = 1`. -/
theorem diffTerm_unit (ρ : RotFamily α m) (a b : Fin m) (n : Nat) :
    (diffTerm ρ a b n).1 * (diffTerm ρ a b n).1 + (diffTerm ρ a b n).2 * (diffTerm ρ a b n).2
      = 1 := by
  simp only [diffTerm]
  have ha := ρ.sq_add_sq a n
  have hb := ρ.sq_add_sq b n
  grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|e^{i(θ_a + θ_b)n}| = 1`. -/
theorem sumTerm_unit (ρ : RotFamily α m) (a b : Fin m) (n : Nat) :
    (sumTerm ρ a b n).1 * (sumTerm ρ a b n).1 + (sumTerm ρ a b n).2 * (sumTerm ρ a b n).2
      = 1 := by
  simp only [sumTerm]
  have ha := ρ.sq_add_sq a n
  have hb := ρ.sq_add_sq b n
  grind

/-- Lem 5.9 for the RoPE family, squared: `|1 − w|² |Σ_{n=1}^S e^{i(θ_a − θ_b)n}|² ≤ 4` with
`w = e^{i(θ_a − θ_b)}`, for every pair of planes and every `S`. Does not cover: the eigenbasis
reduction of the twirl operator. -/
theorem rope_twirl_diff_normSq_le (ρ : RotFamily α m) (a b : Fin m) (S : Nat) :
    ((1 - (diffTerm ρ a b 1).1) * (1 - (diffTerm ρ a b 1).1)
        + (diffTerm ρ a b 1).2 * (diffTerm ρ a b 1).2)
      * (seqRe (diffTerm ρ a b) S * seqRe (diffTerm ρ a b) S
        + seqIm (diffTerm ρ a b) S * seqIm (diffTerm ρ a b) S) ≤ 4 :=
  seq_normSq_mul_chord_le _ (diffTerm_isOrbit ρ a b) (diffTerm_unit ρ a b) S

/-- Lem 5.9 for the RoPE family, difference frequency: if `w = e^{i(θ_a − θ_b)} ≠ 1`, then
`|Σ_{n=1}^S e^{i(θ_a − θ_b)n}| ≤ 2 / |1 − w|` for every `S` (so the position average is
`O(1/S)`; over `ℝ`, `2/|1 − w| = 1/|sin((θ_a − θ_b)/2)|`). Does not cover: `w = 1`. -/
theorem rope_twirl_diff_norm_le (ρ : RotFamily α m) (R : SqrtFn α) (a b : Fin m)
    (hw : diffTerm ρ a b 1 ≠ (1, 0)) (S : Nat) :
    R.sqrt (seqRe (diffTerm ρ a b) S * seqRe (diffTerm ρ a b) S
        + seqIm (diffTerm ρ a b) S * seqIm (diffTerm ρ a b) S)
      ≤ 2 / R.sqrt ((1 - (diffTerm ρ a b 1).1) * (1 - (diffTerm ρ a b 1).1)
        + (diffTerm ρ a b 1).2 * (diffTerm ρ a b 1).2) :=
  seq_norm_le _ (diffTerm_isOrbit ρ a b) (diffTerm_unit ρ a b) R hw S

/-- Lem 5.9 for the RoPE family, sum frequency (`a = b`: `2θ_a`): if `w = e^{i(θ_a + θ_b)} ≠ 1`,
then `|Σ_{n=1}^S e^{i(θ_a + θ_b)n}| ≤ 2 / |1 − w|` for every `S`. Does not cover: `w = 1`. -/
theorem rope_twirl_sum_norm_le (ρ : RotFamily α m) (R : SqrtFn α) (a b : Fin m)
    (hw : sumTerm ρ a b 1 ≠ (1, 0)) (S : Nat) :
    R.sqrt (seqRe (sumTerm ρ a b) S * seqRe (sumTerm ρ a b) S
        + seqIm (sumTerm ρ a b) S * seqIm (sumTerm ρ a b) S)
      ≤ 2 / R.sqrt ((1 - (sumTerm ρ a b 1).1) * (1 - (sumTerm ρ a b 1).1)
        + (sumTerm ρ a b 1).2 * (sumTerm ρ a b 1).2) :=
  seq_norm_le _ (sumTerm_isOrbit ρ a b) (sumTerm_unit ρ a b) R hw S

end RotFamily

end PLGA.Rope
