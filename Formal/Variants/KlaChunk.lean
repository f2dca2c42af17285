module

public import Formal.Variants.Kla

/-!
# KLA / scalar-gated delta rule: the chunkwise (UT / lower-triangular) form is exact

The chunkwise form of Kaczmarz Linear Attention. A chunk of `C` tokens with scalar decays `α_t`,
write strengths `β_t`, keys `k_t` (rows of `K`), values `v_t` (rows of `V`), queries `q_t` (rows of
`Q`), start state `S₀`; `γ_i = α_1 ⋯ α_i`, `D_γ = Diag(γ)`, `B = Diag(β)`, `A_ij = γ_i/γ_j`
(`j ≤ i`, else `0`), `A⁻` its strictly lower part. When every `γ_i ≠ 0`, the unit lower triangular
system `[I + B(A⁻ ⊙ K Kᵀ)] U = B(V − D_γ K S₀)` has exactly one solution, the write vectors of the
token recurrence, and `O = D_γ Q S₀ + (A ⊙ Q Kᵀ) U`, `S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_j) U` are the
recurrence's outputs and final state.

## Main definitions

* `nsum`: sums over `Nat` prefixes, with the lemmas that convert `Fin C` sums to them;
* `Stream`, `Stream.tok`, `state`: a token stream, token `t` as a GDN token with the scalar gate
  `α_t 𝟙`, and the recurrence `state (t+1) = DeltaNet.step (token t) (state t)`;
* `cum`, `wvec`: cumulative decays and the recurrence's write vector
  `u_t = β_t (v_t − (α_t S_{t−1})ᵀ k_t)`;
* `Kc`, `Qc`, `Vc`, `gam`, `Amat`, `Aminus`, `Bd`: the chunk matrices `K`, `Q`, `V`, `γ`, `A`,
  `A⁻`, `B`;
* `sysMat`, `sysRhs`: the system matrix `I + B(A⁻ ⊙ K Kᵀ)` and right-hand side
  `B(V − D_γ K S₀)`;
* `outMat`, `stateOut`, `Urec`: the chunk output `O`, the state after the chunk `S_out`, and the
  recurrence's write vectors as a `C × d_v` matrix.

## Main statements

* `state_unroll`, `wvec_row`: the unrolled recurrence and its system row;
* `sysMat_unit_lower`: `I + B(A⁻ ⊙ K Kᵀ)` is unit lower triangular;
* `recurrence_solves_system`: the recurrence's write vectors solve the system;
* `system_solution_unique`: the system has no other solution (forward substitution);
* `chunk_output_eq_recurrence`: for **every** solution `U`, row `i` of `O` is the recurrence
  output `S_iᵀ q_i`;
* `chunk_state_eq_recurrence`: `S_out` is the recurrence state after the chunk.

## Implementation notes

Hypothesis: all cumulative decays nonzero (`γ_i ≠ 0`); the decay is scalar per token. The
recurrence is `DeltaNet.step` with the scalar gate `α_t 𝟙` (`state`); KLA is the instance
`β_t = η_t/(‖k_t‖² + ε)` with normalized queries, GDN the instance with arbitrary `β_t`. Not a
result of the PLGA paper (arXiv 2605.08587, chunkwise algorithm, restated consistently in
VARIANTS.md). The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart.
Not covered: per-channel (KDA) decays, the numerical solution of the triangular system and its
conditioning, the passing of `S_out` to the next chunk (see `DeltaNet.chunked_trace_eq_sequential`
for exact chunk composition), floating point.

## References

* Kaczmarz Linear Attention, arXiv 2605.08587 (chunkwise algorithm);
* `../shared/spec/VARIANTS.md` §2.
-/

@[expose] public section

namespace PLGA.Variants.KlaChunk

open PLGA PLGA.Variants.DeltaNet PLGA.Variants.Kla

variable {α : Type u} [Lean.Grind.Field α] {dk dv : Nat}

/-! ## Sums over `Nat` prefixes (general; candidates for `Formal/Data/Sum.lean`) -/

/-- `nsum n f = f 0 + ⋯ + f (n-1)` for `f : Nat → α`. -/
noncomputable def nsum {β : Type v} [Add β] [OfNat β 0] : Nat → (Nat → β) → β
  | 0, _ => 0
  | n + 1, f => nsum n f + f n

