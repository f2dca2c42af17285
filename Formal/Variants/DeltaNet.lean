module

public import Formal.Data.Matrix

/-!
# Gated DeltaNet and Kimi Delta Attention: affine steps, exact chunking, gate order, rollback

The recurrence of Gated DeltaNet (GDN) / Kimi Delta Attention (KDA): state `S ∈ α^{d_k×d_v}`, per
token a diagonal decay `D_t = Diag(g_t)` (KDA; GDN is the scalar case `g_t = α_t 𝟙`), a write
strength `β_t`, key `k_t`, value `v_t`, query `q_t`: `X_t = D_t S_{t−1}`, `r_t = v_t − X_tᵀ k_t`,
`S_t = X_t + β_t k_t r_tᵀ`, read-out `o_t = S_tᵀ q_t`. Every step is affine in the state, so for
**every** contiguous chunking the chunkwise evaluation gives exactly the sequential states and
outputs; a diagonal gate need not commute with the correction; the unit write is not invertible.

## Main definitions

* `outer`, `readout`: `u vᵀ` and `Sᵀ q`;
* `Token`, `step`: one GDN/KDA token and the decay-then-correct step;
* `Aff`, `Aff.apply`, `Aff.comp`, `Aff.id`, `Token.aff`: affine maps `S ↦ P S + R` on states, their
  composition, and the token's map `P = (I − β k kᵀ) D`, `R = β k vᵀ`;
* `run`, `trace`: the sequential final state and trace;
* `chunkAff`, `chunkTrace`, `chunkedTrace`, `chunkedRun`: a chunk's composed map, the within-chunk
  evaluation by accumulated prefix maps `(P_i, R_i)`, and the chunked evaluation;
* `corr`, `e1`, `unitToken`: `I − β k kᵀ`, `e₁`, the rollback token.

## Main statements

* `step_eq_affine`: `S_t = (I − β_t k_t k_tᵀ) D_t S_{t−1} + β_t k_t v_tᵀ`, an affine map
  `S ↦ P S + R`;
* `aff_comp_apply`: affine maps compose as `P = P₂P₁`, `R = P₂R₁ + R₂`;
* `chunkAff_apply`: a chunk's composed map equals running its tokens one by one;
* `chunked_trace_eq_sequential` (and the instances `chunked_states_eq_sequential`,
  `chunked_outputs_eq_sequential`, `chunked_final_eq_sequential`): for every contiguous chunking,
  the chunkwise evaluation (each within-chunk state computed directly from the chunk's start state
  by the accumulated prefix map, chunk start states passed on by the chunk maps) gives exactly the
  sequential states and outputs;
* `scalar_gate_commutes`, `gate_order_differs`: a scalar gate commutes with `I − βkkᵀ`, a diagonal
  one need not (witness `k = (1,1)`, `β = 1`, `D = Diag(1,0)`);
* `unit_write_overwrites_row`, `unit_write_forgets_row`, `unit_write_not_injective`: with `β = 1`,
  `k = e₁`, `D = I`, the write replaces row 1 by `vᵀ`, so two states differing only in row 1 give
  the same new state (speculative rollback cannot invert the step).

## Implementation notes

Over any commutative ring. Not a result of the PLGA paper (architecture-variant notes on GDN/KDA).
The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered:
the state adjoint / truncated backpropagation through chunks, floating point, the WY/UT-transform
kernels of the papers' implementations (only their exact-arithmetic target), state resets at
chunk boundaries.

## References

* Gated DeltaNet, Kimi Delta Attention (architecture-variant notes);
* `../shared/spec/VARIANTS.md` §1.
-/

@[expose] public section

namespace PLGA.Variants.DeltaNet

open PLGA

variable {α : Type u} [Lean.Grind.CommRing α]

/-! ## Small matrix helpers (general; candidates for `Formal/Data/Matrix.lean`) -/

/-- Outer product `u vᵀ`. -/
def outer {m n : Nat} (u : Vec m α) (v : Vec n α) : Mat m n α := fun i j => u i * v j

/-- Read-out `Sᵀ q` of a state. -/
noncomputable def readout {dk dv : Nat} (S : Mat dk dv α) (q : Vec dk α) : Vec dv α :=
  Mat.mulVec (Mat.transpose S) q

theorem gdn_readout_apply {dk dv : Nat} (S : Mat dk dv α) (q : Vec dk α) (j : Fin dv) :
    readout S q j = fsum dk (fun l => S l j * q l) := rfl

