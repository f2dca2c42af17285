module

public import Formal.Spec.Theorems
public import Formal.Rope.Flat

/-!
# The spec model with the real RoPE rotations: absorption iff commutant (Thm 5.4(ii), Prop 4.1)

`Formal.Spec.Theorems` states absorption for the spec model with an arbitrary position family
`cfg.rope` and the hypothesis `CommutesWithRope cfg Gs`. Here the family is fixed to the model's
own rotation — `ropeFamily ρ t = (R_t)ᵀ` with `R_t = flatRope ρ t` the interleaved RoPE matrix of
spec A.4 step 2 (`q̂_t = R_t q_t`, written in the row convention of `rotRows`) — and the
commutation hypothesis is derived from the RoPE commutant criterion `Rope.Commutes ρ`: a constant
operator can be absorbed into the query projection of the real-RoPE model iff it lies in the
RoPE commutant, i.e. (non-resonant case) iff it is `blockdiag_j (a_j·1 + b_j·J)`.

## Main definitions

* `ropeFamily ρ : Fin S → Mat (2m) (2m) α`: the model's RoPE at position `t` (row convention),
  used as `config F E (ropeFamily ρ) tok`;
* `headScores cfg P G X h`, `sdpaHeadScores cfg P X h`: the pre-softmax score matrices of head
  `h` of `mha cfg P G X` and of `mhaSDPA cfg P X` (`mha_eq_headScores`,
  `mhaSDPA_eq_sdpaHeadScores` show these are the scores the layers use).

## Main statements

* `rotRows_ropeFamily`, `rotRows_ropeFamily_even`, `rotRows_ropeFamily_odd`: `ropeFamily`
  rotates every query/key row exactly as spec A.4 step 2 / pyref `ops.rotate` at position `t`;
* `ropeFamily_eq_flatRope_neg`: `ropeFamily ρ t = R_{-t}`;
* `commutes_of_ropeFamily_one`: commuting with the model's rotation at position `1` alone gives
  the whole commutant (via `Rope.commutes_of_commute_ropeMat_one`, `Formal.Rope.Rotation`:
  `R_n = R_1^n`, `R_{-n} = R_n⁻¹`);
* `commutesWithRope_ropeFamily`, `commutesWithRope_ropeFamily_iff` (for `S ≥ 2`),
  `commutesWithRope_of_commEmbed`, `commutesWithRope_ropeFamily_iff_commEmbed` (non-resonant):
  the hypothesis `CommutesWithRope` of the absorption theorems is exactly the RoPE commutant;
* `decoder_eq_sdpaDecoder_rope`, `logits_eq_sdpaLogits_absorb_rope`: Thm 5.4(ii), absorption,
  for the real-RoPE spec decoder and model, hypothesis `Commutes ρ (BMat.ofFlat (G h))`;
* `headScores_eq_sdpaHeadScores_absorb`: with a commuting operator the head's scores are those
  of the absorbed SDPA layer (`absorbParams`), at every input and every position pair;
* `commutes_of_headScores_absorb`, `headScores_absorb_iff`: the converse for `absorbParams`
  (`S ≥ 2`), and the iff;
* `commutes_of_headScores_eq_sdpaHeadScores`, `exists_sdpa_query_iff_commutes`: the converse and
  the iff for **any** SDPA layer differing from `P` only in its query projection (`S ≥ 3`);
  `query_map_of_headScores_eq_sdpaHeadScores`: that projection is then forced to be the
  absorbed one on head `h`.

## Implementation notes

What the iff covers, and what it does not. "Absorbed" means: the SDPA layer is
`absorbParams P G` (query weight block `W_h ↦ W_h G_h`, bias `b_h ↦ b_hᵀ G_h`, keys, values and
output unchanged; `absorbLayers` does this per layer) — a query map that is the same at every
position. `headScores_absorb_iff` says: for one head `h` of one layer `P` of the real-RoPE
model with
* at least two positions (`1 < S`), a nonzero score scale (`√d_k ≠ 0`),
* a query block and a key block of `P` that are onto (`x ↦ x W_h` reaches every vector;
  generic for `d ≥ d_k`),

the pre-softmax scores of head `h` with operator `G_h` equal those of the absorbed SDPA layer at
every input `X : Mat S d α` and every causally allowed position pair `p ≤ t` **iff**
`Commutes ρ (BMat.ofFlat (G h))`. The "if" direction needs none of these hypotheses and holds at
every pair. The "only if" uses the single pair (query position 1, key position 0) and inputs
whose rows 1 and 0 are arbitrary, which is why it needs only `S ≥ 2` although `Rope.Commutes`
quantifies over all integer positions (`commutes_of_commute_ropeMat_one`).
`exists_sdpa_query_iff_commutes` replaces `absorbParams P G` by an arbitrary SDPA layer
`{ P with WQ := W', bQ := b' }` (same keys, values and output; any position-independent affine
query map): it needs `S ≥ 3` (pairs `(1, 0)` and `(2, 1)`, both causal) and shows that such a
layer exists iff `G_h` commutes, and then its head-`h` query map is the absorbed one. Not
covered:
* equality of the attention **outputs** (post-softmax, times values) does not force equal scores
  (softmax forgets row shifts, zero values forget everything: `plgaAttention_zero_values`), so
  the converse is stated for scores only;
