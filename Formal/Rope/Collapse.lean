module

public import Formal.Rope.Commutant

/-!
# Collapse of PLGA-with-RoPE to SDPA-with-RoPE (Thm 5.4(ii), RoPE-aware, both directions)

With a constant energy-curvature operator `G*` (the v510Gi transplant), the PLGA-with-RoPE score
between a query `q` at position `n` and a key `k` at position `n'` is
`(R_n q)ᵀ G* (R_{n'} k) = qᵀ R_nᵀ G* R_{n'} k`; SDPA-with-RoPE under a reparametrized query
projection `q ↦ M q` (i.e. `W_Q' = M W_Q`, `b_Q' = M b_Q`) scores `(R_n (M q))ᵀ (R_{n'} k)`. Some
reparametrization makes the two score functions equal for all query/key vectors and all positions
**iff** `G*` is in the RoPE commutant; then `M = G*ᵀ` works.

## Main definitions

* `plgaRopeScore`: `(R_n q)ᵀ G (R_{n'} k)` (the common `1/√d_k` factor is omitted);
* `sdpaRopeScore`: `(R_n q)ᵀ (R_{n'} k)`.

## Main statements

* `plgaRopeScore_eq`, `sdpaRopeScore_eq`: the scores as bilinear forms (`qᵀ R_{n'-n} k` for SDPA);
* `rope_collapse_of_commutes`: the "if" direction (through `scoreForm_of_commutes`, Theorem 2);
* `commutes_of_rope_collapse`: the "only if" direction, even for an arbitrary (nonlinear)
  position-independent query map `f`;
* `rope_collapse_query_map`: `f` is then forced to be `q ↦ G*ᵀ q`;
* `rope_collapse_iff`: both directions.

## Implementation notes

No non-resonance is needed here; combined with `commutes_iff_eq_commEmbed` the collapsing `G*` are
exactly `blockdiag_j (a_j·1 + b_j·J)` under non-resonance. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no counterpart and lists the necessity direction as
not formalized. Not covered: softmax/value level (equal score rows give equal attention rows;
that step is in `Formal/Attention/Absorb.lean`), and batching/masking.

## References

* Thm 5.4(ii), Prop 4.1 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (attention with RoPE), §B (the v510Gi transplant).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.CommRing α] {m : Nat} (ρ : RotFamily α m)

