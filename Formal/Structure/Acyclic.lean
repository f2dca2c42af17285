module

public import Formal.Structure.Dag

/-!
# NOTEARS for nonnegative matrices: `tr e^{N} = d` iff the support graph is acyclic

For an entrywise-nonnegative `N : Mat n n α`, with support graph `i → j` iff `N i j > 0`, the
following are equivalent (Zheng et al., NOTEARS; declared out of scope in the authors'
repository):

* the support graph is acyclic, `HasTopoOrder N`: some rank `r : Fin n → Nat` strictly
  increases along every edge (a topological order);
* the support graph has no closed walk of positive edges (`¬ HasPosCycle N`);
* `tr N^k = 0` for every `k ≥ 1`;
* `N^n = 0` (nilpotent of index at most `n`);
* `tr e^{N} = d`, for `tr e^{N}` the limit of the partial sums `S_K = ∑_{k ≤ K} tr N^k / k!`;
* the DAG loss `log(tr e^{N}/d)` vanishes.

## Main definitions

* `HasTopoOrder N`: a rank function increasing along every positive edge (acyclicity);
* `IsPosWalk N p k`, `HasPosCycle N`: walks and closed walks of positive edges;
* `countFin n P`: the number of `i : Fin n` with `P i` (classical);
* `Reach N i j`: `(N^k)_{ij} > 0` for some `k ≥ 1`; `predCount N j`: the number of `i` with
  `Reach N i j` (the rank built in the converse).

## Main statements

* `matPow_entry_eq_zero_of_rank`: along a rank, `(N^k)_{ij} = 0` unless `r j ≥ r i + k`;
* `trace_matPow_eq_zero_of_hasTopoOrder`, `expTracePartial_eq_card_of_hasTopoOrder`: acyclic ⇒
  `tr N^k = 0` (`k ≥ 1`) ⇒ every partial sum equals `d`;
* `hasTopoOrder_of_diag`: zero diagonals of all `N^k` give a rank bounded by `n`;
* `hasTopoOrder_iff_trace_matPow_eq_zero`, `hasTopoOrder_iff_matPow_card_eq_zero`,
  `hasTopoOrder_iff_not_hasPosCycle`: the three combinatorial/algebraic equivalences;
* `matPow_entry_pos_of_isPosWalk`, `exists_isPosWalk_of_matPow_entry_pos`: `(N^k)_{ij} > 0` iff
  there is a positive walk of length `k` from `i` to `j`;
* `hasTopoOrder_of_trace_exp_le_card`: any upper bound `T ≤ d` of the partial sums forces
  acyclicity; `trace_exp_eq_card_iff_hasTopoOrder`: for the limit `T`, `T = d ⇔` acyclic;
* `dagLoss_eq_zero_iff_hasTopoOrder`: `log(T/d) = 0 ⇔` acyclic (NOTEARS, both directions);
* `hasTopoOrder_of_strictUpper`, `not_hasTopoOrder_of_diag_pos`: the definition holds for
  strictly upper-triangular `N` and fails as soon as one diagonal entry is positive (e.g. every
  `A_LM ≥ ε > 0`).

## Implementation notes

Acyclicity is a rank function (`∃ r, ∀ i j, N i j > 0 → r i < r j`), a purely order-theoretic
condition on the support: it mentions neither traces nor powers. The converse direction builds
the rank `r j = #{i : i reaches j}`: an edge `i → j` adds `i` itself to the predecessors of `j`
(and `i` does not reach itself because every diagonal of `N^k` vanishes), so `r i < r j`; this
avoids any pigeonhole argument on walks, and `r j < n` gives `N^n = 0`. The exponential is
handled as in `Formal/Structure/Dag.lean`: through its partial sums, with `T` their limit
(`ConvergesTo`) or any upper bound. Nonnegativity of `N` is essential: with entries of both signs
traces of powers can cancel. Counterparts in `burcgokden/PLDR-LLM-Math-Foundations`: none
(NOTEARS is listed there as out of scope). Not covered: matrices with entries of both signs; the
equivalence with a permutation similarity to a strictly upper-triangular matrix (the rank is the
same data up to sorting); the float32 `matrix_exp`.

