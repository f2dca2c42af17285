module

public import Formal.Analytic
public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# The DAG regularizer and its positivity obstruction (Thm 4.4 walk side, Rem 4.5)

The DAG variant of PLDR-LLM adds `|log(tr e^{M⊙M} / d_k)|` for `M ∈ {A_LM, A_P, G_LM}`.
NOTEARS: for an acyclic (nilpotent) weighted graph `tr e^{N} = d`, so the regularizer is a
penalty for cycles. For entrywise-nonnegative `N`, `tr e^{N} ≥ d + tr N`; hence the DAG loss of
PLGA's tensors (`A_LM ≥ ε > 0`, Prop 3.7) is at least `log(1 + ε²) > 0` and never vanishes,
while for a strictly upper-triangular (acyclic, topologically ordered) `N` it is exactly `0`.

## Main definitions

* `fact`: the factorial (core Lean has none);
* `expTracePartial N K`: the partial sums `S_K = ∑_{k ≤ K} tr(N^k)/k!` of `tr e^{N}`;
* `ConvergesTo s T`: convergence of a sequence (ε–K, without absolute values);
* `ExpLogMono`: an `ExpLog` pair with strictly increasing `exp` (`Real.exp_lt_exp`).

## Main statements

* `matPow_entry_nonneg`, `trace_matPow_nonneg`: `(N^k)_{ij} ≥ 0`, `tr N^k ≥ 0` (walk counts);
* `expTracePartial_ge_card_add_trace`: `S_K ≥ d + tr N` for `K ≥ 1`;
* `trace_exp_ge_card_add_trace`, `trace_exp_ge_card`, `trace_exp_ge_of_diag_bound`
  (`T ≥ d + d c` when `N_ii ≥ c`), `trace_exp_hadamard_self_ge` (`T ≥ d + d ε²` for `N = M ⊙ M`,
  `M ≥ ε ≥ 0`); `trace_exp_ge_card_add_trace_of_convergesTo`: the limit form;
* `dagLoss_ge_log_one_add_sq`, `log_one_add_sq_pos`, `dagLoss_pos`: the obstruction
  `log(T/d) ≥ log(1 + ε²) > 0`;
* `dagLoss_nonneg`: the `|·|` in the code is redundant;
* `expTracePartial_eq_card_of_strictUpper`, `dagLoss_eq_zero_of_strictUpper`: the contrast, for
  strictly upper-triangular `N` every `S_K = d` and the loss is `0`.

## Implementation notes

