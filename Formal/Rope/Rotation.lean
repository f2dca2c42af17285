module

public import Formal.Data.Block

/-!
# The RoPE rotation family `R_n` and the relative-position criterion (Prop 4.1)

RoPE acts on each head (dimension `d_k = 2m`) as `R_n = blockdiag_j rot(n θ_j)` on the
interleaved pairs `(2j, 2j+1)`, with `rot φ = [[cos φ, -sin φ], [sin φ, cos φ]]` and, in the
reference model, `θ_j = Θ^{-2j/d_k}`, `Θ = 10^4`. The matrices `R_n` form an orthogonal group
representation, and (Prop 4.1, first part) the score form `(n, n') ↦ R_nᵀ G R_{n'}` depends only
on `n' - n` iff `G` commutes with every `R_n` — both directions, any `G`, no non-resonance needed.

## Main definitions

* `RotFamily α m`: an abstract rotation family, for each plane `j` and position `n : Int` a pair
  `(c j n, s j n)` with `c² + s² = 1` and the group law `rot_j(n) rot_j(n') = rot_j(n + n')`;
* `rot`, `ropeMat`: the 2×2 rotation of plane `j` and `R_n = blockdiag_j rot_j(n)`
  (pair-indexed);
* `Commutes G`: `G R_n = R_n G` for all positions `n`;
* `scoreForm G n n' = R_nᵀ G R_{n'}`, `IsRelative G`: the score form depends only on `n' - n`.

## Main statements

* Theorem 1: `ropeMat_mul` (`R_n R_{n'} = R_{n+n'}`), `ropeMat_zero`, `ropeMat_transpose`
  (`R_nᵀ = R_{-n}`), `ropeMat_orthogonal`, `ropeMat_orthogonal'`;
* `c_zero`, `s_zero`, `c_neg`, `s_neg`: `rot_j(0) = 1` and `rot_j(-n) = rot_j(n)ᵀ` are derived;
* `commute_ropeMat_neg`, `commutes_of_commute_ropeMat_one`: commuting with `R_1` alone puts `G`
  in the commutant (`R_n = R_1^n`, `R_{-n} = R_n⁻¹`);
* `scoreForm_of_commutes`: "commute ⇒ relative" with `R_nᵀ G R_{n'} = G R_{n'-n}`;
* Theorem 2: `isRelative_iff_commutes`: relative ⇔ commute (Prop 4.1), and the
  translation-invariance variant `translationInvariant_iff_commutes`.

## Implementation notes