## References

* Thm 4.4 (walk side), Rem 4.5 of the paper; Zheng, Aragam, Ravikumar, Xing, "DAGs with NO
  TEARS" (NeurIPS 2018), Thm 1;
* `../shared/spec/PLGA_SPEC.md` §C (training objective, DAG loss).
-/

@[expose] public section

namespace PLGA.Dag

open PLGA

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

/-- Acyclicity of the support graph (`i → j` iff `N i j > 0`): a topological order, i.e. a rank
`r : Fin n → Nat` that strictly increases along every positive edge. -/
def HasTopoOrder [LT α] [OfNat α 0] {n : Nat} (N : Mat n n α) : Prop :=
  ∃ r : Fin n → Nat, ∀ i j, 0 < N i j → r i < r j

/-- `p 0, p 1, …, p k` is a walk of length `k` along positive edges of `N`. -/
def IsPosWalk [LT α] [OfNat α 0] {n : Nat} (N : Mat n n α) (p : Nat → Fin n) (k : Nat) : Prop :=
  ∀ t, t < k → 0 < N (p t) (p (t + 1))

/-- The support graph has a closed walk of positive length along positive edges. -/
def HasPosCycle [LT α] [OfNat α 0] {n : Nat} (N : Mat n n α) : Prop :=
  ∃ (k : Nat) (p : Nat → Fin n), 1 ≤ k ∧ IsPosWalk N p k ∧ p k = p 0

open Classical in
/-- `countFin n P`: the number of `i : Fin n` with `P i` (classical decidability). -/
noncomputable def countFin : (n : Nat) → (Fin n → Prop) → Nat
  | 0, _ => 0
  | n + 1, P => countFin n (fun i => P i.castSucc) + (if P (Fin.last n) then 1 else 0)

/-- At most `n` indices satisfy a predicate on `Fin n`. -/
theorem countFin_le : ∀ (n : Nat) (P : Fin n → Prop), countFin n P ≤ n
  | 0, _ => Nat.le_refl 0
  | n + 1, P => by
    have := countFin_le n (fun i => P i.castSucc)
    unfold countFin
    split <;> omega

/-- `countFin` is monotone under implication of predicates. -/
theorem countFin_mono : ∀ (n : Nat) (P Q : Fin n → Prop), (∀ i, P i → Q i) →
    countFin n P ≤ countFin n Q
  | 0, _, _, _ => Nat.le_refl 0
  | n + 1, P, Q, h => by
    have := countFin_mono n (fun i => P i.castSucc) (fun i => Q i.castSucc) (fun i => h _)
    unfold countFin
    have hl := h (Fin.last n)
    split <;> split <;> grind

/-- `P ⊆ Q` with a witness `x ∈ Q \ P` gives `countFin P < countFin Q`. -/
theorem countFin_lt : ∀ (n : Nat) (P Q : Fin n → Prop), (∀ i, P i → Q i) → ∀ x, Q x → ¬ P x →
    countFin n P < countFin n Q
  | 0, _, _, _, x, _, _ => x.elim0
  | n + 1, P, Q, h, x, hQ, hP => by
    unfold countFin
    have hl := h (Fin.last n)
    by_cases hx : x = Fin.last n
    · subst hx
      have := countFin_mono n (fun i => P i.castSucc) (fun i => Q i.castSucc) (fun i => h _)
      rw [if_neg hP, if_pos hQ]; omega
    · have hlt : x.val < n := by
        have := x.isLt
        have : x.val ≠ n := fun e => hx (Fin.ext e)
        omega
      have hc : (⟨x.val, hlt⟩ : Fin n).castSucc = x := Fin.ext rfl
      have := countFin_lt n (fun i => P i.castSucc) (fun i => Q i.castSucc) (fun i => h _)
        ⟨x.val, hlt⟩ (by simp only [hc]; exact hQ) (by simp only [hc]; exact hP)
      split <;> split <;> grind

