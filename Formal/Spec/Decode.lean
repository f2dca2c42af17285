module

public import Formal.Spec.Theorems

/-!
# One cached decoding step, as pyref performs it (spec §B)

A KV-cached call of pyref's `PLDRModel.forward(tokens=[[s]], kvcache=…)` feeds one new token at
the absolute position `T` (the cached length): per layer and head its query and key are rotated at
`T`, the key is appended to the cached rotated keys `K̂` and its raw value to the cached values
`V`, no mask is applied, and the operator is recomputed from the cached `A` of the prefill (or
taken from the G-cache). This module defines that step on the spec model and proves what it
computes.

* **(a) exactness for fixed operators.** If every layer's operator is a given constant (SDPA:
  `G = I`; pyref's `ConstantGModel`), the cached step equals the last row of the full
  recomputation on the `T + 1` tokens, for the whole stack (the KV-cache of layer `l` holds the
  rotated keys and values of layer `l`'s prefill input), provided no token is the pad id `0`
  (the cached call masks nothing, the full call masks pad keys). The prefix rows of the full run
  are the prefill (prefix consistency of causal attention).
* **(b) the recomputed global Gram breaks it.** The operator the cached step uses is the prefill's
  (`A` frozen); full recomputation uses `Φ_res(LN_A(Q̂ᵀQ̂))` of all `T + 1` rotated queries.
  An explicit layer and input make the two operators differ, and an explicit one-head layer
  makes the cached step's attention output differ from the last row of the full
  recomputation's attention sublayer (`mha`), for every square root, gate and exponential with a
  logarithm.
* **(c) the error is the operator drift.** For the PLGA model the KV-cached step equals the step
  of the constant-operator model whose operators are the prefill's `G_LM`, and (no pads) the last
  row of the full run with every layer's operator pinned to the prefill's; so
  cached − uncached = pinned run − free run, and cached = uncached whenever the prefill operators
  equal the recomputed ones along the trajectory.

## Main definitions

* (from `Formal.Attention.Cache`) `Attention.initRows`, `lastRow`, `appendRow`: prefix rows,
  last row, appending a row; `Attention.prefixConfig`, `lastConfig`, `CausalLast`,
  `LastRowOpen`: the configurations of the prefill and of the cached call derived from the full
  one, and the two mask conditions;
* `KVEntry`, `kvEntry`, `kvAlong`, `aAlong`: pyref's per-layer cache `[K̂, V]` and the `A` part,
  filled along a prefill run;
* `mhaStep`, `layerStep`: pyref's `multi_head_attention` / `decoder_layer` on a cached call;
* `frozenOps`, `frozenOpsList`: the operator recomputed from the cached `A` (`ops.operator`);
* `decodeStack` (operators given: G-cache or constant model), `decodeKV` (operators from the
  cached `A`): the layers of a cached call;
* `stepConfig`, `stepLogits`, `kvStepLogits`, `pinnedStepLogits`, `pinnedLogits`, `prefillOps`:
  the logits of pyref's cached calls and of the constant-operator model.

## Main statements

* `pinnedDecoder_prefix_and_step`, `decodeStack_eq_lastRow_pinned`,
  `decodeStack_one_eq_lastRow_sdpaDecoder`: (a) for the spec stack;
* `pinnedStepLogits_eq_lastRow`, `pinnedStepLogits_one_eq_lastRow_sdpaLogits`: (a) at the logits;
* `lastRow_mha`: the last row of `mha` is the cached step with the same operators; (b) itself,
  the two counterexamples, is in `Formal.Spec.DecodeWitness`;
* `decodeKV_eq_decodeStack_prefillOps`, `kvStepLogits_eq_pinnedStepLogits`: the KV-cached step is
  the G-cached step with the prefill G-cache, and the constant-operator model's step;
* `decodeKV_eq_lastRow_pinned`, `kvStepLogits_eq_lastRow_pinnedLogits`, `kvStepLogits_sub_logits`,
  `decodeKV_eq_lastRow_decoder`, `kvStepLogits_eq_lastRow_logits`: (c).

## Implementation notes

One step after a prefill of length `T`: the full sequence has `T + 1` rows, its configuration
`cfg` gives the prefill's (`prefixConfig`) and the cached call's (`lastConfig`). RoPE is any row
family (`AttnConfig.rope`), so the offset `input_pos = T` is `cfg.rope (Fin.last T)`. Not covered:
several steps (the returned cache is not modelled), batches, pyref's finite `-1e9` mask, float
rounding. The witnesses of (b) are in `Formal.Spec.DecodeWitness`.

## References

* spec `PLGA_SPEC.md` §B (KV-cache, G-cache), §A.4; pyref `pyref/model.py` (`forward`,
  `decoder_layer`), `pyref/attention.py` (`multi_head_attention`);
* the independent evaluation `crosscheck/spec_eval/decode.py`; Rem 4.7 (prefix consistency).
-/

@[expose] public section

namespace PLGA.Spec

open PLGA PLGA.Attention PLGA.Density PLGA.RowMap PLGA.LayerNorm

attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

/-- The KV-cache entry of one layer: per head the rotated keys `K̂` and the raw values `V` of the
cached positions (pyref's `kvcache[l] = [K̂, V]`; the PLGA model adds `A`, see `aAlong`). -/
structure KVEntry (α : Type u) (T H dk : Nat) where
  /-- rotated keys per head (`K̂`, RoPE at the cached positions) -/
  K : Fin H → Mat T dk α
  /-- values per head (never rotated) -/
  V : Fin H → Mat T dk α

variable [Lean.Grind.Field α] [LE α] [LT α] {T d H dk hA hF : Nat}

/-! ## The caches a prefill fills -/

/-- The `[K̂, V]` a call returns for one layer: the rotated keys and the values of the layer's
input `X` (pyref `multi_head_attention`'s new `kv`). -/
noncomputable def kvEntry {S : Nat} (cfg : AttnConfig α S dk) (P : MHAParams α d H dk)
    (X : Mat S d α) : KVEntry α S H dk :=
  ⟨keys cfg P X, values P X⟩

/-- The KV-caches of a prefill on `X`, one per layer, along the run of the layers `ls` (pyref's
`forward(…).kvcache` without its `A`). -/
noncomputable def kvAlong {S : Nat} (cfg : AttnConfig α S dk) :
    List (PLGALayer α S d H dk) → Mat S d α → List (KVEntry α S H dk)
  | [], _ => []
  | ℓ :: ls, X => kvEntry cfg ℓ.params.attn X :: kvAlong cfg ls (ℓ.run cfg X)

/-- The `A` part of the PLGA prefill's KV-cache: per layer the `A = Φ_res(LN_A(Q̂ᵀQ̂))` of every
head at the layer's input, along the run of the spec layers (pyref's `kvcache[l][2]`). -/
noncomputable def aAlong {S : Nat} (F : Prims α) (cfg : AttnConfig α S dk) :
    List (LayerSpec α d H dk hA hF) → Mat S d α → List (Fin H → Mat dk dk α)
  | [], _ => []
  | L :: Ls, X => headA F cfg L.attn L.learner X :: aAlong F cfg Ls ((layer F cfg L).run cfg X)

/-! ## One cached call -/

/-- pyref's `multi_head_attention` on a cached call with operators `G`: the new row's query and
key rotated by `cfg1.rope 0` (position `T`), the key and value appended to the cache `c`, no mask,
scores `q̂ G K̂ᵀ / s`, output projection. -/
noncomputable def mhaStep (cfg1 : AttnConfig α 1 dk) (P : MHAParams α d H dk)
    (G : HeadOps α H dk) (c : KVEntry α T H dk) (y : Mat 1 d α) : Mat 1 d α :=
  affine (concatHeads fun h => plgaAttention cfg1.exp (fun _ _ => true) cfg1.scale
    (queries cfg1 P y h) (G h) (appendRow (c.K h) (keys cfg1 P y h))
    (appendRow (c.V h) (values P y h))) P.WO P.bO

/-- pyref's `decoder_layer` on a cached call: the post-LN wrapper around `mhaStep`. -/
noncomputable def layerStep (F : Prims α) (cfg1 : AttnConfig α 1 dk)
    (L : LayerSpec α d H dk hA hF) (G : HeadOps α H dk) (c : KVEntry α T H dk) (y : Mat 1 d α) :
    Mat 1 d α :=
  postLN (layerParams F L) y (mhaStep cfg1 L.attn G c y)

/-- The operator a KV-cached call computes from the cached `A` (density and `Φ_res` skipped,
spec A.4 steps 6–8: pyref's `ops.operator` on `kvcache[l][2]`). -/
noncomputable def frozenOps (F : Prims α) (M : LearnerParams α H dk hA)
    (A : Fin H → Mat dk dk α) : HeadOps α H dk :=
  fun h => opG (M.weights h) (opAP F (M.weights h) (opALM F (M.weights h) (A h)))

/-- `frozenOps` of every layer, from the layers' cached `A`s. -/
noncomputable def frozenOpsList (F : Prims α) :
    List (LayerSpec α d H dk hA hF) → List (Fin H → Mat dk dk α) → List (HeadOps α H dk)
  | L :: Ls, A :: As => frozenOps F L.learner A :: frozenOpsList F Ls As
  | _, _ => []

/-- The layers of a cached call with given per-layer operators `Gs` (a G-cache, or the constant
operators of pyref's `ConstantGModel`) and KV-caches `cs` (pyref's `_layers` with `kv`, `gc`). -/
noncomputable def decodeStack (F : Prims α) (cfg1 : AttnConfig α 1 dk) :
    List (LayerSpec α d H dk hA hF) → List (HeadOps α H dk) → List (KVEntry α T H dk) →
      Mat 1 d α → Mat 1 d α
  | L :: Ls, G :: Gs, c :: cs, y => decodeStack F cfg1 Ls Gs cs (layerStep F cfg1 L G c y)
  | _, _, _, y => y

/-- The layers of a KV-cached call of the PLGA model without G-cache: every layer's operator is
recomputed from its cached `A` (pyref's `_layers` with `kv = [K̂, V, A]`, `gc = None`). -/
noncomputable def decodeKV (F : Prims α) (cfg1 : AttnConfig α 1 dk)
    (Ls : List (LayerSpec α d H dk hA hF)) (As : List (Fin H → Mat dk dk α))
    (cs : List (KVEntry α T H dk)) (y : Mat 1 d α) : Mat 1 d α :=
  decodeStack F cfg1 Ls (frozenOpsList F Ls As) cs y

/-! ## The full recomputation, row by row -/

/-- The post-LN wrapper of a spec layer on one row `x` with attention output `y`:
`LN₂(x' + SwiGLU(x'))`, `x' = LN₁(x + y)`. -/
noncomputable def postRow (F : Prims α) (L : LayerSpec α d H dk hA hF) (x y : Vec d α) :
    Vec d α :=
  lnEps F.sqrt F.lnEps L.γ2 L.β2
    (fun j => lnEps F.sqrt F.lnEps L.γ1 L.β1 (fun k => x k + y k) j
      + swigluRow F.gate.f L.ffn (lnEps F.sqrt F.lnEps L.γ1 L.β1 (fun k => x k + y k)) j)

/-- The post-LN wrapper of a spec layer acts row by row (structural). -/
theorem postLN_row {S : Nat} (F : Prims α) (L : LayerSpec α d H dk hA hF) (X Y : Mat S d α)
    (t : Fin S) : postLN (layerParams F L) X Y t = postRow F L (X t) (Y t) := rfl

/-- Prefix consistency of one spec layer with operators `G` (Rem 4.7): under a causal mask, the
prefix rows of the layer on `T + 1` rows are the layer on the prefix (the prefill). -/
theorem decoderLayer_castSucc (F : Prims α) (cfg : AttnConfig α (T + 1) dk) (hc : CausalLast cfg)
    (L : LayerSpec α d H dk hA hF) (G : HeadOps α H dk) (X : Mat (T + 1) d α) (t : Fin T) :
    decoderLayer cfg (layerParams F L) G X t.castSucc
      = decoderLayer (prefixConfig cfg) (layerParams F L) G (initRows X) t := by
  show postLN (layerParams F L) X _ t.castSucc = postLN (layerParams F L) (initRows X) _ t
  rw [postLN_row, postLN_row]
  congr 1
  apply affine_concatHeads_row_congr
  intro h
  rw [plgaAttention_castSucc _ _ _ _ _ _ _ _ (hc t)]
  exact plgaAttention_row_congr _ _ _ _ _ _ _ _ _ _ _ rfl rfl

/-- The last row of one spec layer with operators `G` on `T + 1` rows is the cached step of the
new row with the same `G` and the KV-cache of the prefix, when the last row attends every key. -/
theorem decoderLayer_last (F : Prims α) (cfg : AttnConfig α (T + 1) dk) (ho : LastRowOpen cfg)
    (L : LayerSpec α d H dk hA hF) (G : HeadOps α H dk) (X : Mat (T + 1) d α) :
    decoderLayer cfg (layerParams F L) G X (Fin.last T)
      = layerStep F (lastConfig cfg) L G (kvEntry (prefixConfig cfg) L.attn (initRows X))
          (lastRow X) 0 := by
  show postLN (layerParams F L) X _ (Fin.last T) = postLN (layerParams F L) (lastRow X) _ 0
  rw [postLN_row, postLN_row]
  congr 1
  apply affine_concatHeads_row_congr
  intro h
  rw [keys_eq_appendRow cfg (layerParams F L).attn X h,
    values_eq_appendRow (layerParams F L).attn X h]
  exact plgaAttention_row_congr _ _ _ _ _ _ _ _ _ _ _ (funext fun p => ho p) rfl

/-- `decoderLayer_castSucc` for all prefix rows at once. -/
theorem initRows_decoderLayer (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (L : LayerSpec α d H dk hA hF) (G : HeadOps α H dk)
    (X : Mat (T + 1) d α) :
    initRows (decoderLayer cfg (layerParams F L) G X)
      = decoderLayer (prefixConfig cfg) (layerParams F L) G (initRows X) :=
  funext fun t => decoderLayer_castSucc F cfg hc L G X t

/-- `decoderLayer_last` as one-row matrices. -/
theorem lastRow_decoderLayer (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (ho : LastRowOpen cfg) (L : LayerSpec α d H dk hA hF) (G : HeadOps α H dk)
    (X : Mat (T + 1) d α) :
    lastRow (decoderLayer cfg (layerParams F L) G X)
      = layerStep F (lastConfig cfg) L G (kvEntry (prefixConfig cfg) L.attn (initRows X))
          (lastRow X) := by
  funext i
  have hi : i = 0 := Fin.ext (by have := i.isLt; omega)
  subst hi
  exact decoderLayer_last F cfg ho L G X

omit [LE α] in
/-- The last row of the multi-head attention sublayer on `T + 1` rows (pyref's
`multi_head_attention` of the full recomputation) is the cached step of the new row with the same
operators `G` and the KV-cache of the prefix, when the last row attends every key. -/
theorem lastRow_mha (cfg : AttnConfig α (T + 1) dk) (ho : LastRowOpen cfg)
    (P : MHAParams α d H dk) (G : HeadOps α H dk) (X : Mat (T + 1) d α) :
    lastRow (mha cfg P G X)
      = mhaStep (lastConfig cfg) P G (kvEntry (prefixConfig cfg) P (initRows X)) (lastRow X) := by
  funext i
  have hi : i = 0 := Fin.ext (by have := i.isLt; omega)
  subst hi
  show affine _ P.WO P.bO (Fin.last T) = affine _ P.WO P.bO 0
  apply affine_concatHeads_row_congr
  intro h
  rw [keys_eq_appendRow cfg P X h, values_eq_appendRow P X h]
  exact plgaAttention_row_congr _ _ _ _ _ _ _ _ _ _ _ (funext fun p => ho p) rfl

/-! ## (a) Fixed operators: the cached step is exact -/

/-- (a), whole stack: for spec layers with constant operators `Gs` (one per layer), under a
causal mask whose last row is open, (i) the prefix rows of the run on `T + 1` rows are the
prefill on the prefix, and (ii) the cached step — each layer's KV-cache filled from that layer's
prefill input — is the last row of the run. Does not cover: operators recomputed from the input
(see (b), (c)); pad keys (the cached call does not mask them). -/
theorem pinnedDecoder_prefix_and_step (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (ho : LastRowOpen cfg) :
    ∀ (Ls : List (LayerSpec α d H dk hA hF)) (Gs : List (HeadOps α H dk)) (X : Mat (T + 1) d α),
      initRows (plgaDecoder cfg (pinLayers (layers F cfg Ls) Gs) X)
          = plgaDecoder (prefixConfig cfg) (pinLayers (layers F (prefixConfig cfg) Ls) Gs)
              (initRows X) ∧
        decodeStack F (lastConfig cfg) Ls Gs
            (kvAlong (prefixConfig cfg) (pinLayers (layers F (prefixConfig cfg) Ls) Gs)
              (initRows X)) (lastRow X)
          = lastRow (plgaDecoder cfg (pinLayers (layers F cfg Ls) Gs) X)
  | [], _, _ => ⟨rfl, rfl⟩
  | _ :: _, [], _ => ⟨rfl, rfl⟩
  | L :: Ls, G :: Gs, X => by
    have ih := pinnedDecoder_prefix_and_step F cfg hc ho Ls Gs
      (decoderLayer cfg (layerParams F L) G X)
    rw [initRows_decoderLayer F cfg hc, lastRow_decoderLayer F cfg ho] at ih
    exact ih

/-- (a), the cached step alone: with constant operators the KV-cached step equals the last row of
the full recomputation. Does not cover: pad keys, operators recomputed from the input. -/
theorem decodeStack_eq_lastRow_pinned (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (ho : LastRowOpen cfg) (Ls : List (LayerSpec α d H dk hA hF))
    (Gs : List (HeadOps α H dk)) (X : Mat (T + 1) d α) :
    decodeStack F (lastConfig cfg) Ls Gs
        (kvAlong (prefixConfig cfg) (pinLayers (layers F (prefixConfig cfg) Ls) Gs) (initRows X))
        (lastRow X)
      = lastRow (plgaDecoder cfg (pinLayers (layers F cfg Ls) Gs) X) :=
  (pinnedDecoder_prefix_and_step F cfg hc ho Ls Gs X).2

/-- (a) for SDPA (`G = I` in every layer, pyref's `SDPAModel`): the KV-cached step equals the last
row of the SDPA decoder on the full sequence. Does not cover: pad keys. -/
theorem decodeStack_one_eq_lastRow_sdpaDecoder (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (ho : LastRowOpen cfg) (Ls : List (LayerSpec α d H dk hA hF))
    (X : Mat (T + 1) d α) :
    decodeStack F (lastConfig cfg) Ls (Ls.map fun _ _ => Mat.one dk)
        (kvAlong (prefixConfig cfg)
          (pinLayers (layers F (prefixConfig cfg) Ls) (Ls.map fun _ _ => Mat.one dk)) (initRows X))
        (lastRow X)
      = lastRow (sdpaDecoder cfg (sdpaLayers F Ls) X) := by
  rw [decodeStack_eq_lastRow_pinned F cfg hc ho, decoder_pinned_one_eq_sdpaDecoder]

/-! ## (c) The PLGA model: the cached step runs the prefill operators -/

omit [LE α] in
/-- The KV-caches along a run pinned to the operators recorded along the same run are that run's
KV-caches (structural). -/
theorem kvAlong_pinLayers_opsAlong {S : Nat} (cfg : AttnConfig α S dk) :
    ∀ (ls : List (PLGALayer α S d H dk)) (X : Mat S d α),
      kvAlong cfg (pinLayers ls (opsAlong cfg ls X)) X = kvAlong cfg ls X
  | [], _ => rfl
  | ℓ :: ls, X => by
    show kvEntry cfg ℓ.params.attn X :: kvAlong cfg (pinLayers ls (opsAlong cfg ls (ℓ.run cfg X)))
        (decoderLayer cfg ℓ.params (ℓ.gen X) X)
      = kvEntry cfg ℓ.params.attn X :: kvAlong cfg ls (ℓ.run cfg X)
    rw [← kvAlong_pinLayers_opsAlong cfg ls (ℓ.run cfg X)]
    rfl

/-- The operators recomputed from the cached `A`s are the prefill's operators `G_LM`, i.e. the
prefill's G-cache (spec B: "with KV-cache on, G is frozen at its prefill value"; structural). -/
theorem frozenOpsList_aAlong {S : Nat} (F : Prims α) (cfg : AttnConfig α S dk) :
    ∀ (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α),
      frozenOpsList F Ls (aAlong F cfg Ls X) = opsAlong cfg (layers F cfg Ls) X
  | [], _ => rfl
  | L :: Ls, X => by
    show frozenOps F L.learner (headA F cfg L.attn L.learner X)
        :: frozenOpsList F Ls (aAlong F cfg Ls ((layer F cfg L).run cfg X))
      = headG F cfg L.attn L.learner X
        :: opsAlong cfg (layers F cfg Ls) ((layer F cfg L).run cfg X)
    rw [frozenOpsList_aAlong F cfg Ls]
    rfl

/-- KV-only = KV+G (spec B): the KV-cached call recomputing the operators from the cached `A` is
the call taking them from the prefill's G-cache, for any KV-caches and new row. -/
theorem decodeKV_eq_decodeStack_prefillOps {S : Nat} (F : Prims α) (cfg1 : AttnConfig α 1 dk)
    (cfg : AttnConfig α S dk) (Ls : List (LayerSpec α d H dk hA hF)) (X : Mat S d α)
    (cs : List (KVEntry α S H dk)) (y : Mat 1 d α) :
    decodeKV F cfg1 Ls (aAlong F cfg Ls X) cs y
      = decodeStack F cfg1 Ls (opsAlong cfg (layers F cfg Ls) X) cs y := by
  unfold decodeKV; rw [frozenOpsList_aAlong]

/-- (c), stack: the KV-cached step of the PLGA spec stack equals the last row of the full run with
every layer's operator pinned to the prefill's. Does not cover: pad keys. -/
theorem decodeKV_eq_lastRow_pinned (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (ho : LastRowOpen cfg) (Ls : List (LayerSpec α d H dk hA hF))
    (X : Mat (T + 1) d α) :
    decodeKV F (lastConfig cfg) Ls (aAlong F (prefixConfig cfg) Ls (initRows X))
        (kvAlong (prefixConfig cfg) (layers F (prefixConfig cfg) Ls) (initRows X)) (lastRow X)
      = lastRow (plgaDecoder cfg (pinLayers (layers F cfg Ls)
          (opsAlong (prefixConfig cfg) (layers F (prefixConfig cfg) Ls) (initRows X))) X) := by
  rw [decodeKV_eq_decodeStack_prefillOps, ← kvAlong_pinLayers_opsAlong]
  exact decodeStack_eq_lastRow_pinned F cfg hc ho Ls _ X

/-- (c), exactness: if the prefill operators equal the operators recomputed along the full
trajectory (`InvariantAlong`), the KV-cached step equals full recomputation. Does not cover: the
converse (`Attention.gcache_exact_converse_fails`); pad keys. -/
theorem decodeKV_eq_lastRow_decoder (F : Prims α) (cfg : AttnConfig α (T + 1) dk)
    (hc : CausalLast cfg) (ho : LastRowOpen cfg) (Ls : List (LayerSpec α d H dk hA hF))
    (X : Mat (T + 1) d α)
    (h : InvariantAlong cfg (layers F cfg Ls)
      (opsAlong (prefixConfig cfg) (layers F (prefixConfig cfg) Ls) (initRows X)) X) :
    decodeKV F (lastConfig cfg) Ls (aAlong F (prefixConfig cfg) Ls (initRows X))
        (kvAlong (prefixConfig cfg) (layers F (prefixConfig cfg) Ls) (initRows X)) (lastRow X)
      = lastRow (decoder F cfg Ls X) := by
  rw [decodeKV_eq_lastRow_pinned F cfg hc ho, decoder_gcache_exact F cfg Ls _ X h]

/-! ## The model: logits of a cached call -/

/-- The configuration of pyref's cached call on the new token: exponential `E`, scale `√d_k`, RoPE
at the cached length (`R = R_T`), no mask. -/
noncomputable def stepConfig (F : Prims α) (E : ExpFn α) (R : Mat dk dk α) : AttnConfig α 1 dk where
  exp := E
  mask := fun _ _ => true
  scale := F.sqrt.sqrt (Nat.cast dk)
  rope := fun _ => R

/-- The prefill configuration of the model is pyref's uncached `config` on the prompt
(structural). -/
theorem prefixConfig_config {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (tok : Fin (T + 1) → Fin V) :
    prefixConfig (config F E rope tok)
      = config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc) := rfl

/-- The cached-call configuration of the model is `stepConfig` at `R_T` (structural). -/
theorem lastConfig_config {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (tok : Fin (T + 1) → Fin V) :
    lastConfig (config F E rope tok) = stepConfig F E (rope (Fin.last T)) := rfl

/-- The model's pad-causal mask is causal. -/
theorem config_causalLast {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (tok : Fin (T + 1) → Fin V) :
    CausalLast (config F E rope tok) := by
  intro t
  simp only [config, padCausalMask, Fin.val_last, Fin.val_castSucc]
  have := t.isLt
  simp only [Bool.and_eq_false_iff, decide_eq_false_iff_not]
  left; omega

/-- Without pad tokens (id `0`) the model's last row attends every key, as the cached call does.
Does not cover: sequences with pads (then the two differ already for SDPA). -/
theorem config_lastRowOpen {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (tok : Fin (T + 1) → Fin V)
    (hpad : ∀ p, (tok p).val ≠ 0) : LastRowOpen (config F E rope tok) := by
  intro p
  simp only [config, padCausalMask, Fin.val_last]
  have := p.isLt
  have := hpad p
  simp only [Bool.and_eq_true, decide_eq_true_eq, Bool.not_eq_true', decide_eq_false_iff_not]
  omega

/-- The logits of the model with every layer's operator pinned to `Gs` (pyref's
`ConstantGModel.forward`, uncached; with `Gs` the prefill's G-cache also pyref's
`forward(tokens, gcache=…)`). -/
noncomputable def pinnedLogits {S V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin S → Mat dk dk α) (M : ModelSpec α V d H dk hA hF) (tok : Fin S → Fin V)
    (Gs : List (HeadOps α H dk)) : Mat S V α :=
  affine (plgaDecoder (config F E rope tok) (pinLayers (layers F (config F E rope tok) M.layers) Gs)
    (embed F M tok)) M.Wout M.bout

/-- The logits of a cached call on the new token `s` at rotation `R` with per-layer operators
`Gs` and KV-caches `cs` (pyref's `forward([[s]], kvcache=…, gcache=…)` of the PLGA model, or
`forward([[s]], kvcache=…)` of `ConstantGModel` with `Gs` its constants). -/
noncomputable def stepLogits {V : Nat} (F : Prims α) (E : ExpFn α) (R : Mat dk dk α)
    (M : ModelSpec α V d H dk hA hF) (s : Fin V) (Gs : List (HeadOps α H dk))
    (cs : List (KVEntry α T H dk)) : Mat 1 V α :=
  affine (decodeStack F (stepConfig F E R) M.layers Gs cs (embed F M fun _ => s)) M.Wout M.bout

/-- The constant-operator model's (pyref `ConstantGModel`) cached call on token `T` after its
prefill on tokens `0, …, T-1`. -/
noncomputable def pinnedStepLogits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (Gs : List (HeadOps α H dk)) : Mat 1 V α :=
  stepLogits F E (rope (Fin.last T)) M (tok (Fin.last T)) Gs
    (kvAlong (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc))
      (pinLayers (layers F (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc))
        M.layers) Gs) (embed F M fun t => tok t.castSucc))

/-- The per-layer operators `G_LM` of the PLGA model's prefill on tokens `0, …, T-1` (pyref's
`forward(prompt).gcache`, its `G_LM` part). -/
noncomputable def prefillOps {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) : List (HeadOps α H dk) :=
  opsAlong (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc))
    (layers F (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc)) M.layers)
    (embed F M fun t => tok t.castSucc)

/-- The PLGA model's KV-cached call on token `T` after its prefill on tokens `0, …, T-1`, no
G-cache (pyref `forward([[tok_T]], kvcache=forward(prompt).kvcache)`): every layer takes its
`[K̂, V, A]` from the prefill and recomputes its operator from `A`. -/
noncomputable def kvStepLogits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) : Mat 1 V α :=
  affine (decodeKV F (stepConfig F E (rope (Fin.last T))) M.layers
    (aAlong F (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc)) M.layers
      (embed F M fun t => tok t.castSucc))
    (kvAlong (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc))
      (layers F (config F E (fun t => rope t.castSucc) (fun t => tok t.castSucc)) M.layers)
      (embed F M fun t => tok t.castSucc))
    (embed F M fun _ => tok (Fin.last T))) M.Wout M.bout

/-- (a) at the logits: the constant-operator model's cached call equals the last row of its full
forward pass on the `T + 1` tokens, for any per-layer constants. Does not cover: sequences with
pad tokens. -/
theorem pinnedStepLogits_eq_lastRow {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (hpad : ∀ p, (tok p).val ≠ 0) (Gs : List (HeadOps α H dk)) :
    pinnedStepLogits F E rope M tok Gs = lastRow (pinnedLogits F E rope M tok Gs) := by
  have h := decodeStack_eq_lastRow_pinned F (config F E rope tok)
    (config_causalLast F E rope tok) (config_lastRowOpen F E rope tok hpad) M.layers Gs
    (embed F M tok)
  unfold pinnedStepLogits stepLogits pinnedLogits
  rw [← lastConfig_config F E rope tok]
  erw [h]
  rfl

/-- (a) for SDPA at the logits (pyref's `SDPAModel` = `to_sdpa`): the cached call with every
operator `I` equals the last row of `sdpaLogits` on the `T + 1` tokens. Does not cover: pads. -/
theorem pinnedStepLogits_one_eq_lastRow_sdpaLogits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (hpad : ∀ p, (tok p).val ≠ 0) :
    pinnedStepLogits F E rope M tok (M.layers.map fun _ _ => Mat.one dk)
      = lastRow (sdpaLogits F E rope M tok) := by
  rw [pinnedStepLogits_eq_lastRow F E rope M tok hpad]
  unfold pinnedLogits sdpaLogits
  rw [decoder_pinned_one_eq_sdpaDecoder]

/-- (c) at the logits, without any hypothesis: the PLGA model's KV-cached call is the cached call
of the constant-operator model whose constants are the prefill's `G_LM` (pyref's
`to_constant_operator` built from the prefill operators), and also the KV+G call with the
prefill's G-cache. -/
theorem kvStepLogits_eq_pinnedStepLogits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) :
    kvStepLogits F E rope M tok = pinnedStepLogits F E rope M tok (prefillOps F E rope M tok) := by
  unfold kvStepLogits pinnedStepLogits stepLogits prefillOps
  rw [decodeKV_eq_decodeStack_prefillOps, kvAlong_pinLayers_opsAlong]

/-- (c) at the logits: the PLGA model's KV-cached call equals the last row of the uncached forward
pass with every layer's operator pinned to the prefill's. Does not cover: pad tokens. -/
theorem kvStepLogits_eq_lastRow_pinnedLogits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (hpad : ∀ p, (tok p).val ≠ 0) :
    kvStepLogits F E rope M tok
      = lastRow (pinnedLogits F E rope M tok (prefillOps F E rope M tok)) := by
  rw [kvStepLogits_eq_pinnedStepLogits, pinnedStepLogits_eq_lastRow F E rope M tok hpad]

/-- (c), error form: cached − uncached = pinned run − free run, entry by entry of the new token's
logits (the deviation the audit's `2·max dev < min margin` criterion bounds). Does not cover:
bounds on either side. -/
theorem kvStepLogits_sub_logits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (hpad : ∀ p, (tok p).val ≠ 0) (j : Fin V) :
    kvStepLogits F E rope M tok 0 j - logits F E rope M tok (Fin.last T) j
      = pinnedLogits F E rope M tok (prefillOps F E rope M tok) (Fin.last T) j
        - logits F E rope M tok (Fin.last T) j := by
  rw [kvStepLogits_eq_lastRow_pinnedLogits F E rope M tok hpad]
  rfl

/-- (c), exactness at the logits: if the prefill operators equal the ones recomputed along the
full sequence's trajectory, the KV-cached call equals the last row of the uncached forward pass.
Does not cover: the converse; pad tokens. -/
theorem kvStepLogits_eq_lastRow_logits {V : Nat} (F : Prims α) (E : ExpFn α)
    (rope : Fin (T + 1) → Mat dk dk α) (M : ModelSpec α V d H dk hA hF)
    (tok : Fin (T + 1) → Fin V) (hpad : ∀ p, (tok p).val ≠ 0)
    (h : InvariantAlong (config F E rope tok) (layers F (config F E rope tok) M.layers)
      (prefillOps F E rope M tok) (embed F M tok)) :
    kvStepLogits F E rope M tok = lastRow (logits F E rope M tok) := by
  rw [kvStepLogits_eq_lastRow_pinnedLogits F E rope M tok hpad]
  unfold pinnedLogits logits
  rw [decoder_gcache_exact F _ M.layers _ _ h]

end PLGA.Spec
