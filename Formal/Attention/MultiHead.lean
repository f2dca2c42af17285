module

public import Formal.Attention.Basic

/-!
# Multi-head PLGA, decoder layers and the decoder stack (SDPA inclusion, whole model)

The multi-head PLGA layer (biased projections, head split, RoPE, per-head operators, output
projection), the post-LN decoder layer, PLGA layers carrying a generator of their operators,
and the decoder stack. SDPA inclusion holds for the multi-head layer, the decoder layer and the
whole stack (every generator pinned to `I`), for every mask and every RoPE family, and so does
the scalar case `G = c·I` (SDPA with scale `s / c`) at the same three levels.

## Main definitions

* `headIdx`, `headOf`, `coordOf`: feature `h·d_k + j` of a `Mat S (H·d_k)` belongs to head `h`,
  coordinate `j` (`headOf = c / d_k`, `coordOf = c % d_k`);
* `splitHead`, `splitVec`, `concatHeads`, `concatVec`: head split and its inverse;
* `MHAParams`, `AttnConfig`, `HeadOps`: layer parameters; the shared exponential, mask, scale
  and RoPE family (`AttnConfig.rope`); per-head operators `G h`;
* `queries`, `keys`, `values`: `Q, K, V = X W + 𝟙 bᵀ` per head, queries and keys rotated;
* `mha`: PLGA attention per head with the head's operator, concatenation, output projection
  `W_O` with bias `b_O`; `mhaSDPA`: the same with SDPA;
* `LayerParams`, `postLN`, `decoderLayer`, `sdpaDecoderLayer`: a post-LN decoder layer
  `X' = LN₁(X + MHA(X))`, `LN₂(X' + FFN(X'))` with `LN₁, LN₂, FFN` arbitrary maps;
* `PLGALayer`: layer parameters with a **generator** `gen : Mat S d α → (Fin H → Mat d_k d_k α)`
  producing the per-head operators `G_LM` from the layer input; `PLGALayer.run`;
* `plgaDecoder`, `sdpaDecoder`: the stacks (a list of layers, first to last);
* `identityLayers`, `scalarLayers`: layers whose generators are pinned to `I`, resp. `c·I`.

## Main statements

* `headOf_headIdx`, `coordOf_headIdx`, `headIdx_headOf_coordOf`, `splitHead_concatHeads`,
  `concatHeads_splitHead`, `splitVec_concatVec`: the head split is a bijection;
* `mha_one_eq_mhaSDPA`, `decoderLayer_one_eq_sdpaDecoderLayer`,
  `plgaDecoder_identityLayers_eq_sdpaDecoder`: SDPA inclusion at the three levels;
* `mha_smul_one_eq_mhaSDPA`, `plgaDecoder_scalarLayers_eq_sdpaDecoder`: temperature form
  `G = c·I`, `c ≠ 0`.

## Implementation notes