/-- A predicate failing somewhere holds at fewer than `n` indices. -/
theorem countFin_lt_card (n : Nat) (P : Fin n → Prop) (x : Fin n) (hx : ¬ P x) :
    countFin n P < n := by
  have h1 := countFin_lt n P (fun _ => True) (fun _ _ => trivial) x trivial hx
  have h2 := countFin_le n (fun _ => True)
  omega

/-- `i` reaches `j`: some power `N^k`, `k ≥ 1`, has `(N^k)_{ij} > 0` (for nonnegative `N`: a
positive walk of length `k ≥ 1` from `i` to `j`). -/
def Reach [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] {n : Nat} (N : Mat n n α)
    (i j : Fin n) : Prop :=
  ∃ k, 1 ≤ k ∧ 0 < Mat.pow N k i j

/-- The number of vertices that reach `j`: the rank used to build a topological order. -/
noncomputable def predCount [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] {n : Nat}
    (N : Mat n n α) (j : Fin n) : Nat :=
  countFin n (fun i => Reach N i j)

section Ordered
variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- `0 ≤ x` and `¬ 0 < x` give `x = 0`. -/
theorem eq_zero_of_nonneg_of_not_pos {x : α} (h0 : 0 ≤ x) (h : ¬ 0 < x) : x = 0 := by
  grind

