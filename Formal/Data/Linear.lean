module

public import Formal.Data.Matrix
public import Formal.Data.FinBij

/-!
# Linear maps, linear isomorphisms, independence, dimension and column rank

Core Lean has no modules, no `LinearEquiv`, no `Module.finrank` and no `Matrix.rank`. This file
gives the small vocabulary the dimension and rank statements of the library need, and proves the
one nontrivial fact behind all of them: the Steinitz bound (more than `n` vectors of `α^n` are
linearly dependent), by induction on `n` with one step of Gaussian elimination.

## Main definitions

* `LinSpace α X`: an addition and a scalar multiplication by `α` on `X`, with the pointwise
  instance on function types (hence on `Vec`, `Mat`, `BMat`), products and subspaces
  (`IsSubspace`);
* `IsLinear α f`: `f` is additive and homogeneous;
* `LinIso α X Y`: a bijection (`Bij`) whose forward map is linear (the inverse is then linear,
  `LinIso.isLinear_invFun`), with `refl`, `symm`, `trans`, `prodMap`, `arrow`;
* `lincomb v c = ∑_t c_t v_t`, `LinIndep v`, `push e c` (the coefficients of a reindexed
  combination);
* `cols Q σ`: the columns `σ 0, …, σ (k-1)` of `Q`; `colRank Q`: the largest `k` such that some
  `k` columns of `Q` are linearly independent.

## Main statements

* `LinIndep.le_dim`: (Steinitz) `k` linearly independent vectors of `α^n` have `k ≤ n`;
* `LinIso.dim_eq`: `α^a` and `α^b` are linearly isomorphic only if `a = b` (dimension is an
  invariant);
* `exists_linIndep_cols_colRank`, `le_colRank_of_linIndep`: `colRank Q` is the maximal size of a
  linearly independent family of columns;
* `colRank_le_cols`, `colRank_le_rows`: `colRank Q ≤ min(S, d)` for `Q : S × d`;
* `colRank_eq_of_mulVec_eq_zero_iff`: two matrices with the same kernel have the same column rank.

## Implementation notes