theorem gdn_diag_mul_apply {m n : Nat} (d : Vec m α) (S : Mat m n α) (i : Fin m) (j : Fin n) :
    Mat.mul (Mat.diag d) S i j = d i * S i j := by
  simp only [Mat.mul, Mat.diag]
  rw [fsum_single m i]
  · simp
  · intro l hl; have : i ≠ l := fun e => hl e.symm
    simp [this]; grind

theorem gdn_mul_diag_apply {m n : Nat} (A : Mat m n α) (d : Vec n α) (i : Fin m) (j : Fin n) :
    Mat.mul A (Mat.diag d) i j = A i j * d j := by
  simp only [Mat.mul, Mat.diag]
  rw [fsum_single n j]
  · simp
  · intro l hl; simp [hl]; grind

theorem gdn_outer_mul_apply {m n p : Nat} (u : Vec m α) (w : Vec n α) (X : Mat n p α)
    (i : Fin m) (j : Fin p) : Mat.mul (outer u w) X i j = u i * readout X w j := by
  simp only [Mat.mul, outer, gdn_readout_apply]
  rw [← fsum_mul_left]; apply fsum_congr; intro l; grind

/-! ## One token -/

/-- One GDN/KDA token: diagonal decay `g` (the diagonal of `D_t`), write strength `β`, key,
value, query. -/
structure Token (dk dv : Nat) (α : Type u) where
  /-- the diagonal of the decay `D_t` -/
  gate : Vec dk α
  /-- the write strength `β_t` -/
  beta : α
  /-- the key `k_t` -/
  key : Vec dk α
  /-- the value `v_t` -/
  val : Vec dv α
  /-- the query `q_t` -/
  query : Vec dk α

variable {dk dv : Nat}

/-- Decay then correct: `X = D S`, `r = v − Xᵀk`, `S' = X + β k rᵀ`. -/
noncomputable def step (t : Token dk dv α) (S : Mat dk dv α) : Mat dk dv α :=
  let X := Mat.mul (Mat.diag t.gate) S
  Mat.add X (Mat.smul t.beta (outer t.key (fun j => t.val j - readout X t.key j)))

/-- An affine map `S ↦ P S + R` on states. -/
structure Aff (dk dv : Nat) (α : Type u) where
  /-- the linear part -/
  P : Mat dk dk α
  /-- the translation -/
  R : Mat dk dv α

/-- Apply an affine map. -/
noncomputable def Aff.apply (a : Aff dk dv α) (S : Mat dk dv α) : Mat dk dv α :=
  Mat.add (Mat.mul a.P S) a.R

/-- Composition `a₂ ∘ a₁`: `P = P₂P₁`, `R = P₂R₁ + R₂`. -/
noncomputable def Aff.comp (a₂ a₁ : Aff dk dv α) : Aff dk dv α :=
  ⟨Mat.mul a₂.P a₁.P, Mat.add (Mat.mul a₂.P a₁.R) a₂.R⟩

/-- The identity affine map. -/
noncomputable def Aff.id : Aff dk dv α := ⟨Mat.one dk, Mat.zero dk dv⟩

/-- The token's affine map: `P = (I − β k kᵀ) D`, `R = β k vᵀ`. -/
noncomputable def Token.aff (t : Token dk dv α) : Aff dk dv α :=
  ⟨Mat.mul (Mat.sub (Mat.one dk) (Mat.smul t.beta (outer t.key t.key))) (Mat.diag t.gate),
   Mat.smul t.beta (outer t.key t.val)⟩