* inputs restricted to those reachable inside the model (embeddings of tokens, trajectories
  through earlier layers): the converse quantifies over all layer inputs;
* SDPA layers whose keys (or values) also differ, and non-affine query maps (the
  Collapse-level analogue with an arbitrary position-independent query map is
  `Rope.commutes_of_rope_collapse`, over all integer positions);
* a stack-level iff: the converse is per head and per layer, at that layer's input;
* the KV-cache position offset (positions here are `0, …, S-1`), the half-split RoPE convention.

Conventions. Spec A.4 step 2 writes `q̂_t = R_t q_t` for column vectors; the layer (`queries`,
`rotRows`) multiplies row `t` on the right by `cfg.rope t`, hence `ropeFamily ρ t = (R_t)ᵀ`
(`rotRows_ropeFamily`). The rotation family `ρ` is the hypothesis structure `Rope.RotFamily`
(`c j n = cos(n θ_j)`, `s j n = sin(n θ_j)` for the model); non-resonance of the real frequencies
is the hypothesis `Rope.NonResonant` (certified numerically in the cross-check harness).

## References

* Thm 5.4(ii), Prop 4.1 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 2 (RoPE), §B (the v510Gi constant operator);
* pyref `ops.rotate`, `model.ConstantGModel` (`to_constant_operator`), `SDPAModel` (`to_sdpa`).
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Rope

variable {α : Type u} [Lean.Grind.Field α] {S d H m hA hF : Nat}

/-! ## The model's RoPE family -/

/-- The model's RoPE at position `t`, in the row convention of `rotRows`: `(R_t)ᵀ` with
`R_t = flatRope ρ t` the interleaved rotation of spec A.4 step 2 (pyref `ops.rotate` at
positions `0, …, S-1`). The real-RoPE model is `config F E (ropeFamily ρ) tok`. -/
noncomputable def ropeFamily (ρ : RotFamily α m) : Fin S → Mat (2 * m) (2 * m) α :=
  fun t => Mat.transpose (flatRope ρ (t.val : Int))

/-- A row vector times `ropeFamily ρ t` is `R_t` applied to the column vector. -/
theorem vecMul_ropeFamily (ρ : RotFamily α m) (v : Vec (2 * m) α) (t : Fin S) :
    vecMul v (ropeFamily ρ t) = Mat.mulVec (flatRope ρ (t.val : Int)) v := by
  funext j
  simp only [vecMul, Mat.mulVec, ropeFamily, Mat.transpose]
  exact fsum_congr _ (fun k => Lean.Grind.CommSemiring.mul_comm _ _)

/-- Row `t` of the rotated queries/keys is `R_t` applied to row `t` (spec A.4 step 2,
`q̂_t = R_t q_t`). -/
theorem rotRows_ropeFamily (ρ : RotFamily α m) (Q : Mat S (2 * m) α) (t : Fin S) :
    rotRows (ropeFamily ρ) Q t = Mat.mulVec (flatRope ρ (t.val : Int)) (Q t) :=
  vecMul_ropeFamily ρ (Q t) t

/-- Spec A.4 step 2, even coordinate, as the layer rotates row `t`:
`q̂_{t,2j} = c_j(t) q_{t,2j} - s_j(t) q_{t,2j+1}`. -/
theorem rotRows_ropeFamily_even (ρ : RotFamily α m) (Q : Mat S (2 * m) α) (t : Fin S)
    (j : Fin m) :
    rotRows (ropeFamily ρ) Q t (flatIdx j 0)
      = ρ.c j t.val * Q t (flatIdx j 0) - ρ.s j t.val * Q t (flatIdx j 1) := by
  rw [rotRows_ropeFamily, flatRope_mulVec_even]

/-- Spec A.4 step 2, odd coordinate, as the layer rotates row `t`:
`q̂_{t,2j+1} = s_j(t) q_{t,2j} + c_j(t) q_{t,2j+1}`. -/
theorem rotRows_ropeFamily_odd (ρ : RotFamily α m) (Q : Mat S (2 * m) α) (t : Fin S)
    (j : Fin m) :
    rotRows (ropeFamily ρ) Q t (flatIdx j 1)
      = ρ.s j t.val * Q t (flatIdx j 0) + ρ.c j t.val * Q t (flatIdx j 1) := by
  rw [rotRows_ropeFamily, flatRope_mulVec_odd]

/-- The row-convention rotation at position `t` is the flat rotation at `-t`:
`(R_t)ᵀ = R_{-t}`. -/
theorem ropeFamily_eq_flatRope_neg (ρ : RotFamily α m) (t : Fin S) :
    ropeFamily ρ t = flatRope ρ (-(t.val : Int)) := by
  show Mat.transpose (ropeMat ρ (t.val : Int)).toFlat = (ropeMat ρ (-(t.val : Int))).toFlat
  rw [← BMat.toFlat_transpose, ropeMat_transpose]

/-- Position `0` is not rotated. -/
theorem vecMul_ropeFamily_of_val_eq_zero (ρ : RotFamily α m) (v : Vec (2 * m) α) (t : Fin S)
    (ht : t.val = 0) : vecMul v (ropeFamily ρ t) = v := by
  rw [vecMul_ropeFamily, flatRope_mulVec, ht]
  show ((ropeMat ρ 0).mulVec (BVec.ofFlat v)).toFlat = v
  rw [ropeMat_zero, BMat.mulVec_one, BVec.toFlat_ofFlat]