theorem nsum_succ {β : Type v} [Add β] [OfNat β 0] (n : Nat) (f : Nat → β) :
    nsum (n + 1) f = nsum n f + f n := rfl

theorem nsum_congr_lt (n : Nat) {f g : Nat → α} (h : ∀ j, j < n → f j = g j) :
    nsum n f = nsum n g := by
  induction n with
  | zero => rfl
  | succ n ih =>
    rw [nsum_succ, nsum_succ, ih (fun j hj => h j (by omega)), h n (by omega)]

theorem nsum_mul_left (n : Nat) (c : α) (f : Nat → α) :
    nsum n (fun j => c * f j) = c * nsum n f := by
  induction n with
  | zero => show (0 : α) = c * 0; grind
  | succ n ih => rw [nsum_succ, nsum_succ, ih]; grind

theorem nsum_add (n : Nat) (f g : Nat → α) :
    nsum n (fun j => f j + g j) = nsum n f + nsum n g := by
  induction n with
  | zero => show (0 : α) = 0 + 0; grind
  | succ n ih => rw [nsum_succ, nsum_succ, nsum_succ, ih]; grind

theorem nsum_mul_right (n : Nat) (c : α) (f : Nat → α) :
    nsum n (fun j => f j * c) = nsum n f * c := by
  induction n with
  | zero => show (0 : α) = 0 * c; grind
  | succ n ih => rw [nsum_succ, nsum_succ, ih]; grind

theorem fsum_nsum_comm (m n : Nat) (f : Fin m → Nat → α) :
    fsum m (fun x => nsum n (fun j => f x j)) = nsum n (fun j => fsum m (fun x => f x j)) := by
  induction n with
  | zero => exact fsum_const_zero m
  | succ n ih => simp only [nsum_succ]; rw [fsum_add, ih]

theorem fsum_eq_nsum (n : Nat) (F : Nat → α) : fsum n (fun j : Fin n => F j.val) = nsum n F := by
  induction n with
  | zero => rfl
  | succ n ih =>
    rw [fsum_succ]
    show fsum n (fun j : Fin n => F j.val) + F n = nsum n F + F n
    rw [ih]

theorem nsum_masked (m d : Nat) (G : Nat → α) :
    nsum (m + d) (fun j => if j < m then G j else 0) = nsum m G := by
  induction d with
  | zero => exact nsum_congr_lt m (fun j hj => by simp [hj])
  | succ d ih =>
    rw [← Nat.add_assoc, nsum_succ, ih]
    have : ¬ (m + d < m) := by omega
    simp only [this, if_false]; grind

/-- A `Fin C` sum of a prefix-masked term is the `Nat` prefix sum (`m ≤ C`). -/
theorem fsum_masked_eq_nsum {C m : Nat} (hm : m ≤ C) (G : Nat → α) :
    fsum C (fun j : Fin C => if j.val < m then G j.val else 0) = nsum m G := by
  rw [fsum_eq_nsum C (fun j => if j < m then G j else 0)]
  obtain ⟨d, rfl⟩ : ∃ d, C = m + d := ⟨C - m, by omega⟩
  exact nsum_masked m d G

/-! ## The token recurrence -/

/-- A token stream: scalar decays, write strengths, keys, values, queries (token `t = 0, 1, …`). -/
structure Stream (dk dv : Nat) (α : Type u) where
  /-- decay `α_t` -/
  a : Nat → α
  /-- write strength `β_t` (KLA: `η_t/(‖k_t‖² + ε)`) -/
  b : Nat → α
  /-- key `k_t` -/
  k : Nat → Vec dk α
  /-- value `v_t` -/
  v : Nat → Vec dv α
  /-- query `q_t` (KLA: already normalized) -/
  q : Nat → Vec dk α

/-- Token `t` as a GDN token with the scalar gate `α_t 𝟙`. -/
def Stream.tok (s : Stream dk dv α) (t : Nat) : Token dk dv α :=
  ⟨fun _ => s.a t, s.b t, s.k t, s.v t, s.q t⟩