/-- GDN/KDA recurrence (VARIANTS.md §1): the decay-then-correct step equals
`S_t = (I − β_t k_t k_tᵀ) D_t S_{t−1} + β_t k_t v_tᵀ`. Does not cover: the read-out. -/
theorem step_eq_affine (t : Token dk dv α) (S : Mat dk dv α) : step t S = t.aff.apply S := by
  simp only [step, Token.aff, Aff.apply]
  rw [Mat.mul_assoc]
  funext i j
  simp only [Mat.add, Mat.smul, outer]
  simp only [Mat.mul, Mat.sub, Mat.smul, outer]
  have h1 : (fun l => (Mat.one dk i l - t.beta * (t.key i * t.key l))
        * fsum dk (fun m => Mat.diag t.gate l m * S m j))
      = (fun l => Mat.one dk i l * fsum dk (fun m => Mat.diag t.gate l m * S m j)
        - t.beta * t.key i * (fsum dk (fun m => Mat.diag t.gate l m * S m j) * t.key l)) := by
    funext l; grind
  rw [h1, fsum_sub, fsum_mul_left]
  have h2 : fsum dk (fun l => Mat.one dk i l * fsum dk (fun m => Mat.diag t.gate l m * S m j))
      = fsum dk (fun m => Mat.diag t.gate i m * S m j) := by
    rw [fsum_single dk i]
    · simp [Mat.one] <;> grind
    · intro l hl; have : i ≠ l := fun e => hl e.symm
      simp [Mat.one, this] <;> grind
  rw [h2]
  have h3 : readout (Mat.mul (Mat.diag t.gate) S) t.key j
      = fsum dk (fun l => fsum dk (fun m => Mat.diag t.gate l m * S m j) * t.key l) := rfl
  rw [h3]
  grind

/-- Chunking (VARIANTS.md §1): affine maps compose as `P = P₂P₁`, `R = P₂R₁ + R₂`.
Does not cover: the state adjoint `G_{t−1} = A_tᵀ G_t`. -/
theorem aff_comp_apply (a₂ a₁ : Aff dk dv α) (S : Mat dk dv α) :
    (a₂.comp a₁).apply S = a₂.apply (a₁.apply S) := by
  simp only [Aff.apply, Aff.comp]
  rw [Mat.mul_add, Mat.mul_assoc]
  funext i j; simp only [Mat.add]; grind

/-- The identity affine map acts as the identity (structural). -/
theorem aff_id_apply (S : Mat dk dv α) : (Aff.id : Aff dk dv α).apply S = S := by
  simp only [Aff.apply, Aff.id]
  rw [Mat.one_mul]
  funext i j; simp only [Mat.add, Mat.zero]; grind

/-! ## Sequences and chunks -/

/-- Sequential run: the final state after the tokens, one at a time. -/
noncomputable def run : List (Token dk dv α) → Mat dk dv α → Mat dk dv α
  | [], S => S
  | t :: ts, S => run ts (step t S)

/-- Sequential trace: `g t S_t` recorded after every token (`g` = state, or read-out). -/
noncomputable def trace {β : Type v} (g : Token dk dv α → Mat dk dv α → β) :
    List (Token dk dv α) → Mat dk dv α → List β
  | [], _ => []
  | t :: ts, S => g t (step t S) :: trace g ts (step t S)

/-- A chunk's affine map: the composition of its tokens' maps (first token innermost). -/
noncomputable def chunkAff : List (Token dk dv α) → Aff dk dv α
  | [] => Aff.id
  | t :: ts => Aff.comp (chunkAff ts) t.aff

/-- Within-chunk evaluation from the chunk start state `S₀`: token `i`'s state is
`P_i S₀ + R_i` with the accumulated prefix map `(P_i, R_i)` (no token-to-token state passing). -/
noncomputable def chunkTrace {β : Type v} (g : Token dk dv α → Mat dk dv α → β)
    (acc : Aff dk dv α) : List (Token dk dv α) → Mat dk dv α → List β
  | [], _ => []
  | t :: ts, S₀ => g t ((Aff.comp t.aff acc).apply S₀) :: chunkTrace g (Aff.comp t.aff acc) ts S₀

/-- Chunked evaluation: each chunk evaluated from its start state, the next start state given by
the chunk's composed map. -/
noncomputable def chunkedTrace {β : Type v} (g : Token dk dv α → Mat dk dv α → β) :
    List (List (Token dk dv α)) → Mat dk dv α → List β
  | [], _ => []
  | c :: cs, S => chunkTrace g Aff.id c S ++ chunkedTrace g cs ((chunkAff c).apply S)

/-- The final state of the chunked evaluation. -/
noncomputable def chunkedRun : List (List (Token dk dv α)) → Mat dk dv α → Mat dk dv α
  | [], S => S
  | c :: cs, S => chunkedRun cs ((chunkAff c).apply S)

/-- A chunk's composed affine map equals running its tokens one by one (VARIANTS.md §1,
chunking). Does not cover: how the map is computed in a kernel (WY/UT form). -/
theorem chunkAff_apply (c : List (Token dk dv α)) (S : Mat dk dv α) :
    (chunkAff c).apply S = run c S := by
  induction c generalizing S with
  | nil => exact aff_id_apply S
  | cons t ts ih => simp only [chunkAff, run]; rw [aff_comp_apply, ih, ← step_eq_affine]