No paper result is formalized here; this is infrastructure for Prop 4.1's dimension counts
(`Formal/Rope/Dimension.lean`) and Prop 3.6's `rank(QᵀQ) = rank Q ≤ min(S, d_k)`
(`Formal/Structure/Rank.lean`). `LinSpace` carries no axioms: linearity and isomorphism are
statements about the given maps. Over `ℝ` `colRank` is the usual rank (maximal number of linearly
independent columns). The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` uses
mathlib's `LinearEquiv`, `Module.finrank` and `Matrix.rank` instead.

## References

* Prop 3.6 and Prop 4.1 of the paper (the facts this serves).
-/

@[expose] public section

namespace PLGA

universe u v w u' v'

/-- An addition and a scalar multiplication by `α` on `X` (no axioms: linearity statements are
about maps between such types). -/
class LinSpace (α : Type u) (X : Type v) where
  /-- vector addition -/
  vadd : X → X → X
  /-- scalar multiplication -/
  vsmul : α → X → X

export LinSpace (vadd vsmul)

/-- The scalars act on themselves. -/
instance LinSpace.scalar {α : Type u} [Add α] [Mul α] : LinSpace α α := ⟨(· + ·), (· * ·)⟩

/-- Pointwise operations on functions (hence on `Vec`, `Mat`, `BMat`). -/
instance (priority := high) LinSpace.pi {α : Type u} {I : Type v} {X : Type w} [LinSpace α X] :
    LinSpace α (I → X) :=
  ⟨fun f g i => vadd α (f i) (g i), fun c f i => vsmul c (f i)⟩

/-- Componentwise operations on products. -/
instance LinSpace.prod {α : Type u} {X : Type v} {Y : Type w} [LinSpace α X] [LinSpace α Y] :
    LinSpace α (X × Y) :=
  ⟨fun p q => (vadd α p.1 q.1, vadd α p.2 q.2), fun c p => (vsmul c p.1, vsmul c p.2)⟩

/-- A predicate closed under the operations (a linear subspace, possibly without `0`). -/
class IsSubspace (α : Type u) {X : Type v} [LinSpace α X] (p : X → Prop) : Prop where
  /-- closed under addition -/
  add_mem : ∀ x y, p x → p y → p (vadd α x y)
  /-- closed under scalar multiplication -/
  smul_mem : ∀ (c : α) x, p x → p (vsmul c x)

/-- The operations restricted to a subspace. -/
instance LinSpace.subtype {α : Type u} {X : Type v} [LinSpace α X] (p : X → Prop)
    [IsSubspace α p] : LinSpace α (Subtype p) :=
  ⟨fun x y => ⟨vadd α x.1 y.1, IsSubspace.add_mem _ _ x.2 y.2⟩,
    fun c x => ⟨vsmul c x.1, IsSubspace.smul_mem c _ x.2⟩⟩

section Apply
variable {α : Type u} {I : Type v} {X : Type w}

/-- On scalars, vector addition is `+`. -/
theorem vadd_scalar [Add α] [Mul α] (a b : α) : vadd α a b = a + b := rfl
/-- On scalars, scalar multiplication is `*`. -/
theorem vsmul_scalar [Add α] [Mul α] (c a : α) : vsmul c a = c * a := rfl
/-- Vector addition of functions is pointwise. -/
theorem vadd_apply [LinSpace α X] (f g : I → X) (i : I) :
    vadd α f g i = vadd α (f i) (g i) := rfl
/-- Scalar multiplication of functions is pointwise. -/
theorem vsmul_apply [LinSpace α X] (c : α) (f : I → X) (i : I) : vsmul c f i = vsmul c (f i) := rfl
/-- The addition of a subspace is that of the ambient space. -/
theorem val_vadd [LinSpace α X] (p : X → Prop) [IsSubspace α p] (x y : Subtype p) :
    (vadd α x y).1 = vadd α x.1 y.1 := rfl
/-- The scalar multiplication of a subspace is that of the ambient space. -/
theorem val_vsmul [LinSpace α X] (p : X → Prop) [IsSubspace α p] (c : α) (x : Subtype p) :
    (vsmul c x).1 = vsmul c x.1 := rfl

end Apply

/-- `f` is linear: additive and homogeneous. -/
structure IsLinear (α : Type u) {X : Type v} {Y : Type w} [LinSpace α X] [LinSpace α Y]
    (f : X → Y) : Prop where
  /-- `f (x + y) = f x + f y` -/
  map_add : ∀ x y, f (vadd α x y) = vadd α (f x) (f y)
  /-- `f (c x) = c f x` -/
  map_smul : ∀ (c : α) x, f (vsmul c x) = vsmul c (f x)

/-- A linear isomorphism: a bijection whose forward map is linear (its inverse is then linear,
`LinIso.isLinear_invFun`). -/
structure LinIso (α : Type u) (X : Type v) (Y : Type w) [LinSpace α X] [LinSpace α Y]
    extends Bij X Y where
  /-- the forward map is linear -/
  isLinear_toFun : IsLinear α toFun

namespace LinIso

variable {α : Type u} {X : Type v} {Y : Type w} {Z : Type u'}
variable [LinSpace α X] [LinSpace α Y] [LinSpace α Z]

/-- The inverse of a linear bijection is linear. -/
theorem isLinear_invFun (e : LinIso α X Y) : IsLinear α e.invFun where
  map_add x y := by
    rw [← e.right_inv x, ← e.right_inv y, ← e.isLinear_toFun.map_add, e.left_inv, e.left_inv,
      e.left_inv]
  map_smul c x := by
    rw [← e.right_inv x, ← e.isLinear_toFun.map_smul, e.left_inv, e.left_inv]

/-- The identity. -/
noncomputable def refl (α : Type u) (X : Type v) [LinSpace α X] : LinIso α X X :=
  { Bij.refl X with isLinear_toFun := ⟨fun _ _ => rfl, fun _ _ => rfl⟩ }

/-- The inverse linear isomorphism. -/
noncomputable def symm (e : LinIso α X Y) : LinIso α Y X :=
  { e.toBij.symm with isLinear_toFun := e.isLinear_invFun }

/-- Composition. -/
noncomputable def trans (e : LinIso α X Y) (f : LinIso α Y Z) : LinIso α X Z :=
  { e.toBij.trans f.toBij with
    isLinear_toFun := ⟨fun x y => by
        show f.toFun (e.toFun _) = _
        rw [e.isLinear_toFun.map_add, f.isLinear_toFun.map_add]; rfl,
      fun c x => by
        show f.toFun (e.toFun _) = _
        rw [e.isLinear_toFun.map_smul, f.isLinear_toFun.map_smul]; rfl⟩ }

/-- Product of linear isomorphisms. -/
noncomputable def prodMap {X' : Type v'} {Y' : Type w} [LinSpace α X'] [LinSpace α Y']
    (e : LinIso α X X') (f : LinIso α Y Y') : LinIso α (X × Y) (X' × Y') :=
  { e.toBij.prodMap f.toBij with
    isLinear_toFun := ⟨fun p q => by
        show (e.toFun (vadd α p.1 q.1), f.toFun (vadd α p.2 q.2)) = _
        rw [e.isLinear_toFun.map_add, f.isLinear_toFun.map_add]; rfl,
      fun c p => by
        show (e.toFun (vsmul c p.1), f.toFun (vsmul c p.2)) = _
        rw [e.isLinear_toFun.map_smul, f.isLinear_toFun.map_smul]; rfl⟩ }

/-- A bijection of index types induces a linear isomorphism of function spaces. -/
noncomputable def arrow {I : Type v} {J : Type w} (e : Bij I J) (α : Type u) (X : Type u')
    [LinSpace α X] : LinIso α (I → X) (J → X) :=
  { e.arrow X with isLinear_toFun := ⟨fun _ _ => rfl, fun _ _ => rfl⟩ }

end LinIso

/-! ## Linear combinations and independence -/

section Indep
variable {α : Type u}

/-- The linear combination `∑_t c_t v_t` of `k` vectors of `α^n`. -/
noncomputable def lincomb [Add α] [Mul α] [OfNat α 0] {k n : Nat} (v : Fin k → Vec n α)
    (c : Fin k → α) : Vec n α :=
  fun i => fsum k (fun t => c t * v t i)

/-- Linear independence: only the trivial combination vanishes. -/
def LinIndep [Add α] [Mul α] [OfNat α 0] {k n : Nat} (v : Fin k → Vec n α) : Prop :=
  ∀ c : Fin k → α, lincomb v c = (fun _ => 0) → c = fun _ => 0

/-- The coefficients on `Fin l` of a combination indexed through `e : Fin k → Fin l`:
`push e c t = ∑_{s, e s = t} c s`. -/
noncomputable def push [Add α] [OfNat α 0] {k l : Nat} (e : Fin k → Fin l) (c : Fin k → α) :
    Fin l → α :=
  fun t => fsum k (fun s => if e s = t then c s else 0)

/-- The columns `σ 0, …, σ (k-1)` of `Q` as vectors of `α^S`. -/
def cols {S d k : Nat} (Q : Mat S d α) (σ : Fin k → Fin d) : Fin k → Vec S α :=
  fun t p => Q p (σ t)

section Semiring
variable [Lean.Grind.Semiring α]

/-- Reindexing a sum through `push`: `∑_t (push e c)_t f_t = ∑_s c_s f_{e s}`. -/
theorem fsum_push_mul {k l : Nat} (e : Fin k → Fin l) (c : Fin k → α) (f : Fin l → α) :
    fsum l (fun t => push e c t * f t) = fsum k (fun s => c s * f (e s)) := by
  simp only [push]
  have h1 : (fun t => fsum k (fun s => if e s = t then c s else 0) * f t)
      = fun t => fsum k (fun s => if e s = t then c s * f t else 0) := by
    funext t; rw [← fsum_mul_right]; apply fsum_congr; intro s
    by_cases h : e s = t
    · simp only [h, if_true]
    · simp only [h, if_false]; grind
  rw [h1, fsum_comm]
  apply fsum_congr; intro s
  rw [fsum_single l (e s)]
  · simp only [if_true]
  · intro t ht; have : ¬ e s = t := fun h' => ht h'.symm
    simp only [this, if_false]

/-- For injective `e`, `push e c` takes the value `c s` at `e s`. -/
theorem push_apply_of_injective {k l : Nat} {e : Fin k → Fin l}
    (he : ∀ a b, e a = e b → a = b) (c : Fin k → α) (s : Fin k) : push e c (e s) = c s := by
  simp only [push]
  rw [fsum_single k s]
  · simp only [if_true]
  · intro s' hs'; have : ¬ e s' = e s := fun h => hs' (he _ _ h)
    simp only [this, if_false]

/-- A combination of columns is a matrix–vector product: `∑_t c_t Q_{·, σ t} = Q (push σ c)`. -/
theorem lincomb_cols {S d k : Nat} (Q : Mat S d α) (σ : Fin k → Fin d) (c : Fin k → α)
    (hcomm : ∀ a b : α, a * b = b * a) :
    lincomb (cols Q σ) c = Mat.mulVec Q (push σ c) := by
  funext p
  simp only [lincomb, cols, Mat.mulVec]
  rw [fsum_congr d (g := fun j => push σ c j * Q p j) (fun j => hcomm _ _), fsum_push_mul]

end Semiring

section Field
variable [Lean.Grind.Field α]

/-- `1 ≠ 0` in a field. -/
theorem field_one_ne_zero : (1 : α) ≠ 0 := by
  intro h; have := Lean.Grind.Field.zero_ne_one (α := α); exact this h.symm

/-- The skip map `Fin k → Fin (k+1)` avoiding `t0`. -/
def skipAt {k : Nat} (t0 : Fin (k + 1)) (s : Fin k) : Fin (k + 1) :=
  ⟨if s.val < t0.val then s.val else s.val + 1, by have := s.isLt; split <;> omega⟩

/-- `skipAt t0` never hits `t0`. -/
theorem skipAt_ne {k : Nat} (t0 : Fin (k + 1)) (s : Fin k) : ¬ skipAt t0 s = t0 := by
  intro h; have := congrArg Fin.val h; simp only [skipAt] at this; split at this <;> omega

/-- `skipAt t0` is injective. -/
theorem skipAt_injective {k : Nat} (t0 : Fin (k + 1)) (a b : Fin k)
    (h : skipAt t0 a = skipAt t0 b) : a = b := by
  have := congrArg Fin.val h; simp only [skipAt] at this
  apply Fin.ext; split at this <;> split at this <;> omega

/-- **Steinitz bound.** `k` linearly independent vectors of `α^n` (over a field) have `k ≤ n`.
Proof: induction on `n`; if every vector has last coordinate `0`, drop it; otherwise eliminate the
last coordinate with a pivot vector and apply the induction hypothesis to the other `k - 1`. -/
theorem LinIndep.le_dim {n k : Nat} {v : Fin k → Vec n α} (hv : LinIndep v) : k ≤ n := by
  induction n generalizing k with
  | zero =>
    cases k with
    | zero => exact Nat.le_refl 0
    | succ k =>
      exfalso
      have h := congrFun (hv (fun _ => 1) (funext fun i => i.elim0)) 0
      exact field_one_ne_zero h
  | succ n ih =>
    by_cases hall : ∀ t, v t (Fin.last n) = 0
    · have : k ≤ n := ih (v := fun t i => v t i.castSucc) (by
        intro c hc
        apply hv c
        funext i
        by_cases hi : i.val < n
        · have e : i = (⟨i.val, hi⟩ : Fin n).castSucc := Fin.ext rfl
          rw [e]; exact congrFun hc ⟨i.val, hi⟩
        · have e : i = Fin.last n := Fin.ext (by have := i.isLt; simp only [Fin.val_last]; omega)
          rw [e]; simp only [lincomb, hall]
          rw [fsum_congr k (g := fun _ => (0 : α)) (fun t => by grind), fsum_const_zero])
      omega
    · have ⟨t0, ht0⟩ : ∃ t0, v t0 (Fin.last n) ≠ 0 :=
        Classical.byContradiction fun h => hall fun t =>
          Classical.byContradiction fun ht => h ⟨t, ht⟩
      cases k with
      | zero => exact t0.elim0
      | succ k =>
        let a : Fin (k + 1) → α := fun t => v t (Fin.last n) / v t0 (Fin.last n)
        let w : Fin k → Vec n α := fun s i =>
          v (skipAt t0 s) i.castSucc - a (skipAt t0 s) * v t0 i.castSucc
        suffices hw : LinIndep w by have := ih hw; omega
        intro c hc
        let K : α := fsum k (fun s => c s * a (skipAt t0 s))
        let C : Fin (k + 1) → α := fun t => push (skipAt t0) c t - K * (if t = t0 then 1 else 0)
        have hC : lincomb v C = fun _ => 0 := by
          have key : ∀ i, lincomb v C i
              = fsum k (fun s => c s * (v (skipAt t0 s) i - a (skipAt t0 s) * v t0 i)) := by
            intro i
            simp only [lincomb, C]
            have h1 : (fun t => (push (skipAt t0) c t - K * (if t = t0 then 1 else 0)) * v t i)
                = fun t => push (skipAt t0) c t * v t i
                    - (if t = t0 then K * v t0 i else 0) := by
              funext t; by_cases ht : t = t0
              · subst ht; simp only [if_true]; grind
              · simp only [ht, if_false]; grind
            rw [h1, fsum_sub, fsum_push_mul, fsum_single (k + 1) t0 (fun t => if t = t0 then
              K * v t0 i else 0) (fun t ht => by simp only [ht, if_false])]
            simp only [if_true, K]
            rw [← fsum_mul_right, ← fsum_sub]
            apply fsum_congr; intro s; grind
          funext i
          rw [key]
          by_cases hi : i.val < n
          · have e : i = (⟨i.val, hi⟩ : Fin n).castSucc := Fin.ext rfl
            rw [e]; exact congrFun hc ⟨i.val, hi⟩
          · have e : i = Fin.last n := Fin.ext (by have := i.isLt; simp only [Fin.val_last]; omega)
            rw [e, fsum_congr k (g := fun _ => (0 : α)), fsum_const_zero]
            intro s
            have : a (skipAt t0 s) * v t0 (Fin.last n) = v (skipAt t0 s) (Fin.last n) := by
              simp only [a]; rw [Lean.Grind.Field.div_mul_cancel ht0]
            rw [this]; grind
        have h0 := hv C hC
        funext s
        have := congrFun h0 (skipAt t0 s)
        simp only [C, skipAt_ne t0 s, if_false,
          push_apply_of_injective (skipAt_injective t0) c s] at this
        grind

/-- A linear map between coordinate spaces sends combinations to combinations. -/
theorem map_lincomb {a b k : Nat} {f : Vec a α → Vec b α} (hf : IsLinear α f)
    (v : Fin k → Vec a α) (c : Fin k → α) :
    f (lincomb v c) = lincomb (fun t => f (v t)) c := by
  induction k with
  | zero =>
    have h0 : lincomb v c = vsmul (0 : α) (fun _ : Fin a => (0 : α)) := by
      funext i; simp only [lincomb, fsum_zero, vsmul_apply, vsmul_scalar]; grind
    rw [h0, hf.map_smul]; funext j; simp only [lincomb, fsum_zero, vsmul_apply, vsmul_scalar]
    grind
  | succ k ih =>
    have h1 : lincomb v c = vadd α (lincomb (fun t => v t.castSucc) (fun t => c t.castSucc))
        (vsmul (c (Fin.last k)) (v (Fin.last k))) := rfl
    rw [h1, hf.map_add, hf.map_smul, ih]; rfl

/-- The standard basis vector `e_t` of `α^a`. -/
def unitVec (a : Nat) (t : Fin a) : Vec a α := fun i => if t = i then 1 else 0

/-- `∑_t c_t e_t = c`. -/
theorem lincomb_unitVec {a : Nat} (c : Fin a → α) : lincomb (unitVec a) c = c := by
  funext i; simp only [lincomb, unitVec]
  rw [fsum_single a i]
  · simp only [if_true]; grind
  · intro t ht; simp only [ht, if_false]; grind

/-- An injective linear map sends the standard basis to an independent family. -/
theorem linIndep_map_unitVec {a b : Nat} {f : Vec a α → Vec b α} (hf : IsLinear α f)
    (hinj : ∀ x y, f x = f y → x = y) : LinIndep (fun t => f (unitVec a t)) := by
  intro c hc
  rw [← map_lincomb hf, lincomb_unitVec] at hc
  apply hinj
  rw [hc]
  have := map_lincomb hf (unitVec a) (fun _ => 0)
  rw [lincomb_unitVec] at this
  rw [this]; funext j; simp only [lincomb]
  rw [fsum_congr a (g := fun _ => (0 : α)) (fun t => by grind), fsum_const_zero]

/-- **Dimension is an invariant.** `α^a` and `α^b` are linearly isomorphic only if `a = b`. -/
theorem LinIso.dim_eq {a b : Nat} (e : LinIso α (Vec a α) (Vec b α)) : a = b := by
  have h1 := (linIndep_map_unitVec e.isLinear_toFun (fun x y h => by
    rw [← e.left_inv x, h, e.left_inv])).le_dim
  have h2 := (linIndep_map_unitVec e.isLinear_invFun (fun x y h => by
    rw [← e.right_inv x, h, e.right_inv])).le_dim
  omega

end Field

/-! ## Column rank -/

section Rank

open Classical in
/-- The largest `k ≤ n` with `P k` (`0` if there is none). -/
noncomputable def greatestBelow (P : Nat → Prop) : Nat → Nat
  | 0 => 0
  | n + 1 => if P (n + 1) then n + 1 else greatestBelow P n

/-- `greatestBelow P n ≤ n`. -/
theorem greatestBelow_le (P : Nat → Prop) (n : Nat) : greatestBelow P n ≤ n := by
  induction n with
  | zero => exact Nat.le_refl 0
  | succ n ih => simp only [greatestBelow]; split <;> omega

/-- `greatestBelow P n` satisfies `P` (given `P 0`). -/
theorem greatestBelow_spec (P : Nat → Prop) (h0 : P 0) (n : Nat) : P (greatestBelow P n) := by
  induction n with
  | zero => exact h0
  | succ n ih => simp only [greatestBelow]; split <;> assumption

/-- Every `k ≤ n` with `P k` is at most `greatestBelow P n`. -/
theorem le_greatestBelow (P : Nat → Prop) {k n : Nat} (hk : P k) (hkn : k ≤ n) :
    k ≤ greatestBelow P n := by
  induction n with
  | zero => show k ≤ 0; omega
  | succ n ih =>
    simp only [greatestBelow]; split
    · exact hkn
    · rename_i h
      have : k ≠ n + 1 := fun e => h (e ▸ hk)
      exact ih (by omega)

variable [Lean.Grind.Field α]

/-- The column rank of `Q : S × d`: the largest `k` such that some `k` columns of `Q` are linearly
independent (the usual rank over `ℝ`). -/
noncomputable def colRank {S d : Nat} (Q : Mat S d α) : Nat :=
  greatestBelow (fun k => ∃ σ : Fin k → Fin d, LinIndep (cols Q σ)) d

/-- Commutativity of multiplication in a field (for `lincomb_cols`). -/
theorem mul_comm' (a b : α) : a * b = b * a := Lean.Grind.CommSemiring.mul_comm a b

/-- Linearly independent columns are distinct, so there are at most `d` of them. -/
theorem LinIndep.le_cols {S d k : Nat} {Q : Mat S d α} {σ : Fin k → Fin d}
    (h : LinIndep (cols Q σ)) : k ≤ d := by
  have hu : LinIndep (fun t => unitVec (α := α) d (σ t)) := by
    intro c hc
    apply h c
    have hp : push σ c = fun _ => 0 := by
      rw [← hc]; funext j; simp only [push, lincomb, unitVec]
      apply fsum_congr; intro s
      by_cases hs : σ s = j
      · simp only [hs, if_true]; grind
      · simp only [hs, if_false]; grind
    rw [lincomb_cols Q σ c mul_comm', hp]
    funext p; simp only [Mat.mulVec]
    rw [fsum_congr d (g := fun _ => (0 : α)) (fun j => by grind), fsum_const_zero]
  exact hu.le_dim

/-- `colRank Q` is attained: some `colRank Q` columns of `Q` are linearly independent. -/
theorem exists_linIndep_cols_colRank {S d : Nat} (Q : Mat S d α) :
    ∃ σ : Fin (colRank Q) → Fin d, LinIndep (cols Q σ) :=
  greatestBelow_spec (fun k => ∃ σ : Fin k → Fin d, LinIndep (cols Q σ))
    (show ∃ σ : Fin 0 → Fin d, LinIndep (cols Q σ) from
      ⟨Fin.elim0, fun _ _ => funext fun t => t.elim0⟩) d

/-- `colRank Q` is maximal: every linearly independent family of `k` columns has
`k ≤ colRank Q`. -/
theorem le_colRank_of_linIndep {S d k : Nat} (Q : Mat S d α) (σ : Fin k → Fin d)
    (h : LinIndep (cols Q σ)) : k ≤ colRank Q :=
  le_greatestBelow _ ⟨σ, h⟩ h.le_cols

/-- `colRank Q ≤ d` (number of columns). -/
theorem colRank_le_cols {S d : Nat} (Q : Mat S d α) : colRank Q ≤ d := greatestBelow_le _ d

/-- `colRank Q ≤ S` (number of rows; Steinitz). -/
theorem colRank_le_rows {S d : Nat} (Q : Mat S d α) : colRank Q ≤ S :=
  (exists_linIndep_cols_colRank Q).elim fun _ h => h.le_dim

/-- `colRank Q ≤ min(S, d)`. -/
theorem colRank_le_min {S d : Nat} (Q : Mat S d α) : colRank Q ≤ min S d :=
  Nat.le_min.2 ⟨colRank_le_rows Q, colRank_le_cols Q⟩

/-- Two matrices with the same kernel have the same linearly independent column families. -/
theorem linIndep_cols_iff_of_mulVec_eq_zero_iff {S S' d k : Nat} {Q : Mat S d α}
    {Q' : Mat S' d α}
    (h : ∀ x, Mat.mulVec Q x = (fun _ => 0) ↔ Mat.mulVec Q' x = (fun _ => 0))
    (σ : Fin k → Fin d) : LinIndep (cols Q σ) ↔ LinIndep (cols Q' σ) := by
  constructor
  · intro hQ c hc; apply hQ c
    rw [lincomb_cols _ _ _ mul_comm'] at hc ⊢; exact (h _).2 hc
  · intro hQ c hc; apply hQ c
    rw [lincomb_cols _ _ _ mul_comm'] at hc ⊢; exact (h _).1 hc

/-- Two matrices with the same kernel have the same column rank. -/
theorem colRank_eq_of_mulVec_eq_zero_iff {S S' d : Nat} {Q : Mat S d α} {Q' : Mat S' d α}
    (h : ∀ x, Mat.mulVec Q x = (fun _ => 0) ↔ Mat.mulVec Q' x = (fun _ => 0)) :
    colRank Q = colRank Q' := by
  have hP : (fun k => ∃ σ : Fin k → Fin d, LinIndep (cols Q σ))
      = (fun k => ∃ σ : Fin k → Fin d, LinIndep (cols Q' σ)) :=
    funext fun k => propext ⟨fun ⟨σ, hσ⟩ => ⟨σ, (linIndep_cols_iff_of_mulVec_eq_zero_iff h σ).1 hσ⟩,
      fun ⟨σ, hσ⟩ => ⟨σ, (linIndep_cols_iff_of_mulVec_eq_zero_iff h σ).2 hσ⟩⟩
  unfold colRank; rw [hP]

end Rank

end Indep

end PLGA