/-- NOTEARS, acyclic side: if a rank `r` increases along every positive edge of a nonnegative
`N`, then `(N^k)_{ij} = 0` whenever `r j < r i + k` (a walk of length `k` raises the rank by
`k`). Generalizes `matPow_entry_eq_zero_of_strictUpper` (`r = Fin.val`). -/
theorem matPow_entry_eq_zero_of_rank {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (r : Fin n → Nat) (hr : ∀ i j, 0 < N i j → r i < r j) (k : Nat) :
    ∀ i j, r j < r i + k → Mat.pow N k i j = 0 := by
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
    by_cases hl : r l < r i + k
    · rw [ih i l hl]; grind
    · have hnp : ¬ 0 < N l j := fun hp => by have := hr l j hp; omega
      rw [eq_zero_of_nonneg_of_not_pos (hN l j) hnp]; grind

/-- Acyclic nonnegative `N`: every diagonal entry of `N^k`, `k ≥ 1`, vanishes. -/
theorem matPow_diag_eq_zero_of_hasTopoOrder {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (h : HasTopoOrder N) {k : Nat} (hk : 1 ≤ k) (i : Fin n) : Mat.pow N k i i = 0 := by
  obtain ⟨r, hr⟩ := h
  exact matPow_entry_eq_zero_of_rank N hN r hr k i i (by omega)

/-- NOTEARS, acyclic side: `tr N^k = 0` for `k ≥ 1` when the support graph of the nonnegative
`N` is acyclic (in any topological order, not only the identity order). -/
theorem trace_matPow_eq_zero_of_hasTopoOrder {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (h : HasTopoOrder N) {k : Nat} (hk : 1 ≤ k) : Mat.trace (Mat.pow N k) = 0 := by
  unfold Mat.trace
  rw [fsum_congr n (g := fun _ => (0 : α)), fsum_const_zero]
  intro i
  exact matPow_diag_eq_zero_of_hasTopoOrder N hN h hk i

/-- For nonnegative `N`, `tr N^k = 0` forces every diagonal entry of `N^k` to vanish. -/
theorem matPow_diag_eq_zero_of_trace {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) {k : Nat}
    (hk : Mat.trace (Mat.pow N k) = 0) (i : Fin n) : Mat.pow N k i i = 0 := by
  have h1 := le_fsum_of_nonneg n (fun i => Mat.pow N k i i)
    (fun i => matPow_entry_nonneg N hN k i i) i
  have h2 := matPow_entry_nonneg N hN k i i
  unfold Mat.trace at hk
  grind

/-- For nonnegative `N`: `(N^k)_{il} > 0` and `N_{lj} > 0` give `(N^{k+1})_{ij} > 0`. -/
theorem matPow_succ_entry_pos {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (k : Nat)
    {i l j : Fin n} (h1 : 0 < Mat.pow N k i l) (h2 : 0 < N l j) : 0 < Mat.pow N (k + 1) i j := by
  rw [Mat.pow_succ, Mat.mul_apply]
  have := le_fsum_of_nonneg n (fun m => Mat.pow N k i m * N m j)
    (fun m => Lean.Grind.OrderedRing.mul_nonneg (matPow_entry_nonneg N hN k i m) (hN m j)) l
  exact Std.lt_of_lt_of_le (Lean.Grind.OrderedRing.mul_pos h1 h2) this

/-- Converse construction: if no `N^k` (`k ≥ 1`) has a positive diagonal entry, an edge
`N i j > 0` strictly raises the predecessor count, `predCount N i < predCount N j`. -/
theorem predCount_lt_of_pos {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (hdiag : ∀ k, 1 ≤ k → ∀ i, Mat.pow N k i i = 0) {i j : Fin n} (hij : 0 < N i j) :
    predCount N i < predCount N j := by
  apply countFin_lt n _ _ _ i
  · exact ⟨1, Nat.le_refl 1, by rw [Mat.pow_one]; exact hij⟩
  · intro ⟨k, hk, hpos⟩
    rw [hdiag k hk i] at hpos
    grind
  · intro l ⟨k, hk, hpos⟩
    exact ⟨k + 1, by omega, matPow_succ_entry_pos N hN k hpos hij⟩

/-- Under the same hypothesis `predCount N j < n` (`j` does not reach itself). -/
theorem predCount_lt_card {n : Nat} (N : Mat n n α)
    (hdiag : ∀ k, 1 ≤ k → ∀ i, Mat.pow N k i i = 0) (j : Fin n) : predCount N j < n := by
  apply countFin_lt_card n _ j
  intro ⟨k, hk, hpos⟩
  rw [hdiag k hk j] at hpos
  grind

/-- NOTEARS, converse core: for nonnegative `N` with every diagonal entry of every `N^k`
(`k ≥ 1`) zero, the support graph has a topological order with ranks below `n`. -/
theorem hasTopoOrder_of_diag {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (hdiag : ∀ k, 1 ≤ k → ∀ i, Mat.pow N k i i = 0) :
    ∃ r : Fin n → Nat, (∀ i, r i < n) ∧ ∀ i j, 0 < N i j → r i < r j :=
  ⟨predCount N, predCount_lt_card N hdiag, fun _ _ h => predCount_lt_of_pos N hN hdiag h⟩

/-- NOTEARS (trace form), both directions: a nonnegative `N` has an acyclic support graph iff
`tr N^k = 0` for every `k ≥ 1`. Does not cover: entries of both signs. -/
theorem hasTopoOrder_iff_trace_matPow_eq_zero {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, 0 ≤ N i j) :
    HasTopoOrder N ↔ ∀ k, 1 ≤ k → Mat.trace (Mat.pow N k) = 0 := by
  constructor
  · intro h k hk; exact trace_matPow_eq_zero_of_hasTopoOrder N hN h hk
  · intro h
    obtain ⟨r, -, hr⟩ := hasTopoOrder_of_diag N hN
      (fun k hk i => matPow_diag_eq_zero_of_trace N hN (h k hk) i)
    exact ⟨r, hr⟩

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `N^{a+b} = N^a N^b`. -/
theorem matPow_add {n : Nat} (N : Mat n n α) (a b : Nat) :
    Mat.pow N (a + b) = Mat.mul (Mat.pow N a) (Mat.pow N b) := by
  induction b with
  | zero => rw [Nat.add_zero, Mat.pow_zero, Mat.mul_one]
  | succ b ih =>
    rw [← Nat.add_assoc, Mat.pow_succ, Mat.pow_succ, ih, Mat.mul_assoc]

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `N^m = 0` gives `N^k = 0` for every `k ≥ m`. -/
theorem matPow_eq_zero_of_le {n : Nat} (N : Mat n n α) {m : Nat}
    (hm : Mat.pow N m = Mat.zero n n) {k : Nat} (hk : m ≤ k) : Mat.pow N k = Mat.zero n n := by
  obtain ⟨t, rfl⟩ := Nat.exists_eq_add_of_le hk
  rw [matPow_add, hm]
  funext i j
  simp only [Mat.mul_apply, Mat.zero]
  rw [fsum_congr n (g := fun _ => (0 : α)), fsum_const_zero]
  intro l; grind

/-- A rank with values below `n` increasing along positive edges forces `N^n = 0`. -/
theorem matPow_card_eq_zero_of_rank {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (r : Fin n → Nat) (hrn : ∀ i, r i < n) (hr : ∀ i j, 0 < N i j → r i < r j) :
    Mat.pow N n = Mat.zero n n := by
  funext i j
  exact matPow_entry_eq_zero_of_rank N hN r hr n i j (by have := hrn j; omega)

/-- For nonnegative `N`, `(N^k)_{ii} > 0` gives `(N^{k(m+1)})_{ii} > 0` (repeat the closed
walk). -/
theorem matPow_mul_diag_pos {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) {k : Nat}
    {i : Fin n} (h : 0 < Mat.pow N k i i) : ∀ m, 0 < Mat.pow N (k * (m + 1)) i i := by
  intro m
  induction m with
  | zero => rw [Nat.mul_one]; exact h
  | succ m ih =>
    have e : k * (m + 1 + 1) = k * (m + 1) + k := by rw [Nat.mul_succ]
    rw [e, matPow_add, Mat.mul_apply]
    have := le_fsum_of_nonneg n (fun l => Mat.pow N (k * (m + 1)) i l * Mat.pow N k l i)
      (fun l => Lean.Grind.OrderedRing.mul_nonneg (matPow_entry_nonneg N hN _ i l)
        (matPow_entry_nonneg N hN k l i)) i
    exact Std.lt_of_lt_of_le (Lean.Grind.OrderedRing.mul_pos ih h) this

/-- For nonnegative nilpotent `N` (`N^m = 0`) every diagonal of `N^k`, `k ≥ 1`, vanishes. -/
theorem matPow_diag_eq_zero_of_nilpotent {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    {m : Nat} (hm : Mat.pow N m = Mat.zero n n) {k : Nat} (hk : 1 ≤ k) (i : Fin n) :
    Mat.pow N k i i = 0 := by
  refine Classical.byContradiction fun hne => ?_
  have hpos : 0 < Mat.pow N k i i := by have := matPow_entry_nonneg N hN k i i; grind
  have h1 := matPow_mul_diag_pos N hN hpos m
  have hle : m ≤ k * (m + 1) := by
    have : m + 1 ≤ k * (m + 1) := Nat.le_mul_of_pos_left (m + 1) hk
    omega
  rw [matPow_eq_zero_of_le N hm hle] at h1
  simp only [Mat.zero] at h1
  grind

/-- NOTEARS (nilpotent form), both directions: a nonnegative `N` has an acyclic support
graph iff `N^n = 0`. Does not cover: entries of both signs (nilpotency and acyclicity then
differ). -/
theorem hasTopoOrder_iff_matPow_card_eq_zero {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, 0 ≤ N i j) : HasTopoOrder N ↔ Mat.pow N n = Mat.zero n n := by
  constructor
  · intro h
    obtain ⟨r, hrn, hr⟩ := hasTopoOrder_of_diag N hN
      (fun k hk i => matPow_diag_eq_zero_of_hasTopoOrder N hN h hk i)
    exact matPow_card_eq_zero_of_rank N hN r hrn hr
  · intro h
    obtain ⟨r, -, hr⟩ := hasTopoOrder_of_diag N hN
      (fun k hk i => matPow_diag_eq_zero_of_nilpotent N hN h hk i)
    exact ⟨r, hr⟩

/-- Thm 4.4 (walk side): a positive walk of length `k` from `i` to `j` makes
`(N^k)_{ij} > 0` for nonnegative `N`. -/
theorem matPow_entry_pos_of_isPosWalk {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (p : Nat → Fin n) : ∀ k, IsPosWalk N p k → 0 < Mat.pow N k (p 0) (p k) := by
  intro k
  induction k with
  | zero =>
    intro _
    simp only [Mat.pow_zero, Mat.one, if_true]
    exact Lean.Grind.OrderedRing.zero_lt_one
  | succ k ih =>
    intro hw
    exact matPow_succ_entry_pos N hN k (ih (fun t ht => hw t (by omega))) (hw k (by omega))

/-- Thm 4.4 (walk side), converse: for nonnegative `N`, `(N^k)_{ij} > 0` gives a positive walk
of length `k` from `i` to `j`. -/
theorem exists_isPosWalk_of_matPow_entry_pos {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) :
    ∀ k i j, 0 < Mat.pow N k i j → ∃ p : Nat → Fin n, p 0 = i ∧ p k = j ∧ IsPosWalk N p k := by
  intro k
  induction k with
  | zero =>
    intro i j h
    have hij : i = j := by
      refine Classical.byContradiction fun hne => ?_
      simp only [Mat.pow_zero, Mat.one, hne, if_false] at h
      grind
    exact ⟨fun _ => i, rfl, hij, fun t ht => by omega⟩
  | succ k ih =>
    intro i j h
    rw [Mat.pow_succ, Mat.mul_apply] at h
    have hex : ∃ l, 0 < Mat.pow N k i l * N l j := by
      refine Classical.byContradiction fun hne => ?_
      have hle := fsum_le_fsum n (fun l => Mat.pow N k i l * N l j) (fun _ => (0 : α))
        (fun l => by
          refine Classical.byContradiction fun hl => ?_
          exact hne ⟨l, by grind⟩)
      rw [fsum_const_zero] at hle
      grind
    obtain ⟨l, hl⟩ := hex
    have h1 : 0 < Mat.pow N k i l := by
      refine Classical.byContradiction fun hne => ?_
      have : Mat.pow N k i l = 0 := by have := matPow_entry_nonneg N hN k i l; grind
      rw [this] at hl; grind
    have h2 : 0 < N l j := by
      refine Classical.byContradiction fun hne => ?_
      have : N l j = 0 := by have := hN l j; grind
      rw [this] at hl; grind
    obtain ⟨p, hp0, hpk, hw⟩ := ih i l h1
    refine ⟨fun t => if t ≤ k then p t else j, by simp [hp0],
      by simp only [Nat.not_succ_le_self, if_false], ?_⟩
    intro t ht
    by_cases htk : t < k
    · have e1 : t ≤ k := by omega
      have e2 : t + 1 ≤ k := htk
      simp only [e1, e2, if_true]
      exact hw t htk
    · have e : t = k := by omega
      subst e
      simp only [Nat.le_refl, if_true, Nat.not_succ_le_self, if_false, hpk]
      exact h2

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- A topological order excludes positive closed walks (the rank would increase around it). -/
theorem not_hasPosCycle_of_hasTopoOrder {n : Nat} (N : Mat n n α) (h : HasTopoOrder N) :
    ¬ HasPosCycle N := by
  obtain ⟨r, hr⟩ := h
  intro ⟨k, p, hk, hw, hcl⟩
  have hmono : ∀ t, t ≤ k → r (p 0) + t ≤ r (p t) := by
    intro t
    induction t with
    | zero => intro _; omega
    | succ t ih =>
      intro ht
      have := hr _ _ (hw t (by omega))
      have := ih (by omega)
      omega
  have := hmono k (Nat.le_refl k)
  rw [hcl] at this
  omega

/-- NOTEARS (graph form), both directions: a nonnegative `N` has a topological order iff its
support graph has no closed walk of positive edges. -/
theorem hasTopoOrder_iff_not_hasPosCycle {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) :
    HasTopoOrder N ↔ ¬ HasPosCycle N := by
  constructor
  · exact not_hasPosCycle_of_hasTopoOrder N
  · intro hc
    obtain ⟨r, -, hr⟩ := hasTopoOrder_of_diag N hN (fun k hk i => by
      refine Classical.byContradiction fun hne => ?_
      have hpos : 0 < Mat.pow N k i i := by have := matPow_entry_nonneg N hN k i i; grind
      obtain ⟨p, hp0, hpk, hw⟩ := exists_isPosWalk_of_matPow_entry_pos N hN k i i hpos
      exact hc ⟨k, p, hk, hw, by rw [hp0, hpk]⟩)
    exact ⟨r, hr⟩

/-- NOTEARS, acyclic side: every partial sum of `tr e^{N}` equals `d` for an acyclic nonnegative
`N` (any topological order). -/
theorem expTracePartial_eq_card_of_hasTopoOrder {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (h : HasTopoOrder N) (K : Nat) : expTracePartial N K = (Nat.cast n : α) := by
  induction K with
  | zero => exact expTracePartial_zero N
  | succ K ih =>
    rw [expTracePartial_succ, ih,
      trace_matPow_eq_zero_of_hasTopoOrder N hN h (Nat.le_add_left 1 K)]
    grind

/-- NOTEARS, converse step: if every partial sum of `tr e^{N}` is `≤ d` (nonnegative `N`), then
`tr N^k = 0` for every `k ≥ 1` (each term is `≥ 0` and `S_0 = d`). -/
theorem trace_matPow_eq_zero_of_expTracePartial_le {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, 0 ≤ N i j) (h : ∀ K, expTracePartial N K ≤ (Nat.cast n : α)) {k : Nat}
    (hk : 1 ≤ k) : Mat.trace (Mat.pow N k) = 0 := by
  obtain ⟨j, rfl⟩ : ∃ j, k = j + 1 := ⟨k - 1, by omega⟩
  have h1 := h (j + 1)
  rw [expTracePartial_succ] at h1
  have h0 : (Nat.cast n : α) ≤ expTracePartial N j := by
    rw [← expTracePartial_zero N]; exact expTracePartial_mono N hN (Nat.zero_le j)
  have hf := natCast_fact_pos (α := α) (j + 1)
  have ht := trace_matPow_nonneg N hN (j + 1)
  have hq := div_nonneg_of_pos ht hf
  have hq0 : Mat.trace (Mat.pow N (j + 1)) / (Nat.cast (fact (j + 1)) : α) = 0 := by grind
  have hfne : (Nat.cast (fact (j + 1)) : α) ≠ 0 := by grind
  rw [Lean.Grind.Field.div_eq_mul_inv] at hq0
  rcases Lean.Grind.Field.of_mul_eq_zero hq0 with e | e
  · exact e
  · have := Lean.Grind.Field.mul_inv_cancel hfne
    rw [e] at this; grind

/-- NOTEARS, converse ("`tr e^{N} = d` ⇒ acyclic"): for nonnegative `N`, any upper bound `T` of
the partial sums (sup or limit) with `T ≤ d` forces an acyclic support graph. -/
theorem hasTopoOrder_of_trace_exp_le_card {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (T : α) (hT : ∀ K, expTracePartial N K ≤ T) (hTn : T ≤ (Nat.cast n : α)) :
    HasTopoOrder N :=
  (hasTopoOrder_iff_trace_matPow_eq_zero N hN).mpr fun _ hk =>
    trace_matPow_eq_zero_of_expTracePartial_le N hN (fun K => Std.le_trans (hT K) hTn) hk

/-- NOTEARS (Zheng et al. Thm 1, nonnegative case), both directions: for nonnegative `N` with
partial sums converging to `T` (`T = tr e^{N}`), `T = d` iff the support graph is acyclic.
Does not cover: existence of the limit; entries of both signs. -/
theorem trace_exp_eq_card_iff_hasTopoOrder {n : Nat} (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j)
    (T : α) (hT : ConvergesTo (expTracePartial N) T) : T = (Nat.cast n : α) ↔ HasTopoOrder N := by
  have hle := le_of_convergesTo_of_monotone _ T (fun _ _ h => expTracePartial_mono N hN h) hT
  constructor
  · intro hTn
    exact hasTopoOrder_of_trace_exp_le_card N hN T hle (by rw [hTn]; exact Std.le_refl _)
  · intro h
    have hfun : expTracePartial N = fun _ => (Nat.cast n : α) :=
      funext (expTracePartial_eq_card_of_hasTopoOrder N hN h)
    rw [hfun] at hT
    exact eq_of_convergesTo_const hT

/-- Rem 4.5 / NOTEARS: the DAG loss `log(tr e^{N}/d)` of a nonnegative `N` vanishes iff its
support graph is acyclic (both directions). Does not cover: the float32 `matrix_exp`. -/
theorem dagLoss_eq_zero_iff_hasTopoOrder (L : ExpLogMono α) {n : Nat} (hn : 0 < n)
    (N : Mat n n α) (hN : ∀ i j, 0 ≤ N i j) (T : α) (hT : ConvergesTo (expTracePartial N) T) :
    L.log (T / (Nat.cast n : α)) = 0 ↔ HasTopoOrder N := by
  rw [← trace_exp_eq_card_iff_hasTopoOrder N hN T hT]
  have hle := le_of_convergesTo_of_monotone _ T (fun _ _ h => expTracePartial_mono N hN h) hT
  have hge := trace_exp_ge_card N hN T hle
  have h1 : 1 + 0 ≤ T / (Nat.cast n : α) := div_card_ge (α := α) (c := 0) hn (by grind)
  have hpos : (0 : α) < Nat.cast n := Lean.Grind.OrderedRing.pos_natCast_of_pos _ hn
  have hne : (Nat.cast n : α) ≠ 0 := by grind
  constructor
  · intro hlog
    refine Classical.byContradiction fun hTn => ?_
    have hgt : 1 < T / (Nat.cast n : α) := by
      refine Classical.byContradiction fun hng => ?_
      have : T / (Nat.cast n : α) = 1 := by grind
      apply hTn
      rw [Lean.Grind.Field.div_eq_mul_inv] at this
      grind
    have := L.log_lt_log Lean.Grind.OrderedRing.zero_lt_one hgt
    rw [L.log_one] at this
    grind
  · intro hTn
    have : T / (Nat.cast n : α) = 1 := by rw [hTn, Lean.Grind.Field.div_eq_mul_inv]; grind
    rw [this, L.log_one]

/-- A strictly upper-triangular `N` is acyclic (rank `Fin.val`): `HasTopoOrder` is met by the
setting of `dagLoss_eq_zero_of_strictUpper`. -/
theorem hasTopoOrder_of_strictUpper {n : Nat} (N : Mat n n α)
    (hN : ∀ i j, j.val ≤ i.val → N i j = 0) : HasTopoOrder N := by
  refine ⟨fun i => i.val, fun i j hij => ?_⟩
  show i.val < j.val
  refine Classical.byContradiction fun hne => ?_
  rw [hN i j (by omega)] at hij
  grind

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- A positive diagonal entry (a self-loop) excludes a topological order: e.g. PLGA's
`A_LM ≥ ε > 0` is never acyclic. -/
theorem not_hasTopoOrder_of_diag_pos {n : Nat} (N : Mat n n α) {i : Fin n} (hi : 0 < N i i) :
    ¬ HasTopoOrder N := by
  intro ⟨r, hr⟩
  have := hr i i hi
  omega

end Ordered

end PLGA.Dag
