module

public import Formal.Analytic
public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# Attention Residuals and Delta AttnRes: two-phase evaluation, zero query, zero candidate

Attention Residuals (AttnRes) and Delta Attention Residuals: candidates `v_1, …, v_N ∈ α^d`
(embedding and earlier sub-layer outputs), keys `k_i = RMSNorm(v_i) = v_i/√(ε + ‖v_i‖²/d)`, scores
`s_i = wᵀk_i` with a learned query `w`, weights `α = softmax(s)`, read-out `h = Σ α_i v_i`. The
two-phase (grouped, log-sum-exp merged) evaluation is exact while averaging the halves is not; a
zero query gives uniform weights, so the additive Delta AttnRes input is not the identity at
initialization while a zero gate is; a zero candidate is not neutral.

## Main definitions

* `partition`, `dwts`, `depthRead`: `Σ_j e^{s_j}`, the depth weights `softmax(s)`, the one-pass
  read-out `Σ_i softmax(s)_i v_i`;
* `rmsNorm`, `scores`, `attnRes`: `RMSNorm` (no gain), `s_i = wᵀ RMSNorm(v_i)`, the read-out `h`;
* `gZ`, `gNum`, `gRead`, `gLse`, `merge`: a group's shifted partition and numerator, its
  normalized read-out `h_G`, its log-partition `L_G = c + log Σ_G e^{s_i − c}`, and the merge
  `h = e^{L_A − L} h_A + e^{L_B − L} h_B`, `L = log(e^{L_A} + e^{L_B})`;
* `deltaInput`, `gatedInput`: `ĥ = h̃ + Σ α_i v_i` and `ĥ = h̃ + g r`;
* `withZero`: append a zero-vector candidate.

## Main statements

* `two_phase_merge_eq_one_pass`: splitting the candidates into groups `A`, `B`, each evaluated
  with its own stabilizing shift `c` (e.g. the group max), the merge is exactly the one-pass
  read-out; `depthRead_shift`: the one-pass read-out itself is shift invariant;
* `average_of_halves_differs`: averaging `h_A` and `h_B` is not the read-out (witness: 3
  candidates, scores `0`, values `1, 0, 0`: `1/2` vs `1/3`);
* `zero_query_uniform`, `zero_query_readout`: with `w = 0` the weights are `1/N` and the read-out
  is the mean of the candidates;
* `zero_query_not_identity`: hence the additive Delta AttnRes input `ĥ = h̃ + Σ α_i v_i` is not
  `h̃` (witness: one candidate `1`, `h̃ = 0`); `zero_gate_identity`: a zero-initialized scalar
  gate `ĥ = h̃ + g r` with `g = 0` is;
* `zero_candidate_partition`, `zero_candidate_lowers_weights`: appending a zero-vector candidate
  adds `e^0 = 1` to the partition and strictly lowers every other weight.

## Implementation notes

Over an ordered field with `exp`/`log`/`sqrt` as hypothesis structures (`ExpLog`, `SqrtFn`), no
axiom. Not a result of the PLGA paper: the mechanism is from arXiv 2605.18855. The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart (no public formalization).
Not covered: Block AttnRes (a different candidate set), the residual update `h̃_{ℓ+1}`, training
dynamics of the gate, floating point.

## References

* Attention Residuals / Delta Attention Residuals, arXiv 2605.18855;
* `../shared/spec/VARIANTS.md` §4.
-/

@[expose] public section

namespace PLGA.Variants.AttnRes

open PLGA

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- The partition function `Σ_j e^{s_j}`. -/
noncomputable def partition (E : ExpFn α) {N : Nat} (s : Vec N α) : α :=
  fsum N (fun j => E.exp (s j))

/-- Depth-attention weights `softmax(s)`. -/
noncomputable def dwts (E : ExpFn α) {N : Nat} (s : Vec N α) (i : Fin N) : α :=
  E.exp (s i) / partition E s