/-- PLGA-with-RoPE score with a constant operator `G`: `(R_n q)ᵀ G (R_{n'} k)`. -/
noncomputable def plgaRopeScore (G : BMat m α) (q k : BVec m α) (n n' : Int) : α :=
  BMat.dot ((ropeMat ρ n).mulVec q) (G.mulVec ((ropeMat ρ n').mulVec k))

/-- SDPA-with-RoPE score: `(R_n q)ᵀ (R_{n'} k)`. -/
noncomputable def sdpaRopeScore (q k : BVec m α) (n n' : Int) : α :=
  BMat.dot ((ropeMat ρ n).mulVec q) ((ropeMat ρ n').mulVec k)

theorem dot_mulVec_left (A : BMat m α) (u w : BVec m α) :
    BMat.dot (A.mulVec u) w = BMat.dot u (A.transpose.mulVec w) := by
  rw [BMat.dot_mulVec, BMat.transpose_transpose]

/-- The PLGA-with-RoPE score is the bilinear form of the score form: `qᵀ (R_nᵀ G R_{n'}) k`. -/
theorem plgaRopeScore_eq (G : BMat m α) (q k : BVec m α) (n n' : Int) :
    plgaRopeScore ρ G q k n n' = BMat.dot q ((scoreForm ρ G n n').mulVec k) := by
  simp only [plgaRopeScore, scoreForm]
  rw [dot_mulVec_left, BMat.mulVec_mulVec, BMat.mulVec_mulVec]

/-- The SDPA-with-RoPE score is relative: `qᵀ R_{n'-n} k`. -/
theorem sdpaRopeScore_eq (q k : BVec m α) (n n' : Int) :
    sdpaRopeScore ρ q k n n' = BMat.dot q ((ropeMat ρ (n' - n)).mulVec k) := by
  simp only [sdpaRopeScore]
  rw [dot_mulVec_left, BMat.mulVec_mulVec, ropeMat_transpose, ropeMat_mul]
  have e : -n + n' = n' - n := by omega
  rw [e]

/-- **Paper Thm 5.4(ii) with RoPE, "if" direction.** If `G` commutes with every `R_n`, then
PLGA-with-RoPE with constant `G` equals SDPA-with-RoPE with the query reparametrized by `Gᵀ`,
for all query/key vectors and positions. Not covered: softmax/value level. -/
theorem rope_collapse_of_commutes {G : BMat m α} (hG : Commutes ρ G) (q k : BVec m α) (n n' : Int) :
    plgaRopeScore ρ G q k n n' = sdpaRopeScore ρ (G.transpose.mulVec q) k n n' := by
  rw [plgaRopeScore_eq, sdpaRopeScore_eq, scoreForm_of_commutes ρ hG, ← BMat.mulVec_mulVec,
    BMat.dot_mulVec]

/-- Equality of the two score functions forces `Gᵀ R_n q = R_n f(q)` for all `q`, `n`. -/
theorem transpose_mulVec_of_rope_collapse {G : BMat m α} {f : BVec m α → BVec m α}
    (h : ∀ q k n n', plgaRopeScore ρ G q k n n' = sdpaRopeScore ρ (f q) k n n') (q : BVec m α)
    (n : Int) : G.transpose.mulVec ((ropeMat ρ n).mulVec q) = (ropeMat ρ n).mulVec (f q) := by
  apply BMat.ext_dot; intro k
  have e := h q k n 0
  simp only [plgaRopeScore, sdpaRopeScore, ropeMat_zero, BMat.mulVec_one] at e
  rw [← e, BMat.dot_mulVec]

/-- **Paper Thm 5.4(ii) with RoPE: the reparametrization is forced.** If PLGA-with-RoPE with
constant `G` equals SDPA-with-RoPE under some position-independent query map `f`, then
`f q = Gᵀ q` for every `q`. Not covered: nothing further. -/
theorem rope_collapse_query_map {G : BMat m α} {f : BVec m α → BVec m α}
    (h : ∀ q k n n', plgaRopeScore ρ G q k n n' = sdpaRopeScore ρ (f q) k n n') (q : BVec m α) :
    f q = G.transpose.mulVec q := by
  have e := transpose_mulVec_of_rope_collapse ρ h q 0
  simp only [ropeMat_zero, BMat.mulVec_one] at e
  exact e.symm

/-- **Paper Thm 5.4(ii) with RoPE, "only if" direction (not proved by the authors).** If
PLGA-with-RoPE with constant `G` equals SDPA-with-RoPE under any position-independent query map
`f` (not even assumed linear), for all query/key vectors and positions, then `G` commutes with
every `R_n`. Not covered: softmax/value level (scores are the hypothesis here). -/
theorem commutes_of_rope_collapse {G : BMat m α} {f : BVec m α → BVec m α}
    (h : ∀ q k n n', plgaRopeScore ρ G q k n n' = sdpaRopeScore ρ (f q) k n n') : Commutes ρ G := by
  have key : ∀ n, (G.transpose).mul (ropeMat ρ n) = (ropeMat ρ n).mul G.transpose := by
    intro n
    apply BMat.ext_mulVec; intro q
    rw [← BMat.mulVec_mulVec, ← BMat.mulVec_mulVec, transpose_mulVec_of_rope_collapse ρ h q n,
      rope_collapse_query_map ρ h q]
  intro n
  have e := congrArg BMat.transpose (key (-n))
  rw [BMat.transpose_mul, BMat.transpose_mul, BMat.transpose_transpose, ropeMat_transpose,
    Int.neg_neg] at e
  exact e.symm

/-- **Paper Thm 5.4(ii) with RoPE (both directions).** A constant `G*` reduces PLGA-with-RoPE to
SDPA-with-RoPE under a reparametrized query projection `q ↦ M q` — equal scores for all
query/key vectors and positions — iff `G*` commutes with every `R_n`. Not covered: the
softmax/value level, and which `G*` commute (see `commutes_iff_eq_commEmbed`). -/
theorem rope_collapse_iff (G : BMat m α) :
    (∃ M : BMat m α, ∀ q k n n', plgaRopeScore ρ G q k n n' = sdpaRopeScore ρ (M.mulVec q) k n n') ↔
      Commutes ρ G := by
  constructor
  · rintro ⟨M, hM⟩; exact commutes_of_rope_collapse ρ hM
  · intro hG; exact ⟨G.transpose, rope_collapse_of_commutes ρ hG⟩

end PLGA.Rope