The chain `LN_A ∘ D`, `Φ_res`, `A_LM`, `A_P`, `G_LM` inside the generator is kept abstract, and
so are `LN₁, LN₂, FFN` (their internals play no role in the theorems here). The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` has no multi-head, layer or stack statement
(its `score_sdpa_special_case` is score-level). Not covered: embedding and output head (any maps
composed around the stack preserve every equality here), KV-cache position offsets (expressible
through `rope`), heads or layers with different scalars.

## References

* the paper's first theorem (SDPA inclusion) at layer and model level;
* `../shared/spec/PLGA_SPEC.md` §A.2 (decoder layer), §A.4 (multi-head attention).
-/

@[expose] public section

namespace PLGA.Attention

/-! ## Head split and concatenation -/

/-- `h·d_k + j < H·d_k` for `h < H`, `j < d_k` (structural). -/
theorem headIdx_lt {H dk : Nat} (h : Fin H) (j : Fin dk) : h.val * dk + j.val < H * dk := by
  have h1 := Nat.mul_le_mul_right dk (Nat.succ_le_of_lt h.isLt)
  rw [Nat.succ_mul] at h1
  have := j.isLt
  omega

/-- The feature index of coordinate `j` of head `h`: `h·d_k + j`. -/
def headIdx {H dk : Nat} (h : Fin H) (j : Fin dk) : Fin (H * dk) :=
  ⟨h.val * dk + j.val, headIdx_lt h j⟩

/-- A feature index of `Mat _ (H·d_k)` exists only if `d_k > 0` (structural). -/
theorem headDim_pos {H dk : Nat} (c : Fin (H * dk)) : 0 < dk := by
  rcases Nat.eq_zero_or_pos dk with h0 | h0
  · subst h0; have := c.isLt; simp at this
  · exact h0

/-- The head owning feature `c`: `c / d_k`. -/
def headOf {H dk : Nat} (c : Fin (H * dk)) : Fin H :=
  ⟨c.val / dk, (Nat.div_lt_iff_lt_mul (headDim_pos c)).2 c.isLt⟩

/-- The coordinate of feature `c` inside its head: `c % d_k`. -/
def coordOf {H dk : Nat} (c : Fin (H * dk)) : Fin dk := ⟨c.val % dk, Nat.mod_lt _ (headDim_pos c)⟩

/-- `(h·d_k + j) / d_k = h` (structural). -/
theorem headOf_headIdx {H dk : Nat} (h : Fin H) (j : Fin dk) : headOf (headIdx h j) = h := by
  have hpos : 0 < dk := Nat.lt_of_le_of_lt (Nat.zero_le _) j.isLt
  apply Fin.ext
  show (h.val * dk + j.val) / dk = h.val
  rw [Nat.add_comm, Nat.add_mul_div_right _ _ hpos, Nat.div_eq_of_lt j.isLt, Nat.zero_add]

/-- `(h·d_k + j) % d_k = j` (structural). -/
theorem coordOf_headIdx {H dk : Nat} (h : Fin H) (j : Fin dk) : coordOf (headIdx h j) = j := by
  apply Fin.ext
  show (h.val * dk + j.val) % dk = j.val
  rw [Nat.add_comm, Nat.add_mul_mod_self_right, Nat.mod_eq_of_lt j.isLt]

/-- `(c / d_k)·d_k + c % d_k = c` (structural). -/
theorem headIdx_headOf_coordOf {H dk : Nat} (c : Fin (H * dk)) :
    headIdx (headOf c) (coordOf c) = c := by
  apply Fin.ext
  show c.val / dk * dk + c.val % dk = c.val
  rw [Nat.mul_comm]; exact Nat.div_add_mod c.val dk

variable {α : Type u}

/-- Head `h` of a feature matrix: columns `h·d_k, …, h·d_k + d_k - 1`. -/
def splitHead {S H dk : Nat} (X : Mat S (H * dk) α) (h : Fin H) : Mat S dk α :=
  fun t j => X t (headIdx h j)

/-- Head `h` of a feature vector (e.g. a bias). -/
def splitVec {H dk : Nat} (b : Vec (H * dk) α) (h : Fin H) : Vec dk α := fun j => b (headIdx h j)

/-- Concatenate per-head matrices in head order. -/
def concatHeads {S H dk : Nat} (O : Fin H → Mat S dk α) : Mat S (H * dk) α :=
  fun t c => O (headOf c) t (coordOf c)

/-- Concatenate per-head vectors in head order. -/
def concatVec {H dk : Nat} (v : Fin H → Vec dk α) : Vec (H * dk) α :=
  fun c => v (headOf c) (coordOf c)

/-- Splitting a concatenation returns the heads (structural). -/
theorem splitHead_concatHeads {S H dk : Nat} (O : Fin H → Mat S dk α) (h : Fin H) :
    splitHead (concatHeads O) h = O h := by
  funext t j; simp only [splitHead, concatHeads, headOf_headIdx, coordOf_headIdx]

/-- Concatenating the heads of a matrix returns the matrix (structural). -/
theorem concatHeads_splitHead {S H dk : Nat} (X : Mat S (H * dk) α) :
    concatHeads (splitHead X) = X := by
  funext t c; simp only [splitHead, concatHeads, headIdx_headOf_coordOf]

/-- Splitting a concatenated vector returns the per-head vectors (structural). -/
theorem splitVec_concatVec {H dk : Nat} (v : Fin H → Vec dk α) (h : Fin H) :
    splitVec (concatVec v) h = v h := by
  funext j; simp only [splitVec, concatVec, headOf_headIdx, coordOf_headIdx]

/-! ## The multi-head layer -/

/-- Parameters of a multi-head attention layer (`d` = model width, `H` heads of width `d_k`). -/
structure MHAParams (α : Type u) (d H dk : Nat) where
  /-- query weight -/
  WQ : Mat d (H * dk) α
  /-- query bias -/
  bQ : Vec (H * dk) α
  /-- key weight -/
  WK : Mat d (H * dk) α
  /-- key bias -/
  bK : Vec (H * dk) α
  /-- value weight -/
  WV : Mat d (H * dk) α
  /-- value bias -/
  bV : Vec (H * dk) α
  /-- output weight -/
  WO : Mat (H * dk) d α
  /-- output bias -/
  bO : Vec d α

/-- What all layers share: the exponential, the mask, the score scale and the RoPE family
(row convention; `noRope` for none). -/
structure AttnConfig (α : Type u) [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] (S dk : Nat) where
  /-- the exponential of the softmax -/
  exp : ExpFn α
  /-- the attention mask -/
  mask : Mask S S
  /-- the score scale (`√d_k` in the model) -/
  scale : α
  /-- the rotation applied to row `t` of queries and keys -/
  rope : Fin S → Mat dk dk α

/-- Per-head operators `G_h`. -/
abbrev HeadOps (α : Type u) (H dk : Nat) := Fin H → Mat dk dk α

variable [Lean.Grind.Field α] [LT α]

/-- Rotated queries of head `h`. -/
noncomputable def queries {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) (h : Fin H) : Mat S dk α :=
  rotRows cfg.rope (splitHead (affine X P.WQ P.bQ) h)

/-- Rotated keys of head `h`. -/
noncomputable def keys {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) (h : Fin H) : Mat S dk α :=
  rotRows cfg.rope (splitHead (affine X P.WK P.bK) h)

/-- Values of head `h` (never rotated). -/
noncomputable def values {S d H dk : Nat} (P : MHAParams α d H dk) (X : Mat S d α) (h : Fin H) :
    Mat S dk α :=
  splitHead (affine X P.WV P.bV) h

/-- Multi-head PLGA attention with per-head operators `G`. -/
noncomputable def mha {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) : Mat S d α :=
  affine (concatHeads fun h => plgaAttention cfg.exp cfg.mask cfg.scale (queries cfg P X h) (G h)
    (keys cfg P X h) (values P X h)) P.WO P.bO

/-- Multi-head scaled dot-product attention. -/
noncomputable def mhaSDPA {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) : Mat S d α :=
  affine (concatHeads fun h => sdpaAttention cfg.exp cfg.mask cfg.scale (queries cfg P X h)
    (keys cfg P X h) (values P X h)) P.WO P.bO

/-! ## Decoder layers and stacks -/

/-- Parameters of a post-LN decoder layer; the norms and the FFN are arbitrary maps. -/
structure LayerParams (α : Type u) (S d H dk : Nat) where
  /-- attention parameters -/
  attn : MHAParams α d H dk
  /-- first LayerNorm -/
  ln1 : Mat S d α → Mat S d α
  /-- second LayerNorm -/
  ln2 : Mat S d α → Mat S d α
  /-- feed-forward block -/
  ffn : Mat S d α → Mat S d α

/-- The residual/normalization wrapper around an attention output `Y`:
`X' = LN₁(X + Y)`, result `LN₂(X' + FFN(X'))`. -/
noncomputable def postLN {S d H dk : Nat} (P : LayerParams α S d H dk) (X Y : Mat S d α) :
    Mat S d α :=
  P.ln2 (Mat.add (P.ln1 (Mat.add X Y)) (P.ffn (P.ln1 (Mat.add X Y))))

/-- A PLGA decoder layer run with given per-head operators `G`. -/
noncomputable def decoderLayer {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (P : LayerParams α S d H dk)
    (G : HeadOps α H dk) (X : Mat S d α) : Mat S d α :=
  postLN P X (mha cfg P.attn G X)

/-- An SDPA decoder layer. -/
noncomputable def sdpaDecoderLayer {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (P : LayerParams α S d H dk) (X : Mat S d α) : Mat S d α :=
  postLN P X (mhaSDPA cfg P.attn X)

/-- A PLGA layer: its parameters and the generator of its per-head operators from its input
(the metric-learning subnetwork, abstract). -/
structure PLGALayer (α : Type u) (S d H dk : Nat) where
  /-- layer parameters -/
  params : LayerParams α S d H dk
  /-- operator generator `X ↦ G_LM(X)` -/
  gen : Mat S d α → HeadOps α H dk

/-- Run a PLGA layer: operators recomputed from the input. -/
noncomputable def PLGALayer.run {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (ℓ : PLGALayer α S d H dk)
    (X : Mat S d α) : Mat S d α :=
  decoderLayer cfg ℓ.params (ℓ.gen X) X

/-- The PLGA decoder stack: layers applied first to last. -/
noncomputable def plgaDecoder {S d H dk : Nat} (cfg : AttnConfig α S dk) :
    List (PLGALayer α S d H dk) → Mat S d α → Mat S d α
  | [], X => X
  | ℓ :: ls, X => plgaDecoder cfg ls (ℓ.run cfg X)

/-- The SDPA decoder stack. -/
noncomputable def sdpaDecoder {S d H dk : Nat} (cfg : AttnConfig α S dk) :
    List (LayerParams α S d H dk) → Mat S d α → Mat S d α
  | [], X => X
  | P :: Ps, X => sdpaDecoder cfg Ps (sdpaDecoderLayer cfg P X)

/-- Layers whose generators return the constant operators `c·I` in every head. -/
noncomputable def scalarLayers {S d H dk : Nat} (c : α) (Ps : List (LayerParams α S d H dk)) :
    List (PLGALayer α S d H dk) :=
  Ps.map fun P => ⟨P, fun _ _ => Mat.smul c (Mat.one dk)⟩

/-- Layers whose generators are pinned to the identity operator in every head. -/
noncomputable def identityLayers {S d H dk : Nat} (Ps : List (LayerParams α S d H dk)) :
    List (PLGALayer α S d H dk) :=
  Ps.map fun P => ⟨P, fun _ _ => Mat.one dk⟩

/-! ## SDPA inclusion for the multi-head layer and the stack -/

/-- SDPA inclusion, multi-head (paper's first theorem, `G_LM = I` in every head): for every mask,
scale and RoPE family, the PLGA multi-head layer equals the SDPA multi-head layer with the same
projections and biases. Does not cover: heads with different operators. -/
theorem mha_one_eq_mhaSDPA {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) : mha cfg P (fun _ => Mat.one dk) X = mhaSDPA cfg P X := by
  simp only [mha, mhaSDPA, plgaAttention_one_eq_sdpaAttention]

/-- SDPA inclusion, decoder layer (paper's first theorem). Does not cover: layers whose operator is
not the identity. -/
theorem decoderLayer_one_eq_sdpaDecoderLayer {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (P : LayerParams α S d H dk) (X : Mat S d α) :
    decoderLayer cfg P (fun _ => Mat.one dk) X = sdpaDecoderLayer cfg P X := by
  simp only [decoderLayer, sdpaDecoderLayer, mha_one_eq_mhaSDPA]

/-- SDPA inclusion, whole decoder (paper's first theorem): an `L`-layer PLGA decoder whose every
layer's operator is pinned to `I` is the `L`-layer SDPA decoder with the same parameters, on
every input. Does not cover: embedding/output head (compose them on both sides). -/
theorem plgaDecoder_identityLayers_eq_sdpaDecoder {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (Ps : List (LayerParams α S d H dk)) (X : Mat S d α) :
    plgaDecoder cfg (identityLayers Ps) X = sdpaDecoder cfg Ps X := by
  induction Ps generalizing X with
  | nil => rfl
  | cons P Ps ih =>
    show plgaDecoder cfg (identityLayers Ps) (decoderLayer cfg P (fun _ => Mat.one dk) X)
      = sdpaDecoder cfg Ps (sdpaDecoderLayer cfg P X)
    rw [decoderLayer_one_eq_sdpaDecoderLayer, ih]

/-- Temperature form, multi-head (paper's first theorem, scalar operators): `G_h = c·I` with `c ≠ 0`
in every head is multi-head SDPA with the scale divided by `c`. Does not cover: per-head
different scalars. -/
theorem mha_smul_one_eq_mhaSDPA {S d H dk : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (c : α) (hc : c ≠ 0) (X : Mat S d α) :
    mha cfg P (fun _ => Mat.smul c (Mat.one dk)) X
      = mhaSDPA { cfg with scale := cfg.scale / c } P X := by
  simp only [mha, mhaSDPA, plgaAttention_smul_one_eq_sdpaAttention _ _ _ c hc, queries, keys]

/-- Temperature form, whole decoder: every layer pinned to `c·I` (`c ≠ 0`) is the SDPA
decoder with scale `s / c`. Does not cover: layer-dependent scalars. -/
theorem plgaDecoder_scalarLayers_eq_sdpaDecoder {S d H dk : Nat} (cfg : AttnConfig α S dk)
    (c : α) (hc : c ≠ 0) (Ps : List (LayerParams α S d H dk)) (X : Mat S d α) :
    plgaDecoder cfg (scalarLayers c Ps) X
      = sdpaDecoder { cfg with scale := cfg.scale / c } Ps X := by
  induction Ps generalizing X with
  | nil => rfl
  | cons P Ps ih =>
    show plgaDecoder cfg (scalarLayers c Ps)
        (decoderLayer cfg P (fun _ => Mat.smul c (Mat.one dk)) X)
      = sdpaDecoder { cfg with scale := cfg.scale / c } Ps
        (sdpaDecoderLayer { cfg with scale := cfg.scale / c } P X)
    rw [← ih]
    simp only [decoderLayer, sdpaDecoderLayer, mha_smul_one_eq_mhaSDPA cfg P.attn c hc]

end PLGA.Attention