/-- The one-pass read-out `Σ_i softmax(s)_i v_i` (candidates as the rows of `V`). -/
noncomputable def depthRead (E : ExpFn α) {N d : Nat} (s : Vec N α) (V : Mat N d α) : Vec d α :=
  fun k => fsum N (fun i => dwts E s i * V i k)

/-- `RMSNorm(v) = v/√(ε + ‖v‖²/d)` (no gain). -/
noncomputable def rmsNorm (S : SqrtFn α) (ε : α) {d : Nat} (v : Vec d α) : Vec d α :=
  fun k => v k / S.sqrt (ε + fsum d (fun l => v l * v l) / (Nat.cast d : α))

/-- Scores `s_i = wᵀ RMSNorm(v_i)`. -/
noncomputable def scores (S : SqrtFn α) (ε : α) {N d : Nat} (w : Vec d α) (V : Mat N d α) :
    Vec N α :=
  fun i => Mat.dot w (rmsNorm S ε (V i))

/-- The AttnRes read-out `h = Σ_i softmax(wᵀ RMSNorm(v_i)) v_i`. -/
noncomputable def attnRes (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat} (w : Vec d α)
    (V : Mat N d α) : Vec d α :=
  depthRead E (scores S ε w V) V

/-! ## Order/field helpers -/

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
theorem ar_exp_sub (E : ExpFn α) (x y : α) : E.exp (x - y) * E.exp y = E.exp x := by
  rw [← E.exp_add]; congr 1; grind

/-! ## Two-phase evaluation -/

/-- Shifted group partition `Σ_{i ∈ G} e^{s_i − c}`. -/
noncomputable def gZ (E : ExpFn α) {N : Nat} (s : Vec N α) (g : Fin N → Bool) (c : α) : α :=
  fsum N (fun i => if g i then E.exp (s i - c) else 0)

/-- Shifted group numerator `Σ_{i ∈ G} e^{s_i − c} v_i`. -/
noncomputable def gNum (E : ExpFn α) {N d : Nat} (s : Vec N α) (V : Mat N d α) (g : Fin N → Bool)
    (c : α) : Vec d α :=
  fun k => fsum N (fun i => if g i then E.exp (s i - c) * V i k else 0)

/-- The group's normalized read-out `h_G`. -/
noncomputable def gRead (E : ExpFn α) {N d : Nat} (s : Vec N α) (V : Mat N d α) (g : Fin N → Bool)
    (c : α) : Vec d α :=
  fun k => gNum E s V g c k / gZ E s g c

/-- The group's log-partition `L_G = c + log Σ_{i∈G} e^{s_i − c}`. -/
noncomputable def gLse (L : ExpLog α) {N : Nat} (s : Vec N α) (g : Fin N → Bool) (c : α) : α :=
  c + L.log (gZ L.toExpFn s g c)

/-- The merge `e^{L_A − L} h_A + e^{L_B − L} h_B` with `L = log(e^{L_A} + e^{L_B})`. -/
noncomputable def merge (L : ExpLog α) {d : Nat} (hA hB : Vec d α) (LA LB : α) : Vec d α :=
  fun k => L.exp (LA - L.log (L.exp LA + L.exp LB)) * hA k
    + L.exp (LB - L.log (L.exp LA + L.exp LB)) * hB k

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
theorem gZ_eq (E : ExpFn α) {N : Nat} (s : Vec N α) (g : Fin N → Bool) (c : α) :
    gZ E s g c = fsum N (fun i => if g i then E.exp (s i) else 0) * E.exp (-c) := by
  simp only [gZ]; rw [← fsum_mul_right]; apply fsum_congr; intro i
  cases g i
  · simp only [Bool.false_eq_true, if_false]; grind
  · simp only [if_true]; rw [← E.exp_add]; congr 1; grind