/-- An operator in the RoPE commutant (Prop 4.1) commutes with the model's rotation at every
position. -/
theorem ropeFamily_mul_comm_of_commutes (ρ : RotFamily α m) {A : Mat (2 * m) (2 * m) α}
    (hA : Commutes ρ (BMat.ofFlat A)) (t : Fin S) :
    Mat.mul (ropeFamily ρ t) A = Mat.mul A (ropeFamily ρ t) := by
  rw [ropeFamily_eq_flatRope_neg]
  exact ((flat_commutes_iff ρ A).2 hA _).symm

/-- If a flat operator commutes with the model's rotation at position `1`, it is in the RoPE
commutant. -/
theorem commutes_of_ropeFamily_one (ρ : RotFamily α m) (hS : 1 < S) {A : Mat (2 * m) (2 * m) α}
    (hA : Mat.mul (ropeFamily ρ (⟨1, hS⟩ : Fin S)) A
      = Mat.mul A (ropeFamily ρ (⟨1, hS⟩ : Fin S))) :
    Commutes ρ (BMat.ofFlat A) := by
  have e := hA
  rw [ropeFamily_eq_flatRope_neg] at e
  apply commutes_of_commute_ropeMat_one
  apply commute_ropeMat_neg ρ (n := -1)
  apply BMat.toFlat_injective
  rw [BMat.toFlat_mul, BMat.toFlat_mul, BMat.toFlat_ofFlat]
  exact e.symm

/-- Every row vector is a rotated row at every position (`R_t` is invertible). -/
theorem exists_vecMul_ropeFamily_eq (ρ : RotFamily α m) (t : Fin S) (w : Vec (2 * m) α) :
    ∃ k, vecMul k (ropeFamily ρ t) = w := by
  refine ⟨Mat.mulVec (flatRope ρ (-(t.val : Int))) w, ?_⟩
  rw [vecMul_ropeFamily, Mat.mulVec_mulVec, flatRope_mul, Int.add_right_neg, flatRope_mulVec_zero]

/-- Row convention: the rotation at position `2` is the square of that at position `1`. -/
theorem ropeFamily_two (ρ : RotFamily α m) (h1 : 1 < S) (h2 : 2 < S) :
    ropeFamily ρ (⟨2, h2⟩ : Fin S)
      = Mat.mul (ropeFamily ρ (⟨1, h1⟩ : Fin S)) (ropeFamily ρ (⟨1, h1⟩ : Fin S)) := by
  rw [ropeFamily_eq_flatRope_neg, ropeFamily_eq_flatRope_neg, flatRope_mul]
  rfl

variable [LE α] [LT α]

/-! ## The absorption theorems with the real RoPE -/

/-- The hypothesis `CommutesWithRope` of the absorption theorems holds for the real-RoPE model
when every head operator of every listed layer is in the RoPE commutant (Prop 4.1). Does not
cover: the converse (see `commutesWithRope_ropeFamily_iff`). -/
theorem commutesWithRope_ropeFamily {V : Nat} (F : Prims α) (E : ExpFn α) (ρ : RotFamily α m)
    (tok : Fin S → Fin V) (Gs : List (HeadOps α H (2 * m)))
    (hG : ∀ G ∈ Gs, ∀ h, Commutes ρ (BMat.ofFlat (G h))) :
    CommutesWithRope (config F E (ropeFamily ρ) tok) Gs :=
  fun G hmem h t => ropeFamily_mul_comm_of_commutes ρ (hG G hmem h) t