Core Lean has no `cos`/`sin`, so the rotation family is the hypothesis structure `RotFamily`
(its group law written as its two scalar components), not an axiom. The real family
`c j n = Real.cos (n * θ j)`, `s j n = Real.sin (n * θ j)` is an instance via
`Real.cos_sq_add_sin_sq`, `Real.cos_add`, `Real.sin_add` (after `push_cast; ring_nf` of the
argument); no theorem needs changing. Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` (spec §E): only the single-block `rot` lemmas (`rot_zero`,
`rot_mul`, `rot_transpose`, `rot_orthogonal`) and only "commute ⇒ relative"
(`relative_position_of_commute`, one 2×2 block). Not covered here: the explicit description of
the commutant (that needs non-resonance; see `Formal/Rope/Commutant.lean`).

## References

* Prop 4.1 of the paper (setup and first part);
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (RoPE convention), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u}

/-- An abstract RoPE rotation family on `m` planes: `rot_j(n) = [[c j n, -s j n], [s j n, c j n]]`
with `c² + s² = 1` and the group law `rot_j(n) rot_j(n') = rot_j(n + n')`, written as its two
scalar components (the addition formulas of cos and sin). -/
structure RotFamily (α : Type u) [Lean.Grind.CommRing α] (m : Nat) where
  /-- `c j n` plays `cos (n θ_j)` -/
  c : Fin m → Int → α
  /-- `s j n` plays `sin (n θ_j)` -/
  s : Fin m → Int → α
  /-- `cos² + sin² = 1` -/
  sq_add_sq : ∀ j n, c j n * c j n + s j n * s j n = 1
  /-- cosine addition formula (the `(0,0)` entry of the group law) -/
  c_add : ∀ j n n', c j (n + n') = c j n * c j n' - s j n * s j n'
  /-- sine addition formula (the `(1,0)` entry of the group law) -/
  s_add : ∀ j n n', s j (n + n') = s j n * c j n' + c j n * s j n'

namespace RotFamily

variable [Lean.Grind.CommRing α] {m : Nat} (ρ : RotFamily α m)

/-- The 2×2 rotation of plane `j` at position `n`. -/
noncomputable def rot (j : Fin m) (n : Int) : M2 α := M2.rot (ρ.c j n) (ρ.s j n)

theorem c_zero (j : Fin m) : ρ.c j 0 = 1 := by
  have h1 := ρ.c_add j 0 0
  have h2 := ρ.s_add j 0 0
  have h3 := ρ.sq_add_sq j 0
  rw [Int.add_zero] at h1 h2
  grind

theorem s_zero (j : Fin m) : ρ.s j 0 = 0 := by
  have h1 := ρ.c_add j 0 0
  have h2 := ρ.s_add j 0 0
  have h3 := ρ.sq_add_sq j 0
  rw [Int.add_zero] at h1 h2
  grind

theorem c_neg (j : Fin m) (n : Int) : ρ.c j (-n) = ρ.c j n := by
  have h1 := ρ.c_add j (-n) n
  have h2 := ρ.s_add j (-n) n
  have h3 := ρ.sq_add_sq j n
  have e : -n + n = 0 := by omega
  rw [e, c_zero] at h1; rw [e, s_zero] at h2
  grind

theorem s_neg (j : Fin m) (n : Int) : ρ.s j (-n) = -ρ.s j n := by
  have h1 := ρ.c_add j (-n) n
  have h2 := ρ.s_add j (-n) n
  have h3 := ρ.sq_add_sq j n
  have e : -n + n = 0 := by omega
  rw [e, c_zero] at h1; rw [e, s_zero] at h2
  grind

theorem rot_mul_rot (j : Fin m) (n n' : Int) :
    M2.mul (ρ.rot j n) (ρ.rot j n') = ρ.rot j (n + n') := by
  simp only [rot]; rw [M2.rot_mul_rot, ρ.c_add, ρ.s_add]
  apply M2.ext <;> simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind

end RotFamily

variable [Lean.Grind.CommRing α] {m : Nat}

/-- The RoPE matrix `R_n = blockdiag_j rot_j(n)` (pair-indexed; flat interleaved coordinates
`2j + r`). On a vector: `(R_n x)_{j,0} = c x_{j,0} - s x_{j,1}`,
`(R_n x)_{j,1} = s x_{j,0} + c x_{j,1}`, exactly spec A.4.2. -/
noncomputable def ropeMat (ρ : RotFamily α m) (n : Int) : BMat m α :=
  BMat.bdiag (fun j => ρ.rot j n)

variable (ρ : RotFamily α m)

/-- Paper Prop 4.1 (setup), group law: `R_n R_{n'} = R_{n+n'}`.
Not covered: nothing beyond the algebraic identity. -/
theorem ropeMat_mul (n n' : Int) : (ropeMat ρ n).mul (ropeMat ρ n') = ropeMat ρ (n + n') := by
  simp only [ropeMat]; rw [BMat.bdiag_mul_bdiag]
  congr; funext j; exact ρ.rot_mul_rot j n n'

/-- Paper Prop 4.1 (setup): `R_0 = 1`. Not covered: nothing beyond the identity. -/
theorem ropeMat_zero : ropeMat ρ 0 = BMat.one := by
  simp only [ropeMat, BMat.one]; congr; funext j
  simp only [RotFamily.rot]; rw [ρ.c_zero, ρ.s_zero]; exact M2.rot_one_zero

/-- Paper Prop 4.1 (setup): `R_nᵀ = R_{-n}`. Not covered: nothing beyond the identity. -/
theorem ropeMat_transpose (n : Int) : (ropeMat ρ n).transpose = ropeMat ρ (-n) := by
  simp only [ropeMat]; rw [BMat.transpose_bdiag]; congr; funext j
  simp only [RotFamily.rot]; rw [M2.transpose_rot, ρ.c_neg, ρ.s_neg]

/-- Paper Prop 4.1 (setup): `R_n` is orthogonal, `R_nᵀ R_n = 1`.
Not covered: nothing beyond the identity. -/
theorem ropeMat_orthogonal (n : Int) : (ropeMat ρ n).transpose.mul (ropeMat ρ n) = BMat.one := by
  rw [ropeMat_transpose, ropeMat_mul, Int.add_left_neg, ropeMat_zero]

/-- Paper Prop 4.1 (setup): `R_n R_nᵀ = 1`. Not covered: nothing beyond the identity. -/
theorem ropeMat_orthogonal' (n : Int) : (ropeMat ρ n).mul (ropeMat ρ n).transpose = BMat.one := by
  rw [ropeMat_transpose, ropeMat_mul, Int.add_right_neg, ropeMat_zero]

/-- `G` commutes with every RoPE matrix: `G R_n = R_n G` for all positions `n`. -/
def Commutes (G : BMat m α) : Prop := ∀ n, G.mul (ropeMat ρ n) = (ropeMat ρ n).mul G

/-- Commuting with `R_n` gives commuting with `R_{-n} = R_n⁻¹`. -/
theorem commute_ropeMat_neg {G : BMat m α} {n : Int}
    (h : G.mul (ropeMat ρ n) = (ropeMat ρ n).mul G) :
    G.mul (ropeMat ρ (-n)) = (ropeMat ρ (-n)).mul G :=
  calc G.mul (ropeMat ρ (-n))
      = ((ropeMat ρ (-n)).mul (ropeMat ρ n)).mul (G.mul (ropeMat ρ (-n))) := by
        rw [ropeMat_mul, Int.add_left_neg, ropeMat_zero, BMat.one_mul]
    _ = (ropeMat ρ (-n)).mul (((ropeMat ρ n).mul G).mul (ropeMat ρ (-n))) := by
        simp only [BMat.mul_assoc]
    _ = (ropeMat ρ (-n)).mul ((G.mul (ropeMat ρ n)).mul (ropeMat ρ (-n))) := by rw [h]
    _ = (ropeMat ρ (-n)).mul G := by
        rw [BMat.mul_assoc, ropeMat_mul, Int.add_right_neg, ropeMat_zero, BMat.mul_one]

/-- Commuting with the single rotation `R_1` puts `G` in the RoPE commutant (all integer
positions), since `R_n = R_1^n` and `R_{-n} = R_n⁻¹` (group law of `RotFamily`). -/
theorem commutes_of_commute_ropeMat_one {G : BMat m α}
    (h : G.mul (ropeMat ρ 1) = (ropeMat ρ 1).mul G) : Commutes ρ G := by
  have hnat : ∀ k : Nat, G.mul (ropeMat ρ k) = (ropeMat ρ k).mul G := by
    intro k
    induction k with
    | zero =>
      show G.mul (ropeMat ρ 0) = (ropeMat ρ 0).mul G
      rw [ropeMat_zero, BMat.one_mul, BMat.mul_one]
    | succ k ih =>
      have e : ((k + 1 : Nat) : Int) = (k : Int) + 1 := by omega
      rw [e, ← ropeMat_mul, ← BMat.mul_assoc, ih, BMat.mul_assoc, h, ← BMat.mul_assoc]
  intro n
  rcases Int.eq_nat_or_neg n with ⟨k, rfl | rfl⟩
  · exact hnat k
  · exact commute_ropeMat_neg ρ (hnat k)

/-- The score form of an operator `G` between positions `n` (query) and `n'` (key):
`R_nᵀ G R_{n'}`, so that the score is `(R_n q)ᵀ G (R_{n'} k) = qᵀ (R_nᵀ G R_{n'}) k`. -/
noncomputable def scoreForm (G : BMat m α) (n n' : Int) : BMat m α :=
  ((ropeMat ρ n).transpose.mul G).mul (ropeMat ρ n')

/-- The score form depends on the positions only through `n' - n`. -/
def IsRelative (G : BMat m α) : Prop :=
  ∃ F : Int → BMat m α, ∀ n n', scoreForm ρ G n n' = F (n' - n)

theorem scoreForm_zero_zero (G : BMat m α) : scoreForm ρ G 0 0 = G := by
  simp only [scoreForm]; rw [ropeMat_zero, BMat.transpose_one, BMat.one_mul, BMat.mul_one]

/-- "commute ⇒ relative" with the explicit form `R_nᵀ G R_{n'} = G R_{n'-n}`.
Paper Prop 4.1 (⇐). Not covered: the converse (see `isRelative_iff_commutes`). -/
theorem scoreForm_of_commutes {G : BMat m α} (h : Commutes ρ G) (n n' : Int) :
    scoreForm ρ G n n' = G.mul (ropeMat ρ (n' - n)) := by
  simp only [scoreForm]
  rw [ropeMat_transpose, ← h, BMat.mul_assoc, ropeMat_mul]
  have e : -n + n' = n' - n := by omega
  rw [e]

/-- If every diagonal score form `R_nᵀ G R_n` equals `G`, then `G` commutes with all `R_n`. -/
theorem commutes_of_scoreForm_diag {G : BMat m α} (h : ∀ n, scoreForm ρ G n n = G) :
    Commutes ρ G := by
  intro n
  have e := h n
  simp only [scoreForm] at e
  have : (ropeMat ρ n).mul G = G.mul (ropeMat ρ n) :=
    calc (ropeMat ρ n).mul G
        = (ropeMat ρ n).mul (((ropeMat ρ n).transpose.mul G).mul (ropeMat ρ n)) := by rw [e]
      _ = (((ropeMat ρ n).mul (ropeMat ρ n).transpose).mul G).mul (ropeMat ρ n) := by
          simp only [BMat.mul_assoc]
      _ = G.mul (ropeMat ρ n) := by rw [ropeMat_orthogonal', BMat.one_mul]
  exact this.symm

/-- **Paper Prop 4.1, "relative ⇔ commute" (both directions).** For any operator `G`, the score
form `(n, n') ↦ R_nᵀ G R_{n'}` depends only on `n' - n` iff `G R_n = R_n G` for all `n`.
Not covered: which `G` commute (that is `commutes_iff_eq_commEmbed`, under non-resonance). -/
theorem isRelative_iff_commutes (G : BMat m α) : IsRelative ρ G ↔ Commutes ρ G := by
  constructor
  · rintro ⟨F, hF⟩
    apply commutes_of_scoreForm_diag
    intro n
    rw [hF n n, ← scoreForm_zero_zero ρ G, hF 0 0, Int.sub_self, Int.sub_self]
  · intro h
    exact ⟨fun d => G.mul (ropeMat ρ d), scoreForm_of_commutes ρ h⟩

/-- **Paper Prop 4.1, translation form.** The score form is invariant under shifting both
positions (`R_{n+t}ᵀ G R_{n'+t} = R_nᵀ G R_{n'}` for all `n, n', t`) iff `G` commutes with all
`R_n`. Not covered: nothing beyond `isRelative_iff_commutes`. -/
theorem translationInvariant_iff_commutes (G : BMat m α) :
    (∀ n n' t, scoreForm ρ G (n + t) (n' + t) = scoreForm ρ G n n') ↔ Commutes ρ G := by
  constructor
  · intro h
    apply commutes_of_scoreForm_diag
    intro t
    have := h 0 0 t
    rw [Int.zero_add, scoreForm_zero_zero] at this
    exact this
  · intro h n n' t
    rw [scoreForm_of_commutes ρ h, scoreForm_of_commutes ρ h]
    have e : n' + t - (n + t) = n' - n := by omega
    rw [e]

end PLGA.Rope