omit [LE α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
theorem gNum_eq (E : ExpFn α) {N d : Nat} (s : Vec N α) (V : Mat N d α) (g : Fin N → Bool)
    (c : α) (k : Fin d) :
    gNum E s V g c k = fsum N (fun i => if g i then E.exp (s i) * V i k else 0) * E.exp (-c) := by
  simp only [gNum]; rw [← fsum_mul_right]; apply fsum_congr; intro i
  cases g i
  · simp only [Bool.false_eq_true, if_false]; grind
  · simp only [if_true]
    have he : E.exp (s i - c) = E.exp (s i) * E.exp (-c) := by rw [← E.exp_add]; congr 1; grind
    rw [he]; grind

theorem group_partition_pos (E : ExpFn α) {N : Nat} (s : Vec N α) (g : Fin N → Bool)
    (hg : ∃ i, g i = true) : 0 < fsum N (fun i => if g i then E.exp (s i) else 0) := by
  obtain ⟨i, hi⟩ := hg
  have h1 := le_fsum_of_nonneg N (fun i => if g i then E.exp (s i) else 0) (by
    intro j; dsimp only; cases g j
    · exact Std.le_refl (0 : α)
    · exact Std.le_of_lt (E.exp_pos _)) i
  simp only [hi, if_true] at h1
  exact Std.lt_of_lt_of_le (E.exp_pos (s i)) h1

theorem exp_gLse (L : ExpLog α) {N : Nat} (s : Vec N α) (g : Fin N → Bool) (c : α)
    (hg : ∃ i, g i = true) :
    L.exp (gLse L s g c) = fsum N (fun i => if g i then L.exp (s i) else 0) := by
  have hpos := group_partition_pos L.toExpFn s g hg
  have hZpos : 0 < gZ L.toExpFn s g c := by
    rw [gZ_eq]; exact Lean.Grind.OrderedRing.mul_pos hpos (L.exp_pos _)
  simp only [gLse]; rw [L.exp_add, L.exp_log _ hZpos, gZ_eq]
  have h1 : L.exp c * L.exp (-c) = 1 := by
    rw [← L.exp_add]; rw [show c + -c = 0 by grind]; exact L.exp_zero
  show L.exp c * (fsum N (fun i => if g i then L.exp (s i) else 0) * L.exp (-c)) = _
  grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
theorem ar_fsum_split {N : Nat} (g : Fin N → Bool) (f : Fin N → α) :
    fsum N (fun i => if g i then f i else 0) + fsum N (fun i => if (!g i) then f i else 0)
      = fsum N f := by
  rw [← fsum_add]; apply fsum_congr; intro i; cases g i <;> simp <;> grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- The field identity behind the merge (structural). -/
theorem merge_algebra (NA NB ZA ZB eA eB wA wB : α) (hA : ZA ≠ 0) (hB : ZB ≠ 0)
    (hZ : ZA + ZB ≠ 0) (ha : eA ≠ 0) (hb : eB ≠ 0) (hwA : wA * (ZA + ZB) = ZA)
    (hwB : wB * (ZA + ZB) = ZB) :
    wA * (NA * eA / (ZA * eA)) + wB * (NB * eB / (ZB * eB)) = (NA + NB) * (ZA + ZB)⁻¹ := by
  have h1 : NA * eA / (ZA * eA) = NA / ZA := by grind
  have h2 : NB * eB / (ZB * eB) = NB / ZB := by grind
  have h3 : wA = ZA / (ZA + ZB) := by grind
  have h4 : wB = ZB / (ZA + ZB) := by grind
  rw [h1, h2, h3, h4]; grind

/-- AttnRes, two-phase evaluation (VARIANTS.md §4): merging the two groups' normalized read-outs
with their log-sum-exp statistics (each group with any stabilizing shift, e.g. its max) gives
exactly the one-pass softmax read-out (both groups nonempty). Does not cover: more than two
groups (apply repeatedly), floating point. -/
theorem two_phase_merge_eq_one_pass (L : ExpLog α) {N d : Nat} (s : Vec N α) (V : Mat N d α)
    (g : Fin N → Bool) (hA : ∃ i, g i = true) (hB : ∃ i, (!g i) = true) (cA cB : α) :
    merge L (gRead L.toExpFn s V g cA) (gRead L.toExpFn s V (fun i => !g i) cB)
      (gLse L s g cA) (gLse L s (fun i => !g i) cB) = depthRead L.toExpFn s V := by
  funext k
  have hZA := group_partition_pos L.toExpFn s g hA
  have hZB := group_partition_pos L.toExpFn s (fun i => !g i) hB
  have hsplit := ar_fsum_split g (fun i => L.exp (s i))
  have hnum := ar_fsum_split g (fun i => L.exp (s i) * V i k)
  have heA := exp_gLse L s g cA hA
  have heB := exp_gLse L s (fun i => !g i) cB hB
  simp only [merge, gRead, depthRead, dwts, partition]
  rw [heA, heB]
  generalize hzA : fsum N (fun i => if g i then L.exp (s i) else 0) = ZA at *
  generalize hzB : fsum N (fun i => if (!g i) then L.exp (s i) else 0) = ZB at *
  have hZ : 0 < ZA + ZB := by grind
  have hlog : L.exp (L.log (ZA + ZB)) = ZA + ZB := L.exp_log _ hZ
  have hwA := ar_exp_sub L.toExpFn (gLse L s g cA) (L.log (ZA + ZB))
  have hwB := ar_exp_sub L.toExpFn (gLse L s (fun i => !g i) cB) (L.log (ZA + ZB))
  rw [hlog, heA] at hwA; rw [hlog, heB] at hwB
  rw [gNum_eq, gNum_eq, gZ_eq, gZ_eq, hzA, hzB]
  have hsum : fsum N (fun i => L.exp (s i) / fsum N (fun j => L.exp (s j)) * V i k)
      = fsum N (fun i => L.exp (s i) * V i k) * (fsum N (fun j => L.exp (s j)))⁻¹ := by
    rw [← fsum_mul_right]; apply fsum_congr; intro i; grind
  rw [hsum, ← hsplit, ← hnum]
  have hA0 := ne_of_pos hZA
  have hB0 := ne_of_pos hZB
  have hZ0 := ne_of_pos hZ
  have hcA := ne_of_pos (L.exp_pos (-cA))
  have hcB := ne_of_pos (L.exp_pos (-cB))
  exact merge_algebra _ _ _ _ _ _ _ _ hA0 hB0 hZ0 hcA hcB hwA hwB

/-- AttnRes one-pass read-out, shift invariance (the max-subtraction used for stability does
not change the result). Does not cover: per-candidate shifts. -/
theorem depthRead_shift (E : ExpFn α) {N d : Nat} (s : Vec N α) (V : Mat N d α) (c : α) :
    depthRead E (fun i => s i - c) V = depthRead E s V := by
  have hc := ne_of_pos (E.exp_pos (-c))
  have hZ : partition E (fun i => s i - c) = partition E s * E.exp (-c) := by
    simp only [partition]; rw [← fsum_mul_right]; apply fsum_congr; intro j
    rw [← E.exp_add]; congr 1; grind
  funext k; simp only [depthRead, dwts]; rw [hZ]; apply fsum_congr; intro i
  have he : E.exp (s i - c) = E.exp (s i) * E.exp (-c) := by rw [← E.exp_add]; congr 1; grind
  rw [he]
  by_cases hP : partition E s = 0
  · rw [hP]; grind
  · grind

/-- AttnRes two-phase evaluation (VARIANTS.md §4): averaging the two groups' normalized read-outs
is **not** the one-pass read-out. Witness: 3 candidates with scores `0` and values `1, 0, 0`,
groups `{1}`, `{2, 3}`: the average is `1/2`, the one-pass read-out `1/3`. Uses only `exp 0 = 1`.
Does not cover: weighted averages (the correct merge is `two_phase_merge_eq_one_pass`). -/
theorem average_of_halves_differs (E : ExpFn α) :
    (gRead E (fun _ : Fin 3 => (0 : α))
          (fun (i : Fin 3) (_ : Fin 1) => if i = 0 then (1 : α) else 0)
          (fun i => decide (i = 0)) 0 0
      + gRead E (fun _ : Fin 3 => (0 : α))
          (fun (i : Fin 3) (_ : Fin 1) => if i = 0 then (1 : α) else 0)
          (fun i => !decide (i = 0)) 0 0) / 2
      ≠ depthRead E (fun _ : Fin 3 => (0 : α))
          (fun (i : Fin 3) (_ : Fin 1) => if i = 0 then (1 : α) else 0) 0 := by
  have h0 : E.exp ((0 : α) - 0) = 1 := by rw [show (0 : α) - 0 = 0 by grind]; exact E.exp_zero
  simp [gRead, gNum, gZ, depthRead, dwts, partition, fsum, h0, E.exp_zero]
  intro h
  grind

/-! ## Zero query and the Delta AttnRes input -/

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- With a zero query every score is `0`. -/
theorem scores_zero_query (S : SqrtFn α) (ε : α) {N d : Nat} (V : Mat N d α) (i : Fin N) :
    scores S ε (fun _ => 0) V i = 0 := by
  simp only [scores, Mat.dot]
  rw [fsum_congr d (g := fun _ => (0 : α)) (by intro l; grind)]; exact fsum_const_zero d

omit [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- AttnRes (VARIANTS.md §4): with a zero query (`w = 0`) the depth weights are uniform, `1/N`.
Does not cover: `w ≠ 0`. -/
theorem zero_query_uniform (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat} (V : Mat N d α)
    (i : Fin N) : dwts E (scores S ε (fun _ => 0) V) i = 1 / (Nat.cast N : α) := by
  simp only [dwts, partition, scores_zero_query, E.exp_zero]
  rw [fsum_const]; grind

omit [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- AttnRes (VARIANTS.md §4): with a zero query the read-out is the candidate mean
`(1/N) Σ v_i`. Does not cover: `w ≠ 0`. -/
theorem zero_query_readout (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat} (V : Mat N d α)
    (k : Fin d) :
    attnRes E S ε (fun _ => 0) V k = 1 / (Nat.cast N : α) * fsum N (fun i => V i k) := by
  simp only [attnRes, depthRead]
  rw [← fsum_mul_left]; apply fsum_congr; intro i; rw [zero_query_uniform]

/-- The additive Delta AttnRes sub-layer input `ĥ = h̃ + Σ α_i v_i`. -/
noncomputable def deltaInput (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat} (w : Vec d α)
    (V : Mat N d α) (ht : Vec d α) : Vec d α :=
  fun k => ht k + attnRes E S ε w V k

/-- The gated input `ĥ = h̃ + g r`. -/
def gatedInput {d : Nat} (g : α) (r ht : Vec d α) : Vec d α := fun k => ht k + g * r k

/-- Delta AttnRes (VARIANTS.md §4): a zero-initialized query does **not** make the additive input
the identity: one candidate `v = 1`, `h̃ = 0` gives `ĥ = 1 ≠ 0`. Does not cover: other
initializations. -/
theorem zero_query_not_identity (E : ExpFn α) (S : SqrtFn α) (ε : α) :
    deltaInput E S ε (fun _ => 0) (fun _ _ : Fin 1 => (1 : α)) (fun _ => 0) ≠ (fun _ => 0) := by
  intro h
  have h1 := congrFun h 0
  simp only [deltaInput] at h1
  rw [zero_query_readout] at h1
  simp [fsum] at h1
  have : (Nat.cast 1 : α) = 1 := Lean.Grind.Semiring.natCast_one
  rw [this] at h1; grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- Delta AttnRes (VARIANTS.md §4): a zero-initialized scalar gate makes the input the identity,
`h̃ + 0 · r = h̃`. Does not cover: the gate after training. -/
theorem zero_gate_identity {d : Nat} (r ht : Vec d α) : gatedInput 0 r ht = ht := by
  funext k; simp only [gatedInput]; grind

/-! ## A zero candidate changes the other weights -/

/-- Append a candidate equal to the zero vector. -/
def withZero {N d : Nat} (V : Mat N d α) : Mat (N + 1) d α :=
  fun i => if h : i.val < N then V ⟨i.val, h⟩ else fun _ => 0

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
theorem rmsNorm_zero (S : SqrtFn α) (ε : α) {d : Nat} :
    rmsNorm S ε (fun _ : Fin d => (0 : α)) = fun _ => 0 := by
  funext k; simp only [rmsNorm]; grind

omit [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- AttnRes (VARIANTS.md §4): a zero-vector candidate has key `0`, score `0`, and adds
`e^0 = 1` to the partition function. Does not cover: near-zero candidates. -/
theorem zero_candidate_partition (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat} (w : Vec d α)
    (V : Mat N d α) :
    partition E (scores S ε w (withZero V)) = partition E (scores S ε w V) + 1 := by
  simp only [partition]; rw [fsum_succ]
  have hlast : scores S ε w (withZero V) (Fin.last N) = 0 := by
    simp only [scores, withZero, Fin.val_last, Nat.lt_irrefl, dite_false]
    rw [rmsNorm_zero]; simp only [Mat.dot]
    rw [fsum_congr d (g := fun _ => (0 : α)) (by intro l; grind)]; exact fsum_const_zero d
  have hcast : ∀ j : Fin N, scores S ε w (withZero V) j.castSucc = scores S ε w V j := by
    intro j; simp only [scores, withZero, Fin.val_castSucc, j.isLt, dite_true]
  rw [hlast, E.exp_zero]
  congr 1; apply fsum_congr; intro j; rw [hcast]

/-- AttnRes (VARIANTS.md §4): appending a zero-vector candidate strictly lowers every other
candidate's weight (from `e^{s_i}/Z` to `e^{s_i}/(Z + 1)`), so "adding nothing" is not neutral.
Does not cover: the read-out (which also changes, except when all `v_i = 0`). -/
theorem zero_candidate_lowers_weights (E : ExpFn α) (S : SqrtFn α) (ε : α) {N d : Nat}
    (w : Vec d α) (V : Mat N d α) (i : Fin N) :
    dwts E (scores S ε w (withZero V)) i.castSucc < dwts E (scores S ε w V) i := by
  have hcast : scores S ε w (withZero V) i.castSucc = scores S ε w V i := by
    simp only [scores, withZero, Fin.val_castSucc, i.isLt, dite_true]
  simp only [dwts]; rw [hcast, zero_candidate_partition]
  have hZ : 0 < partition E (scores S ε w V) :=
    Std.lt_of_lt_of_le (E.exp_pos _) (le_fsum_of_nonneg N _ (fun j => Std.le_of_lt (E.exp_pos _)) i)
  generalize partition E (scores S ε w V) = Z at *
  have ha := E.exp_pos (scores S ε w V i)
  generalize E.exp (scores S ε w V i) = a at *
  have hZ1 : 0 < Z + 1 := by grind
  have hprod : 0 < Z * (Z + 1) := Lean.Grind.OrderedRing.mul_pos hZ hZ1
  have hd : a / Z - a / (Z + 1) = a / (Z * (Z + 1)) := by
    have := ne_of_pos hZ; have := ne_of_pos hZ1; grind
  have := div_pos ha hprod
  grind

end PLGA.Variants.AttnRes