/-- For `S ≥ 2` positions, `CommutesWithRope` for the real-RoPE model **is** membership of every
head operator in the RoPE commutant (the `S` rotations `R_0, …, R_{S-1}` already force
commuting with every `R_n`). Does not cover: `S ≤ 1` (no rotation but `R_0 = I`). -/
theorem commutesWithRope_ropeFamily_iff {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (hS : 1 < S) (Gs : List (HeadOps α H (2 * m))) :
    CommutesWithRope (config F E (ropeFamily ρ) tok) Gs
      ↔ ∀ G ∈ Gs, ∀ h, Commutes ρ (BMat.ofFlat (G h)) := by
  constructor
  · intro hc G hmem h
    exact commutes_of_ropeFamily_one ρ hS (hc G hmem h ⟨1, hS⟩)
  · exact commutesWithRope_ropeFamily F E ρ tok Gs

/-- Operators of the explicit commutant form `blockdiag_j (a_j·1 + b_j·J)` (`commEmbed`, flat)
satisfy `CommutesWithRope` for the real-RoPE model, with no non-resonance hypothesis. Does not
cover: other commuting operators (there are none under non-resonance,
`commutesWithRope_ropeFamily_iff_commEmbed`). -/
theorem commutesWithRope_of_commEmbed {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (Gs : List (HeadOps α H (2 * m)))
    (hG : ∀ G ∈ Gs, ∀ h, ∃ a b : Fin m → α, G h = (commEmbed a b).toFlat) :
    CommutesWithRope (config F E (ropeFamily ρ) tok) Gs := by
  apply commutesWithRope_ropeFamily
  intro G hmem h
  obtain ⟨a, b, e⟩ := hG G hmem h
  rw [e, BMat.ofFlat_toFlat]
  exact commEmbed_commutes ρ a b

/-- Prop 4.1 at model level: under non-resonance, `2 ≠ 0` and `S ≥ 2`, `CommutesWithRope` for
the real-RoPE model holds iff every head operator is `blockdiag_j (a_j·1 + b_j·J)` on the
interleaved pairs. Does not cover: non-resonance of the real frequencies (hypothesis). -/
theorem commutesWithRope_ropeFamily_iff_commEmbed {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (hS : 1 < S) (h2 : (2 : α) ≠ 0)
    (hNR : NonResonant ρ) (Gs : List (HeadOps α H (2 * m))) :
    CommutesWithRope (config F E (ropeFamily ρ) tok) Gs
      ↔ ∀ G ∈ Gs, ∀ h, ∃ a b : Fin m → α, G h = (commEmbed a b).toFlat := by
  rw [commutesWithRope_ropeFamily_iff F E ρ tok hS]
  constructor
  · intro hc G hmem h
    exact (flat_commutes_iff_eq_commEmbed ρ h2 hNR (G h)).1
      ((flat_commutes_iff ρ _).2 (hc G hmem h))
  · intro hc G hmem h
    exact (flat_commutes_iff ρ _).1
      ((flat_commutes_iff_eq_commEmbed ρ h2 hNR (G h)).2 (hc G hmem h))

/-- **Thm 5.4(ii), absorption, for the real-RoPE spec decoder.** If along the trajectory of `X`
the spec operators equal constants `G*_l` whose every head lies in the RoPE commutant, the spec
decoder's output on `X` is that of the SDPA decoder with query projections reparametrized by
the constants. Does not cover: approximate invariance. -/
theorem decoder_eq_sdpaDecoder_rope {V : Nat} (F : Prims α) (E : ExpFn α) (ρ : RotFamily α m)
    (tok : Fin S → Fin V) (Ls : List (LayerSpec α d H (2 * m) hA hF))
    (Gs : List (HeadOps α H (2 * m))) (X : Mat S d α)
    (h : InvariantAlong (config F E (ropeFamily ρ) tok)
      (layers F (config F E (ropeFamily ρ) tok) Ls) Gs X)
    (hG : ∀ G ∈ Gs, ∀ h, Commutes ρ (BMat.ofFlat (G h))) :
    decoder F (config F E (ropeFamily ρ) tok) Ls X
      = sdpaDecoder (config F E (ropeFamily ρ) tok)
          (absorbLayers (layers F (config F E (ropeFamily ρ) tok) Ls) Gs) X :=
  decoder_eq_sdpaDecoder_of_invariantAlong F _ Ls Gs X h
    (commutesWithRope_ropeFamily F E ρ tok Gs hG)

/-- **Thm 5.4(ii), absorption, for the real-RoPE spec model (logits).** Under invariance along
the trajectory of the embedded tokens, with every constant head operator in the RoPE commutant,
pyref's forward logits equal those of the SDPA model with reparametrized query projections.
Does not cover: approximate invariance, sampling, the KV-cache. -/
theorem logits_eq_sdpaLogits_absorb_rope {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (M : ModelSpec α V d H (2 * m) hA hF) (tok : Fin S → Fin V)
    (Gs : List (HeadOps α H (2 * m)))
    (h : InvariantAlong (config F E (ropeFamily ρ) tok)
      (layers F (config F E (ropeFamily ρ) tok) M.layers) Gs (embed F M tok))
    (hG : ∀ G ∈ Gs, ∀ h, Commutes ρ (BMat.ofFlat (G h))) :
    logits F E (ropeFamily ρ) M tok
      = affine (sdpaDecoder (config F E (ropeFamily ρ) tok)
          (absorbLayers (layers F (config F E (ropeFamily ρ) tok) M.layers) Gs) (embed F M tok))
          M.Wout M.bout :=
  logits_eq_sdpaLogits_absorb_of_invariantAlong F E _ M tok Gs h
    (commutesWithRope_ropeFamily F E ρ tok Gs hG)

/-! ## The converse at the score level -/

/-- The pre-softmax scores of head `h` of the multi-head PLGA layer with operators `G`:
`(Q̂_h G_h K̂_hᵀ) / s`. -/
noncomputable def headScores {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) (h : Fin H) : Mat S S α :=
  scores cfg.scale (queries cfg P X h) (G h) (keys cfg P X h)

/-- The pre-softmax scores of head `h` of the multi-head SDPA layer: `(Q̂_h K̂_hᵀ) / s`. -/
noncomputable def sdpaHeadScores {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) (h : Fin H) : Mat S S α :=
  sdpaScores cfg.scale (queries cfg P X h) (keys cfg P X h)

omit [LE α] in
/-- `headScores` are the scores the PLGA layer feeds to its masked softmax (structural). -/
theorem mha_eq_headScores {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) :
    mha cfg P G X = affine (concatHeads fun h =>
      Mat.mul (attnWeights cfg.exp cfg.mask (headScores cfg P G X h)) (values P X h)) P.WO P.bO :=
  rfl

omit [LE α] in
/-- `sdpaHeadScores` are the scores the SDPA layer feeds to its masked softmax (structural). -/
theorem mhaSDPA_eq_sdpaHeadScores {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) :
    mhaSDPA cfg P X = affine (concatHeads fun h =>
      Mat.mul (attnWeights cfg.exp cfg.mask (sdpaHeadScores cfg P X h)) (values P X h)) P.WO P.bO :=
  rfl

omit [LE α] in
/-- Entry `(t, p)` of the PLGA head scores: `((q_t R'_t) G_h) · (k_p R'_p) / s` with `q_t`,
`k_p` the unrotated projected rows (structural). -/
theorem headScores_apply {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) (h : Fin H) (t p : Fin S) :
    headScores cfg P G X h t p
      = Mat.dot (vecMul (vecMul (splitHead (affine X P.WQ P.bQ) h t) (cfg.rope t)) (G h))
          (vecMul (splitHead (affine X P.WK P.bK) h p) (cfg.rope p)) / cfg.scale := rfl

omit [LE α] in
/-- Entry `(t, p)` of the SDPA head scores (structural). -/
theorem sdpaHeadScores_apply {dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) (h : Fin H) (t p : Fin S) :
    sdpaHeadScores cfg P X h t p
      = Mat.dot (vecMul (splitHead (affine X P.WQ P.bQ) h t) (cfg.rope t))
          (vecMul (splitHead (affine X P.WK P.bK) h p) (cfg.rope p)) / cfg.scale := rfl

omit [LE α] in
/-- Entry `(t, p)` of the absorbed SDPA head scores: `((q_t G_h) R'_t) · (k_p R'_p) / s` — the
operator is applied **before** the rotation, for every RoPE family. -/
theorem sdpaHeadScores_absorb_apply {dk : Nat} (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (G : HeadOps α H dk) (X : Mat S d α) (h : Fin H) (t p : Fin S) :
    sdpaHeadScores cfg (absorbParams P G) X h t p
      = Mat.dot (vecMul (vecMul (splitHead (affine X P.WQ P.bQ) h t) (G h)) (cfg.rope t))
          (vecMul (splitHead (affine X P.WK P.bK) h p) (cfg.rope p)) / cfg.scale := by
  show Mat.dot (vecMul (splitHead (affine X (absorbWeight P.WQ G) (absorbBias P.bQ G)) h t)
      (cfg.rope t)) _ / _ = _
  rw [splitHead_affine_absorb]
  rfl

omit [LE α] in
/-- Absorption at the score level: if `G_h` commutes with every rotation of `cfg`, head `h`'s
PLGA scores equal the scores of the absorbed SDPA layer, at every input and position pair. Does
not cover: the converse (see `commutes_of_headScores_absorb`). -/
theorem headScores_eq_sdpaHeadScores_absorb {dk : Nat} (cfg : AttnConfig α S dk)
    (P : MHAParams α d H dk) (G : HeadOps α H dk) (h : Fin H)
    (hc : ∀ t, Mat.mul (cfg.rope t) (G h) = Mat.mul (G h) (cfg.rope t)) (X : Mat S d α) :
    headScores cfg P G X h = sdpaHeadScores cfg (absorbParams P G) X h := by
  show scores _ _ _ _ = sdpaScores _ _ _
  rw [queries_absorbParams cfg P G X h hc]
  rfl

/-- **Thm 5.4(ii) with RoPE, "only if", at model level.** In the real-RoPE model with `S ≥ 2`
positions and scale `√d_k ≠ 0`, if the query and key blocks of head `h` of layer `P` are onto
and the head's pre-softmax scores with operator `G_h` equal those of the absorbed SDPA layer
(`absorbParams P G`) at every input and every causal pair `p ≤ t`, then `G_h` is in the RoPE
commutant. Only the pair `(t, p) = (1, 0)` is used. Does not cover: equality of attention
outputs only; other SDPA query projections; inputs restricted to model trajectories. -/
theorem commutes_of_headScores_absorb {V : Nat} (F : Prims α) (E : ExpFn α) (ρ : RotFamily α m)
    (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m)) (G : HeadOps α H (2 * m)) (h : Fin H)
    (hS : 1 < S) (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hQ : ∀ u : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WQ h) = u)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v)
    (habs : ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) (absorbParams P G) X h t p) :
    Commutes ρ (BMat.ofFlat (G h)) := by
  have hrow : ∀ u : Vec (2 * m) α, vecMul (vecMul u (ropeFamily ρ (⟨1, hS⟩ : Fin S))) (G h)
      = vecMul (vecMul u (G h)) (ropeFamily ρ (⟨1, hS⟩ : Fin S)) := by
    intro u
    apply vec_ext_dot
    intro v
    obtain ⟨xq, hxq⟩ := hQ (fun j => u j - splitVec P.bQ h j)
    obtain ⟨xk, hxk⟩ := hK (fun j => v j - splitVec P.bK h j)
    have hq : splitHead (affine (fun t : Fin S => if t.val = 1 then xq else xk) P.WQ P.bQ) h
        ⟨1, hS⟩ = u := by
      funext j
      show vecMul (if (1 : Nat) = 1 then xq else xk) (splitHead P.WQ h) j + splitVec P.bQ h j
        = u j
      rw [if_pos rfl, hxq]; grind
    have hk : splitHead (affine (fun t : Fin S => if t.val = 1 then xq else xk) P.WK P.bK) h
        ⟨0, by omega⟩ = v := by
      funext j
      show vecMul (if (0 : Nat) = 1 then xq else xk) (splitHead P.WK h) j + splitVec P.bK h j
        = v j
      rw [if_neg (by omega), hxk]; grind
    have e := habs (fun t : Fin S => if t.val = 1 then xq else xk) ⟨1, hS⟩ ⟨0, by omega⟩
      (by show 0 ≤ 1; omega)
    rw [headScores_apply, sdpaHeadScores_absorb_apply, hq, hk] at e
    change Mat.dot (vecMul (vecMul u (ropeFamily ρ (⟨1, hS⟩ : Fin S))) (G h))
        (vecMul v (ropeFamily ρ (⟨0, by omega⟩ : Fin S))) / _
      = Mat.dot (vecMul (vecMul u (G h)) (ropeFamily ρ (⟨1, hS⟩ : Fin S)))
        (vecMul v (ropeFamily ρ (⟨0, by omega⟩ : Fin S))) / _ at e
    rw [vecMul_ropeFamily_of_val_eq_zero ρ v _ rfl] at e
    grind
  apply commutes_of_ropeFamily_one ρ hS
  have key : Mat.mul (Mat.mul (Mat.one (2 * m)) (ropeFamily ρ (⟨1, hS⟩ : Fin S))) (G h)
      = Mat.mul (Mat.mul (Mat.one (2 * m)) (G h)) (ropeFamily ρ (⟨1, hS⟩ : Fin S)) :=
    funext fun i => hrow (Mat.one (2 * m) i)
  rwa [Mat.one_mul, Mat.one_mul] at key

/-- **Thm 5.4(ii) with RoPE, both directions, at model level.** In the real-RoPE model with
`S ≥ 2` positions and `√d_k ≠ 0`, for a head `h` of a layer `P` whose query and key blocks are
onto: a constant operator `G_h` can be absorbed into the query projection (`absorbParams P G`:
the same position-independent reparametrization at every position) with equal pre-softmax
scores at every input and every causal position pair **iff** it lies in the RoPE commutant
(Prop 4.1). Does not cover: post-softmax (output) equality, other query projections, inputs
restricted to model trajectories, KV-cache offsets. -/
theorem headScores_absorb_iff {V : Nat} (F : Prims α) (E : ExpFn α) (ρ : RotFamily α m)
    (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m)) (G : HeadOps α H (2 * m)) (h : Fin H)
    (hS : 1 < S) (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hQ : ∀ u : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WQ h) = u)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v) :
    (∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) (absorbParams P G) X h t p)
      ↔ Commutes ρ (BMat.ofFlat (G h)) := by
  refine ⟨commutes_of_headScores_absorb F E ρ tok P G h hS hs hQ hK, fun hc X t p _ => ?_⟩
  rw [headScores_eq_sdpaHeadScores_absorb _ P G h
    (fun t => ropeFamily_mul_comm_of_commutes ρ hc t) X]