/-- The recurrence: `state 0 = S₀`, `state (t+1) = step (token t) (state t)` (the state after
`t` tokens; token `t`'s output is `state (t+1)ᵀ q_t`). -/
noncomputable def state (s : Stream dk dv α) (S₀ : Mat dk dv α) : Nat → Mat dk dv α
  | 0 => S₀
  | t + 1 => step (s.tok t) (state s S₀ t)

/-- Cumulative decay `cum n = α_0 ⋯ α_{n−1}` (so `γ_i = cum (i+1)` for 0-based `i`). -/
noncomputable def cum (s : Stream dk dv α) : Nat → α
  | 0 => 1
  | n + 1 => cum s n * s.a n

/-- The recurrence's write vector `u_t = β_t (v_t − (α_t S_t)ᵀ k_t)`. -/
noncomputable def wvec (s : Stream dk dv α) (S₀ : Mat dk dv α) (t : Nat) : Vec dv α :=
  fun y => s.b t * (s.v t y - readout (Mat.smul (s.a t) (state s S₀ t)) (s.k t) y)

theorem state_succ_apply (s : Stream dk dv α) (S₀ : Mat dk dv α) (t : Nat) (x : Fin dk)
    (y : Fin dv) :
    state s S₀ (t + 1) x y = s.a t * state s S₀ t x y + s.k t x * wvec s S₀ t y := by
  have h : Mat.mul (Mat.diag (fun _ => s.a t)) (state s S₀ t)
      = Mat.smul (s.a t) (state s S₀ t) := by
    funext i j; rw [gdn_diag_mul_apply]; rfl
  show write (Mat.mul (Mat.diag (fun _ => s.a t)) (state s S₀ t)) (s.b t) (s.k t) (s.v t) x y = _
  rw [h, write_apply]; simp only [wvec, residual, Mat.smul]; grind

theorem kc_readout_apply_left (S : Mat dk dv α) (p : Vec dk α) (y : Fin dv) :
    readout S p y = fsum dk (fun x => p x * S x y) := by
  rw [gdn_readout_apply]; apply fsum_congr; intro x; grind

theorem readout_smul (a : α) (S : Mat dk dv α) (p : Vec dk α) (y : Fin dv) :
    readout (Mat.smul a S) p y = a * readout S p y := by
  simp only [gdn_readout_apply, Mat.smul]; rw [← fsum_mul_left]; apply fsum_congr; intro x; grind

/-- Unrolled recurrence: `S_t = cum t · S₀ + Σ_{j<t} (cum t / cum (j+1)) k_j u_jᵀ`
(nonzero cumulative decays). -/
theorem state_unroll (s : Stream dk dv α) (S₀ : Mat dk dv α) (t : Nat)
    (hγ : ∀ j, j < t → cum s (j + 1) ≠ 0) (x : Fin dk) (y : Fin dv) :
    state s S₀ t x y = cum s t * S₀ x y
      + nsum t (fun j => cum s t / cum s (j + 1) * (s.k j x * wvec s S₀ j y)) := by
  induction t with
  | zero => show S₀ x y = 1 * S₀ x y + 0; grind
  | succ t ih =>
    rw [state_succ_apply, ih (fun j hj => hγ j (by omega)), nsum_succ]
    have hl := hγ t (by omega)
    have hs : nsum t (fun j => cum s (t + 1) / cum s (j + 1) * (s.k j x * wvec s S₀ j y))
        = s.a t * nsum t (fun j => cum s t / cum s (j + 1) * (s.k j x * wvec s S₀ j y)) := by
      rw [← nsum_mul_left]; apply nsum_congr_lt; intro j _; simp only [cum]; grind
    rw [hs]; simp only [cum] at hl ⊢; grind

/-- Read-out of the unrolled form (structural). -/
theorem readout_unrolled (s : Stream dk dv α) (S₀ : Mat dk dv α) (t : Nat) (c : α)
    (w : Nat → α) (p : Vec dk α) (y : Fin dv) :
    fsum dk (fun x => (c * S₀ x y + nsum t (fun j => w j * (s.k j x * wvec s S₀ j y))) * p x)
      = c * readout S₀ p y + nsum t (fun j => w j * Mat.dot (s.k j) p * wvec s S₀ j y) := by
  rw [fsum_congr dk (g := fun x => c * (S₀ x y * p x)
      + nsum t (fun j => w j * (s.k j x * wvec s S₀ j y) * p x)) (by
      intro x; dsimp only; rw [nsum_mul_right]; grind),
    fsum_add, fsum_mul_left, fsum_nsum_comm, gdn_readout_apply]
  congr 1
  apply nsum_congr_lt; intro j _; simp only [Mat.dot]
  rw [← fsum_mul_left, ← fsum_mul_right]; apply fsum_congr; intro x; grind

/-- The recurrence's system row:
`u_t + β_t Σ_{j<t} (γ_t/γ_j)(k_tᵀk_j) u_j = β_t (v_t − γ_t S₀ᵀk_t)`. -/
theorem wvec_row (s : Stream dk dv α) (S₀ : Mat dk dv α) (t : Nat)
    (hγ : ∀ j, j < t → cum s (j + 1) ≠ 0) (y : Fin dv) :
    wvec s S₀ t y + s.b t * nsum t (fun j => cum s (t + 1) / cum s (j + 1)
        * Mat.dot (s.k t) (s.k j) * wvec s S₀ j y)
      = s.b t * (s.v t y - cum s (t + 1) * readout S₀ (s.k t) y) := by
  have h1 : readout (state s S₀ t) (s.k t) y = cum s t * readout S₀ (s.k t) y
      + nsum t (fun j => cum s t / cum s (j + 1) * Mat.dot (s.k j) (s.k t) * wvec s S₀ j y) := by
    rw [gdn_readout_apply (state s S₀ t)]
    simp only [state_unroll s S₀ t hγ]
    rw [readout_unrolled]
  have h2 : nsum t (fun j => cum s (t + 1) / cum s (j + 1) * Mat.dot (s.k t) (s.k j)
        * wvec s S₀ j y)
      = s.a t * nsum t (fun j => cum s t / cum s (j + 1) * Mat.dot (s.k j) (s.k t)
        * wvec s S₀ j y) := by
    rw [← nsum_mul_left]; apply nsum_congr_lt; intro j _
    dsimp only
    rw [Mat.dot_comm (s.k t)]; simp only [cum]; grind
  rw [h2]
  show s.b t * (s.v t y - readout (Mat.smul (s.a t) (state s S₀ t)) (s.k t) y) + _ = _
  rw [readout_smul, h1]; simp only [cum]; grind

/-! ## The chunk matrices -/

variable (s : Stream dk dv α) (C : Nat)

/-- `K`: rows `k_0, …, k_{C−1}`. -/
def Kc : Mat C dk α := fun i => s.k i.val
/-- `Q`: rows `q_0, …, q_{C−1}`. -/
def Qc : Mat C dk α := fun i => s.q i.val
/-- `V`: rows `v_0, …, v_{C−1}`. -/
def Vc : Mat C dv α := fun i => s.v i.val
/-- `γ_i` (0-based `i`): `α_0 ⋯ α_i`. -/
noncomputable def gam : Vec C α := fun i => cum s (i.val + 1)
/-- `A_ij = γ_i/γ_j` for `j ≤ i`, else `0`. -/
noncomputable def Amat : Mat C C α := fun i j => if j.val ≤ i.val then gam s C i / gam s C j else 0
/-- `A⁻`: the strictly lower part of `A`. -/
noncomputable def Aminus : Mat C C α :=
  fun i j => if j.val < i.val then gam s C i / gam s C j else 0
/-- `B = Diag(β)`. -/
noncomputable def Bd : Mat C C α := Mat.diag (fun i => s.b i.val)

/-- The system matrix `I + B(A⁻ ⊙ K Kᵀ)`. -/
noncomputable def sysMat : Mat C C α :=
  Mat.add (Mat.one C)
    (Mat.mul (Bd s C) (Mat.hadamard (Aminus s C) (Mat.mul (Kc s C) (Mat.transpose (Kc s C)))))

/-- The right-hand side `B(V − D_γ K S₀)`. -/
noncomputable def sysRhs (S₀ : Mat dk dv α) : Mat C dv α :=
  Mat.mul (Bd s C) (Mat.sub (Vc s C) (Mat.mul (Mat.diag (gam s C)) (Mat.mul (Kc s C) S₀)))

/-- The chunk output `O = D_γ Q S₀ + (A ⊙ Q Kᵀ) U`. -/
noncomputable def outMat (S₀ : Mat dk dv α) (U : Mat C dv α) : Mat C dv α :=
  Mat.add (Mat.mul (Mat.diag (gam s C)) (Mat.mul (Qc s C) S₀))
    (Mat.mul (Mat.hadamard (Amat s C) (Mat.mul (Qc s C) (Mat.transpose (Kc s C)))) U)

/-- The state after the chunk `S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_j) U`. -/
noncomputable def stateOut (S₀ : Mat dk dv α) (U : Mat C dv α) : Mat dk dv α :=
  Mat.add (Mat.smul (cum s C) S₀)
    (Mat.mul (Mat.transpose (Kc s C)) (Mat.mul (Mat.diag (fun j => cum s C / gam s C j)) U))

/-- The recurrence's write vectors as a `C × d_v` matrix. -/
noncomputable def Urec (S₀ : Mat dk dv α) : Mat C dv α := fun i => wvec s S₀ i.val

theorem sysMat_apply (i j : Fin C) :
    sysMat s C i j
      = Mat.one C i j + s.b i.val * (Aminus s C i j * Mat.dot (s.k i.val) (s.k j.val)) := by
  simp only [sysMat, Mat.add, Bd]; rw [gdn_diag_mul_apply]; rfl

theorem sysMat_mul_apply (U : Mat C dv α) (i : Fin C) (y : Fin dv) :
    Mat.mul (sysMat s C) U i y = U i y
      + s.b i.val * fsum C (fun j => Aminus s C i j * Mat.dot (s.k i.val) (s.k j.val) * U j y) := by
  simp only [sysMat]
  rw [Mat.add_mul, Mat.one_mul, Mat.mul_assoc]
  simp only [Mat.add, Bd]; rw [gdn_diag_mul_apply]; rfl

theorem sysRhs_apply (S₀ : Mat dk dv α) (i : Fin C) (y : Fin dv) :
    sysRhs s C S₀ i y = s.b i.val * (s.v i.val y - gam s C i * readout S₀ (s.k i.val) y) := by
  simp only [sysRhs, Bd]; rw [gdn_diag_mul_apply]; simp only [Mat.sub]; rw [gdn_diag_mul_apply]
  rw [kc_readout_apply_left]; rfl

/-- KLA chunkwise form (VARIANTS.md §2): `I + B(A⁻ ⊙ K Kᵀ)` is unit lower triangular.
Does not cover: its conditioning. -/
theorem sysMat_unit_lower (i j : Fin C) (hij : i.val ≤ j.val) :
    sysMat s C i j = if i = j then 1 else 0 := by
  rw [sysMat_apply]
  have : ¬ (j.val < i.val) := by omega
  simp only [Aminus, this, if_false, Mat.one]
  split <;> grind

/-! ## The chunkwise form equals the recurrence -/

theorem gam_ne_of (hγ : ∀ i : Fin C, gam s C i ≠ 0) (t : Nat) (ht : t ≤ C) :
    ∀ j, j < t → cum s (j + 1) ≠ 0 :=
  fun j hj => hγ ⟨j, by omega⟩

/-- KLA chunkwise form (VARIANTS.md §2): the recurrence's write vectors `u_t` solve
`[I + B(A⁻ ⊙ K Kᵀ)] U = B(V − D_γ K S₀)` (all `γ_i ≠ 0`). Does not cover: floating point. -/
theorem recurrence_solves_system (S₀ : Mat dk dv α) (hγ : ∀ i : Fin C, gam s C i ≠ 0) :
    Mat.mul (sysMat s C) (Urec s C S₀) = sysRhs s C S₀ := by
  funext i y
  rw [sysMat_mul_apply, sysRhs_apply]
  have hm := fsum_masked_eq_nsum (C := C) (m := i.val) (by omega)
    (fun j => cum s (i.val + 1) / cum s (j + 1) * Mat.dot (s.k i.val) (s.k j) * wvec s S₀ j y)
  rw [fsum_congr C (g := fun j : Fin C =>
      if j.val < i.val then cum s (i.val + 1) / cum s (j.val + 1)
      * Mat.dot (s.k i.val) (s.k j.val) * wvec s S₀ j.val y else 0) (by
      intro j; simp only [Aminus, gam, Urec]; split <;> grind), hm]
  exact wvec_row s S₀ i.val (gam_ne_of s C hγ i.val (by omega)) y

/-- KLA chunkwise form (VARIANTS.md §2): the unit-lower-triangular system has exactly one
solution — any `U` solving it is the recurrence's `U` (forward substitution). Does not cover:
conditioning. -/
theorem system_solution_unique (S₀ : Mat dk dv α) (hγ : ∀ i : Fin C, gam s C i ≠ 0)
    (U : Mat C dv α) (hU : Mat.mul (sysMat s C) U = sysRhs s C S₀) : U = Urec s C S₀ := by
  have hR := recurrence_solves_system s C S₀ hγ
  have key : ∀ n, ∀ i : Fin C, i.val < n → U i = Urec s C S₀ i := by
    intro n
    induction n with
    | zero => intro i hi; omega
    | succ n ih =>
      intro i hi
      funext y
      have e1 := congrFun (congrFun hU i) y
      have e2 := congrFun (congrFun hR i) y
      rw [sysMat_mul_apply] at e1 e2
      have hs : fsum C (fun j => Aminus s C i j * Mat.dot (s.k i.val) (s.k j.val) * U j y)
          = fsum C (fun j => Aminus s C i j * Mat.dot (s.k i.val) (s.k j.val)
              * Urec s C S₀ j y) := by
        apply fsum_congr; intro j
        by_cases hj : j.val < i.val
        · rw [ih j (by omega)]
        · simp only [Aminus, hj, if_false]; grind
      rw [hs] at e1
      grind
  funext i
  exact key (i.val + 1) i (by omega)

theorem outMat_apply (S₀ : Mat dk dv α) (U : Mat C dv α) (i : Fin C) (y : Fin dv) :
    outMat s C S₀ U i y = gam s C i * readout S₀ (s.q i.val) y
      + fsum C (fun j => Amat s C i j * Mat.dot (s.q i.val) (s.k j.val) * U j y) := by
  simp only [outMat, Mat.add]; rw [gdn_diag_mul_apply, kc_readout_apply_left]; rfl

/-- KLA chunkwise form (VARIANTS.md §2): for every solution `U` of the system, row `i` of
`O = D_γ Q S₀ + (A ⊙ Q Kᵀ) U` is the recurrence output `S_iᵀ q_i` (all `γ_i ≠ 0`).
Does not cover: the KLA query normalization (apply it to `q`), floating point. -/
theorem chunk_output_eq_recurrence (S₀ : Mat dk dv α) (hγ : ∀ i : Fin C, gam s C i ≠ 0)
    (U : Mat C dv α) (hU : Mat.mul (sysMat s C) U = sysRhs s C S₀) (i : Fin C) (y : Fin dv) :
    outMat s C S₀ U i y = readout (state s S₀ (i.val + 1)) (s.q i.val) y := by
  rw [system_solution_unique s C S₀ hγ U hU, outMat_apply]
  have hγ' := gam_ne_of s C hγ (i.val + 1) (by omega)
  rw [gdn_readout_apply (state s S₀ (i.val + 1))]
  simp only [state_unroll s S₀ (i.val + 1) hγ']
  rw [readout_unrolled]
  have hm := fsum_masked_eq_nsum (C := C) (m := i.val + 1) (by omega)
    (fun j => cum s (i.val + 1) / cum s (j + 1) * Mat.dot (s.k j) (s.q i.val) * wvec s S₀ j y)
  rw [fsum_congr C (g := fun j : Fin C => if j.val < i.val + 1 then cum s (i.val + 1)
      / cum s (j.val + 1) * Mat.dot (s.k j.val) (s.q i.val) * wvec s S₀ j.val y else 0) (by
      intro j; simp only [Amat, gam, Urec]; rw [Mat.dot_comm (s.q i.val)]
      by_cases hj : j.val ≤ i.val
      · have : j.val < i.val + 1 := by omega
        simp only [hj, this, if_true]
      · have : ¬ (j.val < i.val + 1) := by omega
        simp only [hj, this, if_false]; grind), hm]
  rfl

/-- KLA chunkwise form (VARIANTS.md §2): for every solution `U` of the system,
`S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_j) U` is the recurrence state after the `C` tokens (all
`γ_i ≠ 0`). Does not cover: floating point. -/
theorem chunk_state_eq_recurrence (S₀ : Mat dk dv α) (hγ : ∀ i : Fin C, gam s C i ≠ 0)
    (U : Mat C dv α) (hU : Mat.mul (sysMat s C) U = sysRhs s C S₀) :
    stateOut s C S₀ U = state s S₀ C := by
  rw [system_solution_unique s C S₀ hγ U hU]
  funext x y
  rw [state_unroll s S₀ C (gam_ne_of s C hγ C (Nat.le_refl C)) x y]
  simp only [stateOut, Mat.add, Mat.smul]
  congr 1
  rw [Mat.mul_apply, ← fsum_eq_nsum C]
  apply fsum_congr; intro j
  rw [gdn_diag_mul_apply]; simp only [Mat.transpose, Kc, gam, Urec]; grind

end PLGA.Variants.KlaChunk
