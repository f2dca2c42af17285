module

public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# The online contract and the causally masked cumulative Gram (Rem 4.7, Def 4.8)

A decoder is a map `F : List τ → List ρ` (one output row per input position). Block scoring
(one forward pass on the whole sequence, as in training, spec §C) equals sequential scoring (the
row read when the sequence has only grown to that position, as in generation) exactly when `F` is
prefix-consistent. Causal (row-local) decoders and whole stacks of them are prefix-consistent;
the paper's proposed fix, the **causally masked cumulative Gram** `D_t = Σ_{p≤t} q̂_p q̂_pᵀ`, makes
the PLGA layer prefix-consistent, while the code's non-causal global Gram layer is not.

## Main definitions

* `onlineOut`, `PrefixConsistent`, `LengthPreserving`, `PrefixConsistentShaped`, `RowLocal`:
  the online output at time `t` and the contract (following the authors' `OnlineContract`);
* `rowMapDecoder`, `globalSumDecoder`: a causal and a non-causal example decoder;
* `stack`: a stack of layers applied in order;
* `outer`, `gram`: the outer product and the cumulative Gram of a prefix;
* `cumGramLayer`: the abstract PLGA layer whose row `t` is any function of `(D_t, x_{≤t})` (LN_A,
  Φ_res, metric, power law, G, causal attention all are);
* `globalGramLayer`: the code's layer, every row uses the Gram of the whole sequence.

## Main statements

* `online_causal`, `prefixConsistent_of_rowLocal`, `block_eq_online_of_shaped` (under prefix
  consistency + length preservation, block row `r` = online output at time `r+1`),
  `prefixConsistentShaped_getElem` (the same with total indexing);
* `rowMapDecoder_*` (row-local, length-preserving, prefix-consistent, block = online);
* `globalSumDecoder_not_prefixConsistent` (witness `[0, 1]` over `Int`), and
  `constNil_prefixConsistent` / `constNil_not_prefixConsistentShaped`;
* `rowLocal_comp`, `stack_rowLocal`, `stack_block_eq_online`: a stack of row-local
  length-preserving layers — a whole decoder — stays row-local, so block = sequential;
* `gram_append` (`D_t = D_{t-1} + q̂_t q̂_tᵀ`, the O(d²) online update), `gram_quadratic_nonneg`
  (`D_t ⪰ 0`, Prop 3.6 for the cumulative Gram);
* `cumGramLayer_rowLocal`, `cumGramLayer_prefixConsistentShaped`, `cumGramLayer_block_eq_online`;
* `globalGramLayer_not_prefixConsistent`: explicit witness.

## Implementation notes

Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations` (`OnlineContract`,
spec §E): `onlineOut`, `PrefixConsistent`, `LengthPreserving`, `RowLocal`, `rowMapDecoder`,
`globalSumDecoder` and their lemmas (wrapper level); beyond it: `rowLocal_comp`, `stack_*` and
everything about the Gram. Not covered: the concrete PLDR-LLM head (it enters as an arbitrary
function `head`), masking with a finite `-1e9`, the KV/G-cache of the code (spec §B), float
rounding differences between the two evaluation orders.

## References

* Rem 4.7, Def 4.8, Prop 3.6 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 3, §G.7 (global Gram), §B, §C, §E.
-/

@[expose] public section

namespace PLGA.Online

open PLGA

variable {τ : Type u} {ρ : Type v}

/-- The output at time `t`: run `F` on the first `t` tokens and read the last row. -/
noncomputable def onlineOut (F : List τ → List ρ) (x : List τ) (t : Nat) : Option ρ :=
  (F (x.take t)).getLast?

/-- Row `r` of the block output equals row `r` of the output on the prefix of length `r+1`. -/
def PrefixConsistent (F : List τ → List ρ) : Prop :=
  ∀ x r, r < x.length → (F x)[r]? = (F (x.take (r + 1)))[r]?

/-- One output row per input row. -/
def LengthPreserving (F : List τ → List ρ) : Prop := ∀ x, (F x).length = x.length

/-- Both of the above. -/
def PrefixConsistentShaped (F : List τ → List ρ) : Prop := PrefixConsistent F ∧ LengthPreserving F

/-- Row `r` of the output depends only on the tokens `0..r` (causality). -/
def RowLocal (F : List τ → List ρ) : Prop :=
  ∀ x y r, x.take (r + 1) = y.take (r + 1) → (F x)[r]? = (F y)[r]?

/-- The decoder whose row `r` is `f` of the prefix `x_{0..r}`. -/
noncomputable def rowMapDecoder (f : List τ → ρ) (x : List τ) : List ρ :=
  (List.range x.length).map (fun r => f (x.take (r + 1)))

/-- A decoder whose every row sees the sum of the whole sequence (non-causal). -/
noncomputable def globalSumDecoder (x : List Int) : List Int := x.map (· + x.sum)

/-- Rem 4.7 (authors' `online_causal`): the online output at time `t` only sees `x_{<t}`. -/
theorem online_causal (F : List τ → List ρ) (x y : List τ) (t : Nat) (h : x.take t = y.take t) :
    onlineOut F x t = onlineOut F y t := by
  unfold onlineOut; rw [h]

/-- Def 4.8 (authors' `prefixConsistent_of_rowLocal`): a causal (row-local) decoder is
prefix-consistent. Does not cover: the converse. -/
theorem prefixConsistent_of_rowLocal (F : List τ → List ρ) (hF : RowLocal F) :
    PrefixConsistent F := by
  intro x r _
  apply hF
  rw [List.take_take, Nat.min_self]

/-- Def 4.8 (authors' `prefixConsistentShaped_of_rowLocal`). -/
theorem prefixConsistentShaped_of_rowLocal (F : List τ → List ρ) (hF : RowLocal F)
    (hL : LengthPreserving F) : PrefixConsistentShaped F :=
  ⟨prefixConsistent_of_rowLocal F hF, hL⟩

/-- Rem 4.7 (authors' `prefixConsistentShaped_getElem`, `rowMapDecoder_block_eq_online`
generalized): for a prefix-consistent, length-preserving decoder, block row `r` equals the
online output at time `r+1` — block scoring equals sequential scoring.
Does not cover: decoders that change the length. -/
theorem block_eq_online_of_shaped (F : List τ → List ρ) (hF : PrefixConsistentShaped F)
    (x : List τ) (r : Nat) (hr : r < x.length) : (F x)[r]? = onlineOut F x (r + 1) := by
  unfold onlineOut
  rw [List.getLast?_eq_getElem?, hF.2, List.length_take, hF.1 x r hr]
  congr 1
  omega

/-- Prefix consistency with total indexing (the authors' `prefixConsistentShaped_getElem`): for a
length-preserving prefix-consistent decoder, row `r` of the output on `x` is row `r` of the output
on the prefix `x_{0..r}`. -/
theorem prefixConsistentShaped_getElem (F : List τ → List ρ) (hF : PrefixConsistentShaped F)
    (x : List τ) (r : Nat) (hr : r < x.length) :
    (F x)[r]'(by rw [hF.2]; exact hr)
      = (F (x.take (r + 1)))[r]'(by rw [hF.2, List.length_take]; omega) := by
  have h := hF.1 x r hr
  rw [List.getElem?_eq_getElem (by rw [hF.2]; exact hr),
    List.getElem?_eq_getElem (by rw [hF.2, List.length_take]; omega)] at h
  exact Option.some.inj h

/-- The empty decoder is (vacuously) prefix-consistent. -/
theorem constNil_prefixConsistent : PrefixConsistent (fun _ : List τ => ([] : List ρ)) := by
  intro x r _; rfl

/-- Prefix consistency alone is weak: the empty decoder has it but is not length-preserving. -/
theorem constNil_not_prefixConsistentShaped (s : τ) :
    ¬ PrefixConsistentShaped (fun _ : List τ => ([] : List ρ)) := by
  intro h
  have := h.2 [s]
  simp at this

/-- Row `r` of a row-map decoder is `f(x_{0..r})` (and none past the end). -/
theorem rowMapDecoder_getElem? (f : List τ → ρ) (x : List τ) (r : Nat) :
    (rowMapDecoder f x)[r]? = if r < x.length then some (f (x.take (r + 1))) else none := by
  unfold rowMapDecoder
  rw [List.getElem?_map]
  by_cases h : r < x.length
  · rw [List.getElem?_range h, if_pos h]; rfl
  · rw [if_neg h, List.getElem?_eq_none (by rw [List.length_range]; omega)]; rfl

/-- Def 4.8 (authors' `rowMapDecoder_lengthPreserving`). -/
theorem rowMapDecoder_lengthPreserving (f : List τ → ρ) : LengthPreserving (rowMapDecoder f) := by
  intro x; simp [rowMapDecoder]

/-- Def 4.8 (authors' `rowMapDecoder_rowLocal`): a row-map decoder is causal. -/
theorem rowMapDecoder_rowLocal (f : List τ → ρ) : RowLocal (rowMapDecoder f) := by
  intro x y r h
  rw [rowMapDecoder_getElem?, rowMapDecoder_getElem?, h]
  have hl := congrArg List.length h
  rw [List.length_take, List.length_take] at hl
  by_cases hx : r < x.length
  · have hy : r < y.length := by omega
    rw [if_pos hx, if_pos hy]
  · have hy : ¬ r < y.length := by omega
    rw [if_neg hx, if_neg hy]

/-- Def 4.8 (authors' `rowMapDecoder_prefixConsistent`). -/
theorem rowMapDecoder_prefixConsistent (f : List τ → ρ) : PrefixConsistent (rowMapDecoder f) :=
  prefixConsistent_of_rowLocal _ (rowMapDecoder_rowLocal f)

/-- Def 4.8 (authors' `rowMapDecoder_prefixConsistentShaped`). -/
theorem rowMapDecoder_prefixConsistentShaped (f : List τ → ρ) :
    PrefixConsistentShaped (rowMapDecoder f) :=
  ⟨rowMapDecoder_prefixConsistent f, rowMapDecoder_lengthPreserving f⟩

/-- Rem 4.7 (authors' `rowMapDecoder_block_eq_online`). -/
theorem rowMapDecoder_block_eq_online (f : List τ → ρ) (x : List τ) (r : Nat) (hr : r < x.length) :
    (rowMapDecoder f x)[r]? = onlineOut (rowMapDecoder f) x (r + 1) :=
  block_eq_online_of_shaped _ (rowMapDecoder_prefixConsistentShaped f) x r hr

/-- Authors' `globalSumDecoder_lengthPreserving`. -/
theorem globalSumDecoder_lengthPreserving : LengthPreserving globalSumDecoder := by
  intro x; simp [globalSumDecoder]

/-- Def 4.8 (authors' `globalSumDecoder_not_prefixConsistent`): a decoder whose rows see the
whole sequence is not prefix-consistent; witness `[0, 1]` (row 0 is `1` in block, `0` online).
Does not cover: PLGA itself (see `globalGramLayer_not_prefixConsistent`). -/
theorem globalSumDecoder_not_prefixConsistent : ¬ PrefixConsistent globalSumDecoder := by
  intro h
  have := h [0, 1] 0 (by decide)
  revert this; decide

/-- Authors' `globalSumDecoder_not_prefixConsistentShaped`. -/
theorem globalSumDecoder_not_prefixConsistentShaped : ¬ PrefixConsistentShaped globalSumDecoder :=
  fun h => globalSumDecoder_not_prefixConsistent h.1

/-! ## Stacks of layers -/

/-- Row-local decoders agree on the first `r+1` rows of inputs that agree on `r+1` tokens. -/
theorem rowLocal_take {τ' : Type w} (F : List τ → List τ') (hF : RowLocal F) (x y : List τ)
    (r : Nat)
    (h : x.take (r + 1) = y.take (r + 1)) : (F x).take (r + 1) = (F y).take (r + 1) := by
  apply List.ext_getElem?
  intro i
  rw [List.getElem?_take, List.getElem?_take]
  by_cases hi : i < r + 1
  · rw [if_pos hi, if_pos hi]
    apply hF
    have e : ∀ z : List τ, z.take (i + 1) = (z.take (r + 1)).take (i + 1) := by
      intro z; rw [List.take_take]; congr 1; omega
    rw [e x, e y, h]
  · rw [if_neg hi, if_neg hi]

/-- Beyond the authors' repository: composing causal layers gives a causal decoder. -/
theorem rowLocal_comp {τ' : Type w} (F : List τ → List τ') (G : List τ' → List ρ) (hF : RowLocal F)
    (hG : RowLocal G) : RowLocal (fun x => G (F x)) := by
  intro x y r h
  exact hG _ _ r (rowLocal_take F hF x y r h)

/-- The identity decoder is causal. -/
theorem rowLocal_id : RowLocal (fun x : List τ => x) := by
  intro x y r h
  have := congrArg (fun z : List τ => z[r]?) h
  simp only [List.getElem?_take_of_lt (Nat.lt_succ_self r)] at this
  exact this

/-- A stack of layers applied in order (layer 0 first). -/
noncomputable def stack (Fs : List (List τ → List τ)) : List τ → List τ :=
  Fs.foldl (fun acc F => fun x => F (acc x)) (fun x => x)

/-- Folding causal layers onto a causal accumulator stays causal. -/
theorem stack_foldl_rowLocal (Fs : List (List τ → List τ)) (hFs : ∀ F ∈ Fs, RowLocal F)
    (acc : List τ → List τ) (hacc : RowLocal acc) :
    RowLocal (Fs.foldl (fun acc F => fun x => F (acc x)) acc) := by
  induction Fs generalizing acc with
  | nil => exact hacc
  | cons F Fs ih =>
    simp only [List.foldl_cons]
    exact ih (fun G hG => hFs G (List.mem_cons_of_mem F hG)) _
      (rowLocal_comp acc F hacc (hFs F (List.mem_cons_self)))

/-- Folding length-preserving layers stays length-preserving. -/
theorem stack_foldl_lengthPreserving (Fs : List (List τ → List τ))
    (hFs : ∀ F ∈ Fs, LengthPreserving F) (acc : List τ → List τ) (hacc : LengthPreserving acc) :
    LengthPreserving (Fs.foldl (fun acc F => fun x => F (acc x)) acc) := by
  induction Fs generalizing acc with
  | nil => exact hacc
  | cons F Fs ih =>
    simp only [List.foldl_cons]
    exact ih (fun G hG => hFs G (List.mem_cons_of_mem F hG)) _
      (fun x => by rw [hFs F List.mem_cons_self, hacc])

/-- Beyond the authors' repository: a decoder stack of causal layers is causal. -/
theorem stack_rowLocal (Fs : List (List τ → List τ)) (hFs : ∀ F ∈ Fs, RowLocal F) :
    RowLocal (stack Fs) :=
  stack_foldl_rowLocal Fs hFs _ rowLocal_id

/-- Rem 4.7 for a whole decoder: if every layer is causal and length-preserving, block scoring of
the stack equals sequential scoring, row by row. Does not cover: the output head (a row map). -/
theorem stack_block_eq_online (Fs : List (List τ → List τ)) (hFs : ∀ F ∈ Fs, RowLocal F)
    (hL : ∀ F ∈ Fs, LengthPreserving F) (x : List τ) (r : Nat) (hr : r < x.length) :
    (stack Fs x)[r]? = onlineOut (stack Fs) x (r + 1) :=
  block_eq_online_of_shaped _ (prefixConsistentShaped_of_rowLocal _ (stack_rowLocal Fs hFs)
    (stack_foldl_lengthPreserving Fs hL _ (fun _ => rfl))) x r hr

/-! ## The causally masked cumulative Gram -/

section Gram
variable {α : Type w} [Lean.Grind.CommRing α]

/-- The outer product `q qᵀ`. -/
noncomputable def outer {d : Nat} (q : Vec d α) : Mat d d α := fun i j => q i * q j

/-- `Σ_{k} q̂_{p+k} q̂_{p+k}ᵀ` over a list of tokens starting at position `p`. -/
noncomputable def gramAux {d : Nat} (qhat : Nat → τ → Vec d α) : Nat → List τ → Mat d d α
  | _, [] => Mat.zero d d
  | p, s :: xs => Mat.add (outer (qhat p s)) (gramAux qhat (p + 1) xs)

/-- The cumulative Gram (density) of a prefix: `gram qhat (x.take (t+1)) = Σ_{p≤t} q̂_p q̂_pᵀ`,
where `q̂_p = qhat p x_p` is the rotated query of token `x_p` at position `p`. -/
noncomputable def gram {d : Nat} (qhat : Nat → τ → Vec d α) (xs : List τ) : Mat d d α :=
  gramAux qhat 0 xs

/-- Appending a token adds its outer product at its position. -/
theorem gramAux_append {d : Nat} (qhat : Nat → τ → Vec d α) (xs : List τ) (s : τ) (p : Nat) :
    gramAux qhat p (xs ++ [s]) = Mat.add (gramAux qhat p xs) (outer (qhat (p + xs.length) s)) := by
  induction xs generalizing p with
  | nil => funext i j; simp [gramAux, Mat.add, Mat.zero]; grind
  | cons s' xs ih =>
    simp only [List.cons_append, gramAux, ih]
    funext i j
    simp only [Mat.add, List.length_cons]
    have : p + 1 + xs.length = p + (xs.length + 1) := by omega
    rw [this]; grind

/-- The online update of the causal Gram: `D_t = D_{t-1} + q̂_t q̂_tᵀ` (a d×d cache suffices).
Does not cover: numerical stability of the running sum. -/
theorem gram_append {d : Nat} (qhat : Nat → τ → Vec d α) (xs : List τ) (s : τ) :
    gram qhat (xs ++ [s]) = Mat.add (gram qhat xs) (outer (qhat xs.length s)) := by
  unfold gram; rw [gramAux_append, Nat.zero_add]

/-- The abstract PLGA layer on the causal Gram: row `t` is `head (D_t) (x_{≤t})`, where `head`
stands for everything downstream of the density (LN_A, Φ_res, metric tensor, power law, `G`,
scores of `q̂_t` against `k̂_{p≤t}`, softmax, values). -/
noncomputable def cumGramLayer {d : Nat} (qhat : Nat → τ → Vec d α)
    (head : Mat d d α → List τ → ρ) :
    List τ → List ρ :=
  rowMapDecoder (fun pre => head (gram qhat pre) pre)

/-- The code's layer (spec A.4 step 3, G.7): every row uses the Gram of the WHOLE sequence. -/
noncomputable def globalGramLayer {d : Nat} (qhat : Nat → τ → Vec d α)
    (head : Mat d d α → List τ → ρ)
    (x : List τ) : List ρ :=
  (List.range x.length).map (fun r => head (gram qhat x) (x.take (r + 1)))

/-- Def 4.8 with the causal Gram: row `t` of the layer is `head(D_t, x_{≤t})` with
`D_t = Σ_{p≤t} q̂_p q̂_pᵀ`. -/
theorem cumGramLayer_getElem? {d : Nat} (qhat : Nat → τ → Vec d α) (head : Mat d d α → List τ → ρ)
    (x : List τ) (t : Nat) (ht : t < x.length) :
    (cumGramLayer qhat head x)[t]? = some (head (gram qhat (x.take (t + 1))) (x.take (t + 1))) := by
  unfold cumGramLayer; rw [rowMapDecoder_getElem?, if_pos ht]

/-- Def 4.8: the PLGA layer on the causally masked cumulative Gram is row-local (causal). -/
theorem cumGramLayer_rowLocal {d : Nat} (qhat : Nat → τ → Vec d α)
    (head : Mat d d α → List τ → ρ) : RowLocal (cumGramLayer qhat head) :=
  rowMapDecoder_rowLocal _

/-- Def 4.8: the PLGA layer on the cumulative Gram is prefix-consistent and length-preserving.
Does not cover: the trained model, whose `D` is non-causal (see below). -/
theorem cumGramLayer_prefixConsistentShaped {d : Nat} (qhat : Nat → τ → Vec d α)
    (head : Mat d d α → List τ → ρ) : PrefixConsistentShaped (cumGramLayer qhat head) :=
  rowMapDecoder_prefixConsistentShaped _

/-- Rem 4.7 with the fix: block scoring equals sequential scoring exactly for the cumulative-Gram
layer. Does not cover: float rounding differences between the two evaluation orders. -/
theorem cumGramLayer_block_eq_online {d : Nat} (qhat : Nat → τ → Vec d α)
    (head : Mat d d α → List τ → ρ) (x : List τ) (t : Nat) (ht : t < x.length) :
    (cumGramLayer qhat head x)[t]? = onlineOut (cumGramLayer qhat head) x (t + 1) :=
  rowMapDecoder_block_eq_online _ x t ht

/-- The quadratic form of a sum is the sum of the quadratic forms. -/
theorem dot_mulVec_add {d : Nat} (A B : Mat d d α) (x : Vec d α) :
    Mat.dot x (Mat.mulVec (Mat.add A B) x)
      = Mat.dot x (Mat.mulVec A x) + Mat.dot x (Mat.mulVec B x) := by
  simp only [Mat.dot, Mat.mulVec, Mat.add]
  rw [← fsum_add]; apply fsum_congr; intro i
  rw [← Lean.Grind.Semiring.left_distrib, ← fsum_add]
  congr 1; apply fsum_congr; intro j; grind

/-- The quadratic form of an outer product: `xᵀ (q qᵀ) x = (q·x)²`. -/
theorem dot_mulVec_outer {d : Nat} (q x : Vec d α) :
    Mat.dot x (Mat.mulVec (outer q) x) = Mat.dot q x * Mat.dot q x := by
  simp only [Mat.dot, Mat.mulVec, outer]
  rw [← fsum_mul_right]; apply fsum_congr; intro i
  rw [← fsum_mul_left, ← fsum_mul_left]; apply fsum_congr; intro j; grind

end Gram

section GramPSD
variable {α : Type w} [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- The causal Gram is positive semidefinite on every prefix: `xᵀ D_t x ≥ 0` (Prop 3.6 for the
cumulative Gram). Does not cover: its rank. -/
theorem gramAux_quadratic_nonneg {d : Nat} (qhat : Nat → τ → Vec d α) (xs : List τ) (p : Nat)
    (x : Vec d α) : 0 ≤ Mat.dot x (Mat.mulVec (gramAux qhat p xs) x) := by
  induction xs generalizing p with
  | nil =>
    simp only [gramAux, Mat.dot, Mat.mulVec, Mat.zero]
    apply fsum_nonneg; intro i
    rw [fsum_congr d (g := fun _ => (0 : α)) (fun j => by grind), fsum_const_zero]
    grind
  | cons s xs ih =>
    simp only [gramAux]
    rw [dot_mulVec_add, dot_mulVec_outer]
    have h1 := mul_self_nonneg (Mat.dot (qhat p s) x)
    have h2 := ih (p + 1)
    grind

/-- Prop 3.6 for the causal Gram `D_t = Σ_{p≤t} q̂_p q̂_pᵀ`: `xᵀ D_t x ≥ 0`.
Does not cover: strict positivity. -/
theorem gram_quadratic_nonneg {d : Nat} (qhat : Nat → τ → Vec d α) (xs : List τ) (x : Vec d α) :
    0 ≤ Mat.dot x (Mat.mulVec (gram qhat xs) x) :=
  gramAux_quadratic_nonneg qhat xs 0 x

end GramPSD

/-- Rem 4.7: the code's global (non-causal) Gram layer is not prefix-consistent: with `d = 1`,
`q̂_p = x_p`, `head D _ = D₀₀` and `x = [0, 1]`, block row 0 is `1` but online row 0 is `0`.
Does not cover: how large the deviation is for the trained model (measured by the audit). -/
theorem globalGramLayer_not_prefixConsistent :
    ¬ PrefixConsistent (globalGramLayer (α := Int) (d := 1) (fun _ s => fun _ => s)
        (fun D _ => D 0 0)) := by
  intro h
  have := h [0, 1] 0 (by decide)
  simp [globalGramLayer, gram, gramAux, Mat.add, Mat.zero, outer] at this

end PLGA.Online