Core Lean has no matrix exponential, so `tr e^{N}` is handled through its partial sums: any `T`
that bounds every `S_K` (the sup of the increasing sequence `S_K`, or its limit:
`le_of_convergesTo_of_monotone`) is covered, and mathlib's `(Matrix.exp N).trace` is such a `T`.
The logarithm is a hypothesis structure `ExpLogMono` (`ExpLog` plus strict monotonicity of
`exp`), not an axiom. Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations`: `pow_entry_nonneg`, `trace_pow_nonneg`,
`trace_exp_ge_card_add_trace`, `trace_exp_ge_card`, `trace_exp_ge_of_diag_bound` (trace bounds
only; no log step). The converse of NOTEARS (`tr e^{N} = d ⇒` acyclic, "loss 0 ⇒ acyclic") and
acyclic graphs in any topological order are in `Formal/Structure/Acyclic.lean`. Not covered: the
matrix exponential itself (and the float32 `matrix_exp` of the code), and gradients of the
regularizer.

## References

* Thm 4.4 (walk side), Rem 4.5, Prop 3.7 of the paper;
* `../shared/spec/PLGA_SPEC.md` §C (training objective, DAG loss).
-/

@[expose] public section

namespace PLGA.Dag

open PLGA

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

/-- The factorial, by recursion (core Lean has none). -/
def fact : Nat → Nat
  | 0 => 1
  | k + 1 => (k + 1) * fact k

/-- `k! > 0`. -/
theorem fact_pos (k : Nat) : 0 < fact k := by
  induction k with
  | zero => exact Nat.zero_lt_one
  | succ k ih => exact Nat.mul_pos (Nat.succ_pos k) ih

/-- The partial sums `S_K = ∑_{k ≤ K} tr(N^k) / k!` of `tr e^{N}`. -/
noncomputable def expTracePartial [Lean.Grind.Field α] {n : Nat} (N : Mat n n α) (K : Nat) : α :=
  fsum (K + 1) (fun k => Mat.trace (Mat.pow N k.val) / (Nat.cast (fact k.val) : α))

/-- `s` converges to `T` (ε–K definition, without absolute values). -/
def ConvergesTo [Add α] [Sub α] [OfNat α 0] [LT α] (s : Nat → α) (T : α) : Prop :=
  ∀ δ, 0 < δ → ∃ K0, ∀ K, K0 ≤ K → T - δ < s K ∧ s K < T + δ

/-- An exponential/logarithm pair with strictly increasing `exp` (`Real.exp_lt_exp`). -/
structure ExpLogMono (α : Type u) [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α]
    extends ExpLog α where
  /-- `exp` is strictly increasing -/
  exp_lt_exp : ∀ x y, x < y → exp x < exp y

section Field
variable [Lean.Grind.Field α]

/-- `S_0 = tr 1 = d`. -/
theorem expTracePartial_zero {n : Nat} (N : Mat n n α) :
    expTracePartial N 0 = (Nat.cast n : α) := by
  unfold expTracePartial
  rw [fsum_succ, fsum_zero]
  show 0 + Mat.trace (Mat.pow N 0) / (Nat.cast (fact 0) : α) = _
  rw [Mat.pow_zero, Mat.trace_one]
  have : fact 0 = 1 := rfl
  rw [this, Lean.Grind.Semiring.natCast_one]; grind

/-- `S_{K+1} = S_K + tr(N^{K+1})/(K+1)!`. -/
theorem expTracePartial_succ {n : Nat} (N : Mat n n α) (K : Nat) :
    expTracePartial N (K + 1)
      = expTracePartial N K + Mat.trace (Mat.pow N (K + 1)) / (Nat.cast (fact (K + 1)) : α) := by
  unfold expTracePartial
  rw [fsum_succ (K + 1)]
  rfl

/-- `S_1 = d + tr N`. -/
theorem expTracePartial_one {n : Nat} (N : Mat n n α) :
    expTracePartial N 1 = (Nat.cast n : α) + Mat.trace N := by
  rw [expTracePartial_succ, expTracePartial_zero, Mat.pow_one]
  have : fact 1 = 1 := rfl
  rw [this, Lean.Grind.Semiring.natCast_one]; grind

/-- `log 1 = 0`. -/
theorem ExpLogMono.log_one [LT α] (L : ExpLogMono α) : L.log 1 = 0 := by
  have := L.log_exp 0
  rwa [L.exp_zero] at this

/-- For strictly upper-triangular `N` (an acyclic graph in topological order), `(N^k)_{ij} = 0`
whenever `j < i + k`. -/
theorem matPow_entry_eq_zero_of_strictUpper {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, j.val ≤ i.val → N i j = 0) (k : Nat) :
    ∀ i j, j.val < i.val + k → Mat.pow N k i j = 0 := by
  induction k with
  | zero =>
    intro i j h
    have : i ≠ j := fun e => by rw [e] at h; omega
    simp [Mat.pow_zero, Mat.one, this]
  | succ k ih =>
    intro i j h
    rw [Mat.pow_succ, Mat.mul_apply]
    rw [fsum_congr n (g := fun _ => (0 : α)), fsum_const_zero]
    intro l
    by_cases hl : l.val < i.val + k
    · rw [ih i l hl]; grind
    · rw [hN l j (by omega)]; grind

/-- For strictly upper-triangular `N`, `tr N^k = 0` for `k ≥ 1` (no closed walks). -/
theorem trace_matPow_eq_zero_of_strictUpper {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, j.val ≤ i.val → N i j = 0) {k : Nat} (hk : 1 ≤ k) :
    Mat.trace (Mat.pow N k) = 0 := by
  unfold Mat.trace
  rw [fsum_congr n (g := fun _ => (0 : α)), fsum_const_zero]
  intro i
  exact matPow_entry_eq_zero_of_strictUpper N hN k i i (by omega)

/-- Contrast to the obstruction (NOTEARS, acyclic direction): for a strictly upper-triangular
`N` every partial sum of `tr e^{N}` equals `d`. Does not cover: acyclic graphs not given in
topological order and the converse (both in `Acyclic.lean`). -/
theorem expTracePartial_eq_card_of_strictUpper {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, j.val ≤ i.val → N i j = 0) (K : Nat) :
    expTracePartial N K = (Nat.cast n : α) := by
  induction K with
  | zero => exact expTracePartial_zero N
  | succ K ih =>
    rw [expTracePartial_succ, ih, trace_matPow_eq_zero_of_strictUpper N hN (Nat.le_add_left 1 K)]
    grind

end Field

section Ordered
variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- `(k! : α) > 0` in an ordered field. -/
theorem natCast_fact_pos (k : Nat) : 0 < (Nat.cast (fact k) : α) :=
  Lean.Grind.OrderedRing.pos_natCast_of_pos _ (fact_pos k)

/-- `x ≥ 0`, `y > 0` give `x / y ≥ 0`. -/
theorem div_nonneg_of_pos {x y : α} (hx : 0 ≤ x) (hy : 0 < y) : 0 ≤ x / y := by
  rw [Lean.Grind.Field.div_eq_mul_inv]
  exact Lean.Grind.OrderedRing.mul_nonneg hx
    (Std.le_of_lt (Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hy))

/-- Thm 4.4 (walk side; authors' `pow_entry_nonneg`): for entrywise-nonnegative `N`, every
power `N^k` is entrywise nonnegative (its entries are weighted walk counts).
Does not cover: strict positivity of powers (Perron–Frobenius). -/
theorem matPow_entry_nonneg {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (k : Nat) :
    ∀ i j, 0 ≤ Mat.pow N k i j := by
  induction k with
  | zero =>
    intro i j
    rw [Mat.pow_zero]
    by_cases h : i = j
    · simp only [Mat.one, h, if_true]; exact Lean.Grind.OrderedRing.zero_le_one
    · simp only [Mat.one, h, if_false]; exact Std.le_refl _
  | succ k ih =>
    intro i j
    rw [Mat.pow_succ]
    exact fsum_nonneg n _ (fun l => Lean.Grind.OrderedRing.mul_nonneg (ih i l) (hN l j))

/-- Thm 4.4 (authors' `trace_pow_nonneg`): `tr N^k ≥ 0` for entrywise-nonnegative `N`.
Does not cover: the closed-walk interpretation itself. -/
theorem trace_matPow_nonneg {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (k : Nat) :
    0 ≤ Mat.trace (Mat.pow N k) :=
  fsum_nonneg n _ (fun i => matPow_entry_nonneg N hN k i i)

/-- The partial sums of `tr e^{N}` increase by one step for nonnegative `N`. -/
theorem expTracePartial_le_succ {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (K : Nat) :
    expTracePartial N K ≤ expTracePartial N (K + 1) := by
  rw [expTracePartial_succ]
  have := div_nonneg_of_pos (trace_matPow_nonneg N hN (K + 1)) (natCast_fact_pos (α := α) (K + 1))
  grind

/-- The partial sums of `tr e^{N}` are monotone for nonnegative `N`. -/
theorem expTracePartial_mono {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) {K K' : Nat}
    (h : K ≤ K') : expTracePartial N K ≤ expTracePartial N K' := by
  obtain ⟨j, rfl⟩ := Nat.exists_eq_add_of_le h
  induction j with
  | zero => exact Std.le_refl _
  | succ j ih =>
    exact Std.le_trans (ih (Nat.le_add_right K j)) (expTracePartial_le_succ N hN (K + j))

/-- Rem 4.5: every partial sum `∑_{k≤K} tr(N^k)/k!` with `K ≥ 1` is `≥ d + tr N`.
Does not cover: the value of the full series. -/
theorem expTracePartial_ge_card_add_trace {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    {K : Nat} (hK : 1 ≤ K) : (Nat.cast n : α) + Mat.trace N ≤ expTracePartial N K := by
  rw [← expTracePartial_one]
  exact expTracePartial_mono N hN hK

/-- A limit of a monotone sequence bounds every term (so a limit `T` of the partial sums
satisfies the hypothesis `∀ K, S_K ≤ T` of the theorems below). -/
theorem le_of_convergesTo_of_monotone (s : Nat → α) (T : α)
    (hmono : ∀ K K', K ≤ K' → s K ≤ s K') (hT : ConvergesTo s T) (K : Nat) : s K ≤ T := by
  refine Classical.byContradiction fun hne => ?_
  have hlt : T < s K := by grind
  have hδ : (0 : α) < s K - T := by grind
  obtain ⟨K0, hK0⟩ := hT (s K - T) hδ
  have h1 := (hK0 (max K K0) (Nat.le_max_right K K0)).2
  have h2 := hmono K (max K K0) (Nat.le_max_left K K0)
  grind

/-- Rem 4.5 (authors' `trace_exp_ge_card_add_trace`): `d + tr N ≤ tr e^{N}` for nonnegative `N`,
with `tr e^{N}` any upper bound (sup or limit) of the partial sums.
Does not cover: construction of the matrix exponential. -/
theorem trace_exp_ge_card_add_trace {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (T : α)
    (hT : ∀ K, expTracePartial N K ≤ T) : (Nat.cast n : α) + Mat.trace N ≤ T :=
  Std.le_trans (expTracePartial_ge_card_add_trace N hN (Nat.le_refl 1)) (hT 1)

/-- Rem 4.5, limit form: if the partial sums converge to `T` then `d + tr N ≤ T`.
Does not cover: existence of the limit. -/
theorem trace_exp_ge_card_add_trace_of_convergesTo {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, 0 ≤ N i j) (T : α) (hT : ConvergesTo (expTracePartial N) T) :
    (Nat.cast n : α) + Mat.trace N ≤ T :=
  trace_exp_ge_card_add_trace N hN T
    (le_of_convergesTo_of_monotone _ T (fun _ _ h => expTracePartial_mono N hN h) hT)

/-- Rem 4.5 (authors' `trace_exp_ge_card`): `d ≤ tr e^{N}` for nonnegative `N`.
Does not cover: equality cases. -/
theorem trace_exp_ge_card {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (T : α)
    (hT : ∀ K, expTracePartial N K ≤ T) : (Nat.cast n : α) ≤ T := by
  have h1 := trace_exp_ge_card_add_trace N hN T hT
  have h2 : 0 ≤ Mat.trace N := by
    have := trace_matPow_nonneg N hN 1
    rwa [Mat.pow_one] at this
  grind

/-- A diagonal lower bound gives a trace lower bound: `N_ii ≥ c ⇒ tr N ≥ d c`. -/
theorem trace_ge_of_diag_bound {n : Nat} (N : Mat n n α) (c : α) (hc : ∀ i, c ≤ N i i) :
    (Nat.cast n : α) * c ≤ Mat.trace N := by
  rw [← fsum_const]
  exact fsum_le_fsum n _ _ hc

/-- Rem 4.5 (authors' `trace_exp_ge_of_diag_bound`): if `N_ii ≥ c` then `d + d c ≤ tr e^{N}`.
Does not cover: off-diagonal contributions (cycles of length ≥ 2). -/
theorem trace_exp_ge_of_diag_bound {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (c : α)
    (hc : ∀ i, c ≤ N i i) (T : α) (hT : ∀ K, expTracePartial N K ≤ T) :
    (Nat.cast n : α) + (Nat.cast n : α) * c ≤ T := by
  have h1 := trace_exp_ge_card_add_trace N hN T hT
  have h2 := trace_ge_of_diag_bound N c hc
  grind

/-- `0 ≤ a ≤ b` gives `a² ≤ b²`. -/
theorem mul_self_le_mul_self_of_le {a b : α} (h0 : 0 ≤ a) (h : a ≤ b) : a * a ≤ b * b := by
  have hb : 0 ≤ b := Std.le_trans h0 h
  have h1 : a * a ≤ a * b := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h h0
  have h2 : a * b ≤ b * b := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right h hb
  exact Std.le_trans h1 h2

/-- Rem 4.5 for the regularized tensor `M ⊙ M` with `M ≥ ε ≥ 0` entrywise (as for
`A_LM ≥ ε`): `d + d ε² ≤ tr e^{M⊙M}`. Does not cover: sharper bounds. -/
theorem trace_exp_hadamard_self_ge {n : Nat} (M : Mat n n α) {ε : α} (hε : 0 ≤ ε)
    (hM : ∀ i j, ε ≤ M i j) (T : α) (hT : ∀ K, expTracePartial (Mat.hadamard M M) K ≤ T) :
    (Nat.cast n : α) + (Nat.cast n : α) * (ε * ε) ≤ T :=
  trace_exp_ge_of_diag_bound (Mat.hadamard M M) (fun i j => mul_self_nonneg (M i j)) (ε * ε)
    (fun i => mul_self_le_mul_self_of_le hε (hM i i)) T hT

/-- `log` is monotone on the positive half-line. -/
theorem ExpLogMono.log_le_log (L : ExpLogMono α) {a b : α} (ha : 0 < a) (hab : a ≤ b) :
    L.log a ≤ L.log b := by
  refine Classical.byContradiction fun hne => ?_
  have hlt : L.log b < L.log a := by grind
  have := L.exp_lt_exp _ _ hlt
  rw [L.exp_log a ha, L.exp_log b (Std.lt_of_lt_of_le ha hab)] at this
  grind

/-- `log` is strictly increasing on the positive half-line. -/
theorem ExpLogMono.log_lt_log (L : ExpLogMono α) {a b : α} (ha : 0 < a) (hab : a < b) :
    L.log a < L.log b := by
  refine Classical.byContradiction fun hne => ?_
  have hle : L.log b ≤ L.log a := by grind
  have hb : 0 < b := Std.lt_trans ha hab
  rcases (show L.log b < L.log a ∨ L.log b = L.log a by grind) with h | h
  · have := L.exp_lt_exp _ _ h
    rw [L.exp_log a ha, L.exp_log b hb] at this
    grind
  · have := congrArg L.exp h
    rw [L.exp_log a ha, L.exp_log b hb] at this
    grind

/-- `T ≥ d(1 + c)` with `d > 0` gives `T / d ≥ 1 + c`. -/
theorem div_card_ge {n : Nat} (hn : 0 < n) {T c : α}
    (h : (Nat.cast n : α) + (Nat.cast n : α) * c ≤ T) : 1 + c ≤ T / (Nat.cast n : α) := by
  have hpos : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  have hinv : (0 : α) ≤ (Nat.cast n : α)⁻¹ :=
    Std.le_of_lt (Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hpos)
  have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right h hinv
  have hne : (Nat.cast n : α) ≠ 0 := by grind
  have h2 : ((Nat.cast n : α) + (Nat.cast n : α) * c) * (Nat.cast n : α)⁻¹ = 1 + c := by grind
  rw [Lean.Grind.Field.div_eq_mul_inv]
  grind

/-- Rem 4.5, the positivity obstruction: for `M ≥ ε > 0` entrywise (PLGA's `A_LM`, and hence
`A_P`, `G_LM` when positive), `log(tr e^{M⊙M} / d) ≥ log(1 + ε²)`.
Does not cover: tensors with entries of both signs (e.g. a general `G_LM`). -/
theorem dagLoss_ge_log_one_add_sq (L : ExpLogMono α) {n : Nat} (hn : 0 < n) (M : Mat n n α)
    {ε : α} (hε : 0 < ε) (hM : ∀ i j, ε ≤ M i j) (T : α)
    (hT : ∀ K, expTracePartial (Mat.hadamard M M) K ≤ T) :
    L.log (1 + ε * ε) ≤ L.log (T / (Nat.cast n : α)) := by
  have h := div_card_ge hn (trace_exp_hadamard_self_ge M (Std.le_of_lt hε) hM T hT)
  have hsq : 0 ≤ ε * ε := mul_self_nonneg ε
  exact L.log_le_log (by grind) h

/-- Rem 4.5: `log(1 + ε²) > 0` for `ε > 0`, so the DAG loss of PLGA's tensors is bounded away
from zero: exact acyclicity is unattainable. Does not cover: the size of the gap. -/
theorem log_one_add_sq_pos (L : ExpLogMono α) {ε : α} (hε : 0 < ε) : 0 < L.log (1 + ε * ε) := by
  have hsq : 0 < ε * ε := Lean.Grind.OrderedRing.mul_pos hε hε
  have := L.log_lt_log (a := 1) (b := 1 + ε * ε) Lean.Grind.OrderedRing.zero_lt_one (by grind)
  rwa [L.log_one] at this

/-- Rem 4.5 (combined): the DAG loss `log(tr e^{M⊙M}/d)` of an entrywise `≥ ε > 0` tensor is
strictly positive. Does not cover: the float32 `matrix_exp` of the code. -/
theorem dagLoss_pos (L : ExpLogMono α) {n : Nat} (hn : 0 < n) (M : Mat n n α) {ε : α}
    (hε : 0 < ε) (hM : ∀ i j, ε ≤ M i j) (T : α)
    (hT : ∀ K, expTracePartial (Mat.hadamard M M) K ≤ T) :
    0 < L.log (T / (Nat.cast n : α)) :=
  Std.lt_of_lt_of_le (log_one_add_sq_pos L hε) (dagLoss_ge_log_one_add_sq L hn M hε hM T hT)

/-- Spec C: the `|·|` in `|log(tr e^{N}/d)|` is redundant: the argument is `≥ 0` for every
nonnegative `N`. Does not cover: negative entries. -/
theorem dagLoss_nonneg (L : ExpLogMono α) {n : Nat} (hn : 0 < n) (N : Mat n n α)
    (hN : ∀ i j, 0 ≤ N i j) (T : α) (hT : ∀ K, expTracePartial N K ≤ T) :
    0 ≤ L.log (T / (Nat.cast n : α)) := by
  have h := div_card_ge (α := α) (T := T) (c := 0) hn
    (by have := trace_exp_ge_card N hN T hT; grind)
  have := L.log_le_log Lean.Grind.OrderedRing.zero_lt_one (by grind : (1 : α) ≤ T / Nat.cast n)
  rwa [L.log_one] at this

/-- The limit of a constant sequence is that constant. -/
theorem eq_of_convergesTo_const {c T : α} (hT : ConvergesTo (fun _ => c) T) : T = c := by
  refine Classical.byContradiction fun hne => ?_
  rcases (show T < c ∨ c < T by grind) with h | h
  · obtain ⟨K0, hK0⟩ := hT (c - T) (by grind)
    have := (hK0 K0 (Nat.le_refl _)).2
    grind
  · obtain ⟨K0, hK0⟩ := hT (T - c) (by grind)
    have := (hK0 K0 (Nat.le_refl _)).1
    grind

/-- Contrast (NOTEARS): the DAG loss of a strictly upper-triangular `N` is exactly `0`.
The converse (zero loss ⇒ acyclic) is `dagLoss_eq_zero_iff_hasTopoOrder` (`Acyclic.lean`). -/
theorem dagLoss_eq_zero_of_strictUpper (L : ExpLogMono α) {n : Nat} (hn : 0 < n) (N : Mat n n α)
    (hN : ∀ i j, j.val ≤ i.val → N i j = 0) (T : α) (hT : ConvergesTo (expTracePartial N) T) :
    L.log (T / (Nat.cast n : α)) = 0 := by
  have hfun : expTracePartial N = fun _ => (Nat.cast n : α) :=
    funext (expTracePartial_eq_card_of_strictUpper N hN)
  rw [hfun] at hT
  have hTn := eq_of_convergesTo_const hT
  have hpos : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  have hne : (Nat.cast n : α) ≠ 0 := by grind
  have : T / (Nat.cast n : α) = 1 := by rw [hTn, Lean.Grind.Field.div_eq_mul_inv]; grind
  rw [this, L.log_one]

end Ordered

end PLGA.Dag