/-- The score identity behind the converse: if head `h`'s PLGA scores equal those of an SDPA
layer differing only in its query projection `(W', b')` at a causal pair `p < t`, then for every
input row `x` at position `t` and raw key `k` at position `p`,
`((x W_h + b_h) R'_t G_h) · (k R'_p) = ((x W'_h + b'_h) R'_t) · (k R'_p)`. -/
theorem dot_rows_eq_of_headScores_eq {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m))
    (G : HeadOps α H (2 * m)) (h : Fin H) (W' : Mat d (H * (2 * m)) α) (b' : Vec (H * (2 * m)) α)
    (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v)
    (habs : ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) { P with WQ := W', bQ := b' } X h t p)
    (t p : Fin S) (hpt : p.val ≤ t.val) (htp : t ≠ p) (x : Vec d α) (k : Vec (2 * m) α) :
    Mat.dot (vecMul (vecMul (fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j)
        (ropeFamily ρ t)) (G h)) (vecMul k (ropeFamily ρ p))
      = Mat.dot (vecMul (fun j => vecMul x (splitHead W' h) j + splitVec b' h j)
        (ropeFamily ρ t)) (vecMul k (ropeFamily ρ p)) := by
  obtain ⟨xk, hxk⟩ := hK (fun j => k j - splitVec P.bK h j)
  have e := habs (fun s : Fin S => if s = t then x else xk) t p hpt
  rw [headScores_apply, sdpaHeadScores_apply] at e
  have hq : splitHead (affine (fun s : Fin S => if s = t then x else xk) P.WQ P.bQ) h t
      = fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j := by
    funext j
    show vecMul (if t = t then x else xk) (splitHead P.WQ h) j + splitVec P.bQ h j = _
    rw [if_pos rfl]
  have hq' : splitHead (affine (fun s : Fin S => if s = t then x else xk) W' b') h t
      = fun j => vecMul x (splitHead W' h) j + splitVec b' h j := by
    funext j
    show vecMul (if t = t then x else xk) (splitHead W' h) j + splitVec b' h j = _
    rw [if_pos rfl]
  have hk : splitHead (affine (fun s : Fin S => if s = t then x else xk) P.WK P.bK) h p = k := by
    funext j
    show vecMul (if p = t then x else xk) (splitHead P.WK h) j + splitVec P.bK h j = k j
    rw [if_neg (fun e => htp e.symm), hxk]
    grind
  rw [hq, hk] at e
  change _ = Mat.dot (vecMul (splitHead (affine (fun s : Fin S => if s = t then x else xk)
    W' b') h t) (ropeFamily ρ t)) _ / _ at e
  rw [hq'] at e
  change Mat.dot (vecMul (vecMul _ (ropeFamily ρ t)) (G h)) (vecMul k (ropeFamily ρ p)) / _
    = Mat.dot (vecMul _ (ropeFamily ρ t)) (vecMul k (ropeFamily ρ p)) / _ at e
  grind

/-- Position pair `(1, 0)` of `dot_rows_eq_of_headScores_eq`, keys ranging over all vectors:
`(x W_h + b_h) R'_1 G_h = (x W'_h + b'_h) R'_1` for every input row `x`. -/
theorem rows_one_eq_of_headScores_eq {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m))
    (G : HeadOps α H (2 * m)) (h : Fin H) (W' : Mat d (H * (2 * m)) α) (b' : Vec (H * (2 * m)) α)
    (h1 : 1 < S) (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v)
    (habs : ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) { P with WQ := W', bQ := b' } X h t p)
    (x : Vec d α) :
    vecMul (vecMul (fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j)
        (ropeFamily ρ (⟨1, h1⟩ : Fin S))) (G h)
      = vecMul (fun j => vecMul x (splitHead W' h) j + splitVec b' h j)
        (ropeFamily ρ (⟨1, h1⟩ : Fin S)) := by
  apply vec_ext_dot
  intro w
  have e := dot_rows_eq_of_headScores_eq F E ρ tok P G h W' b' hs hK habs ⟨1, h1⟩ ⟨0, by omega⟩
    (by show 0 ≤ 1; omega) (by intro e; cases e) x w
  rwa [vecMul_ropeFamily_of_val_eq_zero ρ w _ rfl] at e

/-- **Thm 5.4(ii) with RoPE, "only if", any query projection.** In the real-RoPE model with
`S ≥ 3` positions and `√d_k ≠ 0`, if the query and key blocks of head `h` of layer `P` are onto
and the head's pre-softmax scores with operator `G_h` equal, at every input and every causal
pair, those of **some** SDPA layer that differs from `P` only in its query projection
`(W', b')` (a position-independent affine query map), then `G_h` is in the RoPE commutant. Uses
the pairs `(1, 0)` and `(2, 1)`. Does not cover: output-level equality; SDPA layers whose keys
differ. -/
theorem commutes_of_headScores_eq_sdpaHeadScores {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m))
    (G : HeadOps α H (2 * m)) (h : Fin H) (W' : Mat d (H * (2 * m)) α) (b' : Vec (H * (2 * m)) α)
    (hS : 2 < S) (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hQ : ∀ u : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WQ h) = u)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v)
    (habs : ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) { P with WQ := W', bQ := b' } X h t p) :
    Commutes ρ (BMat.ofFlat (G h)) := by
  have h1 : 1 < S := by omega
  have e1 := rows_one_eq_of_headScores_eq F E ρ tok P G h W' b' h1 hs hK habs
  have e2 : ∀ x : Vec d α,
      vecMul (vecMul (fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j)
        (ropeFamily ρ (⟨2, hS⟩ : Fin S))) (G h)
      = vecMul (fun j => vecMul x (splitHead W' h) j + splitVec b' h j)
        (ropeFamily ρ (⟨2, hS⟩ : Fin S)) := by
    intro x
    apply vec_ext_dot
    intro w
    obtain ⟨k, hk⟩ := exists_vecMul_ropeFamily_eq ρ (⟨1, h1⟩ : Fin S) w
    have e := dot_rows_eq_of_headScores_eq F E ρ tok P G h W' b' hs hK habs ⟨2, hS⟩ ⟨1, h1⟩
      (by show 1 ≤ 2; omega) (by intro e; cases e) x k
    rwa [hk] at e
  have hrow : ∀ u : Vec (2 * m) α,
      vecMul (vecMul u (ropeFamily ρ (⟨2, hS⟩ : Fin S))) (G h)
        = vecMul (vecMul (vecMul u (ropeFamily ρ (⟨1, h1⟩ : Fin S))) (G h))
            (ropeFamily ρ (⟨1, h1⟩ : Fin S)) := by
    intro u
    obtain ⟨x, hx⟩ := hQ (fun j => u j - splitVec P.bQ h j)
    have hf : (fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j) = u := by
      funext j; rw [hx]; grind
    rw [← hf, e2 x, e1 x, ropeFamily_two ρ h1 hS, vecMul_vecMul]
  have key : Mat.mul (Mat.mul (Mat.one (2 * m)) (ropeFamily ρ (⟨2, hS⟩ : Fin S))) (G h)
      = Mat.mul (Mat.mul (Mat.mul (Mat.one (2 * m)) (ropeFamily ρ (⟨1, h1⟩ : Fin S))) (G h))
          (ropeFamily ρ (⟨1, h1⟩ : Fin S)) :=
    funext fun i => hrow (Mat.one (2 * m) i)
  rw [Mat.one_mul, Mat.one_mul, ropeFamily_two ρ h1 hS, ropeFamily_eq_flatRope_neg] at key
  have kb : (ropeMat ρ (-1)).mul ((ropeMat ρ (-1)).mul (BMat.ofFlat (G h)))
      = (ropeMat ρ (-1)).mul ((BMat.ofFlat (G h)).mul (ropeMat ρ (-1))) := by
    apply BMat.toFlat_injective
    rw [BMat.toFlat_mul, BMat.toFlat_mul, BMat.toFlat_mul, BMat.toFlat_mul, BMat.toFlat_ofFlat]
    show Mat.mul (flatRope ρ (-1)) (Mat.mul (flatRope ρ (-1)) (G h))
      = Mat.mul (flatRope ρ (-1)) (Mat.mul (G h) (flatRope ρ (-1)))
    rw [← Mat.mul_assoc, ← Mat.mul_assoc]
    exact key
  have kc := congrArg (fun M => (ropeMat ρ 1).mul M) kb
  simp only at kc
  rw [← BMat.mul_assoc (ropeMat ρ 1) (ropeMat ρ (-1)),
    ← BMat.mul_assoc (ropeMat ρ 1) (ropeMat ρ (-1)), ropeMat_mul,
    show (1 : Int) + -1 = 0 by omega, ropeMat_zero, BMat.one_mul, BMat.one_mul] at kc
  apply commutes_of_commute_ropeMat_one
  exact commute_ropeMat_neg ρ (n := -1) kc.symm

/-- **The reparametrization is forced.** Under the hypotheses of
`commutes_of_headScores_eq_sdpaHeadScores`, the SDPA layer's query map on head `h` is the
absorbed one: `x W'_h + b'_h = (x W_h + b_h) G_h` for every input row `x` (so its head-`h`
blocks are those of `absorbParams P G`). Does not cover: the other heads (apply per head). -/
theorem query_map_of_headScores_eq_sdpaHeadScores {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m))
    (G : HeadOps α H (2 * m)) (h : Fin H) (W' : Mat d (H * (2 * m)) α) (b' : Vec (H * (2 * m)) α)
    (hS : 2 < S) (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hQ : ∀ u : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WQ h) = u)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v)
    (habs : ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) { P with WQ := W', bQ := b' } X h t p)
    (x : Vec d α) :
    (fun j => vecMul x (splitHead W' h) j + splitVec b' h j)
      = vecMul (fun j => vecMul x (splitHead P.WQ h) j + splitVec P.bQ h j) (G h) := by
  have h1 : 1 < S := by omega
  have hc := commutes_of_headScores_eq_sdpaHeadScores F E ρ tok P G h W' b' hS hs hQ hK habs
  have e := rows_one_eq_of_headScores_eq F E ρ tok P G h W' b' h1 hs hK habs x
  rw [vecMul_vecMul, ropeFamily_mul_comm_of_commutes ρ hc, ← vecMul_vecMul] at e
  have e' := congrArg (Mat.mulVec (flatRope ρ (-1))) e
  rw [vecMul_ropeFamily, vecMul_ropeFamily] at e'
  simp only [Mat.mulVec_mulVec, flatRope_mul] at e'
  rw [show (-1 : Int) + ((1 : Nat) : Int) = 0 by omega, flatRope_mulVec_zero,
    flatRope_mulVec_zero] at e'
  exact e'.symm

/-- **Thm 5.4(ii) with RoPE, both directions, any query projection.** In the real-RoPE model with
`S ≥ 3` positions and `√d_k ≠ 0`, for a head `h` of a layer `P` whose query and key blocks are
onto: **some** SDPA layer differing from `P` only in its query projection reproduces head `h`'s
pre-softmax scores with operator `G` at every input and every causal position pair iff `G_h`
lies in the RoPE commutant (and then `absorbParams P G` is one, by
`query_map_of_headScores_eq_sdpaHeadScores` the only one on head `h`). Does not cover:
output-level equality, inputs restricted to model trajectories. -/
theorem exists_sdpa_query_iff_commutes {V : Nat} (F : Prims α) (E : ExpFn α)
    (ρ : RotFamily α m) (tok : Fin S → Fin V) (P : MHAParams α d H (2 * m))
    (G : HeadOps α H (2 * m)) (h : Fin H) (hS : 2 < S)
    (hs : (config F E (ropeFamily ρ) tok).scale ≠ 0)
    (hQ : ∀ u : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WQ h) = u)
    (hK : ∀ v : Vec (2 * m) α, ∃ x : Vec d α, vecMul x (splitHead P.WK h) = v) :
    (∃ (W' : Mat d (H * (2 * m)) α) (b' : Vec (H * (2 * m)) α), ∀ X t p, p.val ≤ t.val →
      headScores (config F E (ropeFamily ρ) tok) P G X h t p
        = sdpaHeadScores (config F E (ropeFamily ρ) tok) { P with WQ := W', bQ := b' } X h t p)
      ↔ Commutes ρ (BMat.ofFlat (G h)) := by
  constructor
  · rintro ⟨W', b', habs⟩
    exact commutes_of_headScores_eq_sdpaHeadScores F E ρ tok P G h W' b' hS hs hQ hK habs
  · intro hc
    refine ⟨absorbWeight P.WQ G, absorbBias P.bQ G, fun X t p _ => ?_⟩
    rw [headScores_eq_sdpaHeadScores_absorb _ P G h
      (fun t => ropeFamily_mul_comm_of_commutes ρ hc t) X]
    rfl

end PLGA.Spec