theorem run_append (l₁ l₂ : List (Token dk dv α)) (S : Mat dk dv α) :
    run (l₁ ++ l₂) S = run l₂ (run l₁ S) := by
  induction l₁ generalizing S with
  | nil => rfl
  | cons t ts ih => simp only [List.cons_append, run]; exact ih _

theorem trace_append {β : Type v} (g : Token dk dv α → Mat dk dv α → β)
    (l₁ l₂ : List (Token dk dv α)) (S : Mat dk dv α) :
    trace g (l₁ ++ l₂) S = trace g l₁ S ++ trace g l₂ (run l₁ S) := by
  induction l₁ generalizing S with
  | nil => rfl
  | cons t ts ih => simp only [List.cons_append, trace, run]; rw [ih]

/-- The prefix-map evaluation inside a chunk equals the sequential trace from the point
`acc S₀` (structural step of the chunking theorem). -/
theorem chunkTrace_eq_trace {β : Type v} (g : Token dk dv α → Mat dk dv α → β)
    (acc : Aff dk dv α) (c : List (Token dk dv α)) (S₀ : Mat dk dv α) :
    chunkTrace g acc c S₀ = trace g c (acc.apply S₀) := by
  induction c generalizing acc with
  | nil => rfl
  | cons t ts ih =>
    simp only [chunkTrace, trace]
    rw [ih, aff_comp_apply, ← step_eq_affine]

/-- GDN/KDA chunking theorem (VARIANTS.md §1): for every contiguous chunking `cs` of a token
sequence, the chunked evaluation records exactly the sequential trace of `cs.flatten`.
Does not cover: floating point; resetting the state at chunk boundaries (a different model). -/
theorem chunked_trace_eq_sequential {β : Type v} (g : Token dk dv α → Mat dk dv α → β)
    (cs : List (List (Token dk dv α))) (S : Mat dk dv α) :
    chunkedTrace g cs S = trace g cs.flatten S := by
  induction cs generalizing S with
  | nil => rfl
  | cons c cs ih =>
    simp only [chunkedTrace, List.flatten_cons]
    rw [trace_append, ih, chunkAff_apply, chunkTrace_eq_trace, aff_id_apply]

/-- Chunked states equal the sequential states `S_1, …, S_T` (VARIANTS.md §1).
Does not cover: floating point. -/
theorem chunked_states_eq_sequential (cs : List (List (Token dk dv α))) (S : Mat dk dv α) :
    chunkedTrace (fun _ S' => S') cs S = trace (fun _ S' => S') cs.flatten S :=
  chunked_trace_eq_sequential _ cs S

/-- Chunked outputs `o_t = S_tᵀ q_t` equal the sequential outputs (VARIANTS.md §1).
Does not cover: floating point, the KLA normalization `q/‖q‖` (apply it to the queries). -/
theorem chunked_outputs_eq_sequential (cs : List (List (Token dk dv α))) (S : Mat dk dv α) :
    chunkedTrace (fun t S' => readout S' t.query) cs S
      = trace (fun t S' => readout S' t.query) cs.flatten S :=
  chunked_trace_eq_sequential _ cs S

/-- The chunked final state equals the sequential final state (VARIANTS.md §1).
Does not cover: floating point. -/
theorem chunked_final_eq_sequential (cs : List (List (Token dk dv α))) (S : Mat dk dv α) :
    chunkedRun cs S = run cs.flatten S := by
  induction cs generalizing S with
  | nil => rfl
  | cons c cs ih => simp only [chunkedRun, List.flatten_cons]; rw [run_append, ih, chunkAff_apply]

/-! ## Order of gate and correction -/

/-- The correction matrix `I − β k kᵀ`. -/
noncomputable def corr (β : α) (k : Vec dk α) : Mat dk dk α :=
  Mat.sub (Mat.one dk) (Mat.smul β (outer k k))

/-- GDN (VARIANTS.md §1, order): a scalar gate `D = c I` commutes with `I − βkkᵀ`, so for GDN the
order of decay and correction is immaterial. Does not cover: diagonal (KDA) gates. -/
theorem scalar_gate_commutes (β c : α) (k : Vec dk α) :
    Mat.mul (corr β k) (Mat.diag (fun _ => c)) = Mat.mul (Mat.diag (fun _ => c)) (corr β k) := by
  funext i j; rw [gdn_mul_diag_apply, gdn_diag_mul_apply]; grind

/-- KDA (VARIANTS.md §1, order): `(I − βkkᵀ)D ≠ D(I − βkkᵀ)` for a diagonal gate; witness
`k = (1,1)`, `β = 1`, `D = Diag(1,0)` (entry `(2,1)`: `−1` vs `0`). Does not cover: which order
the papers' kernels use (decay first). -/
theorem gate_order_differs (h10 : (1 : α) ≠ 0) :
    Mat.mul (corr (1 : α) (fun _ : Fin 2 => 1)) (Mat.diag (fun i : Fin 2 => if i = 0 then 1 else 0))
      ≠ Mat.mul (Mat.diag (fun i : Fin 2 => if i = 0 then 1 else 0))
          (corr (1 : α) (fun _ => 1)) := by
  intro h
  have := congrFun (congrFun h 1) 0
  rw [gdn_mul_diag_apply, gdn_diag_mul_apply] at this
  simp [corr, Mat.sub, Mat.smul, Mat.one, outer] at this
  have h' : (1 : α) = 0 := by
    have e : ((0 : α) - 1 * (1 * 1)) * 1 = 0 * (0 - 1 * (1 * 1)) := this
    clear h this h10
    grind
  exact h10 h'

/-! ## Rollback: the unit write is not invertible -/

/-- The first basis vector `e₁`. -/
def e1 (n : Nat) : Vec (n + 1) α := fun i => if i = 0 then 1 else 0

/-- The rollback token: `β = 1`, `k = e₁`, `D = I`, value `v`. -/
def unitToken {n dv : Nat} (v : Vec dv α) (q : Vec (n + 1) α) : Token (n + 1) dv α :=
  ⟨fun _ => 1, 1, e1 n, v, q⟩

/-- Speculative rollback (VARIANTS.md §1): with `β = 1`, `k = e₁`, `D = I` the write replaces
row 1 of the state by `vᵀ` and keeps the other rows. Does not cover: general `β`, `k`. -/
theorem unit_write_overwrites_row {n dv : Nat} (v : Vec dv α) (q : Vec (n + 1) α)
    (S : Mat (n + 1) dv α) :
    step (unitToken v q) S = fun i j => if i = 0 then v j else S i j := by
  funext i j
  simp only [step, unitToken, Mat.add, Mat.smul, outer]
  rw [gdn_diag_mul_apply]
  have hr : readout (Mat.mul (Mat.diag (fun _ => (1 : α))) S) (e1 n) j = S 0 j := by
    rw [gdn_readout_apply, fsum_single (n + 1) 0]
    · rw [gdn_diag_mul_apply]; simp [e1]; grind
    · intro l hl; simp [e1, hl] <;> grind
  rw [hr]
  by_cases hi : i = 0
  · subst hi; simp [e1]; grind
  · simp [e1, hi]; grind

/-- Speculative rollback (VARIANTS.md §1): two states that differ only in row 1 are mapped by the
unit write to the same state. Does not cover: recovering the lost row from a checkpoint. -/
theorem unit_write_forgets_row {n dv : Nat} (v : Vec dv α) (q : Vec (n + 1) α)
    (S S' : Mat (n + 1) dv α) (h : ∀ i, i ≠ 0 → S i = S' i) :
    step (unitToken v q) S = step (unitToken v q) S' := by
  rw [unit_write_overwrites_row, unit_write_overwrites_row]
  funext i j
  by_cases hi : i = 0
  · simp [hi]
  · simp [hi, h i hi]

/-- Speculative rollback (VARIANTS.md §1): the unit write is not injective (the zero state and
the state with row 1 equal to `𝟙ᵀ` collide), so it cannot be undone from the new state alone.
Does not cover: writes with `β < 1` (invertible when `1 − β‖k‖² ≠ 0` and `D` invertible). -/
theorem unit_write_not_injective (h10 : (1 : α) ≠ 0) {n dv : Nat} (v : Vec (dv + 1) α)
    (q : Vec (n + 1) α) : ¬ Function.Injective (step (unitToken v q)) := by
  intro hinj
  have hcol := unit_write_forgets_row v q (fun _ _ => 0)
    (fun i _ => if i = 0 then 1 else 0) (by intro i hi; funext j; simp [hi])
  have := congrFun (congrFun (hinj hcol) 0) 0
  simp at this
  exact h10 this.symm

end PLGA.Variants.DeltaNet
